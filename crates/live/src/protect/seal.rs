//! Sealing the frames of any stack with fixed test keys: every security layer [`Stack::emit`]
//! names (ESP in either mode, MACsec, TLS 1.3 records) is run through the RustCrypto cipher
//! its suite names, innermost first, with the transport checksums filled between
//! ([`protocols::emit::Emitted::finish`]). The keys are **test keys**: derived from fixed
//! labels with SHA-256, the same for every run, published with the capture so that Wireshark
//! can decrypt it. They protect nothing.
//!
//! Sealed suites: ESP AES-GCM (128/192/256-bit keys, 8/12/16-byte ICV, RFC 4106), AES-GMAC
//! (RFC 4543), ChaCha20-Poly1305 (RFC 7634), AES-CBC (RFC 3602) or NULL (RFC 2410) with
//! HMAC-SHA-1-96 or HMAC-SHA-2 (RFC 2404, RFC 4868); MACsec GCM-AES-128/256 (IEEE 802.1AE
//! §14.5, §14.6), integrity only or encrypted; TLS 1.3 AES-GCM and ChaCha20-Poly1305 records
//! (RFC 8446 §5.2). Others (AES-CCM, MACsec XPN) are refused by name.

use aes::cipher::inout::InOutBuf;
use aes::cipher::{BlockCipherEncrypt, BlockModeEncrypt, InnerIvInit};
use aes::{Aes128, Aes192, Aes256};
use aes_gcm::aead::consts::U12;
use aes_gcm::aead::{AeadInOut, KeyInit};
use aes_gcm::{Aes128Gcm, Aes256Gcm, AesGcm};
use chacha20poly1305::ChaCha20Poly1305;
use hmac::{Hmac, Mac};
use protocols::emit::{Emitted, Ids, Sealing};
use protocols::esp::{Cipher as EspCipher, Integrity};
use protocols::macsec::Cipher as MacsecCipher;
use protocols::tls::{Cipher as TlsCipher, Version};
use protocols::wire::{macsec, tls};
use protocols::{Layer, Stack};
use sha2::{Digest, Sha256, Sha384, Sha512};

use crate::LiveError;

/// Encrypts `s.encrypted` in place, authenticating `s.aad` with it, and writes the tag to
/// `s.icv`, truncated to the ICV's length (a truncated GCM tag is the tag's leading bytes,
/// NIST SP 800-38D §5.2.1.2; RFC 4106 §6).
pub(super) fn aead_seal<A: AeadInOut>(
    aead: &A,
    nonce: [u8; 12],
    s: &Sealing,
    out: &mut [u8],
) -> Result<(), String>
where
    aes_gcm::aead::Nonce<A>: From<[u8; 12]>,
{
    let (head, rest) = out.split_at_mut(s.encrypted.start);
    let (body, tail) = rest.split_at_mut(s.encrypted.len());
    let tag = aead
        .encrypt_inout_detached(&nonce.into(), &head[s.aad.clone()], body.into())
        .map_err(|e| e.to_string())?;
    let at = s.icv.start - s.encrypted.end;
    tail.get_mut(at..at + s.icv.len())
        .zip(tag.get(..s.icv.len()))
        .ok_or("the ICV region is longer than the tag")?
        .0
        .copy_from_slice(&tag[..s.icv.len()]);
    Ok(())
}

/// `len` bytes of the test key `label` of layer `layer`: SHA-256 over the label, the layer
/// index and a block counter, concatenated.
fn test_key(label: &str, layer: usize, len: usize) -> Vec<u8> {
    let mut key = Vec::with_capacity(len + 32);
    let mut block = 0u32;
    while key.len() < len {
        let mut h = Sha256::new();
        h.update(b"oransim test key\0");
        h.update(label.as_bytes());
        h.update((layer as u64).to_be_bytes());
        h.update(block.to_be_bytes());
        key.extend_from_slice(&h.finalize());
        block += 1;
    }
    key.truncate(len);
    key
}

/// An AEAD with its key.
enum Aead {
    Gcm128(Box<Aes128Gcm>),
    Gcm192(Box<AesGcm<Aes192, U12>>),
    Gcm256(Box<Aes256Gcm>),
    ChaCha(Box<ChaCha20Poly1305>),
}

