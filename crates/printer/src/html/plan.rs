//! `oransim plan … --html FILE`: a plan as one page: the question, the inputs as given, the
//! answer tables, a figure ([`super::figures`]: the storm's completion over time on the kex
//! page, delay against load on the interface page) and the findings. (The fronthaul region map
//! is a table of coloured cells.)

use std::fmt::Write as _;

use whatif::plan::{
    FronthaulPlan, FronthaulQuestion, InterfacePlan, InterfaceQuestion, KexPlan, KexQuestion,
    LoadCurve,
};

use super::{Made, escape, figures, footer, page};
use crate::plan::{
    fronthaul_heading, interface_answer, interface_heading, interface_modes_note, interface_table,
    kex_heading, kex_loss_heading, kex_loss_table, kex_table, loaded_heading, loaded_pair_table,
    loaded_table, modes_table, pair_table, region_legend, region_maps, region_title, short,
    sizes_text,
};
use crate::plot::Figure;
use crate::table::Table;

/// The inputs as a two-column table of flag and value.
fn inputs(rows: &[(&str, String)]) -> String {
    let mut t = Table::new(["input", "value"]);
    t.align(&[crate::table::Align::Left, crate::table::Align::Left]);
    for (k, v) in rows {
        t.row([(*k).to_owned(), v.clone()]);
    }
    format!("<h2 id=\"inputs\">Inputs</h2>\n{}", t.html())
}

/// The page's head: the command, the question, and `heading` (the plan's one-line
/// description).
fn question(command: &str, question: &str, heading: &str) -> String {
    format!(
        "<h1>oransim plan {}</h1>\n<p><strong>Question:</strong> {}</p>\n<p>{}</p>\n",
        escape(command),
        escape(question),
        escape(heading)
    )
}

fn cores(c: Option<u32>) -> String {
    c.map_or_else(|| "the profile's".to_owned(), |c| c.to_string())
}

/// `figure` as an inline SVG under `id` with its `caption` (escaped); nothing without one.
fn figure(id: &str, figure: Option<Figure>, caption: &str) -> crate::Result<String> {
    let Some(f) = figure else {
        return Ok(String::new());
    };
    Ok(format!(
        "<figure id=\"{}\">\n{}<figcaption>{}</figcaption>\n</figure>\n",
        escape(id),
        f.svg()?,
        escape(caption)
    ))
}

/// `plan interface` as a page, with `curves` ([`whatif::plan::load_curves`]) drawn as delay
/// against load. `cpu_limit_pct` [%] and `latency_limit` are the limits as the user gave them;
/// `made` goes into the footer.
pub fn interface(
    plan: &InterfacePlan,
    q: &InterfaceQuestion,
    curves: &[LoadCurve],
    cpu_limit_pct: f64,
    latency_limit: &str,
    made: &Made<'_>,
) -> crate::Result<String> {
    let mut b = question(
        "interface",
        &format!(
            "what does securing {} cost in CPU and latency at this load, how much load is left, and how many cores keep it within the limits?",
            plan.interface
        ),
        &interface_heading(plan, q),
    );
    let suites: Vec<&str> = q
        .alternatives
        .iter()
        .map(|s| model::file::suite_or_none::name(Some(*s)))
        .collect();
    b.push_str(&inputs(&[
        ("--interface", q.interface.clone()),
        ("--profile", q.profile.display().to_string()),
        (
            "--suite",
            model::file::suite_or_none::name(Some(q.suite)).to_owned(),
        ),
        ("--rate", q.rate.to_string()),
        ("--sizes", sizes_text(&q.sizes, ",")),
        ("--cores", cores(q.cores)),
        ("--cpu-limit", format!("{cpu_limit_pct}%")),
        ("--latency-limit", latency_limit.to_owned()),
        ("--compare", suites.join(",")),
    ]));
    b.push_str(&warnings(&plan.warnings));
    b.push_str("<h2 id=\"answer\">Answer</h2>\n");
    b.push_str(&interface_table(plan).html());
    if let Some(note) = interface_modes_note(plan, q) {
        let _ = writeln!(b, "<p>{}</p>", escape(&note));
    }
    let _ = writeln!(
        b,
        "<p>{}</p>",
        escape(&interface_answer(plan, cpu_limit_pct, latency_limit))
    );
    b.push_str(&figure(
        "delay-against-load",
        figures::interface(plan, curves),
        &format!(
            "One-way delay p99 (bold, with a marker at each load simulated) and p50 (faint) against the offered load, each suite simulated as the table's run is (same profile, cores, message sizes, {} packets) at {}0% to {}0% of the highest sustainable load of the secured suites, each below {:.0}% of its own; the grey line is the offered load, the table's row.",
            20000,
            1,
            whatif::plan::CURVE_STEPS - 1,
            whatif::plan::CURVE_CEILING * 100.0
        ),
    )?);
    b.push_str(&findings(&plan.findings));
    b.push_str(&footer(made));
    Ok(page(
        &format!("oransim plan interface: {}", plan.interface),
        &b,
    ))
}

