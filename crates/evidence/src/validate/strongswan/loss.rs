//! The loss storms' rows (issue 39): the share of SAs up by each retransmission, measured
//! beside the engine's lossy storm.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::engine::engine_loss_storm;
use super::{FIT_STORM, LossRetransmit, MeasureError, Measurements, Workload};
use crate::ledger::Anchor;
use crate::validate::{Measured, Row, Rule};

/// The retransmissions of the schedule a loss row is compared at: the first three (4 s, 11.2 s
/// and 24.16 s with strongSwan's defaults). By the fourth (47.49 s) a share below 100% needs
/// four losses in a row of one exchange, which neither the bench's storm of 200 nor the
/// engine's 4,000 SAs sees at the rates measured.
pub const LOSS_STEPS: u32 = 3;

/// A loss rate in words: `1%`, `0.5%`.
pub(super) fn pct_words(loss: f64) -> String {
    let v = format!("{:.4}", loss * 100.0);
    v.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Rows of the loss storms (issue 39): per rate and storm size, the share of SAs up by each of
/// the first [`LOSS_STEPS`] retransmission instants, each run's share beside the engine's
/// ([`engine_loss_storm`]) with the profile; the retransmissions, give-ups and completion
/// percentiles of both in the row's note. Anchored at no loss (every SA up before the first
/// retransmission, 100%): the model's contribution is the share it says is not up yet.
pub(super) fn loss_rows(
    m: &Measurements,
    profile: &profile::Profile,
    fit_ids: &[String],
) -> Result<Vec<Row>, MeasureError> {
    // (set-up times, gave up, retransmissions, charon's schedule) per run, by (SAs, loss in
    // millionths: the bench's rule's resolution).
    type LossRun<'a> = (&'a [f64], u32, u64, LossRetransmit);
    let mut by: BTreeMap<(u32, u64), Vec<LossRun<'_>>> = BTreeMap::new();
    for w in &m.rows {
        if let Workload::Loss {
            auth,
            sas,
            loss,
            setup_ms,
            gave_up,
            retransmissions,
            retransmit,
            ..
        } = w
            && auth == "psk"
        {
            let ppm = (loss * 1e6).round() as u64;
            by.entry((*sas, ppm)).or_default().push((
                setup_ms,
                *gave_up,
                *retransmissions,
                *retransmit,
            ));
        }
    }
    let mut rows = Vec::new();
    let from = vec![
        "ike.setup.psk".to_owned(),
        format!("ike.storm.{FIT_STORM}.time"),
    ];
    for ((n, ppm), runs) in by {
        let loss = ppm as f64 / 1e6;
        let pct = pct_words(loss);
        let e = engine_loss_storm(profile, n, loss)?;
        let sas = f64::from(n) * runs.len() as f64;
        let retx: u64 = runs.iter().map(|r| r.2).sum();
        let gave: u32 = runs.iter().map(|r| r.1).sum();
        // charon's schedule as the file records it, against the engine's (strongSwan's
        // defaults).
        let schedule = |r: &LossRetransmit| -> Vec<f64> {
            let mut at = 0.0;
            (0..r.tries.min(LOSS_STEPS))
                .map(|i| {
                    at += r.timeout_s * r.base.powi(i as i32);
                    at * 1e3
                })
                .collect()
        };
        let completion = e.completion.map_or_else(
            || "none came back".to_owned(),
            |c| {
                format!(
                    "completion p50 {:.1} ms, p90 {:.1} ms, p99 {:.0} ms",
                    c.p50_ns / 1e6,
                    c.p90_ns / 1e6,
                    c.p99_ns / 1e6
                )
            },
        );
        let mut all: Vec<f64> = runs.iter().flat_map(|r| r.0.iter().copied()).collect();
        all.sort_by(f64::total_cmp);
        let q = |p: f64| all[((all.len() - 1) as f64 * p).round() as usize];
        let measured_completion = if all.is_empty() {
            "none came back".to_owned()
        } else {
            format!(
                "completion p50 {:.1} ms, p90 {:.1} ms, p99 {:.0} ms",
                q(0.5),
                q(0.9),
                q(0.99)
            )
        };
        let note = format!(
            "measured over {} run(s) of {n}: {:.3} retransmissions per SA, {gave} gave up, {measured_completion}; the engine over {} replications (seed {}): {:.3} per SA, {:.4}% gave up (95% CI {:.4}-{:.4}%), {completion}",
            runs.len(),
            retx as f64 / sas,
            e.replications,
            e.seed,
            e.retransmissions_per_tunnel,
            e.gave_up * 100.0,
            e.gave_up_ci95[0] * 100.0,
            e.gave_up_ci95[1] * 100.0,
        );
        for step in &e.steps {
            let Some(k) = step.retransmission.filter(|k| *k <= LOSS_STEPS) else {
                continue;
            };
            let at_ms = step.at_ns / 1e6;
            let shares: Vec<f64> = runs
                .iter()
                .map(|r| r.0.iter().filter(|&&t| t < at_ms).count() as f64 / f64::from(n) * 100.0)
                .collect();
            let Some(measured) = Measured::of(&shares) else {
                continue;
            };
            let mut why = note.clone();
            let off: Vec<String> = runs
                .iter()
                .filter_map(|r| {
                    let s = schedule(&r.3);
                    s.get(k as usize - 1)
                        .filter(|t| (*t - at_ms).abs() > 1.0)
                        .map(|t| format!("{t:.0} ms"))
                })
                .collect();
            if !off.is_empty() {
                let _ = write!(
                    why,
                    "; the bench's charon sent this retransmission at {} from the first send, the engine at {at_ms:.0} ms",
                    off.join(", ")
                );
            }
            let ordinal = match k {
                1 => "1st",
                2 => "2nd",
                3 => "3rd",
                _ => "later",
            };
            rows.push(
                Row::new(
                    format!("ike.loss.{pct}pct.{n}.up.{k}"),
                    format!(
                        "lossy storm: {n} IKE SAs (PSK) at once, {pct}% of IKE datagrams dropped each way: share up by the {ordinal} retransmission ({:.2} s)",
                        at_ms / 1e3
                    ),
                    "%",
                    measured,
                    Some(step.share_up * 100.0),
                    Rule::LossShare,
                    from.clone(),
                    fit_ids,
                )
                .why(why)
                .anchored(Some(Anchor::new(
                    "no loss: every SA up before the first retransmission",
                    100.0,
                ))),
            );
        }
    }
    Ok(rows)
}
