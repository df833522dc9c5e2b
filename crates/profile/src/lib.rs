//! Calibration profiles: what each byte and each packet costs a CPU, measured on a host by
//! `oransim calibrate` or fitted to a paper's testbed, and where every number came from.
//!
//! A profile holds, for one node of a simulated system:
//!
//! - the **cores** its data path may use;
//! - a per-packet **stack** cost \[ns\] (headers, routing, SA lookup), paid with or without
//!   encryption;
//! - an **I/O** cost between kernel and user space that does not scale with the cipher (the
//!   papers' I/O bottleneck, 000 §6.3): a fixed cost per packet \[ns\] plus, optionally, a cost
//!   per byte of the frame \[ns/B\] (`[node.io] per_byte`; absent: 0);
//! - a per-packet **latency** \[ns\] that occupies nothing (interrupt moderation, wake-ups,
//!   asynchronous crypto completion), optional;
//! - which protocols' crypto is **offloaded** to a NIC;
//! - **operation costs** \[ns\] as a function of the length L \[bytes\]: `cipher.seal` /
//!   `cipher.open` for each suite, and constant-cost key-exchange and signature operations.
//!
//! The engine builds a node's processing time for one packet of L bytes as
//!
//! ```text
//! proc(L, F) = stack + io(F) + cipher(suite, direction, L)        (cipher = 0 when offloaded)
//! io(F)      = io.cost + io.per_byte * F
//! ```
//!
//! where L is the length the cipher processes and F the frame's size on the wire (what the
//! engine carries as the packet's size: for an Ethernet stack the whole frame without FCS).
//!
//! served by `cores` servers. This crate only evaluates the terms; the model layer composes them.
//! The paper profiles (under `calibration/`) were fitted with this reading of the terms, which
//! [`Profile::packet`] returns together:
//!
//! - CPU time per packet `stack + cipher(L)`: on `cores` servers; CPU utilisation counts it;
//! - I/O time per packet `io(F)`: one server of its own (the kernel/user path of one flow), so a
//!   node is **I/O-bound** when `io(F) > (stack + cipher(L)) / cores`, else **CPU-bound**;
//! - `latency`: added to each packet's delay, occupying no server.
//!
//! One packet's unloaded delay through the node is `latency + io(F) + stack + cipher(L)`; the
//! node's capacity is `min(cores / (stack + cipher(L)), 1 / io(F))` packets per second (a zero
//! term means no limit).
//!
//! # Example
//!
//! ```
//! use profile::{Direction, Profile, Suite};
//!
//! let text = r#"
//! format_version = 1
//!
//! [profile]
//! name = "example"
//! kind = "fitted"
//! implementation = "linux-kernel-esp"
//!
//! [node]
//! cores = { count = 2, source = "testbed description" }
//! stack = { cost = "5us", source = "assumed for the example" }
//! io = { cost = "20us", source = "assumed for the example" }
//!
//! [ops."aes256-gcm.seal"]
//! model = "linear"
//! fixed = "400ns"
//! per_byte = "0.5ns/B"
//! source = "assumed for the example"
//!
//! [ops."x25519.keygen"]
//! model = "constant"
//! fixed = "45us"
//! source = "assumed for the example"
//! "#;
//! let p = Profile::from_toml_str(text, "example.toml").unwrap();
//!
//! // Cipher cost of sealing a 1500-byte packet: 400 + 0.5 * 1500 = 1150 ns.
//! let c = p.cipher_cost_ns(Suite::Aes256Gcm, Direction::Seal, 1500).unwrap();
//! assert!((c - 1150.0).abs() < 1e-9);
//!
//! // The whole per-packet processing time the engine would use (no I/O cost per byte here).
//! assert_eq!(p.io_per_byte_ns(), 0.0);
//! let proc_ns = p.stack_ns() + p.io_cost_ns(1538) + c;
//! assert!((proc_ns - 26_150.0).abs() < 1e-9);
//! assert_eq!(p.cores(), 2);
//!
//! // CPU-bound or I/O-bound? 2 cores x 1 / 6.15 us CPU beats 1 / 20 us I/O: I/O-bound.
//! let pkt = p.packet(Some(Suite::Aes256Gcm), Direction::Seal, 1500, 1538).unwrap();
//! assert!(pkt.io_bound());
//! assert!((pkt.capacity_pps() - 50_000.0).abs() < 1e-6);
//!
//! // Constant-cost operations ignore the length.
//! let keygen = profile::Op::Key("x25519.keygen".parse().unwrap());
//! assert_eq!(p.op_cost_ns(&keygen, 0).unwrap(), 45_000.0);
//!
//! // An operation the profile lacks is an error that lists what it has.
//! let err = p.cipher_cost_ns(Suite::Aes128Ccm, Direction::Open, 64).unwrap_err();
//! assert!(err.to_string().contains("has no operation `aes128-ccm.open`"));
//! assert!(err.to_string().contains("aes256-gcm.seal, x25519.keygen"));
//! ```
//!
//! # Operation names
//!
//! An operation is `<algorithm>.<action>`. Ciphers ([`Suite`]) take the actions
//! `seal` (encrypt and authenticate) and `open` (verify and decrypt), with L the plaintext
//! length; key exchange and signatures ([`KEY_OPS`]) have constant cost. Measured profiles hold
//! all of them that the implementation supports; fitted profiles hold those the paper supports.
//!
//! # File format
//!
//! TOML, quantities as strings with units (`"312ns"`, `"1.5us"`, `"0.41ns/B"`, `"1500B"`);
//! see [`ProfileFile`] for every field. A file whose `format_version` is newer than
//! [`FORMAT_VERSION`] is refused with a message naming the file.