/// `plan fronthaul` as a page: per profile the modes, the detailed category `pair` if asked
/// (row, column indices into `mine.categories`), the region maps and the findings; `made` goes
/// into the footer.
pub fn fronthaul(
    q: &FronthaulQuestion,
    mine: &FronthaulPlan,
    other: Option<&FronthaulPlan>,
    pair: Option<(usize, usize)>,
    made: &Made<'_>,
) -> String {
    let mut b = question(
        "fronthaul",
        "which O-DU/O-RU category pairs (000 Table 4) fit each security mode on this path, with what margin?",
        &fronthaul_heading(q),
    );
    let mut rows = vec![
        ("--profile", q.profile.display().to_string()),
        (
            "--compare",
            other.map_or_else(String::new, |o| o.profile.clone()),
        ),
        ("--cores", cores(q.cores)),
        ("--fibre", q.fibre.to_string()),
        ("--switches", q.switches.to_string()),
        ("--switch-latency", q.switch_latency.to_string()),
        ("--rate", q.rate.to_string()),
        ("--payload", q.payload.to_string()),
        ("--mode", q.modes.join(",")),
    ];
    if let Some(l) = &mine.loaded {
        rows.extend([
            ("--load", l.load.clone()),
            ("--dus", l.dus.to_string()),
            ("--rus-per-du", l.rus_per_du.to_string()),
        ]);
    }
    b.push_str(&inputs(&rows));
    let warned: Vec<String> = std::iter::once(mine)
        .chain(other)
        .flat_map(|p| p.warnings.iter().cloned())
        .collect();
    b.push_str(&warnings(&warned));
    b.push_str("<h2 id=\"answer\">Answer</h2>\n");
    for plan in std::iter::once(mine).chain(other) {
        let _ = writeln!(b, "<h3>Profile {}</h3>", escape(&plan.profile));
        b.push_str(&modes_table(plan).html());
    }
    if let Some(p) = pair {
        let (rows, cols) = &mine.categories;
        let _ = writeln!(
            b,
            "<h3>Category pair</h3>\n<p>pair O-DU {} / O-RU {}: T12max {} us</p>",
            escape(&cols[p.1].to_string()),
            escape(&rows[p.0].to_string()),
            mine.t12max_us[p.0][p.1]
        );
        b.push_str(&pair_table(mine, other, p).html());
    }
    for plan in std::iter::once(mine).chain(other) {
        if let Some(l) = &plan.loaded {
            let _ = writeln!(
                b,
                "<h3>Under load: {}</h3>\n<p>{}</p>",
                escape(short(&plan.profile)),
                escape(&loaded_heading(plan, l))
            );
            b.push_str(&loaded_table(l).html());
            if let Some(p) = pair {
                let (rows, cols) = &plan.categories;
                let _ = writeln!(
                    b,
                    "<p>O-DU {} / O-RU {} under load:</p>",
                    escape(&cols[p.1].to_string()),
                    escape(&rows[p.0].to_string())
                );
                b.push_str(&loaded_pair_table(l, p).html());
            }
        }
    }
    let title = region_title(mine);
    let title = title.strip_prefix("region map: ").unwrap_or(&title);
    let mut title = title.replacen("region map under load: ", "", 1);
    if let Some(c) = title.get(..1) {
        title.replace_range(..1, &c.to_uppercase());
    }
    let _ = writeln!(
        b,
        "<h3>Region map{}</h3>\n<p>{}.</p>",
        if mine.loaded.is_some() {
            " under load"
        } else {
            ""
        },
        escape(&title)
    );
    let _ = writeln!(b, "<p>Legend: {}</p>", escape(&region_legend(mine)));
    for (label, plan, cells) in region_maps(mine, other) {
        let caption = if mine.loaded.is_some() {
            format!(
                "{}, {}",
                short(&plan.profile),
                label.rsplit(", ").next().unwrap_or("")
            )
        } else {
            short(&plan.profile).to_owned()
        };
        b.push_str(&region_map(plan, &caption, &cells));
    }
    for plan in std::iter::once(mine).chain(other) {
        if !plan.findings.is_empty() {
            let _ = writeln!(b, "<h3>Findings: {}</h3>", escape(short(&plan.profile)));
            b.push_str(&findings_list(&plan.findings));
        }
    }
    b.push_str(&footer(made));
    page("oransim plan fronthaul", &b)
}

