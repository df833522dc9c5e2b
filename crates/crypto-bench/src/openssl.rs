//! Imports the machine-readable output of `openssl speed -mr` as a profile, so a user can
//! calibrate a target CPU that has OpenSSL but no Rust toolchain: the AEAD ciphers
//! (`-aead -evp <cipher>`), ESP's AES-CBC + HMAC-SHA-256 added up from its parts (`-evp
//! aes-128-cbc` and `-hmac sha256`, see [`ESP_CBC_MAC_EXTRA`]), GMAC-AES-128 from the lines
//! `scripts/openssl-gmac.c` prints in the same format, and the key exchange and signatures OpenSSL measures (`ecdhx25519`,
//! `ecdhp256`, `ecdsap256`, `ed25519`, `rsa2048`, `rsa3072`; see [`parse`]). OpenSSL 3.0 measures no
//! ML-KEM or ML-DSA, so a profile imported from it has none: `plan kex` with those refuses
//! and says so.
//!
//! `openssl speed -mr` prints, per cipher, a header of block sizes and a line of throughputs
//! \[bytes/s\], e.g.
//!
//! ```text
//! +H:16:64:256:1024:8192:16384
//! +F:25:AES-128-GCM:51313712.00:201496371.72:730739712.00:2215831552.00:5847769088.00:6679199744.00
//! ```
//!
//! Several runs (for instance `-bytes 1500` and `-bytes 9000` runs beside the default sizes)
//! may be concatenated; their points merge. `openssl speed` times one direction: encryption,
//! or decryption when run with `-decrypt`. A line `# oransim: decrypt` (or `# oransim: encrypt`)
//! in the input says which direction the following blocks measured; without it all blocks are
//! taken as encryption and the profile's `open` costs are set equal to `seal`, saying so.

use std::collections::BTreeMap;

use profile::file::{
    CoresFile, CostFile, NodeFile, OffloadFile, OpFile, PointFile, ProfileFile, ProfileMeta,
};
use profile::units::{format_duration_ns, format_len_bytes, format_per_byte_ns};
use profile::{Direction, Suite};
use protocols::suite::AES_BLOCK;
use protocols::wire::esp;
use protocols::{AesKey, Sha2};

use crate::BenchError;
use crate::fit::{MAX_LINE_RESIDUAL, fit_line};

/// OpenSSL EVP cipher names (as printed by `openssl speed -mr`, [`Suite::openssl_name`]) and
/// the suite each measures, AEADs and GMAC before CBC + HMAC (the order refusals list them in).
fn openssl_names() -> Vec<(&'static str, Suite)> {
    let mut v: Vec<_> = Suite::ALL
        .into_iter()
        .filter_map(|s| s.openssl_name().map(|n| (n, s)))
        .collect();
    v.sort_by_key(|(_, s)| matches!(s, Suite::AesCbcHmac { .. }));
    v
}

/// The parts of ESP's AES-CBC + HMAC-SHA-256 (RFC 4303, RFC 3602, RFC 4868) that `openssl
/// speed` times separately (`-evp aes-128-cbc`, `-evp aes-256-cbc`, `-hmac sha256`), by the
/// name it prints; [`parse`] adds them up into the `aes128-cbc-hmac-sha256` and
/// `aes256-cbc-hmac-sha256` ops.
const PART_NAMES: &[(&str, Option<AesKey>)] = &[
    ("AES-128-CBC", Some(AesKey::Aes128)),
    ("AES-256-CBC", Some(AesKey::Aes256)),
    (HMAC_SHA256, None),
];

/// The name `openssl speed -mr -hmac sha256` prints.
const HMAC_SHA256: &str = "hmac(sha256)";

/// What ESP's HMAC covers besides the ciphertext \[B\]: the 8-byte ESP header and the 16-byte
/// CBC IV (RFC 4303 §2, RFC 3602 §3). An AES-CBC rate at block size C is added to the
/// HMAC-SHA-256 rate at C + 24 B.
pub const ESP_CBC_MAC_EXTRA: u64 = (esp::HEADER_LEN + AES_BLOCK) as u64;

/// The most bytes one core can process per cycle with one part of ESP's CBC + HMAC, and why.
fn part_max_bytes_per_cycle(aes: Option<AesKey>, direction: Direction) -> (f64, &'static str) {
    match (aes, direction) {
        (None, _) => max_bytes_per_cycle(Suite::AesCbcHmac {
            aes: AesKey::Aes128,
            sha: Sha2::Sha256,
        }),
        (Some(AesKey::Aes128), Direction::Seal) => (
            1.6,
            "CBC encryption chains every 16-byte block through AES-128's 10 dependent rounds, at least one cycle each",
        ),
        (Some(AesKey::Aes256), Direction::Seal) => (
            16.0 / 14.0,
            "CBC encryption chains every 16-byte block through AES-256's 14 dependent rounds, at least one cycle each",
        ),
        (Some(_), Direction::Open) => max_bytes_per_cycle(Suite::Aes128Gcm),
    }
}

