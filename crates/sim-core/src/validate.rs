//! [`Network::validate`]: the engine's own check of its input.

use crate::error::NetworkError;
use crate::network::{
    FlowConfig, LinkIndex, MAX_STEP_PS, MAX_TIME_PS, MAX_WINDOW_FRAMES, Network, Service, SizeDist,
    Source, table_eval,
};

/// The most nodes, links, flows and path nodes the engine indexes (ids are `u32`, path positions
/// `u16`).
const MAX_PATH: usize = u16::MAX as usize;
const MAX_ITEMS: usize = u32::MAX as usize / 2;

impl Source {
    /// The frames this source may have in flight at once: a bulk source's window, capped at
    /// its transfer's frames; 0 for every other source (they create packets one at a time)
    /// \[frames\]. The sum over a network's flows is bounded by [`MAX_WINDOW_FRAMES`].
    pub fn window_frames(&self) -> u64 {
        match self {
            Source::Bulk {
                total_bytes,
                segment,
                window,
                ..
            } => total_bytes
                .div_ceil(u64::from(*segment).max(1))
                .min(u64::from(*window)),
            _ => 0,
        }
    }

    /// When a source with fixed gaps and a fixed number of firings fires last, if nothing
    /// stops it first: `offset + (count - 1) x gap` for a periodic, pattern or ping source with
    /// a count, `(tunnels - 1) x spacing` for handshakes (of the first `clients` in a closed
    /// loop, whose later tunnels start as others end) \[ps\] (exact, in `u128`); `None` for a
    /// source with random gaps, no count, or a count of 0. A time past [`MAX_TIME_PS`] means the
    /// run would stop with [`NetworkError::ClockOverflow`] unless `[stop]` ends it sooner.
    pub fn last_firing_ps(&self) -> Option<u128> {
        let (offset, gap, firings) = match self {
            Source::Periodic {
                period,
                offset,
                count,
                ..
            } => (offset.as_ps(), period.as_ps(), (*count)?),
            Source::Pattern {
                interval, count, ..
            }
            | Source::Ping {
                interval, count, ..
            } => (0, interval.as_ps(), (*count)?),
            Source::Handshake {
                tunnels,
                spacing,
                clients,
                ..
            } => (
                0,
                spacing.as_ps(),
                u64::from(match *clients {
                    0 => *tunnels,
                    c => c.min(*tunnels),
                }),
            ),
            _ => return None,
        };
        let last = u128::from(firings.checked_sub(1)?);
        // u64 x u64 fits a u128, and so does the sum with a u64.
        #[allow(clippy::arithmetic_side_effects)]
        Some(u128::from(offset) + last * u128::from(gap))
    }
}

impl Network {
    /// The hosts: at least one core each, node indices in range, and no node on two hosts
    /// (O(nodes + listed nodes)).
    fn validate_hosts(&self) -> Result<(), NetworkError> {
        let n = self.nodes.len();
        count("hosts", self.hosts.len(), MAX_ITEMS)?;
        // Per node: 1 + the index of its host (0: on none yet), and whether it has a thread
        // limit.
        let mut on = vec![0usize; if self.hosts.is_empty() { 0 } else { n }];
        let mut limited = vec![false; on.len()];
        for (h, host) in self.hosts.iter().enumerate() {
            let item = || format!("host[{h}] (\"{}\")", host.name);
            if host.cores == 0 {
                return Err(out_of_range(item(), "cores", 0, "at least 1 core"));
            }
            for &node in &host.nodes {
                let Some(seen) = on.get_mut(node) else {
                    return Err(NetworkError::NodeOutOfRange {
                        item: item(),
                        index: node,
                        nodes: n,
                    });
                };
                if *seen != 0 {
                    return Err(NetworkError::BadList {
                        item: item(),
                        field: "nodes",
                        problem: "a node is on another host (or listed twice): each node is on at most one host",
                    });
                }
                // `h` < hosts <= MAX_ITEMS: no overflow.
                *seen = h.saturating_add(1);
            }
            for &(node, limit) in &host.threads {
                if on.get(node) != Some(&h.saturating_add(1)) {
                    return Err(NetworkError::BadList {
                        item: item(),
                        field: "threads",
                        problem: "a thread limit names a node that is not on this host",
                    });
                }
                if std::mem::replace(&mut limited[node], true) {
                    return Err(NetworkError::BadList {
                        item: item(),
                        field: "threads",
                        problem: "a node has two thread limits: give each node on the host at most one",
                    });
                }
                if limit == 0 {
                    return Err(out_of_range(item(), "threads", 0, "at least 1 thread"));
                }
            }
        }
        Ok(())
    }

