//! `oransim reproduce`: run every published experiment (`model::reproduce`) and compare with
//! the papers: one row per published number, fitted or predicted, with plots (SVG with text,
//! PNG without text: plotters draws text into bitmaps only with system fonts) and the
//! generated `docs/reproduction.md`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use model::reproduce::{self, Experiment, HeatMap, Plot, Row, Style, Summary, XyPlot};

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned text.
    Table,
    /// One JSON document (`oransim.reproduce/1`).
    Json,
}

/// Arguments of `oransim reproduce`.
#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// Run only this experiment (e2_sack, e2_size, e2_throughput, ofh_table4, ofh_size,
    /// ofh_mtu, ofh_load, pq_ike_e2, pq_kems_hybrid, nfv_macsec).
    #[arg(long, value_name = "NAME")]
    pub only: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Write each experiment's plots here as SVG (with text) and PNG (without text).
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
    /// Write the reproduction report (Markdown) to this file; plots go to `--plots`, or to
    /// `img/` beside the file.
    #[arg(long, value_name = "FILE")]
    pub write_docs: Option<PathBuf>,
    /// Repository root holding `scenarios/` and `calibration/`.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
}

/// Runs the command: exit 0 when every target is met, 1 when one is missed.
pub fn execute(args: &ReproduceArgs) -> anyhow::Result<ExitCode> {
    let exps = reproduce::run(&args.root, args.only.as_deref()).context("reproduce")?;
    let plots_dir = match (&args.plots, &args.write_docs) {
        (Some(d), _) => Some(d.clone()),
        (None, Some(doc)) => Some(doc.parent().unwrap_or(Path::new(".")).join("img")),
        (None, None) => None,
    };
    if let Some(dir) = &plots_dir {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the plot directory {}", dir.display()))?;
        for e in &exps {
            for p in &e.plots {
                let svg = dir.join(format!("{}.svg", p.name()));
                crate::output::write_atomic(&svg, draw_svg(p)?.as_bytes())?;
                let png = dir.join(format!("{}.png", p.name()));
                crate::output::write_atomic(&png, &draw_png(p)?)?;
            }
        }
    }
    let sum = Summary::of(&exps);
    if let Some(doc) = &args.write_docs {
        let dir = plots_dir.as_deref().unwrap_or(Path::new("img"));
        let rel = relative(dir, doc.parent().unwrap_or(Path::new(".")));
        crate::output::write_atomic(doc, markdown(&exps, &sum, &rel).as_bytes())?;
    }
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            let rows: Vec<&Row> = exps.iter().flat_map(|e| &e.rows).collect();
            let v = serde_json::json!({
                "schema": reproduce::SCHEMA,
                "summary": sum,
                "rows": rows,
                "experiments": exps,
            });
            serde_json::to_writer_pretty(&mut out, &v)?;
            writeln!(out)?;
        }
        Format::Table => out.write_all(table(&exps, &sum).as_bytes())?,
    }
    Ok(if sum.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `dir` relative to `base` when it lies under it, else as given.
fn relative(dir: &Path, base: &Path) -> String {
    dir.strip_prefix(base)
        .unwrap_or(dir)
        .to_string_lossy()
        .into_owned()
}

fn num(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    let a = x.abs();
    if a == 0.0 || (0.01..1e6).contains(&a) {
        let s = format!("{x:.4}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    } else {
        format!("{x:.4e}")
    }
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), num)
}

