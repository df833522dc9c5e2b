//! The O-RAN interface catalogue (Groen et al., TMC 2024, Table 1): each interface's required
//! security functions, its protocol, the paper's minimum overhead, and the minimum the model
//! computes with the suite that gives it.
//!
//! "Overhead" is what securing adds to one packet: `wire_len(secured, p) - wire_len(plain, p)`
//! for the interface's transport, minimised (and maximised) over payloads `p`; padding makes
//! it depend on `p` with a period of at most 16 bytes, so payloads 0..=255 cover every case.
//! Only suites that give the functions an interface requires count: a suite without
//! confidentiality (ESP AES-GMAC, TLS NULL) cannot protect an interface that requires it.
//! "Recommended" follows RFC 8221 §5-6 for ESP (MUST/SHOULD), the IANA TLS registry
//! "Recommended = Y" for TLS, and OpenSSH's default cipher/MAC lists for SSH.

use serde::Serialize;

use crate::Result;
use crate::error::{Error, Input};
use crate::esp::{self, Esp, Mode};
use crate::macsec::{Cipher as MacsecCipher, Macsec};
use crate::sctp::Sctp;
use crate::ssh::{Cipher as SshCipher, Mac as SshMac, Ssh};
use crate::stack::{Layer, Stack};
use crate::suite::{AesKey, Suite};
use crate::tls::{self, Cipher as TlsCipher, Mac as TlsMac, Record, Version};
use crate::udp::Udp;

/// One suite's overhead range on one transport.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SuiteOverhead {
    /// Protocol (`IPsec`, `TLS`, `SSHv2`, `MACsec`).
    pub protocol: &'static str,
    /// The secured stack, e.g. `eth/ipv4/esp-tunnel(aes256-gcm-16)/ipv4/sctp`.
    pub stack: String,
    /// The same traffic unprotected.
    pub plain: String,
    /// Smallest added bytes over all payloads \[bytes\].
    pub min: usize,
    /// Largest added bytes over all payloads \[bytes\].
    pub max: usize,
    /// Whether the suite encrypts.
    pub confidential: bool,
    /// Whether the suite is recommended (RFC 8221, IANA TLS registry, OpenSSH defaults).
    pub recommended: bool,
}

/// One row of the catalogue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InterfaceRow {
    /// Interfaces of the row, e.g. `E2`.
    pub interfaces: &'static str,
    /// Confidentiality required.
    pub confidentiality: bool,
    /// Integrity required.
    pub integrity: bool,
    /// Authentication required.
    pub authentication: bool,
    /// Replay protection required.
    pub replay_protection: bool,
    /// Protocol(s) the O-RAN specifications require.
    pub protocol: &'static str,
    /// The paper's minimum overhead, as printed.
    pub paper_min: &'static str,
    /// The model's minimum over recommended suites that meet the requirements; `None` when
    /// the protocol adds nothing per packet (802.1X).
    pub model_min: Option<SuiteOverhead>,
    /// The model's minimum over every suite that meets the requirements.
    pub model_min_any: Option<SuiteOverhead>,
    /// Suites (meeting the requirements) whose overhead range contains the paper's figure.
    pub paper_figure_in_range_of: Vec<String>,
    /// What the comparison shows.
    pub note: String,
}

fn range(
    protocol: &'static str,
    s: Stack,
    p: Stack,
    confidential: bool,
    recommended: bool,
) -> Result<SuiteOverhead> {
    let (mut min, mut max) = (usize::MAX, 0);
    for n in 0..=255 {
        let o = s.wire_len(n)? - p.wire_len(n)?;
        min = min.min(o);
        max = max.max(o);
    }
    Ok(SuiteOverhead {
        protocol,
        stack: s.to_string(),
        plain: p.to_string(),
        min,
        max,
        confidential,
        recommended,
    })
}

