//! Sealing the frames of any stack with fixed test keys: every security layer [`Stack::emit`]
//! names (ESP in either mode, MACsec, TLS 1.3 records) is run through the RustCrypto cipher
//! its suite names, innermost first, with the transport checksums filled between
//! ([`protocols::Emitted::finish`]). The keys are **test keys**: derived from fixed
//! labels with SHA-256, the same for every run, published with the capture so that Wireshark
//! can decrypt it. They protect nothing. [`FrameSealer::keyed`] derives them from a secret
//! instead (`run --pcap`: per run and security association), as public as the secret.
//!
//! Sealed suites: ESP AES-GCM (128/192/256-bit keys, 8/12/16-byte ICV, RFC 4106), AES-GMAC
//! (RFC 4543), ChaCha20-Poly1305 (RFC 7634), AES-CBC (RFC 3602) or NULL (RFC 2410) with
//! HMAC-SHA-1-96 or HMAC-SHA-2 (RFC 2404, RFC 4868); MACsec GCM-AES-128/256 (IEEE 802.1AE
//! §14.5, §14.6), integrity only or encrypted; TLS 1.3 and 1.2 AES-GCM and ChaCha20-Poly1305
//! records (RFC 8446 §5.2, RFC 5288, RFC 7905); SSH AES-GCM binary packets (RFC 5647). Others
//! (AES-CCM, MACsec XPN, SSH's other ciphers) are refused by name.

use aes::cipher::inout::InOutBuf;
use aes::cipher::{BlockCipherEncrypt, BlockModeEncrypt, InnerIvInit};
use aes::{Aes128, Aes192, Aes256};
use aes_gcm::aead::KeyInit;
use hmac::{Hmac, Mac};
use protocols::esp::{Cipher as EspCipher, Integrity};
use protocols::macsec::Cipher as MacsecCipher;
use protocols::ssh::Cipher as SshCipher;
use protocols::tls::{Cipher as TlsCipher, Version};
use protocols::wire::{macsec, tls};
use protocols::{Emitted, Ids, Layer, Stack};
use sha2::{Digest, Sha256, Sha384, Sha512};

use super::cipher::{Aead, CipherError};
use super::tls13::{Opening, tls12_aad, tls12_nonce};
use crate::LiveError;

/// Where a sealer's keys come from: the fixed test keys, or keys derived from a secret (a
/// run's seed and security association, [`FrameSealer::keyed`]).
#[derive(Clone, Copy)]
enum KeySource<'a> {
    /// The fixed test keys: the same for every run.
    Test,
    /// Derived from these bytes.
    Derived(&'a [u8]),
}

/// `len` bytes of the key `label` of layer `layer` from `source`: SHA-256 over a prefix (the
/// test keys' fixed one, or the derived keys' own followed by the secret and its length), the
/// label, the layer index and a block counter, concatenated.
fn test_key_from(source: KeySource<'_>, label: &str, layer: usize, len: usize) -> Vec<u8> {
    let mut key = Vec::with_capacity(len + 32);
    let mut block = 0u32;
    while key.len() < len {
        let mut h = Sha256::new();
        match source {
            KeySource::Test => h.update(b"oransim test key\0"),
            KeySource::Derived(secret) => {
                h.update(b"oransim derived key\0");
                h.update((secret.len() as u64).to_be_bytes());
                h.update(secret);
            }
        }
        h.update(label.as_bytes());
        h.update((layer as u64).to_be_bytes());
        h.update(block.to_be_bytes());
        key.extend_from_slice(&h.finalize());
        block += 1;
    }
    key.truncate(len);
    key
}

