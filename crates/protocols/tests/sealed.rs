//! Byte-exact means tested against real bytes (issue 3): for every AEAD suite of ESP, MACsec,
//! TLS 1.2/1.3 and DTLS, and every payload from 0 to 2000 bytes, build the frame field by
//! field as the RFC/IEEE text describes it, seal it with the RustCrypto cipher, and compare its
//! length with `Stack::wire_len`. The builders below do not call the model: they pad by the
//! rule each RFC states and let the cipher reject misaligned CBC input. Each packet is then
//! opened again and its trailer parsed, so a builder that produced a wrong layout fails too.
//! Published RFC/IEEE test vectors, kept as data files, are checked in `vectors/`.

use aes_gcm::aead::consts::{U8, U11, U12, U16};
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{AesGcm, aes::Aes128, aes::Aes256};
use cbc::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit, block_padding::NoPadding};
use ccm::Ccm;
use chacha20poly1305::ChaCha20Poly1305;
use hmac::{Hmac, Mac};
use protocols::Stack;
use sha1::Sha1;
use sha2::{Sha256, Sha384, Sha512};

mod emit_oracle;
mod props;
mod vectors;

const MAX_PAYLOAD: usize = 2000;

/// The AEAD constructions the tests seal with.
#[derive(Debug, Clone, Copy)]
enum Aead_ {
    Gcm128(usize),
    Gcm256(usize),
    /// AES-CCM with an 11-byte (ESP, RFC 4309 §4) or 12-byte (TLS) nonce.
    Ccm128(usize),
    Ccm256(usize),
    ChaCha,
}

fn key(n: usize) -> Vec<u8> {
    (0..n as u8)
        .map(|i| i.wrapping_mul(7).wrapping_add(1))
        .collect()
}

macro_rules! seal_with {
    ($ty:ty, $key:expr, $nonce:expr, $aad:expr, $pt:expr, $open:expr) => {{
        let c = <$ty>::new_from_slice($key).unwrap();
        let nonce = $nonce.try_into().unwrap();
        if $open {
            c.decrypt(
                &nonce,
                Payload {
                    msg: $pt,
                    aad: $aad,
                },
            )
            .expect("authentic")
        } else {
            c.encrypt(
                &nonce,
                Payload {
                    msg: $pt,
                    aad: $aad,
                },
            )
            .unwrap()
        }
    }};
}

