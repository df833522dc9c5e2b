//! Property tests of the size models (issue 14, "Tools, not only tests"): random stacks from
//! the stack grammar and random payloads, checked against the bytes `Stack::emit` writes, the
//! real RustCrypto ciphers sealing the regions it names, the field-by-field builders of
//! `sealed.rs`, and the fragmentation rules.
//!
//! Each property runs 256 cases (proptest's default); `PROPTEST_CASES=20000 cargo test -p
//! protocols --test sealed props` runs a longer search. A failing case is shrunk and printed
//! with its stack string and payload (the generated values are the texts themselves).

use proptest::prelude::*;
use proptest::sample::select;
use protocols::{
    Emitted, Error, Ids, IpsecFragmentation, Layer, SplitPolicy, ip_fragments, ipsec_fragments,
    split_payload,
};

use super::*;

/// The largest payload the properties draw: well past one 1500-byte MTU and the exhaustive
/// 0..=2000 of the sealing tests, under IPv4's 65,535-byte datagram with every option
/// \[bytes\].
const PAYLOAD: usize = 9000;

const MACSEC: &[&str] = &[
    "gcm-aes-128,encrypt",
    "gcm-aes-256,integrity",
    "gcm-aes-128,integrity,no-sci",
    "gcm-aes-xpn-128,encrypt,no-sci",
    "gcm-aes-xpn-256,encrypt",
    "gcm-aes-128,encrypt,offset=30",
    "gcm-aes-256,encrypt,offset=50",
];
const TLS13: &[(&str, Aead_)] = &[
    ("aes128-gcm", Aead_::Gcm128(16)),
    ("aes256-gcm", Aead_::Gcm256(16)),
    ("chacha20-poly1305", Aead_::ChaCha),
    ("aes128-ccm", Aead_::Ccm128(16)),
    ("aes128-ccm-8", Aead_::Ccm128(8)),
];
/// Upper layers that are sized but mostly not written by `emit`.
const OTHER_TOP: &[&str] = &[
    "tcp/tls12(aes256-cbc,hmac-sha256)",
    "tcp/tls12(aes128-cbc,hmac-sha1,etm)",
    "tcp/tls12(aes128-gcm)",
    "udp/dtls12(aes128-gcm)",
    "udp/dtls13(aes128-gcm,seq8,cid=4)",
    "tcp/ssh(aes128-gcm)",
    "tcp/ssh(aes128-ctr,hmac-sha2-256-etm)",
    "tcp/ssh(chacha20-poly1305)",
    "tcp/tls13(chacha20-poly1305,record=100)",
    "sctp/tls13(aes128-gcm)",
];

/// An ESP transform: every suite the sealing tests know, plus ones they cannot seal.
fn esp_suite() -> impl Strategy<Value = String> {
    let mut names: Vec<&'static str> = esp_suites().into_iter().map(|(n, _)| n).collect();
    names.extend([
        "aes192-ccm-12",
        "aes192-cbc,hmac-sha256-128",
        "null,hmac-sha512-256",
    ]);
    select(names).prop_map(String::from)
}

fn ip() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("ipv4".to_string()),
        Just("ipv6".to_string()),
        (1usize..=10).prop_map(|w| format!("ipv4(options={})", 4 * w)),
        (1usize..=4).prop_map(|w| format!("ipv6(ext={})", 8 * w)),
    ]
}

fn top() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("udp".to_string()),
        Just("udp/ecpri".to_string()),
        Just("udp/ecpri(iq)".to_string()),
        Just("tcp".to_string()),
        Just("tcp(ts)".to_string()),
        (1usize..=10).prop_map(|w| format!("tcp(options={})", 4 * w)),
        Just("sctp".to_string()),
        Just("sctp(idata)/e2ap".to_string()),
        select(TLS13).prop_map(|(n, _)| format!("tcp/tls13({n})")),
        select(OTHER_TOP).prop_map(String::from),
    ]
}

