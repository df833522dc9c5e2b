//! Imports the machine-readable output of `openssl speed -mr -evp <cipher>` as a profile, so a
//! user can calibrate a target CPU that has OpenSSL but no Rust toolchain.
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

fn suite_of(openssl_name: &str) -> Option<Suite> {
    OPENSSL_NAMES
        .iter()
        .find(|(o, _)| o.eq_ignore_ascii_case(openssl_name))
        .map(|(_, s)| *s)
}

/// Parses `openssl speed -mr` output into (op name -> [(len, ns per op)]).
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
            "no `+F:` lines; expected the output of `openssl speed -mr -evp <cipher>`".into(),
        ));
    }
    for pts in ops.values_mut() {
        pts.sort_by_key(|p| p.0);
        pts.dedup_by_key(|p| p.0);
    }
    Ok(ops)
}

/// Builds a profile (kind `imported`, implementation `openssl`) from `openssl speed -mr` text.
pub fn import(text: &str, origin: &str, name: &str) -> Result<ProfileFile, BenchError> {
    let mut parsed = parse(text, origin)?;
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
        let mut source = format!(
            "imported from `openssl speed -mr -evp` output {origin}: cost = block size / throughput at each size"
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
            cores: CoresFile {
                count: 1,
                source:
                    "openssl speed runs one thread (without -multi); set the target's cores here"
                        .into(),
                fitted_to: Vec::new(),
            },
            stack: CostFile {
                per_byte: None,
                cost: "0ns".into(),
                source: "not in openssl speed output".into(),
                fitted_to: Vec::new(),
            },
            io: CostFile {
                per_byte: None,
                cost: "0ns".into(),
                source: "not in openssl speed output".into(),
                fitted_to: Vec::new(),
            },
            latency: None,
            offload: OffloadFile::default(),
        },
        ops,
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
        let f = import(SAMPLE, "s.txt", "openssl-here").unwrap();
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
