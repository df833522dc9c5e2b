//! `oransim plan`'s text and JSON: the key-exchange, fronthaul and interface plans of
//! [`whatif::plan`]. The question (or the flags as given) supplies the headings.

use std::fmt::Write as _;

use whatif::plan::{
    FronthaulPlan, FronthaulQuestion, InterfacePlan, InterfaceQuestion, KexPlan, KexQuestion,
    LoadedPlan,
};

use crate::table::Table;

/// Message sizes as typed, joined by `sep` (`195B/1425B`).
pub(crate) fn sizes_text(sizes: &[profile::units::Quantity], sep: &str) -> String {
    sizes
        .iter()
        .map(profile::units::Quantity::text)
        .collect::<Vec<_>>()
        .join(sep)
}

/// Schema of `oransim plan kex --format json`.
pub const KEX_SCHEMA: &str = "oransim.plan.kex/1";
/// Schema of `oransim plan interface --format json`.
pub const INTERFACE_SCHEMA: &str = "oransim.plan.interface/1";
/// Schema of `oransim plan fronthaul --format json`.
pub const FRONTHAUL_SCHEMA: &str = "oransim.plan.fronthaul/1";

/// A plan as JSON, with its `schema` ([`KEX_SCHEMA`], [`INTERFACE_SCHEMA`] or
/// [`FRONTHAUL_SCHEMA`]) first.
pub fn json<T: serde::Serialize + ?Sized>(schema: &'static str, plan: &T) -> crate::Result<String> {
    crate::json_versioned(schema, plan, "plan")
}

/// A path's file name, or the path when it has none.
pub(crate) fn short(path: &str) -> &str {
    std::path::Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(path)
}

/// A line per run of a plan naming its busiest stage (the engine's utilisations), as
/// `bottleneck of the <what> <noun>: <stage>, U% busy` (`noun`: "run", "storm"); nothing for a
/// run without one.
pub(crate) fn bottleneck_lines<'a>(
    noun: &str,
    runs: impl IntoIterator<Item = (&'a str, Option<&'a model::Bottleneck>)>,
) -> String {
    let mut out = String::new();
    for (what, b) in runs {
        if let Some(b) = b {
            let _ = writeln!(out, "bottleneck of the {what} {noun}: {}", b.words());
        }
    }
    out
}

/// `plan interface`'s question in one line: interface, load, sizes, profile.
pub(crate) fn interface_heading(plan: &InterfacePlan, q: &InterfaceQuestion) -> String {
    format!(
        "{} at {:.3} Mb/s of {} messages, profile {}",
        plan.interface,
        plan.offered_bps / 1e6,
        sizes_text(&q.sizes, "/"),
        short(&q.profile.display().to_string())
    )
}

/// `plan interface`'s answer table: per suite cores, CPU, delays, highest load and its limit.
pub(crate) fn interface_table(plan: &InterfacePlan) -> Table {
    let mut t = Table::new(["suite", "cores", "CPU", "p50", "p99", "max load", "limit"]);
    t.widths(&[24, 5, 9, 11, 11, 14, 6])
        .gap(" ")
        .trim_end(false);
    for r in std::iter::once(&plan.plain)
        .chain(std::iter::once(&plan.secured))
        .chain(&plan.alternatives)
    {
        t.row([
            model::file::suite_or_none::name(r.suite).to_owned(),
            r.cores.to_string(),
            r.cpu
                .map_or_else(|| r.status.to_owned(), |c| format!("{:.2}%", c * 100.0)),
            r.p50_ns
                .map_or_else(|| r.status.to_owned(), |ns| format!("{:.2} us", ns / 1e3)),
            r.p99_ns
                .map_or_else(|| r.status.to_owned(), |ns| format!("{:.2} us", ns / 1e3)),
            format!("{:.1} Mb/s", r.max_bps / 1e6),
            r.limit.to_string(),
        ]);
    }
    t
}