/// Layer 2: none, Ethernet, with a VLAN tag, with MACsec (on Ethernet or on a tag).
fn l2() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("eth/".to_string()),
        Just("eth/vlan/".to_string()),
        select(MACSEC).prop_map(|m| format!("eth/macsec({m})/")),
        select(MACSEC).prop_map(|m| format!("eth/vlan/macsec({m})/")),
    ]
}

/// An overlay under the stack, or none: the outer IP version, Geneve's options in 4-byte
/// words, and whether it is VXLAN.
fn overlay() -> impl Strategy<Value = Option<(&'static str, usize, bool)>> {
    prop::option::weighted(
        0.25,
        (select(vec!["ipv4", "ipv6"]), 0usize..=63, any::<bool>()),
    )
}

/// The overlay's outer frame in front of a stack whose layer 2 is `l2`: VXLAN carries only an
/// Ethernet frame, so a stack without layer 2 goes in Geneve.
fn outer(l2: &str, o: Option<(&str, usize, bool)>) -> String {
    match o {
        None => String::new(),
        Some((ip, _, true)) if !l2.is_empty() => format!("eth/{ip}/udp/vxlan/"),
        Some((ip, words, _)) => format!("eth/{ip}/udp/geneve(options={})/", 4 * words),
    }
}

/// A random valid stack, as text (so a failing case prints it).
fn stack_text() -> impl Strategy<Value = String> {
    let esp = prop_oneof![
        Just(String::new()),
        (esp_suite(), prop::option::of(1usize..=400), ip()).prop_map(|(s, tfc, inner)| {
            let tfc = tfc.map_or(String::new(), |t| format!(",tfc={t}"));
            format!("/esp-tunnel({s}{tfc})/{inner}")
        }),
        (esp_suite(), ip()).prop_map(|(s, inner)| format!("/udp/esp-tunnel({s})/{inner}")),
        esp_suite().prop_map(|s| format!("/esp-transport({s})")),
    ];
    prop_oneof![
        4 => (overlay(), l2(), ip(), esp, top()).prop_map(|(o, l2, ip, esp, top)| {
            format!("{}{l2}{ip}{esp}/{top}", outer(&l2, o))
        }),
        1 => l2().prop_filter_map("ecpri needs layer 2", |l2| (!l2.is_empty())
            .then(|| format!("{l2}ecpri"))),
    ]
}

/// A random stack made only of the layers `Stack::emit` writes (eth, macsec on eth, ipv4
/// without options, ipv6 with or without extension headers, udp, tcp with its options, sctp
/// with each chunk, ESP, ecpri, tls13, vxlan, geneve), as text.
fn emittable_text() -> impl Strategy<Value = String> {
    let l2 = prop_oneof![
        Just(String::new()),
        Just("eth/".to_string()),
        select(MACSEC).prop_map(|m| format!("eth/macsec({m})/")),
    ];
    let ip = || {
        prop_oneof![
            Just("ipv4".to_string()),
            Just("ipv6".to_string()),
            (1usize..=4).prop_map(|w| format!("ipv6(ext={})", 8 * w)),
        ]
    };
    let esp = prop_oneof![
        Just(String::new()),
        (esp_suite(), prop::option::of(1usize..=400), ip()).prop_map(|(s, tfc, inner)| {
            let tfc = tfc.map_or(String::new(), |t| format!(",tfc={t}"));
            format!("/esp-tunnel({s}{tfc})/{inner}")
        }),
        (esp_suite(), ip()).prop_map(|(s, inner)| format!("/udp/esp-tunnel({s})/{inner}")),
        esp_suite().prop_map(|s| format!("/esp-transport({s})")),
    ];
    let top = prop_oneof![
        select(vec![
            "udp",
            "udp/ecpri",
            "udp/ecpri(iq)",
            "tcp",
            "tcp(ts)",
            "sctp",
            "sctp(idata)/e2ap",
            "sctp/e2ap",
        ])
        .prop_map(String::from),
        (1usize..=10).prop_map(|w| format!("tcp(options={})", 4 * w)),
        select(TLS13).prop_map(|(n, _)| format!("tcp(ts)/tls13({n})")),
    ];
    prop_oneof![
        4 => (overlay(), l2.clone(), ip(), esp, top).prop_map(|(o, l2, ip, esp, top)| {
            format!("{}{l2}{ip}{esp}/{top}", outer(&l2, o))
        }),
        1 => l2.prop_filter_map("ecpri needs layer 2", |l2| (!l2.is_empty())
            .then(|| format!("{l2}ecpri"))),
    ]
}

