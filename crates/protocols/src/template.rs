//! A frame written once by [`Stack::emit`] and stamped per packet: the fields that change from
//! one packet of a flow to the next (the ESP sequence number, the explicit IV that counter-mode
//! ESP transforms fill with it, the MACsec packet number) are found once, from the security
//! layers [`Stack::emit`] reports, and rewritten in place, so a capture of many packets costs
//! one emit per frame size, not one per packet.
//!
//! ```
//! use protocols::{Stack, emit::Ids, template::Template};
//!
//! let st: Stack = "eth/ipv4/udp/esp-tunnel(aes128-gcm-16)/ipv4/udp".parse()?;
//! let mut t = Template::new(&st, &[0x5a; 100], &Ids::default())?;
//! let mut fresh = Vec::new();
//! st.emit(0, &[0x5a; 100], &Ids { seq: 7, ..Ids::default() }, &mut fresh)?;
//! assert_eq!(t.stamp(7), &fresh[..]);
//! # Ok::<(), protocols::Error>(())
//! ```

use crate::Result;
use crate::emit::Ids;
use crate::esp::Cipher as EspCipher;
use crate::stack::{Layer, Stack};
use crate::wire::{esp, macsec};

/// One field a packet counter is written into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stamp {
    /// The counter's low 32 bits, big-endian, at this offset (ESP sequence number, RFC 4303
    /// §2.2; MACsec PN, IEEE 802.1AE §9.8).
    Low32(usize),
    /// The whole 64-bit counter, big-endian, at this offset (the explicit IV of counter-mode
    /// ESP transforms, RFC 4106 §3.1, as [`Stack::emit`] writes it).
    Full64(usize),
}

/// A frame of one stack and payload whose per-packet counter can be rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    bytes: Vec<u8>,
    stamps: Vec<Stamp>,
}

impl Template {
    /// Emits the frame of `stack` around `payload` with `ids` (from layer 0) and finds the
    /// counter fields of its security layers; errors are [`Stack::emit`]'s.
    pub fn new(stack: &Stack, payload: &[u8], ids: &Ids) -> Result<Template> {
        let mut bytes = Vec::new();
        let emitted = stack.emit(0, payload, ids, &mut bytes)?;
        let mut stamps = Vec::new();
        for s in &emitted.sealing {
            match &stack.layers()[s.layer] {
                Layer::Esp(e) => {
                    // The ESP header starts the authenticated bytes: SPI, then the sequence.
                    stamps.push(Stamp::Low32(
                        s.aad.start.saturating_add(esp::field::SEQ.start),
                    ));
                    if s.iv.len() == crate::esp::COUNTER_IV
                        && !matches!(e.suite.cipher, EspCipher::AesCbc(_))
                    {
                        stamps.push(Stamp::Full64(s.iv.start));
                    }
                }
                Layer::Macsec(_) => {
                    // The authenticated bytes start at the frame (DA, SA, then the SecTAG).
                    let sectag = s.aad.start.saturating_add(macsec::SECTAG_OFFSET);
                    stamps.push(Stamp::Low32(sectag.saturating_add(macsec::field::PN.start)));
                }
                _ => {}
            }
        }
        Ok(Template { bytes, stamps })
    }

    /// The frame with packet counter `seq` written where [`Stack::emit`] writes [`Ids::seq`]:
    /// the same bytes as an emit with that `seq`.
    pub fn stamp(&mut self, seq: u64) -> &[u8] {
        for s in &self.stamps {
            let (at, value) = match *s {
                Stamp::Low32(at) => (at, &(seq as u32).to_be_bytes()[..]),
                Stamp::Full64(at) => (at, &seq.to_be_bytes()[..]),
            };
            if let Some(field) = self.bytes.get_mut(at..at.saturating_add(value.len())) {
                field.copy_from_slice(value);
            }
        }
        &self.bytes
    }

    /// The frame's length \[bytes\].
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the frame is empty (never, for a stack with a layer).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::Template;
    use crate::Stack;
    use crate::emit::Ids;

    /// A stamped template equals a fresh emit for every writable security layer and several
    /// counters, the 32-bit fields taking the counter's low bits.
    #[test]
    fn stamped_equals_emitted() {
        for text in [
            "eth/macsec(gcm-aes-128,encrypt)/ecpri",
            "eth/macsec(gcm-aes-256,integrity,no-sci)/ipv4/udp",
            "eth/ipv4/udp/esp-tunnel(aes256-gcm-16)/ipv4/udp",
            "eth/ipv4/esp-tunnel(aes128-cbc,hmac-sha1-96,tfc=300)/ipv4/udp",
            "ipv4/esp-transport(aes256-gmac)/udp",
            "ipv4/esp-tunnel(chacha20-poly1305)/ipv4/udp/ecpri",
            "eth/macsec(gcm-aes-128)/ipv4/esp-tunnel(aes128-gcm-16)/ipv4/udp",
            "eth/ipv4/udp/ecpri",
        ] {
            let st: Stack = text.parse().unwrap();
            let payload = [0xa5u8; 77];
            let mut t = Template::new(&st, &payload, &Ids::default()).unwrap();
            let mut fresh = Vec::new();
            for seq in [1u64, 2, 255, 65_537, u64::from(u32::MAX) + 5, 3] {
                st.emit(
                    0,
                    &payload,
                    &Ids {
                        seq,
                        ..Ids::default()
                    },
                    &mut fresh,
                )
                .unwrap();
                assert_eq!(t.stamp(seq), &fresh[..], "{text} seq {seq}");
            }
            assert_eq!(t.len(), st.wire_len(77).unwrap());
        }
    }
}
