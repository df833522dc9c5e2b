//! A run's packets as frames: an engine observer ([`Capture`]) that sees the packets of chosen
//! flows on their first or last link ([`WirePoint`]) in the first replication, writes each as
//! the bytes its flow's stack makes ([`protocols::Stack::emit`], through a
//! [`protocols::Template`] per flow, direction and size, stamped with the packet's
//! sequence number), and hands them to a [`FrameSink`] (the binary's pcapng file) up to a
//! limit.
//!
//! What a frame holds: every header and trailer of the stack as `emit` writes them, around a
//! payload of the fixed pattern `0, 1, 2, ..., 255, 0, 1, ...` (under `e2ap`, a well-formed
//! E2AP RICindication of that length, [`protocols::e2ap`]) whose length makes the frame as
//! long as the engine's packet; transport checksums are right. The [`FrameSink`] seals the
//! security layers ([`FrameSink::seal_frame`]); one that does not leaves ICVs zero and
//! nothing encrypted. An SCTP user message a source sends as several frames (RFC 9260 §6.9) is
//! written as its DATA chunk fragments: consecutive TSNs, one SSN per message (messages
//! counted per flow from 1), B on the first, E on the last. A handshake flow's messages are
//! their IKEv2 datagrams ([`protocols::ikev2::datagrams`], sealed by the [`FrameSink`]) between the
//! flow's end nodes, every datagram of a message at the time its packet is seen. Addresses are the flow's end nodes' (node `i` is `02:00:00:hh:mm:ll`,
//! `10.hh.mm.ll` and `fd00::hhmm:mmll` with `hhmmll` = `i + 1`, the same on every link of the
//! route: no per-hop rewrite); UDP carrying ESP uses port 4500, other UDP and TCP port
//! `49152 + flow % 16384`; TCP sequence numbers are the same in every frame of a flow (no
//! byte stream is modelled). Each flow direction is one security association: SPI
//! `0x10000000 + 2 * flow + direction` (modulo 2^28), MACsec SCI from the source address, and
//! a sequence number (ESP sequence and counter IV, MACsec PN) counting that direction's packets
//! from 1 as they are created, so a packet lost on the way leaves a gap in a delivered
//! capture, as on a real wire.

use std::collections::HashMap;

use std::sync::Arc;

use protocols::ikev2::{Datagram, Endpoints};
use protocols::sctp::MessagePart;
use protocols::{Ids, Layer, Layout, Stack, Template};
use sim_core::{Direction, Observer, WireRecord};

pub use sim_core::WirePoint;

use crate::Scenario;

/// The default of [`Capture::new`]'s limit: a million frames (about 1.5 GB of 1500 B frames at
/// most), so a run of 100,000 nodes does not fill a disk by accident.
pub const DEFAULT_LIMIT: u64 = 1_000_000;

/// Templates a capture keeps at most; past this it forgets them all and builds again as frames
/// come (memory stays bounded whatever the number of flows and sizes).
const MAX_TEMPLATES: usize = 1 << 16;

/// Where the frames go: the binary's capture file.
pub trait FrameSink {
    /// One frame seen on link direction `link_direction` (`2i`: link `i` from `a` to `b`,
    /// `2i + 1` back) at simulated time `time_ps` \[ps\]; `ethernet` says whether it starts with
    /// an Ethernet header (else with an IPv4 or IPv6 header).
    fn frame(
        &mut self,
        link_direction: u32,
        ethernet: bool,
        time_ps: u64,
        bytes: &[u8],
    ) -> std::io::Result<()>;

    /// Seals a data frame in place: the security layers of its stack (ESP, MACsec, TLS
    /// records) over the ranges [`DataFrame::emitted`] names, the checksums filled again
    /// around them ([`protocols::Emitted::finish`]). Called only for frames whose stack
    /// has a security layer; the default leaves their ICVs zero and nothing encrypted.
    fn seal_frame(&mut self, _frame: &DataFrame<'_>, _bytes: &mut [u8]) -> std::io::Result<()> {
        Ok(())
    }

