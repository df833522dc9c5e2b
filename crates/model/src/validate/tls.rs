//! `oransim validate tls`: OpenSSL's `s_server`/`s_time` on loopback, measured beside a
//! mechanistic model whose cipher and key-op costs come from `openssl speed` on the same host
//! (docs/implementation-tls.md).
//!
//! The measurements ([`TlsMeasurements`], schema [`MEASURE_SCHEMA`]) are raw per-run values;
//! [`validate`] fits the implementation's terms on one workload of each kind and predicts the
//! others:
//!
//! - **Handshakes.** `s_time -new` keeps one connection in flight, so the client and the server
//!   alternate: a handshake's period is `C_s + C_c + W`, the server's and the client's CPU per
//!   handshake and a wait `W` in which neither computes (loopback round trips, wake-ups). Each
//!   process has a core of its own on a host with two or more cores, so neither waits for a
//!   core; the second core adds no rate to this workload. `C_s = O_s + keygen(g) + check(g) +
//!   agree(g) + sign(cert)`, `C_c = O_c + keygen(g) + check(g) + agree(g) + verify(cert)`
//!   (`check`: the peer's public key, [`Group::peer_check_op`]); `O_s`, `O_c` and `W` are
//!   fitted once, on X25519 with an ECDSA P-256 certificate ([`FIT_HANDSHAKE`]); the other
//!   three combinations are predicted.
//! - **Bulk records.** A byte takes `t = O_b + seal(suite) + open(suite)` at 16 KiB records,
//!   `O_b` fitted on AES-256-GCM ([`FIT_BULK`]); `openssl speed` times encryption only, so
//!   `open` is taken equal to `seal`. The model is serial; on a quiet two-core host server and
//!   client overlap (their busy fractions add up to about 1.5 on the dev host), which `O_b`
//!   absorbs as long as the overlap is alike for every suite. The same holds for `W` above,
//!   which comes out negative when the handshakes' server and client overlap.
//!
//! Key generation is one fixed-base scalar multiplication, which `openssl speed` does not time
//! alone; the signature dominated by the same multiplication on the same curve stands for it
//! (`ed25519.sign` for X25519, `ecdsa-p256.sign` for P-256): an upper bound, since the
//! signature adds hashing (and, for ECDSA, an inversion).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use profile::file::ImplementationFile;
use profile::{RealImplementation, Term};

use super::{Measured, Row, RowClass, Rule, Validation};
use crate::evidence::Anchor;

/// The JSON schema name of a [`TlsMeasurements`] document.
pub const MEASURE_SCHEMA: &str = "oransim.measure.tls/1";

/// Record plaintext length the bulk model charges the cipher for \[bytes\]: `s_server -WWW`
/// writes 16 KiB at a time, TLS 1.3's largest record.
pub const RECORD_LEN: u64 = 16384;

/// The handshake workload the handshake terms are fitted to.
pub const FIT_HANDSHAKE: (Group, Cert) = (Group::X25519, Cert::EcdsaP256);

/// The bulk workload the record term is fitted to.
pub const FIT_BULK: TlsSuite = TlsSuite::Aes256GcmSha384;

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
    pub fn agree_op(self) -> &'static str {
        match self {
            Group::X25519 => "x25519.agree",
            Group::P256 => "ecdh-p256.agree",
        }
    }

    /// The op that stands for the check of the peer's public key, which OpenSSL 3.0 runs
    /// before each derivation in TLS (`EVP_PKEY_derive_set_peer_ex` with `validate_peer`): for
    /// an EC key the full check of SP 800-56A 5.6.2.3.3, whose `n Q = O` step is one
    /// variable-base scalar multiplication, as costly as a derivation; for X25519, nothing
    /// (`None`). `openssl speed` sets its peer once, outside the timed loop.
    pub fn peer_check_op(self) -> Option<&'static str> {
        match self {
            Group::X25519 => None,
            Group::P256 => Some("ecdh-p256.agree"),
        }
    }

    /// The op that stands for key generation (one fixed-base multiplication; see the module
    /// docs).
    pub fn keygen_proxy_op(self) -> &'static str {
        match self {
            Group::X25519 => "ed25519.sign",
            Group::P256 => "ecdsa-p256.sign",
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
    pub fn sign_op(self) -> &'static str {
        match self {
            Cert::Rsa2048 => "rsa2048.sign",
            Cert::EcdsaP256 => "ecdsa-p256.sign",
        }
    }

    /// The profile op of the client's check of that signature.
    pub fn verify_op(self) -> &'static str {
        match self {
            Cert::Rsa2048 => "rsa2048.verify",
            Cert::EcdsaP256 => "ecdsa-p256.verify",
        }
    }
}