impl Aead {
    fn gcm(key: &[u8]) -> Option<Aead> {
        Some(match key.len() {
            16 => Aead::Gcm128(Box::new(Aes128Gcm::new_from_slice(key).ok()?)),
            24 => Aead::Gcm192(Box::new(AesGcm::new_from_slice(key).ok()?)),
            32 => Aead::Gcm256(Box::new(Aes256Gcm::new_from_slice(key).ok()?)),
            _ => return None,
        })
    }

    fn chacha(key: &[u8]) -> Option<Aead> {
        Some(Aead::ChaCha(Box::new(
            ChaCha20Poly1305::new_from_slice(key).ok()?,
        )))
    }

    fn seal(&self, nonce: [u8; 12], s: &Sealing, out: &mut [u8]) -> Result<(), String> {
        match self {
            Aead::Gcm128(a) => aead_seal(&**a, nonce, s, out),
            Aead::Gcm192(a) => aead_seal(&**a, nonce, s, out),
            Aead::Gcm256(a) => aead_seal(&**a, nonce, s, out),
            Aead::ChaCha(a) => aead_seal(&**a, nonce, s, out),
        }
    }
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
    /// TLS 1.3: the record IV (RFC 8446 §5.3) \[12 bytes\]; empty otherwise.
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
    /// TLS 1.3 records of one direction.
    Tls13 {
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
    /// TLS 1.3: nonce = IV xor record sequence number (RFC 8446 §5.3).
    Tls13 { aead: Aead, iv: [u8; 12] },
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
MACsec GCM-AES-128 or GCM-AES-256 (not XPN); TLS 1.3 with AES-GCM or ChaCha20-Poly1305 (one record per frame)";

impl FrameSealer {
    /// The sealer of `stack`'s security layers with the headers' `ids` (the SPI, the SCI),
    /// or an error naming a layer whose suite is not sealed here.
    pub fn new(stack: &Stack, ids: &Ids) -> Result<FrameSealer, LiveError> {
        let mut layers = Vec::new();
        let mut keys = Vec::new();
        for (i, layer) in stack.layers().iter().enumerate() {
            let (sealer, k) = match layer {
                Layer::Esp(e) => {
                    let cipher = e.suite.cipher;
                    let (sealer, enc_key, auth_key) = match cipher {
                        EspCipher::AesGcm(bits, _) | EspCipher::AesGmac(bits) => {
                            let k = test_key("esp", i, usize::from(bits / 8) + 4);
                            let (key, salt) = k.split_at(k.len() - 4);
                            let aead = Aead::gcm(key).ok_or_else(|| refuse(layer, SEALED))?;
                            let salt = salt.try_into().unwrap_or([0; 4]);
                            (LayerSealer::EspAead { aead, salt }, k, Vec::new())
                        }
                        EspCipher::ChaCha20Poly1305 => {
                            let k = test_key("esp", i, 32 + 4);
                            let aead =
                                Aead::chacha(&k[..32]).ok_or_else(|| refuse(layer, SEALED))?;
                            let salt = k[32..].try_into().unwrap_or([0; 4]);
                            (LayerSealer::EspAead { aead, salt }, k, Vec::new())
                        }
                        EspCipher::AesCbc(_) | EspCipher::Null => {
                            let Some(hash) = e.suite.integrity else {
                                return Err(refuse(layer, SEALED));
                            };
                            let key = match cipher {
                                EspCipher::AesCbc(bits) => {
                                    test_key("esp", i, usize::from(bits / 8))
                                }
                                _ => Vec::new(),
                            };
                            let mac_key = test_key("esp-auth", i, hmac_key_len(hash));
                            (
                                LayerSealer::EspHmac {
                                    key: key.clone(),
                                    iv_key: test_key("esp-iv", i, 16),
                                    hash,
                                    mac_key: mac_key.clone(),
                                },
                                key,
                                mac_key,
                            )
                        }
                        EspCipher::AesCcm(..) => return Err(refuse(layer, SEALED)),
                    };
                    (
                        sealer,
                        LayerKeys {
                            layer: i,
                            text: layer.text(),
                            kind: KeyKind::Esp {
                                spi: ids.spi,
                                cipher,
                                integrity: e.suite.integrity,
                            },
                            enc_key,
                            auth_key,
                            iv: Vec::new(),
                        },
                    )
                }
                Layer::Macsec(m) => {
                    let len = match m.cipher {
                        MacsecCipher::GcmAes128 => 16,
                        MacsecCipher::GcmAes256 => 32,
                        _ => return Err(refuse(layer, SEALED)),
                    };
                    let key = test_key("macsec", i, len);
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
                    (
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
                    )
                }
                Layer::Tls(r) if r.version == Version::Tls13 => {
                    let (aead, key) = match r.cipher {
                        TlsCipher::AesGcm(bits) => {
                            let key = test_key("tls13", i, usize::from(bits / 8));
                            (Aead::gcm(&key), key)
                        }
                        TlsCipher::ChaCha20Poly1305 => {
                            let key = test_key("tls13", i, 32);
                            (Aead::chacha(&key), key)
                        }
                        _ => (None, Vec::new()),
                    };
                    let aead = aead.ok_or_else(|| refuse(layer, SEALED))?;
                    let ivv = test_key("tls13-iv", i, 12);
                    let iv = ivv.as_slice().try_into().unwrap_or([0; 12]);
                    (
                        LayerSealer::Tls13 { aead, iv },
                        LayerKeys {
                            layer: i,
                            text: layer.text(),
                            kind: KeyKind::Tls13 { cipher: r.cipher },
                            enc_key: key,
                            auth_key: Vec::new(),
                            iv: ivv,
                        },
                    )
                }
                Layer::Tls(_) | Layer::Ssh(_) => return Err(refuse(layer, SEALED)),
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
                    aead.seal(nonce, s, buf).map_err(failed)
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
                            .map_err(failed)?;
                    }
                    let end = s.aad.end.max(s.encrypted.end);
                    let mac = hmac(*hash, mac_key, &buf[s.aad.start..end]).map_err(failed)?;
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
                    aead.seal(macsec::gcm_iv(*sci, pn), s, buf).map_err(failed)
                }
                LayerSealer::Tls13 { aead, iv } => {
                    aead.seal(tls::nonce(iv, record), s, buf).map_err(failed)
                }
            }
        })
    }
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

