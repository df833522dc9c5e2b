//! The rows of `oransim validate strongswan`: each measured workload beside its prediction
//! from the fitted terms (engine runs for the storms and the data path), fitted rows marked,
//! each anchored at the fitted measurement it extends.

use std::collections::BTreeMap;

use super::engine::{engine_ping, engine_rekey, engine_storm_placed, engine_tcp, with_table};
use super::fit::{crypto, crypto_split};
use super::loss::loss_rows;
use super::workloads::{
    esp, esp_by_mss, median, placed_storms, rekeys, setups, storms, table_storms,
};
use super::{
    ESP_SUITES, FIT_CERT, FIT_OPENSSL_SUITE, FIT_REKEY, FIT_STORM, FIT_SUITE, MeasureError,
    Measurements, OpensslCosts, PING_SIZES, Terms, fit, fitted_to, tcp_payload,
};
use crate::ledger::Anchor;
use crate::validate::{Measured, Row, RowClass, Rule, Validation};

/// The storm and rekey rows `profile`'s implementation terms were fitted to (their
/// `fitted_to`), each with its twin: a storm's CPU per SA and its time are one workload, so a
/// term fitted to either sets both in the engine (`ike.storm.50.cpu` makes
/// `ike.storm.50.time` fitted too; a placed storm, `ike.storm.psk.pinned.50.time`, has no CPU
/// row). In the order first named.
pub(super) fn storm_fits(profile: &profile::Profile) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let terms = profile.real_implementation().map(|i| &i.terms);
    for id in terms.into_iter().flatten().flat_map(|(_, t)| &t.fitted_to) {
        // Only a storm of the default placement and a rekey storm have a CPU row
        // (`ike.storm.<N>.cpu`, `ike.rekey.<N>.cpu`).
        let twin = id
            .strip_suffix(".cpu")
            .map(|w| format!("{w}.time"))
            .or_else(|| {
                id.strip_suffix(".time")
                    .filter(|w| w.split('.').count() == 3)
                    .map(|w| format!("{w}.cpu"))
            });
        for x in std::iter::once(id.clone()).chain(twin) {
            if !out.contains(&x) {
                out.push(x);
            }
        }
    }
    out
}

/// Every row: measured beside predicted, fitted rows marked. The storms are engine runs
/// ([`engine_storm`](super::engine_storm)) with `profile`: the one `calibrate --run strongswan`
/// writes from the same file (or one the user names), whose key ops and ciphers are OpenSSL's
/// and whose terms are the fit's.
pub fn validate(
    m: &Measurements,
    ops: &OpensslCosts,
    profile: &profile::Profile,
) -> Result<Validation, MeasureError> {
    let t = fit(m, ops)?;
    let fit_ids = fit_ids(&t, profile);
    let r = Rows {
        m,
        ops,
        profile,
        t: &t,
        fit_ids: &fit_ids,
    };
    let mut rows = r.setups()?;
    rows.extend(r.storms()?);
    rows.extend(r.placed_storms()?);
    rows.extend(r.table_storms()?);
    rows.extend(r.rekeys()?);
    rows.extend(r.esp());
    rows.extend(loss_rows(m, profile, &fit_ids)?);
    let rows = anchor_ike(rows);
    let mut noise = format!(
        "load average {:.2} before, {:.2} after (1-minute) on {} logical CPUs; the run took {:.0} s",
        m.load_before, m.load_after, m.cpus, m.wall_s
    );
    if let Some(n) = &m.noise {
        noise.push_str("; ");
        noise.push_str(&n.words());
    }
    Ok(Validation::new(
        "strongswan",
        format!("strongSwan {} (charon)", m.strongswan),
        m.data_path.clone(),
        m.set.clone(),
        noise,
        fit_ids,
        rows,
    ))
}

