//! Stacks built as values: [`StackBuilder`], the one mapping from a measured [`Suite`] to the
//! ESP, TLS 1.3 or MACsec layer that carries it (the inverse of [`Layer::suite`]), and the
//! typed questions about a stack's protection ([`Stack::security_layer`], [`Stack::protocol`]).
//!
//! ```
//! use protocols::{Layer, Stack, Suite};
//! use protocols::esp::Mode;
//!
//! let e2 = Stack::builder()
//!     .eth()
//!     .ipv4()
//!     .layer(Layer::esp(Mode::Tunnel, Suite::Aes256Gcm)?)
//!     .ipv4()
//!     .sctp()
//!     .build()?;
//! assert_eq!(e2.to_string(), "eth/ipv4/esp-tunnel(aes256-gcm-16)/ipv4/sctp");
//! assert_eq!(e2.suite(), Some(Suite::Aes256Gcm));
//! # Ok::<(), protocols::Error>(())
//! ```

use crate::Result;
use crate::ecpri::Ecpri;
use crate::error::Error;
use crate::esp::{self, Cipher as EspCipher, Esp, EspTransform, Integrity, Mode};
use crate::ethernet::Ethernet;
use crate::geneve::Geneve;
use crate::ipv4::Ipv4;
use crate::ipv6::Ipv6;
use crate::macsec::{Cipher as MacsecCipher, Macsec};
use crate::sctp::{Chunk, Sctp};
use crate::ssh::Cipher as SshCipher;
use crate::stack::{Layer, Stack};
use crate::suite::Suite;
use crate::suite::{AesKey, Sha2};
use crate::tcp::{self, Tcp};
use crate::tls::{self, Cipher as TlsCipher, Record, Version};
use crate::udp::Udp;
use crate::vxlan::Vxlan;

/// The protocol a security layer belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Protocol {
    /// IPsec ESP, tunnel or transport mode.
    Ipsec,
    /// IEEE 802.1AE MACsec.
    Macsec,
    /// TLS or DTLS records.
    Tls,
    /// SSH binary packets.
    Ssh,
}

impl Protocol {
    /// The name scenario files use for the profile's offload flags: `ipsec`, `macsec`,
    /// `tls`, `ssh`.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Ipsec => "ipsec",
            Protocol::Macsec => "macsec",
            Protocol::Tls => "tls",
            Protocol::Ssh => "ssh",
        }
    }
}

/// The ESP transform that carries `suite`: AEADs with their 16-byte ICV (RFC 4106, RFC 4309,
/// RFC 7634), GMAC as `ENCR_NULL_AUTH_AES_GMAC` (RFC 4543), AES-CBC with the HMAC-SHA2
/// truncated to half the hash (RFC 4868 §2.3).
pub(crate) fn esp_transform(suite: Suite) -> Option<EspTransform> {
    let aead = |cipher| {
        Some(EspTransform {
            cipher,
            integrity: None,
        })
    };
    match suite {
        Suite::Copy => None,
        Suite::Aes128Gcm => aead(EspCipher::AesGcm(128, esp::TAG_16)),
        Suite::Aes256Gcm => aead(EspCipher::AesGcm(256, esp::TAG_16)),
        Suite::Aes128Ccm => aead(EspCipher::AesCcm(128, esp::TAG_16)),
        Suite::Aes256Ccm => aead(EspCipher::AesCcm(256, esp::TAG_16)),
        Suite::ChaCha20Poly1305 => aead(EspCipher::ChaCha20Poly1305),
        Suite::Gmac { aes } => aead(EspCipher::AesGmac(aes.bits())),
        Suite::AesCbcHmac { aes, sha } => Some(EspTransform {
            cipher: EspCipher::AesCbc(aes.bits()),
            integrity: Some(match sha {
                Sha2::Sha256 => Integrity::HmacSha256_128,
                Sha2::Sha384 => Integrity::HmacSha384_192,
                Sha2::Sha512 => Integrity::HmacSha512_256,
            }),
        }),
    }
}

