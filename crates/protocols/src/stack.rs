//! Stacks of layers written as text, and what they put on the wire.

#![deny(clippy::arithmetic_side_effects)]

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::Result;
use crate::ecpri::Ecpri;
use crate::error::Error;
use crate::esp::{Esp, Mode};
use crate::ethernet::{Count, Ethernet, Vlan};
use crate::geneve::Geneve;
use crate::ipv4::Ipv4;
use crate::ipv6::Ipv6;
use crate::layer::{Encapsulation, Parts};
use crate::macsec::Macsec;
use crate::names::norm;
use crate::sctp::{Chunk, Sctp};
use crate::ssh::Ssh;
use crate::tcp::{self, Tcp};
use crate::tls::{Record, Version};
use crate::udp::Udp;
use crate::vxlan::Vxlan;

/// Layer names accepted in a stack, with their arguments.
pub const LAYER_NAMES: &str = "eth, vlan, macsec(...), ipv4[(options=N)], ipv6[(ext=N)], udp, \
tcp[(ts|options=N)], sctp[(data|idata|sack[,gaps=N][,dups=N])], e2ap, ecpri[(iq)], \
esp-tunnel(...), esp-transport(...), tls12(...), tls13(...), dtls12(...), dtls13(...), ssh(...), \
vxlan, geneve[(options=N)]";

/// One layer of a stack.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Layer {
    /// Ethernet II header.
    Eth(Ethernet),
    /// IEEE 802.1Q tag.
    Vlan(Vlan),
    /// IEEE 802.1AE MACsec.
    Macsec(Macsec),
    /// IPv4 header.
    Ipv4(Ipv4),
    /// IPv6 header.
    Ipv6(Ipv6),
    /// UDP header (RFC 3948 encapsulation when ESP sits on it).
    Udp(Udp),
    /// TCP header.
    Tcp(Tcp),
    /// SCTP common header and one chunk.
    Sctp(Sctp),
    /// E2AP PDU marker: the payload is an E2AP PDU in an SCTP DATA chunk (PPID 70); 0 bytes.
    E2ap,
    /// eCPRI header.
    Ecpri(Ecpri),
    /// IPsec ESP.
    Esp(Esp),
    /// TLS or DTLS records.
    Tls(Record),
    /// SSH binary packets.
    Ssh(Ssh),
    /// VXLAN header (RFC 7348): an Ethernet frame in UDP.
    Vxlan(Vxlan),
    /// Geneve header and options (RFC 8926): an Ethernet frame or an IP packet in UDP.
    Geneve(Geneve),
}