/// The keys of one security layer, as a decrypting tool takes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerKeys {
    /// Index of the security layer in the stack.
    pub layer: usize,
    /// The layer as text (`esp-tunnel(aes256-gcm-16)`, ...).
    pub text: String,
    /// What the keys are for.
    pub kind: KeyKind,
    /// The encryption (or AEAD, or GMAC) key followed by its salt where the suite has one
    /// (RFC 4106 §8.1: ESP AES-GCM's 4-byte salt is the key's last bytes, as Wireshark and
    /// Linux take it); empty for NULL.
    pub enc_key: Vec<u8>,
    /// The HMAC key of a non-AEAD ESP suite (empty otherwise).
    pub auth_key: Vec<u8>,
    /// TLS: the record IV (TLS 1.3, RFC 8446 §5.3; TLS 1.2, its first 4 bytes the AES-GCM
    /// salt) \[12 bytes\]; empty otherwise.
    pub iv: Vec<u8>,
}

/// The protocol a [`LayerKeys`] belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// An ESP SA.
    Esp {
        /// Its SPI.
        spi: u32,
        /// The cipher.
        cipher: EspCipher,
        /// The integrity transform of a non-AEAD cipher.
        integrity: Option<Integrity>,
    },
    /// A MACsec SA.
    Macsec {
        /// The cipher suite.
        cipher: MacsecCipher,
        /// The SCI the nonce uses (the one in the SecTAG, or the implied one).
        sci: u64,
    },
    /// SSH binary packets of one direction.
    Ssh,
    /// TLS records of one direction (the client's application data).
    Tls {
        /// TLS 1.3 or 1.2.
        version: Version,
        /// The record cipher.
        cipher: TlsCipher,
    },
}

/// How one layer is sealed.
enum LayerSealer {
    /// AEAD ESP (GCM, ChaCha20-Poly1305) or GMAC: nonce = salt (4) || explicit IV (8).
    EspAead { aead: Aead, salt: [u8; 4] },
    /// AES-CBC or NULL with an HMAC truncated to the ICV; CBC IVs are the packet counter
    /// encrypted under a separate key (unpredictable, RFC 3602 §2).
    EspHmac {
        key: Vec<u8>,
        iv_key: Vec<u8>,
        hash: Integrity,
        mac_key: Vec<u8>,
    },
    /// MACsec: nonce = SCI || PN (802.1AE §14.5).
    Macsec { aead: Aead, sci: u64 },
    /// SSH AES-GCM (RFC 5647 §7.1): the nonce is a 4-byte fixed field and an 8-byte invocation
    /// counter, the IV's, incremented per packet.
    Ssh { aead: Aead, iv: [u8; 12] },
    /// TLS records: TLS 1.3 nonce = IV xor record sequence number (RFC 8446 §5.3); TLS 1.2
    /// as [`super::tls13::tls12_nonce`], with the pseudo-header as additional data. Records
    /// are numbered from `first` (after a TLS 1.2 Finished).
    Tls {
        aead: Aead,
        iv: [u8; 12],
        version: Version,
        cipher: TlsCipher,
        first: u64,
    },
}

/// Seals the frames of one stack with its fixed test keys.
pub struct FrameSealer {
    layers: Vec<(usize, LayerSealer)>,
    keys: Vec<LayerKeys>,
}

fn refuse(layer: &Layer, allowed: &str) -> LiveError {
    LiveError::BadArgument {
        what: "security layer to seal".into(),
        got: layer.text(),
        allowed: allowed.into(),
    }
}

const SEALED: &str = "ESP with AES-GCM, AES-GMAC, ChaCha20-Poly1305, or AES-CBC or NULL with an HMAC; \
MACsec GCM-AES-128 or GCM-AES-256 (not XPN); TLS 1.3 or 1.2 with AES-GCM or ChaCha20-Poly1305 (one record per frame); SSH with AES-GCM (one packet per frame)";

impl FrameSealer {
    /// The sealer of `stack`'s security layers with the headers' `ids` (the SPI, the SCI),
    /// or an error naming a layer whose suite is not sealed here.
    pub fn new(stack: &Stack, ids: &Ids) -> Result<FrameSealer, LiveError> {
        FrameSealer::from_source(stack, ids, KeySource::Test)
    }