/// The TLS record cipher that runs `suite` in any TLS version (RFC 5288, RFC 6655, RFC 7905,
/// RFC 8446 §B.4): the AEADs; no CBC with HMAC as ESP does it (TLS 1.2 CBC is MAC-then-encrypt),
/// no GMAC.
pub(crate) fn tls_cipher(suite: Suite) -> Option<TlsCipher> {
    match suite {
        Suite::Aes128Gcm => Some(TlsCipher::AesGcm(128)),
        Suite::Aes256Gcm => Some(TlsCipher::AesGcm(256)),
        Suite::ChaCha20Poly1305 => Some(TlsCipher::ChaCha20Poly1305),
        Suite::Aes128Ccm => Some(TlsCipher::AesCcm(128)),
        Suite::Aes256Ccm => Some(TlsCipher::AesCcm(256)),
        Suite::Copy | Suite::Gmac { .. } | Suite::AesCbcHmac { .. } => None,
    }
}

/// The TLS 1.3 record protection that carries `suite` (RFC 8446 §B.4: AES-GCM, ChaCha20-Poly1305
/// and AES-128-CCM; no CBC, no GMAC, no AES-256-CCM).
fn tls13_cipher(suite: Suite) -> Option<TlsCipher> {
    match suite {
        Suite::Aes128Gcm | Suite::Aes256Gcm | Suite::ChaCha20Poly1305 | Suite::Aes128Ccm => {
            tls_cipher(suite)
        }
        Suite::Copy | Suite::Aes256Ccm | Suite::Gmac { .. } | Suite::AesCbcHmac { .. } => None,
    }
}

/// The SSH cipher that runs `suite` (RFC 5647 `aes128-gcm@openssh.com`,
/// `chacha20-poly1305@openssh.com`); SSH has no CCM, no GMAC and no encrypt-then-MAC CBC of
/// ESP's kind.
pub(crate) fn ssh_cipher(suite: Suite) -> Option<SshCipher> {
    match suite {
        Suite::Aes128Gcm => Some(SshCipher::AesGcm(128)),
        Suite::Aes256Gcm => Some(SshCipher::AesGcm(256)),
        Suite::ChaCha20Poly1305 => Some(SshCipher::ChaCha20Poly1305),
        Suite::Copy
        | Suite::Aes128Ccm
        | Suite::Aes256Ccm
        | Suite::Gmac { .. }
        | Suite::AesCbcHmac { .. } => None,
    }
}

/// The MACsec SecY that runs `suite` (802.1AE §14.5-14.6): GCM with confidentiality on, GMAC
/// with integrity only; SCI sent, no confidentiality offset (Linux's defaults). MACsec has no
/// ChaCha20, CCM or CBC cipher suite.
pub(crate) fn macsec_secy(suite: Suite) -> Option<Macsec> {
    let (cipher, encrypt) = match suite {
        Suite::Aes128Gcm => (MacsecCipher::GcmAes128, true),
        Suite::Aes256Gcm => (MacsecCipher::GcmAes256, true),
        Suite::Gmac {
            aes: AesKey::Aes128,
        } => (MacsecCipher::GcmAes128, false),
        Suite::Gmac {
            aes: AesKey::Aes256,
        } => (MacsecCipher::GcmAes256, false),
        Suite::Copy
        | Suite::ChaCha20Poly1305
        | Suite::Aes128Ccm
        | Suite::Aes256Ccm
        | Suite::AesCbcHmac { .. } => return None,
    };
    Some(Macsec {
        cipher,
        encrypt,
        ..Macsec::default()
    })
}

impl Suite {
    /// The ESP transform that carries the suite (see [`Layer::esp`]); `None` for the copy.
    pub fn esp_transform(self) -> Option<EspTransform> {
        esp_transform(self)
    }
}

