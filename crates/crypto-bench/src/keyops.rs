//! Constant-cost operations of handshakes: X25519, ML-KEM-512/768/1024, Ed25519, ECDSA P-256,
//! RSA-2048/3072, ML-DSA-44/65/87 (RustCrypto).
//!
//! Each [`KeyOp`] runs its operation on inputs that change from one call to the next (a counter
//! goes into the seed), keeps the last output, and [`KeyOp::check`] verifies that output against
//! the inverse operation (agreement on both sides, decapsulation equals encapsulation, the
//! signature verifies and a tampered one does not).

use std::hint::black_box;

use ml_dsa::signature;
use ml_kem::kem::Decapsulate;
use ml_kem::{B32, DecapsulationKey, MlKem512, MlKem768, MlKem1024, Seed};
use profile::{KeyAction, KeyAlg};
use x25519_dalek::{PublicKey, StaticSecret};

/// A key operation's last output that did not verify: what did not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckFailed(pub &'static str);

impl From<&'static str> for CheckFailed {
    fn from(what: &'static str) -> CheckFailed {
        CheckFailed(what)
    }
}

impl std::fmt::Display for CheckFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for CheckFailed {}

/// One timed key-exchange or signature operation.
pub trait KeyOp {
    /// The operation it times, one of [`profile::all_key_ops`], e.g. `mlkem768.encaps`.
    fn op(&self) -> profile::KeyOp;
    /// Implementation name.
    fn implementation(&self) -> &'static str;
    /// Runs the operation once with fresh inputs derived from `i`.
    fn run(&mut self, i: u64);
    /// Verifies the last output; an error says what did not hold.
    fn check(&mut self) -> Result<(), CheckFailed>;
}

/// 32 bytes that differ for every `i` (not random, which would time the RNG as well).
fn bytes32(i: u64, tag: u8) -> [u8; 32] {
    let mut b = [tag; 32];
    b[..8].copy_from_slice(&i.to_le_bytes());
    b[8..16].copy_from_slice(&i.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
    b
}

// ---------------------------------------------------------------- X25519

struct X25519Keygen {
    last: Option<(StaticSecret, PublicKey)>,
}

impl KeyOp for X25519Keygen {
    fn op(&self) -> profile::KeyOp {
        profile::KeyOp::of(KeyAlg::X25519, KeyAction::Keygen)
    }
    fn implementation(&self) -> &'static str {
        "rustcrypto"
    }
    fn run(&mut self, i: u64) {
        let sk = StaticSecret::from(bytes32(i, 1));
        let pk = PublicKey::from(black_box(&sk));
        self.last = Some((sk, black_box(pk)));
    }
    fn check(&mut self) -> Result<(), CheckFailed> {
        let (sk, pk) = self.last.as_ref().ok_or("never ran")?;
        // The public key must equal the scalar multiple of the base point.
        let expect = x25519_dalek::x25519(sk.to_bytes(), x25519_dalek::X25519_BASEPOINT_BYTES);
        (pk.to_bytes() == expect)
            .then_some(())
            .ok_or_else(|| "public key is not sk*G".into())
    }
}

struct X25519Agree {
    peer_sk: StaticSecret,
    peer_pk: PublicKey,
    last: Option<(StaticSecret, [u8; 32])>,
}

impl KeyOp for X25519Agree {
    fn op(&self) -> profile::KeyOp {
        profile::KeyOp::of(KeyAlg::X25519, KeyAction::Agree)
    }
    fn implementation(&self) -> &'static str {
        "rustcrypto"
    }
    fn run(&mut self, i: u64) {
        // Only the agreement (a variable-base scalar multiplication) is timed; our public key
        // for the check is computed in `check`, outside the timed batch.
        let sk = StaticSecret::from(bytes32(i, 2));
        let shared = black_box(&sk).diffie_hellman(black_box(&self.peer_pk));
        self.last = Some((sk, black_box(shared.to_bytes())));
    }
    fn check(&mut self) -> Result<(), CheckFailed> {
        let (sk, ours) = self.last.as_ref().ok_or("never ran")?;
        let theirs = self.peer_sk.diffie_hellman(&PublicKey::from(sk)).to_bytes();
        (theirs == *ours)
            .then_some(())
            .ok_or_else(|| "the two sides derived different secrets".into())
    }
}

