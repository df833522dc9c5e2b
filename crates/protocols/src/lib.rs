//! Byte-exact wire sizes of the protocols on O-RAN interfaces: what ESP, MACsec, TLS/DTLS and
//! SSH add to a payload, how a payload is split to fit an MTU, and what a key exchange sends.
//! Pure functions, no I/O, no time.
//!
//! # Stacks
//!
//! A stack is written lowest layer first, layers separated by `/`, arguments in parentheses
//! ([`LAYER_NAMES`] lists them all):
//!
//! ```
//! use protocols::Stack;
//!
//! // The E2 SCTP SACK of Groen et al. (TMC 2024, §3.1): 62 bytes in clear, 138 in an ESP
//! // tunnel with AES-256-CBC and HMAC-SHA2-256-128.
//! let plain: Stack = "eth/ipv4/sctp(sack)".parse()?;
//! let esp: Stack = "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp(sack)".parse()?;
//! assert_eq!(plain.wire_len(0)?, 62);
//! assert_eq!(esp.wire_len(0)?, 138);
//!
//! // Per layer, lowest first: the ESP layer pads 48 + 2 bytes to 64 (14 bytes of padding).
//! let layers = esp.breakdown(0)?;
//! assert_eq!(layers[2].layer, "esp-tunnel(aes256-cbc,hmac-sha256-128)");
//! assert_eq!((layers[2].header, layers[2].padding, layers[2].trailer), (24, 14, 18));
//! # Ok::<(), protocols::Error>(())
//! ```
//!
//! # What `wire_len` counts, and what MTU means
//!
//! [`Stack::wire_len`] counts the frame as a packet capture shows it: from the destination MAC
//! address to the last byte of the last trailer, without the padding of short Ethernet frames,
//! the FCS, the preamble or the inter-frame gap. For line-rate maths use
//! [`Stack::wire_len_as`] with [`Count::Frame`] (802.3 frame: padded to 64 bytes, FCS
//! included) or [`Count::Line`] (frame + preamble/SFD + inter-frame gap = byte times on the
//! wire). A stack without `eth` at the bottom gives the IP packet length.
//!
//! The MTU is the link MTU: the largest number of bytes after the Ethernet header that the
//! link carries (1500 on standard Ethernet). The 14-byte Ethernet header and 802.1Q tags do
//! not count against it; MACsec's SecTAG and ICV do. [`Stack::mtu_len`] gives the bytes of a
//! frame that count, [`Stack::max_payload`] the largest payload that fits.
//!
//! ```
//! use protocols::{Count, Stack};
//! use protocols::{split_payload, SplitPolicy};
//!
//! let ofh: Stack = "eth/macsec(gcm-aes-128,encrypt)/ecpri".parse()?;
//! assert_eq!(ofh.wire_len(1000)?, 14 + 16 + 4 + 1000 + 16); // eth, SecTAG, eCPRI, ICV
//! assert_eq!(ofh.mtu_len(1000)?, 16 + 4 + 1000 + 16);      // all but the Ethernet header
//! assert_eq!(ofh.max_payload(1500)?, 1464);
//! assert_eq!(ofh.wire_len_as(1000, Count::Line)?, 1050 + 4 + 8 + 12);
//!
//! // An 8192-byte eCPRI payload on a 5000-byte MTU: two equal frames, or 4964 + 3228.
//! let even = split_payload(&ofh, 8192, 5000, SplitPolicy::Even)?;
//! let greedy = split_payload(&ofh, 8192, 5000, SplitPolicy::Greedy)?;
//! assert_eq!((even[0].payload, even[1].payload), (4096, 4096));
//! assert_eq!((greedy[0].payload, greedy[1].payload), (4964, 3228));
//! # Ok::<(), protocols::Error>(())
//! ```
//!
//! Every layer implements one contract, [`Encapsulation::wire_len`]`(payload)`, and a stack
//! composes them from the top down. Bad input is an [`Error`] that says what is allowed.
//!
//! # The cipher's length, and the bytes
//!
//! [`Stack::protected_len`] is the one definition of the length L a security layer's cipher
//! processes (and a profile's cost is charged at); [`Stack::protected`] splits it into bytes
//! encrypted and bytes only authenticated ([`Protected`] says what each protocol counts).
//! [`Stack::emit`] writes the frame itself through the [`wire`] views and names the regions a
//! cipher works on; [`Suite`] names the measured cipher suites.
//!
//! ```
//! use protocols::{Ids, Stack, Suite};
//!
//! let ofh: Stack = "eth/macsec(gcm-aes-128,encrypt)/ecpri".parse()?;
//! assert_eq!(ofh.protected_len(7660)?, Some(7666)); // EtherType 2 + eCPRI 4 + payload
//! assert_eq!(ofh.suite(), Some(Suite::Aes128Gcm));
//! let mut frame = Vec::new();
//! let written = ofh.emit(0, &[0u8; 7660], &Ids::default(), &mut frame)?;
//! assert_eq!(frame.len(), ofh.wire_len(7660)?);
//! assert_eq!(written.sealing[0].encrypted.len(), 7666);
//! # Ok::<(), protocols::Error>(())
//! ```

// The face. The stack, its layers and what they produce are at the root: [`Stack`] and
// [`StackBuilder`], [`Layer`], the [`Encapsulation`] contract, [`Protected`], [`Emitted`] frames,
// the fragmenters, [`Suite`], [`Template`] and the one [`Error`]; their modules are private.
// Each protocol is a public namespace of its own (`esp`, `macsec`, `tls`, `ikev2`, ...): every
// one names its header length `HEADER`, its layer's cipher `Cipher`, its `MIN_MTU` or
// `MAX_FRAGMENT`, so flattened they would collide. `wire` is smoltcp's namespace of the wire
// formats, one module per protocol, each with its `Packet` view and `Repr`. `catalogue` is a
// namespace because its functions name the rows of the catalogue (`catalogue::interface`,
// `catalogue::tls_suites`).

mod build;
pub mod catalogue;
pub mod e2ap;
pub mod ecpri;
mod emit;
mod error;
pub mod esp;
pub mod ethernet;
mod fragment;
pub mod geneve;
pub mod ikev2;
pub mod ipv4;
pub mod ipv6;
mod kem;
mod layer;
pub mod macsec;
mod names;
mod protected;
pub mod sctp;
pub mod ssh;
mod stack;
mod suite;
pub mod tcp;
mod template;
pub mod tls;
pub mod tls_handshake;
pub mod udp;
pub mod vxlan;
pub mod wire;

pub use build::{Protocol, StackBuilder};
pub use emit::{Checksum, ChecksumKind, Emitted, Ids, Sealing};
pub use error::{Error, Input, Result};
pub use ethernet::Count;
pub use fragment::{
    Frame, IpFragment, IpsecFragmentation, MAX_FRAMES, SplitPolicy, ip_fragments, ipsec_fragments,
    path_mtu, sctp_message_frames, split_payload,
};
pub use kem::Kem;
pub use layer::{Encapsulation, MAX_PAYLOAD, Parts};
pub use protected::Protected;
pub use stack::{LAYER_NAMES, Layer, LayerBytes, OverheadReport, Stack};
pub use suite::{AEAD_TAG, AES_BLOCK, AesKey, Sha2, Suite};
pub use template::{Layout, Template};
