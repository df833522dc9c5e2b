//! The measurement file `oransim validate tls` reads ([`super::MEASURE_SCHEMA`]): the groups,
//! certificates and suites measured, each workload's runs, the check of every field, and the
//! rows' ids.

use std::collections::BTreeMap;

use profile::{KeyAction, KeyAlg, KeyOp};
use serde::{Deserialize, Serialize};

use super::MeasureError;

/// Which measurement set: how many runs, how long each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Set {
    /// CI's: 3 runs of 1 s per workload (about a minute in all).
    Reduced,
    /// 7 runs of 2 s per workload (a few minutes).
    Full,
}

impl Set {
    /// `reduced` or `full`.
    pub fn as_str(self) -> &'static str {
        match self {
            Set::Reduced => "reduced",
            Set::Full => "full",
        }
    }

    /// Runs per workload (at least 3, so that median, minimum and maximum differ).
    pub fn runs(self) -> u32 {
        match self {
            Set::Reduced => 3,
            Set::Full => 7,
        }
    }

    /// Seconds each `s_time` run collects for (`s_time -time`) \[s\].
    pub fn seconds(self) -> u32 {
        match self {
            Set::Reduced => 1,
            Set::Full => 2,
        }
    }
}

/// A TLS 1.3 key-exchange group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Group {
    /// X25519 (RFC 7748).
    X25519,
    /// secp256r1 (NIST P-256).
    P256,
}

impl Group {
    /// Both groups.
    pub const ALL: [Group; 2] = [Group::X25519, Group::P256];

    /// The id used in row ids: `x25519`, `p256`.
    pub fn id(self) -> &'static str {
        match self {
            Group::X25519 => "x25519",
            Group::P256 => "p256",
        }
    }

    /// OpenSSL's name for `Groups =`: `X25519`, `P-256`.
    pub fn openssl_name(self) -> &'static str {
        match self {
            Group::X25519 => "X25519",
            Group::P256 => "P-256",
        }
    }

    /// The profile op of the shared-secret derivation.
    pub fn agree_op(self) -> KeyOp {
        match self {
            Group::X25519 => KeyOp::of(KeyAlg::X25519, KeyAction::Agree),
            Group::P256 => KeyOp::of(KeyAlg::EcdhP256, KeyAction::Agree),
        }
    }

    /// The op that stands for the check of the peer's public key, which OpenSSL 3.0 runs
    /// before each derivation in TLS (`EVP_PKEY_derive_set_peer_ex` with `validate_peer`): for
    /// an EC key the full check of SP 800-56A 5.6.2.3.3, whose `n Q = O` step is one
    /// variable-base scalar multiplication, as costly as a derivation; for X25519, nothing
    /// (`None`). `openssl speed` sets its peer once, outside the timed loop.
    pub fn peer_check_op(self) -> Option<KeyOp> {
        match self {
            Group::X25519 => None,
            Group::P256 => Some(KeyOp::of(KeyAlg::EcdhP256, KeyAction::Agree)),
        }
    }

    /// The op that stands for key generation (one fixed-base multiplication; see the module
    /// docs).
    pub fn keygen_proxy_op(self) -> KeyOp {
        match self {
            Group::X25519 => KeyOp::of(KeyAlg::Ed25519, KeyAction::Sign),
            Group::P256 => KeyOp::of(KeyAlg::EcdsaP256, KeyAction::Sign),
        }
    }
}

/// A server certificate's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cert {
    /// RSA-2048 (signs with RSA-PSS in TLS 1.3).
    Rsa2048,
    /// ECDSA on P-256.
    EcdsaP256,
}

impl Cert {
    /// Both certificates.
    pub const ALL: [Cert; 2] = [Cert::Rsa2048, Cert::EcdsaP256];

    /// The id used in row ids: `rsa2048`, `ecdsap256`.
    pub fn id(self) -> &'static str {
        match self {
            Cert::Rsa2048 => "rsa2048",
            Cert::EcdsaP256 => "ecdsap256",
        }
    }

    /// The profile op of the server's CertificateVerify signature.
    pub fn sign_op(self) -> KeyOp {
        KeyOp::of(self.alg(), KeyAction::Sign)
    }

    /// The profile op of the client's check of that signature.
    pub fn verify_op(self) -> KeyOp {
        KeyOp::of(self.alg(), KeyAction::Verify)
    }

    /// The signature algorithm of the key.
    pub fn alg(self) -> KeyAlg {
        match self {
            Cert::Rsa2048 => KeyAlg::Rsa2048,
            Cert::EcdsaP256 => KeyAlg::EcdsaP256,
        }
    }
}

