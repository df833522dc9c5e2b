//! `oransim run --pcap` of SCTP messages larger than the path MTU and of an IKEv2 storm,
//! checked by Debian's tshark (issue 37 items 6 and 7).
//!
//! - An `init e2` scenario (plaintext SCTP carrying E2AP) over a 576-byte MTU: fragments of one
//!   user message share its SSN and take consecutive TSNs, the first has B, the last E, the
//!   middle neither, a whole message both (RFC 9260 §6.9); tshark's SCTP reassembly puts each
//!   message back together and hands it to its E2AP dissector, which reads a RICindication;
//!   no frame is malformed and none has an expert error.
//! - An `init ric-restart --gnbs 3` storm: the capture holds every tunnel's IKE_SA_INIT and
//!   IKE_AUTH datagrams, and with the `FILE.ikev2_decryption_table` written beside it tshark
//!   decrypts each IKE_AUTH (its IDi and AUTH payloads are read inside the SK payload), with no
//!   malformed frame and no expert error.

use crate::common::{PI_ERROR, TempDir, oransim, tshark};
use std::path::Path;

/// Runs oransim with `args`, which must succeed; its stderr.
fn run_ok(args: &[&str]) -> String {
    let out = oransim(args);
    assert!(
        out.status.success(),
        "oransim {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stderr).unwrap()
}

/// Asserts the row has no malformed mark (column `malformed`) and no expert error (column
/// `severity`).
fn clean(row: &[String], malformed: usize, severity: usize) {
    let line = row.join("\t");
    assert!(row[malformed].is_empty(), "malformed: {line}");
    for sev in row[severity].split(',').filter(|s| !s.is_empty()) {
        assert!(
            sev.parse::<u64>().unwrap() < PI_ERROR,
            "expert error: {line}"
        );
    }
}

#[test]
fn sctp_fragments_reassemble_into_e2ap() {
    let Some(tshark) = tshark("pcap_messages::sctp_fragments_reassemble_into_e2ap") else {
        return;
    };
    let dir = TempDir::new("pcap-e2-frag");
    let init = dir.join("init.toml");
    run_ok(&[
        "init",
        "e2",
        "--gnbs",
        "2",
        "--suite",
        "none",
        "--load",
        "2Mbps",
        "--sizes",
        "195B,1425B,3000B",
        "--duration",
        "100ms",
        "--out",
        init.to_str().unwrap(),
    ]);
    // E2AP over plaintext SCTP (PPID 70), each gNB's link at a 576-byte MTU.
    let text = std::fs::read_to_string(&init).unwrap();
    assert!(text.contains("stack = \"eth/ipv4/sctp\""), "{text}");
    assert!(text.contains("length = \"1km\"\n"), "{text}");
    let text = text
        .replace(
            "stack = \"eth/ipv4/sctp\"",
            "stack = \"eth/ipv4/sctp/e2ap\"",
        )
        .replace("length = \"1km\"\n", "length = \"1km\"\nmtu = \"576B\"\n");
    let scenario = dir.join("e2.toml");
    std::fs::write(&scenario, text).unwrap();
    let pcap = dir.join("e2.pcapng");
    run_ok(&[
        "run",
        scenario.to_str().unwrap(),
        "--no-wall-clock",
        "--pcap",
        pcap.to_str().unwrap(),
    ]);
    let mut cmd = std::process::Command::new(&tshark);
    cmd.arg("-r").arg(&pcap).args([
        "-o",
        "sctp.reassembly:TRUE",
        "-o",
        "sctp.checksum:crc32c",
        // tshark 4.0 binds E2AP to SCTP port 37464, not to PPID 70: the flows' ports.
        "-d",
        "sctp.port==49152,e2ap",
        "-d",
        "sctp.port==49153,e2ap",
    ]);
    const FIELDS: &[&str] = &[
        "ip.src",
        "sctp.data_tsn_raw",
        "sctp.data_ssn",
        "sctp.data_b_bit",
        "sctp.data_e_bit",
        "frame.protocols",
        "e2ap.procedureCode",
        "sctp.data_payload_proto_id",
        "_ws.malformed",
        "_ws.expert.severity",
    ];
    let rows = crate::common::tshark_fields(cmd, FIELDS, ",");
    assert!(!rows.is_empty());
    // Per gNB: the message being reassembled (its SSN, last TSN, fragments so far).
    let mut open: std::collections::BTreeMap<String, Option<(u64, u64, usize)>> =
        Default::default();
    let mut last_ssn: std::collections::BTreeMap<String, u64> = Default::default();
    let (mut whole, mut fragmented, mut most) = (0, 0, 0);
    for r in &rows {
        clean(r, 8, 9);
        let line = r.join("\t");
        assert_eq!(r[7], "70", "E2AP's PPID: {line}");
        let tsn: u64 = r[1].parse().unwrap();
        let ssn: u64 = r[2].parse().unwrap();
        let (b, e) = (r[3] == "1", r[4] == "1");
        let e2ap = r[5].ends_with(":e2ap:e2ap") || r[5].ends_with(":e2ap");
        let state = open.entry(r[0].clone()).or_default();
        let count = match (*state, b) {
            (None, true) => {
                // A new message: the next SSN of its gNB.
                let prev = last_ssn.insert(r[0].clone(), ssn);
                if let Some(p) = prev {
                    assert_eq!(ssn, (p + 1) % 65536, "SSN per message: {line}");
                }
                1
            }
            (Some((s, t, n)), false) => {
                assert_eq!(ssn, s, "a fragment has its message's SSN: {line}");
                assert_eq!(tsn, t + 1, "fragments take consecutive TSNs: {line}");
                n + 1
            }
            _ => panic!("B bit out of place: {line}"),
        };
        if e {
            // The message is complete here: reassembled and read as an E2AP RICindication.
            assert!(e2ap, "not reassembled into E2AP: {line}");
            assert_eq!(r[6], "5", "RICindication: {line}");
            if count == 1 {
                whole += 1;
            } else {
                fragmented += 1;
                most = most.max(count);
            }
            *state = None;
        } else {
            assert!(!e2ap, "a fragment read as a whole message: {line}");
            *state = Some((ssn, tsn, count));
        }
    }
    assert!(open.values().all(Option::is_none), "a message left open");
    assert_eq!(open.len(), 2, "both gNBs' frames");
    // 195 B fits 576 B whole; 1425 B takes 3 fragments of 528 B room; 3000 B takes 6.
    assert!(
        whole > 0 && fragmented > 0,
        "{whole} whole, {fragmented} fragmented"
    );
    assert_eq!(most, 6);
}

#[test]
fn ike_storm_opens_decrypted() {
    let Some(tshark) = tshark("pcap_messages::ike_storm_opens_decrypted") else {
        return;
    };
    let dir = TempDir::new("pcap-storm");
    let scenario = dir.join("rr.toml");
    run_ok(&[
        "init",
        "ric-restart",
        "--gnbs",
        "3",
        "--out",
        scenario.to_str().unwrap(),
    ]);
    let pcap = dir.join("rr.pcapng");
    let stderr = run_ok(&[
        "run",
        scenario.to_str().unwrap(),
        "--no-wall-clock",
        "--summary",
        "--pcap",
        pcap.to_str().unwrap(),
    ]);
    let table = dir.join("rr.pcapng.ikev2_decryption_table");
    assert!(
        stderr.contains("rr.pcapng.ikev2_decryption_table"),
        "{stderr}"
    );
    // Each tunnel is its own IKE SA (issue 37 item 7): a row per tunnel, its own SPIs
    // (`oraI`/`oraR` and the tunnel's number) and keys.
    let text = std::fs::read_to_string(&table).unwrap();
    let cols: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(cols.len(), 3, "{text}");
    for (t, c) in cols.iter().enumerate() {
        assert_eq!(c[0], format!("6f72614900000{:03x}", t + 1), "{text}");
        assert_eq!(c[1], format!("6f72615200000{:03x}", t + 1), "{text}");
    }
    let keys: std::collections::BTreeSet<&str> = cols.iter().map(|c| c[2]).collect();
    assert_eq!(keys.len(), 3, "each tunnel its own SK_ei: {text}");
    let rows = dissect(&tshark, &pcap, &text);
    let (mut init, mut auth_requests, mut auth_responses) = (0, 0, 0);
    for r in &rows {
        clean(r, 3, 4);
        let payloads: Vec<&str> = r[2].split(',').collect();
        match (r[0].as_str(), r[1].as_str()) {
            ("34", _) => init += 1,
            // Decrypted: the initiator's IDi (35) and AUTH (39) are read inside SK (46).
            ("35", "0") => {
                assert!(
                    payloads.contains(&"46")
                        && payloads.contains(&"35")
                        && payloads.contains(&"39"),
                    "IKE_AUTH request not decrypted: {}",
                    r.join("\t")
                );
                auth_requests += 1;
            }
            ("35", "1") => {
                assert!(payloads.contains(&"36"), "IDr: {}", r.join("\t"));
                auth_responses += 1;
            }
            _ => panic!("unexpected frame: {}", r.join("\t")),
        }
    }
    // mlkem768 at MTU 1500: one datagram per message, each tunnel's request and response.
    assert_eq!((init, auth_requests, auth_responses), (6, 3, 3));
    // Without the table, nothing inside SK is read: the check above can fail.
    let plain = dissect(&tshark, &pcap, "");
    assert!(plain.iter().all(|r| !r[2].split(',').any(|p| p == "39")));
    // A capture without handshake flows leaves no table beside it (an earlier one is removed).
    let e2 = dir.join("e2.toml");
    run_ok(&[
        "init",
        "e2",
        "--gnbs",
        "1",
        "--duration",
        "10ms",
        "--out",
        e2.to_str().unwrap(),
    ]);
    run_ok(&[
        "run",
        e2.to_str().unwrap(),
        "--pcap",
        pcap.to_str().unwrap(),
    ]);
    assert!(!table.exists());
}

/// Exchange type, response flag, payload types, malformed, expert severities of every frame.
fn dissect(tshark: &Path, pcap: &Path, table: &str) -> Vec<Vec<String>> {
    let mut cmd = std::process::Command::new(tshark);
    cmd.arg("-r").arg(pcap);
    if !table.is_empty() {
        cmd.arg("-o")
            .arg(format!("uat:ikev2_decryption_table:{}", table.trim_end()));
    }
    crate::common::tshark_fields(
        cmd,
        &[
            "isakmp.exchangetype",
            "isakmp.flag_r",
            "isakmp.typepayload",
            "_ws.malformed",
            "_ws.expert.severity",
        ],
        ",",
    )
}
