//! IKEv2 payload bodies as sums of field widths: SA payloads with proposal lists (RFC 7296
//! §3.3), identities (§3.5), traffic selectors (§3.13), notifications (§3.10), vendor IDs
//! (§3.12), deletions (§3.11). Every function returns a [`PayloadSize`] whose length includes the generic payload
//! header and is checked against the 16-bit Payload Length.
//!
//! ```text
//! Proposal substructure (§3.3.1):
//! | Last Substruc |   RESERVED    |         Proposal Length       |
//! | Proposal Num  |  Protocol ID  |    SPI Size   |Num  Transforms|
//! ~                        SPI (variable)                         ~
//! ~                        <Transforms>                           ~
//! Transform substructure (§3.3.2):
//! | Last Substruc |   RESERVED    |        Transform Length       |
//! |Transform Type |   RESERVED    |          Transform ID         |
//! ~                      Transform Attributes                     ~
//! Identification payload (§3.5):   | ID Type | RESERVED (3) | Identification Data ~
//! ```

use serde::Serialize;

use super::{
    Auth, DELETE_FIXED, ESP_SPI, ID_FIXED, KEY_LENGTH_ATTR, MAX_PAYLOAD, NOTIFY_FIXED,
    PAYLOAD_HEADER, PROPOSAL, PayloadSize, TRANSFORM, TS_FIXED, TS_IPV4,
};
use crate::Result;
use crate::error::{Error, Input};

/// IPv6 traffic selector: type 1, protocol 1, length 2, ports 2+2, addresses 16+16 (§3.13.1)
/// \[bytes\].
pub(super) const TS_IPV6: usize = 1 + 1 + 2 + 2 + 2 + 16 + 16;

/// What a payload carries beyond its length: what `emit` needs to write its fields.
/// Data lengths are the model's; the writer lays the fields out from these alone, so its
/// lengths check the sizes above.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Content {
    /// SA (§3.3): its proposals; the protocol follows from the SPI size (0 or 8: IKE, 4: ESP).
    Sa(Vec<Proposal>),
    /// KE (§3.4): key exchange method and its data \[bytes\].
    Ke {
        /// Transform ID of the method (IANA "Transform Type 4").
        group: u16,
        /// Key exchange data \[bytes\].
        data: usize,
    },
    /// Nonce (§3.9) of `len` bytes.
    Nonce(usize),
    /// Notify (§3.10).
    Notify {
        /// Notify Message Type (IANA).
        kind: u16,
        /// SPI size: 4 for REKEY_SA (an ESP SPI), else 0 \[bytes\].
        spi: usize,
        /// Notification data \[bytes\].
        data: usize,
    },
    /// Vendor ID (§3.12) of `len` bytes.
    VendorId(usize),
    /// Identification (§3.5): IDi or IDr.
    Id {
        /// IDr (payload type 36) rather than IDi (35).
        responder: bool,
        /// The identity.
        id: Identity,
    },
    /// Certificate (§3.6): an X.509 certificate of `len` DER bytes.
    Cert(usize),
    /// Certificate Request (§3.7) naming `cas` certification authorities.
    CertReq(usize),
    /// Authentication (§3.8) by this method, with `data` bytes of authentication data.
    Auth {
        /// The method.
        auth: Auth,
        /// Authentication data \[bytes\].
        data: usize,
    },
    /// Delete (§3.11) of `spis` ESP SAs, each named by its 4-byte SPI (a Child SA's deletion:
    /// an INFORMATIONAL exchange after a rekey).
    Delete {
        /// SPIs listed \[count\].
        spis: usize,
    },
    /// Traffic Selector (§3.13): TSi or TSr.
    Ts {
        /// TSr (payload type 45) rather than TSi (44).
        responder: bool,
        /// IP version of the selectors (4 or 6).
        ip_version: u8,
        /// Selectors \[count\].
        count: usize,
    },
}

/// IANA "IKEv2 Notify Message Types" of the notifies the peers send (RFC 7296 §3.10.1, RFC
/// 4555, RFC 5685, RFC 5996, RFC 6023, RFC 6311, RFC 7383, RFC 7427, RFC 9242, RFC 9370).
pub(super) const NOTIFY_TYPES: [(&str, u16); 15] = [
    ("INITIAL_CONTACT", 16384),
    ("NAT_DETECTION_SOURCE_IP", 16388),
    ("NAT_DETECTION_DESTINATION_IP", 16389),
    ("REKEY_SA", 16393),
    ("MOBIKE_SUPPORTED", 16396),
    ("NO_ADDITIONAL_ADDRESSES", 16399),
    ("MULTIPLE_AUTH_SUPPORTED", 16404),
    ("REDIRECT_SUPPORTED", 16406),
    ("EAP_ONLY_AUTHENTICATION", 16417),
    ("CHILDLESS_IKEV2_SUPPORTED", 16418),
    ("IKEV2_MESSAGE_ID_SYNC_SUPPORTED", 16420),
    ("IKEV2_FRAGMENTATION_SUPPORTED", 16430),
    ("SIGNATURE_HASH_ALGORITHMS", 16431),
    ("INTERMEDIATE_EXCHANGE_SUPPORTED", 16438),
    ("ADDITIONAL_KEY_EXCHANGE", 16441),
];