// The face: a profile ([`Profile`] and what it answers), its operations ([`Op`], [`KeyOp`],
// [`Suite`]), the implementation terms ([`Term`]), the file's serde mirror ([`ProfileFile`] and
// its parts, which crypto-bench fills in) and [`merge`]; their modules are private. Three
// modules stay namespaces, each a vocabulary that reads with its name: `units` (quantities with
// units: `units::parse`, `units::Kind`, `units::Quantity`), `read` (bounded reads of an input
// file: `read::read_input`, `read::Input::Scenario`) and `trace` (which profile values a run
// read: `trace::record`, `trace::note`).
mod check;
mod cost;
mod error;
mod file;
mod merge;
mod op;
pub mod read;
mod term;
pub mod trace;
pub mod units;

use std::collections::BTreeMap;
use std::path::Path;

use check::{check_implementation, op_cost, packet_cost, provenance, quoted};
pub use cost::{CostModel, Offload, OpCost, Point};
pub use error::ProfileError;
pub use file::{
    CoresFile, CostFile, FORMAT_VERSION, HostFile, ImplementationFile, MeasurementFile, NodeFile,
    OffloadFile, OpFile, PointFile, ProfileFile, ProfileMeta, TermFile,
};
pub use merge::{Merged, merge};
pub use op::{Direction, KeyAction, KeyAlg, KeyOp, Op, OpNameError, UnknownKeyName};
pub use term::{RealImplementation, Term, TermUnit};

/// The cipher suites a profile may describe, as used in op names `<suite>.seal` /
/// `<suite>.open` ([`Op::Cipher`]): the one list is [`Suite::ALL`], spelled by [`Suite::name`].
///
/// The AEAD and CBC+HMAC names follow the ESP/MACsec/TLS suite names of the `protocols` crate;
/// `gmac-aes128`/`gmac-aes256` are integrity-only GMAC (MACsec with encryption off); `copy` is
/// a plain memory copy of the packet, the baseline any data path pays. CBC+HMAC is
/// encrypt-then-MAC as ESP does it (RFC 4868: HMAC-SHA-256/384/512 truncated to 128/192/256 bits).
pub use protocols::Suite;

