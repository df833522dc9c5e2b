//! pq_kems_hybrid: hybrid KEMs in IKEv2; the analysis of
//! `experiments/studies/pq_kems_hybrid.toml`.

use std::path::Path;

use profile::KeyAction;
use profile::units::Kind;

use super::Result;
use super::plot::{Series, Style};
use super::pq::{HOST_PROFILE, PQ_PROFILE, ke_compute_us, ke_window_us, key_op};
use super::study::Outputs;
use super::target::Targets;
use super::variant::{Doc, fmt_list};

/// The KEMs hybridised with X25519, in the order of the study's rows.
const KEMS: [&str; 9] = [
    "mlkem512",
    "mlkem768",
    "mlkem1024",
    "bike-l1",
    "bike-l3",
    "hqc-128",
    "hqc-192",
    "frodokem-640-aes",
    "frodokem-976-aes",
];

/// The pq_kems_hybrid analysis: per hybrid KEM the IKEv2 model's sizes, datagrams and round
/// trips, the setup time on the Perera testbed (from its published curve25519 IKE_SA_INIT and
/// IKE_AUTH means) and on this host; no row (the paper publishes no handshake time: its
/// data-plane numbers are the rows of `otero_ofh`).
pub(super) fn pq_kems_hybrid(root: &Path, tg: &Targets) -> Result<Outputs> {
    let mut out = Outputs::default();
    let published = |id: &str| -> Result<f64> { Ok(tg.get(id)?.value.unwrap_or(f64::NAN)) };
    let (init_x25519, auth_x25519) = (
        published(tg.input("ike-sa-init-x25519")?)?,
        published(tg.input("ike-auth-x25519")?)?,
    );
    let prof = profile::Profile::load(root.join(PQ_PROFILE))?;
    // The round trip and handling term, as pq_ike_e2 fits it: the published curve25519
    // IKE_SA_INIT (a capture's request-to-response window) less the responder's X25519 work.
    let base = init_x25519 - ke_window_us(&prof, "x25519")?;
    let mut lines = vec![];
    let mut bytes = vec![];
    for (i, kem) in KEMS.into_iter().enumerate() {
        let ke = format!("x25519+{kem}");
        let hs = protocols::ikev2::handshake(&protocols::ikev2::Config::new(
            &ke,
            protocols::ikev2::Auth::Rsa2048,
            1500,
        )?)?;
        let time = if key_op(kem, KeyAction::Keygen).is_ok_and(|op| prof.has_op(&op)) {
            // IKE_SA_INIT with X25519 + IKE_INTERMEDIATE (the round trip and handling term +
            // the KEM's compute) + IKE_AUTH with curve25519, Perera's testbed.
            format!(
                "{:.0} us",
                init_x25519 + base + ke_compute_us(&prof, kem)? + auth_x25519
            )
        } else {
            "not timed on the Perera testbed (no cost of this KEM in its profile)".into()
        };
        let inter = hs
            .exchanges
            .iter()
            .find(|x| x.name.starts_with("IKE_INTERMEDIATE"));
        let frag = inter.map_or(0, |x| {
            x.request.datagrams.len() + x.response.datagrams.len()
        });
        lines.push(format!(
            "{ke}: {} round trips, {} datagrams ({frag} in IKE_INTERMEDIATE), {} B, setup {time}",
            hs.setup_round_trips, hs.setup_datagrams, hs.setup_bytes
        ));
        bytes.push((i as f64, hs.setup_bytes as f64));
    }
    out.fact(fmt_list(&lines) + ".");
    // The same hybrids on this host, every cost measured (`oransim calibrate`; HQC and FrodoKEM
    // from PQClean's portable C in a build with `--features pqclean`): one tunnel's set-up on an
    // idle path, as `oransim plan kex` computes it.
    let host_profile = root.join(HOST_PROFILE);
    let host = profile::Profile::load(&host_profile)?;
    let (timed, untimed): (Vec<&str>, Vec<&str>) = KEMS
        .into_iter()
        .partition(|k| key_op(k, KeyAction::Keygen).is_ok_and(|op| host.has_op(&op)));
    let plan = whatif::plan::kex(&whatif::plan::KexQuestion {
        kes: std::iter::once("x25519".to_string())
            .chain(timed.iter().map(|k| format!("x25519+{k}")))
            .collect(),
        auth: "ed25519".into(),
        tunnels: 1,
        initiator_profile: host_profile.clone(),
        responder_profile: host_profile,
        responder_cores: None,
        rate: whatif::plan::quantity("10Gbps", Kind::DataRate, "rate")?,
        length: whatif::plan::quantity("100m", Kind::Length, "length")?,
        mtu: whatif::plan::quantity("1500B", Kind::Size, "mtu")?,
        loss: 0.0,
        peer: protocols::ikev2::Peer::Minimal,
        placement: whatif::generate::Placement::Separate,
        initiator_cores: None,
        replications: None,
        seed: None,
    })?;
    let host_lines: Vec<String> = plan
        .rows
        .iter()
        .map(|r| {
            format!(
                "{}: set-up {} (responder CPU {:.0} us, initiator CPU {:.0} us, {} B)",
                r.ke,
                r.setup_ns
                    .map_or_else(|| "none".to_owned(), |ns| format!("{:.0} us", ns / 1e3)),
                r.responder_work_ns / 1e3,
                r.initiator_work_ns / 1e3,
                r.setup_bytes
            )
        })
        .collect();
    let impls: Vec<String> = timed
        .iter()
        .filter_map(|k| {
            let keygen = key_op(k, KeyAction::Keygen).ok()?;
            host.op(&keygen)
                .ok()
                .map(|op| format!("{k} {}", op.implementation))
        })
        .collect();
    out.fact(format!(
        "On this host ({HOST_PROFILE}, Ed25519 authentication, one tunnel on an idle 10 Gb/s 100 m path, MTU 1500): {}. Implementations: {}. PQClean's HQC and FrodoKEM are portable C, slower than the AVX2/AES-NI code of liboqs that strongSwan uses, so their times here are upper bounds for a deployment. {}",
        fmt_list(&host_lines),
        impls.join(", "),
        if untimed.is_empty() {
            String::new()
        } else {
            format!(
                "Not timed: {} (no measured cost in the profile: BIKE is in neither RustCrypto nor PQClean, and HQC and FrodoKEM are measured only by `oransim calibrate` built with `--features pqclean`); their sizes, datagrams and round trips above still hold.",
                untimed.join(", ")
            )
        }
    ));
    let doc = Doc::load(root, "scenarios/pq_kems_hybrid.toml")?;
    let r = doc.run()?;
    let data = doc.flow_in(&r, "data")?;
    out.fact(format!(
        "Data plane: the KEM does not enter the per-packet ESP work, so the model's one-way delay of a 1000 B ping through the tunnel is {:.1} us whichever KEM set the tunnel up (Otero-García et al.'s per-packet encryption times and delays, without and with each KEM, are the rows of otero_ofh).",
        data.forward.delay.mean_ns / 1e3
    ));
    out.series("setup-bytes", Series::new("model", Style::Points, bytes));
    Ok(out)
}
