//! The key-exchange plan's findings in words: each key exchange against the first, and what
//! bounds each storm.

use std::fmt::Write as _;

use super::{KexRow, LossSpread};
use crate::generate::Placement;
use model::StageKind;
use model::warnings::{reference_ike_factor, reference_profile};

/// "on the reference host strongSwan's responder spent F x the cipher-only CPU per SA (x25519,
/// PSK)", from [`reference_profile`].
pub(super) fn reference_factor() -> String {
    match (reference_profile(), reference_ike_factor()) {
        (Some(p), Some((f, real, crypto))) => format!(
            "on the reference host (calibration/host-2026-11-26-strongswan.toml, strongSwan {}) the responder spent {f:.1}x the cipher-only CPU per SA in a storm (x25519, PSK: {:.0} us against {:.0} us)",
            p.real_implementation().map_or("", |i| i.version.as_str()),
            real / 1e3,
            crypto / 1e3
        ),
        _ => "the reference strongSwan profile could not be read".to_owned(),
    }
}

/// Where the daemons ran, in words.
pub(super) fn placement_words(p: Placement) -> &'static str {
    match p {
        Placement::Separate => "each initiator its own machine, the responder alone on its cores",
        Placement::Initiators => {
            "one initiator daemon on a host of its own, the responder alone on its cores"
        }
        Placement::Shared => {
            "one initiator daemon and the responder on one host, sharing its cores"
        }
    }
}

/// A time in milliseconds, or "none" when there is no time (nothing completed).
fn ms(ns: Option<f64>) -> String {
    ns.map_or_else(|| "none".to_owned(), |ns| format!("{:.2} ms", ns / 1e6))
}

/// One SA's set-up in words: "takes X to set up" or "never completes (every try lost)".
fn setup_words(ns: Option<f64>) -> String {
    match ns {
        Some(_) => format!("takes {} to set up", ms(ns)),
        None => "never completes (every try lost)".to_owned(),
    }
}

/// The storm's outcome in words: "are all back after X", "are back (N failed) after X", or
/// "never come back (all N failed)".
fn storm_words(r: &KexRow) -> String {
    match r.storm_all_back_ns {
        None => format!("never come back (all {} failed)", r.storm_failed),
        Some(_) if r.storm_failed > 0 => format!(
            "are back, but for {} that failed, after {}",
            r.storm_failed,
            ms(r.storm_all_back_ns)
        ),
        Some(_) => format!("are all back after {}", ms(r.storm_all_back_ns)),
    }
}

/// A time in seconds, to 2 decimals without trailing zeros ("4 s", "11.2 s", "24.16 s").
fn secs(ns: f64) -> String {
    let t = format!("{:.2}", ns / 1e9);
    format!("{} s", t.trim_end_matches('0').trim_end_matches('.'))
}

/// A lossy storm's distribution in words: the share up before the first retransmission and by
/// each later one, the chance of giving up, and the spread of one run's slowest SA.
fn loss_words(r: &KexRow, l: &LossSpread) -> String {
    let mut s = format!(
        "{}: over {} runs of the storm (seed {}), each drawing the losses anew, ",
        r.ke, l.replications, l.seed
    );
    let mut steps = l.steps.iter().filter(|st| st.retransmission.is_some());
    if let Some(first) = steps.next() {
        let _ = write!(
            s,
            "{:.1}% of tunnels are up before the first retransmission ({}), ",
            first.share_up * 100.0,
            secs(first.at_ns)
        );
        let later: Vec<String> = steps
            .map(|st| format!("{:.1}% by {}", st.share_up * 100.0, secs(st.at_ns)))
            .collect();
        if !later.is_empty() {
            let _ = write!(s, "{}, ", later.join(", "));
        }
    }
    let _ = write!(
        s,
        "and {:.2}% give up (95% interval {:.2}-{:.2}%, {} of {} tunnels); ",
        l.gave_up * 100.0,
        l.gave_up_ci95[0] * 100.0,
        l.gave_up_ci95[1] * 100.0,
        l.gave_up_tunnels,
        l.tunnels
    );
    match l.last_back {
        Some(b) => {
            let _ = write!(
                s,
                "one run's slowest SA is back after {} to {} (median {}): a draw from this staircase, not a figure to plan on",
                ms(Some(b.min_ns)),
                ms(Some(b.max_ns)),
                ms(Some(b.p50_ns))
            );
        }
        None => s.push_str("no tunnel came back in any run"),
    }
    s
}

