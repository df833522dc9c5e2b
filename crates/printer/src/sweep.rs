//! A sweep's results ([`whatif::sweep::PointResult`]s over a grid of varied keys) as the
//! `sweep.json` document, `sweep.csv` (one row per point and flow) and one plot per dimension
//! (`plots`). Every output is rendered from the sorted results alone, so a resumed sweep, any
//! `--jobs` and merged shards give the same bytes.

use serde::Serialize;

use whatif::sweep::{FlowRow, NodeUse, PointResult};

use crate::plot::{Drawn, Figure};
use crate::table::Table;

mod plots;

pub use plots::{
    Aggregate, MAX_PLOT_HEIGHT, MAX_PLOT_SERIES, MAX_PLOT_WIDTH, MIN_PLOT_HEIGHT, MIN_PLOT_WIDTH,
    Metric, PLOT_SIZE, PlotOptions, readable,
};

/// One varied key and its values, in sweep order.
#[derive(Debug, Clone, Copy)]
pub struct Axis<'a> {
    /// The key path, e.g. `link[0].mtu`.
    pub key: &'a str,
    /// Its values as given (`"1400B"`, `5`, `"greedy"`).
    pub values: &'a [serde_json::Value],
    /// Its dimension of the Cartesian product (the keys of a `--vary-together` group share
    /// one), counted from 0 in order.
    pub dim: usize,
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