impl Layer {
    /// Short name (`eth`, `esp-tunnel`, `tls13`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Layer::Eth(_) => "eth",
            Layer::Vlan(_) => "vlan",
            Layer::Macsec(_) => "macsec",
            Layer::Ipv4(_) => "ipv4",
            Layer::Ipv6(_) => "ipv6",
            Layer::Udp(_) => "udp",
            Layer::Tcp(_) => "tcp",
            Layer::Sctp(_) => "sctp",
            Layer::E2ap => "e2ap",
            Layer::Ecpri(_) => "ecpri",
            Layer::Esp(e) => match e.mode {
                Mode::Transport => "esp-transport",
                Mode::Tunnel => "esp-tunnel",
            },
            Layer::Tls(r) => r.version.name(),
            Layer::Ssh(_) => "ssh",
            Layer::Vxlan(_) => "vxlan",
            Layer::Geneve(_) => "geneve",
        }
    }

    /// Canonical text, with every argument spelled out.
    pub fn text(&self) -> String {
        match self {
            Layer::Ipv4(ip) if ip.options > 0 => format!("ipv4(options={})", ip.options),
            Layer::Ipv6(ip) if ip.ext > 0 => format!("ipv6(ext={})", ip.ext),
            Layer::Tcp(t) if t.options == tcp::TIMESTAMPS => "tcp(ts)".into(),
            Layer::Tcp(t) if t.options > 0 => format!("tcp(options={})", t.options),
            Layer::Sctp(s) => match s.chunk {
                Chunk::Data => "sctp".into(),
                Chunk::IData => "sctp(idata)".into(),
                Chunk::Sack { gaps: 0, dups: 0 } => "sctp(sack)".into(),
                Chunk::Sack { gaps, dups } => format!("sctp(sack,gaps={gaps},dups={dups})"),
            },
            Layer::Ecpri(e) if e.iq => "ecpri(iq)".into(),
            Layer::Geneve(g) if g.options > 0 => format!("geneve(options={})", g.options),
            Layer::Macsec(m) => m.text(),
            Layer::Esp(e) => e.text(),
            Layer::Tls(r) => r.text(),
            Layer::Ssh(s) => s.text(),
            other => other.name().into(),
        }
    }

    /// Whether this layer's bytes count against a link MTU. Only the Ethernet header and
    /// 802.1Q tags do not (IEEE 802.3 §3.2.7 and §3.5), and those only as the link's own: an
    /// overlay's inner frame is the outer link's payload ([`Stack::counts_against_mtu`]).
    pub fn counts_against_mtu(&self) -> bool {
        !matches!(self, Layer::Eth(_) | Layer::Vlan(_))
    }

    /// Checks the layer's own numbers against what its fields can represent (IPv4 options,
    /// IPv6 extension headers, TCP options, SCTP SACK entries, ESP TFC padding, Geneve
    /// options; TLS, MACsec and SSH arguments are checked when parsed and have no free
    /// numbers).
    pub fn validate(&self) -> Result<()> {
        match self {
            Layer::Ipv4(l) => l.validate(),
            Layer::Ipv6(l) => l.validate(),
            Layer::Tcp(l) => l.validate(),
            Layer::Sctp(l) => l.validate(),
            Layer::Esp(l) => l.validate(),
            Layer::Geneve(l) => l.validate(),
            _ => Ok(()),
        }
    }

    fn is_ip(&self) -> bool {
        matches!(self, Layer::Ipv4(_) | Layer::Ipv6(_))
    }

    /// Whether this layer is an overlay header (VXLAN, Geneve): what it carries is a frame or
    /// packet inside the UDP payload.
    pub fn is_overlay(&self) -> bool {
        matches!(self, Layer::Vxlan(_) | Layer::Geneve(_))
    }

    /// What an overlay carries, or `None` when `above` may sit on `self` (or `self` is no
    /// overlay): VXLAN an Ethernet frame, Geneve a frame or an IP packet.
    fn overlay_carries(&self, above: &Layer) -> Option<&'static str> {
        match self {
            Layer::Vxlan(_) if !matches!(above, Layer::Eth(_)) => {
                Some("eth (VXLAN carries an Ethernet frame, RFC 7348 §5)")
            }
            Layer::Geneve(_) if !matches!(above, Layer::Eth(_)) && !above.is_ip() => {
                Some("eth, ipv4 or ipv6 (Geneve's Protocol Type names an EtherType, RFC 8926 §3.4)")
            }
            _ => None,
        }
    }

    fn is_l2(&self) -> bool {
        matches!(self, Layer::Eth(_) | Layer::Vlan(_) | Layer::Macsec(_))
    }

    /// What this layer may sit on, or `None` when it may sit on `below`.
    fn placement_error(&self, below: Option<&Layer>) -> Option<&'static str> {
        let ok = match (self, below) {
            (Layer::Eth(_), None) => true,
            (Layer::Eth(_), Some(b)) if b.is_overlay() => true,
            (Layer::Eth(_), Some(_)) => {
                return Some(
                    "nothing (it must be the bottom layer), or vxlan or geneve (an overlay's inner frame)",
                );
            }
            (Layer::Vlan(_), Some(b)) => b.is_l2(),
            (Layer::Vlan(_), None) => false,
            (Layer::Macsec(_), Some(b)) => matches!(b, Layer::Eth(_) | Layer::Vlan(_)),
            (Layer::Macsec(_), None) => false,
            (Layer::Ipv4(_) | Layer::Ipv6(_), None) => true,
            (Layer::Ipv4(_) | Layer::Ipv6(_), Some(b)) => {
                b.is_l2()
                    || matches!(b, Layer::Esp(e) if e.mode == Mode::Tunnel)
                    || matches!(b, Layer::Geneve(_))
            }
            (Layer::Udp(_) | Layer::Tcp(_) | Layer::Sctp(_), Some(b)) => {
                b.is_ip() || matches!(b, Layer::Esp(e) if e.mode == Mode::Transport)
            }
            (Layer::Esp(_), Some(b)) => b.is_ip() || matches!(b, Layer::Udp(_)),
            (Layer::E2ap, Some(Layer::Sctp(s))) => matches!(s.chunk, Chunk::Data | Chunk::IData),
            (Layer::Ecpri(_), Some(b)) => b.is_l2() || matches!(b, Layer::Udp(_)),
            (Layer::Tls(r), Some(b)) => match r.version {
                Version::Tls12 | Version::Tls13 => matches!(b, Layer::Tcp(_) | Layer::Sctp(_)),
                Version::Dtls12 | Version::Dtls13 => matches!(b, Layer::Udp(_) | Layer::Sctp(_)),
            },
            (Layer::Ssh(_), Some(b)) => matches!(b, Layer::Tcp(_)),
            (Layer::Vxlan(_) | Layer::Geneve(_), Some(b)) => matches!(b, Layer::Udp(_)),
            _ => false,
        };
        if ok {
            return None;
        }
        Some(match self {
            Layer::Eth(_) => "nothing",
            Layer::Vlan(_) => "eth, vlan or macsec",
            Layer::Macsec(_) => "eth or vlan",
            Layer::Ipv4(_) | Layer::Ipv6(_) => {
                "eth, vlan, macsec, esp-tunnel, geneve, or nothing (an IP packet without layer 2)"
            }
            Layer::Udp(_) | Layer::Tcp(_) | Layer::Sctp(_) => "ipv4, ipv6 or esp-transport",
            Layer::Esp(_) => "ipv4, ipv6 or udp (RFC 3948)",
            Layer::E2ap => "sctp carrying DATA or I-DATA",
            Layer::Ecpri(_) => "eth, vlan, macsec or udp",
            Layer::Tls(r) if matches!(r.version, Version::Tls12 | Version::Tls13) => "tcp or sctp",
            Layer::Tls(_) => "udp or sctp",
            Layer::Ssh(_) => "tcp",
            Layer::Vxlan(_) | Layer::Geneve(_) => "udp",
        })
    }
}

