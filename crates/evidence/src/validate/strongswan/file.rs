//! The calibration writer: the profile's `[implementation]` section, each fitted term with
//! the measurements it was fitted to and its source in words.

use profile::{RealImplementation, Term};

use super::fit::{Terms, fit};
use super::{
    FIT_CERT, FIT_OPENSSL_SUITE, FIT_REKEY, FIT_STORM, FIT_SUITE, MeasureError, Measurements,
    OpensslCosts,
};

/// Puts a pair of terms, \[initiator, responder\], with `put` (as [`implementation_file`] puts
/// each term): both fitted to `from`, each with the source `source(side, held)` writes, where
/// `side` is `initiator` or `responder` and `held` the held-SA charges per SA a storm gives that
/// side in the engine (`2N`, `1.5N`: [`growth`]).
pub(super) fn put_pair(
    put: &mut impl FnMut(Term, f64, &[String], String),
    terms: [Term; 2],
    values: [f64; 2],
    from: &[String],
    source: impl Fn(&str, &str) -> String,
) {
    for (i, (side, held)) in [("initiator", "2N"), ("responder", "1.5N")]
        .into_iter()
        .enumerate()
    {
        put(terms[i], values[i], from, source(side, held));
    }
}

/// Where a data path puts a Child SA, in words.
pub(super) fn data_path_words(path: &str) -> String {
    match path {
        "kernel-libipsec" => "kernel-libipsec, the SAs into libipsec's user-space SAD and the policies into its SPD, traffic over a TUN device, not the kernel's xfrm".into(),
        "xfrm" => "the kernel's xfrm, the SAs and policies into the kernel's SAD and SPD".into(),
        other => format!("the `{other}` data path"),
    }
}

/// What the daemon terms leave out of the CPU they are fitted to, in words.
const LESS_KEY_EXCHANGE: &str = "less X25519 keygen + agree (OpenSSL's cost)";

/// The implementation terms [`implementation_file`] writes from every measurement file (the
/// `esp.*` ones only when it has the ESP workloads).
pub const TERMS: [Term; 13] = [
    Term::IkeDaemonInitiatorIdle,
    Term::IkeDaemonResponderIdle,
    Term::IkeLatency,
    Term::IkeCertificateInitiator,
    Term::IkeCertificateResponder,
    Term::IkeCertificateLatency,
    Term::IkeDaemonInitiatorLoaded,
    Term::IkeDaemonResponderLoaded,
    Term::IkeParallelism,
    Term::IkeHostCpus,
    Term::EspPerPacket,
    Term::EspLatency,
    Term::EspOpensslPerPacket,
];

/// The terms [`implementation_file`] writes only from a file with the per-exchange times and the
/// `child` workload (module docs).
pub const EXCHANGE_TERMS: [Term; 8] = [
    Term::IkeExchangeInit,
    Term::IkeExchangeAuth,
    Term::IkeExchangeCreateChild,
    Term::IkeExchangeCreateChildRefused,
    Term::IkeExchangeHandling,
    Term::IkeChildSaInstall,
    Term::IkeChildSaInstallInitiatorCpu,
    Term::IkeChildSaInstallResponderCpu,
];

/// The measurement ids the per-exchange terms are fitted to (the PSK set-up's exchanges, the
/// `child` workload's two series).
pub const EXCHANGE_FITTED_TO: [&str; 4] = [
    "ike.exchange.psk.init",
    "ike.exchange.psk.auth",
    "ike.child.create",
    "ike.child.refused",
];

/// The profile's `[implementation]` section: the fitted terms with their provenance.
pub fn implementation_file(
    m: &Measurements,
    ops: &OpensslCosts,
) -> Result<profile::ImplementationFile, MeasureError> {
    let t = fit(m, ops)?;
    let mut imp = profile::ImplementationFile::new(
        RealImplementation::Strongswan,
        m.strongswan.clone(),
        m.data_path.clone(),
        format!(
            "scripts/strongswan-bench.sh ({} set): two charons in network namespaces on this host; load average {:.2} before, {:.2} after on {} logical CPUs",
            m.set, m.load_before, m.load_after, m.cpus
        ),
    );
    let mut put = |term: Term, value: f64, fitted: &[String], source: String| {
        let spread = t.spreads.get(&term).copied();
        imp.insert_term(term, value, spread, fitted.to_vec(), source);
    };
    put_one_at_a_time(&mut put, &t);
    put_storms(&mut put, &t, m);
    put_esp(&mut put, &t, m);
    put_exchanges(&mut put, &t, m);
    Ok(imp)
}

