//! The run's answers beyond its rows: its busiest stage ([`Bottleneck`]), a key-exchange
//! storm's tunnels back ([`TunnelsBack`]) and a fronthaul's T12max verdict ([`T12maxReport`]).

use serde::Serialize;
use sim_core::DistSummary;

#[cfg(doc)]
use super::HandshakeReport;
use super::{FlowReport, LinkReport, NodeReport, Report};

/// What kind of engine stage a [`Bottleneck`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StageKind {
    /// A node's CPU stage (its cores; a data path's threads where it runs in threads of its
    /// own).
    Cpu,
    /// The cores of a host that several nodes share (`[[host]]`): their CPU stages together.
    Host,
    /// A node's one-server I/O stage (the kernel's per-datagram send and receive).
    Io,
    /// One direction of a link (its transmitter).
    Link,
}

/// The busiest stage of a run: what limits it, by the engine's utilisations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bottleneck {
    /// The kind of stage.
    pub stage: StageKind,
    /// The node's, host's or link's name.
    pub name: String,
    /// For a link: the direction's sending node; `None` (JSON `null`) otherwise.
    pub from: Option<String>,
    /// For a link: the direction's receiving node; `None` (JSON `null`) otherwise.
    pub to: Option<String>,
    /// For a CPU stage or a host: its cores (each machine's, for a node of several machines);
    /// `None` (JSON `null`) for unlimited cores, an I/O stage (one server) and a link.
    pub cores: Option<u32>,
    /// Its busy fraction over the run, in [0, 1]: as [`NodeReport::utilisation`],
    /// [`NodeReport::io_utilisation`] or [`LinkReport::utilisation`]; a host's is the sum of
    /// its nodes'.
    pub utilisation: f64,
}

impl Bottleneck {
    /// The busiest stage of `nodes` and `links`: every node's CPU stage (or, for nodes on a
    /// shared host, the host's cores once, at its first node) and I/O stage in node order, then
    /// every link direction; the first of the highest utilisation. `None` when there is no
    /// stage at all.
    pub fn of(nodes: &[NodeReport], links: &[LinkReport]) -> Option<Bottleneck> {
        let mut best: Option<Bottleneck> = None;
        let mut consider = |b: Bottleneck| {
            if best.as_ref().is_none_or(|x| b.utilisation > x.utilisation) {
                best = Some(b);
            }
        };
        let mut hosts_seen: Vec<&str> = Vec::new();
        for n in nodes {
            match &n.host {
                Some(h) if hosts_seen.contains(&h.as_str()) => {}
                Some(h) => {
                    hosts_seen.push(h);
                    consider(Bottleneck {
                        stage: StageKind::Host,
                        name: h.clone(),
                        from: None,
                        to: None,
                        cores: n.cores,
                        utilisation: nodes
                            .iter()
                            .filter(|m| m.host.as_deref() == Some(h.as_str()))
                            .map(|m| m.utilisation)
                            .sum(),
                    });
                }
                None => consider(Bottleneck {
                    stage: StageKind::Cpu,
                    name: n.name.clone(),
                    from: None,
                    to: None,
                    cores: n.cores,
                    utilisation: n.utilisation,
                }),
            }
            if let Some(io) = n.io_utilisation {
                consider(Bottleneck {
                    stage: StageKind::Io,
                    name: n.name.clone(),
                    from: None,
                    to: None,
                    cores: None,
                    utilisation: io,
                });
            }
        }
        for l in links {
            consider(Bottleneck {
                stage: StageKind::Link,
                name: l.name.clone(),
                from: Some(l.from.clone()),
                to: Some(l.to.clone()),
                cores: None,
                utilisation: l.utilisation,
            });
        }
        best
    }

    /// The stage in words: "node ric's I/O stage", "node ric's CPU stage (4 cores)", "host h's
    /// cores (2, shared by its nodes)", "link gnb-ric (gnb -> ric)".
    pub fn stage_words(&self) -> String {
        let cores = || {
            self.cores.map_or_else(
                || "unlimited cores".to_owned(),
                |c| match c {
                    1 => "1 core".to_owned(),
                    c => format!("{c} cores"),
                },
            )
        };
        // "node ric's", "node initiators'".
        let of = if self.name.ends_with('s') { "'" } else { "'s" };
        match self.stage {
            StageKind::Cpu => format!("node {}{of} CPU stage ({})", self.name, cores()),
            StageKind::Host => format!("host {}{of} {} (shared by its nodes)", self.name, cores()),
            StageKind::Io => format!("node {}{of} I/O stage", self.name),
            StageKind::Link => format!(
                "link {} ({} -> {})",
                self.name,
                self.from.as_deref().unwrap_or(""),
                self.to.as_deref().unwrap_or("")
            ),
        }
    }

    /// "STAGE, U% busy": the stage in words and its utilisation.
    pub fn words(&self) -> String {
        format!(
            "{}, {:.2}% busy",
            self.stage_words(),
            self.utilisation * 100.0
        )
    }
}

