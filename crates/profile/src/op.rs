//! The name of an operation a profile prices, parsed once where it is read (a profile's
//! `[ops]` keys) and carried as a value: a cipher op `<suite>.seal` / `<suite>.open`, or a
//! constant-cost key op `<algorithm>.<action>` (`x25519.keygen`, `mlkem768.encaps`,
//! `ed25519.sign`).

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

/// A constant-cost operation: `<algorithm>.<action>`, both parts lowercase letters, digits and
/// `-`, starting with a letter or digit.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyOp {
    alg: String,
    action: String,
}

impl KeyOp {
    /// The operation `action` of algorithm `alg` (`KeyOp::new("mlkem768", "encaps")`). The
    /// parts are not checked: a name no profile can hold is simply never found, and the error
    /// lists the operations the profile has. Names read from files go through [`Op::from_str`].
    pub fn new(alg: &str, action: &str) -> KeyOp {
        KeyOp {
            alg: alg.to_owned(),
            action: action.to_owned(),
        }
    }

    /// The algorithm, e.g. `mlkem768`.
    pub fn alg(&self) -> &str {
        &self.alg
    }

    /// The action, e.g. `encaps`.
    pub fn action(&self) -> &str {
        &self.action
    }

    /// Whether it is a signature operation (`sign`, `verify`).
    pub fn signs(&self) -> bool {
        matches!(self.action.as_str(), "sign" | "verify")
    }
}

impl fmt::Display for KeyOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.alg, self.action)
    }
}

impl Op {
    /// The key op `<alg>.<action>` ([`KeyOp::new`]).
    pub fn key(alg: &str, action: &str) -> Op {
        Op::Key(KeyOp::new(alg, action))
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
        }
    }
}

impl std::error::Error for OpNameError {}

impl FromStr for Op {
    type Err = OpNameError;

    /// Reads an op name: `<suite>.seal` / `<suite>.open` with a known suite is a cipher op,
    /// any other well-formed `<algorithm>.<action>` a key op; the error says what is allowed.
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
            Some((alg, action)) if ok_part(alg) && ok_part(action) => Ok(Op::key(alg, action)),
            _ => Err(OpNameError::Malformed {
                name: name.to_owned(),
            }),
        }
    }
}