    /// [`FrameSealer::new`] with keys derived from `secret` instead of the fixed test keys:
    /// the same secret gives the same keys, different secrets different keys (SHA-256). A
    /// capture of many security associations gives each its own secret (`run --pcap`: the
    /// run's seed, the flow and its direction). The keys are as public as the secret.
    pub fn keyed(stack: &Stack, ids: &Ids, secret: &[u8]) -> Result<FrameSealer, LiveError> {
        FrameSealer::from_source(stack, ids, KeySource::Derived(secret))
    }

    fn from_source(
        stack: &Stack,
        ids: &Ids,
        source: KeySource<'_>,
    ) -> Result<FrameSealer, LiveError> {
        let mut layers = Vec::new();
        let mut keys = Vec::new();
        for (i, layer) in stack.layers().iter().enumerate() {
            let (sealer, k) = match layer {
                Layer::Esp(e) => esp_layer(e, layer, i, ids, source)?,
                Layer::Macsec(m) => macsec_layer(m, layer, i, ids, source)?,
                Layer::Tls(r) if matches!(r.version, Version::Tls13 | Version::Tls12) => {
                    tls_layer(r, layer, i, source)?
                }
                Layer::Ssh(sh) => ssh_layer(sh, layer, i, source)?,
                Layer::Tls(_) => return Err(refuse(layer, SEALED)),
                _ => continue,
            };
            layers.push((i, sealer));
            keys.push(k);
        }
        Ok(FrameSealer { layers, keys })
    }

    /// The keys of every security layer, outermost first.
    pub fn keys(&self) -> &[LayerKeys] {
        &self.keys
    }

    /// Seals an emitted frame in place: every security layer's cipher over the regions `e`
    /// names, innermost first, and the transport checksums between. `seq` is the frame's
    /// packet counter (the one emitted as [`Ids::seq`]); `record` the TLS record sequence
    /// number (0 for the first record of a connection's direction, RFC 8446 §5.3).
    pub fn seal(
        &self,
        e: &Emitted,
        seq: u64,
        record: u64,
        out: &mut [u8],
    ) -> Result<(), LiveError> {
        e.finish(out, |s, buf| {
            let len = buf.len();
            let failed = |reason: String| LiveError::BadArgument {
                what: "frame to seal".into(),
                got: format!("{len} B"),
                allowed: format!("what the cipher takes ({reason})"),
            };
            let Some((_, sealer)) = self.layers.iter().find(|(l, _)| *l == s.layer) else {
                return Ok(());
            };
            match sealer {
                LayerSealer::EspAead { aead, salt } => {
                    let mut nonce = [0u8; 12];
                    nonce[..4].copy_from_slice(salt);
                    nonce[4..].copy_from_slice(
                        buf.get(s.iv.clone())
                            .ok_or_else(|| failed("an 8-byte explicit IV".into()))?,
                    );
                    aead.seal(nonce, s, buf).map_err(|e| failed(e.to_string()))
                }
                LayerSealer::EspHmac {
                    key,
                    iv_key,
                    hash,
                    mac_key,
                } => {
                    if !key.is_empty() {
                        let mut ctr = [0u8; 16];
                        ctr[8..].copy_from_slice(&seq.to_be_bytes());
                        let block = aes::Aes128::new_from_slice(iv_key)
                            .map_err(|e| failed(e.to_string()))?;
                        let mut iv = ctr.into();
                        block.encrypt_block_b2b(&ctr.into(), &mut iv);
                        buf[s.iv.clone()].copy_from_slice(&iv);
                        cbc_encrypt(key, &iv.into(), &mut buf[s.encrypted.clone()])
                            .map_err(|e| failed(e.to_string()))?;
                    }
                    let end = s.aad.end.max(s.encrypted.end);
                    let mac = hmac(*hash, mac_key, &buf[s.aad.start..end])
                        .map_err(|e| failed(e.to_string()))?;
                    let n = s.icv.len();
                    let truncated = mac
                        .get(..n)
                        .ok_or_else(|| failed("an ICV no longer than the MAC".into()))?;
                    buf[s.icv.clone()].copy_from_slice(truncated);
                    Ok(())
                }
                LayerSealer::Macsec { aead, sci } => {
                    let pn =
                        u32::try_from(seq).map_err(|_| failed(format!("PN {seq} > 2^32 - 1")))?;
                    aead.seal(macsec::gcm_iv(*sci, pn), s, buf)
                        .map_err(|e| failed(e.to_string()))
                }
                LayerSealer::Ssh { aead, iv } => {
                    let mut nonce = *iv;
                    let counter = u64::from_be_bytes(nonce[4..].try_into().unwrap_or([0; 8]));
                    nonce[4..].copy_from_slice(&counter.wrapping_add(record).to_be_bytes());
                    aead.seal(nonce, s, buf).map_err(|e| failed(e.to_string()))
                }
                LayerSealer::Tls {
                    aead,
                    iv,
                    version,
                    cipher,
                    first,
                } => {
                    let seq = first.saturating_add(record);
                    if *version == Version::Tls13 {
                        return aead
                            .seal(tls::nonce(iv, seq), s, buf)
                            .map_err(|e| failed(e.to_string()));
                    }
                    // The explicit nonce is the sequence number (RFC 5288 §3).
                    if s.iv.len() == 8 {
                        buf[s.iv.clone()].copy_from_slice(&seq.to_be_bytes());
                    }
                    let aad = tls12_aad(seq, tls::APPLICATION_DATA, s.encrypted.len());
                    aead.seal_with(tls12_nonce(*cipher, iv, seq), &aad, s, buf)
                        .map_err(|e| failed(e.to_string()))
                }
            }
        })
    }
}

