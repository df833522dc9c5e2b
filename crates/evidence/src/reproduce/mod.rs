//! Reproducing the papers: every published experiment as a scenario under
//! `scenarios/`, run through the model and compared with the published numbers.
//!
//! [`run`] returns one [`Experiment`] per study, each with [`Row`]s: the paper's value, the
//! simulated one, the error, the tolerance, and whether the number was **fitted** (a calibration
//! parameter was chosen from it, so reproducing it only checks the composition) or
//! **predicted** (used in no fit). A published number the model cannot reach honestly is a
//! failed row with the reason ([`Row::why`]), never tuned away. Plots come back as data ([`Plot`]); the CLI
//! draws them and writes `docs/reproduction.md`.
//!
//! Two measurement views (docs/reproduction.md): the **latency** view is one packet's or one
//! payload's delay through a discrete-event run (frames pipeline: the sender protects frame 2
//! while frame 1 is on the wire); the **capacity** view is the processing time a payload
//! costs, summed over its frames (what limits throughput). Each row's note says which it is.
//!
//! Costing: every study runs its profile nodes through the engine's one path for them (the
//! node costs the suite of the stacks it seals or opens, at each packet's protected length, the
//! L the paper profiles define). A fit's trial profile, built in memory, stands in for the file
//! the node names; nothing is tuned.
//!
//! Layout: a study is data. `experiments/studies.toml` lists the studies in run order, and
//! `experiments/studies/<name>.toml` declares each one: title, scenario files, profiles, the
//! model / fitted / predicted text, the named analyses it runs, the targets they read
//! (`[inputs]`: a name bound to a target id, read through `Targets::input`; no analysis
//! writes a target id), its rows (`target` = a target id
//! of `experiments/targets.toml`, `value` = `<analysis>.<output>`, `note`), its plots (axes,
//! computed series, published points by target id) and tallies (how many of a group of rows
//! pass). The published numbers, their citations, tolerance rules and the assumptions are data
//! too (`target`: targets.toml, references.toml, assumptions.toml); a row's class follows from
//! its provenance. `study` holds the generic driver ([`study_names`], `run_study`) and the table
//! of named analyses (`ANALYSES`): the code a study needs (DES runs of scenario variants,
//! fits, slopes, Table 4's regions, the capacity view, IKE phases), each returning named values
//! with their provenance, the reason a value misses its target, facts, texts and plot series. An
//! analysis is a module named like its study (`e2_sack`, `table1`, ...). The shared machinery
//! is `row` (rows, [`Summary`]), `target` (targets, evidence classes), `plot` (plots as data),
//! `variant` (a scenario file loaded as a document, patched through [`model::patch`], run;
//! frame and protected lengths) and `fit`; what the analyses of one paper share (profile
//! path, stacks, suites, modes) sits in one module per paper (`e2`, `ofh`, `pq`). Adding a
//! published number whose value an analysis computes is a `[[target]]` and a `[[row]]`, no
//! Rust (docs/reproduction.md, "Adding a published number").

mod e2;
mod e2_sack;
mod e2_size;
mod e2_throughput;
mod fact;
pub mod fit;
mod nfv_macsec;
mod ofh;
mod ofh_load;
mod ofh_mtu;
mod ofh_mtu_load;
mod ofh_size;
mod ofh_table4;
mod otero_ofh;
mod plot;
mod pq;
mod pq_ike_e2;
mod pq_kems_hybrid;
mod row;
mod sensitivity;
mod study;
mod table1;
mod target;
mod transfer;
mod variant;

use std::path::{Path, PathBuf};

use serde::Serialize;

use model::ScenarioError;

pub use fact::{CoreGroup, Fact, GroupNumbers, MtuAdvice, Outcome, OutcomeNumbers};
pub use ofh_table4::table4_published;
pub use plot::{HeatMap, Plot, Series, Style, XyPlot};
pub use row::{Class, Loo, Row, Summary, evidence};
pub use sensitivity::{Flip, Variation, sensitivity};
pub use study::{STUDIES_DIR, STUDIES_FILE, study_names};
pub use target::{
    ASSUMPTIONS_FILE, Assumption, Paper, REFERENCES_FILE, RuleFile, TARGETS_FILE, Target, Targets,
    classify,
};
pub use variant::{FrameLen, frame_len};

/// JSON schema name of `oransim reproduce --format json`.
pub const SCHEMA: &str = "oransim.reproduce/2";

/// Table 4 of paper 000 (`experiments/references.toml`) as published
/// (`o_ru_category,A,...,N`), kept in `crates/evidence/data/table4.csv`.
pub const TABLE4_CSV: &str = include_str!("../../data/table4.csv");