    /// Nodes of several machines ([`NodeConfig::machines`](crate::network::NodeConfig::machines)):
    /// each is on no shared host, has no lanes, and only starts handshake flows (no flow ends at
    /// or passes through it), whose tunnels number its machines, one each.
    fn validate_fleets(&self) -> Result<(), NetworkError> {
        let fleet: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i].machines != 1)
            .collect();
        if fleet.is_empty() {
            return Ok(());
        }
        let mut tunnels = vec![0u64; self.nodes.len()];
        for (i, f) in self.flows.iter().enumerate() {
            let item = || format!("flow[{i}] (\"{}\")", f.name);
            for (h, &n) in f.path.iter().enumerate() {
                if self.nodes.get(n).is_none_or(|node| node.machines == 1) {
                    continue;
                }
                let Source::Handshake { tunnels: t, .. } = f.source else {
                    return Err(NetworkError::BadList {
                        item: item(),
                        field: "path",
                        problem: "a node of several machines carries only the handshake flows it starts, one tunnel per machine",
                    });
                };
                if h != 0 {
                    return Err(NetworkError::BadList {
                        item: item(),
                        field: "path",
                        problem: "a node of several machines is where its flows start: no flow ends at or passes through it",
                    });
                }
                tunnels[n] = tunnels[n].saturating_add(u64::from(t));
            }
        }
        for i in fleet {
            let node = &self.nodes[i];
            let item = || format!("node[{i}] (\"{}\")", node.name);
            if node.machines == 0 {
                return Err(out_of_range(item(), "machines", 0, "at least 1 machine"));
            }
            if node.lanes {
                return Err(NetworkError::BadList {
                    item: item(),
                    field: "lanes",
                    problem: "a node of several machines has no lanes",
                });
            }
            if self.hosts.iter().any(|h| h.nodes.contains(&i)) {
                return Err(NetworkError::BadList {
                    item: item(),
                    field: "machines",
                    problem: "a node of several machines is on no shared host: each machine is a host of its own",
                });
            }
            if tunnels[i] != u64::from(node.machines) {
                return Err(out_of_range(
                    item(),
                    "machines",
                    node.machines,
                    "as many machines as the tunnels of the handshake flows the node starts (one each)",
                ));
            }
        }
        Ok(())
    }

    /// Checks every invariant the engine relies on, so that a run cannot panic, loop forever or
    /// index out of range: node indices in range, non-empty paths whose consecutive nodes share
    /// a link, counts the engine can index, finite non-negative service parameters, non-empty
    /// and consistent distributions, loss probabilities in `[0, 1)`, positive Poisson rates,
    /// sorted traces and protected-length maps, non-empty handshakes, and a stop condition that
    /// ends the run. Link rates are positive by construction ([`crate::time::DataRate`]).
    ///
    /// The engine calls this itself (every way of running a [`crate::engine::Simulation`]); the
    /// scenario layer checks its files first with messages naming the file and key, and calls
    /// this as a backstop.
    pub fn validate(&self) -> Result<(), NetworkError> {
        let n = self.nodes.len();
        let whole = || "network".to_owned();
        time(&whole, "warmup", self.warmup.as_ps())?;
        if let Some(d) = self.stop.duration {
            time(&whole, "stop.duration", d.as_ps())?;
        }
        count("nodes", n, MAX_ITEMS)?;
        count("links", self.links.len(), MAX_ITEMS)?;
        count("flows", self.flows.len(), MAX_ITEMS)?;
        for (i, node) in self.nodes.iter().enumerate() {
            let item = || format!("node[{i}] (\"{}\")", node.name);
            service(&item, "service", &node.service)?;
            let others = [
                ("receive", &node.receive),
                ("transit", &node.transit),
                ("io", &node.io),
            ];
            for (field, s) in others {
                if let Some(s) = s {
                    service(&item, field, s)?;
                }
            }
            step(&item, "latency", node.latency.as_ps())?;
        }
        self.validate_hosts()?;
        self.validate_fleets()?;
        for (i, l) in self.links.iter().enumerate() {
            let item = || format!("link[{i}] (\"{}\")", l.name);
            for end in [l.a, l.b] {
                if end >= n {
                    return Err(NetworkError::NodeOutOfRange {
                        item: item(),
                        index: end,
                        nodes: n,
                    });
                }
            }
            step(&item, "propagation", l.propagation.as_ps())?;
            if !(0.0..1.0).contains(&l.loss) {
                return Err(out_of_range(
                    item(),
                    "loss",
                    l.loss,
                    "a probability from 0 up to, not including, 1",
                ));
            }
        }
        let in_flight = self
            .flows
            .iter()
            .fold(0u64, |n, f| n.saturating_add(f.source.window_frames()));
        if in_flight > MAX_WINDOW_FRAMES {
            return Err(NetworkError::TooMany {
                what: "bulk frames in flight at once (the bulk flows' windows)".into(),
                count: usize::try_from(in_flight).unwrap_or(usize::MAX),
                max: MAX_WINDOW_FRAMES as usize,
            });
        }
        let links = self.link_index();
        for (i, f) in self.flows.iter().enumerate() {
            let item = || format!("flow[{i}] (\"{}\")", f.name);
            self.path(&links, &item, f)?;
            source(&item, &f.source)?;
            if !f.protected_len.windows(2).all(|w| w[0].0 < w[1].0) {
                return Err(bad_list(
                    item(),
                    "protected_len",
                    "sizes must be strictly increasing",
                ));
            }
            let endless = self.stop.packets.is_none() && self.stop.duration.is_none();
            if endless && !f.source.is_finite() {
                return Err(NetworkError::Endless { item: item() });
            }
        }
        Ok(())
    }

    fn path(
        &self,
        links: &LinkIndex,
        item: &dyn Fn() -> String,
        f: &FlowConfig,
    ) -> Result<(), NetworkError> {
        let n = self.nodes.len();
        if f.path.is_empty() {
            return Err(NetworkError::EmptyPath { item: item() });
        }
        count(&format!("{} path", item()), f.path.len(), MAX_PATH)?;
        if let Some(&bad) = f.path.iter().find(|&&p| p >= n) {
            return Err(NetworkError::NodeOutOfRange {
                item: item(),
                index: bad,
                nodes: n,
            });
        }
        let largest = f.source.largest_packet();
        for w in f.path.windows(2) {
            let (from, to) = (w[0], w[1]);
            // The engine takes the first link between the two nodes.
            let found = links.between(from, to).map(|i| (i, &self.links[i]));
            let Some((i, l)) = found else {
                return Err(NetworkError::NotLinked {
                    item: item(),
                    from,
                    to,
                });
            };
            // The largest packet the link transmits for this flow (a larger one is dropped at
            // the MTU check) must be clockable in one step.
            let sent = l
                .mtu
                .map_or(largest, |m| largest.min(m.saturating_add(f.mtu_exempt)));
            let link = || format!("link[{i}] (\"{}\")", l.name);
            let line = l.framing.line(sent, 1, f.ethernet_header).total();
            step(&link, "rate", l.rate.tx_time(line).as_ps())?;
        }
        Ok(())
    }
}

