//! The per-packet operations measured: AEAD seal/open as ESP and MACsec use them, AES-CBC with
//! HMAC-SHA2 as ESP does encrypt-then-MAC, GMAC integrity only, and a plain copy baseline.
//!
//! Every implementation seals and opens **in place**, in a caller-owned buffer with room for the
//! overhead (so no allocation and no copy per operation), as the kernel's ESP and MACsec data
//! paths transform a packet in its own buffer: the measured cost is the protection's work alone,
//! not a copy of the packet besides it (the `copy` baseline measures that separately). `open`
//! fails on any tampering.

use aes::cipher::inout::InOutBuf;
use aes::cipher::{BlockModeDecrypt, BlockModeEncrypt, InnerIvInit};
use aes::{Aes128, Aes256};
use aes_gcm::aead::{AeadCore, AeadInOut, KeyInit, Nonce};
use aes_gcm::{Aes128Gcm, Aes256Gcm};
use ccm::Ccm;
use ccm::consts::{U11, U16};
use chacha20poly1305::ChaCha20Poly1305;
use hmac::{Hmac, Mac};
use protocols::wire::{esp, ipv4};
use protocols::{AesKey, Sha2, Suite};
use sha2::{Sha256, Sha384, Sha512};

/// Authentication failed: the sealed packet was not produced by this key, or was modified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenError;

/// One cipher suite of one implementation, keyed and ready.
pub trait Cipher {
    /// The suite it implements (its name, e.g. `aes128-gcm`, is the profile's op prefix).
    fn suite(&self) -> Suite;
    /// Implementation name, e.g. `"rustcrypto"`.
    fn implementation(&self) -> &'static str;
    /// Upper bound of bytes the sealed form adds to the plaintext \[B\].
    fn max_overhead(&self) -> usize;
    /// Seals in place with sequence number `seq`: `buf` holds the plaintext on entry and the
    /// sealed packet on return (it grows by at most [`Cipher::max_overhead`] bytes).
    fn seal(&self, seq: u64, buf: &mut Vec<u8>);
    /// Opens in place a packet sealed with `seq`: `buf` holds the sealed packet on entry and the
    /// plaintext on success; fails on any tampering (the buffer's content is then unspecified).
    fn open(&self, seq: u64, buf: &mut Vec<u8>) -> Result<(), OpenError>;
    /// Whether `open` detects tampering (false only for the copy baseline).
    fn authenticates(&self) -> bool {
        true
    }
}

/// Fixed key material for the benchmarks (the cost does not depend on the key's value).
const KEY: [u8; 32] = [
    0x60, 0x3d, 0xeb, 0x10, 0x15, 0xca, 0x71, 0xbe, 0x2b, 0x73, 0xae, 0xf0, 0x85, 0x7d, 0x77, 0x81,
    0x1f, 0x35, 0x2c, 0x07, 0x3b, 0x61, 0x08, 0xd7, 0x2d, 0x98, 0x10, 0xa3, 0x09, 0x14, 0xdf, 0xf4,
];

/// The associated data ESP authenticates with an AEAD: SPI and sequence number (RFC 4106 §5).
#[inline]
fn esp_aad(seq: u64) -> [u8; esp::HEADER_LEN] {
    let mut aad = [0u8; esp::HEADER_LEN];
    let mut header = esp::Packet::new_unchecked(&mut aad[..]);
    header.set_spi(0x0000_1001);
    header.set_seq(seq as u32);
    aad
}

/// A nonce of the AEAD's size: a fixed salt followed by the 64-bit sequence number, as ESP
/// (RFC 4106 §4) and MACsec (SCI/PN) build theirs.
#[inline]
fn nonce<A: AeadCore>(seq: u64) -> Nonce<A> {
    let mut n = Nonce::<A>::default();
    let len = n.len();
    n[..len - 8].fill(0xa5);
    n[len - 8..].copy_from_slice(&seq.to_be_bytes());
    n
}

/// An AEAD used as ESP/MACsec use it: 8-byte AAD, ciphertext followed by a 16-byte tag. Or,
/// built as `gmac-*` suites (integrity only), GMAC: AES-GCM with the whole frame as associated data and
/// no plaintext, as MACsec does with confidentiality off (IEEE 802.1AE, GCM-AES-128/256
/// integrity only); the frame then travels in the clear followed by the 16-byte ICV.
pub(crate) struct AeadCipher<A> {
    suite: Suite,
    aead: A,
    integrity_only: bool,
}

