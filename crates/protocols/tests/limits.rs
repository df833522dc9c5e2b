//! Issue 14, class 1: size arithmetic never wraps. Every quantity a stack or a handshake takes
//! has the range its protocol's fields can represent, checked with an error naming the value
//! and the range; lengths are computed with checked arithmetic. Each case below produced a
//! wrapped (too small) size before.

use protocols::esp::{Esp, MAX_TFC, Mode};
use protocols::ikev2::{self, Auth, Config, MAX_FRAGMENTS};
use protocols::{
    Encapsulation, Layer, MAX_PAYLOAD, SplitPolicy, Stack, split_payload, tls_handshake,
};

fn refused(stack: &str) -> String {
    Stack::parse(stack)
        .map(|s| format!("accepted as {s}"))
        .unwrap_or_else(|e| e.to_string())
}

/// `tfc=18446744073709551560` gave a 14-byte frame (the padding wrapped the length). The TFC
/// target is bounded by the 16-bit IP length; the largest allowed one is sized exactly.
#[test]
fn esp_tfc_is_bounded_by_the_ip_length() {
    let e = refused("eth/ipv4/udp/esp-tunnel(aes256-gcm,tfc=18446744073709551560)/ipv4/udp");
    assert!(
        e.contains("tfc=18446744073709551560") && e.contains("0..=65535"),
        "{e}"
    );
    assert!(refused("ipv4/esp-tunnel(aes256-gcm,tfc=65536)/ipv4").contains("0..=65535"));
    let s = Stack::parse("ipv4/esp-tunnel(aes256-gcm,tfc=65535)/ipv4").unwrap();
    // The padded inner packet alone is 65535 bytes: the outer IPv4 packet cannot hold it.
    assert!(s.wire_len(0).is_err());
    let args = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let esp = Esp::from_args(
        Mode::Tunnel,
        "esp-tunnel",
        &args(&["aes256-gcm", "tfc=65535"]),
    );
    // ESP header 8 + IV 8 + 65535 padded + 3 to align 65535 + 2 to 4 + trailer 2 + ICV 16.
    assert_eq!(
        esp.unwrap().wire_len(0).unwrap(),
        8 + 8 + 65535 + 3 + 2 + 16
    );
    // Built directly, a layer is checked by Stack::from_layers, and sizing a huge payload is
    // an error, not a wrap.
    let mut esp = Esp::from_args(Mode::Tunnel, "esp-tunnel", &args(&["aes256-gcm"])).unwrap();
    assert!(esp.wire_len(usize::MAX).is_err());
    esp.tfc = MAX_TFC + 1;
    let ip = Stack::parse("ipv4").unwrap().layers()[0].clone();
    let e = Stack::from_layers(vec![Layer::Esp(esp), ip]).unwrap_err();
    assert!(e.to_string().contains("0..=65535"), "{e}");
}

/// `sctp(sack,gaps=4611686018427387904)` gave the 62 B of a SACK without gaps (`gaps * 4`
/// wrapped to 0). Gap blocks and duplicates are bounded by the 16-bit Chunk Length.
#[test]
fn sctp_sack_entries_are_bounded_by_the_chunk_length() {
    let e = refused("eth/ipv4/sctp(sack,gaps=4611686018427387904)");
    assert!(e.contains("at most 16379"), "{e}");
    assert!(refused("eth/ipv4/sctp(sack,gaps=10000,dups=6380)").contains("at most 16379"));
    let s = Stack::parse("eth/ipv4/sctp(sack,gaps=100,dups=2)").unwrap();
    assert_eq!(s.wire_len(0).unwrap(), 62 + 4 * 102);
    // The largest SACK is accepted, then refused by the IPv4 total length, also by name.
    let s = Stack::parse("eth/ipv4/sctp(sack,gaps=10000,dups=6379)").unwrap();
    assert!(
        s.wire_len(0)
            .unwrap_err()
            .to_string()
            .contains("IPv4 total length")
    );
}

/// TCP options given twice used to be added without a check (a wrapping sum in release).
#[test]
fn tcp_options_do_not_wrap() {
    let e = refused("ipv4/tcp(options=18446744073709551615,ts)");
    assert!(e.contains("between 0 and 40"), "{e}");
}