/// Constant-cost operations (key exchange, KEMs, signatures) a profile may describe.
pub const KEY_OPS: &[KeyOp] = &[
    KeyOp::of(KeyAlg::X25519, KeyAction::Keygen),
    KeyOp::of(KeyAlg::X25519, KeyAction::Agree),
    KeyOp::of(KeyAlg::MlKem512, KeyAction::Keygen),
    KeyOp::of(KeyAlg::MlKem512, KeyAction::Encaps),
    KeyOp::of(KeyAlg::MlKem512, KeyAction::Decaps),
    KeyOp::of(KeyAlg::MlKem768, KeyAction::Keygen),
    KeyOp::of(KeyAlg::MlKem768, KeyAction::Encaps),
    KeyOp::of(KeyAlg::MlKem768, KeyAction::Decaps),
    KeyOp::of(KeyAlg::MlKem1024, KeyAction::Keygen),
    KeyOp::of(KeyAlg::MlKem1024, KeyAction::Encaps),
    KeyOp::of(KeyAlg::MlKem1024, KeyAction::Decaps),
    KeyOp::of(KeyAlg::Ed25519, KeyAction::Sign),
    KeyOp::of(KeyAlg::Ed25519, KeyAction::Verify),
    KeyOp::of(KeyAlg::EcdsaP256, KeyAction::Sign),
    KeyOp::of(KeyAlg::EcdsaP256, KeyAction::Verify),
    KeyOp::of(KeyAlg::Rsa2048, KeyAction::Sign),
    KeyOp::of(KeyAlg::Rsa2048, KeyAction::Verify),
    KeyOp::of(KeyAlg::Rsa3072, KeyAction::Sign),
    KeyOp::of(KeyAlg::Rsa3072, KeyAction::Verify),
    KeyOp::of(KeyAlg::MlDsa44, KeyAction::Sign),
    KeyOp::of(KeyAlg::MlDsa44, KeyAction::Verify),
    KeyOp::of(KeyAlg::MlDsa65, KeyAction::Sign),
    KeyOp::of(KeyAlg::MlDsa65, KeyAction::Verify),
    KeyOp::of(KeyAlg::MlDsa87, KeyAction::Sign),
    KeyOp::of(KeyAlg::MlDsa87, KeyAction::Verify),
];

/// Constant-cost operations a profile may have beyond [`KEY_OPS`]: KEMs measured only in some
/// builds (HQC and FrodoKEM from PQClean, `oransim calibrate` built with `--features pqclean`),
/// and ECDH on P-256, which only an import of `openssl speed -mr ecdhp256` holds.
pub const OPTIONAL_KEY_OPS: &[KeyOp] = &[
    KeyOp::of(KeyAlg::EcdhP256, KeyAction::Agree),
    KeyOp::of(KeyAlg::Hqc128, KeyAction::Keygen),
    KeyOp::of(KeyAlg::Hqc128, KeyAction::Encaps),
    KeyOp::of(KeyAlg::Hqc128, KeyAction::Decaps),
    KeyOp::of(KeyAlg::Hqc192, KeyAction::Keygen),
    KeyOp::of(KeyAlg::Hqc192, KeyAction::Encaps),
    KeyOp::of(KeyAlg::Hqc192, KeyAction::Decaps),
    KeyOp::of(KeyAlg::FrodoKem640Aes, KeyAction::Keygen),
    KeyOp::of(KeyAlg::FrodoKem640Aes, KeyAction::Encaps),
    KeyOp::of(KeyAlg::FrodoKem640Aes, KeyAction::Decaps),
    KeyOp::of(KeyAlg::FrodoKem976Aes, KeyAction::Keygen),
    KeyOp::of(KeyAlg::FrodoKem976Aes, KeyAction::Encaps),
    KeyOp::of(KeyAlg::FrodoKem976Aes, KeyAction::Decaps),
];

/// Every constant-cost operation a handshake may look up: [`KEY_OPS`] then
/// [`OPTIONAL_KEY_OPS`]; together, every action of every [`KeyAlg`].
pub fn all_key_ops() -> impl Iterator<Item = KeyOp> {
    KEY_OPS.iter().chain(OPTIONAL_KEY_OPS).copied()
}

/// Where a profile's numbers come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileKind {
    /// Measured on a host by `oransim calibrate`.
    Measured,
    /// Fitted to a paper's published numbers.
    Fitted,
    /// Imported from another tool's output (e.g. `openssl speed`).
    Imported,
}

impl ProfileKind {
    const NAMES: &'static [&'static str] = &["measured", "fitted", "imported"];

    fn parse(s: &str) -> Option<Self> {
        match s {
            "measured" => Some(Self::Measured),
            "fitted" => Some(Self::Fitted),
            "imported" => Some(Self::Imported),
            _ => None,
        }
    }
}

/// Where one value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// A measurement description or a paper's figure/table.
    pub source: String,
    /// The published numbers this value was chosen to match (empty: not fitted).
    pub fitted_to: Vec<String>,
}

/// A per-packet cost with its provenance.
#[derive(Debug, Clone, PartialEq)]
pub struct PacketCost {
    /// Cost per packet \[ns\].
    pub ns: f64,
    /// Cost per byte of the frame \[ns/B\]: only the I/O cost may have one (`[node.io]
    /// per_byte`); 0 for the others and when absent.
    pub per_byte_ns: f64,
    /// Where it came from.
    pub provenance: Provenance,
}

