//! A TLS 1.3 connection's opening as a capture shows it, with fixed test secrets: the clear
//! ClientHello and ServerHello, the server's encrypted EncryptedExtensions and Finished, the
//! client's encrypted Finished, the record keys of RFC 8446 §7.3 derived from the traffic
//! secrets (HKDF-Expand-Label, §7.1), and the NSS key log lines Wireshark decrypts them with.
//! Nothing is negotiated: the key shares and Finished values are fixed bytes, the secrets are
//! test values derived from labels with SHA-256. They protect nothing.

use hmac::{Hmac, Mac};
use protocols::tls::Cipher;
use sha2::{Digest, Sha256, Sha384};

use super::seal::aead_seal_detached;

/// TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256 (RFC 8446
/// §B.4), or None for a suite not sealed here.
fn suite_id(c: Cipher) -> Option<u16> {
    match c {
        Cipher::AesGcm(128) => Some(0x1301),
        Cipher::AesGcm(256) => Some(0x1302),
        Cipher::ChaCha20Poly1305 => Some(0x1303),
        _ => None,
    }
}

/// The hash of the suite (RFC 8446 §B.4): SHA-384 for AES-256-GCM, SHA-256 otherwise.
fn hash_len(c: Cipher) -> usize {
    if c == Cipher::AesGcm(256) { 48 } else { 32 }
}

/// Key length of the suite's AEAD \[bytes\].
pub(super) fn key_len(c: Cipher) -> usize {
    match c {
        Cipher::AesGcm(bits) => usize::from(bits / 8),
        _ => 32,
    }
}

fn hmac_of(len: usize, key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    fn run<M: Mac + hmac::digest::KeyInit>(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
        // HMAC takes a key of any length (RFC 2104 §2).
        match <M as hmac::digest::KeyInit>::new_from_slice(key) {
            Ok(mut m) => {
                for p in parts {
                    m.update(p);
                }
                m.finalize().into_bytes().to_vec()
            }
            Err(_) => Vec::new(),
        }
    }
    if len == 48 {
        run::<Hmac<Sha384>>(key, parts)
    } else {
        run::<Hmac<Sha256>>(key, parts)
    }
}

/// HKDF-Expand-Label(secret, label, "", len) (RFC 8446 §7.1, RFC 5869 §2.3) with the hash
/// whose output is `secret.len()` bytes.
pub(super) fn expand_label(secret: &[u8], label: &str, len: usize) -> Vec<u8> {
    let full = format!("tls13 {label}");
    let mut info = Vec::with_capacity(4 + full.len());
    info.extend_from_slice(&(len as u16).to_be_bytes());
    info.push(full.len() as u8);
    info.extend_from_slice(full.as_bytes());
    info.push(0);
    let mut out = Vec::with_capacity(len + secret.len());
    let mut t: Vec<u8> = Vec::new();
    let mut i = 1u8;
    while out.len() < len {
        t = hmac_of(secret.len(), secret, &[&t, &info, &[i]]);
        if t.is_empty() {
            break;
        }
        out.extend_from_slice(&t);
        i = i.wrapping_add(1);
    }
    out.truncate(len);
    out
}

/// A fixed test value of `len` bytes for `label`.
fn fixed(label: &str, len: usize) -> Vec<u8> {
    let mut v = Vec::new();
    let mut block = 0u32;
    while v.len() < len {
        let mut h = Sha256::new();
        h.update(b"oransim test tls13\0");
        h.update(label.as_bytes());
        h.update(block.to_be_bytes());
        v.extend_from_slice(&h.finalize());
        block += 1;
    }
    v.truncate(len);
    v
}

/// Record key and IV of a traffic secret (RFC 8446 §7.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordKeys {
    /// The AEAD key.
    pub key: Vec<u8>,
    /// The record IV \[12 bytes\].
    pub iv: [u8; 12],
}

