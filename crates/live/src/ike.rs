//! IKEv2's encrypted payloads (SK and SKF, RFC 7296 §3.14, RFC 7383 §2.5) really sealed with
//! fixed test keys, and the IKE SA's keys as Wireshark's IKEv2 decryption table, so a capture
//! of a modelled exchange (`protocols::ikev2::datagrams`) opens decrypted in Wireshark.
//!
//! AES-256-GCM with a 16-byte ICV (RFC 5282): SK_e is 32 key bytes and a 4-byte salt, the
//! nonce is salt || the 8-byte IV, the AAD the IKE header through the SK/SKF payload header.
//! AES-256-CBC with HMAC-SHA2-256-128 (RFC 3602, RFC 4868): a 16-byte IV, the HMAC under SK_a
//! over the IKE header through the ciphertext, truncated to 16 bytes. The keys are public test
//! values, never secret: anyone can decrypt the capture, which is the point. A run's capture
//! (`run --pcap`) gives each tunnel keys of its own, derived from the run's seed
//! ([`IkeKeys::derived`]), as public as the seed.

use aes::Aes256;
use aes::cipher::inout::InOutBuf;
use aes::cipher::{BlockCipherEncrypt, BlockModeEncrypt, InnerIvInit};
use aes_gcm::Aes256Gcm;
use aes_gcm::aead::{AeadInOut, KeyInit};
use hmac::{Hmac, Mac};
use protocols::ikev2::IkeCipher;
use protocols::ikev2::{Datagram, SPI_I, SPI_R};
use sha2::Sha256;

use crate::LiveError;

/// The IKE SA's keys (RFC 7296 §2.14): encryption and integrity, each direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IkeKeys {
    /// The cipher they are for.
    pub cipher: IkeCipher,
    /// SK_ei: initiator to responder encryption key (GCM: key then 4-byte salt).
    pub sk_ei: Vec<u8>,
    /// SK_er: responder to initiator encryption key.
    pub sk_er: Vec<u8>,
    /// SK_ai: initiator to responder integrity key (empty for GCM).
    pub sk_ai: Vec<u8>,
    /// SK_ar: responder to initiator integrity key (empty for GCM).
    pub sk_ar: Vec<u8>,
}

/// `n` bytes counting up from `start`: a fixed test key.
fn pattern(start: u8, n: usize) -> Vec<u8> {
    (0..n).map(|i| start.wrapping_add(i as u8)).collect()
}

impl IkeKeys {
    /// The fixed test keys of `cipher`: GCM 36-byte SK_e (32 key + 4 salt), no SK_a; CBC
    /// 32-byte SK_e and SK_a (HMAC-SHA2-256's key length, RFC 4868 §2.1.1).
    pub fn test(cipher: IkeCipher) -> IkeKeys {
        match cipher {
            IkeCipher::AesGcm16 => IkeKeys {
                cipher,
                sk_ei: pattern(0x10, 36),
                sk_er: pattern(0x50, 36),
                sk_ai: vec![],
                sk_ar: vec![],
            },
            IkeCipher::AesCbcSha256 => IkeKeys {
                cipher,
                sk_ei: pattern(0x10, 32),
                sk_er: pattern(0x50, 32),
                sk_ai: pattern(0x90, 32),
                sk_ar: pattern(0xd0, 32),
            },
        }
    }

    /// Keys of `cipher` derived from `secret` (a run's seed and tunnel): SHA-256 over a label,
    /// the secret, the key's name and a counter, as long as [`IkeKeys::test`]'s. The same
    /// secret gives the same keys; they are as public as the secret.
    pub fn derived(cipher: IkeCipher, secret: &[u8]) -> IkeKeys {
        use sha2::Digest as _;
        let key = |name: &str, n: usize| {
            let mut out = Vec::with_capacity(n + 32);
            let mut block = 0u32;
            while out.len() < n {
                let mut h = Sha256::new();
                h.update(b"oransim derived IKE key\0");
                h.update((secret.len() as u64).to_be_bytes());
                h.update(secret);
                h.update(name.as_bytes());
                h.update(block.to_be_bytes());
                out.extend_from_slice(&h.finalize());
                block += 1;
            }
            out.truncate(n);
            out
        };
        let t = IkeKeys::test(cipher);
        IkeKeys {
            cipher,
            sk_ei: key("sk_ei", t.sk_ei.len()),
            sk_er: key("sk_er", t.sk_er.len()),
            sk_ai: key("sk_ai", t.sk_ai.len()),
            sk_ar: key("sk_ar", t.sk_ar.len()),
        }
    }

    /// One line of Wireshark's `ikev2_decryption_table` (its IKEv2 decryption UAT: SPIi,
    /// SPIr, SK_ei, SK_er, encryption algorithm, SK_ai, SK_ar, integrity algorithm) for the
    /// IKE SA of `protocols::ikev2::datagrams`'s SPIs.
    pub fn wireshark_table(&self) -> String {
        self.wireshark_row(&SPI_I, &SPI_R)
    }

    /// [`IkeKeys::wireshark_table`]'s line for the IKE SA of SPIs `spi_i` and `spi_r`.
    pub fn wireshark_row(&self, spi_i: &[u8; 8], spi_r: &[u8; 8]) -> String {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        let (encr, integ) = match self.cipher {
            IkeCipher::AesGcm16 => ("AES-GCM-256 with 16 octet ICV [RFC5282]", "NONE [RFC4306]"),
            IkeCipher::AesCbcSha256 => ("AES-CBC-256 [RFC3602]", "HMAC_SHA2_256_128 [RFC4868]"),
        };
        format!(
            "{},{},{},{},\"{encr}\",{},{},\"{integ}\"\n",
            hex(spi_i),
            hex(spi_r),
            hex(&self.sk_ei),
            hex(&self.sk_er),
            hex(&self.sk_ai),
            hex(&self.sk_ar)
        )
    }
}