impl PacketCost {
    /// The cost of one frame of `frame_bytes` bytes \[ns\]: `ns + per_byte_ns * frame_bytes`.
    pub fn at(&self, frame_bytes: u64) -> f64 {
        self.ns + self.per_byte_ns * frame_bytes as f64
    }
}

/// The costs of one packet through a node, as [`Profile::packet`] returns them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacketCosts {
    /// CPU time: stack + cipher \[ns\], on `cores` servers.
    pub cpu_ns: f64,
    /// Of which the cipher \[ns\].
    pub cipher_ns: f64,
    /// Time on the I/O path at the frame's size \[ns\], one server.
    pub io_ns: f64,
    /// Delay that occupies no server \[ns\].
    pub latency_ns: f64,
    /// Cores for the CPU time.
    pub cores: u32,
}

impl PacketCosts {
    /// Unloaded delay of one packet through the node \[ns\].
    pub fn delay_ns(&self) -> f64 {
        self.latency_ns + self.io_ns + self.cpu_ns
    }

    /// Packets per second the node can process: the smaller of the CPU and I/O limits
    /// (`f64::INFINITY` when both costs are zero).
    pub fn capacity_pps(&self) -> f64 {
        let cpu = if self.cpu_ns > 0.0 {
            f64::from(self.cores) * 1e9 / self.cpu_ns
        } else {
            f64::INFINITY
        };
        let io = if self.io_ns > 0.0 {
            1e9 / self.io_ns
        } else {
            f64::INFINITY
        };
        cpu.min(io)
    }

    /// Whether the I/O path, not the CPU, limits the node's packet rate.
    pub fn io_bound(&self) -> bool {
        self.io_ns * f64::from(self.cores) > self.cpu_ns
    }

    /// CPU utilisation (0..1 of `cores`) at `pps` packets per second.
    pub fn cpu_utilisation(&self, pps: f64) -> f64 {
        pps * self.cpu_ns / (1e9 * f64::from(self.cores))
    }
}

/// A validated calibration profile. Build it with [`Profile::load`],
/// [`Profile::from_toml_str`] or [`Profile::from_file`].
#[derive(Debug, Clone)]
pub struct Profile {
    origin: String,
    kind: ProfileKind,
    cores: u32,
    cores_provenance: Provenance,
    stack: PacketCost,
    io: PacketCost,
    latency: PacketCost,
    offload: Offload,
    /// The cipher costs, by suite and direction.
    ciphers: BTreeMap<(Suite, Direction), OpCost>,
    /// The constant-cost (key exchange, KEM, signature) operations, by name.
    key_ops: BTreeMap<KeyOp, OpCost>,
    file: ProfileFile,
}

impl Profile {
    /// Reads and validates the profile at `path`. Errors name the file and the key.
    pub fn load(path: impl AsRef<Path>) -> Result<Profile, ProfileError> {
        let path = path.as_ref();
        let text = read::read_input_text(path, read::Input::Profile).map_err(|error| {
            ProfileError::Io {
                path: path.to_path_buf(),
                error,
            }
        })?;
        Profile::from_toml_str(&text, &path.display().to_string())
    }

