//! A sweep's results ([`model::sweep::PointResult`]s over a grid of varied keys) as the
//! `sweep.json` document, `sweep.csv` (one row per point and flow) and one plot per varied
//! key. Every output is rendered from the sorted results alone, so a resumed sweep, any
//! `--jobs` and merged shards give the same bytes.

use serde::Serialize;

use model::sweep::{FlowRow, METRIC_COLUMNS, NodeUse, PointResult};

use crate::plot::{Chart, Colour, Drawn, Figure, Frame, Layer, Mark, Shape};
use crate::table::Table;

/// One varied key and its values, in sweep order.
#[derive(Debug, Clone, Copy)]
pub struct Axis<'a> {
    /// The key path, e.g. `link[0].mtu`.
    pub key: &'a str,
    /// Its values as given (`"1400B"`, `5`, `"greedy"`).
    pub values: &'a [serde_json::Value],
}

/// One finished point and where it lies on the grid.
#[derive(Debug, Clone)]
pub struct Point<'a> {
    /// Its results.
    pub result: &'a PointResult,
    /// The value index on each axis (as many as there are axes).
    pub coords: Vec<usize>,
}

/// A sweep's results, ready to render.
#[derive(Debug, Clone)]
pub struct Results<'a, H> {
    /// What the sweep is (schema, id, scenario, set, vary, order, points): written, flattened,
    /// at the top of `sweep.json`.
    pub header: &'a H,
    /// The varied keys, outermost first.
    pub axes: Vec<Axis<'a>>,
    /// The points, sorted by index.
    pub points: Vec<Point<'a>>,
}

/// `sweep.json`.
#[derive(Serialize)]
struct Doc<'a, H> {
    #[serde(flatten)]
    header: &'a H,
    results: Vec<DocPoint<'a>>,
}

#[derive(Serialize)]
struct DocPoint<'a> {
    index: u64,
    values: Vec<&'a serde_json::Value>,
    flows: &'a [FlowRow],
    nodes: &'a [NodeUse],
}