impl<A: AeadInOut + KeyInit> AeadCipher<A> {
    fn keyed(suite: Suite, integrity_only: bool) -> Self {
        let aead = A::new_from_slice(&KEY[..A::key_size()]).expect("key length is the suite's");
        Self {
            suite,
            aead,
            integrity_only,
        }
    }

    fn new(suite: Suite) -> Self {
        Self::keyed(suite, !suite.encrypts())
    }
}

impl<A: AeadInOut> Cipher for AeadCipher<A> {
    fn suite(&self) -> Suite {
        self.suite
    }
    fn implementation(&self) -> &'static str {
        "rustcrypto"
    }
    fn max_overhead(&self) -> usize {
        self.suite.icv_len()
    }
    #[inline]
    fn seal(&self, seq: u64, buf: &mut Vec<u8>) {
        let tag = if self.integrity_only {
            self.aead
                .encrypt_inout_detached(&nonce::<A>(seq), buf, (&mut [][..]).into())
        } else {
            self.aead.encrypt_inout_detached(
                &nonce::<A>(seq),
                &esp_aad(seq),
                buf.as_mut_slice().into(),
            )
        }
        .expect("packet sizes are far below the AEAD's limit");
        buf.extend_from_slice(&tag);
    }
    #[inline]
    fn open(&self, seq: u64, buf: &mut Vec<u8>) -> Result<(), OpenError> {
        let len = buf.len().checked_sub(16).ok_or(OpenError)?;
        let (body, tag) = buf.split_at_mut(len);
        let tag = (&*tag).try_into().map_err(|_| OpenError)?;
        if self.integrity_only {
            self.aead
                .decrypt_inout_detached(&nonce::<A>(seq), body, (&mut [][..]).into(), tag)
        } else {
            self.aead
                .decrypt_inout_detached(&nonce::<A>(seq), &esp_aad(seq), body.into(), tag)
        }
        .map_err(|_| OpenError)?;
        buf.truncate(len);
        Ok(())
    }
}

/// ESP with AES-CBC and HMAC-SHA2 (RFC 4303, RFC 3602, RFC 4868): the sender pads the payload
/// plus the 2-byte ESP trailer to the 16-byte block, CBC-encrypts it under a per-packet IV, and
/// appends the HMAC of ESP header, IV and ciphertext truncated to half the hash length
/// (encrypt-then-MAC); the receiver checks the ICV before decrypting.
///
/// In place, the buffer holds the padded ciphertext and the ICV; the ESP header and the IV, which
/// a kernel writes into the packet's headroom, are derived from `seq` beside it (the IV: a fixed
/// half and the sequence number) and authenticated exactly as on the wire.
pub(crate) struct CbcHmac<C: Clone, M: Mac + Clone> {
    suite: Suite,
    block: C,
    mac: M,
    icv_len: usize,
}

impl<C, M> CbcHmac<C, M>
where
    C: Clone + KeyInit,
    M: Mac + Clone + KeyInit,
{
    fn new(suite: Suite) -> Self {
        let icv_len = suite.icv_len();
        let block = C::new_from_slice(&KEY[..C::key_size()]).expect("AES key length");
        // RFC 4868: the HMAC key is as long as the hash output (32/48/64 bytes).
        let mac_key: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37) ^ 0x5c).collect();
        let mac = <M as KeyInit>::new_from_slice(&mac_key[..icv_len * 2]).expect("HMAC key");
        Self {
            suite,
            block,
            mac,
            icv_len,
        }
    }
}

/// The CBC IV: one AES block (RFC 3602 §3) \[bytes\].
const CBC_IV: usize = protocols::AES_BLOCK;

