//! The reproduction's facts in words: a [`Fact::Text`] as the analysis wrote it, and the MTU
//! study's advice ([`MtuAdvice`], decided and checked in `model`) as sentences.

use evidence::reproduce::{CoreGroup, Fact, MtuAdvice, Outcome, OutcomeNumbers};

/// A fact as printed: the text, or `Advice: <sentence>` (`Advice withheld (contradicted by
/// its own runs): <sentence>` when its claims do not all hold).
pub fn fact(f: &Fact) -> String {
    match f {
        Fact::Text(t) => t.clone(),
        Fact::Advice { advice, withheld } => {
            let lead = if *withheld {
                "Advice withheld (contradicted by its own runs)"
            } else {
                "Advice"
            };
            format!("{lead}: {}", sentence(advice))
        }
    }
}

/// The advice as one sentence (or a few).
pub fn sentence(a: &MtuAdvice) -> String {
    match a {
        MtuAdvice::AtLoad { load, groups } => {
            let parts: Vec<String> = groups.iter().map(group).collect();
            format!("At {load}: {}.", parts.join("; "))
        }
        MtuAdvice::SplitPolicy {
            loads,
            core_counts,
            even,
            runs,
            against,
        } => {
            if against.is_empty() {
                format!(
                    "If the path MTU forces a split, split evenly: in every run ({loads} loads x {core_counts} core counts, MTU 5000 and 8000), the even split is as fast as the greedy one or faster, and sustains whatever the greedy one sustains."
                )
            } else {
                let not: Vec<String> = against
                    .iter()
                    .map(|(mtu, load, cores)| format!("MTU {mtu} at {load} with {cores} cores"))
                    .collect();
                format!(
                    "An even split is as fast as the greedy one or faster in {even} of the {runs} MTU 5000/8000 comparisons run; not at {}.",
                    not.join(", ")
                )
            }
        }
        MtuAdvice::NoSplit {
            only_no_split_sustains,
            no_split_faster,
            even_not_slower,
            both_saturate,
        } => {
            let outcomes = [
                (
                    "only MTU 9000 sustains the load (the CPU limits, and a split pays MACsec's fixed cost once per frame) at",
                    only_no_split_sustains,
                ),
                ("MTU 9000 has the lower payload delay at", no_split_faster),
                ("the even split is as fast or faster at", even_not_slower),
                ("both saturate at", both_saturate),
            ];
            let parts: Vec<String> = outcomes
                .iter()
                .filter(|(_, list)| !list.is_empty())
                .enumerate()
                .map(|(i, (what, list))| {
                    let entries: Vec<String> = list.iter().map(outcome).collect();
                    let p = format!("{what} {}", entries.join("; "));
                    if i == 0 { p } else { capitalised(&p) }
                })
                .collect();
            format!(
                "MTU 9000 (no split) against an even split (two 4096 B frames): {}.",
                parts.join(". ")
            )
        }
    }
}

/// One group's verdict: `with 1 and 4 cores, MTU 9000 gives the lowest payload delay (...)`.
fn group(g: &CoreGroup) -> String {
    let who = cores_words(&g.cores, g.profile_cores);
    let first = n_cores(g.cores.first().copied().unwrap_or(0));
    let n = &g.numbers;
    if !g.lowest.is_empty() {
        let mut t = format!(
            "with {who}, {} gives the lowest payload delay ({first}: {:.1} us mean, {:.1} us p99)",
            g.lowest.join(" = "),
            n.mean_us,
            n.p99_us
        );
        if !g.saturated.is_empty() {
            t.push_str(&format!(", while {} saturate", g.saturated.join(", ")));
        }
        t
    } else {
        let mut t = format!(
            "with {who}, every variant saturates; {} carries the most ({first}: {:.0} Mb/s",
            g.most.join(" = "),
            n.delivered_mbps
        );
        if let Some((mbps, label)) = n.against {
            t.push_str(&format!(" against {mbps:.0} Mb/s for {label}"));
        }
        t.push(')');
        t
    }
}

/// One outcome of MTU 9000 against the even split: `<load> with <cores> (<numbers>)`.
fn outcome(o: &Outcome) -> String {
    let w = cores_words(&o.cores, o.profile_cores);
    let words = match o.numbers {
        OutcomeNumbers::MoreThroughput {
            mbps,
            against_mbps,
            pct,
        } => format!("{mbps:.0} Mb/s against {against_mbps:.0}, {pct:.0}% more"),
        OutcomeNumbers::Delays { us, against_us } => format!("{us:.1} vs {against_us:.1} us"),
        OutcomeNumbers::OnlyEvenSustains => "MTU 9000 saturates, the even split does not".into(),
        OutcomeNumbers::None => String::new(),
    };
    if words.is_empty() {
        format!("{} with {w}", o.load)
    } else {
        let first = n_cores(o.cores.first().copied().unwrap_or(0));
        format!("{} with {w} ({first}: {words})", o.load)
    }
}

/// `at 1 core`, `at 4 cores`.
fn n_cores(c: u32) -> String {
    format!("at {c} core{}", if c == 1 { "" } else { "s" })
}

/// `s` with its first letter upper-case.
fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Core counts in words: `1, 2 and 4 cores`, the profile's own named as such.
fn cores_words(cs: &[u32], profile: u32) -> String {
    let w: Vec<String> = cs
        .iter()
        .map(|&c| {
            if c == profile {
                format!("{c} (the profile's)")
            } else {
                c.to_string()
            }
        })
        .collect();
    let n = if cs == [1] { "core" } else { "cores" };
    match w.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last} {n}", rest.join(", ")),
        _ => format!("{} {n}", w.join("")),
    }
}
