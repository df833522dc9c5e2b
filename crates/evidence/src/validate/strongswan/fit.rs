//! The fit: each implementation term from the one measurement named in the module docs of
//! [`super`], less OpenSSL's measured costs of the key ops, signatures and ciphers.

use std::collections::BTreeMap;

use model::scenario::ike_auth_work;
use profile::{KeyAction, KeyAlg, KeyOp, Term};
use serde::Serialize;

use super::workloads::{StormRuns, child, esp, median, placed_storms, rekeys, setups, storms};
use super::{
    FIT_CERT, FIT_OPENSSL_SUITE, FIT_REKEY, FIT_STORM, FIT_SUITE, GROWTH_STORM_MOST,
    MEASURE_SCHEMA, MeasureError, Measurements, OpensslCosts, Workload, tcp_payload,
};
use crate::validate::Measured;

/// The cost of `op` at `len` bytes, interpolated between OpenSSL's measured lengths (a key op
/// has one point at length 0).
pub(super) fn cost(ops: &OpensslCosts, op: &str, len: f64) -> Result<f64, MeasureError> {
    let pts = ops
        .get(op)
        .filter(|p| !p.is_empty())
        .ok_or_else(|| MeasureError(format!("openssl speed measured no `{op}`")))?;
    if pts.len() == 1 {
        return Ok(pts[0].1);
    }
    let mut p = pts.clone();
    p.sort_by_key(|x| x.0);
    let i = p
        .windows(2)
        .position(|w| len <= w[1].0 as f64)
        .unwrap_or(p.len() - 2);
    let ((l0, c0), (l1, c1)) = ((p[i].0 as f64, p[i].1), (p[i + 1].0 as f64, p[i + 1].1));
    Ok(c0 + (c1 - c0) * (len - l0) / (l1 - l0))
}

/// Key-exchange and signature work of one IKE SA with `auth` \[ns\]: (initiator before the
/// IKE_SA_INIT request, responder, initiator after the response; initiator before IKE_AUTH,
/// responder, initiator after it), as the scenario's handshake source charges it.
pub(super) fn crypto(ops: &OpensslCosts, auth: &str) -> Result<[f64; 6], MeasureError> {
    let x25519 = |action| KeyOp::of(KeyAlg::X25519, action).to_string();
    let (keygen, agree) = (x25519(KeyAction::Keygen), x25519(KeyAction::Agree));
    let keygen = cost(ops, &keygen, 0.0).or_else(|_| cost(ops, &agree, 0.0))?;
    let agree = cost(ops, &agree, 0.0)?;
    let (b, r, a) = match auth {
        "psk" => (0.0, 0.0, 0.0),
        alg => {
            let side = [
                cost(ops, &format!("{alg}.sign"), 0.0)?,
                cost(ops, &format!("{alg}.verify"), 0.0)?,
            ];
            // The AUTH payload and the end-entity certificate (signed by the trusted CA).
            ike_auth_work(side, side, 2.0)
        }
    };
    Ok([keygen, keygen + agree, agree, b, r, a])
}

/// The per-SA crypto at (initiator, responder), and on the set-up's critical path \[ns\].
pub(super) fn crypto_split(c: &[f64; 6]) -> (f64, f64, f64) {
    let init = c[0] + c[2] + c[3] + c[5];
    let resp = c[1] + c[4];
    (init, resp, init + resp)
}

