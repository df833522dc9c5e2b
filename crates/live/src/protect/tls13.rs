//! A TLS connection's opening as a capture shows it, with fixed test secrets, and the NSS key
//! log lines Wireshark decrypts it with. TLS 1.3: the clear ClientHello and ServerHello, the
//! server's encrypted EncryptedExtensions and Finished, the client's encrypted Finished, the
//! record keys of RFC 8446 §7.3 derived from the traffic secrets (HKDF-Expand-Label, §7.1).
//! TLS 1.2 (AEAD suites): the clear ClientHello and ServerHello, the client's ChangeCipherSpec
//! and encrypted Finished (record 0), the record keys from the master secret's key block
//! (RFC 5246 §6.3, the PRF of §5).
//! Nothing is negotiated: the key shares and Finished values are fixed bytes, the secrets are
//! test values derived from labels with SHA-256. They protect nothing.

use std::ops::Range;

use hmac::{Hmac, Mac};
use protocols::Sealing;
use protocols::tls::{Cipher, Version};
use sha2::{Digest, Sha256, Sha384};

use super::cipher::{CipherError, aead_seal_detached};

/// TLS 1.3: TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256
/// (RFC 8446 §B.4); TLS 1.2: TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ..._AES_256_GCM_SHA384
/// (RFC 5289 §3.2), ..._CHACHA20_POLY1305_SHA256 (RFC 7905 §2); None for a suite not sealed
/// here.
fn suite_id(v: Version, c: Cipher) -> Option<u16> {
    match (v, c) {
        (Version::Tls13, Cipher::AesGcm(128)) => Some(0x1301),
        (Version::Tls13, Cipher::AesGcm(256)) => Some(0x1302),
        (Version::Tls13, Cipher::ChaCha20Poly1305) => Some(0x1303),
        (Version::Tls12, Cipher::AesGcm(128)) => Some(0xc02f),
        (Version::Tls12, Cipher::AesGcm(256)) => Some(0xc030),
        (Version::Tls12, Cipher::ChaCha20Poly1305) => Some(0xcca8),
        _ => None,
    }
}

/// The TLS 1.2 PRF (RFC 5246 §5): P_hash(secret, label || seed) with the suite's hash,
/// `len` bytes.
fn prf12(hash: usize, secret: &[u8], label: &str, seed: &[u8], len: usize) -> Vec<u8> {
    let mut label_seed = label.as_bytes().to_vec();
    label_seed.extend_from_slice(seed);
    let mut a = hmac_of(hash, secret, &[&label_seed]);
    let mut out = Vec::with_capacity(len + hash);
    while out.len() < len && !a.is_empty() {
        out.extend(hmac_of(hash, secret, &[&a, &label_seed]));
        a = hmac_of(hash, secret, &[&a]);
    }
    out.truncate(len);
    out
}

/// The hash of the suite (RFC 8446 §B.4): SHA-384 for AES-256-GCM, SHA-256 otherwise.
fn hash_len(c: Cipher) -> usize {
    if c == Cipher::AesGcm(256) { 48 } else { 32 }
}

