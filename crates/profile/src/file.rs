//! The serde mirror of a profile file: exactly what is written in the TOML, quantities still as
//! strings with units. [`crate::Profile`] is the validated, typed form; writers (such as
//! `crypto-bench`) build a [`ProfileFile`] and check it with [`crate::Profile::from_file`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::term::{RealImplementation, Term};

/// The profile format this build writes, and the newest it reads.
pub const FORMAT_VERSION: u32 = 1;

/// A whole profile file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileFile {
    /// Format version; a file with a larger number than [`FORMAT_VERSION`] is refused.
    pub format_version: u32,
    /// What the profile describes.
    pub profile: ProfileMeta,
    /// The machine it was measured on (measured profiles) or the testbed it describes (fitted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<HostFile>,
    /// How the measurements were taken (measured profiles only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measurement: Option<MeasurementFile>,
    /// Per-node costs that do not depend on the cipher: cores, stack and I/O per packet, offload.
    pub node: NodeFile,
    /// Operation costs, keyed by operation name (`"aes128-gcm.seal"`, `"x25519.keygen"`...).
    #[serde(default)]
    pub ops: BTreeMap<String, OpFile>,
    /// Terms of a real implementation around the cipher calls (an IKE daemon's message
    /// handling, SA installation, a data path's per-packet I/O), measured by running it
    /// (`oransim calibrate --implementation`). Absent: the profile has cipher costs only, and
    /// every daemon or data-path figure it yields is a cipher-only lower bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementation: Option<ImplementationFile>,
}

/// `[implementation]`: a real implementation measured on the host by running it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImplementationFile {
    /// Which implementation: `"strongswan"` or `"openssl-tls"`.
    pub name: String,
    /// Its version as the package manager reports it, e.g. `"5.9.8-5+deb12u6"`.
    pub version: String,
    /// The data path that was measured: `"kernel-libipsec"` (user-space ESP over TUN),
    /// `"xfrm"` (the kernel's ESP), `"loopback-tcp"` (TLS).
    pub data_path: String,
    /// How the terms were measured (workloads, repetitions, the host's noise).
    pub source: String,
    /// The terms, by name ([`Term::name`], e.g. `"ike.daemon.responder.loaded"`); the checker
    /// refuses a name that is not one of the implementation's [`Term`]s, or a unit that is not
    /// its [`Term::unit`]. Writers fill it with [`ImplementationFile::insert_term`].
    #[serde(default)]
    pub terms: BTreeMap<String, TermFile>,
}

impl ImplementationFile {
    /// An implementation section with no terms yet.
    pub fn new(
        implementation: RealImplementation,
        version: impl Into<String>,
        data_path: impl Into<String>,
        source: impl Into<String>,
    ) -> ImplementationFile {
        ImplementationFile {
            name: implementation.name().to_owned(),
            version: version.into(),
            data_path: data_path.into(),
            source: source.into(),
            terms: BTreeMap::new(),
        }
    }

    /// Sets term `term` to `value` in its unit ([`Term::unit`], which the written `unit`
    /// spells, so a writer cannot give another), replacing any value it had.
    pub fn insert_term(
        &mut self,
        term: Term,
        value: f64,
        spread: Option<f64>,
        fitted_to: Vec<String>,
        source: impl Into<String>,
    ) {
        self.terms.insert(
            term.name().to_owned(),
            TermFile {
                value,
                unit: term.unit().as_str().to_owned(),
                spread,
                fitted_to,
                source: source.into(),
            },
        );
    }

    /// Term `term` as written, if the section has it.
    pub fn term(&self, term: Term) -> Option<&TermFile> {
        self.terms.get(term.name())
    }
}

/// One implementation term: `{ value = 717000.0, unit = "ns", spread = 0.12, fitted_to = [...],
/// source = "..." }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TermFile {
    /// The value, in `unit`.
    pub value: f64,
    /// Its unit, [`Term::unit`] spelt as [`crate::TermUnit::as_str`]: `"ns"`, `"ns/B"`,
    /// `"cores"`, `"1"`.
    pub unit: String,
    /// (max - min) / median of the runs it was fitted from, as a fraction (0.12 = 12%).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<f64>,
    /// The validation measurement ids it was fitted to (`ike.setup.psk`, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fitted_to: Vec<String>,
    /// How it was computed.
    pub source: String,
}

/// `[profile]`: name, kind and implementation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileMeta {
    /// Short name, e.g. `"colosseum-e2"`.
    pub name: String,
    /// `"measured"` (on a host by `oransim calibrate`), `"fitted"` (to a paper's published
    /// numbers) or `"imported"` (from another tool's output, e.g. `openssl speed`).
    pub kind: String,
    /// The implementation the op costs describe unless an op says otherwise, e.g.
    /// `"rustcrypto"`, `"aws-lc-rs"`, `"openssl"`, `"linux-kernel-esp"`.
    pub implementation: String,
    /// Free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// When it was made (RFC 3339 / ISO 8601 date or date-time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Sources (papers, tables) this profile draws on, for fitted profiles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<String>,
}