/// A layer's sealer and its keys.
type LayerBuilt = (LayerSealer, LayerKeys);

/// ESP layer `i` (`e`, of `layer`): an AEAD (AES-GCM, AES-GMAC, ChaCha20-Poly1305) or AES-CBC
/// or NULL with HMAC, its keys from `source`, its SPI from `ids`.
fn esp_layer(
    e: &protocols::esp::Esp,
    layer: &Layer,
    i: usize,
    ids: &Ids,
    source: KeySource<'_>,
) -> Result<LayerBuilt, LiveError> {
    let cipher = e.transform.cipher;
    let (sealer, enc_key, auth_key) = match cipher {
        EspCipher::AesGcm(bits, _) | EspCipher::AesGmac(bits) => {
            let k = test_key_from(source, "esp", i, usize::from(bits / 8) + 4);
            let (key, salt) = k.split_at(k.len() - 4);
            let aead = Aead::gcm(key).ok_or_else(|| refuse(layer, SEALED))?;
            let salt = salt.try_into().unwrap_or([0; 4]);
            (LayerSealer::EspAead { aead, salt }, k, Vec::new())
        }
        EspCipher::ChaCha20Poly1305 => {
            let k = test_key_from(source, "esp", i, 32 + 4);
            let aead = Aead::chacha(&k[..32]).ok_or_else(|| refuse(layer, SEALED))?;
            let salt = k[32..].try_into().unwrap_or([0; 4]);
            (LayerSealer::EspAead { aead, salt }, k, Vec::new())
        }
        EspCipher::AesCbc(_) | EspCipher::Null => {
            let Some(hash) = e.transform.integrity else {
                return Err(refuse(layer, SEALED));
            };
            let key = match cipher {
                EspCipher::AesCbc(bits) => test_key_from(source, "esp", i, usize::from(bits / 8)),
                EspCipher::Null
                | EspCipher::AesGcm(..)
                | EspCipher::AesCcm(..)
                | EspCipher::ChaCha20Poly1305
                | EspCipher::AesGmac(_) => Vec::new(),
            };
            let mac_key = test_key_from(source, "esp-auth", i, hmac_key_len(hash));
            (
                LayerSealer::EspHmac {
                    key: key.clone(),
                    iv_key: test_key_from(source, "esp-iv", i, 16),
                    hash,
                    mac_key: mac_key.clone(),
                },
                key,
                mac_key,
            )
        }
        EspCipher::AesCcm(..) => return Err(refuse(layer, SEALED)),
    };
    Ok((
        sealer,
        LayerKeys {
            layer: i,
            text: layer.text(),
            kind: KeyKind::Esp {
                spi: ids.spi,
                cipher,
                integrity: e.transform.integrity,
            },
            enc_key,
            auth_key,
            iv: Vec::new(),
        },
    ))
}

