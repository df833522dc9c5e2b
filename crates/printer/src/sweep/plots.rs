//! The plots of a sweep: one per dimension (a `--vary` key, or a `--vary-together` group), with
//! one series per flow and per combination of the other dimensions' values, for one metric.
//! Axis titles are words with units (a `--label` per key, or a readable form of the key path),
//! the y range is fitted to the data, and each series has its own colour and marker.

use std::collections::BTreeMap;

use serde::Serialize;

use model::sweep::{FlowRow, PointResult};

use super::{Results, number_unit, shared_unit, value_text};
use crate::plot::{Chart, Colour, Frame, Layer, Mark, Shape};

/// Most combinations of the other dimensions' values drawn on one plot; a sweep with more draws
/// this many, evenly spread over them, and its title says so.
pub const MAX_PLOT_SERIES: usize = 8;

/// What a sweep plot shows on its y axis. With the `clap` feature it is a clap value
/// (`oransim sweep --plot-metric`), each with the one-line help the command shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Metric {
    /// Mean and p99 delay \[us\]: the message delay of periodic flows, the packet delay of
    /// others.
    #[default]
    #[cfg_attr(
        feature = "clap",
        value(help = "Mean and p99 delay [us] (the message delay of periodic flows)")
    )]
    Delay,
    /// Mean end-to-end packet delay \[us\].
    #[cfg_attr(feature = "clap", value(help = "Mean end-to-end packet delay [us]"))]
    DelayMean,
    /// 99th-percentile end-to-end packet delay \[us\].
    #[cfg_attr(
        feature = "clap",
        value(help = "99th-percentile end-to-end packet delay [us]")
    )]
    DelayP99,
    /// Mean and p99 message delay, creation to last frame \[us\] (periodic flows only).
    #[cfg_attr(
        feature = "clap",
        value(help = "Mean and p99 message delay [us] (periodic flows)")
    )]
    MessageDelay,
    /// Delivered throughput \[bit/s, drawn in kb/s, Mb/s or Gb/s\].
    #[cfg_attr(
        feature = "clap",
        value(help = "Delivered throughput [kb/s, Mb/s or Gb/s]")
    )]
    Throughput,
    /// Utilisation of the busiest node on the flow's path \[%\].
    #[cfg_attr(
        feature = "clap",
        value(help = "Utilisation of the busiest node on each flow's path [%]")
    )]
    Utilisation,
}

/// How the plots are drawn: the metric, and the words for each varied key.
#[derive(Debug, Clone, Default)]
pub struct PlotOptions {
    /// The y axis.
    pub metric: Metric,
    /// Key path -> the words that name it on the plots (`link[0].mtu` -> `MTU`); a key without
    /// one is named by [`readable`].
    pub labels: BTreeMap<String, String>,
}

