//! `oransim sweep FILE --set KEY=VALUE --vary KEY=SPEC ...`: run a scenario over a grid of
//! parameter values, in parallel, resumable, shardable; `oransim sweep --merge DIR...` combines
//! shards. The model side (key paths, values, the point list, running a point, the journal,
//! shards and their merge) is [`whatif::sweep`]; this module maps the flags to it, shows
//! progress and renders the output files.
//! `docs/sweep.md` is the user's guide.
//!
//! Files in `--out DIR`:
//! - `points.jsonl` (`points-I-of-N.jsonl` for a shard): the journal, one JSON line per finished
//!   point, appended and fsynced; read back on a restart so nothing finished is redone.
//! - `sweep.json`, `sweep.csv`, `plots/<key>.svg` and `.png` (one pair per `--vary` key or
//!   `--vary-together` group; `--plot-metric`, `--label`): the results of a whole sweep.
//! - `shard-I-of-N.json`: a finished shard's points, for `--merge`.
//! - `.sweep.lock` (`.shard-I-of-N.lock`): held for the sweep's life ([`crate::lock`]).
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
use whatif::sweep::{self, Header, Journal, PointResult, Shard, ShardDoc, ShardInfo, Sweep};

use crate::commands::run::prepare_dir;
use crate::output::write_atomic;
use crate::values::FlagError;

/// Arguments of `oransim sweep`.
#[derive(Debug, clap::Args)]
pub(crate) struct SweepArgs {
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
    /// Vary keys together: `KEY1=SPEC1;KEY2=SPEC2;...`, each SPEC as in --vary and all with
    /// as many values; value i of every key goes into the same point. The group is one
    /// dimension of the Cartesian product, after every --vary (repeatable).
    #[arg(long = "vary-together", value_name = "KEY=SPEC;KEY=SPEC")]
    pub vary_together: Vec<String>,
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
    /// Format of the results on stdout when there is no --out (with --out the results go to
    /// `sweep.json` and `sweep.csv`, so the two are refused together).
    #[arg(long, value_enum, default_value_t = SweepFormat::Csv, conflicts_with = "out")]
    pub format: SweepFormat,
    /// Merge finished shards: directories holding `shard-I-of-N.json` files, or the files.
    /// Writes the results of the whole sweep into --out (or prints them).
    #[arg(
        long,
        num_args = 1..,
        value_name = "DIR|FILE",
        conflicts_with_all = ["file", "set", "vary", "vary_together", "jobs", "shard"]
    )]
    pub merge: Vec<PathBuf>,
    /// What the plots in `--out DIR/plots` show: mean and p99 delay (`delay`, the message
    /// delay of periodic flows), one of them, the message delay, throughput or the busiest
    /// node's utilisation.
    #[arg(long, value_enum, default_value_t = printer::sweep::Metric::Delay, requires = "out")]
    pub plot_metric: printer::sweep::Metric,
    /// Words naming a varied key on the plots, `KEY=TEXT` (e.g. `link[0].mtu=MTU`; default: the
    /// key path in words, `link 0 MTU`), or one of its values, `KEY=VALUE:TEXT` (VALUE as
    /// given to --vary, or a part of it only that value holds: `flow[0].source.stack=gcm:GCM`;
    /// the text after the last ':'). Repeatable.
    #[arg(
        long = "label",
        value_name = "KEY=TEXT|KEY=VALUE:TEXT",
        requires = "out"
    )]
    pub label: Vec<String>,
    /// Draw only these flows on the plots, by name, comma-separated (default: every flow).
    #[arg(
        long,
        value_name = "FLOW,FLOW",
        value_delimiter = ',',
        requires = "out"
    )]
    pub flows: Vec<String>,
    /// Draw one series per combination of the other keys over the flows drawn (their mean, or
    /// the largest), instead of one per flow.
    #[arg(long, value_enum, value_name = "HOW", requires = "out")]
    pub aggregate: Option<printer::sweep::Aggregate>,
    /// Width and height of each plot [pixels], e.g. `1600x900` (default: 900x560, taller when
    /// the legend needs it; a given size is kept, and a legend that does not fit it refused).
    #[arg(long, value_name = "WxH", value_parser = parse_size, requires = "out")]
    pub size: Option<(u32, u32)>,
    /// Which plot files to write: `both` (`.svg` and `.png`), `svg` or `png`.
    #[arg(long, value_enum, default_value_t = PlotFormat::Both, requires = "out")]
    pub plot_format: PlotFormat,
    /// No progress output on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Which plot files a sweep writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum PlotFormat {
    /// `plots/<key>.svg` and `plots/<key>.png`.
    Both,
    /// `plots/<key>.svg` only.
    Svg,
    /// `plots/<key>.png` only.
    Png,
}

