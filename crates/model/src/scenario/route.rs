//! Routes: a flow's path through the nodes, given or the shortest by hop count, and its MTU.
//!
//! Everything here goes through [`Topology`], built once per scenario in O(L) for L links: the
//! link between two nodes is a hash lookup, and a breadth-first search walks an adjacency list
//! and stops as soon as it reaches the flow's destination, touching only what it visits (its
//! buffers are reused across flows, marked by a generation stamp instead of cleared). Routing F
//! flows therefore costs O(F x visited), not the O(F x N x L) of scanning every link from every
//! node.

use std::collections::{HashMap, VecDeque};

use sim_core::LinkConfig;

use crate::error::ScenarioError;
use crate::file::FlowFile;

use super::context::Ctx;

/// The links of a scenario, indexed: by unordered pair of nodes, and per node in link order.
pub(super) struct Topology<'l> {
    links: &'l [LinkConfig],
    /// `(min(a, b), max(a, b))` -> the link's index (one link per pair: the caller checks).
    pairs: HashMap<(usize, usize), usize>,
    /// Per node, its neighbours in the order of the links joining them (ties of the search are
    /// broken by link order, as the file lists them).
    adjacent: Vec<Vec<usize>>,
    /// Search state, reused by every flow: `prev[v]` is valid when `stamp[v] == generation`.
    prev: Vec<usize>,
    stamp: Vec<u32>,
    generation: u32,
}

impl<'l> Topology<'l> {
    /// Indexes `links` between `n_nodes` nodes (every end already checked to be in range).
    /// Where two links join the same pair, the first is kept (the engine takes the first).
    pub(super) fn new(links: &'l [LinkConfig], n_nodes: usize) -> Topology<'l> {
        let mut pairs = HashMap::with_capacity(links.len());
        let mut adjacent = vec![Vec::new(); n_nodes];
        for (i, l) in links.iter().enumerate() {
            pairs.entry(pair(l.a, l.b)).or_insert(i);
            adjacent[l.a].push(l.b);
            adjacent[l.b].push(l.a);
        }
        Topology {
            links,
            pairs,
            adjacent,
            prev: vec![usize::MAX; n_nodes],
            stamp: vec![0; n_nodes],
            generation: 0,
        }
    }

    /// The index of the (first) link between nodes `a` and `b`, either way round.
    pub(super) fn link_between(&self, a: usize, b: usize) -> Option<usize> {
        self.pairs.get(&pair(a, b)).copied()
    }

    /// The smallest MTU on the path's links, if any link sets one \[bytes\].
    pub(super) fn path_mtu(&self, route: &[usize]) -> Option<u32> {
        route
            .windows(2)
            .filter_map(|w| self.link_between(w[0], w[1]))
            .filter_map(|i| self.links[i].mtu)
            .min()
    }

    /// The shortest path by hop count from `from` to `to` (ties broken by link order), or
    /// `None` if no chain of links joins them.
    fn shortest(&mut self, from: usize, to: usize) -> Option<Vec<usize>> {
        if from == to {
            return Some(vec![from]);
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Wrapped after 2^32 searches: clear the stamps once so none looks current.
            self.stamp.fill(0);
            self.generation = 1;
        }
        let g = self.generation;
        self.stamp[from] = g;
        let mut queue = VecDeque::from([from]);
        'search: while let Some(u) = queue.pop_front() {
            for &v in &self.adjacent[u] {
                if self.stamp[v] != g {
                    self.stamp[v] = g;
                    self.prev[v] = u;
                    if v == to {
                        break 'search;
                    }
                    queue.push_back(v);
                }
            }
        }
        if self.stamp[to] != g {
            return None;
        }
        let mut path = vec![to];
        let mut at = to;
        while at != from {
            at = self.prev[at];
            path.push(at);
        }
        path.reverse();
        Some(path)
    }
}

/// The unordered pair of nodes `a`, `b` as a key.
fn pair(a: usize, b: usize) -> (usize, usize) {
    (a.min(b), a.max(b))
}