/// Key length of the suite's AEAD \[bytes\].
pub(super) fn key_len(c: Cipher) -> usize {
    match c {
        Cipher::AesGcm(bits)
        | Cipher::AesCcm(bits)
        | Cipher::AesCcm8(bits)
        | Cipher::AesCbc(bits, _) => usize::from(bits / 8),
        // RFC 8439 §2.3.
        Cipher::ChaCha20Poly1305 => 32,
        Cipher::Null(_) => 0,
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

/// Record key and IV of one direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordKeys {
    /// The AEAD key.
    pub key: Vec<u8>,
    /// The record IV: TLS 1.3 and TLS 1.2 ChaCha20-Poly1305 XOR the record sequence number
    /// into it; TLS 1.2 AES-GCM takes its first 4 bytes as the salt before the explicit nonce
    /// (RFC 5288 §3) \[12 bytes\].
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
    version: Version,
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

/// TLS 1.2's AEAD additional data: sequence number, type, version, plaintext length
/// (RFC 5246 §6.2.3.3).
pub(super) fn tls12_aad(seq: u64, kind: u8, len: usize) -> [u8; 13] {
    let mut a = [0u8; 13];
    a[..8].copy_from_slice(&seq.to_be_bytes());
    a[8] = kind;
    a[9..11].copy_from_slice(&0x0303u16.to_be_bytes());
    a[11..].copy_from_slice(&(len as u16).to_be_bytes());
    a
}

/// TLS 1.2's AEAD nonce of record `seq`: AES-GCM the 4-byte salt and the explicit nonce, which
/// is the sequence number (RFC 5288 §3); ChaCha20-Poly1305 the IV XOR the sequence number
/// (RFC 7905 §2).
pub(super) fn tls12_nonce(cipher: Cipher, iv: &[u8; 12], seq: u64) -> [u8; 12] {
    if cipher == Cipher::ChaCha20Poly1305 {
        return protocols::wire::tls::nonce(iv, seq);
    }
    let mut n = [0u8; 12];
    n[..4].copy_from_slice(&iv[..4]);
    n[4..].copy_from_slice(&seq.to_be_bytes());
    n
}

/// Where a record's AEAD works: the header authenticated, the body encrypted, the tag.
fn region(aad: Range<usize>, encrypted: Range<usize>, icv: Range<usize>) -> Sealing {
    Sealing {
        layer: 0,
        aad,
        iv: encrypted.start..encrypted.start,
        encrypted,
        icv,
    }
}

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
    /// The opening of a `version` connection (TLS 1.3 or 1.2) protected by `cipher`, or None
    /// for a version or suite not sealed here.
    pub fn new(version: Version, cipher: Cipher) -> Option<Opening> {
        suite_id(version, cipher)?;
        let h = hash_len(cipher);
        let client_random = fixed("client random", 32).try_into().ok()?;
        Some(Opening {
            version,
            cipher,
            client_random,
            secrets: NAMES.map(|n| fixed(n, h)),
        })
    }

    /// The record keys of the client's application data.
    pub fn client_application(&self) -> RecordKeys {
        if self.version == Version::Tls12 {
            return self.key_block12();
        }
        record_keys(self.cipher, &self.secrets[CLIENT_AP])
    }

    /// The record sequence number of the client's first application record: 0 in TLS 1.3
    /// (RFC 8446 §5.3), 1 in TLS 1.2, whose Finished is record 0 under the same keys.
    pub fn first_record(&self) -> u64 {
        u64::from(self.version == Version::Tls12)
    }

    /// TLS 1.2's master secret: a fixed test value \[48 bytes\].
    fn master12(&self) -> Vec<u8> {
        fixed("master secret", 48)
    }

    /// TLS 1.2: the client's write key and IV from the key block (RFC 5246 §6.3; AEAD suites
    /// have no MAC key).
    fn key_block12(&self) -> RecordKeys {
        let k = key_len(self.cipher);
        let iv_len = if self.cipher == Cipher::ChaCha20Poly1305 {
            12
        } else {
            4
        };
        let mut seed = fixed("server random", 32);
        seed.extend_from_slice(&self.client_random);
        let block = prf12(
            hash_len(self.cipher),
            &self.master12(),
            "key expansion",
            &seed,
            2 * k + 2 * iv_len,
        );
        let mut iv = [0u8; 12];
        if let Some(b) = block.get(2 * k..2 * k + iv_len) {
            iv[..iv_len].copy_from_slice(b);
        }
        RecordKeys {
            key: block.get(..k).map(<[u8]>::to_vec).unwrap_or_default(),
            iv,
        }
    }

    /// The NSS key log (`SSLKEYLOGFILE` format): the four traffic secrets of a TLS 1.3
    /// connection, the master secret (`CLIENT_RANDOM`) of a TLS 1.2 one.
    pub fn keylog(&self) -> String {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        let random = hex(&self.client_random);
        if self.version == Version::Tls12 {
            return format!("CLIENT_RANDOM {random} {}\n", hex(&self.master12()));
        }
        NAMES
            .iter()
            .zip(&self.secrets)
            .map(|(n, s)| format!("{n} {random} {}\n", hex(s)))
            .collect()
    }

    /// The opening's records, in order, each with whether the client sends it: TLS 1.3 the
    /// ClientHello, ServerHello, the server's encrypted EncryptedExtensions and Finished, the
    /// client's encrypted Finished; TLS 1.2 the ClientHello, ServerHello, and the client's
    /// ChangeCipherSpec with its encrypted Finished.
    pub fn records(&self) -> Result<Vec<(Vec<u8>, bool)>, CipherError> {
        if self.version == Version::Tls12 {
            let mut ccs = record(20, 0x0303, &[1]);
            ccs.extend(self.client_finished12()?);
            return Ok(vec![
                (self.client_hello(), true),
                (self.server_hello(), false),
                (ccs, true),
            ]);
        }
        Ok(vec![
            (self.client_hello(), true),
            (self.server_hello(), false),
            (self.server_finished()?, false),
            (self.client_finished()?, true),
        ])
    }

    /// TLS 1.2: the client's Finished (12 bytes of verify_data, RFC 5246 §7.4.9) as record 0,
    /// with the explicit nonce 0 under AES-GCM.
    fn client_finished12(&self) -> Result<Vec<u8>, CipherError> {
        let keys = self.key_block12();
        let msg = handshake(20, &fixed("client finished", 12));
        let explicit = if self.cipher == Cipher::ChaCha20Poly1305 {
            0
        } else {
            8
        };
        let mut r = record(22, 0x0303, &vec![0u8; explicit + msg.len() + 16]);
        let start = 5 + explicit;
        r[start..start + msg.len()].copy_from_slice(&msg);
        let n = r.len();
        let aad = tls12_aad(0, 22, msg.len());
        aead_seal_detached(
            self.cipher,
            &keys.key,
            tls12_nonce(self.cipher, &keys.iv, 0),
            Some(&aad),
            &region(0..5, start..n - 16, n - 16..n),
            &mut r,
        )?;
        Ok(r)
    }

    /// The clear ClientHello record: this suite; TLS 1.3 with an X25519 key share.
    fn client_hello(&self) -> Vec<u8> {
        let suite = suite_id(self.version, self.cipher).unwrap_or(0x1301);
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
    fn server_hello(&self) -> Vec<u8> {
        let suite = suite_id(self.version, self.cipher).unwrap_or(0x1301);
        let mut body = 0x0303u16.to_be_bytes().to_vec();
        body.extend_from_slice(&fixed("server random", 32));
        body.push(0);
        body.extend_from_slice(&suite.to_be_bytes());
        body.push(0);
        let mut share = 0x001du16.to_be_bytes().to_vec();
        share.extend_from_slice(&32u16.to_be_bytes());
        share.extend_from_slice(&fixed("server key share", 32));
        let exts = if self.version == Version::Tls12 {
            ext(11, &[1, 0])
        } else {
            [ext(43, &[0x03, 0x04]), ext(51, &share)].concat()
        };
        body.extend_from_slice(&(exts.len() as u16).to_be_bytes());
        body.extend_from_slice(&exts);
        record(22, 0x0303, &handshake(2, &body))
    }

    /// The server's encrypted EncryptedExtensions and Finished, one record (its handshake key,
    /// record 0).
    fn server_finished(&self) -> Result<Vec<u8>, CipherError> {
        let h = hash_len(self.cipher);
        let mut inner = handshake(8, &[0, 0]);
        inner.extend(handshake(20, &fixed("server finished", h)));
        self.sealed(SERVER_HS, &inner)
    }

    /// The client's encrypted Finished (its handshake key, record 0).
    fn client_finished(&self) -> Result<Vec<u8>, CipherError> {
        let h = hash_len(self.cipher);
        self.sealed(CLIENT_HS, &handshake(20, &fixed("client finished", h)))
    }

    /// A protected record of handshake messages: header, AEAD(messages, type 22), tag.
    fn sealed(&self, secret: usize, messages: &[u8]) -> Result<Vec<u8>, CipherError> {
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
            None,
            &region(0..5, 5..n - 16, n - 16..n),
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
        let o = Opening::new(Version::Tls13, Cipher::AesGcm(256)).unwrap();
        let log = o.keylog();
        assert_eq!(log.lines().count(), 4);
        for l in log.lines() {
            let f: Vec<&str> = l.split(' ').collect();
            assert_eq!((f[1].len(), f[2].len()), (64, 96), "{l}");
        }
        assert!(Opening::new(Version::Tls13, Cipher::AesCcm(128)).is_none());
        let o12 = Opening::new(Version::Tls12, Cipher::AesGcm(128)).unwrap();
        assert!(
            o12.keylog().starts_with("CLIENT_RANDOM ")
                && o12.keylog().len() == 14 + 64 + 1 + 96 + 1
        );
        assert_eq!(o12.first_record(), 1);
        let hello = o.records().unwrap()[0].0.clone();
        assert_eq!((&hello[..3], hello[5]), (&[22u8, 3, 1][..], 1));
    }
}