fn parse(text: &str) -> Stack {
    Stack::parse(text).unwrap_or_else(|e| panic!("generated stack `{text}` refused: {e}"))
}

/// How a security layer's cipher is sealed in the tests, from its canonical text.
#[derive(Debug, Clone, Copy)]
enum Seal {
    /// AEAD with its nonce length.
    Aead(Aead_, usize),
    Gmac(Aead_),
    Cbc(u16, &'static str, usize),
}

fn seal_of(layer: &Layer) -> Option<Seal> {
    let text = layer.text();
    let args = text.split_once('(')?.1.trim_end_matches(')');
    match layer {
        Layer::Esp(_) => {
            let suite = args.split(",tfc=").next()?;
            let (_, kind) = esp_suites().into_iter().find(|(n, _)| *n == suite)?;
            Some(match kind {
                EspKind::Aead(a, salt) => Seal::Aead(a, salt + 8),
                EspKind::Gmac(a) => Seal::Gmac(a),
                EspKind::Cbc(bits, hash, icv) => Seal::Cbc(bits, hash, icv),
            })
        }
        Layer::Macsec(_) => Some(Seal::Aead(
            if args.contains("-256") {
                Aead_::Gcm256(16)
            } else {
                Aead_::Gcm128(16)
            },
            12,
        )),
        Layer::Tls(_) => {
            let suite = args.split(',').next()?;
            TLS13
                .iter()
                .find(|(n, _)| *n == suite)
                .map(|&(_, a)| Seal::Aead(a, 12))
        }
        _ => None,
    }
}

/// Emits `payload` through `stack`, or `None` when the stack has a layer `emit` does not write.
fn emitted(stack: &Stack, payload: usize, out: &mut Vec<u8>) -> Option<Emitted> {
    match stack.emit(0, &app(payload), &Ids::default(), out) {
        Ok(e) => Some(e),
        Err(Error::Unsupported { .. }) => None,
        Err(e) => panic!("`{stack}` with {payload} B: emit failed: {e}"),
    }
}

/// Seals every security layer of an emitted frame with the real cipher, innermost first (the
/// outer layer then protects the inner one's ciphertext), asserting at each that the cipher's
/// output has exactly the lengths of the regions the model named. Returns the layers sealed.
fn seal_for_real(stack: &Stack, e: &Emitted, out: &mut [u8]) -> usize {
    let mut sealed = 0;
    for s in e.sealing.iter().rev() {
        let Some(how) = seal_of(&stack.layers()[s.layer]) else {
            continue;
        };
        let (aad, enc, icv) = (s.aad.clone(), s.encrypted.clone(), s.icv.clone());
        assert!(aad.end <= enc.start.max(aad.end) && enc.end <= icv.start && icv.end <= out.len());
        match how {
            Seal::Aead(kind, nonce_len) => {
                let nonce = vec![0x5a; nonce_len];
                let plain = out[enc.clone()].to_vec();
                let ct = aead(kind, &nonce, &out[aad.clone()], &plain, false);
                assert_eq!(enc.end, icv.start, "AEAD: the ICV follows the ciphertext");
                assert_eq!(ct.len(), enc.len() + icv.len(), "sealed length");
                out[enc.start..icv.end].copy_from_slice(&ct);
                let back = aead(
                    kind,
                    &nonce,
                    &out[aad.clone()],
                    &out[enc.start..icv.end],
                    true,
                );
                assert_eq!(back, plain, "opens again");
            }
            Seal::Gmac(kind) => {
                assert!(enc.is_empty());
                let tag = aead(kind, &[0x5a; 12], &out[aad.clone()], &[], false);
                assert_eq!(tag.len(), icv.len());
                out[icv].copy_from_slice(&tag);
            }
            Seal::Cbc(bits, hash, icv_len) => {
                assert_eq!(s.iv.len(), 16, "CBC: a 16-byte explicit IV");
                let iv = out[s.iv.clone()].to_vec();
                // cbc_encrypt refuses input that is not a whole number of blocks.
                let ct = cbc_encrypt(bits, &iv, &out[enc.clone()]);
                assert_eq!(ct.len(), enc.len());
                out[enc.clone()].copy_from_slice(&ct);
                let mac = hmac_trunc(hash, &out[aad.start..enc.end], icv_len);
                assert_eq!(mac.len(), icv.len());
                out[icv].copy_from_slice(&mac);
            }
        }
        sealed += 1;
    }
    sealed
}

/// proptest's defaults (256 cases, `PROPTEST_CASES` overrides), without its regression files:
/// a case it finds becomes a named regression test in the module it concerns.
fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// `wire_len` is the sum of the breakdown; the security layer's counts fit in the frame.
    #[test]
    fn wire_len_is_the_sum_of_the_layers(text in stack_text(), n in 0..=PAYLOAD) {
        let stack = parse(&text);
        let wire = stack.wire_len(n).unwrap();
        let b = stack.breakdown(n).unwrap();
        prop_assert_eq!(b[0].total, wire);
        let parts: usize = b.iter().map(|l| l.header + l.padding + l.trailer).sum();
        prop_assert_eq!(parts + n, wire);
        prop_assert!(stack.mtu_len(n).unwrap() <= wire);
        if let Some(p) = stack.protected(n).unwrap() {
            prop_assert!(p.encrypted + p.authenticated <= wire);
            prop_assert!(p.charged <= p.encrypted.max(p.authenticated));
        }
        // A stack with a layer emit does not write is refused by name, never mis-written.
        let mut out = Vec::new();
        if let Some(e) = emitted(&stack, n, &mut out) {
            prop_assert_eq!(out.len(), wire);
            prop_assert_eq!(e.payload.len(), n);
        }
    }