// ---------------------------------------------------------------- ML-KEM

fn seed64(i: u64) -> Seed {
    let mut s = Seed::default();
    s[..32].copy_from_slice(&bytes32(i, 3));
    s[32..].copy_from_slice(&bytes32(i, 4));
    s
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum KemStep {
    Keygen,
    Encaps,
    Decaps,
}

impl KemStep {
    const ALL: [KemStep; 3] = [KemStep::Keygen, KemStep::Encaps, KemStep::Decaps];

    fn action(self) -> KeyAction {
        match self {
            KemStep::Keygen => KeyAction::Keygen,
            KemStep::Encaps => KeyAction::Encaps,
            KemStep::Decaps => KeyAction::Decaps,
        }
    }
}

/// One ML-KEM parameter set's operations; a macro because the crate's generic bounds are long.
macro_rules! mlkem_op {
    ($op:ident, $param:ty, $module:ident, $alg:expr) => {
        struct $op {
            step: KemStep,
            op: profile::KeyOp,
            dk: DecapsulationKey<$param>,
            ct: ml_kem::$module::Ciphertext,
            ss: ml_kem::SharedKey,
            last_dk: Option<DecapsulationKey<$param>>,
            last_ss: Option<ml_kem::SharedKey>,
        }

        impl $op {
            fn new(step: KemStep) -> Self {
                let dk = DecapsulationKey::<$param>::from_seed(seed64(0));
                let (ct, ss) = dk
                    .encapsulation_key()
                    .encapsulate_deterministic(&B32::from(bytes32(0, 5)));
                Self {
                    step,
                    op: profile::KeyOp::of($alg, step.action()),
                    dk,
                    ct,
                    ss,
                    last_dk: None,
                    last_ss: None,
                }
            }

            fn all(ops: &mut Vec<Box<dyn KeyOp>>) {
                for step in KemStep::ALL {
                    ops.push(Box::new(Self::new(step)));
                }
            }
        }

        impl KeyOp for $op {
            fn op(&self) -> profile::KeyOp {
                self.op
            }
            fn implementation(&self) -> &'static str {
                "rustcrypto"
            }
            fn run(&mut self, i: u64) {
                match self.step {
                    KemStep::Keygen => {
                        let dk = DecapsulationKey::<$param>::from_seed(black_box(seed64(i)));
                        self.last_dk = Some(black_box(dk));
                    }
                    KemStep::Encaps => {
                        let (ct, ss) = black_box(&self.dk)
                            .encapsulation_key()
                            .encapsulate_deterministic(&B32::from(bytes32(i, 5)));
                        self.ct = black_box(ct);
                        self.ss = ss;
                    }
                    KemStep::Decaps => {
                        self.last_ss = Some(black_box(self.dk.decapsulate(black_box(&self.ct))));
                    }
                }
            }
            fn check(&mut self) -> Result<(), CheckFailed> {
                match self.step {
                    KemStep::Keygen => {
                        let dk = self.last_dk.as_ref().ok_or("never ran")?;
                        let (ct, ss) = dk
                            .encapsulation_key()
                            .encapsulate_deterministic(&B32::from(bytes32(9, 5)));
                        (dk.decapsulate(&ct) == ss)
                            .then_some(())
                            .ok_or_else(|| "generated key pair does not round-trip".into())
                    }
                    KemStep::Encaps => (self.dk.decapsulate(&self.ct) == self.ss)
                        .then_some(())
                        .ok_or_else(|| "decapsulation disagrees with encapsulation".into()),
                    KemStep::Decaps => {
                        let got = self.last_ss.as_ref().ok_or("never ran")?;
                        if *got != self.ss {
                            return Err("decapsulated key differs from the encapsulated one".into());
                        }
                        // Implicit rejection: a tampered ciphertext yields a different key.
                        let mut bad = self.ct.clone();
                        bad[0] ^= 1;
                        (self.dk.decapsulate(&bad) != self.ss)
                            .then_some(())
                            .ok_or_else(|| "tampered ciphertext gave the same key".into())
                    }
                }
            }
        }
    };
}