/// Each key exchange's storm against the first's, then what each row's storm met: IP
/// fragments, losses, failures, retransmissions and what bounds it.
pub(super) fn findings(rows: &[KexRow]) -> Vec<String> {
    let mut out = Vec::new();
    let Some(base) = rows.first() else { return out };
    for r in &rows[1..] {
        out.push(against(base, r));
    }
    for r in rows {
        row_findings(r, &mut out);
        out.push(bound_finding(r));
    }
    out
}

/// Key exchange `r` against the first, `base`, in words: one SA's set-up, the storm's
/// completion (with loss, over the replications) and the responder's CPU per handshake.
fn against(base: &KexRow, r: &KexRow) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "{} instead of {}: {}; {} tunnels ",
        r.ke,
        base.ke,
        match (r.setup_ns, base.setup_ns) {
            (Some(_), Some(_)) => format!(
                "one SA takes {} instead of {} to set up",
                ms(r.setup_ns),
                ms(base.setup_ns)
            ),
            _ => format!(
                "one SA {} (with {}: {})",
                setup_words(r.setup_ns),
                base.ke,
                setup_words(base.setup_ns)
            ),
        },
        r.tunnels,
    );
    // With loss, the distributions over replications; a ratio only between two storms
    // where every tunnel came back.
    if let (Some(l), Some(l0)) = (&r.loss, &base.loss) {
        // "are 99% up after X", or "never come back" when no tunnel of any run did.
        let up = |l: &LossSpread| match l.completion {
            Some(c) => format!("are 99% up after {}", ms(Some(c.p99_ns))),
            None => format!("never come back (all {} failed)", l.gave_up_tunnels),
        };
        let _ = match (l.completion, l0.completion) {
            (Some(c), Some(c0)) => write!(
                s,
                "are 99% up after {} instead of {}",
                ms(Some(c.p99_ns)),
                ms(Some(c0.p99_ns))
            ),
            _ => write!(s, "{} (with {}: {})", up(l), base.ke, up(l0)),
        };
        let _ = write!(
            s,
            " and {:.2}% give up instead of {:.2}% (over {} runs)",
            l.gave_up * 100.0,
            l0.gave_up * 100.0,
            l.replications
        );
    } else {
        match (r.storm_all_back_ns, base.storm_all_back_ns) {
            (Some(t), Some(t0)) if r.storm_failed == 0 && base.storm_failed == 0 && t0 > 0.0 => {
                let _ = write!(
                    s,
                    "are all back after {} instead of {} ({:+.0}%)",
                    ms(Some(t)),
                    ms(Some(t0)),
                    (t / t0 - 1.0) * 100.0
                );
            }
            _ => {
                let _ = write!(
                    s,
                    "{} (with {}: {})",
                    storm_words(r),
                    base.ke,
                    storm_words(base)
                );
            }
        }
    }
    let _ = write!(
        s,
        "; the responder spends {:.1} us of CPU per handshake instead of {:.1} us",
        r.responder_work_ns / 1e3,
        base.responder_work_ns / 1e3
    );
    s
}

