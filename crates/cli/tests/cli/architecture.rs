//! docs/architecture.md's crate table is true: each crate's `depends on` column lists exactly the
//! workspace crates its `Cargo.toml` names under `[dependencies]`, and every crate depends only
//! on crates below it in the table (no arrow runs back up).

use std::collections::BTreeSet;
use std::path::Path;

/// The workspace crates `crates/DIR/Cargo.toml` names in its `[dependencies]` table.
fn dependencies(root: &Path, dir: &str, crates: &BTreeSet<String>) -> BTreeSet<String> {
    let text = std::fs::read_to_string(root.join("crates").join(dir).join("Cargo.toml"))
        .expect("Cargo.toml");
    let table: toml::Table = text.parse().expect("Cargo.toml parses");
    table
        .get("dependencies")
        .and_then(|d| d.as_table())
        .map(|d| {
            d.keys()
                .filter(|k| crates.contains(k.as_str()))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_crate_table_matches_every_cargo_toml_and_points_down() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let block = doc
        .split("```\ncrate ")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("docs/architecture.md: the crate table");
    let rows: Vec<(String, BTreeSet<String>)> = block
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let name = l.split_whitespace().next().unwrap().to_owned();
            // The last column: a comma-separated list after two or more spaces, or `-`.
            let deps = l.rsplit("  ").next().unwrap().trim();
            let deps = if deps == "-" {
                BTreeSet::new()
            } else {
                deps.split(", ").map(str::to_owned).collect()
            };
            (name, deps)
        })
        .collect();
    let names: BTreeSet<String> = rows.iter().map(|(n, _)| n.clone()).collect();
    let dirs: BTreeSet<String> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    // The package of crates/cli is `oransim`; the table calls it by its directory.
    assert_eq!(names, dirs, "the table lists every crate under crates/");
    for (i, (name, listed)) in rows.iter().enumerate() {
        let actual = dependencies(&root, name, &names);
        assert_eq!(&actual, listed, "{name}: the table's `depends on` column");
        let below: BTreeSet<&String> = rows[i + 1..].iter().map(|(n, _)| n).collect();
        for d in listed {
            assert!(
                below.contains(d),
                "{name} depends on {d}, which is not below it"
            );
        }
    }
}