/// Puts the terms fitted to the set-ups one at a time: each daemon's work per SA \[ns\], the
/// set-up's latency without crypto \[ns\] and the certificate handling \[ns\].
fn put_one_at_a_time(put: &mut impl FnMut(Term, f64, &[String], String), t: &Terms) {
    let setup = vec!["ike.setup.psk".to_owned()];
    let cert = vec![format!("ike.setup.{FIT_CERT}")];
    let xchg = LESS_KEY_EXCHANGE;
    put(
        Term::IkeDaemonInitiatorIdle,
        t.initiator_idle_ns,
        &setup,
        format!(
            "initiator CPU per PSK IKE SA set up one at a time (every thread's run time), {xchg}"
        ),
    );
    put(
        Term::IkeDaemonResponderIdle,
        t.responder_idle_ns,
        &setup,
        format!("responder CPU per PSK IKE SA set up one at a time, {xchg}"),
    );
    put(
        Term::IkeLatency,
        t.latency_ns,
        &setup,
        "median PSK set-up latency (first IKE_SA_INIT request to IKE_AUTH response on the capture's clock) less the key exchange on its critical path".into(),
    );
    for (i, (term, side)) in [
        (Term::IkeCertificateInitiator, "initiator"),
        (Term::IkeCertificateResponder, "responder"),
        (Term::IkeCertificateLatency, "latency"),
    ]
    .into_iter()
    .enumerate()
    {
        put(
            term,
            t.certificate_ns[i],
            &cert,
            format!(
                "what an {FIT_CERT}-certificate set-up costs ({side}) beyond a PSK one, less its signatures (OpenSSL's): certificate parsing, trust chain, larger IKE_AUTH"
            ),
        );
    }
}