impl<C, M> Cipher for CbcHmac<C, M>
where
    C: Clone
        + aes::cipher::BlockCipherEncrypt
        + aes::cipher::BlockCipherDecrypt
        + aes::cipher::BlockSizeUser<BlockSize = aes::cipher::consts::U16>,
    M: Mac + Clone,
{
    fn suite(&self) -> Suite {
        self.suite
    }
    fn implementation(&self) -> &'static str {
        "rustcrypto"
    }
    fn max_overhead(&self) -> usize {
        CBC_IV - 1 + esp::TRAILER_LEN + self.icv_len
    }
    #[inline]
    fn seal(&self, seq: u64, buf: &mut Vec<u8>) {
        // Padding 1, 2, 3, ..., pad length, next header (RFC 4303 §2.4), written by protocols.
        let data = buf.len();
        esp::push_trailer(buf, data, self.suite.block_len(), ipv4::PROTO_IPV4)
            .expect("CBC padding is at most 15 bytes");
        let iv = cbc_iv(seq);
        let (blocks, tail) = InOutBuf::from(buf.as_mut_slice()).into_chunks();
        debug_assert!(tail.is_empty());
        cbc::Encryptor::<C>::inner_iv_init(self.block.clone(), &iv.into())
            .encrypt_blocks_inout(blocks);
        let mut mac = self.mac.clone();
        mac.update(&esp_aad(seq));
        mac.update(&iv);
        mac.update(buf);
        let icv = mac.finalize().into_bytes();
        buf.extend_from_slice(&icv[..self.icv_len]);
    }
    #[inline]
    fn open(&self, seq: u64, buf: &mut Vec<u8>) -> Result<(), OpenError> {
        let ct_len = buf.len().checked_sub(self.icv_len).ok_or(OpenError)?;
        if ct_len < 16 || ct_len % 16 != 0 {
            return Err(OpenError);
        }
        let iv = cbc_iv(seq);
        let (ct, icv) = buf.split_at_mut(ct_len);
        let mut mac = self.mac.clone();
        mac.update(&esp_aad(seq));
        mac.update(&iv);
        mac.update(ct);
        mac.verify_truncated_left(icv).map_err(|_| OpenError)?;
        let (blocks, _) = InOutBuf::from(ct).into_chunks();
        cbc::Decryptor::<C>::inner_iv_init(self.block.clone(), &iv.into())
            .decrypt_blocks_inout(blocks);
        let (data, _) = esp::parse_trailer(&buf[..ct_len]).map_err(|_| OpenError)?;
        buf.truncate(data);
        Ok(())
    }
}

/// The per-packet CBC IV: a fixed half and the sequence number.
#[inline]
fn cbc_iv(seq: u64) -> [u8; CBC_IV] {
    let mut iv = [0x3cu8; CBC_IV];
    iv[8..].copy_from_slice(&seq.to_be_bytes());
    iv
}

/// The baseline: one copy of the packet, the work a data path that does not transform packets
/// in place adds. `seal` copies the packet into a scratch buffer, `open` copies it back.
#[derive(Default)]
pub(crate) struct Copy {
    scratch: std::cell::RefCell<Vec<u8>>,
}

impl Cipher for Copy {
    fn suite(&self) -> Suite {
        Suite::Copy
    }
    fn implementation(&self) -> &'static str {
        "rustcrypto"
    }
    fn max_overhead(&self) -> usize {
        0
    }
    #[inline]
    fn seal(&self, _seq: u64, buf: &mut Vec<u8>) {
        let mut scratch = self.scratch.borrow_mut();
        scratch.clear();
        scratch.extend_from_slice(buf);
    }
    #[inline]
    fn open(&self, _seq: u64, buf: &mut Vec<u8>) -> Result<(), OpenError> {
        let scratch = self.scratch.borrow();
        let n = buf.len().min(scratch.len());
        buf[..n].copy_from_slice(&scratch[..n]);
        Ok(())
    }
    fn authenticates(&self) -> bool {
        false
    }
}

/// AES-CCM as ESP uses it (RFC 4309): 11-byte nonce, 16-byte ICV.
pub(crate) type Aes128Ccm = Ccm<Aes128, U16, U11>;
/// AES-256-CCM as ESP uses it (RFC 4309): 11-byte nonce, 16-byte ICV.
pub(crate) type Aes256Ccm = Ccm<Aes256, U16, U11>;

