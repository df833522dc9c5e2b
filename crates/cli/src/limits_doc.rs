//! Keeps `docs/limits.md` true: every `pub const MAX_*` of the library crates and
//! every flag of every subcommand (from clap's command tree) appears in it, each flag in its
//! subcommand's `### oransim ...` section.

use std::path::{Path, PathBuf};

use clap::CommandFactory;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn limits_md() -> String {
    std::fs::read_to_string(repo().join("docs/limits.md")).expect("docs/limits.md")
}

/// The `.rs` files under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir)
        .expect("read a source directory")
        .flatten()
    {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The names of the `pub const MAX_*` items of the library crates (every crate but this one).
fn max_constants() -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    for e in std::fs::read_dir(repo().join("crates"))
        .expect("crates/")
        .flatten()
    {
        if e.file_name() != "cli" {
            sources(&e.path().join("src"), &mut files);
        }
    }
    let mut names = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read a source file");
        for line in text.lines() {
            if let Some(rest) = line.trim_start().strip_prefix("pub const MAX_") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                names.push((format!("MAX_{name}"), f.clone()));
            }
        }
    }
    names
}

#[test]
fn every_max_constant_is_in_docs_limits() {
    let doc = limits_md();
    let consts = max_constants();
    // The scan itself works: it finds the engine's bounds.
    assert!(
        consts.iter().any(|(n, _)| n == "MAX_STEP_PS") && consts.len() > 20,
        "{consts:?}"
    );
    let missing: Vec<String> = consts
        .iter()
        .filter(|(n, _)| !doc.contains(n.as_str()))
        .map(|(n, f)| format!("{n} ({})", f.display()))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/limits.md does not mention: {missing:?}"
    );
}

/// Every leaf subcommand (`run`, `plan kex`, ...) with its flags (`--seed`, ...) and
/// positional arguments (`FILE`).
fn leaf_commands(cmd: &clap::Command, prefix: &str, out: &mut Vec<(String, Vec<String>)>) {
    let path = format!("{prefix} {}", cmd.get_name());
    if cmd.has_subcommands() {
        for sub in cmd.get_subcommands() {
            leaf_commands(sub, &path, out);
        }
        return;
    }
    let args = cmd
        .get_arguments()
        .filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
        .map(|a| match a.get_long() {
            Some(long) => format!("`--{long}`"),
            None => format!("`{}`", a.get_id().as_str().to_ascii_uppercase()),
        })
        .collect();
    out.push((path.trim().to_owned(), args));
}

/// The text of the section `### <title>` up to the next heading.
fn section<'d>(doc: &'d str, title: &str) -> Option<&'d str> {
    let start = doc.find(&format!("\n### {title}\n"))? + 1;
    let body = &doc[start..];
    let end = body[4..].find("\n#").map_or(body.len(), |i| i + 4);
    Some(&body[..end])
}

#[test]
fn every_flag_of_every_subcommand_is_in_docs_limits() {
    let doc = limits_md();
    let mut leaves = Vec::new();
    for sub in crate::flags::Cli::command().get_subcommands() {
        leaf_commands(sub, "oransim", &mut leaves);
    }
    assert!(leaves.len() >= 11, "{leaves:?}");
    let mut missing = Vec::new();
    for (path, args) in &leaves {
        let Some(text) = section(&doc, path) else {
            missing.push(format!("a `### {path}` section"));
            continue;
        };
        for a in args {
            if !text.contains(a.as_str()) {
                missing.push(format!("{a} under `### {path}`"));
            }
        }
    }
    assert!(missing.is_empty(), "docs/limits.md lacks: {missing:#?}");
}

/// The checks can fail: a flag that is not documented, and a section that does not exist.
#[test]
fn the_section_lookup_fails_for_what_is_not_there() {
    let doc = "intro\n### oransim run\n| `--seed` |\n### oransim check\n| `FILE` |\n";
    assert!(section(doc, "oransim run").is_some_and(|s| s.contains("`--seed`")));
    assert!(section(doc, "oransim run").is_some_and(|s| !s.contains("`FILE`")));
    assert!(section(doc, "oransim sweep").is_none());
}