impl Encapsulation for Layer {
    fn parts(&self, payload: usize) -> Result<Parts> {
        match self {
            Layer::Eth(l) => l.parts(payload),
            Layer::Vlan(l) => l.parts(payload),
            Layer::Macsec(l) => l.parts(payload),
            Layer::Ipv4(l) => l.parts(payload),
            Layer::Ipv6(l) => l.parts(payload),
            Layer::Udp(l) => l.parts(payload),
            Layer::Tcp(l) => l.parts(payload),
            Layer::Sctp(l) => l.parts(payload),
            Layer::E2ap => Ok(Parts::default()),
            Layer::Ecpri(l) => l.parts(payload),
            Layer::Esp(l) => l.parts(payload),
            Layer::Tls(l) => l.parts(payload),
            Layer::Ssh(l) => l.parts(payload),
            Layer::Vxlan(l) => l.parts(payload),
            Layer::Geneve(l) => l.parts(payload),
        }
    }
}

/// The bytes of one layer for a given payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayerBytes {
    /// The layer in canonical text form.
    pub layer: String,
    /// Header bytes: headers, IVs, explicit nonces \[bytes\].
    pub header: usize,
    /// Padding: block/alignment padding, TFC padding \[bytes\].
    pub padding: usize,
    /// Trailer: pad-length fields, ICV or MAC \[bytes\].
    pub trailer: usize,
    /// Bytes handed down by the layer above (the application payload for the top layer)
    /// \[bytes\].
    pub inner: usize,
    /// This layer's whole unit: `header + inner + padding + trailer` \[bytes\].
    pub total: usize,
    /// Whether this layer's bytes count against the link MTU.
    pub counts_against_mtu: bool,
}

pub(crate) use crate::layer::MAX_PAYLOAD;

/// Whether layer `i` of `layers` (lowest first) counts against the link MTU: see
/// [`Stack::counts_against_mtu`]. `layers` may be the lower part of a stack.
pub(crate) fn counts_against_mtu(layers: &[Layer], i: usize) -> bool {
    layers[i].counts_against_mtu() || layers[..i].iter().any(Layer::is_overlay)
}

/// `len` plus the bytes `l` adds around it (`parts`), or an error naming the layer if the sum
/// overflows \[bytes\].
fn grown(l: &Layer, len: usize, parts: &Parts) -> Result<usize> {
    let overhead = parts.overhead();
    len.checked_add(overhead)
        .ok_or_else(|| Error::PayloadTooLarge {
            layer: l.text(),
            what: "unit length",
            len,
            max: usize::MAX.saturating_sub(overhead), // never saturates: overhead <= MAX
        })
}

/// A stack of layers, lowest first, e.g. `eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stack {
    layers: Vec<Layer>,
}

fn num(layer: &str, key: &str, v: &str) -> Result<usize> {
    v.trim().parse().map_err(|_| Error::BadArguments {
        layer: layer.into(),
        reason: format!("{key} must be a whole number of bytes or a count, got `{v}`"),
    })
}

/// The bytes a layer's one numeric argument gives: `KEY=N` with KEY the first of `keys` or
/// another spelling of it, the last one given winning, 0 without one; any other argument is
/// refused naming what is `allowed`.
fn byte_count(layer: &str, args: &[String], keys: &[&str], allowed: &str) -> Result<usize> {
    let mut n = 0;
    for a in args {
        match a.split_once('=') {
            Some((k, v)) if keys.contains(&k) => n = num(layer, keys.first().unwrap_or(&k), v)?,
            _ => return Err(unknown_option(layer, a, allowed)),
        }
    }
    Ok(n)
}

fn no_args(layer: &str, args: &[String]) -> Result<()> {
    if args.is_empty() {
        Ok(())
    } else {
        Err(Error::BadArguments {
            layer: layer.into(),
            reason: format!("takes no arguments, got `{}`", args.join(",")),
        })
    }
}

fn unknown_option(layer: &str, a: &str, allowed: &str) -> Error {
    Error::UnknownSuite {
        layer: layer.into(),
        what: "option",
        name: a.into(),
        allowed: allowed.into(),
    }
}