/// Seals (or, with `open`, opens) `pt` under a fixed key.
fn aead(kind: Aead_, nonce: &[u8], aad: &[u8], pt: &[u8], open: bool) -> Vec<u8> {
    use Aead_::*;
    let k16 = key(16);
    let k32 = key(32);
    // aes-gcm 0.11 offers tags of 12..16 bytes. A GCM tag of t bytes is the first t bytes of
    // the full tag (NIST SP 800-38D §7.1, step 6), so GCM-8 (RFC 4106) is GCM-16 truncated;
    // and GCM encryption is CTR, so sealing the ciphertext again yields the plaintext.
    if let Gcm128(8) | Gcm256(8) = kind {
        let full = if let Gcm128(_) = kind {
            Gcm128(16)
        } else {
            Gcm256(16)
        };
        if open {
            let (ct, tag) = pt.split_at(pt.len() - 8);
            let mut plain = aead(full, nonce, aad, ct, false);
            plain.truncate(ct.len());
            let again = aead(full, nonce, aad, &plain, false);
            assert_eq!(&again[ct.len()..ct.len() + 8], tag, "authentic");
            return plain;
        }
        let mut sealed = aead(full, nonce, aad, pt, false);
        sealed.truncate(pt.len() + 8);
        return sealed;
    }
    match (kind, nonce.len()) {
        (Gcm128(16), 12) => seal_with!(AesGcm<Aes128, U12, U16>, &k16, nonce, aad, pt, open),
        (Gcm128(12), 12) => seal_with!(AesGcm<Aes128, U12, U12>, &k16, nonce, aad, pt, open),
        (Gcm256(16), 12) => seal_with!(AesGcm<Aes256, U12, U16>, &k32, nonce, aad, pt, open),
        (Gcm256(12), 12) => seal_with!(AesGcm<Aes256, U12, U12>, &k32, nonce, aad, pt, open),
        (Ccm128(16), 11) => seal_with!(Ccm<Aes128, U16, U11>, &k16, nonce, aad, pt, open),
        (Ccm128(12), 11) => seal_with!(Ccm<Aes128, U12, U11>, &k16, nonce, aad, pt, open),
        (Ccm128(8), 11) => seal_with!(Ccm<Aes128, U8, U11>, &k16, nonce, aad, pt, open),
        (Ccm256(16), 11) => seal_with!(Ccm<Aes256, U16, U11>, &k32, nonce, aad, pt, open),
        (Ccm256(12), 11) => seal_with!(Ccm<Aes256, U12, U11>, &k32, nonce, aad, pt, open),
        (Ccm256(8), 11) => seal_with!(Ccm<Aes256, U8, U11>, &k32, nonce, aad, pt, open),
        (Ccm128(16), 12) => seal_with!(Ccm<Aes128, U16, U12>, &k16, nonce, aad, pt, open),
        (Ccm128(8), 12) => seal_with!(Ccm<Aes128, U8, U12>, &k16, nonce, aad, pt, open),
        (Ccm256(16), 12) => seal_with!(Ccm<Aes256, U16, U12>, &k32, nonce, aad, pt, open),
        (Ccm256(8), 12) => seal_with!(Ccm<Aes256, U8, U12>, &k32, nonce, aad, pt, open),
        (ChaCha, 12) => seal_with!(ChaCha20Poly1305, &k32, nonce, aad, pt, open),
        other => panic!("no such AEAD in the tests: {other:?}"),
    }
}

fn app(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 31 + 7) as u8).collect()
}

/// Ethernet II header + payload (IEEE 802.3 §3.2): dst, src, EtherType.
fn eth(ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2];
    f.extend_from_slice(&ethertype.to_be_bytes());
    f.extend_from_slice(payload);
    f
}

