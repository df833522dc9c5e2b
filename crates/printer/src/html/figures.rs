//! The plan pages' figures (issue 37 item 10): a storm's completion over time per key exchange
//! (`plan kex`) and delay against load per suite (`plan interface`), drawn by [`crate::plot`]
//! as inline SVG.

use whatif::plan::{InterfacePlan, KexPlan, LoadCurve};

use crate::plot::{Chart, Colour, Figure, Frame, Layer, Mark, Shape};

/// The frame of both figures: as wide as a page's text column.
const FRAME: Frame = Frame {
    size: (900, 520),
    margin: 16,
    x_label_area: 44,
    y_label_area: 64,
    caption: 18,
};

/// Most points a completion curve keeps: a step of at least 1/`STEPS` of the tunnels, and the
/// last.
const STEPS: f64 = 500.0;

/// A time axis' unit for times up to `max_ns` \[ns\]: its name and nanoseconds per unit.
fn time_unit(max_ns: f64) -> (&'static str, f64) {
    if max_ns < 1e6 {
        ("us", 1e3)
    } else if max_ns < 1e10 {
        ("ms", 1e6)
    } else {
        ("s", 1e9)
    }
}

/// `curve` (time \[ns\], share) as a staircase in `unit` and percent, from (0, 0) to `end`
/// \[unit\], keeping a step only where the share has risen by 1/[`STEPS`] since the last kept
/// one (and the last step).
fn staircase(curve: &[(f64, f64)], unit: f64, end: f64) -> Vec<(f64, f64)> {
    let mut pts = vec![(0.0, 0.0)];
    let mut shown = 0.0;
    for (i, &(t, s)) in curve.iter().enumerate() {
        if s - shown < 1.0 / STEPS && i + 1 < curve.len() {
            continue;
        }
        let x = t / unit;
        pts.push((x, shown * 100.0));
        pts.push((x, s * 100.0));
        shown = s;
    }
    pts.push((end, shown * 100.0));
    pts
}

/// The storm's completion over time, one staircase per key exchange of `plan`; `None` when
/// no tunnel came back in any.
pub(super) fn kex(plan: &KexPlan) -> Option<Figure> {
    let max_ns = plan
        .rows
        .iter()
        .filter_map(|r| r.up_over_time.last().map(|p| p.0))
        .fold(0.0, f64::max);
    if max_ns <= 0.0 {
        return None;
    }
    let (unit_name, unit) = time_unit(max_ns);
    let end = max_ns / unit * 1.05;
    let n = plan.rows.len();
    let layers = plan
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| Layer {
            points: staircase(&r.up_over_time, unit, end),
            mark: Mark::Line {
                colour: Colour::palette(i),
                // Curves that coincide (the same losses drawn for each key exchange) show as
                // nested lines: the first widest.
                width: 2 + u32::try_from(n - 1 - i).unwrap_or(0).min(4),
            },
            key: Some(r.ke.clone()),
        })
        .collect();
    let tunnels = plan.rows.first().map_or(0, |r| r.tunnels);
    let replications = plan
        .rows
        .first()
        .and_then(|r| r.loss.as_ref())
        .map_or(String::new(), |l| {
            format!(", {} replications together", l.replications)
        });
    Some(Figure::Chart(Chart {
        name: "the storm completion figure".into(),
        title: format!("Storm of {tunnels} tunnels: share up over time{replications}"),
        x_label: format!("time since the storm began [{unit_name}]"),
        y_label: "tunnels up [% of tunnels started]".into(),
        x_range: 0.0..end,
        y_range: 0.0..105.0,
        x_ticks: None,
        layers,
        frame: FRAME,
    }))
}

/// Delay against load: p99 (solid, with markers) and p50 (faded) of each curve, a vertical
/// line at the offered load of `plan`; `None` when no curve has a point.
pub(super) fn interface(plan: &InterfacePlan, curves: &[LoadCurve]) -> Option<Figure> {
    let pts = curves.iter().flat_map(|c| &c.points);
    let max_load = pts.clone().map(|p| p.load_bps).fold(0.0, f64::max);
    let max_delay = pts.map(|p| p.p99_ns).fold(0.0, f64::max);
    if max_load <= 0.0 || max_delay <= 0.0 {
        return None;
    }
    let (unit_name, unit) = time_unit(max_delay);
    let y_end = max_delay / unit * 1.08;
    let x_end = max_load / 1e6 * 1.05;
    let mut layers = Vec::new();
    for (i, c) in curves.iter().enumerate() {
        let colour = Colour::palette(i);
        let name = model::file::suite_or_none::name(c.suite);
        let p99: Vec<(f64, f64)> = c
            .points
            .iter()
            .map(|p| (p.load_bps / 1e6, p.p99_ns / unit))
            .collect();
        let p50: Vec<(f64, f64)> = c
            .points
            .iter()
            .map(|p| (p.load_bps / 1e6, p.p50_ns / unit))
            .collect();
        layers.push(Layer {
            points: p50,
            mark: Mark::Line {
                colour: colour.faded(0.6),
                width: 1,
            },
            key: Some(format!("{name} p50")),
        });
        layers.push(Layer {
            points: p99.clone(),
            mark: Mark::Line { colour, width: 2 },
            key: Some(format!("{name} p99")),
        });
        layers.push(Layer {
            points: p99,
            mark: Mark::Points {
                colour,
                shape: Shape::MODEL[i % Shape::MODEL.len()],
                filled: true,
                size: 3,
            },
            key: None,
        });
    }
    let offered = plan.offered_bps / 1e6;
    layers.push(Layer {
        points: vec![(offered, 0.0), (offered, y_end)],
        mark: Mark::Line {
            colour: Colour::BLACK.faded(0.5),
            width: 1,
        },
        key: Some(format!("offered load, {offered:.3} Mb/s")),
    });
    Some(Figure::Chart(Chart {
        name: "the delay against load figure".into(),
        title: format!("{}: one-way delay against load", plan.interface),
        x_label: "offered plaintext load [Mb/s]".into(),
        y_label: format!("one-way delay [{unit_name}]"),
        x_range: 0.0..x_end,
        y_range: 0.0..y_end,
        x_ticks: None,
        layers,
        frame: FRAME,
    }))
}

#[cfg(test)]
mod tests {
    use super::{staircase, time_unit};

    #[test]
    fn a_staircase_rises_at_each_completion_and_runs_to_the_end() {
        let c = [(1e6, 0.5), (2e6, 1.0)];
        assert_eq!(
            staircase(&c, 1e6, 3.0),
            [
                (0.0, 0.0),
                (1.0, 0.0),
                (1.0, 50.0),
                (2.0, 50.0),
                (2.0, 100.0),
                (3.0, 100.0)
            ]
        );
        // Steps smaller than 1/500 are merged into the next kept one; the last is kept.
        let fine: Vec<(f64, f64)> = (1..=1000)
            .map(|i| (f64::from(i), f64::from(i) / 1000.0))
            .collect();
        let s = staircase(&fine, 1.0, 1001.0);
        assert!(s.len() <= 2 * 500 + 2, "{}", s.len());
        assert_eq!(s[s.len() - 2], (1000.0, 100.0));
        assert_eq!(time_unit(5e5).0, "us");
        assert_eq!(time_unit(9e8).0, "ms");
        assert_eq!(time_unit(2e10).0, "s");
    }
}