/// A TLS 1.3 cipher suite measured in bulk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TlsCipherSuite {
    /// TLS_AES_128_GCM_SHA256.
    Aes128GcmSha256,
    /// TLS_AES_256_GCM_SHA384.
    Aes256GcmSha384,
    /// TLS_CHACHA20_POLY1305_SHA256.
    Chacha20Poly1305Sha256,
}

impl TlsCipherSuite {
    /// The three suites.
    pub const ALL: [TlsCipherSuite; 3] = [
        TlsCipherSuite::Aes128GcmSha256,
        TlsCipherSuite::Aes256GcmSha384,
        TlsCipherSuite::Chacha20Poly1305Sha256,
    ];

    /// The IANA name (`-ciphersuites`).
    pub fn iana(self) -> &'static str {
        match self {
            TlsCipherSuite::Aes128GcmSha256 => "TLS_AES_128_GCM_SHA256",
            TlsCipherSuite::Aes256GcmSha384 => "TLS_AES_256_GCM_SHA384",
            TlsCipherSuite::Chacha20Poly1305Sha256 => "TLS_CHACHA20_POLY1305_SHA256",
        }
    }

    /// The id used in row ids: `aes128gcm`, `aes256gcm`, `chacha20poly1305`.
    pub fn id(self) -> &'static str {
        match self {
            TlsCipherSuite::Aes128GcmSha256 => "aes128gcm",
            TlsCipherSuite::Aes256GcmSha384 => "aes256gcm",
            TlsCipherSuite::Chacha20Poly1305Sha256 => "chacha20poly1305",
        }
    }

    /// The `openssl speed -aead -evp` cipher name.
    pub fn speed_name(self) -> &'static str {
        match self {
            TlsCipherSuite::Aes128GcmSha256 => "aes-128-gcm",
            TlsCipherSuite::Aes256GcmSha384 => "aes-256-gcm",
            TlsCipherSuite::Chacha20Poly1305Sha256 => "chacha20-poly1305",
        }
    }

    /// The record cipher.
    pub fn suite(self) -> protocols::Suite {
        match self {
            TlsCipherSuite::Aes128GcmSha256 => protocols::Suite::Aes128Gcm,
            TlsCipherSuite::Aes256GcmSha384 => protocols::Suite::Aes256Gcm,
            TlsCipherSuite::Chacha20Poly1305Sha256 => protocols::Suite::ChaCha20Poly1305,
        }
    }
}

/// One `s_time -new` run against a handshake server.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HandshakeRun {
    /// Full handshakes `s_time` completed.
    pub handshakes: u64,
    /// Wall time of the `s_time` process, start to exit \[ns\].
    pub wall_ns: u64,
    /// CPU time of `s_server` over the run (`/proc/<pid>/schedstat`) \[ns\].
    pub server_cpu_ns: u64,
    /// CPU time of `s_time` (user + system, from `wait4`) \[ns\].
    pub client_cpu_ns: u64,
}

/// One `s_time -www /file` run against a bulk server.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BulkRun {
    /// Connections, each fetching the whole file.
    pub connections: u64,
    /// Bytes the client read (file and HTTP header) \[bytes\].
    pub bytes: u64,
    /// Wall time of the `s_time` process \[ns\].
    pub wall_ns: u64,
    /// CPU time of `s_server` over the run \[ns\].
    pub server_cpu_ns: u64,
    /// CPU time of `s_time` \[ns\].
    pub client_cpu_ns: u64,
}

/// The handshake workload of one (group, certificate) pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandshakeWorkload {
    /// Key-exchange group.
    pub group: Group,
    /// Server certificate.
    pub cert: Cert,
    /// The runs, in the order taken.
    pub runs: Vec<HandshakeRun>,
}

/// Handshakes of one (group, certificate) pair from several `s_time -new` clients at once
/// against one server (the full set's; issue 36 #3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConcurrentWorkload {
    /// Key-exchange group.
    pub group: Group,
    /// Server certificate.
    pub cert: Cert,
    /// Clients started together.
    pub clients: u32,
    /// The runs: `handshakes` and `client_cpu_ns` summed over the clients, `wall_ns` the
    /// longest client's.
    pub runs: Vec<HandshakeRun>,
}