/// `[host]`: the CPU and the build.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostFile {
    /// CPU model string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_model: Option<String>,
    /// CPU features relevant to crypto that the CPU has (`aes`, `pclmulqdq`, `avx2`, `vaes`,
    /// `vpclmulqdq`, `sha_ni`, `avx512f`...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_flags: Vec<String>,
    /// Of those, the ones the CPU lacks (so a reader can tell "absent" from "not checked").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_flags_missing: Vec<String>,
    /// Logical CPUs visible to the process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logical_cpus: Option<u32>,
    /// Operating system / kernel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os: Option<String>,
    /// Virtualisation (e.g. `"KVM guest"`, `"VirtualBox"`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub virtualisation: Option<String>,
    /// `rustc -V` of the build that measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rustc: Option<String>,
    /// Cargo profile and opt-level of the measuring build, e.g. `"release opt-level=3"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_profile: Option<String>,
    /// Target features enabled at compile time (`cfg(target_feature)`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub target_features: Vec<String>,
    /// Crate name -> version of the measured implementations.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub crate_versions: BTreeMap<String, String>,
    /// Free-form notes on the testbed (fitted profiles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// `[measurement]`: how the numbers were taken.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasurementFile {
    /// The tool and version, e.g. `"oransim calibrate 0.1.0"`.
    pub tool: String,
    /// `"quick"` or `"full"`.
    pub mode: String,
    /// Timed samples per (op, size) point, at least.
    pub samples_per_point: u32,
    /// Whether the run judged the machine too noisy for its results to be trusted.
    pub noisy: bool,
    /// Why, if noisy; or the noise figures if not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_note: Option<String>,
    /// 1-minute load average before and after, as read from the OS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_average: Option<String>,
    /// Result of the build sanity check: `"ok"` or what looked pathological.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sanity: Option<String>,
    /// File name of the raw samples CSV beside the profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_samples: Option<String>,
    /// Wall time of the calibration run, e.g. `"21.4s"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_time: Option<String>,
}

/// `[node]`: what a node costs apart from the cipher.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeFile {
    /// Cores available to the data path.
    pub cores: CoresFile,
    /// Per-packet protocol stack cost (headers, routing, SA lookup), paid with and without
    /// encryption.
    pub stack: CostFile,
    /// Per-packet kernel/user I/O cost that does not scale with the cipher (the papers' I/O
    /// bottleneck, 000 §6.3): time on the node's I/O path, a stage of its own (one server).
    /// It alone may have a cost per byte of the frame on the wire ([`CostFile::per_byte`]).
    pub io: CostFile,
    /// Per-packet delay that holds no server (interrupt moderation, scheduler wake-ups,
    /// asynchronous crypto completion): adds to latency, not to CPU or I/O load. Absent: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<CostFile>,
    /// Crypto offloaded to hardware; absent means none.
    #[serde(default)]
    pub offload: OffloadFile,
}

/// `cores = { count = 2, source = "..." }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoresFile {
    /// Number of cores (at least 1).
    pub count: u32,
    /// Where the number comes from.
    pub source: String,
    /// Published numbers it was fitted to, if any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fitted_to: Vec<String>,
}

/// A per-packet cost with its provenance: `{ cost = "2us", source = "...", fitted_to = [...] }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostFile {
    /// Duration with unit, e.g. `"2.5us"`.
    pub cost: String,
    /// Cost per byte of the frame on the wire, e.g. `"3.1ns/B"`: allowed only in `[node.io]`
    /// (absent: 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_byte: Option<String>,
    /// Where the number comes from (a measurement, or a paper's figure/table).
    pub source: String,
    /// Published numbers it was fitted to, if any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fitted_to: Vec<String>,
}

/// `[node.offload]`: which protocols' crypto a NIC does instead of the CPU.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OffloadFile {
    /// IPsec ESP crypto offloaded.
    #[serde(default)]
    pub ipsec: bool,
    /// MACsec crypto offloaded.
    #[serde(default)]
    pub macsec: bool,
    /// TLS record crypto offloaded (kTLS with NIC offload).
    #[serde(default)]
    pub tls: bool,
    /// Where this comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// `[ops."<name>"]`: the cost of one operation as a function of its length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpFile {
    /// `"linear"` (fixed + per_byte x L), `"piecewise"` (interpolate `points`), or
    /// `"constant"` (fixed, whatever L: key exchange, signatures).
    pub model: String,
    /// Fixed cost per operation, e.g. `"310ns"`.
    pub fixed: String,
    /// Cost per byte, e.g. `"0.41ns/B"`; required for `linear`, optional for `piecewise`
    /// (slope used beyond the table), absent for `constant`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_byte: Option<String>,
    /// Where the numbers come from.
    pub source: String,
    /// Published numbers they were fitted to, if any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fitted_to: Vec<String>,
    /// Implementation, when it differs from `[profile].implementation`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementation: Option<String>,
    /// Coefficient of determination of the line through the point medians (0..1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r2: Option<f64>,
    /// Largest |line - median| / median over the points (0.05 = 5%).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rel_residual: Option<f64>,
    /// Measured points, by increasing length.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<PointFile>,
}

/// One measured size of one operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointFile {
    /// Length, e.g. `"1500B"`.
    pub len: String,
    /// Median cost.
    pub median: String,
    /// 5th percentile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p5: Option<String>,
    /// 95th percentile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p95: Option<String>,
    /// Number of timed samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<u32>,
}
