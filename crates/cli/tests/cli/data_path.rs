//! The engine charges a measured ESP data path (issue 35): a node whose profile holds a real
//! strongSwan's `esp.per_packet` and `esp.latency` pays them on every packet it seals or opens,
//! in the data path's threads (kernel-libipsec: one per direction).

use crate::common::{TempDir, json, stdout};

/// The committed strongSwan profile (kernel-libipsec terms).
const PROFILE: &str = "calibration/host-2026-11-26-strongswan.toml";

/// `PROFILE`'s path from the test's directory.
fn profile_path() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(PROFILE)
        .display()
        .to_string()
}

/// `PROFILE` as a TOML table, and the value of one of its implementation terms.
fn profile() -> (toml::Table, impl Fn(&str) -> f64) {
    let text = std::fs::read_to_string(profile_path()).unwrap();
    let t: toml::Table = text.parse().unwrap();
    let terms = t["implementation"]["terms"].as_table().unwrap().clone();
    (t, move |k: &str| terms[k]["value"].as_float().unwrap())
}

/// A gNB and a RIC on the profile `file` with AES-256-GCM over ESP, 10 pings of 64 B spaced
/// 10 ms apart (no queueing), as a scenario file in `dir`.
fn pings(dir: &TempDir, name: &str, file: &str) -> String {
    pings_with(dir, name, file, "aes256-gcm", "aes256-gcm-16")
}

/// [`pings`] with the suite `suite` on the nodes and `esp` in the stack's ESP.
fn pings_with(dir: &TempDir, name: &str, file: &str, suite: &str, esp: &str) -> String {
    pings_of(
        dir,
        name,
        file,
        suite,
        &format!("eth/ipv4/esp-tunnel({esp})/ipv4/udp"),
        64,
    )
}

/// [`pings`] with the suite `suite` on the nodes, the stack `stack` and `size` bytes of payload.
fn pings_of(dir: &TempDir, name: &str, file: &str, suite: &str, stack: &str, size: u32) -> String {
    let path = dir.join(format!("{name}.toml"));
    // The protocol whose offload flag and data path the nodes take: TLS for a TLS stack.
    let protocol = if stack.contains("tls") {
        "tls"
    } else {
        "ipsec"
    };
    let node = |n: &str| {
        format!(
            "[[node]]\nname = \"{n}\"\nservice = {{ model = \"profile\", profile = \"{file}\", suite = \"{suite}\", protocol = \"{protocol}\" }}\n"
        )
    };
    std::fs::write(
        &path,
        format!(
            "[scenario]\nname = \"{name}\"\nseed = 1\n{}{}[[link]]\nbetween = [\"gnb\", \"ric\"]\nrate = \"10Gbps\"\nlength = \"10m\"\n[[flow]]\nname = \"ping\"\nfrom = \"gnb\"\nto = \"ric\"\nsource = {{ kind = \"ping\", interval = \"10ms\", size = \"{size}B\", count = 10, stack = \"{stack}\" }}\n",
            node("gnb"),
            node("ric")
        ),
    )
    .unwrap();
    path.display().to_string()
}