/// A payload larger than any length field here is refused by name, not wrapped, and a split
/// into millions of frames is refused before allocating them.
#[test]
fn huge_payloads_are_errors() {
    let s = Stack::parse("eth").unwrap();
    for p in [MAX_PAYLOAD + 1, usize::MAX] {
        let e = s.wire_len(p).unwrap_err().to_string();
        assert!(e.contains(&MAX_PAYLOAD.to_string()), "{e}");
        assert!(s.breakdown(p).is_err() && s.report(p).is_err());
    }
    assert_eq!(s.wire_len(MAX_PAYLOAD).unwrap(), MAX_PAYLOAD + 14);
    // eth counts nothing against the MTU: an MTU of 1 carries one byte a frame.
    let e = split_payload(&s, MAX_PAYLOAD, 1, SplitPolicy::Greedy).unwrap_err();
    assert!(e.to_string().contains("1048576 frames"), "{e}");
    let ok = split_payload(&s, 1 << 20, 1, SplitPolicy::Greedy).unwrap();
    assert_eq!(ok.len(), 1 << 20);
}

/// `--cert-bytes 18446744073709551615` gave a 12-byte Certificate (`3 + c + 2` wrapped). Each
/// certificate and the whole list are bounded by their 24-bit length fields.
#[test]
fn tls_certificates_are_bounded_by_24_bit_lengths() {
    let hs = |chain: &[usize]| tls_handshake::handshake("x25519", Auth::Rsa2048, chain, 1500, 4);
    let e = hs(&[usize::MAX]).unwrap_err().to_string();
    assert!(
        e.contains("24-bit cert_data") && e.contains("16777215"),
        "{e}"
    );
    let e = hs(&[10_000_000, 10_000_000]).unwrap_err().to_string();
    assert!(e.contains("24-bit certificate_list"), "{e}");
    assert!(hs(&[0]).unwrap_err().to_string().contains("1..=16777215"));
    // The largest single certificate that fits: entry 5 + cert, list, context 1, length 3.
    let max = tls_handshake::MAX_UINT24 - 4 - 5;
    let h = hs(&[max]).unwrap();
    let cert = h.messages.iter().find(|m| m.name == "Certificate").unwrap();
    assert_eq!(cert.len, 4 + tls_handshake::MAX_UINT24);
    assert!(hs(&[max + 1]).is_err());
}

/// `--chain 1000000` was accepted with 627,577 IKE fragments; the Total Fragments field is 16
/// bits. A chain too long for 65535 fragments is refused (early, before building it), and the
/// exact fragment count is checked too.
#[test]
fn ike_fragments_are_bounded_by_total_fragments() {
    let mut cfg = Config::new("x25519", Auth::Rsa2048, 1500).unwrap();
    cfg.cert_chain = vec![Auth::Rsa2048.estimated_cert_len(); 1_000_000];
    let e = ikev2::handshake(&cfg).unwrap_err().to_string();
    assert!(e.contains("Total Fragments"), "{e}");
    // Just under the early bound, but over the exact one (a fragment carries less than the MTU).
    cfg.cert_chain = vec![60_000; MAX_FRAGMENTS * 1500 / 60_005];
    let e = ikev2::handshake(&cfg).unwrap_err().to_string();
    assert!(e.contains("Total Fragments"), "{e}");
    // Without IKE fragmentation the chain must fit one IP datagram.
    cfg.ike_fragmentation = false;
    cfg.cert_chain = vec![30_000; 3];
    let e = ikev2::handshake(&cfg).unwrap_err().to_string();
    assert!(e.contains("16-bit IP length"), "{e}");
    // A certificate over the 16-bit payload length, even usize::MAX, is refused by name.
    cfg.ike_fragmentation = true;
    cfg.cert_chain = vec![usize::MAX];
    let e = ikev2::handshake(&cfg).unwrap_err().to_string();
    assert!(
        e.contains("CERT[0]") || e.contains("Total Fragments"),
        "{e}"
    );
    cfg.cert_chain = vec![65_531];
    let e = ikev2::handshake(&cfg).unwrap_err().to_string();
    assert!(
        e.contains("CERT[0]") && e.contains("16-bit IKEv2 payload length"),
        "{e}"
    );
}

