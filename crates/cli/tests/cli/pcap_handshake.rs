//! Issue 26: `oransim handshake --protocol ikev2 --pcap FILE` read back by Debian's tshark:
//! no malformed packet and no expert warning or error, every frame and IKE message of the
//! length `--format json` gives, every payload the model lists dissected with its length, the
//! SK and SKF payloads decrypted with the table oransim wrote beside the capture, IKE and IP
//! fragments reassembled. One tshark run per capture.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::{self, TempDir};

/// tshark's columns, in order.
const FIELDS: [&str; 10] = [
    "frame.len",
    "_ws.malformed",
    "_ws.expert.severity",
    "udp.srcport",
    "isakmp.exchangetype",
    "isakmp.length",
    "isakmp.typepayload",
    "isakmp.payloadlength",
    "isakmp.frag.number",
    "frame.time_epoch",
];

/// The IKEv2 payload type of a payload the model names (RFC 7296 §3.2).
fn payload_type(name: &str) -> u32 {
    match name {
        n if n.starts_with("SA") => 33,
        n if n.starts_with("KE") => 34,
        "IDi" => 35,
        "IDr" => 36,
        n if n.starts_with("CERTREQ") => 38,
        n if n.starts_with("CERT") => 37,
        n if n.starts_with("AUTH") => 39,
        "Ni" | "Nr" => 40,
        n if n.starts_with("N(") => 41,
        "D" => 42,
        n if n.starts_with("V(") => 43,
        "TSi" => 44,
        "TSr" => 45,
        other => panic!("payload {other} has no type here"),
    }
}

/// The exchange type of an exchange the model names (RFC 7296 §3.1, RFC 9242, RFC 9370).
fn exchange_type(name: &str) -> u32 {
    match name.split(' ').next().unwrap() {
        "IKE_SA_INIT" => 34,
        "IKE_AUTH" => 35,
        "CREATE_CHILD_SA" => 36,
        "IKE_INTERMEDIATE" => 43,
        "IKE_FOLLOWUP_KE" => 44,
        "INFORMATIONAL" => 37,
        other => panic!("exchange {other}"),
    }
}

/// One tshark column as a list of numbers (a time `0.000000012` as its nanoseconds).
fn numbers(col: &str) -> Vec<u64> {
    col.split(' ')
        .map(|s| s.strip_prefix("0.").filter(|ns| ns.len() == 9).unwrap_or(s))
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.strip_prefix("0x").map_or_else(
                || s.parse().unwrap(),
                |h| u64::from_str_radix(h, 16).unwrap(),
            )
        })
        .collect()
}

/// Runs tshark on `pcap` with `table` as its IKEv2 decryption table (none: `None`), in a home
/// directory of its own so no user preference applies; one row of columns per frame.
fn tshark(tshark: &Path, home: &Path, pcap: &Path, table: Option<&Path>) -> Vec<Vec<Vec<u64>>> {
    let mut cmd = Command::new(tshark);
    cmd.env("HOME", home).arg("-r").arg(pcap);
    if let Some(t) = table {
        let row = std::fs::read_to_string(t).unwrap();
        cmd.arg("-o")
            .arg(format!("uat:ikev2_decryption_table:{}", row.trim()));
    }
    crate::common::tshark_fields(cmd, &FIELDS, " ")
        .iter()
        .map(|row| row.iter().map(|c| numbers(c)).collect())
        .collect()
}

