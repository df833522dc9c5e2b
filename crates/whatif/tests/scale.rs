//! Validation at national scale (issue 13): a generated star of gNBs checks in time that grows
//! as N log N in its size, not cubically. No time is asserted (the machine varies); the 20k
//! test completes in about a second in the test profile now and did not in minutes before, and
//! the 100k one is behind `#[ignore]` (`cargo test -p model --test scale -- --ignored`).

use std::path::{Path, PathBuf};

use model::Scenario;
use profile::units::{Kind, Quantity};
use whatif::generate::{E2Shape, FronthaulShape, RicRestartShape, Shape};

/// Anchored at the repository's root, where the default profiles are.
fn origin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scale.toml")
}

/// `gnbs` gNBs at 1 kb/s each of KPM to a RIC of 64 cores: stable at 100k (the RIC's one I/O
/// server then carries ~0.2 of its capacity).
fn e2_star(gnbs: u32) -> Scenario {
    let shape = Shape::E2(E2Shape {
        gnbs,
        load: Quantity::parse("1kbps", Kind::DataRate, "--load").expect("a rate"),
        ric_cores: Some(64),
        ..E2Shape::default()
    });
    let file = shape.file().expect("a file");
    Scenario::from_file(file, &origin()).expect("accepted")
}

fn check_star(gnbs: u32) {
    let s = e2_star(gnbs);
    let n = &s.network;
    let g = gnbs as usize;
    assert_eq!((n.nodes.len(), n.links.len(), n.flows.len()), (g + 1, g, g));
    // Every route found by the indexed search is the one link to the RIC (node 0).
    for (i, f) in n.flows.iter().enumerate() {
        assert_eq!(f.path, [i + 1, 0]);
    }
}

#[test]
fn a_20k_gnb_star_is_accepted() {
    check_star(20_000);
}

#[test]
#[ignore = "100k nodes: a few seconds in release, longer in the test profile"]
fn a_100k_gnb_star_is_accepted() {
    check_star(100_000);
}

/// The other shapes at thousands of nodes: routes through switch chains are the shortest, and
/// a storm of thousands of gNBs validates with one profile loaded once.
#[test]
fn fronthaul_and_storm_shapes_at_thousands_of_nodes_are_accepted() {
    let fronthaul = Shape::Fronthaul(FronthaulShape {
        dus: 200,
        rus_per_du: 8,
        switches: 2,
        ..FronthaulShape::default()
    });
    let s = Scenario::from_file(fronthaul.file().unwrap(), &origin()).unwrap();
    assert_eq!(s.network.nodes.len(), 200 * 11);
    assert!(s.network.flows.iter().all(|f| f.path.len() == 4));
    let storm = Shape::RicRestart(RicRestartShape {
        gnbs: 5000,
        ..RicRestartShape::default()
    });
    let s = Scenario::from_file(storm.file().unwrap(), &origin()).unwrap();
    // One node of 5000 machines (a gNB each), one flow of 5000 tunnels.
    assert_eq!(s.network.flows.len(), 1);
    assert_eq!(s.network.nodes[1].machines, 5000);
    let star = Shape::RicRestart(RicRestartShape {
        gnbs: 5000,
        tunnels: 2,
        ..RicRestartShape::default()
    });
    let s = Scenario::from_file(star.file().unwrap(), &origin()).unwrap();
    assert_eq!(s.network.flows.len(), 5000);
}
