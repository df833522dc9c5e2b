//! `oransim overhead --pcap` checked by tshark (issue 26): for each kind of stack the model
//! sizes, the binary writes a capture and its key files, and Debian's tshark, written by no
//! one here, reads them: no malformed packet, no expert error (with TCP, UDP and SCTP checksum
//! and ESP ICV checking on), every layer the stack names dissected, every length field equal to
//! `oransim overhead --format json`'s, the header counters per frame, and, with the ESP SA table
//! and the TLS key log oransim wrote, the payload found inside the decrypted ESP and TLS 1.3
//! frames (after the TLS opening, decrypted too). One tshark run per capture. VXLAN and
//! Geneve frames too (issue 36): the inner frame dissected through the overlay, on its port,
//! with a good outer UDP checksum, the VNI and Geneve's options as long as the model counts.

use crate::common::{PI_ERROR, TempDir, json, oransim, python_script, scapy, tshark};
use std::collections::HashMap;
use std::path::Path;

/// The payload pattern (`live::frames::PATTERN`) as tshark prints bytes.
const PATTERN_HEX: &str = "6f72616e73696d207061796c6f616420";

/// The VNI of every VXLAN and Geneve header a capture writes (`protocols::Ids`'s
/// default).
const VNI: u64 = 42;

/// Fields read from every frame.
const FIELDS: &[&str] = &[
    "frame.len",
    "frame.protocols",
    "_ws.malformed",
    "_ws.expert.severity",
    "_ws.expert.message",
    "ip.len",
    "ipv6.plen",
    "udp.length",
    "tcp.len",
    "tcp.hdr_len",
    "tcp.seq_raw",
    "sctp.chunk_length",
    "sctp.data_payload_proto_id",
    "esp.spi",
    "esp.sequence",
    "esp.pad_len",
    "esp.icv_good",
    "macsec.PN",
    "ecpri.size",
    "vxlan.vni",
    "geneve.vni",
    "geneve.options",
    "udp.checksum.status",
    "tls.record.length",
    "tls.record.content_type",
    "tls.handshake.type",
    "data.data",
];

/// tshark's fields of every frame of `pcap`, with the SA table beside it loaded as Wireshark
/// loads its own (`esp_sa` in the configuration directory).
fn dissect(
    tshark: &Path,
    dir: &Path,
    pcap: &Path,
    ecpri_on_udp: bool,
) -> Vec<HashMap<&'static str, String>> {
    let config = dir.join("wireshark");
    std::fs::create_dir_all(&config).unwrap();
    let sa = pcap.with_file_name(format!(
        "{}.esp_sa",
        pcap.file_name().unwrap().to_string_lossy()
    ));
    let _ = std::fs::remove_file(config.join("esp_sa"));
    if sa.exists() {
        std::fs::copy(&sa, config.join("esp_sa")).unwrap();
    }
    let mut cmd = std::process::Command::new(tshark);
    cmd.env("WIRESHARK_CONFIG_DIR", &config)
        .arg("-r")
        .arg(pcap)
        .args([
            "-o",
            "esp.enable_encryption_decode:TRUE",
            "-o",
            "esp.enable_authentication_check:TRUE",
            "-o",
            "tcp.check_checksum:TRUE",
            "-o",
            "udp.check_checksum:TRUE",
            "-o",
            "sctp.checksum:crc32c",
            // Wireshark hands eCPRI IQ data to its O-RAN U-plane dissector, which would read
            // the pattern payload as a section header (docs/pcap.md).
            "--disable-protocol",
            "oran_fh_cus",
        ]);
    let keylog = pcap.with_file_name(format!(
        "{}.keylog",
        pcap.file_name().unwrap().to_string_lossy()
    ));
    if keylog.exists() {
        // Decrypted TLS on port 443 would go to the HTTP dissector: the payload is not HTTP.
        cmd.arg("-o")
            .arg(format!("tls.keylog_file:{}", keylog.display()))
            .args(["--disable-protocol", "http"]);
    }
    if ecpri_on_udp {
        // eCPRI has no assigned UDP port; the capture puts it on 50000.
        cmd.args(["-d", "udp.port==50000,ecpri"]);
    }
    crate::common::tshark_fields(cmd, FIELDS, ",")
        .into_iter()
        .map(|cols| FIELDS.iter().copied().zip(cols).collect())
        .collect()
}