/// One layer of stack `text`, from its segment `seg`: `name` or `name(arg,...)`.
fn parse_layer(seg: &str, text: &str) -> Result<Layer> {
    let seg = seg.trim();
    let (name, args) = split_layer(seg, text)?;
    let key = norm(name);
    let layer = seg;
    Ok(match key.as_str() {
        "eth" | "ethernet" | "ether" => {
            no_args(layer, &args)?;
            Layer::Eth(Ethernet)
        }
        "vlan" | "dot1q" | "8021q" => {
            no_args(layer, &args)?;
            Layer::Vlan(Vlan)
        }
        "macsec" => Layer::Macsec(Macsec::from_args(layer, &args)?),
        "ipv4" | "ip4" | "ip" => {
            let ip = Ipv4 {
                options: byte_count(layer, &args, &["options"], "options=BYTES")?,
            };
            ip.validate()?;
            Layer::Ipv4(ip)
        }
        "ipv6" | "ip6" => {
            let ip = Ipv6 {
                ext: byte_count(layer, &args, &["ext"], "ext=BYTES")?,
            };
            ip.validate()?;
            Layer::Ipv6(ip)
        }
        "udp" => {
            no_args(layer, &args)?;
            Layer::Udp(Udp)
        }
        "tcp" => Layer::Tcp(tcp_from_args(layer, &args)?),
        "sctp" => Layer::Sctp(sctp_from_args(layer, &args)?),
        "e2ap" => {
            no_args(layer, &args)?;
            Layer::E2ap
        }
        "ecpri" => Layer::Ecpri(ecpri_from_args(layer, &args)?),
        "esptunnel" => Layer::Esp(Esp::from_args(Mode::Tunnel, layer, &args)?),
        "esptransport" => Layer::Esp(Esp::from_args(Mode::Transport, layer, &args)?),
        "tls12" => Layer::Tls(Record::from_args(Version::Tls12, layer, &args)?),
        "tls13" => Layer::Tls(Record::from_args(Version::Tls13, layer, &args)?),
        "dtls12" => Layer::Tls(Record::from_args(Version::Dtls12, layer, &args)?),
        "dtls13" => Layer::Tls(Record::from_args(Version::Dtls13, layer, &args)?),
        "ssh" => Layer::Ssh(Ssh::from_args(layer, &args)?),
        "vxlan" => {
            no_args(layer, &args)?;
            Layer::Vxlan(Vxlan)
        }
        "geneve" => {
            let g = Geneve {
                options: byte_count(
                    layer,
                    &args,
                    &["options", "opts"],
                    "options=BYTES (or opts=BYTES)",
                )?,
            };
            g.validate()?;
            Layer::Geneve(g)
        }
        _ => {
            return Err(Error::UnknownLayer {
                name: name.into(),
                allowed: LAYER_NAMES.into(),
            });
        }
    })
}

/// A layer's segment `seg` (trimmed) of stack `text` split into its name and its arguments
/// (lower-cased, trimmed, empty ones dropped); malformed parentheses are refused.
fn split_layer<'a>(seg: &'a str, text: &str) -> Result<(&'a str, Vec<String>)> {
    let malformed = |reason: String| Error::MalformedStack {
        text: text.into(),
        reason,
    };
    if seg.is_empty() {
        return Err(malformed(
            "empty layer (two `/` in a row, or a `/` at an end)".into(),
        ));
    }
    Ok(match seg.find('(') {
        None => {
            if seg.contains(')') {
                return Err(malformed(format!("`)` without `(` in `{seg}`")));
            }
            (seg, Vec::new())
        }
        Some(i) => {
            // `(` is one byte at `i`, so `i + 1` is at most the segment's length.
            #[allow(clippy::arithmetic_side_effects)]
            let rest = &seg[i + 1..];
            let Some(body) = rest.strip_suffix(')') else {
                return Err(malformed(format!(
                    "`{seg}`: arguments must be closed by `)` at the end of the layer"
                )));
            };
            if body.contains('(') || body.contains(')') {
                return Err(malformed(format!("`{seg}`: nested parentheses")));
            }
            let args: Vec<String> = body
                .split(',')
                .map(|a| a.trim().to_ascii_lowercase())
                .filter(|a| !a.is_empty())
                .collect();
            (seg[..i].trim(), args)
        }
    })
}

/// A `tcp` layer's arguments: `ts` (the timestamps option) and `options=BYTES`, summed.
fn tcp_from_args(layer: &str, args: &[String]) -> Result<Tcp> {
    let mut t = Tcp::default();
    for a in args {
        match a.split_once('=') {
            _ if a == "ts" => t.options = t.options.saturating_add(tcp::TIMESTAMPS),
            Some(("options", v)) => t.options = t.options.saturating_add(num(layer, "options", v)?),
            _ => return Err(unknown_option(layer, a, "ts, options=BYTES")),
        }
    }
    t.validate()?;
    Ok(t)
}