/// What the fit found, each with the measurement it was fitted to.
#[derive(Debug, Clone, Serialize)]
pub struct Terms {
    /// Initiator daemon work per SA, one at a time \[ns\].
    pub initiator_idle_ns: f64,
    /// Responder daemon work per SA, one at a time \[ns\].
    pub responder_idle_ns: f64,
    /// One set-up's latency without its crypto \[ns\].
    pub latency_ns: f64,
    /// Initiator daemon work per SA in a storm \[ns\].
    pub initiator_loaded_ns: f64,
    /// Responder daemon work per SA in a storm \[ns\].
    pub responder_loaded_ns: f64,
    /// Daemon work per SA in a storm with each daemon on a CPU of its own, \[initiator,
    /// responder\] \[ns\] (`ike.daemon.{initiator,responder}.alone`, fitted to the pinned PSK
    /// storm of [`FIT_STORM`]); `None` without that storm.
    pub alone_ns: Option<[f64; 2]>,
    /// [`Terms::per_held_ns`] with each daemon on a CPU of its own
    /// (`ike.daemon.{initiator,responder}.alone_per_held_sa`), fitted to the growth of the CPU
    /// per SA from the pinned PSK storm of [`FIT_STORM`] to the pinned one of
    /// [`Terms::alone_growth_storm`]; `None` without both.
    pub alone_per_held_ns: Option<[f64; 2]>,
    /// The pinned storm the alone per-held work was fitted to, if any.
    pub alone_growth_storm: Option<u32>,
    /// Cores' worth of work both daemons get done in a storm.
    pub parallelism: f64,
    /// Worker threads free for IKE jobs (`ike.threads`): the fewest idle before a run of the
    /// storm of [`FIT_STORM`]; `None` when the file did not count them.
    pub threads: Option<u32>,
    /// State-dependent work \[ns\] per message received per IKE SA held, \[initiator,
    /// responder\] (`ike.daemon.{initiator,responder}.per_held_sa`), fitted to the growth of
    /// the CPU per SA from the storm of [`FIT_STORM`] to the largest PSK storm of at least 4x
    /// that size and at most [`GROWTH_STORM_MOST`] ([`Terms::growth_storm`]); zero without
    /// one, or where it did not grow.
    pub per_held_ns: [f64; 2],
    /// The storm the per-held work was fitted to, if any.
    pub growth_storm: Option<u32>,
    /// Certificate handling per SA beyond its signatures (parsing, trust chain, larger
    /// messages) at the initiator, the responder, and on the set-up's critical path \[ns\].
    pub certificate_ns: [f64; 3],
    /// Daemon work per Child SA rekeyed in a rekey storm beyond its state work, \[initiator,
    /// responder\] \[ns\] (`ike.rekey.{initiator,responder}.loaded`): the rekey storm of
    /// [`FIT_REKEY`]'s CPU per Child SA less [`Terms::per_held_ns`] on each of the two messages
    /// each side receives, at [`FIT_REKEY`] IKE SAs held; `None` without that storm.
    pub rekey_ns: Option<[f64; 2]>,
    /// Certificate handling per SA in a storm, \[initiator, responder\] \[ns\]
    /// (`ike.certificate.{initiator,responder}.loaded`): the Ed25519 storm of [`FIT_STORM`]'s
    /// CPU per SA beyond the PSK one's, less the signatures, both daemons sharing the host's
    /// cores; `None` without that storm.
    pub certificate_loaded_ns: Option<[f64; 2]>,
    /// The ESP data path's bottleneck time per TCP segment without the cipher \[ns\]; `None`
    /// without ESP measurements.
    pub esp_per_packet_ns: Option<f64>,
    /// What ESP adds to a ping's round trip without the cipher \[ns\].
    pub esp_latency_ns: Option<f64>,
    /// What a packet costs beyond `esp_per_packet_ns` when the openssl plugin does its AEAD
    /// \[ns\] (fitted to [`FIT_OPENSSL_SUITE`]'s throughput; at least 0); `None` without that
    /// measurement.
    pub esp_openssl_per_packet_ns: Option<f64>,
    /// The per-exchange times; `None` without the set-ups' per-exchange times and the `child`
    /// workload (files written before the bench recorded them).
    pub exchanges: Option<Exchanges>,
    /// Spreads ((max - min) / median) of the fitted measurements, by term.
    pub spreads: BTreeMap<Term, f64>,
}