/// One stack's capture case.
struct Case {
    stack: &'static str,
    payload: usize,
    mtu: Option<usize>,
    /// Whether tshark sees inside every security layer (an ESP SA it decrypts, MACsec
    /// integrity only); otherwise the layers above the first one it cannot open are opaque.
    opened: bool,
}

const fn case(stack: &'static str, payload: usize, mtu: Option<usize>, opened: bool) -> Case {
    Case {
        stack,
        payload,
        mtu,
        opened,
    }
}

/// tshark's protocol name and the length fields it shows of a layer, from the layer's JSON
/// (`header`, `padding`, `inner`, `total`).
fn expected_fields(layer: &serde_json::Value) -> (Option<&'static str>, Vec<(&'static str, u64)>) {
    let text = layer["layer"].as_str().unwrap();
    let n = |k: &str| layer[k].as_u64().unwrap();
    let name = text.split('(').next().unwrap();
    match name {
        "eth" => (Some("eth"), vec![]),
        "macsec" => (Some("macsec"), vec![]),
        "ipv4" => (Some("ip"), vec![("ip.len", n("total"))]),
        "ipv6" => (Some("ipv6"), vec![("ipv6.plen", n("total") - 40)]),
        "udp" => (Some("udp"), vec![("udp.length", n("total"))]),
        "tcp" => (
            Some("tcp"),
            vec![("tcp.len", n("inner")), ("tcp.hdr_len", n("header"))],
        ),
        "sctp" => (
            Some("sctp"),
            vec![("sctp.chunk_length", n("header") - 12 + n("inner"))],
        ),
        "esp-tunnel" | "esp-transport" => (Some("esp"), vec![("esp.pad_len", n("padding"))]),
        "ecpri" => (Some("ecpri"), vec![("ecpri.size", n("total") - 4)]),
        "tls13" | "tls12" => (Some("tls"), vec![("tls.record.length", n("total") - 5)]),
        "e2ap" => (None, vec![]),
        "ssh" => (Some("ssh"), vec![]),
        "vxlan" => (Some("vxlan"), vec![("vxlan.vni", VNI)]),
        // Geneve's VNI prints in hex and its options as bytes: checked in `check`.
        "geneve" => (Some("geneve"), vec![]),
        other => panic!("no tshark fields for layer {other}"),
    }
}

