//! # live: real encrypted packets on this host, beside the simulator's prediction
//!
//! [`Sealer`] and [`Opener`] seal and open real ESP (tunnel, AES-256-GCM or AES-256-CBC + HMAC-SHA-256-128),
//! MACsec (GCM-AES-128, encryption on or integrity only) and TLS 1.3 records with RustCrypto;
//! [`rtt`], [`throughput`] and [`bulk`] run the papers' experiments between two threads over UDP
//! on loopback (127.0.0.1), or over a veth pair between two network namespaces of their own
//! ([`net::Transport`], root only), every loop bounded in packets and time; [`predict`] runs the
//! same experiments in the simulator from a calibration profile, fitted to the plaintext run only;
//! [`accuracy`] holds the comparison to a tolerance. [`ike`] seals the encrypted payloads of a
//! modelled IKEv2 exchange with fixed test keys, for a capture Wireshark decrypts.
//!
//! ```
//! use live::{Protection, security_association};
//!
//! let (mut sealer, mut opener) = security_association(Protection::EspGcm, 1)?;
//! let mut datagram = Vec::new();
//! sealer.seal(b"eight+ bytes of payload", &mut datagram)?;
//! // The length is what the protocol model says: ESP in UDP, inner IPv4 + UDP.
//! assert_eq!(datagram.len(), Protection::EspGcm.datagram_len(23).unwrap());
//! let mut tampered = datagram.clone();
//! tampered[40] ^= 1;
//! assert!(opener.open(&mut tampered).is_err()); // counted, never delivered
//! assert_eq!(opener.open(&mut datagram).unwrap(), b"eight+ bytes of payload");
//! assert_eq!(opener.stats().auth_failures, 1);
//! # Ok::<(), live::LiveError>(())
//! ```

// The face. The sealers and openers ([`Protection`], [`Sealer`], [`Opener`],
// [`security_association`], [`FrameSealer`] for captures), the child-process helpers
// ([`Reaper`], [`Forwarder`]) and the CPU helpers ([`two_cpus`], [`pin_current_thread`]) are at
// the root; their modules are private. Namespaces, each read with its name: the three
// experiments `rtt`, `throughput` and `bulk` (each has its `run`, `run_recorded`, its config and
// its `MAX_*` bounds), their `predict`ions and `accuracy`, `net` (the UDP and veth transport the
// experiments and their tests share), `capture` (the experiments' pcapng), `frames` (a stack's
// frames sealed for a capture: `frames::overhead`, `frames::esp_sa`), `ike` (`ike::seal` of a
// modelled IKEv2 exchange) and `openssl_tls` (`openssl_tls::measure`).

pub mod accuracy;
pub mod bulk;
pub mod capture;
mod child;
mod cpu;
mod error;
pub mod ike;
pub mod net;
mod noise;
pub mod openssl_tls;
pub mod predict;
mod protect;
pub mod rtt;
mod stats;
pub mod throughput;

pub use child::{Forwarder, Reaper, die_with_parent, signal_name};
pub use cpu::{allowed_cpus, pin_current_thread, two_cpus};
pub use error::LiveError;
pub use protect::frames;
pub use protect::{
    CipherError, EspSaKeys, FrameSealer, KeyKind, LayerKeys, OpenStats, Opener, Opening,
    Protection, RecordKeys, Refused, Sealer, esp_sa_keys, security_association,
};
pub use stats::Summary;