/// Per-exchange times on the capture (request -> response) and the Child SA installation term
/// derived from them (module docs).
#[derive(Debug, Clone, Serialize)]
pub struct Exchanges {
    /// PSK set-up's IKE_SA_INIT, median \[ns\].
    pub init_ns: f64,
    /// PSK set-up's IKE_AUTH (with its Child SA), median \[ns\].
    pub auth_ns: f64,
    /// CREATE_CHILD_SA without PFS, median \[ns\].
    pub create_ns: f64,
    /// CREATE_CHILD_SA refused by the responder (TS_UNACCEPTABLE), median \[ns\].
    pub refused_ns: f64,
    /// IKE_SA_INIT less the responder's X25519 keygen + agree (OpenSSL's) \[ns\].
    pub handling_ns: f64,
    /// What installing a Child SA adds to an exchange: `create_ns - refused_ns` \[ns\].
    pub install_ns: f64,
    /// The initiator's CPU per Child SA less its CPU per refusal \[ns\].
    pub install_initiator_cpu_ns: f64,
    /// The responder's CPU per Child SA less its CPU per refusal \[ns\].
    pub install_responder_cpu_ns: f64,
    /// Spreads ((max - min) / median) of the IKE_SA_INIT, IKE_AUTH, CREATE_CHILD_SA and refused
    /// series.
    pub spreads: [f64; 4],
}

/// The per-exchange terms, when the file has the PSK set-up's per-exchange times and the `child`
/// workload; a refusal when a term comes out negative.
pub(super) fn exchanges(
    m: &Measurements,
    ops: &OpensslCosts,
) -> Result<Option<Exchanges>, MeasureError> {
    let psk = m.rows.iter().find_map(|w| match w {
        Workload::Setup {
            auth,
            init_ms,
            auth_ms,
            ..
        } if auth == "psk" => Some((Measured::of(init_ms)?, Measured::of(auth_ms)?)),
        _ => None,
    });
    let (Some((init, auth)), Some((create, refused, cpu))) = (psk, child(m)) else {
        return Ok(None);
    };
    if m.rows
        .iter()
        .any(|w| matches!(w, Workload::Child { pfs: true, .. }))
    {
        return Err(MeasureError(
            "the `child` workload's CREATE_CHILD_SA exchanges carried a KE payload (pfs = true): `ike.child_sa.install` is fitted to exchanges without one".into(),
        ));
    }
    let kr = crypto(ops, "psk")?[1];
    Ok(Some(Exchanges {
        init_ns: init.median * 1e6,
        auth_ns: auth.median * 1e6,
        create_ns: create.median * 1e6,
        refused_ns: refused.median * 1e6,
        handling_ns: nonneg(Term::IkeExchangeHandling, init.median * 1e6 - kr)?,
        install_ns: below_refused(
            Term::IkeChildSaInstall,
            "median CREATE_CHILD_SA exchange",
            (create.median - refused.median) * 1e6,
        )?,
        install_initiator_cpu_ns: below_refused(
            Term::IkeChildSaInstallInitiatorCpu,
            "initiator's CPU per Child SA",
            cpu[0] - cpu[2],
        )?,
        install_responder_cpu_ns: below_refused(
            Term::IkeChildSaInstallResponderCpu,
            "responder's CPU per Child SA",
            cpu[1] - cpu[3],
        )?,
        spreads: [init, auth, create, refused].map(|x| x.spread_pct() / 100.0),
    }))
}

