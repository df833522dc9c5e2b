//! `oransim handshake --peer` and `plan kex --peer` run as a user runs them (issue 17).

#[allow(dead_code)] // the scratch-directory helper is not used here
use crate::common::{json, oransim};

fn lens(v: &serde_json::Value) -> Vec<[u64; 2]> {
    v["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            [
                e["request"]["ike_len"].as_u64().unwrap(),
                e["response"]["ike_len"].as_u64().unwrap(),
            ]
        })
        .collect()
}

/// The contract of the wire test: per exchange the request and response IKE lengths, for the
/// default strongSwan configuration with PSK and AES-GCM (captured: 940/240, 396/220, 297/177,
/// 309/177, 897/181).
#[test]
fn strongswan_psk_gcm_as_captured() {
    let v = json(&[
        "handshake",
        "--peer",
        "strongswan",
        "--auth",
        "psk",
        "--cipher",
        "aes256gcm16",
        "--ke",
        "x25519",
        "--id-i",
        "fqdn:moon.example.org",
        "--id-r",
        "fqdn:sun.example.org",
        "--format",
        "json",
    ]);
    assert_eq!(v["peer"], "strongswan");
    assert_eq!(
        lens(&v),
        [
            [940, 240],
            [396, 220],
            [297, 177],
            [309, 177],
            [897, 181],
            [69, 69]
        ]
    );
    // IDr and INITIAL_CONTACT only with a configured remote identity.
    let auth = &v["exchanges"][1]["request"]["payloads"];
    let names: Vec<&str> = auth
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"IDr") && names.contains(&"N(INITIAL_CONTACT)"));
    let v = json(&[
        "handshake",
        "--peer",
        "strongswan",
        "--auth",
        "psk",
        "--id-i",
        "fqdn:moon.example.org",
        "--id-r",
        "fqdn:sun.example.org",
        "--no-send-idr",
        "--format",
        "json",
    ]);
    assert_eq!(lens(&v)[1][0], 396 - 23 - 8);
}

/// Certificates: the initiator's and the responder's differ (--cert-bytes, --cert-bytes-r);
/// strongswan-minimal sends no IDr, --id-r is the responder's identity.
#[test]
fn strongswan_minimal_ed25519_cbc_as_captured() {
    let v = json(&[
        "handshake",
        "--peer",
        "strongswan-minimal",
        "--auth",
        "ed25519",
        "--cipher",
        "aes256-sha256",
        "--id-i",
        "dn:60",
        "--id-r",
        "dn:59",
        "--cert-bytes",
        "365",
        "--cert-bytes-r",
        "363",
        "--format",
        "json",
    ]);
    assert_eq!(
        lens(&v),
        [
            [232, 257],
            [736, 688],
            [208, 208],
            [208, 208],
            [208, 208],
            [80, 80]
        ]
    );
}

#[test]
fn peer_flags_are_refused_by_name() {
    for (args, want) in [
        (&["handshake", "--peer", "racoon"][..], "strongswan-minimal"),
        (&["handshake", "--id-i", "moon"][..], "fqdn:"),
        (&["handshake", "--id-r", "dn:0"][..], "1..="),
        (
            &["handshake", "--protocol", "tls13", "--peer", "strongswan"][..],
            "--peer applies to --protocol ikev2 only",
        ),
        (&["handshake", "--vendor-id"][..], "--vendor-id"),
        (&["handshake", "--certreq-cas", "9999"][..], "--certreq-cas"),
    ] {
        let out = oransim(args);
        assert!(!out.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// `plan kex --peer strongswan` answers "does ML-KEM-768 fragment IKE_SA_INIT on my
/// strongSwan?" with a finding; the minimal model's fits the same MTU.
#[test]
fn plan_kex_names_ip_fragmentation_per_peer() {
    let plan = |peer: &str| {
        json(&[
            "plan",
            "kex",
            "--profile",
            "calibration/dev-host-rustcrypto.toml",
            "--ke",
            "x25519,mlkem768",
            "--tunnels",
            "10",
            "--peer",
            peer,
            "--format",
            "json",
        ])
    };
    let s = plan("strongswan");
    let row = &s["rows"][1];
    assert_eq!(row["peer"], "strongswan");
    assert_eq!(row["ike_sa_init"]["ip_fragmented"], true);
    assert_eq!(row["ike_sa_init"]["request_datagrams"], 2);
    let findings = s["findings"].to_string();
    assert!(
        findings.contains("mlkem768: IKE_SA_INIT with peer strongswan is IP-fragmented"),
        "{findings}"
    );
    let m = plan("minimal");
    assert_eq!(m["rows"][1]["ike_sa_init"]["ip_fragmented"], false);
    // The default strongSwan request is bigger, so the set-up moves more bytes.
    assert!(row["setup_bytes"].as_u64() > m["rows"][1]["setup_bytes"].as_u64());
}

/// A scenario's handshake source takes `peer`: strongSwan's default IKE_SA_INIT with ML-KEM-768
/// is two IP fragments, so the request carries more bytes than the minimal peer's; an unknown
/// peer is refused naming the key and the allowed names.
#[test]
fn scenario_handshake_source_takes_a_peer() {
    let dir = tempfile::tempdir().unwrap();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let scenario = |peer: &str| {
        let text = std::fs::read_to_string(format!("{root}/scenarios/kex_storm.toml"))
            .unwrap()
            .replace("../calibration/", &format!("{root}/calibration/"))
            .replace(
                "tunnels = 1000 }",
                &format!("tunnels = 10, peer = \"{peer}\" }}"),
            );
        let path = dir.path().join(format!("{peer}.toml"));
        std::fs::write(&path, text).unwrap();
        path
    };
    let init_bytes = |peer: &str| {
        let path = scenario(peer);
        let v = json(&["run", path.to_str().unwrap(), "--format", "json"]);
        let flow = &v["flows"][0]["handshake"]["exchanges"][0];
        assert_eq!(flow["name"], "IKE_SA_INIT");
        flow["request_bytes"].as_u64().unwrap()
    };
    assert!(init_bytes("strongswan") > init_bytes("minimal") + 700);
    let path = scenario("racoon");
    let out = oransim(&["run", path.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("source.peer") && err.contains("strongswan-minimal"),
        "{err}"
    );
}
