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
//! - **Bulk records.** The record stream is an engine run ([`engine_bulk_throughput`]): a bulk
//!   flow of [`RECORD_LEN`]-byte records from an `s_server` node to an `s_time` node on one host
//!   of the bench's cores, each node one thread, at most [`BULK_WINDOW`] records unacknowledged.
//!   The server's CPU per byte is `O_s^rec + seal(suite)`, the client's `O_c^rec + open(suite)`
//!   (`openssl speed` times encryption only, so `open` is taken equal to `seal`); `O_s^rec` and
//!   `O_c^rec` are the fitted suite's ([`FIT_BULK`]) measured CPU per byte of each process less
//!   its seal (open), and loopback carries each record and its acknowledgement a fitted delay
//!   `d` later (the wake-up of the side that waits), solved by bisection on the engine so that
//!   it reproduces the fitted suite's measured throughput. The measured processes are not busy
//!   all the time (server + client about 1.5 of the wall time on the dev host), so a pipeline
//!   that never waits would overpredict; `d` is that waiting. The serial closed form
//!   `t = O_b + seal + open` per byte is still fitted (`tls.record.overhead_per_byte`, the
//!   scenario's TLS data path charges it) but predicts nothing.
//!
//! Key generation is one fixed-base scalar multiplication, which `openssl speed` does not time
//! alone; the signature dominated by the same multiplication on the same curve stands for it
//! (`ed25519.sign` for X25519, `ecdsa-p256.sign` for P-256): an upper bound, since the
//! signature adds hashing (and, for ECDSA, an inversion).

mod compare;
mod engine;
mod file;
mod fit;
mod measure;

pub use super::MeasureError;
pub use compare::validate;
pub use engine::{
    ENGINE_HANDSHAKES, EngineBulk, EngineHandshake, engine_bulk_throughput, engine_handshake_rate,
};
pub use file::implementation_file;
pub use measure::{
    BulkRun, BulkWorkload, Cert, ConcurrentWorkload, Group, HandshakeRun, HandshakeWorkload, Set,
    Speed, TlsCipherSuite, TlsMeasurements, bulk_id, concurrent_id, handshake_id, resumed_id,
};

/// The JSON schema name of a [`TlsMeasurements`] document.
pub const MEASURE_SCHEMA: &str = "oransim.measure.tls/1";

/// Record plaintext length the bulk model charges the cipher for \[bytes\]: `s_server -WWW`
/// writes 16 KiB at a time, TLS 1.3's largest record.
pub const RECORD_LEN: u64 = 16384;

/// The handshake workload the handshake terms are fitted to.
pub const FIT_HANDSHAKE: (Group, Cert) = (Group::X25519, Cert::EcdsaP256);

/// The bulk workload the record term is fitted to.
pub const FIT_BULK: TlsCipherSuite = TlsCipherSuite::Aes256GcmSha384;

/// Records the engine's record stream holds unacknowledged at most \[records\]: 2, the
/// smallest window in which `s_server` seals a record while `s_time` opens the one before (the
/// measured processes overlap: server + client busy about 1.5 of the wall time). A modelling
/// choice, not a measurement: with the delay fitted, a window `W` weighs a suite's crypto
/// difference by `2/W` per byte of each side once neither side saturates
/// (docs/implementation-tls.md, "Bulk records").
pub const BULK_WINDOW: u32 = 2;

/// Records one engine run of the record stream moves \[records\] (4 MiB at [`RECORD_LEN`]);
/// the throughput is the steady state's, from a second run of half as many (the first
/// records' fill drops out of the difference).
pub const ENGINE_RECORDS: u32 = 256;
