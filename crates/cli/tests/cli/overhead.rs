//! `oransim overhead` run as a user runs it (issue 3): the real binary, its JSON, its errors.

#[allow(dead_code)] // the scratch-directory helper is not used here
use crate::common::{json, oransim};

#[test]
fn e2_sack_in_esp_tunnel_is_138_bytes() {
    let v = json(&[
        "overhead",
        "--stack",
        "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp(sack)",
        "--payload",
        "0",
        "--format",
        "json",
    ]);
    assert_eq!(v["wire_len"], 138);
    let layers = v["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 5);
    assert_eq!(layers[2]["padding"], 14);
    let plain = json(&[
        "overhead",
        "--stack",
        "eth/ipv4/sctp(sack)",
        "--format",
        "json",
    ]);
    assert_eq!(plain["wire_len"], 62);
}

#[test]
fn macsec_adds_32_and_even_split_gives_equal_frames() {
    let v = json(&[
        "overhead",
        "--stack",
        "eth/macsec(gcm-aes-128,encrypt)/ecpri",
        "--payload",
        "8192",
        "--mtu",
        "5000",
        "--policy",
        "even",
        "--format",
        "json",
    ]);
    assert_eq!(v["wire_len"], 14 + 16 + 4 + 8192 + 16);
    let frames = v["split"]["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 2);
    assert_eq!(frames[0]["payload"], 4096);
    assert_eq!(frames[1]["payload"], 4096);
    let g = json(&[
        "overhead",
        "--stack",
        "eth/macsec(gcm-aes-128,encrypt)/ecpri",
        "--payload",
        "8192",
        "--mtu",
        "9000,5000",
        "--policy",
        "greedy",
        "--format",
        "json",
    ]);
    assert_eq!(g["split"]["path_mtu"], 5000);
    let f = g["split"]["frames"].as_array().unwrap();
    assert_ne!(f[0]["payload"], f[1]["payload"]);
}

#[test]
fn ip_fragments_are_multiples_of_8() {
    let v = json(&[
        "overhead",
        "--stack",
        "eth/ipv4/udp/ecpri",
        "--payload",
        "4000",
        "--mtu",
        "1500",
        "--ip-fragment",
        "--format",
        "json",
    ]);
    let frames = v["split"]["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 3);
    for f in &frames[..2] {
        assert_eq!(f["fragment"]["data_len"].as_u64().unwrap() % 8, 0);
    }
}

#[test]
fn interface_row() {
    let v = json(&["overhead", "--interface", "E2", "--format", "json"]);
    assert_eq!(v["protocol"], "IPsec");
    assert_eq!(v["paper_min"], ">= 57 B");
    assert_eq!(v["model_min"]["min"], 48);
    let table = oransim(&["overhead", "--interface", "a1"]);
    assert!(table.status.success());
    assert!(String::from_utf8_lossy(&table.stdout).contains("TLS"));
}

/// Issue 36: a VXLAN overlay adds 50 B to the inner frame (outer Ethernet 14, IPv4 20, UDP 8,
/// VXLAN 8), Geneve with 8 B of options 58 B, for every payload; the inner frame's Ethernet
/// header counts against the outer link's MTU, so a 1500-byte MTU leaves 1450 B of inner packet.
#[test]
fn overlays_add_their_outer_headers_to_the_inner_frame() {
    let wire = |stack: &str, payload: usize| {
        json(&[
            "overhead",
            "--stack",
            stack,
            "--payload",
            &payload.to_string(),
            "--format",
            "json",
        ])["wire_len"]
            .as_u64()
            .unwrap()
    };
    let inner = "eth/ipv4/udp";
    for payload in [0, 1, 100, 1422] {
        let plain = wire(inner, payload);
        for (outer, added) in [
            ("eth/ipv4/udp/vxlan", 50),
            ("eth/ipv4/udp/geneve", 50),
            ("eth/ipv4/udp/geneve(opts=8)", 58),
            ("eth/ipv4/udp/geneve(options=252)", 50 + 252),
            ("eth/ipv6/udp/vxlan", 70),
        ] {
            let stack = format!("{outer}/{inner}");
            assert_eq!(wire(&stack, payload), plain + added, "{stack} {payload}");
        }
    }
    let v = json(&[
        "overhead",
        "--stack",
        "eth/ipv4/udp/vxlan/eth/ipv4/udp",
        "--payload",
        "3000",
        "--mtu",
        "1500",
        "--format",
        "json",
    ]);
    let frames = v["split"]["frames"].as_array().unwrap();
    // 1500 - 20 - 8 - 8 - 14 (inner Ethernet) - 20 - 8 = 1422 B of payload per full frame.
    assert_eq!(frames[0]["payload"], 1422);
    assert_eq!(frames[0]["wire_len"], 1514);
    let layers = v["layers"].as_array().unwrap();
    assert_eq!(layers[0]["counts_against_mtu"], false);
    assert_eq!(layers[4]["counts_against_mtu"], true, "the inner eth");
}

#[test]
fn bad_input_is_explained_with_exit_2() {
    for (args, want) in [
        (
            vec!["overhead", "--stack", "eth/ipv4/esp-tunnel(des)/ipv4/udp"],
            "chacha20-poly1305",
        ),
        (
            vec!["overhead", "--stack", "eth/ipv4/udp(", "--payload", "1"],
            "closed by `)`",
        ),
        (
            vec!["overhead", "--stack", "eth/ipv4/udp", "--payload", "70000"],
            "65535",
        ),
        (
            vec![
                "overhead",
                "--stack",
                "eth/ipv4/esp-tunnel(aes256-gcm-16)/ipv4/sctp",
                "--payload",
                "10",
                "--mtu",
                "68",
            ],
            "at least 104",
        ),
        (
            vec![
                "overhead",
                "--stack",
                "eth/ecpri",
                "--mtu",
                "1500",
                "--policy",
                "fair",
            ],
            "greedy, even",
        ),
        (vec!["overhead", "--interface", "Q7"], "M-plane"),
        (
            vec!["overhead", "--stack", "eth/ipv4/udp/geneve(opts=254)/eth"],
            "between 0 and 252",
        ),
        (
            vec!["overhead", "--stack", "eth/ipv4/udp/vxlan/ipv4/udp"],
            "VXLAN carries an Ethernet frame",
        ),
    ] {
        let out = oransim(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("internal error"),
            "{err}"
        );
    }
}

/// Issue 14: with `--interface` (a catalogue row) the payload and splitting flags change
/// nothing, so they are refused, and a bad value is refused whatever the mode.
#[test]
fn splitting_flags_are_refused_with_an_interface() {
    for args in [
        &["--policy", "nope"][..],
        &["--policy", "even"],
        &["--ipsec-fragment", "18446744073709551615"],
        &["--payload", "100"],
        &["--ip-fragment"],
    ] {
        let out = oransim(&[&["overhead", "--interface", "E2"][..], args].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(args[0]), "{args:?}: {err}");
    }
}
