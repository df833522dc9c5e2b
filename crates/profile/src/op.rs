//! The name of an operation a profile prices, parsed once where it is read (a profile's
//! `[ops]` keys) and carried as a value: a cipher op `<suite>.seal` / `<suite>.open`, or a
//! constant-cost key op `<algorithm>.<action>` (`x25519.keygen`, `mlkem768.encaps`,
//! `ed25519.sign`): a [`KeyOp`] of a [`KeyAlg`] and one of its [`KeyAction`]s.

use std::fmt;
use std::str::FromStr;

use protocols::Suite;

/// Direction of a cipher operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Encrypt and authenticate (the sender).
    Seal,
    /// Verify and decrypt (the receiver).
    Open,
}

impl Direction {
    /// The action name used in op names: `"seal"` or `"open"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Seal => "seal",
            Direction::Open => "open",
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An operation of a profile.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    /// Sealing or opening with a suite; its cost grows with the protected length.
    Cipher(Suite, Direction),
    /// A key exchange, KEM or signature operation, at a constant cost.
    Key(KeyOp),
}

/// An algorithm whose operations have a constant cost: a key exchange, a KEM or a signature
/// scheme. [`KeyAlg::name`] is the one place its spelling in op names lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyAlg {
    /// X25519 Diffie-Hellman (RFC 7748).
    X25519,
    /// ECDH on NIST P-256.
    EcdhP256,
    /// ML-KEM-512 (FIPS 203).
    MlKem512,
    /// ML-KEM-768 (FIPS 203).
    MlKem768,
    /// ML-KEM-1024 (FIPS 203).
    MlKem1024,
    /// HQC-128.
    Hqc128,
    /// HQC-192.
    Hqc192,
    /// FrodoKEM-640 with AES.
    FrodoKem640Aes,
    /// FrodoKEM-976 with AES.
    FrodoKem976Aes,
    /// Ed25519 signatures (RFC 8032).
    Ed25519,
    /// ECDSA on NIST P-256.
    EcdsaP256,
    /// RSA-2048 signatures (PKCS#1 v1.5, SHA-256).
    Rsa2048,
    /// RSA-3072 signatures (PKCS#1 v1.5, SHA-256).
    Rsa3072,
    /// ML-DSA-44 (FIPS 204).
    MlDsa44,
    /// ML-DSA-65 (FIPS 204).
    MlDsa65,
    /// ML-DSA-87 (FIPS 204).
    MlDsa87,
}

impl KeyAlg {
    /// Every algorithm.
    pub const ALL: [KeyAlg; 16] = [
        KeyAlg::X25519,
        KeyAlg::EcdhP256,
        KeyAlg::MlKem512,
        KeyAlg::MlKem768,
        KeyAlg::MlKem1024,
        KeyAlg::Hqc128,
        KeyAlg::Hqc192,
        KeyAlg::FrodoKem640Aes,
        KeyAlg::FrodoKem976Aes,
        KeyAlg::Ed25519,
        KeyAlg::EcdsaP256,
        KeyAlg::Rsa2048,
        KeyAlg::Rsa3072,
        KeyAlg::MlDsa44,
        KeyAlg::MlDsa65,
        KeyAlg::MlDsa87,
    ];

    /// The name used in op names, e.g. `"mlkem768"`.
    pub fn name(self) -> &'static str {
        match self {
            KeyAlg::X25519 => "x25519",
            KeyAlg::EcdhP256 => "ecdh-p256",
            KeyAlg::MlKem512 => "mlkem512",
            KeyAlg::MlKem768 => "mlkem768",
            KeyAlg::MlKem1024 => "mlkem1024",
            KeyAlg::Hqc128 => "hqc-128",
            KeyAlg::Hqc192 => "hqc-192",
            KeyAlg::FrodoKem640Aes => "frodokem-640-aes",
            KeyAlg::FrodoKem976Aes => "frodokem-976-aes",
            KeyAlg::Ed25519 => "ed25519",
            KeyAlg::EcdsaP256 => "ecdsa-p256",
            KeyAlg::Rsa2048 => "rsa2048",
            KeyAlg::Rsa3072 => "rsa3072",
            KeyAlg::MlDsa44 => "mldsa44",
            KeyAlg::MlDsa65 => "mldsa65",
            KeyAlg::MlDsa87 => "mldsa87",
        }
    }

    /// The actions it has, in the order a profile lists them.
    pub const fn actions(self) -> &'static [KeyAction] {
        use KeyAction::{Agree, Decaps, Encaps, Keygen, Sign, Verify};
        match self {
            KeyAlg::X25519 => &[Keygen, Agree],
            KeyAlg::EcdhP256 => &[Agree],
            KeyAlg::MlKem512
            | KeyAlg::MlKem768
            | KeyAlg::MlKem1024
            | KeyAlg::Hqc128
            | KeyAlg::Hqc192
            | KeyAlg::FrodoKem640Aes
            | KeyAlg::FrodoKem976Aes => &[Keygen, Encaps, Decaps],
            KeyAlg::Ed25519
            | KeyAlg::EcdsaP256
            | KeyAlg::Rsa2048
            | KeyAlg::Rsa3072
            | KeyAlg::MlDsa44
            | KeyAlg::MlDsa65
            | KeyAlg::MlDsa87 => &[Sign, Verify],
        }
    }

    /// Its operation `action`, if it has one ([`KeyOp::new`]).
    pub fn op(self, action: KeyAction) -> Option<KeyOp> {
        KeyOp::new(self, action)
    }
}

