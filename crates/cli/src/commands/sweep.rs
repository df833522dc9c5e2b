//! `oransim sweep FILE --set KEY=VALUE --vary KEY=SPEC ...`: run a scenario over a grid of
//! parameter values, in parallel, resumable, shardable; `oransim sweep --merge DIR...` combines
//! shards. The model side (key paths, values, the point list, running a point, the journal,
//! shards and their merge) is [`model::sweep`]; this module maps the flags to it, shows
//! progress and renders the output files.
//! `docs/sweep.md` is the user's guide.
//!
//! Files in `--out DIR`:
//! - `points.jsonl` (`points-I-of-N.jsonl` for a shard): the journal, one JSON line per finished
//!   point, appended and fsynced; read back on a restart so nothing finished is redone.
//! - `sweep.json`, `sweep.csv`, `plots/<key>.svg` and `.png`: the results of a whole sweep.
//! - `shard-I-of-N.json`: a finished shard's points, for `--merge`.
//!
//! Every result file is rendered from the sorted point results alone and written atomically, so
//! an interrupted-and-resumed sweep, a sweep with any `--jobs`, and merged shards all produce
//! the same bytes.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use model::sweep::{
    self, Header, Journal, METRIC_COLUMNS, PointResult, Shard, ShardDoc, ShardInfo, Sweep,
    coordinates,
};
use serde::Serialize;

use crate::commands::run::prepare_dir;
use crate::output::write_atomic;

/// Arguments of `oransim sweep`.
#[derive(Debug, clap::Args)]
pub struct SweepArgs {
    /// Scenario file (TOML).
    #[arg(required_unless_present = "merge")]
    pub file: Option<PathBuf>,
    /// Set a key in every point: a TOML key path and a value, e.g. `stop.packets=1000`,
    /// `link[0].rate=10Gbps`, `scenario.seed=7` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Vary a key: `KEY=a..b:step` (both ends included; numbers or quantities with one unit,
    /// e.g. `link[0].mtu=1400B..9000B:400B`) or `KEY=a,b,c`. Several form a Cartesian product,
    /// the first outermost (repeatable).
    #[arg(long = "vary", value_name = "KEY=SPEC")]
    pub vary: Vec<String>,
    /// Directory for the journal and the results (created if missing). A sweep started again
    /// with the same arguments and directory resumes: finished points are not run again.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Points run at once (default: all cores; results do not depend on it).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub jobs: Option<u32>,
    /// Run only slice I of N (the points whose index modulo N is I, I from 0); needs --out.
    /// Combine the slices with --merge.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// Format of the results on stdout when there is no --out.
    #[arg(long, value_enum, default_value_t = SweepFormat::Csv)]
    pub format: SweepFormat,
    /// Merge finished shards: directories holding `shard-I-of-N.json` files, or the files.
    /// Writes the results of the whole sweep into --out (or prints them).
    #[arg(
        long,
        num_args = 1..,
        value_name = "DIR|FILE",
        conflicts_with_all = ["file", "set", "vary", "jobs", "shard"]
    )]
    pub merge: Vec<PathBuf>,
    /// No progress output on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Format of the results on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SweepFormat {
    /// One row per point and flow.
    Csv,
    /// The `oransim.sweep/1` document.
    Json,
}

/// `--shard I/N`, read by the library's parser.
fn parse_shard(s: &str) -> Result<Shard, String> {
    s.parse()
}

/// `sweep.json`.
#[derive(Debug, Serialize)]
struct SweepDoc<'a> {
    #[serde(flatten)]
    header: &'a Header,
    results: Vec<DocPoint<'a>>,
}

#[derive(Debug, Serialize)]
struct DocPoint<'a> {
    index: u64,
    values: Vec<&'a serde_json::Value>,
    flows: &'a [sweep::FlowRow],
    nodes: &'a [sweep::NodeUse],
}

