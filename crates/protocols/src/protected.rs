//! The protected length: how many bytes a security layer's cipher processes for one frame.
//!
//! What is counted, and why, is [`Protected`]'s documentation.

#![deny(clippy::arithmetic_side_effects)]

use serde::Serialize;

// Every sum here saturates rather than wraps: [`Stack::protected`] only asks for an inner length
// whose frame `wire_len` has sized without overflow (so no sum comes near `usize::MAX`), and a
// direct caller with a larger length gets `usize::MAX`, never a small wrapped length.

use crate::Result;
use crate::esp::{self, Cipher as EspCipher, Esp};
use crate::layer::{Encapsulation, pad_to};
use crate::macsec::Macsec;
use crate::ssh::{self, Cipher as SshCipher, Ssh};
use crate::stack::{Layer, Stack};
use crate::tls::{Cipher as TlsCipher, Record};

/// DA + SA in front of the SecTAG, authenticated by MACsec (802.1AE-2018 §14.1) \[bytes\].
const MAC_ADDRESSES: usize = 6 + 6;
/// The frame's own EtherType, carried in MACsec's secure data (802.1AE-2018 §9.2) \[bytes\].
const INNER_ETHERTYPE: usize = 2;
/// TLS 1.2 / DTLS 1.2 MAC and AEAD pseudo-header: seq_num 8 + type 1 + version 2 + length 2
/// (RFC 5246 §6.2.3.1, §6.2.3.3) \[bytes\].
const TLS12_PSEUDO_HEADER: usize = 8 + 1 + 2 + 2;
/// TLS 1.3 inner content type byte (RFC 8446 §5.2) \[bytes\].
const INNER_TYPE: usize = 1;

/// What one security layer's cipher processes for one frame.
///
/// This is the one definition of the cipher's length L in the workspace. The engine charges a
/// profile's `seal`/`open` cost at it (`model::scenario::protected_len`), reproduce's tables
/// use it, the live experiment evaluates its prediction at it, and crypto-bench's measurement
/// of `seal(L)` means the same L (`crypto_bench::rustcrypto_ciphers`).
///
/// For each security layer three numbers are counted, from the standards:
///
/// | layer, mode | `encrypted` | `authenticated` (integrity only, not encrypted) |
/// |---|---|---|
/// | ESP, AEAD (RFC 4106 §5, 4309 §5, 7634 §2.2) | payload + TFC + padding + pad length + next header | SPI + sequence number (8) |
/// | ESP, AES-GMAC (RFC 4543 §3.5) | 0 | SPI + sequence + IV + payload + TFC + padding + 2 |
/// | ESP, CBC + HMAC (RFC 4303 §3.3.2, 3602, 4868) | payload + TFC + padding + 2 | SPI + sequence + IV (24) |
/// | ESP, NULL + HMAC (RFC 2410) | 0 | SPI + sequence + payload + TFC + padding + 2 |
/// | MACsec, encrypt (802.1AE-2018 §14.5) | EtherType + user data, minus the confidentiality offset | DA + SA + SecTAG (+ offset) |
/// | MACsec, integrity (802.1AE-2018 §14.5) | 0 | DA + SA + SecTAG + EtherType + user data |
/// | TLS 1.3 (RFC 8446 §5.2) | per record: content + content type (1) | record header |
/// | TLS/DTLS 1.2 AEAD (RFC 5246 §6.2.3.3) | per record: content | sequence number + header (13) |
/// | TLS/DTLS 1.2 CBC (RFC 5246 §6.2.3.2; RFC 7366 with `etm`) | content (+ MAC) + padding + 1 | sequence number + header (+ IV with `etm`) |
/// | TLS/DTLS 1.2 NULL | 0 | sequence number + header + content |
/// | SSH (RFC 4253 §6, RFC 5647, OpenSSH PROTOCOL) | padding length + payload + padding (+ packet length unless AEAD/etm) | packet length with AEAD/etm |
///
/// The **charged length** ([`Protected::charged`], the L of a profile's `cost(L)`) is the length
/// crypto-bench hands its cipher when it measures `seal` of L bytes:
///
/// * an AEAD suite (`aes128-gcm`, `chacha20-poly1305`, ...) encrypts exactly L bytes: L =
///   `encrypted` (the ESP trailer and TLS 1.3 content type included, since the cipher
///   processes them). Its fixed associated data (8 bytes in crypto-bench, 28 for MACsec's
///   DA + SA + SecTAG) is not part of L; the difference is at most two GHASH blocks.
/// * an integrity-only suite (`gmac-aes128`, ...) authenticates exactly L bytes: L =
///   `authenticated`.
/// * a CBC + HMAC suite (`aes256-cbc-hmac-sha256`, ...) is handed the ESP payload and pads it
///   itself (the padding, pad length and next header follow from L), so L = `encrypted` minus
///   the ESP padding and its 2-byte trailer: the inner packet plus TFC padding.
///
/// For a frame through `eth/macsec(gcm-aes-128,encrypt)/ecpri` with 7660 B of payload, L is
/// 7666 B: the eCPRI header (4), the payload (7660) and the frame's own EtherType (2), which
/// moves behind the SecTAG into the secure data (§9.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Protected {
    /// Bytes enciphered (0 for integrity-only suites) \[bytes\].
    pub encrypted: usize,
    /// Bytes covered by the integrity check but sent in clear: headers, associated data,
    /// and the whole protected data of integrity-only suites \[bytes\].
    pub authenticated: usize,
    /// The length a profile's `seal`/`open` cost is evaluated at, as crypto-bench measures it
    /// (see the module docs) \[bytes\].
    pub charged: usize,
}