impl fmt::Display for KeyAlg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no [`KeyAlg::name`] or [`KeyAction::name`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKeyName(pub String);

impl fmt::Display for UnknownKeyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is no key algorithm or action oransim prices",
            self.0
        )
    }
}

impl std::error::Error for UnknownKeyName {}

impl FromStr for KeyAlg {
    type Err = UnknownKeyName;

    fn from_str(name: &str) -> Result<KeyAlg, UnknownKeyName> {
        KeyAlg::ALL
            .into_iter()
            .find(|a| a.name() == name)
            .ok_or_else(|| UnknownKeyName(name.to_owned()))
    }
}

/// What a constant-cost operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyAction {
    /// Generate a key pair.
    Keygen,
    /// Compute the shared secret from a private key and the peer's public key.
    Agree,
    /// Encapsulate a shared secret to a public key.
    Encaps,
    /// Decapsulate a shared secret with the private key.
    Decaps,
    /// Sign a message.
    Sign,
    /// Verify a signature.
    Verify,
}

impl KeyAction {
    /// Every action.
    pub const ALL: [KeyAction; 6] = [
        KeyAction::Keygen,
        KeyAction::Agree,
        KeyAction::Encaps,
        KeyAction::Decaps,
        KeyAction::Sign,
        KeyAction::Verify,
    ];

    /// The name used in op names, e.g. `"encaps"`.
    pub fn name(self) -> &'static str {
        match self {
            KeyAction::Keygen => "keygen",
            KeyAction::Agree => "agree",
            KeyAction::Encaps => "encaps",
            KeyAction::Decaps => "decaps",
            KeyAction::Sign => "sign",
            KeyAction::Verify => "verify",
        }
    }
}

impl fmt::Display for KeyAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for KeyAction {
    type Err = UnknownKeyName;

    fn from_str(name: &str) -> Result<KeyAction, UnknownKeyName> {
        KeyAction::ALL
            .into_iter()
            .find(|a| a.name() == name)
            .ok_or_else(|| UnknownKeyName(name.to_owned()))
    }
}

/// A constant-cost operation `<algorithm>.<action>` (`mlkem768.encaps`): an action the
/// algorithm has. Ordered as its name is (by algorithm name, then action name), the order in
/// which profiles list their key ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyOp {
    alg: KeyAlg,
    action: KeyAction,
}

impl KeyOp {
    /// The operation `action` of algorithm `alg`, or `None` if the algorithm has no such
    /// action (`KeyOp::new(KeyAlg::X25519, KeyAction::Sign)`).
    pub fn new(alg: KeyAlg, action: KeyAction) -> Option<KeyOp> {
        alg.actions()
            .contains(&action)
            .then_some(KeyOp { alg, action })
    }

    /// The operation `action` of `alg`, for a pair the caller knows the algorithm has
    /// (`KeyOp::of(KeyAlg::MlKem768, KeyAction::Encaps)`); panics if it has no such action, so
    /// in a constant an impossible pair does not compile. [`KeyOp::new`] asks.
    pub const fn of(alg: KeyAlg, action: KeyAction) -> KeyOp {
        let actions = alg.actions();
        let mut i = 0;
        while i < actions.len() {
            if actions[i] as u8 == action as u8 {
                return KeyOp { alg, action };
            }
            i += 1;
        }
        panic!("the algorithm has no such action")
    }

    /// The operation named by `alg` and `action` as written in op names
    /// (`KeyOp::parse("mlkem768", "encaps")`), or `None` if it is no key op.
    pub fn parse(alg: &str, action: &str) -> Option<KeyOp> {
        KeyOp::new(alg.parse().ok()?, action.parse().ok()?)
    }

