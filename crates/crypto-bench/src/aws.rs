//! aws-lc-rs (AWS-LC, OpenSSL/BoringSSL-derived assembly): the "faster path" beside RustCrypto.
//! AES-128/256-GCM and ChaCha20-Poly1305 seal/open laid out exactly as [`crate::ciphers`] does
//! (8-byte ESP AAD, 12-byte salt||sequence nonce, ciphertext||16-byte tag), GMAC-AES-128/256
//! (MACsec integrity only), X25519, ML-KEM-512/768/1024 and RSA-2048/3072 signatures. Built only with the `aws-lc` feature.

use std::hint::black_box;

use aws_lc_rs::aead::{
    AES_128_GCM, AES_256_GCM, Aad, Algorithm, CHACHA20_POLY1305, LessSafeKey, Nonce, UnboundKey,
};
use aws_lc_rs::agreement::{self, PrivateKey, UnparsedPublicKey, X25519};
use aws_lc_rs::kem::{self, DecapsulationKey, ML_KEM_512, ML_KEM_768, ML_KEM_1024};

use protocols::{AesKey, Suite};

use crate::ciphers::{Cipher, OpenError};
use crate::keyops::{CheckFailed, KeyOp};
use profile::{KeyAction, KeyAlg};

const KEY: [u8; 32] = [0x42; 32];

fn nonce(seq: u64) -> Nonce {
    let mut n = [0xa5u8; 12];
    n[4..].copy_from_slice(&seq.to_be_bytes());
    Nonce::assume_unique_for_key(n)
}

fn aad(seq: u64) -> [u8; 8] {
    let mut a = [0u8; 8];
    a[..4].copy_from_slice(&0x0000_1001u32.to_be_bytes());
    a[4..].copy_from_slice(&(seq as u32).to_be_bytes());
    a
}

struct AwsAead {
    suite: Suite,
    key: LessSafeKey,
    /// GMAC (MACsec integrity only, RFC 4543): the whole packet is associated data, nothing
    /// is encrypted, the tag is appended.
    integrity_only: bool,
}

impl AwsAead {
    fn new(suite: Suite, alg: &'static Algorithm) -> Self {
        let key = UnboundKey::new(alg, &KEY[..alg.key_len()]).expect("key length");
        Self {
            suite,
            key: LessSafeKey::new(key),
            integrity_only: !suite.encrypts(),
        }
    }
}

impl Cipher for AwsAead {
    fn suite(&self) -> Suite {
        self.suite
    }
    fn implementation(&self) -> &'static str {
        "aws-lc-rs"
    }
    fn max_overhead(&self) -> usize {
        16
    }
    fn seal(&self, seq: u64, buf: &mut Vec<u8>) {
        let tag = if self.integrity_only {
            self.key
                .seal_in_place_separate_tag(nonce(seq), Aad::from(buf.as_slice()), &mut [])
        } else {
            self.key
                .seal_in_place_separate_tag(nonce(seq), Aad::from(aad(seq)), buf)
        }
        .expect("packet sizes are far below the AEAD's limit");
        buf.extend_from_slice(tag.as_ref());
    }
    fn open(&self, seq: u64, buf: &mut Vec<u8>) -> Result<(), OpenError> {
        let ct_len = buf.len().checked_sub(16).ok_or(OpenError)?;
        if self.integrity_only {
            let (body, tag) = buf.split_at(ct_len);
            let mut tag: [u8; 16] = tag.try_into().map_err(|_| OpenError)?;
            self.key
                .open_in_place(nonce(seq), Aad::from(body), &mut tag)
                .map_err(|_| OpenError)?;
            buf.truncate(ct_len);
            return Ok(());
        }
        self.key
            .open_in_place(nonce(seq), Aad::from(aad(seq)), buf)
            .map_err(|_| OpenError)?;
        buf.truncate(ct_len);
        Ok(())
    }
}

/// aws-lc-rs AEAD suites, and GMAC (AES-GCM over associated data only) for MACsec integrity.
pub(crate) fn ciphers() -> Vec<Box<dyn Cipher>> {
    vec![
        Box::new(AwsAead::new(Suite::Aes128Gcm, &AES_128_GCM)),
        Box::new(AwsAead::new(Suite::Aes256Gcm, &AES_256_GCM)),
        Box::new(AwsAead::new(Suite::ChaCha20Poly1305, &CHACHA20_POLY1305)),
        Box::new(AwsAead::new(
            Suite::Gmac {
                aes: AesKey::Aes128,
            },
            &AES_128_GCM,
        )),
        Box::new(AwsAead::new(
            Suite::Gmac {
                aes: AesKey::Aes256,
            },
            &AES_256_GCM,
        )),
    ]
}

struct AwsX25519 {
    agree: bool,
    peer: PrivateKey,
    peer_pub: Vec<u8>,
    last: Option<(PrivateKey, Vec<u8>)>,
}