/// One region map (`cells`, one string per O-RU row of `plan.categories`) as a table of
/// letters under `caption`, each cell coloured by its mode.
fn region_map(plan: &FronthaulPlan, caption: &str, cells: &[String]) -> String {
    let (rows, cols) = &plan.categories;
    let mut s = format!(
        "<table class=\"region\">\n<caption>{}</caption>\n<thead><tr><th></th>",
        escape(caption)
    );
    for c in cols {
        let _ = write!(s, "<th>{}</th>", escape(&c.to_string()));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for (r, cells) in rows.iter().zip(cells) {
        let _ = write!(s, "<tr><th>{}</th>", escape(&r.to_string()));
        for c in cells.chars() {
            let class = if c == '.' {
                "m-none".to_owned()
            } else {
                format!("m-{c}")
            };
            let _ = write!(
                s,
                "<td class=\"region {}\">{}</td>",
                escape(&class),
                escape(&c.to_string())
            );
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody>\n</table>\n");
    s
}

/// `plan kex` as a page, with the storm's completion over time drawn per key exchange; `made`
/// goes into the footer.
pub fn kex(plan: &KexPlan, q: &KexQuestion, made: &Made<'_>) -> crate::Result<String> {
    let mut b = question(
        "kex",
        "how long does an IKEv2 security association take to set up with each key exchange, what does it cost, and how long does a storm of tunnels re-establishing at once take?",
        &kex_heading(q),
    );
    b.push_str(&inputs(&[
        ("--ke", q.kes.join(",")),
        ("--auth", q.auth.clone()),
        ("--tunnels", q.tunnels.to_string()),
        ("--profile", q.initiator_profile.display().to_string()),
        (
            "--responder-profile",
            q.responder_profile.display().to_string(),
        ),
        ("--cores", cores(q.responder_cores)),
        ("--rate", q.rate.to_string()),
        ("--length", q.length.to_string()),
        ("--mtu", q.mtu.to_string()),
        ("--loss", q.loss.to_string()),
        ("--peer", q.peer.name().to_owned()),
    ]));
    b.push_str(&warnings(&plan.warnings));
    b.push_str("<h2 id=\"answer\">Answer</h2>\n");
    b.push_str(&kex_table(plan).html());
    if let (Some(h), Some(t)) = (kex_loss_heading(plan), kex_loss_table(plan)) {
        let _ = writeln!(b, "<p>{}:</p>", escape(&h));
        b.push_str(&t.html());
    }
    b.push_str(&figure(
        "storm-completion",
        figures::kex(plan),
        &format!(
            "The share of the storm's {} tunnels up against time from the storm's start, one curve per key exchange: the engine's completion time of each tunnel (its start to its last response), in 0.1% slots{}.",
            q.tunnels,
            if q.loss > 0.0 {
                "; with loss, every replication's tunnels together, those that gave up never up"
            } else {
                ""
            }
        ),
    )?);
    b.push_str(&findings(&plan.findings));
    b.push_str(&footer(made));
    Ok(page("oransim plan kex", &b))
}

/// What the profiles carry with them ([`model::warnings`]: noisy, flagged, a user-space
/// profile for a kernel path) under their heading, as stderr says them; nothing when there are
/// none (issue 37 item 2: a warned plan's page says so too).
fn warnings(items: &[String]) -> String {
    if items.is_empty() {
        return String::new();
    }
    format!(
        "<h2 id=\"warnings\">Warnings</h2>\n<div class=\"summary failed\">{}</div>\n",
        findings_list(items)
    )
}

/// The findings under their heading; nothing when there are none.
fn findings(items: &[String]) -> String {
    if items.is_empty() {
        return String::new();
    }
    format!(
        "<h2 id=\"findings\">Findings</h2>\n{}",
        findings_list(items)
    )
}

/// Findings as a list, each escaped, its Markdown code spans (`` `oransim calibrate` ``) as
/// `<code>` (issue 37: the pages showed the back-ticks); nothing when there are none.
fn findings_list(items: &[String]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let mut out = String::from("<ul>\n");
    for i in items {
        let _ = writeln!(out, "<li>{}</li>", code_spans(&escape(i)));
    }
    out.push_str("</ul>\n");
    out
}

/// `text` (escaped HTML) with each pair of back-ticks around a span made `<code>`; an unpaired
/// back-tick stays as it is.
fn code_spans(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len() < 3 {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 16);
    // Pairs only: with an odd number of back-ticks the last one is kept as text.
    let paired = if parts.len() % 2 == 1 {
        parts.len()
    } else {
        parts.len() - 1
    };
    for (i, part) in parts.iter().enumerate() {
        if i >= paired {
            out.push('`');
            out.push_str(part);
        } else if i % 2 == 1 {
            let _ = write!(out, "<code>{part}</code>");
        } else {
            out.push_str(part);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::code_spans;

    /// Issue 37: the pages' findings show code spans as code, not back-ticks.
    #[test]
    fn code_spans_become_code() {
        assert_eq!(
            code_spans("run `oransim calibrate` on a host"),
            "run <code>oransim calibrate</code> on a host"
        );
        assert_eq!(
            code_spans("a `b` c `d`"),
            "a <code>b</code> c <code>d</code>"
        );
        assert_eq!(code_spans("one ` only"), "one ` only");
        assert_eq!(code_spans("`a` and `b"), "<code>a</code> and `b");
        assert_eq!(code_spans("none"), "none");
    }
}