    /// `wire_len` is the length of the bytes `emit` writes; the outermost security layer's
    /// `protected` counts are the regions `emit` names; and the real cipher, run over those
    /// regions, fills them exactly and opens again.
    #[test]
    fn wire_len_is_the_emitted_and_sealed_length(text in emittable_text(), n in 0..=PAYLOAD) {
        let stack = parse(&text);
        let wire = stack.wire_len(n).unwrap();
        let mut out = Vec::new();
        let e = emitted(&stack, n, &mut out).expect("every layer here is written");
        prop_assert_eq!(out.len(), wire);
        prop_assert_eq!(&out[e.payload.clone()], &app(n)[..]);
        let protected = stack.protected(n).unwrap();
        prop_assert_eq!(protected.is_some(), !e.sealing.is_empty());
        if let (Some(p), Some(s)) = (protected, e.sealing.first()) {
            prop_assert_eq!(p.encrypted, s.encrypted.len());
            prop_assert_eq!(p.authenticated, s.aad.len());
        }
        seal_for_real(&stack, &e, &mut out);
        prop_assert_eq!(out.len(), wire);
    }

    /// Every length grows with the payload, never shrinks: wire, MTU and protected lengths.
    #[test]
    fn lengths_are_monotone_in_the_payload(
        text in stack_text(), n in 0..=PAYLOAD, d in 0usize..=3000
    ) {
        let stack = parse(&text);
        let m = n + d;
        prop_assert!(stack.wire_len(n).unwrap() <= stack.wire_len(m).unwrap());
        prop_assert!(stack.mtu_len(n).unwrap() <= stack.mtu_len(m).unwrap());
        prop_assert!(stack.overhead(n).is_ok());
        let (pn, pm) = (stack.protected_len(n).unwrap(), stack.protected_len(m).unwrap());
        prop_assert!(pn <= pm, "protected {:?} > {:?}", pn, pm);
    }