/// ESP tunnel mode over IPv4 (O-RAN mandates tunnel mode) for every suite, carrying
/// `transport` (an `sctp` layer for E2, whose DATA chunks are padded to 4 bytes, or `udp`).
pub fn ipsec_suites(transport: Layer) -> Result<Vec<SuiteOverhead>> {
    use crate::esp::{Cipher, Integrity};
    let mut v = Vec::new();
    for transform in esp::EspTransform::all() {
        // RFC 8221 §5 (ENCR) and §6 (AUTH): MUST/SHOULD entries.
        let recommended = match (transform.cipher, transform.integrity) {
            (Cipher::AesGcm(_, 16) | Cipher::AesCcm(_, 8) | Cipher::ChaCha20Poly1305, None) => true,
            (Cipher::AesGmac(_), None) => true,
            (Cipher::AesCbc(_) | Cipher::Null, Some(i)) => {
                matches!(
                    i,
                    Integrity::HmacSha256_128 | Integrity::HmacSha512_256 | Integrity::HmacSha1_96
                )
            }
            _ => false,
        };
        let esp = Layer::Esp(Esp {
            mode: Mode::Tunnel,
            transform,
            tfc: 0,
        });
        v.push(range(
            "IPsec",
            Stack::builder()
                .eth()
                .ipv4()
                .layer(esp)
                .ipv4()
                .layer(transport.clone())
                .build()?,
            Stack::builder()
                .eth()
                .ipv4()
                .layer(transport.clone())
                .build()?,
            transform.cipher.confidential(),
            recommended,
        )?);
    }
    Ok(v)
}

/// `eth/ipv4/tcp` with `top` on it, if any.
fn over_tcp(top: Option<Layer>) -> Result<Stack> {
    Stack::builder().eth().ipv4().tcp().layers(top).build()
}

/// A TLS record layer of `version` with full-size records.
fn record(version: Version, cipher: TlsCipher, etm: bool) -> Layer {
    Layer::Tls(Record {
        version,
        cipher,
        max_fragment: tls::MAX_FRAGMENT,
        etm,
        seq8: false,
        length: true,
        cid: 0,
    })
}

/// TLS 1.3 and TLS 1.2 records over TCP.
pub fn tls_suites() -> Result<Vec<SuiteOverhead>> {
    let mut v = Vec::new();
    // IANA TLS Cipher Suites registry, "Recommended" column (RFC 8447).
    for (layer, rec) in [
        (Layer::tls13(Suite::Aes128Gcm)?, true),
        (Layer::tls13(Suite::Aes256Gcm)?, true),
        (Layer::tls13(Suite::ChaCha20Poly1305)?, true),
        (Layer::tls13(Suite::Aes128Ccm)?, false),
        (
            record(Version::Tls13, TlsCipher::AesCcm8(128), false),
            false,
        ),
    ] {
        v.push(range(
            "TLS",
            over_tcp(Some(layer))?,
            over_tcp(None)?,
            true,
            rec,
        )?);
    }
    for (cipher, etm, conf, rec) in [
        (TlsCipher::AesGcm(128), false, true, true),
        (TlsCipher::AesGcm(256), false, true, true),
        (TlsCipher::ChaCha20Poly1305, false, true, true),
        (TlsCipher::AesCcm(128), false, true, true),
        (TlsCipher::AesCcm(256), false, true, true),
        (TlsCipher::AesCcm8(128), false, true, false),
        (TlsCipher::AesCbc(128, TlsMac::Sha1), false, true, false),
        (TlsCipher::AesCbc(128, TlsMac::Sha256), false, true, false),
        (TlsCipher::AesCbc(256, TlsMac::Sha384), false, true, false),
        (TlsCipher::AesCbc(128, TlsMac::Sha256), true, true, false),
        (TlsCipher::Null(TlsMac::Sha1), false, false, false),
        (TlsCipher::Null(TlsMac::Sha256), false, false, false),
    ] {
        let layer = record(Version::Tls12, cipher, etm);
        v.push(range(
            "TLS",
            over_tcp(Some(layer))?,
            over_tcp(None)?,
            conf,
            rec,
        )?);
    }
    Ok(v)
}