fn count(what: &str, count: usize, max: usize) -> Result<(), NetworkError> {
    if count > max {
        return Err(NetworkError::TooMany {
            what: what.to_owned(),
            count,
            max,
        });
    }
    Ok(())
}

/// A step of `ps` picoseconds must be at most [`MAX_STEP_PS`].
fn step(item: &dyn Fn() -> String, field: &'static str, ps: u64) -> Result<(), NetworkError> {
    at_most(
        item,
        field,
        ps,
        MAX_STEP_PS,
        "at most 2^60 ps (13.3 days) for one step",
    )
}

/// A step given as a float (a mean or a size-dependent cost; the engine clamps negative values
/// to 0) \[ps\]: finite and at most [`MAX_STEP_PS`].
fn step_f64(item: &dyn Fn() -> String, field: &'static str, ps: f64) -> Result<(), NetworkError> {
    if !ps.is_finite() {
        return Err(out_of_range(item(), field, ps, "a finite number of ps"));
    }
    // `as` saturates: anything above u64::MAX is above the bound too.
    step(item, field, ps.max(0.0) as u64)
}

/// An absolute time must be at most [`MAX_TIME_PS`].
fn time(item: &dyn Fn() -> String, field: &'static str, ps: u64) -> Result<(), NetworkError> {
    at_most(item, field, ps, MAX_TIME_PS, "at most 2^62 ps (53 days)")
}

