//! Imports the machine-readable output of `openssl speed -mr` as a profile, so a user can
//! calibrate a target CPU that has OpenSSL but no Rust toolchain: the AEAD ciphers
//! (`-aead -evp <cipher>`), and the key exchange and signatures OpenSSL measures (`ecdhx25519`,
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

use crate::BenchError;
use crate::fit::{MAX_LINE_RESIDUAL, fit_line};

/// OpenSSL EVP cipher names (as printed by `openssl speed -mr`) and the suite each measures.
pub const OPENSSL_NAMES: &[(&str, Suite)] = &[
    ("AES-128-GCM", Suite::Aes128Gcm),
    ("AES-256-GCM", Suite::Aes256Gcm),
    ("ChaCha20-Poly1305", Suite::ChaCha20Poly1305),
    ("AES-128-CCM", Suite::Aes128Ccm),
    ("AES-256-CCM", Suite::Aes256Ccm),
    (
        "AES-128-CBC-HMAC-SHA256",
        Suite::AesCbcHmac {
            aes_bits: 128,
            sha_bits: 256,
        },
    ),
    (
        "AES-256-CBC-HMAC-SHA256",
        Suite::AesCbcHmac {
            aes_bits: 256,
            sha_bits: 256,
        },
    ),
];

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

/// Key ops from one asymmetric `+F2`..`+F6` line: (op, cost \[ns\]) pairs; empty for a curve or
/// size oransim has no op for (e.g. `openssl speed ecdsa` prints every curve).
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
    let mut out = Vec::new();
    for (op, rate) in ops.iter().zip(rates).filter(|(op, _)| !op.is_empty()) {
        let per_s: f64 = rate
            .trim()
            .parse()
            .map_err(|_| format!("rate `{rate}` is not a number of operations per second"))?;
        if !(per_s > 0.0 && per_s.is_finite()) {
            return Err(format!("rate `{rate}` of {op} must be positive"));
        }
        out.push((*op, 1e9 / per_s));
    }
    if out.len() != ops.iter().filter(|o| !o.is_empty()).count() {
        return Err(format!(
            "`{}` line with too few rates for {}",
            fields[0],
            ops.join(" and ").trim_end_matches(" and ")
        ));
    }
    Ok(out)
}

fn suite_of(openssl_name: &str) -> Option<Suite> {
    OPENSSL_NAMES
        .iter()
        .find(|(o, _)| o.eq_ignore_ascii_case(openssl_name))
        .map(|(_, s)| *s)
}