/// SSHv2 binary packets over TCP, without the 9-byte channel-data header (`raw`).
pub fn ssh_suites() -> Result<Vec<SuiteOverhead>> {
    let mut v = Vec::new();
    for (cipher, mac, etm, rec) in [
        (SshCipher::ChaCha20Poly1305, None, false, true),
        (SshCipher::AesGcm(128), None, false, true),
        (SshCipher::AesGcm(256), None, false, true),
        (SshCipher::AesCtr(128), Some(SshMac::Umac64), true, true),
        (SshCipher::AesCtr(128), Some(SshMac::Umac128), true, true),
        (
            SshCipher::AesCtr(128),
            Some(SshMac::HmacSha2_256),
            true,
            true,
        ),
        (
            SshCipher::AesCtr(128),
            Some(SshMac::HmacSha2_512),
            true,
            true,
        ),
        (SshCipher::AesCtr(128), Some(SshMac::HmacSha1), true, true),
        (SshCipher::AesCtr(128), Some(SshMac::HmacSha1), false, false),
        (
            SshCipher::AesCtr(128),
            Some(SshMac::HmacSha1_96),
            false,
            false,
        ),
        (
            SshCipher::AesCtr(128),
            Some(SshMac::HmacSha2_256),
            false,
            false,
        ),
        (SshCipher::AesCbc(128), Some(SshMac::HmacSha1), false, false),
    ] {
        let ssh = Layer::Ssh(Ssh {
            cipher,
            mac,
            etm,
            channel_data: false,
        });
        v.push(range(
            "SSHv2",
            over_tcp(Some(ssh))?,
            over_tcp(None)?,
            true,
            rec,
        )?);
    }
    Ok(v)
}

/// MACsec on the fronthaul, with and without SCI.
pub fn macsec_suites() -> Result<Vec<SuiteOverhead>> {
    let mut v = Vec::new();
    let no_sci = Macsec {
        cipher: MacsecCipher::GcmAes128,
        encrypt: true,
        sci: false,
        offset: 0,
    };
    for m in [
        Layer::macsec(Suite::Aes128Gcm)?,
        Layer::macsec(Suite::Aes256Gcm)?,
        Layer::Macsec(no_sci),
        Layer::macsec(Suite::Gmac {
            aes: AesKey::Aes128,
        })?,
    ] {
        let confidential = matches!(&m, Layer::Macsec(s) if s.encrypt);
        let secured = Stack::builder().eth().layer(m).ecpri().build()?;
        let plain = Stack::builder().eth().ecpri().build()?;
        v.push(range("MACsec", secured, plain, confidential, true)?);
    }
    Ok(v)
}

/// The interface names accepted by [`interface`].
pub(crate) const INTERFACES: &str =
    "A1, O2, O1, F1-C, E2, F1, W1, E1, X2, Xn, M-plane, C-plane, U-plane, S-plane";

fn best(c: &[SuiteOverhead], conf: bool, recommended_only: bool) -> Option<SuiteOverhead> {
    c.iter()
        .filter(|s| (!conf || s.confidential) && (!recommended_only || s.recommended))
        .min_by_key(|s| (s.min, s.max))
        .cloned()
}