mlkem_op!(MlKem512Op, MlKem512, ml_kem_512, KeyAlg::MlKem512);
mlkem_op!(MlKem768Op, MlKem768, ml_kem_768, KeyAlg::MlKem768);
mlkem_op!(MlKem1024Op, MlKem1024, ml_kem_1024, KeyAlg::MlKem1024);

// ---------------------------------------------------------------- signatures

/// The message signed: a 32-byte transcript hash, as IKE_AUTH and TLS 1.3 CertificateVerify
/// sign a short digest-sized input (TLS signs 64 spaces + context + hash, ~130 B; the cost is
/// dominated by the fixed part either way).
pub(crate) fn message(i: u64) -> [u8; 32] {
    bytes32(i, 6)
}

struct SigOp<S, V, Sig> {
    op: profile::KeyOp,
    sign: bool,
    sk: S,
    vk: V,
    sig: Sig,
    msg: [u8; 32],
    verified: bool,
}

impl<S, V, Sig> KeyOp for SigOp<S, V, Sig>
where
    S: signature::Signer<Sig>,
    V: signature::Verifier<Sig>,
    Sig: Clone + signature::SignatureEncoding,
{
    fn op(&self) -> profile::KeyOp {
        self.op
    }
    fn implementation(&self) -> &'static str {
        "rustcrypto"
    }
    fn run(&mut self, i: u64) {
        if self.sign {
            self.msg = message(i);
            self.sig = black_box(self.sk.sign(black_box(&self.msg)));
        } else {
            self.verified = black_box(&self.vk)
                .verify(black_box(&self.msg), black_box(&self.sig))
                .is_ok();
        }
    }
    fn check(&mut self) -> Result<(), CheckFailed> {
        if !self.sign && !self.verified {
            return Err("a valid signature did not verify".into());
        }
        if self.vk.verify(&self.msg, &self.sig).is_err() {
            return Err("signature does not verify".into());
        }
        let mut other = self.msg;
        other[31] ^= 1;
        if self.vk.verify(&other, &self.sig).is_ok() {
            return Err("signature verified for a different message".into());
        }
        Ok(())
    }
}

/// RSA test keys (PKCS#8 DER, made once with `openssl genpkey -algorithm RSA`; fixed so that
/// every run signs with the same modulus) and their algorithms: PKCS#1 v1.5 with SHA-256, what
/// strongSwan signs IKE_AUTH with when `pki --gen` made the key (RSA 2048 by default).
pub(crate) const RSA_KEYS: [(&[u8], KeyAlg); 2] = [
    (
        include_bytes!("../data/rsa2048-test-key.pk8.der"),
        KeyAlg::Rsa2048,
    ),
    (
        include_bytes!("../data/rsa3072-test-key.pk8.der"),
        KeyAlg::Rsa3072,
    ),
];

fn sig_pair<S, V, Sig>(ops: &mut Vec<Box<dyn KeyOp>>, alg: KeyAlg, sk: S, vk: V)
where
    S: signature::Signer<Sig> + Clone + 'static,
    V: signature::Verifier<Sig> + Clone + 'static,
    Sig: Clone + signature::SignatureEncoding + 'static,
{
    let msg = message(0);
    let sig = sk.sign(&msg);
    for (sign, action) in [(true, KeyAction::Sign), (false, KeyAction::Verify)] {
        ops.push(Box::new(SigOp {
            op: profile::KeyOp::of(alg, action),
            sign,
            sk: sk.clone(),
            vk: vk.clone(),
            sig: sig.clone(),
            msg,
            verified: false,
        }));
    }
}