    /// Seals an IKEv2 datagram of tunnel `tunnel` (index among the run's tunnels) in place
    /// ([`protocols::ikev2::Seal`]) before its frames are written, and may give it its
    /// tunnel's SPIs ([`Datagram::set_spis`]); the default leaves emit's SPIs, its IV and ICV
    /// zero and its payloads in the clear.
    fn seal_ike(
        &mut self,
        _tunnel: u32,
        _cipher: protocols::ikev2::IkeCipher,
        _datagram: &mut Datagram,
    ) -> std::io::Result<()> {
        Ok(())
    }
}

/// A data frame to seal ([`FrameSink::seal_frame`]): whose it is and where its cipher works.
/// Each flow direction is one security association.
#[derive(Debug, Clone, Copy)]
pub struct DataFrame<'a> {
    /// The flow (index into [`sim_core::Network::flows`]).
    pub flow: usize,
    /// Its direction.
    pub direction: Direction,
    /// The stack of that direction.
    pub stack: &'a Stack,
    /// The frame's ids (addresses, SPI, SCI; `seq` the packet counter).
    pub ids: &'a Ids,
    /// Where the security layers and checksums lie in the frame.
    pub emitted: &'a protocols::Emitted,
}

/// Why a flow's frames cannot be written: the flow has no stack (its sizes are bare packet
/// sizes, or it is a trace source), its IKEv2 messages cannot be written, or a layer of its
/// stack is one
/// [`protocols::Stack::emit`] does not write. The text names the flow and says which.
pub fn unwritable(scenario: &Scenario, flow: usize) -> Option<String> {
    let f = scenario.network.flows.get(flow)?;
    why_not(scenario.stacks.get(flow), &f.source).map(|why| format!("flow \"{}\"{why}", f.name))
}

/// [`unwritable`] of every flow, in [`sim_core::Network::flows`] order; flows whose
/// stacks read the same (the many gNBs of a generated scenario) are checked once.
pub fn unwritable_all(scenario: &Scenario) -> Vec<Option<String>> {
    let mut seen: HashMap<String, Option<String>> = HashMap::new();
    // The previous flow's stacks and verdict: flows made from one template follow each other
    // with equal stacks, compared by value without formatting them.
    let mut last: Option<(&crate::scenario::FlowStacks, Option<String>)> = None;
    scenario
        .network
        .flows
        .iter()
        .enumerate()
        .map(|(f, flow)| {
            let st = scenario.stacks.get(f);
            let why = match (st, &last) {
                (Some(st), Some((prev, why))) if *prev == st => why.clone(),
                _ => {
                    let key = format!(
                        "{:?} {:?}",
                        st.map(|s| (&s.forward, &s.reverse, &s.handshake)),
                        run_names(&flow.source)
                    );
                    let why = seen
                        .entry(key)
                        .or_insert_with(|| why_not(st, &flow.source))
                        .clone();
                    last = st.map(|st| (st, why.clone()));
                    why
                }
            };
            why.map(|why| format!("flow \"{}\"{why}", flow.name))
        })
        .collect()
}

/// What [`unwritable`] says after the flow's name, for a flow with these stacks.
fn why_not(
    stacks: Option<&crate::scenario::FlowStacks>,
    source: &sim_core::Source,
) -> Option<String> {
    const NONE: &str = " has no protocol stack (its sizes are bare packet sizes, or it is a \
                        trace source)";
    let Some(st) = stacks else {
        return Some(NONE.into());
    };
    if let Some(cfg) = &st.handshake {
        return handshake_datagrams(cfg, &run_names(source))
            .err()
            .map(|e| format!(", its IKEv2 messages: {e}"));
    }
    let Some(forward) = &st.forward else {
        return Some(NONE.into());
    };
    for s in std::iter::once(forward).chain(&st.reverse) {
        // A stack some payload fits (a SACK carries none, a DATA chunk at least a byte).
        let ids = ids(0, 0, 0, Direction::Forward);
        let emit = |n: usize| s.emit(0, &vec![0; n], &ids, &mut Vec::new()).map(|_| ());
        if let Err(e) = emit(1).or_else(|_| emit(0)) {
            return Some(format!(", stack \"{s}\": {e}"));
        }
        if !matches!(
            s.layers().first(),
            Some(Layer::Eth(_) | Layer::Ipv4(_) | Layer::Ipv6(_))
        ) {
            return Some(format!(
                ", stack \"{s}\": a capture's frames start with eth, ipv4 or ipv6"
            ));
        }
    }
    None
}

