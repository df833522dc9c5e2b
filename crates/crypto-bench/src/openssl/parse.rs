//! Parsing `openssl speed -mr` output into each op's points: the `+H:` block sizes, the `+F:`
//! cipher rates, the `+F2`..`+F6` key-op lines, and ESP's CBC + HMAC added up from its parts.

use std::collections::BTreeMap;

use profile::{Direction, Suite};
use protocols::wire::esp;
use protocols::{AES_BLOCK, Sha2};

use super::rates::{cipher_cost, key_line};
use super::{
    ESP_CBC_MAC_EXTRA, HMAC_SHA256, MAX_BLOCK_BYTES, PART_NAMES, max_bytes_per_cycle,
    openssl_names, part_max_bytes_per_cycle, quote, suite_of,
};
use crate::BenchError;

/// Parses `openssl speed -mr` output into (op name -> [(len, ns per op)]): cipher ops from
/// `+H:`/`+F:` pairs, key ops (length 0) from the `+F2`..`+F6` lines of `KEY_LINES` (RSA-2048
/// and -3072, ECDSA P-256, X25519, Ed25519); other asymmetric lines (other curves and sizes,
/// DSA, FFDH, SM2) are skipped. Refused, naming the line: a rate that is not a positive finite
/// number or lies outside what one core can do ([`max_bytes_per_cycle`] at [`MAX_CLOCK_HZ`](super::MAX_CLOCK_HZ),
/// [`MIN_KEY_OP_CYCLES`](super::MIN_KEY_OP_CYCLES)), a block size of 0 or above [`MAX_BLOCK_BYTES`], a second rate for the same op and size (two
/// concatenated runs of one size), and a cipher op measured at one block size only (a fixed
/// and a per-byte cost need two).
pub fn parse(text: &str, origin: &str) -> Result<BTreeMap<String, Vec<(u64, f64)>>, BenchError> {
    parse_named(text, origin).map(|(ops, _)| ops)
}

/// The parts of ESP's CBC + HMAC read, by (OpenSSL name, decryption): (block size \[B\], cost
/// \[ns\], line) each.
type Parts = BTreeMap<(String, bool), Vec<(u64, f64, usize)>>;

/// Points per op, and the `openssl speed` names each cipher op was read from.
type Parsed = (BTreeMap<String, Vec<(u64, f64)>>, BTreeMap<String, String>);

/// [`parse`], also returning the OpenSSL name(s) each cipher op was read from (`AES-128-GCM`,
/// `AES-128-CBC + hmac(sha256)`, ...).
pub(super) fn parse_named(text: &str, origin: &str) -> Result<Parsed, BenchError> {
    let mut r = Reading {
        origin,
        sizes: None,
        direction: Direction::Seal,
        ops: BTreeMap::new(),
        seen: BTreeMap::new(),
        names: BTreeMap::new(),
        parts: BTreeMap::new(),
    };
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim();
        if let Some(d) = line.strip_prefix("# oransim:") {
            r.direction = match d.trim() {
                "decrypt" => Direction::Open,
                "encrypt" => Direction::Seal,
                other => {
                    return Err(r.err(
                        n,
                        format!(
                            "unknown direction `{}`; use `decrypt` or `encrypt`",
                            quote(other)
                        ),
                    ));
                }
            };
        } else if let Some(h) = line.strip_prefix("+H:") {
            r.sizes = Some(r.block_sizes(h, n)?);
        } else if line.starts_with("+F") && !line.starts_with("+F:") {
            for (op, ns) in key_line(line).map_err(|m| r.err(n, m.to_string()))? {
                let op = op.to_string();
                r.check(&op, 0, n)?;
                r.ops.entry(op).or_default().push((0, ns));
            }
        } else if let Some(f) = line.strip_prefix("+F:") {
            r.cipher_line(f, n)?;
        }
    }
    add_cbc_hmac(&r.parts, &mut r.ops, &mut r.names, &mut r.seen).map_err(|(n, m)| r.err(n, m))?;
    if r.ops.is_empty() {
        return Err(r.err(
            0,
            "no `+F:` lines; expected the output of `openssl speed -mr -aead -evp <cipher>` (and `openssl speed -mr ecdhx25519 ...`)".into(),
        ));
    }
    r.check_two_sizes()?;
    Ok((r.ops, r.names))
}

/// What [`parse_named`] has read so far of `openssl speed -mr` output from `origin`.
struct Reading<'o> {
    /// Where the text came from, for errors.
    origin: &'o str,
    /// The block sizes of the last `+H:` line \[B\].
    sizes: Option<Vec<u64>>,
    /// The direction the `# oransim:` comment last set.
    direction: Direction,
    /// Points per op: (block size \[B\], 0 for a key op; cost \[ns\]).
    ops: BTreeMap<String, Vec<(u64, f64)>>,
    /// Where each (op, size) was read.
    seen: BTreeMap<(String, u64), usize>,
    /// The OpenSSL name of each cipher op.
    names: BTreeMap<String, String>,
    /// The parts of ESP's CBC + HMAC by (OpenSSL name, direction): (block size, ns, line).
    parts: Parts,
}