/// The ids of the fitted rows: [`fitted_to`], the storms the terms `t` were fitted to, and the
/// storm rows the engine runs of `profile` take as fitted (its terms' `fitted_to`).
fn fit_ids(t: &Terms, profile: &profile::Profile) -> Vec<String> {
    let mut fit_ids = fitted_to();
    if t.alone_ns.is_some() {
        // The alone terms are the pinned storm of the fit's size's CPU per SA (and the growth
        // to a larger pinned storm's), which set those storms' times in the engine.
        fit_ids.push(format!("ike.storm.psk.pinned.{FIT_STORM}.time"));
    }
    if let Some(n) = t.alone_growth_storm {
        fit_ids.push(format!("ike.storm.psk.pinned.{n}.time"));
    }
    if t.certificate_loaded_ns.is_some() {
        // Fitted to the Ed25519 storm of the fit's size's CPU per SA, which sets its time.
        fit_ids.push(format!("ike.storm.{FIT_CERT}.shared.{FIT_STORM}.time"));
    }
    if let Some(n) = t.growth_storm {
        // The per-held work is fitted to this storm's CPU per SA, which sets its time (as the
        // pinned growth storm's above; until 2026-11-30 its time was counted as a prediction).
        fit_ids.push(format!("ike.storm.{n}.cpu"));
        fit_ids.push(format!("ike.storm.{n}.time"));
    }
    if t.esp_openssl_per_packet_ns.is_some() {
        fit_ids.push(format!("esp.tput.{FIT_OPENSSL_SUITE}"));
    }
    if t.rekey_ns.is_some() {
        // The rekey terms are this rekey storm's CPU per Child SA, which sets its time.
        fit_ids.push(format!("ike.rekey.{FIT_REKEY}.cpu"));
        fit_ids.push(format!("ike.rekey.{FIT_REKEY}.time"));
    }
    // The storms are engine runs of `profile`: a storm row is fitted when the profile's terms
    // were fitted to that workload (on these measurements or, with `--profile`, on another
    // run's), not when this file's own fit used it.
    // (In this file's order, then the profile's: the same list when the profile was fitted
    // from these measurements.)
    let storm_row = |id: &str| id.starts_with("ike.storm.") || id.starts_with("ike.rekey.");
    let by_profile: Vec<String> = storm_fits(profile)
        .into_iter()
        .filter(|id| storm_row(id))
        .collect();
    fit_ids.retain(|id| !storm_row(id) || by_profile.contains(id));
    for id in by_profile {
        if !fit_ids.contains(&id) {
            fit_ids.push(id);
        }
    }
    fit_ids
}

/// The ids a row was fitted from, owned.
fn from(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|s| (*s).to_owned()).collect()
}

/// The rule a storm of `n` SAs is judged by.
fn storm_rule(n: u32) -> Rule {
    if n >= 200 {
        Rule::Storm
    } else {
        Rule::SmallStorm
    }
}

/// What the rows of one file are predicted from: the file, OpenSSL's costs, the fitted terms,
/// the profile the engine runs and the ids of the fitted rows.
struct Rows<'a> {
    m: &'a Measurements,
    ops: &'a OpensslCosts,
    profile: &'a profile::Profile,
    t: &'a Terms,
    fit_ids: &'a [String],
}

/// One ESP suite as [`Rows::esp`] predicts it.
struct EspSuite<'a> {
    /// strongSwan's proposal keyword (`aes256gcm16`).
    suite: &'a str,
    /// Its name in words.
    words: &'a str,
    /// The suite as the engine runs it; `None`: strongSwan runs it in plugins of its own.
    engine: Option<protocols::Suite>,
    /// The fitted suite's median throughput \[Mbit/s\] and payload per segment \[bytes\].
    fit_tput: Option<(f64, u32)>,
    /// The rows its throughput rows are fitted from.
    tput_from: Vec<String>,
    /// The rows its RTT rows are fitted from.
    rtt_from: Vec<String>,
}