/// Fits the terms to the measurements named in the module docs.
pub fn fit(m: &Measurements, ops: &OpensslCosts) -> Result<Terms, MeasureError> {
    if m.schema != MEASURE_SCHEMA {
        return Err(MeasureError(format!(
            "schema `{}` is not {MEASURE_SCHEMA}",
            m.schema
        )));
    }
    m.check()?;
    let s = setups(m);
    let (lat, ci, cr, _) = *s
        .get("psk")
        .ok_or_else(|| MeasureError("no PSK set-up measured (`ike.setup.psk`)".into()))?;
    let (ki, kr, kpath) = crypto_split(&crypto(ops, "psk")?);
    let mut spreads = BTreeMap::new();
    spreads.insert(Term::IkeLatency, lat.spread_pct() / 100.0);
    let st = storms(m);
    let runs = st.get(&FIT_STORM).ok_or_else(|| {
        MeasureError(format!(
            "no storm of {FIT_STORM} measured (`ike.storm.{FIT_STORM}`)"
        ))
    })?;
    let first: Vec<f64> = runs.iter().map(|r| r.1).collect();
    let cpu_i: Vec<f64> = runs.iter().map(|r| r.3).collect();
    let cpu_r: Vec<f64> = runs.iter().map(|r| r.4).collect();
    let (t50, li, lr) = (
        Measured::of(&first).ok_or_else(|| MeasureError("storm times not finite".into()))?,
        median(&cpu_i).unwrap_or(0.0),
        median(&cpu_r).unwrap_or(0.0),
    );
    spreads.insert(Term::IkeParallelism, t50.spread_pct() / 100.0);
    let latency_ns = lat.median * 1e6 - kpath;
    let span_ns = t50.median * 1e6 - lat.median * 1e6;
    if span_ns <= 0.0 {
        return Err(MeasureError(format!(
            "the storm of {FIT_STORM} ({:.3} ms) was no longer than one set-up ({:.3} ms): no parallelism can be fitted",
            t50.median, lat.median
        )));
    }
    let parallelism = f64::from(FIT_STORM - 1) * (li + lr) / span_ns;
    if !(parallelism.is_finite() && parallelism > 0.0) {
        return Err(MeasureError(format!(
            "`ike.storm.{FIT_STORM}`: the daemons' CPU per SA ({:.0} us) gives no parallelism",
            (li + lr) / 1e3
        )));
    }
    // Certificate handling, fitted to the Ed25519 set-up: what it costs beyond PSK's, less its
    // signatures.
    let (ei, er, epath) = crypto_split(&crypto(ops, FIT_CERT)?);
    let (lat_c, ci_c, cr_c, _) = *s.get(FIT_CERT).ok_or_else(|| {
        MeasureError(format!(
            "no {FIT_CERT} set-up measured (`ike.setup.{FIT_CERT}`)"
        ))
    })?;
    let certificate_ns = [
        nonneg(Term::IkeCertificateInitiator, ci_c - ci - (ei - ki))?,
        nonneg(Term::IkeCertificateResponder, cr_c - cr - (er - kr))?,
        nonneg(
            Term::IkeCertificateLatency,
            (lat_c.median - lat.median) * 1e6 - (epath - kpath),
        )?,
    ];
    let certificate_loaded_ns = certificate_loaded(m, [li, lr], [ei - ki, er - kr], &mut spreads)?;
    // State: the growth of the CPU per SA from the fit storm to a larger one (`growth`).
    let (growth_storm, per_held_ns) = growth(&st, li, lr).unzip();
    let per_held_ns = per_held_ns.unwrap_or([0.0; 2]);
    let rekey_ns = rekey(m, per_held_ns, &mut spreads)?;
    let (alone_ns, alone_growth) = alone(m, [ki, kr], &mut spreads)?;
    let (alone_growth_storm, alone_per_held_ns) = alone_growth.unzip();
    let mut terms = Terms {
        alone_ns,
        alone_per_held_ns,
        alone_growth_storm,
        per_held_ns,
        growth_storm,
        certificate_ns,
        certificate_loaded_ns,
        rekey_ns,
        initiator_idle_ns: nonneg(Term::IkeDaemonInitiatorIdle, ci - ki)?,
        responder_idle_ns: nonneg(Term::IkeDaemonResponderIdle, cr - kr)?,
        latency_ns: nonneg(Term::IkeLatency, latency_ns)?,
        initiator_loaded_ns: nonneg(Term::IkeDaemonInitiatorLoaded, li - ki)?,
        responder_loaded_ns: nonneg(Term::IkeDaemonResponderLoaded, lr - kr)?,
        parallelism,
        threads: super::workloads::idle_workers(m),
        esp_per_packet_ns: None,
        esp_latency_ns: None,
        esp_openssl_per_packet_ns: None,
        exchanges: exchanges(m, ops)?,
        spreads,
    };
    if let Some(x) = &terms.exchanges {
        // The installation term's spread is its CREATE_CHILD_SA series'.
        for (term, i) in [
            (Term::IkeExchangeInit, 0),
            (Term::IkeExchangeHandling, 0),
            (Term::IkeExchangeAuth, 1),
            (Term::IkeExchangeCreateChild, 2),
            (Term::IkeChildSaInstall, 2),
            (Term::IkeExchangeCreateChildRefused, 3),
        ] {
            terms.spreads.insert(term, x.spreads[i]);
        }
    }
    fit_esp(m, ops, &mut terms)?;
    Ok(terms)
}

