//! The stability check: no unbounded queue under a load at or above its capacity.

use super::*;

/// Refuses a node or link direction whose long-run offered load is at least its capacity while
/// its buffer is unbounded: it has no steady state, so its delays grow with the run's length
/// and mean nothing. Loads are computed from the sources' mean rates and sizes (bulk transfers
/// are self-clocked by their window and skipped; pattern replies are included).
/// Offered traffic: (packets/s, mean size \[bytes\]).
pub(super) type Offered = (f64, f64);

pub(super) fn check_stability(cx: &Ctx<'_>, net: &Network) -> Result<(), ScenarioError> {
    // (packets/s, mean bytes) offered along each direction of each flow.
    let mut node_load = vec![0.0f64; net.nodes.len()];
    let mut link_load = vec![[0.0f64; 2]; net.links.len()];
    for f in &net.flows {
        let (fwd, rev): (Vec<Offered>, Vec<Offered>) = match &f.source {
            Source::Poisson {
                rate_per_s, size, ..
            } => (vec![(*rate_per_s, size.mean())], vec![]),
            Source::Periodic { period, frames, .. } => {
                let per_s = 1.0 / period.as_secs_f64();
                (frames.iter().map(|&b| (per_s, b as f64)).collect(), vec![])
            }
            Source::Pattern {
                interval,
                sizes,
                reply_every,
                reply_size,
                ..
            } => {
                let per_s = 1.0 / interval.as_secs_f64();
                let mean = sizes.iter().map(|&s| s as f64).sum::<f64>() / sizes.len() as f64;
                let replies = if *reply_every > 0 {
                    vec![(per_s / *reply_every as f64, *reply_size as f64)]
                } else {
                    vec![]
                };
                (vec![(per_s, mean)], replies)
            }
            Source::Ping {
                interval,
                size,
                reply_size,
                ..
            } => {
                let per_s = 1.0 / interval.as_secs_f64();
                (
                    vec![(per_s, *size as f64)],
                    vec![(per_s, *reply_size as f64)],
                )
            }
            Source::Bulk { .. } | Source::Trace { .. } | Source::Handshake { .. } => {
                (vec![], vec![])
            }
        };
        let rev_path: Vec<usize> = f.path.iter().rev().copied().collect();
        for (path, loads) in [(&f.path, fwd), (&rev_path, rev)] {
            for (rate, bytes) in loads {
                for (i, &n) in path.iter().enumerate() {
                    let busy = rate * net.nodes[n].service.mean_ps(bytes as u32) * 1e-12;
                    node_load[n] += busy / net.nodes[n].servers as f64;
                    if let Some(&next) = path.get(i + 1)
                        && let Some((li, l)) = net
                            .links
                            .iter()
                            .enumerate()
                            .find(|(_, l)| (l.a, l.b) == (n, next) || (l.a, l.b) == (next, n))
                    {
                        let d = usize::from(l.a != n);
                        link_load[li][d] += rate * bytes * 8.0 / l.rate.bps() as f64;
                    }
                }
            }
        }
    }
    for (i, (n, rho)) in net.nodes.iter().zip(&node_load).enumerate() {
        if *rho >= 1.0 && n.capacity.is_none() {
            return Err(cx.invalid(
                format!("node[{i}] (\"{}\")", n.name),
                format!("offered load is {rho:.3} of its capacity (lambda >= mu): the queue grows without bound"),
                "a load below 1 (fewer or smaller packets, more cores, a faster service), or a finite `capacity` to model drops",
            ));
        }
    }
    for (i, (l, loads)) in net.links.iter().zip(&link_load).enumerate() {
        for (d, rho) in loads.iter().enumerate() {
            if *rho >= 1.0 && l.queue_capacity.is_none() {
                let (a, b) = if d == 0 { (l.a, l.b) } else { (l.b, l.a) };
                return Err(cx.invalid(
                    format!("link[{i}] (\"{}\")", l.name),
                    format!(
                        "offered load from \"{}\" to \"{}\" is {rho:.3} of the link rate: the queue grows without bound",
                        net.nodes[a].name, net.nodes[b].name
                    ),
                    "a load below the rate, or a finite `queue` to model drops",
                ));
            }
        }
    }
    Ok(())
}