impl Rows<'_> {
    /// One set-up per authentication: latency \[ms\] and responder CPU per SA \[us\].
    fn setups(&self) -> Result<Vec<Row>, MeasureError> {
        let (t, fit_ids) = (self.t, self.fit_ids);
        let mut rows = Vec::new();
        for (auth, (lat, _ci, cr, _)) in setups(self.m) {
            let (_, mut kr, mut kpath) = crypto_split(&crypto(self.ops, auth)?);
            let cert_fit = format!("ike.setup.{FIT_CERT}");
            let mut fitted_from = vec!["ike.setup.psk"];
            if auth != "psk" {
                kr += t.certificate_ns[1];
                kpath += t.certificate_ns[2];
                fitted_from.push(&cert_fit);
            }
            let words = auth_words(auth);
            rows.push(Row::new(
                format!("ike.setup.{auth}"),
                format!("one IKE SA set-up (IKE_SA_INIT + IKE_AUTH), {words}, x25519"),
                "ms",
                lat,
                Some((t.latency_ns + kpath) / 1e6),
                Rule::Setup,
                from(&fitted_from),
                fit_ids,
            ));
            // One value: the responder's CPU over the whole workload, per SA (no run-to-run
            // spread to judge a verdict's stability by).
            let cpu = Measured::of(&[cr / 1e3])
                .ok_or_else(|| MeasureError(format!("{auth}: responder CPU not finite")))?;
            rows.push(Row::new(
                format!("ike.cpu.{auth}.responder"),
                format!("responder CPU per SA, set-ups one at a time, {words}"),
                "us",
                cpu,
                Some((t.responder_idle_ns + kr) / 1e3),
                Rule::CpuPerSa,
                from(&fitted_from),
                fit_ids,
            ));
        }
        Ok(rows)
    }

    /// The PSK storms on shared CPUs, engine runs of the bench's placement: time \[ms\] and
    /// responder CPU per SA \[us\].
    fn storms(&self) -> Result<Vec<Row>, MeasureError> {
        let storm_fit = format!("ike.storm.{FIT_STORM}.time");
        let storm_cpu_fit = format!("ike.storm.{FIT_STORM}.cpu");
        let mut rows = Vec::new();
        for (n, runs) in storms(self.m) {
            let first: Vec<f64> = runs.iter().map(|r| r.1).collect();
            let all: Vec<f64> = runs.iter().map(|r| r.0).collect();
            let retried: u32 = runs.iter().map(|r| r.2).sum();
            let cpu: Vec<f64> = runs.iter().map(|r| r.4 / 1e3).collect();
            let (back, cpu_per_sa) = engine_storm_placed(self.profile, n, "psk", "shared")?;
            let predicted = back / 1e6;
            if let (Some(first), Some(all), Some(cpu)) =
                (Measured::of(&first), Measured::of(&all), Measured::of(&cpu))
            {
                let mut row = Row::new(
                    format!("ike.storm.{n}.time"),
                    format!("restart storm: {n} IKE SAs (PSK) at once, until all are back"),
                    "ms",
                    first,
                    Some(predicted),
                    storm_rule(n),
                    from(&["ike.setup.psk", &storm_fit]),
                    self.fit_ids,
                );
                if retried > 0 {
                    row = row.why(format!(
                        "{retried} SA(s) over the runs had IKE_SA_INIT retransmitted after charon's 4 s timer; the time shown is until every SA that needed no retransmission was back (with them: median {:.1} ms)",
                        all.median
                    ));
                }
                rows.push(row);
                rows.push(Row::new(
                    format!("ike.storm.{n}.cpu"),
                    format!("restart storm of {n}: responder CPU per SA"),
                    "us",
                    cpu,
                    Some(cpu_per_sa / 1e3),
                    Rule::CpuPerSa,
                    from(&[&storm_cpu_fit]),
                    self.fit_ids,
                ));
            }
        }
        Ok(rows)
    }

    /// Storms with certificates, and with each daemon pinned to a core of its own (the bench's
    /// `--placement pinned`): engine runs placed as the bench placed them, from the same terms;
    /// time \[ms\].
    fn placed_storms(&self) -> Result<Vec<Row>, MeasureError> {
        let storm_fit = format!("ike.storm.{FIT_STORM}.time");
        let mut rows = Vec::new();
        for ((auth, placement), sizes) in placed_storms(self.m) {
            if auth == "psk" && placement == "shared" {
                continue;
            }
            for (n, runs) in sizes {
                let all: Vec<f64> = runs.iter().map(|r| r.0).collect();
                let Some(all) = Measured::of(&all) else {
                    continue;
                };
                let (back, _) = engine_storm_placed(self.profile, n, &auth, &placement)?;
                let mut fitted_from = vec!["ike.setup.psk", storm_fit.as_str()];
                let cert_fit = format!("ike.setup.{FIT_CERT}");
                if auth != "psk" {
                    fitted_from.push(&cert_fit);
                }
                rows.push(Row::new(
                    format!("ike.storm.{auth}.{placement}.{n}.time"),
                    format!(
                        "restart storm: {n} IKE SAs ({}) at once, daemons {}, until all are back",
                        auth_words(&auth),
                        if placement == "pinned" {
                            "pinned to a core each"
                        } else {
                            "sharing the host's cores"
                        }
                    ),
                    "ms",
                    all,
                    Some(back / 1e6),
                    storm_rule(n),
                    from(&fitted_from),
                    self.fit_ids,
                ));
            }
        }
        Ok(rows)
    }

    /// Storms with a raised IKE SA table (issue 36 #3): the same engine run with the per-held
    /// work divided by the table's size (`with_table`); time \[ms\] and responder CPU per SA
    /// \[us\].
    fn table_storms(&self) -> Result<Vec<Row>, MeasureError> {
        let storm_fit = format!("ike.storm.{FIT_STORM}.time");
        let storm_cpu_fit = format!("ike.storm.{FIT_STORM}.cpu");
        let growth_cpu = self.t.growth_storm.map(|n| format!("ike.storm.{n}.cpu"));
        let mut rows = Vec::new();
        for ((table, n), runs) in table_storms(self.m) {
            let all: Vec<f64> = runs.iter().map(|r| r.0).collect();
            let cpu: Vec<f64> = runs.iter().map(|r| r.4 / 1e3).collect();
            let (Some(all), Some(cpu)) = (Measured::of(&all), Measured::of(&cpu)) else {
                continue;
            };
            let (back, cpu_per_sa) =
                engine_storm_placed(&with_table(self.profile, table)?, n, "psk", "shared")?;
            let mut fitted_from = vec!["ike.setup.psk", storm_fit.as_str(), storm_cpu_fit.as_str()];
            if let Some(g) = &growth_cpu {
                fitted_from.push(g);
            }
            rows.push(Row::new(
                format!("ike.storm.table{table}.{n}.time"),
                format!("restart storm: {n} IKE SAs (PSK) at once, ikesa_table_size {table}, until all are back"),
                "ms",
                all,
                Some(back / 1e6),
                storm_rule(n),
                from(&fitted_from),
                self.fit_ids,
            ));
            rows.push(Row::new(
                format!("ike.storm.table{table}.{n}.cpu"),
                format!("restart storm of {n}, ikesa_table_size {table}: responder CPU per SA"),
                "us",
                cpu,
                Some(cpu_per_sa / 1e3),
                Rule::CpuPerSa,
                from(&fitted_from),
                self.fit_ids,
            ));
        }
        Ok(rows)
    }

    /// Rekey storms (issue 35 #4): engine runs of the bench's rekey storm (`engine_rekey`), the
    /// daemons charged `ike.rekey.*.loaded` (fitted to the rekey storm of FIT_REKEY) and the
    /// IKE storms' state work at N IKE SAs held; time \[ms\] and responder CPU per Child SA
    /// \[us\]. None without the rekey terms.
    fn rekeys(&self) -> Result<Vec<Row>, MeasureError> {
        let mut rows = Vec::new();
        let Some(rekey) = self.t.rekey_ns else {
            return Ok(rows);
        };
        let mut fitted_from = vec![
            format!("ike.rekey.{FIT_REKEY}.cpu"),
            "ike.setup.psk".to_owned(),
        ];
        if let Some(n) = self.t.growth_storm {
            fitted_from.push(format!("ike.storm.{FIT_STORM}.cpu"));
            fitted_from.push(format!("ike.storm.{n}.cpu"));
        }
        for (n, runs) in rekeys(self.m) {
            let all: Vec<f64> = runs.iter().map(|r| r.0).collect();
            let rcpu: Vec<f64> = runs.iter().map(|r| r.2 / 1e3).collect();
            let (Some(all), Some(rcpu)) = (Measured::of(&all), Measured::of(&rcpu)) else {
                continue;
            };
            let (rekeyed, cpu_per_rekey) = engine_rekey(self.profile, n)?;
            let why = format!(
                "an engine run of `init ric-restart --placement shared --rekey child --gnbs {n}`: each rekey charged ike.rekey.*.loaded ({:.0} / {:.0} us) and the state work at {n} IKE SAs held on each of its four messages; the time is until the last CREATE_CHILD_SA response, as the bench's",
                rekey[0] / 1e3,
                rekey[1] / 1e3
            );
            rows.push(
                Row::new(
                    format!("ike.rekey.{n}.time"),
                    format!("rekey storm: the Child SAs of {n} IKE SAs (PSK) rekeyed at once, until all are"),
                    "ms",
                    all,
                    Some(rekeyed / 1e6),
                    storm_rule(n),
                    fitted_from.clone(),
                    self.fit_ids,
                )
                .why(why),
            );
            rows.push(Row::new(
                format!("ike.rekey.{n}.cpu"),
                format!("rekey storm of {n}: responder CPU per Child SA rekeyed"),
                "us",
                rcpu,
                Some(cpu_per_rekey / 1e3),
                Rule::CpuPerSa,
                fitted_from.clone(),
                self.fit_ids,
            ));
        }
        Ok(rows)
    }

    /// The ESP data path: per suite measured, its throughput \[Mbit/s\] (at the bench's MSS
    /// and at each MSS it asked iperf3 for) and its ping RTTs \[ms\]. None without the
    /// data-path terms and the plain path's runs.
    fn esp(&self) -> Vec<Row> {
        let (m, t) = (self.m, self.t);
        let mut rows = Vec::new();
        let (Some(_), Some((plain_rtt, _, _))) = (t.esp_per_packet_ns, esp(m, "plain")) else {
            return rows;
        };
        let openssl_fit = format!("esp.tput.{FIT_OPENSSL_SUITE}");
        let fit_tput = esp(m, FIT_SUITE)
            .and_then(|(_, tput, mtu)| median(tput).map(|t| (t, tcp_payload(mtu))));
        for &(measured, words, engine) in ESP_SUITES {
            let Some(suite) = measured.strongswan_proposal() else {
                continue;
            };
            let engine_suite = engine.then_some(measured);
            let openssl = engine_suite.is_some_and(model::scenario::openssl_plugin);
            let Some((rtt, tput, mtu)) = esp(m, suite) else {
                continue;
            };
            let mut tput_from = vec![format!("esp.tput.{FIT_SUITE}")];
            let mut rtt_from = vec![format!("esp.rtt.{FIT_SUITE}.64")];
            if openssl && t.esp_openssl_per_packet_ns.is_some() {
                tput_from.push(openssl_fit.clone());
                rtt_from.push(openssl_fit.clone());
            }
            let s = EspSuite {
                suite,
                words,
                engine: engine_suite,
                fit_tput,
                tput_from,
                rtt_from,
            };
            let Some(row) = self.tput_row(
                &s,
                format!("esp.tput.{suite}"),
                format!("TCP through ESP ({words}), {} data path", m.data_path),
                tput,
                tcp_payload(mtu),
            ) else {
                continue;
            };
            rows.push(row);
            // The same at each MSS the bench asked iperf3 for: a per-packet law, the time per
            // segment flat in its size but for the cipher.
            for (asked, got, runs) in esp_by_mss(m, suite) {
                rows.extend(self.tput_row(
                    &s,
                    format!("esp.tput.{suite}.mss{asked}"),
                    format!(
                        "TCP through ESP ({words}) at MSS {asked} ({got} B per segment), {} data path",
                        m.data_path
                    ),
                    runs,
                    got,
                ));
            }
            let Some(lat) = t.esp_latency_ns else {
                continue;
            };
            rows.extend(self.rtt_rows(&s, rtt, plain_rtt, lat));
        }
        rows
    }

    /// A throughput row of suite `s` \[Mbit/s\], TCP with `payload` bytes per segment: an
    /// engine run of the transfer through two nodes with the profile (`engine_tcp`); none for a
    /// suite strongSwan runs in plugins of its own. `None` when `runs` has no median.
    fn tput_row(
        &self,
        s: &EspSuite<'_>,
        id: String,
        what: String,
        runs: &[f64],
        payload: u32,
    ) -> Option<Row> {
        let meas = Measured::of(runs)?;
        let (predicted, why) = match s.engine {
            Some(e) => match engine_tcp(self.profile, e, payload) {
                Ok(mbps) => (Some(mbps), None),
                Err(e) => (None, Some(e.to_string())),
            },
            None => (None, Some("strongSwan runs AES-CBC and HMAC-SHA-256 in its own plugins (aes/aesni, sha2, hmac), whose cost no measurement here gives; OpenSSL's stitched AES-CBC-HMAC is a different implementation".to_owned())),
        };
        // The anchor: the fitted suite's throughput, its time per segment kept (a
        // throughput in proportion to the segment's payload).
        let anchor = s.fit_tput.map(|(t, seg)| {
            Anchor::new(
                format!(
                    "esp.tput.{FIT_SUITE} (fitted), its time per segment at {payload} B per segment"
                ),
                t * f64::from(payload) / f64::from(seg),
            )
        });
        let row = Row::new(
            id,
            what,
            "Mbit/s",
            meas,
            predicted,
            Rule::Throughput,
            s.tput_from.clone(),
            self.fit_ids,
        )
        .anchored(anchor);
        Some(match why {
            Some(w) => row.why(w),
            None => row,
        })
    }

    /// The ping RTT rows of suite `s` \[ms\], one per size of [`PING_SIZES`] with runs through
    /// it (`rtt`) and the plain path (`plain_rtt`) \[ms\]: the plain path's round trip,
    /// measured, and what ESP adds to it in the engine (`engine_ping`); anchored at the plain
    /// path plus `esp.latency` (`lat` \[ns\]).
    fn rtt_rows(
        &self,
        s: &EspSuite<'_>,
        rtt: &BTreeMap<String, Vec<f64>>,
        plain_rtt: &BTreeMap<String, Vec<f64>>,
        lat: f64,
    ) -> Vec<Row> {
        let (suite, words) = (s.suite, s.words);
        let mut rows = Vec::new();
        for size in PING_SIZES {
            let (Some(v), Some(p)) = (
                rtt.get(size).and_then(|v| Measured::of(v)),
                plain_rtt.get(size).and_then(|v| median(v)),
            ) else {
                continue;
            };
            // The plain path's round trip, measured, and what ESP adds to it in the engine.
            let (predicted, why) = match (s.engine, size.parse::<u32>()) {
                (Some(e), Ok(bytes)) => match engine_ping(self.profile, e, bytes) {
                    Ok(added) => (Some((p * 1e6 + added) / 1e6), None),
                    Err(e) => (None, Some(e.to_string())),
                },
                _ => (None, None),
            };
            let row = Row::new(
                format!("esp.rtt.{suite}.{size}"),
                format!("ping RTT through ESP ({words}), {size} B payload"),
                "ms",
                v,
                predicted,
                Rule::Rtt,
                s.rtt_from.clone(),
                self.fit_ids,
            );
            rows.push(
                match why {
                    Some(w) => row.why(w),
                    None => row,
                }
                .anchored(Some(Anchor::new(
                    format!(
                        "the plain path's RTT at {size} B (measured) + esp.latency (fitted to esp.rtt.{FIT_SUITE}.64)"
                    ),
                    (p * 1e6 + lat) / 1e6,
                ))),
            );
        }
        rows
    }
}