/// Certificate handling in a storm, \[initiator, responder\] \[ns\]: the Ed25519 storm of the
/// fit's size ([`FIT_CERT`], [`FIT_STORM`], daemons sharing the host's cores) beyond `psk`,
/// the PSK storm's CPU per SA \[ns\], less `signatures`, the difference in OpenSSL's key ops
/// and signatures \[ns\]; `None` without that storm.
fn certificate_loaded(
    m: &Measurements,
    psk: [f64; 2],
    signatures: [f64; 2],
    spreads: &mut BTreeMap<Term, f64>,
) -> Result<Option<[f64; 2]>, MeasureError> {
    let placed = placed_storms(m);
    let Some(runs) = placed
        .get(&(FIT_CERT.to_owned(), "shared".to_owned()))
        .and_then(|sizes| sizes.get(&FIT_STORM))
    else {
        return Ok(None);
    };
    let terms = [
        Term::IkeCertificateInitiatorLoaded,
        Term::IkeCertificateResponderLoaded,
    ];
    let id = format!("ike.storm.{FIT_CERT}.shared.{FIT_STORM}");
    let [ci_s, cr_s] = storm_cpu(runs, &id, terms, spreads)?;
    Ok(Some([
        nonneg(
            Term::IkeCertificateInitiatorLoaded,
            ci_s - psk[0] - signatures[0],
        )?,
        nonneg(
            Term::IkeCertificateResponderLoaded,
            cr_s - psk[1] - signatures[1],
        )?,
    ]))
}

/// The rekey terms, \[initiator, responder\] \[ns\]: the rekey storm of [`FIT_REKEY`]'s CPU per
/// Child SA, less the state work the engine charges it there (each side receives two messages
/// per rekey, each at [`FIT_REKEY`] held SAs, `per_held_ns` \[ns\] each); `None` without that
/// storm.
fn rekey(
    m: &Measurements,
    per_held_ns: [f64; 2],
    spreads: &mut BTreeMap<Term, f64>,
) -> Result<Option<[f64; 2]>, MeasureError> {
    let Some(runs) = rekeys(m).remove(&FIT_REKEY) else {
        return Ok(None);
    };
    let terms = [Term::IkeRekeyInitiatorLoaded, Term::IkeRekeyResponderLoaded];
    let id = format!("ike.rekey.{FIT_REKEY}");
    let cpu = side_cpu(runs.iter().map(|r| [r.1, r.2]), &id, terms, spreads)?;
    let state = |side: usize| 2.0 * f64::from(FIT_REKEY) * per_held_ns[side];
    Ok(Some([
        nonneg(terms[0], cpu[0] - state(0))?,
        nonneg(terms[1], cpu[1] - state(1))?,
    ]))
}

/// The alone work per SA, \[initiator, responder\] \[ns\], and the pinned growth storm with
/// its per-held work \[ns\] ([`growth`]).
type Alone = (Option<[f64; 2]>, Option<(u32, [f64; 2])>);

/// The alone terms from the pinned PSK storms, each daemon on a CPU of its own: the storm of
/// the fit's size gives the work per SA, \[initiator, responder\] \[ns\], less the key
/// exchange's `kex` \[ns\]; the largest of 200 to 2000 its growth (as [`growth`] for the shared
/// ones). `None` without the pinned storm of [`FIT_STORM`].
fn alone(
    m: &Measurements,
    kex: [f64; 2],
    spreads: &mut BTreeMap<Term, f64>,
) -> Result<Alone, MeasureError> {
    let pinned = placed_storms(m)
        .remove(&("psk".to_owned(), "pinned".to_owned()))
        .unwrap_or_default();
    let Some(runs) = pinned.get(&FIT_STORM) else {
        return Ok((None, None));
    };
    let terms = [Term::IkeDaemonInitiatorAlone, Term::IkeDaemonResponderAlone];
    let id = format!("ike.storm.psk.pinned.{FIT_STORM}");
    let [pi, pr] = storm_cpu(runs, &id, terms, spreads)?;
    let alone = [
        nonneg(Term::IkeDaemonInitiatorAlone, pi - kex[0])?,
        nonneg(Term::IkeDaemonResponderAlone, pr - kex[1])?,
    ];
    Ok((Some(alone), growth(&pinned, pi, pr)))
}

