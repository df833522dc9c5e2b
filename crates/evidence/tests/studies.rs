//! Studies as data (issue 12, item 6): a study file under `experiments/studies/` that names a
//! missing target, analysis or value is an error naming the file, the key and the name; a new
//! `[[row]]` pointing at a value an analysis already computes is a row, with no Rust change.
//! Each test works on a copy of `experiments/` beside links to the real `scenarios/` and
//! `calibration/`.

use std::path::{Path, PathBuf};

use evidence::reproduce::{self, ReproduceError};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A scratch repository root: `experiments/` copied, `scenarios/` and `calibration/` linked;
/// removed when dropped, also when a test unwinds.
fn scratch_root(name: &str) -> tempfile::TempDir {
    let s = tempfile::Builder::new()
        .prefix(&format!("oransim-evidence-{name}-"))
        .tempdir()
        .expect("create a scratch directory");
    let repo = repo();
    for d in ["scenarios", "calibration"] {
        std::os::unix::fs::symlink(repo.join(d).canonicalize().unwrap(), s.path().join(d)).unwrap();
    }
    copy_dir(&repo.join("experiments"), &s.path().join("experiments"));
    s
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// Appends `text` to `rel` under `root`.
fn append(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    let old = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, old + text).unwrap();
}

/// Replaces `from` by `to` in `rel` under `root` (the text must occur).
fn replace(root: &Path, rel: &str, from: &str, to: &str) {
    let path = root.join(rel);
    let old = std::fs::read_to_string(&path).unwrap();
    assert!(old.contains(from), "{rel} holds no `{from}`");
    std::fs::write(&path, old.replacen(from, to, 1)).unwrap();
}

fn study_error(root: &Path, only: &str) -> String {
    match reproduce::run(root, Some(only)) {
        Err(e @ ReproduceError::Study { .. }) => e.to_string(),
        Err(e) => panic!("not a study error: {e}"),
        Ok(_) => panic!("the study ran"),
    }
}

const TABLE1: &str = "experiments/studies/table1.toml";

/// A new published number whose value an analysis computes is a data change: a `[[target]]`
/// and a `[[row]]` give a new row, compared by the target's rule and classed by its provenance.
#[test]
fn a_new_row_in_a_study_file_is_a_row() {
    let scratch = scratch_root("study-new-row");
    let root = scratch.path();
    let before = reproduce::run(root, Some("table1")).unwrap();
    append(
        root,
        reproduce::TARGETS_FILE,
        r#"
[[target]]
id = "test/table1/ipsec-min-again"
paper = "000"
where = "Table 1"
quantity = "the smallest IPsec overhead, once more"
unit = "B"
rule = "at-least"
value = 40
"#,
    );
    append(
        root,
        TABLE1,
        r#"
[[row]]
target = "test/table1/ipsec-min-again"
value = "table1.ipsec-min"
note = "{stack}: {min} B at least"
"#,
    );
    let after = reproduce::run(root, Some("table1")).unwrap();
    let (b, a) = (&before[0].rows, &after[0].rows);
    assert_eq!(a.len(), b.len() + 1);
    let old = b.iter().find(|r| r.id == "000/table1/ipsec-min").unwrap();
    let new = a.last().unwrap();
    assert_eq!(new.id, "test/table1/ipsec-min-again");
    assert_eq!(new.experiment, "table1");
    assert_eq!(new.simulated, old.simulated);
    assert_eq!(new.paper, Some(40.0));
    assert_eq!(new.pass, old.simulated >= 40.0);
    assert_eq!(new.target, "at least 40");
    assert_eq!(new.class.as_str(), "predicted");
    assert_eq!(new.depends_on, old.depends_on);
    let stack = old.note.trim_start_matches("protocols: ").split(' ').next();
    assert_eq!(
        new.note,
        format!("{}: {} B at least", stack.unwrap(), old.simulated)
    );
}

/// Replaces `from` by `to` in table1's study file of a scratch root and checks that the
/// reproduction then fails with an error holding every one of `parts`.
fn table1_error(scratch: &str, from: &str, to: &str, parts: &[&str]) {
    let scratch = scratch_root(scratch);
    let root = scratch.path();
    replace(root, TABLE1, from, to);
    let e = study_error(root, "table1");
    for part in parts {
        assert!(e.contains(part), "`{part}` missing from: {e}");
    }
}

#[test]
fn a_row_naming_a_missing_target_is_an_error_naming_both() {
    table1_error(
        "study-no-target",
        r#"target = "000/table1/tls-min""#,
        r#"target = "000/table1/no-such-row""#,
        &[
            "studies/table1.toml",
            "row[1].target",
            "no target `000/table1/no-such-row`",
            "experiments/targets.toml",
        ],
    );
}

#[test]
fn a_study_naming_a_missing_analysis_is_an_error_naming_both() {
    table1_error(
        "study-no-analysis",
        r#"analyses = ["table1"]"#,
        r#"analyses = ["table1", "no_such_analysis"]"#,
        &[
            "studies/table1.toml",
            "analyses[1]",
            "no analysis `no_such_analysis`",
            "known: e2_sack",
        ],
    );
}