/// One direction's traffic secret and its record keys.
fn record_keys(c: Cipher, secret: &[u8]) -> RecordKeys {
    let iv = expand_label(secret, "iv", 12);
    RecordKeys {
        key: expand_label(secret, "key", key_len(c)),
        iv: iv.as_slice().try_into().unwrap_or([0; 12]),
    }
}

/// The opening of a TLS 1.3 connection with fixed test secrets.
#[derive(Debug, Clone)]
pub struct Opening {
    cipher: Cipher,
    client_random: [u8; 32],
    secrets: [Vec<u8>; 4],
}

/// Which of the four secrets.
const CLIENT_HS: usize = 0;
const SERVER_HS: usize = 1;
const CLIENT_AP: usize = 2;
const NAMES: [&str; 4] = [
    "CLIENT_HANDSHAKE_TRAFFIC_SECRET",
    "SERVER_HANDSHAKE_TRAFFIC_SECRET",
    "CLIENT_TRAFFIC_SECRET_0",
    "SERVER_TRAFFIC_SECRET_0",
];

/// A handshake message: type, 24-bit length, body (RFC 8446 §4).
fn handshake(kind: u8, body: &[u8]) -> Vec<u8> {
    let mut m = vec![kind];
    m.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
    m.extend_from_slice(body);
    m
}

/// A clear record: type, legacy version, length (RFC 8446 §5.1).
fn record(kind: u8, version: u16, body: &[u8]) -> Vec<u8> {
    let mut r = vec![kind];
    r.extend_from_slice(&version.to_be_bytes());
    r.extend_from_slice(&(body.len() as u16).to_be_bytes());
    r.extend_from_slice(body);
    r
}

fn ext(kind: u16, body: &[u8]) -> Vec<u8> {
    let mut e = kind.to_be_bytes().to_vec();
    e.extend_from_slice(&(body.len() as u16).to_be_bytes());
    e.extend_from_slice(body);
    e
}

impl Opening {
    /// The opening of a connection protected by `cipher`, or None for a suite not sealed here.
    pub fn new(cipher: Cipher) -> Option<Opening> {
        suite_id(cipher)?;
        let h = hash_len(cipher);
        let client_random = fixed("client random", 32).try_into().ok()?;
        Some(Opening {
            cipher,
            client_random,
            secrets: NAMES.map(|n| fixed(n, h)),
        })
    }

    /// The record keys of the client's application data (records numbered from 0).
    pub fn client_application(&self) -> RecordKeys {
        record_keys(self.cipher, &self.secrets[CLIENT_AP])
    }

    /// The NSS key log (`SSLKEYLOGFILE` format): the four traffic secrets of this connection.
    pub fn keylog(&self) -> String {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        let random = hex(&self.client_random);
        NAMES
            .iter()
            .zip(&self.secrets)
            .map(|(n, s)| format!("{n} {random} {}\n", hex(s)))
            .collect()
    }

    /// The clear ClientHello record: TLS 1.3 only, this suite, an X25519 key share.
    pub fn client_hello(&self) -> Vec<u8> {
        let suite = suite_id(self.cipher).unwrap_or(0x1301);
        let mut body = 0x0303u16.to_be_bytes().to_vec();
        body.extend_from_slice(&self.client_random);
        body.push(0); // legacy_session_id
        body.extend_from_slice(&2u16.to_be_bytes());
        body.extend_from_slice(&suite.to_be_bytes());
        body.extend_from_slice(&[1, 0]); // legacy_compression_methods: null
        let mut share = 0x001du16.to_be_bytes().to_vec();
        share.extend_from_slice(&32u16.to_be_bytes());
        share.extend_from_slice(&fixed("client key share", 32));
        let mut shares = (share.len() as u16).to_be_bytes().to_vec();
        shares.extend_from_slice(&share);
        let exts = [
            ext(43, &[2, 0x03, 0x04]),    // supported_versions: TLS 1.3
            ext(10, &[0, 2, 0x00, 0x1d]), // supported_groups: x25519
            ext(13, &[0, 2, 0x08, 0x04]), // signature_algorithms: rsa_pss_rsae_sha256
            ext(51, &shares),             // key_share
        ]
        .concat();
        body.extend_from_slice(&(exts.len() as u16).to_be_bytes());
        body.extend_from_slice(&exts);
        record(22, 0x0301, &handshake(1, &body))
    }