/// A value as text: a string without its quotes, anything else as JSON.
fn value_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl<'a, H: Serialize> Results<'a, H> {
    /// The values of point `p`, one per axis.
    fn values(&self, p: &Point<'a>) -> Vec<&'a serde_json::Value> {
        p.coords
            .iter()
            .zip(&self.axes)
            .filter_map(|(&c, a)| a.values.get(c))
            .collect()
    }

    /// The `oransim.sweep/1` document: the header, then per point its index, values, flows
    /// and nodes (pretty-printed, final newline).
    pub fn json(&self) -> crate::Result<String> {
        let doc = Doc {
            header: self.header,
            results: self
                .points
                .iter()
                .map(|p| DocPoint {
                    index: p.result.index,
                    values: self.values(p),
                    flows: &p.result.flows,
                    nodes: &p.result.nodes,
                })
                .collect(),
        };
        crate::json_pretty(&doc, "sweep results")
    }

    /// `sweep.csv`: `point`, one column per varied key, `flow`, then [`METRIC_COLUMNS`]; one
    /// row per point and flow. A key whose values all carry one unit has it in its header
    /// (`link[0].mtu [B]`) and bare numbers in its cells (`2000`).
    pub fn csv(&self) -> String {
        let units: Vec<Option<String>> = self
            .axes
            .iter()
            .map(|a| shared_unit(a.values).filter(|u| !u.is_empty()))
            .collect();
        let mut head = vec!["point".to_owned()];
        head.extend(self.axes.iter().zip(&units).map(|(a, u)| match u {
            Some(u) => format!("{} [{u}]", a.key),
            None => a.key.to_owned(),
        }));
        head.push("flow".into());
        head.extend(METRIC_COLUMNS.iter().map(|c| (*c).to_owned()));
        let mut t = Table::new(head);
        for p in &self.points {
            let values: Vec<String> = self
                .values(p)
                .into_iter()
                .zip(&units)
                .map(|(v, u)| match (u, number_unit(v)) {
                    (Some(_), Some((number, _, _))) => number,
                    _ => value_text(v),
                })
                .collect();
            for f in &p.result.flows {
                let mut row = vec![p.result.index.to_string()];
                row.extend(values.iter().cloned());
                row.push(f.flow.clone());
                row.extend(f.cells());
                t.row(row);
            }
        }
        t.csv()
    }

    /// One plot per varied key, named by [`plot_name`]: mean and p99 delay of every flow
    /// against the key's values, the other keys held at their first value.
    pub fn plots(&self) -> crate::Result<Vec<Drawn>> {
        (0..self.axes.len())
            .map(|k| {
                let stem = plot_name(self.axes[k].key);
                Figure::Chart(PlotData::new(self, k).chart()).drawn(&stem)
            })
            .collect()
    }
}

/// `link[0].rate` -> `link_0_rate`: a varied key as a file stem.
pub fn plot_name(key: &str) -> String {
    let mut s: String = key
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    while s.contains("__") {
        s = s.replace("__", "_");
    }
    s.trim_matches('_').to_owned()
}

/// A value as a number and its unit: `"2000B"` is `("2000", 2000.0, "B")`, `7` is
/// `("7", 7.0, "")`; `None` for anything else (a name). The number is split off by the one
/// quantity lexer, [`profile::units::split_number`].
fn number_unit(v: &serde_json::Value) -> Option<(String, f64, String)> {
    match v {
        serde_json::Value::Number(n) => n.as_f64().map(|x| (n.to_string(), x, String::new())),
        serde_json::Value::String(s) => {
            let (num, unit) = profile::units::split_number(s);
            let x: f64 = num.parse().ok()?;
            Some((num.to_owned(), x, unit.to_owned()))
        }
        _ => None,
    }
}

/// The unit every value of an axis carries (`""` for plain numbers); `None` when they are not
/// all numbers with one unit (names, or mixed units).
fn shared_unit(values: &[serde_json::Value]) -> Option<String> {
    let parsed: Vec<Option<(String, f64, String)>> = values.iter().map(number_unit).collect();
    let unit = match parsed.first() {
        None => return Some(String::new()),
        Some(p) => p.as_ref()?.2.clone(),
    };
    parsed
        .iter()
        .all(|p| p.as_ref().is_some_and(|p| p.2 == unit))
        .then_some(unit)
}

/// One flow's line: its label, mean and p99 at each x \[us\] (`None`: not measured).
type Series = (String, Vec<Option<f64>>, Vec<Option<f64>>);

/// What one sweep plot shows.
struct PlotData {
    key: String,
    /// x positions and their tick labels.
    xs: Vec<f64>,
    labels: Vec<String>,
    unit: String,
    held: String,
    series: Vec<Series>,
}

impl PlotData {
    fn new<H: Serialize>(res: &Results<'_, H>, k: usize) -> PlotData {
        let axis = &res.axes[k];
        let (xs, unit) = if let Some(unit) = shared_unit(axis.values) {
            (
                axis.values
                    .iter()
                    .filter_map(number_unit)
                    .map(|p| p.1)
                    .collect(),
                unit,
            )
        } else {
            (
                (0..axis.values.len()).map(|i| i as f64).collect(),
                String::new(),
            )
        };
        let labels = axis.values.iter().map(value_text).collect();
        // The slice: every other axis at its first value.
        let mut slice: Vec<Option<&PointResult>> = vec![None; axis.values.len()];
        for p in &res.points {
            let on_slice = p.coords.iter().enumerate().all(|(a, &c)| a == k || c == 0);
            if let (true, Some(&c)) = (on_slice, p.coords.get(k))
                && let Some(s) = slice.get_mut(c)
            {
                *s = Some(p.result);
            }
        }
        let flows: Vec<String> = slice
            .iter()
            .flatten()
            .next()
            .map(|r| r.flows.iter().map(|f| f.flow.clone()).collect())
            .unwrap_or_default();
        // Periodic flows: the message delay (creation to last frame); others: the packet
        // delay.
        let series = flows
            .iter()
            .enumerate()
            .map(|(fi, name)| {
                let rows: Vec<Option<&FlowRow>> = slice
                    .iter()
                    .map(|r| r.and_then(|r| r.flows.get(fi)))
                    .collect();
                let message = rows.iter().flatten().any(|f| f.message_mean_ns.is_some());
                let us = |pick: fn(&FlowRow) -> Option<f64>| {
                    rows.iter()
                        .map(|f| f.and_then(pick).map(|ns| ns / 1e3))
                        .collect::<Vec<_>>()
                };
                if message {
                    (
                        format!("{name} (message)"),
                        us(|f| f.message_mean_ns),
                        us(|f| f.message_p99_ns),
                    )
                } else {
                    (
                        name.clone(),
                        us(|f| f.delay_mean_ns),
                        us(|f| f.delay_p99_ns),
                    )
                }
            })
            .collect();
        let held = res
            .axes
            .iter()
            .enumerate()
            .filter(|&(a, _)| a != k)
            .map(|(_, v)| {
                format!(
                    "{} = {}",
                    v.key,
                    v.values.first().map(value_text).unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        PlotData {
            key: axis.key.to_owned(),
            xs,
            labels,
            unit,
            held,
            series,
        }
    }

    /// x over the values padded by 3% (a single value: +-0.5); y from 0 to 8% above the
    /// highest delay.
    fn ranges(&self) -> (std::ops::Range<f64>, std::ops::Range<f64>) {
        let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
        for &x in &self.xs {
            x0 = x0.min(x);
            x1 = x1.max(x);
        }
        if !x0.is_finite() {
            (x0, x1) = (0.0, 1.0);
        }
        if x1 <= x0 {
            (x0, x1) = (x0 - 0.5, x1 + 0.5);
        }
        let pad = (x1 - x0) * 0.03;
        let mut y1 = 0.0f64;
        for (_, m, p) in &self.series {
            for y in m.iter().chain(p).flatten() {
                y1 = y1.max(*y);
            }
        }
        if y1 <= 0.0 {
            y1 = 1.0;
        }
        ((x0 - pad)..(x1 + pad), 0.0..(y1 * 1.08))
    }

    /// The chart: per flow a solid mean line and a faded p99 line, each with dots.
    fn chart(&self) -> Chart {
        let (x_range, y_range) = self.ranges();
        let mut layers = Vec::new();
        for (i, (name, mean, p99)) in self.series.iter().enumerate() {
            let c = Colour::palette(i);
            for (ys, faded, which) in [(mean, 1.0, "mean"), (p99, 0.45, "p99")] {
                let colour = c.faded(faded);
                let points: Vec<(f64, f64)> = self
                    .xs
                    .iter()
                    .zip(ys)
                    .filter_map(|(&x, y)| y.map(|y| (x, y)))
                    .collect();
                layers.push(Layer {
                    points: points.clone(),
                    mark: Mark::Line { colour, width: 2 },
                    key: Some(format!("{name} {which}")),
                });
                layers.push(Layer {
                    points,
                    mark: Mark::Points {
                        colour,
                        shape: Shape::Circle,
                        filled: true,
                        size: 3,
                    },
                    key: None,
                });
            }
        }
        let categorical = self.unit.is_empty()
            && self
                .labels
                .iter()
                .zip(&self.xs)
                .any(|(l, x)| l.parse::<f64>().ok() != Some(*x));
        let x_range = if categorical {
            -0.5..self.labels.len() as f64 - 0.5
        } else {
            x_range
        };
        Chart {
            name: format!("the plot of {}", self.key),
            title: if self.held.is_empty() {
                format!("delay vs {}", self.key)
            } else {
                format!("delay vs {} ({})", self.key, self.held)
            },
            x_label: if self.unit.is_empty() {
                self.key.clone()
            } else {
                format!("{} [{}]", self.key, self.unit)
            },
            y_label: "delay [us] (solid: mean, faded: p99)".into(),
            x_range,
            y_range,
            x_ticks: categorical.then(|| self.labels.clone()),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A point whose one flow has mean delay `mean` \[ns\] (p99 twice that).
    fn point(index: u64, mean: f64) -> PointResult {
        serde_json::from_value(serde_json::json!({
            "index": index, "hash": "0", "nodes": [{"name": "du", "utilisation": 0.5}],
            "flows": [{
                "flow": "up,link", "packets_sent": 10, "packets_delivered": 10,
                "packets_dropped": 0, "throughput_bps": 1e6, "delay_mean_ns": mean,
                "delay_p50_ns": mean, "delay_p99_ns": 2.0 * mean, "delay_max_ns": 2.0 * mean,
                "queueing_ns": 0.0, "propagation_ns": 0.0, "transmission_ns": 0.0,
                "processing_ns": 0.0, "message_mean_ns": null, "message_p99_ns": null,
                "rtt_mean_ns": null, "rtt_p99_ns": null, "transfer_completion_ns": null,
                "goodput_bps": null, "path_max_utilisation": 0.5, "bottleneck_node": "du"
            }]
        }))
        .expect("a point result")
    }

    #[test]
    fn csv_json_and_plots_place_each_point_on_the_grid() {
        let mtu: Vec<serde_json::Value> = vec!["1500B".into(), "9000B".into()];
        let split: Vec<serde_json::Value> = vec!["greedy".into(), "even".into()];
        let results: Vec<PointResult> = (0..4).map(|i| point(i, 1000.0 * (i + 1) as f64)).collect();
        let header = serde_json::json!({ "schema": "oransim.sweep/1", "points": 4 });
        let res = Results {
            header: &header,
            axes: vec![
                Axis {
                    key: "link[0].mtu",
                    values: &mtu,
                },
                Axis {
                    key: "a,b",
                    values: &split,
                },
            ],
            points: results
                .iter()
                .map(|r| Point {
                    result: r,
                    coords: vec![(r.index / 2) as usize, (r.index % 2) as usize],
                })
                .collect(),
        };
        let csv = res.csv();
        let mut lines = csv.lines();
        assert!(
            lines
                .next()
                .unwrap()
                .starts_with("point,link[0].mtu [B],\"a,b\",flow,packets_sent,")
        );
        assert!(
            lines
                .nth(3)
                .unwrap()
                .starts_with("3,9000,even,\"up,link\",10,10,0,1000000,4000,")
        );
        let json: serde_json::Value = serde_json::from_str(&res.json().unwrap()).unwrap();
        assert_eq!(json["points"], 4);
        assert_eq!(
            json["results"][2]["values"],
            serde_json::json!(["9000B", "greedy"])
        );
        assert_eq!(json["results"][3]["nodes"][0]["name"], "du");
        let plots = res.plots().unwrap();
        let stems: Vec<&str> = plots.iter().map(|d| d.stem.as_str()).collect();
        assert_eq!(stems, ["link_0_mtu", "a_b"]);
        // The mtu plot holds split at its first value (greedy): points 0 and 2.
        let mtu_plot = PlotData::new(&res, 0);
        assert_eq!(mtu_plot.xs, [1500.0, 9000.0]);
        assert_eq!(mtu_plot.unit, "B");
        assert_eq!(mtu_plot.held, "a,b = greedy");
        assert_eq!(mtu_plot.series[0].1, [Some(1.0), Some(3.0)]);
        assert_eq!(mtu_plot.series[0].2, [Some(2.0), Some(6.0)]);
        // The split axis is categorical: x at 0 and 1, labelled by name.
        let split_plot = PlotData::new(&res, 1).chart();
        assert_eq!(
            split_plot.x_ticks,
            Some(vec!["greedy".into(), "even".into()])
        );
        assert!(plots[1].svg.contains("\ngreedy\n"));
    }

    #[test]
    fn plot_names_are_file_stems() {
        assert_eq!(plot_name("link[0].rate"), "link_0_rate");
        assert_eq!(plot_name("flow[1].source.split"), "flow_1_source_split");
        assert_eq!(plot_name("__x__"), "x");
    }

    #[test]
    fn values_read_as_number_and_unit() {
        assert_eq!(
            number_unit(&"1400B".into()),
            Some(("1400".into(), 1400.0, "B".into()))
        );
        assert_eq!(
            number_unit(&"2.5e3 ns".into()),
            Some(("2.5e3".into(), 2500.0, "ns".into()))
        );
        assert_eq!(
            number_unit(&5.into()),
            Some(("5".into(), 5.0, String::new()))
        );
        assert_eq!(number_unit(&"greedy".into()), None);
        let v = |xs: &[&str]| xs.iter().map(|&x| x.into()).collect::<Vec<_>>();
        assert_eq!(shared_unit(&v(&["1500B", "9000B"])), Some("B".into()));
        assert_eq!(shared_unit(&v(&["1500B", "9KiB"])), None);
        assert_eq!(shared_unit(&v(&["greedy", "even"])), None);
        assert_eq!(value_text(&"greedy".into()), "greedy");
        assert_eq!(value_text(&5.into()), "5");
    }
}