fn check(tshark: &Path, dir: &TempDir, c: &Case) {
    let pcap = dir.join("f.pcapng");
    let payload = c.payload.to_string();
    let mtu = c.mtu.map(|m| m.to_string());
    let mut args = vec!["overhead", "--stack", c.stack, "--payload", &payload];
    if let Some(m) = &mtu {
        args.extend(["--mtu", m]);
    }
    let json_args = [&args[..], &["--format", "json"]].concat();
    let report = json(&json_args);
    let payloads: Vec<u64> = match report["split"]["frames"].as_array() {
        Some(frames) => frames
            .iter()
            .map(|f| f["payload"].as_u64().unwrap())
            .collect(),
        None => vec![c.payload as u64],
    };
    let pcap_arg = pcap.to_string_lossy().to_string();
    let out = oransim(&[&args[..], &["--pcap", &pcap_arg]].concat());
    assert!(
        out.status.success(),
        "{}: {}",
        c.stack,
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("wrote {pcap_arg}")), "{stderr}");
    let frames = dissect(tshark, dir, &pcap, c.stack.contains("udp/ecpri"));
    // A TLS layer with nothing sealing under it: the capture opens the connection first
    // (TLS 1.3 in 4 frames, TLS 1.2 in 3).
    let sealed_below = c.stack.contains("esp") || c.stack.contains("macsec");
    let opening = match (c.stack.contains("tls13"), c.stack.contains("tls12")) {
        _ if sealed_below => 0,
        (true, _) => 4,
        (_, true) => 3,
        _ => 0,
    };
    assert_eq!(
        frames.len(),
        opening + payloads.len(),
        "{}: the opening, then one frame per payload",
        c.stack
    );
    let mut tcp_seq = 1u64;
    for (k, f) in frames[..opening].iter().enumerate() {
        let at = format!("{} opening frame {k}", c.stack);
        assert!(f["_ws.malformed"].is_empty(), "{at}: {f:?}");
        for s in f["_ws.expert.severity"]
            .split(',')
            .filter(|s| !s.is_empty())
        {
            let sev: u64 = s.parse().unwrap();
            assert!(
                sev < PI_ERROR,
                "{at}: expert error: {}",
                f["_ws.expert.message"]
            );
        }
        // ClientHello, ServerHello, then the encrypted messages, decrypted with the key log.
        let want = if opening == 4 {
            ["1", "2", "8,20", "20"][k]
        } else {
            ["1", "2", "20"][k]
        };
        assert_eq!(f["tls.handshake.type"], want, "{at}");
        if (k == 0 || k == opening - 1) && !f["tcp.len"].is_empty() {
            tcp_seq += f["tcp.len"].parse::<u64>().unwrap();
        }
    }
    let frames = &frames[opening..];
    let opened_counter = opening;
    let mut layers_of: HashMap<u64, serde_json::Value> = HashMap::new();
    for (k, (f, &p)) in frames.iter().zip(&payloads).enumerate() {
        let at = format!("{} frame {k} ({p} B payload)", c.stack);
        let r = layers_of.entry(p).or_insert_with(|| {
            json(&[
                "overhead",
                "--stack",
                c.stack,
                "--payload",
                &p.to_string(),
                "--format",
                "json",
            ])
        });
        assert_eq!(f["frame.len"], r["wire_len"].to_string(), "{at}");
        assert!(f["_ws.malformed"].is_empty(), "{at}: {f:?}");
        for s in f["_ws.expert.severity"]
            .split(',')
            .filter(|s| !s.is_empty())
        {
            let sev: u64 = s.parse().unwrap();
            assert!(
                sev < PI_ERROR,
                "{at}: expert error: {}",
                f["_ws.expert.message"]
            );
        }
        // Layers tshark dissects: all of them, or up to the first it cannot open.
        let layers = r["layers"].as_array().unwrap();
        let visible = if c.opened {
            layers.len()
        } else {
            1 + layers
                .iter()
                .position(|l| {
                    let t = l["layer"].as_str().unwrap();
                    t.starts_with("esp") || t.starts_with("macsec") || t.starts_with("ssh")
                })
                .expect("an opaque case has a security layer")
        };
        let protocols: Vec<&str> = f["frame.protocols"].split(':').collect();
        let mut next = 0;
        let mut want: HashMap<&str, Vec<String>> = HashMap::new();
        for l in &layers[..visible] {
            let (proto, fields) = expected_fields(l);
            if let Some(proto) = proto {
                let found = protocols[next..].iter().position(|&x| x == proto);
                assert!(
                    found.is_some(),
                    "{at}: `{}` not dissected as {proto} in {}",
                    l["layer"],
                    f["frame.protocols"]
                );
                next += found.unwrap() + 1;
            }
            for (field, v) in fields {
                let is_esp = field == "esp.pad_len";
                let tfc = l["layer"].as_str().unwrap().contains("tfc=");
                // ESP's padding is only seen once decrypted, and with TFC it holds TFC bytes too.
                if !(is_esp && (!c.opened || tfc)) {
                    want.entry(field).or_default().push(v.to_string());
                }
            }
        }
        for (field, v) in &want {
            assert_eq!(f[field], v.join(","), "{at}: {field}");
        }
        // Geneve: the VNI, and options as long as the model counts them (its header less 8).
        if let Some(g) = layers[..visible]
            .iter()
            .find(|l| l["layer"].as_str().unwrap().starts_with("geneve"))
        {
            assert_eq!(f["geneve.vni"], format!("{VNI:#08x}"), "{at}");
            let options = g["header"].as_u64().unwrap() - 8;
            assert_eq!(
                f["geneve.options"].len() as u64,
                2 * options,
                "{at}: options"
            );
        }
        // An overlay's outer UDP carries a checksum, and it is right (1: good).
        if layers.iter().any(|l| {
            let t = l["layer"].as_str().unwrap();
            t.starts_with("vxlan") || t.starts_with("geneve")
        }) {
            assert_eq!(
                f["udp.checksum.status"].split(',').next(),
                Some("1"),
                "{at}"
            );
        }
        // Header counters as the model fills them: per frame from 1.
        let counter = (opened_counter + k + 1).to_string();
        for field in ["esp.sequence", "macsec.PN"] {
            for v in f[field].split(',').filter(|v| !v.is_empty()) {
                assert_eq!(v, counter, "{at}: {field}");
            }
        }
        if c.opened && !f["esp.spi"].is_empty() {
            assert_eq!(f["esp.icv_good"].split(',').next(), Some("1"), "{at}: ICV");
        }
        if !f["tcp.seq_raw"].is_empty() {
            assert_eq!(f["tcp.seq_raw"], tcp_seq.to_string(), "{at}: TCP sequence");
            tcp_seq += f["tcp.len"].parse::<u64>().unwrap();
        }
        if !f["tls.record.length"].is_empty() {
            assert_eq!(f["tls.record.content_type"], "23", "{at}: application_data");
        }
        // The payload itself, where the top layer carries it bare or in TLS records the key
        // log opens (not in eCPRI).
        let top = c.stack.rsplit('/').next().unwrap();
        let bare = ["udp", "tcp", "sctp", "e2ap"]
            .iter()
            .any(|t| top.starts_with(t))
            || (top.starts_with("tls1") && opening > 0);
        if c.opened && p > 0 && bare {
            assert!(
                f["data.data"].starts_with(&PATTERN_HEX[..(2 * p as usize).min(32)]),
                "{at}: the payload not found: {}",
                f["data.data"]
            );
        }
    }
}

