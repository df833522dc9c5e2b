//! "These bytes": a [`Stack`] writes the headers and trailers of its layers around a payload,
//! with exactly the lengths [`Stack::wire_len`] counts, and says where each security layer's
//! cipher works ([`Sealing`]): the bytes it only authenticates, the bytes it encrypts, the IV
//! the caller may still have to fill, and the ICV it must write. The cipher calls themselves
//! stay with the caller (live, crypto-bench, tests); this crate never depends on a cipher.
//!
//! Written layers: `eth` (with `macsec` on it), `macsec`, `ipv4`, `ipv6` (extension headers
//! as one Destination Options header), `udp`, `tcp` (timestamps and other option bytes),
//! `sctp` (DATA, I-DATA or SACK), `esp-tunnel` and `esp-transport` (every transform), `ecpri`,
//! `e2ap`, `tls13` (one record), `tls12` with AES-GCM or ChaCha20-Poly1305 (one record),
//! `ssh` with AES-GCM (one binary packet), `vxlan` and `geneve` (with stand-in options). The
//! others are sized but not written: [`Stack::emit`] refuses them with [`Error::Unsupported`].
//!
//! Transport checksums (TCP; UDP over IPv6, where it is mandatory, RFC 8200 §8.1; UDP carrying
//! VXLAN or Geneve; SCTP's CRC32c) are computed over the bytes as emitted and listed in
//! [`Emitted::checksums`]: a caller that encrypts a layer above one recomputes it after sealing,
//! layer by layer from the top ([`Emitted::finish`]). Other UDP over IPv4 carries checksum 0
//! ("not computed", RFC 768). UDP under an overlay goes to its IANA port (VXLAN 4789, Geneve
//! 6081) from [`Ids::src_port`], with its checksum over IPv4 too: what Linux sends by default
//! since 4.7 (its vxlan and geneve devices' `udpcsum`; RFC 7348 §5 would send 0, and receivers
//! accept both).
//!
//! ```
//! use protocols::{Ids, Stack};
//!
//! let st: Stack = "eth/macsec(gcm-aes-128,encrypt)/ecpri".parse()?;
//! let mut frame = Vec::new();
//! let e = st.emit(0, &[7u8; 100], &Ids::default(), &mut frame)?;
//! assert_eq!(frame.len(), st.wire_len(100)?);
//! let s = &e.sealing[0];
//! // DA, SA and the SecTAG are authenticated; EtherType, eCPRI header and payload encrypted.
//! assert_eq!((s.aad.clone(), s.encrypted.clone(), s.icv.clone()), (0..28, 28..134, 134..150));
//! assert_eq!(s.encrypted.len(), st.protected(100)?.unwrap().encrypted);
//! # Ok::<(), protocols::Error>(())
//! ```

#![deny(clippy::arithmetic_side_effects)]

use std::ops::Range;

use crate::Result;
use crate::error::Error;
use crate::esp::{Cipher as EspCipher, Esp};
use crate::sctp::Chunk as SctpChunk;
use crate::stack::{Layer, Stack};
use crate::tls::Version;
use crate::wire::checksum::Pseudo;
use crate::wire::{ecpri, esp, ethernet, geneve, ipv4, ipv6, macsec, sctp, tcp, tls, udp, vxlan};

/// The identifiers written into the headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ids {
    /// Ethernet destination address.
    pub dst_mac: [u8; 6],
    /// Ethernet source address.
    pub src_mac: [u8; 6],
    /// IPv4 source address (every IPv4 layer).
    pub src_ip: [u8; 4],
    /// IPv4 destination address.
    pub dst_ip: [u8; 4],
    /// IPv4 time to live and IPv6 hop limit.
    pub ttl: u8,
    /// IPv6 source address (every IPv6 layer).
    pub src_ip6: [u8; 16],
    /// IPv6 destination address.
    pub dst_ip6: [u8; 16],
    /// UDP (but UDP carrying ESP, which is on [`udp::NAT_T_PORT`]), TCP and SCTP source port.
    pub src_port: u16,
    /// UDP, TCP and SCTP destination port (but UDP carrying ESP, VXLAN or Geneve, which goes
    /// to [`udp::NAT_T_PORT`], [`crate::vxlan::UDP_PORT`] or [`crate::geneve::UDP_PORT`]).
    pub dst_port: u16,
    /// TCP sequence number of the segment's first data byte.
    pub tcp_seq: u32,
    /// TCP acknowledgment number.
    pub tcp_ack: u32,
    /// SCTP verification tag.
    pub vtag: u32,
    /// ESP Security Parameters Index.
    pub spi: u32,
    /// Packet counter: ESP sequence number and MACsec PN (low 32 bits), the explicit IV of
    /// counter-mode ESP transforms (RFC 4106 §3.1 advises a counter), SCTP TSN and stream
    /// sequence number (low 32 and 16 bits; a SACK's cumulative TSN ack), TCP TSval
    /// \[count\].
    pub seq: u64,
    /// MACsec Secure Channel Identifier (sent when the stack's MACsec has `sci`).
    pub sci: u64,
    /// MACsec association number (0-3).
    pub an: u8,
    /// VXLAN and Geneve network identifier (24 bits).
    pub vni: u32,
    /// The SCTP user message a DATA or I-DATA chunk carries and its fragment: its number is
    /// the SSN (MID), its place the B and E flags (and I-DATA's FSN). `None`: a whole message
    /// numbered by [`Ids::seq`] (B and E set).
    pub sctp_part: Option<crate::sctp::MessagePart>,
}