/// `Ok(layer)` for a suite `layer` carries, else the error naming the suites it does.
fn carried(name: &'static str, suite: Suite, f: impl Fn(Suite) -> Option<Layer>) -> Result<Layer> {
    f(suite).ok_or_else(|| Error::SuiteNotCarried {
        layer: name,
        suite: suite.name(),
        allowed: Suite::ALL
            .into_iter()
            .filter(|s| f(*s).is_some())
            .map(Suite::name)
            .collect::<Vec<_>>()
            .join(", "),
    })
}

impl Layer {
    /// The ESP layer in `mode` whose transform is `suite` (see the module docs for the
    /// transform of each suite), without TFC padding. Every suite but the copy baseline.
    pub fn esp(mode: Mode, suite: Suite) -> Result<Layer> {
        let name = match mode {
            Mode::Tunnel => "esp-tunnel",
            Mode::Transport => "esp-transport",
        };
        carried(name, suite, |s| {
            esp_transform(s).map(|transform| {
                Layer::Esp(Esp {
                    mode,
                    transform,
                    tfc: 0,
                })
            })
        })
    }

    /// The TLS 1.3 record layer protected by `suite`, with full-size records.
    pub fn tls13(suite: Suite) -> Result<Layer> {
        carried("tls13", suite, |s| {
            tls13_cipher(s).map(|cipher| {
                Layer::Tls(Record {
                    version: Version::Tls13,
                    cipher,
                    max_fragment: tls::MAX_FRAGMENT,
                    etm: false,
                    seq8: false,
                    length: true,
                    cid: 0,
                })
            })
        })
    }

    /// The MACsec layer running `suite`: GCM suites encrypt, GMAC suites protect integrity
    /// only.
    pub fn macsec(suite: Suite) -> Result<Layer> {
        carried("macsec", suite, |s| macsec_secy(s).map(Layer::Macsec))
    }

    /// The protocol of a security layer; `None` for layers without protection.
    pub fn protocol(&self) -> Option<Protocol> {
        match self {
            Layer::Esp(_) => Some(Protocol::Ipsec),
            Layer::Macsec(_) => Some(Protocol::Macsec),
            Layer::Tls(_) => Some(Protocol::Tls),
            Layer::Ssh(_) => Some(Protocol::Ssh),
            _ => None,
        }
    }
}

impl Stack {
    /// A builder for a stack, lowest layer first.
    pub fn builder() -> StackBuilder {
        StackBuilder::default()
    }

    /// The outermost (lowest) security layer: the one whose cipher
    /// [`Stack::protected_len`] counts and whose suite [`Stack::suite`] names; `None` without
    /// ESP, MACsec, TLS/DTLS or SSH.
    pub fn security_layer(&self) -> Option<&Layer> {
        self.layers().iter().find(|l| l.protocol().is_some())
    }

    /// The protocol of [`Stack::security_layer`]; `None` for a plaintext stack.
    pub fn protocol(&self) -> Option<Protocol> {
        self.security_layer().and_then(Layer::protocol)
    }
}

/// Collects layers lowest first; [`StackBuilder::build`] checks them as [`Stack::parse`] does
/// (each layer on one it may sit on), so a builder makes exactly the stacks the parser accepts.
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct StackBuilder {
    layers: Vec<Layer>,
}

impl StackBuilder {
    /// Adds any layer.
    pub fn layer(mut self, layer: Layer) -> StackBuilder {
        self.layers.push(layer);
        self
    }

    /// Adds layers, lowest first.
    pub fn layers(mut self, layers: impl IntoIterator<Item = Layer>) -> StackBuilder {
        self.layers.extend(layers);
        self
    }

    /// Adds an Ethernet II header (`eth`).
    pub fn eth(self) -> StackBuilder {
        self.layer(Layer::Eth(Ethernet))
    }

    /// Adds an IPv4 header without options (`ipv4`).
    pub fn ipv4(self) -> StackBuilder {
        self.layer(Layer::Ipv4(Ipv4::default()))
    }

    /// Adds an IPv6 header without extension headers (`ipv6`).
    pub fn ipv6(self) -> StackBuilder {
        self.layer(Layer::Ipv6(Ipv6::default()))
    }

