//! `oransim run --pcap` checked by tshark (issue 26): the binary runs a small scenario of four
//! flows (MACsec eCPRI on one link; E2 over SCTP in an ESP tunnel through a switch, with SACK
//! replies; ESP over UDP as bare IPv4 frames; one flow without a stack) and writes the capture;
//! Debian's tshark reads it, and per flow and direction the frames, their bytes, the first and
//! last timestamps and the throughput over the capture equal what `run --format json` reports,
//! with no malformed packet and no expert error. Also: the sent point, the frame limit, the
//! flow choice, the same bytes for the same seed, and the refusals. One tshark run per capture.

use crate::common::{PI_ERROR, TempDir, epoch_ns, oransim, python_script, scapy, tshark};
use std::collections::BTreeMap;
use std::path::Path;

const SCENARIO: &str = r#"
[scenario]
name = "pcap_run"
seed = 3

[stop]
duration = "5ms"

[[node]]
name = "du"
service = { model = "deterministic", time = "2us" }

[[node]]
name = "ru"
service = { model = "deterministic", time = "1us" }

[[node]]
name = "gnb"
service = { model = "exponential", mean = "3us" }

[[node]]
name = "sw"
service = { model = "none" }

[[node]]
name = "ric"
service = { model = "exponential", mean = "2us" }

[[link]]
between = ["du", "ru"]
rate = "10Gbps"
length = "100m"

[[link]]
between = ["gnb", "sw"]
rate = "1Gbps"
length = "1km"

[[link]]
between = ["sw", "ric"]
rate = "10Gbps"
length = "10m"

[[flow]]
name = "fh"
from = "du"
to = "ru"
source = { kind = "poisson", rate = "20/ms", size = "1000B", stack = "eth/macsec(gcm-aes-128,encrypt)/ecpri" }

[[flow]]
name = "e2"
from = "gnb"
to = "ric"
source = { kind = "pattern", interval = "100us", sizes = ["133B", "1363B"], stack = "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp(data)/e2ap", reply_every = 2, reply_size = "0B", reply_stack = "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp(sack)" }

[[flow]]
name = "plain"
from = "du"
to = "ru"
source = { kind = "poisson", rate = "5/ms", size = "100B" }

[[flow]]
name = "ipf"
from = "gnb"
to = "ric"
source = { kind = "poisson", rate = "10/ms", size = "300B", stack = "ipv4/udp/esp-tunnel(aes128-gcm-16)/ipv4/udp" }
"#;

/// Fields read from every frame.
const FIELDS: &[&str] = &[
    "frame.interface_name",
    "frame.time_epoch",
    "frame.len",
    "eth.src",
    "esp.spi",
    "esp.sequence",
    "macsec.PN",
    "_ws.malformed",
    "_ws.expert.severity",
];

/// One frame as tshark dissected it.
struct Frame {
    interface: String,
    /// Timestamp \[ns since the epoch\].
    time_ns: u64,
    len: u64,
    /// `(flow index, direction: 0 forward, 1 reverse)`.
    owner: (usize, usize),
    /// ESP sequence number or MACsec PN.
    counter: u64,
}

fn dissect(tshark: &Path, pcap: &Path) -> Vec<Frame> {
    let mut cmd = std::process::Command::new(tshark);
    cmd.arg("-r").arg(pcap).args([
        // Wireshark hands eCPRI IQ data to its O-RAN U-plane dissector, which would read
        // the pattern payload as a section header (docs/pcap.md).
        "--disable-protocol",
        "oran_fh_cus",
        "-o",
        "sctp.checksum:crc32c",
        "-o",
        "udp.check_checksum:TRUE",
    ]);
    crate::common::tshark_fields(cmd, FIELDS, ",")
        .into_iter()
        .map(|cols| {
            let line = cols.join("\t");
            let c: Vec<&str> = cols.iter().map(String::as_str).collect();
            assert!(c[7].is_empty(), "malformed: {line}");
            for sev in c[8].split(',').filter(|s| !s.is_empty()) {
                let sev: u64 = sev.parse().unwrap();
                assert!(sev < PI_ERROR, "expert error: {line}");
            }
            // ESP frames by SPI (0x10000000 + 2 * flow + direction), MACsec by its source,
            // the du (node 0: 02:00:00:00:00:01) of flow fh (0).
            let (owner, counter) = if !c[4].is_empty() {
                // The outer SPI (an ESP in ESP would list two).
                let spi = c[4].split(',').next().unwrap();
                let spi = u64::from_str_radix(spi.trim_start_matches("0x"), 16).unwrap();
                let k = (spi - 0x1000_0000) as usize;
                let seq = c[5].split(',').next().unwrap().parse().unwrap();
                ((k / 2, k % 2), seq)
            } else {
                assert_eq!(c[3], "02:00:00:00:00:01", "{line}");
                ((0, 0), c[6].parse().unwrap())
            };
            Frame {
                interface: c[0].to_string(),
                time_ns: epoch_ns(c[1]),
                len: c[2].parse().unwrap(),
                owner,
                counter,
            }
        })
        .collect()
}

