//! Key-exchange methods and the bytes each side sends: classical groups and ML-KEM from their
//! standards, other KEMs from `data/kem_sizes.json`, which cites a source for every entry.

#![deny(clippy::arithmetic_side_effects)]

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::error::{Error, Input};
use crate::names::norm;

/// A key-exchange method with the sizes of what each side sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kem {
    /// Name, e.g. `mlkem768`.
    pub name: String,
    /// Bytes the initiator sends: DH public value or KEM encapsulation key \[bytes\].
    pub initiator: usize,
    /// Bytes the responder sends: DH public value or KEM ciphertext \[bytes\].
    pub responder: usize,
    /// NIST security category, where one is defined.
    #[serde(default)]
    pub nist_level: Option<u8>,
    /// IANA IKEv2 Transform Type 4 (Key Exchange Method) number, if assigned.
    #[serde(default)]
    pub ike_id: Option<u16>,
    /// Where the sizes come from.
    pub source: String,
}

fn builtin() -> Vec<Kem> {
    let k = |name: &str, i, r, level, id, source: &str| Kem {
        name: name.into(),
        initiator: i,
        responder: r,
        nist_level: level,
        ike_id: Some(id),
        source: source.into(),
    };
    vec![
        k(
            "modp2048",
            256,
            256,
            None,
            14,
            "RFC 3526 §3: 2048-bit MODP group, g^x mod p padded to 256 bytes (RFC 7296 §3.4)",
        ),
        k(
            "modp3072",
            384,
            384,
            None,
            15,
            "RFC 3526 §4: 3072-bit MODP group, 384 bytes",
        ),
        k(
            "ecp256",
            64,
            64,
            None,
            19,
            "RFC 5903 §7: x || y, 32 + 32 bytes",
        ),
        k(
            "ecp384",
            96,
            96,
            None,
            20,
            "RFC 5903 §7: x || y, 48 + 48 bytes",
        ),
        k(
            "x25519",
            32,
            32,
            None,
            31,
            "RFC 8031 §3.1: 32-byte Curve25519 public value",
        ),
        k(
            "x448",
            56,
            56,
            None,
            32,
            "RFC 8031 §3.1: 56-byte Curve448 public value",
        ),
        k(
            "mlkem512",
            800,
            768,
            Some(1),
            35,
            "FIPS 203 Table 3: ML-KEM-512 encapsulation key 800, ciphertext 768",
        ),
        k(
            "mlkem768",
            1184,
            1088,
            Some(3),
            36,
            "FIPS 203 Table 3: ML-KEM-768 encapsulation key 1184, ciphertext 1088",
        ),
        k(
            "mlkem1024",
            1568,
            1568,
            Some(5),
            37,
            "FIPS 203 Table 3: ML-KEM-1024 encapsulation key 1568, ciphertext 1568",
        ),
    ]
}

#[derive(Deserialize)]
struct Table {
    kems: Vec<Kem>,
}

/// Every known key-exchange method: built-in ones, then the data file's.
pub(crate) fn all() -> Result<&'static [Kem]> {
    static ALL: OnceLock<Result<Vec<Kem>>> = OnceLock::new();
    ALL.get_or_init(|| {
        let table: Table = serde_json::from_str(include_str!("../data/kem_sizes.json"))
            .map_err(|e| Error::KemTable(e.to_string()))?;
        let mut v = builtin();
        v.extend(table.kems);
        Ok(v)
    })
    .as_deref()
    .map_err(Clone::clone)
}

/// Names accepted by [`find`].
pub(crate) fn names() -> Result<String> {
    Ok(all()?
        .iter()
        .map(|k| k.name.as_str())
        .collect::<Vec<_>>()
        .join(", "))
}

/// Looks a method up by name (case, `-` and `_` ignored: `ML-KEM-768` = `mlkem768`).
pub(crate) fn find(name: &str) -> Result<&'static Kem> {
    let n = norm(name);
    let n = match n.as_str() {
        "curve25519" => "x25519".to_string(),
        "curve448" => "x448".to_string(),
        "ecp256r1" | "p256" | "secp256r1" => "ecp256".to_string(),
        _ => n,
    };
    all()?
        .iter()
        .find(|k| norm(&k.name) == n)
        .ok_or_else(|| Error::UnknownName {
            what: Input::KeyExchange,
            name: name.into(),
            allowed: names().unwrap_or_default()
                + "; hybrids join methods with `+`, e.g. x25519+mlkem768",
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_loads_and_every_entry_cites_a_source() {
        let all = all().unwrap();
        assert!(all.len() >= 20);
        assert!(
            all.iter()
                .all(|k| !k.source.is_empty() && k.initiator > 0 && k.responder > 0)
        );
        assert_eq!(find("ML-KEM-768").unwrap().initiator, 1184);
        assert_eq!(find("hqc-128").unwrap().responder, 4433);
        let e = find("kyber9000").unwrap_err().to_string();
        assert!(
            e.contains("mlkem1024") && e.contains("frodokem-640-aes"),
            "{e}"
        );
    }
}
