//! `oransim live --pcap` checked by tshark (issue 26): the binary runs the smallest RTT
//! experiment on loopback (plaintext and ESP, 64-byte pings) and writes the datagrams its
//! sockets sent and received; Debian's tshark reads the capture. Per stream and socket, the
//! frames are those live reports it sent and received (each ping and reply seen by both ends),
//! their IP and UDP lengths are the datagram lengths `live --format json` reports, the rebuilt
//! IPv4 and UDP checksums are right, nothing is malformed and no expert error is raised, and the
//! timestamps are non-decreasing per socket and within the run's wall-clock window, and every
//! ESP frame decrypts with the SA table written beside the capture, the payload inside. Also:
//! the frame limit cuts at exactly N, and the throughput experiment's capture. No test asserts
//! a time.

use crate::common::{PI_ERROR, TempDir, epoch_ns, oransim, tshark};
use std::collections::BTreeMap;
use std::path::Path;

/// Fields read from every frame.
const FIELDS: &[&str] = &[
    "frame.interface_name",
    "frame.time_epoch",
    "ip.len",
    "udp.length",
    "udp.srcport",
    "udp.dstport",
    "ip.checksum.status",
    "udp.checksum.status",
    "_ws.malformed",
    "_ws.expert.severity",
    "esp.spi",
];

/// Warm-up pings per stream with `--quick` (`live::rtt::RttConfig::quick`): sent and
/// recorded, not counted in the JSON's `sent`.
const QUICK_WARMUP: u64 = 10;

/// One frame as tshark dissected it.
struct Frame {
    interface: String,
    time_ns: u64,
    ip_len: u64,
    udp_len: u64,
    ports: (u16, u16),
    /// Whether tshark dissected ESP in it.
    esp: bool,
}

/// Per interface, the server port of its stream: the destination of its first frame sent by
/// the client (the ports are ephemeral; Wireshark is told per port what the datagrams are).
fn server_ports(tshark: &Path, pcap: &Path) -> BTreeMap<String, u16> {
    let out = std::process::Command::new(tshark)
        .arg("-r")
        .arg(pcap)
        .args([
            "-T",
            "fields",
            "-e",
            "frame.interface_name",
            "-e",
            "udp.dstport",
        ])
        .output()
        .expect("run tshark");
    let mut ports = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let (name, port) = line.split_once('\t').unwrap();
        if let Some(stream) = name.strip_suffix(" client") {
            ports
                .entry(stream.to_string())
                .or_insert(port.parse().unwrap());
        }
    }
    ports
}

/// Dissects `pcap` with each stream's server port decoded as what it carries: ESP in UDP
/// (`udpencap`), plaintext as data (else heuristics guess at the pattern payload).
fn dissect(tshark: &Path, pcap: &Path) -> Vec<Frame> {
    let mut cmd = std::process::Command::new(tshark);
    for (stream, port) in server_ports(tshark, pcap) {
        let what = if stream.contains(" esp-") {
            "udpencap"
        } else {
            "data"
        };
        cmd.arg("-d").arg(format!("udp.port=={port},{what}"));
    }
    cmd.arg("-r").arg(pcap).args([
        "-o",
        "ip.check_checksum:TRUE",
        "-o",
        "udp.check_checksum:TRUE",
    ]);
    crate::common::tshark_fields(cmd, FIELDS, ",")
        .into_iter()
        .map(|cols| {
            let line = cols.join("\t");
            let c: Vec<&str> = cols.iter().map(String::as_str).collect();
            // 1: "Good" (the rebuilt checksums are right).
            assert_eq!((c[6], c[7]), ("1", "1"), "checksums: {line}");
            assert!(c[8].is_empty(), "malformed: {line}");
            for sev in c[9].split(',').filter(|s| !s.is_empty()) {
                let sev: u64 = sev.parse().unwrap();
                assert!(sev < PI_ERROR, "expert error: {line}");
            }
            Frame {
                interface: c[0].to_string(),
                time_ns: epoch_ns(c[1]),
                ip_len: c[2].parse().unwrap(),
                udp_len: c[3].parse().unwrap(),
                ports: (c[4].parse().unwrap(), c[5].parse().unwrap()),
                esp: !c[10].is_empty(),
            }
        })
        .collect()
}