/// Runs oransim with `args`, which must succeed; its stdout and stderr.
fn run_ok(args: &[&str]) -> (String, String) {
    let out = oransim(args);
    assert!(
        out.status.success(),
        "oransim {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The simulated time \[ns\] of a report's `*_ns` figure, rounded down as the capture's
/// timestamps are (the report prints picoseconds / 1000 as a float).
fn floor_ns(v: &serde_json::Value) -> u64 {
    let ps = (v.as_f64().unwrap() * 1e3).round() as u64;
    ps / 1000
}

#[test]
fn delivered_frames_match_the_report() {
    let Some(tshark) = tshark("pcap_run::delivered_frames_match_the_report") else {
        return;
    };
    let dir = TempDir::new("pcap-run");
    let scenario = dir.join("s.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let s = scenario.to_str().unwrap();
    let pcap = dir.join("d.pcapng");
    let p = pcap.to_str().unwrap();
    let plain = run_ok(&["run", s, "--format", "json", "--no-wall-clock"]).0;
    let (json_text, stderr) =
        run_ok(&["run", s, "--format", "json", "--no-wall-clock", "--pcap", p]);
    // The capture changes nothing in the report.
    assert_eq!(json_text, plain);
    // The flow without a stack is left out, and stderr says so, naming it.
    assert!(
        stderr.contains("1 flow(s) left out") && stderr.contains("\"plain\""),
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_str(&json_text).unwrap();
    let frames = dissect(&tshark, &pcap);
    let mut by: BTreeMap<(usize, usize), Vec<&Frame>> = BTreeMap::new();
    for f in &frames {
        by.entry(f.owner).or_default().push(f);
    }
    // Where each flow direction's frames arrive: its last link.
    let iface = |owner: (usize, usize)| match owner {
        (0, 0) => "du<->ru",
        (1, 0) => "sw<->ric",
        (1, 1) => "gnb<->sw",
        (3, 0) => "sw<->ric (ip)",
        other => panic!("no frames expected of {other:?}"),
    };
    let mut checked = 0;
    for (f, flow) in report["flows"].as_array().unwrap().iter().enumerate() {
        for (d, dir) in [(0, flow), (1, &flow["reverse"])] {
            let delivered = dir["packets_delivered"].as_u64().unwrap_or(0);
            let got = by.get(&(f, d)).map(Vec::as_slice).unwrap_or(&[]);
            if f == 2 {
                assert!(got.is_empty(), "the flow without a stack is not captured");
                continue;
            }
            assert_eq!(got.len() as u64, delivered, "flow {f} dir {d}: frames");
            if delivered == 0 {
                continue;
            }
            checked += 1;
            assert!(got.iter().all(|g| g.interface == iface((f, d))));
            let bytes: u64 = got.iter().map(|g| g.len).sum();
            assert_eq!(bytes, dir["bytes_delivered"].as_u64().unwrap());
            let (first, last) = (got[0].time_ns, got[got.len() - 1].time_ns);
            assert_eq!(first, floor_ns(&dir["first_delivered_ns"]), "flow {f}");
            assert_eq!(last, floor_ns(&dir["last_delivered_ns"]), "flow {f}");
            // tshark's throughput over the flow's frames is the report's bytes over its
            // delivery span, to the nanosecond rounding of the two timestamps.
            let span_ns = dir["last_delivered_ns"].as_f64().unwrap()
                - dir["first_delivered_ns"].as_f64().unwrap();
            let model_bps = bytes as f64 * 8.0 / (span_ns * 1e-9);
            let capture_bps = bytes as f64 * 8.0 / ((last - first) as f64 * 1e-9);
            assert!(
                (capture_bps / model_bps - 1.0).abs() < 2.0 / (last - first) as f64,
                "flow {f}: {capture_bps} vs {model_bps}"
            );
            // Sequence numbers count the direction's packets from 1 (nothing lost here).
            let counters: Vec<u64> = got.iter().map(|g| g.counter).collect();
            assert_eq!(counters, (1..=delivered).collect::<Vec<_>>(), "flow {f}");
        }
    }
    assert_eq!(checked, 4, "fh, e2 both ways and ipf were checked");
    // In time order (tshark keeps the file's order).
    assert!(frames.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));

    // The same seed gives the same capture, byte for byte.
    let again = dir.join("again.pcapng");
    run_ok(&["run", s, "--pcap", again.to_str().unwrap()]);
    assert_eq!(
        std::fs::read(&pcap).unwrap(),
        std::fs::read(&again).unwrap()
    );
}

#[test]
fn sent_point_limit_and_flow_choice() {
    let Some(tshark) = tshark("pcap_run::sent_point_limit_and_flow_choice") else {
        return;
    };
    let dir = TempDir::new("pcap-run-sent");
    let scenario = dir.join("s.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let s = scenario.to_str().unwrap();
    let pcap = dir.join("s.pcapng");
    let p = pcap.to_str().unwrap();
    // Sent, E2 only: every packet its ends created goes onto the first link of its route.
    let (json_text, _) = run_ok(&[
        "run",
        s,
        "--format",
        "json",
        "--no-wall-clock",
        "--pcap",
        p,
        "--pcap-at",
        "sent",
        "--pcap-flow",
        "e2",
    ]);
    let report: serde_json::Value = serde_json::from_str(&json_text).unwrap();
    let e2 = &report["flows"][1];
    let frames = dissect(&tshark, &pcap);
    let count = |d: usize| frames.iter().filter(|f| f.owner == (1, d)).count() as u64;
    assert_eq!(count(0), e2["packets_sent"].as_u64().unwrap());
    assert_eq!(count(1), e2["reverse"]["packets_sent"].as_u64().unwrap());
    assert_eq!(count(0) + count(1), frames.len() as u64, "only e2");
    for f in &frames {
        let first_link = if f.owner.1 == 0 {
            "gnb<->sw"
        } else {
            "sw<->ric"
        };
        assert_eq!(f.interface, first_link);
    }

    // The limit cuts the capture at exactly N frames; the run goes on (the same report) and
    // stderr says where the capture was cut.
    let cut = dir.join("cut.pcapng");
    let (limited, stderr) = run_ok(&[
        "run",
        s,
        "--format",
        "json",
        "--no-wall-clock",
        "--pcap",
        cut.to_str().unwrap(),
        "--pcap-limit",
        "17",
    ]);
    assert_eq!(dissect(&tshark, &cut).len(), 17);
    assert!(stderr.contains("cut at 17 frames"), "{stderr}");
    let full = run_ok(&["run", s, "--format", "json", "--no-wall-clock"]).0;
    assert_eq!(limited, full);
}

#[test]
fn refusals_name_the_flag_and_write_nothing() {
    let dir = TempDir::new("pcap-run-refusals");
    let scenario = dir.join("s.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let s = scenario.to_str().unwrap();
    let target = dir.join("x.pcapng");
    let t = target.to_str().unwrap();
    let refused = |args: &[&str], needles: &[&str]| {
        let out = oransim(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        for n in needles {
            assert!(err.contains(n), "{args:?}: {err}");
        }
        assert!(!target.exists(), "{args:?} wrote the capture");
    };
    refused(
        &["run", s, "--pcap", t, "--pcap-flow", "nope"],
        &[
            "--pcap-flow",
            "\"nope\"",
            "\"fh\", \"e2\", \"plain\", \"ipf\"",
        ],
    );
    refused(
        &["run", s, "--pcap", t, "--pcap-flow", "plain"],
        &["--pcap-flow", "\"plain\"", "no protocol stack"],
    );
    refused(
        &["run", s, "--pcap", t, "--pcap-limit", "0"],
        &["--pcap-limit"],
    );
    refused(
        &["run", s, "--pcap", t, "--pcap-limit", "ten"],
        &["--pcap-limit"],
    );
    refused(
        &["run", s, "--pcap", t, "--pcap-at", "both"],
        &["--pcap-at"],
    );
    refused(&["run", s, "--pcap-flow", "fh"], &["--pcap"]);
    refused(
        &["run", "scenarios/mm1.toml", "--pcap", t],
        &["--pcap", "no flow"],
    );
    // Not a regular file: a directory, a symbolic link, a FIFO.
    let link = dir.join("link.pcapng");
    std::os::unix::fs::symlink(dir.join("elsewhere"), &link).unwrap();
    let fifo = dir.join("fifo.pcapng");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for bad in [
        dir.to_str().unwrap(),
        link.to_str().unwrap(),
        fifo.to_str().unwrap(),
    ] {
        refused(&["run", s, "--pcap", bad], &["--pcap"]);
    }
    assert!(!dir.join("elsewhere").exists());
}

/// Issue 37 item 7: `run --pcap` seals every ESP and MACsec frame with keys of its own flow
/// direction, derived from the seed, and writes them beside the capture (`FILE.esp_sa`,
/// Wireshark's ESP SA table; `FILE.keys`, every layer's keys). tshark, given the table,
/// decrypts every ESP frame (the ICV checked, the inner IP packet dissected, no malformed
/// frame, no expert error); the SPIs and keys differ per SA; the same seed gives the same
/// bytes and keys, another seed other keys.
#[test]
fn esp_frames_decrypt_with_the_run_keys() {
    let Some(tshark) = tshark("pcap_run::esp_frames_decrypt_with_the_run_keys") else {
        return;
    };
    let dir = TempDir::new("pcap-run-keys");
    let scenario = dir.join("s.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let s = scenario.to_str().unwrap();
    let pcap = dir.join("k.pcapng");
    let p = pcap.to_str().unwrap();
    let plain = run_ok(&["run", s, "--format", "json", "--no-wall-clock"]).0;
    let (json_text, stderr) =
        run_ok(&["run", s, "--format", "json", "--no-wall-clock", "--pcap", p]);
    assert_eq!(json_text, plain, "sealing changes nothing in the report");
    for ext in ["esp_sa", "keys"] {
        assert!(stderr.contains(&format!("wrote {p}.{ext} (")), "{stderr}");
    }
    let esp_sa = std::fs::read_to_string(format!("{p}.esp_sa")).unwrap();
    let keys = std::fs::read_to_string(format!("{p}.keys")).unwrap();
    // The SAs: e2 both ways (AES-CBC, HMAC-SHA-256) and ipf forward (AES-GCM), each its own
    // SPI (0x10000000 + 2 x flow + direction) and its own key.
    let rows: Vec<Vec<&str>> = esp_sa
        .lines()
        .map(|l| l.split(',').map(|c| c.trim_matches('"')).collect())
        .collect();
    let spis: Vec<&str> = rows.iter().map(|r| r[3]).collect();
    assert_eq!(spis, ["0x10000002", "0x10000003", "0x10000006"], "{esp_sa}");
    let enc: std::collections::BTreeSet<&str> = rows.iter().map(|r| r[5]).collect();
    assert_eq!(enc.len(), 3, "each SA its own key: {esp_sa}");
    assert_eq!(rows[0][4], "AES-CBC [RFC3602]");
    assert_eq!(rows[2][4], "AES-GCM with 16 octet ICV [RFC4106]");
    // The MACsec SA of flow fh is in the key list with its SCI (the du's address, port 1).
    assert!(
        keys.contains("flow \"fh\" forward `eth/macsec(gcm-aes-128,encrypt)/ecpri`:\n")
            && keys.contains("sci=0x0200000000010001 an=0 sak=0x"),
        "{keys}"
    );
    assert!(keys.contains("seed 3"), "{keys}");

    let config = dir.join("wireshark");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("esp_sa"), &esp_sa).unwrap();
    let mut cmd = std::process::Command::new(&tshark);
    cmd.env("WIRESHARK_CONFIG_DIR", &config)
        .arg("-r")
        .arg(&pcap)
        .args([
            "-o",
            "esp.enable_encryption_decode:TRUE",
            "-o",
            "esp.enable_authentication_check:TRUE",
            "-o",
            "sctp.checksum:crc32c",
            "-o",
            "udp.check_checksum:TRUE",
            "--disable-protocol",
            "oran_fh_cus",
        ]);
    let fields = [
        "frame.protocols",
        "esp.spi",
        "esp.icv_good",
        "_ws.malformed",
        "_ws.expert.severity",
        "macsec.PN",
        "macsec.ICV",
    ];
    let frames = crate::common::tshark_fields(cmd, &fields, ",");
    let (mut esp, mut macsec) = (0, 0);
    for c in &frames {
        let line = c.join("\t");
        assert!(c[3].is_empty(), "malformed: {line}");
        for sev in c[4].split(',').filter(|s| !s.is_empty()) {
            assert!(
                sev.parse::<u64>().unwrap() < PI_ERROR,
                "expert error: {line}"
            );
        }
        if !c[1].is_empty() {
            esp += 1;
            assert_eq!(c[2], "1", "ICV checked good: {line}");
            // Decrypted: the inner IPv4 packet and what it carries are dissected.
            assert!(
                c[0].contains("esp:ip:sctp") || c[0].contains("esp:ip:udp"),
                "decrypted: {line}"
            );
        } else if !c[5].is_empty() {
            macsec += 1;
            // Sealed: a 16-byte ICV that is not the unsealed zeros.
            assert_eq!(c[6].len(), 32, "{line}");
            assert_ne!(c[6], "0".repeat(32), "sealed: {line}");
        }
    }
    assert!(
        esp > 50 && macsec > 50,
        "{esp} ESP and {macsec} MACsec frames"
    );

    // The same seed: the same bytes and keys; another seed: other keys and bytes.
    let again = dir.join("again.pcapng");
    let a = again.to_str().unwrap();
    run_ok(&["run", s, "--pcap", a]);
    assert_eq!(
        std::fs::read(&pcap).unwrap(),
        std::fs::read(&again).unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(format!("{a}.esp_sa")).unwrap(),
        esp_sa
    );
    run_ok(&["run", s, "--pcap", a, "--seed", "4"]);
    let other = std::fs::read_to_string(format!("{a}.esp_sa")).unwrap();
    assert_ne!(other, esp_sa);
    assert_eq!(other.lines().count(), 3);
}

/// Opens with scapy, written by no one here, every MACsec frame (EtherType 0x88E5) of the
/// capture given, with the SAs given as `SCI:SAK:E` (hex SCI and SAK; E 1 encrypted, 0
/// integrity only): `MACsecSA.decrypt`, GCM-AES with the IV of the SCI and the PN (802.1AE's
/// GCM-AES suites), the ICV checked. Prints per frame `OK SCI PN TYPE CLEAR ECPRI_SIZE
/// BODY_LEN`: the inner EtherType, whether the bytes after the SecTAG are the clear inner
/// frame, the eCPRI payload size field and the bytes after the inner EtherType; or `BAD SCI PN`
/// on a bad ICV. Usage: `python3 - PCAP SCI:SAK:E ...`.
const SCAPY_MACSEC: &str = r#"
import sys
from cryptography.exceptions import InvalidTag
from scapy.layers.l2 import Ether
from scapy.contrib.macsec import MACsec, MACsecSA
from scapy.utils import RawPcapNgReader

path, sas = sys.argv[1], {}
for arg in sys.argv[2:]:
    sci, key, encrypt = arg.split(":")
    sas[int(sci, 16)] = (bytes.fromhex(key), int(encrypt))
for raw, _ in RawPcapNgReader(path):
    pkt = Ether(raw)
    if pkt.type != 0x88E5:
        continue
    tag = pkt[MACsec]
    sci = int.from_bytes(tag.sci, "big")
    key, encrypt = sas[sci]
    if (tag.SC, tag.E, tag.C, tag.an) != (1, encrypt, encrypt, 0):
        sys.exit("SecTAG of %016x PN %d: SC %d E %d C %d AN %d"
                 % (sci, tag.pn, tag.SC, tag.E, tag.C, tag.an))
    sa = MACsecSA(sci=sci, an=0, pn=tag.pn, key=key, icvlen=16, encrypt=encrypt, send_sci=1)
    try:
        inner = sa.decrypt(pkt)[MACsec]
    except InvalidTag:
        print("BAD %016x %d" % (sci, tag.pn))
        continue
    body = bytes(inner.payload)
    # Ethernet header 14 bytes, SecTAG with SCI 14, ICV 16.
    clear = raw[14 + 14:-16] == inner.type.to_bytes(2, "big") + body
    size = int.from_bytes(body[2:4], "big")
    print("OK %016x %d %04x %d %d %d" % (sci, tag.pn, inner.type, clear, size, len(body)))
"#;

/// Issue 37 item 7: every MACsec frame of a run opens with the SAK of `FILE.keys`, checked by
/// scapy (Wireshark 4.0 has no MACsec decryption): an encrypting flow (GCM-AES-128, its bytes
/// not the clear frame) and an integrity-only one (GCM-AES-256, in clear), each frame's ICV
/// good, its PNs 1, 2, 3, ... and inside the eCPRI message the flow sent (EtherType 0xAEFE,
/// the payload size its packet size). A SAK one bit off opens none.
#[test]
fn macsec_frames_open_with_the_run_keys() {
    let Some(python) = scapy("pcap_run::macsec_frames_open_with_the_run_keys") else {
        return;
    };
    let dir = TempDir::new("pcap-run-macsec");
    let scenario = dir.join("s.toml");
    // The scenario's flows and one integrity-only MACsec flow the other way on the same link.
    let integrity = r#"
[[flow]]
name = "fhi"
from = "ru"
to = "du"
source = { kind = "poisson", rate = "20/ms", size = "200B", stack = "eth/macsec(gcm-aes-256,integrity)/ecpri" }
"#;
    std::fs::write(&scenario, format!("{SCENARIO}{integrity}")).unwrap();
    let s = scenario.to_str().unwrap();
    let pcap = dir.join("m.pcapng");
    let p = pcap.to_str().unwrap();
    let report = run_ok(&["run", s, "--format", "json", "--no-wall-clock", "--pcap", p]).0;
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    let keys = std::fs::read_to_string(format!("{p}.keys")).unwrap();
    // `layer 1 macsec(SUITE,MODE): sci=0x... an=0 sak=0x...`, the flows in scenario order.
    let sas: Vec<(String, String, &str)> = keys
        .lines()
        .filter(|l| l.starts_with("layer 1 macsec("))
        .map(|l| {
            let field = |k: &str| {
                let v = l.split(&format!(" {k}=0x")).nth(1).unwrap();
                v.split(' ').next().unwrap().to_string()
            };
            let mode = if l.contains(",encrypt)") { "1" } else { "0" };
            (field("sci"), field("sak"), mode)
        })
        .collect();
    assert_eq!(sas.len(), 2, "{keys}");
    assert_eq!((sas[0].0.as_str(), sas[0].2), ("0200000000010001", "1"));
    assert_eq!((sas[1].0.as_str(), sas[1].2), ("0200000000020001", "0"));
    assert_eq!(
        (sas[0].1.len(), sas[1].1.len()),
        (32, 64),
        "SAK sizes: {keys}"
    );
    let open = |sas: &[(String, String, &str)]| {
        let args: Vec<String> = sas.iter().map(|(c, k, e)| format!("{c}:{k}:{e}")).collect();
        let mut all = vec![p];
        all.extend(args.iter().map(String::as_str));
        python_script(&python, SCAPY_MACSEC, &all)
    };
    let opened = open(&sas);
    // Per SA: (flow index, frame size [B], the bytes in clear).
    for (sci, (flow, size, clear)) in [
        ("0200000000010001", (0, 1000, "0")),
        ("0200000000020001", (4, 200, "1")),
    ] {
        let lines: Vec<Vec<&str>> = opened
            .lines()
            .map(|l| l.split(' ').collect::<Vec<_>>())
            .filter(|c| c[1] == sci)
            .collect();
        let delivered = report["flows"][flow]["packets_delivered"].as_u64().unwrap();
        assert!(delivered > 50, "flow {flow}: {delivered} delivered");
        assert_eq!(lines.len() as u64, delivered, "{opened}");
        for (n, c) in lines.iter().enumerate() {
            let line = c.join(" ");
            assert_eq!(c[0], "OK", "ICV good: {line}");
            assert_eq!(c[2], (n + 1).to_string(), "PN: {line}");
            assert_eq!(c[3], "aefe", "eCPRI inside: {line}");
            assert_eq!(
                c[4], clear,
                "encrypted or in clear as the stack says: {line}"
            );
            assert_eq!(c[5], size.to_string(), "eCPRI payload size: {line}");
            assert_eq!(c[6], (size + 4).to_string(), "{line}");
        }
    }
    // Negative control: a SAK with its last bit flipped opens no frame.
    let wrong: Vec<(String, String, &str)> = sas
        .iter()
        .map(|(c, k, e)| {
            let last = u8::from_str_radix(&k[k.len() - 1..], 16).unwrap() ^ 1;
            (c.clone(), format!("{}{last:x}", &k[..k.len() - 1]), *e)
        })
        .collect();
    let refused = open(&wrong);
    assert_eq!(refused.lines().count(), opened.lines().count());
    assert!(refused.lines().all(|l| l.starts_with("BAD ")), "{refused}");
}