    /// Adds a UDP header (`udp`).
    pub fn udp(self) -> StackBuilder {
        self.layer(Layer::Udp(Udp))
    }

    /// Adds a TCP header without options (`tcp`).
    pub fn tcp(self) -> StackBuilder {
        self.layer(Layer::Tcp(Tcp::default()))
    }

    /// Adds a TCP header with the timestamps option (`tcp(ts)`, RFC 7323).
    pub fn tcp_ts(self) -> StackBuilder {
        self.layer(Layer::Tcp(Tcp {
            options: tcp::TIMESTAMPS,
        }))
    }

    /// Adds an SCTP header with one DATA chunk (`sctp`).
    pub fn sctp(self) -> StackBuilder {
        self.sctp_chunk(Chunk::Data)
    }

    /// Adds an SCTP header with one `chunk` (`sctp(idata)`, `sctp(sack)`, ...).
    pub fn sctp_chunk(self, chunk: Chunk) -> StackBuilder {
        self.layer(Layer::Sctp(Sctp { chunk }))
    }

    /// Adds the E2AP marker (`e2ap`, 0 bytes).
    pub fn e2ap(self) -> StackBuilder {
        self.layer(Layer::E2ap)
    }

    /// Adds an eCPRI header (`ecpri`).
    pub fn ecpri(self) -> StackBuilder {
        self.layer(Layer::Ecpri(Ecpri::default()))
    }

    /// Adds a VXLAN header (`vxlan`, RFC 7348), on `udp`, under an inner `eth`.
    pub fn vxlan(self) -> StackBuilder {
        self.layer(Layer::Vxlan(Vxlan))
    }

    /// Adds a Geneve header with `options` bytes of options (`geneve(options=N)`, RFC 8926),
    /// on `udp`; [`StackBuilder::build`] refuses an options length that is not a multiple of
    /// 4 from 0 to 252 bytes, as the parser does.
    pub fn geneve(self, options: usize) -> StackBuilder {
        self.layer(Layer::Geneve(Geneve { options }))
    }

    /// The stack, or the error [`Stack::parse`] gives for the same layers (a layer on one it
    /// cannot sit on, a number out of range).
    pub fn build(self) -> Result<Stack> {
        Stack::from_layers(self.layers)
    }
}

impl Layer {
    /// The measured suite whose cost this layer's cipher pays, or `None` for layers without
    /// protection and for transforms no profile measures (AES-192, HMAC-SHA-1, CCM-8, NULL,
    /// TLS MAC-then-encrypt CBC, SSH CTR/CBC with a MAC). The inverse of the one mapping from a
    /// suite to each protocol's transform (`build.rs`), so a suite added there is found here.
    pub fn suite(&self) -> Option<Suite> {
        let find = |carries: &dyn Fn(Suite) -> bool| Suite::ALL.into_iter().find(|s| carries(*s));
        match self {
            Layer::Esp(e) => find(&|s| esp_transform(s) == Some(e.transform)),
            Layer::Macsec(m) => {
                // XPN changes the packet number, not the cipher (802.1AE §14.7).
                let cipher = match m.cipher {
                    MacsecCipher::GcmAes128 | MacsecCipher::GcmAesXpn128 => MacsecCipher::GcmAes128,
                    MacsecCipher::GcmAes256 | MacsecCipher::GcmAesXpn256 => MacsecCipher::GcmAes256,
                };
                find(&|s| {
                    macsec_secy(s).is_some_and(|y| y.cipher == cipher && y.encrypt == m.encrypt)
                })
            }
            Layer::Tls(r) => find(&|s| tls_cipher(s) == Some(r.cipher)),
            Layer::Ssh(x) => find(&|s| ssh_cipher(s) == Some(x.cipher)),
            Layer::Eth(_)
            | Layer::Vlan(_)
            | Layer::Ipv4(_)
            | Layer::Ipv6(_)
            | Layer::Udp(_)
            | Layer::Tcp(_)
            | Layer::Sctp(_)
            | Layer::E2ap
            | Layer::Ecpri(_)
            | Layer::Vxlan(_)
            | Layer::Geneve(_) => None,
        }
    }
}

