//! pq_kems_hybrid: hybrid KEMs in IKEv2.

use std::path::Path;

use super::plot::{Series, Style, categorical};
use super::pq::{HOST_PROFILE, PQ_PROFILE, ke_compute_us};
use super::variant::{Doc, fmt_list};
use super::{Experiment, Result};

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

pub(super) fn pq_kems_hybrid(root: &Path, _: &super::Targets) -> Result<Experiment> {
    let name = "pq_kems_hybrid";
    let mut e = Experiment::new(
        name,
        "Post-quantum KEMs in hybrid IKEv2: handshake bytes, datagrams, round trips, time (Otero-García et al. 2025)",
    );
    e.profiles.push(PQ_PROFILE.into());
    e.model = "X25519 in IKE_SA_INIT plus one KEM in an IKE_INTERMEDIATE exchange (RFC 9370), certificates (RSA-2048), MTU 1500, IKE fragmentation on: sizes, fragments, datagrams and round trips from the IKEv2 model; setup time = IKE_SA_INIT with X25519 + IKE_INTERMEDIATE (Perera testbed's round trip and handling term + the KEM's compute, where its cost is known: ML-KEM) + IKE_AUTH, all from the Perera rows and profile; the data path (scenarios/pq_kems_hybrid.toml) is the same for every KEM.".into();
    e.fitted =
        "nothing from this paper (its numbers are called indicative and none is a handshake time)."
            .into();
    e.predicted = "per KEM: setup bytes, datagrams, round trips; setup time for the ML-KEM hybrids on the Perera testbed, and for every KEM with a measured cost on this host; that the data-plane delay does not depend on the KEM.".into();
    let prof = profile::Profile::load(root.join(PQ_PROFILE))?;
    let base = 1363.0 - ke_compute_us(&prof, "x25519")?;
    let mut lines = vec![];
    let mut bytes = vec![];
    for (i, kem) in KEMS.into_iter().enumerate() {
        let ke = format!("x25519+{kem}");
        let hs = protocols::ikev2::handshake(&protocols::ikev2::Config::new(
            &ke,
            protocols::ikev2::Auth::Rsa2048,
            1500,
        )?)?;
        let time = if prof.has_op(&format!("{kem}.keygen")) {
            // IKE_SA_INIT with X25519 (1363 us) + IKE_INTERMEDIATE (the round trip and handling
            // term + the KEM's compute) + IKE_AUTH with curve25519 (2093 us), Perera's testbed.
            format!(
                "{:.0} us",
                1363.0 + base + ke_compute_us(&prof, kem)? + 2093.0
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
    e.facts.push(fmt_list(&lines) + ".");
    // The same hybrids on this host, every cost measured (`oransim calibrate`; HQC and FrodoKEM
    // from PQClean's portable C in a build with `--features pqclean`): one tunnel's set-up on an
    // idle path, as `oransim plan kex` computes it.
    let host_profile = root.join(HOST_PROFILE);
    let host = profile::Profile::load(&host_profile)?;
    let (timed, untimed): (Vec<&str>, Vec<&str>) = KEMS
        .into_iter()
        .partition(|k| host.has_op(&format!("{k}.keygen")));
    let plan = crate::plan::kex(&crate::plan::KexQuestion {
        kes: std::iter::once("x25519".to_string())
            .chain(timed.iter().map(|k| format!("x25519+{k}")))
            .collect(),
        auth: "ed25519".into(),
        tunnels: 1,
        initiator_profile: host_profile.clone(),
        responder_profile: host_profile,
        responder_cores: None,
        rate: "10Gbps".into(),
        length: "100m".into(),
        mtu: "1500B".into(),
        loss: 0.0,
        peer: protocols::ikev2::Peer::Minimal,
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
            host.op(&format!("{k}.keygen"))
                .ok()
                .map(|op| format!("{k} {}", op.implementation))
        })
        .collect();
    e.facts.push(format!(
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
    let r = Doc::load(root, "scenarios/pq_kems_hybrid.toml")?.run()?;
    e.facts.push(format!(
        "Data plane: the KEM does not enter the per-packet ESP work, so the model's one-way delay of a 1000 B ping through the tunnel is {:.1} us whichever KEM set the tunnel up (Otero-García et al. report 0.402-0.491 ms delays on their testbed without a KEM and call the numbers indicative: there is no profile of their DU/RU hosts to compare with).",
        r.flows[0].delay.mean_ns / 1e3
    ));
    e.plots.push(categorical(
        "pq_kems_hybrid",
        "Hybrid IKEv2 setup bytes per KEM (Otero-García et al.)",
        "KEM (with X25519)",
        "setup bytes, both directions [B]",
        &KEMS,
        vec![Series::new("model", Style::Points, bytes)],
    ));
    Ok(e)
}