impl KeyOp for AwsX25519 {
    fn op(&self) -> profile::KeyOp {
        if self.agree {
            profile::KeyOp::of(KeyAlg::X25519, KeyAction::Agree)
        } else {
            profile::KeyOp::of(KeyAlg::X25519, KeyAction::Keygen)
        }
    }
    fn implementation(&self) -> &'static str {
        "aws-lc-rs"
    }
    fn run(&mut self, _i: u64) {
        // keygen: a random scalar and its public key (the fixed-base multiplication);
        // agree: a random scalar and the variable-base multiplication with the peer's key.
        let sk = PrivateKey::generate(&X25519).expect("keygen");
        let out = if self.agree {
            agreement::agree(
                &sk,
                UnparsedPublicKey::new(&X25519, black_box(&self.peer_pub)),
                (),
                |s| Ok(s.to_vec()),
            )
            .unwrap_or_default()
        } else {
            sk.compute_public_key()
                .map(|pk| pk.as_ref().to_vec())
                .unwrap_or_default()
        };
        self.last = Some((sk, black_box(out)));
    }
    fn check(&mut self) -> Result<(), CheckFailed> {
        let (sk, out) = self.last.as_ref().ok_or("never ran")?;
        let pk = sk.compute_public_key().map_err(|_| "public key")?;
        if !self.agree {
            return (pk.as_ref() == out.as_slice())
                .then_some(())
                .ok_or_else(|| "public key changed".into());
        }
        let theirs = agreement::agree(
            &self.peer,
            UnparsedPublicKey::new(&X25519, pk.as_ref()),
            (),
            |s| Ok(s.to_vec()),
        )
        .map_err(|_| "peer could not agree")?;
        (theirs == *out)
            .then_some(())
            .ok_or_else(|| "the two sides derived different secrets".into())
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Step {
    Keygen,
    Encaps,
    Decaps,
}

struct AwsMlKem {
    op: profile::KeyOp,
    alg: &'static kem::Algorithm<kem::AlgorithmId>,
    step: Step,
    dk: DecapsulationKey<kem::AlgorithmId>,
    ct: Vec<u8>,
    ss: Vec<u8>,
    ok: bool,
}

impl KeyOp for AwsMlKem {
    fn op(&self) -> profile::KeyOp {
        self.op
    }
    fn implementation(&self) -> &'static str {
        "aws-lc-rs"
    }
    fn run(&mut self, _i: u64) {
        match self.step {
            Step::Keygen => {
                let dk = DecapsulationKey::generate(self.alg).expect("keygen");
                let ek = dk.encapsulation_key().expect("ek");
                black_box(ek.key_bytes().map(|b| b.as_ref().len()).unwrap_or(0));
                self.dk = dk;
            }
            Step::Encaps => {
                let ek = self.dk.encapsulation_key().expect("ek");
                let (ct, ss) = ek.encapsulate().expect("encaps");
                self.ct = black_box(ct.as_ref().to_vec());
                self.ss = ss.as_ref().to_vec();
            }
            Step::Decaps => {
                let ss = self
                    .dk
                    .decapsulate(black_box(self.ct.as_slice()).into())
                    .expect("decaps");
                self.ok = black_box(ss.as_ref()) == self.ss.as_slice();
            }
        }
    }
    fn check(&mut self) -> Result<(), CheckFailed> {
        match self.step {
            Step::Decaps if !self.ok => {
                Err("decapsulated key differs from the encapsulated one".into())
            }
            _ => {
                let ek = self.dk.encapsulation_key().map_err(|_| "ek")?;
                let (ct, ss) = ek.encapsulate().map_err(|_| "encaps")?;
                let back = self
                    .dk
                    .decapsulate(ct.as_ref().into())
                    .map_err(|_| "decaps")?;
                (back.as_ref() == ss.as_ref())
                    .then_some(())
                    .ok_or_else(|| "key pair does not round-trip".into())
            }
        }
    }
}

/// RSA PKCS#1 v1.5 with SHA-256 through AWS-LC (OpenSSL's RSA code): sign or verify.
struct AwsRsa {
    op: profile::KeyOp,
    sign: bool,
    key: aws_lc_rs::rsa::KeyPair,
    msg: [u8; 32],
    sig: Vec<u8>,
    verified: bool,
}

impl AwsRsa {
    fn verify(&self, msg: &[u8]) -> bool {
        use aws_lc_rs::signature::{KeyPair, RSA_PKCS1_2048_8192_SHA256, UnparsedPublicKey};
        UnparsedPublicKey::new(&RSA_PKCS1_2048_8192_SHA256, self.key.public_key().as_ref())
            .verify(msg, &self.sig)
            .is_ok()
    }
}

