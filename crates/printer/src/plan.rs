//! `oransim plan`'s text and JSON: the key-exchange, fronthaul and interface plans of
//! [`model::plan`]. The question (or the flags as given) supplies the headings.

use std::fmt::Write as _;

use model::plan::{
    FronthaulPlan, FronthaulQuestion, InterfacePlan, InterfaceQuestion, KexPlan, KexQuestion,
};

use crate::table::Table;

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
fn short(path: &str) -> &str {
    std::path::Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(path)
}

/// `plan interface` as text. `cpu_limit_pct` [%] and `latency_limit` are the limits as the
/// user gave them.
pub fn interface(
    plan: &InterfacePlan,
    q: &InterfaceQuestion,
    cpu_limit_pct: f64,
    latency_limit: &str,
) -> String {
    let mut out = format!(
        "{} at {:.3} Mb/s of {} messages, profile {}\n\n",
        plan.interface,
        plan.offered_bps / 1e6,
        q.sizes.join("/"),
        short(&q.profile.display().to_string())
    );
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
    out.push_str(&t.text());
    let _ = writeln!(
        out,
        "\nadded latency p50 {:.2} us, p99 {:.2} us; headroom {:.1}x; cores needed for CPU <= {}% and added p99 <= {}: {}",
        plan.added_p50_ns / 1e3,
        plan.added_p99_ns / 1e3,
        plan.headroom,
        cpu_limit_pct,
        latency_limit,
        plan.cores_needed.map_or_else(
            || "none suffices (the one-server I/O path limits)".to_owned(),
            |c| c.to_string()
        )
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

/// `plan fronthaul` as text: per profile the modes' frame and delays, the detailed category
/// `pair` (row, column indices into `mine.categories`) if asked, the region map (beside
/// `other`'s when comparing) and the findings.
pub fn fronthaul(
    q: &FronthaulQuestion,
    mine: &FronthaulPlan,
    other: Option<&FronthaulPlan>,
    pair: Option<(usize, usize)>,
) -> String {
    let mut out = format!(
        "Open Fronthaul, {} fibre, {} switch(es) of {}, {}, frame payload {}\n",
        q.fibre, q.switches, q.switch_latency, q.rate, q.payload
    );
    let plans = || std::iter::once(mine).chain(other);
    for plan in plans() {
        let _ = writeln!(out, "\nprofile {}", plan.profile);
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
        out.push_str(&t.text());
    }
    let (rows, cols) = &mine.categories;
    if let Some((i, j)) = pair {
        let t12 = mine.t12max_us[i][j];
        let _ = writeln!(
            out,
            "\npair O-DU {} / O-RU {}: T12max {} us",
            cols[j], rows[i], t12
        );
        for plan in plans() {
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
    }
    out.push_str("\nregion map: the strongest mode that fits T12max on this path (rows O-RU category, columns O-DU category)\n");
    let letters: Vec<char> = mine.modes.iter().map(|m| mode_letter(&m.mode)).collect();
    let legend: Vec<String> = mine
        .modes
        .iter()
        .map(|m| format!("{} {}", mode_letter(&m.mode), m.mode))
        .collect();
    let _ = writeln!(out, "legend: {}, . nothing fits", legend.join(", "));
    let header: String = cols.iter().collect();
    let mut head = format!("    {header}");
    if other.is_some() {
        let _ = write!(head, "      {header}");
    }
    let _ = writeln!(
        out,
        "{head}   <- this profile{}",
        if other.is_some() {
            " | compared profile"
        } else {
            ""
        }
    );
    for (i, r) in rows.iter().enumerate() {
        let cells = |p: &FronthaulPlan| -> String {
            p.best[i]
                .iter()
                .map(|b| b.map_or('.', |(j, _)| letters[j]))
                .collect()
        };
        let mut line = format!("{r}   {}", cells(mine));
        if let Some(o) = other {
            let _ = write!(line, "   {r}  {}", cells(o));
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

/// `plan kex` as text: per key exchange the set-up time, bytes, CPU and the storm, then the
/// findings.
pub fn kex(plan: &KexPlan, q: &KexQuestion) -> String {
    let mut out = format!(
        "IKEv2 set-up with {} authentication; {} tunnels at once; {} over {} at MTU {}{}\n\n",
        q.auth,
        q.tunnels,
        q.rate,
        q.length,
        q.mtu,
        if q.loss > 0.0 {
            format!(
                "; {:.2}% loss each way (set-up: mean, p99 and failures over {} tunnels)",
                q.loss * 100.0,
                model::plan::SETUP_SAMPLES
            )
        } else {
            String::new()
        }
    );
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
    t.widths(&[w, 10, 12, 8, 12, 14, 14, 14, 12, 8])
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
        ]);
    }
    out.push_str(&t.text());
    out.push('\n');
    for f in &plan.findings {
        let _ = writeln!(out, "- {f}");
    }
    out
}