/// A payload of `body` bytes after the generic payload header, refused over the 16-bit
/// Payload Length (§3.2).
pub(super) fn p(name: impl Into<String>, body: usize, content: Content) -> Result<PayloadSize> {
    let name = name.into();
    // Saturating: a body near usize::MAX is over MAX_PAYLOAD either way.
    let len = PAYLOAD_HEADER.saturating_add(body);
    if len > MAX_PAYLOAD {
        // The input that sizes the payload.
        let input = match content {
            Content::Ke { .. } => Input::KeyExchange,
            Content::Cert(_) => Input::Certificates,
            Content::CertReq(_) => Input::CertReq,
            Content::Id { .. } => Input::Identity,
            Content::VendorId(_) => Input::VendorId,
            Content::Sa(_)
            | Content::Nonce(_)
            | Content::Notify { .. }
            | Content::Auth { .. }
            | Content::Delete { .. }
            | Content::Ts { .. } => Input::Message,
        };
        return Err(Error::FieldOverflow {
            what: name,
            input,
            field: "16-bit IKEv2 payload length (RFC 7296 §3.2)",
            len,
            max: MAX_PAYLOAD,
        });
    }
    Ok(PayloadSize { name, len, content })
}

/// A Notify payload carrying `data` bytes (§3.10), named `N(NAME)`; REKEY_SA's 4 bytes are
/// the ESP SPI it names (§3.10.1), every other notify has no SPI. A name outside
/// [`NOTIFY_TYPES`] is refused.
pub(super) fn notify(name: &str, data: usize) -> Result<PayloadSize> {
    let kind = NOTIFY_TYPES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, t)| t)
        .ok_or_else(|| Error::UnknownName {
            what: Input::IkeNotify,
            name: name.into(),
            allowed: NOTIFY_TYPES.map(|(n, _)| n).join(", "),
        })?;
    let (spi, data) = if name == "REKEY_SA" {
        (ESP_SPI, data.saturating_sub(ESP_SPI))
    } else {
        (0, data)
    };
    p(
        format!("N({name})"),
        NOTIFY_FIXED.saturating_add(spi).saturating_add(data),
        Content::Notify { kind, spi, data },
    )
}

/// A Delete payload naming `spis` ESP SPIs (§3.11), named `D` as tshark names it: the
/// deletion of a Child SA (one SPI; the responder answers with its own, §1.4.1).
pub(super) fn delete_esp(spis: usize) -> Result<PayloadSize> {
    p(
        "D",
        DELETE_FIXED.saturating_add(ESP_SPI.saturating_mul(spis)),
        Content::Delete { spis },
    )
}

/// A Vendor ID payload of `len` bytes of ID (§3.12), named `V(label)`.
pub(super) fn vendor_id(label: &str, len: usize) -> Result<PayloadSize> {
    p(format!("V({label})"), len, Content::VendorId(len))
}

/// One transform of a proposal (§3.3.2): its type and ID, with a Key Length attribute
/// (§3.3.5) for ciphers with a variable key length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Transform {
    /// Transform Type: 1 ENCR, 2 PRF, 3 INTEG, 4 KE, 5 ESN, 6..=12 ADDKE1..7 (RFC 9370).
    pub kind: u8,
    /// Transform ID (IANA "IKEv2 Transform Type n" registries).
    pub id: u16,
    /// Key Length attribute value \[bits\], `None` without the attribute.
    pub key_bits: Option<u16>,
}

/// Transform Type 1: encryption algorithm (§3.3.2).
pub(super) const ENCR: u8 = 1;
/// Transform Type 2: pseudorandom function (§3.3.2).
pub(super) const PRF: u8 = 2;
/// Transform Type 3: integrity algorithm (§3.3.2).
pub(super) const INTEG: u8 = 3;
/// Transform Type 4: key exchange method (§3.3.2, RFC 9370 §2.2.3).
pub(super) const KE: u8 = 4;
/// Transform Type 5: extended sequence numbers (§3.3.2).
pub(super) const ESN: u8 = 5;