/// The bulk workload of one cipher suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BulkWorkload {
    /// Cipher suite.
    pub suite: TlsCipherSuite,
    /// Size of the file served \[bytes\].
    pub file_bytes: u64,
    /// The runs, in the order taken.
    pub runs: Vec<BulkRun>,
}

/// `openssl speed -mr` on the same host: its raw output and what the project's importer
/// (`crypto_bench::openssl::parse`) read from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Speed {
    /// Each command's arguments after `openssl speed`, one string each.
    pub commands: Vec<String>,
    /// The concatenated standard output of those commands.
    pub output: String,
    /// op -> (length \[bytes\], ns per operation), as parsed; key ops at length 0.
    pub ops: BTreeMap<String, Vec<(u64, f64)>>,
}

/// A whole measurement: what `live::openssl_tls::measure` writes, raw per run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TlsMeasurements {
    /// [`super::MEASURE_SCHEMA`].
    pub schema: String,
    /// `openssl version` output, e.g. `OpenSSL 3.0.19 27 Jan 2026 (Library: ...)`.
    pub openssl_version: String,
    /// Which set was run.
    pub set: Set,
    /// Logical CPUs of the host.
    pub host_cores: u32,
    /// 1-minute load average before the first workload.
    pub load_before: f64,
    /// 1-minute load average after the last.
    pub load_after: f64,
    /// One per (group, certificate).
    pub handshakes: Vec<HandshakeWorkload>,
    /// One per suite.
    pub bulk: Vec<BulkWorkload>,
    /// Handshakes from several clients at once, one per (group, certificate, clients) (the
    /// full set's; empty in files written before the bench ran them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub concurrent: Vec<ConcurrentWorkload>,
    /// Resumed handshakes (`s_time -reuse`: every connection after the first resumes its
    /// session), one per (group, certificate) (the full set's; empty before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumed: Vec<HandshakeWorkload>,
    /// Cipher and key-op costs of the same libcrypto.
    pub speed: Speed,
    /// The host's other work before and during the run (issue 36 #2; live's `noise` module): above
    /// [`crate::validate::TOO_NOISY_SHARE`] `oransim validate tls` refuses to judge. `None` in
    /// files written before the bench measured it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<crate::validate::Noise>,
}

