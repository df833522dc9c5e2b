//! Links: rate, length, propagation speed, framing, MTU, queue and loss of each `[[link]]`.

use sim_core::{
    DEFAULT_PROPAGATION_SPEED, DataRate, EthernetLine, LineFraming, LinkConfig, propagation_delay,
};

use crate::error::ScenarioError;
use crate::file::LinkFile;
use profile::units::Kind;

use super::context::Ctx;

/// Names `[[link]] framing` accepts.
pub(super) const FRAMINGS: &str = "\"ethernet\" (the default) or \"bare\"";

/// Ethernet's line framing, with IEEE 802.3's byte counts from `protocols::ethernet`.
pub(super) fn ethernet_line() -> LineFraming {
    use protocols::ethernet as e;
    LineFraming::Ethernet(EthernetLine {
        header: e::HEADER as u32,
        fcs: e::FCS as u32,
        min_frame: e::MIN_FRAME as u32,
        preamble: e::PREAMBLE_SFD as u32,
        gap: e::IFG as u32,
    })
}

/// The link MTUs a scenario accepts, by framing \[bytes\]: IPv4's minimum (RFC 791: every
/// host must take a 68-byte datagram) up to the largest jumbo frame payload Ethernet switches
/// carry (9216 B) on an Ethernet link, or IPv4's largest datagram (65,535 B) on a bare link.
pub(super) const ETHERNET_MTU: std::ops::RangeInclusive<u32> = 68..=9216;
/// See [`ETHERNET_MTU`] \[bytes\].
pub(super) const BARE_MTU: std::ops::RangeInclusive<u32> = 68..=65_535;

pub(super) fn link(
    cx: &Ctx<'_>,
    i: usize,
    l: &LinkFile,
    lookup: &dyn Fn(&str, &str) -> Result<usize, ScenarioError>,
) -> Result<LinkConfig, ScenarioError> {
    let key = format!("link[{i}]");
    if l.between.len() != 2 {
        return Err(cx.invalid(
            format!("{key}.between"),
            format!("{} node name(s)", l.between.len()),
            "exactly two node names, e.g. between = [\"du\", \"ru\"]",
        ));
    }
    let a = lookup(&format!("{key}.between[0]"), &l.between[0])?;
    let b = lookup(&format!("{key}.between[1]"), &l.between[1])?;
    if a == b {
        return Err(cx.invalid(
            format!("{key}.between"),
            "a link from a node to itself",
            "two different nodes",
        ));
    }
    let name = l
        .name
        .clone()
        .unwrap_or_else(|| format!("{}-{}", l.between[0], l.between[1]));
    let key = format!("{key} (\"{name}\")");
    let bps = cx.positive(&format!("{key}.rate"), &l.rate, Kind::DataRate)?;
    if bps.fract() != 0.0 || bps >= u64::MAX as f64 {
        return Err(cx.invalid(
            format!("{key}.rate"),
            format!("\"{}\" is not a whole number of bit/s", l.rate.0),
            "a rate like \"10Gbps\"",
        ));
    }
    let rate = DataRate::from_bps(bps as u64).expect("checked positive");
    let length = l
        .length
        .as_ref()
        .map(|q| cx.quantity(&format!("{key}.length"), q, Kind::Length))
        .transpose()?
        .unwrap_or(0.0);
    let speed = l
        .speed
        .as_ref()
        .map(|q| cx.positive(&format!("{key}.speed"), q, Kind::Speed))
        .transpose()?
        .unwrap_or(DEFAULT_PROPAGATION_SPEED);
    let propagation = propagation_delay(length, speed).ok_or_else(|| {
        cx.invalid(
            format!("{key}.length"),
            "the propagation delay overflows",
            "a length under 10^10 km",
        )
    })?;
    let framing = match l.framing.as_deref() {
        None | Some("ethernet") => ethernet_line(),
        Some("bare") => LineFraming::Bare,
        Some(other) => {
            return Err(cx.invalid(format!("{key}.framing"), format!("\"{other}\""), FRAMINGS));
        }
    };
    let mtu = l
        .mtu
        .as_ref()
        .map(|q| cx.packet_bytes(&format!("{key}.mtu"), q))
        .transpose()?;
    if let Some(m) = mtu {
        let (range, what) = match framing {
            LineFraming::Ethernet(_) => (ETHERNET_MTU, "an Ethernet link"),
            LineFraming::Bare => (BARE_MTU, "a bare link (`framing = \"bare\"`)"),
        };
        if !range.contains(&m) {
            return Err(cx.invalid(
                format!("{key}.mtu"),
                format!("{m} B is not an MTU {what} can carry"),
                format!("{} to {} B on {what}", range.start(), range.end()),
            ));
        }
    }
    let queue_capacity = l
        .queue
        .map(|q| cx.count(&format!("{key}.queue"), q, "packets", u32::MAX as u64))
        .transpose()?;
    let loss = match l.loss {
        None => 0.0,
        Some(p) if (0.0..1.0).contains(&p) => p,
        Some(p) => {
            return Err(cx.invalid(
                format!("{key}.loss"),
                format!("{p}"),
                "a probability from 0 to below 1, e.g. 0.01 for 1%",
            ));
        }
    };
    Ok(LinkConfig {
        name,
        a,
        b,
        rate,
        propagation,
        mtu,
        queue_capacity,
        loss,
        framing,
    })
}
