//! A run's peak memory, estimated from what a scenario file expands to before anything is
//! built ([`Footprint`], counted from its templates), and the refusal of a run that will not
//! fit (issue 39 #4; docs/performance.md, "Memory of a large scenario", gives the estimate
//! against measured peaks). The estimate is of one replication: a file large enough to matter
//! runs one (replications x flows is at most 10,000).
//!
//! The estimate is linear in the counts a run's memory grows with:
//!
//! ```text
//! peak = BASE + PER_NODE x (nodes + links) + PER_DATA_FLOW x data flows
//!        + PER_TUNNEL x first tunnels + PER_MORE_TUNNEL x (tunnels - first tunnels)
//!        + expanded bytes                                  (+ the JSON report's share)
//! ```
//!
//! where `PER_NODE` is what a node or a link costs through validation, the engine and the
//! report, `PER_DATA_FLOW` a flow that is not a handshake (its source, statistics, histograms
//! and row), `PER_TUNNEL` the first IKE tunnel of a handshake flow (its flow's share included: a
//! storm's flows share their exchanges), `PER_MORE_TUNNEL` each further tunnel of a flow (its
//! handshake state and events only: a node of many machines, or `--tunnels 2` and up), and the
//! expanded bytes ([`Footprint::bytes`]) the names and values held while the scenario is built.
//! A report written as JSON (`--format json`, `--out`) also holds its document:
//! `JSON_PER_DATA_FLOW` and `JSON_PER_TUNNEL` (every tunnel) more.
//!
//! Fitted to the peak resident size (`/usr/bin/time -f %M`) of `oransim run` (text and JSON) on
//! `oransim init e2` stars and `init ric-restart` storms of 10,000 and 100,000 gNBs on this
//! project's 2-CPU x86-64 host: the two slopes give `2 PER_NODE + PER_DATA_FLOW` = 5.5 kB and
//! `2 PER_NODE + PER_TUNNEL` = 3.9 kB per gNB; `PER_NODE` is taken as 1 kB, about what
//! `oransim check` holds per node and link. `PER_MORE_TUNNEL` is fitted to the text report's
//! peak of one node of 10,000 and of 1,000,000 machines (one flow of that many tunnels, as
//! `oransim init ric-restart` writes: 55 MB and 1.25 GB, a slope of 1.2 kB per tunnel). Stars
//! and storms of 300,000 and 1,000,000 gNBs, a node of 100,000 machines, a star of 20,000 gNBs x
//! 4 tunnels and a fronthaul shape are the check (docs/performance.md, "Memory of a large
//! scenario").

use std::path::Path;

use crate::error::ScenarioError;
use crate::scenario::Footprint;

/// Fixed part: the binary, its allocator's arenas and the profiles \[bytes\].
pub const BASE: u64 = 42_000_000;
/// A node or a link, validated, simulated and reported \[bytes\].
pub const PER_NODE: u64 = 1_000;
/// A flow that is not a handshake \[bytes\].
pub const PER_DATA_FLOW: u64 = 3_500;
/// The first IKE tunnel of a handshake flow \[bytes\].
pub const PER_TUNNEL: u64 = 1_900;
/// Each further IKE tunnel of a handshake flow \[bytes\].
pub const PER_MORE_TUNNEL: u64 = 1_200;
/// A flow that is not a handshake, in a JSON report \[bytes\].
pub const JSON_PER_DATA_FLOW: u64 = 550;
/// An IKE tunnel in a JSON report \[bytes\].
pub const JSON_PER_TUNNEL: u64 = 3_750;

/// A run's estimated peak memory \[bytes\]: the module's equation, saturating (a footprint past
/// what a u64 counts is refused before this by the template bounds).
pub fn estimate(f: &Footprint, json: bool) -> u64 {
    let (per_flow, json_per_tunnel) = if json {
        (PER_DATA_FLOW + JSON_PER_DATA_FLOW, JSON_PER_TUNNEL)
    } else {
        (PER_DATA_FLOW, 0)
    };
    let data_flows = f.flows.saturating_sub(f.handshake_flows);
    let first = f.tunnels.min(f.handshake_flows);
    BASE.saturating_add(f.nodes.saturating_add(f.links).saturating_mul(PER_NODE))
        .saturating_add(data_flows.saturating_mul(per_flow))
        .saturating_add(first.saturating_mul(PER_TUNNEL))
        .saturating_add((f.tunnels - first).saturating_mul(PER_MORE_TUNNEL))
        .saturating_add(f.tunnels.saturating_mul(json_per_tunnel))
        .saturating_add(f.bytes)
}

