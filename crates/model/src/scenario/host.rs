//! `[[host]]` tables and the nodes that name them: machines whose cores several nodes share
//! (`sim_core::HostConfig`).

use std::collections::HashMap;

use sim_core::{HostConfig, NodeConfig};

use crate::error::ScenarioError;
use crate::file::{Cores, HostFile, NodeFile};

use super::MAX_CORES;
use super::context::Ctx;
use super::one_of;

/// The hosts of `file`, with the indices of the nodes on each: every `host = "..."` names a
/// `[[host]]`, every host has a node, and a node on a host sets no `cores` of its own (it has the
/// host's). A node whose daemon counted its free worker threads (`ike.threads`, in
/// `daemon_threads`, by node index) runs on at most that many of the host's cores unless it sets
/// `threads`. O(hosts + nodes).
pub(super) fn hosts(
    cx: &Ctx<'_>,
    (host_files, node_files): (&[HostFile], &[NodeFile]),
    nodes: &[NodeConfig],
    daemon_threads: &[Option<u32>],
) -> Result<Vec<HostConfig>, ScenarioError> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::with_capacity(host_files.len());
    for (h, host) in host_files.iter().enumerate() {
        let key = format!("host[{h}]");
        cx.printable(&format!("{key}.name"), &host.name)?;
        cx.unique_name(&key, &host.name, h, &mut index, "host")?;
        let cores = host
            .cores
            .map(|c| {
                cx.count(
                    &format!("{key} (\"{}\").cores", host.name),
                    c,
                    "cores",
                    MAX_CORES,
                )
            })
            .transpose()?
            .unwrap_or(0);
        out.push(HostConfig {
            name: host.name.clone(),
            cores,
            nodes: Vec::new(),
            threads: Vec::new(),
        });
    }
    for (i, n) in node_files.iter().enumerate() {
        let Some(name) = &n.host else {
            if n.threads.is_some() {
                return Err(cx.invalid(
                    format!("node[{i}] (\"{}\").threads", n.name),
                    "`threads` on a node on no host",
                    "`threads` only beside `host = \"...\"` (the most of the host's cores the node uses at once); a machine of its own sets `cores`",
                ));
            }
            continue;
        };
        let key = format!("node[{i}] (\"{}\").host", n.name);
        let Some(&h) = index.get(name.as_str()) else {
            let names: Vec<&str> = host_files.iter().map(|h| h.name.as_str()).collect();
            return Err(cx.invalid(
                key,
                format!("no [[host]] named \"{name}\""),
                if names.is_empty() {
                    "the name of a [[host]] table (this file has none: add [[host]] name = \"...\", cores = N)".to_owned()
                } else {
                    one_of(&names, "hosts")
                },
            ));
        };
        if n.cores.is_some() {
            return Err(cx.invalid(
                format!("node[{i}] (\"{}\").cores", n.name),
                match n.cores {
                    Some(Cores::Unlimited) => "`cores = \"unlimited\"` on a node on a host",
                    _ => "`cores` on a node on a host",
                },
                format!(
                    "no `cores` here: the node shares the cores of host \"{name}\" (set them in its [[host]] table)"
                ),
            ));
        }
        out[h].nodes.push(i);
        if let Some(t) = n.threads {
            let t = cx.count(
                &format!("node[{i}] (\"{}\").threads", n.name),
                t,
                "threads",
                MAX_CORES,
            )?;
            out[h].threads.push((i, t));
        } else if let Some(t) = daemon_threads.get(i).copied().flatten() {
            out[h].threads.push((i, t));
        }
        if host_files[h].cores.is_none() {
            // The default: the most cores any of its nodes would have alone (its profile's).
            let alone = nodes.get(i).map_or(1, |c| c.servers.max(1));
            out[h].cores = out[h].cores.max(alone);
        }
    }
    if let Some((h, host)) = out.iter().enumerate().find(|(_, h)| h.nodes.is_empty()) {
        return Err(cx.invalid(
            format!("host[{h}] (\"{}\")", host.name),
            "no node names this host",
            "a [[host]] that at least one node names with `host = \"...\"` (or remove the table)",
        ));
    }
    Ok(out)
}