impl Protected {
    fn aead(encrypted: usize, authenticated: usize) -> Protected {
        Protected {
            encrypted,
            authenticated,
            charged: encrypted,
        }
    }

    fn integrity_only(authenticated: usize) -> Protected {
        Protected {
            encrypted: 0,
            authenticated,
            charged: authenticated,
        }
    }

    fn add(self, other: Protected) -> Protected {
        Protected {
            encrypted: self.encrypted.saturating_add(other.encrypted),
            authenticated: self.authenticated.saturating_add(other.authenticated),
            charged: self.charged.saturating_add(other.charged),
        }
    }

    /// `times` records alike, summed (one multiplication, not a loop over the records).
    fn times(self, times: usize) -> Protected {
        Protected {
            encrypted: self.encrypted.saturating_mul(times),
            authenticated: self.authenticated.saturating_mul(times),
            charged: self.charged.saturating_mul(times),
        }
    }
}

impl Esp {
    /// What the transform processes for an ESP payload of `inner` bytes.
    pub fn protected(&self, inner: usize) -> Protected {
        // TFC padding (RFC 4303 §2.7) belongs to the payload the sender hands the cipher.
        let data = inner.max(self.tfc);
        let trailed = data.saturating_add(esp::PAD_LEN_NEXT_HEADER);
        let body = trailed.saturating_add(pad_to(trailed, self.transform.cipher.align()));
        // Constants: 8 + an IV of at most 16 bytes.
        #[allow(clippy::arithmetic_side_effects)]
        let header = esp::HEADER + self.transform.cipher.iv_len();
        match self.transform.cipher {
            EspCipher::AesGcm(..) | EspCipher::AesCcm(..) | EspCipher::ChaCha20Poly1305 => {
                Protected::aead(body, esp::HEADER)
            }
            EspCipher::AesGmac(_) | EspCipher::Null => {
                Protected::integrity_only(header.saturating_add(body))
            }
            EspCipher::AesCbc(_) => Protected {
                encrypted: body,
                authenticated: header,
                charged: data,
            },
        }
    }
}