/// An `sctp` layer's arguments: the chunk (`data`, `idata`, `sack`) and a SACK's `gaps=N`
/// and `dups=N`.
fn sctp_from_args(layer: &str, args: &[String]) -> Result<Sctp> {
    let mut chunk = Chunk::Data;
    let (mut gaps, mut dups) = (0, 0);
    for a in args {
        match (a.as_str(), a.split_once('=')) {
            ("data", _) => chunk = Chunk::Data,
            ("idata" | "i-data", _) => chunk = Chunk::IData,
            ("sack", _) => chunk = Chunk::Sack { gaps: 0, dups: 0 },
            (_, Some(("gaps", v))) => gaps = num(layer, "gaps", v)?,
            (_, Some(("dups", v))) => dups = num(layer, "dups", v)?,
            _ => {
                return Err(unknown_option(
                    layer,
                    a,
                    "data (default), idata, sack, gaps=N, dups=N",
                ));
            }
        }
    }
    if let Chunk::Sack { .. } = chunk {
        chunk = Chunk::Sack { gaps, dups };
        Sctp { chunk }.validate()?;
    } else if gaps > 0 || dups > 0 {
        return Err(Error::BadArguments {
            layer: layer.into(),
            reason: "gaps and dups describe a SACK chunk: add `sack`".into(),
        });
    }
    Ok(Sctp { chunk })
}

/// An `ecpri` layer's arguments: `iq` (count PC_ID/RTC_ID and SEQ_ID as header).
fn ecpri_from_args(layer: &str, args: &[String]) -> Result<Ecpri> {
    let mut e = Ecpri::default();
    for a in args {
        match a.as_str() {
            "iq" | "ids" | "oran" => e.iq = true,
            _ => {
                return Err(unknown_option(
                    layer,
                    a,
                    "iq (count PC_ID/RTC_ID and SEQ_ID as header)",
                ));
            }
        }
    }
    Ok(e)
}

impl Stack {
    /// Parses a stack, lowest layer first: `name` or `name(arg,...)` separated by `/`.
    /// Names and arguments are case-insensitive. See [`LAYER_NAMES`].
    pub fn parse(text: &str) -> Result<Stack> {
        if text.trim().is_empty() {
            return Err(Error::MalformedStack {
                text: text.into(),
                reason: format!(
                    "empty; write layers lowest first, e.g. eth/ipv4/udp, from {LAYER_NAMES}"
                ),
            });
        }
        let mut layers = Vec::new();
        for seg in text.split('/') {
            layers.push(parse_layer(seg, text)?);
        }
        Stack::from_layers(layers)
    }

    /// Builds a stack from layers, lowest first, checking that each may sit on the one below.
    pub fn from_layers(layers: Vec<Layer>) -> Result<Stack> {
        for (i, l) in layers.iter().enumerate() {
            l.validate()?;
            let below = i.checked_sub(1).and_then(|j| layers.get(j));
            if let Some(allowed) = l.placement_error(below) {
                return Err(Error::BadPlacement {
                    layer: l.text(),
                    below: below.map_or("the bottom of the stack".into(), |b| {
                        format!("`{}`", b.text())
                    }),
                    allowed: allowed.into(),
                });
            }
            if let Layer::Esp(e) = l
                && let Some(above) = layers.get(i..).and_then(|rest| rest.get(1))
            {
                let ok = match e.mode {
                    Mode::Tunnel => above.is_ip(),
                    Mode::Transport => !above.is_ip(),
                };
                if !ok {
                    return Err(Error::BadPlacement {
                        layer: above.text(),
                        below: format!("`{}`", e.text()),
                        allowed: match e.mode {
                            Mode::Tunnel => "the inner ipv4 or ipv6 header (tunnel mode carries a whole IP packet)",
                            Mode::Transport => "udp, tcp or sctp (for a whole IP packet use esp-tunnel)",
                        }
                        .into(),
                    });
                }
            }
            if let Some(above) = layers.get(i..).and_then(|rest| rest.get(1))
                && let Some(allowed) = l.overlay_carries(above)
            {
                return Err(Error::BadPlacement {
                    layer: above.text(),
                    below: format!("`{}`", l.text()),
                    allowed: allowed.into(),
                });
            }
        }
        Ok(Stack { layers })
    }

    /// The layers, lowest first.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// Whether layer `i` counts against the link MTU: every layer but the link's own Ethernet
    /// header and 802.1Q tags ([`Layer::counts_against_mtu`]); above a VXLAN or Geneve header
    /// every layer counts, the inner frame's Ethernet header too (it is UDP payload on the
    /// outer link). `false` for an index past the top.
    pub fn counts_against_mtu(&self, i: usize) -> bool {
        i < self.layers.len() && counts_against_mtu(&self.layers, i)
    }

    /// Whether the lowest layer is Ethernet.
    pub fn has_ethernet(&self) -> bool {
        matches!(self.layers.first(), Some(Layer::Eth(_)))
    }

