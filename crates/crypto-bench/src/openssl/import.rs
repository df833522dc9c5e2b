//! Building the imported profile from the parsed points: key ops as constant costs, cipher ops
//! as fitted lines, what `openssl speed` does not measure mirrored or left absent, saying so.

use std::collections::BTreeMap;

use profile::units::{format_duration_ns, format_len_bytes, format_per_byte_ns};
use profile::{
    CoresFile, CostFile, KeyAction, KeyAlg, NodeFile, OffloadFile, OpFile, PointFile, ProfileFile,
    ProfileMeta,
};

use super::parse::parse_named;
use super::{ESP_CBC_MAC_EXTRA, OPENSSL_KEY_ARGS};
use crate::BenchError;
use crate::fit::{MAX_LINE_RESIDUAL, fit_line};

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
        let file = if let Ok(key) = op.parse::<profile::KeyOp>() {
            key_op_file(key, pts, origin, keygen_mirrored)
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
    let x25519 = |action| profile::KeyOp::of(KeyAlg::X25519, action).to_string();
    let (agree, keygen) = (x25519(KeyAction::Agree), x25519(KeyAction::Keygen));
    if let Some(agree) = parsed.get(&agree).cloned()
        && !parsed.contains_key(&keygen)
    {
        parsed.insert(keygen, agree);
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
fn key_op_file(
    op: profile::KeyOp,
    pts: &[(u64, f64)],
    origin: &str,
    keygen_mirrored: bool,
) -> OpFile {
    let mut source = format!(
        "imported from `openssl speed -mr {OPENSSL_KEY_ARGS}` output {origin}: cost = 1 / operations per second"
    );
    if keygen_mirrored && op == profile::KeyOp::of(KeyAlg::X25519, KeyAction::Keygen) {
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
