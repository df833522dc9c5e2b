//! E2 with IPsec (000 §4, 001): what the E2 studies share, the profile, the stacks and the ESP
//! suites.

use protocols::Suite;

/// The Colosseum E2 profile (fitted to 000 §4).
pub(super) const E2_PROFILE: &str = "calibration/colosseum-e2.toml";
/// The profile suite of the SACK study's ESP tunnel.
pub(super) const E2_CBC: Suite = Suite::AesCbcHmac {
    aes_bits: 256,
    sha_bits: 256,
};
/// E2AP data in the ESP tunnel (ciphertext).
pub(super) const E2_CT_DATA: &str =
    "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp(data)/e2ap";
/// The SCTP SACK in the ESP tunnel.
pub(super) const E2_CT_SACK: &str =
    "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp(sack)";
/// E2AP data in clear (plaintext).
pub(super) const E2_PT_DATA: &str = "eth/ipv4/sctp(data)/e2ap";
/// The SCTP SACK in clear.
pub(super) const E2_PT_SACK: &str = "eth/ipv4/sctp(sack)";

/// An ESP suite of the E2 experiments: profile suite, ESP arguments, TCP goodput per 1500 B
/// packet \[bytes\] (colosseum-e2.toml header), the target id of its Table 3 throughput.
pub(super) struct E2Suite {
    pub(super) label: &'static str,
    pub(super) suite: Option<Suite>,
    pub(super) esp: Option<&'static str>,
    pub(super) goodput: usize,
    pub(super) table3: Option<&'static str>,
}

/// The suites of 000 Table 3, plaintext first.
pub(super) const E2_SUITES: &[E2Suite] = &[
    E2Suite {
        label: "PT",
        suite: None,
        esp: None,
        goodput: 1448,
        table3: None,
    },
    E2Suite {
        label: "AES128-CBC",
        suite: Some(Suite::AesCbcHmac {
            aes_bits: 128,
            sha_bits: 256,
        }),
        esp: Some("aes128-cbc,hmac-sha256-128"),
        goodput: 1386,
        table3: Some("000/table3/aes128-cbc"),
    },
    E2Suite {
        label: "AES256-CBC",
        suite: Some(E2_CBC),
        esp: Some("aes256-cbc,hmac-sha256-128"),
        goodput: 1386,
        table3: Some("000/table3/aes256-cbc"),
    },
    E2Suite {
        label: "AES128-CCM",
        suite: Some(Suite::Aes128Ccm),
        esp: Some("aes128-ccm"),
        goodput: 1394,
        table3: Some("000/table3/aes128-ccm"),
    },
    E2Suite {
        label: "AES256-CCM",
        suite: Some(Suite::Aes256Ccm),
        esp: Some("aes256-ccm"),
        goodput: 1394,
        table3: Some("000/table3/aes256-ccm"),
    },
    E2Suite {
        label: "ChaCha20-Poly1305",
        suite: Some(Suite::ChaCha20Poly1305),
        esp: Some("chacha20-poly1305"),
        goodput: 1394,
        table3: Some("000/table3/chacha20-poly1305"),
    },
    E2Suite {
        label: "AES256-GCM",
        suite: Some(Suite::Aes256Gcm),
        esp: Some("aes256-gcm"),
        goodput: 1394,
        table3: Some("000/table3/aes256-gcm"),
    },
];

impl E2Suite {
    pub(super) fn stack(&self, upper: &str) -> String {
        match self.esp {
            Some(a) => format!("eth/ipv4/esp-tunnel({a})/{upper}"),
            None => format!("eth/{upper}"),
        }
    }
}
