//! # live: real encrypted packets on this host, beside the simulator's prediction
//!
//! [`protect`] seals and opens real ESP (tunnel, AES-256-GCM or AES-256-CBC + HMAC-SHA-256-128),
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

pub mod accuracy;
pub mod bulk;
pub mod capture;
pub mod child;
pub mod cpu;
mod error;
pub mod ike;
pub mod net;
pub mod noise;
pub mod openssl_tls;
pub mod predict;
pub mod protect;
pub mod rtt;
pub mod stats;
pub mod throughput;

pub use error::LiveError;
pub use protect::{OpenStats, Opener, Protection, Refused, Sealer, security_association};
