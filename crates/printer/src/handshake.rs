//! `oransim handshake`'s outputs: an IKEv2 or TLS 1.3 handshake's messages, sizes, datagrams
//! and round trips.

use std::fmt::Write as _;

use protocols::ikev2::{self, Fragmentation};
use protocols::tls_handshake;

use crate::table::Align::{Left as L, Right as R};
use crate::table::Table;

/// Schema of `oransim handshake --protocol ikev2 --format json`.
pub const IKEV2_SCHEMA: &str = "oransim.handshake.ikev2/1";
/// Schema of `oransim handshake --protocol tls13 --format json`.
pub const TLS_SCHEMA: &str = "oransim.handshake.tls13/1";

/// The IKEv2 handshake as JSON ([`IKEV2_SCHEMA`]).
pub fn ikev2_json(h: &ikev2::Handshake) -> crate::Result<String> {
    crate::json_versioned(IKEV2_SCHEMA, h, "IKEv2 handshake")
}

/// The TLS 1.3 handshake as JSON ([`TLS_SCHEMA`]).
pub fn tls_json(h: &tls_handshake::Handshake) -> crate::Result<String> {
    crate::json_versioned(TLS_SCHEMA, h, "TLS 1.3 handshake")
}

/// An authentication method as users type it (`rsa2048`, `ecdsa-p256`, `mldsa44`).
pub fn auth_name(a: ikev2::Auth) -> &'static str {
    use ikev2::Auth;
    match a {
        Auth::Psk => "psk",
        Auth::Rsa2048 => "rsa2048",
        Auth::Rsa3072 => "rsa3072",
        Auth::EcdsaP256 => "ecdsa-p256",
        Auth::Ed25519 => "ed25519",
        Auth::MlDsa44 => "mldsa44",
        Auth::MlDsa65 => "mldsa65",
        Auth::MlDsa87 => "mldsa87",
    }
}

/// The IKEv2 handshake as text: each exchange's request and response, then the set-up totals.
pub fn ikev2_table(h: &ikev2::Handshake) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "IKEv2  ke {}  auth {}  certificates {:?}{} B  path MTU {}{}",
        h.ke,
        auth_name(h.auth),
        h.cert_chain,
        h.cert_chain_r
            .as_ref()
            .map_or_else(String::new, |r| format!(" / responder {r:?}")),
        h.mtu,
        if h.peer.is_minimal() {
            String::new()
        } else {
            format!("  peer {}", h.peer.name())
        }
    );
    let mut t = Table::new(["exchange", "dir", "ike_len", "ip_len", "fits", "datagrams"]);
    t.widths(&[36, 4, 8, 8, 5, 0])
        .gaps(&[" ", " ", " ", " ", "  "])
        .align(&[L, L, R, R, R, L])
        .trim_end(false);
    for e in &h.exchanges {
        for (dir, m) in [("req", &e.request), ("resp", &e.response)] {
            let how = match m.fragmentation {
                Fragmentation::None => "",
                Fragmentation::Ike => " (IKE fragments, RFC 7383)",
                Fragmentation::Ip => " (IP fragments)",
            };
            t.row([
                e.name.to_string(),
                dir.to_owned(),
                m.ike_len.to_string(),
                m.ip_len.to_string(),
                if m.fits_mtu { "yes" } else { "no" }.to_owned(),
                format!("{:?}{how}", m.datagrams),
            ]);
        }
    }
    s.push_str(&t.text());
    let _ = writeln!(
        s,
        "\nsetup: {} round trips, {} datagrams, {} B",
        h.setup_round_trips, h.setup_datagrams, h.setup_bytes
    );
    for f in &h.ike_sa_init_fits {
        let _ = writeln!(
            s,
            "IKE_SA_INIT fits MTU {}: request {}, response {}",
            f.mtu, f.request, f.response
        );
    }
    s
}

/// The TLS 1.3 handshake as text: messages, flights, round trips.
pub fn tls_table(h: &tls_handshake::Handshake) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "TLS 1.3  key share {}  auth {}  certificates {:?} B  path MTU {}",
        h.key_share,
        auth_name(h.auth),
        h.cert_chain,
        h.mtu
    );
    let mut t = Table::new(["message", "bytes"]);
    t.widths(&[28, 8]).gap(" ").trim_end(false);
    for m in &h.messages {
        t.row([m.name.to_string(), m.len.to_string()]);
    }
    s.push_str(&t.text());
    for f in &h.flights {
        let _ = writeln!(
            s,
            "flight {:<21} {:>8} B in {} TLS record bytes, {} TCP segments (MSS {})",
            f.name, f.handshake_bytes, f.record_bytes, f.segments, h.mss
        );
    }
    let _ = writeln!(
        s,
        "\nround trips to first application data: {} (server flight over initcwnd 10: {})",
        h.round_trips, h.exceeds_initcwnd
    );
    s
}
