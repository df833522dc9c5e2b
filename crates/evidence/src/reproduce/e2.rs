//! E2 with IPsec (000 §4, 001): what the E2 studies share, the profile, the stacks and the ESP
//! suites.

use protocols::esp::Mode;
use protocols::{AesKey, Layer, Sha2, Stack, Suite};

use super::Result;

/// The Colosseum E2 profile (fitted to 000 §4).
/// The two profile nodes of the E2 scenarios (`scenarios/e2_*.toml`), by name: the gNB and
/// the near-RT RIC.
pub(super) const E2_NODES: [&str; 2] = ["gnb", "ric"];

pub(super) const E2_PROFILE: &str = "calibration/colosseum-e2.toml";
/// The profile suite of the SACK study's ESP tunnel.
pub(super) const E2_CBC: Suite = Suite::AesCbcHmac {
    aes: AesKey::Aes256,
    sha: Sha2::Sha256,
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

/// TCP with timestamps, the transport of the E2 throughput runs (`tcp(ts)`).
pub(super) const TCP_TS: Layer = Layer::Tcp(protocols::tcp::Tcp {
    options: protocols::tcp::TIMESTAMPS,
});
/// UDP, the transport of the E2 size runs.
pub(super) const UDP: Layer = Layer::Udp(protocols::udp::Udp);

/// An ESP suite of the E2 experiments: profile suite (its ESP transform from
/// [`Layer::esp`]), TCP goodput per 1500 B packet \[bytes\] (colosseum-e2.toml header), the
/// name of its Table 3 throughput among a study's `[inputs]`.
pub(super) struct E2Suite {
    pub(super) label: &'static str,
    pub(super) suite: Option<Suite>,
    pub(super) goodput: usize,
    pub(super) table3: Option<&'static str>,
}

/// The suites of 000 Table 3, plaintext first.
pub(super) const E2_SUITES: &[E2Suite] = &[
    E2Suite {
        label: "PT",
        suite: None,
        goodput: 1448,
        table3: None,
    },
    E2Suite {
        label: "AES128-CBC",
        suite: Some(Suite::AesCbcHmac {
            aes: AesKey::Aes128,
            sha: Sha2::Sha256,
        }),
        goodput: 1386,
        table3: Some("table3-aes128-cbc"),
    },
    E2Suite {
        label: "AES256-CBC",
        suite: Some(E2_CBC),
        goodput: 1386,
        table3: Some("table3-aes256-cbc"),
    },
    E2Suite {
        label: "AES128-CCM",
        suite: Some(Suite::Aes128Ccm),
        goodput: 1394,
        table3: Some("table3-aes128-ccm"),
    },
    E2Suite {
        label: "AES256-CCM",
        suite: Some(Suite::Aes256Ccm),
        goodput: 1394,
        table3: Some("table3-aes256-ccm"),
    },
    E2Suite {
        label: "ChaCha20-Poly1305",
        suite: Some(Suite::ChaCha20Poly1305),
        goodput: 1394,
        table3: Some("table3-chacha20-poly1305"),
    },
    E2Suite {
        label: "AES256-GCM",
        suite: Some(Suite::Aes256Gcm),
        goodput: 1394,
        table3: Some("table3-aes256-gcm"),
    },
];

impl E2Suite {
    /// `eth`, then for a suite `ipv4/esp-tunnel(...)`, then `ipv4` and `transport`.
    pub(super) fn stack(&self, transport: Layer) -> Result<Stack> {
        let b = Stack::builder().eth();
        let b = match self.suite {
            Some(s) => b.ipv4().layer(Layer::esp(Mode::Tunnel, s)?),
            None => b,
        };
        Ok(b.ipv4().layer(transport).build()?)
    }
}

#[cfg(test)]
mod tests {
    use protocols::esp::Mode;
    use protocols::sctp::Chunk;
    use protocols::{Layer, Stack};

    use super::{E2_CBC, E2_CT_DATA, E2_CT_SACK, E2_PT_DATA, E2_PT_SACK};

    /// The SACK study's stacks are the ones `protocols` builds from its suite (issue 25: one
    /// suite-to-layer mapping).
    #[test]
    fn sack_study_stacks_are_built_from_their_suite() {
        let esp = || Layer::esp(Mode::Tunnel, E2_CBC).unwrap();
        let sack = Chunk::Sack { gaps: 0, dups: 0 };
        let ct = || Stack::builder().eth().ipv4().layer(esp()).ipv4();
        let pt = || Stack::builder().eth().ipv4();
        for (text, built) in [
            (E2_CT_DATA, ct().sctp().e2ap()),
            (E2_CT_SACK, ct().sctp_chunk(sack)),
            (E2_PT_DATA, pt().sctp().e2ap()),
            (E2_PT_SACK, pt().sctp_chunk(sack)),
        ] {
            assert_eq!(
                text.parse::<Stack>().unwrap(),
                built.build().unwrap(),
                "{text}"
            );
        }
    }
}
