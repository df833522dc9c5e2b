//! The plots of a sweep: one per dimension (a `--vary` key, or a `--vary-together` group), with
//! one series per flow and per combination of the other dimensions' values, for one metric.
//! Axis titles are words with units (a `--label` per key, or a readable form of the key path),
//! the y range is fitted to the data, and each series has its own colour and marker.

use std::collections::BTreeMap;

use serde::Serialize;

use whatif::sweep::{FlowRow, PointResult};

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

/// Default width and height of a sweep plot \[pixels\]; a plot without `--size` grows taller
/// when its legend needs it.
pub const PLOT_SIZE: (u32, u32) = (900, 560);

/// Narrowest sweep plot (`--size`) \[pixels\]: room for the y axis, the data and a legend.
pub const MIN_PLOT_WIDTH: u32 = 300;

/// Lowest sweep plot (`--size`) \[pixels\].
pub const MIN_PLOT_HEIGHT: u32 = 200;

/// Widest sweep plot (`--size`) \[pixels\]: a poster's width at 300 dpi is under 4000 px, and
/// 4000 x 4000 x 3 bytes (48 MB) is the PNG's pixel buffer.
pub const MAX_PLOT_WIDTH: u32 = 4000;

/// Tallest sweep plot (`--size`) \[pixels\].
pub const MAX_PLOT_HEIGHT: u32 = 4000;

/// How the flows of each combination are drawn when there are several. With the `clap`
/// feature it is a clap value (`oransim sweep --aggregate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Aggregate {
    /// The mean over the flows of each statistic (a mean of the flows' means, of their p99s).
    #[cfg_attr(
        feature = "clap",
        value(help = "One series per combination: the mean over the flows")
    )]
    Mean,
    /// The largest over the flows of each statistic (the worst flow's mean, p99, ...).
    #[cfg_attr(
        feature = "clap",
        value(help = "One series per combination: the largest over the flows")
    )]
    Max,
}

impl Aggregate {
    fn word(self) -> &'static str {
        match self {
            Aggregate::Mean => "mean",
            Aggregate::Max => "max",
        }
    }

    fn of(self, values: &[f64]) -> Option<f64> {
        if values.is_empty() {
            return None;
        }
        Some(match self {
            Aggregate::Mean => values.iter().sum::<f64>() / values.len() as f64,
            Aggregate::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }
}

/// How the plots are drawn: the metric, the words for each varied key and value, the flows
/// drawn, and the size.
#[derive(Debug, Clone, Default)]
pub struct PlotOptions {
    /// The y axis.
    pub metric: Metric,
    /// Key path -> the words that name it on the plots (`link[0].mtu` -> `MTU`); a key without
    /// one is named by [`readable`].
    pub labels: BTreeMap<String, String>,
    /// Key path -> a value as written (`"1500B"`, a stack) -> the words that name it on the
    /// plots (ticks and legend); a value without one is written as given.
    pub values: BTreeMap<String, BTreeMap<String, String>>,
    /// Only these flows, by name, in this order (`None`: every flow).
    pub flows: Option<Vec<String>>,
    /// One series per combination over the flows drawn, instead of one per flow.
    pub aggregate: Option<Aggregate>,
    /// Width and height \[pixels\]: exactly this size, the legend refused when it does not
    /// fit (`None`: [`PLOT_SIZE`], taller when the legend needs it).
    pub size: Option<(u32, u32)>,
}

impl PlotOptions {
    /// The words for `value` of `key`: its label, or the value as written.
    fn value(&self, key: &str, value: &serde_json::Value) -> String {
        let text = value_text(value);
        self.values
            .get(key)
            .and_then(|m| m.get(&text))
            .cloned()
            .unwrap_or(text)
    }
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
        // A point of a message flow without message statistics sent single packets (a Poisson
        // SCTP source whose messages all fit the MTU: each message its packet), so its packet
        // delay is its message delay; unless it dropped some (then the gap stays a gap).
        const MSG_MEAN: Stat = ("mean", |f| {
            f.message_mean_ns
                .or(f.delay_mean_ns.filter(|_| f.packets_dropped == 0))
        });
        const MSG_P99: Stat = ("p99", |f| {
            f.message_p99_ns
                .or(f.delay_p99_ns.filter(|_| f.packets_dropped == 0))
        });
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
    /// `--size`, when given.
    size: Option<(u32, u32)>,
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
        let label = |key: &str| key_label(options, key);
        let value = |key: &str, v: &serde_json::Value| options.value(key, v);
        let keys: Vec<usize> = (0..res.axes.len())
            .filter(|&a| res.axes[a].dim == dim)
            .collect();
        let first = &res.axes[keys[0]];
        let n = first.values.len();
        let (xs, ticks, x_label, words) = x_axis(res, &keys, options);
        // The other dimensions: each combination of their values is a group of series.
        let combos = by_other_keys(res, dim, &keys, n);
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
        let flows = drawn_flows(&combos, options);
        let message = |fi: usize| {
            combos.iter().any(|c| {
                c.1.iter()
                    .flatten()
                    .any(|r| r.flows.get(fi).is_some_and(|f| f.message_mean_ns.is_some()))
            })
        };
        let all_message = flows.iter().all(|&(fi, _)| message(fi));
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
                        .map(|v| format!("{} = {}", label(ax.key), value(ax.key, v)))
                })
                .collect::<Vec<_>>()
                .join(", ");
            let stat_label = |stat: &str, n_stats: usize, flow: Option<&str>, m: bool| {
                let mut parts = Vec::new();
                if !combo_text.is_empty() {
                    parts.push(combo_text.clone());
                }
                if let Some(f) = flow {
                    parts.push(f.to_owned());
                }
                if n_stats > 1 {
                    parts.push(stat.to_owned());
                }
                if parts.is_empty() {
                    options.metric.words(m).to_owned()
                } else {
                    parts.join(", ")
                }
            };
            if let Some(agg) = options.aggregate.filter(|_| flows.len() > 1) {
                // One series per statistic over the flows drawn.
                let stats = options.metric.stats(all_message);
                for (si, (stat, pick)) in stats.iter().enumerate() {
                    let ys = row
                        .iter()
                        .map(|r| {
                            let r = (*r)?;
                            let vals: Vec<f64> = flows
                                .iter()
                                .filter(|&&(fi, _)| {
                                    options.metric != Metric::MessageDelay || message(fi)
                                })
                                .filter_map(|&(fi, _)| r.flows.get(fi).and_then(pick))
                                .collect();
                            agg.of(&vals).map(|v| v / scale)
                        })
                        .collect();
                    series.push(Series {
                        label: stat_label(stat, stats.len(), None, all_message),
                        colour: ci,
                        second: si == 1,
                        ys,
                    });
                }
                continue;
            }
            for (slot, (fi, flow)) in flows.iter().enumerate() {
                let fi = *fi;
                let stats = options.metric.stats(message(fi));
                if options.metric == Metric::MessageDelay && !message(fi) {
                    continue;
                }
                for (si, (stat, pick)) in stats.iter().enumerate() {
                    let ys = row
                        .iter()
                        .map(|r| {
                            r.and_then(|r| r.flows.get(fi))
                                .and_then(pick)
                                .map(|v| v / scale)
                        })
                        .collect();
                    let named = (flows.len() > 1).then_some(flow.as_str());
                    series.push(Series {
                        label: stat_label(stat, stats.len(), named, message(fi)),
                        colour: ci * flows.len() + slot,
                        second: si == 1,
                        ys,
                    });
                }
            }
        }
        let metric_words = options.metric.words(all_message);
        let of_flow = of_flows(&flows, options);
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
            size: options.size,
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
                size: self.size.unwrap_or(PLOT_SIZE),
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