    /// `max_payload(mtu)` is the largest payload whose frame fits: it fits, one more does not.
    #[test]
    fn max_payload_is_the_largest_that_fits(text in stack_text(), mtu in 0usize..=9216) {
        let stack = parse(&text);
        match stack.max_payload(mtu) {
            Ok(p) => {
                prop_assert!(stack.mtu_len(p).unwrap() <= mtu);
                prop_assert!(stack.mtu_len(p + 1).is_ok_and(|l| l > mtu) || stack.mtu_len(p + 1).is_err());
            }
            Err(Error::MtuTooSmall { .. }) => prop_assert!(stack.mtu_len(0).unwrap() > mtu),
            Err(e) => prop_assert!(false, "unexpected error: {}", e),
        }
    }

    /// Application splitting carries every payload byte once, in frames that fit the MTU, with
    /// the frame lengths of the stack; greedy fills frames, even balances them.
    #[test]
    fn split_payload_conserves_bytes_and_fits(
        text in stack_text(), n in 0usize..=20_000, mtu in 576usize..=9216, even in any::<bool>()
    ) {
        let stack = parse(&text);
        let policy = if even { SplitPolicy::Even } else { SplitPolicy::Greedy };
        match split_payload(&stack, n, mtu, policy) {
            Ok(frames) => {
                prop_assert_eq!(frames.iter().map(|f| f.payload).sum::<usize>(), n);
                for f in &frames {
                    prop_assert!(f.mtu_len <= mtu, "frame of {} B over the MTU", f.mtu_len);
                    prop_assert_eq!(f.wire_len, stack.wire_len(f.payload).unwrap());
                }
                let (lo, hi) = frames.iter().fold((usize::MAX, 0), |(lo, hi), f| {
                    (lo.min(f.payload), hi.max(f.payload))
                });
                if even {
                    prop_assert!(hi - lo <= 1);
                } else if let Some((last, rest)) = frames.split_last() {
                    prop_assert!(rest.iter().all(|f| f.payload == hi) && last.payload <= hi);
                }
            }
            Err(Error::MtuTooSmall { .. }) => prop_assert!(stack.mtu_len(1).unwrap() > mtu),
            Err(Error::PayloadTooLarge { .. }) => {}
            Err(e) => prop_assert!(false, "unexpected error: {}", e),
        }
    }

    /// IP fragmentation (and IPsec's, before and after encryption) carries every byte of the
    /// datagram once, at offsets in 8-byte units, in frames that fit the MTU.
    #[test]
    fn ip_fragments_conserve_bytes_and_fit(
        text in stack_text(), n in 0usize..=20_000, mtu in 1280usize..=9216, before in any::<bool>()
    ) {
        let stack = parse(&text);
        let esp_tunnel = text.contains("esp-tunnel");
        let frames = if esp_tunnel && before {
            ipsec_fragments(&stack, n, mtu, IpsecFragmentation::BeforeEncryption)
        } else {
            ip_fragments(&stack, n, mtu)
        };
        let frames = match frames {
            Ok(f) => f,
            Err(Error::MissingLayer { .. }) => {
                prop_assert!(!text.contains("ipv"));
                return Ok(());
            }
            // A datagram over the 16-bit IP length, or an MTU under the IPv6 minimum once
            // MACsec's bytes are counted.
            Err(Error::PayloadTooLarge { .. } | Error::MtuTooSmall { .. }) => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(format!("unexpected error: {e}"))),
        };
        prop_assert_eq!(frames.iter().map(|f| f.payload).sum::<usize>(), n);
        let mut next = 0;
        for (i, f) in frames.iter().enumerate() {
            prop_assert!(f.mtu_len <= mtu, "frame of {} B over the MTU", f.mtu_len);
            if let Some(frag) = f.fragment {
                prop_assert_eq!(frag.offset, next);
                prop_assert_eq!(frag.offset % 8, 0);
                prop_assert_eq!(frag.more, i + 1 < frames.len());
                next += frag.data_len;
            }
        }
    }
}