    /// Per-layer bytes for `payload` application bytes, lowest layer first.
    pub fn breakdown(&self, payload: usize) -> Result<Vec<LayerBytes>> {
        let mut out = Vec::with_capacity(self.layers.len());
        let mut len = self.check_payload(payload)?;
        for (i, l) in self.layers.iter().enumerate().rev() {
            let p = l.parts(len)?;
            let total = grown(l, len, &p)?;
            out.push(LayerBytes {
                layer: l.text(),
                header: p.header,
                padding: p.padding,
                trailer: p.trailer,
                inner: len,
                total,
                counts_against_mtu: counts_against_mtu(&self.layers, i),
            });
            len = total;
        }
        out.reverse();
        Ok(out)
    }

    /// Bytes of the whole frame (or packet, without layer 2) for `payload` application bytes,
    /// counted as a capture shows it ([`Count::Capture`]: no Ethernet padding, FCS,
    /// preamble or gap) \[bytes\]. `wire_len(0)` is the stack's minimum overhead.
    /// A payload over [`MAX_PAYLOAD`] is an error, and so is a length that would overflow.
    pub fn wire_len(&self, payload: usize) -> Result<usize> {
        let mut len = self.check_payload(payload)?;
        for l in self.layers.iter().rev() {
            len = grown(l, len, &l.parts(len)?)?;
        }
        Ok(len)
    }

    /// `payload` if it is at most [`MAX_PAYLOAD`], else an error naming the stack.
    fn check_payload(&self, payload: usize) -> Result<usize> {
        if payload > MAX_PAYLOAD {
            return Err(Error::PayloadTooLarge {
                layer: self.to_string(),
                what: "payload",
                len: payload,
                max: MAX_PAYLOAD,
            });
        }
        Ok(payload)
    }

    /// [`Stack::wire_len`] counted as `count` says; [`Count::Frame`] and [`Count::Line`] need
    /// Ethernet at the bottom \[bytes\].
    pub fn wire_len_as(&self, payload: usize, count: Count) -> Result<usize> {
        let len = self.wire_len(payload)?;
        if count != Count::Capture && !self.has_ethernet() {
            return Err(Error::MissingLayer {
                stack: self.to_string(),
                needed: "eth layer at the bottom",
                why: "frame and line counts add Ethernet padding, FCS, preamble and gap",
            });
        }
        Ok(count.apply(len))
    }

    /// Bytes the stack adds to `payload` \[bytes\].
    pub fn overhead(&self, payload: usize) -> Result<usize> {
        // wire_len(p) is p plus each layer's overhead, each sum checked in `grown`: >= p.
        #[allow(clippy::arithmetic_side_effects)]
        Ok(self.wire_len(payload)? - payload)
    }

    /// Bytes of the frame outside the MTU: the link's Ethernet header and 802.1Q tags
    /// (not an overlay's inner ones) \[bytes\].
    pub fn outside_mtu(&self) -> usize {
        (0..self.layers.len())
            .filter(|&i| !counts_against_mtu(&self.layers, i))
            .map(|i| self.layers[i].parts(0).map_or(0, |p| p.overhead()))
            .sum()
    }

    /// Bytes of the frame that count against the link MTU for `payload` application bytes:
    /// everything after the Ethernet header and 802.1Q tags (MACsec's SecTAG and ICV count,
    /// as Linux's macsec device MTU is 32 bytes below its parent's). Without layer 2 this is
    /// the IP packet length \[bytes\].
    pub fn mtu_len(&self, payload: usize) -> Result<usize> {
        // The Ethernet and 802.1Q bytes are among those wire_len sums (their size does not
        // depend on the payload), so the difference cannot go below zero.
        #[allow(clippy::arithmetic_side_effects)]
        Ok(self.wire_len(payload)? - self.outside_mtu())
    }

    /// Largest payload whose [`Stack::mtu_len`] fits `mtu`, or an error when not even an
    /// empty payload fits \[bytes\].
    pub fn max_payload(&self, mtu: usize) -> Result<usize> {
        let fits = |p: usize| self.mtu_len(p).is_ok_and(|l| l <= mtu);
        if !fits(0) {
            return Err(Error::MtuTooSmall {
                mtu,
                what: format!("`{self}` with an empty payload"),
                min: self.mtu_len(0)?,
            });
        }
        // mtu_len never decreases with the payload and is at least the payload.
        let (mut lo, mut hi) = (0usize, mtu);
        while lo < hi {
            // lo < mid <= hi <= mtu: no overflow, and mid >= 1.
            #[allow(clippy::arithmetic_side_effects)]
            let mid = lo + (hi - lo).div_ceil(2);
            #[allow(clippy::arithmetic_side_effects)]
            if fits(mid) { lo = mid } else { hi = mid - 1 }
        }
        Ok(lo)
    }

