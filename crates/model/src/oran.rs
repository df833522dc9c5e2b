//! O-RAN facts the model computes with: the O-DU and O-RU categories of the WG4 fronthaul
//! delay budget (000 Table 4, T12max) and the three MACsec regions of a budget, the security
//! modes of a fronthaul path, and the protocol stack protecting each interface (000 Table 1).
//!
//! The 168 values of Table 4 follow from two category lists: an O-DU budget per column and an
//! O-RU offset per row, T12max = budget - offset floored at zero. `oransim reproduce` checks them
//! cell by cell against the published table; `oransim plan fronthaul` maps them for a user's path.

use protocols::{AesKey, Suite};

/// O-DU categories of 000 Table 4 (columns) and their delay budget \[us\]: A has 3000 us, B 399
/// us, and each further category 20 us less.
pub fn table4_du() -> Vec<(char, i64)> {
    ('A'..='N')
        .enumerate()
        .map(|(i, c)| {
            (
                c,
                if i == 0 {
                    3000
                } else {
                    399 - 20 * (i as i64 - 1)
                },
            )
        })
        .collect()
}

/// O-RU categories of 000 Table 4 (rows) and their offset \[us\]: O 0 us, P 51 us, and each
/// further category 20 us more.
pub fn table4_ru() -> Vec<(char, i64)> {
    ('O'..='Z')
        .enumerate()
        .map(|(i, c)| (c, if i == 0 { 0 } else { 51 + 20 * (i as i64 - 1) }))
        .collect()
}

/// Table 4: T12max \[us\] for every O-RU row and O-DU column, from the categories: the O-DU
/// budget less the O-RU offset, floored at zero.
pub fn table4() -> Vec<Vec<i64>> {
    table4_ru()
        .iter()
        .map(|&(_, off)| table4_du().iter().map(|&(_, b)| (b - off).max(0)).collect())
        .collect()
}

/// Region of a Table 4 cell with budget `t` \[us\] for MACsec's added delays `on` and `off`
/// \[us\]: 0 fits MACsec with encryption, 1 only without encryption, 2 only without MACsec.
pub fn table4_region(t: f64, on: f64, off: f64) -> usize {
    if t >= on {
        0
    } else if t >= off {
        1
    } else {
        2
    }
}

/// T12max less a one-way delay `delay_ns` for every O-DU / O-RU category pair of 000 Table 4,
/// per O-RU row and O-DU column in [`table4`]'s order \[us\]: the pair fits when
/// it is zero or more. The one comparison `plan fronthaul` and a run's `[report] t12max` share.
pub fn t12max_margins_us(delay_ns: f64) -> Vec<Vec<f64>> {
    table4()
        .iter()
        .map(|row| {
            row.iter()
                .map(|&t12| (t12 as f64 * 1e3 - delay_ns) / 1e3)
                .collect()
        })
        .collect()
}

/// A fronthaul security mode: its name, protocol stack, profile suite (`None`: plaintext) and
/// offload protocol.
pub const FRONTHAUL_MODES: [(&str, &str, Option<Suite>, &str); 4] = [
    ("none", "eth/ecpri", None, "macsec"),
    (
        "macsec-integrity",
        "eth/macsec(gcm-aes-128,integrity)/ecpri",
        Some(Suite::Gmac {
            aes: AesKey::Aes128,
        }),
        "macsec",
    ),
    (
        "macsec-encrypt",
        "eth/macsec(gcm-aes-128,encrypt)/ecpri",
        Some(Suite::Aes128Gcm),
        "macsec",
    ),
    (
        "ipsec",
        "eth/ipv4/esp-tunnel(aes128-gcm-16)/ipv4/udp/ecpri",
        Some(Suite::Aes128Gcm),
        "ipsec",
    ),
];