/// Puts the terms fitted to the storms: the state work per held SA \[ns\], each daemon's work
/// per SA loaded and alone \[ns\], certificate handling in a storm \[ns\], the rekey work
/// \[ns\], the parallelism \[cores\] and the host's logical CPUs.
fn put_storms(put: &mut impl FnMut(Term, f64, &[String], String), t: &Terms, m: &Measurements) {
    let storm = vec![format!("ike.storm.{FIT_STORM}.time")];
    let xchg = LESS_KEY_EXCHANGE;
    if let Some(n) = t.growth_storm {
        let from = vec![
            format!("ike.storm.{FIT_STORM}.cpu"),
            format!("ike.storm.{n}.cpu"),
        ];
        put_pair(
            put,
            [
                Term::IkeDaemonInitiatorPerHeldSa,
                Term::IkeDaemonResponderPerHeldSa,
            ],
            t.per_held_ns,
            &from,
            |side, held| {
                format!(
                    "{side} CPU per message received per IKE SA held: the growth of its CPU per SA from the PSK storm of {FIT_STORM} to that of {n} over {held} held-SA charges per SA (N - {FIT_STORM} here), 0 where it fell"
                )
            },
        );
    }
    put(
        Term::IkeDaemonInitiatorLoaded,
        t.initiator_loaded_ns,
        &storm,
        format!("initiator CPU per SA in a storm of {FIT_STORM} PSK IKE SAs, {xchg}"),
    );
    put(
        Term::IkeDaemonResponderLoaded,
        t.responder_loaded_ns,
        &storm,
        format!("responder CPU per SA in a storm of {FIT_STORM} PSK IKE SAs, {xchg}"),
    );
    if let Some(alone) = t.alone_ns {
        let from = vec![format!("ike.storm.psk.pinned.{FIT_STORM}.time")];
        put_pair(
            put,
            [Term::IkeDaemonInitiatorAlone, Term::IkeDaemonResponderAlone],
            alone,
            &from,
            |side, _| {
                format!(
                    "{side} CPU per SA in a storm of {FIT_STORM} PSK IKE SAs with each daemon pinned to a CPU of its own (the responder on CPU 0, the initiators' on CPU 1), {xchg}"
                )
            },
        );
    }
    if let Some(cert) = t.certificate_loaded_ns {
        let from = vec![
            format!("ike.storm.{FIT_CERT}.shared.{FIT_STORM}.time"),
            format!("ike.storm.{FIT_STORM}.cpu"),
        ];
        put_pair(
            put,
            [
                Term::IkeCertificateInitiatorLoaded,
                Term::IkeCertificateResponderLoaded,
            ],
            cert,
            &from,
            |side, _| {
                format!(
                    "{side} CPU per SA in a storm of {FIT_STORM} {FIT_CERT}-certificate IKE SAs beyond that in the PSK storm of {FIT_STORM}, both daemons sharing the host's cores, less the difference in OpenSSL's key ops and signatures: certificate handling in a storm"
                )
            },
        );
    }
    if let (Some(n), Some(held)) = (t.alone_growth_storm, t.alone_per_held_ns) {
        let from = vec![
            format!("ike.storm.psk.pinned.{FIT_STORM}.time"),
            format!("ike.storm.psk.pinned.{n}.time"),
        ];
        put_pair(
            put,
            [
                Term::IkeDaemonInitiatorAlonePerHeldSa,
                Term::IkeDaemonResponderAlonePerHeldSa,
            ],
            held,
            &from,
            |side, charges| {
                format!(
                    "{side} CPU per message received per IKE SA held, each daemon pinned to a CPU of its own: the growth of its CPU per SA from the pinned PSK storm of {FIT_STORM} to that of {n} over {charges} held-SA charges per SA (N - {FIT_STORM} here), 0 where it fell"
                )
            },
        );
    }
    if let Some(rekey) = t.rekey_ns {
        let mut from = vec![format!("ike.rekey.{FIT_REKEY}.cpu")];
        if let Some(n) = t.growth_storm {
            from.push(format!("ike.storm.{FIT_STORM}.cpu"));
            from.push(format!("ike.storm.{n}.cpu"));
        }
        put_pair(
            put,
            [Term::IkeRekeyInitiatorLoaded, Term::IkeRekeyResponderLoaded],
            rekey,
            &from,
            |side, _| {
                format!(
                    "{side} CPU per Child SA rekeyed in a rekey storm of {FIT_REKEY} (every Child SA rekeyed at once, both daemons sharing the host's cores: its CREATE_CHILD_SA and the old Child SA's deletion, as far as the bench's window holds it), less ike.daemon.{side}.per_held_sa on its two messages received at {FIT_REKEY} IKE SAs held"
                )
            },
        );
    }
    put(
        Term::IkeParallelism,
        t.parallelism,
        &storm,
        format!(
            "cores' worth of work both daemons did in the storm of {FIT_STORM}: (N - 1) x CPU per SA / (storm time - one set-up), on {} logical CPUs",
            m.cpus
        ),
    );
    put(
        Term::IkeHostCpus,
        f64::from(m.cpus),
        &[],
        "logical CPUs of the host the daemons shared".into(),
    );
    if let Some(threads) = t.threads {
        put(
            Term::IkeThreads,
            f64::from(threads),
            &[format!("ike.storm.{FIT_STORM}.idle_workers")],
            format!(
                "the fewest worker threads either charon had idle before a run of the PSK storm of {FIT_STORM} (swanctl --stats): charon's threads less those its long-running jobs hold, the most cores a daemon's jobs run on at once"
            ),
        );
    }
}