    /// Parses and validates profile text; `origin` (a file name) is used in error messages.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Profile, ProfileError> {
        // Check the format version first, so a newer file is refused for its version and not
        // for a field this build does not know.
        // Until it has a format version, the file may be anything the user pointed at (an
        // `.env`, `/proc/self/environ`): the error gives where and what, never its text.
        let table: toml::Table = toml::from_str(text).map_err(|e| ProfileError::Parse {
            origin: origin.to_string(),
            message: unquoted_toml_error(text, &e),
        })?;
        let invalid = |key: &str, message: String| ProfileError::Invalid {
            origin: origin.to_string(),
            key: key.to_string(),
            message,
        };
        match table.get("format_version") {
            None => {
                return Err(invalid(
                    "format_version",
                    format!("missing; this build reads format_version 1..={FORMAT_VERSION}"),
                ));
            }
            Some(toml::Value::Integer(v)) if *v > i64::from(FORMAT_VERSION) => {
                return Err(ProfileError::NewerFormat {
                    origin: origin.to_string(),
                    found: *v,
                    supported: FORMAT_VERSION,
                });
            }
            Some(toml::Value::Integer(v)) if *v < 1 => {
                return Err(invalid(
                    "format_version",
                    format!("{v} is not a format version; this build reads 1..={FORMAT_VERSION}"),
                ));
            }
            Some(toml::Value::Integer(_)) => {}
            Some(other) => {
                return Err(invalid(
                    "format_version",
                    format!(
                        "expected an integer, found a {}; this build reads 1..={FORMAT_VERSION}",
                        other.type_str()
                    ),
                ));
            }
        }
        let file: ProfileFile = toml::from_str(text).map_err(|e| ProfileError::Parse {
            origin: origin.to_string(),
            message: e.to_string().trim_end().to_string(),
        })?;
        Profile::from_file(file, origin)
    }

    /// Validates a profile built in memory (by a writer such as `crypto-bench`).
    pub fn from_file(file: ProfileFile, origin: &str) -> Result<Profile, ProfileError> {
        let invalid = |key: String, message: String| ProfileError::Invalid {
            origin: origin.to_string(),
            key,
            message,
        };
        if file.format_version == 0 || file.format_version > FORMAT_VERSION {
            return Err(invalid(
                "format_version".into(),
                format!(
                    "{} is not supported; this build reads 1..={FORMAT_VERSION}",
                    file.format_version
                ),
            ));
        }
        let meta = &file.profile;
        if meta.name.trim().is_empty() {
            return Err(invalid("profile.name".into(), "must not be empty".into()));
        }
        let kind = ProfileKind::parse(&meta.kind).ok_or_else(|| {
            invalid(
                "profile.kind".into(),
                format!(
                    "`{}` is not one of {}",
                    meta.kind,
                    quoted(ProfileKind::NAMES)
                ),
            )
        })?;
        if meta.implementation.trim().is_empty() {
            return Err(invalid(
                "profile.implementation".into(),
                "must name the implementation the costs describe, e.g. `rustcrypto`".into(),
            ));
        }
        let node = &file.node;
        if node.cores.count == 0 {
            return Err(invalid(
                "node.cores.count".into(),
                "must be at least 1".into(),
            ));
        }
        let cores_provenance = provenance(
            &node.cores.source,
            &node.cores.fitted_to,
            "node.cores.source",
            &invalid,
        )?;
        for (key, cost) in [
            ("node.stack", Some(&node.stack)),
            ("node.latency", node.latency.as_ref()),
        ] {
            if cost.is_some_and(|c| c.per_byte.is_some()) {
                return Err(invalid(
                    format!("{key}.per_byte"),
                    "a cost per byte is allowed only for `node.io` (the I/O stage, costed at the frame's size on the wire); a CPU cost that grows with the bytes belongs in an op".into(),
                ));
            }
        }
        let stack = packet_cost(&node.stack, "node.stack", &invalid)?;
        let mut io = packet_cost(&node.io, "node.io", &invalid)?;
        if let Some(pb) = &node.io.per_byte {
            io.per_byte_ns = units::parse_per_byte_ns(pb)
                .map_err(|m| invalid("node.io.per_byte".into(), m.to_string()))?;
        }
        let latency = match &node.latency {
            Some(l) => packet_cost(l, "node.latency", &invalid)?,
            None => PacketCost {
                ns: 0.0,
                per_byte_ns: 0.0,
                provenance: Provenance {
                    source: "not given (0)".into(),
                    fitted_to: Vec::new(),
                },
            },
        };
        let offload = Offload {
            ipsec: node.offload.ipsec,
            macsec: node.offload.macsec,
            tls: node.offload.tls,
        };
        let (mut ciphers, mut key_ops) = (BTreeMap::new(), BTreeMap::new());
        for (name, op) in &file.ops {
            let key = format!("ops.\"{name}\"");
            let parsed: Op = name
                .parse()
                .map_err(|m: OpNameError| invalid(key.clone(), m.to_string()))?;
            let cost = op_cost(op, &key, &meta.implementation, &invalid)?;
            match parsed {
                Op::Cipher(suite, direction) => ciphers.insert((suite, direction), cost),
                Op::Key(k) => key_ops.insert(k, cost),
            };
        }
        if let Some(imp) = &file.implementation {
            check_implementation(imp, &invalid)?;
        }
        Ok(Profile {
            origin: origin.to_string(),
            kind,
            cores: node.cores.count,
            cores_provenance,
            stack,
            io,
            latency,
            offload,
            ciphers,
            key_ops,
            file,
        })
    }

    /// The file name (or origin) the profile was read from.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The profile's name.
    pub fn name(&self) -> &str {
        &self.file.profile.name
    }

    /// Measured, fitted or imported.
    pub fn kind(&self) -> ProfileKind {
        self.kind
    }

    /// The implementation the op costs describe (unless an op says otherwise).
    pub fn implementation(&self) -> &str {
        &self.file.profile.implementation
    }

    /// Cores available to the node's data path.
    pub fn cores(&self) -> u32 {
        self.note("node.cores", &self.cores_provenance);
        self.cores
    }

    /// Where the core count comes from.
    pub fn cores_provenance(&self) -> &Provenance {
        &self.cores_provenance
    }

    /// Per-packet stack cost \[ns\].
    pub fn stack_ns(&self) -> f64 {
        self.stack().ns
    }

    /// Per-packet stack cost with provenance.
    pub fn stack(&self) -> &PacketCost {
        self.note("node.stack", &self.stack.provenance);
        &self.stack
    }

    /// Fixed part of the kernel/user I/O cost, per packet \[ns\], independent of the cipher
    /// (`[node.io] cost`).
    pub fn io_ns(&self) -> f64 {
        self.io().ns
    }

    /// I/O cost per byte of the frame \[ns/B\] (`[node.io] per_byte`; 0 when absent).
    pub fn io_per_byte_ns(&self) -> f64 {
        self.io().per_byte_ns
    }

    /// I/O cost of one frame of `frame_bytes` bytes on the wire \[ns\]: fixed + per byte.
    pub fn io_cost_ns(&self, frame_bytes: u64) -> f64 {
        self.io().at(frame_bytes)
    }

    /// I/O cost (fixed and per byte) with provenance.
    pub fn io(&self) -> &PacketCost {
        self.note("node.io", &self.io.provenance);
        &self.io
    }

    /// Per-packet delay that occupies no server \[ns\] (0 when the profile gives none).
    pub fn latency_ns(&self) -> f64 {
        self.latency().ns
    }

    /// Per-packet latency with provenance.
    pub fn latency(&self) -> &PacketCost {
        self.note("node.latency", &self.latency.provenance);
        &self.latency
    }

    /// The costs of one packet through a node sealing or opening it with `suite` (`None`:
    /// forwarding without crypto, or crypto offloaded): the cipher at `len_bytes` (the length
    /// it protects, L \[bytes\]), the I/O stage at `frame_bytes` (the frame's size on the wire,
    /// F \[bytes\]).
    pub fn packet(
        &self,
        suite: Option<Suite>,
        direction: Direction,
        len_bytes: u64,
        frame_bytes: u64,
    ) -> Result<PacketCosts, ProfileError> {
        let cipher_ns = match suite {
            Some(s) => self.cipher_cost_ns(s, direction, len_bytes)?,
            None => 0.0,
        };
        Ok(PacketCosts {
            cpu_ns: self.stack().ns + cipher_ns,
            cipher_ns,
            io_ns: self.io().at(frame_bytes),
            latency_ns: self.latency().ns,
            cores: self.cores(),
        })
    }

    /// Which protocols' crypto is offloaded.
    pub fn offload(&self) -> Offload {
        self.offload
    }

    /// The host or testbed description, if recorded.
    pub fn host(&self) -> Option<&HostFile> {
        self.file.host.as_ref()
    }

    /// How the measurements were taken, if measured.
    pub fn measurement(&self) -> Option<&MeasurementFile> {
        self.file.measurement.as_ref()
    }

    /// All operations, in the order of their names. Listing them records no read for
    /// [`trace::record`].
    pub fn ops(&self) -> impl Iterator<Item = (Op, &OpCost)> {
        let mut all: Vec<(String, Op, &OpCost)> = self
            .ciphers
            .iter()
            .map(|(&(s, d), c)| (Op::Cipher(s, d), c))
            .chain(self.key_ops.iter().map(|(k, c)| (Op::Key(*k), c)))
            .map(|(op, c)| (op.to_string(), op, c))
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all.into_iter().map(|(_, op, c)| (op, c))
    }

    /// The operation `op`.
    fn find(&self, op: &Op) -> Option<&OpCost> {
        match op {
            Op::Cipher(suite, direction) => self.ciphers.get(&(*suite, *direction)),
            Op::Key(k) => self.key_ops.get(k),
        }
    }

    /// The error for an operation the profile lacks: its name and those the profile has.
    fn unknown_op(&self, op: &Op) -> ProfileError {
        ProfileError::UnknownOp {
            origin: self.origin.clone(),
            profile: self.name().to_string(),
            op: op.to_string(),
            available: self.ops().map(|(o, _)| o.to_string()).collect(),
        }
    }

    /// Whether the profile holds operation `op`.
    pub fn has_op(&self, op: &Op) -> bool {
        self.find(op).is_some()
    }

    /// The operation `op` (e.g. `mlkem768.encaps`), or an error listing those it has.
    pub fn op(&self, op: &Op) -> Result<&OpCost, ProfileError> {
        let cost = self.find(op).ok_or_else(|| self.unknown_op(op))?;
        self.note_op(op, &cost.provenance);
        Ok(cost)
    }

    /// Cost \[ns\] of operation `op` on `len_bytes` bytes.
    pub fn op_cost_ns(&self, op: &Op, len_bytes: u64) -> Result<f64, ProfileError> {
        Ok(self.op(op)?.cost_ns(len_bytes))
    }

    /// The cost of sealing or opening with `suite`, or an error listing the operations the
    /// profile has.
    pub fn cipher(&self, suite: Suite, direction: Direction) -> Result<&OpCost, ProfileError> {
        self.op(&Op::Cipher(suite, direction))
    }

    /// Cost \[ns\] of sealing or opening `len_bytes` bytes of plaintext with `suite`.
    pub fn cipher_cost_ns(
        &self,
        suite: Suite,
        direction: Direction,
        len_bytes: u64,
    ) -> Result<f64, ProfileError> {
        Ok(self.cipher(suite, direction)?.cost_ns(len_bytes))
    }

    /// Records a read of parameter `key` for [`trace::record`].
    fn note(&self, key: &str, provenance: &Provenance) {
        trace::note(self.name(), key, &provenance.fitted_to);
    }

    /// Records a read of operation `op` for [`trace::record`].
    fn note_op(&self, op: &Op, provenance: &Provenance) {
        if trace::recording() {
            self.note(&format!("ops.\"{op}\""), provenance);
        }
    }

    /// The implementation measured by running it (`[implementation]`), if the profile has one:
    /// without it, every daemon or data-path figure is a cipher-only lower bound.
    pub fn real_implementation(&self) -> Option<&file::ImplementationFile> {
        self.file.implementation.as_ref()
    }

    /// The value of implementation term `term` in its unit ([`Term::unit`]), if the profile has
    /// it (recorded as a read, `implementation.terms.<name>`, by [`trace`]).
    pub fn term(&self, term: Term) -> Option<f64> {
        let t = self.real_implementation()?.term(term)?;
        trace::note(
            &self.file.profile.name,
            &format!("implementation.terms.{}", term.name()),
            &t.fitted_to,
        );
        Some(t.value)
    }

    /// The file form of this profile (what [`Profile::to_toml_string`] writes).
    pub fn file(&self) -> &ProfileFile {
        &self.file
    }

    /// The profile as TOML text, which [`Profile::from_toml_str`] reads back.
    pub fn to_toml_string(&self) -> Result<String, ProfileError> {
        toml::to_string(&self.file).map_err(|e| ProfileError::Serialize {
            profile: self.file.profile.name.clone(),
            message: e.to_string(),
        })
    }
}

/// Writes a profile file as TOML text.
pub fn to_toml_string(file: &ProfileFile) -> Result<String, ProfileError> {
    toml::to_string(file).map_err(|e| ProfileError::Serialize {
        profile: file.profile.name.clone(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests;

/// A TOML error as `not TOML at line L, column C: <what>`, without the line's text and with
/// any quoted fragment of the file (`` `key` ``) left out, so an error about a file that is not
/// a profile never prints what it holds.
fn unquoted_toml_error(text: &str, e: &toml::de::Error) -> String {
    let at = e.span().map(|span| {
        let before = &text.as_bytes()[..span.start.min(text.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        format!(" at line {line}, column {column}")
    });
    // Drop every `...` fragment: the reader quotes keys and values from the file that way.
    let mut what = String::new();
    for (i, part) in e.message().split('`').enumerate() {
        if i % 2 == 0 {
            what.push_str(part);
        } else {
            what.push_str("(a key or value of the file)");
        }
    }
    format!("not TOML{}: {}", at.unwrap_or_default(), what.trim_end())
}