/// Seals datagram `d` in place if it is encrypted: writes its IV (from `number`, unique per
/// datagram: GCM needs a nonce never repeated under a key, RFC 5282 §3; for CBC the number
/// encrypted under SK_e), encrypts its plaintext and writes its ICV.
pub fn seal(keys: &IkeKeys, d: &mut Datagram, number: u64) -> Result<(), LiveError> {
    let Some(s) = d.seal.clone() else {
        return Ok(());
    };
    let failed = |reason: String| LiveError::Seal {
        protection: "IKEv2 SK payload",
        len: s.plaintext.len(),
        reason,
    };
    let (enc, auth) = if d.from_initiator {
        (&keys.sk_ei, &keys.sk_ai)
    } else {
        (&keys.sk_er, &keys.sk_ar)
    };
    let out = &mut d.bytes;
    match keys.cipher {
        IkeCipher::AesGcm16 => {
            let (key, salt) = enc.split_at(32);
            let iv = number.to_be_bytes();
            out[s.iv.clone()].copy_from_slice(&iv);
            let mut nonce = [0u8; 12];
            nonce[..4].copy_from_slice(salt);
            nonce[4..].copy_from_slice(&iv);
            let aead = Aes256Gcm::new_from_slice(key).map_err(|e| failed(e.to_string()))?;
            let (head, rest) = out.split_at_mut(s.plaintext.start);
            let (body, tail) = rest.split_at_mut(s.plaintext.len());
            let tag = aead
                .encrypt_inout_detached(&nonce.into(), &head[s.aad.clone()], body.into())
                .map_err(|e| failed(e.to_string()))?;
            tail[..tag.len()].copy_from_slice(&tag);
        }
        IkeCipher::AesCbcSha256 => {
            let block =
                <Aes256 as KeyInit>::new_from_slice(enc).map_err(|e| failed(e.to_string()))?;
            let mut ctr = [0u8; 16];
            ctr[8..].copy_from_slice(&number.to_be_bytes());
            let mut iv = ctr.into();
            block.encrypt_block_b2b(&ctr.into(), &mut iv);
            out[s.iv.clone()].copy_from_slice(&iv);
            let (blocks, tail) = InOutBuf::from(&mut out[s.plaintext.clone()]).into_chunks();
            if !tail.is_empty() {
                return Err(failed("ciphertext not a whole number of blocks".into()));
            }
            cbc::Encryptor::<Aes256>::inner_iv_init(block, &iv).encrypt_blocks_inout(blocks);
            let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(auth)
                .map_err(|e| failed(e.to_string()))?;
            m.update(&out[s.aad.start..s.icv.start]);
            let icv = m.finalize().into_bytes();
            let n = s.icv.len();
            out[s.icv.clone()].copy_from_slice(&icv[..n]);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::cipher::BlockModeDecrypt;
    use protocols::ikev2::{self, Auth, Config};

    #[test]
    fn sealed_payloads_open_with_the_table_keys() {
        for cipher in [IkeCipher::AesGcm16, IkeCipher::AesCbcSha256] {
            let mut cfg = Config::new("x25519", Auth::Psk, 1500).unwrap();
            cfg.cipher = cipher;
            let h = ikev2::handshake(&cfg).unwrap();
            let keys = IkeKeys::test(cipher);
            let mut ds = ikev2::datagrams(&cfg, &h).unwrap();
            let auth = ds.iter_mut().find(|d| d.seal.is_some()).unwrap();
            let plain = auth.bytes.clone();
            seal(&keys, auth, 7).unwrap();
            let s = auth.seal.clone().unwrap();
            assert_ne!(auth.bytes[s.plaintext.clone()], plain[s.plaintext.clone()]);
            let mut body = auth.bytes[s.plaintext.clone()].to_vec();
            match cipher {
                IkeCipher::AesGcm16 => {
                    let aead = Aes256Gcm::new_from_slice(&keys.sk_ei[..32]).unwrap();
                    let mut nonce = [0u8; 12];
                    nonce[..4].copy_from_slice(&keys.sk_ei[32..]);
                    nonce[4..].copy_from_slice(&auth.bytes[s.iv.clone()]);
                    aead.decrypt_inout_detached(
                        &nonce.into(),
                        &auth.bytes[s.aad.clone()],
                        (&mut body[..]).into(),
                        auth.bytes[s.icv.clone()].try_into().unwrap(),
                    )
                    .unwrap();
                }
                IkeCipher::AesCbcSha256 => {
                    let iv: [u8; 16] = auth.bytes[s.iv.clone()].try_into().unwrap();
                    let block = <Aes256 as KeyInit>::new_from_slice(&keys.sk_ei).unwrap();
                    let (blocks, _) = InOutBuf::from(&mut body[..]).into_chunks();
                    cbc::Decryptor::<Aes256>::inner_iv_init(block, &iv.into())
                        .decrypt_blocks_inout(blocks);
                }
            }
            assert_eq!(body, plain[s.plaintext.clone()]);
            assert!(
                keys.wireshark_table()
                    .starts_with("6f72616e73696d49,6f72616e73696d52,")
            );
        }
    }
}
