//! The report renderers on real runs of the repository's scenarios: the tables align, the CSV
//! has one well-formed row per flow direction, and the JSON reads back.

use std::path::Path;

fn report(name: &str) -> model::Report {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(format!("{name}.toml"));
    let scenario = model::Scenario::load(&file).expect("a scenario of the repository");
    let opts = model::RunOptions {
        wall_clock: false,
        ..Default::default()
    };
    model::run(&scenario, &opts).expect("a loaded scenario runs")
}

/// The lines of the block that starts with a line beginning `head`, up to the next blank line.
fn block<'a>(text: &'a str, head: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| !l.starts_with(head))
        .take_while(|l| !l.is_empty())
        .collect()
}

#[test]
fn tables_align_and_csv_has_a_row_per_direction() {
    // e2_sack: flows with a reverse direction, per-hop delays, profiles and links;
    // kex_storm: handshakes.
    for name in ["e2_sack", "kex_storm"] {
        let r = report(name);
        let table = printer::run::table(&r);
        assert!(table.starts_with(&format!("scenario {name} (")), "{table}");
        let directions: usize = r
            .flows
            .iter()
            .map(|f| 1 + usize::from(f.reverse.is_some()))
            .sum();
        for head in ["flow ", "link "] {
            let lines = block(&table, head);
            // A header and a row per flow direction (per link); every column but the first is
            // right-aligned and every row has every column, so all lines end at one column.
            let rows = if head == "flow " {
                directions
            } else {
                r.links.len()
            };
            assert_eq!(lines.len(), 1 + rows, "{name}:\n{table}");
            let width = lines[0].chars().count();
            assert!(
                lines.iter().all(|l| l.chars().count() == width),
                "{name}: ragged {head}table:\n{}",
                lines.join("\n")
            );
        }
        let csv = printer::run::csv(&r);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 1 + directions);
        assert!(lines.iter().all(|l| l.split(',').count() == 16), "{csv}");
        assert!(lines[1].starts_with(&format!("{name},")));
        let json: serde_json::Value =
            serde_json::from_str(&printer::run::json(&r).unwrap()).unwrap();
        assert_eq!(json["flows"].as_array().map(Vec::len), Some(r.flows.len()));
    }
}