impl PlotFormat {
    fn svg(self) -> bool {
        self != PlotFormat::Png
    }

    fn png(self) -> bool {
        self != PlotFormat::Svg
    }
}

/// `--size WxH`: whole pixels within the bounds of [`printer::sweep`].
fn parse_size(s: &str) -> Result<(u32, u32), FlagError> {
    use printer::sweep::{MAX_PLOT_HEIGHT, MAX_PLOT_WIDTH, MIN_PLOT_HEIGHT, MIN_PLOT_WIDTH};
    let allowed = format!(
        "WxH in pixels, width {MIN_PLOT_WIDTH} to {MAX_PLOT_WIDTH}, height {MIN_PLOT_HEIGHT} to {MAX_PLOT_HEIGHT}, like 1600x900"
    );
    let Some((w, h)) = s.split_once(['x', 'X']) else {
        return Err(FlagError::of(format!(
            "no 'x' between width and height; {allowed}"
        )));
    };
    let (Ok(w), Ok(h)) = (w.trim().parse::<u32>(), h.trim().parse::<u32>()) else {
        return Err(FlagError::of(format!(
            "width and height are whole numbers of pixels; {allowed}"
        )));
    };
    if !(MIN_PLOT_WIDTH..=MAX_PLOT_WIDTH).contains(&w)
        || !(MIN_PLOT_HEIGHT..=MAX_PLOT_HEIGHT).contains(&h)
    {
        return Err(FlagError::of(format!("{w}x{h} is out of range; {allowed}")));
    }
    Ok((w, h))
}

/// Format of the results on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum SweepFormat {
    /// One row per point and flow.
    Csv,
    /// The `oransim.sweep/1` document.
    Json,
}