#[test]
fn esp_captures_dissect_decrypt_and_match_the_model() {
    let Some(tshark) = tshark("esp_captures_dissect_decrypt_and_match_the_model") else {
        return;
    };
    let dir = TempDir::new("pcap-esp");
    for c in [
        // CBC + HMAC (the papers' suite), tunnel, SCTP DATA carrying E2AP, split at 1500 B.
        case(
            "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp/e2ap",
            3000,
            Some(1500),
            true,
        ),
        // AES-GCM in UDP encapsulation, the inner eCPRI on UDP.
        case(
            "eth/ipv4/udp/esp-tunnel(aes128-gcm-16)/ipv4/udp/ecpri",
            3000,
            Some(1500),
            true,
        ),
        // Transport mode over IPv6 with TCP timestamps.
        case(
            "eth/ipv6/esp-transport(aes256-gcm-16)/tcp(ts)",
            4000,
            Some(1500),
            true,
        ),
        // No Ethernet: raw IP frames; SHA-1.
        case(
            "ipv4/esp-transport(aes128-cbc,hmac-sha1-96)/udp",
            100,
            None,
            true,
        ),
        // NULL encryption, an 8-byte GCM ICV, IPv6 extension headers, SCTP I-DATA, TFC.
        case(
            "eth/ipv4/esp-tunnel(null,hmac-sha512-256)/ipv6(ext=16)/sctp(idata)",
            700,
            None,
            true,
        ),
        case(
            "eth/ipv4/esp-tunnel(aes192-cbc,hmac-sha384-192,tfc=300)/ipv4/udp",
            100,
            None,
            true,
        ),
        case(
            "eth/ipv6/esp-tunnel(aes256-gcm-8)/ipv6/tcp",
            1000,
            None,
            true,
        ),
        // ChaCha20-Poly1305 and GMAC: sealed, but Wireshark 4.0 does not decrypt them.
        case(
            "eth/ipv4/esp-tunnel(chacha20-poly1305)/ipv4/udp",
            2000,
            Some(1500),
            false,
        ),
        case("eth/ipv4/esp-transport(aes128-gmac)/udp", 200, None, false),
    ] {
        check(&tshark, &dir, &c);
    }
}