fn at_most(
    item: &dyn Fn() -> String,
    field: &'static str,
    ps: u64,
    max_ps: u64,
    allowed: &'static str,
) -> Result<(), NetworkError> {
    if ps > max_ps {
        return Err(out_of_range(item(), field, format!("{ps} ps"), allowed));
    }
    Ok(())
}

fn out_of_range(
    item: String,
    field: &'static str,
    value: impl std::fmt::Display,
    allowed: &'static str,
) -> NetworkError {
    NetworkError::OutOfRange {
        item,
        field,
        value: value.to_string(),
        allowed,
    }
}

fn bad_list(item: String, field: &'static str, problem: &'static str) -> NetworkError {
    NetworkError::BadList {
        item,
        field,
        problem,
    }
}

/// Cumulative weights: non-empty, `len` entries, finite, not decreasing, from a start at 0.
fn weights(
    item: &dyn Fn() -> String,
    field: &'static str,
    cumulative: &[f64],
    len: usize,
) -> Result<(), NetworkError> {
    if cumulative.is_empty() || cumulative.len() != len {
        return Err(bad_list(
            item(),
            field,
            "needs one cumulative weight per value, and at least one value",
        ));
    }
    let ordered = cumulative
        .iter()
        .try_fold(0.0f64, |prev, &c| (c.is_finite() && c >= prev).then_some(c));
    if ordered.is_none() {
        return Err(bad_list(
            item(),
            field,
            "cumulative weights must be finite, non-negative and not decreasing",
        ));
    }
    Ok(())
}

fn service(
    item: &dyn Fn() -> String,
    field: &'static str,
    s: &Service,
) -> Result<(), NetworkError> {
    match s {
        Service::None => Ok(()),
        Service::Deterministic { time_ps } => step(item, field, *time_ps),
        // A draw above 64 means has probability e^-64.
        Service::Exponential { mean_ps } if mean_ps.is_nan() || *mean_ps < 0.0 => Err(
            out_of_range(item(), field, mean_ps, "a mean of at least 0 ps"),
        ),
        Service::Exponential { mean_ps } => step_f64(item, field, mean_ps * 64.0),
        Service::Empirical {
            values_ps,
            cumulative,
        } => {
            weights(item, "service.cumulative", cumulative, values_ps.len())?;
            step(item, field, values_ps.iter().copied().max().unwrap_or(0))
        }
        Service::Linear {
            fixed_ps,
            per_byte_ps,
        } => {
            // Linear in the size: the extremes are at 0 and u32::MAX bytes.
            step_f64(item, field, *fixed_ps)?;
            step_f64(item, field, fixed_ps + per_byte_ps * u32::MAX as f64)
        }
        Service::Table { points } => {
            let ok = points.len() >= 2
                && points.windows(2).all(|w| w[0].0 < w[1].0)
                && points.iter().all(|p| p.1.is_finite());
            if !ok {
                return Err(bad_list(
                    item(),
                    "service.points",
                    "at least two points, sizes strictly increasing, finite times",
                ));
            }
            // Piecewise linear: the largest value is at a point or at an end.
            let ends = [table_eval(points, 0), table_eval(points, u32::MAX)];
            for y in points.iter().map(|p| p.1).chain(ends) {
                step_f64(item, field, y)?;
            }
            Ok(())
        }
    }
}