/// MACsec layer `i` (`m`, of `layer`): GCM-AES-128 or -256, its key from `source`, its SCI
/// the SecTAG's or, without one, the source address and port 1 (802.1AE §9.9).
fn macsec_layer(
    m: &protocols::macsec::Macsec,
    layer: &Layer,
    i: usize,
    ids: &Ids,
    source: KeySource<'_>,
) -> Result<LayerBuilt, LiveError> {
    let len = match m.cipher {
        MacsecCipher::GcmAes128 => 16,
        MacsecCipher::GcmAes256 => 32,
        _ => return Err(refuse(layer, SEALED)),
    };
    let key = test_key_from(source, "macsec", i, len);
    let aead = Aead::gcm(&key).ok_or_else(|| refuse(layer, SEALED))?;
    // Without an SCI in the SecTAG the SCI is the source address and port 1
    // (802.1AE §9.9).
    let sci = if m.sci {
        ids.sci
    } else {
        let mut b = [0u8; 8];
        b[..6].copy_from_slice(&ids.src_mac);
        b[7] = 1;
        u64::from_be_bytes(b)
    };
    Ok((
        LayerSealer::Macsec { aead, sci },
        LayerKeys {
            layer: i,
            text: layer.text(),
            kind: KeyKind::Macsec {
                cipher: m.cipher,
                sci,
            },
            enc_key: key,
            auth_key: Vec::new(),
            iv: Vec::new(),
        },
    ))
}

/// TLS 1.3 or 1.2 record layer `i` (`r`, of `layer`): the client's application traffic keys
/// of the connection whose opening `tls13::Opening` writes (RFC 8446 §7.3), or, with derived
/// keys, keys from `source`.
fn tls_layer(
    r: &protocols::tls::Record,
    layer: &Layer,
    i: usize,
    source: KeySource<'_>,
) -> Result<LayerBuilt, LiveError> {
    // The client's application traffic keys of the connection whose opening
    // `tls13::Opening` writes (RFC 8446 §7.3).
    let opening = Opening::new(r.version, r.cipher).ok_or_else(|| refuse(layer, SEALED))?;
    let mut keys = opening.client_application();
    // Derived keys replace the opening's fixed ones (a run's capture holds no
    // opening: its records are numbered as after one).
    if let KeySource::Derived(_) = source {
        keys.key = test_key_from(source, "tls", i, keys.key.len());
        let iv = test_key_from(source, "tls-iv", i, 12);
        keys.iv.copy_from_slice(&iv);
    }
    let aead = Aead::tls(r.cipher, &keys.key).ok_or_else(|| refuse(layer, SEALED))?;
    Ok((
        LayerSealer::Tls {
            aead,
            iv: keys.iv,
            version: r.version,
            cipher: r.cipher,
            first: opening.first_record(),
        },
        LayerKeys {
            layer: i,
            text: layer.text(),
            kind: KeyKind::Tls {
                version: r.version,
                cipher: r.cipher,
            },
            enc_key: keys.key,
            auth_key: Vec::new(),
            iv: keys.iv.to_vec(),
        },
    ))
}