impl TlsMeasurements {
    /// Checks every field against what a run on a host can be (issue 39 #9): 1 to 4096 cores,
    /// loads finite and not negative, every run at least one handshake or connection and one
    /// byte, wall times from 1 us to a day, CPU times at most a day of 4096 cores, `speed`'s
    /// costs finite and above 0, and each (group, certificate) and suite measured once. The
    /// error names the field, as `handshakes[2].runs[0].wall_ns`.
    pub fn check(&self) -> Result<(), MeasureError> {
        const DAY_NS: u64 = 86_400_000_000_000;
        let bad = |key: String, v: String, allowed: &str| {
            Err(MeasureError(format!("`{key}` = {v}: {allowed}")))
        };
        if !(1..=4096).contains(&self.host_cores) {
            return bad(
                "host_cores".into(),
                self.host_cores.to_string(),
                "1 to 4096",
            );
        }
        for (key, v) in [
            ("load_before", self.load_before),
            ("load_after", self.load_after),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(key.into(), format!("{v:?}"), "a finite number >= 0");
            }
        }
        if let Some(n) = &self.noise {
            n.check()?;
        }
        let run = |key: String, count: (&str, u64), wall: u64, cpus: [(&str, u64); 2]| {
            if count.1 == 0 {
                return bad(format!("{key}.{}", count.0), "0".into(), "at least 1");
            }
            if !(1_000..=DAY_NS).contains(&wall) {
                return bad(
                    format!("{key}.wall_ns"),
                    wall.to_string(),
                    "a wall time from 1 us to a day",
                );
            }
            for (name, v) in cpus {
                if v > DAY_NS.saturating_mul(4096) {
                    return bad(
                        format!("{key}.{name}"),
                        v.to_string(),
                        "a CPU time of at most a day of 4096 cores",
                    );
                }
            }
            Ok(())
        };
        let mut seen = std::collections::BTreeSet::new();
        for (i, w) in self.handshakes.iter().enumerate() {
            if !seen.insert(handshake_id(w.group, w.cert)) {
                return Err(MeasureError(format!(
                    "`handshakes[{i}]`: {} is measured twice; one workload per group and certificate",
                    handshake_id(w.group, w.cert)
                )));
            }
            for (j, r) in w.runs.iter().enumerate() {
                run(
                    format!("handshakes[{i}].runs[{j}]"),
                    ("handshakes", r.handshakes),
                    r.wall_ns,
                    [
                        ("server_cpu_ns", r.server_cpu_ns),
                        ("client_cpu_ns", r.client_cpu_ns),
                    ],
                )?;
            }
        }
        let hs_runs = |key: &str, runs: &[HandshakeRun]| -> Result<(), MeasureError> {
            for (j, r) in runs.iter().enumerate() {
                run(
                    format!("{key}.runs[{j}]"),
                    ("handshakes", r.handshakes),
                    r.wall_ns,
                    [
                        ("server_cpu_ns", r.server_cpu_ns),
                        ("client_cpu_ns", r.client_cpu_ns),
                    ],
                )?;
            }
            Ok(())
        };
        for (i, w) in self.concurrent.iter().enumerate() {
            let id = concurrent_id(w.group, w.cert, w.clients);
            if !(1..=1024).contains(&w.clients) {
                return bad(
                    format!("concurrent[{i}].clients"),
                    w.clients.to_string(),
                    "1 to 1024 clients",
                );
            }
            if !seen.insert(id.clone()) {
                return Err(MeasureError(format!(
                    "`concurrent[{i}]`: {id} is measured twice; one workload per group, certificate and client count"
                )));
            }
            hs_runs(&format!("concurrent[{i}]"), &w.runs)?;
        }
        for (i, w) in self.resumed.iter().enumerate() {
            let id = resumed_id(w.group, w.cert);
            if !seen.insert(id.clone()) {
                return Err(MeasureError(format!(
                    "`resumed[{i}]`: {id} is measured twice; one workload per group and certificate"
                )));
            }
            hs_runs(&format!("resumed[{i}]"), &w.runs)?;
        }
        for (i, w) in self.bulk.iter().enumerate() {
            if !seen.insert(bulk_id(w.suite)) {
                return Err(MeasureError(format!(
                    "`bulk[{i}]`: {} is measured twice; one workload per suite",
                    bulk_id(w.suite)
                )));
            }
            if w.file_bytes == 0 {
                return bad(
                    format!("bulk[{i}].file_bytes"),
                    "0".into(),
                    "at least 1 byte",
                );
            }
            for (j, r) in w.runs.iter().enumerate() {
                let key = format!("bulk[{i}].runs[{j}]");
                if r.bytes == 0 {
                    return bad(format!("{key}.bytes"), "0".into(), "at least 1 byte");
                }
                run(
                    key,
                    ("connections", r.connections),
                    r.wall_ns,
                    [
                        ("server_cpu_ns", r.server_cpu_ns),
                        ("client_cpu_ns", r.client_cpu_ns),
                    ],
                )?;
            }
        }
        for (op, points) in &self.speed.ops {
            if let Some((len, ns)) = points.iter().find(|p| !(p.1.is_finite() && p.1 > 0.0)) {
                return bad(
                    format!("speed.ops.\"{op}\" at {len} B"),
                    format!("{ns:?}"),
                    "a cost above 0 ns",
                );
            }
        }
        Ok(())
    }
}

/// The row id of a concurrent handshake workload: `tls.hs.<group>.<cert>.clients<K>`.
pub fn concurrent_id(group: Group, cert: Cert, clients: u32) -> String {
    format!("{}.clients{clients}", handshake_id(group, cert))
}

/// The row id of a resumed handshake workload: `tls.hs.<group>.<cert>.resumed`.
pub fn resumed_id(group: Group, cert: Cert) -> String {
    format!("{}.resumed", handshake_id(group, cert))
}

/// The row id of a handshake workload: `tls.hs.<group>.<cert>`.
pub fn handshake_id(group: Group, cert: Cert) -> String {
    format!("tls.hs.{}.{}", group.id(), cert.id())
}

/// The row id of a bulk workload: `tls.tput.<suite>`.
pub fn bulk_id(suite: TlsCipherSuite) -> String {
    format!("tls.tput.{}", suite.id())
}