/// The x axis of the plot of `keys` (one dimension's keys): the x values, the tick labels of a
/// categorical axis (a group of keys, or values without one shared unit), the axis label and
/// the keys in words.
fn x_axis<H: Serialize>(
    res: &Results<'_, H>,
    keys: &[usize],
    options: &PlotOptions,
) -> (Vec<f64>, Option<Vec<String>>, String, String) {
    let label = |key: &str| key_label(options, key);
    let value = |key: &str, v: &serde_json::Value| options.value(key, v);
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
                            .filter_map(|&a| {
                                let ax = &res.axes[a];
                                ax.values.get(i).map(|v| value(ax.key, v))
                            })
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
    (xs, ticks, x_label, words)
}

/// The points of the plot of dimension `dim` grouped by their coordinates on the other
/// dimensions: each group one row of `n` slots, by the point's index on `keys`' axis.
fn by_other_keys<'r, H: Serialize>(
    res: &Results<'r, H>,
    dim: usize,
    keys: &[usize],
    n: usize,
) -> BTreeMap<Vec<usize>, Vec<Option<&'r PointResult>>> {
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
    combos
}

/// The flows drawn: (index in each point's flows, name), every flow of the first point with a
/// result unless `options` names some.
fn drawn_flows(
    combos: &[(Vec<usize>, Vec<Option<&PointResult>>)],
    options: &PlotOptions,
) -> Vec<(usize, String)> {
    let every: Vec<String> = combos
        .iter()
        .flat_map(|c| c.1.iter().flatten())
        .next()
        .map(|r| r.flows.iter().map(|f| f.flow.clone()).collect())
        .unwrap_or_default();
    // The flows drawn: (index in each point's flows, name).
    match &options.flows {
        None => every.iter().cloned().enumerate().collect(),
        Some(names) => names
            .iter()
            .filter_map(|n| every.iter().position(|f| f == n).map(|i| (i, n.clone())))
            .collect(),
    }
}

/// The flows drawn in the title's words: ` of <flow>`, ` (<aggregate> over N flows)`, ` of N
/// flows`, or nothing.
fn of_flows(flows: &[(usize, String)], options: &PlotOptions) -> String {
    match (flows, options.aggregate) {
        ([(_, one)], _) => format!(" of {one}"),
        ([], _) => String::new(),
        (many, Some(agg)) => format!(" ({} over {} flows)", agg.word(), many.len()),
        (many, None) if options.flows.is_some() => format!(" of {} flows", many.len()),
        (_, None) => String::new(),
    }
}

/// Key `key` in the plot's words: the label `options` gives it, or the key made readable.
fn key_label(options: &PlotOptions, key: &str) -> String {
    options
        .labels
        .get(key)
        .cloned()
        .unwrap_or_else(|| readable(key))
}