fn hmac(h: Integrity, key: &[u8], data: &[u8]) -> Result<Vec<u8>, String> {
    fn run<M: Mac + KeyInit>(key: &[u8], data: &[u8]) -> Result<Vec<u8>, String> {
        // HMAC takes a key of any length (RFC 2104 §2): this does not fail.
        let mut m = <M as KeyInit>::new_from_slice(key).map_err(|e| e.to_string())?;
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

fn cbc_encrypt(key: &[u8], iv: &[u8; 16], data: &mut [u8]) -> Result<(), String> {
    fn run<C: BlockCipherEncrypt + KeyInit + Clone>(
        key: &[u8],
        iv: &[u8; 16],
        data: &mut [u8],
    ) -> Result<(), String>
    where
        cbc::Encryptor<C>: InnerIvInit<Inner = C>,
    {
        let block = C::new_from_slice(key).map_err(|e| e.to_string())?;
        let (blocks, tail) = InOutBuf::from(data).into_chunks();
        if !tail.is_empty() {
            return Err("ciphertext not a whole number of blocks".into());
        }
        cbc::Encryptor::<C>::inner_iv_slice_init(block, iv)
            .map_err(|e| e.to_string())?
            .encrypt_blocks_inout(blocks);
        Ok(())
    }
    match key.len() {
        16 => run::<Aes128>(key, iv, data),
        24 => run::<Aes192>(key, iv, data),
        32 => run::<Aes256>(key, iv, data),
        n => Err(format!("an AES key of {n} B")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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

    #[test]
    fn suites_not_sealed_are_refused_by_name() {
        for text in [
            "ipv4/esp-tunnel(aes128-ccm-16)/ipv4/udp",
            "eth/macsec(gcm-aes-xpn-128,encrypt)/ecpri",
            "eth/ipv4/tcp/tls13(aes128-ccm)",
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