impl Default for Ids {
    fn default() -> Ids {
        Ids {
            dst_mac: [0x02, 0, 0, 0, 0, 0x03],
            src_mac: [0x02, 0, 0, 0, 0, 0x02],
            src_ip: [127, 0, 0, 2],
            dst_ip: [127, 0, 0, 3],
            ttl: 64,
            // 2001:db8::2 and ::3, the documentation prefix (RFC 3849).
            src_ip6: [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
            dst_ip6: [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3],
            src_port: 4500,
            dst_port: 4500,
            tcp_seq: 1,
            tcp_ack: 1,
            vtag: 0x0a0b_0c0d,
            spi: 0x1000_0001,
            seq: 1,
            sci: 0x0200_0000_0002_0001,
            an: 0,
            vni: 42,
            sctp_part: None,
        }
    }
}

/// Where one security layer's cipher works in an emitted buffer (byte ranges of the buffer).
/// `aad` ends where `encrypted` starts or before; both end before `icv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sealing {
    /// Index of the security layer in the stack.
    pub layer: usize,
    /// Authenticated, not encrypted: ESP header (+ IV for CBC, + everything for GMAC/NULL),
    /// MACsec DA..SecTAG (everything for integrity only), TLS record header (TLS 1.2's AEAD
    /// authenticates a 13-byte pseudo-header built from it: the record sequence number, type,
    /// version and the plaintext's length, RFC 5246 §6.2.3.3).
    pub aad: Range<usize>,
    /// Encrypted (empty for integrity-only transforms).
    pub encrypted: Range<usize>,
    /// The explicit IV in the packet (empty when none): written as [`Ids::seq`] for counter
    /// modes, left zero for AES-CBC, whose IV must be unpredictable (RFC 3602 §2).
    pub iv: Range<usize>,
    /// Where the ICV goes (zero on return).
    pub icv: Range<usize>,
}

/// Which checksum a transport layer carries, and what it covers besides its own bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChecksumKind {
    /// TCP: the Internet checksum under the IP pseudo-header (RFC 9293 §3.1).
    Tcp(Pseudo),
    /// UDP over IPv6, or carrying VXLAN or Geneve: the Internet checksum under the
    /// pseudo-header, 0 sent as 0xffff (RFC 8200 §8.1, RFC 768).
    Udp(Pseudo),
    /// SCTP: CRC32c of the packet (RFC 9260 §6.8).
    Sctp,
}

/// A checksum field in an emitted buffer and the bytes it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checksum {
    /// Index of the transport layer in the stack.
    pub layer: usize,
    /// The layer's unit (its header and everything it carries): range of the buffer.
    pub unit: Range<usize>,
    /// The checksum.
    pub kind: ChecksumKind,
}

impl Checksum {
    /// Computes the checksum over the unit as it now is and writes it into its field.
    pub fn fill(&self, out: &mut [u8]) {
        let unit = &mut out[self.unit.clone()];
        match self.kind {
            ChecksumKind::Tcp(ip) => tcp::Packet::new_unchecked(unit).fill_checksum(ip),
            ChecksumKind::Udp(ip) => {
                let mut p = udp::Packet::new_unchecked(unit);
                p.set_checksum(0);
                let c = crate::wire::checksum::transport(ip, ipv4::PROTO_UDP, p.into_inner());
                udp::Packet::new_unchecked(&mut out[self.unit.clone()]).set_checksum(if c == 0 {
                    0xffff
                } else {
                    c
                });
            }
            ChecksumKind::Sctp => sctp::Packet::new_unchecked(unit).fill_checksum(),
        }
    }
}

/// What [`Stack::emit`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Emitted {
    /// Where the application payload is.
    pub payload: Range<usize>,
    /// The security layers, outermost first.
    pub sealing: Vec<Sealing>,
    /// The transport checksums, outermost first (filled over the bytes as emitted).
    pub checksums: Vec<Checksum>,
}