/// Every layer, called directly (not through a stack's payload bound), sizes the largest
/// payloads with an error (or, for a layer without a length field, the exact sum) rather than
/// a wrapped length or an overflow panic.
#[test]
fn every_layer_refuses_a_payload_of_usize_max() {
    for text in [
        "eth/vlan/macsec(gcm-aes-256,encrypt)/ipv4(options=8)/udp/esp-tunnel(aes128-gcm-16,tfc=200)/ipv6(ext=8)/tcp(ts)/tls13(aes128-gcm)",
        "eth/ipv4/esp-transport(aes128-cbc,hmac-sha1-96)/sctp(idata)",
        "eth/ipv4/tcp/tls12(aes128-cbc,hmac-sha256,etm)",
        "eth/ipv4/udp/dtls13(aes128-gcm,seq8,cid=4)",
        "eth/ipv4/tcp/ssh(aes128-ctr,hmac-sha2-256-etm)",
        "eth/ipv4/sctp/e2ap",
        "eth/ipv4/udp/ecpri(iq)",
    ] {
        for l in Stack::parse(text).unwrap().layers() {
            for p in [usize::MAX, usize::MAX - 1, 1 << 63] {
                // An error, or a length that holds the payload: never a wrapped, smaller one.
                if let Ok(n) = l.wire_len(p) {
                    assert!(n >= p, "{} wrapped {p} to {n}", l.text());
                }
            }
        }
    }
}

/// `oransim handshake --protocol ikev2 --cert-bytes 0` was accepted: a certificate of 0 bytes
/// is not meaningful. IKEv2 refuses it by name with the allowed range, as TLS 1.3 does; the
/// largest certificate one CERT payload holds is accepted and one byte more is refused.
#[test]
fn a_certificate_of_zero_bytes_is_refused() {
    let mut cfg = Config::new("x25519", Auth::Rsa2048, 1500).unwrap();
    cfg.cert_chain = vec![800, 0];
    let e = ikev2::handshake(&cfg).unwrap_err().to_string();
    assert!(
        e.contains("CERT[1]") && e.contains("1..=65530") && e.contains("got 0"),
        "{e}"
    );
    cfg.cert_chain = vec![ikev2::MAX_CERT_LEN];
    assert!(ikev2::handshake(&cfg).is_ok());
    cfg.cert_chain = vec![ikev2::MAX_CERT_LEN + 1];
    assert!(ikev2::handshake(&cfg).is_err());
    let e = tls_handshake::handshake("x25519", Auth::Rsa2048, &[0], 1500, 4).unwrap_err();
    assert!(e.to_string().contains("1..=16777215"), "{e}");
}

/// An IKEv2 path MTU over the 16-bit IP length is refused by name, not sized.
#[test]
fn an_ike_mtu_over_the_ip_length_is_refused() {
    let cfg = Config::new("x25519", Auth::Rsa2048, usize::MAX).unwrap();
    let e = ikev2::handshake(&cfg).unwrap_err().to_string();
    assert!(e.contains("MTU") && e.contains("65535"), "{e}");
    let cfg = Config::new("x25519", Auth::Rsa2048, ikev2::MAX_MTU).unwrap();
    assert!(ikev2::handshake(&cfg).is_ok());
}

/// A TLS record layer built in code with `max_fragment = 0` (parsing refuses it) is refused
/// when sized, instead of dividing by zero; a payload of 2^32 bytes in 1-byte records is
/// counted by one multiplication, not a loop of 2^32 records.
#[test]
fn tls_records_built_in_code_do_not_divide_by_zero() {
    let st = Stack::parse("eth/ipv4/tcp/tls13(aes128-gcm,record=1)").unwrap();
    let Layer::Tls(mut r) = st.layers()[3].clone() else {
        panic!("tls13 is the fourth layer")
    };
    let big = r.protected(u32::MAX as usize);
    assert_eq!(big.encrypted, 2 * u32::MAX as usize);
    r.max_fragment = 0;
    assert!(r.wire_len(10).is_err());
    assert_eq!(r.records(10), 10);
    let _ = r.protected(10);
}

/// IPv6 links carry at least 1280-byte packets (RFC 8200 §5): a handshake over IPv6 with a
/// smaller MTU is refused in both models, 1280 itself is accepted.
#[test]
fn ipv6_handshakes_need_the_ipv6_minimum_mtu() {
    use protocols::Error;
    use protocols::ikev2::{Auth, Config};
    let mut cfg = Config::new("x25519", Auth::Ed25519, 1000).unwrap();
    cfg.ip_version = 6;
    let e = protocols::ikev2::handshake(&cfg).unwrap_err();
    assert!(matches!(e, Error::MtuTooSmall { min: 1280, .. }), "{e}");
    cfg.mtu = 1280;
    assert!(protocols::ikev2::handshake(&cfg).is_ok());
    let tls = |mtu| protocols::tls_handshake::handshake("x25519", Auth::Ed25519, &[], mtu, 6);
    assert!(matches!(
        tls(1000),
        Err(Error::MtuTooSmall { min: 1280, .. })
    ));
    assert!(tls(1280).is_ok());
}
