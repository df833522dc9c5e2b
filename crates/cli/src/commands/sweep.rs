//! `oransim sweep FILE --set KEY=VALUE --vary KEY=SPEC ...`: run a scenario over a grid of
//! parameter values, in parallel, resumable, shardable; `oransim sweep --merge DIR...` combines
//! shards. The model side (key paths, values, the point list, running a point) is
//! [`model::sweep`]; this module owns threads, progress, the journal and the output files.
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
use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use model::sweep::{self, PointResult, Sweep};
use serde::{Deserialize, Serialize};

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

/// `--shard I/N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Slice index, from 0.
    pub index: u64,
    /// Number of slices.
    pub count: u64,
}

fn parse_shard(s: &str) -> Result<Shard, String> {
    let bad = || format!("\"{s}\" is not I/N with 0 <= I < N, like 0/4");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (index, count) = (
        i.trim().parse::<u64>().map_err(|_| bad())?,
        n.trim().parse::<u64>().map_err(|_| bad())?,
    );
    if count == 0 || index >= count || count > 1_000_000 {
        return Err(bad());
    }
    Ok(Shard { index, count })
}

/// What a sweep is: written at the top of `sweep.json` and of every shard file.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Header {
    schema: String,
    /// Identifies the sweep: scenario text, `--set`, every `--vary` value.
    id: String,
    scenario: ScenarioRef,
    set: Vec<SetEntry>,
    vary: Vec<VaryEntry>,
    /// Point order, in words.
    order: String,
    points: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct ScenarioRef {
    file: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SetEntry {
    key: String,
    value: serde_json::Value,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct VaryEntry {
    key: String,
    values: Vec<serde_json::Value>,
}

const ORDER: &str = "Cartesian product of the vary keys; the first is the outermost loop, the last \
                     changes fastest; point i is i in the mixed radix of the value counts";

/// `shard-I-of-N.json`.
#[derive(Debug, Serialize, Deserialize)]
struct ShardDoc {
    #[serde(flatten)]
    header: Header,
    shard: ShardInfo,
    results: Vec<PointResult>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct ShardInfo {
    index: u64,
    count: u64,
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
        .map(|s| sweep::parse_set(s).map_err(|(p, a)| anyhow::anyhow!("{p}; expected {a}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let axes = args
        .vary
        .iter()
        .map(|s| sweep::parse_vary(s).map_err(|(p, a)| anyhow::anyhow!("{p}; expected {a}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: not UTF-8 text (byte {} is invalid); a TOML scenario file is expected",
            file.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    let sweep = Sweep::new(file, &text, sets, axes)?;
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
        Some(s) => all.into_iter().filter(|i| i % s.count == s.index).collect(),
        None => all,
    };
    let header = header(&sweep)?;

    let mut done: BTreeMap<u64, PointResult> = BTreeMap::new();
    let mut journal = None;
    if let Some(dir) = &args.out {
        prepare_dir(dir)?;
        let path = dir.join(match args.shard {
            Some(s) => format!("points-{}-of-{}.jsonl", s.index, s.count),
            None => "points.jsonl".to_owned(),
        });
        done = read_journal(&path, &sweep, args.shard)?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot open the journal {}", path.display()))?;
        journal = Some((path, file));
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
            let mut lines = String::new();
            let n = batch.len() as u64;
            let mut results = Vec::with_capacity(batch.len());
            for r in batch {
                let r = r?;
                if journal.is_some() {
                    lines.push_str(&serde_json::to_string(&r)?);
                    lines.push('\n');
                }
                results.push(r);
            }
            if let Some((path, file)) = &mut journal {
                file.write_all(lines.as_bytes())
                    .and_then(|()| file.sync_data())
                    .with_context(|| format!("cannot append to the journal {}", path.display()))?;
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
            let path = dir.join(format!("shard-{}-of-{}.json", s.index, s.count));
            let mut text = serde_json::to_string(&doc)?;
            text.push('\n');
            write_atomic(&path, text.as_bytes())?;
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

/// The header of a sweep, passed through its JSON text so that it is the same value whether
/// built here or read back from a shard file.
fn header(sweep: &Sweep) -> anyhow::Result<Header> {
    let h = Header {
        schema: sweep::SCHEMA.to_owned(),
        id: sweep.id(),
        scenario: ScenarioRef {
            file: sweep.path().display().to_string(),
        },
        set: sweep
            .sets()
            .iter()
            .map(|a| {
                Ok(SetEntry {
                    key: a.key.as_str().to_owned(),
                    value: serde_json::to_value(&a.value)?,
                })
            })
            .collect::<anyhow::Result<_>>()?,
        vary: sweep
            .axes()
            .iter()
            .map(|ax| {
                Ok(VaryEntry {
                    key: ax.key.as_str().to_owned(),
                    values: ax
                        .values
                        .iter()
                        .map(serde_json::to_value)
                        .collect::<Result<_, _>>()?,
                })
            })
            .collect::<anyhow::Result<_>>()?,
        order: ORDER.to_owned(),
        points: sweep.total(),
    };
    Ok(serde_json::from_str(&serde_json::to_string(&h)?)?)
}

/// Reads a journal: every complete line must be a point of this sweep (and shard). A last line
/// cut short by a kill is dropped from the file.
fn read_journal(
    path: &Path,
    sweep: &Sweep,
    shard: Option<Shard>,
) -> anyhow::Result<BTreeMap<u64, PointResult>> {
    let mut done = BTreeMap::new();
    let text = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(done),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut good_len = 0usize;
    let mut pos = 0usize;
    let mut line_no = 0usize;
    while pos < text.len() {
        line_no += 1;
        let end = text[pos..].iter().position(|&b| b == b'\n');
        let (line, next) = match end {
            Some(e) => (&text[pos..pos + e], pos + e + 1),
            None => (&text[pos..], text.len()),
        };
        let parsed = serde_json::from_slice::<PointResult>(line);
        match parsed {
            Ok(r) if end.is_some() => {
                let fits = r.index < sweep.total()
                    && shard.is_none_or(|s| r.index % s.count == s.index)
                    && r.hash == sweep.point_hash(r.index);
                if !fits {
                    bail!(
                        "{}: line {line_no} is point {} of another sweep (another scenario text, \
                         --set, --vary or --shard); give a new --out directory or delete the file",
                        path.display(),
                        r.index
                    );
                }
                done.entry(r.index).or_insert(r);
                good_len = next;
            }
            // The last line, without its newline or not parseable: a write cut short.
            _ if next == text.len() => break,
            _ => bail!(
                "{}: line {line_no} is not a journal line; give a new --out directory or delete \
                 the file",
                path.display()
            ),
        }
        pos = next;
    }
    if good_len < text.len() {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        f.set_len(good_len as u64)
            .and_then(|()| f.sync_data())
            .with_context(|| {
                format!("cannot drop the cut-short last line of {}", path.display())
            })?;
    }
    Ok(done)
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
    let mut files = Vec::new();
    for p in &args.merge {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("cannot read the directory {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                        n.starts_with("shard-") && n.contains("-of-") && n.ends_with(".json")
                    })
                })
                .collect();
            if found.is_empty() {
                bail!(
                    "--merge {}: no shard-I-of-N.json file in the directory; run the shards with \
                     --shard I/N --out {} first",
                    p.display(),
                    p.display()
                );
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    let mut shards: BTreeMap<u64, (PathBuf, ShardDoc)> = BTreeMap::new();
    let mut first: Option<(PathBuf, Header, u64)> = None;
    for f in files {
        let text = std::fs::read(&f).with_context(|| format!("cannot read {}", f.display()))?;
        let doc: ShardDoc = serde_json::from_slice(&text).with_context(|| {
            format!(
                "{}: not a shard file of oransim sweep --shard I/N",
                f.display()
            )
        })?;
        if doc.header.schema != sweep::SCHEMA {
            bail!(
                "{}: schema {}; this oransim reads {}",
                f.display(),
                doc.header.schema,
                sweep::SCHEMA
            );
        }
        match &first {
            None => first = Some((f.clone(), doc.header.clone(), doc.shard.count)),
            Some((f0, h0, n0)) => {
                if h0.id != doc.header.id || *n0 != doc.shard.count {
                    bail!(
                        "{} and {} are shards of different sweeps (or split in different counts); \
                         merge the shards of one sweep",
                        f0.display(),
                        f.display()
                    );
                }
            }
        }
        if let Some((other, _)) = shards.get(&doc.shard.index) {
            if other != &f {
                bail!(
                    "shard {}/{} is given twice: {} and {}",
                    doc.shard.index,
                    doc.shard.count,
                    other.display(),
                    f.display()
                );
            }
            continue;
        }
        shards.insert(doc.shard.index, (f, doc));
    }
    let Some((_, header, count)) = first else {
        bail!("--merge: no shard file given");
    };
    let missing: Vec<String> = (0..count)
        .filter(|i| !shards.contains_key(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        bail!(
            "shard{} {} missing: run them with --shard, then merge again",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        );
    }
    let mut results: Vec<PointResult> = Vec::with_capacity(header.points as usize);
    for (_, (f, doc)) in shards {
        for r in doc.results {
            if r.index >= header.points || r.index % count != doc.shard.index {
                bail!(
                    "{}: point {} does not belong to shard {}/{count}",
                    f.display(),
                    r.index,
                    doc.shard.index
                );
            }
            results.push(r);
        }
    }
    results.sort_by_key(|r| r.index);
    let complete = results.len() as u64 == header.points
        && results.iter().enumerate().all(|(k, r)| r.index == k as u64);
    if !complete {
        bail!(
            "the shards hold {} points, not each of the sweep's {} once",
            results.len(),
            header.points
        );
    }
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

/// The value index on each axis of point `index` (the last axis fastest).
fn coordinates(index: u64, lens: &[usize]) -> Vec<usize> {
    let mut rest = index;
    let mut out = vec![0; lens.len()];
    for (i, &n) in lens.iter().enumerate().rev() {
        out[i] = (rest % n.max(1) as u64) as usize;
        rest /= n.max(1) as u64;
    }
    out
}

/// The results placed on the grid, for [`printer::sweep`] to render.
fn view<'a>(header: &'a Header, results: &'a [PointResult]) -> printer::sweep::Results<'a, Header> {
    let lens: Vec<usize> = header.vary.iter().map(|v| v.values.len()).collect();
    printer::sweep::Results {
        header,
        axes: header
            .vary
            .iter()
            .map(|v| printer::sweep::Axis {
                key: &v.key,
                values: &v.values,
            })
            .collect(),
        points: results
            .iter()
            .map(|r| printer::sweep::Point {
                result: r,
                coords: coordinates(r.index, &lens),
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
fn write_results(dir: &Path, header: &Header, results: &[PointResult]) -> anyhow::Result<String> {
    let view = view(header, results);
    let mut written = String::new();
    let json = dir.join("sweep.json");
    write_atomic(&json, view.json()?.as_bytes())?;
    let csv = dir.join("sweep.csv");
    write_atomic(&csv, view.csv().as_bytes())?;
    let _ = writeln!(written, "{}\n{}", json.display(), csv.display());
    if !header.vary.is_empty() {
        let plots = dir.join("plots");
        std::fs::create_dir_all(&plots)
            .with_context(|| format!("cannot create {}", plots.display()))?;
        for p in view.plots()? {
            let svg = plots.join(format!("{}.svg", p.stem));
            write_atomic(&svg, p.svg.as_bytes())?;
            let png = plots.join(format!("{}.png", p.stem));
            write_atomic(&png, &p.png)?;
            let _ = writeln!(written, "{}\n{}", svg.display(), png.display());
        }
    }
    Ok(written)
}