/// Everything that can go wrong while reproducing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReproduceError {
    /// A scenario file could not be read or validated.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// A calibration profile could not be read or lacks an operation.
    #[error(transparent)]
    Profile(#[from] profile::ProfileError),
    /// A key op asked for (from an assumption, e.g. `rsa{bits}.sign`) is no key op oransim
    /// prices.
    #[error(transparent)]
    KeyOp(#[from] profile::OpNameError),
    /// The protocol model refused a stack or a handshake.
    #[error("protocol model: {0}")]
    Protocol(protocols::Error),
    /// A scenario variant could not be built at the TOML level.
    #[error("{file}: {problem}")]
    Variant {
        /// The scenario file.
        file: PathBuf,
        /// What went wrong.
        problem: String,
    },
    /// A study file names something that does not exist or is not allowed there.
    #[error("{file}: {key}: {problem}")]
    Study {
        /// The study file.
        file: PathBuf,
        /// The key in it (`row[2].value`).
        key: String,
        /// What is wrong and what is allowed.
        problem: String,
    },
    /// `--only` named no experiment.
    #[error("unknown experiment `{name}`; expected one of: {allowed}")]
    UnknownExperiment {
        /// The name given.
        name: String,
        /// The names known.
        allowed: String,
    },
}

/// A protocol model's refusal, said in the message (so it is no `source()` too: a cause is
/// said once).
impl From<protocols::Error> for ReproduceError {
    fn from(e: protocols::Error) -> ReproduceError {
        ReproduceError::Protocol(e)
    }
}

/// Result alias of this module.
pub type Result<T> = std::result::Result<T, ReproduceError>;

/// One reproduced experiment.
#[derive(Debug, Clone, Serialize)]
pub struct Experiment {
    /// Name (the scenario file stem).
    pub name: String,
    /// What it reproduces (paper, figure, table).
    pub title: String,
    /// Scenario files run.
    pub scenarios: Vec<String>,
    /// Calibration profiles used.
    pub profiles: Vec<String>,
    /// The model in words.
    pub model: String,
    /// What the profile was fitted to, for this experiment.
    pub fitted: String,
    /// What is predicted.
    pub predicted: String,
    /// The comparisons.
    pub rows: Vec<Row>,
    /// Further results (tables, counts, verdicts in words; the MTU advice as data).
    pub facts: Vec<Fact>,
    /// Plots in the paper's form.
    pub plots: Vec<Plot>,
}

/// Names of all experiments of the repository, in run order: the committed
/// `experiments/studies.toml`, compiled in ([`study_names`] reads the list under a given root).
pub fn names() -> Vec<&'static str> {
    study::committed_names()
}

/// Runs study `name` from its study file under `root`.
fn run_one(root: &Path, targets: &Targets, name: &str) -> Result<Experiment> {
    if !study::has_file(root, name) {
        return Err(ReproduceError::Study {
            file: root.join(STUDIES_FILE),
            key: "order".into(),
            problem: format!("study `{name}` has no file {STUDIES_DIR}/{name}.toml"),
        });
    }
    study::run_study(root, targets, name)
}

/// Runs the studies of `experiments/studies.toml` (all, or the one named `only`) with
/// scenario, calibration and experiment files under `root` (the repository root).
pub fn run(root: &Path, only: Option<&str>) -> Result<Vec<Experiment>> {
    let order = study_names(root)?;
    if let Some(name) = only
        && !order.iter().any(|n| n == name)
    {
        return Err(ReproduceError::UnknownExperiment {
            name: name.into(),
            allowed: order.join(", "),
        });
    }
    let targets = Targets::load(root)?;
    order
        .iter()
        .filter(|n| only.is_none_or(|o| o == n.as_str()))
        .map(|n| run_one(root, &targets, n))
        .collect()
}

/// An analysis: computes its named values, facts and series for the study that runs it.
type Analysis = fn(&std::path::Path, &target::Targets) -> Result<study::Outputs>;

/// Every analysis a study file can name, by name.
const ANALYSES: &[(&str, Analysis)] = &[
    ("e2_sack", e2_sack::e2_sack),
    ("e2_size", e2_size::e2_size),
    ("e2_throughput", e2_throughput::e2_throughput),
    ("ofh_table4", ofh_table4::ofh_table4),
    ("ofh_size", ofh_size::ofh_size),
    ("ofh_mtu", ofh_mtu::ofh_mtu),
    ("ofh_load", ofh_load::ofh_load),
    ("pq_ike_e2", pq_ike_e2::pq_ike_e2),
    ("pq_kems_hybrid", pq_kems_hybrid::pq_kems_hybrid),
    ("otero_ofh", otero_ofh::otero_ofh),
    ("nfv_macsec", nfv_macsec::nfv_macsec),
    ("table1", table1::table1),
    ("transfer", transfer::transfer),
];

#[cfg(test)]
mod tests;