impl Emitted {
    /// Seals the security layers and fills the checksums in the order the bytes need: from the
    /// innermost layer out, so that each checksum covers the sealed bytes above it and each
    /// cipher the checksums below it. `seal` gets each [`Sealing`] and the whole buffer.
    pub fn finish<E>(
        &self,
        out: &mut [u8],
        mut seal: impl FnMut(&Sealing, &mut [u8]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let mut s = self.sealing.iter().rev().peekable();
        let mut c = self.checksums.iter().rev().peekable();
        loop {
            let next_seal = s.peek().map(|x| x.layer);
            let next_sum = c.peek().map(|x| x.layer);
            match (next_seal, next_sum) {
                (None, None) => return Ok(()),
                (Some(a), b) if b.is_none_or(|b| a > b) => {
                    if let Some(x) = s.next() {
                        seal(x, out)?;
                    }
                }
                _ => {
                    if let Some(x) = c.next() {
                        x.fill(out);
                    }
                }
            }
        }
    }
}

/// The pseudo-header of the IP layer under transport layer `i` (across an ESP transport
/// layer), or None when that IP layer is not emitted (below `from`: the socket adds it and
/// computes the checksum).
fn pseudo_below(layers: &[Layer], from: usize, i: usize, ids: &Ids) -> Option<Pseudo> {
    for j in (from..i).rev() {
        match &layers[j] {
            Layer::Ipv4(_) => return Some(Pseudo::V4(ids.src_ip, ids.dst_ip)),
            Layer::Ipv6(_) => return Some(Pseudo::V6(ids.src_ip6, ids.dst_ip6)),
            Layer::Esp(_) => {}
            _ => return None,
        }
    }
    None
}

/// The ESP Next Header / IPv4 protocol number of the layer above.
fn proto_above(above: Option<&Layer>) -> Result<u8> {
    Ok(match above {
        Some(Layer::Ipv4(_)) => ipv4::PROTO_IPV4,
        Some(Layer::Ipv6(_)) => ipv4::PROTO_IPV6,
        Some(Layer::Udp(_)) => ipv4::PROTO_UDP,
        Some(Layer::Tcp(_)) => ipv4::PROTO_TCP,
        Some(Layer::Sctp(_)) => ipv4::PROTO_SCTP,
        Some(Layer::Esp(_)) => ipv4::PROTO_ESP,
        // Nothing above: the payload is opaque; IANA's "No Next Header" (RFC 8200 §4.7).
        _ => 59,
    })
}

/// The SCTP Payload Protocol Identifier of what a DATA chunk carries: E2AP's 70, else 0
/// (unspecified, RFC 9260 §3.3.1).
fn sctp_ppid(above: Option<&Layer>) -> u32 {
    match above {
        Some(Layer::E2ap) => crate::sctp::PPID_E2AP,
        _ => 0,
    }
}

/// The EtherType of the layer above an Ethernet, MACsec or Geneve layer.
fn ethertype_above(layer: &Layer, above: Option<&Layer>) -> Result<u16> {
    match above {
        Some(Layer::Ipv4(_)) => Ok(ethernet::ETHERTYPE_IPV4),
        Some(Layer::Ipv6(_)) => Ok(ethernet::ETHERTYPE_IPV6),
        Some(Layer::Ecpri(_)) => Ok(ethernet::ETHERTYPE_ECPRI),
        Some(Layer::Macsec(_)) => Ok(ethernet::ETHERTYPE_MACSEC),
        // Geneve's Protocol Type for a whole frame (RFC 8926 §3.4).
        Some(Layer::Eth(_)) => Ok(geneve::PROTOCOL_ETHERNET),
        _ => Err(unsupported(layer, "no EtherType for what sits on it")),
    }
}

fn unsupported(layer: &Layer, why: &'static str) -> Error {
    Error::Unsupported {
        layer: layer.text(),
        why,
    }
}

const WRITTEN: &str = "only eth, macsec, ipv4, ipv6, udp, tcp, sctp, esp-tunnel, esp-transport, ecpri, e2ap, tls13, tls12 (AES-GCM, ChaCha20-Poly1305), ssh (AES-GCM), vxlan and geneve are written";

impl Stack {
    /// Writes the frame for `payload` from layer `from` up (0: the whole frame; a higher index
    /// leaves out the layers below, e.g. the outer IPv4 and UDP of a datagram the socket
    /// adds) into `out` (cleared first), and says where each security layer's cipher works.
    /// The length is [`Stack::wire_len`] minus the bytes of the layers below `from`; ICVs are
    /// zero and nothing is encrypted; transport checksums cover the bytes as written (a TCP or
    /// UDP layer whose IP layer is below `from` gets none: the socket computes it).
    // Operands bounded: every offset is a sum of parts of `self.breakdown`, whose totals
    // `wire_len` summed without overflow, and lies within `out` (sized to the first unit's
    // total); `i - 1` follows `i != from`; MACsec's frame start is 14 bytes after the
    // Ethernet layer's start, which sits below it.
    #[allow(clippy::arithmetic_side_effects)]
    pub fn emit(
        &self,
        from: usize,
        payload: &[u8],
        ids: &Ids,
        out: &mut Vec<u8>,
    ) -> Result<Emitted> {
        let layers = self.layers();
        let b = self.breakdown(payload.len())?;
        let Some(first) = b.get(from) else {
            return Err(Error::MissingLayer {
                stack: self.to_string(),
                needed: "layer at the index to emit from",
                why: "emit starts at one of the stack's layers",
            });
        };
        out.clear();
        out.resize(first.total, 0);
        let mut sealing = Vec::new();
        let mut checksums = Vec::new();
        let mut start = 0usize;
        for i in from..layers.len() {
            let at = LayerAt {
                layers,
                from,
                i,
                unit: start..start + b[i].total,
                inner: start + b[i].header..start + b[i].header + b[i].inner,
                ids,
            };
            let layer = &layers[i];
            let above = at.above();
            match layer {
                Layer::Eth(_) => emit_eth(&at, out)?,
                Layer::Macsec(m) => sealing.push(emit_macsec(m, &at, out)?),
                Layer::Ipv4(ip) => {
                    if ip.options > 0 {
                        return Err(unsupported(layer, "IPv4 options are not written"));
                    }
                    let repr = ipv4::Repr {
                        src: ids.src_ip,
                        dst: ids.dst_ip,
                        protocol: proto_above(above)?,
                        payload_len: at.inner.len(),
                        ttl: ids.ttl,
                    };
                    repr.emit(&mut ipv4::Packet::new_unchecked(&mut out[at.unit.clone()]))?;
                }
                Layer::Ipv6(ip) => {
                    let repr = ipv6::Repr {
                        src: ids.src_ip6,
                        dst: ids.dst_ip6,
                        next_header: proto_above(above)?,
                        ext: ip.ext,
                        payload_len: at.inner.len(),
                        hop_limit: ids.ttl,
                    };
                    repr.emit(&mut ipv6::Packet::new_unchecked(&mut out[at.unit.clone()]))?;
                }
                Layer::Udp(_) => checksums.extend(emit_udp(&at, out)?),
                Layer::Tcp(t) => checksums.extend(emit_tcp(t, &at, out)?),
                Layer::Sctp(sc) => checksums.push(emit_sctp(sc, &at, out)?),
                Layer::Esp(e) => {
                    sealing.push(emit_esp(
                        e,
                        i,
                        &at.unit,
                        &at.inner,
                        proto_above(above)?,
                        ids,
                        out,
                    )?);
                }
                Layer::Ecpri(_) => {
                    let repr = ecpri::Repr {
                        message_type: ecpri::IQ_DATA,
                        payload_len: at.unit.len() - ecpri::HEADER_LEN,
                    };
                    repr.emit(&mut ecpri::Packet::new_unchecked(&mut out[at.unit.clone()]))?;
                }
                Layer::E2ap => {}
                Layer::Vxlan(_) => {
                    let repr = vxlan::Repr { vni: ids.vni };
                    repr.emit(&mut vxlan::Packet::new_unchecked(&mut out[at.unit.clone()]))?;
                }
                Layer::Geneve(g) => {
                    let repr = geneve::Repr {
                        control: false,
                        critical: false,
                        // Nothing above: the payload is taken as an Ethernet frame.
                        protocol_type: match above {
                            None => geneve::PROTOCOL_ETHERNET,
                            Some(_) => ethertype_above(layer, above)?,
                        },
                        vni: ids.vni,
                        options_len: g.options,
                    };
                    repr.emit(&mut geneve::Packet::new_unchecked(
                        &mut out[at.unit.clone()],
                    ))?;
                }
                Layer::Tls(r) if r.version == Version::Tls13 && r.records(at.inner.len()) == 1 => {
                    sealing.push(emit_tls13(&at, out)?);
                }
                Layer::Tls(r)
                    if r.version == Version::Tls12
                        && r.records(at.inner.len()) == 1
                        && matches!(
                            r.cipher,
                            crate::tls::Cipher::AesGcm(_) | crate::tls::Cipher::ChaCha20Poly1305
                        ) =>
                {
                    sealing.push(emit_tls12(&at, out)?);
                }
                Layer::Ssh(sh) if matches!(sh.cipher, crate::ssh::Cipher::AesGcm(_)) => {
                    sealing.push(emit_ssh(sh, b[i].padding, &at, out)?);
                }
                _ => return Err(unsupported(layer, WRITTEN)),
            }
            start = at.inner.start;
        }
        let payload_at = start..start + payload.len();
        out[payload_at.clone()].copy_from_slice(payload);
        for c in checksums.iter().rev() {
            c.fill(out);
        }
        Ok(Emitted {
            payload: payload_at,
            sealing,
            checksums,
        })
    }
}

/// One layer of a frame being written: the stack's layers, the index emitting started from,
/// this layer's index, and where its unit (its header, what it carries and its trailer) and
/// what it carries lie in the frame \[byte offsets\].
struct LayerAt<'a> {
    /// Every layer of the stack.
    layers: &'a [Layer],
    /// The layer emitting started from.
    from: usize,
    /// This layer's index.
    i: usize,
    /// The layer's whole unit in the frame.
    unit: Range<usize>,
    /// What the layer carries, within `unit`.
    inner: Range<usize>,
    /// The identifiers written into the headers.
    ids: &'a Ids,
}