/// Parses `openssl speed -mr` output into (op name -> [(len, ns per op)]): cipher ops from
/// `+H:`/`+F:` pairs, key ops (length 0) from the `+F2`..`+F6` lines of `KEY_LINES` (RSA-2048
/// and -3072, ECDSA P-256, X25519, Ed25519); other asymmetric lines (other curves and sizes,
/// DSA, FFDH, SM2) are skipped.
pub fn parse(text: &str, origin: &str) -> Result<BTreeMap<String, Vec<(u64, f64)>>, BenchError> {
    let err = |line: usize, message: String| BenchError::Import {
        origin: origin.to_string(),
        line,
        message,
    };
    let mut sizes: Option<Vec<u64>> = None;
    let mut direction = Direction::Seal;
    let mut ops: BTreeMap<String, Vec<(u64, f64)>> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim();
        if let Some(d) = line.strip_prefix("# oransim:") {
            direction = match d.trim() {
                "decrypt" => Direction::Open,
                "encrypt" => Direction::Seal,
                other => {
                    return Err(err(
                        n,
                        format!("unknown direction `{other}`; use `decrypt` or `encrypt`"),
                    ));
                }
            };
        } else if let Some(h) = line.strip_prefix("+H:") {
            let parsed: Result<Vec<u64>, _> = h.split(':').map(|s| s.trim().parse()).collect();
            sizes = Some(parsed.map_err(|_| {
                err(
                    n,
                    format!("`+H:` must list block sizes in bytes, found `{h}`"),
                )
            })?);
        } else if line.starts_with("+F") && !line.starts_with("+F:") {
            for (op, ns) in key_line(line).map_err(|m| err(n, m))? {
                ops.entry(op.to_owned()).or_default().push((0, ns));
            }
        } else if let Some(f) = line.strip_prefix("+F:") {
            let fields: Vec<&str> = f.split(':').collect();
            if fields.len() < 3 {
                return Err(err(
                    n,
                    "`+F:` line needs an index, a cipher name and rates".into(),
                ));
            }
            let name = fields[1];
            let Some(suite) = suite_of(name) else {
                let known: Vec<_> = OPENSSL_NAMES.iter().map(|(o, _)| *o).collect();
                return Err(err(
                    n,
                    format!(
                        "cipher `{name}` has no oransim suite; known: {}",
                        known.join(", ")
                    ),
                ));
            };
            let sizes = sizes
                .as_ref()
                .ok_or_else(|| err(n, "`+F:` line before any `+H:` line of block sizes".into()))?;
            let rates = &fields[2..];
            if rates.len() != sizes.len() {
                return Err(err(
                    n,
                    format!(
                        "{} rates for {} block sizes in the `+H:` line above",
                        rates.len(),
                        sizes.len()
                    ),
                ));
            }
            for (&len, rate) in sizes.iter().zip(rates) {
                let bps: f64 = rate.trim().parse().map_err(|_| {
                    err(
                        n,
                        format!("rate `{rate}` is not a number of bytes per second"),
                    )
                })?;
                if !(bps > 0.0 && bps.is_finite()) || len == 0 {
                    return Err(err(n, format!("rate `{rate}` at {len} B must be positive")));
                }
                ops.entry(profile::cipher_op(suite, direction))
                    .or_default()
                    .push((len, 1e9 * len as f64 / bps));
            }
        }
    }
    if ops.is_empty() {
        return Err(err(
            0,
            "no `+F:` lines; expected the output of `openssl speed -mr -aead -evp <cipher>` (and `openssl speed -mr ecdhx25519 ...`)".into(),
        ));
    }
    for pts in ops.values_mut() {
        pts.sort_by_key(|p| p.0);
        pts.dedup_by_key(|p| p.0);
    }
    Ok(ops)
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
    let mut parsed = parse(text, origin)?;
    // `openssl speed ecdhx25519` times the derivation only; X25519 key generation is one
    // scalar multiplication too, so it is taken equal (OpenSSL's fixed-base keygen is faster:
    // an upper bound, and the profile says so).
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
    let mut ops = BTreeMap::new();
    for (op, pts) in &parsed {
        if profile::all_key_ops().any(|k| k == op) {
            let mut source = format!(
                "imported from `openssl speed -mr {OPENSSL_KEY_ARGS}` output {origin}: cost = 1 / operations per second"
            );
            if keygen_mirrored && op == "x25519.keygen" {
                source.push_str("; openssl speed times the X25519 derivation only, so keygen is taken equal to it (an upper bound: OpenSSL's keygen multiplies a fixed base point, which is faster)");
            }
            let cost = format_duration_ns(pts[0].1);
            ops.insert(
                op.clone(),
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
                },
            );
            continue;
        }
        let mut source = format!(
            "imported from `openssl speed -mr -aead -evp` output {origin}: cost = block size / throughput at each size"
        );
        if mirrored.contains(op) {
            source.push_str(
                "; openssl speed measured encryption only, so open is taken equal to seal",
            );
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
        let file = match fit_line(&xy) {
            Some(f) => OpFile {
                model: if f.max_rel_residual <= MAX_LINE_RESIDUAL {
                    "linear"
                } else {
                    "piecewise"
                }
                .into(),
                fixed: format_duration_ns(f.a),
                per_byte: (f.max_rel_residual <= MAX_LINE_RESIDUAL)
                    .then(|| format_per_byte_ns(f.b)),
                source,
                fitted_to: Vec::new(),
                implementation: None,
                r2: Some((f.r2 * 1e4).round() / 1e4),
                max_rel_residual: Some((f.max_rel_residual * 1e4).round() / 1e4),
                points,
            },
            None => OpFile {
                // One size only: all of it per byte (no way to separate a fixed part).
                model: "linear".into(),
                fixed: "0ns".into(),
                per_byte: Some(format_per_byte_ns(pts[0].1 / pts[0].0 as f64)),
                source: format!(
                    "{source}; one block size only, so the whole cost is taken as per byte"
                ),
                fitted_to: Vec::new(),
                implementation: None,
                r2: None,
                max_rel_residual: None,
                points,
            },
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
        node: NodeFile {
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
        },
        ops,
        implementation: None,
    };
    profile::Profile::from_file(file.clone(), origin)?;
    Ok(file)
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
            p.op("aes128-gcm.open")
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
        let cost = |op: &str| p.op(op).map(|o| o.cost_ns(0));
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

    #[test]
    fn decrypt_marker_sets_direction() {
        let text = format!("{SAMPLE}# oransim: decrypt\n+H:64\n+F:25:AES-128-GCM:100000000\n");
        let ops = parse(&text, "s.txt").unwrap();
        assert_eq!(ops["aes128-gcm.open"], vec![(64, 640.0)]);
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
            ("+H:16\n+F:1:AES-128-GCM:-5\n", "must be positive"),
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