/// SSH layer `i` (`sh`, of `layer`): AES-GCM, its key and IV from `source`.
fn ssh_layer(
    sh: &protocols::ssh::Ssh,
    layer: &Layer,
    i: usize,
    source: KeySource<'_>,
) -> Result<LayerBuilt, LiveError> {
    let SshCipher::AesGcm(bits) = sh.cipher else {
        return Err(refuse(layer, SEALED));
    };
    let key = test_key_from(source, "ssh", i, usize::from(bits / 8));
    let aead = Aead::gcm(&key).ok_or_else(|| refuse(layer, SEALED))?;
    let ivv = test_key_from(source, "ssh-iv", i, 12);
    let iv = ivv.as_slice().try_into().unwrap_or([0; 12]);
    Ok((
        LayerSealer::Ssh { aead, iv },
        LayerKeys {
            layer: i,
            text: layer.text(),
            kind: KeyKind::Ssh,
            enc_key: key,
            auth_key: Vec::new(),
            iv: ivv,
        },
    ))
}

/// Key length of each HMAC: the hash's output length (RFC 2404 §3, RFC 4868 §2.1.1) \[bytes\].
fn hmac_key_len(h: Integrity) -> usize {
    match h {
        Integrity::HmacSha1_96 => 20,
        Integrity::HmacSha256_128 => 32,
        Integrity::HmacSha384_192 => 48,
        Integrity::HmacSha512_256 => 64,
    }
}

/// HMAC `h` of `data` under `key`, untruncated.
fn hmac(h: Integrity, key: &[u8], data: &[u8]) -> Result<Vec<u8>, CipherError> {
    fn run<M: Mac + KeyInit>(key: &[u8], data: &[u8]) -> Result<Vec<u8>, CipherError> {
        // HMAC takes a key of any length (RFC 2104 §2): this does not fail.
        let mut m = <M as KeyInit>::new_from_slice(key).map_err(|_| CipherError::InvalidLength)?;
        m.update(data);
        Ok(m.finalize().into_bytes().to_vec())
    }
    match h {
        Integrity::HmacSha1_96 => run::<Hmac<sha1::Sha1>>(key, data),
        Integrity::HmacSha256_128 => run::<Hmac<Sha256>>(key, data),
        Integrity::HmacSha384_192 => run::<Hmac<Sha384>>(key, data),
        Integrity::HmacSha512_256 => run::<Hmac<Sha512>>(key, data),
    }
}