/// All rows of the catalogue.
pub(crate) fn catalogue() -> Result<Vec<InterfaceRow>> {
    let ipsec_e2 = ipsec_suites(Layer::Sctp(Sctp::default()))?;
    let ipsec = ipsec_suites(Layer::Udp(Udp))?;
    let tls = tls_suites()?;
    let ssh = ssh_suites()?;
    let macsec = macsec_suites()?;
    let mut rows = Vec::new();
    #[allow(clippy::too_many_arguments)]
    let mut row = |interfaces: &'static str,
                   c: bool,
                   i: bool,
                   a: bool,
                   r: bool,
                   protocol: &'static str,
                   paper_min: &'static str,
                   paper: Option<usize>,
                   cands: Vec<SuiteOverhead>,
                   note: String| {
        let in_range = paper.map_or(Vec::new(), |p| {
            cands
                .iter()
                .filter(|s| (!c || s.confidential) && s.min <= p && p <= s.max)
                .map(|s| format!("{} ({}..{} B)", s.stack, s.min, s.max))
                .collect()
        });
        rows.push(InterfaceRow {
            interfaces,
            confidentiality: c,
            integrity: i,
            authentication: a,
            replay_protection: r,
            protocol,
            paper_min,
            model_min: best(&cands, c, true),
            model_min_any: best(&cands, c, false),
            paper_figure_in_range_of: in_range,
            note,
        });
    };
    let tls_note = "The paper's 25 B is a TLS 1.2 record with a stream cipher or NULL and HMAC-SHA1: 5-byte header + 20-byte MAC \
(RC4, forbidden by RFC 7465, or NULL, no confidentiality). Recommended AEAD suites add 21 B (TLS 1.2 ChaCha20-Poly1305), 22 B (TLS 1.3) \
or 29 B (TLS 1.2 AES-GCM, 8-byte explicit nonce); TLS 1.3 AES-128-CCM-8 adds 14 B."
        .to_string();
    let ipsec_note = "No ESP suite adds exactly 57 B at minimum in tunnel mode over IPv4: AES-GCM-16, AES-CCM-16 and ChaCha20-Poly1305 add \
20 outer IPv4 + 8 ESP + 8 IV + 2 + 16 ICV = 54 B plus 0..3 B of 4-byte padding, so 57 B is their maximum for inner packets of any \
length; AES-CBC adds a 16-byte IV and 16-byte alignment: 58..73 B with HMAC-SHA1-96 and 62..77 B with HMAC-SHA2-256-128. The smallest \
is AES-CCM-8 (46..49 B)."
        .to_string();
    let e2_note = "E2 carries SCTP, whose chunks are padded to 4 bytes, so the inner packet length is a multiple of 4 and ESP padding is \
2 mod 4: AES-GCM-16 always adds 56 B, AES-CCM-8 48 B, AES-256-CBC + HMAC-SHA2-256-128 (the papers' suite) 64, 68, 72 or 76 B (the \
62-byte SACK gets 76 B -> 138 B). 57 B cannot occur on E2; it is the largest overhead of the 16-byte-ICV counter-mode suites on \
traffic of arbitrary length (see the F1/Xn row)."
        .to_string();
    row(
        "A1, O2",
        true,
        true,
        true,
        true,
        "TLS",
        ">= 25 B",
        Some(25),
        tls.clone(),
        tls_note.clone(),
    );
    row(
        "O1",
        true,
        true,
        true,
        false,
        "TLS",
        ">= 25 B",
        Some(25),
        tls.clone(),
        tls_note.clone(),
    );
    row(
        "F1-C",
        true,
        true,
        false,
        true,
        "TLS",
        ">= 25 B",
        Some(25),
        tls.clone(),
        tls_note.clone(),
    );
    row(
        "E2",
        true,
        true,
        true,
        true,
        "IPsec",
        ">= 57 B",
        Some(57),
        ipsec_e2,
        e2_note,
    );
    row(
        "F1, W1, E1, X2, Xn",
        true,
        true,
        true,
        false,
        "IPsec",
        ">= 57 B",
        Some(57),
        ipsec,
        ipsec_note,
    );
    row(
        "Fronthaul M-plane",
        true,
        true,
        true,
        false,
        "SSHv2 or TLS",
        ">= 28 or >= 25 B",
        Some(28),
        [ssh, tls].concat(),
        "SSH binary packet (RFC 4253 §6): 4 length + 1 padding length + at least 4 padding + MAC. With AEAD (AES-GCM, ChaCha20-Poly1305) \
the minimum is 25 B, with hmac-sha1 29 B, with umac-64-etm 17 B; 28 B is no suite's minimum (it is hmac-sha1's 29 B without the \
padding-length byte). Channel data adds a further 9 B (RFC 4254 §5.2)."
            .into(),
    );
    row(
        "Fronthaul C, U, S planes",
        false,
        false,
        true,
        false,
        "802.1X",
        "n/a",
        None,
        macsec,
        "802.1X authenticates the port and adds no bytes to data frames. With MACsec as 000 §5 evaluates it, the overhead is a \
fixed 32 B (SecTAG with SCI 16 + ICV 16) or 24 B without SCI, for every payload, with or without encryption: GCM is a counter \
mode, so no block padding is added (the paper's remark that block ciphers may add more than 32 B does not apply to any 802.1AE suite)."
            .into(),
    );
    // 802.1X itself adds nothing; show MACsec only as the model_min_any alternative.
    if let Some(last) = rows.last_mut() {
        last.model_min = None;
    }
    Ok(rows)
}