impl LayerAt<'_> {
    /// This layer.
    fn layer(&self) -> &Layer {
        &self.layers[self.i]
    }

    /// The layer above this one, if any.
    #[allow(clippy::arithmetic_side_effects)]
    fn above(&self) -> Option<&Layer> {
        self.layers.get(self.i + 1)
    }
}

/// An Ethernet header: the ids' addresses and the EtherType of the layer above (under MACsec
/// the SecTAG's EtherType takes its place, written with the SecTAG).
fn emit_eth(at: &LayerAt<'_>, out: &mut [u8]) -> Result<()> {
    let mut p = ethernet::Packet::new_unchecked(&mut out[at.unit.clone()]);
    p.set_dst(at.ids.dst_mac);
    p.set_src(at.ids.src_mac);
    if !matches!(at.above(), Some(Layer::Macsec(_))) {
        p.set_ethertype(ethertype_above(at.layer(), at.above())?);
    }
    Ok(())
}

/// A MACsec SecTAG and the secure data's EtherType on the Ethernet layer below, and the
/// cipher's regions (the frame's DA and SA are authenticated).
// Operands bounded: MACsec's frame start is 14 bytes after the Ethernet layer's start, which
// sits below it; `i - 1` follows `i != from`.
#[allow(clippy::arithmetic_side_effects)]
fn emit_macsec(m: &crate::macsec::Macsec, at: &LayerAt<'_>, out: &mut [u8]) -> Result<Sealing> {
    let (layer, ids, i) = (at.layer(), at.ids, at.i);
    if i == at.from || !matches!(at.layers[i - 1], Layer::Eth(_)) {
        return Err(unsupported(
            layer,
            "MACsec is written on `eth`, from the Ethernet layer (DA and SA are authenticated)",
        ));
    }
    let (unit, inner) = (&at.unit, &at.inner);
    let frame = unit.start - ethernet::HEADER_LEN;
    let sectag = frame + macsec::SECTAG_OFFSET;
    let secure = inner.start - ethernet::field::ETHERTYPE.len()..inner.end;
    let repr = macsec::Repr {
        encrypted: m.encrypt,
        sci: m.sci.then_some(ids.sci),
        an: ids.an,
        pn: ids.seq as u32,
        secure_len: secure.len(),
    };
    repr.emit(&mut macsec::Packet::new_unchecked(
        &mut out[sectag..secure.start],
    ))?;
    out[secure.start..inner.start]
        .copy_from_slice(&ethertype_above(layer, at.above())?.to_be_bytes());
    let (aad, encrypted) = if m.encrypt {
        let clear = secure.start.saturating_add(m.offset).min(secure.end);
        (frame..clear, clear..secure.end)
    } else {
        (frame..secure.end, secure.end..secure.end)
    };
    Ok(Sealing {
        layer: i,
        aad,
        encrypted,
        iv: secure.start..secure.start,
        icv: secure.end..unit.end,
    })
}

/// A UDP header, and its checksum to fill where one is sent: over IPv6 always, over IPv4 only
/// under an overlay, as Linux sends it. UDP carrying ESP is RFC 3948's encapsulation, on
/// IKE's NAT-T port both ways; an overlay goes to its IANA port; any other UDP takes the ids'
/// ports.
fn emit_udp(at: &LayerAt<'_>, out: &mut [u8]) -> Result<Option<Checksum>> {
    let (ids, above) = (at.ids, at.above());
    let (src_port, dst_port) = match above {
        Some(Layer::Esp(_)) => (udp::NAT_T_PORT, udp::NAT_T_PORT),
        Some(Layer::Vxlan(_)) => (ids.src_port, crate::vxlan::UDP_PORT),
        Some(Layer::Geneve(_)) => (ids.src_port, crate::geneve::UDP_PORT),
        _ => (ids.src_port, ids.dst_port),
    };
    let repr = udp::Repr {
        src_port,
        dst_port,
        payload_len: at.inner.len(),
    };
    repr.emit(&mut udp::Packet::new_unchecked(&mut out[at.unit.clone()]))?;
    let overlay = above.is_some_and(Layer::is_overlay);
    Ok(pseudo_below(at.layers, at.from, at.i, ids)
        .filter(|ip| overlay || matches!(ip, Pseudo::V6(..)))
        .map(|ip| Checksum {
            layer: at.i,
            unit: at.unit.clone(),
            kind: ChecksumKind::Udp(ip),
        }))
}