/// Runs `oransim handshake --format json --pcap` with `args` and checks the capture against
/// the JSON it printed; returns each message's `fragmentation`.
fn check(tshark_bin: &Path, dir: &Path, name: &str, args: &[&str]) -> Vec<String> {
    let pcap = dir.join(format!("{name}.pcapng"));
    let table = dir.join(format!("{name}.pcapng.ikev2_decryption_table"));
    let mut all = vec!["handshake", "--protocol", "ikev2", "--format", "json"];
    all.extend_from_slice(args);
    all.extend(["--pcap", pcap.to_str().unwrap()]);
    let out = common::oransim(&all);
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(pcap.to_str().unwrap()) && stderr.contains(table.to_str().unwrap()),
        "{name}: stderr names both files: {stderr}"
    );
    let h: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ip_header = if args.contains(&"6") { 40 } else { 20 };
    let rows = tshark(tshark_bin, dir, &pcap, Some(&table));

    // handshake models no time: frame n at n ns, in the order of the table.
    for (n, row) in rows.iter().enumerate() {
        assert_eq!(row[9], [n as u64], "{name}: frame {n}'s time");
    }
    let mut frame = 0;
    let mut kinds = Vec::new();
    for e in h["exchanges"].as_array().unwrap() {
        let ename = e["name"].as_str().unwrap();
        for side in ["request", "response"] {
            let m = &e[side];
            let what = format!("{name}: {ename} {side}");
            let datagrams: Vec<u64> = m["datagrams"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap())
                .collect();
            let fragmentation = m["fragmentation"].as_str().unwrap();
            kinds.push(fragmentation.to_string());
            let ike_len = m["ike_len"].as_u64().unwrap();
            let marker = m["ip_len"].as_u64().unwrap() - ip_header - 8 - ike_len;
            let mine = &rows[frame..frame + datagrams.len()];
            frame += datagrams.len();
            let mut inner = Vec::new();
            for (row, &d) in mine.iter().zip(&datagrams) {
                // Frame = IP datagram + Ethernet header; nothing malformed, no expert at
                // warning (0x600000) or error (0x800000) severity.
                assert_eq!(row[0], [d + 14], "{what}: frame length");
                assert!(row[1].is_empty(), "{what}: malformed");
                assert!(
                    row[2].iter().all(|&s| s < 0x0060_0000),
                    "{what}: expert info {:?}",
                    row[2]
                );
                if row[5].is_empty() {
                    // An IP fragment before the last: no IKE yet.
                    assert_eq!(fragmentation, "ip", "{what}: a frame without IKE");
                    continue;
                }
                assert_eq!(
                    row[3],
                    [if marker == 4 { 4500 } else { 500 }],
                    "{what}: port"
                );
                assert_eq!(row[4], [u64::from(exchange_type(ename))], "{what}");
                match fragmentation {
                    // Each IKE fragment is an IKE message of its own (RFC 7383 §2.5).
                    "ike" => {
                        assert_eq!(row[5], [d - ip_header - 8 - marker], "{what}: SKF length");
                        assert_eq!(row[8].len(), 1, "{what}: fragment number");
                    }
                    // Reassembled from its IP fragments (or never fragmented).
                    _ => assert_eq!(row[5], [ike_len], "{what}: IKE length"),
                }
                // Payloads (types 33 and up; proposals 2 and transforms 3 are substructures),
                // the SK/SKF envelope left out: what is left came out of the decryption.
                for (&t, &len) in row[6].iter().zip(&row[7]) {
                    if t >= 33 && t != 46 && t != 53 {
                        inner.push((t, len));
                    }
                }
            }
            let want: Vec<(u64, u64)> = m["payloads"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    (
                        u64::from(payload_type(p["name"].as_str().unwrap())),
                        p["len"].as_u64().unwrap(),
                    )
                })
                .collect();
            assert_eq!(
                inner, want,
                "{what}: payloads (decrypted: {})",
                m["encrypted"]
            );
        }
    }
    assert_eq!(frame, rows.len(), "{name}: frames beyond the model's");
    assert_eq!(
        h["exchanges"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|e| [&e["request"], &e["response"]])
            .map(|m| m["datagrams"].as_array().unwrap().len())
            .sum::<usize>(),
        rows.len()
    );
    kinds
}

