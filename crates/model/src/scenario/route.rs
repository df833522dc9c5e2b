//! Routes: a flow's path through the nodes, given or the shortest by hop count, and its MTU.

use super::*;

pub(super) fn route(
    cx: &Ctx<'_>,
    key: &str,
    f: &FlowFile,
    lookup: &dyn Fn(&str, &str) -> Result<usize, ScenarioError>,
    links: &[LinkConfig],
    n_nodes: usize,
) -> Result<Vec<usize>, ScenarioError> {
    let from = lookup(&format!("{key}.from"), &f.from)?;
    let to = lookup(&format!("{key}.to"), &f.to)?;
    let linked = |a: usize, b: usize| {
        links
            .iter()
            .any(|l| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a))
    };
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
        for (i, w) in ids.windows(2).enumerate() {
            if !linked(w[0], w[1]) {
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
    // Breadth-first search: the shortest path by hop count, ties broken by link order.
    let mut prev = vec![usize::MAX; n_nodes];
    let mut seen = vec![false; n_nodes];
    let mut queue = VecDeque::from([from]);
    seen[from] = true;
    while let Some(u) = queue.pop_front() {
        for l in links {
            let v = if l.a == u {
                l.b
            } else if l.b == u {
                l.a
            } else {
                continue;
            };
            if !seen[v] {
                seen[v] = true;
                prev[v] = u;
                queue.push_back(v);
            }
        }
    }
    if !seen[to] {
        return Err(cx.invalid(
            format!("{key}.to"),
            format!("no chain of links from \"{}\" to \"{}\"", f.from, f.to),
            "nodes connected by [[link]] tables, or set `path`",
        ));
    }
    let mut path = vec![to];
    while *path.last().expect("non-empty") != from {
        path.push(prev[*path.last().expect("non-empty")]);
    }
    path.reverse();
    Ok(path)
}

/// The smallest MTU on the path's links, if any link sets one \[bytes\].
pub(super) fn path_mtu(route: &[usize], links: &[LinkConfig]) -> Option<u32> {
    route
        .windows(2)
        .filter_map(|w| {
            links
                .iter()
                .find(|l| (l.a, l.b) == (w[0], w[1]) || (l.a, l.b) == (w[1], w[0]))
        })
        .filter_map(|l| l.mtu)
        .min()
}
