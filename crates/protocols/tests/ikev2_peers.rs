//! IKEv2 peer profiles (issue 17): every message of every peer is its payloads plus the header
//! (and, encrypted, the SK payload's IV, padding and ICV), and the strongSwan profiles give the
//! lengths captured from strongSwan 5.9.8 on the wire.

use proptest::prelude::*;
use proptest::sample::select;
use protocols::ikev2::{self, Auth, Config, HEADER, Identity, IkeCipher, PAYLOAD_HEADER, Peer};

const PEERS: [Peer; 4] = [
    Peer::Minimal,
    Peer::Strongswan,
    Peer::StrongswanMinimal,
    Peer::Libreswan,
];

/// The SK payload around `inner` plaintext bytes (RFC 7296 §3.14; AES-GCM RFC 5282: IV 8, no
/// padding but the pad-length byte, ICV 16; AES-CBC: IV 16, 16-byte blocks, HMAC-SHA2-256-128
/// ICV 16) \[bytes\].
fn sk(cipher: IkeCipher, inner: usize) -> usize {
    PAYLOAD_HEADER
        + match cipher {
            IkeCipher::AesGcm16 => 8 + inner + 1 + 16,
            IkeCipher::AesCbcSha256 => 16 + (inner + 1).div_ceil(16) * 16 + 16,
        }
}

proptest! {
    /// A message's IKE length is the header plus its payloads (IKE_SA_INIT), or the header plus
    /// the SK payload around them (every later message), for every peer, key exchange,
    /// authentication, cipher, IP version and certificate chain.
    #[test]
    fn message_length_is_header_plus_payloads(
        peer in select(PEERS.to_vec()),
        ke in select(vec!["x25519", "ecp256", "modp3072", "mlkem768", "x25519+mlkem768", "x25519+mlkem1024+hqc-128"]),
        auth in select(vec![Auth::Psk, Auth::Ed25519, Auth::EcdsaP256, Auth::Rsa2048, Auth::MlDsa65]),
        cipher in select(vec![IkeCipher::AesGcm16, IkeCipher::AesCbcSha256]),
        ip_version in select(vec![4u8, 6]),
        certs in proptest::collection::vec(1usize..6000, 0..3),
        id in select(vec![None, Some("fqdn:moon.example.org"), Some("dn:87"), Some("ipv4:192.0.2.1")]),
        pfs in any::<bool>(),
    ) {
        let mut cfg = Config::new(ke, auth, 1500).unwrap();
        cfg.peer = peer;
        cfg.cipher = cipher;
        cfg.ip_version = ip_version;
        cfg.pfs = pfs;
        if auth != Auth::Psk {
            cfg.cert_chain = certs;
        }
        cfg.id_r = id.map(|i| Identity::parse(i).unwrap());
        let h = ikev2::handshake(&cfg).unwrap();
        for (i, e) in h.exchanges.iter().enumerate() {
            for m in [&e.request, &e.response] {
                let inner: usize = m.payloads.iter().map(|p| p.len).sum();
                let want = if i == 0 { HEADER + inner } else { HEADER + sk(cipher, inner) };
                prop_assert_eq!(m.ike_len, want, "{:?} {} {:?}", peer, e.name, m.payloads);
                prop_assert_eq!(m.encrypted, i > 0);
            }
        }
    }
}