#[test]
fn ikev2_captures_dissect_decrypt_and_reassemble_in_tshark() {
    let Some(tshark_bin) = common::tshark("pcap_handshake::ikev2") else {
        return;
    };
    let dir = TempDir::new("pcap-handshake");
    let cases: [(&str, &[&str], &str); 9] = [
        ("x25519", &["--ke", "x25519"], "none"),
        (
            "mlkem768-cbc",
            &[
                "--ke",
                "mlkem768",
                "--auth",
                "psk",
                "--cipher",
                "aes256-sha256",
            ],
            "none",
        ),
        (
            "hybrid-strongswan",
            &[
                "--ke",
                "x25519+mlkem768",
                "--auth",
                "rsa2048",
                "--peer",
                "strongswan",
            ],
            "ike",
        ),
        (
            "hybrid-ike-fragments-cbc",
            &[
                "--ke",
                "x25519+mlkem768",
                "--auth",
                "rsa2048",
                "--mtu",
                "576",
                "--cipher",
                "aes256-sha256",
            ],
            "ike",
        ),
        (
            "ip-fragments",
            &[
                "--ke",
                "mlkem768",
                "--auth",
                "rsa2048",
                "--mtu",
                "576",
                "--no-ike-fragmentation",
            ],
            "ip",
        ),
        (
            "ipv6-ip-fragments",
            &[
                "--ke",
                "x25519+mlkem768",
                "--auth",
                "mldsa44",
                "--ip-version",
                "6",
                "--mtu",
                "1280",
                "--no-ike-fragmentation",
            ],
            "ip",
        ),
        (
            "strongswan-minimal-vendor-id",
            &[
                "--peer",
                "strongswan-minimal",
                "--vendor-id",
                "--auth",
                "psk",
                "--id-i",
                "email:moon@example.org",
                "--id-r",
                "keyid:12",
                "--cipher",
                "aes256-sha256",
            ],
            "none",
        ),
        (
            "strongswan-ipv6-address-ids",
            &[
                "--peer",
                "strongswan",
                "--auth",
                "psk",
                "--ip-version",
                "6",
                "--mtu",
                "1280",
            ],
            "none",
        ),
        (
            "libreswan",
            &[
                "--ke",
                "x25519+mlkem768",
                "--auth",
                "ecdsa-p256",
                "--peer",
                "libreswan",
                "--id-i",
                "dn:80",
                "--id-r",
                "fqdn:sun.example.org",
            ],
            "ike",
        ),
    ];
    for (name, args, fragmentation) in cases {
        let kinds = check(&tshark_bin, &dir, name, args);
        // Each case shows the fragmentation it is there for.
        assert!(
            kinds.iter().any(|k| k == fragmentation),
            "{name}: no message with fragmentation {fragmentation}: {kinds:?}"
        );
    }
    // Without the table tshark finds the SK payload and nothing inside it: the table is what
    // decrypts.
    let rows = tshark(&tshark_bin, &dir, &dir.join("x25519.pcapng"), None);
    assert_eq!(
        rows[2][6],
        [46],
        "IKE_AUTH without the table: {:?}",
        rows[2][6]
    );
}

#[test]
fn ikev2_capture_is_deterministic() {
    let dir = TempDir::new("pcap-handshake-same");
    let mut bytes = Vec::new();
    for name in ["a.pcapng", "b.pcapng"] {
        let p = dir.join(name);
        let out = common::oransim(&[
            "handshake",
            "--ke",
            "x25519+mlkem768",
            "--mtu",
            "576",
            "--pcap",
            p.to_str().unwrap(),
        ]);
        assert!(out.status.success());
        bytes.push((
            std::fs::read(&p).unwrap(),
            std::fs::read(dir.join(format!("{name}.ikev2_decryption_table"))).unwrap(),
        ));
    }
    assert_eq!(bytes[0], bytes[1]);
}

#[test]
fn pcap_refusals_name_the_flag_and_write_nothing() {
    let dir = TempDir::new("pcap-handshake-refused");
    let fifo = dir.join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let link = dir.join("link");
    std::os::unix::fs::symlink(dir.join("elsewhere"), &link).unwrap();
    for (target, protocol) in [
        (fifo.as_path(), "ikev2"),
        (link.as_path(), "ikev2"),
        (&*dir, "ikev2"),
        (&dir.join("x.pcapng"), "tls13"),
    ] {
        let out = common::oransim(&[
            "handshake",
            "--protocol",
            protocol,
            "--pcap",
            target.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{target:?}: {err}");
        assert!(err.contains("--pcap"), "{target:?}: {err}");
        assert!(out.stdout.is_empty(), "{target:?}: printed before refusing");
    }
    let mut left: Vec<String> = std::fs::read_dir(&*dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["fifo", "link"], "nothing written beside them");
}