#[test]
fn macsec_tls_ecpri_sctp_captures_dissect_and_match_the_model() {
    let Some(tshark) = tshark("macsec_tls_ecpri_sctp_captures_dissect_and_match_the_model") else {
        return;
    };
    let dir = TempDir::new("pcap-other");
    for c in [
        // MACsec integrity only: the frame is clear and dissected through.
        case(
            "eth/macsec(gcm-aes-128,integrity)/ipv4/udp/ecpri",
            3000,
            Some(1500),
            true,
        ),
        // MACsec encrypted: opaque above the SecTAG.
        case(
            "eth/macsec(gcm-aes-256,encrypt)/ecpri(iq)",
            3000,
            Some(1500),
            false,
        ),
        case(
            "eth/macsec(gcm-aes-128,encrypt,no-sci)/ipv6/udp",
            100,
            None,
            false,
        ),
        // TLS 1.3 records over TCP (timestamps) and over SCTP, after the connection's opening.
        case("eth/ipv4/tcp(ts)/tls13(aes128-gcm)", 5000, Some(1500), true),
        case("eth/ipv6/tcp/tls13(chacha20-poly1305)", 1000, None, true),
        case("eth/ipv4/sctp/tls13(aes256-gcm)", 1000, None, true),
        // TLS 1.2 AEAD records, after a ClientHello, ServerHello, ChangeCipherSpec + Finished.
        case("eth/ipv4/tcp(ts)/tls12(aes128-gcm)", 3000, Some(1500), true),
        case("eth/ipv6/tcp/tls12(chacha20-poly1305)", 1000, None, true),
        case("eth/ipv4/tcp/tls12(aes256-gcm)", 500, None, true),
        // SSH AES-GCM binary packets: sealed; Wireshark needs the key exchange to open them.
        case("eth/ipv4/tcp/ssh(aes128-gcm)", 3000, Some(1500), false),
        case("eth/ipv6/tcp(ts)/ssh(aes256-gcm,raw)", 100, None, false),
        // eCPRI on Ethernet, SCTP SACK with gap blocks and duplicates, plain transports.
        case("eth/ecpri(iq)", 3000, Some(1500), true),
        case("eth/ipv4/sctp(sack,gaps=2,dups=1)", 0, None, true),
        case("eth/ipv6/udp", 3000, Some(1500), true),
        case("eth/ipv4/tcp(options=8)", 100, None, true),
        case("ipv6(ext=8)/sctp/e2ap", 50, None, true),
    ] {
        check(&tshark, &dir, &c);
    }
}