impl Transform {
    /// A transform without attributes.
    pub const fn plain(kind: u8, id: u16) -> Transform {
        Transform {
            kind,
            id,
            key_bits: None,
        }
    }

    /// A transform with a Key Length attribute of `bits`.
    pub const fn keyed(kind: u8, id: u16, bits: u16) -> Transform {
        Transform {
            kind,
            id,
            key_bits: Some(bits),
        }
    }

    /// Bytes on the wire: the substructure plus its attribute (§3.3.2, §3.3.5) \[bytes\].
    pub const fn wire_len(&self) -> usize {
        match self.key_bits {
            Some(_) => TRANSFORM + KEY_LENGTH_ATTR,
            None => TRANSFORM,
        }
    }
}

/// One proposal of an SA payload (§3.3.1): an SPI and its transforms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Proposal {
    /// SPI size: 0 in IKE_SA_INIT, 8 for an IKE SA rekey, 4 for ESP \[bytes\].
    pub spi: usize,
    /// Transforms in order.
    pub transforms: Vec<Transform>,
}

impl Proposal {
    /// Bytes on the wire: header, SPI and transforms (§3.3.1) \[bytes\].
    pub fn wire_len(&self) -> usize {
        self.transforms
            .iter()
            .fold(PROPOSAL.saturating_add(self.spi), |n, t| {
                n.saturating_add(t.wire_len())
            })
    }
}

/// An SA payload named `name` carrying `proposals` (§3.3).
pub(super) fn sa(name: &str, proposals: &[Proposal]) -> Result<PayloadSize> {
    p(
        name,
        proposals
            .iter()
            .fold(0usize, |n, x| n.saturating_add(x.wire_len())),
        Content::Sa(proposals.to_vec()),
    )
}

/// Identification types (§3.5) and how long their data is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IdKind {
    /// ID_IPV4_ADDR (1): 4 bytes.
    Ipv4,
    /// ID_FQDN (2): the name's bytes.
    Fqdn,
    /// ID_RFC822_ADDR (3): the address's bytes.
    Email,
    /// ID_IPV6_ADDR (5): 16 bytes.
    Ipv6,
    /// ID_DER_ASN1_DN (9): a DER Name.
    Dn,
    /// ID_KEY_ID (11): opaque bytes.
    KeyId,
}

/// An identity as an ID payload carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Identity {
    /// ID Type.
    pub kind: IdKind,
    /// Identification Data length \[bytes\].
    pub len: usize,
}

/// The syntax [`Identity::parse`] accepts.
pub const ID_SYNTAX: &str = "ipv4:192.0.2.1, ipv6:2001:db8::1, fqdn:moon.example.org, email:a@b.c, dn:N (a DER distinguished name of N bytes), keyid:N (N bytes)";

impl Identity {
    /// An identity of `kind` with `len` bytes of data.
    pub const fn new(kind: IdKind, len: usize) -> Identity {
        Identity { kind, len }
    }

    /// Parses `ipv4:192.0.2.1`, `ipv6:2001:db8::1`, `fqdn:moon.example.org`, `email:a@b.c`,
    /// `dn:N` or `keyid:N` (N bytes, 1..=65531).
    pub fn parse(text: &str) -> Result<Identity> {
        let bad = |reason: String| Error::BadArguments {
            layer: "IKEv2 identity".into(),
            reason,
        };
        let (kind, value) = text
            .split_once(':')
            .ok_or_else(|| bad(format!("\"{text}\" has no type; allowed: {ID_SYNTAX}")))?;
        let max = MAX_PAYLOAD - PAYLOAD_HEADER - ID_FIXED;
        let count = |v: &str| -> Result<usize> {
            v.trim()
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=max).contains(n))
                .ok_or_else(|| {
                    bad(format!(
                        "\"{text}\": {kind}:N takes a byte count 1..={max}, got \"{v}\""
                    ))
                })
        };
        let text_len = |v: &str| -> Result<usize> {
            if v.is_empty() || v.len() > max {
                Err(bad(format!(
                    "\"{text}\": the {kind} is 1..={max} bytes, got {}",
                    v.len()
                )))
            } else {
                Ok(v.len())
            }
        };
        Ok(match kind.trim().to_ascii_lowercase().as_str() {
            "ipv4" => {
                value.parse::<std::net::Ipv4Addr>().map_err(|_| {
                    bad(format!(
                        "\"{value}\" is not an IPv4 address (e.g. 192.0.2.1)"
                    ))
                })?;
                Identity::new(IdKind::Ipv4, 4)
            }
            "ipv6" => {
                value.parse::<std::net::Ipv6Addr>().map_err(|_| {
                    bad(format!(
                        "\"{value}\" is not an IPv6 address (e.g. 2001:db8::1)"
                    ))
                })?;
                Identity::new(IdKind::Ipv6, 16)
            }
            "fqdn" => Identity::new(IdKind::Fqdn, text_len(value)?),
            "email" => Identity::new(IdKind::Email, text_len(value)?),
            "dn" => Identity::new(IdKind::Dn, count(value)?),
            "keyid" => Identity::new(IdKind::KeyId, count(value)?),
            other => {
                return Err(bad(format!(
                    "unknown identity type \"{other}\"; allowed: {ID_SYNTAX}"
                )));
            }
        })
    }
}