impl Macsec {
    /// What the cipher suite processes for `inner` bytes above the SecTAG (the layers above
    /// MACsec; the frame's EtherType is added here).
    pub fn protected(&self, inner: usize) -> Protected {
        let clear = MAC_ADDRESSES.saturating_add(self.sectag_len());
        let secure = INNER_ETHERTYPE.saturating_add(inner);
        if self.encrypt {
            let offset = self.offset.min(secure);
            Protected::aead(secure.saturating_sub(offset), clear.saturating_add(offset))
        } else {
            Protected::integrity_only(clear.saturating_add(secure))
        }
    }
}

impl Record {
    /// What the record protection processes for `payload` bytes, summed over the records.
    pub fn protected(&self, payload: usize) -> Protected {
        // A `max_fragment` of 0 (refused when parsed) counts as one byte per record.
        let full = payload.checked_div(self.max_fragment).unwrap_or(payload);
        let rest = payload.checked_rem(self.max_fragment).unwrap_or(0);
        let mut total = self.record_protected(self.max_fragment).times(full);
        if rest > 0 || full == 0 {
            total = total.add(self.record_protected(rest));
        }
        total
    }

    fn record_protected(&self, n: usize) -> Protected {
        let header = self.header_len();
        if self.version.is_13() {
            return Protected::aead(n.saturating_add(INNER_TYPE), header);
        }
        let aad = TLS12_PSEUDO_HEADER;
        match self.cipher {
            TlsCipher::AesGcm(_)
            | TlsCipher::AesCcm(_)
            | TlsCipher::AesCcm8(_)
            | TlsCipher::ChaCha20Poly1305 => Protected::aead(n, aad),
            TlsCipher::AesCbc(_, mac) => {
                let parts = self.parts(n).unwrap_or_default();
                let mac_in = if self.etm { 0 } else { mac.mac_len() };
                let encrypted = n
                    .saturating_add(mac_in)
                    .saturating_add(parts.padding)
                    .saturating_add(crate::tls::PADDING_LENGTH);
                let iv = if self.etm { crate::tls::AES_BLOCK } else { 0 };
                Protected::aead(encrypted, aad.saturating_add(iv))
            }
            TlsCipher::Null(_) => Protected::integrity_only(aad.saturating_add(n)),
        }
    }
}

impl Ssh {
    /// What the cipher processes for one binary packet carrying `payload` bytes.
    pub fn protected(&self, payload: usize) -> Protected {
        let parts = self.parts(payload).unwrap_or_default();
        let length_outside = match self.cipher {
            SshCipher::AesGcm(_) | SshCipher::ChaCha20Poly1305 => true,
            SshCipher::AesCtr(_) | SshCipher::AesCbc(_) => self.etm,
        };
        let all = parts
            .header
            .saturating_add(payload)
            .saturating_add(parts.padding);
        if length_outside {
            Protected::aead(all.saturating_sub(ssh::PACKET_LENGTH), ssh::PACKET_LENGTH)
        } else {
            Protected::aead(all, 0)
        }
    }
}

impl Layer {
    /// What this layer's cipher processes for `inner` bytes handed down from above; `None`
    /// for layers without protection.
    pub fn protected(&self, inner: usize) -> Option<Protected> {
        match self {
            Layer::Esp(e) => Some(e.protected(inner)),
            Layer::Macsec(m) => Some(m.protected(inner)),
            Layer::Tls(r) => Some(r.protected(inner)),
            Layer::Ssh(s) => Some(s.protected(inner)),
            _ => None,
        }
    }
}

impl Stack {
    /// What the lowest (outermost) security layer's cipher processes for `payload`
    /// application bytes, or `None` when the stack has no ESP, MACsec, TLS/DTLS or SSH layer.
    /// See [`Protected`] for what is counted.
    pub fn protected(&self, payload: usize) -> Result<Option<Protected>> {
        let layers = self.breakdown(payload)?;
        Ok(self
            .layers()
            .iter()
            .zip(&layers)
            .find_map(|(l, b)| l.protected(b.inner)))
    }