/// Against the same profile without its data-path terms: each ESP node runs on one thread
/// instead of the host's two cores, and a ping's round trip (four ESP traversals: seal, open,
/// seal, open) grows by exactly `esp.latency`, of which `esp.per_packet` per traversal is CPU
/// and the rest delay (no packet waits: pings 10 ms apart).
#[test]
fn a_measured_esp_data_path_is_charged_per_packet() {
    let dir = TempDir::new("data-path");
    let (mut t, term) = profile();
    let terms = t["implementation"].as_table_mut().unwrap()["terms"]
        .as_table_mut()
        .unwrap();
    terms.retain(|k, _| !k.starts_with("esp."));
    let bare = dir.join("bare.toml");
    std::fs::write(&bare, toml::to_string(&t).unwrap()).unwrap();
    let full = profile_path();
    let with = json(&["run", &pings(&dir, "with", &full), "--format", "json"]);
    let without = json(&[
        "run",
        &pings(&dir, "without", bare.to_str().unwrap()),
        "--format",
        "json",
    ]);
    let cores = |r: &serde_json::Value| {
        r["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["cores"].as_u64().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(cores(&with), [1, 1], "libipsec: one thread per direction");
    assert_eq!(cores(&without), [2, 2]);
    // The report says what was charged, per node in JSON and in one line of text.
    let charged = |r: &serde_json::Value| {
        r["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["profile"]["data_path"].as_str().map(str::to_owned))
            .collect::<Vec<_>>()
    };
    let what = "strongSwan 5.9.8-5+deb12u6 (kernel-libipsec, profile host-2026-11-26-strongswan)";
    assert_eq!(
        charged(&with),
        [Some(what.to_owned()), Some(what.to_owned())]
    );
    assert_eq!(charged(&without), [None, None]);
    let text = stdout(&["run", &pings(&dir, "with-text", &full)]);
    assert!(
        text.contains(&format!("\ndata path charged: {what} at gnb, ric\n")),
        "{text}"
    );
    let text = stdout(&["run", &pings(&dir, "without-text", bare.to_str().unwrap())]);
    assert!(!text.contains("data path charged"), "{text}");
    let rtt = |r: &serde_json::Value| r["flows"][0]["rtt"]["mean_ns"].as_f64().unwrap();
    let (pp, lat) = (term("esp.per_packet"), term("esp.latency"));
    assert!(
        lat / 4.0 > pp,
        "the committed terms: {lat} ns of latency, {pp} ns per packet"
    );
    let added = rtt(&with) - rtt(&without);
    assert!(
        (added - lat).abs() < 1.0,
        "added {added} ns, esp.latency {lat} ns"
    );
    // The CPU share of it: four traversals' per-packet time, counted as busy time.
    let busy = |r: &serde_json::Value| -> f64 {
        r["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["busy_ns"].as_f64().unwrap())
            .sum::<f64>()
    };
    let extra_cpu = busy(&with) - busy(&without);
    assert!(
        (extra_cpu - 10.0 * 4.0 * pp).abs() < 10.0 * 4.0 * pp * 0.01,
        "{extra_cpu} ns of CPU for 10 pings, expected 40 x {pp}"
    );
}

/// ChaCha20-Poly1305 goes through strongSwan's openssl plugin: against the same profile without
/// `esp.openssl.per_packet`, each of a ping's four traversals pays that term more as CPU, and
/// the round trip is longer by four times it (the rest of `esp.latency` was measured through
/// aesni and is unchanged). AES-256-GCM (aesni) does not pay it.
#[test]
fn the_openssl_plugin_s_suite_pays_its_term() {
    let dir = TempDir::new("data-path-openssl");
    let (mut t, term) = profile();
    let plugin = term("esp.openssl.per_packet");
    assert!(plugin > 0.0);
    t["implementation"].as_table_mut().unwrap()["terms"]
        .as_table_mut()
        .unwrap()
        .remove("esp.openssl.per_packet");
    let bare = dir.join("bare.toml");
    std::fs::write(&bare, toml::to_string(&t).unwrap()).unwrap();
    let full = profile_path();
    let bare = bare.to_str().unwrap();
    let run = |name: &str, file: &str, suite: &str, esp: &str| {
        json(&[
            "run",
            &pings_with(&dir, name, file, suite, esp),
            "--format",
            "json",
        ])
    };
    let chacha = ("chacha20-poly1305", "chacha20-poly1305");
    let with = run("with", &full, chacha.0, chacha.1);
    let without = run("without", bare, chacha.0, chacha.1);
    let rtt = |r: &serde_json::Value| r["flows"][0]["rtt"]["mean_ns"].as_f64().unwrap();
    let added = rtt(&with) - rtt(&without);
    assert!(
        (added - 4.0 * plugin).abs() < 1.0,
        "added {added} ns, 4 x esp.openssl.per_packet = {} ns",
        4.0 * plugin
    );
    let gcm = ("aes256-gcm", "aes256-gcm-16");
    let (a, b) = (
        run("gcm-with", &full, gcm.0, gcm.1),
        run("gcm-without", bare, gcm.0, gcm.1),
    );
    assert_eq!(rtt(&a), rtt(&b), "aesni's suite pays no openssl term");
}

/// `validate strongswan`'s ping rows are engine runs: a row's prediction is the bench's plain
/// round trip at that size (measured) plus what `run` of the same pings through ESP adds to
/// `run` of them in plaintext, to the nanosecond (ChaCha20-Poly1305 at 512 B, from a profile
/// `calibrate --run strongswan` fitted to the committed measurements).
#[test]
fn validate_ping_rows_are_runs_of_the_same_pings() {
    let dir = TempDir::new("data-path-validate");
    let measurements = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../calibration/host-2026-11-26-strongswan.measurements.json");
    let measurements = measurements.to_str().unwrap();
    crate::validate::calibrate_strongswan(measurements, &dir);
    let profile = dir.join(crate::validate::CALIBRATED);
    let profile = profile.to_str().unwrap();
    let out = crate::common::oransim(&[
        "validate",
        "strongswan",
        "--measurements",
        measurements,
        "--profile",
        profile,
        "--format",
        "json",
    ]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "esp.rtt.chacha20poly1305.512")
        .expect("the row");
    assert_eq!(row["class"], "predicted");
    let predicted_ms = row["predicted"].as_f64().unwrap();
    // The bench's plain round trip at 512 B: the median of its runs.
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(measurements).unwrap()).unwrap();
    let mut plain: Vec<f64> = m["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["workload"] == "esp" && r["suite"] == "plain")
        .expect("plain pings")["rtt_ms"]["512"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    plain.sort_by(f64::total_cmp);
    let n = plain.len();
    let plain_ms = if n % 2 == 1 {
        plain[n / 2]
    } else {
        (plain[n / 2 - 1] + plain[n / 2]) / 2.0
    };
    let rtt = |name: &str, suite: &str, stack: &str| {
        let r = json(&[
            "run",
            &pings_of(&dir, name, profile, suite, stack, 512),
            "--format",
            "json",
        ]);
        r["flows"][0]["rtt"]["mean_ns"].as_f64().unwrap()
    };
    let added = rtt(
        "esp",
        "chacha20-poly1305",
        "eth/ipv4/esp-tunnel(chacha20-poly1305)/ipv4/udp",
    ) - rtt("plain", "none", "eth/ipv4/udp");
    assert!(added > 0.0, "ESP adds {added} ns");
    let want_ms = plain_ms + added / 1e6;
    assert!(
        (predicted_ms - want_ms).abs() < 1e-9,
        "validate predicts {predicted_ms} ms, run gives {want_ms} ms"
    );
}

/// An OpenSSL TLS profile's record terms (`calibrate --run openssl-tls` on the committed
/// measurements) are charged on the TLS records a node seals or opens: `s_server`'s
/// `tls.server.record_overhead_per_byte` per byte of a record the node seals, `s_time`'s
/// `tls.client.record_overhead_per_byte` per byte of one it opens, so a ping's four record
/// passes (two seals, two opens) add twice their sum per byte of payload (the difference
/// between two payload sizes, against the same profile without the terms); the record's
/// wake-up (`tls.record.wakeup_latency`, half at each end) adds it twice to a round trip. A
/// profile of the serial form alone (`tls.record.overhead_per_byte`, fitted before the
/// per-side terms) is charged half of it at each end. The report says which data path was
/// charged.
#[test]
fn a_measured_tls_record_path_is_charged_per_byte() {
    let dir = TempDir::new("data-path-tls");
    let measurements = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../crates/model/tests/data/tls-measurements.json");
    let full = dir.join("tls.toml");
    stdout(&[
        "calibrate",
        "--run",
        "openssl-tls",
        "--measurements",
        measurements.to_str().unwrap(),
        "--out",
        full.to_str().unwrap(),
    ]);
    let t: toml::Table = std::fs::read_to_string(&full).unwrap().parse().unwrap();
    let value = |name: &str| {
        t["implementation"]["terms"][name]["value"]
            .as_float()
            .unwrap()
    };
    let (serial, server, client, wakeup) = (
        value("tls.record.overhead_per_byte"),
        value("tls.server.record_overhead_per_byte"),
        value("tls.client.record_overhead_per_byte"),
        value("tls.record.wakeup_latency"),
    );
    assert!(serial > 0.0 && server > 0.0 && client > 0.0 && wakeup > 0.0);
    // The same profile without some of its record terms.
    let without = |name: &str, drop: &[&str]| {
        let mut t = t.clone();
        let terms = t["implementation"].as_table_mut().unwrap()["terms"]
            .as_table_mut()
            .unwrap();
        for d in drop {
            terms.remove(*d);
        }
        let path = dir.join(name);
        std::fs::write(&path, toml::to_string(&t).unwrap()).unwrap();
        path
    };
    let sides = [
        "tls.server.record_overhead_per_byte",
        "tls.client.record_overhead_per_byte",
        "tls.record.wakeup_latency",
    ];
    let serial_only = without("serial.toml", &sides);
    let no_wakeup = without("no-wakeup.toml", &sides[2..]);
    let bare = without(
        "bare.toml",
        &[&sides[..], &["tls.record.overhead_per_byte"]].concat(),
    );
    let stack = "eth/ipv4/tcp/tls13(aes256-gcm)";
    let run = |name: &str, file: &std::path::Path, size: u32| {
        json(&[
            "run",
            &pings_of(
                &dir,
                name,
                file.to_str().unwrap(),
                "aes256-gcm",
                stack,
                size,
            ),
            "--format",
            "json",
        ])
    };
    let rtt = |r: &serde_json::Value| r["flows"][0]["rtt"]["mean_ns"].as_f64().unwrap();
    let added = |file: &std::path::Path, size: u32| {
        rtt(&run(&format!("with{size}"), file, size))
            - rtt(&run(&format!("without{size}"), &bare, size))
    };
    let slope = |file: &std::path::Path| (added(file, 1000) - added(file, 200)) / 800.0;
    // The engine keeps time in whole picoseconds: each record pass rounds.
    let s = slope(&full);
    assert!(
        (s - 2.0 * (server + client)).abs() < 1e-4,
        "{s} ns more per byte of payload, twice {server} + {client} ns/B expected"
    );
    let s = slope(&serial_only);
    assert!(
        (s - 2.0 * serial).abs() < 1e-4,
        "{s} ns more per byte of payload, twice the serial term {serial} ns/B expected"
    );
    let wake = rtt(&run("wake", &full, 200)) - rtt(&run("nowake", &no_wakeup, 200));
    assert!(
        (wake - 2.0 * wakeup).abs() < 1e-2,
        "{wake} ns more per round trip, twice the wake-up {wakeup} ns expected"
    );
    let r = run("charged", &full, 200);
    let what = r["nodes"][0]["profile"]["data_path"].as_str().unwrap();
    assert!(
        what.starts_with("OpenSSL ") && what.contains("TLS records"),
        "{what}"
    );
    let r = run("uncharged", &bare, 200);
    assert!(r["nodes"][0]["profile"]["data_path"].is_null());
}