/// The catalogue row for one interface name (case-insensitive; `E2`, `O1`, `Xn`, ...).
pub fn interface(name: &str) -> Result<InterfaceRow> {
    let n = name.trim().to_ascii_uppercase().replace(['_', ' '], "-");
    let key = match n.as_str() {
        "A1" | "O2" => "A1, O2",
        "O1" => "O1",
        "F1-C" | "F1C" => "F1-C",
        "E2" => "E2",
        "F1" | "F1-U" | "W1" | "E1" | "X2" | "XN" => "F1, W1, E1, X2, Xn",
        "M-PLANE" | "FRONTHAUL-M" | "OFH-M" => "Fronthaul M-plane",
        "C-PLANE" | "U-PLANE" | "S-PLANE" | "OFH" | "FRONTHAUL" | "OFH-CUS" => {
            "Fronthaul C, U, S planes"
        }
        _ => {
            return Err(Error::UnknownName {
                what: Input::Interface,
                name: name.into(),
                allowed: INTERFACES.into(),
            });
        }
    };
    catalogue()?
        .into_iter()
        .find(|r| r.interfaces == key)
        .ok_or_else(|| Error::UnknownName {
            what: Input::Interface,
            name: name.into(),
            allowed: INTERFACES.into(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e2_minimum_and_the_57() {
        let e2 = interface("e2").unwrap();
        let best = e2.model_min.unwrap();
        assert_eq!((best.min, best.max), (48, 48), "{}", best.stack);
        assert!(best.stack.contains("ccm-8"));
        assert!(
            e2.paper_figure_in_range_of.is_empty(),
            "{:?}",
            e2.paper_figure_in_range_of
        );
        let e2_cbc = ipsec_suites(Layer::Sctp(Sctp::default())).unwrap();
        let sack = e2_cbc
            .iter()
            .find(|s| s.stack.contains("aes256-cbc,hmac-sha256-128"))
            .unwrap();
        assert_eq!((sack.min, sack.max), (64, 76));
        // Arbitrary inner lengths: 57 is the maximum of the 16-byte-ICV counter-mode suites.
        let xn = interface("Xn").unwrap();
        assert_eq!(xn.model_min.unwrap().min, 46);
        assert!(
            xn.paper_figure_in_range_of
                .iter()
                .any(|s| s.contains("aes256-gcm-16") && s.contains("54..57"))
        );
        let ipsec = ipsec_suites(Layer::Udp(Udp)).unwrap();
        assert!(ipsec.iter().filter(|s| s.confidential).all(|s| s.min != 57));
        let cbc = ipsec
            .iter()
            .find(|s| s.stack.contains("aes256-cbc,hmac-sha256-128"))
            .unwrap();
        assert_eq!((cbc.min, cbc.max), (62, 77));
    }

    #[test]
    fn tls_25_is_null_or_stream_with_sha1() {
        let a1 = interface("A1").unwrap();
        assert_eq!(a1.model_min.as_ref().unwrap().min, 21);
        assert_eq!(a1.model_min_any.as_ref().unwrap().min, 14);
        let tls = tls_suites().unwrap();
        let exact: Vec<_> = tls.iter().filter(|s| s.min == 25 && s.max == 25).collect();
        assert_eq!(exact.len(), 1);
        assert!(exact[0].stack.contains("null,hmac-sha1") && !exact[0].confidential);
    }

    #[test]
    fn ssh_28_is_no_minimum_and_macsec_is_32() {
        let ssh = ssh_suites().unwrap();
        assert!(ssh.iter().all(|s| s.min != 28));
        let m = macsec_suites().unwrap();
        assert!(
            m.iter()
                .filter(|s| s.stack.contains("no-sci"))
                .all(|s| s.min == 24 && s.max == 24)
        );
        assert!(
            m.iter()
                .filter(|s| !s.stack.contains("no-sci"))
                .all(|s| s.min == 32 && s.max == 32)
        );
        let e = interface("Z9").unwrap_err().to_string();
        assert!(e.contains("E2") && e.contains("M-plane"), "{e}");
    }
}