impl Reading<'_> {
    /// The import error at `line` of the text.
    fn err(&self, line: usize, message: String) -> BenchError {
        BenchError::Import {
            origin: self.origin.to_string(),
            line,
            message,
        }
    }

    /// Records that `op` at `len` \[B\] was read on line `n`; a second rate for the same op
    /// and size is refused.
    fn check(&mut self, op: &str, len: u64, n: usize) -> Result<(), BenchError> {
        if let Some(first) = self.seen.insert((op.to_owned(), len), n) {
            let at = if len == 0 {
                String::new()
            } else {
                format!(" at {len} B")
            };
            return Err(self.err(
                n,
                format!(
                    "a second rate for {op}{at} (the first is on line {first}); concatenate runs of different block sizes only, one rate per op and size"
                ),
            ));
        }
        Ok(())
    }

    /// The block sizes \[B\] of a `+H:` line `h` (line `n`), each from 1 B to
    /// [`MAX_BLOCK_BYTES`].
    fn block_sizes(&self, h: &str, n: usize) -> Result<Vec<u64>, BenchError> {
        let parsed: Result<Vec<u64>, _> = h.split(':').map(|s| s.trim().parse()).collect();
        let parsed = parsed.map_err(|_| {
            self.err(
                n,
                format!("`+H:` must list block sizes in bytes, found `{}`", quote(h)),
            )
        })?;
        if let Some(bad) = parsed.iter().find(|&&l| l == 0 || l > MAX_BLOCK_BYTES) {
            return Err(self.err(
                n,
                format!(
                    "block size {bad} B in `+H:`; allowed: 1 B to {MAX_BLOCK_BYTES} B (16 MiB)"
                ),
            ));
        }
        Ok(parsed)
    }

    /// A `+F:` line `f` (line `n`): a suite's rates at the `+H:` sizes above become its cipher
    /// op's points \[ns\]; a part of ESP's CBC + HMAC (AES-CBC, HMAC) is kept for
    /// [`add_cbc_hmac`].
    fn cipher_line(&mut self, f: &str, n: usize) -> Result<(), BenchError> {
        let fields: Vec<&str> = f.split(':').collect();
        if fields.len() < 3 {
            return Err(self.err(
                n,
                "`+F:` line needs an index, a cipher name and rates".into(),
            ));
        }
        let name = fields[1];
        let part = PART_NAMES
            .iter()
            .find(|(o, _)| o.eq_ignore_ascii_case(name))
            .copied();
        let suite = suite_of(name);
        if suite.is_none() && part.is_none() {
            let known: Vec<_> = openssl_names()
                .into_iter()
                .map(|(o, _)| o)
                .chain(PART_NAMES.iter().map(|(o, _)| *o))
                .collect();
            return Err(self.err(
                n,
                format!(
                    "cipher `{}` has no oransim suite; known: {}",
                    quote(name),
                    known.join(", ")
                ),
            ));
        }
        let sizes = self
            .sizes
            .clone()
            .ok_or_else(|| self.err(n, "`+F:` line before any `+H:` line of block sizes".into()))?;
        let rates = &fields[2..];
        if rates.len() != sizes.len() {
            return Err(self.err(
                n,
                format!(
                    "{} rates for {} block sizes in the `+H:` line above",
                    rates.len(),
                    sizes.len()
                ),
            ));
        }
        let direction = self.direction;
        if let Some((part, aes)) = part {
            // HMAC has no direction: verifying computes the same HMAC.
            let open = aes.is_some() && direction == Direction::Open;
            let ceiling = part_max_bytes_per_cycle(aes, direction);
            let key = format!("{part}{}", if open { " -decrypt" } else { "" });
            for (&len, rate) in sizes.iter().zip(rates) {
                let ns = cipher_cost(name, ceiling, len, rate)
                    .map_err(|m| self.err(n, m.to_string()))?;
                self.check(&key, len, n)?;
                self.parts
                    .entry((part.to_owned(), open))
                    .or_default()
                    .push((len, ns, n));
            }
            return Ok(());
        }
        let suite = suite.expect("a suite or a part: checked above");
        let op = profile::Op::Cipher(suite, direction).to_string();
        self.names
            .entry(op.clone())
            .or_insert_with(|| name.to_owned());
        for (&len, rate) in sizes.iter().zip(rates) {
            let ns = cipher_cost(name, max_bytes_per_cycle(suite), len, rate)
                .map_err(|m| self.err(n, m.to_string()))?;
            self.check(&op, len, n)?;
            self.ops.entry(op.clone()).or_default().push((len, ns));
        }
        Ok(())
    }

    /// Sorts each op's points by size and refuses a cipher op read at one size only: a fixed
    /// and a per-byte cost need two.
    fn check_two_sizes(&mut self) -> Result<(), BenchError> {
        for (op, pts) in self.ops.iter_mut() {
            pts.sort_by_key(|p| p.0);
            if let [(len, _)] = pts.as_slice()
                && let Some(name) = self.names.get(op)
            {
                let line = self.seen.get(&(op.clone(), *len)).copied().unwrap_or(0);
                let what = if op.ends_with(".open") {
                    " -decrypt"
                } else {
                    ""
                };
                let message = if name.contains(" + ") {
                    format!(
                        "{op} ({name}) has a rate at one payload size only ({len} B): a fixed and a per-byte cost need at least two sizes; add an AES-CBC run at another block size C (a multiple of 16 B) and `openssl speed -mr -bytes C+{ESP_CBC_MAC_EXTRA} -hmac sha256`"
                    )
                } else {
                    format!(
                        "{op} ({name}) has a rate at one block size only ({len} B): a fixed and a per-byte cost need at least two sizes; add a run at another size, e.g. `openssl speed -mr -aead{what} -bytes 64 -evp {}`, or run the default sizes (no -bytes)",
                        name.to_ascii_lowercase()
                    )
                };
                return Err(BenchError::Import {
                    origin: self.origin.to_string(),
                    line,
                    message,
                });
            }
        }
        Ok(())
    }
}