fn source(item: &dyn Fn() -> String, s: &Source) -> Result<(), NetworkError> {
    match s {
        Source::Poisson {
            rate_per_s, size, ..
        } => {
            if !(rate_per_s.is_finite() && *rate_per_s > 0.0) {
                return Err(out_of_range(
                    item(),
                    "source.rate_per_s",
                    rate_per_s,
                    "a finite rate above 0 packets/s",
                ));
            }
            match size {
                SizeDist::Fixed(_) => Ok(()),
                SizeDist::Uniform { min, max } if min > max => Err(out_of_range(
                    item(),
                    "source.size",
                    format!("{min}..={max}"),
                    "min at most max",
                )),
                SizeDist::Uniform { .. } => Ok(()),
                SizeDist::Empirical { sizes, cumulative } => {
                    weights(item, "source.size.cumulative", cumulative, sizes.len())
                }
                SizeDist::Messages { frames, cumulative } => {
                    if frames.iter().any(|m| m.is_empty() || m.len() > MAX_ITEMS) {
                        return Err(bad_list(
                            item(),
                            "source.size.frames",
                            "a message needs at least one frame",
                        ));
                    }
                    weights(item, "source.size.cumulative", cumulative, frames.len())
                }
            }
        }
        Source::Periodic {
            period,
            offset,
            frames,
            ..
        } => {
            step(item, "source.period", period.as_ps())?;
            time(item, "source.offset", offset.as_ps())?;
            if frames.is_empty() || frames.len() > MAX_ITEMS {
                return Err(bad_list(
                    item(),
                    "source.frames",
                    "a message needs at least one frame",
                ));
            }
            Ok(())
        }
        Source::Pattern {
            interval, sizes, ..
        } => {
            step(item, "source.interval", interval.as_ps())?;
            if sizes.is_empty() {
                return Err(bad_list(
                    item(),
                    "source.sizes",
                    "a pattern needs at least one size",
                ));
            }
            Ok(())
        }
        Source::Ping { interval, .. } => step(item, "source.interval", interval.as_ps()),
        Source::Trace { records } => {
            if !records.windows(2).all(|w| w[0].at <= w[1].at) {
                return Err(bad_list(
                    item(),
                    "source.records",
                    "times must not decrease",
                ));
            }
            let last = records.last().map_or(0, |r| r.at.as_ps());
            time(item, "source.records.at", last)
        }
        Source::Bulk {
            segment, window, ..
        } => {
            if *segment == 0 || *window == 0 {
                return Err(out_of_range(
                    item(),
                    "source.segment/window",
                    format!("{segment} B / {window} frames"),
                    "a segment of at least 1 byte and a window of at least 1 frame",
                ));
            }
            Ok(())
        }
        Source::Handshake {
            exchanges,
            spacing,
            retransmit,
            ..
        } => {
            step(item, "source.spacing", spacing.as_ps())?;
            if exchanges.is_empty() {
                return Err(bad_list(
                    item(),
                    "source.exchanges",
                    "a handshake needs at least one exchange",
                ));
            }
            let last = exchanges.len().saturating_sub(1);
            for (i, e) in exchanges.iter().enumerate() {
                if e.one_way
                    && (i != last
                        || e.response != 0
                        || e.response_datagrams != 0
                        || e.initiator_after.as_ps() != 0)
                {
                    return Err(bad_list(
                        item(),
                        "source.exchanges.one_way",
                        "only the last exchange may be one way, with no response (0 bytes, 0 datagrams) and no initiator work after it",
                    ));
                }
                for work in [e.initiator_before, e.responder, e.initiator_after] {
                    step(item, "source.exchanges.work", work.as_ps())?;
                }
                if e.request_datagrams.max(e.response_datagrams) > i32::MAX as u32 {
                    return Err(out_of_range(
                        item(),
                        "source.exchanges.datagrams",
                        e.request_datagrams.max(e.response_datagrams),
                        "at most 2^31 - 1 datagrams per message",
                    ));
                }
            }
            match retransmit {
                Some(r) if !(r.base.is_finite() && r.base > 0.0) => Err(out_of_range(
                    item(),
                    "source.retransmit.base",
                    r.base,
                    "a finite backoff base above 0",
                )),
                Some(r) => step(item, "source.retransmit.timeout", r.timeout.as_ps()),
                None => Ok(()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{
        HandshakeExchange, LineFraming, LinkConfig, NodeConfig, Retransmit, Stop,
    };
    use crate::time::{DataRate, SimDuration};

    /// Two nodes, one link, one Poisson flow across it, a packet limit: valid.
    fn net() -> Network {
        let node = |name: &str| NodeConfig::new(name, Service::Exponential { mean_ps: 1e6 });
        Network {
            nodes: vec![node("a"), node("b")],
            links: vec![LinkConfig {
                name: "ab".into(),
                a: 0,
                b: 1,
                rate: DataRate::from_bps(10_000_000_000).unwrap(),
                propagation: SimDuration::from_us(1),
                mtu: None,
                queue_capacity: None,
                loss: 0.0,
                framing: LineFraming::Bare,
            }],
            flows: vec![FlowConfig {
                name: "f".into(),
                path: vec![0, 1],
                mtu_exempt: 0,
                ethernet_header: false,
                protected_len: vec![],
                source: Source::Poisson {
                    rate_per_s: 1e5,
                    size: SizeDist::Fixed(100),
                    count: None,
                },
            }],
            stop: Stop {
                packets: Some(100),
                duration: None,
            },
            warmup: SimDuration::ZERO,
            hosts: Vec::new(),
        }
    }

    /// The error `change` provokes, as text (the variant and its fields show in it).
    fn refused(change: impl FnOnce(&mut Network)) -> String {
        let mut n = net();
        change(&mut n);
        match n.validate() {
            Err(e) => e.to_string(),
            Ok(()) => panic!("accepted"),
        }
    }

    #[test]
    fn a_valid_network_passes() {
        assert_eq!(net().validate(), Ok(()));
    }

    #[test]
    fn indices_paths_and_links() {
        let e = refused(|n| n.links[0].b = 2);
        assert_eq!(
            e,
            "link[0] (\"ab\"): node index 2 is out of range; the network has 2 node(s)"
        );
        let e = refused(|n| n.flows[0].path = vec![0, 5]);
        assert!(e.contains("node index 5 is out of range"), "{e}");
        let e = refused(|n| n.flows[0].path.clear());
        assert_eq!(
            e,
            "flow[0] (\"f\"): the path is empty; at least one node is needed"
        );
        let e = refused(|n| n.links.clear());
        assert!(e.contains("no link between path nodes 0 and 1"), "{e}");
        // A link is used both ways.
        let mut n = net();
        n.flows[0].path = vec![1, 0];
        assert_eq!(n.validate(), Ok(()));
    }

    #[test]
    fn numbers_out_of_range() {
        let e = refused(|n| n.links[0].loss = 1.0);
        assert!(e.contains("loss is 1"), "{e}");
        let e = refused(|n| n.links[0].loss = f64::NAN);
        assert!(e.contains("loss is NaN"), "{e}");
        let e = refused(|n| n.nodes[1].service = Service::Exponential { mean_ps: -1.0 });
        assert!(e.starts_with("node[1] (\"b\"): service is -1"), "{e}");
        let e = refused(|n| n.nodes[0].io = Some(Service::Deterministic { time_ps: u64::MAX }));
        assert!(e.contains("io is"), "{e}");
        let e = refused(|n| n.nodes[0].latency = SimDuration(MAX_STEP_PS + 1));
        assert!(e.contains("latency"), "{e}");
        // 100 B at 1 bit/s is 800 s: fine; 1 MB frames at 1 bit/s are 92 days: refused, unless
        // the MTU drops them before the transmitter.
        let slow = |n: &mut Network| n.links[0].rate = DataRate::from_bps(1).unwrap();
        let mut n = net();
        slow(&mut n);
        assert_eq!(n.validate(), Ok(()));
        let big = |n: &mut Network| {
            n.flows[0].source = Source::Ping {
                interval: SimDuration::from_us(1),
                size: 100,
                reply_size: 1_000_000,
                count: None,
            }
        };
        let e = refused(|n| {
            slow(n);
            big(n);
        });
        assert!(e.starts_with("link[0] (\"ab\"): rate is"), "{e}");
        slow(&mut n);
        big(&mut n);
        n.links[0].mtu = Some(1500);
        assert_eq!(n.validate(), Ok(()));
        let e = refused(|n| {
            n.flows[0].source = Source::Poisson {
                rate_per_s: 0.0,
                size: SizeDist::Fixed(1),
                count: None,
            }
        });
        assert!(e.contains("rate_per_s is 0"), "{e}");
        let e = refused(|n| n.warmup = SimDuration(MAX_TIME_PS + 1));
        assert!(e.starts_with("network: warmup"), "{e}");
    }

    #[test]
    fn lists_the_engine_draws_from() {
        let e = refused(|n| {
            n.nodes[0].service = Service::Empirical {
                values_ps: vec![1, 2],
                cumulative: vec![1.0],
            }
        });
        assert!(e.contains("service.cumulative"), "{e}");
        let e = refused(|n| {
            n.nodes[0].transit = Some(Service::Table {
                points: vec![(10, 1.0)],
            })
        });
        assert!(e.contains("service.points"), "{e}");
        let e = refused(|n| {
            n.flows[0].source = Source::Pattern {
                interval: SimDuration::from_us(1),
                sizes: vec![],
                reply_every: 0,
                reply_size: 0,
                count: None,
            }
        });
        assert!(e.contains("source.sizes"), "{e}");
        let e = refused(|n| n.flows[0].protected_len = vec![(100, 120), (100, 130)]);
        assert!(e.contains("protected_len"), "{e}");
        let e = refused(|n| {
            n.flows[0].source = Source::Handshake {
                exchanges: vec![].into(),
                tunnels: 1,
                spacing: SimDuration::ZERO,
                retransmit: None,
                clients: 0,
                established: false,
                sessions: 0,
            }
        });
        assert!(e.contains("source.exchanges"), "{e}");
        let exchange = HandshakeExchange {
            name: "x".into(),
            request: 100,
            response: 100,
            request_datagrams: 1,
            response_datagrams: 1,
            initiator_before: SimDuration::ZERO,
            responder: SimDuration::ZERO,
            initiator_after: SimDuration::ZERO,
            initiator_per_held: SimDuration::ZERO,
            responder_per_held: SimDuration::ZERO,
            one_way: false,
            priority: crate::network::JobPriority::Medium,
        };
        let e = refused(|n| {
            let one_way = HandshakeExchange {
                one_way: true,
                ..exchange.clone()
            };
            n.flows[0].source = Source::Handshake {
                exchanges: vec![one_way].into(),
                tunnels: 1,
                spacing: SimDuration::ZERO,
                retransmit: None,
                clients: 1,
                established: false,
                sessions: 0,
            }
        });
        assert!(e.contains("one_way"), "{e}");
        let e = refused(|n| {
            n.flows[0].source = Source::Handshake {
                exchanges: vec![exchange].into(),
                tunnels: 1,
                spacing: SimDuration::ZERO,
                retransmit: Some(Retransmit {
                    timeout: SimDuration::from_us(1),
                    base: f64::INFINITY,
                    tries: 1,
                }),
                clients: 0,
                established: false,
                sessions: 0,
            }
        });
        assert!(e.contains("retransmit.base"), "{e}");
    }

    #[test]
    fn a_run_must_end() {
        let e = refused(|n| n.stop = Stop::default());
        assert!(e.contains("never ends"), "{e}");
        let mut n = net();
        n.stop = Stop::default();
        n.flows[0].source = Source::Poisson {
            rate_per_s: 1e5,
            size: SizeDist::Fixed(100),
            count: Some(10),
        };
        assert_eq!(n.validate(), Ok(()));
    }

    /// The bulk flows' windows (each capped at its transfer's frames) sum to at most
    /// [`MAX_WINDOW_FRAMES`]: every window is sent at time zero (issue 24, class 2).
    #[test]
    fn bulk_windows_are_bounded_in_total() {
        let bulk = |window: u32, total_bytes: u64| Source::Bulk {
            total_bytes,
            segment: 1000,
            frame: 1064,
            last_frame: 1064,
            window,
            ack_size: 64,
            ack_every: 1,
        };
        let flows = |n: usize, window: u32, total: u64| {
            move |net: &mut Network| {
                let f = net.flows[0].clone();
                net.flows = (0..n)
                    .map(|i| FlowConfig {
                        name: format!("f{i}"),
                        source: bulk(window, total),
                        ..f.clone()
                    })
                    .collect();
            }
        };
        let e = refused(flows(16, 1 << 20, 1 << 40));
        assert!(
            e.contains("bulk frames in flight") && e.contains("16777216") && e.contains("1048576"),
            "{e}"
        );
        // Exactly the bound passes; a large window over a short transfer counts its frames.
        let mut n = net();
        flows(16, 1 << 16, 1 << 40)(&mut n);
        assert_eq!(n.validate(), Ok(()));
        let mut n = net();
        flows(16, 1 << 20, 1_000_000)(&mut n);
        assert_eq!(n.validate(), Ok(()));
    }
}