impl Stack {
    /// The measured suite of the outermost security layer (the one
    /// [`Stack::protected_len`] counts), or `None` (see [`Layer::suite`]).
    pub fn suite(&self) -> Option<Suite> {
        self.security_layer().and_then(Layer::suite)
    }
}

#[cfg(test)]
mod tests {
    use crate::esp::Mode;
    use crate::stack::{Layer, Stack};
    use crate::suite::{AesKey, Sha2, Suite};

    use super::Protocol;

    /// A stack carrying `layer` where that layer's protocol sits.
    fn around(layer: Layer) -> Stack {
        let b = Stack::builder().eth();
        let b = match layer.protocol() {
            Some(Protocol::Macsec) => b.layer(layer).ecpri(),
            Some(Protocol::Tls) => b.ipv4().tcp().layer(layer),
            _ => b.ipv4().layer(layer).ipv4().sctp(),
        };
        b.build().unwrap()
    }

    #[test]
    fn each_suite_layer_round_trips_through_the_parser() {
        let mut carried = 0;
        for suite in Suite::ALL {
            for layer in [
                Layer::esp(Mode::Tunnel, suite),
                Layer::tls13(suite),
                Layer::macsec(suite),
            ]
            .into_iter()
            .flatten()
            {
                assert_eq!(layer.suite(), Some(suite), "{}", layer.text());
                let built = around(layer);
                let parsed: Stack = built.to_string().parse().unwrap();
                assert_eq!(parsed, built);
                assert_eq!(parsed.to_string(), built.to_string());
                assert_eq!(parsed.suite(), Some(suite));
                carried += 1;
            }
        }
        // ESP: 13 (all but copy); TLS 1.3: 4; MACsec: 4.
        assert_eq!(carried, 13 + 4 + 4);
    }

    #[test]
    fn layers_print_as_the_stacks_written_by_hand() {
        let cbc = Suite::AesCbcHmac {
            aes: AesKey::Aes256,
            sha: Sha2::Sha256,
        };
        let text = |l: crate::Result<Layer>| l.unwrap().text();
        assert_eq!(
            text(Layer::esp(Mode::Tunnel, cbc)),
            "esp-tunnel(aes256-cbc,hmac-sha256-128)"
        );
        assert_eq!(
            text(Layer::esp(Mode::Tunnel, Suite::Aes128Gcm)),
            "esp-tunnel(aes128-gcm-16)"
        );
        assert_eq!(
            text(Layer::esp(Mode::Transport, Suite::ChaCha20Poly1305)),
            "esp-transport(chacha20-poly1305)"
        );
        assert_eq!(text(Layer::tls13(Suite::Aes256Gcm)), "tls13(aes256-gcm)");
        assert_eq!(
            text(Layer::macsec(Suite::Aes128Gcm)),
            "macsec(gcm-aes-128,encrypt)"
        );
        assert_eq!(
            text(Layer::macsec(Suite::Gmac {
                aes: AesKey::Aes128
            })),
            "macsec(gcm-aes-128,integrity)"
        );
    }