/// The identifiers of `flow`'s frames going `dir` between nodes `from` and `to` (the flow's
/// first and last node) (see the module doc).
fn ids(flow: usize, from: usize, to: usize, dir: Direction) -> Ids {
    let (src, dst) = match dir {
        Direction::Forward => (from, to),
        Direction::Reverse => (to, from),
    };
    // Node i is address i + 1 in 24 bits (16.7 million nodes; beyond, addresses repeat).
    let addr = |n: usize| -> [u8; 3] {
        let a = (n as u32).wrapping_add(1).to_be_bytes();
        [a[1], a[2], a[3]]
    };
    let mac = |n: usize| {
        let a = addr(n);
        [0x02, 0, 0, a[0], a[1], a[2]]
    };
    let ip = |n: usize| {
        let a = addr(n);
        [10, a[0], a[1], a[2]]
    };
    // Below 16384, so the sum fits a u16 (UDP carrying ESP takes 4500: emit's rule).
    let port = 49152 + (flow % 16384) as u16;
    let d = match dir {
        Direction::Forward => 0u32,
        Direction::Reverse => 1,
    };
    let ip6 = |n: usize| {
        let mut a = [0u8; 16];
        a[0] = 0xfd;
        a[12..].copy_from_slice(&(n as u32).wrapping_add(1).to_be_bytes());
        a
    };
    let src_mac = mac(src);
    let mut sci = [0u8; 8];
    sci[..6].copy_from_slice(&src_mac);
    sci[7] = 1;
    Ids {
        dst_mac: mac(dst),
        src_mac,
        src_ip: ip(src),
        dst_ip: ip(dst),
        src_ip6: ip6(src),
        dst_ip6: ip6(dst),
        ttl: 64,
        src_port: port,
        dst_port: port,
        spi: 0x1000_0000 | (((flow as u32) << 1 | d) & 0x0fff_ffff),
        seq: 1,
        sci: u64::from_be_bytes(sci),
        ..Ids::default()
    }
}

/// The unsealed datagrams of a handshake flow's exchanges (those the engine runs: a set-up's,
/// or a rekey's CREATE_CHILD_SA and INFORMATIONAL), per exchange: the request's, then the
/// response's.
type Exchanges = Vec<[Vec<Datagram>; 2]>;

/// A handshake flow's configuration and exchange list, by address: flows that share both share
/// their datagrams.
type RunKey = (usize, usize);

/// The names of the exchanges a handshake source runs, in order (none for another source).
fn run_names(source: &sim_core::Source) -> Vec<&str> {
    match source {
        sim_core::Source::Handshake { exchanges, .. } => {
            exchanges.iter().map(|e| e.name.as_str()).collect()
        }
        _ => Vec::new(),
    }
}

/// [`Exchanges`] of the exchanges named `run`, in that order, from `cfg`'s handshake.
fn handshake_datagrams(
    cfg: &protocols::ikev2::Config,
    run: &[&str],
) -> protocols::Result<Exchanges> {
    let h = protocols::ikev2::handshake(cfg)?;
    let at: Vec<usize> = h
        .exchanges
        .iter()
        .map(|e| run.iter().position(|n| *n == e.name).unwrap_or(usize::MAX))
        .collect();
    let mut out: Exchanges = run.iter().map(|_| [Vec::new(), Vec::new()]).collect();
    for d in protocols::ikev2::datagrams(cfg, &h)? {
        if let Some(&k) = at.get(d.exchange).filter(|&&k| k != usize::MAX) {
            // Each datagram's frames are checked once, here, so writing them cannot fail.
            protocols::ikev2::frames(cfg, &d)?;
            out[k][usize::from(!d.from_initiator)].push(d);
        }
    }
    Ok(out)
}

/// A payload length whose frame in `stack` is `size` bytes, if there is one (the smallest).
fn payload_for(stack: &Stack, size: u32) -> Option<usize> {
    let size = size as usize;
    let (mut lo, mut hi) = (0usize, size);
    // The smallest payload whose frame is at least `size`: wire_len grows with the payload.
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match stack.wire_len(mid) {
            Ok(n) if n >= size => hi = mid,
            Ok(_) => lo = mid + 1,
            Err(_) => hi = mid,
        }
    }
    (stack.wire_len(lo).ok()? == size).then_some(lo)
}