/// Every RustCrypto suite, in the order of [`Suite::ALL`].
pub fn rustcrypto_ciphers() -> Vec<Box<dyn Cipher>> {
    let cbc = |aes, sha| Suite::AesCbcHmac { aes, sha };
    vec![
        Box::new(Copy::default()),
        Box::new(AeadCipher::<Aes128Gcm>::new(Suite::Aes128Gcm)),
        Box::new(AeadCipher::<Aes256Gcm>::new(Suite::Aes256Gcm)),
        Box::new(AeadCipher::<ChaCha20Poly1305>::new(Suite::ChaCha20Poly1305)),
        Box::new(AeadCipher::<Aes128Ccm>::new(Suite::Aes128Ccm)),
        Box::new(AeadCipher::<Aes256Ccm>::new(Suite::Aes256Ccm)),
        Box::new(CbcHmac::<Aes128, Hmac<Sha256>>::new(cbc(
            AesKey::Aes128,
            Sha2::Sha256,
        ))),
        Box::new(CbcHmac::<Aes256, Hmac<Sha256>>::new(cbc(
            AesKey::Aes256,
            Sha2::Sha256,
        ))),
        Box::new(CbcHmac::<Aes128, Hmac<Sha384>>::new(cbc(
            AesKey::Aes128,
            Sha2::Sha384,
        ))),
        Box::new(CbcHmac::<Aes256, Hmac<Sha384>>::new(cbc(
            AesKey::Aes256,
            Sha2::Sha384,
        ))),
        Box::new(CbcHmac::<Aes128, Hmac<Sha512>>::new(cbc(
            AesKey::Aes128,
            Sha2::Sha512,
        ))),
        Box::new(CbcHmac::<Aes256, Hmac<Sha512>>::new(cbc(
            AesKey::Aes256,
            Sha2::Sha512,
        ))),
        Box::new(AeadCipher::<Aes128Gcm>::new(Suite::Gmac {
            aes: AesKey::Aes128,
        })),
        Box::new(AeadCipher::<Aes256Gcm>::new(Suite::Gmac {
            aes: AesKey::Aes256,
        })),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 131 + 7) as u8).collect()
    }

    #[test]
    fn suites_match_the_profile_names() {
        let suites: Vec<_> = rustcrypto_ciphers().iter().map(|c| c.suite()).collect();
        assert_eq!(suites, Suite::ALL);
    }

    #[test]
    fn every_suite_round_trips_and_detects_tampering() {
        for c in rustcrypto_ciphers() {
            for len in [0, 1, 13, 14, 15, 16, 17, 64, 1500, 9000] {
                let plain = pattern(len);
                let mut sealed = plain.clone();
                c.seal(7, &mut sealed);
                assert!(
                    sealed.len() <= len + c.max_overhead(),
                    "{} {len}",
                    c.suite()
                );
                let mut opened = sealed.clone();
                c.open(7, &mut opened).unwrap();
                assert_eq!(opened, plain, "{} {len}", c.suite());
                if !c.authenticates() {
                    continue;
                }
                // A flipped bit anywhere (last = tag, first = header or data) must fail, and so
                // must the wrong sequence number.
                let last = sealed.len() - 1;
                for at in [0, last / 2, last] {
                    let mut bad = sealed.clone();
                    bad[at] ^= 1;
                    assert_eq!(
                        c.open(7, &mut bad),
                        Err(OpenError),
                        "{} {len} @{at}",
                        c.suite()
                    );
                }
                assert_eq!(
                    c.open(8, &mut sealed.clone()),
                    Err(OpenError),
                    "{}",
                    c.suite()
                );
            }
        }
    }

    #[test]
    fn encrypting_suites_hide_the_plaintext() {
        let plain = pattern(256);
        for c in rustcrypto_ciphers() {
            let mut sealed = plain.clone();
            c.seal(1, &mut sealed);
            let visible = sealed.windows(32).any(|w| w == &plain[100..132]);
            let encrypts = c.suite().encrypts();
            assert_eq!(visible, !encrypts, "{}", c.suite());
        }
    }

    #[test]
    fn esp_cbc_layout() {
        // 100 B payload + 2 B trailer -> 112 B padded; + 16 ICV (the 8 B header and 16 B IV
        // sit in the headroom, outside the buffer).
        let c = CbcHmac::<Aes256, Hmac<Sha256>>::new(Suite::AesCbcHmac {
            aes: AesKey::Aes256,
            sha: Sha2::Sha256,
        });
        let mut sealed = pattern(100);
        c.seal(1, &mut sealed);
        assert_eq!(sealed.len(), 112 + 16);
    }

    #[test]
    fn aes_gcm_matches_a_known_answer() {
        // NIST GCM test case 2 (AES-128, zero key, zero IV, one zero block), McGrew-Viega:
        // ciphertext 0388dace60b6a392f328c2b971b2fe78, tag ab6e47d42cec13bdf53a67b21257bddf.
        let aead = Aes128Gcm::new_from_slice(&[0u8; 16]).unwrap();
        let mut buf = [0u8; 16];
        let tag = aead
            .encrypt_inout_detached(&Nonce::<Aes128Gcm>::default(), &[], (&mut buf[..]).into())
            .unwrap();
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        assert_eq!(hex(&buf), "0388dace60b6a392f328c2b971b2fe78");
        assert_eq!(hex(&tag), "ab6e47d42cec13bdf53a67b21257bddf");
    }
}
