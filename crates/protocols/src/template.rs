//! A frame written once by [`Stack::emit`] and stamped per packet: the fields emit fills from
//! the packet counter [`Ids::seq`] (the ESP sequence number and the counter-mode IV, the MACsec
//! packet number, SCTP's TSN and stream sequence, the TCP timestamp) are found once, by
//! emitting with two probe counters, and rewritten in place, so a capture of many packets
//! costs three emits per frame size, not one per packet. The transport checksums are filled
//! (nothing is sealed: ICVs stay zero), and those that cover a stamped byte are filled again
//! after each stamp.
//!
//! ```
//! use protocols::{Ids, Stack, Template};
//!
//! let st: Stack = "eth/ipv4/udp/esp-tunnel(aes128-gcm-16)/ipv4/udp".parse()?;
//! let mut t = Template::new(&st, &[0x5a; 100], &Ids::default())?;
//! let mut fresh = Vec::new();
//! let e = st.emit(0, &[0x5a; 100], &Ids { seq: 7, ..Ids::default() }, &mut fresh)?;
//! e.finish(&mut fresh, |_, _| Ok::<(), ()>(())).unwrap(); // the checksums
//! assert_eq!(t.stamp(7), &fresh[..]);
//! # Ok::<(), protocols::Error>(())
//! ```

use crate::Result;
use crate::Stack;
use crate::emit::{Checksum, Emitted, Ids};

/// Two packet counters whose every byte differs, each byte naming its place (`0x01` the least
/// significant): a field [`Stack::emit`] fills from [`Ids::seq`] (a big-endian truncation to
/// its width) shows in which bytes it lies and which byte of the counter each holds.
const PROBES: [u64; 2] = [0x0807_0605_0403_0201, 0x1817_1615_1413_1211];

/// A frame of one stack and payload whose per-packet counter can be rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    bytes: Vec<u8>,
    /// Each byte a counter is written into, and which byte of the counter it takes (0: the
    /// least significant).
    stamps: Vec<(usize, u8)>,
    /// The checksums that cover a stamp, innermost first (the order they are filled in).
    checksums: Vec<Checksum>,
    /// The counter the bytes hold.
    seq: u64,
    /// What the emit wrote: where the security layers and checksums lie.
    emitted: Emitted,
}

/// Where a stack's frames of one length carry the packet counter ([`Template::layout`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Each byte the counter is written into, and which byte of the counter it takes (0: the
    /// least significant).
    stamps: Vec<(usize, u8)>,
}

impl Template {
    /// Emits the frame of `stack` around `payload` with `ids` (from layer 0), fills its
    /// checksums, and finds the bytes that carry [`Ids::seq`] ([`Template::layout`]); errors
    /// are [`Stack::emit`]'s.
    pub fn new(stack: &Stack, payload: &[u8], ids: &Ids) -> Result<Template> {
        Template::with_layout(stack, payload, ids, &Template::layout(stack, payload, ids)?)
    }

    /// Where the packet counter lies in the frames of `stack` around a payload as long as
    /// `payload` (found by emitting with two probe counters): the same for every
    /// `ids` and payload bytes of that length, so frames of one stack and size that differ in
    /// their addresses share it.
    pub fn layout(stack: &Stack, payload: &[u8], ids: &Ids) -> Result<Layout> {
        let mut probes = [Vec::new(), Vec::new()];
        for (out, seq) in probes.iter_mut().zip(PROBES) {
            stack.emit(0, payload, &Ids { seq, ..*ids }, out)?;
        }
        let stamps = probes[0]
            .iter()
            .zip(&probes[1])
            .enumerate()
            // Probe bytes are 0x01..=0x08 and 0x11..=0x18 (b = a + 0x10, checked), so the
            // subtraction stays in range.
            .filter(|&(_, (&a, &b))| matches!(a, 1..=8) && b == a.wrapping_add(0x10))
            .map(|(at, (&a, _))| (at, a.wrapping_sub(1)))
            .collect();
        Ok(Layout { stamps })
    }

    /// [`Template::new`] with the counter's bytes already found ([`Template::layout`] of the
    /// same stack and payload length): one emit.
    pub fn with_layout(
        stack: &Stack,
        payload: &[u8],
        ids: &Ids,
        layout: &Layout,
    ) -> Result<Template> {
        let mut bytes = Vec::new();
        let emitted = stack.emit(0, payload, ids, &mut bytes)?;
        // Nothing to seal (ICVs stay zero, nothing is encrypted): only the checksums.
        emitted.finish(&mut bytes, |_, _| Ok::<(), ()>(())).ok();
        let stamps = layout.stamps.clone();
        let checksums = emitted
            .checksums
            .iter()
            .rev()
            .filter(|c| stamps.iter().any(|&(at, _)| c.unit.contains(&at)))
            .cloned()
            .collect();
        Ok(Template {
            bytes,
            stamps,
            checksums,
            seq: ids.seq,
            emitted,
        })
    }

    /// The frame with packet counter `seq` written where [`Stack::emit`] writes [`Ids::seq`]:
    /// the same bytes as an emit with that `seq`.
    pub fn stamp(&mut self, seq: u64) -> &[u8] {
        if seq == self.seq {
            return &self.bytes;
        }
        self.seq = seq;
        let counter = seq.to_le_bytes();
        for &(at, byte) in &self.stamps {
            if let (Some(b), Some(&v)) = (self.bytes.get_mut(at), counter.get(byte as usize)) {
                *b = v;
            }
        }
        for c in &self.checksums {
            c.fill(&mut self.bytes);
        }
        &self.bytes
    }

    /// Where the frame's security layers and transport checksums lie: the same for every
    /// counter, so a stamped frame can be sealed ([`Emitted::finish`], which fills the
    /// checksums again around the ciphers).
    pub fn emitted(&self) -> &Emitted {
        &self.emitted
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
            "eth/ipv6/udp/esp-tunnel(aes128-gcm-16)/ipv6/tcp",
            "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp(data)/e2ap",
            "eth/macsec(gcm-aes-128,encrypt)/ipv4/tcp(ts)",
            "eth/ipv4/udp/vxlan/eth/ipv4/esp-tunnel(aes128-gcm-16)/ipv4/udp",
            "eth/ipv6/udp/geneve(options=12)/eth/macsec(gcm-aes-128,encrypt)/ipv4/tcp(ts)",
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
                .unwrap()
                .finish(&mut fresh, |_, _| Ok::<(), ()>(()))
                .unwrap();
                assert_eq!(t.stamp(seq), &fresh[..], "{text} seq {seq}");
            }
            assert_eq!(t.len(), st.wire_len(77).unwrap());
        }
    }
}