    /// The protected length L of `payload` application bytes \[bytes\]: the
    /// [`Protected::charged`] length of the outermost security layer, the length a profile's
    /// cipher cost is evaluated at. `None` without a security layer. The one definition of L
    /// in the workspace.
    pub fn protected_len(&self, payload: usize) -> Result<Option<usize>> {
        Ok(self.protected(payload)?.map(|p| p.charged))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(stack: &str, payload: usize) -> Protected {
        let s: Stack = stack.parse().unwrap();
        s.protected(payload).unwrap().unwrap()
    }

    #[test]
    fn macsec_encrypts_the_ethertype_and_the_user_data() {
        // Issue 15: 7664 (model), 7678 (reproduce) and 7666 (live) disagreed; 7666 is right.
        let m = p("eth/macsec(gcm-aes-128,encrypt)/ecpri", 7660);
        assert_eq!((m.encrypted, m.authenticated, m.charged), (7666, 28, 7666));
        let i = p("eth/macsec(gcm-aes-128,integrity)/ecpri", 7660);
        assert_eq!((i.encrypted, i.authenticated, i.charged), (0, 7694, 7694));
        let o = p("eth/macsec(gcm-aes-128,encrypt,offset=30)/ecpri", 100);
        assert_eq!((o.encrypted, o.authenticated), (76, 58));
        let n = p("eth/macsec(gcm-aes-128,encrypt,no-sci)/ecpri", 100);
        assert_eq!(n.authenticated, 12 + 8);
    }

    #[test]
    fn esp_counts_the_trailer_for_aead_and_not_for_cbc() {
        // 64 B over inner IPv4 + UDP = 92 B; GCM pads 92 + 2 to 96, CBC to 96 as well.
        let g = p("ipv4/esp-tunnel(aes256-gcm-16)/ipv4/udp", 64);
        assert_eq!((g.encrypted, g.authenticated, g.charged), (96, 8, 96));
        let c = p("ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/udp", 64);
        assert_eq!((c.encrypted, c.authenticated, c.charged), (96, 24, 92));
        let m = p("ipv4/esp-tunnel(aes128-gmac)/ipv4/udp", 64);
        assert_eq!((m.encrypted, m.authenticated, m.charged), (0, 112, 112));
        // The E2 SACK: 48 inner bytes, 14 of padding.
        let e2 = p(
            "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp(sack)",
            0,
        );
        assert_eq!((e2.encrypted, e2.charged), (64, 48));
    }

    #[test]
    fn tls_counts_the_content_type() {
        let t = p("ipv4/tcp/tls13(aes256-gcm)", 64);
        assert_eq!((t.encrypted, t.authenticated, t.charged), (65, 5, 65));
        let two = p("ipv4/tcp/tls13(aes128-gcm,record=100)", 150);
        assert_eq!(two.encrypted, 152);
        let t12 = p("ipv4/tcp/tls12(aes128-gcm)", 64);
        assert_eq!((t12.encrypted, t12.authenticated), (64, 13));
        let cbc = p("ipv4/tcp/tls12(aes128-cbc,hmac-sha1)", 0);
        assert_eq!(cbc.encrypted, 32); // 20 MAC + 11 padding + 1
    }

    #[test]
    fn no_security_layer_no_length() {
        let s: Stack = "eth/ipv4/udp".parse().unwrap();
        assert_eq!(s.protected_len(100).unwrap(), None);
        let s: Stack = "eth/ipv4/tcp/ssh(aes128-gcm)".parse().unwrap();
        let got = s.protected(0).unwrap().unwrap();
        // padding length 1 + channel data 9 + padding 6 = 16.
        assert_eq!((got.encrypted, got.authenticated), (16, 4));
    }
}