pub(super) fn route(
    cx: &Ctx<'_>,
    key: &str,
    f: &FlowFile,
    lookup: &dyn Fn(&str, &str) -> Result<usize, ScenarioError>,
    topology: &mut Topology<'_>,
) -> Result<Vec<usize>, ScenarioError> {
    let from = lookup(&format!("{key}.from"), &f.from)?;
    let to = lookup(&format!("{key}.to"), &f.to)?;
    if let Some(names) = &f.path {
        let ids = names
            .iter()
            .enumerate()
            .map(|(i, n)| lookup(&format!("{key}.path[{i}]"), n))
            .collect::<Result<Vec<_>, _>>()?;
        if ids.first() != Some(&from) || ids.last() != Some(&to) {
            return Err(cx.invalid(
                format!("{key}.path"),
                "the path does not start at `from` and end at `to`",
                format!("a list of nodes from \"{}\" to \"{}\"", f.from, f.to),
            ));
        }
        // A packet is delivered where it reaches `to`, and `from` originates it: neither may
        // come again between the ends.
        if let Some(i) = ids
            .iter()
            .enumerate()
            .skip(1)
            .take(ids.len().saturating_sub(2))
            .find(|&(_, &n)| n == to || n == from)
            .map(|(i, _)| i)
        {
            return Err(cx.invalid(
                format!("{key}.path[{i}]"),
                format!(
                    "the path passes through its {} \"{}\" before its end",
                    if ids[i] == to {
                        "destination"
                    } else {
                        "source"
                    },
                    names[i]
                ),
                "a path that reaches `to` only at its end and leaves `from` only at its start",
            ));
        }
        for (i, w) in ids.windows(2).enumerate() {
            if topology.link_between(w[0], w[1]).is_none() {
                return Err(cx.invalid(
                    format!("{key}.path[{}]", i + 1),
                    format!("no link between \"{}\" and \"{}\"", names[i], names[i + 1]),
                    "consecutive path nodes joined by a [[link]]",
                ));
            }
        }
        if ids.len() > u16::MAX as usize / 2 {
            return Err(cx.invalid(
                format!("{key}.path"),
                "too many hops",
                "at most 32767 nodes",
            ));
        }
        return Ok(ids);
    }
    topology.shortest(from, to).ok_or_else(|| {
        cx.invalid(
            format!("{key}.to"),
            format!("no chain of links from \"{}\" to \"{}\"", f.from, f.to),
            "nodes connected by [[link]] tables, or set `path`",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{DataRate, SimDuration};

    fn links(pairs: &[(usize, usize)]) -> Vec<LinkConfig> {
        pairs
            .iter()
            .enumerate()
            .map(|(i, &(a, b))| LinkConfig {
                name: format!("l{i}"),
                a,
                b,
                rate: DataRate::from_bps(1_000_000_000).unwrap(),
                propagation: SimDuration::ZERO,
                mtu: Some(1000 + i as u32),
                queue_capacity: None,
                loss: 0.0,
                framing: sim_core::LineFraming::Bare,
            })
            .collect()
    }

    /// Ties between equally short paths go to the link listed first, and a search that stops
    /// at the destination finds the same path as one that visits everything.
    #[test]
    fn shortest_paths_break_ties_by_link_order() {
        // 0-1-3 and 0-2-3 are both two hops; 0-1 is listed first.
        let l = links(&[(0, 1), (0, 2), (2, 3), (1, 3), (3, 4)]);
        let mut t = Topology::new(&l, 6);
        assert_eq!(t.shortest(0, 3), Some(vec![0, 1, 3]));
        // From 3, link 2-3 comes before link 1-3.
        assert_eq!(t.shortest(4, 0), Some(vec![4, 3, 2, 0]));
        assert_eq!(t.shortest(2, 2), Some(vec![2]));
        // Node 5 has no link: unreachable, however often the buffers were reused before.
        assert_eq!(t.shortest(0, 5), None);
        assert_eq!(t.shortest(5, 0), None);
        assert_eq!(t.shortest(0, 4), Some(vec![0, 1, 3, 4]));
    }

    #[test]
    fn links_are_found_either_way_round_and_the_path_mtu_is_their_minimum() {
        let l = links(&[(0, 1), (1, 2)]);
        let t = Topology::new(&l, 3);
        assert_eq!(t.link_between(1, 0), Some(0));
        assert_eq!(t.link_between(2, 1), Some(1));
        assert_eq!(t.link_between(0, 2), None);
        assert_eq!(t.path_mtu(&[2, 1, 0]), Some(1000));
        assert_eq!(t.path_mtu(&[0]), None);
    }

    /// The generation stamp wraps without letting a stale mark look current.
    #[test]
    fn the_search_survives_its_generation_counter_wrapping() {
        let l = links(&[(0, 1)]);
        let mut t = Topology::new(&l, 3);
        t.generation = u32::MAX - 1;
        assert_eq!(t.shortest(0, 1), Some(vec![0, 1]));
        assert_eq!(t.shortest(0, 2), None);
        assert_eq!(t.generation, 1);
        assert_eq!(t.shortest(2, 1), None);
        assert_eq!(t.shortest(1, 0), Some(vec![1, 0]));
    }
}