/// The data-path terms into `terms`, when the file has the fitted suite's ([`FIT_SUITE`]) and
/// the plain path's ESP runs: `esp.per_packet` and `esp.latency` \[ns\], and from
/// [`FIT_OPENSSL_SUITE`]'s throughput `esp.openssl.per_packet` \[ns\].
fn fit_esp(m: &Measurements, ops: &OpensslCosts, terms: &mut Terms) -> Result<(), MeasureError> {
    let (Some((rtt, tput, mtu)), Some((plain_rtt, _, _))) = (esp(m, FIT_SUITE), esp(m, "plain"))
    else {
        return Ok(());
    };
    // A segment's payload and the packet its cipher protects: TCP with timestamps, as the
    // engine's TCP rows send it (`engine_tcp`).
    let seg = f64::from(tcp_payload(mtu));
    let t = Measured::of(tput).ok_or_else(|| MeasureError("ESP throughput not finite".into()))?;
    if t.median <= 0.0 {
        return Err(MeasureError(format!(
            "`esp.tput.{FIT_SUITE}`: a median of {} Mbit/s is no throughput",
            t.median
        )));
    }
    let per_seg = seg * 8.0 / (t.median * 1e6) * 1e9;
    terms.esp_per_packet_ns = Some(nonneg(
        Term::EspPerPacket,
        per_seg - cost(ops, "aes256-gcm.seal", f64::from(mtu))?,
    )?);
    terms
        .spreads
        .insert(Term::EspPerPacket, t.spread_pct() / 100.0);
    if let (Some(e), Some(p)) = (
        rtt.get("64").and_then(|v| median(v)),
        plain_rtt.get("64").and_then(|v| median(v)),
    ) {
        let ciphers = 4.0 * cost(ops, "aes256-gcm.seal", 64.0 + 28.0)?;
        terms.esp_latency_ns = Some(nonneg(Term::EspLatency, (e - p) * 1e6 - ciphers)?);
    }
    // The openssl plugin: what its suite's time per segment adds to the AES-256-GCM
    // suite's beyond the two ciphers' costs (at least 0: a suite no slower than aesni's
    // gives no plugin cost).
    if let Some((_, tput, mtu)) = esp(m, FIT_OPENSSL_SUITE)
        && let Some(t) = Measured::of(tput).filter(|t| t.median > 0.0)
        && let Some(pp) = terms.esp_per_packet_ns
    {
        let seg = f64::from(tcp_payload(mtu));
        let per_seg = seg * 8.0 / (t.median * 1e6) * 1e9;
        let extra = per_seg - pp - cost(ops, "chacha20-poly1305.seal", f64::from(mtu))?;
        if !extra.is_finite() {
            return Err(MeasureError(format!(
                "`esp.tput.{FIT_OPENSSL_SUITE}`: no per-packet cost can be fitted"
            )));
        }
        terms.esp_openssl_per_packet_ns = Some(extra.max(0.0));
        terms
            .spreads
            .insert(Term::EspOpensslPerPacket, t.spread_pct() / 100.0);
    }
    Ok(())
}

/// The median CPU per SA of a storm's runs, \[initiator, responder\] \[ns\], with the spread
/// of each side's runs recorded for `terms` (the two terms fitted to them); `id` names the
/// storm in the error when no run has a CPU time.
pub(super) fn storm_cpu(
    runs: &StormRuns,
    id: &str,
    terms: [Term; 2],
    spreads: &mut BTreeMap<Term, f64>,
) -> Result<[f64; 2], MeasureError> {
    side_cpu(runs.iter().map(|r| [r.3, r.4]), id, terms, spreads)
}