    /// Everything about one payload, ready to print.
    pub fn report(&self, payload: usize) -> Result<OverheadReport> {
        let wire_len = self.wire_len(payload)?;
        let eth = self.has_ethernet();
        Ok(OverheadReport {
            stack: self.to_string(),
            payload,
            wire_len,
            overhead: self.overhead(payload)?,
            mtu_len: self.mtu_len(payload)?,
            frame_len: eth.then(|| Count::Frame.apply(wire_len)),
            line_len: eth.then(|| Count::Line.apply(wire_len)),
            layers: self.breakdown(payload)?,
        })
    }
}

/// The wire size of one payload through one stack, with its per-layer breakdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OverheadReport {
    /// The stack in canonical text form.
    pub stack: String,
    /// Application payload \[bytes\].
    pub payload: usize,
    /// Frame as a capture shows it (no Ethernet padding/FCS/preamble/gap) \[bytes\].
    pub wire_len: usize,
    /// `wire_len - payload` \[bytes\].
    pub overhead: usize,
    /// Bytes counted against the link MTU (all but the Ethernet header and VLAN tags) \[bytes\].
    pub mtu_len: usize,
    /// IEEE 802.3 frame: padded to 64 bytes, FCS included; only with Ethernet \[bytes\].
    pub frame_len: Option<usize>,
    /// Byte times on the line: frame plus preamble, SFD and inter-frame gap; only with
    /// Ethernet \[bytes\].
    pub line_len: Option<usize>,
    /// Per-layer bytes, lowest layer first.
    pub layers: Vec<LayerBytes>,
}

impl FromStr for Stack {
    type Err = Error;

    fn from_str(s: &str) -> Result<Stack> {
        Stack::parse(s)
    }
}