/// A value as text: a string without its quotes, anything else as JSON (how `--label`
/// names a value).
pub fn value_text(v: &serde_json::Value) -> String {
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

    /// `sweep.csv`: `point`, one column per varied key, `flow`, then [`model::columns::SWEEP`]; one
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
        head.extend(model::columns::SWEEP.iter().map(|c| c.name().to_owned()));
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

    /// One plot per dimension (a varied key, or a `--vary-together` group), named by
    /// [`plot_name`] of its keys: `options.metric` of every flow against the dimension's
    /// values, one series per combination of the other dimensions' values (at most
    /// [`MAX_PLOT_SERIES`], evenly spread, the title saying so).
    pub fn plots(&self, options: &PlotOptions) -> crate::Result<Vec<Drawn>> {
        self.figures(options)?
            .into_iter()
            .map(|(stem, f)| f.drawn(&stem))
            .collect()
    }

    /// The plots of [`Results::plots`] before they are drawn, each with its file stem: at
    /// `options.size` exactly (a legend that does not fit is
    /// [`crate::Error::LegendTooTall`]), or at [`PLOT_SIZE`] made taller where the legend,
    /// wrapped to its strip, needs it.
    pub fn figures(&self, options: &PlotOptions) -> crate::Result<Vec<(String, Figure)>> {
        let mut dims: Vec<usize> = self.axes.iter().map(|a| a.dim).collect();
        dims.sort_unstable();
        dims.dedup();
        dims.into_iter()
            .map(|d| {
                let keys: Vec<&str> = self
                    .axes
                    .iter()
                    .filter(|a| a.dim == d)
                    .map(|a| a.key)
                    .collect();
                let stem = plot_name(&keys.join(" "));
                let figure = Figure::Chart(plots::PlotData::new(self, d, options).chart());
                let figure = match options.size {
                    Some(_) => figure.legend_fits()?,
                    None => figure.grown_to_legend(),
                };
                Ok((stem, figure))
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
                    dim: 0,
                },
                Axis {
                    key: "a,b",
                    values: &split,
                    dim: 1,
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
        let options = PlotOptions {
            labels: [("a,b".to_owned(), "split".to_owned())].into(),
            ..PlotOptions::default()
        };
        let plots = res.plots(&options).unwrap();
        let stems: Vec<&str> = plots.iter().map(|d| d.stem.as_str()).collect();
        assert_eq!(stems, ["link_0_mtu", "a_b"]);
        // The mtu plot draws both splits (points 0, 2 and 1, 3), mean and p99 each, in us.
        let mtu_plot = plots::PlotData::new(&res, 0, &options);
        assert_eq!(mtu_plot.xs, [1500.0, 9000.0]);
        assert_eq!(mtu_plot.x_label, "link 0 MTU [B]");
        assert_eq!(
            mtu_plot.labels(),
            [
                "split = greedy, mean",
                "split = greedy, p99",
                "split = even, mean",
                "split = even, p99"
            ]
        );
        assert_eq!(mtu_plot.ys(0), [Some(1.0), Some(3.0)]);
        assert_eq!(mtu_plot.ys(1), [Some(2.0), Some(6.0)]);
        assert_eq!(mtu_plot.ys(2), [Some(2.0), Some(4.0)]);
        assert_eq!(mtu_plot.title, "delay of up,link vs link 0 MTU");
        // The y range is fitted to the data (1 to 8 us), not from 0.
        let chart = mtu_plot.chart();
        assert!(
            chart.y_range.start > 0.4 && chart.y_range.end < 8.6,
            "{:?}",
            chart.y_range
        );
        // The split axis is categorical: x at 0 and 1, labelled by name.
        let split_plot = plots::PlotData::new(&res, 1, &options).chart();
        assert_eq!(
            split_plot.x_ticks,
            Some(vec!["greedy".into(), "even".into()])
        );
        assert_eq!(split_plot.x_label, "split");
        assert!(plots[1].svg.contains("\ngreedy\n"));
    }

    /// A point with two flows `a` and `b`, mean delays `ma` and `mb` \[ns\] (p99 twice).
    fn two_flows(index: u64, ma: f64, mb: f64) -> PointResult {
        let mut p = point(index, ma);
        let mut b = p.flows[0].clone();
        p.flows[0].flow = "a".into();
        b.flow = "b".into();
        b.delay_mean_ns = Some(mb);
        b.delay_p99_ns = Some(2.0 * mb);
        p.flows.push(b);
        p
    }

    /// Issue 37 item 5: value labels rename values on ticks and in the legend; `flows` picks
    /// flows; `aggregate` draws one series over them; `size` is the plot's size.
    #[test]
    fn value_labels_flow_choice_aggregate_and_size() {
        let stack: Vec<serde_json::Value> = vec!["eth/x(cbc)".into(), "eth/x(gcm)".into()];
        let mtu: Vec<serde_json::Value> = vec!["1500B".into(), "9000B".into()];
        let results: Vec<PointResult> = (0..4)
            .map(|i| two_flows(i, 1000.0 * (i + 1) as f64, 3000.0 * (i + 1) as f64))
            .collect();
        let header = serde_json::json!({ "schema": "oransim.sweep/1", "points": 4 });
        let res = Results {
            header: &header,
            axes: vec![
                Axis {
                    key: "s",
                    values: &stack,
                    dim: 0,
                },
                Axis {
                    key: "m",
                    values: &mtu,
                    dim: 1,
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
        let mut options = PlotOptions {
            labels: [("s".to_owned(), "stack".to_owned())].into(),
            values: [(
                "s".to_owned(),
                [("eth/x(gcm)".to_owned(), "GCM".to_owned())].into(),
            )]
            .into(),
            ..PlotOptions::default()
        };
        let by_stack = plots::PlotData::new(&res, 0, &options);
        assert_eq!(
            by_stack.ticks,
            Some(vec!["eth/x(cbc)".to_owned(), "GCM".to_owned()])
        );
        // Every flow: 2 MTUs x 2 flows x mean/p99.
        assert_eq!(by_stack.labels().len(), 8);
        let by_mtu = plots::PlotData::new(&res, 1, &options);
        assert_eq!(by_mtu.labels()[4], "stack = GCM, a, mean");
        // One flow chosen: named in the title, not in the legend.
        options.flows = Some(vec!["b".into()]);
        let only_b = plots::PlotData::new(&res, 1, &options);
        assert_eq!(
            only_b.labels(),
            [
                "stack = eth/x(cbc), mean",
                "stack = eth/x(cbc), p99",
                "stack = GCM, mean",
                "stack = GCM, p99"
            ]
        );
        assert!(only_b.title.contains(" of b vs "), "{}", only_b.title);
        assert_eq!(only_b.ys(0), [Some(3.0), Some(6.0)]);
        // Mean and max over both flows: one series per stack and statistic.
        options.flows = None;
        options.aggregate = Some(Aggregate::Mean);
        let mean = plots::PlotData::new(&res, 1, &options);
        assert_eq!(mean.labels(), only_b.labels());
        assert!(mean.title.contains("(mean over 2 flows)"), "{}", mean.title);
        assert_eq!(mean.ys(0), [Some(2.0), Some(4.0)]);
        assert_eq!(mean.ys(3), [Some(12.0), Some(16.0)]);
        options.aggregate = Some(Aggregate::Max);
        assert_eq!(
            plots::PlotData::new(&res, 1, &options).ys(1),
            [Some(6.0), Some(12.0)]
        );
        // The size asked for is the plot's.
        options.size = Some((640, 480));
        let figures = res.figures(&options).unwrap();
        let svg = figures[0].1.svg().unwrap();
        assert!(
            svg.contains(r#"width="640" height="480""#),
            "{}",
            &svg[..200]
        );
        // A legend taller than the size asked for is refused, not clipped.
        options.size = Some((300, 200));
        options.aggregate = None;
        assert!(matches!(
            res.figures(&options),
            Err(crate::Error::LegendTooTall { height: 200, .. })
        ));
        // Without a size the plot grows to its legend.
        options.size = None;
        for (_, f) in res.figures(&options).unwrap() {
            assert!(f.legend_height() <= 560, "{}", f.legend_height());
        }
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