/// A memory limit and where it came from (for the refusal).
#[derive(Debug, Clone)]
pub struct Limit {
    /// Most bytes a run may be estimated to take \[bytes\].
    pub bytes: u64,
    /// Where the limit came from, as the refusal names it (`--memory-limit 2GB`, or "the
    /// memory available on this machine (MemAvailable in /proc/meminfo)").
    pub origin: String,
    /// Whether the run writes a JSON report (it holds the document in memory too).
    pub json: bool,
}

impl Limit {
    /// Refuses `f` when its estimate is past the limit, naming the count that drives it, the
    /// estimate and the limit.
    pub fn check(&self, f: &Footprint, path: &Path) -> Result<(), ScenarioError> {
        let need = estimate(f, self.json);
        if need <= self.bytes {
            return Ok(());
        }
        let drives = if f.tunnels >= f.flows {
            format!("{} IKE tunnels", f.tunnels)
        } else {
            format!("{} nodes, {} links and {} flows", f.nodes, f.links, f.flows)
        };
        Err(ScenarioError::Invalid {
            path: path.to_path_buf(),
            key: "the scenario's size".into(),
            problem: format!(
                "a run of it needs about {} ({drives}{}; docs/performance.md, \"Memory of a large scenario\", gives the estimate's error)",
                gigabytes(need),
                if self.json {
                    ", with its JSON report"
                } else {
                    ""
                }
            ),
            allowed: format!(
                "at most {} ({}): fewer items, or a higher `--memory-limit` where the machine has the memory",
                gigabytes(self.bytes),
                self.origin
            ),
        })
    }
}

/// `bytes` in GB (10^9) with two decimals, or MB below 0.1 GB.
pub fn gigabytes(bytes: u64) -> String {
    if bytes < 100_000_000 {
        format!("{:.1} MB", bytes as f64 / 1e6)
    } else {
        format!("{:.2} GB", bytes as f64 / 1e9)
    }
}

/// The memory available on this machine \[bytes\]: `MemAvailable` of `/proc/meminfo`, `None`
/// where it cannot be read (not Linux).
pub fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn storm(n: u64) -> Footprint {
        Footprint {
            nodes: n + 1,
            links: n,
            flows: n,
            handshake_flows: n,
            tunnels: n,
            bytes: 0,
        }
    }

    #[test]
    fn the_estimate_grows_with_each_count_and_json_adds() {
        let a = estimate(&storm(1000), false);
        assert!(estimate(&storm(2000), false) > a);
        assert!(estimate(&storm(1000), true) > a);
        let f = Footprint {
            bytes: 1 << 20,
            ..storm(1000)
        };
        assert_eq!(estimate(&f, false), a + (1 << 20));
        // A star of data flows costs its flows, not tunnels.
        let star = Footprint {
            handshake_flows: 0,
            tunnels: 0,
            ..storm(1000)
        };
        assert_eq!(
            estimate(&star, false) - estimate(&storm(1000), false),
            1000 * (PER_DATA_FLOW - PER_TUNNEL)
        );
    }

    /// A flow's further tunnels cost `PER_MORE_TUNNEL` each; the JSON report charges every
    /// tunnel its share.
    #[test]
    fn a_flow_of_many_tunnels_costs_its_further_tunnels_less() {
        let machines = Footprint {
            nodes: 2,
            links: 1,
            flows: 1,
            handshake_flows: 1,
            tunnels: 1_000_000,
            bytes: 0,
        };
        assert_eq!(
            estimate(&machines, false),
            BASE + 3 * PER_NODE + PER_TUNNEL + 999_999 * PER_MORE_TUNNEL
        );
        assert_eq!(
            estimate(&machines, true) - estimate(&machines, false),
            1_000_000 * JSON_PER_TUNNEL
        );
        // One tunnel per flow: every tunnel is a first one.
        assert_eq!(
            estimate(&storm(1000), false),
            BASE + 2001 * PER_NODE + 1000 * PER_TUNNEL
        );
    }

    #[test]
    fn a_limit_refuses_past_it_naming_the_tunnels() {
        let f = storm(1_000_000);
        let limit = Limit {
            bytes: 1 << 30,
            origin: "--memory-limit 1GiB".into(),
            json: false,
        };
        let e = limit
            .check(&f, Path::new("s.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("1000000 IKE tunnels"), "{e}");
        assert!(e.contains("--memory-limit 1GiB"), "{e}");
        let roomy = Limit {
            bytes: estimate(&f, false),
            ..limit
        };
        assert!(roomy.check(&f, Path::new("s.toml")).is_ok());
    }
}