/// An ID payload (`IDi` or `IDr`) for `id` (§3.5).
pub(super) fn id(name: &str, id: &Identity) -> Result<PayloadSize> {
    p(
        name,
        ID_FIXED.saturating_add(id.len),
        Content::Id {
            responder: name == "IDr",
            id: id.clone(),
        },
    )
}

/// A TS payload with `count` selectors of IP version `ip_version` (§3.13).
// Constants and a count of at most a few selectors.
#[allow(clippy::arithmetic_side_effects)]
pub(super) fn ts(name: &str, ip_version: u8, count: usize) -> Result<PayloadSize> {
    let one = if ip_version == 6 { TS_IPV6 } else { TS_IPV4 };
    p(
        name,
        TS_FIXED + count.saturating_mul(one),
        Content::Ts {
            responder: name == "TSr",
            ip_version,
            count,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transform_and_proposal_lengths_follow_the_rfc_layout() {
        // §3.3.2: 8 bytes; with the TV Key Length attribute (§3.3.5) 12.
        assert_eq!(Transform::plain(PRF, 5).wire_len(), 8);
        assert_eq!(Transform::keyed(ENCR, 20, 256).wire_len(), 12);
        // §3.3.1: 8-byte header + SPI + transforms.
        let p = Proposal {
            spi: 4,
            transforms: vec![Transform::keyed(ENCR, 20, 256), Transform::plain(ESN, 0)],
        };
        assert_eq!(p.wire_len(), 8 + 4 + 12 + 8);
        assert_eq!(sa("SA", &[p.clone(), p]).unwrap().len, 4 + 2 * 32);
    }

    #[test]
    fn identities_have_their_rfc_data_lengths() {
        let len = |t: &str| Identity::parse(t).unwrap().len;
        assert_eq!(len("ipv4:192.0.2.1"), 4);
        assert_eq!(len("ipv6:2001:db8::1"), 16);
        assert_eq!(len("fqdn:moon.example.org"), 16);
        assert_eq!(len("email:a@b.c"), 5);
        assert_eq!(len("dn:87"), 87);
        assert_eq!(len("keyid:20"), 20);
        // ID payload: generic header 4 + type and reserved 4 + data.
        assert_eq!(
            id("IDi", &Identity::parse("ipv4:192.0.2.1").unwrap())
                .unwrap()
                .len,
            12
        );
        for bad in [
            "moon",
            "ipv4:1.2.3",
            "ipv6:x",
            "dn:0",
            "dn:70000",
            "fqdn:",
            "x500:1",
        ] {
            let e = Identity::parse(bad).unwrap_err().to_string();
            assert!(e.contains("IKEv2 identity"), "{bad}: {e}");
        }
    }

    #[test]
    fn traffic_selectors_and_notifies() {
        // §3.13: 4 + 16 per IPv4 selector, 4 + 40 per IPv6 selector.
        assert_eq!(ts("TSi", 4, 1).unwrap().len, 4 + 4 + 16);
        assert_eq!(ts("TSi", 6, 2).unwrap().len, 4 + 4 + 80);
        // §3.10: 4 + protocol, SPI size, type + data.
        assert_eq!(notify("NAT_DETECTION_SOURCE_IP", 20).unwrap().len, 28);
        assert_eq!(vendor_id("strongSwan", 16).unwrap().len, 20);
        assert!(p("big", MAX_PAYLOAD, Content::Nonce(MAX_PAYLOAD)).is_err());
        // REKEY_SA: the 4 bytes are the ESP SPI; a name without an IANA type is refused.
        assert_eq!(
            notify("REKEY_SA", 4).unwrap().content,
            Content::Notify {
                kind: 16393,
                spi: 4,
                data: 0
            }
        );
        assert!(notify("NOT_A_NOTIFY", 0).is_err());
    }
}
