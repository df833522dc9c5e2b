//! Measures what cryptography really costs on this host, and writes the calibration profile
//! ([`profile`]) oransim's model uses.
//!
//! - [`rustcrypto_ciphers`]: seal/open of every suite in [`profile::Suite::ALL`] (RustCrypto),
//!   laid out as ESP and MACsec do; [`rustcrypto_key_ops`]: X25519, ML-KEM, Ed25519, ECDSA
//!   P-256, ML-DSA.
//! - `measure` (private): batches timed with a monotonic clock, warm-up, repeated samples, every sealed
//!   packet opened and compared, tampering refused.
//! - `fit` (private): `cost(L) = a + b*L` by relative least squares, with a piecewise table when a line
//!   misses a point by more than 10%.
//! - [`run`]: a whole run (quick or full, [`Config`]), noise verdict, sanity check ([`Problem`]),
//!   and the profile and raw-samples CSV ([`Calibration`]).
//! - [`openssl`]: imports `openssl speed -mr -evp` output as a profile, for CPUs without Rust.
//!
//! ```no_run
//! let cal = crypto_bench::run(&crypto_bench::Config::quick("here"), &mut |_| {})?;
//! let text = profile::to_toml_string(&cal.profile)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The face: a calibration run ([`Config`], [`run`], [`Calibration`]), the ciphers and key
// operations it times ([`rustcrypto_ciphers`], [`rustcrypto_key_ops`]), the host it ran on
// ([`BuildInfo`]) and the loopback I/O cost ([`udp_loopback`]); their modules are private.
// `openssl` stays a namespace: it imports another tool's output (`openssl::parse`,
// `openssl::import`), names that read only with it.
#[cfg(feature = "aws-lc")]
mod aws;
mod calibrate;
mod ciphers;
mod fit;
mod host;
mod io;
mod keyops;
mod measure;
pub mod openssl;
#[cfg(feature = "pqclean")]
mod pqclean;

pub use calibrate::{
    Calibration, Config, Implementation, Mode, Operations, PointResult, Problem, now_rfc3339,
    operations, rfc3339, run,
};
pub use ciphers::{Cipher, OpenError, rustcrypto_ciphers};
pub use host::BuildInfo;
pub use io::{LoopbackIo, udp_loopback};
pub use keyops::{CheckFailed, KeyOp, rustcrypto_key_ops};

/// The one error type of this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// A measured operation gave a wrong result: a sealed packet did not open to its plaintext,
    /// a tampered one was accepted, two sides of a key exchange disagreed. Nothing is written.
    #[error("{op} at {len} B failed verification, refusing to calibrate: {message}")]
    Verification {
        /// Operation name.
        op: String,
        /// Length \[B\] (0 for key operations).
        len: usize,
        /// What did not hold.
        message: String,
    },
    /// The implementation asked for is not in this build.
    #[error("implementation `{implementation}` is not in this build: {hint}")]
    Unavailable {
        /// Its name.
        implementation: String,
        /// How to get it.
        hint: String,
    },
    /// Input to import (e.g. `openssl speed -mr` output) was not understood.
    #[error("{origin}: line {line}: {message}")]
    Import {
        /// File name.
        origin: String,
        /// 1-based line number (0: the whole input).
        line: usize,
        /// What was wrong and what was expected.
        message: String,
    },
    /// A prefix of [`Config::only`] selects no operation of the implementation.
    #[error(
        "`{prefix}` selects no operation that {implementation} measures; its operations are: {available}"
    )]
    NothingSelected {
        /// The prefix as given.
        prefix: String,
        /// The implementation measured.
        implementation: String,
        /// The operation names there are, comma-separated.
        available: String,
    },
    /// The profile made from the measurements did not validate.
    #[error(transparent)]
    Profile(#[from] profile::ProfileError),
}