/// Adds ESP's AES-CBC + HMAC-SHA-256 ops up from their parts: an AES-CBC rate at block size C
/// (a multiple of 16 B) plus the HMAC-SHA-256 rate at C + [`ESP_CBC_MAC_EXTRA`] is the cost of
/// the op at payload C - 2 B (payload and the 2-byte ESP trailer fill C with no padding).
/// Refused (line, message): a CBC block size that is no multiple of 16 B or has no HMAC rate
/// beside it, and HMAC rates with no AES-CBC rate to add them to.
fn add_cbc_hmac(
    parts: &Parts,
    ops: &mut BTreeMap<String, Vec<(u64, f64)>>,
    names: &mut BTreeMap<String, String>,
    seen: &mut BTreeMap<(String, u64), usize>,
) -> Result<(), (usize, String)> {
    let hmac: BTreeMap<u64, f64> = parts
        .get(&(HMAC_SHA256.to_owned(), false))
        .map(|p| p.iter().map(|&(l, ns, _)| (l, ns)).collect())
        .unwrap_or_default();
    let mut used = false;
    for ((name, open), pts) in parts {
        let Some(aes) = PART_NAMES
            .iter()
            .find(|(o, _)| o == name)
            .and_then(|(_, a)| *a)
        else {
            continue;
        };
        let direction = if *open {
            Direction::Open
        } else {
            Direction::Seal
        };
        let flag = if *open { " -decrypt" } else { "" };
        let op = profile::Op::Cipher(
            Suite::AesCbcHmac {
                aes,
                sha: Sha2::Sha256,
            },
            direction,
        )
        .to_string();
        for &(c, ns, n) in pts {
            let block = AES_BLOCK as u64;
            if c % block != 0 || c < block {
                return Err((
                    n,
                    format!(
                        "{name} at {c} B: ESP pads the payload and its 2-byte trailer to the 16-byte AES block, so a CBC block size must be a multiple of 16 B (e.g. {} B)",
                        c.div_ceil(block).max(1) * block
                    ),
                ));
            }
            let mac_len = c + ESP_CBC_MAC_EXTRA;
            let Some(mac) = hmac.get(&mac_len) else {
                return Err((
                    n,
                    format!(
                        "{name}{flag} at {c} B has no {HMAC_SHA256} rate at {mac_len} B beside it (ESP's HMAC covers the 8-byte header, the 16-byte IV and the {c} B of ciphertext); add `openssl speed -mr -bytes {mac_len} -hmac sha256`"
                    ),
                ));
            };
            used = true;
            let payload = c - esp::TRAILER_LEN as u64;
            if let Some(first) = seen.insert((op.clone(), payload), n) {
                return Err((
                    n,
                    format!(
                        "a second rate for {op} at {payload} B (the first is on line {first}); concatenate runs of different block sizes only, one rate per op and size"
                    ),
                ));
            }
            names
                .entry(op.clone())
                .or_insert_with(|| format!("{name}{flag} + {HMAC_SHA256}"));
            ops.entry(op.clone()).or_default().push((payload, ns + mac));
        }
    }
    if !used && let Some(first) = parts.get(&(HMAC_SHA256.to_owned(), false)) {
        return Err((
            first[0].2,
            format!(
                "{HMAC_SHA256} rates are read only to add up ESP's AES-CBC + HMAC-SHA-256, and there are no AES-128-CBC or AES-256-CBC rates; add `openssl speed -mr -bytes C -evp aes-128-cbc` at block sizes C {ESP_CBC_MAC_EXTRA} B below the HMAC's"
            ),
        ));
    }
    Ok(())
}