/// A TLS 1.3 cipher suite measured in bulk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TlsSuite {
    /// TLS_AES_128_GCM_SHA256.
    Aes128GcmSha256,
    /// TLS_AES_256_GCM_SHA384.
    Aes256GcmSha384,
    /// TLS_CHACHA20_POLY1305_SHA256.
    Chacha20Poly1305Sha256,
}

impl TlsSuite {
    /// The three suites.
    pub const ALL: [TlsSuite; 3] = [
        TlsSuite::Aes128GcmSha256,
        TlsSuite::Aes256GcmSha384,
        TlsSuite::Chacha20Poly1305Sha256,
    ];

    /// The IANA name (`-ciphersuites`).
    pub fn iana(self) -> &'static str {
        match self {
            TlsSuite::Aes128GcmSha256 => "TLS_AES_128_GCM_SHA256",
            TlsSuite::Aes256GcmSha384 => "TLS_AES_256_GCM_SHA384",
            TlsSuite::Chacha20Poly1305Sha256 => "TLS_CHACHA20_POLY1305_SHA256",
        }
    }

    /// The id used in row ids: `aes128gcm`, `aes256gcm`, `chacha20poly1305`.
    pub fn id(self) -> &'static str {
        match self {
            TlsSuite::Aes128GcmSha256 => "aes128gcm",
            TlsSuite::Aes256GcmSha384 => "aes256gcm",
            TlsSuite::Chacha20Poly1305Sha256 => "chacha20poly1305",
        }
    }

    /// The `openssl speed -aead -evp` cipher name.
    pub fn speed_name(self) -> &'static str {
        match self {
            TlsSuite::Aes128GcmSha256 => "aes-128-gcm",
            TlsSuite::Aes256GcmSha384 => "aes-256-gcm",
            TlsSuite::Chacha20Poly1305Sha256 => "chacha20-poly1305",
        }
    }

    /// The record cipher.
    pub fn suite(self) -> protocols::Suite {
        match self {
            TlsSuite::Aes128GcmSha256 => protocols::Suite::Aes128Gcm,
            TlsSuite::Aes256GcmSha384 => protocols::Suite::Aes256Gcm,
            TlsSuite::Chacha20Poly1305Sha256 => protocols::Suite::ChaCha20Poly1305,
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
    pub suite: TlsSuite,
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
    /// [`MEASURE_SCHEMA`].
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
    /// The host's other work before and during the run (issue 36 #2; `live::noise`): above
    /// [`super::TOO_NOISY_SHARE`] `oransim validate tls` refuses to judge. `None` in files
    /// written before the bench measured it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<super::Noise>,
}

impl TlsMeasurements {
    /// Checks every field against what a run on a host can be (issue 39 #9): 1 to 4096 cores,
    /// loads finite and not negative, every run at least one handshake or connection and one
    /// byte, wall times from 1 us to a day, CPU times at most a day of 4096 cores, `speed`'s
    /// costs finite and above 0, and each (group, certificate) and suite measured once. The
    /// error names the field, as `handshakes[2].runs[0].wall_ns`.
    pub fn check(&self) -> Result<(), String> {
        const DAY_NS: u64 = 86_400_000_000_000;
        let bad = |key: String, v: String, allowed: &str| Err(format!("`{key}` = {v}: {allowed}"));
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
                return Err(format!(
                    "`handshakes[{i}]`: {} is measured twice; one workload per group and certificate",
                    handshake_id(w.group, w.cert)
                ));
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
        let hs_runs = |key: &str, runs: &[HandshakeRun]| -> Result<(), String> {
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
                return Err(format!(
                    "`concurrent[{i}]`: {id} is measured twice; one workload per group, certificate and client count"
                ));
            }
            hs_runs(&format!("concurrent[{i}]"), &w.runs)?;
        }
        for (i, w) in self.resumed.iter().enumerate() {
            let id = resumed_id(w.group, w.cert);
            if !seen.insert(id.clone()) {
                return Err(format!(
                    "`resumed[{i}]`: {id} is measured twice; one workload per group and certificate"
                ));
            }
            hs_runs(&format!("resumed[{i}]"), &w.runs)?;
        }
        for (i, w) in self.bulk.iter().enumerate() {
            if !seen.insert(bulk_id(w.suite)) {
                return Err(format!(
                    "`bulk[{i}]`: {} is measured twice; one workload per suite",
                    bulk_id(w.suite)
                ));
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
pub fn bulk_id(suite: TlsSuite) -> String {
    format!("tls.tput.{}", suite.id())
}

/// What a model input lacks.
fn op_ns(m: &TlsMeasurements, op: &str, len: u64) -> Result<f64, String> {
    m.speed
        .ops
        .get(op)
        .and_then(|pts| pts.iter().find(|p| p.0 == len))
        .map(|p| p.1)
        .ok_or_else(|| format!("openssl speed gave no `{op}` at {len} B"))
}

/// Server and client crypto per handshake \[ns\].
fn handshake_crypto(m: &TlsMeasurements, g: Group, c: Cert) -> Result<(f64, f64), String> {
    let check = match g.peer_check_op() {
        Some(op) => op_ns(m, op, 0)?,
        None => 0.0,
    };
    let kex = op_ns(m, g.keygen_proxy_op(), 0)? + check + op_ns(m, g.agree_op(), 0)?;
    Ok((
        kex + op_ns(m, c.sign_op(), 0)?,
        kex + op_ns(m, c.verify_op(), 0)?,
    ))
}

/// Handshakes the engine run of one workload simulates (closed loop of one client: the first
/// has no Finished of an earlier one to overlap with, so more handshakes weigh it less).
pub const ENGINE_HANDSHAKES: u32 = 200;

/// A client's handshake as the engine runs it: the server's and the client's CPU per
/// handshake \[ns\], the wait `W` \[ns\] (negative: the server's work on a Finished
/// overlaps the client's next handshake), and the bench: how many clients at once, on a host
/// of how many cores.
#[derive(Debug, Clone, Copy)]
pub struct EngineHandshake {
    /// The server's CPU per handshake \[ns\].
    pub server_ns: f64,
    /// The client's CPU per handshake \[ns\].
    pub client_ns: f64,
    /// The client's part of it before its ClientHello leaves (key generation and half its
    /// overhead) \[ns\].
    pub client_before_ns: f64,
    /// The wait `W` \[ns\].
    pub wait_ns: f64,
    /// `s_time` clients handshaking at once, at least 1 (each one process, one handshake at a
    /// time).
    pub clients: u32,
    /// The logical CPUs of the host the server and its clients share, at least 1.
    pub host_cores: u32,
}

/// The handshakes per second of `s_time -new` (each client one handshake at a time) against
/// `s_server`, as the engine runs it: the clients and the server two nodes joined by loopback
/// on one host of `host_cores` cores, the server on one thread holding one connection at a time
/// (`s_server`: one session, from a ClientHello to that connection's Finished) and the clients
/// on one each (a closed loop of `clients`), a TLS 1.3
/// handshake of X25519/P-256 with the certificate's sizes
/// (`protocols::tls_handshake`): the ClientHello flight and the server's flight as one
/// exchange, the client's Finished as a one-way exchange after which the client starts its
/// next handshake. The client's CPU is charged half before its ClientHello (with its key
/// generation), the rest on the server's flight; the server's on the ClientHello, less what
/// overlaps: with `W` < 0, `-W` of the server's CPU (at most all of it) is charged on the
/// Finished instead, while the client's next handshake begins; with `W` > 0 the loopback
/// carries each flight `W / 2` later. Loopback's kernel time is inside each side's measured CPU,
/// so the link adds no time of its own (100 Gbit/s, no propagation).
pub fn engine_handshake_rate(h: EngineHandshake, group: Group, cert: Cert) -> Result<f64, String> {
    use sim_core::network::{
        FlowConfig, HandshakeExchange, LineFraming, LinkConfig, Network, NodeConfig, Service,
        Source, Stop,
    };
    use sim_core::time::{DataRate, SimDuration};
    let ps = |ns: f64| SimDuration::from_secs_f64(ns.max(0.0) * 1e-9).unwrap_or_default();
    let auth = match cert {
        Cert::Rsa2048 => protocols::ikev2::Auth::Rsa2048,
        Cert::EcdsaP256 => protocols::ikev2::Auth::EcdsaP256,
    };
    let name = match group {
        Group::X25519 => "x25519",
        Group::P256 => "secp256r1",
    };
    // Loopback's MTU (65536) carries each flight in one segment.
    let shake =
        protocols::tls_handshake::handshake(name, auth, &[auth.estimated_cert_len()], 65536, 4)
            .map_err(|e| e.to_string())?;
    let flight = |i: usize| -> u32 {
        let f = &shake.flights[i];
        (f.record_bytes + f.segments * (20 + 20)) as u32
    };
    let overlap = (-h.wait_ns).clamp(0.0, h.server_ns);
    let delay = ps(h.wait_ns.max(0.0) / 2.0);
    let before = h.client_before_ns.min(h.client_ns);
    let exchanges = vec![
        HandshakeExchange {
            name: "ClientHello".into(),
            request: flight(0),
            response: flight(1),
            request_datagrams: shake.flights[0].segments as u32,
            response_datagrams: shake.flights[1].segments as u32,
            initiator_before: ps(before),
            responder: ps(h.server_ns - overlap),
            initiator_after: ps(h.client_ns - before),
            initiator_per_held: SimDuration::ZERO,
            responder_per_held: SimDuration::ZERO,
            one_way: false,
            priority: sim_core::network::JobPriority::Medium,
        },
        HandshakeExchange {
            name: "Finished".into(),
            request: flight(2),
            response: 0,
            request_datagrams: shake.flights[2].segments as u32,
            response_datagrams: 0,
            initiator_before: SimDuration::ZERO,
            responder: ps(overlap),
            initiator_after: SimDuration::ZERO,
            initiator_per_held: SimDuration::ZERO,
            responder_per_held: SimDuration::ZERO,
            one_way: true,
            priority: sim_core::network::JobPriority::Medium,
        },
    ];
    let node = |n: &str| NodeConfig {
        name: n.into(),
        service: Service::None,
        receive: None,
        transit: None,
        io: None,
        latency: SimDuration::ZERO,
        by_protected_len: false,
        lanes: false,
        machines: 1,
        servers: 1,
        capacity: None,
    };
    let clients = h.clients.max(1);
    let net = Network {
        nodes: vec![node("s_time"), node("s_server")],
        links: vec![LinkConfig {
            name: "loopback".into(),
            a: 0,
            b: 1,
            rate: DataRate::from_bps(100_000_000_000).ok_or("a 100 Gbit/s rate")?,
            propagation: delay,
            mtu: None,
            queue_capacity: None,
            loss: 0.0,
            framing: LineFraming::Bare,
        }],
        flows: vec![FlowConfig {
            name: "tls".into(),
            path: vec![0, 1],
            mtu_exempt: 0,
            ethernet_header: false,
            protected_len: vec![],
            source: Source::Handshake {
                exchanges: exchanges.into(),
                tunnels: ENGINE_HANDSHAKES,
                spacing: SimDuration::ZERO,
                retransmit: None,
                clients,
                established: false,
                sessions: 1,
            },
        }],
        stop: Stop::default(),
        warmup: SimDuration::ZERO,
        hosts: vec![sim_core::network::HostConfig {
            name: "bench".into(),
            cores: h.host_cores.max(1),
            nodes: vec![0, 1],
            threads: vec![(0, clients), (1, 1)],
        }],
    };
    let r = sim_core::engine::run_replication(&net, 1, 0).map_err(|e| e.to_string())?;
    let hs = &r.flows[0].handshake;
    if hs.count() != u64::from(ENGINE_HANDSHAKES) {
        return Err(format!(
            "the engine completed {} of {ENGINE_HANDSHAKES} handshakes",
            hs.count()
        ));
    }
    let mean = hs.summary().mean_ns;
    if mean.is_nan() || mean <= 0.0 {
        return Err("the engine's handshakes took no time".into());
    }
    // Little's law: `clients` handshakes are always in progress (each client starts its next
    // as its last ends), so the rate is clients over the mean handshake.
    Ok(f64::from(clients) * 1e9 / mean)
}

/// A handshake rate predicted by the engine, with the CPU it charged.
struct Predicted {
    /// The server's CPU per handshake \[ns\].
    server_ns: f64,
    /// The client's CPU per handshake \[ns\].
    client_ns: f64,
    /// The fitted wait `W` \[ns\].
    wait_ns: f64,
    /// The signature and verification a resumed handshake skips \[ns\] (0 for a full one).
    skipped_ns: f64,
    /// Handshakes per second.
    rate: f64,
}

/// The engine's handshake rate of `clients` `s_time` clients at once against `s_server` for
/// `(group, cert)`, from the fitted terms `t` and the measured crypto: a full handshake, or a
/// resumed one (`psk_dhe_ke`: the key exchange stays, the certificate's signature and its
/// verification go).
fn predicted_rate(
    m: &TlsMeasurements,
    t: &Terms,
    (group, cert): (Group, Cert),
    clients: u32,
    resumed: bool,
) -> Result<Predicted, String> {
    let (cs, cc) = handshake_crypto(m, group, cert)?;
    let (sign, verify) = if resumed {
        (op_ns(m, cert.sign_op(), 0)?, op_ns(m, cert.verify_op(), 0)?)
    } else {
        (0.0, 0.0)
    };
    let (server_ns, client_ns, wait_ns) = (
        t.server_overhead_ns.0 + cs - sign,
        t.client_overhead_ns.0 + cc - verify,
        t.wait_ns.0,
    );
    let keygen = op_ns(m, group.keygen_proxy_op(), 0)?;
    let rate = engine_handshake_rate(
        EngineHandshake {
            server_ns,
            client_ns,
            client_before_ns: keygen + t.client_overhead_ns.0.max(0.0) / 2.0,
            wait_ns,
            clients,
            host_cores: m.host_cores,
        },
        group,
        cert,
    )?;
    Ok(Predicted {
        server_ns,
        client_ns,
        wait_ns,
        skipped_ns: sign + verify,
        rate,
    })
}

/// Seal plus open of one byte at [`RECORD_LEN`] \[ns/B\].
fn record_crypto(m: &TlsMeasurements, s: TlsSuite) -> Result<f64, String> {
    let op = profile::Op::Cipher(s.suite(), profile::Direction::Seal).to_string();
    Ok(2.0 * op_ns(m, &op, RECORD_LEN)? / RECORD_LEN as f64)
}

/// Per-run derived values of a handshake workload.
struct Hs {
    rate: Measured,
    server_ns: Measured,
    client_ns: Measured,
    period_ns: Measured,
}

fn hs(w: &HandshakeWorkload) -> Option<Hs> {
    let ok: Vec<&HandshakeRun> = w
        .runs
        .iter()
        .filter(|r| r.handshakes > 0 && r.wall_ns > 0)
        .collect();
    let per = |f: &dyn Fn(&HandshakeRun) -> f64| {
        Measured::of(&ok.iter().map(|r| f(r)).collect::<Vec<_>>())
    };
    Some(Hs {
        rate: per(&|r| r.handshakes as f64 * 1e9 / r.wall_ns as f64)?,
        server_ns: per(&|r| r.server_cpu_ns as f64 / r.handshakes as f64)?,
        client_ns: per(&|r| r.client_cpu_ns as f64 / r.handshakes as f64)?,
        period_ns: per(&|r| r.wall_ns as f64 / r.handshakes as f64)?,
    })
}

/// Per-run derived values of a bulk workload.
struct Bulk {
    mbps: Measured,
    busy: Measured,
}

fn bulk(w: &BulkWorkload) -> Option<Bulk> {
    let ok: Vec<&BulkRun> = w
        .runs
        .iter()
        .filter(|r| r.bytes > 0 && r.wall_ns > 0)
        .collect();
    let per =
        |f: &dyn Fn(&BulkRun) -> f64| Measured::of(&ok.iter().map(|r| f(r)).collect::<Vec<_>>());
    Some(Bulk {
        mbps: per(&|r| r.bytes as f64 * 8e3 / r.wall_ns as f64)?,
        busy: per(&|r| (r.server_cpu_ns + r.client_cpu_ns) as f64 / r.wall_ns as f64)?,
    })
}

/// The fitted terms, each with the spread of the runs it came from.
#[derive(Debug, Clone, Copy)]
struct Terms {
    /// Server CPU per handshake beyond its crypto \[ns\].
    server_overhead_ns: (f64, f64),
    /// Client CPU per handshake beyond its crypto \[ns\].
    client_overhead_ns: (f64, f64),
    /// Period per handshake not spent computing by either side \[ns\].
    wait_ns: (f64, f64),
    /// Record time per byte beyond seal and open \[ns/B\].
    record_overhead_ns_per_byte: Option<(f64, f64)>,
}

fn fit(m: &TlsMeasurements) -> Result<Terms, String> {
    let (g, c) = FIT_HANDSHAKE;
    let w = m
        .handshakes
        .iter()
        .find(|w| (w.group, w.cert) == (g, c))
        .ok_or_else(|| {
            format!(
                "no `{}` workload to fit the handshake terms on",
                handshake_id(g, c)
            )
        })?;
    let h = hs(w).ok_or_else(|| format!("`{}` has no run with a handshake", handshake_id(g, c)))?;
    let (cs, cc) = handshake_crypto(m, g, c)?;
    let wait = h.period_ns.median - h.server_ns.median - h.client_ns.median;
    let record = m
        .bulk
        .iter()
        .find(|b| b.suite == FIT_BULK)
        .and_then(bulk)
        .map(|b| -> Result<(f64, f64), String> {
            Ok((
                8e3 / b.mbps.median - record_crypto(m, FIT_BULK)?,
                b.mbps.spread_pct() / 100.0,
            ))
        })
        .transpose()?;
    Ok(Terms {
        server_overhead_ns: (h.server_ns.median - cs, h.server_ns.spread_pct() / 100.0),
        client_overhead_ns: (h.client_ns.median - cc, h.client_ns.spread_pct() / 100.0),
        wait_ns: (wait, h.period_ns.spread_pct() / 100.0),
        record_overhead_ns_per_byte: record,
    })
}

fn noise(m: &TlsMeasurements) -> String {
    let mut s = format!(
        "1-minute load average {:.2} before, {:.2} after; {} logical CPUs; server and client on the same host",
        m.load_before, m.load_after, m.host_cores
    );
    if let Some(n) = &m.noise {
        s.push_str("; ");
        s.push_str(&n.words());
    }
    s
}

fn us(ns: f64) -> String {
    format!("{:.1} us", ns / 1e3)
}

/// Measured beside predicted, one row per workload: the handshake rows (rule
/// [`Rule::HandshakeRate`]) and the bulk rows ([`Rule::Throughput`]); the rows of
/// [`FIT_HANDSHAKE`] and [`FIT_BULK`] are fitted (shown, not counted). A row the model cannot
/// predict (an op missing from `openssl speed`, a workload without runs) has no prediction and
/// says why.
pub fn validate(m: &TlsMeasurements, set_name: &str) -> Validation {
    let terms = fit(m);
    let fit_hs = handshake_id(FIT_HANDSHAKE.0, FIT_HANDSHAKE.1);
    let fit_bulk = bulk_id(FIT_BULK);
    let mut fitted_to = Vec::new();
    if let Ok(t) = &terms {
        fitted_to.push(fit_hs.clone());
        if t.record_overhead_ns_per_byte.is_some() {
            fitted_to.push(fit_bulk.clone());
        }
    }
    let mut rows = Vec::new();
    for w in &m.handshakes {
        let id = handshake_id(w.group, w.cert);
        let quantity = format!(
            "TLS 1.3 full handshakes per second, {} key exchange, {} certificate, s_time -new",
            w.group.openssl_name(),
            w.cert.id()
        );
        let Some(h) = hs(w) else {
            continue;
        };
        let fitted_from = if id == fit_hs {
            vec![]
        } else {
            vec![fit_hs.clone()]
        };
        let prediction = terms
            .clone()
            .and_then(|t| predicted_rate(m, &t, (w.group, w.cert), 1, false));
        let row = match prediction {
            Ok(Predicted {
                server_ns: s,
                client_ns: c,
                wait_ns: wait,
                rate,
                ..
            }) => {
                let predicted = Some(rate);
                Row::new(id, quantity, "1/s", h.rate, predicted, Rule::HandshakeRate, fitted_from, &fitted_to)
                    .why(format!(
                        "CPU per handshake: server {} measured, {} predicted; client {} measured, {} predicted; wait {} (fitted; negative: server and client overlap); period {} measured, {} in the engine ({ENGINE_HANDSHAKES} handshakes of one client)",
                        us(h.server_ns.median),
                        us(s),
                        us(h.client_ns.median),
                        us(c),
                        us(wait),
                        us(h.period_ns.median),
                        us(1e9 / rate)
                    ))
            }
            Err(e) => Row::new(
                id,
                quantity,
                "1/s",
                h.rate,
                None,
                Rule::HandshakeRate,
                fitted_from,
                &fitted_to,
            )
            .why(format!("no prediction: {e}")),
        };
        rows.push(row);
    }
    // Several clients at once (issue 36 #3): the engine run of the single-client rows with K
    // clients (issue 35). `s_server` serves one connection at a time, so the server node holds
    // one session (`sessions = 1`) from a ClientHello until that connection's Finished: the
    // other clients' ClientHellos wait for it, each client having generated its key share
    // meanwhile, and the host's cores are shared by the K clients and the server.
    for w in &m.concurrent {
        let id = concurrent_id(w.group, w.cert, w.clients);
        let quantity = format!(
            "TLS 1.3 full handshakes per second, {} key exchange, {} certificate, {} s_time -new clients at once",
            w.group.openssl_name(),
            w.cert.id(),
            w.clients
        );
        let Some(h) = hs(&HandshakeWorkload {
            group: w.group,
            cert: w.cert,
            runs: w.runs.clone(),
        }) else {
            continue;
        };
        let prediction = terms
            .clone()
            .and_then(|t| predicted_rate(m, &t, (w.group, w.cert), w.clients, false));
        rows.push(match prediction {
            Ok(p) => Row::new(
                id,
                quantity,
                "1/s",
                h.rate,
                Some(p.rate),
                Rule::HandshakeRate,
                vec![fit_hs.clone()],
                &fitted_to,
            )
            .why(format!(
                "the engine's handshake with {} clients at once, s_server holding one connection at a time (a ClientHello waits until the last connection's Finished is processed) on a host of {} cores: period {} in the engine, {} measured",
                w.clients,
                m.host_cores,
                us(1e9 / p.rate),
                us(h.period_ns.median)
            )),
            Err(e) => Row::new(id, quantity, "1/s", h.rate, None, Rule::HandshakeRate, vec![fit_hs.clone()], &fitted_to)
                .why(format!("no prediction: {e}")),
        });
    }
    // Resumed handshakes (issue 36 #3): OpenSSL resumes with psk_dhe_ke, so both sides still
    // generate and agree a key share, but neither signs nor verifies a certificate.
    for w in &m.resumed {
        let id = resumed_id(w.group, w.cert);
        let quantity = format!(
            "TLS 1.3 resumed handshakes per second, {} key exchange, {} certificate on the first, s_time -reuse",
            w.group.openssl_name(),
            w.cert.id()
        );
        let Some(h) = hs(w) else {
            continue;
        };
        let prediction = terms
            .clone()
            .and_then(|t| predicted_rate(m, &t, (w.group, w.cert), 1, true));
        rows.push(match prediction {
            Ok(p) => Row::new(
                id,
                quantity,
                "1/s",
                h.rate,
                Some(p.rate),
                Rule::HandshakeRate,
                vec![fit_hs.clone()],
                &fitted_to,
            )
            .why(format!(
                "the engine's full handshake less the certificate's signature and verification ({}; psk_dhe_ke keeps the key exchange; the flights keep a full handshake's sizes, under 0.1 us at loopback's rate): period {} in the engine, {} measured",
                us(p.skipped_ns),
                us(1e9 / p.rate),
                us(h.period_ns.median)
            )),
            Err(e) => Row::new(id, quantity, "1/s", h.rate, None, Rule::HandshakeRate, vec![fit_hs.clone()], &fitted_to)
                .why(format!("no prediction: {e}")),
        });
    }
    for w in &m.bulk {
        let id = bulk_id(w.suite);
        let quantity = format!(
            "TLS 1.3 record throughput, {}, s_time -www of a {} MiB file",
            w.suite.iana(),
            w.file_bytes / (1 << 20)
        );
        let Some(b) = bulk(w) else {
            continue;
        };
        let fitted_from = if id == fit_bulk {
            vec![]
        } else {
            vec![fit_bulk.clone()]
        };
        let prediction = terms.clone().and_then(|t| {
            let o = t
                .record_overhead_ns_per_byte
                .ok_or_else(|| format!("no `{fit_bulk}` workload to fit the record term on"))?;
            Ok((o.0, record_crypto(m, w.suite)?))
        });
        let row = match prediction {
            Ok((o, c)) => {
                let t = o + c;
                let predicted = (t > 0.0).then(|| 8e3 / t);
                Row::new(id, quantity, "Mbit/s", b.mbps, predicted, Rule::Throughput, fitted_from, &fitted_to)
                    .why(format!(
                        "per byte: seal + open {c:.3} ns (openssl speed, {RECORD_LEN} B) + {o:.3} ns fitted; server + client busy {:.2} of the wall time (1 = they alternate)",
                        b.busy.median
                    ))
            }
            Err(e) => Row::new(
                id,
                quantity,
                "Mbit/s",
                b.mbps,
                None,
                Rule::Throughput,
                fitted_from,
                &fitted_to,
            )
            .why(format!("no prediction: {e}")),
        };
        rows.push(row);
    }
    Validation::new(
        "tls",
        m.openssl_version.trim(),
        "loopback-tcp",
        set_name,
        noise(m),
        fitted_to,
        anchored(rows, &fit_hs, &fit_bulk),
    )
}

/// The rows with their anchors (`crate::evidence`): a handshake rate extends the fitted
/// handshake's measured rate, a bulk throughput the fitted suite's.
fn anchored(rows: Vec<Row>, fit_hs: &str, fit_bulk: &str) -> Vec<Row> {
    let fitted = |id: &str| {
        rows.iter()
            .find(|r| r.id == id && r.class == RowClass::Fitted)
            .map(|r| Anchor::new(format!("{id} (fitted)"), r.measured.median))
    };
    let (hs, bulk) = (fitted(fit_hs), fitted(fit_bulk));
    rows.into_iter()
        .map(|r| {
            if r.class == RowClass::Fitted {
                return r;
            }
            let anchor = if r.unit == "1/s" {
                hs.clone()
            } else {
                bulk.clone()
            };
            match anchor {
                Some(a) => r.anchored(Some(a)),
                None => r,
            }
        })
        .collect()
}

/// The implementation's fitted terms as a profile's `[implementation]` section (name
/// `openssl-tls`, data path `loopback-tcp`). Terms that could not be fitted (a workload or an
/// `openssl speed` op missing) are left out, and `source` says why.
pub fn implementation_file(m: &TlsMeasurements) -> ImplementationFile {
    let fit_hs = handshake_id(FIT_HANDSHAKE.0, FIT_HANDSHAKE.1);
    let fit_bulk = bulk_id(FIT_BULK);
    let mut imp = ImplementationFile::new(
        RealImplementation::OpensslTls,
        m.openssl_version.trim(),
        "loopback-tcp",
        format!(
            "OpenSSL s_server and s_time on 127.0.0.1, {} set ({} runs per workload); {}; crypto from openssl speed -mr on the same host",
            m.set.as_str(),
            m.set.runs(),
            noise(m)
        ),
    );
    match fit(m) {
        Ok(t) => {
            let mut term = |term: Term, (value, spread): (f64, f64), fitted: &str, how: &str| {
                imp.insert_term(term, value, Some(spread), vec![fitted.to_owned()], how);
            };
            term(
                Term::TlsServerHandshakeOverhead,
                t.server_overhead_ns,
                &fit_hs,
                "median s_server CPU per handshake (schedstat) minus keygen + agree + sign from openssl speed",
            );
            term(
                Term::TlsClientHandshakeOverhead,
                t.client_overhead_ns,
                &fit_hs,
                "median s_time CPU per handshake (wait4 rusage) minus keygen + agree + verify from openssl speed",
            );
            term(
                Term::TlsHandshakeWaitOffset,
                t.wait_ns,
                &fit_hs,
                "median wall time per handshake minus the median server and client CPU per handshake: positive when neither computes for a while (loopback round trips, wake-ups), negative when the two overlap on the host's cores",
            );
            if let Some(r) = t.record_overhead_ns_per_byte {
                term(
                    Term::TlsRecordOverheadPerByte,
                    r,
                    &fit_bulk,
                    "8000 / median Mbit/s minus seal + open per byte at 16384 B from openssl speed (open taken equal to seal)",
                );
            } else {
                imp.source
                    .push_str(&format!("; no `{fit_bulk}` workload, so no record term"));
            }
        }
        Err(e) => imp.source.push_str(&format!("; no terms: {e}")),
    }
    imp
}
