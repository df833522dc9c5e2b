//! HQC-128/192 and FrodoKEM-640/976-AES from PQClean (portable C, through the `pqcrypto-hqc` and
//! `pqcrypto-frodo` crates), for the hybrid IKEv2 key exchanges of Otero-García et al. (RFC 9370:
//! X25519 plus one of these KEMs). Built only with the `pqclean` feature.
//!
//! These are PQClean's portable implementations (HQC: `clean`; FrodoKEM: `opt` with portable
//! AES), slower than the AVX2 / AES-NI code liboqs ships, so a profile measured with them
//! overstates what strongSwan with liboqs would spend. Key generation and encapsulation draw
//! their randomness from the operating system inside PQClean; that is part of the measured cost.

use std::hint::black_box;

use pqcrypto_traits::kem::SharedSecret as _;

use profile::{KeyAction, KeyAlg};

use crate::keyops::KeyOp;

/// Which step of a KEM an op times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Keygen,
    Encaps,
    Decaps,
}

macro_rules! pqclean_kem {
    ($add:ident, $m:path, $alg:expr) => {
        fn $add(ops: &mut Vec<Box<dyn KeyOp>>) {
            use $m as m;
            struct Op {
                step: Step,
                op: profile::KeyOp,
                pk: m::PublicKey,
                sk: m::SecretKey,
                ct: m::Ciphertext,
                ss: m::SharedSecret,
                keys: Option<(m::PublicKey, m::SecretKey)>,
                enc: Option<(m::SharedSecret, m::Ciphertext)>,
                dec: Option<m::SharedSecret>,
            }
            impl KeyOp for Op {
                fn op(&self) -> profile::KeyOp {
                    self.op
                }
                fn implementation(&self) -> &'static str {
                    "pqclean"
                }
                fn run(&mut self, _i: u64) {
                    match self.step {
                        Step::Keygen => self.keys = Some(black_box(m::keypair())),
                        Step::Encaps => self.enc = Some(black_box(m::encapsulate(black_box(&self.pk)))),
                        Step::Decaps => {
                            self.dec = Some(black_box(m::decapsulate(
                                black_box(&self.ct),
                                black_box(&self.sk),
                            )))
                        }
                    }
                }
                fn check(&mut self) -> Result<(), $crate::keyops::CheckFailed> {
                    let same = |a: &m::SharedSecret, b: &m::SharedSecret| a.as_bytes() == b.as_bytes();
                    match self.step {
                        Step::Keygen => {
                            let (pk, sk) = self.keys.as_ref().ok_or("never ran")?;
                            let (ss, ct) = m::encapsulate(pk);
                            same(&m::decapsulate(&ct, sk), &ss)
                                .then_some(())
                                .ok_or_else(|| "the generated key pair does not decapsulate what it encapsulates".into())
                        }
                        Step::Encaps => {
                            let (ss, ct) = self.enc.as_ref().ok_or("never ran")?;
                            same(&m::decapsulate(ct, &self.sk), ss)
                                .then_some(())
                                .ok_or_else(|| "decapsulation does not give the encapsulated secret".into())
                        }
                        Step::Decaps => {
                            let ss = self.dec.as_ref().ok_or("never ran")?;
                            same(ss, &self.ss)
                                .then_some(())
                                .ok_or_else(|| "decapsulation does not give the encapsulated secret".into())
                        }
                    }
                }
            }
            let (pk, sk) = m::keypair();
            let (ss, ct) = m::encapsulate(&pk);
            for (step, action) in [
                (Step::Keygen, KeyAction::Keygen),
                (Step::Encaps, KeyAction::Encaps),
                (Step::Decaps, KeyAction::Decaps),
            ] {
                ops.push(Box::new(Op {
                    step,
                    op: profile::KeyOp::of($alg, action),
                    pk,
                    sk,
                    ct,
                    ss,
                    keys: None,
                    enc: None,
                    dec: None,
                }));
            }
        }
    };
}

pqclean_kem!(hqc128, pqcrypto_hqc::hqc128, KeyAlg::Hqc128);
pqclean_kem!(hqc192, pqcrypto_hqc::hqc192, KeyAlg::Hqc192);
pqclean_kem!(
    frodo640,
    pqcrypto_frodo::frodokem640aes,
    KeyAlg::FrodoKem640Aes
);
pqclean_kem!(
    frodo976,
    pqcrypto_frodo::frodokem976aes,
    KeyAlg::FrodoKem976Aes
);

/// The PQClean KEM operations (12: keygen, encaps and decaps of four parameter sets).
pub(crate) fn key_ops() -> Vec<Box<dyn KeyOp>> {
    let mut ops = Vec::new();
    hqc128(&mut ops);
    hqc192(&mut ops);
    frodo640(&mut ops);
    frodo976(&mut ops);
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pqclean_ops_run_check_and_are_named_in_the_profile_list() {
        let ops = key_ops();
        assert_eq!(ops.len(), 12);
        for mut op in ops {
            assert!(profile::OPTIONAL_KEY_OPS.contains(&op.op()), "{}", op.op());
            assert!(op.check().is_err(), "{}: checked before running", op.op());
            op.run(1);
            op.check().unwrap_or_else(|e| panic!("{}: {e}", op.op()));
        }
    }
}