/// The median of each side's CPU over `runs` (one \[initiator, responder\] pair a run, in any
/// unit), with the spread of each side's runs recorded for `terms` (the two terms fitted to
/// them); `id` names the workload in the error when no run has a CPU time (or one is not a
/// number).
pub(super) fn side_cpu(
    runs: impl Iterator<Item = [f64; 2]> + Clone,
    id: &str,
    terms: [Term; 2],
    spreads: &mut BTreeMap<Term, f64>,
) -> Result<[f64; 2], MeasureError> {
    let mut out = [0.0; 2];
    for (side, term) in terms.into_iter().enumerate() {
        let cpu: Vec<f64> = runs.clone().map(|r| r[side]).collect();
        let c = Measured::of(&cpu).ok_or_else(|| {
            MeasureError(format!("`{id}`: no CPU time measured (or not a number)"))
        })?;
        spreads.insert(term, c.spread_pct() / 100.0);
        out[side] = c.median;
    }
    Ok(out)
}

/// The state terms from storms of one placement: in the engine's storm every tunnel starts at
/// once, so the initiator holds N SAs on both responses it receives (2N held-SA charges per SA),
/// and the responder, serving first come first served, processes every IKE_SA_INIT before any
/// IKE_AUTH (N/2 on average, then N: 1.5N). The growth of the CPU per SA from the fit storm
/// (`cpu_i`, `cpu_r` \[ns\], its medians) to the largest storm of 4x to [`GROWTH_STORM_MOST`]
/// then gives the per-held work \[ns\], \[initiator, responder\], each at least 0; with that
/// storm's size. `None` without such a storm.
pub(super) fn growth(
    storms: &BTreeMap<u32, StormRuns>,
    cpu_i: f64,
    cpu_r: f64,
) -> Option<(u32, [f64; 2])> {
    let n = storms
        .keys()
        .copied()
        .filter(|&n| (4 * FIT_STORM..=GROWTH_STORM_MOST).contains(&n))
        .max()?;
    let r = storms.get(&n)?;
    let big_i: Vec<f64> = r.iter().map(|x| x.3).collect();
    let big_r: Vec<f64> = r.iter().map(|x| x.4).collect();
    let d = f64::from(n - FIT_STORM);
    Some((
        n,
        [
            ((median(&big_i).unwrap_or(cpu_i) - cpu_i) / (2.0 * d)).max(0.0),
            ((median(&big_r).unwrap_or(cpu_r) - cpu_r) / (1.5 * d)).max(0.0),
        ],
    ))
}

/// `v` when it is a cost (finite, >= 0); otherwise the measurement is not meaningful (the
/// implementation took less than OpenSSL's crypto alone), and the error names the term.
pub(super) fn nonneg(term: Term, v: f64) -> Result<f64, MeasureError> {
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(MeasureError(format!(
            "term `{term}` comes out at {:.1} us: the measurement it is fitted to is below OpenSSL's crypto alone (or not a number), so it cannot be fitted; re-measure on a quiet host",
            v / 1e3
        )))
    }
}

/// `v` when it is a cost (finite, >= 0); otherwise the `child` workload's Child SAs took less
/// than its refusals, which install nothing, and the error names the term.
pub(super) fn below_refused(term: Term, what: &str, v: f64) -> Result<f64, MeasureError> {
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(MeasureError(format!(
            "term `{term}` comes out at {:.1} us: the `child` workload's {what} is below the same figure for the refused exchanges, which install nothing (or not a number), so it cannot be fitted; re-measure on a quiet host",
            v / 1e3
        )))
    }
}

/// The measurement ids the terms were fitted to.
pub fn fitted_to() -> Vec<String> {
    vec![
        "ike.setup.psk".into(),
        "ike.cpu.psk.responder".into(),
        format!("ike.setup.{FIT_CERT}"),
        format!("ike.cpu.{FIT_CERT}.responder"),
        format!("ike.storm.{FIT_STORM}.time"),
        format!("ike.storm.{FIT_STORM}.cpu"),
        format!("esp.tput.{FIT_SUITE}"),
        format!("esp.rtt.{FIT_SUITE}.64"),
    ]
}
