//! `oransim reproduce`: run every published experiment (`evidence::reproduce`) and compare with
//! the papers: one row per published number with its evidence class, with plots (SVG and PNG,
//! both with their text) and the generated `docs/reproduction.md`, all rendered by
//! [`printer::reproduce`], and the `--html` page by [`printer::html`]; this file maps the flags
//! and writes the files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use evidence::reproduce;

use crate::progress::{Bar, When};

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Aligned text.
    Table,
    /// One JSON document (`oransim.reproduce/2`).
    Json,
}

/// Arguments of `oransim reproduce`.
#[derive(Debug, Args)]
pub(crate) struct ReproduceArgs {
    /// Run only this experiment (e2_sack, e2_size, e2_throughput, ofh_table4, ofh_size,
    /// ofh_mtu, ofh_load, pq_ike_e2, pq_kems_hybrid, otero_ofh, nfv_macsec, table1, transfer).
    #[arg(long, value_name = "NAME")]
    pub only: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Write each experiment's plots here as SVG and PNG (the same plot and text).
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
    /// Write the reproduction report (Markdown) to this file; plots go to `--plots`, or to
    /// `img/` beside the file.
    #[arg(long, value_name = "FILE")]
    pub write_docs: Option<PathBuf>,
    /// Write the reproduction as one self-contained page, DIR/index.html (tables, plots as
    /// inline SVG, provenance; no script, nothing fetched); DIR is created if absent.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// Also vary every assumption of experiments/assumptions.toml to the ends of its range, one
    /// at a time, and list the rows whose verdict flips and the advice that changes.
    #[arg(long)]
    pub sensitivity: bool,
    /// Repository root holding `scenarios/`, `calibration/` and `experiments/` (default: the
    /// current directory if it holds them, else the copies built into oransim).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Show studies done against studies to run on stderr: auto draws it only when stderr is a
    /// terminal.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = When::Auto)]
    pub progress: When,
}