fn table(exps: &[Experiment], sum: &Summary) -> String {
    let mut s = String::new();
    for e in exps {
        let _ = writeln!(s, "== {}: {}", e.name, e.title);
        for r in &e.rows {
            let _ = writeln!(
                s,
                "  {} {:<9} {} [{}]: paper {} | model {} | error {}% | {}",
                if r.pass { "PASS" } else { "FAIL" },
                r.kind.as_str(),
                r.quantity,
                r.unit,
                opt(r.paper),
                num(r.simulated),
                opt(r.error_pct.map(|x| (x * 100.0).round() / 100.0)),
                r.target
            );
            if let Some(why) = &r.why {
                let _ = writeln!(s, "      why: {why}");
            }
        }
        for f in &e.facts {
            let _ = writeln!(s, "  - {f}");
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(
        s,
        "{} rows: {} passed, {} failed; {} fitted, {} predicted ({:.0}% predictions){}",
        sum.rows,
        sum.passed,
        sum.failed,
        sum.fitted,
        sum.predicted,
        sum.predicted as f64 / sum.rows.max(1) as f64 * 100.0,
        if sum.failed > 0 {
            "; the failed rows are published numbers the model misses, each with the reason (exit status 1)"
        } else {
            ""
        }
    );
    s
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
}

fn markdown(exps: &[Experiment], sum: &Summary, img: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Reproducing the papers\n");
    let _ = writeln!(
        s,
        "Written by `oransim reproduce --write-docs docs/reproduction.md --plots docs/img` from a run; do not edit by hand.\n"
    );
    let _ = writeln!(
        s,
        "Each row compares one published number with the model. **fitted**: a calibration parameter was chosen from that number, so the row only checks that the composition gives it back. **predicted**: the number was used in no fit. A row the model cannot reach honestly fails, and its reason follows the table under *Not reproduced*; no constant was tuned to it. `oransim reproduce` exits with status 1 while any row fails.\n"
    );
    let _ = writeln!(
        s,
        "Two measurement views: the **latency** view is one packet's or one payload's delay through a discrete-event run (the frames of a payload pipeline through sender, wire and receiver); the **capacity** view is the processing time a payload costs, summed over its frames, which limits throughput. Each row's note names its view.\n"
    );
    let _ = writeln!(
        s,
        "**Summary:** {} rows, {} passed, {} failed; {} fitted, {} predicted ({:.0}% predictions).\n",
        sum.rows,
        sum.passed,
        sum.failed,
        sum.fitted,
        sum.predicted,
        sum.predicted as f64 / sum.rows.max(1) as f64 * 100.0,
    );
    for e in exps {
        let _ = writeln!(s, "## {}: {}\n", e.name, e.title);
        let _ = writeln!(s, "- **Scenario:** {}", e.scenarios.join(", "));
        if !e.profiles.is_empty() {
            let _ = writeln!(s, "- **Profile:** {}", e.profiles.join(", "));
        }
        let _ = writeln!(s, "- **Model:** {}", e.model);
        let _ = writeln!(s, "- **Fitted:** {}", e.fitted);
        let _ = writeln!(s, "- **Predicted:** {}\n", e.predicted);
        if !e.rows.is_empty() {
            let _ = writeln!(
                s,
                "| quantity | unit | paper | model | error % | target | kind | pass | note |"
            );
            let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
            for r in &e.rows {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    md_escape(&r.quantity),
                    r.unit,
                    opt(r.paper),
                    num(r.simulated),
                    opt(r.error_pct.map(|x| (x * 100.0).round() / 100.0)),
                    md_escape(&r.target),
                    r.kind.as_str(),
                    if r.pass { "yes" } else { "**no**" },
                    md_escape(&r.note)
                );
            }
            let _ = writeln!(s);
        }
        let missed: Vec<&Row> = e.rows.iter().filter(|r| !r.pass).collect();
        if !missed.is_empty() {
            let _ = writeln!(s, "**Not reproduced:**\n");
            for r in missed {
                let _ = writeln!(
                    s,
                    "- {}: paper {}, model {} {}. *Why:* {}",
                    r.quantity,
                    opt(r.paper),
                    num(r.simulated),
                    r.unit,
                    r.why.as_deref().unwrap_or("not known")
                );
            }
            let _ = writeln!(s);
        }
        if !e.facts.is_empty() {
            let _ = writeln!(s, "**Results:**\n");
            for f in &e.facts {
                let _ = writeln!(s, "- {f}");
            }
            let _ = writeln!(s);
        }
        for p in &e.plots {
            let _ = writeln!(s, "![{}]({img}/{}.svg)\n", p.title(), p.name());
        }
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Plots
// ---------------------------------------------------------------------------------------------

use plotters::coord::Shift;
use plotters::prelude::*;

const SIZE: (u32, u32) = (900, 560);

use crate::output::palette;

fn ranges(p: &XyPlot) -> (std::ops::Range<f64>, std::ops::Range<f64>) {
    let pts = p
        .series
        .iter()
        .flat_map(|s| &s.points)
        .filter(|q| q.0.is_finite() && q.1.is_finite());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, 0.0f64, f64::MIN);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    let dx = ((x1 - x0) * 0.04).max(1e-9);
    (x0 - dx..x1 + dx, y0..y1 * 1.08)
}

fn draw_xy<DB: DrawingBackend>(
    p: &XyPlot,
    root: &DrawingArea<DB, Shift>,
    text: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let (xr, yr) = ranges(p);
    let mut builder = ChartBuilder::on(root);
    builder.margin(16);
    if text {
        builder
            .caption(&p.title, ("sans-serif", 18))
            .x_label_area_size(42)
            .y_label_area_size(64);
    }
    let mut chart = builder.build_cartesian_2d(xr.clone(), yr.clone())?;
    if text {
        chart
            .configure_mesh()
            .x_desc(p.x_label.as_str())
            .y_desc(p.y_label.as_str())
            .draw()?;
    } else {
        let grid = BLACK.mix(0.12);
        for i in 0..=5 {
            let x = xr.start + (xr.end - xr.start) * f64::from(i) / 5.0;
            let y = yr.start + (yr.end - yr.start) * f64::from(i) / 5.0;
            chart.draw_series(LineSeries::new([(x, yr.start), (x, yr.end)], grid))?;
            chart.draw_series(LineSeries::new([(xr.start, y), (xr.end, y)], grid))?;
        }
    }
    for (i, s) in p.series.iter().enumerate() {
        let c = palette(i);
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|q| q.0.is_finite() && q.1.is_finite())
            .collect();
        let anno = match s.style {
            Style::Line => chart.draw_series(LineSeries::new(pts, c.stroke_width(2)))?,
            Style::Points => {
                chart.draw_series(pts.into_iter().map(|q| Circle::new(q, 5, c.filled())))?
            }
            Style::Published => chart.draw_series(
                pts.into_iter()
                    .map(|q| Cross::new(q, 8, BLACK.stroke_width(3))),
            )?,
        };
        if text {
            let label = s.label.clone();
            if s.style == Style::Published {
                anno.label(label)
                    .legend(|(x, y)| Cross::new((x + 8, y), 5, BLACK.stroke_width(2)));
            } else {
                anno.label(label).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                });
            }
        }
    }
    if text {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()
}