/// One captured case: peer, auth, cipher, certificate DER sizes (initiator, responder), IDs
/// and, per exchange, the request and response IKE lengths (the INFORMATIONAL deleting the
/// rekeyed Child SA last).
struct Case {
    peer: Peer,
    auth: Auth,
    cipher: IkeCipher,
    certs: [usize; 2],
    ids: [&'static str; 2],
    lens: [[usize; 2]; 6],
}

/// strongSwan 5.9.8-5+deb12u6 in two network namespaces, captured by the `ike-wire` harness
/// (scripts/strongswan-wire.sh; /work/shared-ike, 2026-11-24): the `default` configuration
/// (initiator `proposals = default`, remote identity configured) and the `minimal` one (one
/// proposal, `follow_redirects`, `multiple_authentication`, `childless` off, no remote
/// identity). PSK identities are FQDNs, certificate ones DNs of 60 and 59 bytes.
#[rustfmt::skip]
fn captures() -> Vec<Case> {
    use Auth::*;
    use IkeCipher::*;
    use Peer::*;
    let psk = ["fqdn:moon.example.org", "fqdn:sun.example.org"];
    let dn = ["dn:60", "dn:59"];
    let c = |peer, auth, cipher, certs, ids, lens| Case {
        peer,
        auth,
        cipher,
        certs,
        ids,
        lens,
    };
    vec![
        c(Strongswan, Psk, AesGcm16, [0, 0], psk, [[940, 240], [396, 220], [297, 177], [309, 177], [897, 181], [69, 69]]),
        c(Strongswan, Psk, AesCbcSha256, [0, 0], psk, [[940, 248], [416, 240], [320, 208], [320, 208], [912, 208], [80, 80]]),
        c(Strongswan, Ed25519, AesGcm16, [365, 363], dn, [[940, 265], [919, 672], [297, 177], [309, 177], [897, 181], [69, 69]]),
        c(Strongswan, Ed25519, AesCbcSha256, [365, 363], dn, [[940, 273], [928, 688], [320, 208], [320, 208], [912, 208], [80, 80]]),
        c(Strongswan, EcdsaP256, AesGcm16, [428, 426], dn, [[940, 265], [994, 748], [297, 177], [309, 177], [897, 181], [69, 69]]),
        c(Strongswan, EcdsaP256, AesCbcSha256, [428, 426], dn, [[940, 273], [1008, 768], [320, 208], [320, 208], [912, 208], [80, 80]]),
        c(StrongswanMinimal, Psk, AesGcm16, [0, 0], psk, [[208, 208], [237, 220], [177, 177], [189, 177], [181, 181], [69, 69]]),
        c(StrongswanMinimal, Psk, AesCbcSha256, [0, 0], psk, [[216, 216], [256, 240], [208, 208], [208, 208], [208, 208], [80, 80]]),
        c(StrongswanMinimal, Ed25519, AesGcm16, [365, 363], dn, [[224, 249], [716, 672], [177, 177], [189, 177], [181, 181], [69, 69]]),
        c(StrongswanMinimal, Ed25519, AesCbcSha256, [365, 363], dn, [[232, 257], [736, 688], [208, 208], [208, 208], [208, 208], [80, 80]]),
        c(StrongswanMinimal, EcdsaP256, AesGcm16, [428, 426], dn, [[224, 249], [791, 747], [177, 177], [189, 177], [181, 181], [69, 69]]),
        c(StrongswanMinimal, EcdsaP256, AesCbcSha256, [428, 426], dn, [[232, 257], [816, 768], [208, 208], [208, 208], [208, 208], [80, 80]]),
    ]
}

/// Regression test of issue 17: every message of IKE_SA_INIT, IKE_AUTH, the three
/// CREATE_CHILD_SA exchanges and the INFORMATIONAL deleting the old Child SA equals strongSwan's on the wire, for PSK, Ed25519 and ECDSA P-256,
/// AES-GCM and AES-CBC, default and minimal configurations. The one allowance: an ECDSA
/// signature's DER encoding is 70 to 72 bytes at random (each INTEGER gains a zero byte when
/// its top bit is set) and the model takes 72, so an IKE_AUTH message with ECDSA may be up to 2
/// bytes longer in the model (AES-CBC padding can hide the difference).
#[test]
fn strongswan_profiles_equal_the_captures() {
    let names = [
        "IKE_SA_INIT",
        "IKE_AUTH",
        "CREATE_CHILD_SA (new Child SA)",
        "CREATE_CHILD_SA (rekey Child SA)",
        "CREATE_CHILD_SA (rekey IKE SA)",
        "INFORMATIONAL (delete Child SA)",
    ];
    for c in captures() {
        let mut cfg = Config::new("x25519", c.auth, 1500).unwrap();
        cfg.peer = c.peer;
        cfg.cipher = c.cipher;
        cfg.id_i = Some(Identity::parse(c.ids[0]).unwrap());
        cfg.id_r = Some(Identity::parse(c.ids[1]).unwrap());
        if c.auth != Auth::Psk {
            cfg.cert_chain = vec![c.certs[0]];
            cfg.cert_chain_r = Some(vec![c.certs[1]]);
        }
        let h = ikev2::handshake(&cfg).unwrap();
        let got: Vec<&str> = h.exchanges.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(got, names);
        for (e, want) in h.exchanges.iter().zip(c.lens) {
            for (m, w) in [&e.request, &e.response].into_iter().zip(want) {
                let slack = if c.auth == Auth::EcdsaP256 && e.name == "IKE_AUTH" {
                    2
                } else {
                    0
                };
                assert!(
                    (w..=w + slack).contains(&m.ike_len),
                    "{:?} {:?} {:?} {}: captured {w}, model {} ({:?})",
                    c.peer,
                    c.auth,
                    c.cipher,
                    e.name,
                    m.ike_len,
                    m.payloads
                );
            }
        }
    }
}

/// The default strongSwan IKE_SA_INIT request is 940 bytes against the minimal model's 224;
/// with ML-KEM-768 it no longer fits a 1500-byte MTU and is IP-fragmented (issue 17, item 4),
/// where the minimal model's still fits.
#[test]
fn mlkem768_fragments_a_default_strongswan_ike_sa_init() {
    let hs = |peer| {
        let mut cfg = Config::new("mlkem768", Auth::Psk, 1500).unwrap();
        cfg.peer = peer;
        ikev2::handshake(&cfg).unwrap()
    };
    let minimal = hs(Peer::Minimal);
    assert_eq!(minimal.exchanges[0].request.datagrams.len(), 1);
    let strongswan = hs(Peer::Strongswan);
    let req = &strongswan.exchanges[0].request;
    assert_eq!(req.fragmentation, ikev2::Fragmentation::Ip);
    assert_eq!(req.datagrams.len(), 2);
    assert!(!strongswan.ike_sa_init_fits[1].request);
    // Libreswan's four default proposals (436 B) with ML-KEM-768: 1184 + 436 + ... > 1472.
    let libreswan = hs(Peer::Libreswan);
    assert_eq!(
        libreswan.exchanges[0].request.fragmentation,
        ikev2::Fragmentation::Ip
    );
}

#[test]
fn peers_parse_and_refuse_by_name() {
    for p in PEERS {
        assert_eq!(Peer::parse(p.name()).unwrap(), p);
    }
    let e = Peer::parse("racoon").unwrap_err().to_string();
    assert!(e.contains("strongswan") && e.contains("libreswan"), "{e}");
    let mut cfg = Config::new("x25519", Auth::Psk, 1500).unwrap();
    cfg.vendor_ids = true;
    assert!(
        ikev2::handshake(&cfg)
            .unwrap_err()
            .to_string()
            .contains("vendor")
    );
    cfg.peer = Peer::Strongswan;
    let with = ikev2::handshake(&cfg).unwrap();
    cfg.vendor_ids = false;
    let without = ikev2::handshake(&cfg).unwrap();
    // The 16-byte strongSwan vendor ID in a 4-byte payload header, in both IKE_SA_INIT messages.
    assert_eq!(
        with.exchanges[0].request.ike_len,
        without.exchanges[0].request.ike_len + 20
    );
    cfg.certreq_cas = Some(ikev2::MAX_CERTREQ_CAS + 1);
    assert!(
        ikev2::handshake(&cfg)
            .unwrap_err()
            .to_string()
            .contains("CERTREQ")
    );
}

/// Libreswan 4.10-2+deb12u1 (Debian's package, unpacked, two plutos in network namespaces, PSK,
/// `@moon.example.org` to `@sun.example.org`, `--ke modp2048`: the first default group). Both
/// ends with the defaults (AES-GCM-16-256, PRF HMAC-SHA2-512), then a responder configured
/// `ike=aes256-sha2_256-modp2048`: IKE_SA_INIT, the IKE_AUTH request and the IKE SA rekey as
/// captured. (The Child SA could not be installed, the kernel's xfrm having no ESP, so the
/// rest was not captured.)
#[test]
fn libreswan_profile_equals_the_captures() {
    for (cipher, init, auth_req, rekey) in [
        (IkeCipher::AesGcm16, [828, 440], 420, [405, 405]),
        (IkeCipher::AesCbcSha256, [828, 448], 400, [432, 432]),
    ] {
        let mut cfg = Config::new("modp2048", Auth::Psk, 1500).unwrap();
        cfg.peer = Peer::Libreswan;
        cfg.cipher = cipher;
        cfg.id_i = Some(Identity::parse("fqdn:moon.example.org").unwrap());
        cfg.id_r = Some(Identity::parse("fqdn:sun.example.org").unwrap());
        let h = ikev2::handshake(&cfg).unwrap();
        let e = |name: &str| h.exchanges.iter().find(|e| e.name == name).unwrap();
        let pair = |name: &str| [e(name).request.ike_len, e(name).response.ike_len];
        assert_eq!(pair("IKE_SA_INIT"), init, "{cipher:?}");
        assert_eq!(e("IKE_AUTH").request.ike_len, auth_req, "{cipher:?}");
        assert_eq!(pair("CREATE_CHILD_SA (rekey IKE SA)"), rekey, "{cipher:?}");
    }
}

/// Libreswan IKE-fragments every encrypted message from 532 bytes on (576-byte IPv4 packets,
/// `ISAKMP_V2_FRAG_MAXLEN_IPv4`), whatever the MTU. Captured with ECDSA P-256 certificates of
/// 467 and 465 B (DNs of 60 and 59 B), `--ke modp2048`, AES-GCM: IKE_SA_INIT 842/479 B; the
/// IKE_AUTH request in three fragments of 539, 539 and 73 IKE bytes (the last 74 in the model,
/// whose ECDSA signature is the 72-byte maximum: this one was 71).
#[test]
fn libreswan_fragments_from_576_byte_packets() {
    let mut cfg = Config::new("modp2048", Auth::EcdsaP256, 1500).unwrap();
    cfg.peer = Peer::Libreswan;
    cfg.id_i = Some(Identity::parse("dn:60").unwrap());
    cfg.id_r = Some(Identity::parse("dn:59").unwrap());
    cfg.cert_chain = vec![467];
    cfg.cert_chain_r = Some(vec![465]);
    let h = ikev2::handshake(&cfg).unwrap();
    let init = &h.exchanges[0];
    assert_eq!([init.request.ike_len, init.response.ike_len], [842, 479]);
    let auth = &h.exchanges[1].request;
    assert_eq!(auth.fragmentation, ikev2::Fragmentation::Ike);
    // IP + UDP 28 bytes on port 500 (no MOBIKE, no NAT: no non-ESP marker).
    assert_eq!(auth.datagrams, [539 + 28, 539 + 28, 74 + 28]);
    // The same message from strongSwan's profile fits one 1500-byte datagram.
    cfg.peer = Peer::Strongswan;
    let s = ikev2::handshake(&cfg).unwrap();
    assert_eq!(s.exchanges[1].request.datagrams.len(), 1);
}

/// strongSwan IKE-fragments an encrypted message whose datagram would exceed
/// `charon.fragment_size` (1280 B), even on a 1500-byte path: the hybrid's IKE_INTERMEDIATE
/// request (1281 B) goes as 1280 + 98 B, where the minimal peer sends one datagram.
#[test]
fn strongswan_fragments_above_1280_byte_datagrams() {
    let hs = |peer| {
        let mut cfg = Config::new("x25519+mlkem768", Auth::Psk, 1500).unwrap();
        cfg.peer = peer;
        ikev2::handshake(&cfg).unwrap()
    };
    let s = hs(Peer::Strongswan);
    let inter = &s.exchanges[1].request;
    assert_eq!(inter.ip_len, 1281);
    assert_eq!(inter.datagrams, [1280, 98]);
    let m = hs(Peer::Minimal);
    assert_eq!(m.exchanges[1].request.datagrams.len(), 1);
}
