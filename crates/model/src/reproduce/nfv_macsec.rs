//! nfv_macsec: MACsec in an NFV infrastructure (Lioy et al. 2022, Tables I-III).

use std::path::Path;

use protocols::Suite;

use super::fit::LIOY_L;
use super::target::{Deps, Targets};
use super::variant::{Doc, traced};
use super::{Experiment, Result};

/// MACsec with confidentiality off (GMAC over the frame).
const GMAC: Suite = Suite::Gmac { aes_bits: 128 };

pub(super) fn nfv_macsec(root: &Path, t: &Targets) -> Result<Experiment> {
    let name = "nfv_macsec";
    let mut e = Experiment::new(
        name,
        "MACsec in an NFV infrastructure: per-frame kernel times and throughput loss (Lioy et al. 2022, Tables I-III)",
    );
    e.profiles.extend([
        "calibration/nfv-macsec-aesni.toml".to_string(),
        "calibration/nfv-macsec-noaesni.toml".to_string(),
    ]);
    e.model = "Per-frame times: macsec_start_xmit = seal(L), macsec_encrypt = seal(L) less its fixed framing part (profile ops), L = 1502 B, the EtherType and 1500 B IP packet that MACsec protects in a 1514 B frame; the framing part is one fit for both modes (least squares over the four times of each AES-NI setting: four numbers, three parameters, so each row has a leave-one-out prediction). Throughput, capacity view: with MACsec the smaller of the link's goodput and the node's (I/O stage per MACsec frame, DES run of scenarios/nfv_macsec.toml at 1 Gb/s); without MACsec the link's goodput: rate x TCP goodput per frame / line bytes per frame (frame + FCS + preamble + inter-frame gap, from the protocol model; MACsec device MTU 1468 B, so 1416 B of goodput per frame).".into();
    e.fitted = "the eight per-frame kernel times (Tables I-II) and 488.83 Mb/s with MACsec on the 1 Gb/s link (I/O stage).".into();
    e.predicted = "the 100 Mb/s throughputs with and without MACsec; the 1 Gb/s throughput without MACsec. The two losses are functions of those rows (identities).".into();
    for (file, aesni) in [
        ("calibration/nfv-macsec-noaesni.toml", "no"),
        ("calibration/nfv-macsec-aesni.toml", "yes"),
    ] {
        let prof = profile::Profile::load(root.join(file))?;
        let ni = if aesni == "no" { "noaesni" } else { "aesni" };
        let fit = super::fit::lioy_table1(t, ni)?;
        let loo = |id: &str| fit.loo_of(id).flatten();
        for (mode, short, suite) in [
            ("integrity + confidentiality", "enc", Suite::Aes128Gcm),
            ("integrity only", "int", GMAC),
        ] {
            let ((total, cipher), deps) = traced(|| {
                let op = prof.cipher(suite, profile::Direction::Seal)?;
                Ok((
                    op.cost_ns(LIOY_L) / 1e3,
                    (op.cost_ns(LIOY_L) - op.cost_ns(0)) / 1e3,
                ))
            })?;
            let (xmit_id, enc_id) = (
                format!("lioy2022/table1/start-xmit-{short}-{ni}"),
                format!("lioy2022/table1/encrypt-{short}-{ni}"),
            );
            e.rows.push(
                t.row(
                    name,
                    &xmit_id,
                    total,
                    deps.clone(),
                    &format!("per-frame kernel time, {mode}: seal of the {LIOY_L} B a 1514 B frame protects"),
                )?
                .with_loo(loo(&xmit_id)),
            );
            e.rows.push(
                t.row(
                    name,
                    &enc_id,
                    cipher,
                    deps,
                    &format!("per-frame kernel time, {mode}: that seal less its fixed part"),
                )?
                .with_loo(loo(&enc_id)),
            );
        }
    }
    let plain: protocols::Stack = "eth/ipv4/tcp(ts)".parse()?;
    let sec: protocols::Stack = "eth/macsec(gcm-aes-128,encrypt)/ipv4/tcp(ts)".parse()?;
    let line_plain = plain.wire_len_as(1448, protocols::Count::Line)? as f64;
    let line_sec = sec.wire_len_as(1416, protocols::Count::Line)? as f64;
    let link = |mbps: f64, goodput: f64, line: f64| mbps * goodput / line;
    let (r, node_deps) = traced(|| Doc::load(root, "scenarios/nfv_macsec.toml")?.run())?;
    let node_deps = node_deps.model("engine").model("protocols");
    let link_deps = Deps::default().model("protocols");
    let frame = sec.wire_len(1448)? as f64;
    let node_gbit = r.flows[0].throughput_bps * 1448.0 / frame / 1e6;
    let with100 = link(100.0, 1416.0, line_sec).min(node_gbit);
    let without100 = link(100.0, 1448.0, line_plain);
    let with1g = link(1000.0, 1416.0, line_sec).min(node_gbit);
    let without1g = link(1000.0, 1448.0, line_plain);
    e.rows.push(t.row(
        name,
        "lioy2022/table3/with-100m",
        with100,
        node_deps.clone().and(&link_deps),
        "capacity view; link-bound",
    )?);
    e.rows.push(t.row(
        name,
        "lioy2022/table3/without-100m",
        without100,
        link_deps.clone(),
        "capacity view; link-bound",
    )?);
    e.rows.push(t.row(
        name,
        "lioy2022/table3/loss-100m",
        (1.0 - with100 / without100) * 100.0,
        Deps::default()
            .row("lioy2022/table3/with-100m")
            .row("lioy2022/table3/without-100m"),
        "capacity view; 1 - with / without from the two rows above: 32 B of SecTAG + ICV per frame",
    )?);
    e.rows.push(t.row(
        name,
        "lioy2022/table3/with-1g",
        with1g,
        node_deps.and(&link_deps),
        "capacity view; I/O stage fitted to it (DES)",
    )?);
    e.rows.push(
        t.row(
            name,
            "lioy2022/table3/without-1g",
            without1g,
            link_deps,
            "capacity view; link-bound",
        )?
        .because(format!("the published rate exceeds 1 Gb/s Ethernet's TCP goodput ({without1g:.0} Mb/s with timestamps): a virtio link between VMs is not a real 1 Gb/s wire, and the paper does not say what limits it")),
    );
    e.rows.push(
        t.row(
            name,
            "lioy2022/table3/loss-1g",
            (1.0 - with1g / without1g) * 100.0,
            Deps::default()
                .row("lioy2022/table3/with-1g")
                .row("lioy2022/table3/without-1g"),
            "capacity view; 1 - with / without from the two rows above",
        )?,
    );
    let xmit = |file: &str| -> Result<f64> {
        Ok(profile::Profile::load(root.join(file))?.cipher_cost_ns(
            Suite::Aes128Gcm,
            profile::Direction::Seal,
            LIOY_L,
        )? / 1e3)
    };
    let (ni_us, no_ni_us) = (
        xmit("calibration/nfv-macsec-aesni.toml")?,
        xmit("calibration/nfv-macsec-noaesni.toml")?,
    );
    e.facts.push(format!("Bottleneck with MACsec at 1 Gb/s: the per-frame virtio/KVM I/O path (23.7 us per frame = {node_gbit:.0} Mb/s of goodput), not the cipher: AES-GCM with AES-NI costs {ni_us:.1} us per frame, on 4 vCPUs. Without AES-NI the cipher costs {no_ni_us:.1} us per frame; on 4 vCPUs that is still under the I/O time, so the model predicts the same 1 Gb/s throughput with or without AES-NI, and more vCPUs would not help: the I/O path is one server."));
    Ok(e)
}
