//! ofh_mtu: an 8192 B payload split to the MTU, in the DES at low load and at Fig. 12's loads
//! over several core counts (`ofh_mtu_load`), and the bulk transfer vs MTU (Fig. 14); the
//! analysis of `experiments/studies/ofh_mtu.toml`.

use std::path::Path;

use protocols::Suite;

use super::Result;
use super::fact::Fact;
use super::ofh_mtu_load::{Grid, Load, NO_SPLIT, SATURATED_BUSY, VARIANTS, advice, ends};
use super::plot::{Series, Style};
use super::study::Outputs;
use super::target::{Deps, Targets};
use super::variant::{Doc, frame_len_of, traced};
use model::patch::quantity;

/// The bulk transfer of scenarios/ofh_mtu.toml whose MTU the study sweeps, by name.
const BULK: &str = "bulk_mtu9000";

/// Core counts the fixed-payload study runs at besides the profile's: one core, a few, and the
/// i9-13900K's 24 physical cores (000 §3.2).
const CORES: [u32; 4] = [1, 2, 4, 24];

/// The ofh_mtu analysis: the fixed-payload grid (loads x core counts x split variants), Fig.
/// 15's claims and the advice checked against it, the bulk transfer against the MTU.
pub(super) fn ofh_mtu(root: &Path, t: &Targets) -> Result<Outputs> {
    let mut out = Outputs::default();
    let plateau = value(t, t.input("plateau")?)?;
    let doc = Doc::load(root, "scenarios/ofh_mtu.toml")?.with_stand_ins(t);
    let (_, prof) = doc.node_profile(&ends(&doc, VARIANTS[NO_SPLIT].1)?.0)?;
    let mut cores: Vec<u32> = CORES.to_vec();
    cores.push(prof.cores());
    cores.sort_unstable();
    cores.dedup();
    let loads = [
        Load::low(),
        Load::rate(1000.0, "Fig. 12"),
        Load::rate(2000.0, "Fig. 12"),
        Load::rate(plateau, "Fig. 12's plateau"),
        Load::rate(3000.0, "Fig. 12's largest attempted rate"),
    ];
    out.text(
        "loads",
        loads
            .iter()
            .map(|l| l.label.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    );
    out.text(
        "cores",
        cores
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    );
    out.text("profile-cores", prof.cores());
    out.text("saturated-pct", format!("{:.0}", SATURATED_BUSY * 100.0));
    let (grid, run_deps) = traced(|| Grid::run(&doc, &loads, &cores, prof.cores()))?;
    let run_deps = run_deps.model("engine").model("protocols");
    fixed_payload(&mut out, &grid, &loads, &cores, &prof, &run_deps)?;
    bulk_transfer(&mut out, t, &doc, &prof)?;
    fixed_series(&mut out, &grid, &loads, &cores, &prof);
    Ok(out)
}

/// Target `id`'s value (NaN when it has none).
fn value(t: &Targets, id: &str) -> Result<f64> {
    Ok(t.get(id)?.value.unwrap_or(f64::NAN))
}

/// The fixed-payload grid's facts: each load's payload delay per variant and core count
/// \[us\], Fig. 15's claims at low load on the profile's cores, and the advice checked
/// against the grid.
fn fixed_payload(
    out: &mut Outputs,
    grid: &Grid,
    loads: &[Load],
    cores: &[u32],
    prof: &profile::Profile,
    run_deps: &Deps,
) -> Result<()> {
    let pc = cores.iter().position(|&c| c == prof.cores()).unwrap_or(0);
    for (l, load) in loads.iter().enumerate() {
        let per_cores: Vec<String> = cores
            .iter()
            .enumerate()
            .map(|(c, n)| {
                let cells = grid.at(l, c);
                let vs: Vec<String> = VARIANTS
                    .iter()
                    .zip(cells)
                    .map(|(v, x)| {
                        if x.saturated {
                            format!("{} saturated ({:.0} Mb/s)", v.0, x.delivered_mbps)
                        } else {
                            format!("{} {:.1} us (p99 {:.1})", v.0, x.mean_us, x.p99_us)
                        }
                    })
                    .collect();
                let unit = if *n == 1 { "core" } else { "cores" };
                format!("{n} {unit}: {}", vs.join(", "))
            })
            .collect();
        out.fact(format!(
            "Fixed 8192 B payload at {}, payload delay per variant: {}.",
            load.label,
            per_cores.join("; ")
        ));
    }
    let low = grid.at(0, pc);
    let d = |i: usize| low[i].mean_us;
    let (l8g, l8e, l5g, l5e, l9) = (d(0), d(1), d(2), d(3), d(NO_SPLIT));
    out.value("greedy-5000-beats-8000", l8g - l5g, run_deps.clone())
        .holds(l8g > l5g)
        .var("cores", prof.cores());
    // MTU 8000 even and MTU 5000 even are the same two 4096 B frames: their equality is true
    // by construction and tested by no row.
    out.value("even-split", l8e - l5g, run_deps.clone())
        .holds(l8e < l5g)
        .var("cores", prof.cores());
    let best_split = [l8g, l8e, l5g, l5e].into_iter().fold(f64::MAX, f64::min);
    // The profile's seal cost as a fixed part [us] and a part per byte [ns/B], for the text.
    let seal = |l: u64| prof.cipher_cost_ns(Suite::Aes128Gcm, profile::Direction::Seal, l);
    let (fixed_us, per_byte_ns) = (seal(0)? / 1e3, (seal(1000)? - seal(0)?) / 1000.0);
    let even_faster_everywhere =
        (0..cores.len()).all(|c| grid.at(0, c)[3].mean_us < grid.at(0, c)[NO_SPLIT].mean_us);
    out.value("no-split-best", l9 - best_split, run_deps.clone())
        .holds(l9 < best_split)
        .var("cores", prof.cores())
        .why(format!(
            "Fig. 15's 'no split is best' conflicts with Fig. 11's costs in a node that pipelines: with MACsec costing {fixed_us:.1} us per frame plus {per_byte_ns:.1} ns per byte at each end (Fig. 11), two 4096 B frames pay the fixed cost twice ({:.1} us more CPU per payload and end) but the O-RU opens frame 1 while the O-DU seals frame 2 (and spare cores seal both at once), so the payload's delay is {l5e:.1} us against {l9:.1} us for one 8192 B frame{}. It holds only in a model that adds the per-frame delays up serially (000's Fig. 15 model). For capacity it holds only where the CPU limits (see the advice): where the I/O stage limits, every variant carries about the same payload rate.",
            fixed_us,
            if even_faster_everywhere {
                format!(
                    " (the even split is faster at low load at every core count run: {})",
                    cores.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                )
            } else {
                String::new()
            }
        ));
    // The greedy splits' throughput: wherever both saturate, do they carry the same (to 1%)?
    let greedy_tie = (0..loads.len())
        .flat_map(|l| (0..cores.len()).map(move |c| (l, c)))
        .map(|(l, c)| grid.at(l, c))
        .filter(|x| x[0].saturated && x[2].saturated)
        .all(|x| (x[0].delivered_mbps / x[2].delivered_mbps - 1.0).abs() <= 0.01);
    let holds = |b: bool| if b { "holds" } else { "does not hold" };
    out.fact(format!(
        "Fig. 15's claims at low load ({} cores): 'MTU 5000 beats 8000 with a greedy split' {} ({l5g:.1} vs {l8g:.1} us), 'an even split removes the penalty' {} ({l5e:.1} us), 'no split is best' {} ({l9:.1} us).{}{}",
        prof.cores(),
        holds(l8g > l5g),
        holds(l8e < l5g),
        holds(l9 < best_split),
        if l9 > l5e && l8e < l5g {
            format!(" The second and third conflict: the even split that makes the second true is faster than no split, because Fig. 11's per-byte cost ({per_byte_ns:.1} ns/B per end, {:.1} us for half the payload) outweighs its fixed cost ({fixed_us:.1} us per frame per end) once frames pipeline.", per_byte_ns * 4096.0 / 1e3)
        } else {
            String::new()
        },
        if greedy_tie {
            " The throughput half of the first claim ('higher throughput') does not hold: wherever the greedy splits saturate, MTU 5000 and 8000 carry the same payload rate (to 1%): with costs linear in the frame (Fig. 11 gives two points per mode) both two-frame splits cost the same per payload."
        } else {
            ""
        }
    ));
    for a in advice(grid) {
        // Every advice rests on claims about these runs; one the runs contradict would be a
        // bug in the generator, and is printed as withheld.
        out.fact(Fact::Advice {
            withheld: !a.claims.iter().all(|c| c.holds(grid)),
            advice: a.says,
        });
    }
    Ok(())
}

/// The bulk transfer against the MTU (Fig. 14): its completion time \[ms\] at each MTU from
/// 1400 to 9000 B, the speed-up and goodput \[Mb/s\], and why Figs. 12 and 14 cannot both
/// hold at MTU 1400/1500.
fn bulk_transfer(out: &mut Outputs, t: &Targets, doc: &Doc, prof: &profile::Profile) -> Result<()> {
    // Bulk transfer vs MTU (latency of the whole transfer = completion time).
    let mut bulk = vec![];
    let mut bulk_deps = Deps::default().model("engine").model("protocols");
    let (bulk_du, bulk_ru) = ends(doc, BULK)?;
    let bulk_link = doc.link(&bulk_du, &bulk_ru)?;
    for mtu in [1400usize, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000] {
        let mut d = doc.clone();
        // The bulk pair's link at this MTU (the pairs are independent; only BULK is read).
        d.set(&format!("{bulk_link}.mtu"), quantity::bytes(mtu as u64))?;
        let (rr, dd) = traced(|| d.run())?;
        bulk_deps = bulk_deps.and(&dd);
        let t = rr
            .flows
            .iter()
            .find(|f| f.name == BULK)
            .and_then(|f| f.transfer.as_ref())
            .and_then(|t| t.completion_ns)
            .map_or(f64::NAN, |ns| ns / 1e6);
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
    let bulk_stack: protocols::Stack = doc
        .get_str(&format!("{}.source.stack", doc.flow(BULK)?))?
        .parse()?;
    let (p1400, p1500) = (bulk_stack.max_payload(1400)?, bulk_stack.max_payload(1500)?);
    let (fig14_max, fig14_gain, fig12_max) = (
        value(t, t.input("fig14-goodput-9000")?)?,
        value(t, t.input("fig14-speedup-9000-vs-1400")?)?,
        value(t, t.input("plateau")?)?,
    );
    let implied_1400 = fig14_max * (1.0 - fig14_gain / 100.0);
    let bound_1500 = implied_1400 * p1500 as f64 / p1400 as f64;
    let why_gain = format!(
        "Figs. 12 and 14 cannot both hold at MTU 1400/1500 in this model. Fig. 14's ~{fig14_max} Mb/s at MTU 9000 with ~{fig14_gain}% less time than at MTU 1400 puts MTU 1400 at ~{implied_1400:.0} Mb/s; with costs per frame that are a + b x F for a, b >= 0 (the I/O stage, the CPU, or the smaller of the two), goodput grows at most in proportion to the goodput per frame, so MTU 1500 ({p1500} B per frame against {p1400} B) could reach at most {bound_1500:.0} Mb/s, while Fig. 12 measured ~{fig12_max} Mb/s there ({:.1}% more). The profile's I/O line goes through Fig. 12 at MTU 1500 and Fig. 14's maximum at MTU 9000, so it predicts {g1400:.0} Mb/s at MTU 1400 and a {gain:.1}% speed-up; matching the {fig14_gain}% would need a bottleneck that differs between the two experiments or a cost per frame that falls as frames grow, which the published numbers do not identify.",
        (fig12_max / bound_1500 - 1.0) * 100.0
    );
    // Which stage limits the sender per data frame: I/O (frame + half an ACK, one server) or CPU
    // (seal + half an ACK's open, on the cores).
    let ack = frame_len_of(&bulk_stack, 0)?;
    let limit = |payload: usize| -> Result<&'static str> {
        let f = frame_len_of(&bulk_stack, payload)?;
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
    out.fact(format!(
        "Bulk transfer, 20 MB, one ACK per two frames: {t1400:.1} ms at MTU 1400 ({g1400:.0} Mb/s), {t9000:.1} ms at MTU 9000 ({:.0} Mb/s); the sender is {}-bound at MTU 1400 and {}-bound at 9000. With an I/O cost that grows with the bytes moved, a larger MTU saves only the per-frame part and the headers.",
        20e6 * 8.0 / (t9000 * 1e-3) / 1e6,
        limit(p1400)?,
        limit(bulk_stack.max_payload(9000)?)?
    ));
    out.value("speedup-9000-vs-1400", gain, bulk_deps.clone())
        .var("t1400", format!("{t1400:.1}"))
        .var("t9000", format!("{t9000:.1}"))
        .why(why_gain);
    out.value("goodput-9000", 20e6 * 8.0 / (t9000 * 1e-3) / 1e6, bulk_deps);
    out.series(
        "bulk",
        Series::new("model (DES)", Style::Line, bulk.clone()),
    );
    out.series(
        "paper-bulk",
        Series::new(
            format!("paper: MTU 9000 ~{fig14_gain}% faster than 1400"),
            Style::Published,
            vec![
                (1400.0, t1400),
                (9000.0, t1400 * (1.0 - fig14_gain / 100.0)),
            ],
        ),
    );
    Ok(())
}

/// The plots' series of the fixed-payload grid: each core count's delay per variant at low
/// load \[us\], and the payload rate carried \[Mb/s\] against the load offered.
fn fixed_series(
    out: &mut Outputs,
    grid: &Grid,
    loads: &[Load],
    cores: &[u32],
    prof: &profile::Profile,
) {
    let series: Vec<Series> = cores
        .iter()
        .enumerate()
        .map(|(c, n)| {
            let pts = grid
                .at(0, c)
                .iter()
                .enumerate()
                .filter(|(_, x)| !x.saturated)
                .map(|(i, x)| (i as f64, x.mean_us))
                .collect();
            Series::new(format!("{n} cores"), Style::Points, pts)
        })
        .collect();
    out.series_list("fixed", series);
    let mut carried = vec![];
    for c in [4u32, prof.cores()] {
        let Some(ci) = cores.iter().position(|&x| x == c) else {
            continue;
        };
        for v in [3, NO_SPLIT] {
            let pts = (1..loads.len())
                .map(|l| (loads[l].mbps, grid.at(l, ci)[v].delivered_mbps))
                .collect();
            carried.push(Series::new(
                format!("{}, {c} cores", VARIANTS[v].0),
                Style::Line,
                pts,
            ));
        }
    }
    out.series_list("carried", carried);
}
