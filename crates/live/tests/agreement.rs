//! One protected length (issue 15): the engine's charged length (`model::scenario::
//! protected_len`, which fills every flow's `protected_len` pairs the profile costs are
//! evaluated at), the pairs a loaded scenario really holds, live's sealed bytes and
//! `protocols::Stack::protected_len` agree: for every stack in `scenarios/*.toml`, Table 4's
//! frame, live's protections, and a few hundred random stacks from a seeded generator over the
//! stack grammar; and reproduce's frames (`evidence::reproduce::frame_len`, Table 4's among them)
//! are charged at the same length.

use std::path::{Path, PathBuf};

use live::Protection;
use protocols::{Ids, Stack};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The engine's charged length, reproduce's frame and protocols' agree for `payload`.
fn engine_agrees(stack: &Stack, payload: usize) {
    let want = stack.protected_len(payload).unwrap();
    let engine = model::scenario::protected_len(stack, payload as u32);
    assert_eq!(engine.map(|l| l as usize), want, "{stack} {payload} B");
    let frame = evidence::reproduce::frame_len(&stack.to_string(), payload).unwrap();
    let wire = stack.wire_len(payload).unwrap();
    assert_eq!(frame.wire as usize, wire, "{stack} {payload} B");
    assert_eq!(
        frame.protected as usize,
        want.unwrap_or(wire),
        "{stack} {payload} B"
    );
}

/// The `stack = "..."` texts of a scenario file.
fn stacks_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut rest = line;
        while let Some(i) = rest.find("stack = \"") {
            rest = &rest[i + 9..];
            if let Some(end) = rest.find('"') {
                out.push(rest[..end].to_string());
                rest = &rest[end..];
            }
        }
    }
    out
}

#[test]
fn every_scenario_stack_and_every_loaded_flow_agree() {
    let mut files: Vec<_> = std::fs::read_dir(root().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut secured = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let stacks: Vec<Stack> = stacks_in(&text)
            .iter()
            .map(|t| t.parse().unwrap())
            .collect();
        for st in &stacks {
            for p in (0..=1600).step_by(7).chain([7660, 8192, 8972, 9000]) {
                if st.wire_len(p).is_ok() {
                    engine_agrees(st, p);
                }
            }
        }
        // Every (wire, protected) pair the engine will charge comes from one payload of one
        // of the file's stacks through the one definition.
        let sc = model::Scenario::load(&path).unwrap();
        for flow in &sc.network.flows {
            for &(wire, prot) in &flow.protected_len {
                secured += 1;
                let found = stacks.iter().any(|st| {
                    (0..=wire as usize).any(|p| {
                        st.wire_len(p).ok() == Some(wire as usize)
                            && st.protected_len(p).ok().flatten() == Some(prot as usize)
                    })
                });
                assert!(found, "{}: pair ({wire}, {prot})", path.display());
            }
        }
    }
    assert!(secured > 0, "some scenario charges a protected length");
}

#[test]
fn table4_frame_is_7666_bytes_of_cipher_input() {
    // Issue 15: 7664 (engine), 7678 (reproduce) and 7666 (live) disagreed before.
    let st: Stack = "eth/macsec(gcm-aes-128,encrypt)/ecpri".parse().unwrap();
    assert_eq!(st.protected_len(7660).unwrap(), Some(7666));
    engine_agrees(&st, 7660);
}

/// Live's datagrams, sealed for real: the bytes the cipher processed, counted from the
/// datagram itself by the standards' layouts, are the charged length of live's own stack and
/// of the Ethernet stack the engine would be given for the same protection.
#[test]
fn live_sealed_bytes_are_the_charged_length() {
    for p in Protection::ALL {
        let (mut sealer, mut opener) = live::security_association(p, 5).unwrap();
        let link: Stack = p.link_stack().unwrap();
        let mut out = Vec::new();
        for n in (0..=300).chain([1400, 1472, 8000]) {
            let payload: Vec<u8> = (0..n).map(|i| (i * 7) as u8).collect();
            sealer.seal(&payload, &mut out).unwrap();
            let len = out.len();
            assert_eq!(len, p.datagram_len(n).unwrap(), "{p} {n}");
            let processed = match p {
                Protection::Plain => 0,
                // SPI 4 + sequence 4 + IV 8 | body | ICV 16: AES-GCM encrypts the body.
                Protection::EspGcm => len - 8 - 8 - 16,
                // The CBC input before ESP padding: the inner packet, read from the trailer
                // once the datagram is opened (below).
                Protection::EspCbc => usize::MAX,
                // DA 6 + SA 6 + SecTAG 16 | EtherType + data | ICV 16.
                Protection::Macsec => len - 12 - 16 - 16,
                // GMAC authenticates everything before the ICV.
                Protection::MacsecIntegrity => len - 16,
                // Header 5 | content + type | tag 16.
                Protection::Tls13 => len - 5 - 16,
            };
            let mut copy = out.clone();
            assert_eq!(opener.open(&mut copy).unwrap(), &payload[..], "{p} {n}");
            let processed = if p == Protection::EspCbc {
                // Decrypted in place: SPI, sequence, IV 16, body, ICV 16.
                let body = &copy[8 + 16..len - 16];
                let pad = usize::from(body[body.len() - 2]);
                body.len() - 2 - pad
            } else {
                processed
            };
            assert_eq!(processed, p.cipher_len(n).unwrap(), "{p} {n}");
            let engine = model::scenario::protected_len(&link, n as u32).unwrap_or(0);
            assert_eq!(engine as usize, processed, "{p} {n}: engine on {link}");
        }
    }
}