/// One kind of asymmetric `openssl speed -mr` line and the key ops it gives.
struct KeyLine {
    /// Line prefix: `+F2` RSA (sign, verify per second), `+F4` ECDSA (sign, verify), `+F5`
    /// ECDH (derive per second), `+F6` EdDSA (named; sign, verify).
    kind: &'static str,
    /// OpenSSL's curve index, when the bits alone do not tell the curve; `None`: any.
    index: Option<&'static str>,
    /// Key size \[bits\] as printed.
    bits: &'static str,
    /// The algorithm name `+F6` lines print; `None` for the others.
    name: Option<&'static str>,
    /// The ops of the rates in order; `""` for a rate not imported.
    ops: [&'static str; 2],
}

/// The key ops this import reads. P-256 is ECDSA and ECDH curve 3 in OpenSSL 1.1.1 and 3.x
/// (brainpool P-256 has 256 bits too); X25519 is the only 253-bit ECDH curve.
const KEY_LINES: &[KeyLine] = &[
    KeyLine {
        kind: "+F2",
        index: None,
        bits: "2048",
        name: None,
        ops: ["rsa2048.sign", "rsa2048.verify"],
    },
    KeyLine {
        kind: "+F2",
        index: None,
        bits: "3072",
        name: None,
        ops: ["rsa3072.sign", "rsa3072.verify"],
    },
    KeyLine {
        kind: "+F4",
        index: Some("3"),
        bits: "256",
        name: None,
        ops: ["ecdsa-p256.sign", "ecdsa-p256.verify"],
    },
    KeyLine {
        kind: "+F5",
        index: Some("3"),
        bits: "256",
        name: None,
        ops: ["ecdh-p256.agree", ""],
    },
    KeyLine {
        kind: "+F5",
        index: None,
        bits: "253",
        name: None,
        ops: ["x25519.agree", ""],
    },
    KeyLine {
        kind: "+F6",
        index: None,
        bits: "253",
        name: Some("Ed25519"),
        ops: ["ed25519.sign", "ed25519.verify"],
    },
];

/// The `openssl speed` arguments that measure every key op this import reads.
pub const OPENSSL_KEY_ARGS: &str = "ecdhx25519 ecdsap256 ed25519 rsa2048 rsa3072";

/// The fastest clock one core runs at \[Hz\]: 6.5 GHz, above every shipping CPU's highest boost
/// clock (6.2 GHz, Intel Core i9-14900KS, 2024). A rate is checked against what a core could do
/// at this clock.
pub const MAX_CLOCK_HZ: f64 = 6.5e9;

/// The fewest operations per second an imported rate may mean \[1/s\]: one every 10 s.
/// `openssl speed` counts whole operations over a few seconds (3 s by default); a rate below
/// this is not a measured one (a 16 KiB AES block or an RSA-3072 signature takes well under a
/// second even on a 100 MHz microcontroller).
pub const MIN_OPS_PER_S: f64 = 0.1;

/// The fewest cycles one imported key operation may take: 1,000. The cheapest op read (an
/// RSA-2048 verification with e = 65537) is 17 modular multiplications of 2048-bit numbers,
/// each over 1,000 64-bit multiplies, so over 8,000 cycles on a core that multiplies twice
/// per cycle: at [`MAX_CLOCK_HZ`] a key op faster than 6.5 million per second is refused.
pub const MIN_KEY_OP_CYCLES: f64 = 1000.0;

/// The largest block size an `+H:` line may give \[B\]: 16 MiB (`openssl speed`'s default
/// sizes end at 16 KiB; a packet is at most 1 MiB).
pub const MAX_BLOCK_BYTES: u64 = 16 << 20;

/// The most bytes one core can process per cycle with `suite`, and why: the ceiling on an
/// imported one-core rate is this times [`MAX_CLOCK_HZ`].
pub fn max_bytes_per_cycle(suite: Suite) -> (f64, &'static str) {
    match suite {
        Suite::AesCbcHmac { .. } => (
            1.0,
            "SHA-256 chains 64 dependent rounds through every 64-byte block, at least one cycle each",
        ),
        Suite::Aes128Ccm => (
            1.6,
            "CCM's CBC-MAC chains every 16-byte block through AES-128's 10 dependent rounds, at least one cycle each",
        ),
        Suite::Aes256Ccm => (
            16.0 / 14.0,
            "CCM's CBC-MAC chains every 16-byte block through AES-256's 14 dependent rounds, at least one cycle each",
        ),
        Suite::Copy
        | Suite::Aes128Gcm
        | Suite::Aes256Gcm
        | Suite::ChaCha20Poly1305
        | Suite::Gmac { .. } => (
            16.0,
            "several times the fastest published one-core AEAD rates, about 5 bytes per cycle with 512-bit vector AES",
        ),
    }
}

/// The largest block of offending text an error quotes \[chars\].
const QUOTE_CHARS: usize = 40;

/// `text` cut to [`QUOTE_CHARS`] characters, marked when cut.
fn quote(text: &str) -> String {
    let t = text.trim();
    if t.chars().count() <= QUOTE_CHARS {
        t.to_string()
    } else {
        format!("{}...", t.chars().take(QUOTE_CHARS).collect::<String>())
    }
}

/// Formats a rate \[1/s or B/s\] with an SI prefix, e.g. `6.5 G`.
fn si(x: f64) -> String {
    let (v, p) = if x >= 1e9 {
        (x / 1e9, "G")
    } else if x >= 1e6 {
        (x / 1e6, "M")
    } else if x >= 1e3 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    format!("{} {p}", (v * 100.0).round() / 100.0)
}

/// What a `-multi` or `-mb` run may explain in a rate above one core's ceiling.
const NOT_ONE_CORE: &str = "`openssl speed -multi N` sums N processes and `-mb` interleaves several streams: import a one-process run without them and give the target's cores with --cores";

/// Key ops from one asymmetric `+F2`..`+F6` line: (op, cost \[ns\]) pairs; empty for a curve or
/// size oransim has no op for (e.g. `openssl speed ecdsa` prints every curve). Each rate must
/// be a finite number of operations per second from [`MIN_OPS_PER_S`] to [`MAX_CLOCK_HZ`] /
/// [`MIN_KEY_OP_CYCLES`].
fn key_line(line: &str) -> Result<Vec<(&'static str, f64)>, String> {
    let fields: Vec<&str> = line.split(':').collect();
    let Some(k) = KEY_LINES.iter().find(|k| {
        fields[0] == k.kind
            && fields.len() > 2
            && k.index.is_none_or(|i| fields[1] == i)
            && fields[2] == k.bits
            && k.name
                .is_none_or(|n| fields.get(3).is_some_and(|f| f.eq_ignore_ascii_case(n)))
    }) else {
        return Ok(Vec::new());
    };
    let ops = k.ops;
    let rates = &fields[if k.name.is_some() { 4 } else { 3 }..];
    let max = MAX_CLOCK_HZ / MIN_KEY_OP_CYCLES;
    let mut out = Vec::new();
    for (op, rate) in ops.iter().zip(rates).filter(|(op, _)| !op.is_empty()) {
        let shown = quote(rate);
        let per_s: f64 = rate.trim().parse().map_err(|_| {
            format!("rate `{shown}` of {op} is not a number of operations per second")
        })?;
        if !per_s.is_finite() || per_s <= 0.0 {
            return Err(format!(
                "rate `{shown}` of {op} is not a positive finite number of operations per second"
            ));
        }
        if per_s < MIN_OPS_PER_S {
            return Err(format!(
                "rate `{shown}` of {op} is below {MIN_OPS_PER_S} operations per second (one every 10 s): not a rate openssl speed measures; allowed: {MIN_OPS_PER_S} to {} operations per second",
                si(max)
            ));
        }
        if per_s > max {
            return Err(format!(
                "rate `{shown}` of {op} is above one core's ceiling of {} operations per second (at least {MIN_KEY_OP_CYCLES} cycles per key operation at {} GHz); {NOT_ONE_CORE}",
                si(max),
                MAX_CLOCK_HZ / 1e9
            ));
        }
        out.push((*op, 1e9 / per_s));
    }
    if out.len() != ops.iter().filter(|o| !o.is_empty()).count() {
        return Err(format!(
            "`{}` line with too few rates for {}",
            quote(fields[0]),
            ops.join(" and ").trim_end_matches(" and ")
        ));
    }
    Ok(out)
}

fn suite_of(openssl_name: &str) -> Option<Suite> {
    Suite::ALL.into_iter().find(|s| {
        s.openssl_name()
            .is_some_and(|o| o.eq_ignore_ascii_case(openssl_name))
    })
}

/// Checks one cipher rate `rate` (text) at block size `len` \[B\] of `name` and returns the
/// cost of one operation \[ns\]: a finite rate, at most one core's ceiling
/// ([`max_bytes_per_cycle`] at [`MAX_CLOCK_HZ`]), at least [`MIN_OPS_PER_S`] blocks per second.
fn cipher_cost(
    name: &str,
    (per_cycle, why): (f64, &str),
    len: u64,
    rate: &str,
) -> Result<f64, String> {
    let shown = quote(rate);
    let bps: f64 = rate
        .trim()
        .parse()
        .map_err(|_| format!("rate `{shown}` at {len} B is not a number of bytes per second"))?;
    if !bps.is_finite() || bps <= 0.0 {
        return Err(format!(
            "rate `{shown}` at {len} B is not a positive finite number of bytes per second"
        ));
    }
    let ceiling = per_cycle * MAX_CLOCK_HZ;
    let floor = MIN_OPS_PER_S * len as f64;
    if bps > ceiling {
        return Err(format!(
            "rate `{shown}` B/s for {name} at {len} B is above one core's ceiling of {}B/s ({} B per cycle at {} GHz: {why}); {NOT_ONE_CORE}",
            si(ceiling),
            (per_cycle * 100.0).round() / 100.0,
            MAX_CLOCK_HZ / 1e9
        ));
    }
    if bps < floor {
        return Err(format!(
            "rate `{shown}` B/s for {name} at {len} B is below {MIN_OPS_PER_S} blocks per second (one every 10 s): not a rate openssl speed measures; allowed: {}B/s to {}B/s at this size",
            si(floor),
            si(ceiling)
        ));
    }
    Ok(1e9 * len as f64 / bps)
}

/// Parses `openssl speed -mr` output into (op name -> [(len, ns per op)]): cipher ops from
/// `+H:`/`+F:` pairs, key ops (length 0) from the `+F2`..`+F6` lines of `KEY_LINES` (RSA-2048
/// and -3072, ECDSA P-256, X25519, Ed25519); other asymmetric lines (other curves and sizes,
/// DSA, FFDH, SM2) are skipped. Refused, naming the line: a rate that is not a positive finite
/// number or lies outside what one core can do ([`max_bytes_per_cycle`] at [`MAX_CLOCK_HZ`],
/// [`MIN_KEY_OP_CYCLES`]), a block size of 0 or above [`MAX_BLOCK_BYTES`], a second rate for the same op and size (two
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
fn parse_named(text: &str, origin: &str) -> Result<Parsed, BenchError> {
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
            for (op, ns) in key_line(line).map_err(|m| r.err(n, m))? {
                r.check(op, 0, n)?;
                r.ops.entry(op.to_owned()).or_default().push((0, ns));
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
                let ns = cipher_cost(name, ceiling, len, rate).map_err(|m| self.err(n, m))?;
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
                .map_err(|m| self.err(n, m))?;
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

/// What `openssl speed` cannot tell about the target, given on the command line.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// The target's cores (`openssl speed` runs one thread); `None`: 1, and the profile says
    /// to set it.
    pub cores: Option<u32>,
    /// The per-packet I/O cost measured on the target (`oransim calibrate --from-openssl-speed
    /// FILE --measure-io`); `None`: absent (`0ns`, and the profile says how to measure it).
    pub io: Option<crate::io::LoopbackIo>,
}

/// The `source` of an absent per-packet cost: what to run to measure it.
pub const ABSENT_IO: &str = "not measured: openssl speed measures no per-packet cost; measure it on the target with `oransim calibrate --from-openssl-speed FILE --measure-io`";

/// Builds a profile (kind `imported`, implementation `openssl`) from `openssl speed -mr` text
/// and the target facts in `opts`.
pub fn import(
    text: &str,
    origin: &str,
    name: &str,
    opts: &ImportOptions,
) -> Result<ProfileFile, BenchError> {
    let (mut parsed, names) = parse_named(text, origin)?;
    let (keygen_mirrored, mirrored) = mirror(&mut parsed);
    let mut ops = BTreeMap::new();
    for (op, pts) in &parsed {
        let file = if profile::all_key_ops().any(|k| k == op) {
            key_op_file(op, pts, origin, keygen_mirrored)
        } else {
            let seal = op.replace(".open", ".seal");
            let name = names
                .get(op)
                .or_else(|| names.get(&seal))
                .map_or("", String::as_str);
            cipher_op_file(op, pts, name, origin, mirrored.contains(op))?
        };
        ops.insert(op.clone(), file);
    }
    let file = ProfileFile {
        format_version: profile::FORMAT_VERSION,
        profile: ProfileMeta {
            name: name.to_string(),
            kind: "imported".into(),
            implementation: "openssl".into(),
            description: Some(format!("imported from {origin}")),
            date: Some(crate::calibrate::now_rfc3339()),
            references: Vec::new(),
        },
        host: None,
        measurement: None,
        node: node_file(opts),
        ops,
        implementation: None,
    };
    profile::Profile::from_file(file.clone(), origin)?;
    Ok(file)
}

/// What `openssl speed` does not measure, taken equal to what it does: X25519 key generation
/// to its derivation (`openssl speed ecdhx25519` times the derivation only; key generation is
/// one scalar multiplication too: OpenSSL's fixed-base keygen is faster, so an upper bound,
/// and the profile says so), and each cipher's open to its seal. Returns whether keygen was,
/// and the opens that were.
fn mirror(parsed: &mut BTreeMap<String, Vec<(u64, f64)>>) -> (bool, Vec<String>) {
    let mut keygen_mirrored = false;
    if let Some(agree) = parsed.get("x25519.agree").cloned()
        && !parsed.contains_key("x25519.keygen")
    {
        parsed.insert("x25519.keygen".to_owned(), agree);
        keygen_mirrored = true;
    }
    let mut mirrored = Vec::new();
    let seals: Vec<String> = parsed
        .keys()
        .filter(|k| k.ends_with(".seal"))
        .cloned()
        .collect();
    for seal in seals {
        let open = seal.replace(".seal", ".open");
        if !parsed.contains_key(&open) {
            let pts = parsed[&seal].clone();
            parsed.insert(open.clone(), pts);
            mirrored.push(open);
        }
    }
    (keygen_mirrored, mirrored)
}

/// Key op `op`'s entry: a constant cost \[ns\], 1 / operations per second of its one point
/// `pts`, read from `origin` (`keygen_mirrored`: X25519 keygen taken equal to its derivation).
fn key_op_file(op: &str, pts: &[(u64, f64)], origin: &str, keygen_mirrored: bool) -> OpFile {
    let mut source = format!(
        "imported from `openssl speed -mr {OPENSSL_KEY_ARGS}` output {origin}: cost = 1 / operations per second"
    );
    if keygen_mirrored && op == "x25519.keygen" {
        source.push_str("; openssl speed times the X25519 derivation only, so keygen is taken equal to it (an upper bound: OpenSSL's keygen multiplies a fixed base point, which is faster)");
    }
    let cost = format_duration_ns(pts[0].1);
    OpFile {
        model: "constant".into(),
        fixed: cost.clone(),
        per_byte: None,
        source,
        fitted_to: Vec::new(),
        implementation: None,
        r2: None,
        max_rel_residual: None,
        points: vec![PointFile {
            len: format_len_bytes(0),
            median: cost,
            p5: None,
            p95: None,
            samples: None,
        }],
    }
}

/// Cipher op `op`'s entry: a line fitted to its points `pts` (block size \[B\], cost \[ns\]),
/// read from `origin` as OpenSSL `name` (`mirrored`: open taken equal to seal); linear when
/// the line fits every point within [`MAX_LINE_RESIDUAL`], else piecewise.
fn cipher_op_file(
    op: &str,
    pts: &[(u64, f64)],
    name: &str,
    origin: &str,
    mirrored: bool,
) -> Result<OpFile, BenchError> {
    let mut source = if let Some((cbc, _)) = name.split_once(" + ") {
        let cbc = cbc.to_ascii_lowercase();
        let cbc = cbc.trim_end_matches(" -decrypt");
        let decrypt = if op.ends_with(".open") && !mirrored {
            " -decrypt"
        } else {
            ""
        };
        format!(
            "imported from `openssl speed -mr{decrypt} -evp {cbc}` and `openssl speed -mr -hmac sha256` output {origin}: ESP's CBC + HMAC as the sum of its parts, cost at payload C - 2 B = AES-CBC over C B (the payload and 2-byte trailer, a multiple of 16 B: no padding) + HMAC-SHA-256 over C + {ESP_CBC_MAC_EXTRA} B (ESP header, IV and ciphertext), each block size / throughput; openssl speed chains its CBC calls without setting a new IV per block, so the per-packet IV set-up is not timed"
        )
    } else if name.starts_with("GMAC") {
        format!(
            "imported from the GMAC-AES-128 lines of {origin}, which `openssl speed` (3.0) cannot print: written by scripts/openssl-gmac.c, which times libcrypto's EVP AES-128-GCM per frame with the whole frame as additional data and no plaintext (MACsec integrity only) over its CPU time, as openssl speed does; cost = block size / throughput at each size"
        )
    } else {
        format!(
            "imported from `openssl speed -mr -aead -evp` output {origin}: cost = block size / throughput at each size"
        )
    };
    if mirrored {
        source.push_str("; openssl speed measured encryption only, so open is taken equal to seal");
    }
    let xy: Vec<(f64, f64)> = pts.iter().map(|&(l, c)| (l as f64, c)).collect();
    let points = pts
        .iter()
        .map(|&(l, c)| PointFile {
            len: format_len_bytes(l),
            median: format_duration_ns(c),
            p5: None,
            p95: None,
            samples: None,
        })
        .collect();
    // `parse` leaves every cipher op at least two sizes, each cost within 10 s and
    // above 0.1 ps; a fit that still fails is refused, never replaced by one point.
    let f = fit_line(&xy)
        .filter(|f| f.a.is_finite() && f.b.is_finite() && f.r2.is_finite())
        .ok_or_else(|| BenchError::Import {
            origin: origin.to_string(),
            line: 0,
            message: format!(
                "the rates of {op} at {} B fit no line: check them",
                pts.iter()
                    .map(|p| p.0.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })?;
    let linear = f.max_rel_residual <= MAX_LINE_RESIDUAL;
    Ok(OpFile {
        model: if linear { "linear" } else { "piecewise" }.into(),
        fixed: format_duration_ns(f.a),
        per_byte: linear.then(|| format_per_byte_ns(f.b)),
        source,
        fitted_to: Vec::new(),
        implementation: None,
        r2: Some((f.r2 * 1e4).round() / 1e4),
        max_rel_residual: Some((f.max_rel_residual * 1e4).round() / 1e4),
        points,
    })
}

/// The imported profile's node: the cores given (else one: `openssl speed` runs one thread),
/// and the per-packet I/O measured on the target (else absent, saying how to measure it).
fn node_file(opts: &ImportOptions) -> NodeFile {
    NodeFile {
        cores: match opts.cores {
            Some(count) => CoresFile {
                count,
                source: "given on the command line (`oransim calibrate --cores`)".into(),
                fitted_to: Vec::new(),
            },
            None => CoresFile {
                count: 1,
                source: "openssl speed runs one thread (without -multi): give the target's cores with `oransim calibrate --from-openssl-speed FILE --cores N`".into(),
                fitted_to: Vec::new(),
            },
        },
        stack: CostFile {
            per_byte: None,
            cost: "0ns".into(),
            source: if opts.io.is_some() {
                "not measured separately: the target's kernel UDP/IP stack cost is inside `io` (loopback send + receive)".into()
            } else {
                ABSENT_IO.into()
            },
            fitted_to: Vec::new(),
        },
        io: opts.io.as_ref().map_or_else(
            || CostFile {
                per_byte: None,
                cost: "0ns".into(),
                source: ABSENT_IO.into(),
                fitted_to: Vec::new(),
            },
            crate::io::LoopbackIo::cost_file,
        ),
        latency: None,
        offload: OffloadFile::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real output of `openssl speed -mr -seconds 1 -evp aes-128-gcm` (OpenSSL 3.0.19, this
    /// project's dev machine), plus a `-bytes 1500` run.
    const SAMPLE: &str = "\
+DT:AES-128-GCM:1:16
+R:3207107:AES-128-GCM:1.000000
+H:16:64:256:1024:8192:16384
+F:25:AES-128-GCM:51313712.00:201496371.72:730739712.00:2215831552.00:5847769088.00:6679199744.00
+DT:AES-128-GCM:1:1500
+R:1849404:AES-128-GCM:0.990000
+H:1500
+F:25:AES-128-GCM:2802127272.73
";

    #[test]
    fn parses_and_merges_runs() {
        let ops = parse(SAMPLE, "s.txt").unwrap();
        let pts = &ops["aes128-gcm.seal"];
        assert_eq!(
            pts.iter().map(|p| p.0).collect::<Vec<_>>(),
            [16, 64, 256, 1024, 1500, 8192, 16384]
        );
        // 64 B at 201496371.72 B/s -> 317.6 ns per operation.
        assert!((pts[1].1 - 1e9 * 64.0 / 201_496_371.72).abs() < 1e-9);
    }

    #[test]
    fn import_makes_a_valid_profile_with_open_mirrored() {
        let f = import(SAMPLE, "s.txt", "openssl-here", &ImportOptions::default()).unwrap();
        let p = profile::Profile::from_file(f, "s.txt").unwrap();
        assert_eq!(p.kind(), profile::ProfileKind::Imported);
        let seal = p
            .cipher_cost_ns(Suite::Aes128Gcm, profile::Direction::Seal, 1500)
            .unwrap();
        let open = p
            .cipher_cost_ns(Suite::Aes128Gcm, profile::Direction::Open, 1500)
            .unwrap();
        assert_eq!(seal, open);
        assert!(
            p.op(&"aes128-gcm.open".parse().unwrap())
                .unwrap()
                .provenance
                .source
                .contains("equal to seal")
        );
    }

    /// Real output of `openssl speed -mr -seconds 2 ecdhx25519 ecdsap256 ed25519 rsa2048
    /// rsa3072` (OpenSSL 3.0.19, AMD EPYC dev host), plus a brainpool ECDSA line to skip and an
    /// `ecdhp256` line (`+F5:3:256`, OpenSSL 3.0.19 on another AMD EPYC host).
    const KEYS: &str = "\
+F2:2:2048:4771.212121:80537.500000
+F2:3:3072:750.420168:38290.298507
+F4:3:256:71912.500000:24347.368421
+F4:16:256:3000.0:3000.0
+F5:22:253:43494.382022:0.000023
+F5:3:256:31991.954023:0.000031
+F6:0:253:Ed25519:44820.202020:17056.321839
";

    #[test]
    fn key_ops_are_imported_and_cores_given() {
        let ops = parse(KEYS, "k.txt").unwrap();
        assert_eq!(ops["rsa2048.sign"], vec![(0, 1e9 / 4771.212121)]);
        assert_eq!(ops["ecdsa-p256.verify"], vec![(0, 1e9 / 24347.368421)]);
        assert_eq!(ops["x25519.agree"], vec![(0, 1e9 / 43494.382022)]);
        assert_eq!(ops["ed25519.sign"], vec![(0, 1e9 / 44820.202020)]);
        assert_eq!(ops["ecdh-p256.agree"], vec![(0, 1e9 / 31991.954023)]);
        assert_eq!(ops.len(), 10, "{:?}", ops.keys());
        let opts = ImportOptions {
            cores: Some(8),
            io: None,
        };
        let f = import(&format!("{SAMPLE}{KEYS}"), "k.txt", "t", &opts).unwrap();
        let p = profile::Profile::from_file(f, "k.txt").unwrap();
        assert_eq!(p.cores(), 8);
        assert_eq!(p.io_ns(), 0.0);
        let cost = |op: &str| p.op(&op.parse().unwrap()).map(|o| o.cost_ns(0));
        assert_eq!(
            cost("x25519.keygen").unwrap(),
            cost("x25519.agree").unwrap()
        );
        assert!((cost("rsa3072.sign").unwrap() - 1e9 / 750.420168).abs() < 1.0);
        assert!(cost("mlkem768.keygen").is_err());
        let e = parse("+F6:0:253:Ed25519:x:1\n", "k.txt")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1: rate `x`"), "{e}");
    }

    /// Output of scripts/openssl-speed.sh's ESP CBC and GMAC runs (OpenSSL 3.0.22, AMD EPYC
    /// host, issue 27): AES-128-CBC at two padded payloads, both ways, HMAC-SHA-256 24 B
    /// longer, and scripts/openssl-gmac.c's GMAC lines.
    const ESP_CBC: &str = "\
+H:64
+F:25:AES-128-CBC:1537375644.44
+H:1504
+F:25:AES-128-CBC:1600000000.00
# oransim: decrypt
+H:64:1504
+F:25:AES-128-CBC:3200000000.00:6400000000.00
# oransim: encrypt
+H:88
+F:9:hmac(sha256):464598400.00
+H:1528
+F:9:hmac(sha256):1600000000.00
+H:64
+F:0:GMAC-AES-128:490789060.16
+H:1500
+F:0:GMAC-AES-128:5538379374.99
";

    #[test]
    fn esp_cbc_hmac_is_the_sum_of_its_parts_and_gmac_is_read() {
        let ops = parse(ESP_CBC, "e.txt").unwrap();
        let seal = &ops["aes128-cbc-hmac-sha256.seal"];
        // Payload 62 B: CBC over 64 B, HMAC over 8 + 16 + 64 = 88 B.
        assert_eq!(seal[0].0, 62);
        let want = 1e9 * 64.0 / 1_537_375_644.44 + 1e9 * 88.0 / 464_598_400.0;
        assert!((seal[0].1 - want).abs() < 1e-9, "{seal:?}");
        assert_eq!(seal[1].0, 1502);
        let open = &ops["aes128-cbc-hmac-sha256.open"];
        assert!((open[1].1 - (1e9 * 1504.0 / 6.4e9 + 1e9 * 1528.0 / 1.6e9)).abs() < 1e-9);
        assert_eq!(ops["gmac-aes128.seal"].len(), 2);
        let f = import(ESP_CBC, "e.txt", "t", &ImportOptions::default()).unwrap();
        let src = |op: &str| f.ops[op].source.clone();
        assert!(
            src("aes128-cbc-hmac-sha256.seal")
                .starts_with("imported from `openssl speed -mr -evp aes-128-cbc` and `openssl speed -mr -hmac sha256` output e.txt"),
            "{}",
            src("aes128-cbc-hmac-sha256.seal")
        );
        assert!(
            src("aes128-cbc-hmac-sha256.open")
                .contains("`openssl speed -mr -decrypt -evp aes-128-cbc`")
        );
        assert!(src("gmac-aes128.seal").contains("scripts/openssl-gmac.c"));
        assert!(src("gmac-aes128.open").contains("equal to seal"));
        // The AEAD source is unchanged.
        let f = import(SAMPLE, "s.txt", "t", &ImportOptions::default()).unwrap();
        assert!(
            f.ops["aes128-gcm.seal"]
                .source
                .starts_with("imported from `openssl speed -mr -aead -evp` output s.txt")
        );
    }

    #[test]
    fn esp_cbc_parts_that_do_not_add_up_are_refused() {
        let cases = [
            (
                "+H:64:1500\n+F:1:AES-128-CBC:1e9:1e9\n+H:88:1524\n+F:1:hmac(sha256):1e9:1e9\n",
                "line 2: AES-128-CBC at 1500 B: ESP pads the payload and its 2-byte trailer to the 16-byte AES block, so a CBC block size must be a multiple of 16 B (e.g. 1504 B)",
            ),
            (
                "+H:64:1504\n+F:1:AES-256-CBC:1e9:1e9\n+H:88\n+F:1:hmac(sha256):1e9\n",
                "line 2: AES-256-CBC at 1504 B has no hmac(sha256) rate at 1528 B beside it",
            ),
            (
                "+H:88:1528\n+F:1:hmac(sha256):1e9:1e9\n",
                "line 2: hmac(sha256) rates are read only to add up ESP's AES-CBC + HMAC-SHA-256, and there are no AES-128-CBC or AES-256-CBC rates",
            ),
            (
                "+H:64\n+F:1:AES-128-CBC:1e9\n+H:88\n+F:1:hmac(sha256):1e9\n",
                "line 2: aes128-cbc-hmac-sha256.seal (AES-128-CBC + hmac(sha256)) has a rate at one payload size only (62 B)",
            ),
            (
                "+H:64:1504\n+F:1:AES-128-CBC:1e9:1e9\n+H:62:1502\n+F:1:AES-128-CBC-HMAC-SHA256:1e8:1e9\n+H:88:1528\n+F:1:hmac(sha256):1e9:1e9\n",
                "line 2: a second rate for aes128-cbc-hmac-sha256.seal at 62 B (the first is on line 4)",
            ),
            (
                "+H:64:1504\n+F:1:AES-128-CBC:1e9:2e10\n",
                "line 2: rate `2e10` B/s for AES-128-CBC at 1504 B is above one core's ceiling of 10.4 GB/s (1.6 B per cycle at 6.5 GHz: CBC encryption chains",
            ),
        ];
        for (text, want) in cases {
            let e = parse(text, "in.txt").unwrap_err().to_string();
            assert!(
                e.starts_with("in.txt: ") && e.contains(want),
                "{text:?}: {e}"
            );
        }
    }

    #[test]
    fn decrypt_marker_sets_direction() {
        let text = format!(
            "{SAMPLE}# oransim: decrypt\n+H:64:1024\n+F:25:AES-128-GCM:100000000:1024000000\n"
        );
        let ops = parse(&text, "s.txt").unwrap();
        assert_eq!(ops["aes128-gcm.open"], vec![(64, 640.0), (1024, 1000.0)]);
    }

    #[test]
    fn bad_input_names_line() {
        let cases = [
            (
                "+F:1:AES-128-GCM:5\n",
                "line 1: `+F:` line before any `+H:`",
            ),
            ("+H:16:x\n", "line 1: `+H:` must list block sizes"),
            (
                "+H:16\n+F:1:DES:5\n",
                "line 2: cipher `DES` has no oransim suite",
            ),
            (
                "+H:16:64\n+F:1:AES-128-GCM:5\n",
                "1 rates for 2 block sizes",
            ),
            (
                "+H:16\n+F:1:AES-128-GCM:-5\n",
                "line 2: rate `-5` at 16 B is not a positive finite",
            ),
            (
                "+H:16:64\n+F:1:AES-128-GCM:1e30:1e8\n",
                "line 2: rate `1e30` B/s for AES-128-GCM at 16 B is above one core's ceiling of 104 GB/s",
            ),
            (
                "+H:16:64\n+F:1:AES-128-GCM:1e-320:1e8\n",
                "line 2: rate `1e-320` B/s for AES-128-GCM at 16 B is below 0.1 blocks per second",
            ),
            (
                "+H:16:64\n+F:1:AES-256-CBC-HMAC-SHA256:1e8:43000000000\n",
                "above one core's ceiling of 6.5 GB/s (1 B per cycle at 6.5 GHz: SHA-256",
            ),
            (
                "+H:1500\n+F:1:AES-128-GCM:1e9\n",
                "line 2: aes128-gcm.seal (AES-128-GCM) has a rate at one block size only (1500 B)",
            ),
            (
                "+H:64:1500\n+F:1:AES-128-GCM:1e8:1e9\n+H:1500\n+F:1:AES-128-GCM:2e9\n",
                "line 4: a second rate for aes128-gcm.seal at 1500 B (the first is on line 2)",
            ),
            ("+H:0:64\n", "line 1: block size 0 B in `+H:`"),
            (
                "+F2:2:2048:inf:1\n",
                "rate `inf` of rsa2048.sign is not a positive finite",
            ),
            (
                "+F2:2:2048:1e9:1\n",
                "rate `1e9` of rsa2048.sign is above one core's ceiling of 6.5 M operations per second",
            ),
            (
                "+F2:2:2048:1:0.01\n",
                "rate `0.01` of rsa2048.verify is below 0.1",
            ),
            ("hello\n", "no `+F:` lines"),
            ("# oransim: sideways\n", "unknown direction"),
        ];
        for (text, want) in cases {
            let e = parse(text, "in.txt").unwrap_err().to_string();
            assert!(
                e.starts_with("in.txt: ") && e.contains(want),
                "{text:?}: {e}"
            );
        }
    }
}