    /// The clear ServerHello record.
    pub fn server_hello(&self) -> Vec<u8> {
        let suite = suite_id(self.cipher).unwrap_or(0x1301);
        let mut body = 0x0303u16.to_be_bytes().to_vec();
        body.extend_from_slice(&fixed("server random", 32));
        body.push(0);
        body.extend_from_slice(&suite.to_be_bytes());
        body.push(0);
        let mut share = 0x001du16.to_be_bytes().to_vec();
        share.extend_from_slice(&32u16.to_be_bytes());
        share.extend_from_slice(&fixed("server key share", 32));
        let exts = [ext(43, &[0x03, 0x04]), ext(51, &share)].concat();
        body.extend_from_slice(&(exts.len() as u16).to_be_bytes());
        body.extend_from_slice(&exts);
        record(22, 0x0303, &handshake(2, &body))
    }

    /// The server's encrypted EncryptedExtensions and Finished, one record (its handshake key,
    /// record 0).
    pub fn server_finished(&self) -> Result<Vec<u8>, String> {
        let h = hash_len(self.cipher);
        let mut inner = handshake(8, &[0, 0]);
        inner.extend(handshake(20, &fixed("server finished", h)));
        self.sealed(SERVER_HS, &inner)
    }

    /// The client's encrypted Finished (its handshake key, record 0).
    pub fn client_finished(&self) -> Result<Vec<u8>, String> {
        let h = hash_len(self.cipher);
        self.sealed(CLIENT_HS, &handshake(20, &fixed("client finished", h)))
    }

    /// A protected record of handshake messages: header, AEAD(messages, type 22), tag.
    fn sealed(&self, secret: usize, messages: &[u8]) -> Result<Vec<u8>, String> {
        let keys = record_keys(self.cipher, &self.secrets[secret]);
        let body_len = messages.len() + 1 + 16;
        let mut r = record(23, 0x0303, &vec![0u8; body_len]);
        r[5..5 + messages.len()].copy_from_slice(messages);
        r[5 + messages.len()] = 22;
        let n = r.len();
        aead_seal_detached(
            self.cipher,
            &keys.key,
            protocols::wire::tls::nonce(&keys.iv, 0),
            0..5,
            5..n - 16,
            n - 16..n,
            &mut r,
        )?;
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8448 §3 ("Simple 1-RTT Handshake"): the server handshake traffic secret expands to
    /// the published write key and IV.
    #[test]
    fn expand_label_matches_rfc_8448() {
        let unhex = |s: &str| -> Vec<u8> {
            let s: String = s.split_whitespace().collect();
            (0..s.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
                .collect()
        };
        let secret = unhex(
            "b6 7b 7d 69 0c c1 6c 4e 75 e5 42 13 cb 2d 37 b4 e9 c9 12 bc de d9 10 5d 42 be fd 59 d3 91 ad 38",
        );
        assert_eq!(
            expand_label(&secret, "key", 16),
            unhex("3f ce 51 60 09 c2 17 27 d0 f2 e4 e8 6e e4 03 bc")
        );
        assert_eq!(
            expand_label(&secret, "iv", 12),
            unhex("5d 31 3e b2 67 12 76 ee 13 00 0b 30")
        );
    }

    #[test]
    fn keylog_has_the_four_secrets_of_one_client_random() {
        let o = Opening::new(Cipher::AesGcm(256)).unwrap();
        let log = o.keylog();
        assert_eq!(log.lines().count(), 4);
        for l in log.lines() {
            let f: Vec<&str> = l.split(' ').collect();
            assert_eq!((f[1].len(), f[2].len()), (64, 96), "{l}");
        }
        assert!(Opening::new(Cipher::AesCcm(128)).is_none());
        let hello = o.client_hello();
        assert_eq!((&hello[..3], hello[5]), (&[22u8, 3, 1][..], 1));
    }
}