/// Why a row's p50 equals its p99, when it does for a mix of sizes: each size has an almost
/// fixed delay at a light load, so the delays have one mode per size, and both percentiles
/// fall on the same one; the other mode shows as the smallest delay. `None` when no row has
/// p50 = p99 (within the histogram's 0.1%) above a smaller delay, or the mix has one size.
pub(crate) fn interface_modes_note(plan: &InterfacePlan, q: &InterfaceQuestion) -> Option<String> {
    let mut sizes: Vec<&str> = q.sizes.iter().map(|s| s.text()).collect();
    sizes.sort_unstable();
    sizes.dedup();
    if sizes.len() < 2 {
        return None;
    }
    let same = |a: f64, b: f64| (a - b).abs() <= 1e-3 * a.abs().max(b.abs());
    let rows: Vec<String> = std::iter::once(&plan.plain)
        .chain(std::iter::once(&plan.secured))
        .chain(&plan.alternatives)
        .filter_map(|r| match (r.p50_ns, r.p99_ns, r.min_ns) {
            (Some(p50), Some(p99), Some(min)) if same(p50, p99) && !same(min, p50) => {
                Some(format!(
                    "{} {:.2} us",
                    model::file::suite_or_none::name(r.suite),
                    min / 1e3
                ))
            }
            _ => None,
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    Some(format!(
        "p50 = p99: at this load each of the {} sizes has an almost fixed delay (one mode per size), and p50 and p99 fall on the same mode; the other mode shows as the fastest delay: {}",
        sizes_text(&q.sizes, "/"),
        rows.join(", ")
    ))
}

/// `plan interface`'s answer in one line: added latency, headroom and the cores needed for
/// `cpu_limit_pct` [%] and `latency_limit` (as the user gave them).
pub(crate) fn interface_answer(
    plan: &InterfacePlan,
    cpu_limit_pct: f64,
    latency_limit: &str,
) -> String {
    format!(
        "added latency p50 {:.2} us, p99 {:.2} us; headroom {:.1}x; cores needed for CPU <= {}% and added p99 <= {}: {}",
        plan.added_p50_ns / 1e3,
        plan.added_p99_ns / 1e3,
        plan.headroom,
        cpu_limit_pct,
        latency_limit,
        plan.cores_needed.map_or_else(
            || "none suffices (the one-server I/O path limits)".to_owned(),
            |c| c.to_string()
        )
    )
}

/// `plan interface` as text. `cpu_limit_pct` [%] and `latency_limit` are the limits as the
/// user gave them.
pub fn interface(
    plan: &InterfacePlan,
    q: &InterfaceQuestion,
    cpu_limit_pct: f64,
    latency_limit: &str,
) -> String {
    let mut out = format!("{}\n\n", interface_heading(plan, q));
    out.push_str(&interface_table(plan).text());
    out.push_str(&bottleneck_lines(
        "run",
        std::iter::once(&plan.plain)
            .chain(std::iter::once(&plan.secured))
            .chain(&plan.alternatives)
            .map(|r| {
                (
                    model::file::suite_or_none::name(r.suite),
                    r.bottleneck.as_ref(),
                )
            }),
    ));
    if let Some(note) = interface_modes_note(plan, q) {
        let _ = writeln!(out, "{note}");
    }
    let _ = writeln!(
        out,
        "\n{}",
        interface_answer(plan, cpu_limit_pct, latency_limit)
    );
    for f in &plan.findings {
        let _ = writeln!(out, "- {f}");
    }
    out
}

/// The letter of a fronthaul mode in the region map.
fn mode_letter(mode: &str) -> char {
    match mode {
        "none" => 'N',
        "macsec-integrity" => 'I',
        "macsec-encrypt" => 'E',
        "ipsec" => 'P',
        _ => '?',
    }
}

/// `plan fronthaul`'s path in one line: fibre, switches, rate, payload.
pub(crate) fn fronthaul_heading(q: &FronthaulQuestion) -> String {
    format!(
        "Open Fronthaul, {} fibre, {} switch(es) of {}, {}, frame payload {}",
        q.fibre, q.switches, q.switch_latency, q.rate, q.payload
    )
}

/// One profile's modes: frame, one-way and added delay, the transport delay against T12max.
pub(crate) fn modes_table(plan: &FronthaulPlan) -> Table {
    let mut t = Table::new(["mode", "frame", "one way", "added", "vs T12max"]);
    t.widths(&[18, 8, 12, 12, 14]).gap(" ").trim_end(false);
    for m in &plan.modes {
        t.row([
            m.mode.clone(),
            format!("{} B", m.frame_bytes),
            format!("{:.2} us", m.one_way_ns / 1e3),
            format!("{:.2} us", m.added_ns / 1e3),
            format!("{:.2} us", m.transport_ns / 1e3),
        ]);
    }
    t
}

/// The loaded run in one line: profile, O-DUs x O-RUs, load per O-RU, time simulated.
pub(crate) fn loaded_heading(plan: &FronthaulPlan, l: &LoadedPlan) -> String {
    format!(
        "under load, profile {}: {} O-DUs x {} O-RUs, {} of eCPRI per O-RU, {} simulated (init fronthaul's shape, run)",
        plan.profile, l.dus, l.rus_per_du, l.load, l.duration
    )
}

/// One profile's modes under load: the worst one-way delay of `init fronthaul`'s shape, what
/// counts against T12max, frames dropped and the pairs that fit.
pub(crate) fn loaded_table(l: &LoadedPlan) -> Table {
    let mut t = Table::new([
        "mode",
        "worst one way",
        "vs T12max",
        "dropped",
        "pairs that fit",
    ]);
    t.widths(&[18, 14, 14, 8, 14]).gap(" ").trim_end(false);
    for m in &l.modes {
        t.row([
            m.mode.clone(),
            format!("{:.2} us", m.worst_ns / 1e3),
            format!("{:.2} us", m.transport_ns / 1e3),
            m.dropped.to_string(),
            format!("{} of 168", m.fits),
        ]);
    }
    t
}

/// The verdict under load of category pair (`i`, `j`) (row, column indices into
/// `plan.categories`), one line per mode.
pub(crate) fn loaded_pair_text(
    plan: &FronthaulPlan,
    l: &LoadedPlan,
    (i, j): (usize, usize),
) -> String {
    let (rows, cols) = &plan.categories;
    let mut out = String::new();
    for m in &l.modes {
        let margin = m.margin_us[i][j];
        let verdict = if margin >= 0.0 && m.dropped == 0 {
            "fits"
        } else {
            "exceeds"
        };
        let _ = writeln!(
            out,
            "  O-DU {} / O-RU {} under load, {}: {verdict}, margin {margin:.2} us",
            cols[j], rows[i], m.mode
        );
    }
    out
}

/// One profile's verdict under load: [`loaded_heading`], [`loaded_table`] and the detailed
/// pair's verdict.
fn loaded_text(plan: &FronthaulPlan, l: &LoadedPlan, pair: Option<(usize, usize)>) -> String {
    let mut out = format!("{}\n", loaded_heading(plan, l));
    out.push_str(&loaded_table(l).text());
    out.push_str(&bottleneck_lines(
        "loaded run",
        l.modes
            .iter()
            .map(|m| (m.mode.as_str(), m.bottleneck.as_ref())),
    ));
    if let Some(p) = pair {
        out.push_str(&loaded_pair_text(plan, l, p));
    }
    out
}

/// The detail of category pair (`i`, `j`) (row, column indices into `mine.categories`): its
/// T12max, then per profile and mode whether it fits, the margin and the longest fibre.
pub(crate) fn pair_text(
    mine: &FronthaulPlan,
    other: Option<&FronthaulPlan>,
    (i, j): (usize, usize),
) -> String {
    let (rows, cols) = &mine.categories;
    let t12 = mine.t12max_us[i][j];
    let mut out = format!(
        "pair O-DU {} / O-RU {}: T12max {} us\n",
        cols[j], rows[i], t12
    );
    for plan in std::iter::once(mine).chain(other) {
        for m in &plan.modes {
            let margin = t12 as f64 - m.transport_ns / 1e3;
            let _ = writeln!(
                out,
                "  {:<26} {:<18} {:>4}  margin {:>9.2} us  longest fibre {:>8.2} km",
                short(&plan.profile),
                m.mode,
                if margin >= 0.0 { "fits" } else { "no" },
                margin,
                m.longest_fibre_m[i][j] / 1e3
            );
        }
    }
    out
}

/// [`pair_text`]'s detail as a table for the page (issue 37: it was preformatted text): per
/// profile and mode, the verdict, the margin to T12max and the longest fibre.
pub(crate) fn pair_table(
    mine: &FronthaulPlan,
    other: Option<&FronthaulPlan>,
    (i, j): (usize, usize),
) -> Table {
    use crate::table::Align::{Left, Right};
    let t12 = mine.t12max_us[i][j];
    let mut t = Table::new(["profile", "mode", "verdict", "margin", "longest fibre"]);
    t.align(&[Left, Left, Left, Right, Right]);
    for plan in std::iter::once(mine).chain(other) {
        for m in &plan.modes {
            let margin = t12 as f64 - m.transport_ns / 1e3;
            t.row([
                short(&plan.profile).to_owned(),
                m.mode.clone(),
                if margin >= 0.0 { "fits" } else { "no" }.to_owned(),
                format!("{margin:.2} us"),
                format!("{:.2} km", m.longest_fibre_m[i][j] / 1e3),
            ]);
        }
    }
    t
}

/// [`loaded_pair_text`]'s verdict as a table for the page: per mode, the verdict and margin
/// under load.
pub(crate) fn loaded_pair_table(l: &LoadedPlan, (i, j): (usize, usize)) -> Table {
    use crate::table::Align::{Left, Right};
    let mut t = Table::new(["mode", "verdict under load", "margin"]);
    t.align(&[Left, Left, Right]);
    for m in &l.modes {
        let margin = m.margin_us[i][j];
        let verdict = if margin >= 0.0 && m.dropped == 0 {
            "fits"
        } else {
            "exceeds"
        };
        t.row([
            m.mode.clone(),
            verdict.to_owned(),
            format!("{margin:.2} us"),
        ]);
    }
    t
}

/// The region map's legend: each mode's letter and name, and `.` for nothing fits.
pub(crate) fn region_legend(plan: &FronthaulPlan) -> String {
    let legend: Vec<String> = plan
        .modes
        .iter()
        .map(|m| format!("{} {}", mode_letter(&m.mode), m.mode))
        .collect();
    format!("{}, . nothing fits", legend.join(", "))
}

/// The region map's cells, one string per O-RU category row: per O-DU category the letter of
/// the strongest mode that fits, `.` when none does.
pub(crate) fn region_rows(plan: &FronthaulPlan) -> Vec<String> {
    let letters: Vec<char> = plan.modes.iter().map(|m| mode_letter(&m.mode)).collect();
    plan.best
        .iter()
        .map(|row| {
            row.iter()
                .map(|b| b.map_or('.', |(j, _)| letters[j]))
                .collect()
        })
        .collect()
}

/// The region map under load's cells ([`LoadedPlan::map`]), one string per O-RU category row
/// in `plan.categories`' order: per O-DU category the letter of the strongest mode that fits
/// under load, `.` when none does.
pub(crate) fn loaded_region_rows(plan: &FronthaulPlan, l: &LoadedPlan) -> Vec<String> {
    let (rows, cols) = &plan.categories;
    rows.iter()
        .map(|r| {
            cols.iter()
                .map(|c| {
                    l.map
                        .get(r)
                        .and_then(|row| row.get(c))
                        .and_then(Option::as_ref)
                        .map_or('.', |cell| mode_letter(&cell.mode))
                })
                .collect()
        })
        .collect()
}

/// The region maps shown side by side, each with its label: without load this profile's and
/// the compared one's; under load this profile's loaded map, the compared profile's loaded
/// map, and this profile's unloaded map for reference.
pub(crate) fn region_maps<'a>(
    mine: &'a FronthaulPlan,
    other: Option<&'a FronthaulPlan>,
) -> Vec<(String, &'a FronthaulPlan, Vec<String>)> {
    match &mine.loaded {
        None => std::iter::once(("this profile".to_owned(), mine, region_rows(mine)))
            .chain(other.map(|o| ("compared profile".to_owned(), o, region_rows(o))))
            .collect(),
        Some(l) => std::iter::once((
            "this profile, loaded".to_owned(),
            mine,
            loaded_region_rows(mine, l),
        ))
        .chain(other.and_then(|o| {
            o.loaded.as_ref().map(|ol| {
                (
                    "compared profile, loaded".to_owned(),
                    o,
                    loaded_region_rows(o, ol),
                )
            })
        }))
        .chain(std::iter::once((
            "this profile, unloaded".to_owned(),
            mine,
            region_rows(mine),
        )))
        .collect(),
    }
}

/// The region map's first line: what it shows (under load: with which load).
pub(crate) fn region_title(mine: &FronthaulPlan) -> String {
    match &mine.loaded {
        None => "region map: the strongest mode that fits T12max on this path (rows O-RU category, columns O-DU category)".to_owned(),
        Some(l) => format!(
            "region map under load: the strongest mode that fits T12max on this path with {} O-DUs x {} O-RUs at {} of eCPRI per O-RU (rows O-RU category, columns O-DU category); the unloaded map (one frame per millisecond) beside it for reference",
            l.dus, l.rus_per_du, l.load
        ),
    }
}

/// `plan fronthaul` as text: per profile the modes' frame and delays, the detailed category
/// `pair` (row, column indices into `mine.categories`) if asked, the region map (beside
/// `other`'s when comparing) and the findings.
pub fn fronthaul(
    q: &FronthaulQuestion,
    mine: &FronthaulPlan,
    other: Option<&FronthaulPlan>,
    pair: Option<(usize, usize)>,
) -> String {
    let mut out = format!("{}\n", fronthaul_heading(q));
    let plans = || std::iter::once(mine).chain(other);
    for plan in plans() {
        let _ = writeln!(out, "\nprofile {}", plan.profile);
        out.push_str(&modes_table(plan).text());
        out.push_str(&bottleneck_lines(
            "run",
            plan.modes
                .iter()
                .map(|m| (m.mode.as_str(), m.bottleneck.as_ref())),
        ));
    }
    let (rows, cols) = &mine.categories;
    if let Some(p) = pair {
        out.push('\n');
        out.push_str(&pair_text(mine, other, p));
    }
    for plan in plans() {
        if let Some(l) = &plan.loaded {
            out.push('\n');
            out.push_str(&loaded_text(plan, l, pair));
        }
    }
    let _ = writeln!(out, "\n{}", region_title(mine));
    let _ = writeln!(out, "legend: {}", region_legend(mine));
    let header: String = cols.iter().collect();
    let maps = region_maps(mine, other);
    let mut head = format!("    {header}");
    for _ in &maps[1..] {
        let _ = write!(head, "      {header}");
    }
    let labels: Vec<&str> = maps.iter().map(|m| m.0.as_str()).collect();
    let _ = writeln!(out, "{head}   <- {}", labels.join(" | "));
    for (i, r) in rows.iter().enumerate() {
        let mut line = format!("{r}   {}", maps[0].2[i]);
        for m in &maps[1..] {
            let _ = write!(line, "   {r}  {}", m.2[i]);
        }
        let _ = writeln!(out, "{line}");
    }
    out.push('\n');
    for plan in plans() {
        for f in &plan.findings {
            let _ = writeln!(out, "- {}: {f}", short(&plan.profile));
        }
    }
    out
}

/// A time \[ns\] in milliseconds with `decimals`, or "none" when there is none (nothing
/// completed).
fn ms_or_none(ns: Option<f64>, decimals: usize) -> String {
    ns.map_or_else(
        || "none".to_owned(),
        |ns| format!("{:.decimals$} ms", ns / 1e6),
    )
}

/// `plan kex`'s question in one line: authentication, tunnels, path, and loss if any.
pub(crate) fn kex_heading(q: &KexQuestion) -> String {
    format!(
        "IKEv2 set-up with {} authentication{}; {} tunnels at once; {} over {} at MTU {}{}",
        q.auth,
        if q.peer.is_minimal() {
            String::new()
        } else {
            format!(", peer {}", q.peer.name())
        },
        q.tunnels,
        q.rate,
        q.length,
        q.mtu,
        if q.loss > 0.0 {
            format!(
                "; {:.2}% loss each way (set-up: mean, p99 and failures over {} tunnels; storm all back and p50: over runs, below)",
                q.loss * 100.0,
                whatif::plan::SETUP_SAMPLES
            )
        } else {
            String::new()
        }
    )
}

/// `plan kex`'s answer table: per key exchange the set-up time, bytes, CPU and the storm.
pub(crate) fn kex_table(plan: &KexPlan) -> Table {
    let mut t = Table::new([
        "key exchange",
        "set-up",
        "set-up p99",
        "failed",
        "bytes/SA",
        "responder CPU",
        "initiator CPU",
        "storm all back",
        "storm p50",
        "RIC CPU",
        "RIC I/O",
    ]);
    // The first column as wide as the longest name (hybrids such as x25519+frodokem-640-aes
    // are longer than the header), at least 18; the others fixed.
    let w = plan
        .rows
        .iter()
        .map(|r| r.ke.len())
        .chain([18])
        .max()
        .unwrap_or(18);
    t.widths(&[w, 10, 12, 8, 12, 14, 14, 14, 12, 8, 8])
        .gap(" ")
        .trim_end(false);
    for r in &plan.rows {
        t.row([
            r.ke.clone(),
            ms_or_none(r.setup_ns, 3),
            ms_or_none(r.setup_p99_ns, 3),
            format!("{:.2}%", r.setup_failed * 100.0),
            format!("{} B", r.setup_bytes),
            format!("{:.1} us", r.responder_work_ns / 1e3),
            format!("{:.1} us", r.initiator_work_ns / 1e3),
            ms_or_none(r.storm_all_back_ns, 2),
            ms_or_none(r.storm_p50_ns, 2),
            format!("{:.1}%", r.responder_cpu * 100.0),
            r.responder_io
                .map_or_else(|| "-".to_owned(), |u| format!("{:.1}%", u * 100.0)),
        ]);
    }
    t
}

/// A time in seconds, to 2 decimals without trailing zeros (`4 s`, `11.2 s`, `24.16 s`).
fn secs(ns: f64) -> String {
    let t = format!("{:.2}", ns / 1e9);
    format!("{} s", t.trim_end_matches('0').trim_end_matches('.'))
}

/// With loss: the line above [`kex_loss_table`], saying what it counts.
pub(crate) fn kex_loss_heading(plan: &KexPlan) -> Option<String> {
    let l = plan.rows.first()?.loss.as_ref()?;
    Some(format!(
        "The storm over {} runs (seed {}), each drawing the losses anew: the share of tunnels up by each retransmission of the schedule and by the give-up, the chance a tunnel gives up, the completion percentiles over every tunnel, and each run's slowest SA (lowest / median / highest)",
        l.replications, l.seed
    ))
}

/// With loss: per key exchange the storm's distribution over replications
/// ([`whatif::plan::LossSpread`]); `None` without loss.
pub(crate) fn kex_loss_table(plan: &KexPlan) -> Option<Table> {
    let first = plan.rows.first()?.loss.as_ref()?;
    let steps: Vec<String> = first
        .steps
        .iter()
        .map(|st| format!("by {}", secs(st.at_ns)))
        .collect();
    let mut head = vec!["key exchange".to_owned()];
    head.extend(steps.iter().cloned());
    head.extend(
        ["gave up", "p50", "p90", "p99", "slowest SA of a run"]
            .iter()
            .map(|h| (*h).to_owned()),
    );
    let mut t = Table::new(head);
    let w = plan
        .rows
        .iter()
        .map(|r| r.ke.len())
        .chain([18])
        .max()
        .unwrap_or(18);
    let mut widths = vec![w];
    widths.extend(steps.iter().map(|s| s.len().max(7)));
    widths.extend([8, 11, 11, 11, 33]);
    t.widths(&widths).gap(" ").trim_end(false);
    let s =
        |ns: Option<f64>| ns.map_or_else(|| "none".to_owned(), |ns| format!("{:.2} s", ns / 1e9));
    for r in &plan.rows {
        let Some(l) = &r.loss else { continue };
        let mut row = vec![r.ke.clone()];
        row.extend(
            l.steps
                .iter()
                .map(|st| format!("{:.1}%", st.share_up * 100.0)),
        );
        row.push(format!("{:.2}%", l.gave_up * 100.0));
        row.push(s(l.completion.map(|c| c.p50_ns)));
        row.push(s(l.completion.map(|c| c.p90_ns)));
        row.push(s(l.completion.map(|c| c.p99_ns)));
        row.push(l.last_back.map_or_else(
            || "none back".to_owned(),
            |b| {
                format!(
                    "{} / {} / {}",
                    s(Some(b.min_ns)),
                    s(Some(b.p50_ns)),
                    s(Some(b.max_ns))
                )
            },
        ));
        t.row(row);
    }
    Some(t)
}

/// `plan kex` as text: per key exchange the set-up time, bytes, CPU and the storm (with loss,
/// then its distribution over replications), then the findings.
pub fn kex(plan: &KexPlan, q: &KexQuestion) -> String {
    let mut out = format!("{}\n\n", kex_heading(q));
    out.push_str(&kex_table(plan).text());
    out.push_str(&bottleneck_lines(
        "storm",
        plan.rows
            .iter()
            .map(|r| (r.ke.as_str(), r.bottleneck.as_ref())),
    ));
    out.push('\n');
    if let (Some(h), Some(t)) = (kex_loss_heading(plan), kex_loss_table(plan)) {
        let _ = writeln!(out, "{h}:\n");
        out.push_str(&t.text());
        out.push('\n');
    }
    for f in &plan.findings {
        let _ = writeln!(out, "- {f}");
    }
    out
}
