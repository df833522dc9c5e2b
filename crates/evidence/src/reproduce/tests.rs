//! Unit tests of the reproduction: Table 4 cell by cell, its regions, the runner.

use super::variant::frame_len;
use super::*;
use model::oran::{table4, table4_region};

/// Issue 5: all 168 cells of 000 Table 4 computed from the categories equal the published
/// table (the repository copy of ../shared/reference/table4.csv).
#[test]
fn reproduce_table4_all_168_cells_exact() {
    let t = table4();
    let p = table4_published();
    assert_eq!(t.len(), 12);
    assert_eq!(p.len(), 12);
    let mut n = 0;
    for (r, (a, b)) in t.iter().zip(&p).enumerate() {
        assert_eq!(a.len(), 14);
        for (c, (x, y)) in a.iter().zip(b).enumerate() {
            assert_eq!(x, y, "row {r} column {c}");
            n += 1;
        }
    }
    assert_eq!(n, 168);
}

/// Regions from MACsec's added delays: a cell fits a mode when its budget covers the
/// mode's delay; the counts add up to 168 and move as the delays move.
#[test]
fn reproduce_table4_region_counts() {
    let count = |on: f64, off: f64| {
        let mut c = [0usize; 3];
        for v in table4().iter().flatten() {
            c[table4_region(*v as f64, on, off)] += 1;
        }
        c
    };
    // Exactly at a budget fits; 1 us more does not.
    assert_eq!(table4_region(200.0, 200.0, 100.0), 0);
    assert_eq!(table4_region(199.0, 200.0, 100.0), 1);
    assert_eq!(table4_region(99.0, 200.0, 100.0), 2);
    // Counted by hand from table4.csv: 59 cells >= 191.5 us, 32 in [136.1, 191.5).
    assert_eq!(count(191.5, 136.1), [59, 32, 77]);
    // No MACsec cost: everything fits with encryption.
    assert_eq!(count(0.0, 0.0), [168, 0, 0]);
    // With the model's delays from the i9 profile.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let e = run(&root, Some("ofh_table4")).unwrap();
    let first = e[0].facts[0].text().unwrap_or_default();
    assert!(first.contains("59 combinations fit MACsec with encryption, 32 only MACsec without encryption, 77 only no MACsec"), "{first}");
}

#[test]
fn reproduce_frame_len_is_the_protocols_protected_length() {
    let f = frame_len(
        "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp(sack)",
        0,
    )
    .unwrap();
    assert_eq!((f.wire, f.protected), (138, 48));
    let m = frame_len("eth/macsec(gcm-aes-128,encrypt)/ecpri", 7660).unwrap();
    // Issue 15: the EtherType (2) and the eCPRI header (4) are encrypted, DA/SA are not.
    assert_eq!((m.wire, m.protected), (7710, 7666));
}

#[test]
fn reproduce_unknown_experiment_is_an_error() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let e = run(&root, Some("nope")).unwrap_err();
    assert!(e.to_string().contains("e2_sack"), "{e}");
    // Without a study list under the root, the error names the file.
    let e = run(Path::new("."), None).unwrap_err();
    assert!(e.to_string().contains(STUDIES_FILE), "{e}");
}