/// Puts the data-path terms, when the file has the ESP workloads: `esp.per_packet`,
/// `esp.latency` and `esp.openssl.per_packet` \[ns\].
fn put_esp(put: &mut impl FnMut(Term, f64, &[String], String), t: &Terms, m: &Measurements) {
    if let Some(pp) = t.esp_per_packet_ns {
        put(
            Term::EspPerPacket,
            pp,
            &[format!("esp.tput.{FIT_SUITE}")],
            format!(
                "{} data path's bottleneck time per TCP segment (iperf3 through the AES-256-GCM Child SA), less the AES-256-GCM seal at the segment's length (OpenSSL's)",
                m.data_path
            ),
        );
    }
    if let Some(l) = t.esp_latency_ns {
        put(
            Term::EspLatency,
            l,
            &[format!("esp.rtt.{FIT_SUITE}.64")],
            "what ESP adds to a 64-byte ping's median RTT over the same path without IPsec, less four AES-256-GCM calls".into(),
        );
    }
    if let Some(o) = t.esp_openssl_per_packet_ns {
        put(
            Term::EspOpensslPerPacket,
            o,
            &[format!("esp.tput.{FIT_OPENSSL_SUITE}")],
            format!(
                "{} data path's time per TCP segment through the ChaCha20-Poly1305 Child SA (strongSwan's openssl plugin) less `esp.per_packet` and the ChaCha20-Poly1305 seal at the segment's length (OpenSSL's); at least 0",
                m.data_path
            ),
        );
    }
}

/// Puts the per-exchange terms, when the file has the per-exchange times and the `child`
/// workload: each exchange's median and the Child SA installation \[ns\].
fn put_exchanges(put: &mut impl FnMut(Term, f64, &[String], String), t: &Terms, m: &Measurements) {
    if let Some(x) = &t.exchanges {
        let path = &m.data_path;
        let [init, auth, create, refused] = EXCHANGE_FITTED_TO.map(|s| vec![s.to_owned()]);
        let both = [create.clone(), refused.clone()].concat();
        let capture =
            "request -> response on the capture of the IKE port (tcpdump on the initiator's veth)";
        put(
            Term::IkeExchangeInit,
            x.init_ns,
            &init,
            format!("median IKE_SA_INIT of the PSK set-ups one at a time, {capture}"),
        );
        put(
            Term::IkeExchangeAuth,
            x.auth_ns,
            &auth,
            format!(
                "median IKE_AUTH (PSK, with its Child SA installed, {path}) of the PSK set-ups one at a time, {capture}"
            ),
        );
        put(
            Term::IkeExchangeCreateChild,
            x.create_ns,
            &create,
            format!(
                "median CREATE_CHILD_SA (no KE payload: no PFS; the responder installs the Child SA, {path}, before it answers) on one established PSK IKE SA, one at a time, {capture}"
            ),
        );
        put(
            Term::IkeExchangeCreateChildRefused,
            x.refused_ns,
            &refused,
            format!(
                "median CREATE_CHILD_SA the responder refuses with TS_UNACCEPTABLE (nothing installed), on the same IKE SA, {capture}"
            ),
        );
        put(
            Term::IkeExchangeHandling,
            x.handling_ns,
            &init,
            format!(
                "median IKE_SA_INIT of the PSK set-ups ({capture}) less the responder's X25519 keygen + agree (OpenSSL's cost): the exchange's handling without its key exchange, and without a Child SA"
            ),
        );
        put(
            Term::IkeChildSaInstall,
            x.install_ns,
            &both,
            format!(
                "what installing a Child SA (two SAs and their policies: {}) adds to an exchange: the median CREATE_CHILD_SA exchange (no PFS) less the median CREATE_CHILD_SA exchange the responder refuses (TS_UNACCEPTABLE: the same messages parsed and answered, nothing installed; it also skips the proposal selection, nonce and key derivation, a few us), {capture}: the responder's installation, which comes before its response (the initiator's, after the response, lies outside the window); its spread is the CREATE_CHILD_SA series'",
                data_path_words(path)
            ),
        );
        put(Term::IkeChildSaInstallInitiatorCpu, x.install_initiator_cpu_ns, &both, "initiator CPU (every thread's run time) per Child SA less its CPU per refused CREATE_CHILD_SA".into());
        put(Term::IkeChildSaInstallResponderCpu, x.install_responder_cpu_ns, &both, "responder CPU (every thread's run time) per Child SA less its CPU per refused CREATE_CHILD_SA".into());
    }
}