/// Every handshake flow's tunnels together ([`Report::tunnels_back`]): the answer to "when is
/// the last tunnel back?" after a restart storm.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TunnelsBack {
    /// Tunnels counted (started after the warm-up), all flows and replications.
    pub tunnels: u64,
    /// Tunnels whose handshake completed.
    pub back: u64,
    /// Tunnels whose handshake failed.
    pub failed: u64,
    /// When the last tunnel that came back was back, from its start: the longest completion
    /// of any flow and replication \[ns\]; `None` when none came back.
    pub last_back_ns: Option<f64>,
    /// Requests retransmitted, all flows and replications.
    pub retransmissions: u64,
    /// Of those, the ones that followed a loss (the rest: timers that expired while the
    /// exchange waited).
    pub retransmissions_after_loss: u64,
    /// The completion times of every tunnel that came back, all flows and replications
    /// together (exact precision) \[ns\]; `None` when none came back.
    pub completion: Option<DistSummary>,
    /// Which costs the handshakes were charged: each side's daemon (implementation, version,
    /// data path, the profile that measured it), or `"cipher-only lower bound, no daemon or
    /// data-path work"` ([`HandshakeReport::bound`], the same for every flow, or the flows'
    /// different answers joined by `" | "`).
    pub charged: String,
}

/// The eCPRI flows' worst one-way delay held against T12max for every O-DU / O-RU category
/// pair of 000 Table 4 (`[report] t12max = true`). The delay counts everything from the O-DU's
/// creation of a frame to the O-RU's processing of it, the endpoints' own processing included:
/// `oransim plan fronthaul` sets the endpoints' unprotected processing apart, so this verdict
/// errs towards "exceeds" by at most that.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct T12maxReport {
    /// eCPRI flows held against T12max.
    pub flows: u64,
    /// Their frames delivered, every replication.
    pub delivered: u64,
    /// Their frames dropped, every replication: a dropped frame misses T12max, so no pair fits
    /// when any is.
    pub dropped: u64,
    /// The flow with the worst one-way delay (`null` when none delivered a frame).
    pub worst_flow: Option<String>,
    /// The worst one-way delay, every flow and replication \[ns\] (`null` when none delivered).
    pub worst_ns: Option<f64>,
    /// O-RU row labels and O-DU column labels of 000 Table 4.
    pub categories: (Vec<char>, Vec<char>),
    /// T12max per O-RU row and O-DU column \[us\] (000 Table 4).
    pub t12max_us: Vec<Vec<i64>>,
    /// T12max less the worst delay per O-RU row and O-DU column \[us\]: the pair fits when it
    /// is zero or more and no frame was dropped (empty when none delivered).
    pub margin_us: Vec<Vec<f64>>,
    /// Category pairs that fit.
    pub fits: u64,
    /// Category pairs in all (168).
    pub pairs: u64,
}

impl T12maxReport {
    /// The verdict over `flows` (the eCPRI flows of the report).
    pub fn of<'a>(flows: impl IntoIterator<Item = &'a FlowReport>) -> T12maxReport {
        let (mut n, mut delivered, mut dropped) = (0u64, 0u64, 0u64);
        let mut worst: Option<(&str, f64)> = None;
        for f in flows {
            n += 1;
            let d = &f.forward;
            delivered = delivered.saturating_add(d.packets_delivered);
            dropped = dropped.saturating_add(d.packets_dropped);
            if d.packets_delivered > 0
                && d.delay.max_ns.is_finite()
                && worst.is_none_or(|(_, w)| d.delay.max_ns > w)
            {
                worst = Some((f.name.as_str(), d.delay.max_ns));
            }
        }
        let t12max_us = crate::oran::table4();
        let margin_us = worst.map_or_else(Vec::new, |(_, w)| crate::oran::t12max_margins_us(w));
        let fits = if dropped == 0 {
            margin_us.iter().flatten().filter(|&&m| m >= 0.0).count() as u64
        } else {
            0
        };
        T12maxReport {
            flows: n,
            delivered,
            dropped,
            worst_flow: worst.map(|(f, _)| f.to_owned()),
            worst_ns: worst.map(|(_, w)| w),
            categories: (
                crate::oran::table4_ru().iter().map(|c| c.0).collect(),
                crate::oran::table4_du().iter().map(|c| c.0).collect(),
            ),
            pairs: t12max_us.iter().map(|r| r.len() as u64).sum(),
            t12max_us,
            margin_us,
            fits,
        }
    }
}

impl Report {
    /// The handshake flows' tunnels summed over flows (and replications), and the longest
    /// completion among them; `None` when the report has no handshake flow.
    pub fn tunnels_back(&self) -> Option<TunnelsBack> {
        let mut out: Option<TunnelsBack> = None;
        for h in self.flows.iter().filter_map(|f| f.handshake.as_ref()) {
            let t = out.get_or_insert(TunnelsBack {
                tunnels: 0,
                back: 0,
                failed: 0,
                last_back_ns: None,
                retransmissions: 0,
                retransmissions_after_loss: 0,
                completion: None,
                charged: String::new(),
            });
            if t.charged.is_empty() {
                t.charged = h.bound.clone();
            } else if !t.charged.split(" | ").any(|c| c == h.bound) {
                t.charged = format!("{} | {}", t.charged, h.bound);
            }
            t.back = t.back.saturating_add(h.completed);
            t.failed = t.failed.saturating_add(h.failed);
            t.tunnels = t.back.saturating_add(t.failed);
            t.retransmissions = t.retransmissions.saturating_add(h.retransmissions);
            t.retransmissions_after_loss = t
                .retransmissions_after_loss
                .saturating_add(h.retransmissions_after_loss);
            if let Some(c) = &h.completion {
                t.last_back_ns = Some(t.last_back_ns.map_or(c.max_ns, |m| m.max(c.max_ns)));
            }
        }
        out
    }
}