/// A TCP header with its options (timestamps, then other option bytes), and its checksum to
/// fill where its IP layer is written.
// Operands bounded: `t.options` counts the timestamps option when it is at least its length.
#[allow(clippy::arithmetic_side_effects)]
fn emit_tcp(t: &crate::tcp::Tcp, at: &LayerAt<'_>, out: &mut [u8]) -> Result<Option<Checksum>> {
    let ids = at.ids;
    let ts = t.options >= crate::tcp::TIMESTAMPS;
    let repr = tcp::Repr {
        src_port: ids.src_port,
        dst_port: ids.dst_port,
        seq: ids.tcp_seq,
        ack: ids.tcp_ack,
        window: u16::MAX,
        timestamps: ts.then_some((ids.seq as u32, 0)),
        other_options: t.options - if ts { crate::tcp::TIMESTAMPS } else { 0 },
    };
    repr.emit(&mut tcp::Packet::new_unchecked(&mut out[at.unit.clone()]))?;
    Ok(
        pseudo_below(at.layers, at.from, at.i, ids).map(|ip| Checksum {
            layer: at.i,
            unit: at.unit.clone(),
            kind: ChecksumKind::Tcp(ip),
        }),
    )
}

/// An SCTP common header and its one chunk (DATA, I-DATA or SACK), and its CRC32c to fill: a
/// whole message numbered by the packet counter, or the fragment of one that
/// [`Ids::sctp_part`] names (RFC 9260 §6.9).
fn emit_sctp(sc: &crate::sctp::Sctp, at: &LayerAt<'_>, out: &mut [u8]) -> Result<Checksum> {
    let (layer, ids, above) = (at.layer(), at.ids, at.above());
    let (number, index, flags) = match ids.sctp_part {
        None => (ids.seq, 0, sctp::FLAGS_BE),
        Some(p) => (p.number, p.index, p.fragment().flags()),
    };
    let len = at.inner.len();
    let chunk = match sc.chunk {
        SctpChunk::Data => sctp::Chunk::Data {
            flags,
            tsn: ids.seq as u32,
            stream: 0,
            ssn: number as u16,
            ppid: sctp_ppid(above),
            len,
        },
        // RFC 8260 §2.1: the first fragment carries the PPID, the others their Fragment
        // Sequence Number in its place.
        SctpChunk::IData => sctp::Chunk::IData {
            flags,
            tsn: ids.seq as u32,
            stream: 0,
            mid: number as u32,
            ppid: if index == 0 { sctp_ppid(above) } else { index },
            len,
        },
        SctpChunk::Sack { gaps, dups } => sctp::Chunk::Sack {
            cum_tsn: ids.seq as u32,
            a_rwnd: u32::from(u16::MAX),
            gaps: u16::try_from(gaps)
                .map_err(|_| unsupported(layer, "a SACK's counts are 16-bit"))?,
            dups: u16::try_from(dups)
                .map_err(|_| unsupported(layer, "a SACK's counts are 16-bit"))?,
        },
    };
    let repr = sctp::Repr {
        src_port: ids.src_port,
        dst_port: ids.dst_port,
        vtag: ids.vtag,
        chunk,
    };
    repr.emit(&mut sctp::Packet::new_unchecked(&mut out[at.unit.clone()]))?;
    Ok(Checksum {
        layer: at.i,
        unit: at.unit.clone(),
        kind: ChecksumKind::Sctp,
    })
}

/// One TLS 1.3 record (its inner content type after what it carries), and the cipher's
/// regions: the record header authenticated, content and type encrypted.
// Operands bounded: the record's unit holds its header, what it carries, the content type
// and the tag.
#[allow(clippy::arithmetic_side_effects)]
fn emit_tls13(at: &LayerAt<'_>, out: &mut [u8]) -> Result<Sealing> {
    let (unit, inner) = (&at.unit, &at.inner);
    let repr = tls::Repr {
        len: unit.len() - tls::HEADER_LEN,
    };
    repr.emit(&mut tls::Packet::new_unchecked(&mut out[unit.clone()]))?;
    out[inner.end] = tls::APPLICATION_DATA;
    Ok(Sealing {
        layer: at.i,
        aad: unit.start..inner.start,
        encrypted: inner.start..inner.end + 1,
        iv: inner.start..inner.start,
        icv: inner.end + 1..unit.end,
    })
}

/// One TLS 1.2 AEAD record, and the cipher's regions: AES-GCM's 8-byte explicit nonce (RFC
/// 5288 §3) between the header and the content; ChaCha20-Poly1305 has none (RFC 7905 §2).
// Operands bounded: the record's unit holds its header, nonce, what it carries and the tag.
#[allow(clippy::arithmetic_side_effects)]
fn emit_tls12(at: &LayerAt<'_>, out: &mut [u8]) -> Result<Sealing> {
    let (unit, inner) = (&at.unit, &at.inner);
    let repr = tls::Repr {
        len: unit.len() - tls::HEADER_LEN,
    };
    repr.emit(&mut tls::Packet::new_unchecked(&mut out[unit.clone()]))?;
    let header = unit.start..unit.start + tls::HEADER_LEN;
    Ok(Sealing {
        layer: at.i,
        aad: header.clone(),
        encrypted: inner.clone(),
        iv: header.end..inner.start,
        icv: inner.end..unit.end,
    })
}