/// The plot options of `--plot-metric`, `--label`, `--flows`, `--aggregate` and `--size`; a
/// label must name a varied key of the sweep (`header`) or one of its values, and `--flows`
/// flows of `flow_names`.
fn plot_options(
    args: &SweepArgs,
    header: &Header,
    flow_names: &[String],
) -> anyhow::Result<printer::sweep::PlotOptions> {
    let mut labels = BTreeMap::new();
    let mut values: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let keys: Vec<&str> = header.vary.iter().map(|v| v.key.as_str()).collect();
    const LIKE: &str = "--label KEY=TEXT or KEY=VALUE:TEXT, like --label 'link[0].mtu=MTU' or --label 'link[0].mtu=9000B:jumbo'";
    for arg in &args.label {
        let Some((key, rest)) = arg.split_once('=') else {
            bail!("--label {arg}: no '=' between key and text; {LIKE}");
        };
        // KEY=VALUE:TEXT when there is a ':' (the text after the last one), else KEY=TEXT.
        let (value, text) = match rest.rsplit_once(':') {
            Some((v, t)) => (Some(v.trim()), t.trim()),
            None => (None, rest.trim()),
        };
        let key = key.trim();
        if text.is_empty() {
            bail!("--label {}: the text is empty; {LIKE}", arg.escape_debug());
        }
        // The text goes into SVG and PNG plots: a control character makes an SVG no XML
        // reader accepts (issue 39 #11).
        if let Some(c) = text.chars().find(|c| c.is_control()) {
            bail!(
                "--label {}: the text holds the control character U+{:04X}; printable text, like --label 'link[0].mtu=MTU'",
                arg.escape_debug(),
                u32::from(c)
            );
        }
        let canonical = sweep::KeyPath::parse(key)
            .map(|k| k.as_str().to_owned())
            .unwrap_or_else(|_| key.to_owned());
        let Some(axis) = header.vary.iter().find(|v| v.key == canonical) else {
            bail!(
                "--label {}: {key} is not a varied key of this sweep; a key of --vary or --vary-together: {}",
                arg.escape_debug(),
                if keys.is_empty() {
                    "(none)".to_owned()
                } else {
                    keys.join(", ")
                }
            );
        };
        let Some(value) = value else {
            if labels.insert(canonical, text.to_owned()).is_some() {
                bail!("--label {arg}: {key} is labelled twice; one --label KEY=TEXT per key");
            }
            continue;
        };
        let given: Vec<String> = axis.values.iter().map(printer::sweep::value_text).collect();
        let matched: Vec<&String> = match given.iter().find(|g| *g == value) {
            Some(exact) => vec![exact],
            None if value.is_empty() => Vec::new(),
            None => given.iter().filter(|g| g.contains(value)).collect(),
        };
        let one = match matched.as_slice() {
            [one] => (*one).clone(),
            [] => bail!(
                "--label {}: {value:?} is not a value of {key}, nor part of one; its values: {}",
                arg.escape_debug(),
                given.join(", ")
            ),
            many => bail!(
                "--label {}: {value:?} is part of {} values of {key} ({}); a part only one value holds, or the whole value",
                arg.escape_debug(),
                many.len(),
                many.iter()
                    .map(|m| m.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        if values
            .entry(canonical)
            .or_default()
            .insert(one.clone(), text.to_owned())
            .is_some()
        {
            bail!("--label {arg}: the value {one} of {key} is labelled twice; one label per value");
        }
    }
    let flows = if args.flows.is_empty() {
        None
    } else {
        let mut chosen: Vec<String> = Vec::new();
        for f in &args.flows {
            let f = f.trim();
            if !flow_names.iter().any(|n| n == f) {
                let shown: Vec<&str> = flow_names.iter().take(12).map(String::as_str).collect();
                let more = if flow_names.len() > shown.len() {
                    format!(", ... ({} flows in all)", flow_names.len())
                } else {
                    String::new()
                };
                bail!(
                    "--flows {}: no flow {:?} in this sweep; flow names, comma-separated: {}{more}",
                    args.flows.join(",").escape_debug(),
                    f,
                    shown.join(", ")
                );
            }
            if chosen.iter().any(|c| c == f) {
                bail!("--flows {}: {f} is named twice", args.flows.join(","));
            }
            chosen.push(f.to_owned());
        }
        Some(chosen)
    };
    Ok(printer::sweep::PlotOptions {
        metric: args.plot_metric,
        labels,
        values,
        flows,
        aggregate: args.aggregate,
        size: args.size,
    })
}

/// `--shard I/N`, read by the library's parser; the error gives the range of N.
fn parse_shard(s: &str) -> Result<Shard, FlagError> {
    s.parse::<Shard>()
        .map_err(|e| FlagError::of(format!("{e}; N from 1 to {}", sweep::MAX_SHARDS)))
}

/// Runs `oransim sweep`.
pub(crate) fn execute(args: &SweepArgs) -> anyhow::Result<ExitCode> {
    if !args.merge.is_empty() {
        return merge(args);
    }
    let Some(file) = &args.file else {
        bail!("a scenario file is needed (or --merge DIR...)");
    };
    let sweep = sweep_of(args, file)?;
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
    validate_every_point(&sweep, &all, jobs)?;
    let mine: Vec<u64> = match args.shard {
        Some(s) => all.into_iter().filter(|&i| s.holds(i)).collect(),
        None => all,
    };
    let header = Header::of(&sweep)?;
    crate::output::warn("sweep", &header.warnings);
    // Checked before any point runs, against the flows of point 0 (the plots name the flows
    // of their first point too; a sweep that varies a group's count may have others later).
    let flow_names: Vec<String> = if args.flows.is_empty() {
        Vec::new()
    } else {
        sweep
            .point_scenario(0)?
            .network
            .flows
            .iter()
            .map(|f| f.name.clone())
            .collect()
    };
    let options = plot_options(args, &header, &flow_names)?;

    let (mut done, mut journal, lock) = open_out(args, &sweep, &header)?;
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
    write_output(args, header, results, &options)?;
    drop(lock);
    Ok(ExitCode::SUCCESS)
}

/// The sweep of `file` with `--set`, `--vary` and `--vary-together` applied.
fn sweep_of(args: &SweepArgs, file: &Path) -> anyhow::Result<Sweep> {
    let sets = args
        .set
        .iter()
        .map(|s| sweep::parse_set(s))
        .collect::<Result<Vec<_>, _>>()?;
    let mut axes = args
        .vary
        .iter()
        .map(|s| sweep::parse_vary(s))
        .collect::<Result<Vec<_>, _>>()?;
    for group in &args.vary_together {
        axes.extend(sweep::parse_vary_together(group)?);
    }
    let sweep = Sweep::load(file, sets, axes)?;
    Ok(sweep)
}

/// Validates every point `all` of `sweep` on `jobs` threads; the first invalid one is the
/// error, named by its index and what it varies.
fn validate_every_point(sweep: &Sweep, all: &[u64], jobs: usize) -> anyhow::Result<()> {
    let total = sweep.total();
    if let Err(e) = sweep.validate(all, jobs) {
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
    Ok(())
}

/// What `--out DIR` holds when a sweep starts: the points already done, its journal and its
/// lock.
type Opened = (
    BTreeMap<u64, PointResult>,
    Option<Journal>,
    Option<crate::lock::Held>,
);

/// The points `--out DIR` already holds, its journal and its lock (held until the sweep
/// ends); none without `--out`.
fn open_out(args: &SweepArgs, sweep: &Sweep, header: &Header) -> anyhow::Result<Opened> {
    let Some(dir) = &args.out else {
        return Ok((BTreeMap::new(), None, None));
    };
    prepare_dir(dir)?;
    // Held until the sweep ends: a second sweep on these files is refused, naming us.
    let name = match args.shard {
        Some(s) => crate::lock::shard_lock(s.index, s.count),
        None => crate::lock::SWEEP_LOCK.to_owned(),
    };
    let lock = crate::lock::exclusive(dir, &name, "--out")?;
    if args.shard.is_none() && !header.vary.is_empty() {
        // Checked before any point runs; made (again without following a link) at the end.
        crate::output::refuse_non_dir(&dir.join("plots")).context("--out")?;
    }
    let (j, finished) = Journal::open(dir, sweep, args.shard)?;
    Ok((finished, Some(j), Some(lock)))
}

/// Writes the results: a shard's file (`--shard` with `--out`), the sweep's files and plots
/// (`--out`), or the table to stdout.
fn write_output(
    args: &SweepArgs,
    header: Header,
    results: Vec<PointResult>,
    options: &printer::sweep::PlotOptions,
) -> anyhow::Result<()> {
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
            let written = write_results(dir, &header, &results, options, args.plot_format)?;
            crate::format::print(&written)?;
        }
        (None, _) => print_results(&header, &results, args.format)?,
    }
    Ok(())
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

/// `x` to `digits` significant figures, no exponent (`136.915` -> `137`, `2.3456` -> `2.35`,
/// `0.012345` -> `0.0123`); `0` for zero, a negative or a non-finite `x`.
fn significant(x: f64, digits: i32) -> String {
    if !(x.is_finite() && x > 0.0) {
        return "0".to_owned();
    }
    let magnitude = x.log10().floor() as i32;
    let decimals = (digits - 1 - magnitude).max(0) as usize;
    // Rounding may carry into another digit (99.95 -> 100.0); one decimal fewer then.
    let text = format!("{x:.decimals$}");
    let whole = text
        .split('.')
        .next()
        .unwrap_or_default()
        .trim_start_matches('0');
    if decimals > 0 && whole.len() as i32 > magnitude.max(0) + 1 && magnitude >= 0 {
        format!("{x:.0$}", decimals - 1)
    } else {
        text
    }
}

impl Progress {
    fn new(total: u64, quiet: bool) -> Progress {
        let bar = (!quiet && total > 0 && std::io::stderr().is_terminal()).then(|| {
            let b = indicatif::ProgressBar::new(total);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} points, {rate} points/s, eta {eta}",
            ) {
                // The rate to three significant figures (indicatif's `{per_sec}` gives three
                // decimals: `136.915/s`).
                b.set_style(style.with_key(
                    "rate",
                    |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = w.write_str(&significant(s.per_sec(), 3));
                    },
                ));
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
    // No shard is read while it is being written: every shard lock beside the inputs is held
    // shared for the merge's life (a running shard holds its own exclusively).
    let mut dirs: Vec<PathBuf> = args
        .merge
        .iter()
        .map(|p| {
            if p.is_dir() {
                p.clone()
            } else {
                match p.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                    _ => PathBuf::from("."),
                }
            }
        })
        .collect();
    dirs.sort();
    dirs.dedup();
    let mut _held = Vec::new();
    for d in &dirs {
        _held.extend(crate::lock::shards_shared(d, "--merge")?);
    }
    // An existing --out is locked before the shards are read, so a live sweep there is named
    // first; one the merge creates is locked when made.
    let mut lock = match &args.out {
        Some(dir) if dir.is_dir() => Some(crate::lock::exclusive(
            dir,
            crate::lock::SWEEP_LOCK,
            "--out",
        )?),
        _ => None,
    };
    let (header, results) = sweep::merge_shards(&args.merge).context("--merge")?;
    let flow_names: Vec<String> = results
        .first()
        .map(|r| r.flows.iter().map(|f| f.flow.clone()).collect())
        .unwrap_or_default();
    let options = plot_options(args, &header, &flow_names)?;
    match &args.out {
        Some(dir) => {
            if dir.exists() && !dir.is_dir() {
                bail!(
                    "--out {}: exists and is not a directory; give a directory for the results",
                    dir.display()
                );
            }
            prepare_dir(dir)?;
            // The same result files as a whole sweep's: its lock.
            if lock.is_none() {
                lock = Some(crate::lock::exclusive(
                    dir,
                    crate::lock::SWEEP_LOCK,
                    "--out",
                )?);
            }
            let written = write_results(dir, &header, &results, &options, args.plot_format)?;
            crate::format::print(&written)?;
        }
        None => print_results(&header, &results, args.format)?,
    }
    drop(lock);
    Ok(ExitCode::SUCCESS)
}

/// The results placed on the grid, for [`printer::sweep`] to render.
fn view<'a>(header: &'a Header, results: &'a [PointResult]) -> printer::sweep::Results<'a, Header> {
    let dims = header.dimensions();
    let lens: Vec<usize> = header.vary.iter().map(|v| v.values.len()).collect();
    printer::sweep::Results {
        header,
        axes: header
            .vary
            .iter()
            .zip(&dims)
            .map(|(v, &dim)| printer::sweep::Axis {
                key: &v.key,
                values: &v.values,
                dim,
            })
            .collect(),
        points: results
            .iter()
            .map(|r| printer::sweep::Point {
                result: r,
                coords: sweep::key_coordinates(r.index, &dims, &lens),
            })
            .collect(),
    }
}

fn print_results(
    header: &Header,
    results: &[PointResult],
    format: SweepFormat,
) -> anyhow::Result<()> {
    let view = view(header, results);
    let text = match format {
        SweepFormat::Csv => view.csv(),
        SweepFormat::Json => view.json()?,
    };
    Ok(crate::format::print(&text)?)
}

/// Writes `sweep.json`, `sweep.csv` and the plots atomically; returns the paths, one a line.
fn write_results(
    dir: &Path,
    header: &Header,
    results: &[PointResult],
    options: &printer::sweep::PlotOptions,
    format: PlotFormat,
) -> anyhow::Result<String> {
    let view = view(header, results);
    // Drawn before any file is written, so a legend refused at --size leaves nothing behind.
    let figures = if header.vary.is_empty() {
        Vec::new()
    } else {
        view.figures(options).map_err(|e| match e {
            printer::Error::LegendTooTall {
                width,
                height,
                needs,
                ..
            } => anyhow::Error::new(e).context(format!(
                "--size {width}x{height}: the legend needs a height of {needs} pixels; a taller --size, fewer series (--flows, --aggregate mean|max), or no --size (the plot grows to its legend)"
            )),
            e => e.into(),
        })?
    };
    let mut written = String::new();
    let plots = dir.join("plots");
    if !header.vary.is_empty() {
        // Before any result file, so a refused plots/ leaves no half-written set.
        crate::output::make_subdir(&plots).context("--out")?;
    }
    let json = dir.join("sweep.json");
    write_atomic(&json, view.json()?.as_bytes())?;
    let csv = dir.join("sweep.csv");
    write_atomic(&csv, view.csv().as_bytes())?;
    let _ = writeln!(written, "{}\n{}", json.display(), csv.display());
    for (stem, figure) in figures {
        if format.svg() {
            let svg = plots.join(format!("{stem}.svg"));
            write_atomic(&svg, figure.svg()?.as_bytes())?;
            let _ = writeln!(written, "{}", svg.display());
        }
        if format.png() {
            let png = plots.join(format!("{stem}.png"));
            write_atomic(&png, &figure.png()?)?;
            let _ = writeln!(written, "{}", png.display());
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::significant;

    /// Issue 37: the sweep's rate to three significant figures, not `136.915/s`.
    #[test]
    fn rates_have_three_significant_figures() {
        for (x, want) in [
            (136.915, "137"),
            (2.3456, "2.35"),
            (0.012345, "0.0123"),
            (1234.4, "1234"),
            (99.96, "100"),
            (9.999, "10.0"),
            (0.0, "0"),
            (f64::NAN, "0"),
        ] {
            assert_eq!(significant(x, 3), want, "{x}");
        }
    }
}