/// The protocol stack protecting `interface` with profile suite `suite` (`None`: plaintext):
/// ESP tunnel mode over SCTP for E2, F1-C, Xn-C, E1 (000 Table 1: IPsec), TLS 1.3 over TCP for
/// O1, A1, O2 (TLS), the suite's layer from [`protocols::Layer::esp`] and
/// [`protocols::Layer::tls13`]. `None` for an unknown interface, a suite without
/// confidentiality (the copy baseline, GMAC: every one of these interfaces requires it) or one
/// the protocol does not carry (in TLS 1.3 CBC+HMAC and AES-256-CCM). The stack is charged as
/// `suite` ([`protocols::Stack::suite`]; a test checks it).
pub fn interface_stack(interface: &str, suite: Option<Suite>) -> Option<protocols::Stack> {
    use protocols::esp::Mode;
    use protocols::{Layer, Stack};
    let ipsec = ["E2", "F1", "F1-C", "XN", "XN-C", "E1", "X2", "W1"];
    let tls = ["O1", "A1", "O2"];
    let i = interface.to_ascii_uppercase();
    if suite.is_some_and(|s| !s.encrypts()) {
        return None;
    }
    let stack = if ipsec.contains(&i.as_str()) {
        let b = Stack::builder().eth().ipv4();
        match suite {
            None => b,
            Some(s) => b.layer(Layer::esp(Mode::Tunnel, s).ok()?).ipv4(),
        }
        .sctp()
    } else if tls.contains(&i.as_str()) {
        let b = Stack::builder().eth().ipv4().tcp();
        match suite {
            None => b,
            Some(s) => b.layer(Layer::tls13(s).ok()?),
        }
    } else {
        return None;
    };
    // Every layer above sits where it may: the build cannot fail.
    stack.build().ok()
}

#[cfg(test)]
mod tests {
    use protocols::esp::Mode;
    use protocols::{AesKey, Layer, Sha2, Stack};

    use super::{FRONTHAUL_MODES, Suite, interface_stack};

    /// Each mode's stack is the one `protocols` builds from the mode's suite (issue 25: one
    /// suite-to-layer mapping), and its offload protocol is the stack's own.
    #[test]
    fn mode_stacks_are_built_from_their_suite() {
        for (name, text, suite, protocol) in FRONTHAUL_MODES {
            let b = Stack::builder().eth();
            let built = match (suite, protocol) {
                (None, _) => b.ecpri(),
                (Some(s), "macsec") => b.layer(Layer::macsec(s).unwrap()).ecpri(),
                (Some(s), _) => b
                    .ipv4()
                    .layer(Layer::esp(Mode::Tunnel, s).unwrap())
                    .ipv4()
                    .udp()
                    .ecpri(),
            }
            .build()
            .unwrap();
            assert_eq!(built.to_string(), text, "{name}");
            if suite.is_some() {
                assert_eq!(built.protocol().map(|p| p.name()), Some(protocol), "{name}");
            }
        }
    }

    /// Every stack the interface plan builds is charged as the suite asked for (issue 15: one
    /// owner of the suite), and plaintext stacks are charged as none.
    #[test]
    fn interface_stacks_are_charged_as_their_suite() {
        let mut built = 0;
        for interface in ["E2", "F1", "xn", "O1", "A1"] {
            assert_eq!(
                interface_stack(interface, None).map(|s| s.suite()),
                Some(None),
                "{interface}"
            );
            for suite in Suite::ALL {
                let Some(stack) = interface_stack(interface, Some(suite)) else {
                    continue;
                };
                let text = stack.to_string();
                assert_eq!(text.parse::<protocols::Stack>().unwrap(), stack, "{text}");
                assert_eq!(stack.suite(), Some(suite), "{interface} {text}");
                built += 1;
            }
        }
        // The text every output prints, as it was written by hand before the stacks were
        // values (issue 28).
        let text = |i: &str, s: Suite| interface_stack(i, Some(s)).unwrap().to_string();
        let cbc = Suite::AesCbcHmac {
            aes: AesKey::Aes128,
            sha: Sha2::Sha384,
        };
        assert_eq!(
            text("E2", cbc),
            "eth/ipv4/esp-tunnel(aes128-cbc,hmac-sha384-192)/ipv4/sctp"
        );
        assert_eq!(
            text("F1", Suite::Aes256Ccm),
            "eth/ipv4/esp-tunnel(aes256-ccm-16)/ipv4/sctp"
        );
        assert_eq!(
            text("Xn", Suite::ChaCha20Poly1305),
            "eth/ipv4/esp-tunnel(chacha20-poly1305)/ipv4/sctp"
        );
        assert_eq!(
            text("O1", Suite::Aes128Ccm),
            "eth/ipv4/tcp/tls13(aes128-ccm)"
        );
        assert_eq!(
            interface_stack("A1", None).unwrap().to_string(),
            "eth/ipv4/tcp"
        );
        // IPsec carries the 11 AEAD and CBC+HMAC suites, TLS 1.3 four.
        assert_eq!(built, 3 * 11 + 2 * 4);
        assert_eq!(interface_stack("S1", Some(Suite::Aes128Gcm)), None);
        assert_eq!(interface_stack("E2", Some(Suite::Copy)), None);
    }
}