/// One SSH binary packet (RFC 4253 §6) of `padding` \[bytes\] padding, as SSH_MSG_CHANNEL_DATA
/// where the layer says so, and the cipher's regions: AES-GCM (RFC 5647 §7.3) leaves
/// packet_length in clear and authenticated, and encrypts from padding_length to the end of
/// the padding (zeros here: a test frame, RFC 4253 wants them random).
// Operands bounded: the packet's unit holds its length, padding length, message, padding and
// tag.
#[allow(clippy::arithmetic_side_effects)]
fn emit_ssh(
    sh: &crate::ssh::Ssh,
    padding: usize,
    at: &LayerAt<'_>,
    out: &mut [u8],
) -> Result<Sealing> {
    let (layer, unit, inner) = (at.layer(), &at.unit, &at.inner);
    let len_at = unit.start..unit.start + crate::ssh::PACKET_LENGTH;
    let body_end = unit.end - crate::ssh::AEAD_TAG;
    let packet_len = u32::try_from(body_end - len_at.end)
        .map_err(|_| unsupported(layer, "an SSH packet_length is 32-bit"))?;
    out[len_at.clone()].copy_from_slice(&packet_len.to_be_bytes());
    out[len_at.end] = padding as u8;
    if sh.channel_data {
        let data = u32::try_from(inner.len())
            .map_err(|_| unsupported(layer, "SSH data lengths are 32-bit"))?;
        let at = len_at.end + crate::ssh::PADDING_LENGTH;
        // SSH_MSG_CHANNEL_DATA (94), recipient channel 0, data length (RFC 4254 §5.2).
        out[at] = 94;
        out[at + 1..at + 5].copy_from_slice(&0u32.to_be_bytes());
        out[at + 5..at + 9].copy_from_slice(&data.to_be_bytes());
    }
    Ok(Sealing {
        layer: at.i,
        aad: len_at.clone(),
        encrypted: len_at.end..body_end,
        iv: len_at.end..len_at.end,
        icv: body_end..unit.end,
    })
}

