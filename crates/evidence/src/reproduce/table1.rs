//! table1: 000 Table 1's minimum overhead per security protocol against the byte-exact
//! protocol model (`oransim overhead`), and 000 §2.3's bound on the queueing delay that
//! overhead adds (docs/analytic.md); the analysis of `experiments/studies/table1.toml`.

use std::path::Path;

use protocols::catalogue::{self, SuiteOverhead};

use super::study::Outputs;
use super::target::{Deps, Targets};
use super::{ReproduceError, Result};

/// The suite with the fewest added bytes among those that encrypt and are recommended.
fn smallest(suites: Vec<SuiteOverhead>) -> Option<SuiteOverhead> {
    suites
        .into_iter()
        .filter(|s| s.confidential && s.recommended)
        .min_by_key(|s| (s.min, s.stack.clone()))
}

/// The table1 analysis: each protocol's minimum overhead from the protocol model, and the
/// load bound of 000 §2.3 derived in consistent units.
pub(super) fn table1(_root: &Path, t: &Targets) -> Result<Outputs> {
    let mut out = Outputs::default();
    let deps = || Deps::default().model("protocols");
    let rows: [(&str, Option<SuiteOverhead>, &str); 3] = [
        (
            "ipsec-min",
            smallest(catalogue::ipsec_suites(protocols::Layer::Udp(
                protocols::udp::Udp,
            ))?),
            "ESP in tunnel mode adds 20 B of outer IPv4, 8 B of SPI and sequence number, the IV, 2 B of trailer and the ICV, plus padding to 4 B (counter modes) or 16 B (CBC); an 8-byte ICV (AES-CCM-8) is the smallest. With a 16-byte ICV and an 8-byte IV the counter modes add 54 B plus 0-3 B of padding, so the paper's 57 B is their largest overhead, not the smallest of any suite",
        ),
        (
            "tls-min",
            smallest(catalogue::tls_suites()?),
            "a TLS 1.2 record with ChaCha20-Poly1305 adds its 5-byte header and a 16-byte tag, TLS 1.3 one content-type byte more; the paper's 25 B is a TLS 1.2 record with a 20-byte HMAC-SHA1 and no IV, which only RC4 (forbidden by RFC 7465) or NULL (no confidentiality) give",
        ),
        (
            "ssh-min",
            smallest(catalogue::ssh_suites()?),
            "an SSH binary packet adds its 4-byte length, a 1-byte padding length, 4 to 255 B of padding to the cipher's block and the MAC; a counter-mode cipher with a 64-bit UMAC in encrypt-then-MAC mode is the smallest, and the paper's 28 B is one suite's value at one payload length",
        ),
    ];
    for (name, best, why) in rows {
        let Some(best) = best else { continue };
        out.value(name, best.min as f64, deps())
            .var("stack", &best.stack)
            .var("min", best.min)
            .var("max", best.max)
            .why(format!(
                "{} adds {}..{} B over all payload lengths: {why}",
                best.stack, best.min, best.max
            ));
    }
    // 000 §2.2: "MACsec adds a fixed 32-byte header to all packets": the overhead of the
    // suite 000 §5 evaluates (GCM-AES-128 with encryption, SCI sent), the first of the list.
    // The target is exact: the most the suite adds over all payload lengths must be 32 B
    // (the note shows the least too: a fixed header has both at 32).
    let macsec = catalogue::macsec_suites()?;
    if let Some(m) = macsec.first() {
        out.value("macsec-fixed", m.max as f64, deps())
            .var("stack", &m.stack)
            .var("min", m.min)
            .var("max", m.max);
    }
    // 000 §2.2's next sentence: "MACsec uses AES for confidentiality, which is a block cipher.
    // Therefore, when encryption is enabled the overhead may be larger than 32 Bytes". GCM-AES
    // runs AES in counter mode, so the same suite with encryption on adds no byte over it off
    // (the integrity-only GMAC suite, the last of the list).
    if let (Some(on), Some(off)) = (macsec.first(), macsec.last()) {
        let fixed = t.get(t.input("macsec-fixed")?)?.value.unwrap_or(f64::NAN);
        out.value("macsec-encrypt-larger", on.max as f64, deps())
            .holds(on.max as f64 > fixed)
            .var("stack", &on.stack)
            .var("min", on.min)
            .var("max", on.max)
            .var("gmac", off.max)
            .why(format!(
                "GCM-AES (IEEE 802.1AE §14.5) runs AES in counter mode: the ciphertext is as long as the plaintext, with no padding to a block, so encryption adds no byte ({} B with it on, {} B with it off); the paper's reason, that AES is a block cipher, holds for CBC, which MACsec does not use",
                on.max, off.max
            ));
    }
    // 000 §2.2: "TLS adds about 25-40 Bytes of overhead to each packet": the range of the
    // recommended suites that encrypt, against the target's range read with the approx rule's
    // tolerance.
    let tls: Vec<SuiteOverhead> = catalogue::tls_suites()?
        .into_iter()
        .filter(|s| s.confidential && s.recommended)
        .collect();
    let lo = tls.iter().map(|s| s.min).min().unwrap_or(0);
    let hi = tls.iter().map(|s| s.max).max().unwrap_or(0);
    let id = t.input("tls-25-40")?;
    let [low, high] = t.get(id)?.range.ok_or_else(|| ReproduceError::Variant {
        file: super::TARGETS_FILE.into(),
        problem: format!("target {id} has no `range` to read the claim against"),
    })?;
    let (tol, tol_deps) = super::variant::traced(|| t.tolerance("approx"))?;
    let (lo_ok, hi_ok) = (low * (1.0 - tol / 100.0), high * (1.0 + tol / 100.0));
    let within = |b: usize| (lo_ok..=hi_ok).contains(&(b as f64));
    let outside: Vec<String> = tls
        .iter()
        .filter(|s| !within(s.min) || !within(s.max))
        .map(|s| format!("{} {}..{} B", s.stack, s.min, s.max))
        .collect();
    out.value("tls-25-40", lo as f64, deps().and(&tol_deps))
        .holds(outside.is_empty())
        .var("lo", lo)
        .var("hi", hi)
        .var("suites", tls.len())
        .why(format!(
            "the recommended TLS suites add {lo}..{hi} B per record: a TLS 1.3 AEAD record adds its 5-byte header, the content-type byte and a 16-byte tag (22 B), a TLS 1.2 AES-GCM record an 8-byte explicit nonce more (29 B), ChaCha20-Poly1305 in TLS 1.2 none (21 B); outside {low}-{high} B ({tol}% either way): {}",
            outside.join(", ")
        ));
    // 000 §2.3: Delta D_que <= 1 us while lambda <= 9.78 Gb/s, mu = 10 Gb/s, eps <= 60 B.
    let q = sim_core::OverheadQueueing {
        link_bps: 10e9,
        packet_bytes: 1500.0,
        overhead_bytes: 60.0,
    };
    let max_gbps = q.max_load_for(1e-6) / 1e9;
    let paper = t.get(t.input("dque-1us-load")?)?.value.unwrap_or(f64::NAN);
    out.value(
        "dque-1us-load",
        max_gbps,
        Deps::default()
            .model("analytic M/M/1")
            .input("10 Gb/s link, 60 B overhead (000 §2.3)")
            .assume("1500 B plaintext packets (000 §2.3 gives no size)"),
    )
    .why(format!("the paper's expression subtracts a size (eps, in bits) from a rate (bit/s); derived in consistent units, the secured queue is already unstable at {paper} Gb/s of plaintext ({:.2} Gb/s on the wire with the overhead), and 1 us of added waiting is reached at {max_gbps:.2} Gb/s", paper * (q.packet_bytes + q.overhead_bytes) / q.packet_bytes));
    Ok(out)
}