/// The field-by-field builders of `sealed.rs`, beyond their exhaustive 0..=2000 bytes: an ESP
/// packet sealed by the real cipher in tunnel, transport and UDP-encapsulated modes, a MACsec
/// frame, and a TLS 1.3 record have the model's length.
mod builders {
    use super::*;

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn sealed_esp_is_wire_len(i in 0..esp_suites().len(), n in 0..=PAYLOAD, mode in 0..3u8) {
            let (suite, kind) = esp_suites()[i];
            let data = app(n);
            let (text, frame) = match mode {
                0 => (
                    format!("eth/ipv4/esp-tunnel({suite})/ipv4/udp"),
                    eth(0x0800, &ipv4(50, &esp_seal(kind, 1, &ipv4(17, &udp(&data)), 4))),
                ),
                1 => (
                    format!("eth/ipv4/esp-transport({suite})/udp"),
                    eth(0x0800, &ipv4(50, &esp_seal(kind, 1, &udp(&data), 17))),
                ),
                _ => (
                    format!("eth/ipv4/udp/esp-tunnel({suite})/ipv4/tcp"),
                    eth(0x0800, &ipv4(17, &udp(&esp_seal(kind, 1, &ipv4(6, &tcp(&data)), 4)))),
                ),
            };
            prop_assert_eq!(frame.len(), parse(&text).wire_len(n).unwrap(), "{} n={}", text, n);
        }

        #[test]
        fn sealed_macsec_is_wire_len(
            xpn in any::<bool>(), wide in any::<bool>(), encrypt in any::<bool>(),
            sci in any::<bool>(), offset in select(vec![0usize, 30, 50]), n in 0..=PAYLOAD
        ) {
            let bits = if wide { 256 } else { 128 };
            let name = format!("gcm-aes-{}{bits}", if xpn { "xpn-" } else { "" });
            let mode = match (encrypt, offset) {
                (false, _) => "integrity".to_string(),
                (true, 0) => "encrypt".to_string(),
                (true, o) => format!("encrypt,offset={o}"),
            };
            let offset = if encrypt { offset } else { 0 };
            let text = format!("eth/macsec({name},{mode}{})/ecpri", if sci { "" } else { ",no-sci" });
            let ecpri = [vec![0x10, 0x00], (n as u16).to_be_bytes().to_vec(), app(n)].concat();
            let frame = macsec_frame(xpn, bits, encrypt, sci, offset, &ecpri);
            prop_assert_eq!(frame.len(), parse(&text).wire_len(n).unwrap(), "{} n={}", text, n);
        }

        #[test]
        fn sealed_tls13_record_is_wire_len(i in 0..TLS13.len(), n in 0..=PAYLOAD) {
            let (suite, kind) = TLS13[i];
            let text = format!("eth/ipv4/tcp/tls13({suite})");
            let frame = eth(0x0800, &ipv4(6, &tcp(&tls13_record(kind, &[23, 3, 3], &app(n)))));
            prop_assert_eq!(frame.len(), parse(&text).wire_len(n).unwrap(), "{} n={}", text, n);
        }
    }
}