/// VXLAN and Geneve (issue 36): inner Ethernet frames (and an IP packet in Geneve) through
/// the overlay, split to a 1500-byte outer MTU that counts the inner Ethernet header, with
/// Geneve options from none to the 252-byte maximum, and ESP, MACsec and TLS 1.3 around or
/// inside the overlay.
#[test]
fn overlay_captures_dissect_and_match_the_model() {
    let Some(tshark) = tshark("overlay_captures_dissect_and_match_the_model") else {
        return;
    };
    let dir = TempDir::new("pcap-overlay");
    for c in [
        // An OpenStack tenant network: VXLAN over IPv4, the tenant's UDP inside.
        case("eth/ipv4/udp/vxlan/eth/ipv4/udp", 3000, Some(1500), true),
        case("eth/ipv6/udp/vxlan/eth/ipv6/tcp(ts)", 500, None, true),
        case(
            "eth/ipv4/udp/vxlan/eth/ipv4/tcp/tls13(aes128-gcm)",
            2000,
            Some(1500),
            true,
        ),
        case("eth/ipv4/udp/geneve/eth/ipv4/udp", 100, None, true),
        case(
            "eth/ipv4/udp/geneve(opts=8)/eth/ipv4/udp",
            3000,
            Some(1500),
            true,
        ),
        case(
            "eth/ipv6/udp/geneve(options=252)/ipv4/sctp/e2ap",
            2000,
            Some(1500),
            true,
        ),
        case(
            "eth/ipv4/udp/geneve(options=12)/eth/ipv4/udp/esp-tunnel(aes128-gcm-16)/ipv4/udp",
            2000,
            Some(1500),
            true,
        ),
        case(
            "eth/macsec(gcm-aes-128,integrity)/ipv6/udp/vxlan/eth/ecpri(iq)",
            2000,
            Some(1500),
            true,
        ),
    ] {
        check(&tshark, &dir, &c);
    }
}

/// Builds with scapy, written by no one here, the frames of a VXLAN or Geneve stack as
/// `overhead --pcap` writes them (the capture's addresses, ports and VNI; the payload pattern),
/// and prints, per frame of the capture given, `GOT_HEX WANT_HEX`. Lengths, checksums, the
/// EtherTypes and Geneve's Protocol Type, IP protocol numbers and the overlay's UDP destination
/// port are left to scapy (its bindings: UDP/VXLAN 4789, UDP/GENEVE 6081). Given: the IPv4
/// identification 0 and DF, UDP checksum 0 over IPv4 outside an overlay (oransim's choices);
/// VXLAN's flags 0x08 (RFC 7348: scapy's build binding of Ether on VXLAN writes VXLAN-GPE's P
/// bit and Next Protocol, flags 0x0c); Geneve's Opt Len, which scapy 2.5 computes with a wrong
/// mask (`& 0x2f`) from 16 words on; the options are stand-ins of class 0xFFFF, type 1, at
/// most 128 bytes each.
/// Usage: `python3 - STACK PCAP LEN,LEN,...`.
const SCAPY_FRAMES: &str = r#"
import sys
from scapy.layers.l2 import Ether
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.vxlan import VXLAN
from scapy.contrib.geneve import GENEVE, GeneveOptions
from scapy.packet import Raw
from scapy.utils import RawPcapNgReader

stack, path, sizes = sys.argv[1], sys.argv[2], [int(n) for n in sys.argv[3].split(",")]
names = stack.split("/")

