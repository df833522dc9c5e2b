//! The AEADs the sealers run (RustCrypto): AES-GCM with 128, 192 and 256-bit keys and
//! ChaCha20-Poly1305, over the regions a [`Sealing`] names, the tag truncated to the ICV.

use aes::Aes192;
use aes_gcm::aead::consts::U12;
use aes_gcm::aead::{AeadInOut, KeyInit};
use aes_gcm::{Aes128Gcm, Aes256Gcm, AesGcm};
use chacha20poly1305::ChaCha20Poly1305;
use protocols::Sealing;
use protocols::tls::Cipher as TlsCipher;

/// Why a cipher could not seal: the message says what it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CipherError {
    /// The AEAD refused the message (too long for it).
    Aead,
    /// The ICV region is longer than the cipher's tag.
    IcvLongerThanTag,
    /// A key of another length than the cipher's.
    KeyLength,
    /// A key or IV of a length the block cipher or MAC does not take.
    InvalidLength,
    /// An AES key of this many bytes (AES takes 16, 24 or 32).
    AesKeyLength(usize),
    /// CBC over a ciphertext that is not a whole number of blocks.
    NotWholeBlocks,
}

impl std::fmt::Display for CipherError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CipherError::Aead => write!(f, "{}", aes_gcm::aead::Error),
            CipherError::IcvLongerThanTag => f.write_str("the ICV region is longer than the tag"),
            CipherError::KeyLength => f.write_str("a key of the cipher's length"),
            CipherError::InvalidLength => write!(f, "{}", aes::cipher::InvalidLength),
            CipherError::AesKeyLength(n) => write!(f, "an AES key of {n} B"),
            CipherError::NotWholeBlocks => f.write_str("ciphertext not a whole number of blocks"),
        }
    }
}

impl std::error::Error for CipherError {}

/// Encrypts `s.encrypted` in place, authenticating `s.aad` with it, and writes the tag to
/// `s.icv`, truncated to the ICV's length (a truncated GCM tag is the tag's leading bytes,
/// NIST SP 800-38D §5.2.1.2; RFC 4106 §6).
pub(super) fn aead_seal<A: AeadInOut>(
    aead: &A,
    nonce: [u8; 12],
    s: &Sealing,
    out: &mut [u8],
) -> Result<(), CipherError>
where
    aes_gcm::aead::Nonce<A>: From<[u8; 12]>,
{
    let (head, rest) = out.split_at_mut(s.encrypted.start);
    let (body, tail) = rest.split_at_mut(s.encrypted.len());
    let tag = aead
        .encrypt_inout_detached(&nonce.into(), &head[s.aad.clone()], body.into())
        .map_err(|_| CipherError::Aead)?;
    let at = s.icv.start - s.encrypted.end;
    tail.get_mut(at..at + s.icv.len())
        .zip(tag.get(..s.icv.len()))
        .ok_or(CipherError::IcvLongerThanTag)?
        .0
        .copy_from_slice(&tag[..s.icv.len()]);
    Ok(())
}

/// Seals `out[s.encrypted]` in place with `cipher` (a TLS AEAD) under `key` and `nonce`,
/// authenticating `external_aad` if given, else `out[s.aad]`; the tag goes to `out[s.icv]`.
pub(super) fn aead_seal_detached(
    cipher: TlsCipher,
    key: &[u8],
    nonce: [u8; 12],
    external_aad: Option<&[u8]>,
    s: &Sealing,
    out: &mut [u8],
) -> Result<(), CipherError> {
    let aead = Aead::tls(cipher, key).ok_or(CipherError::KeyLength)?;
    match external_aad {
        Some(a) => aead.seal_with(nonce, a, s, out),
        None => aead.seal(nonce, s, out),
    }
}

/// An AEAD with its key.
pub(super) enum Aead {
    Gcm128(Box<Aes128Gcm>),
    Gcm192(Box<AesGcm<Aes192, U12>>),
    Gcm256(Box<Aes256Gcm>),
    ChaCha(Box<ChaCha20Poly1305>),
}

impl Aead {
    pub(super) fn gcm(key: &[u8]) -> Option<Aead> {
        Some(match key.len() {
            16 => Aead::Gcm128(Box::new(Aes128Gcm::new_from_slice(key).ok()?)),
            24 => Aead::Gcm192(Box::new(AesGcm::new_from_slice(key).ok()?)),
            32 => Aead::Gcm256(Box::new(Aes256Gcm::new_from_slice(key).ok()?)),
            _ => return None,
        })
    }

    /// The AEAD of a TLS record `cipher` under `key`; `None` for a key of another length and
    /// for the ciphers sealed nowhere here (CCM, CBC, NULL: `tls13::Opening` opens none).
    pub(super) fn tls(cipher: TlsCipher, key: &[u8]) -> Option<Aead> {
        match cipher {
            TlsCipher::AesGcm(_) => Aead::gcm(key),
            TlsCipher::ChaCha20Poly1305 => Aead::chacha(key),
            TlsCipher::AesCcm(_)
            | TlsCipher::AesCcm8(_)
            | TlsCipher::AesCbc(..)
            | TlsCipher::Null(_) => None,
        }
    }

    pub(super) fn chacha(key: &[u8]) -> Option<Aead> {
        Some(Aead::ChaCha(Box::new(
            ChaCha20Poly1305::new_from_slice(key).ok()?,
        )))
    }

    pub(super) fn seal(
        &self,
        nonce: [u8; 12],
        s: &Sealing,
        out: &mut [u8],
    ) -> Result<(), CipherError> {
        match self {
            Aead::Gcm128(a) => aead_seal(&**a, nonce, s, out),
            Aead::Gcm192(a) => aead_seal(&**a, nonce, s, out),
            Aead::Gcm256(a) => aead_seal(&**a, nonce, s, out),
            Aead::ChaCha(a) => aead_seal(&**a, nonce, s, out),
        }
    }

    /// As [`Aead::seal`], authenticating `aad` (not a range of `out`) instead of `s.aad`.
    pub(super) fn seal_with(
        &self,
        nonce: [u8; 12],
        aad: &[u8],
        s: &Sealing,
        out: &mut [u8],
    ) -> Result<(), CipherError> {
        // The AAD is put in front of a scratch copy's encrypted region and named as `aad`.
        let mut scratch = Vec::with_capacity(aad.len() + s.icv.end - s.encrypted.start);
        scratch.extend_from_slice(aad);
        scratch.extend_from_slice(&out[s.encrypted.start..s.icv.end]);
        let shift = |r: &std::ops::Range<usize>| {
            r.start - s.encrypted.start + aad.len()..r.end - s.encrypted.start + aad.len()
        };
        let t = Sealing {
            layer: s.layer,
            aad: 0..aad.len(),
            encrypted: shift(&s.encrypted),
            iv: shift(&s.encrypted).start..shift(&s.encrypted).start,
            icv: shift(&s.icv),
        };
        self.seal(nonce, &t, &mut scratch)?;
        out[s.encrypted.start..s.icv.end].copy_from_slice(&scratch[aad.len()..]);
        Ok(())
    }
}