/// The payload length that makes `stack`'s frame `size` bytes, where its counter lies, and
/// for a stack ending in `e2ap` the stand-in E2AP PDU of that length
/// ([`protocols::e2ap::ric_indication`]; the pattern when none is that long); `pattern` grows
/// to the length.
fn layout(stack: &Stack, size: u32, ids: &Ids, pattern: &mut Vec<u8>) -> Option<LayoutOf> {
    let len = payload_for(stack, size)?;
    extend_pattern(pattern, len);
    let pdu = if matches!(stack.layers().last(), Some(Layer::E2ap)) {
        protocols::e2ap::ric_indication(len)
    } else {
        None
    };
    let payload = pdu.as_deref().unwrap_or(&pattern[..len]);
    let layout = Template::layout(stack, payload, ids).ok()?;
    Some((len, layout, pdu))
}

/// A frame size's payload length, counter layout and E2AP PDU ([`layout`]).
type LayoutOf = (usize, Layout, Option<Vec<u8>>);

/// Grows `pattern` (byte i is i mod 256) to at least `len` bytes.
fn extend_pattern(pattern: &mut Vec<u8>, len: usize) {
    let from = pattern.len();
    if len > from {
        pattern.extend((from..len).map(|i| i as u8));
    }
}

/// What a capture did, for the binary to report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Captured {
    /// Frames handed to the sink \[count\].
    pub frames: u64,
    /// Frames seen past the limit and left out \[count\].
    pub cut: u64,
    /// Packets seen whose size no payload of their stack makes (left out; none expected)
    /// \[count\].
    pub no_payload: u64,
}

/// The engine observer that writes the chosen flows' packets at one point of their route as
/// frames into a [`FrameSink`], up to a limit of frames.
pub struct Capture<'s, S: FrameSink> {
    scenario: &'s Scenario,
    sink: S,
    point: WirePoint,
    limit: u64,
    /// Per flow: captured or not.
    chosen: Vec<bool>,
    /// Per flow and direction: the sequence number of its last packet created.
    seq: Vec<[u64; 2]>,
    /// Per packet slot: the sequence number of the packet in it.
    slot_seq: Vec<u64>,
    /// Per packet slot: the SCTP message and fragment it carries, when its flow's source sends
    /// messages and the packet is not a whole message numbered by its sequence number.
    slot_part: Vec<Option<MessagePart>>,
    /// Per flow: the messages its source started \[count\], and the message whose frames are
    /// being created (its part for the next frame).
    messages: Vec<(u64, Option<MessagePart>)>,
    /// Per distinct handshake configuration and exchange list (by address): its datagrams, or
    /// None when they cannot be written.
    handshakes: Vec<(RunKey, Option<Arc<Exchanges>>)>,
    /// A frame written without a template (SCTP fragments).
    scratch: Vec<u8>,
    templates: HashMap<(u32, bool, u32), Option<Template>>,
    /// Per flow, the index of its forward and reverse stack among the distinct stacks of the
    /// chosen flows (`u32::MAX`: none).
    groups: Vec<[u32; 2]>,
    /// Per distinct stack and frame size: the payload length that makes the frame and where
    /// the counter lies (found once, not per flow).
    layouts: HashMap<(u32, u32), Option<LayoutOf>>,
    /// The payload pattern (byte i is i mod 256), as long as the longest payload so far.
    pattern: Vec<u8>,
    done: Captured,
    error: Option<std::io::Error>,
}