def geneve(name):
    options = int(name.split("=")[1].rstrip(")")) if "=" in name else 0
    opts, left = [], options
    while left:
        size = min(left, 128)
        opts.append(GeneveOptions(classid=0xFFFF, type=1, data=bytes(size - 4)))
        left -= size
    return GENEVE(vni=42, optionlen=options // 4, options=opts)

def frame(n):
    pkt = None
    for i, name in enumerate(names):
        above = names[i + 1] if i + 1 < len(names) else ""
        below = names[i - 1] if i else ""
        if name == "eth":
            layer = Ether(dst="02:00:00:00:00:03", src="02:00:00:00:00:02")
        elif name == "ipv4":
            layer = IP(src="127.0.0.2", dst="127.0.0.3", id=0, flags="DF", ttl=64)
        elif name == "ipv6":
            layer = IPv6(src="2001:db8::2", dst="2001:db8::3", hlim=64)
        elif name == "udp" and (above.startswith("vxlan") or above.startswith("geneve")):
            layer = UDP(sport=49152)
        elif name == "udp":
            layer = UDP(sport=49152, dport=50000, chksum=0 if below == "ipv4" else None)
        elif name == "vxlan":
            layer = VXLAN(flags=0x08, vni=42)
        elif name.startswith("geneve"):
            layer = geneve(name)
        else:
            sys.exit("no scapy layer for " + name)
        pkt = layer if pkt is None else pkt / layer
    return bytes(pkt / Raw((b"oransim payload " * (n // 16 + 1))[:n]))

got = [p[0] for p in RawPcapNgReader(path)]
if len(got) != len(sizes):
    sys.exit("%d frames in the capture, %d payloads" % (len(got), len(sizes)))
for raw, n in zip(got, sizes):
    print(raw.hex(), frame(n).hex())
"#;

/// Issue 36: the frames `overhead --pcap` writes for VXLAN and Geneve stacks are byte for byte
/// the frames scapy builds (outer UDP port and checksum, VXLAN flags and VNI, Geneve's version,
/// Opt Len, Protocol Type and options, inner frame), for payloads around the checksum's odd
/// byte and a split at a 1500-byte MTU.
#[test]
fn overlay_frames_are_scapy_s_bytes() {
    let Some(python) = scapy("overlay_frames_are_scapy_s_bytes") else {
        return;
    };
    let dir = TempDir::new("pcap-scapy");
    let pcap = dir.join("f.pcapng");
    let pcap_arg = pcap.to_string_lossy().to_string();
    let mut frames = 0;
    for stack in [
        "eth/ipv4/udp/vxlan/eth/ipv4/udp",
        "eth/ipv6/udp/vxlan/eth/ipv6/udp",
        "eth/ipv4/udp/vxlan/eth/ipv6/udp",
        "eth/ipv4/udp/geneve/eth/ipv4/udp",
        "eth/ipv4/udp/geneve(options=8)/eth/ipv4/udp",
        "eth/ipv6/udp/geneve(options=252)/ipv4/udp",
        "eth/ipv4/udp/geneve(options=124)/ipv6/udp",
    ] {
        for (payload, mtu) in [
            ("0", None),
            ("1", None),
            ("101", None),
            ("3000", Some("1500")),
        ] {
            let mut args = vec!["overhead", "--stack", stack, "--payload", payload];
            if let Some(m) = mtu {
                args.extend(["--mtu", m]);
            }
            let report = json(&[&args[..], &["--format", "json"]].concat());
            let sizes: Vec<String> = match report["split"]["frames"].as_array() {
                Some(f) => f.iter().map(|f| f["payload"].to_string()).collect(),
                None => vec![payload.to_string()],
            };
            let out = oransim(&[&args[..], &["--pcap", &pcap_arg]].concat());
            assert!(
                out.status.success(),
                "{stack}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let lines = python_script(&python, SCAPY_FRAMES, &[stack, &pcap_arg, &sizes.join(",")]);
            assert_eq!(lines.lines().count(), sizes.len(), "{stack}: {lines}");
            for (k, line) in lines.lines().enumerate() {
                let (got, want) = line.split_once(' ').unwrap();
                let first = got
                    .as_bytes()
                    .chunks(2)
                    .zip(want.as_bytes().chunks(2))
                    .position(|(a, b)| a != b);
                assert!(
                    got == want,
                    "{stack} payload {payload} frame {k}: first difference at byte {first:?}\n \
                     oransim {got}\n scapy   {want}"
                );
                frames += 1;
            }
        }
    }
    assert_eq!(frames, 7 * (3 + 3));
}

/// Same command, same bytes: the keys and IVs are fixed, nothing depends on the clock. And a
/// key file an earlier capture left at the path is not left beside a capture it does not fit.
#[test]
fn captures_are_deterministic() {
    let dir = TempDir::new("pcap-same");
    let mut bytes = Vec::new();
    for name in ["a.pcapng", "b.pcapng"] {
        let path = dir.join(name).to_string_lossy().to_string();
        let out = oransim(&[
            "overhead",
            "--stack",
            "eth/macsec(gcm-aes-128,encrypt)/ipv4/udp/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/tcp/tls13(aes128-gcm)",
            "--payload",
            "5000",
            "--mtu",
            "1500",
            "--pcap",
            &path,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        bytes.push([
            std::fs::read(&path).unwrap(),
            std::fs::read(format!("{path}.esp_sa")).unwrap(),
            std::fs::read(format!("{path}.keys")).unwrap(),
        ]);
    }
    assert_eq!(bytes[0], bytes[1]);
    // A capture of another stack at the same path removes the key files it does not use.
    let path = dir.join("a.pcapng").to_string_lossy().to_string();
    let out = oransim(&["overhead", "--stack", "eth/ipv4/udp", "--pcap", &path]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("removed {path}.esp_sa")), "{err}");
    for ext in ["esp_sa", "keys", "keylog"] {
        assert!(!Path::new(&format!("{path}.{ext}")).exists(), "{ext}");
    }
}

/// Refusals name `--pcap`, exit 2 and write nothing: a target that is not a regular file, a
/// layer that is not written or sealed, a catalogue row or a fragmentation method.
#[test]
fn bad_pcap_targets_and_stacks_are_refused_and_nothing_is_written() {
    let dir = TempDir::new("pcap-refused");
    let fifo = dir.join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let target = dir.join("real");
    std::fs::write(&target, "keep").unwrap();
    let link = dir.join("link");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let sub = dir.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let esp = "eth/ipv4/esp-tunnel(aes128-gcm-16)/ipv4/udp";
    let new = dir.join("new.pcapng").to_string_lossy().to_string();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![esp.into(), fifo.to_string_lossy().into()], "FIFO"),
        (
            vec![esp.into(), link.to_string_lossy().into()],
            "symbolic link",
        ),
        (vec![esp.into(), sub.to_string_lossy().into()], "directory"),
        (
            vec!["eth/ipv4/tcp/ssh(chacha20-poly1305)".into(), new.clone()],
            "ssh",
        ),
        (
            vec![
                "eth/ipv4/tcp/tls12(aes128-cbc,hmac-sha256)".into(),
                new.clone(),
            ],
            "tls12",
        ),
        (
            vec![
                "eth/ipv4/esp-tunnel(aes128-ccm-16)/ipv4/udp".into(),
                new.clone(),
            ],
            "ccm",
        ),
        (
            vec![
                "eth/macsec(gcm-aes-xpn-128,encrypt)/ecpri".into(),
                new.clone(),
            ],
            "xpn",
        ),
    ];
    for (v, why) in &cases {
        let out = oransim(&[
            "overhead",
            "--stack",
            &v[0],
            "--payload",
            "100",
            "--pcap",
            &v[1],
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{why}: {err}");
        assert!(err.contains("--pcap") && err.contains(why), "{why}: {err}");
    }
    for extra in [
        vec!["--interface", "E2"],
        vec!["--stack", esp, "--mtu", "1500", "--ip-fragment"],
        vec!["--stack", esp, "--mtu", "1500", "--ipsec-fragment", "after"],
    ] {
        let out = oransim(&[&["overhead"][..], &extra, &["--pcap", &new]].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("--pcap"), "{err}");
    }
    // Nothing written: no capture, no key file, no temporary file, the link's target intact.
    let mut left: Vec<String> = std::fs::read_dir(&*dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["fifo", "link", "real", "sub"]);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    assert_eq!(std::fs::read_dir(&sub).unwrap().count(), 0);
}