/// Runs `oransim sweep`.
pub fn execute(args: &SweepArgs) -> anyhow::Result<ExitCode> {
    if !args.merge.is_empty() {
        return merge(args);
    }
    let Some(file) = &args.file else {
        bail!("a scenario file is needed (or --merge DIR...)");
    };
    let sets = args
        .set
        .iter()
        .map(|s| sweep::parse_set(s))
        .collect::<Result<Vec<_>, _>>()?;
    let axes = args
        .vary
        .iter()
        .map(|s| sweep::parse_vary(s))
        .collect::<Result<Vec<_>, _>>()?;
    let sweep = Sweep::load(file, sets, axes)?;
    let total = sweep.total();
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    if args.shard.is_some() && args.out.is_none() {
        bail!("--shard needs --out DIR: a shard writes its journal and shard file there");
    }
    if let Some(dir) = &args.out
        && dir.exists()
        && !dir.is_dir()
    {
        bail!(
            "--out {}: exists and is not a directory; give a directory for the sweep's files",
            dir.display()
        );
    }

    // Every point of the whole sweep is validated before any runs (the same in every shard).
    let all: Vec<u64> = (0..total).collect();
    if let Err(e) = sweep.validate(&all, jobs) {
        let (i, err) = *e;
        return Err(anyhow::Error::new(err).context(format!(
            "sweep point {i} of {total} ({}) is not a valid scenario (the file with --set and --vary applied)",
            if sweep.axes().is_empty() {
                "no --vary".to_owned()
            } else {
                sweep.describe(i)
            }
        )));
    }
    let mine: Vec<u64> = match args.shard {
        Some(s) => all.into_iter().filter(|&i| s.holds(i)).collect(),
        None => all,
    };
    let header = Header::of(&sweep)?;

    let mut done: BTreeMap<u64, PointResult> = BTreeMap::new();
    let mut journal = None;
    if let Some(dir) = &args.out {
        prepare_dir(dir)?;
        let (j, finished) = Journal::open(dir, &sweep, args.shard)?;
        done = finished;
        journal = Some(j);
    }
    let todo: Vec<u64> = mine
        .iter()
        .copied()
        .filter(|i| !done.contains_key(i))
        .collect();
    if !args.quiet {
        let shard = args
            .shard
            .map(|s| format!(", shard {}/{} ({} points)", s.index, s.count, mine.len()))
            .unwrap_or_default();
        eprintln!(
            "sweep: {total} points{shard}; {} already done, {} to run on {jobs} job{}",
            done.len(),
            todo.len(),
            if jobs == 1 { "" } else { "s" }
        );
    }

    let mut progress = Progress::new(todo.len() as u64, args.quiet);
    sweep::run_parallel(
        &todo,
        jobs,
        |i| sweep.run_point(i),
        |batch| -> anyhow::Result<()> {
            let n = batch.len() as u64;
            let results = batch.into_iter().collect::<Result<Vec<_>, _>>()?;
            if let Some(j) = &mut journal {
                j.append(&results)?;
            }
            for r in results {
                done.insert(r.index, r);
            }
            progress.advance(n);
            Ok(())
        },
    )?;
    progress.finish();

    let results: Vec<PointResult> = mine.iter().filter_map(|i| done.remove(i)).collect();
    match (&args.out, args.shard) {
        (Some(dir), Some(s)) => {
            let doc = ShardDoc {
                header,
                shard: ShardInfo {
                    index: s.index,
                    count: s.count,
                },
                results,
            };
            let path = dir.join(s.file_name());
            write_atomic(&path, doc.to_json()?.as_bytes())?;
            crate::format::print(&format!("{}\n", path.display()))?;
        }
        (Some(dir), None) => {
            let written = write_results(dir, &header, &results)?;
            crate::format::print(&written)?;
        }
        (None, _) => print_results(&header, &results, args.format)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Progress on stderr: a bar on a terminal; elsewhere (CI logs, files) one plain line every
/// 10 s, only for sweeps that take that long.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    total: u64,
    done: u64,
    start: Instant,
    last_line: Instant,
    quiet: bool,
}

impl Progress {
    fn new(total: u64, quiet: bool) -> Progress {
        let bar = (!quiet && total > 0 && std::io::stderr().is_terminal()).then(|| {
            let b = indicatif::ProgressBar::new(total);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} points, {per_sec}, eta {eta}",
            ) {
                b.set_style(style);
            }
            b
        });
        Progress {
            bar,
            total,
            done: 0,
            start: Instant::now(),
            last_line: Instant::now(),
            quiet,
        }
    }

    fn advance(&mut self, n: u64) {
        self.done += n;
        if let Some(b) = &self.bar {
            b.inc(n);
        } else if !self.quiet && self.last_line.elapsed() >= Duration::from_secs(10) {
            self.last_line = Instant::now();
            eprintln!(
                "sweep: {}/{} points ({:.0}%) after {:.0} s",
                self.done,
                self.total,
                100.0 * self.done as f64 / self.total.max(1) as f64,
                self.start.elapsed().as_secs_f64()
            );
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// `oransim sweep --merge DIR|FILE...`.
fn merge(args: &SweepArgs) -> anyhow::Result<ExitCode> {
    let (header, results) = sweep::merge_shards(&args.merge)?;
    match &args.out {
        Some(dir) => {
            if dir.exists() && !dir.is_dir() {
                bail!(
                    "--out {}: exists and is not a directory; give a directory for the results",
                    dir.display()
                );
            }
            prepare_dir(dir)?;
            let written = write_results(dir, &header, &results)?;
            crate::format::print(&written)?;
        }
        None => print_results(&header, &results, args.format)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn render_json(header: &Header, results: &[PointResult]) -> anyhow::Result<String> {
    let lens: Vec<usize> = header.vary.iter().map(|v| v.values.len()).collect();
    let doc = SweepDoc {
        header,
        results: results
            .iter()
            .map(|r| DocPoint {
                index: r.index,
                values: coordinates(r.index, &lens)
                    .into_iter()
                    .zip(&header.vary)
                    .map(|(c, v)| &v.values[c])
                    .collect(),
                flows: &r.flows,
                nodes: &r.nodes,
            })
            .collect(),
    };
    let mut s = serde_json::to_string_pretty(&doc)?;
    s.push('\n');
    Ok(s)
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

fn value_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn render_csv(header: &Header, results: &[PointResult]) -> String {
    let lens: Vec<usize> = header.vary.iter().map(|v| v.values.len()).collect();
    let mut out = String::from("point");
    for v in &header.vary {
        out.push(',');
        out.push_str(&csv_cell(&v.key));
    }
    out.push_str(",flow");
    for c in METRIC_COLUMNS {
        out.push(',');
        out.push_str(c);
    }
    out.push('\n');
    for r in results {
        let values: Vec<String> = coordinates(r.index, &lens)
            .into_iter()
            .zip(&header.vary)
            .map(|(c, v)| csv_cell(&value_text(&v.values[c])))
            .collect();
        for f in &r.flows {
            let _ = write!(out, "{}", r.index);
            for v in &values {
                out.push(',');
                out.push_str(v);
            }
            out.push(',');
            out.push_str(&csv_cell(&f.flow));
            for c in f.cells() {
                out.push(',');
                out.push_str(&csv_cell(&c));
            }
            out.push('\n');
        }
    }
    out
}

fn print_results(
    header: &Header,
    results: &[PointResult],
    format: SweepFormat,
) -> anyhow::Result<()> {
    let text = match format {
        SweepFormat::Csv => render_csv(header, results),
        SweepFormat::Json => render_json(header, results)?,
    };
    Ok(crate::format::print(&text)?)
}

/// Writes `sweep.json`, `sweep.csv` and the plots atomically; returns the paths, one a line.
fn write_results(dir: &Path, header: &Header, results: &[PointResult]) -> anyhow::Result<String> {
    let mut written = String::new();
    let json = dir.join("sweep.json");
    write_atomic(&json, render_json(header, results)?.as_bytes())?;
    let csv = dir.join("sweep.csv");
    write_atomic(&csv, render_csv(header, results).as_bytes())?;
    let _ = writeln!(written, "{}\n{}", json.display(), csv.display());
    if !header.vary.is_empty() {
        let plots = dir.join("plots");
        std::fs::create_dir_all(&plots)
            .with_context(|| format!("cannot create {}", plots.display()))?;
        for (k, axis) in header.vary.iter().enumerate() {
            let stem = plot_name(&axis.key);
            let data = plot::PlotData::new(header, results, k);
            let svg = plots.join(format!("{stem}.svg"));
            write_atomic(&svg, data.svg()?.as_bytes())?;
            let png = plots.join(format!("{stem}.png"));
            write_atomic(&png, &data.png()?)?;
            let _ = writeln!(written, "{}\n{}", svg.display(), png.display());
        }
    }
    Ok(written)
}

/// `link[0].rate` -> `link_0_rate`.
fn plot_name(key: &str) -> String {
    let mut s: String = key
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    while s.contains("__") {
        s = s.replace("__", "_");
    }
    s.trim_matches('_').to_owned()
}

/// One plot per varied key: mean and p99 delay of every flow against the key's values, the
/// other varied keys held at their first value. SVG with text (no font files needed: the
/// viewer draws the text); PNG without text (plotters draws text into bitmaps only with
/// system fonts, which a CI machine may not have).
mod plot {
    use plotters::coord::types::RangedCoordf64;
    use plotters::prelude::*;

    use super::{Header, PointResult, coordinates, value_text};

    const SIZE: (u32, u32) = (900, 560);

    /// One flow's line: its label, mean and p99 at each x [us] (`None`: not measured).
    type Series = (String, Vec<Option<f64>>, Vec<Option<f64>>);

    /// What one plot shows.
    pub struct PlotData {
        key: String,
        /// x positions and their tick labels.
        xs: Vec<f64>,
        labels: Vec<String>,
        unit: String,
        held: String,
        /// Per flow: name, mean and p99 delay [us] at each x (None when not measured).
        series: Vec<Series>,
    }

    /// Reads `"1400B"` as (1400, "B"), `5` as (5, "").
    fn number_unit(v: &serde_json::Value) -> Option<(f64, String)> {
        match v {
            serde_json::Value::Number(n) => n.as_f64().map(|x| (x, String::new())),
            serde_json::Value::String(s) => {
                let t = s.trim();
                let end = t
                    .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
                    .unwrap_or(t.len());
                let x: f64 = t[..end].parse().ok()?;
                Some((x, t[end..].trim().to_owned()))
            }
            _ => None,
        }
    }

    impl PlotData {
        pub fn new(header: &Header, results: &[PointResult], k: usize) -> PlotData {
            let axis = &header.vary[k];
            let lens: Vec<usize> = header.vary.iter().map(|v| v.values.len()).collect();
            let parsed: Vec<Option<(f64, String)>> = axis.values.iter().map(number_unit).collect();
            let numeric = parsed.iter().all(Option::is_some)
                && parsed.windows(2).all(|w| match (&w[0], &w[1]) {
                    (Some(a), Some(b)) => a.1 == b.1,
                    _ => false,
                });
            let (xs, unit) = if numeric {
                (
                    parsed.iter().flatten().map(|p| p.0).collect(),
                    parsed
                        .first()
                        .and_then(|p| p.as_ref().map(|p| p.1.clone()))
                        .unwrap_or_default(),
                )
            } else {
                (
                    (0..axis.values.len()).map(|i| i as f64).collect(),
                    String::new(),
                )
            };
            let labels = axis.values.iter().map(value_text).collect();
            // The slice: every other axis at its first value.
            let slice: Vec<Option<&PointResult>> = (0..axis.values.len())
                .map(|c| {
                    let mut index = 0u64;
                    for (a, &n) in lens.iter().enumerate() {
                        index = index * n as u64 + if a == k { c as u64 } else { 0 };
                    }
                    results
                        .binary_search_by_key(&index, |r| r.index)
                        .ok()
                        .map(|p| &results[p])
                        .filter(|r| coordinates(r.index, &lens)[k] == c)
                })
                .collect();
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
                    let rows: Vec<Option<&model::sweep::FlowRow>> = slice
                        .iter()
                        .map(|r| r.and_then(|r| r.flows.get(fi)))
                        .collect();
                    let message = rows.iter().flatten().any(|f| f.message_mean_ns.is_some());
                    let us = |pick: fn(&model::sweep::FlowRow) -> Option<f64>| {
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
            let held = header
                .vary
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
                key: axis.key.clone(),
                xs,
                labels,
                unit,
                held,
                series,
            }
        }

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

        fn draw_series<DB: DrawingBackend>(
            &self,
            chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
            legend: bool,
        ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
            for (i, (name, mean, p99)) in self.series.iter().enumerate() {
                let c = crate::output::palette(i);
                for (ys, dashed) in [(mean, false), (p99, true)] {
                    let pts: Vec<(f64, f64)> = self
                        .xs
                        .iter()
                        .zip(ys)
                        .filter_map(|(&x, y)| y.map(|y| (x, y)))
                        .collect();
                    let style = if dashed {
                        c.mix(0.45).stroke_width(2)
                    } else {
                        c.stroke_width(2)
                    };
                    let s = chart.draw_series(LineSeries::new(pts.clone(), style))?;
                    if legend {
                        let label = format!("{name} {}", if dashed { "p99" } else { "mean" });
                        s.label(label).legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 18, y)], style)
                        });
                    }
                    chart.draw_series(pts.iter().map(|&p| {
                        Circle::new(p, 3, if dashed { c.mix(0.45) } else { c.mix(1.0) }.filled())
                    }))?;
                }
            }
            Ok(())
        }

        /// The plot as SVG text.
        pub fn svg(&self) -> anyhow::Result<String> {
            crate::output::svg_string(SIZE, &format!("the plot of {}", self.key), |root| {
                self.draw_svg(root)
            })
        }

        fn draw_svg<DB: DrawingBackend>(
            &self,
            root: &DrawingArea<DB, plotters::coord::Shift>,
        ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
            root.fill(&WHITE)?;
            let (xr, yr) = self.ranges();
            let caption = if self.held.is_empty() {
                format!("delay vs {}", self.key)
            } else {
                format!("delay vs {} ({})", self.key, self.held)
            };
            let mut chart = ChartBuilder::on(root)
                .caption(caption, ("sans-serif", 18))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(70)
                .build_cartesian_2d(xr, yr)?;
            let categorical = self.unit.is_empty()
                && self
                    .labels
                    .iter()
                    .zip(&self.xs)
                    .any(|(l, x)| l.parse::<f64>().ok() != Some(*x));
            let labels = self.labels.clone();
            let fmt_cat = move |x: &f64| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 {
                    labels.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            };
            let x_desc = if self.unit.is_empty() {
                self.key.clone()
            } else {
                format!("{} [{}]", self.key, self.unit)
            };
            let mut mesh = chart.configure_mesh();
            mesh.x_desc(x_desc)
                .y_desc("delay [us] (solid: mean, faded: p99)");
            if categorical {
                mesh.x_labels(self.labels.len().max(2))
                    .x_label_formatter(&fmt_cat)
                    .draw()?;
            } else {
                mesh.draw()?;
            }
            self.draw_series(&mut chart, true)?;
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()?;
            root.present()
        }

        /// The plot as PNG bytes: the same lines, a light grid, no text.
        pub fn png(&self) -> anyhow::Result<Vec<u8>> {
            crate::output::png_bytes(SIZE, &format!("the plot of {}", self.key), |root| {
                self.draw_png(root)
            })
        }

        fn draw_png<DB: DrawingBackend>(
            &self,
            root: &DrawingArea<DB, plotters::coord::Shift>,
        ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
            root.fill(&WHITE)?;
            let (xr, yr) = self.ranges();
            let mut chart = ChartBuilder::on(root)
                .margin(24)
                .build_cartesian_2d(xr.clone(), yr.clone())?;
            let grid = BLACK.mix(0.12);
            for i in 0..=5 {
                let x = xr.start + (xr.end - xr.start) * i as f64 / 5.0;
                let y = yr.start + (yr.end - yr.start) * i as f64 / 5.0;
                chart.draw_series(LineSeries::new([(x, yr.start), (x, yr.end)], grid))?;
                chart.draw_series(LineSeries::new([(xr.start, y), (xr.end, y)], grid))?;
            }
            self.draw_series(&mut chart, false)?;
            root.present()
        }
    }
}
