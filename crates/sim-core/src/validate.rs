//! [`Network::validate`]: the engine's own check of its input.

use crate::error::NetworkError;
use crate::network::{FlowConfig, Network, Service, SizeDist, Source};

/// The most nodes, links, flows and path nodes the engine indexes (ids are `u32`, path positions
/// `u16`).
const MAX_PATH: usize = u16::MAX as usize;
const MAX_ITEMS: usize = u32::MAX as usize / 2;

impl Network {
    /// Checks every invariant the engine relies on, so that a run cannot panic, loop forever or
    /// index out of range: node indices in range, non-empty paths whose consecutive nodes share
    /// a link, counts the engine can index, finite non-negative service parameters, non-empty
    /// and consistent distributions, loss probabilities in `[0, 1)`, positive Poisson rates,
    /// sorted traces and protected-length maps, non-empty handshakes, and a stop condition that
    /// ends the run. Link rates are positive by construction ([`crate::time::DataRate`]).
    ///
    /// The engine calls this itself (every `run_*` function); the scenario layer checks its
    /// files first with messages naming the file and key, and calls this as a backstop.
    pub fn validate(&self) -> Result<(), NetworkError> {
        let n = self.nodes.len();
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
        }
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
            if !(0.0..1.0).contains(&l.loss) {
                return Err(out_of_range(
                    item(),
                    "loss",
                    l.loss,
                    "a probability from 0 up to, not including, 1",
                ));
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            let item = || format!("flow[{i}] (\"{}\")", f.name);
            self.path(&item, f)?;
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

    fn path(&self, item: &dyn Fn() -> String, f: &FlowConfig) -> Result<(), NetworkError> {
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
        for w in f.path.windows(2) {
            let (from, to) = (w[0], w[1]);
            let linked = self
                .links
                .iter()
                .any(|l| (l.a, l.b) == (from, to) || (l.a, l.b) == (to, from));
            if !linked {
                return Err(NetworkError::NotLinked {
                    item: item(),
                    from,
                    to,
                });
            }
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
    const FINITE: &str = "a finite number of picoseconds, at least 0";
    match s {
        Service::None | Service::Deterministic { .. } => Ok(()),
        Service::Exponential { mean_ps } if !(mean_ps.is_finite() && *mean_ps >= 0.0) => {
            Err(out_of_range(item(), field, mean_ps, FINITE))
        }
        Service::Exponential { .. } => Ok(()),
        Service::Empirical {
            values_ps,
            cumulative,
        } => weights(item, "service.cumulative", cumulative, values_ps.len()),
        Service::Linear {
            fixed_ps,
            per_byte_ps,
        } => {
            if !fixed_ps.is_finite() || !per_byte_ps.is_finite() {
                let v = format!("{fixed_ps} + {per_byte_ps}/byte");
                return Err(out_of_range(item(), field, v, "finite coefficients"));
            }
            Ok(())
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
            }
        }
        Source::Periodic { frames, .. } if frames.is_empty() || frames.len() > MAX_ITEMS => {
            Err(bad_list(
                item(),
                "source.frames",
                "a message needs at least one frame",
            ))
        }
        Source::Pattern { sizes, .. } if sizes.is_empty() => Err(bad_list(
            item(),
            "source.sizes",
            "a pattern needs at least one size",
        )),
        Source::Trace { records } if !records.windows(2).all(|w| w[0].at <= w[1].at) => Err(
            bad_list(item(), "source.records", "times must not decrease"),
        ),
        Source::Bulk {
            segment, window, ..
        } if *segment == 0 || *window == 0 => Err(out_of_range(
            item(),
            "source.segment/window",
            format!("{segment} B / {window} frames"),
            "a segment of at least 1 byte and a window of at least 1 frame",
        )),
        Source::Handshake {
            exchanges,
            retransmit,
            ..
        } => {
            if exchanges.is_empty() {
                return Err(bad_list(
                    item(),
                    "source.exchanges",
                    "a handshake needs at least one exchange",
                ));
            }
            let too_many = exchanges
                .iter()
                .any(|e| e.request_datagrams.max(e.response_datagrams) > i32::MAX as u32);
            if too_many {
                return Err(out_of_range(
                    item(),
                    "source.exchanges.datagrams",
                    "more than 2^31 - 1",
                    "at most 2^31 - 1 datagrams per message",
                ));
            }
            match retransmit {
                Some(r) if !(r.base.is_finite() && r.base > 0.0) => Err(out_of_range(
                    item(),
                    "source.retransmit.base",
                    r.base,
                    "a finite backoff base above 0",
                )),
                _ => Ok(()),
            }
        }
        Source::Periodic { .. }
        | Source::Pattern { .. }
        | Source::Trace { .. }
        | Source::Bulk { .. }
        | Source::Ping { .. } => Ok(()),
    }
}
