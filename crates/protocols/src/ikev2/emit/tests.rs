//! The writer against the model: every message and payload length, for every peer, key
//! exchange, authentication and MTU regime; the payload chains read back field by field.

use super::der::{algorithm_id, certificate, name_of_len};
use super::*;
use crate::ikev2::{Auth, IkeCipher, Peer, handshake};

/// Reads a payload chain starting with type `first`: (type, length) of each payload.
fn chain(mut bytes: &[u8], first: u8) -> Vec<(u8, usize)> {
    let mut out = Vec::new();
    let mut next = first;
    while next != NO_NEXT {
        let len = usize::from(u16::from_be_bytes([bytes[2], bytes[3]]));
        out.push((next, len));
        next = bytes[0];
        bytes = &bytes[len..];
    }
    out
}

fn configs() -> Vec<Config> {
    let mut out = Vec::new();
    for peer in [
        Peer::Minimal,
        Peer::Strongswan,
        Peer::StrongswanMinimal,
        Peer::Libreswan,
    ] {
        for ke in ["x25519", "mlkem768", "x25519+mlkem768"] {
            for auth in [Auth::Psk, Auth::Ed25519, Auth::Rsa2048] {
                // Unfragmented, IKE-fragmented, IP-fragmented; IPv6 once each way.
                for (mtu, ike_frag, v) in [
                    (1500, true, 4),
                    (576, true, 4),
                    (1280, false, 4),
                    (1280, true, 6),
                    (1280, false, 6),
                ] {
                    let mut cfg = Config::new(ke, auth, mtu).unwrap();
                    cfg.peer = peer;
                    cfg.ike_fragmentation = ike_frag;
                    cfg.ip_version = v;
                    out.push(cfg.clone());
                    cfg.cipher = IkeCipher::AesCbcSha256;
                    out.push(cfg);
                }
            }
        }
    }
    out
}

#[test]
fn every_message_and_payload_has_the_models_length() {
    let mut kinds = [0usize; 3];
    for cfg in configs() {
        let h = handshake(&cfg).unwrap();
        let ds = datagrams(&cfg, &h).unwrap();
        for (i, e) in h.exchanges.iter().enumerate() {
            for (m, initiator) in [(&e.request, true), (&e.response, false)] {
                let mine: Vec<&Datagram> = ds
                    .iter()
                    .filter(|d| d.exchange == i && d.from_initiator == initiator)
                    .collect();
                kinds[match m.fragmentation {
                    Fragmentation::None => 0,
                    Fragmentation::Ike => 1,
                    Fragmentation::Ip => 2,
                }] += 1;
                let marker = if mine[0].port == NAT_T_PORT { 4 } else { 0 };
                // The IKE header's length and the IP lengths are the model's.
                let ike = &mine[0].bytes[marker..];
                let ike_len = u32::from_be_bytes(ike[24..28].try_into().unwrap()) as usize;
                if m.fragmentation != Fragmentation::Ike {
                    assert_eq!(ike_len, m.ike_len, "{}", e.name);
                    assert_eq!(mine.len(), 1);
                }
                let ips: Vec<usize> = mine.iter().flat_map(|d| d.ip_lens.clone()).collect();
                assert_eq!(ips, m.datagrams, "{}", e.name);
                // Inner payloads, read back from the plaintext (all fragments joined).
                let want: Vec<(u8, usize)> = m
                    .payloads
                    .iter()
                    .map(|p| (payload_type(&p.content), p.len))
                    .collect();
                let (first, inner) = if let Some(s) = &mine[0].seal {
                    let first = mine[0].bytes[s.aad.end
                        - if m.fragmentation == Fragmentation::Ike {
                            8
                        } else {
                            4
                        }];
                    let mut inner = Vec::new();
                    for d in &mine {
                        let s = d.seal.as_ref().unwrap();
                        let pt = &d.bytes[s.plaintext.clone()];
                        let pad = usize::from(*pt.last().unwrap());
                        inner.extend_from_slice(&pt[..pt.len() - 1 - pad]);
                        assert_eq!(s.icv.len(), 16);
                        assert_eq!(s.icv.end, d.bytes.len());
                    }
                    (first, inner)
                } else {
                    (ike[16], ike[HEADER..].to_vec())
                };
                assert_eq!(chain(&inner, first), want, "{} {:?}", e.name, cfg.peer);
                assert_eq!(inner.len(), m.payloads.iter().map(|p| p.len).sum::<usize>());
                // Ethernet frames: 14 bytes more than each IP packet the model counts.
                let frames: Vec<usize> = mine
                    .iter()
                    .flat_map(|d| frames(&cfg, d).unwrap())
                    .map(|f| f.len() - 14)
                    .collect();
                assert_eq!(frames, m.datagrams, "{}", e.name);
            }
        }
    }
    // Every regime was exercised.
    assert!(kinds.iter().all(|&k| k > 0), "{kinds:?}");
}

#[test]
fn der_stand_ins_have_exact_lengths() {
    for len in 13..2000 {
        if let Some(n) = name_of_len(len, 3) {
            assert_eq!(n.len(), len);
        }
    }
    // Every length but those the length octets skip.
    assert!(name_of_len(140, 0).is_some());
    for auth in [Auth::Ed25519, Auth::Rsa2048, Auth::EcdsaP256, Auth::MlDsa65] {
        for len in [auth.estimated_cert_len(), 400, 1000, 1500, 5000] {
            let c = certificate(len, auth, 1).unwrap();
            assert_eq!(c.len(), len, "{auth:?} {len}");
        }
        assert_eq!(algorithm_id(auth).len(), auth.algorithm_id_len());
    }
}

#[test]
fn ip_headers_carry_valid_checksums() {
    let mut cfg = Config::new("mlkem768", Auth::Rsa2048, 576).unwrap();
    cfg.ike_fragmentation = false;
    let h = handshake(&cfg).unwrap();
    let d = &datagrams(&cfg, &h).unwrap()[0];
    let fs = frames(&cfg, d).unwrap();
    assert!(fs.len() > 1);
    for f in &fs {
        assert_eq!(crate::wire::ipv4::checksum(&f[14..34]), 0);
    }
}
