//! `Stack::emit` against the field-by-field builders of `sealed.rs` (issue 15): the frames
//! protocols writes, sealed with the cipher over the regions it names, are byte for byte the
//! frames the builders make.

use super::*;

/// Seals an emitted buffer in place over `s`'s regions with an AEAD (or GMAC, when nothing is
/// encrypted) and the oracle's `aead` helper.
fn seal_regions(kind: Aead_, nonce: &[u8], s: &protocols::Sealing, out: &mut [u8]) {
    let sealed = aead(
        kind,
        nonce,
        &out[s.aad.clone()],
        &out[s.encrypted.clone()],
        false,
    );
    let (ct, tag) = sealed.split_at(s.encrypted.len());
    out[s.encrypted.clone()].copy_from_slice(ct);
    out[s.icv.clone()].copy_from_slice(tag);
}

#[test]
fn emitted_esp_packets_are_the_oracle_s_bytes() {
    use protocols::Ids;
    for (suite, kind) in esp_suites() {
        let stack = Stack::parse(&format!("ipv4/esp-transport({suite})/udp")).unwrap();
        let mut out = Vec::new();
        for n in (0..=300).chain([1399, 1400, 1401, 2000]) {
            let seq = n as u32 + 1;
            let ids = Ids {
                spi: 0xdead_beef,
                seq: u64::from(seq),
                src_port: 0x1234,
                dst_port: 0x1194,
                ..Ids::default()
            };
            let e = stack.emit(1, &app(n), &ids, &mut out).unwrap();
            let s = &e.sealing[0];
            let iv8 = (u64::from(seq) * 0x0101_0101).to_be_bytes();
            match kind {
                EspKind::Aead(a, salt_len) => {
                    out[s.iv.clone()].copy_from_slice(&iv8);
                    let nonce = [vec![0x5a; salt_len], iv8.to_vec()].concat();
                    seal_regions(a, &nonce, s, &mut out);
                }
                EspKind::Gmac(a) => {
                    out[s.iv.clone()].copy_from_slice(&iv8);
                    let nonce = [vec![0x5a; 4], iv8.to_vec()].concat();
                    assert!(s.encrypted.is_empty());
                    seal_regions(a, &nonce, s, &mut out);
                }
                EspKind::Cbc(bits, hash, icv) => {
                    let iv = [iv8, iv8].concat();
                    out[s.iv.clone()].copy_from_slice(&iv);
                    let ct = cbc_encrypt(bits, &iv, &out[s.encrypted.clone()]);
                    out[s.encrypted.clone()].copy_from_slice(&ct);
                    let mac = hmac_trunc(hash, &out[s.aad.start..s.encrypted.end], icv);
                    out[s.icv.clone()].copy_from_slice(&mac);
                }
            }
            let want = esp_seal(kind, seq, &udp(&app(n)), 17);
            assert_eq!(out, want, "{suite} n={n}");
        }
    }
}

#[test]
fn emitted_macsec_frames_are_the_oracle_s_bytes() {
    use protocols::Ids;
    use protocols::wire::macsec::{TCI_ES, gcm_iv};
    let sci = u64::from_be_bytes([0x02, 0, 0, 0, 0, 1, 0, 1]);
    for (name, bits) in [("gcm-aes-128", 128), ("gcm-aes-256", 256)] {
        let kind = if bits == 128 {
            Aead_::Gcm128(16)
        } else {
            Aead_::Gcm256(16)
        };
        for (mode, encrypt, offset) in [
            ("integrity", false, 0),
            ("encrypt", true, 0),
            ("encrypt,offset=30", true, 30),
        ] {
            for (sci_opt, with_sci) in [("", true), (",no-sci", false)] {
                let stack =
                    Stack::parse(&format!("eth/macsec({name},{mode}{sci_opt})/ecpri")).unwrap();
                let mut out = Vec::new();
                for n in (0..=200).chain([1500, 2000]) {
                    let ids = Ids {
                        dst_mac: [0x02, 0, 0, 0, 0, 1],
                        src_mac: [0x02, 0, 0, 0, 0, 2],
                        seq: 7,
                        sci,
                        ..Ids::default()
                    };
                    let e = stack.emit(0, &app(n), &ids, &mut out).unwrap();
                    let s = &e.sealing[0];
                    seal_regions(kind, &gcm_iv(sci, 7), s, &mut out);
                    let ecpri = [vec![0x10, 0x00], (n as u16).to_be_bytes().to_vec(), app(n)];
                    let want =
                        macsec_frame(false, bits, encrypt, with_sci, offset, &ecpri.concat());
                    if with_sci {
                        assert_eq!(out, want, "{name} {mode} n={n}");
                    } else {
                        // Without an SCI this crate sets ES (the SCI is then the source MAC
                        // and port 1, 802.1AE §9.5), which the oracle leaves clear. The
                        // ciphertext does not depend on it; the ICV, which covers it, does.
                        assert_eq!(out.len(), want.len());
                        assert_eq!(out[14], want[14] | TCI_ES, "{name} {mode} n={n}");
                        assert_eq!(out[..14], want[..14]);
                        assert_eq!(out[15..s.icv.start], want[15..s.icv.start], "{name} {mode}");
                    }
                }
            }
        }
    }
}

#[test]
fn emitted_tls13_records_are_the_oracle_s_bytes() {
    use protocols::Ids;
    for (suite, kind) in [
        ("aes128-gcm", Aead_::Gcm128(16)),
        ("aes256-gcm", Aead_::Gcm256(16)),
        ("chacha20-poly1305", Aead_::ChaCha),
    ] {
        let stack = Stack::parse(&format!("ipv4/tcp/tls13({suite})")).unwrap();
        let mut out = Vec::new();
        for n in (0..=300).chain([16_384]) {
            let e = stack.emit(2, &app(n), &Ids::default(), &mut out).unwrap();
            seal_regions(kind, &[0x11; 12], &e.sealing[0], &mut out);
            assert_eq!(
                out,
                tls13_record(kind, &[23, 3, 3], &app(n)),
                "{suite} n={n}"
            );
        }
    }
}