    /// The algorithm, e.g. [`KeyAlg::MlKem768`].
    pub fn alg(self) -> KeyAlg {
        self.alg
    }

    /// The action, e.g. [`KeyAction::Encaps`].
    pub fn action(self) -> KeyAction {
        self.action
    }

    /// Whether it is a signature operation (`sign`, `verify`).
    pub fn signs(self) -> bool {
        matches!(self.action, KeyAction::Sign | KeyAction::Verify)
    }
}

impl Ord for KeyOp {
    fn cmp(&self, other: &KeyOp) -> std::cmp::Ordering {
        (self.alg.name(), self.action.name()).cmp(&(other.alg.name(), other.action.name()))
    }
}

impl PartialOrd for KeyOp {
    fn partial_cmp(&self, other: &KeyOp) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for KeyOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.alg.name(), self.action.name())
    }
}

impl FromStr for KeyOp {
    type Err = OpNameError;

    /// Reads `<algorithm>.<action>`; anything but a key op oransim prices is refused with
    /// [`OpNameError::UnknownKeyOp`].
    fn from_str(name: &str) -> Result<KeyOp, OpNameError> {
        name.split_once('.')
            .and_then(|(alg, action)| KeyOp::parse(alg, action))
            .ok_or_else(|| OpNameError::UnknownKeyOp {
                name: name.to_owned(),
            })
    }
}

impl Op {
    /// The key op `action` of `alg`, or `None` if the algorithm has no such action
    /// ([`KeyOp::new`]).
    pub fn key(alg: KeyAlg, action: KeyAction) -> Option<Op> {
        KeyOp::new(alg, action).map(Op::Key)
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Cipher(suite, direction) => write!(f, "{suite}.{direction}"),
            Op::Key(k) => k.fmt(f),
        }
    }
}

/// An op name refused by [`Op::from_str`]; its message says what is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpNameError {
    /// `<alg>.seal` or `<alg>.open` where `alg` is no known suite.
    UnknownSuite {
        /// The name as written.
        name: String,
        /// `seal` or `open`.
        action: String,
    },
    /// Not `<algorithm>.<action>` in lowercase.
    Malformed {
        /// The name as written.
        name: String,
    },
    /// A well-formed `<algorithm>.<action>` that is no cipher op and no key op oransim prices.
    UnknownKeyOp {
        /// The name as written.
        name: String,
    },
}

impl fmt::Display for OpNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpNameError::UnknownSuite { name, action } => write!(
                f,
                "`{name}` is a cipher operation of no known suite; `{action}` ops are \
                 `<suite>.{action}` with a suite from: {}",
                Suite::names()
            ),
            OpNameError::Malformed { name } => write!(
                f,
                "`{name}` is not an operation name; expected `<algorithm>.<action>` in \
                 lowercase, e.g. `aes128-gcm.seal`, `aes128-gcm.open`, `mlkem768.encaps`"
            ),
            OpNameError::UnknownKeyOp { name } => {
                write!(
                    f,
                    "`{name}` is no key operation oransim prices; key ops are "
                )?;
                for (i, op) in crate::all_key_ops().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}`{op}`")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for OpNameError {}

impl FromStr for Op {
    type Err = OpNameError;

    /// Reads an op name: `<suite>.seal` / `<suite>.open` with a known suite is a cipher op,
    /// a well-formed `<algorithm>.<action>` of [`crate::all_key_ops`] a key op; the error says
    /// what is allowed.
    fn from_str(name: &str) -> Result<Op, OpNameError> {
        let ok_part = |s: &str| {
            !s.is_empty()
                && s.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
                && s.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        };
        match name.split_once('.') {
            Some((alg, action @ ("seal" | "open"))) if ok_part(alg) => {
                let direction = if action == "seal" {
                    Direction::Seal
                } else {
                    Direction::Open
                };
                alg.parse::<Suite>()
                    .map(|s| Op::Cipher(s, direction))
                    .map_err(|_| OpNameError::UnknownSuite {
                        name: name.to_owned(),
                        action: action.to_owned(),
                    })
            }
            Some((alg, action)) if ok_part(alg) && ok_part(action) => KeyOp::parse(alg, action)
                .map(Op::Key)
                .ok_or_else(|| OpNameError::UnknownKeyOp {
                    name: name.to_owned(),
                }),
            _ => Err(OpNameError::Malformed {
                name: name.to_owned(),
            }),
        }
    }
}