/// splitmix64: a small deterministic generator, so the random stacks are the same every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[(self.next() % from.len() as u64) as usize]
    }
}

const ESP: &[&str] = &[
    "aes128-gcm-16",
    "aes256-gcm-8",
    "aes192-ccm-12",
    "chacha20-poly1305",
    "aes128-gmac",
    "aes256-cbc,hmac-sha256-128",
    "aes128-cbc,hmac-sha1-96",
    "null,hmac-sha512-256",
    "aes128-gcm-16,tfc=200",
];
const MACSEC: &[&str] = &[
    "gcm-aes-128,encrypt",
    "gcm-aes-256,integrity",
    "gcm-aes-xpn-128,encrypt,no-sci",
    "gcm-aes-128,encrypt,offset=30",
    "gcm-aes-256,encrypt,offset=50",
];
const TOP: &[&str] = &[
    "udp",
    "udp/ecpri",
    "tcp",
    "tcp(ts)/tls13(aes128-gcm)",
    "tcp/tls12(aes256-cbc,hmac-sha256)",
    "tcp/ssh(aes128-gcm)",
    "udp/dtls13(chacha20-poly1305)",
    "sctp",
    "sctp(sack)",
    "sctp/e2ap",
];

/// A random stack from the grammar: layer 2 (or none), an IP layer, maybe ESP in one of its
/// placements, and a transport with maybe an application layer.
fn random_stack(rng: &mut Rng) -> String {
    let l2 = match rng.next() % 5 {
        0 => String::new(),
        1 => "eth/".into(),
        2 => "eth/vlan/".into(),
        _ => format!("eth/macsec({})/", rng.pick(MACSEC)),
    };
    if !l2.is_empty() && rng.next().is_multiple_of(6) {
        return format!("{l2}ecpri");
    }
    let ip = rng.pick(&["ipv4", "ipv6"]);
    let esp = match rng.next() % 4 {
        0 => format!(
            "/esp-tunnel({})/{}",
            rng.pick(ESP),
            rng.pick(&["ipv4", "ipv6"])
        ),
        1 => format!("/udp/esp-tunnel({})/ipv4", rng.pick(ESP)),
        2 => {
            let s = rng.pick(ESP);
            if s.contains("tfc") {
                String::new()
            } else {
                format!("/esp-transport({s})")
            }
        }
        _ => String::new(),
    };
    format!("{l2}{ip}{esp}/{}", rng.pick(TOP))
}

#[test]
fn random_stacks_agree() {
    let mut rng = Rng(15);
    let mut checked = 0;
    let mut emitted = 0;
    let mut frame = Vec::new();
    while checked < 400 {
        let text = random_stack(&mut rng);
        let st: Stack = text
            .parse()
            .unwrap_or_else(|e| panic!("generator made `{text}`: {e}"));
        checked += 1;
        for _ in 0..4 {
            let p = (rng.next() % 3000) as usize;
            if st.wire_len(p).is_err() {
                continue; // e.g. a SACK carries no payload
            }
            engine_agrees(&st, p);
            let Some(prot) = st.protected(p).unwrap() else {
                continue;
            };
            // The cipher's input is part of the frame.
            assert!(
                prot.encrypted + prot.authenticated <= st.wire_len(p).unwrap(),
                "{text} {p}"
            );
            // Where the bytes can be written, the regions the cipher works on are exactly
            // the counted lengths.
            if let Ok(e) = st.emit(0, &vec![1; p], &Ids::default(), &mut frame) {
                emitted += 1;
                assert_eq!(frame.len(), st.wire_len(p).unwrap(), "{text} {p}");
                let s = &e.sealing[0];
                assert_eq!(s.encrypted.len(), prot.encrypted, "{text} {p}");
                assert_eq!(s.aad.len(), prot.authenticated, "{text} {p}");
            }
        }
    }
    assert!(emitted > 100, "only {emitted} frames written");
}