/// What `r`'s storm met, in words, onto `out`: an IP-fragmented IKE_SA_INIT, the losses'
/// spread, failed tunnels, timers that expired while an exchange waited.
fn row_findings(r: &KexRow, out: &mut Vec<String>) {
    let i = &r.ike_sa_init;
    if i.ip_fragmented {
        out.push(format!(
            "{}: IKE_SA_INIT{} is IP-fragmented: request {} B in {} datagram(s), response {} B in {}; it is not encrypted, so IKE fragmentation (RFC 7383) cannot help, and losing one fragment loses the message",
            r.ke,
            if r.peer.is_minimal() {
                String::new()
            } else {
                format!(" with peer {}", r.peer.name())
            },
            i.request_ip_len,
            i.request_datagrams,
            i.response_ip_len,
            i.response_datagrams
        ));
    }
    if let Some(l) = &r.loss {
        out.push(loss_words(r, l));
    } else if r.storm_failed > 0 {
        out.push(format!(
            "{}: in the storm {} of {} tunnels failed (their initiators gave up after the last retransmission); {}",
            r.ke,
            r.storm_failed,
            r.tunnels,
            if r.storm_all_back_ns.is_none() {
                "none came back, so there is no set-up time".to_owned()
            } else {
                format!("the others {}", storm_words(r))
            }
        ));
    }
    // A storm with no loss retransmits only when a timer expires while an exchange waits
    // (issue 39 #2): say so, and that the copies cost nothing.
    if r.loss.is_none() && r.storm.retransmissions > 0 {
        let which = match r.storm.retransmissions_after_loss {
            0 => "none after a loss: timers".to_owned(),
            n => format!("{n} after a loss, the others timers"),
        };
        out.push(format!(
            "{}: the storm retransmitted {} requests, {which} that expired while their exchange waited at the busy responder, as charon's do; a copy costs the responder no work (one it is processing is dropped, one it has answered is answered from its cache), so they do not lengthen the storm",
            r.ke, r.storm.retransmissions,
        ));
    }
}

/// What bounds `r`'s storm, in words: the responder's (or a shared host's) cores, another
/// saturated stage, or round trips and timers.
fn bound_finding(r: &KexRow) -> String {
    // When the responder's cores are saturated during the storm, its length is set by CPU
    // work, so it scales with cores; otherwise by round trips.
    if let Some(host) = r.host_cpu.filter(|&h| h >= 0.9) {
        format!(
            "{}: the storm is CPU-bound on the host both daemons share ({:.0}% of its {} cores busy, {:.0} points of it the responder's): {} of both daemons' CPU in all, so the initiators' work delays the responder as much as its own",
            r.ke,
            host * 100.0,
            r.responder_cores,
            r.responder_cpu * 100.0,
            ms(r.host_busy_ns),
        )
    } else if r.responder_cpu >= 0.9 {
        format!(
            "{}: the storm is CPU-bound at the responder ({:.0}% of {} cores busy): {} of responder CPU in all, {} over {} cores, so doubling the cores roughly halves it",
            r.ke,
            r.responder_cpu * 100.0,
            r.responder_cores,
            ms(Some(r.responder_busy_ns)),
            ms(Some(r.responder_busy_ns / r.responder_cores as f64)),
            r.responder_cores
        )
    } else if let Some(b) = r
        .bottleneck
        .as_ref()
        .filter(|b| b.utilisation >= 0.9 && b.stage != StageKind::Cpu)
    {
        // Another stage is saturated (the responder's I/O stage, a link): the datagrams
        // queue there, not for the responder's cores.
        format!(
            "{}: the storm is bound by {} ({:.0}% busy), not by the responder's CPU ({:.0}% of {} cores busy): every datagram waits its turn there, so more cores do not shorten it{}",
            r.ke,
            b.stage_words(),
            b.utilisation * 100.0,
            r.responder_cpu * 100.0,
            r.responder_cores,
            match b.stage {
                StageKind::Io =>
                    "; the I/O stage serves one datagram at a time (the profile's per-packet I/O cost)",
                StageKind::Link => "; a faster link does",
                StageKind::Cpu | StageKind::Host => "",
            }
        )
    } else {
        format!(
            "{}: the storm is not CPU-bound at the responder ({:.0}% busy): round trips, transmission and any retransmission timers set its length{}",
            r.ke,
            r.responder_cpu * 100.0,
            r.bottleneck.as_ref().map_or_else(String::new, |b| format!(
                " (the busiest stage: {})",
                b.words()
            ))
        )
    }
}