fn draw_heat<DB: DrawingBackend>(
    h: &HeatMap,
    root: &DrawingArea<DB, Shift>,
    text: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let colours = [
        RGBColor(120, 190, 120),
        RGBColor(250, 210, 110),
        RGBColor(230, 120, 110),
    ];
    let (nr, nc) = (h.rows.len(), h.cols.len());
    let mut builder = ChartBuilder::on(root);
    builder.margin(16);
    if text {
        builder
            .caption(&h.title, ("sans-serif", 16))
            .x_label_area_size(30)
            .y_label_area_size(30);
    }
    let mut chart = builder.build_cartesian_2d(0.0..nc as f64, 0.0..nr as f64)?;
    for (r, row) in h.region.iter().enumerate() {
        for (c, &reg) in row.iter().enumerate() {
            let y = (nr - 1 - r) as f64;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(c as f64, y), (c as f64 + 1.0, y + 1.0)],
                colours[reg % 3].filled(),
            )))?;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(c as f64, y), (c as f64 + 1.0, y + 1.0)],
                WHITE.stroke_width(1),
            )))?;
            if text {
                chart.draw_series(std::iter::once(Text::new(
                    format!("{}", h.values[r][c]),
                    (c as f64 + 0.15, y + 0.65),
                    ("sans-serif", 12),
                )))?;
            }
        }
    }
    if text {
        let cols = h.cols.clone();
        let rows = h.rows.clone();
        let fx = move |x: &f64| cols.get(x.floor() as usize).cloned().unwrap_or_default();
        let fy = move |y: &f64| {
            let i = y.floor() as usize;
            if i < nr {
                rows[nr - 1 - i].clone()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(nc * 2)
            .y_labels(nr * 2)
            .x_label_formatter(&fx)
            .y_label_formatter(&fy)
            .x_desc("O-DU category")
            .y_desc("O-RU category")
            .draw()?;
        for (i, name) in h.regions.iter().enumerate() {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, 0.0), (0.0, 0.0)],
                    colours[i].filled(),
                )))?
                .label(name.clone())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], colours[i].filled())
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()
}

fn draw<DB: DrawingBackend>(
    p: &Plot,
    root: &DrawingArea<DB, Shift>,
    text: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    match p {
        Plot::Xy(x) => draw_xy(x, root, text),
        Plot::Heat(h) => draw_heat(h, root, text),
    }
}

/// The plot as SVG text (text is SVG `<text>`, drawn by the viewer: no font files needed).
fn draw_svg(p: &Plot) -> anyhow::Result<String> {
    crate::output::svg_string(SIZE, p.name(), |root| draw(p, root, true))
}

/// The plot as PNG bytes: the same data without text.
fn draw_png(p: &Plot) -> anyhow::Result<Vec<u8>> {
    crate::output::png_bytes(SIZE, p.name(), |root| draw(p, root, false))
}