/// Every RustCrypto key-exchange and signature operation, in the order of
/// [`profile::KEY_OPS`].
pub fn rustcrypto_key_ops() -> Vec<Box<dyn KeyOp>> {
    let mut ops: Vec<Box<dyn KeyOp>> = Vec::new();
    ops.push(Box::new(X25519Keygen { last: None }));
    let peer_sk = StaticSecret::from(bytes32(u64::MAX, 7));
    let peer_pk = PublicKey::from(&peer_sk);
    ops.push(Box::new(X25519Agree {
        peer_sk,
        peer_pk,
        last: None,
    }));
    MlKem512Op::all(&mut ops);
    MlKem768Op::all(&mut ops);
    MlKem1024Op::all(&mut ops);

    let ed = ed25519_dalek::SigningKey::from_bytes(&bytes32(1, 8));
    let ed_vk = ed.verifying_key();
    sig_pair::<_, _, ed25519_dalek::Signature>(&mut ops, KeyAlg::Ed25519, ed, ed_vk);

    let p256_sk = p256::ecdsa::SigningKey::from_slice(&bytes32(1, 9)).expect("valid P-256 scalar");
    let p256_vk = *p256_sk.verifying_key();
    sig_pair::<_, _, p256::ecdsa::Signature>(&mut ops, KeyAlg::EcdsaP256, p256_sk, p256_vk);

    for (der, alg) in RSA_KEYS {
        use rsa::pkcs8::DecodePrivateKey;
        let key = rsa::PrivateKey::from_pkcs8_der(der).expect("the committed RSA test key parses");
        let sk = rsa::pkcs1v15::SigningKey::<sha2::Sha256>::new(key);
        let vk = signature::Keypair::verifying_key(&sk);
        sig_pair::<_, _, rsa::pkcs1v15::Signature>(&mut ops, alg, sk, vk);
    }

    macro_rules! mldsa {
        ($p:ty, $alg:expr) => {{
            let sk = ml_dsa::SigningKey::<$p>::from_seed(&bytes32(1, 10).into());
            let vk = ml_dsa::signature::Keypair::verifying_key(&sk);
            sig_pair::<_, _, ml_dsa::Signature<$p>>(&mut ops, $alg, sk, vk);
        }};
    }
    mldsa!(ml_dsa::MlDsa44, KeyAlg::MlDsa44);
    mldsa!(ml_dsa::MlDsa65, KeyAlg::MlDsa65);
    mldsa!(ml_dsa::MlDsa87, KeyAlg::MlDsa87);
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_the_profile_list() {
        let names: Vec<_> = rustcrypto_key_ops().iter().map(|o| o.op()).collect();
        assert_eq!(names, profile::KEY_OPS);
    }

    #[test]
    fn every_op_runs_and_checks() {
        for mut op in rustcrypto_key_ops() {
            for i in 1..3 {
                op.run(i);
                op.check().unwrap_or_else(|e| panic!("{}: {e}", op.op()));
            }
        }
    }

    #[test]
    fn checks_can_fail() {
        // A decapsulation against the wrong ciphertext must be caught by check().
        let mut op = MlKem768Op::new(KemStep::Decaps);
        op.run(1);
        op.ss[0] ^= 1;
        assert!(op.check().is_err());
        let mut agree = X25519Agree {
            peer_sk: StaticSecret::from([1; 32]),
            peer_pk: PublicKey::from(&StaticSecret::from([2; 32])),
            last: None,
        };
        agree.run(1);
        assert!(
            agree.check().is_err(),
            "mismatched peer key must be detected"
        );
    }
}