/// IPv4 header without options (RFC 791 §3.1) + payload.
fn ipv4(proto: u8, payload: &[u8]) -> Vec<u8> {
    let total = (20 + payload.len()) as u16;
    let mut p = vec![0x45, 0];
    p.extend_from_slice(&total.to_be_bytes());
    p.extend_from_slice(&[0, 1, 0x40, 0, 64, proto, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
    p.extend_from_slice(payload);
    p
}

/// UDP header (RFC 768) + payload.
fn udp(payload: &[u8]) -> Vec<u8> {
    let mut p = vec![0x12, 0x34, 0x11, 0x94];
    p.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    p.extend_from_slice(&[0, 0]);
    p.extend_from_slice(payload);
    p
}

/// TCP header without options (RFC 9293 §3.1) + payload.
fn tcp(payload: &[u8]) -> Vec<u8> {
    let mut p = vec![
        0x01, 0xbb, 0xc0, 0x00, 0, 0, 0, 1, 0, 0, 0, 1, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0,
    ];
    p.extend_from_slice(payload);
    p
}

// ---------------------------------------------------------------------------------------------
// ESP (RFC 4303)

#[derive(Debug, Clone, Copy)]
enum EspKind {
    /// AEAD (RFC 4106 / 4309 / 7634): 8-byte IV, salt length, 4-byte alignment.
    Aead(Aead_, usize),
    /// AES-GMAC (RFC 4543): 8-byte IV, everything authenticated, nothing encrypted.
    Gmac(Aead_),
    /// AES-CBC (RFC 3602) + HMAC-SHA-1-96 (RFC 2404) or HMAC-SHA2 truncated (RFC 4868): key
    /// bits, hash, ICV bytes.
    Cbc(u16, &'static str, usize),
}

/// RFC 4303 §2.4: padding bytes 1, 2, 3, ... until payload + padding + 2 is aligned.
fn esp_trailer(payload: &[u8], align: usize, next_header: u8) -> Vec<u8> {
    let mut v = payload.to_vec();
    let mut i = 1u8;
    while !(v.len() + 2).is_multiple_of(align) {
        v.push(i);
        i += 1;
    }
    v.push(i - 1);
    v.push(next_header);
    v
}

/// Checks an opened ESP plaintext: padding 1..n, pad length, next header; returns the payload.
fn esp_untrail(pt: &[u8], next_header: u8) -> Vec<u8> {
    let nh = pt[pt.len() - 1];
    let pad = pt[pt.len() - 2] as usize;
    assert_eq!(nh, next_header);
    let body = &pt[..pt.len() - 2 - pad];
    for (i, b) in pt[body.len()..pt.len() - 2].iter().enumerate() {
        assert_eq!(*b as usize, i + 1, "RFC 4303 §2.4 padding bytes");
    }
    body.to_vec()
}

fn hmac_trunc(hash: &str, data: &[u8], icv: usize) -> Vec<u8> {
    let k = key(64);
    let full = match hash {
        "sha1" => Hmac::<Sha1>::new_from_slice(&k)
            .unwrap()
            .chain_update(data)
            .finalize()
            .into_bytes()
            .to_vec(),
        "sha256" => Hmac::<Sha256>::new_from_slice(&k)
            .unwrap()
            .chain_update(data)
            .finalize()
            .into_bytes()
            .to_vec(),
        "sha384" => Hmac::<Sha384>::new_from_slice(&k)
            .unwrap()
            .chain_update(data)
            .finalize()
            .into_bytes()
            .to_vec(),
        "sha512" => Hmac::<Sha512>::new_from_slice(&k)
            .unwrap()
            .chain_update(data)
            .finalize()
            .into_bytes()
            .to_vec(),
        _ => panic!("{hash}"),
    };
    full[..icv].to_vec()
}

fn cbc_encrypt(bits: u16, iv: &[u8], pt: &[u8]) -> Vec<u8> {
    // NoPadding panics on input that is not a multiple of 16: the ESP padding must align it.
    match bits {
        128 => cbc::Encryptor::<Aes128>::new_from_slices(&key(16), iv)
            .unwrap()
            .encrypt_padded_vec::<NoPadding>(pt),
        256 => cbc::Encryptor::<Aes256>::new_from_slices(&key(32), iv)
            .unwrap()
            .encrypt_padded_vec::<NoPadding>(pt),
        _ => panic!("{bits}"),
    }
}

fn cbc_decrypt(bits: u16, iv: &[u8], ct: &[u8]) -> Vec<u8> {
    match bits {
        128 => cbc::Decryptor::<Aes128>::new_from_slices(&key(16), iv)
            .unwrap()
            .decrypt_padded_vec::<NoPadding>(ct)
            .unwrap(),
        256 => cbc::Decryptor::<Aes256>::new_from_slices(&key(32), iv)
            .unwrap()
            .decrypt_padded_vec::<NoPadding>(ct)
            .unwrap(),
        _ => panic!("{bits}"),
    }
}

/// Builds and seals one ESP packet (header + IV + ciphertext + ICV) around `inner`.
fn esp_seal(kind: EspKind, seq: u32, inner: &[u8], next_header: u8) -> Vec<u8> {
    let mut hdr = vec![0xde, 0xad, 0xbe, 0xef];
    hdr.extend_from_slice(&seq.to_be_bytes());
    let iv8 = (u64::from(seq) * 0x0101_0101).to_be_bytes();
    let mut pkt = hdr.clone();
    match kind {
        EspKind::Aead(a, salt_len) => {
            let pt = esp_trailer(inner, 4, next_header);
            let mut nonce = vec![0x5a; salt_len];
            nonce.extend_from_slice(&iv8);
            let ct = aead(a, &nonce, &hdr, &pt, false);
            pkt.extend_from_slice(&iv8);
            pkt.extend_from_slice(&ct);
            // open it again and check the trailer
            let back = aead(a, &nonce, &hdr, &ct, true);
            assert_eq!(esp_untrail(&back, next_header), inner);
        }
        EspKind::Gmac(a) => {
            let pt = esp_trailer(inner, 4, next_header);
            let mut nonce = vec![0x5a; 4];
            nonce.extend_from_slice(&iv8);
            let mut aad = hdr.clone();
            aad.extend_from_slice(&iv8);
            aad.extend_from_slice(&pt);
            let tag = aead(a, &nonce, &aad, &[], false);
            assert_eq!(tag.len(), 16);
            pkt.extend_from_slice(&iv8);
            pkt.extend_from_slice(&pt);
            pkt.extend_from_slice(&tag);
            assert_eq!(esp_untrail(&pt, next_header), inner);
        }
        EspKind::Cbc(bits, hash, icv) => {
            let pt = esp_trailer(inner, 16, next_header);
            let iv: Vec<u8> = iv8.iter().chain(iv8.iter()).copied().collect();
            let ct = cbc_encrypt(bits, &iv, &pt);
            pkt.extend_from_slice(&iv);
            pkt.extend_from_slice(&ct);
            let mac = hmac_trunc(hash, &pkt, icv);
            pkt.extend_from_slice(&mac);
            assert_eq!(
                esp_untrail(&cbc_decrypt(bits, &iv, &ct), next_header),
                inner
            );
        }
    }
    // RFC 4303 §2.4: the ICV starts on a 4-byte boundary of the ESP packet.
    pkt
}

fn esp_suites() -> Vec<(&'static str, EspKind)> {
    use Aead_::*;
    let mut v = vec![];
    for icv in [8, 12, 16] {
        v.push((
            ["aes128-gcm-8", "aes128-gcm-12", "aes128-gcm-16"][icv / 4 - 2],
            EspKind::Aead(Gcm128(icv), 4),
        ));
        v.push((
            ["aes256-gcm-8", "aes256-gcm-12", "aes256-gcm-16"][icv / 4 - 2],
            EspKind::Aead(Gcm256(icv), 4),
        ));
        v.push((
            ["aes128-ccm-8", "aes128-ccm-12", "aes128-ccm-16"][icv / 4 - 2],
            EspKind::Aead(Ccm128(icv), 3),
        ));
        v.push((
            ["aes256-ccm-8", "aes256-ccm-12", "aes256-ccm-16"][icv / 4 - 2],
            EspKind::Aead(Ccm256(icv), 3),
        ));
    }
    v.push(("chacha20-poly1305", EspKind::Aead(ChaCha, 4)));
    v.push(("aes128-gmac", EspKind::Gmac(Gcm128(16))));
    v.push(("aes256-gmac", EspKind::Gmac(Gcm256(16))));
    v.push(("aes128-cbc,hmac-sha1-96", EspKind::Cbc(128, "sha1", 12)));
    v.push(("aes256-cbc,hmac-sha1-96", EspKind::Cbc(256, "sha1", 12)));
    v.push((
        "aes128-cbc,hmac-sha256-128",
        EspKind::Cbc(128, "sha256", 16),
    ));
    v.push((
        "aes256-cbc,hmac-sha256-128",
        EspKind::Cbc(256, "sha256", 16),
    ));
    v.push((
        "aes256-cbc,hmac-sha384-192",
        EspKind::Cbc(256, "sha384", 24),
    ));
    v.push((
        "aes256-cbc,hmac-sha512-256",
        EspKind::Cbc(256, "sha512", 32),
    ));
    v
}

#[test]
fn esp_tunnel_and_transport_match_sealed_packets_for_every_payload() {
    for (suite, kind) in esp_suites() {
        let tunnel = Stack::parse(&format!("eth/ipv4/esp-tunnel({suite})/ipv4/udp")).unwrap();
        let transport = Stack::parse(&format!("eth/ipv4/esp-transport({suite})/udp")).unwrap();
        let natt = Stack::parse(&format!("eth/ipv4/udp/esp-tunnel({suite})/ipv4/udp")).unwrap();
        for n in 0..=MAX_PAYLOAD {
            let data = app(n);
            let inner = ipv4(17, &udp(&data));
            let esp = esp_seal(kind, n as u32 + 1, &inner, 4);
            let icv_at = esp.len() - tunnel.breakdown(n).unwrap()[2].trailer + 2;
            assert_eq!(icv_at % 4, 0, "{suite}: ICV 4-byte aligned (RFC 4303 §2.4)");
            let frame = eth(0x0800, &ipv4(50, &esp));
            assert_eq!(
                frame.len(),
                tunnel.wire_len(n).unwrap(),
                "{suite} tunnel n={n}"
            );
            let frame = eth(0x0800, &ipv4(17, &udp(&esp)));
            assert_eq!(
                frame.len(),
                natt.wire_len(n).unwrap(),
                "{suite} udp-encap n={n}"
            );
            let esp = esp_seal(kind, n as u32 + 1, &udp(&data), 17);
            let frame = eth(0x0800, &ipv4(50, &esp));
            assert_eq!(
                frame.len(),
                transport.wire_len(n).unwrap(),
                "{suite} transport n={n}"
            );
        }
    }
}

#[test]
fn e2_sack_sealed_is_138_bytes() {
    // 000 §3.1: 62-byte SACK -> 138 bytes with AES-256-CBC + HMAC-SHA2-256-128 in tunnel mode.
    let sack = [
        vec![0x0b, 0x59, 0x0b, 0x59, 1, 2, 3, 4, 0, 0, 0, 0], // SCTP common header
        vec![3, 0, 0, 16, 0, 0, 0, 9, 0, 1, 0, 0, 0, 0, 0, 0], // SACK chunk
    ]
    .concat();
    let plain = eth(0x0800, &ipv4(132, &sack));
    assert_eq!(plain.len(), 62);
    let esp = esp_seal(EspKind::Cbc(256, "sha256", 16), 1, &ipv4(132, &sack), 4);
    let ct = eth(0x0800, &ipv4(50, &esp));
    assert_eq!(ct.len(), 138);
    let stack =
        Stack::parse("eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp(sack)").unwrap();
    assert_eq!(stack.wire_len(0).unwrap(), ct.len());
}

// ---------------------------------------------------------------------------------------------
// MACsec (IEEE 802.1AE-2018)

/// Builds and seals a MACsec frame carrying an eCPRI message (EtherType 0xAEFE).
fn macsec_frame(
    xpn: bool,
    bits: u16,
    encrypt: bool,
    sci: bool,
    offset: usize,
    user: &[u8],
) -> Vec<u8> {
    let da_sa = [0x02u8, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2];
    let pn: u32 = 7;
    // secure data = original EtherType + user data (802.1AE §9.1)
    let mut secure = 0xAEFEu16.to_be_bytes().to_vec();
    secure.extend_from_slice(user);
    // TCI/AN (§9.3-9.4): V=0 ES SC SCB E C AN
    let e_c = if encrypt { 0b0000_1100 } else { 0 };
    let sc = if sci { 0b0010_0000 } else { 0 };
    let sl = if secure.len() < 48 {
        secure.len() as u8
    } else {
        0
    }; // §9.7
    let mut sectag = vec![0x88, 0xE5, e_c | sc, sl];
    sectag.extend_from_slice(&pn.to_be_bytes());
    let sci_bytes = [0x02, 0, 0, 0, 0, 1, 0, 1];
    if sci {
        sectag.extend_from_slice(&sci_bytes);
    }
    // IV: SCI || PN (§14.5), or XPN: (SSCI || PN64) XOR salt (§14.7)
    let nonce: Vec<u8> = if xpn {
        let mut n = vec![0, 0, 0, 1];
        n.extend_from_slice(&u64::from(pn).to_be_bytes());
        n.iter().zip([0x5au8; 12]).map(|(a, b)| a ^ b).collect()
    } else {
        let mut n = sci_bytes.to_vec();
        n.extend_from_slice(&pn.to_be_bytes());
        n
    };
    let mut aad = da_sa.to_vec();
    aad.extend_from_slice(&sectag);
    let kind = if bits == 128 {
        Aead_::Gcm128(16)
    } else {
        Aead_::Gcm256(16)
    };
    let (clear, protected) = if encrypt {
        secure.split_at(offset.min(secure.len()))
    } else {
        (&secure[..], &[][..])
    };
    aad.extend_from_slice(clear);
    let sealed = aead(kind, &nonce, &aad, protected, false);
    assert_eq!(aead(kind, &nonce, &aad, &sealed, true), protected);
    let mut frame = da_sa.to_vec();
    frame.extend_from_slice(&sectag);
    frame.extend_from_slice(clear);
    frame.extend_from_slice(&sealed);
    frame
}

#[test]
fn macsec_matches_sealed_frames_for_every_payload() {
    for (name, xpn, bits) in [
        ("gcm-aes-128", false, 128),
        ("gcm-aes-256", false, 256),
        ("gcm-aes-xpn-128", true, 128),
        ("gcm-aes-xpn-256", true, 256),
    ] {
        for (mode, encrypt, offset) in [
            ("integrity", false, 0),
            ("encrypt", true, 0),
            ("encrypt,offset=30", true, 30),
            ("encrypt,offset=50", true, 50),
        ] {
            for (sci_opt, sci) in [("", true), (",no-sci", false)] {
                let stack =
                    Stack::parse(&format!("eth/macsec({name},{mode}{sci_opt})/ecpri")).unwrap();
                let plain = Stack::parse("eth/ecpri").unwrap();
                for n in 0..=MAX_PAYLOAD {
                    let ecpri = [
                        vec![0x10, 0x00],
                        ((n) as u16).to_be_bytes().to_vec(),
                        app(n),
                    ]
                    .concat();
                    let frame = macsec_frame(xpn, bits, encrypt, sci, offset, &ecpri);
                    assert_eq!(
                        frame.len(),
                        stack.wire_len(n).unwrap(),
                        "{name} {mode}{sci_opt} n={n}"
                    );
                    assert_eq!(
                        frame.len() - eth(0xAEFE, &ecpri).len(),
                        if sci { 32 } else { 24 }
                    );
                    assert_eq!(plain.wire_len(n).unwrap(), eth(0xAEFE, &ecpri).len());
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// TLS 1.3 (RFC 8446 §5.2), TLS 1.2 (RFC 5246 §6.2.3), DTLS 1.2 (RFC 6347 §4.1.2.1), DTLS 1.3
// (RFC 9147 §4)

fn tls13_record(kind: Aead_, header_prefix: &[u8], content: &[u8]) -> Vec<u8> {
    let mut inner = content.to_vec();
    inner.push(23); // application_data
    let tag = match kind {
        Aead_::Ccm128(8) => 8,
        _ => 16,
    };
    let len = (inner.len() + tag) as u16;
    let mut header = header_prefix.to_vec();
    header.extend_from_slice(&len.to_be_bytes());
    let nonce = [0x11u8; 12];
    let ct = aead(kind, &nonce, &header, &inner, false);
    let back = aead(kind, &nonce, &header, &ct, true);
    assert_eq!(back.last(), Some(&23));
    [header, ct].concat()
}

fn tls12_aead_record(kind: Aead_, header_prefix: &[u8], explicit: bool, content: &[u8]) -> Vec<u8> {
    // additional_data = seq_num + type + version + length (RFC 5246 §6.2.3.3)
    let mut aad = vec![0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3];
    aad.extend_from_slice(&(content.len() as u16).to_be_bytes());
    let explicit_nonce = [0u8, 0, 0, 0, 0, 0, 0, 1];
    let nonce: Vec<u8> = if explicit {
        [vec![0x22; 4], explicit_nonce.to_vec()].concat()
    } else {
        vec![0x22; 12]
    };
    let ct = aead(kind, &nonce, &aad, content, false);
    let body = if explicit {
        [explicit_nonce.to_vec(), ct].concat()
    } else {
        ct
    };
    let mut rec = header_prefix.to_vec();
    rec.extend_from_slice(&(body.len() as u16).to_be_bytes());
    rec.extend_from_slice(&body);
    rec
}

/// TLS 1.2 CBC record (RFC 5246 §6.2.3.2), MAC-then-encrypt or encrypt-then-MAC (RFC 7366).
fn tls12_cbc_record(bits: u16, hash: &str, mac_len: usize, etm: bool, content: &[u8]) -> Vec<u8> {
    let iv = [0x33u8; 16];
    let pad = |mut v: Vec<u8>| {
        let mut p = 0u8;
        while !(v.len() + usize::from(p) + 1).is_multiple_of(16) {
            p += 1;
        }
        v.extend(std::iter::repeat_n(p, usize::from(p) + 1));
        v
    };
    let body = if etm {
        let ct = cbc_encrypt(bits, &iv, &pad(content.to_vec()));
        let mut b = [iv.to_vec(), ct].concat();
        let mac = hmac_trunc(hash, &b, mac_len);
        b.extend_from_slice(&mac);
        b
    } else {
        let mac = hmac_trunc(hash, content, mac_len);
        let ct = cbc_encrypt(bits, &iv, &pad([content.to_vec(), mac].concat()));
        [iv.to_vec(), ct].concat()
    };
    let mut rec = vec![23, 3, 3];
    rec.extend_from_slice(&(body.len() as u16).to_be_bytes());
    rec.extend_from_slice(&body);
    rec
}

#[test]
fn tls_and_dtls_records_match_sealed_records_for_every_payload() {
    use Aead_::*;
    let tls13 = [
        ("aes128-gcm", Gcm128(16)),
        ("aes256-gcm", Gcm256(16)),
        ("chacha20-poly1305", ChaCha),
        ("aes128-ccm", Ccm128(16)),
        ("aes128-ccm-8", Ccm128(8)),
    ];
    let tls12 = [
        ("aes128-gcm", Gcm128(16), true),
        ("aes256-gcm", Gcm256(16), true),
        ("chacha20-poly1305", ChaCha, false),
        ("aes128-ccm", Ccm128(16), true),
        ("aes256-ccm", Ccm256(16), true),
        ("aes128-ccm-8", Ccm128(8), true),
        ("aes256-ccm-8", Ccm256(8), true),
    ];
    let mut stacks13 = vec![];
    for (name, kind) in tls13 {
        stacks13.push((
            kind,
            Stack::parse(&format!("eth/ipv4/tcp/tls13({name})")).unwrap(),
            Stack::parse(&format!("eth/ipv4/udp/dtls13({name})")).unwrap(),
        ));
    }
    let mut stacks12 = vec![];
    for (name, kind, explicit) in tls12 {
        stacks12.push((
            kind,
            explicit,
            Stack::parse(&format!("eth/ipv4/tcp/tls12({name})")).unwrap(),
            Stack::parse(&format!("eth/ipv4/udp/dtls12({name})")).unwrap(),
        ));
    }
    let cbc = [
        ("aes128-cbc,hmac-sha256", 128, "sha256", 32),
        ("aes256-cbc,hmac-sha384", 256, "sha384", 48),
    ];
    for n in 0..=MAX_PAYLOAD {
        let data = app(n);
        for (kind, tls, dtls) in &stacks13 {
            let rec = tls13_record(*kind, &[23, 3, 3], &data);
            assert_eq!(
                eth(0x0800, &ipv4(6, &tcp(&rec))).len(),
                tls.wire_len(n).unwrap(),
                "{tls} n={n}"
            );
            // DTLS 1.3 unified header 001CSLEE with S=1 (16-bit seq), L=1 (length): 0x2c|epoch
            let rec = tls13_record(*kind, &[0x2f, 0x00, 0x01], &data);
            assert_eq!(
                eth(0x0800, &ipv4(17, &udp(&rec))).len(),
                dtls.wire_len(n).unwrap(),
                "{dtls} n={n}"
            );
        }
        for (kind, explicit, tls, dtls) in &stacks12 {
            let rec = tls12_aead_record(*kind, &[23, 3, 3], *explicit, &data);
            assert_eq!(
                eth(0x0800, &ipv4(6, &tcp(&rec))).len(),
                tls.wire_len(n).unwrap(),
                "{tls} n={n}"
            );
            let hdr = [23, 0xfe, 0xfd, 0, 1, 0, 0, 0, 0, 0, 1];
            let rec = tls12_aead_record(*kind, &hdr, *explicit, &data);
            assert_eq!(
                eth(0x0800, &ipv4(17, &udp(&rec))).len(),
                dtls.wire_len(n).unwrap(),
                "{dtls} n={n}"
            );
        }
        for (name, bits, hash, mac_len) in cbc {
            for etm in [false, true] {
                let opt = if etm { ",etm" } else { "" };
                let stack = Stack::parse(&format!("eth/ipv4/tcp/tls12({name}{opt})")).unwrap();
                let rec = tls12_cbc_record(bits, hash, mac_len, etm, &data);
                assert_eq!(
                    eth(0x0800, &ipv4(6, &tcp(&rec))).len(),
                    stack.wire_len(n).unwrap(),
                    "{stack} n={n}"
                );
            }
        }
    }
}

#[test]
fn tls13_splits_large_payloads_into_full_records() {
    let stack = Stack::parse("ipv4/tcp/tls13(aes128-gcm)").unwrap();
    for n in [16_383, 16_384, 16_385, 40_000] {
        let data = app(n);
        let recs: Vec<u8> = data
            .chunks(16_384)
            .flat_map(|c| tls13_record(Aead_::Gcm128(16), &[23, 3, 3], c))
            .collect();
        assert_eq!(
            ipv4(6, &tcp(&recs)).len(),
            stack.wire_len(n).unwrap(),
            "n={n}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// SSH with AES-GCM (RFC 5647 §7): packet_length in clear as AAD.

#[test]
fn ssh_aes_gcm_matches_sealed_packets() {
    let stack = Stack::parse("eth/ipv4/tcp/ssh(aes128-gcm)").unwrap();
    for n in 0..=MAX_PAYLOAD {
        // SSH_MSG_CHANNEL_DATA (RFC 4254 §5.2)
        let mut msg = vec![94, 0, 0, 0, 0];
        msg.extend_from_slice(&(n as u32).to_be_bytes());
        msg.extend_from_slice(&app(n));
        let mut pad = 4;
        while (1 + msg.len() + pad) % 16 != 0 {
            pad += 1;
        }
        let mut pt = vec![pad as u8];
        pt.extend_from_slice(&msg);
        pt.extend(std::iter::repeat_n(0u8, pad));
        let len = (pt.len() as u32).to_be_bytes();
        let ct = aead(Aead_::Gcm128(16), &[0x44; 12], &len, &pt, false);
        let packet = [len.to_vec(), ct].concat();
        assert_eq!(
            eth(0x0800, &ipv4(6, &tcp(&packet))).len(),
            stack.wire_len(n).unwrap(),
            "n={n}"
        );
    }
}