fn now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

/// Runs the small RTT experiment with `extra` flags; its JSON and stderr, and the wall-clock
/// window \[ns\] it ran in.
fn live(dir: &TempDir, extra: &[&str]) -> (serde_json::Value, String, (u64, u64)) {
    let pcap = dir.join("live.pcapng");
    let mut args = vec![
        "live",
        "--experiment",
        "rtt",
        "--quick",
        "--protection",
        "plain,esp-gcm",
        "--sizes",
        "64",
        "--pings",
        "20",
        "--rounds",
        "1",
        "--format",
        "json",
        "--pcap",
        pcap.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let t0 = now_ns();
    let out = oransim(&args);
    let t1 = now_ns();
    assert!(
        out.status.success(),
        "oransim {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        (t0, t1),
    )
}

/// Every frame is a datagram live's sockets really sent or received: per stream and end, one
/// frame per ping and per reply (live reports them), the lengths its JSON reports, right
/// checksums, ESP dissected in the ESP stream's, time in order and within the run.
#[test]
fn live_rtt_capture_holds_what_the_sockets_sent_and_received() {
    let Some(tshark) = tshark("live_rtt_capture_holds_what_the_sockets_sent_and_received") else {
        return;
    };
    let dir = TempDir::new("pcap-live");
    let (json, stderr, (t0, t1)) = live(&dir, &[]);
    let frames = dissect(&tshark, &dir.join("live.pcapng"));
    assert!(stderr.contains("wrote "), "{stderr}");
    assert!(!stderr.contains("cut at"), "{stderr}");
    // Per interface, its frames in file order.
    let mut by_iface: BTreeMap<&str, Vec<&Frame>> = BTreeMap::new();
    for f in &frames {
        by_iface.entry(&f.interface).or_default().push(f);
    }
    let rtt = &json["rtt"];
    let streams: Vec<&serde_json::Value> = rtt["points"]
        .as_array()
        .unwrap()
        .iter()
        .chain(rtt["references"].as_array().unwrap())
        .collect();
    // plain 64, esp-gcm 64, and the plaintext reference at ESP's datagram length.
    assert_eq!(streams.len(), 3, "{rtt}");
    let mut total = 0;
    for p in &streams {
        let name = format!(
            "rtt {} {}B",
            p["protection"].as_str().unwrap(),
            p["payload"]
        );
        let (sent, replies) = (p["sent"].as_u64().unwrap(), p["replies"].as_u64().unwrap());
        let ip_len = p["ip_len"].as_u64().unwrap();
        let datagram = p["datagram_len"].as_u64().unwrap();
        // On loopback nothing is lost: every ping answered.
        assert_eq!(sent, replies, "{p}");
        let pings = sent + QUICK_WARMUP;
        let client = &by_iface[format!("{name} client").as_str()];
        let server = &by_iface[format!("{name} server").as_str()];
        // Each end sent and received each ping (or reply) once.
        assert_eq!(client.len() as u64, 2 * pings, "{name}");
        assert_eq!(server.len() as u64, 2 * pings, "{name}");
        // The client's port is the source of half of its frames: the pings.
        let cport = client[0].ports.0;
        for side in [client, server] {
            let to_server = side.iter().filter(|f| f.ports.0 == cport).count() as u64;
            assert_eq!(to_server, pings, "{name}");
            for f in side.iter() {
                assert_eq!((f.ip_len, f.udp_len), (ip_len, datagram + 8), "{name}");
                assert!(f.ports == (cport, server[0].ports.1) || f.ports.1 == cport);
                assert_eq!(f.esp, name.contains(" esp-"), "{name}: ESP dissected");
                assert!(
                    (t0..=t1).contains(&f.time_ns),
                    "{name}: {} not in {t0}..{t1}",
                    f.time_ns
                );
            }
            assert!(
                side.windows(2).all(|w| w[0].time_ns <= w[1].time_ns),
                "{name}: time goes back"
            );
        }
        total += 4 * pings;
    }
    assert_eq!(frames.len() as u64, total);
    assert!(stderr.contains(&format!("({total} frames")), "{stderr}");
    // The note tells how to decode the ESP stream's port.
    assert!(stderr.contains(",udpencap"), "{stderr}");
    // Every ESP frame decrypts with the SA table written beside the capture, the ping's
    // pattern inside (`live::net::pattern` after the 8-byte id).
    let decrypted = decrypt(&tshark, &dir.join("live.pcapng"));
    let pattern: String = (8..64usize)
        .map(|i| format!("{:02x}", (i * 131 + 7) as u8))
        .collect();
    let esp = frames.iter().filter(|f| f.esp).count();
    assert_eq!(decrypted.len(), esp);
    assert!(esp > 0);
    for d in &decrypted {
        assert!(d.contains(&pattern), "{d}");
    }
}

/// The decrypted ESP payloads of `pcap` (hex), with `FILE.esp_sa` as Wireshark's SA table
/// (its configuration directory: a scratch one holding only that file).
fn decrypt(tshark: &Path, pcap: &Path) -> Vec<String> {
    let config = TempDir::new("pcap-live-wireshark");
    let mut sa = pcap.as_os_str().to_owned();
    sa.push(".esp_sa");
    std::fs::copy(&sa, config.join("esp_sa")).expect("the ESP SA table beside the capture");
    let mut cmd = std::process::Command::new(tshark);
    cmd.env("WIRESHARK_CONFIG_DIR", &*config);
    for (stream, port) in server_ports(tshark, pcap) {
        if stream.contains(" esp-") {
            cmd.arg("-d").arg(format!("udp.port=={port},udpencap"));
        }
    }
    let out = cmd
        .arg("-r")
        .arg(pcap)
        .args([
            "-o",
            "esp.enable_encryption_decode:TRUE",
            "-o",
            "esp.enable_authentication_check:TRUE",
            "-Y",
            "esp",
            "-T",
            "fields",
            "-e",
            "esp.decrypted_data",
        ])
        .output()
        .expect("run tshark");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// `--pcap-limit N` keeps exactly N frames and says on stderr where it cut; the experiment's
/// results are still reported. The limit is shared out stream by stream, the client's end
/// first: 45 frames are the first 45 the first stream's client sent and received.
#[test]
fn live_pcap_limit_cuts_at_exactly_n() {
    let Some(tshark) = tshark("live_pcap_limit_cuts_at_exactly_n") else {
        return;
    };
    let dir = TempDir::new("pcap-live-limit");
    let (json, stderr, _) = live(&dir, &["--pcap-limit", "45"]);
    let frames = dissect(&tshark, &dir.join("live.pcapng"));
    assert_eq!(frames.len(), 45);
    assert!(
        frames.iter().all(|f| f.interface == "rtt plain 64B client"),
        "{:?}",
        frames.iter().map(|f| &f.interface).collect::<Vec<_>>()
    );
    assert!(
        stderr.contains("cut at 45 frames (--pcap-limit 45,"),
        "{stderr}"
    );
    assert_eq!(json["rtt"]["points"].as_array().unwrap().len(), 2);
}

/// The throughput experiment's capture: per point, the sender's interface holds exactly the
/// datagrams live reports it sent, the receiver's exactly those it delivered (on loopback, all),
/// at the IP length its JSON reports.
#[test]
fn live_throughput_capture_holds_what_was_sent_and_delivered() {
    let Some(tshark) = tshark("live_throughput_capture_holds_what_was_sent_and_delivered") else {
        return;
    };
    let dir = TempDir::new("pcap-live-tput");
    let pcap = dir.join("tput.pcapng");
    let args = [
        "live",
        "--experiment",
        "throughput",
        "--quick",
        "--protection",
        "plain,esp-gcm",
        "--duration-ms",
        "5",
        "--format",
        "json",
        "--pcap",
        pcap.to_str().unwrap(),
    ];
    let t0 = now_ns();
    let out = oransim(&args);
    let t1 = now_ns();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let frames = dissect(&tshark, &pcap);
    let mut by_iface: BTreeMap<&str, Vec<&Frame>> = BTreeMap::new();
    for f in &frames {
        by_iface.entry(&f.interface).or_default().push(f);
    }
    let mut total = 0;
    for p in json["throughput"].as_array().unwrap() {
        let rate = match p["offered_bps"].as_f64() {
            Some(r) => format!("{} Mbps", r / 1e6),
            None => "back to back".into(),
        };
        let name = format!(
            "throughput {} {}B {rate}",
            p["protection"].as_str().unwrap(),
            p["payload"]
        );
        let sent = p["sent"].as_u64().unwrap();
        let delivered = p["delivered"].as_u64().unwrap();
        let tx = by_iface
            .get(format!("{name} client").as_str())
            .map_or(0, |v| v.len());
        let rx = by_iface
            .get(format!("{name} server").as_str())
            .map_or(0, |v| v.len());
        // The receiver records every datagram it received, delivered or refused: on loopback
        // none is refused.
        assert_eq!((tx as u64, rx as u64), (sent, delivered), "{name}");
        for f in by_iface.values().flatten() {
            assert!((t0..=t1).contains(&f.time_ns));
        }
        for f in by_iface[format!("{name} client").as_str()].iter() {
            assert_eq!(f.ip_len, p["ip_len"].as_u64().unwrap(), "{name}");
            assert_eq!(f.esp, name.contains(" esp-"), "{name}");
        }
        total += sent + delivered;
    }
    assert_eq!(frames.len() as u64, total);
}

/// The bulk experiment's capture: per transfer, the sender's interface holds every segment it
/// sent (the JSON's `segments` plus `retransmitted`), at the JSON's IP length, and the
/// receiver's every segment it received with one acknowledgement sent for each.
#[test]
fn live_bulk_capture_holds_every_segment_and_acknowledgement() {
    let Some(tshark) = tshark("live_bulk_capture_holds_every_segment_and_acknowledgement") else {
        return;
    };
    let dir = TempDir::new("pcap-live-bulk");
    let pcap = dir.join("bulk.pcapng");
    let out = oransim(&[
        "live",
        "--experiment",
        "bulk",
        "--quick",
        "--protection",
        "plain,esp-gcm",
        "--megabytes",
        "1",
        "--mtu",
        "1500",
        "--format",
        "json",
        "--pcap",
        pcap.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let frames = dissect(&tshark, &pcap);
    for p in json["bulk"].as_array().unwrap() {
        let name = format!(
            "bulk {} MTU {}",
            p["protection"].as_str().unwrap(),
            p["mtu"]
        );
        let ip_len = p["ip_len"].as_u64().unwrap();
        let count = |end: &str, data: bool| {
            frames
                .iter()
                .filter(|f| f.interface == format!("{name} {end}") && (f.ip_len == ip_len) == data)
                .count() as u64
        };
        let sent = p["segments"].as_u64().unwrap() + p["retransmitted"].as_u64().unwrap();
        assert_eq!(count("client", true), sent, "{name}: segments sent");
        // Every segment received (on loopback, all) is acknowledged once.
        let received = count("server", true);
        assert!(received <= sent && received > 0, "{name}");
        assert_eq!(count("server", false), received, "{name}: acknowledgements");
        assert!(count("client", false) <= received, "{name}");
    }
}