impl fmt::Display for Stack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let texts: Vec<String> = self.layers.iter().map(Layer::text).collect();
        f.write_str(&texts.join("/"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> Stack {
        Stack::parse(t).unwrap_or_else(|e| panic!("{t}: {e}"))
    }

    #[test]
    fn e2_sack_62_to_138() {
        // 000 §3.1 and Table 2 (issue 3): the E2 SACK, plaintext and in ESP tunnel mode.
        assert_eq!(s("eth/ipv4/sctp(sack)").wire_len(0).unwrap(), 62);
        let ct = s("eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp(sack)");
        assert_eq!(ct.wire_len(0).unwrap(), 138);
        let b = ct.breakdown(0).unwrap();
        assert_eq!(b[2].padding, 14);
        assert_eq!(
            b.iter()
                .map(|l| l.header + l.padding + l.trailer)
                .sum::<usize>(),
            138
        );
    }

    #[test]
    fn macsec_adds_32() {
        let plain = s("eth/ecpri");
        let sec = s("eth/macsec(gcm-aes-128,encrypt)/ecpri");
        for n in [0, 1, 15, 16, 17, 1000, 8192] {
            assert_eq!(sec.wire_len(n).unwrap() - plain.wire_len(n).unwrap(), 32);
        }
        assert_eq!(sec.mtu_len(100).unwrap(), 100 + 4 + 32);
    }

    #[test]
    fn canonical_text_round_trips() {
        for t in [
            "eth/vlan/macsec(gcm-aes-256,encrypt,no-sci)/vlan/ipv6/udp/ecpri(iq)",
            "eth/ipv4/udp/esp-tunnel(aes128-gcm-16,tfc=200)/ipv6(ext=8)/tcp(ts)/tls13(aes128-gcm)",
            "ipv4/esp-transport(aes128-cbc,hmac-sha1-96)/sctp(sack,gaps=2,dups=1)",
            "eth/ipv4/tcp/tls12(aes128-cbc,hmac-sha256,etm)",
            "eth/ipv4/udp/dtls13(aes128-gcm,seq8,cid=4)",
            "eth/ipv4/tcp/ssh(aes128-ctr,hmac-sha2-256-etm)",
            "eth/ipv4/sctp/e2ap",
            "eth/ipv4/udp/vxlan/eth/vlan/ipv4/udp",
            "eth/ipv6/udp/geneve(options=252)/ipv4/tcp",
            "eth/ipv4/udp/geneve/eth/ipv6/udp/vxlan/eth/ecpri",
        ] {
            let st = s(t);
            assert_eq!(st.to_string(), t);
            assert_eq!(s(&st.to_string()), st);
        }
    }

    #[test]
    fn malformed_and_misplaced_stacks_are_explained() {
        let cases = [
            ("", "empty"),
            ("eth//ipv4", "empty layer"),
            ("eth/ipv4(", "closed by `)`"),
            ("eth/foo", "allowed layers"),
            ("eth/esp-tunnel(aes128-gcm)", "ipv4, ipv6 or udp"),
            ("eth/ipv4/esp-tunnel(aes128-gcm)/sctp", "inner ipv4 or ipv6"),
            ("eth/ipv4/esp-tunnel(aes512-gcm)/ipv4", "chacha20-poly1305"),
            ("ipv4/eth", "bottom layer"),
            ("eth/udp", "ipv4, ipv6 or esp-transport"),
            ("eth/ipv4/udp/tls13(aes128-gcm)", "tcp or sctp"),
            ("eth/vlan(5)", "no arguments"),
            ("eth/ipv4(options=3)", "multiple of 4"),
            ("eth/ipv4/vxlan", "it must sit on udp"),
            ("eth/ipv4/udp/vxlan/ipv4", "VXLAN carries an Ethernet frame"),
            ("eth/ipv4/udp/vxlan(1)", "no arguments"),
            ("eth/ipv4/udp/geneve/udp", "eth, ipv4 or ipv6"),
            ("eth/ipv4/udp/geneve(options=6)", "between 0 and 252"),
            ("eth/ipv4/udp/geneve(opts=256)", "between 0 and 252"),
            ("eth/ipv4/udp/geneve(vni=5)", "options=BYTES"),
            ("eth/ipv4/udp/eth", "vxlan or geneve"),
        ];
        for (t, want) in cases {
            let e = Stack::parse(t).unwrap_err().to_string();
            assert!(e.contains(want), "{t}: {e}");
        }
    }

    /// An overlay adds its outer Ethernet, IP and UDP headers and its own (VXLAN 8, Geneve 8
    /// plus options) to the inner frame, whose Ethernet header counts against the outer MTU.
    #[test]
    fn overlays_wrap_an_inner_frame() {
        let inner = s("eth/ipv4/udp");
        for (outer, added) in [
            ("eth/ipv4/udp/vxlan", 14 + 20 + 8 + 8),
            ("eth/ipv6/udp/vxlan", 14 + 40 + 8 + 8),
            ("eth/ipv4/udp/geneve", 14 + 20 + 8 + 8),
            ("eth/ipv4/udp/geneve(opts=8)", 14 + 20 + 8 + 8 + 8),
            ("eth/ipv4/udp/geneve(options=252)", 14 + 20 + 8 + 8 + 252),
        ] {
            let st = s(&format!("{outer}/{inner}"));
            for n in [0, 1, 100, 1422] {
                assert_eq!(
                    st.wire_len(n).unwrap(),
                    inner.wire_len(n).unwrap() + added,
                    "{st} {n}"
                );
                // Only the outer Ethernet header is outside the MTU.
                assert_eq!(st.mtu_len(n).unwrap(), st.wire_len(n).unwrap() - 14, "{st}");
            }
            assert_eq!(st.outside_mtu(), 14);
            let b = st.breakdown(0).unwrap();
            assert!(!b[0].counts_against_mtu && b[1..].iter().all(|l| l.counts_against_mtu));
            assert!(!st.counts_against_mtu(0) && st.counts_against_mtu(4));
            assert!(!st.counts_against_mtu(st.layers().len()));
        }
        // A 1500-byte MTU leaves an inner 1450-byte packet: 1500 - 20 - 8 - 8 - 14.
        let vx = s("eth/ipv4/udp/vxlan/eth/ipv4/udp");
        assert_eq!(vx.max_payload(1500).unwrap(), 1450 - 28);
        // A Geneve header may carry an IP packet (Protocol Type 0x0800).
        assert_eq!(
            s("ipv4/udp/geneve/ipv4").wire_len(0).unwrap(),
            20 + 8 + 8 + 20
        );
        // The outer UDP length bounds the inner frame: 65507 B fill the inner packet.
        let e = vx.wire_len(65_507).unwrap_err().to_string();
        assert!(e.contains("UDP length of 65565 bytes"), "{e}");
    }

    #[test]
    fn payload_over_ip_maximum_is_an_error() {
        let st = s("eth/ipv4/udp");
        assert_eq!(st.wire_len(65_507).unwrap(), 65_507 + 42);
        let e = st.wire_len(65_508).unwrap_err().to_string();
        assert!(e.contains("65535"), "{e}");
    }

    #[test]
    fn max_payload_and_counts() {
        let st = s("eth/ipv4/udp");
        assert_eq!(st.max_payload(1500).unwrap(), 1472);
        assert_eq!(st.wire_len_as(0, Count::Frame).unwrap(), 64);
        assert_eq!(st.wire_len_as(1472, Count::Line).unwrap(), 1538);
        assert!(s("ipv4/udp").wire_len_as(0, Count::Line).is_err());
        let e = st.max_payload(20).unwrap_err().to_string();
        assert!(e.contains("at least 28"), "{e}");
    }

    #[test]
    fn wire_len_never_decreases() {
        for t in [
            "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha512-256,tfc=300)/ipv4/tcp/tls12(aes128-cbc,hmac-sha1)",
            "eth/ipv4/tcp/ssh(aes128-gcm)",
            "eth/ipv4/tcp/tls13(chacha20-poly1305,record=100)",
        ] {
            let st = s(t);
            let mut prev = 0;
            for n in 0..3000 {
                let w = st.wire_len(n).unwrap();
                assert!(w >= prev && w >= n, "{t} {n}");
                prev = w;
            }
        }
    }
}