#[test]
fn a_row_naming_a_missing_value_or_an_unlisted_analysis_is_an_error() {
    table1_error(
        "study-no-value",
        r#"value = "table1.ssh-min""#,
        r#"value = "table1.ssh-max""#,
        &[
            "row[2].value",
            "analysis `table1` computes no value `ssh-max`",
            "ipsec-min",
        ],
    );
    table1_error(
        "study-unlisted",
        r#"value = "table1.ssh-min""#,
        r#"value = "e2_sack.sack-pt-bytes""#,
        &["row[2].value", "analysis `e2_sack` is not one of"],
    );
}

#[test]
fn a_note_naming_a_missing_text_and_a_claim_without_a_verdict_are_errors() {
    table1_error(
        "study-bad-note",
        "{max} B",
        "{widest} B",
        &["row[0].note", "`{widest}`"],
    );
    table1_error(
        "study-claim",
        r#"target = "000/table1/tls-min""#,
        r#"target = "000/s2.3/dtotal-is-dproc""#,
        &["row[1].value", "is a claim"],
    );
}

/// An analysis reads its published numbers through the study's `[inputs]`: an input naming no
/// target, or one the analysis reads and the study does not give, is an error naming the file
/// and the key.
#[test]
fn an_input_naming_no_target_or_a_missing_input_is_an_error_naming_the_key() {
    table1_error(
        "study-input-target",
        r#"tls-25-40 = "000/s2.2/tls-25-40""#,
        r#"tls-25-40 = "000/s2.2/no-such-target""#,
        &[
            "studies/table1.toml",
            "inputs.tls-25-40",
            "no target `000/s2.2/no-such-target`",
            "experiments/targets.toml",
        ],
    );
    table1_error(
        "study-input-missing",
        "tls-25-40 = ",
        "tls-25-41 = ",
        &[
            "studies/table1.toml",
            "inputs.tls-25-40",
            "missing",
            "[inputs]",
        ],
    );
}

/// Appends a plot with one series (`series`, the keys of its `[[plot.series]]`) to table1's
/// study file of a scratch root and returns the reproduction's error.
fn table1_plot_error(scratch: &str, series: &str) -> String {
    let scratch = scratch_root(scratch);
    let root = scratch.path();
    let plot = "[[plot]]\nname = \"table1_test\"\ntitle = \"a test plot\"\nx_label = \"x\"\ny_label = \"y\"\n";
    append(
        root,
        TABLE1,
        &format!("\n{plot}\n[[plot.series]]\n{series}\n"),
    );
    study_error(root, "table1")
}

#[test]
fn a_plot_naming_a_missing_series_or_target_is_an_error() {
    let e = table1_plot_error("study-plot", r#"data = "table1.no-such-series""#);
    assert!(
        e.contains("plot[0].series[0].data") && e.contains("computes no series `no-such-series`"),
        "{e}"
    );
    let e = table1_plot_error(
        "study-plot-target",
        r#"label = "paper {000/table1/ipsec-min} B"
points = [[0, "000/table1/no-such-row"]]"#,
    );
    assert!(
        e.contains("plot[0].series[0].points") && e.contains("`000/table1/no-such-row`"),
        "{e}"
    );
}

/// A tally counts the rows whose value starts with its prefix and how many pass; its fact
/// comes first. A placeholder it does not know is an error naming the key.
#[test]
fn a_tally_counts_its_rows_and_names_an_unknown_placeholder() {
    let scratch = scratch_root("study-tally");
    let root = scratch.path();
    append(
        root,
        TABLE1,
        "\n[[tally]]\nrows = \"table1.\"\nfact = \"{passed} of {count} rows pass\"\n",
    );
    let e = &reproduce::run(root, Some("table1")).unwrap()[0];
    let passed = e.rows.iter().filter(|r| r.pass).count();
    assert_eq!(
        e.facts[0].text(),
        Some(format!("{passed} of {} rows pass", e.rows.len()).as_str())
    );
    assert_eq!(e.rows.len(), 7);
    let scratch = scratch_root("study-tally-bad");
    let root = scratch.path();
    append(
        root,
        TABLE1,
        "\n[[tally]]\nrows = \"table1.\"\nfact = \"{passed} of {all}\"\n",
    );
    let e = study_error(root, "table1");
    assert!(e.contains("tally[0].fact") && e.contains("`{all}`"), "{e}");
}

#[test]
fn a_study_in_the_list_without_a_file_is_an_error() {
    let scratch = scratch_root("study-no-file");
    let root = scratch.path();
    std::fs::remove_file(root.join(TABLE1)).unwrap();
    let e = study_error(root, "table1");
    assert!(
        e.contains("studies.toml") && e.contains("order") && e.contains("`table1`"),
        "{e}"
    );
}

/// The list compiled in for `reproduce::names()` (the CLI's `--only` choices) parses, and is
/// the committed `experiments/studies.toml`.
#[test]
fn the_study_list_is_the_names_the_cli_knows() {
    let names = reproduce::study_names(&repo()).unwrap();
    assert_eq!(names, reproduce::names());
}