/// ESP header, explicit IV, padding and trailer (RFC 4303 §2), and the transform's regions.
// Operands bounded: `unit` and `inner` are ranges of the emitted buffer, `unit` holding the
// ESP header, the IV, `inner`, TFC and block padding, the trailer and the ICV.
#[allow(clippy::arithmetic_side_effects)]
fn emit_esp(
    e: &Esp,
    layer: usize,
    unit: &Range<usize>,
    inner: &Range<usize>,
    next_header: u8,
    ids: &Ids,
    out: &mut [u8],
) -> Result<Sealing> {
    let repr = esp::Repr {
        spi: ids.spi,
        seq: ids.seq as u32,
    };
    repr.emit(&mut esp::Packet::new_unchecked(&mut out[unit.clone()]))?;
    let iv = unit.start + esp::HEADER_LEN..inner.start;
    if iv.len() == crate::esp::COUNTER_IV && !matches!(e.transform.cipher, EspCipher::AesCbc(_)) {
        out[iv.clone()].copy_from_slice(&ids.seq.to_be_bytes());
    }
    let icv = unit.end - e.transform.icv_len()..unit.end;
    // TFC padding (zeros, RFC 4303 §2.7) then the 1, 2, 3, ... padding and the trailer.
    let data_end = inner.end + e.tfc.saturating_sub(inner.len());
    esp::emit_trailer(&mut out[data_end..icv.start], next_header)?;
    let body = inner.start..icv.start;
    let (aad, encrypted) = match e.transform.cipher {
        EspCipher::AesGcm(..) | EspCipher::AesCcm(..) | EspCipher::ChaCha20Poly1305 => {
            (unit.start..iv.start, body)
        }
        EspCipher::AesCbc(_) => (unit.start..iv.end, body),
        EspCipher::AesGmac(_) | EspCipher::Null => (unit.start..body.end, body.end..body.end),
    };
    Ok(Sealing {
        layer,
        aad,
        encrypted,
        iv,
        icv,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The regions agree with the protected length for every writable suite and size.
    #[test]
    fn regions_match_the_protected_length() {
        for text in [
            "eth/macsec(gcm-aes-128,encrypt)/ecpri",
            "eth/macsec(gcm-aes-256,integrity,no-sci)/ipv4/udp",
            "eth/macsec(gcm-aes-128,encrypt,offset=30)/ecpri(iq)",
            "eth/ipv4/udp/esp-tunnel(aes256-gcm-16)/ipv4/udp",
            "eth/ipv4/esp-tunnel(aes128-cbc,hmac-sha1-96,tfc=300)/ipv4/udp",
            "ipv4/esp-transport(aes256-gmac)/udp",
            "ipv4/esp-tunnel(null,hmac-sha256-128)/ipv4/udp",
            "ipv4/esp-tunnel(chacha20-poly1305)/ipv4/udp/ecpri",
            "eth/ipv4/tcp/ssh(aes128-gcm)",
            "ipv6/tcp(ts)/ssh(aes256-gcm,raw)",
        ] {
            let st: Stack = text.parse().unwrap();
            let mut out = Vec::new();
            for n in [0, 1, 2, 3, 17, 100, 1400] {
                let e = st
                    .emit(0, &vec![0x5a; n], &Ids::default(), &mut out)
                    .unwrap();
                assert_eq!(out.len(), st.wire_len(n).unwrap(), "{text} {n}");
                assert_eq!(&out[e.payload.clone()], &vec![0x5a; n][..]);
                let p = st.protected(n).unwrap().unwrap();
                let s = &e.sealing[0];
                assert_eq!(s.encrypted.len(), p.encrypted, "{text} {n}");
                assert_eq!(s.aad.len(), p.authenticated, "{text} {n}");
                assert!(s.aad.end <= s.encrypted.start.max(s.aad.end));
                assert_eq!(s.icv.end, out.len(), "{text} {n}");
            }
        }
    }

    /// IPv6, TCP and SCTP are written at the lengths `wire_len` counts, and their checksums,
    /// filled by `finish` after a stand-in cipher changed the bytes above them, verify.
    #[test]
    fn transports_are_written_and_their_checksums_cover_the_sealed_bytes() {
        use crate::wire::checksum::transport;
        for text in [
            "eth/ipv6/udp/ecpri",
            "ipv6(ext=16)/tcp(ts)",
            "eth/ipv4/tcp(options=8)",
            "eth/ipv4/tcp(ts)/tls13(aes128-gcm)",
            "eth/ipv6/esp-transport(aes128-gcm-16)/tcp/tls13(chacha20-poly1305)",
            "eth/ipv4/sctp/e2ap",
            "eth/ipv4/tcp/ssh(aes256-gcm)",
            "eth/ipv6/sctp(idata)",
            "ipv4/sctp(sack,gaps=2,dups=3)",
            "eth/macsec(gcm-aes-128,encrypt)/ipv6(ext=8)/udp/esp-tunnel(aes256-gcm-16)/ipv6/sctp",
        ] {
            let st: Stack = text.parse().unwrap();
            let mut out = Vec::new();
            let sizes: &[usize] = if text.contains("sack") {
                &[0]
            } else {
                &[0, 1, 3, 100, 1400]
            };
            for &n in sizes {
                let e = st
                    .emit(0, &vec![0x5a; n], &Ids::default(), &mut out)
                    .unwrap();
                assert_eq!(out.len(), st.wire_len(n).unwrap(), "{text} {n}");
                e.finish(&mut out, |s, buf| {
                    for b in &mut buf[s.encrypted.clone()] {
                        *b ^= 0xa5;
                    }
                    buf[s.icv.clone()].fill(0x11);
                    Ok::<(), ()>(())
                })
                .unwrap();
                assert!(!e.checksums.is_empty(), "{text}");
                // A checksum inside a lower layer's ciphertext is checked by the receiver after
                // decryption; the others must verify on the wire.
                let on_wire = e.checksums.iter().filter(|c| {
                    !e.sealing
                        .iter()
                        .any(|s| s.layer < c.layer && s.encrypted.contains(&c.unit.start))
                });
                for c in on_wire {
                    let unit = &out[c.unit.clone()];
                    match c.kind {
                        ChecksumKind::Tcp(ip) => assert_eq!(transport(ip, 6, unit), 0, "{text}"),
                        ChecksumKind::Udp(ip) => assert_eq!(transport(ip, 17, unit), 0, "{text}"),
                        ChecksumKind::Sctp => {
                            assert!(sctp::Packet::new_checked(unit).unwrap().verify_checksum())
                        }
                    }
                }
            }
        }
    }

    /// TLS 1.2 AEAD records: header, AES-GCM's 8-byte explicit nonce (none for
    /// ChaCha20-Poly1305), content, tag; the length `wire_len` counts.
    #[test]
    fn tls12_aead_records_are_written() {
        for (text, explicit) in [
            ("eth/ipv4/tcp/tls12(aes128-gcm)", 8),
            ("ipv6/tcp(ts)/tls12(chacha20-poly1305)", 0),
        ] {
            let st: Stack = text.parse().unwrap();
            let mut out = Vec::new();
            for n in [0, 1, 100, 1400] {
                let e = st.emit(0, &vec![7; n], &Ids::default(), &mut out).unwrap();
                assert_eq!(out.len(), st.wire_len(n).unwrap(), "{text} {n}");
                let s = &e.sealing[0];
                assert_eq!((s.aad.len(), s.iv.len(), s.icv.len()), (5, explicit, 16));
                assert_eq!(s.encrypted, e.payload);
                assert_eq!(out[s.aad.start..s.aad.start + 3], [23, 3, 3]);
            }
        }
    }

    /// VXLAN and Geneve frames: the outer UDP goes to the overlay's port with a checksum that
    /// verifies over IPv4 and IPv6 (under an ESP layer's ciphertext too, once sealed), the
    /// headers parse back, and the inner frame is the one the inner stack emits alone.
    #[test]
    fn overlays_are_written_on_their_ports_with_their_checksums() {
        use crate::wire::checksum::transport;
        for (text, port, overlay_at) in [
            ("eth/ipv4/udp/vxlan/eth/ipv4/udp", 4789, 42),
            ("eth/ipv6/udp/vxlan/eth/ipv6/tcp", 4789, 62),
            ("eth/ipv4/udp/geneve(options=8)/eth/ipv4/udp", 6081, 42),
            ("eth/ipv6/udp/geneve(options=252)/ipv6/udp", 6081, 62),
            ("ipv4/udp/geneve/ipv4/sctp", 6081, 28),
        ] {
            let st: Stack = text.parse().unwrap();
            let inner_at = st.layers().iter().position(Layer::is_overlay).unwrap() + 1;
            let inner = Stack::from_layers(st.layers()[inner_at..].to_vec()).unwrap();
            let mut out = Vec::new();
            let mut alone = Vec::new();
            for n in [0, 1, 3, 100, 1400] {
                let payload = vec![0x5a; n];
                let ids = Ids {
                    vni: 0x00ab_cdef,
                    ..Ids::default()
                };
                let e = st.emit(0, &payload, &ids, &mut out).unwrap();
                assert_eq!(out.len(), st.wire_len(n).unwrap(), "{text} {n}");
                let udp_at = overlay_at - udp::HEADER_LEN;
                let u = udp::Packet::new_checked(&out[udp_at..]).unwrap();
                assert_eq!((u.src_port(), u.dst_port()), (ids.src_port, port), "{text}");
                let c = e.checksums.iter().find(|c| c.unit.start == udp_at).unwrap();
                let ChecksumKind::Udp(ip) = c.kind else {
                    panic!("{text}: {:?}", c.kind)
                };
                assert_ne!(u.checksum(), 0, "{text}");
                assert_eq!(transport(ip, 17, &out[udp_at..]), 0, "{text} {n}");
                let vni = if port == 4789 {
                    let p = vxlan::Packet::new_checked(&out[overlay_at..]).unwrap();
                    vxlan::Repr::parse(&p).unwrap().vni
                } else {
                    let p = geneve::Packet::new_checked(&out[overlay_at..]).unwrap();
                    let r = geneve::Repr::parse(&p).unwrap();
                    let want = match inner.layers()[0] {
                        Layer::Eth(_) => 0x6558,
                        Layer::Ipv4(_) => 0x0800,
                        _ => 0x86dd,
                    };
                    assert_eq!(r.protocol_type, want, "{text}");
                    r.vni
                };
                assert_eq!(vni, 0x00ab_cdef);
                // The inner frame is what the inner stack writes by itself.
                let ie = inner.emit(0, &payload, &ids, &mut alone).unwrap();
                ie.finish(&mut alone, |_, _| Ok::<(), ()>(())).unwrap();
                assert_eq!(&out[out.len() - alone.len()..], &alone[..], "{text} {n}");
            }
        }
        // Under ESP the overlay's checksum covers the sealed bytes, as for any transport.
        let st: Stack = "eth/ipv4/udp/vxlan/eth/ipv4/esp-tunnel(aes128-gcm-16)/ipv4/udp"
            .parse()
            .unwrap();
        let mut out = Vec::new();
        let e = st.emit(0, &[1; 50], &Ids::default(), &mut out).unwrap();
        e.finish(&mut out, |s, buf| {
            buf[s.encrypted.clone()].fill(0xa5);
            buf[s.icv.clone()].fill(0x11);
            Ok::<(), ()>(())
        })
        .unwrap();
        let ip = Pseudo::V4(Ids::default().src_ip, Ids::default().dst_ip);
        assert_eq!(transport(ip, 17, &out[34..]), 0);
    }

    /// A VNI over 24 bits is refused, not truncated.
    #[test]
    fn a_vni_over_24_bits_is_refused() {
        for text in ["eth/ipv4/udp/vxlan/eth/ipv4", "ipv4/udp/geneve/ipv4"] {
            let st: Stack = text.parse().unwrap();
            let ids = Ids {
                vni: 1 << 24,
                ..Ids::default()
            };
            let e = st.emit(0, &[], &ids, &mut Vec::new()).unwrap_err();
            assert!(e.to_string().contains("over 24 bits"), "{text}: {e}");
        }
    }

    #[test]
    fn unwritable_layers_are_refused() {
        let st: Stack = "eth/ipv4/tcp/ssh(aes128-ctr,hmac-sha2-256)"
            .parse()
            .unwrap();
        let e = st
            .emit(0, &[0; 10], &Ids::default(), &mut Vec::new())
            .unwrap_err();
        assert!(e.to_string().contains("only eth, macsec"), "{e}");
        let st: Stack = "eth/macsec(gcm-aes-128)/ipv4/udp".parse().unwrap();
        let e = st
            .emit(1, &[0; 10], &Ids::default(), &mut Vec::new())
            .unwrap_err();
        assert!(e.to_string().contains("DA and SA"), "{e}");
        assert!(st.emit(9, &[], &Ids::default(), &mut Vec::new()).is_err());
    }

    /// Issue 37 item 6: the fragments of one user message carry its SSN (MID) and PPID, their
    /// own TSN, and B, none, E; a message without a part is whole (B and E), numbered by seq.
    #[test]
    fn sctp_fragments_carry_their_flags_and_message_number() {
        use crate::sctp::MessagePart;
        for (text, idata) in [
            ("eth/ipv4/sctp/e2ap", false),
            ("ipv6/sctp(idata)/e2ap", true),
        ] {
            let st: Stack = text.parse().unwrap();
            let mut out = Vec::new();
            let mut read = |ids: &Ids| {
                let e = st.emit(0, &[7u8; 40], ids, &mut out).unwrap();
                e.finish(&mut out, |_, _| Ok::<(), ()>(())).unwrap();
                let unit = e
                    .checksums
                    .iter()
                    .find(|c| matches!(c.kind, ChecksumKind::Sctp))
                    .unwrap()
                    .unit
                    .clone();
                sctp::Repr::parse(&sctp::Packet::new_checked(&out[unit]).unwrap())
                    .unwrap()
                    .chunk
            };
            let whole = read(&Ids {
                seq: 9,
                ..Ids::default()
            });
            let mut got = vec![whole];
            for index in 0..3 {
                got.push(read(&Ids {
                    seq: 10 + u64::from(index),
                    sctp_part: Some(MessagePart {
                        number: 4,
                        index,
                        count: 3,
                    }),
                    ..Ids::default()
                }));
            }
            let fields: Vec<(u8, u32, u32, u32)> = got
                .iter()
                .map(|c| match *c {
                    sctp::Chunk::Data {
                        flags,
                        tsn,
                        ssn,
                        ppid,
                        ..
                    } => (flags, tsn, u32::from(ssn), ppid),
                    sctp::Chunk::IData {
                        flags,
                        tsn,
                        mid,
                        ppid,
                        ..
                    } => (flags, tsn, mid, ppid),
                    sctp::Chunk::Sack { .. } => unreachable!(),
                })
                .collect();
            // I-DATA carries the FSN where DATA's later fragments repeat the PPID (RFC 8260).
            let (p1, p2) = if idata { (1, 2) } else { (70, 70) };
            assert_eq!(
                fields,
                [
                    (0b11, 9, 9, 70),
                    (0b10, 10, 4, 70),
                    (0b00, 11, 4, p1),
                    (0b01, 12, 4, p2)
                ],
                "{text}"
            );
        }
    }
}