/// A key path in words: `link[0].mtu` -> `link 0 MTU`, `flow[1].source.split` ->
/// `flow 1 source split`.
///
/// ```
/// assert_eq!(printer::sweep::readable("link[0].mtu"), "link 0 MTU");
/// assert_eq!(printer::sweep::readable("stop.packets"), "stop packets");
/// ```
pub fn readable(key: &str) -> String {
    key.replace(['[', '.', '_'], " ")
        .replace(']', "")
        .split_whitespace()
        .map(|w| match w {
            "mtu" => "MTU".to_owned(),
            other => other.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// One statistic of a flow row under a metric: its name in the legend and its value.
type Stat = (&'static str, fn(&FlowRow) -> Option<f64>);

impl Metric {
    /// The statistics drawn (one or two) for a flow, in the metric's unit before scaling.
    fn stats(self, message: bool) -> &'static [Stat] {
        const MEAN: Stat = ("mean", |f| f.delay_mean_ns);
        const P99: Stat = ("p99", |f| f.delay_p99_ns);
        const MSG_MEAN: Stat = ("mean", |f| f.message_mean_ns);
        const MSG_P99: Stat = ("p99", |f| f.message_p99_ns);
        match self {
            Metric::Delay if message => &[MSG_MEAN, MSG_P99],
            Metric::Delay => &[MEAN, P99],
            Metric::DelayMean => &[MEAN],
            Metric::DelayP99 => &[P99],
            Metric::MessageDelay => &[MSG_MEAN, MSG_P99],
            Metric::Throughput => &[("throughput", |f| f.throughput_bps)],
            Metric::Utilisation => &[("utilisation", |f| f.path_max_utilisation)],
        }
    }

    /// What the y axis shows, in words (without the unit).
    fn words(self, message: bool) -> &'static str {
        match self {
            Metric::Delay if message => "message delay",
            Metric::Delay => "delay",
            Metric::DelayMean => "mean delay",
            Metric::DelayP99 => "p99 delay",
            Metric::MessageDelay => "message delay",
            Metric::Throughput => "throughput",
            Metric::Utilisation => "utilisation of the busiest node",
        }
    }
}

/// One drawn series: its legend label, its colour index, its marker, and its y per x.
struct Series {
    label: String,
    colour: usize,
    second: bool,
    ys: Vec<Option<f64>>,
}

/// What one sweep plot shows.
pub(super) struct PlotData {
    pub(super) name: String,
    pub(super) title: String,
    pub(super) x_label: String,
    pub(super) y_label: String,
    /// x positions, and tick names for a categorical axis.
    pub(super) xs: Vec<f64>,
    pub(super) ticks: Option<Vec<String>>,
    series: Vec<Series>,
}

/// Evenly spread picks of `n` among `total` (all of them when `total <= n`).
fn spread(total: usize, n: usize) -> Vec<usize> {
    if total <= n || n < 2 {
        return (0..total.min(n.max(1))).collect();
    }
    let mut out: Vec<usize> = (0..n)
        .map(|i| (i * (total - 1) + (n - 1) / 2) / (n - 1))
        .collect();
    out.dedup();
    out
}

impl PlotData {
    /// The plot of dimension `dim`.
    pub(super) fn new<H: Serialize>(
        res: &Results<'_, H>,
        dim: usize,
        options: &PlotOptions,
    ) -> PlotData {
        let label = |key: &str| {
            options
                .labels
                .get(key)
                .cloned()
                .unwrap_or_else(|| readable(key))
        };
        let keys: Vec<usize> = (0..res.axes.len())
            .filter(|&a| res.axes[a].dim == dim)
            .collect();
        let first = &res.axes[keys[0]];
        let n = first.values.len();
        // One key: numeric when its values carry one unit; a group: categorical, each tick
        // naming every key's value.
        let unit = if keys.len() == 1 {
            shared_unit(first.values)
        } else {
            None
        };
        let (xs, ticks): (Vec<f64>, Option<Vec<String>>) = match &unit {
            Some(_) => (
                first
                    .values
                    .iter()
                    .filter_map(number_unit)
                    .map(|p| p.1)
                    .collect(),
                None,
            ),
            None => (
                (0..n).map(|i| i as f64).collect(),
                Some(
                    (0..n)
                        .map(|i| {
                            keys.iter()
                                .filter_map(|&a| res.axes[a].values.get(i))
                                .map(value_text)
                                .collect::<Vec<_>>()
                                .join(" / ")
                        })
                        .collect(),
                ),
            ),
        };
        let words = keys
            .iter()
            .map(|&a| label(res.axes[a].key))
            .collect::<Vec<_>>()
            .join(" / ");
        let x_label = match unit.as_deref() {
            Some(u) if !u.is_empty() => format!("{words} [{u}]"),
            _ => words.clone(),
        };
        // The other dimensions: each combination of their values is a group of series.
        let mut combos: BTreeMap<Vec<usize>, Vec<Option<&PointResult>>> = BTreeMap::new();
        for p in &res.points {
            let Some(&x) = keys.first().and_then(|&a| p.coords.get(a)) else {
                continue;
            };
            let other: Vec<usize> = (0..res.axes.len())
                .filter(|&a| res.axes[a].dim != dim)
                .filter_map(|a| p.coords.get(a).copied())
                .collect();
            let row = combos.entry(other).or_insert_with(|| vec![None; n]);
            if let Some(slot) = row.get_mut(x) {
                *slot = Some(p.result);
            }
        }
        let others: Vec<usize> = (0..res.axes.len())
            .filter(|&a| res.axes[a].dim != dim)
            .collect();
        let total_combos = combos.len();
        let picked = spread(total_combos, MAX_PLOT_SERIES);
        let combos: Vec<(Vec<usize>, Vec<Option<&PointResult>>)> = combos
            .into_iter()
            .enumerate()
            .filter(|(i, _)| picked.contains(i))
            .map(|(_, c)| c)
            .collect();
        let flows: Vec<String> = combos
            .iter()
            .flat_map(|c| c.1.iter().flatten())
            .next()
            .map(|r| r.flows.iter().map(|f| f.flow.clone()).collect())
            .unwrap_or_default();
        let message = |fi: usize| {
            combos.iter().any(|c| {
                c.1.iter()
                    .flatten()
                    .any(|r| r.flows.get(fi).is_some_and(|f| f.message_mean_ns.is_some()))
            })
        };
        let all_message = (0..flows.len()).all(message);
        let (scale, unit_y) = y_unit(options.metric, &combos);
        let mut series = Vec::new();
        for (ci, (other, row)) in combos.iter().enumerate() {
            let combo_text = others
                .iter()
                .zip(other)
                .filter_map(|(&a, &c)| {
                    let ax = &res.axes[a];
                    ax.values
                        .get(c)
                        .map(|v| format!("{} = {}", label(ax.key), value_text(v)))
                })
                .collect::<Vec<_>>()
                .join(", ");
            for (fi, flow) in flows.iter().enumerate() {
                let stats = options.metric.stats(message(fi));
                if options.metric == Metric::MessageDelay && !message(fi) {
                    continue;
                }
                for (si, (stat, pick)) in stats.iter().enumerate() {
                    let mut parts = Vec::new();
                    if !combo_text.is_empty() {
                        parts.push(combo_text.clone());
                    }
                    if flows.len() > 1 {
                        parts.push(flow.clone());
                    }
                    if stats.len() > 1 {
                        parts.push((*stat).to_owned());
                    }
                    let ys = row
                        .iter()
                        .map(|r| {
                            r.and_then(|r| r.flows.get(fi))
                                .and_then(pick)
                                .map(|v| v / scale)
                        })
                        .collect();
                    series.push(Series {
                        label: if parts.is_empty() {
                            options.metric.words(message(fi)).to_owned()
                        } else {
                            parts.join(", ")
                        },
                        colour: ci * flows.len() + fi,
                        second: si == 1,
                        ys,
                    });
                }
            }
        }
        let metric_words = options.metric.words(all_message);
        let of_flow = match flows.as_slice() {
            [one] => format!(" of {one}"),
            _ => String::new(),
        };
        let shown = if total_combos > combos.len() {
            format!(
                " ({} of {total_combos} combinations of the other keys drawn)",
                combos.len()
            )
        } else {
            String::new()
        };
        PlotData {
            name: format!("the plot of {}", first.key),
            title: format!("{metric_words}{of_flow} vs {words}{shown}"),
            x_label,
            y_label: format!("{metric_words} [{unit_y}]"),
            xs,
            ticks,
            series,
        }
    }

    /// The legend labels, in drawing order.
    #[cfg(test)]
    pub(super) fn labels(&self) -> Vec<&str> {
        self.series.iter().map(|s| s.label.as_str()).collect()
    }

    /// The y values of series `i`.
    #[cfg(test)]
    pub(super) fn ys(&self, i: usize) -> &[Option<f64>] {
        &self.series[i].ys
    }

    /// x over the values padded by 3% (a single value: +-0.5; categories: half a slot); y over
    /// the data padded by 8% of its span (a flat line: 5% of its value, or 1 at 0).
    fn ranges(&self) -> (std::ops::Range<f64>, std::ops::Range<f64>) {
        let bounds = |it: &mut dyn Iterator<Item = f64>| {
            it.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            })
        };
        let x_range = if let Some(t) = &self.ticks {
            -0.5..t.len() as f64 - 0.5
        } else {
            let (mut x0, mut x1) = bounds(&mut self.xs.iter().copied());
            if !x0.is_finite() {
                (x0, x1) = (0.0, 1.0);
            }
            if x1 <= x0 {
                (x0, x1) = (x0 - 0.5, x1 + 0.5);
            }
            let pad = (x1 - x0) * 0.03;
            (x0 - pad)..(x1 + pad)
        };
        let (mut y0, mut y1) = bounds(
            &mut self
                .series
                .iter()
                .flat_map(|s| s.ys.iter().flatten().copied())
                .filter(|y| y.is_finite()),
        );
        if !y0.is_finite() {
            (y0, y1) = (0.0, 1.0);
        }
        let pad = if y1 > y0 {
            (y1 - y0) * 0.08
        } else if y0 != 0.0 {
            y0.abs() * 0.05
        } else {
            1.0
        };
        (x_range, (y0 - pad)..(y1 + pad))
    }

    /// The chart: per series a line in its own colour, with its own marker shape: the mean
    /// filled, the p99 open, larger and on a thinner line, so a p99 equal to the mean still
    /// shows. Series drawn earlier have wider lines and larger markers, so a later series
    /// with the same values leaves them visible around it.
    pub(super) fn chart(&self) -> Chart {
        let (x_range, y_range) = self.ranges();
        let groups = self.series.iter().map(|s| s.colour + 1).max().unwrap_or(0);
        let mut layers = Vec::new();
        for s in &self.series {
            // 0 for the last group drawn, up to 2 for earlier ones.
            let under = u32::try_from((groups - 1 - s.colour).min(2)).unwrap_or(2);
            let colour = Colour::palette(s.colour);
            let points: Vec<(f64, f64)> = self
                .xs
                .iter()
                .zip(&s.ys)
                .filter_map(|(&x, y)| y.map(|y| (x, y)))
                .collect();
            layers.push(Layer {
                points: points.clone(),
                mark: Mark::Line {
                    colour: if s.second { colour.faded(0.7) } else { colour },
                    width: if s.second { 1 } else { 2 + under },
                },
                key: None,
            });
            layers.push(Layer {
                points,
                mark: Mark::Points {
                    colour,
                    shape: Shape::MODEL[s.colour % Shape::MODEL.len()],
                    filled: !s.second,
                    size: if s.second {
                        8 + 2 * under
                    } else {
                        3 + 2 * under
                    },
                },
                key: Some(s.label.clone()),
            });
        }
        Chart {
            name: self.name.clone(),
            title: self.title.clone(),
            x_label: self.x_label.clone(),
            y_label: self.y_label.clone(),
            x_range,
            y_range,
            x_ticks: self.ticks.clone(),
            layers,
            frame: Frame {
                size: (900, 560),
                margin: 12,
                x_label_area: 40,
                y_label_area: 70,
                caption: 18,
            },
        }
    }
}

/// The divisor and unit of the y axis: delays in us, utilisation in %, throughput in the
/// largest of kb/s, Mb/s, Gb/s under its highest value.
fn y_unit(
    metric: Metric,
    combos: &[(Vec<usize>, Vec<Option<&PointResult>>)],
) -> (f64, &'static str) {
    match metric {
        Metric::Utilisation => (0.01, "%"),
        Metric::Throughput => {
            let top = combos
                .iter()
                .flat_map(|c| c.1.iter().flatten())
                .flat_map(|r| r.flows.iter().filter_map(|f| f.throughput_bps))
                .fold(0.0f64, f64::max);
            match top {
                t if t >= 1e9 => (1e9, "Gb/s"),
                t if t >= 1e6 => (1e6, "Mb/s"),
                t if t >= 1e3 => (1e3, "kb/s"),
                _ => (1.0, "bit/s"),
            }
        }
        _ => (1e3, "us"),
    }
}