impl<'s, S: FrameSink> Capture<'s, S> {
    /// A capture of `flows` (indices; each must be writable: [`unwritable`]) of `scenario` at
    /// `point`, at most `limit` frames, into `sink`.
    pub fn new(
        scenario: &'s Scenario,
        flows: &[usize],
        point: WirePoint,
        limit: u64,
        sink: S,
    ) -> Capture<'s, S> {
        let n = scenario.network.flows.len();
        let mut chosen = vec![false; n];
        let mut groups = vec![[u32::MAX; 2]; n];
        let mut distinct: HashMap<String, u32> = HashMap::new();
        // The last stack looked up and its group: flows made from one template follow each
        // other with equal stacks, compared by value without formatting them.
        let mut last: [Option<(&Stack, u32)>; 2] = [None, None];
        for &f in flows {
            if let Some(c) = chosen.get_mut(f) {
                *c = true;
            }
            let Some(st) = scenario.stacks.get(f) else {
                continue;
            };
            for ((g, stack), last) in groups[f]
                .iter_mut()
                .zip([&st.forward, &st.reverse])
                .zip(&mut last)
            {
                if let Some(stack) = stack {
                    *g = match last {
                        Some((prev, g)) if *prev == stack => *g,
                        _ => {
                            let next = distinct.len() as u32;
                            let g = *distinct.entry(stack.to_string()).or_insert(next);
                            *last = Some((stack, g));
                            g
                        }
                    };
                }
            }
        }
        Capture {
            scenario,
            sink,
            point,
            limit,
            chosen,
            seq: vec![[0; 2]; n],
            slot_seq: Vec::new(),
            slot_part: Vec::new(),
            messages: vec![(0, None); n],
            handshakes: Vec::new(),
            scratch: Vec::new(),
            templates: HashMap::new(),
            groups,
            layouts: HashMap::new(),
            pattern: Vec::new(),
            done: Captured::default(),
            error: None,
        }
    }

    /// Ends the capture: the sink, and what was captured; the sink's first error if it failed
    /// (nothing was written after it).
    pub fn finish(self) -> Result<(S, Captured), std::io::Error> {
        match self.error {
            Some(e) => Err(e),
            None => Ok((self.sink, self.done)),
        }
    }

    fn write(&mut self, r: &WireRecord) -> std::io::Result<()> {
        if let Some([tunnel, exchange]) = r.handshake {
            return self.write_handshake(r, tunnel, exchange as usize);
        }
        if let Some(Some(part)) = self.slot_part.get(r.packet as usize).copied() {
            return self.write_part(r, part);
        }
        let forward = r.direction == Direction::Forward;
        let key = (r.flow as u32, forward, r.size);
        let seq = self.slot_seq.get(r.packet as usize).copied().unwrap_or(1);
        if !self.templates.contains_key(&key) {
            if self.templates.len() >= MAX_TEMPLATES {
                self.templates.clear();
            }
            let t = self.template(r.flow, r.direction, r.size, seq);
            self.templates.insert(key, t);
        }
        let Some(Some(t)) = self.templates.get_mut(&key) else {
            self.done.no_payload = self.done.no_payload.saturating_add(1);
            return Ok(());
        };
        let st = self.scenario.stacks.get(r.flow);
        let ethernet = st
            .and_then(|s| s.forward.as_ref())
            .is_some_and(Stack::has_ethernet);
        if t.emitted().sealing.is_empty() {
            self.sink
                .frame(r.link_direction, ethernet, r.time_ps, t.stamp(seq))?;
        } else {
            let stack = st.and_then(|s| match r.direction {
                Direction::Forward => s.forward.as_ref(),
                Direction::Reverse => s.reverse.as_ref(),
            });
            let path = &self.scenario.network.flows[r.flow].path;
            let (Some(stack), Some(&first), Some(&last)) = (stack, path.first(), path.last())
            else {
                return Ok(());
            };
            let ids = Ids {
                seq,
                ..ids(r.flow, first, last, r.direction)
            };
            let mut out = std::mem::take(&mut self.scratch);
            out.clear();
            out.extend_from_slice(t.stamp(seq));
            let frame = DataFrame {
                flow: r.flow,
                direction: r.direction,
                stack,
                ids: &ids,
                emitted: t.emitted(),
            };
            let written = self
                .sink
                .seal_frame(&frame, &mut out)
                .and_then(|()| self.sink.frame(r.link_direction, ethernet, r.time_ps, &out));
            self.scratch = out;
            written?;
        }
        self.done.frames = self.done.frames.saturating_add(1);
        Ok(())
    }

    /// Writes the frames of a handshake message: every datagram of exchange `exchange`'s
    /// request (forward) or response, sealed by the sink, between the flow's end nodes.
    fn write_handshake(
        &mut self,
        r: &WireRecord,
        tunnel: u32,
        exchange: usize,
    ) -> std::io::Result<()> {
        let Some(cfg) = self
            .scenario
            .stacks
            .get(r.flow)
            .and_then(|s| s.handshake.clone())
        else {
            self.done.no_payload = self.done.no_payload.saturating_add(1);
            return Ok(());
        };
        let source = &self.scenario.network.flows[r.flow].source;
        let run = match source {
            sim_core::Source::Handshake { exchanges, .. } => exchanges.as_ptr() as usize,
            _ => 0,
        };
        let at = (Arc::as_ptr(&cfg) as usize, run);
        let exchanges = match self.handshakes.iter().find(|(p, _)| *p == at) {
            Some((_, x)) => x.clone(),
            None => {
                let x = handshake_datagrams(&cfg, &run_names(source))
                    .ok()
                    .map(Arc::new);
                self.handshakes.push((at, x.clone()));
                x
            }
        };
        let side = usize::from(r.direction != Direction::Forward);
        let Some(datagrams) = exchanges.as_ref().and_then(|x| x.get(exchange)) else {
            self.done.no_payload = self.done.no_payload.saturating_add(1);
            return Ok(());
        };
        let path = &self.scenario.network.flows[r.flow].path;
        let (Some(&first), Some(&last)) = (path.first(), path.last()) else {
            return Ok(());
        };
        let ids = ids(r.flow, first, last, Direction::Forward);
        let ends = Endpoints {
            mac: [ids.src_mac, ids.dst_mac],
            ipv4: [ids.src_ip, ids.dst_ip],
            ipv6: [ids.src_ip6, ids.dst_ip6],
        };
        for d in &datagrams[side] {
            let mut d = d.clone();
            self.sink.seal_ike(tunnel, cfg.cipher, &mut d)?;
            // Checked when the datagrams were built (handshake_datagrams).
            let frames =
                protocols::ikev2::frames_between(&cfg, &d, &ends).map_err(std::io::Error::other)?;
            for f in frames {
                if self.done.frames >= self.limit {
                    self.done.cut = self.done.cut.saturating_add(1);
                    continue;
                }
                self.sink.frame(r.link_direction, true, r.time_ps, &f)?;
                self.done.frames = self.done.frames.saturating_add(1);
            }
        }
        Ok(())
    }

    /// Writes an SCTP fragment (or a whole message numbered apart from its sequence number):
    /// emitted with its message part, no template.
    fn write_part(&mut self, r: &WireRecord, part: MessagePart) -> std::io::Result<()> {
        let seq = self.slot_seq.get(r.packet as usize).copied().unwrap_or(1);
        let Some(st) = self.scenario.stacks.get(r.flow) else {
            return Ok(());
        };
        let (stack, group) = match r.direction {
            Direction::Forward => (st.forward.as_ref(), self.groups[r.flow][0]),
            Direction::Reverse => (st.reverse.as_ref(), self.groups[r.flow][1]),
        };
        let Some(stack) = stack else {
            return Ok(());
        };
        let path = &self.scenario.network.flows[r.flow].path;
        let (Some(&first), Some(&last)) = (path.first(), path.last()) else {
            return Ok(());
        };
        let ids = Ids {
            seq,
            sctp_part: Some(part),
            ..ids(r.flow, first, last, r.direction)
        };
        if self.layouts.len() >= MAX_TEMPLATES {
            self.layouts.clear();
        }
        let pattern = &mut self.pattern;
        let Some((len, _, pdu)) = self
            .layouts
            .entry((group, r.size))
            .or_insert_with(|| layout(stack, r.size, &ids, pattern))
            .as_ref()
        else {
            self.done.no_payload = self.done.no_payload.saturating_add(1);
            return Ok(());
        };
        let payload = pdu.as_deref().unwrap_or(&self.pattern[..*len]);
        let mut out = std::mem::take(&mut self.scratch);
        let emitted = stack
            .emit(0, payload, &ids, &mut out)
            .map_err(std::io::Error::other)?;
        emitted.finish(&mut out, |_, _| Ok::<(), ()>(())).ok();
        let ethernet = st.forward.as_ref().is_some_and(Stack::has_ethernet);
        let frame = DataFrame {
            flow: r.flow,
            direction: r.direction,
            stack,
            ids: &ids,
            emitted: &emitted,
        };
        let sealed = if emitted.sealing.is_empty() {
            Ok(())
        } else {
            self.sink.seal_frame(&frame, &mut out)
        };
        let written =
            sealed.and_then(|()| self.sink.frame(r.link_direction, ethernet, r.time_ps, &out));
        self.scratch = out;
        written?;
        self.done.frames = self.done.frames.saturating_add(1);
        Ok(())
    }

    /// The frame of `flow`'s packets of `size` bytes going `dir`, holding counter `seq`.
    fn template(&mut self, flow: usize, dir: Direction, size: u32, seq: u64) -> Option<Template> {
        let st = self.scenario.stacks.get(flow)?;
        let (stack, group) = match dir {
            Direction::Forward => (st.forward.as_ref(), self.groups[flow][0]),
            Direction::Reverse => (st.reverse.as_ref(), self.groups[flow][1]),
        };
        let stack = stack?;
        let path = &self.scenario.network.flows[flow].path;
        let ids = Ids {
            seq,
            ..ids(flow, path[0], *path.last()?, dir)
        };
        if self.layouts.len() >= MAX_TEMPLATES {
            self.layouts.clear();
        }
        let pattern = &mut self.pattern;
        let (len, layout, pdu) = self
            .layouts
            .entry((group, size))
            .or_insert_with(|| layout(stack, size, &ids, pattern))
            .as_ref()?;
        let payload = pdu.as_deref().unwrap_or(&self.pattern[..*len]);
        Template::with_layout(stack, payload, &ids, layout).ok()
    }
}