/// Runs the command: exit 0 when every counted prediction meets its target, 1 when one misses
/// ([`printer::reproduce::EXIT_STATUS`]).
pub(crate) fn execute(args: &ReproduceArgs) -> anyhow::Result<ExitCode> {
    // Before the experiments run, so a refused target does not waste them.
    if let Some(doc) = &args.write_docs {
        crate::output::check_writable(doc).context("--write-docs")?;
    }
    if let Some(root) = &args.root
        && !root.join("scenarios").is_dir()
    {
        anyhow::bail!(
            "--root {}: no scenarios/ directory under it; give the repository root, which holds scenarios/ and calibration/",
            root.display()
        );
    }
    // Kept to the end: an embedded root is a scratch directory removed when dropped.
    let data = crate::builtin::Root::find(args.root.as_deref())
        .context("cannot write out the reproduction's built-in files")?;
    let root = data.path();
    if let crate::builtin::Root::Embedded(_) = data {
        eprintln!(
            "oransim reproduce: the current directory holds no checkout (scenarios/ and experiments/studies.toml); using the files built into oransim (--root DIR reads a checkout's)"
        );
    }
    if let Some(only) = &args.only {
        // The studies of this root (experiments/studies.toml), so a study added as data runs
        // alone too.
        let names = reproduce::study_names(root).context("reproduce")?;
        if !names.iter().any(|n| n == only) {
            anyhow::bail!(
                "--only `{only}`: unknown experiment; allowed (the studies {} lists): {}",
                reproduce::STUDIES_FILE,
                names.join(", ")
            );
        }
    }
    let html = args.html.as_deref().map(html_target).transpose()?;
    // The page's footer: its date is read (and a bad `SOURCE_DATE_EPOCH` refused) before the run.
    let made = match html {
        Some(_) => Some((crate::page::version(), crate::page::date()?)),
        None => None,
    };
    let exps = run_studies(root, args.only.as_deref(), args.progress).context("reproduce")?;
    let targets = reproduce::Targets::load(root).context("reproduce")?;
    let sensitivity = if args.sensitivity {
        Some(reproduce::sensitivity(root, &targets, &exps).context("reproduce --sensitivity")?)
    } else {
        None
    };
    let sens = sensitivity.as_deref();
    let plots_dir = match (&args.plots, &args.write_docs) {
        (Some(d), _) => Some(d.clone()),
        (None, Some(doc)) => Some(doc.parent().unwrap_or(Path::new(".")).join("img")),
        (None, None) => None,
    };
    if let Some(dir) = &plots_dir {
        let flag = if args.plots.is_some() {
            "--plots"
        } else {
            "--write-docs (its img/ directory)"
        };
        // `--plots DIR` is the user's own (a link to a directory is theirs to give); the
        // `img/` that `--write-docs` names itself is never written through a link.
        let parent = if args.plots.is_some() {
            dir.as_path()
        } else {
            dir.parent().unwrap_or(Path::new("."))
        };
        std::fs::create_dir_all(parent).with_context(|| {
            format!(
                "{flag} {}: cannot create the plot directory; give a directory",
                dir.display()
            )
        })?;
        if args.plots.is_none() {
            crate::output::make_subdir(dir).context(flag)?;
        }
        for p in printer::reproduce::plots(&exps)? {
            let svg = dir.join(format!("{}.svg", p.stem));
            crate::output::write_atomic(&svg, p.svg.as_bytes())?;
            let png = dir.join(format!("{}.png", p.stem));
            crate::output::write_atomic(&png, &p.png)?;
        }
    }
    if let Some(doc) = &args.write_docs {
        let dir = plots_dir.as_deref().unwrap_or(Path::new("img"));
        let rel = relative(dir, doc.parent().unwrap_or(Path::new(".")));
        crate::output::write_atomic(
            doc,
            printer::reproduce::markdown(&exps, &targets, sens, &rel).as_bytes(),
        )?;
    }
    if let (Some(index), Some((version, date))) = (&html, &made) {
        let made = printer::html::Made { version, date };
        let page = printer::html::reproduce(&exps, &targets, sens, &made)?;
        crate::output::write_atomic(index, page.as_bytes()).context("--html")?;
    }
    let text = match args.format {
        Format::Json => printer::reproduce::json(&exps, &targets, sens)?,
        Format::Table => printer::reproduce::table(&exps, &targets, sens),
    };
    crate::format::print(&text)?;
    Ok(if evidence::reproduce::evidence(&exps).failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// [`reproduce::run`] study by study, with a bar of studies done on stderr as `when` says.
fn run_studies(
    root: &Path,
    only: Option<&str>,
    when: When,
) -> anyhow::Result<Vec<reproduce::Experiment>> {
    let names: Vec<String> = reproduce::study_names(root)?
        .into_iter()
        .filter(|n| only.is_none_or(|o| o == n))
        .collect();
    let bar = Bar::new(
        when,
        names.len() as u64,
        "{bar:40} {pos}/{len} studies ({msg}), eta {eta}",
    );
    let mut exps = Vec::with_capacity(names.len());
    for (done, name) in names.iter().enumerate() {
        bar.set(done as u64, name.clone());
        exps.extend(reproduce::run(root, Some(name))?);
    }
    bar.set(names.len() as u64, "done".to_owned());
    bar.finish();
    Ok(exps)
}

/// `--html DIR`'s page, DIR/index.html: DIR is created if absent, and the page checked
/// writable before the experiments run.
fn html_target(dir: &Path) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| {
        format!(
            "--html {}: cannot create the directory for index.html; give a directory",
            dir.display()
        )
    })?;
    let index = dir.join("index.html");
    crate::output::check_writable(&index).context("--html")?;
    Ok(index)
}

/// `dir` relative to `base` when it lies under it, else as given.
fn relative(dir: &Path, base: &Path) -> String {
    dir.strip_prefix(base)
        .unwrap_or(dir)
        .to_string_lossy()
        .into_owned()
}