    #[test]
    fn suites_a_layer_does_not_carry_are_refused_with_the_allowed_ones() {
        let e = Layer::esp(Mode::Tunnel, Suite::Copy)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`esp-tunnel` does not carry suite `copy`") && e.contains("gmac-aes256"),
            "{e}"
        );
        let cbc = Suite::AesCbcHmac {
            aes: AesKey::Aes128,
            sha: Sha2::Sha256,
        };
        let e = Layer::tls13(cbc).unwrap_err().to_string();
        assert!(
            e.contains("aes128-cbc-hmac-sha256")
                && e.contains("allowed: aes128-gcm, aes256-gcm, chacha20-poly1305, aes128-ccm"),
            "{e}"
        );
        let e = Layer::macsec(Suite::ChaCha20Poly1305)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("allowed: aes128-gcm, aes256-gcm, gmac-aes128, gmac-aes256"),
            "{e}"
        );
    }

    #[test]
    fn the_builder_refuses_what_the_parser_refuses() {
        let esp = || Layer::esp(Mode::Tunnel, Suite::Aes128Gcm).unwrap();
        let cases = [
            (
                Stack::builder().eth().layer(esp()),
                "eth/esp-tunnel(aes128-gcm-16)",
            ),
            (
                Stack::builder().eth().ipv4().layer(esp()).sctp(),
                "eth/ipv4/esp-tunnel(aes128-gcm-16)/sctp",
            ),
            (Stack::builder().eth().udp(), "eth/udp"),
            (
                Stack::builder()
                    .eth()
                    .ipv4()
                    .udp()
                    .layer(Layer::tls13(Suite::Aes128Gcm).unwrap()),
                "eth/ipv4/udp/tls13(aes128-gcm)",
            ),
            (Stack::builder().ipv4().eth(), "ipv4/eth"),
            (Stack::builder().eth().ipv4().vxlan(), "eth/ipv4/vxlan"),
            (
                Stack::builder().eth().ipv4().udp().vxlan().ipv4(),
                "eth/ipv4/udp/vxlan/ipv4",
            ),
            (
                Stack::builder().eth().ipv4().udp().geneve(250),
                "eth/ipv4/udp/geneve(options=250)",
            ),
            (
                Stack::builder().eth().ipv4().udp().geneve(256),
                "eth/ipv4/udp/geneve(options=256)",
            ),
            (Stack::builder().layer(esp()), "esp-tunnel(aes128-gcm-16)"),
        ];
        for (b, text) in cases {
            let built = b.build().unwrap_err();
            let parsed = Stack::parse(text).unwrap_err();
            assert_eq!(built, parsed, "{text}");
        }
    }

    #[test]
    fn overlays_build_as_they_parse() {
        for (b, text) in [
            (
                Stack::builder()
                    .eth()
                    .ipv4()
                    .udp()
                    .vxlan()
                    .eth()
                    .ipv4()
                    .udp(),
                "eth/ipv4/udp/vxlan/eth/ipv4/udp",
            ),
            (
                Stack::builder()
                    .eth()
                    .ipv6()
                    .udp()
                    .geneve(8)
                    .eth()
                    .ipv4()
                    .tcp(),
                "eth/ipv6/udp/geneve(options=8)/eth/ipv4/tcp",
            ),
            (
                Stack::builder().eth().ipv4().udp().geneve(0).ipv6().udp(),
                "eth/ipv4/udp/geneve/ipv6/udp",
            ),
        ] {
            let built = b.build().unwrap();
            assert_eq!(built.to_string(), text);
            assert_eq!(built, Stack::parse(text).unwrap());
        }
    }

    #[test]
    fn protocol_and_security_layer_are_the_outermost_ones() {
        let s: Stack = "eth/ipv4/esp-tunnel(aes128-gcm-16)/ipv4/tcp/tls13(aes256-gcm)"
            .parse()
            .unwrap();
        assert_eq!(s.protocol(), Some(Protocol::Ipsec));
        assert_eq!(
            s.security_layer().map(Layer::text).as_deref(),
            Some("esp-tunnel(aes128-gcm-16)")
        );
        let t: Stack = "eth/ipv4/tcp/tls13(aes256-gcm)".parse().unwrap();
        assert_eq!(t.protocol().map(Protocol::name), Some("tls"));
        let m: Stack = "eth/macsec(gcm-aes-128,integrity)/ecpri".parse().unwrap();
        assert_eq!(m.protocol(), Some(Protocol::Macsec));
        let plain: Stack = "eth/ipv4/sctp".parse().unwrap();
        assert_eq!((plain.protocol(), plain.security_layer()), (None, None));
    }
}