impl<S: FrameSink> Observer for Capture<'_, S> {
    const WIRE: bool = true;

    fn on_created(&mut self, packet: u32, flow: usize, direction: Direction) {
        if !self.chosen.get(flow).copied().unwrap_or(false) {
            return;
        }
        let d = match direction {
            Direction::Forward => 0,
            Direction::Reverse => 1,
        };
        let seq = &mut self.seq[flow][d];
        *seq = seq.saturating_add(1);
        let seq = *seq;
        let slot = packet as usize;
        if self.slot_seq.len() <= slot {
            self.slot_seq.resize(slot.saturating_add(1), 0);
            self.slot_part.resize(slot.saturating_add(1), None);
        }
        self.slot_seq[slot] = seq;
        // A message's frames: the fragment each is; a whole message numbered as its packet
        // is written as before, from its template.
        let mut part = None;
        if d == 0
            && let Some((_, next)) = self.messages.get_mut(flow)
            && let Some(p) = next.as_mut()
        {
            let this = *p;
            p.index = p.index.saturating_add(1);
            if p.index >= p.count {
                *next = None;
            }
            if this.count > 1 || this.number != seq {
                part = Some(this);
            }
        }
        self.slot_part[slot] = part;
    }

    fn on_message(&mut self, flow: usize, frames: u32) {
        if !self.chosen.get(flow).copied().unwrap_or(false) {
            return;
        }
        if let Some((number, next)) = self.messages.get_mut(flow) {
            *number = number.saturating_add(1);
            *next = Some(MessagePart {
                number: *number,
                index: 0,
                count: frames,
            });
        }
    }

    fn on_wire(&mut self, r: &WireRecord) {
        if r.point != self.point
            || self.error.is_some()
            || !self.chosen.get(r.flow).copied().unwrap_or(false)
        {
            return;
        }
        if self.done.frames >= self.limit {
            self.done.cut = self.done.cut.saturating_add(1);
            return;
        }
        if let Err(e) = self.write(r) {
            self.error = Some(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::payload_for;
    use protocols::Stack;

    #[test]
    fn payload_for_inverts_wire_len() {
        let st: Stack = "eth/ipv4/esp-tunnel(aes128-cbc,hmac-sha1-96)/ipv4/udp"
            .parse()
            .unwrap();
        for p in [0usize, 1, 15, 16, 100, 1400] {
            let w = st.wire_len(p).unwrap() as u32;
            let q = payload_for(&st, w).unwrap();
            assert_eq!(st.wire_len(q).unwrap() as u32, w);
        }
        // CBC pads to 16 B: a size between two steps has no payload.
        let w = st.wire_len(100).unwrap() as u32;
        assert_eq!(payload_for(&st, w + 1), None);
    }
}
