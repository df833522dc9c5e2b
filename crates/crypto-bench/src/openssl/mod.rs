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

use profile::{Direction, KeyAction, KeyAlg, Suite};
use protocols::wire::esp;
use protocols::{AES_BLOCK, AesKey, Sha2};

mod import;
mod parse;
mod rates;

pub use import::{ABSENT_IO, ImportOptions, import};
pub use parse::parse;

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
    /// The algorithm its rates are of.
    alg: KeyAlg,
    /// The actions of the rates in order; `None` for a rate not imported.
    actions: [Option<KeyAction>; 2],
}

/// The key ops this import reads. P-256 is ECDSA and ECDH curve 3 in OpenSSL 1.1.1 and 3.x
/// (brainpool P-256 has 256 bits too); X25519 is the only 253-bit ECDH curve.
const KEY_LINES: &[KeyLine] = &[
    KeyLine {
        kind: "+F2",
        index: None,
        bits: "2048",
        name: None,
        alg: KeyAlg::Rsa2048,
        actions: [Some(KeyAction::Sign), Some(KeyAction::Verify)],
    },
    KeyLine {
        kind: "+F2",
        index: None,
        bits: "3072",
        name: None,
        alg: KeyAlg::Rsa3072,
        actions: [Some(KeyAction::Sign), Some(KeyAction::Verify)],
    },
    KeyLine {
        kind: "+F4",
        index: Some("3"),
        bits: "256",
        name: None,
        alg: KeyAlg::EcdsaP256,
        actions: [Some(KeyAction::Sign), Some(KeyAction::Verify)],
    },
    KeyLine {
        kind: "+F5",
        index: Some("3"),
        bits: "256",
        name: None,
        alg: KeyAlg::EcdhP256,
        actions: [Some(KeyAction::Agree), None],
    },
    KeyLine {
        kind: "+F5",
        index: None,
        bits: "253",
        name: None,
        alg: KeyAlg::X25519,
        actions: [Some(KeyAction::Agree), None],
    },
    KeyLine {
        kind: "+F6",
        index: None,
        bits: "253",
        name: Some("Ed25519"),
        alg: KeyAlg::Ed25519,
        actions: [Some(KeyAction::Sign), Some(KeyAction::Verify)],
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

/// The oransim suite an OpenSSL cipher name measures.
fn suite_of(openssl_name: &str) -> Option<Suite> {
    Suite::ALL.into_iter().find(|s| {
        s.openssl_name()
            .is_some_and(|o| o.eq_ignore_ascii_case(openssl_name))
    })
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
