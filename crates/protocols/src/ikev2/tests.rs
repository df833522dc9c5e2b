//! Unit tests of the IKEv2 message sequence.

use super::*;

fn hs(ke: &str, mtu: usize) -> Handshake {
    handshake(&Config::new(ke, Auth::Rsa2048, mtu).unwrap()).unwrap()
}

#[test]
fn ike_sa_init_sizes_by_hand() {
    // X25519, AES-GCM: HDR 28 + SA (4+8+12+8+8 = 40) + KE (4+4+32) + Ni (4+32)
    // + NAT-D 2*28 + FRAG 8 + SIG_HASH 16 = 28+40+40+36+56+8+16 = 224; IPv4+UDP: 252.
    let h = hs("x25519", 1500);
    assert_eq!(h.exchanges[0].request.ike_len, 224);
    assert_eq!(h.exchanges[0].request.ip_len, 252);
    // The response adds CERTREQ (4+1+20).
    assert_eq!(h.exchanges[0].response.ike_len, 224 + 25);
    assert_eq!(h.setup_round_trips, 2);
}

#[test]
fn mlkem_fits_or_not() {
    let h768 = hs("mlkem768", 1500);
    let r = &h768.exchanges[0].request;
    assert_eq!(r.ike_len, 224 - 32 + 1184);
    assert_eq!(
        h768.ike_sa_init_fits[0],
        MtuFit {
            mtu: 1280,
            request: false,
            response: false
        }
    );
    assert_eq!(
        h768.ike_sa_init_fits[1],
        MtuFit {
            mtu: 1500,
            request: true,
            response: true
        }
    );
    let h1024 = hs("mlkem1024", 1500);
    let r = &h1024.exchanges[0].request;
    assert!(!r.fits_mtu);
    // IKE_SA_INIT cannot use IKE fragmentation (RFC 7383 §2.5): IP fragments.
    assert_eq!(r.fragmentation, Fragmentation::Ip);
    assert_eq!(r.datagrams.len(), 2);
    assert_eq!(r.datagrams.iter().sum::<usize>(), r.ip_len + 20);
}

#[test]
fn hybrids_add_intermediate_round_trips_and_ike_fragments() {
    let h = hs("x25519+mlkem768+hqc-192", 1280);
    assert_eq!(h.setup_round_trips, 4);
    let hqc = &h.exchanges[2];
    assert_eq!(hqc.response.fragmentation, Fragmentation::Ike);
    assert!(hqc.response.datagrams.iter().all(|d| *d <= 1280));
    assert!(hqc.response.datagrams.len() >= 8);
}

#[test]
fn mceliece_does_not_fit_a_ke_payload() {
    let e = handshake(&Config::new("x25519+mceliece348864", Auth::Psk, 1500).unwrap()).unwrap_err();
    assert!(e.to_string().contains("16-bit"), "{e}");
    assert!(Config::new("x25519+nope", Auth::Psk, 1500).is_err());
    assert!(
        Auth::parse("dsa")
            .unwrap_err()
            .to_string()
            .contains("mldsa65")
    );
}

#[test]
fn certificate_estimates_are_plausible() {
    assert!((700..1000).contains(&Auth::Rsa2048.estimated_cert_len()));
    assert!((400..600).contains(&Auth::EcdsaP256.estimated_cert_len()));
    assert!((5000..6000).contains(&Auth::MlDsa65.estimated_cert_len()));
}