impl KeyOp for AwsRsa {
    fn op(&self) -> profile::KeyOp {
        self.op
    }
    fn implementation(&self) -> &'static str {
        "aws-lc-rs"
    }
    fn run(&mut self, i: u64) {
        if self.sign {
            self.msg = crate::keyops::message(i);
            let rng = aws_lc_rs::rand::SystemRandom::new();
            let key = black_box(&self.key);
            key.sign(
                &aws_lc_rs::signature::RSA_PKCS1_SHA256,
                &rng,
                black_box(&self.msg),
                &mut self.sig,
            )
            .expect("RSA sign");
        } else {
            self.verified = black_box(self.verify(black_box(&self.msg)));
        }
    }
    fn check(&mut self) -> Result<(), CheckFailed> {
        if !self.sign && !self.verified {
            return Err("a valid signature did not verify".into());
        }
        if !self.verify(&self.msg) {
            return Err("signature does not verify".into());
        }
        let mut other = self.msg;
        other[31] ^= 1;
        if self.verify(&other) {
            return Err("signature verified for a different message".into());
        }
        Ok(())
    }
}

/// aws-lc-rs X25519, ML-KEM and RSA operations.
pub(crate) fn key_ops() -> Vec<Box<dyn KeyOp>> {
    let mut ops: Vec<Box<dyn KeyOp>> = Vec::new();
    for (der, rsa) in crate::keyops::RSA_KEYS {
        for (sign, action) in [(true, KeyAction::Sign), (false, KeyAction::Verify)] {
            let key = aws_lc_rs::rsa::KeyPair::from_pkcs8(der)
                .expect("the committed RSA test key parses");
            let mut op = AwsRsa {
                op: profile::KeyOp::of(rsa, action),
                sign,
                sig: vec![0; key.public_modulus_len()],
                key,
                msg: crate::keyops::message(0),
                verified: false,
            };
            let (msg, rng) = (op.msg, aws_lc_rs::rand::SystemRandom::new());
            op.key
                .sign(
                    &aws_lc_rs::signature::RSA_PKCS1_SHA256,
                    &rng,
                    &msg,
                    &mut op.sig,
                )
                .expect("RSA sign");
            ops.push(Box::new(op));
        }
    }
    for agree in [false, true] {
        let peer = PrivateKey::generate(&X25519).expect("keygen");
        let peer_pub = peer.compute_public_key().expect("pk").as_ref().to_vec();
        ops.push(Box::new(AwsX25519 {
            agree,
            peer,
            peer_pub,
            last: None,
        }));
    }
    let sets: [(&'static kem::Algorithm<kem::AlgorithmId>, KeyAlg); 3] = [
        (&ML_KEM_512, KeyAlg::MlKem512),
        (&ML_KEM_768, KeyAlg::MlKem768),
        (&ML_KEM_1024, KeyAlg::MlKem1024),
    ];
    for (alg, kem_alg) in sets {
        for (step, action) in [
            (Step::Keygen, KeyAction::Keygen),
            (Step::Encaps, KeyAction::Encaps),
            (Step::Decaps, KeyAction::Decaps),
        ] {
            let dk = DecapsulationKey::generate(alg).expect("keygen");
            let (ct, ss) = dk
                .encapsulation_key()
                .expect("ek")
                .encapsulate()
                .expect("encaps");
            ops.push(Box::new(AwsMlKem {
                op: profile::KeyOp::of(kem_alg, action),
                alg,
                step,
                dk,
                ct: ct.as_ref().to_vec(),
                ss: ss.as_ref().to_vec(),
                ok: false,
            }));
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aws_ciphers_round_trip_and_refuse_tampering() {
        for c in ciphers() {
            for len in [0, 64, 1500] {
                let plain: Vec<u8> = (0..len).map(|i| i as u8).collect();
                crate::measure::verify_cipher(c.as_ref(), &plain).unwrap();
            }
        }
    }

    #[test]
    fn aws_gcm_interoperates_with_rustcrypto() {
        // Same key, nonce and AAD layout: RustCrypto must open what aws-lc-rs sealed.
        use aes_gcm::aead::{AeadInOut, KeyInit};
        let plain = [7u8; 100];
        let mut sealed = plain.to_vec();
        AwsAead::new(Suite::Aes128Gcm, &AES_128_GCM).seal(5, &mut sealed);
        let rc = aes_gcm::Aes128Gcm::new_from_slice(&KEY[..16]).unwrap();
        let mut n = [0xa5u8; 12];
        n[4..].copy_from_slice(&5u64.to_be_bytes());
        let (ct, tag) = sealed.split_at_mut(100);
        rc.decrypt_inout_detached(&n.into(), &aad(5), ct.into(), (&*tag).try_into().unwrap())
            .unwrap();
        assert_eq!(ct, &plain[..]);
    }

    #[test]
    fn aws_key_ops_run_and_check() {
        for mut op in key_ops() {
            op.run(1);
            op.check().unwrap_or_else(|e| panic!("{}: {e}", op.op()));
        }
    }
}