/// AES-CBC encryption of `data` (whole blocks) in place under `key` from `iv`.
fn cbc_encrypt(key: &[u8], iv: &[u8; 16], data: &mut [u8]) -> Result<(), CipherError> {
    fn run<C: BlockCipherEncrypt + KeyInit + Clone>(
        key: &[u8],
        iv: &[u8; 16],
        data: &mut [u8],
    ) -> Result<(), CipherError>
    where
        cbc::Encryptor<C>: InnerIvInit<Inner = C>,
    {
        let block = C::new_from_slice(key).map_err(|_| CipherError::InvalidLength)?;
        let (blocks, tail) = InOutBuf::from(data).into_chunks();
        if !tail.is_empty() {
            return Err(CipherError::NotWholeBlocks);
        }
        cbc::Encryptor::<C>::inner_iv_slice_init(block, iv)
            .map_err(|_| CipherError::InvalidLength)?
            .encrypt_blocks_inout(blocks);
        Ok(())
    }
    match key.len() {
        16 => run::<Aes128>(key, iv, data),
        24 => run::<Aes192>(key, iv, data),
        32 => run::<Aes256>(key, iv, data),
        n => Err(CipherError::AesKeyLength(n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes_gcm::Aes128Gcm;
    use aes_gcm::aead::Aead as _;

    /// A sealed ESP frame opens with the published key and salt, and the same command gives
    /// the same bytes (fixed keys, deterministic IVs).
    #[test]
    fn sealed_esp_opens_with_the_published_key() {
        let stack: Stack = "ipv4/esp-tunnel(aes128-gcm-16)/ipv4/udp".parse().unwrap();
        let ids = Ids::default();
        let sealer = FrameSealer::new(&stack, &ids).unwrap();
        let mut frame = Vec::new();
        let e = stack.emit(0, b"hello", &ids, &mut frame).unwrap();
        sealer.seal(&e, 1, 0, &mut frame).unwrap();
        let again = {
            let mut f = Vec::new();
            let e = stack.emit(0, b"hello", &ids, &mut f).unwrap();
            FrameSealer::new(&stack, &ids)
                .unwrap()
                .seal(&e, 1, 0, &mut f)
                .unwrap();
            f
        };
        assert_eq!(frame, again);
        let k = &sealer.keys()[0];
        assert_eq!(k.enc_key.len(), 16 + 4);
        let aead = Aes128Gcm::new_from_slice(&k.enc_key[..16]).unwrap();
        let s = &e.sealing[0];
        let mut nonce = [0u8; 12];
        nonce[..4].copy_from_slice(&k.enc_key[16..]);
        nonce[4..].copy_from_slice(&frame[s.iv.clone()]);
        let mut ct = frame[s.encrypted.clone()].to_vec();
        ct.extend_from_slice(&frame[s.icv.clone()]);
        let plain = aead
            .decrypt(
                &nonce.into(),
                aes_gcm::aead::Payload {
                    msg: &ct,
                    aad: &frame[s.aad.clone()],
                },
            )
            .unwrap();
        assert_eq!(&plain[28..33], b"hello");
    }

    /// Derived keys: the same secret gives the same keys, another secret other keys, and
    /// neither is the test keys; the fixed test keys stay what they were (their first bytes
    /// pinned).
    #[test]
    fn derived_keys_follow_their_secret() {
        let stack: Stack = "eth/ipv4/esp-tunnel(aes128-gcm-16)/ipv4/udp"
            .parse()
            .unwrap();
        let ids = Ids::default();
        let key = |s: Option<&[u8]>| {
            match s {
                None => FrameSealer::new(&stack, &ids),
                Some(s) => FrameSealer::keyed(&stack, &ids, s),
            }
            .unwrap()
            .keys()[0]
                .enc_key
                .clone()
        };
        let test = key(None);
        assert_eq!(key(Some(b"seed 1 flow 0")), key(Some(b"seed 1 flow 0")));
        assert_ne!(key(Some(b"seed 1 flow 0")), key(Some(b"seed 1 flow 1")));
        assert_ne!(key(Some(b"seed 1 flow 0")), test);
        assert_ne!(key(Some(b"")), test);
        // SHA-256("oransim test key\0" "esp" 2u64 0u32)'s first bytes: the test keys of
        // `overhead --pcap` unchanged.
        let mut h = Sha256::new();
        h.update(b"oransim test key\0esp");
        h.update(2u64.to_be_bytes());
        h.update(0u32.to_be_bytes());
        assert_eq!(test[..], h.finalize()[..20]);
    }

    #[test]
    fn suites_not_sealed_are_refused_by_name() {
        for text in [
            "ipv4/esp-tunnel(aes128-ccm-16)/ipv4/udp",
            "eth/macsec(gcm-aes-xpn-128,encrypt)/ecpri",
            "eth/ipv4/tcp/tls13(aes128-ccm)",
            "eth/ipv4/tcp/tls12(aes128-cbc,hmac-sha256)",
        ] {
            let stack: Stack = text.parse().unwrap();
            let e = FrameSealer::new(&stack, &Ids::default())
                .err()
                .unwrap()
                .to_string();
            assert!(
                e.contains("security layer to seal") && e.contains("ESP with AES-GCM"),
                "{e}"
            );
        }
    }
}