/// The IKE rows with their anchors (`crate::ledger`): a certificate set-up or its responder
/// CPU extends the fitted Ed25519 one ([`FIT_CERT`]); a storm's time the fitted storm of
/// [`FIT_STORM`]'s time per SA, times its N; a storm's responder CPU per SA the fitted storm's;
/// a rekey storm's time and responder CPU per Child SA likewise the fitted rekey storm of
/// [`FIT_REKEY`]'s.
pub(super) fn anchor_ike(rows: Vec<Row>) -> Vec<Row> {
    let measured = |id: &str| {
        rows.iter()
            .find(|r| r.id == id)
            .map(|r| (id.to_owned(), r.measured.median))
    };
    let cert_setup = measured(&format!("ike.setup.{FIT_CERT}"));
    let cert_cpu = measured(&format!("ike.cpu.{FIT_CERT}.responder"));
    let storm = measured(&format!("ike.storm.{FIT_STORM}.time"));
    let storm_cpu = measured(&format!("ike.storm.{FIT_STORM}.cpu"));
    let rekey = measured(&format!("ike.rekey.{FIT_REKEY}.time"));
    let rekey_cpu = measured(&format!("ike.rekey.{FIT_REKEY}.cpu"));
    let fitted = |a: &Option<(String, f64)>, words: &str, scale: f64| {
        a.as_ref()
            .map(|(id, v)| Anchor::new(format!("{id} (fitted){words}"), v * scale))
    };
    rows.into_iter()
        .map(|r| {
            if r.class == RowClass::Fitted {
                return r;
            }
            let parts: Vec<&str> = r.id.split('.').collect();
            let anchor = match parts.as_slice() {
                ["ike", "setup", auth] if *auth != "psk" => fitted(&cert_setup, "", 1.0),
                ["ike", "cpu", auth, "responder"] if *auth != "psk" => fitted(&cert_cpu, "", 1.0),
                ["ike", "storm", .., n, "cpu"] if n.parse::<u32>().is_ok() => {
                    fitted(&storm_cpu, ", the same CPU per SA", 1.0)
                }
                ["ike", "rekey", n, "time"] => n.parse::<u32>().ok().and_then(|n| {
                    fitted(
                        &rekey,
                        &format!(", its time per Child SA times {n}"),
                        f64::from(n) / f64::from(FIT_REKEY),
                    )
                }),
                ["ike", "rekey", _, "cpu"] => {
                    fitted(&rekey_cpu, ", the same CPU per Child SA", 1.0)
                }
                ["ike", "storm", .., n, "time"] => n.parse::<u32>().ok().and_then(|n| {
                    fitted(
                        &storm,
                        &format!(", its time per SA times {n}"),
                        f64::from(n) / f64::from(FIT_STORM),
                    )
                }),
                _ => None,
            };
            match anchor {
                Some(a) => r.anchored(Some(a)),
                None => r,
            }
        })
        .collect()
}

pub(super) fn auth_words(auth: &str) -> &str {
    match auth {
        "psk" => "PSK",
        "ed25519" => "Ed25519 certificates",
        "ecdsa-p256" => "ECDSA P-256 certificates",
        "rsa2048" => "RSA-2048 certificates",
        other => other,
    }
}
