//! ofh_mtu: an 8192 B payload split to the MTU, latency and capacity views.

use std::path::Path;

use protocols::Suite;

use super::ofh::{OFH_ON, OFH_PROFILE};
use super::plot::{Series, Style, xy};
use super::target::{Deps, Targets};
use super::variant::{Doc, FrameLen, fmt_list, frame_len, traced};
use super::{Experiment, Result};
use crate::patch::quantity;

/// Frames (wire, protected) of `payload` split to `mtu` under `policy` with `stack`.
pub(super) fn split_frames(
    stack: &str,
    payload: usize,
    mtu: usize,
    policy: protocols::SplitPolicy,
) -> Result<Vec<FrameLen>> {
    let st: protocols::Stack = stack.parse()?;
    protocols::split_payload(&st, payload, mtu, policy)?
        .iter()
        .map(|f| frame_len(stack, f.payload))
        .collect()
}

pub(super) fn ofh_mtu(root: &Path, t: &Targets) -> Result<Experiment> {
    let name = "ofh_mtu";
    let mut e = Experiment::new(
        name,
        "OFH MTU study: fixed 8192 B payload under greedy and even splits, bulk transfer vs MTU (000 §5.3, §6.4, Figs. 14-15)",
    );
    e.profiles.push(OFH_PROFILE.into());
    e.model = "Independent O-DU -> O-RU pairs with MACsec (encryption on) from the i9 profile. LATENCY view: one 8192 B payload every 100 us, DES message delay (frames pipeline: the sender seals frame 2 while frame 1 is on the wire or being opened; the profile's effective cores work on frames in parallel). CAPACITY view (what 000's Fig. 15 model computes): the per-frame delays seal + open (Fig. 11's curve) + D_trans + D_prop added up per payload; throughput = payload bits / that sum. Bulk: TCP (with timestamps) over MACsec with a window of 64 frames and one pure ACK per two frames (Linux's delayed ACK, RFC 5681 §4.2; the same traffic the profile's I/O fit assumes for Fig. 12), completion time of 20 MB per MTU.".into();
    e.fitted = "the bulk goodput at MTU 9000 (Fig. 14's ~2.5 Gb/s): with Fig. 12's ~2300 Mb/s at MTU 1500 it fixes the profile's I/O stage, a cost per frame plus a cost per byte. The MACsec costs come from Fig. 11, the cores from Fig. 12.".into();
    e.predicted = "the ordering of MTUs and split policies in the latency view; the bulk speed-up from MTU 1400 to 9000 and the curve between. In the capacity view 'no split is best' follows from the structure (a split pays the fixed cost once per frame), an identity.".into();
    let doc = Doc::load(root, "scenarios/ofh_mtu.toml")?;
    let (_, prof) = doc.node_profile(0)?;
    let (r, run_deps) = traced(|| doc.run())?;
    let run_deps = run_deps.model("engine").model("protocols");
    let msg = |flow: &str| -> f64 {
        r.flows
            .iter()
            .find(|f| f.name == flow)
            .and_then(|f| f.message.as_ref())
            .map_or(f64::NAN, |m| m.mean_ns / 1e3)
    };
    let rate = sim_core::time::DataRate::from_bps(10_000_000_000).expect("valid rate");
    let capacity = |mtu: usize, policy: protocols::SplitPolicy| -> Result<(f64, f64)> {
        let mut sum = 0.0;
        for f in split_frames(OFH_ON, 8192, mtu, policy)? {
            let seal =
                prof.cipher_cost_ns(Suite::Aes128Gcm, profile::Direction::Seal, f.protected)?;
            let open =
                prof.cipher_cost_ns(Suite::Aes128Gcm, profile::Direction::Open, f.protected)?;
            sum += (seal + open) / 1e3 + rate.tx_time(u64::from(f.wire)).as_ns_f64() / 1e3 + 0.5;
        }
        Ok((sum, 8192.0 * 8.0 / sum))
    };
    use protocols::SplitPolicy::{Even, Greedy};
    let variants = [
        ("MTU 8000 greedy", "fixed_mtu8000_greedy", 8000, Greedy),
        ("MTU 8000 even", "fixed_mtu8000_even", 8000, Even),
        ("MTU 5000 greedy", "fixed_mtu5000_greedy", 5000, Greedy),
        ("MTU 5000 even", "fixed_mtu5000_even", 5000, Even),
        ("MTU 9000", "fixed_mtu9000", 9000, Greedy),
    ];
    let mut lat = BTreeMapLike::default();
    let mut cap = BTreeMapLike::default();
    let mut lines = vec![];
    let mut cap_deps = Deps::default().model("protocols");
    for (label, flow, mtu, pol) in variants {
        let l = msg(flow);
        let ((c, thr), d) = traced(|| capacity(mtu, pol))?;
        cap_deps = cap_deps.and(&d);
        lines.push(format!("{label}: latency view {l:.1} us (payload bits / delay {:.0} Mb/s); capacity view {c:.1} us per payload ({thr:.0} Mb/s)", 8192.0 * 8.0 / l));
        lat.0.push((label, l));
        cap.0.push((label, c));
    }
    e.facts
        .push(format!("Fixed 8192 B payload: {}.", fmt_list(&lines)));
    let (l8g, l5g, l8e, l5e, l9) = (
        lat.get("MTU 8000 greedy"),
        lat.get("MTU 5000 greedy"),
        lat.get("MTU 8000 even"),
        lat.get("MTU 5000 even"),
        lat.get("MTU 9000"),
    );
    let (c8g, c5g, c8e, c5e, c9) = (
        cap.get("MTU 8000 greedy"),
        cap.get("MTU 5000 greedy"),
        cap.get("MTU 8000 even"),
        cap.get("MTU 5000 even"),
        cap.get("MTU 9000"),
    );
    e.rows.push(t.claim(
        name,
        "000/fig15/greedy-5000-beats-8000",
        l8g - l5g,
        l8g > l5g,
        run_deps.clone(),
        "latency view (DES message delay); in the capacity view the difference is only D_trans's",
    )?);
    e.rows.push(t.claim(
        name,
        "000/fig15/even-split",
        l8e - l5g,
        l8e < l5g && (l8e - l5e).abs() < 1e-6,
        run_deps.clone(),
        "latency view",
    )?);
    let others = [c8g, c5g, c8e, c5e];
    e.rows.push(t.claim(
        name,
        "000/fig15/no-split-best",
        c9 - others.iter().copied().fold(f64::MAX, f64::min),
        others.iter().all(|&o| c9 < o),
        cap_deps.structure("per-frame delays added up: one frame pays MACsec's fixed cost once, any split pays it once per frame, whatever the fitted costs"),
        "capacity view (000 Fig. 15's model: per-frame delays added up)",
    )?);
    e.facts.push(format!(
        "Which claim holds in which view: (1) 'MTU 5000 beats 8000 with a greedy split' holds in the latency view ({l5g:.1} vs {l8g:.1} us) but not in the capacity view ({c5g:.2} vs {c8g:.2} us: with a cost linear in frame length the two 2-frame splits cost the same; only a cost that grows faster than linearly, which Fig. 11's two fitted points cannot show, would separate them). (2) 'An even split is better' holds in the latency view ({l5e:.1} vs {l5g:.1} us) and ties in the capacity view. (3) 'No split (MTU 9000) is best' holds in the capacity view ({c9:.1} vs {:.1} us: each extra frame costs MACsec's fixed ~38 us per payload once more) but not in the latency view ({l9:.1} us vs {l5e:.1} us for two 4096 B frames, which seal and open in parallel and pipeline with the wire).",
        others.iter().copied().fold(f64::MAX, f64::min)
    ));
    e.facts.push(format!(
        "Advice: if a path MTU forces a split, split evenly (never one large and one small frame): it cuts one payload's latency by {:.0} us at MTU 5000 and {:.0} us at MTU 8000 for the same CPU. Keep MTU 9000 end to end where you can: each extra frame costs a fixed ~{:.0} us of MACsec processing per payload, which lowers the payload rate a node sustains by {:.0}% (capacity view). Splitting into equal frames can lower one payload's latency at low load ({l5e:.0} vs {l9:.0} us) only while spare cores seal the frames in parallel; under load the capacity view decides.",
        l5g - l5e, l8g - l8e,
        (c5e - c9).max(0.0),
        (1.0 - c9 / c5e) * 100.0
    ));
    // Bulk transfer vs MTU (latency of the whole transfer = completion time).
    let mut bulk = vec![];
    let mut bulk_deps = Deps::default().model("engine").model("protocols");
    for mtu in [1400usize, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000] {
        let mut d = doc.clone();
        // Run only the bulk pair (the last link and flow) at this MTU.
        d.set("link[6].mtu", quantity::bytes(mtu as u64))?;
        let (rr, dd) = traced(|| d.run())?;
        bulk_deps = bulk_deps.and(&dd);
        let t = rr
            .flows
            .iter()
            .find(|f| f.name == "bulk_mtu9000")
            .and_then(|f| f.transfer.as_ref())
            .map_or(f64::NAN, |t| t.completion_ns / 1e6);
        bulk.push((mtu as f64, t));
    }
    let t1400 = bulk[0].1;
    let t9000 = bulk[bulk.len() - 1].1;
    let gain = (t1400 - t9000) / t1400 * 100.0;
    let g1400 = 20e6 * 8.0 / (t1400 * 1e-3) / 1e6;
    // What Figs. 12 and 14 say together at MTU 1400 and 1500. Fig. 14: ~2.5 Gb/s at MTU 9000 and
    // ~20% less time than at MTU 1400, so ~2.0 Gb/s at MTU 1400. Under any model whose costs per
    // frame are a + b x F with a, b >= 0 (I/O, CPU, or the smaller of them), goodput per frame P
    // over such a cost grows at most in proportion to P, so MTU 1500 can reach at most
    // 2.0 Gb/s x P(1500) / P(1400); Fig. 12 says ~2300 Mb/s there.
    let bulk_stack: protocols::Stack = doc.get_str("flow[6].source.stack")?.parse()?;
    let (p1400, p1500) = (bulk_stack.max_payload(1400)?, bulk_stack.max_payload(1500)?);
    let value = |id: &str| -> Result<f64> { Ok(t.get(id)?.value.unwrap_or(f64::NAN)) };
    let (fig14_max, fig14_gain, fig12_max) = (
        value("000/fig14/goodput-9000")?,
        value("000/fig14/speedup-9000-vs-1400")?,
        value("000/fig12/max-on")?,
    );
    let implied_1400 = fig14_max * (1.0 - fig14_gain / 100.0);
    let bound_1500 = implied_1400 * p1500 as f64 / p1400 as f64;
    let why_gain = format!(
        "Figs. 12 and 14 cannot both hold at MTU 1400/1500 in this model. Fig. 14's ~{fig14_max} Mb/s at MTU 9000 with ~{fig14_gain}% less time than at MTU 1400 puts MTU 1400 at ~{implied_1400:.0} Mb/s; with costs per frame that are a + b x F for a, b >= 0 (the I/O stage, the CPU, or the smaller of the two), goodput grows at most in proportion to the goodput per frame, so MTU 1500 ({p1500} B per frame against {p1400} B) could reach at most {bound_1500:.0} Mb/s, while Fig. 12 measured ~{fig12_max} Mb/s there ({:.1}% more). The profile's I/O line goes through Fig. 12 at MTU 1500 and Fig. 14's maximum at MTU 9000, so it predicts {g1400:.0} Mb/s at MTU 1400 and a {gain:.1}% speed-up; matching the {fig14_gain}% would need a bottleneck that differs between the two experiments or a cost per frame that falls as frames grow, which the published numbers do not identify.",
        (fig12_max / bound_1500 - 1.0) * 100.0
    );
    // Which stage limits the sender per data frame: I/O (frame + half an ACK, one server) or CPU
    // (seal + half an ACK's open, on the cores).
    let stack_text = doc.get_str("flow[6].source.stack")?;
    let ack = frame_len(&stack_text, 0)?;
    let limit = |payload: usize| -> Result<&'static str> {
        let f = frame_len(&stack_text, payload)?;
        let d = prof.packet(
            Some(Suite::Aes128Gcm),
            profile::Direction::Seal,
            f.protected,
            u64::from(f.wire),
        )?;
        let a = prof.packet(
            Some(Suite::Aes128Gcm),
            profile::Direction::Open,
            ack.protected,
            u64::from(ack.wire),
        )?;
        let io = d.io_ns + a.io_ns / 2.0;
        let cpu = (d.cpu_ns + a.cpu_ns / 2.0) / f64::from(prof.cores());
        Ok(if io > cpu { "I/O" } else { "CPU" })
    };
    e.facts.push(format!(
        "Bulk transfer, 20 MB, one ACK per two frames: {t1400:.1} ms at MTU 1400 ({g1400:.0} Mb/s), {t9000:.1} ms at MTU 9000 ({:.0} Mb/s); the sender is {}-bound at MTU 1400 and {}-bound at 9000. With an I/O cost that grows with the bytes moved, a larger MTU saves only the per-frame part and the headers.",
        20e6 * 8.0 / (t9000 * 1e-3) / 1e6,
        limit(p1400)?,
        limit(bulk_stack.max_payload(9000)?)?
    ));
    e.rows.push(
        t.row(
            name,
            "000/fig14/speedup-9000-vs-1400",
            gain,
            bulk_deps.clone(),
            &format!("capacity view: completion time of a 20 MB transfer, {t1400:.1} ms at MTU 1400 vs {t9000:.1} ms at 9000"),
        )?
        .because(why_gain),
    );
    e.rows.push(t.row(
        name,
        "000/fig14/goodput-9000",
        20e6 * 8.0 / (t9000 * 1e-3) / 1e6,
        bulk_deps,
        "capacity view: 20 MB over the completion time; the profile's I/O line was fitted through it",
    )?);
    e.plots.push(xy(
        "ofh_mtu_bulk",
        "Bulk transfer completion time vs MTU, MACsec encryption on (000 Fig. 14; 20 MB)",
        "MTU [B]",
        "completion time [ms]",
        vec![
            Series::new("model (DES)", Style::Line, bulk.clone()),
            Series::new(
                format!("paper: MTU 9000 ~{fig14_gain}% faster than 1400"),
                Style::Published,
                vec![
                    (1400.0, t1400),
                    (9000.0, t1400 * (1.0 - fig14_gain / 100.0)),
                ],
            ),
        ],
    ));
    let xs = |v: &[(&str, f64)]| -> Vec<(f64, f64)> {
        v.iter().enumerate().map(|(i, p)| (i as f64, p.1)).collect()
    };
    e.plots.push(xy(
        "ofh_mtu_fixed",
        "Fixed 8192 B payload: 0 = 8000 greedy, 1 = 8000 even, 2 = 5000 greedy, 3 = 5000 even, 4 = 9000 (000 Fig. 15)",
        "variant",
        "delay per payload [us]",
        vec![
            Series::new("latency view (DES, pipelined)", Style::Points, xs(&lat.0)),
            Series::new("capacity view (per-frame delays added, 000 Fig. 15)", Style::Points, xs(&cap.0)),
        ],
    ));
    Ok(e)
}

/// A small ordered map of labelled values.
#[derive(Default)]
pub(super) struct BTreeMapLike<'a>(Vec<(&'a str, f64)>);

impl BTreeMapLike<'_> {
    fn get(&self, k: &str) -> f64 {
        self.0.iter().find(|p| p.0 == k).map_or(f64::NAN, |p| p.1)
    }
}
