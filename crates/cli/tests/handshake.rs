//! `oransim handshake` run as a user runs it (issue 3).

use std::process::{Command, Output};

fn oransim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(args)
        .output()
        .expect("run oransim")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = oransim(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

fn init_fits(ke: &str) -> (u64, Vec<(bool, bool)>) {
    let v = json(&[
        "handshake",
        "--protocol",
        "ikev2",
        "--ke",
        ke,
        "--format",
        "json",
    ]);
    let req = v["exchanges"][0]["request"]["ip_len"].as_u64().unwrap();
    let fits = v["ike_sa_init_fits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["request"].as_bool().unwrap(),
                f["response"].as_bool().unwrap(),
            )
        })
        .collect();
    (req, fits)
}

#[test]
fn ike_sa_init_fits_1280_and_1500() {
    let (x, fx) = init_fits("x25519");
    let (m768, f768) = init_fits("mlkem768");
    let (m1024, f1024) = init_fits("mlkem1024");
    assert_eq!(m768 - x, 1184 - 32);
    assert_eq!(m1024 - x, 1568 - 32);
    assert_eq!(fx, [(true, true), (true, true)]);
    assert_eq!(f768, [(false, false), (true, true)]);
    assert_eq!(f1024, [(false, false), (false, false)]);
}

#[test]
fn hybrid_takes_an_intermediate_round_trip_and_tls_shows_flights() {
    let v = json(&[
        "handshake",
        "--ke",
        "x25519+mlkem768",
        "--mtu",
        "1280",
        "--format",
        "json",
    ]);
    assert_eq!(v["setup_round_trips"], 3);
    assert_eq!(v["exchanges"][1]["name"], "IKE_INTERMEDIATE (ADDKE1)");
    let t = json(&[
        "handshake",
        "--protocol",
        "tls13",
        "--ke",
        "x25519mlkem768",
        "--auth",
        "ecdsa-p256",
        "--format",
        "json",
    ]);
    assert_eq!(t["flights"].as_array().unwrap().len(), 3);
    assert_eq!(t["round_trips"], 1);
}

#[test]
fn bad_input_is_explained_with_exit_2() {
    for (args, want) in [
        (vec!["handshake", "--ke", "kyber9000"], "mlkem768"),
        (vec!["handshake", "--ke", "x25519+mceliece348864"], "16-bit"),
        (vec!["handshake", "--auth", "dsa"], "mldsa65"),
        (vec!["handshake", "--protocol", "wireguard"], "ikev2, tls13"),
    ] {
        let out = oransim(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
