//! The rows of `oransim validate tls`: each workload measured beside the engine's prediction
//! from the fitted terms, the fitted rows marked, each anchored at the fitted one it extends.

use super::fit::{
    Predicted, RecordTerms, Terms, bulk, fit, fit_record, hs, predicted_rate, record_stream,
};
use super::{
    BULK_WINDOW, ENGINE_HANDSHAKES, ENGINE_RECORDS, FIT_BULK, FIT_HANDSHAKE, HandshakeWorkload,
    MeasureError, RECORD_LEN, TlsMeasurements, bulk_id, concurrent_id, engine_bulk_throughput,
    handshake_id, resumed_id,
};
use crate::ledger::Anchor;
use crate::validate::{Measured, Row, RowClass, Rule, Validation};

pub(super) fn noise(m: &TlsMeasurements) -> String {
    let mut s = format!(
        "1-minute load average {:.2} before, {:.2} after; {} logical CPUs; server and client on the same host",
        m.load_before, m.load_after, m.host_cores
    );
    if let Some(n) = &m.noise {
        s.push_str("; ");
        s.push_str(&n.words());
    }
    s
}

pub(super) fn us(ns: f64) -> String {
    format!("{:.1} us", ns / 1e3)
}

/// Measured beside predicted, one row per workload: the handshake rows (rule
/// [`Rule::HandshakeRate`]) and the bulk rows ([`Rule::Throughput`]); the rows of
/// [`FIT_HANDSHAKE`] and [`FIT_BULK`] are fitted (shown, not counted). A row the model cannot
/// predict (an op missing from `openssl speed`, a workload without runs) has no prediction and
/// says why.
pub fn validate(m: &TlsMeasurements, set_name: &str) -> Validation {
    let terms = fit(m);
    let record = fit_record(m);
    let fit_hs = handshake_id(FIT_HANDSHAKE.0, FIT_HANDSHAKE.1);
    let fit_bulk = bulk_id(FIT_BULK);
    let mut fitted_to = Vec::new();
    if terms.is_ok() {
        fitted_to.push(fit_hs.clone());
    }
    if record.is_ok() {
        fitted_to.push(fit_bulk.clone());
    }
    let r = Rows {
        m,
        terms,
        record,
        fit_hs,
        fit_bulk,
        fitted_to,
    };
    let mut rows = r.handshakes();
    rows.extend(r.concurrent());
    rows.extend(r.resumed());
    rows.extend(r.bulk());
    let Rows {
        fit_hs,
        fit_bulk,
        fitted_to,
        ..
    } = r;
    Validation::new(
        "tls",
        m.openssl_version.trim(),
        "loopback-tcp",
        set_name,
        noise(m),
        fitted_to,
        anchored(rows, &fit_hs, &fit_bulk),
    )
}

/// What [`validate`]'s rows are predicted from: the file, the fitted terms (or why they could
/// not be fitted), the fitted rows' ids.
struct Rows<'a> {
    m: &'a TlsMeasurements,
    terms: Result<Terms, MeasureError>,
    record: Result<RecordTerms, MeasureError>,
    fit_hs: String,
    fit_bulk: String,
    fitted_to: Vec<String>,
}

impl Rows<'_> {
    /// The handshake-rate row \[1/s\] of workload `id`, measured `measured`, beside the
    /// prediction from the handshake terms (its value and why), or why there is none; fitted
    /// when it is the fitted workload's own row.
    fn handshake_row(
        &self,
        id: String,
        quantity: String,
        measured: Measured,
        prediction: Result<(f64, String), MeasureError>,
    ) -> Row {
        let fitted_from = if id == self.fit_hs {
            vec![]
        } else {
            vec![self.fit_hs.clone()]
        };
        with_prediction(prediction, |p| {
            Row::new(
                id,
                quantity,
                "1/s",
                measured,
                p,
                Rule::HandshakeRate,
                fitted_from,
                &self.fitted_to,
            )
        })
    }

    /// One row per full-handshake workload \[1/s\], with each side's CPU per handshake and
    /// the period measured and predicted in its note.
    fn handshakes(&self) -> Vec<Row> {
        let Rows { m, terms, .. } = self;
        let mut rows = Vec::new();
        for w in &m.handshakes {
            let id = handshake_id(w.group, w.cert);
            let quantity = format!(
                "TLS 1.3 full handshakes per second, {} key exchange, {} certificate, s_time -new",
                w.group.openssl_name(),
                w.cert.id()
            );
            let Some(h) = hs(w) else {
                continue;
            };
            let prediction = terms
                .clone()
                .and_then(|t| predicted_rate(m, &t, (w.group, w.cert), 1, false))
                .map(|p| {
                    let Predicted {
                        server_ns: s,
                        client_ns: c,
                        wait_ns: wait,
                        rate,
                        ..
                    } = p;
                    let why = format!(
                        "CPU per handshake: server {} measured, {} predicted; client {} measured, {} predicted; wait {} (fitted; negative: server and client overlap); period {} measured, {} in the engine ({ENGINE_HANDSHAKES} handshakes of one client)",
                        us(h.server_ns.median),
                        us(s),
                        us(h.client_ns.median),
                        us(c),
                        us(wait),
                        us(h.period_ns.median),
                        us(1e9 / rate)
                    );
                    (rate, why)
                });
            rows.push(self.handshake_row(id, quantity, h.rate, prediction));
        }
        rows
    }

    /// One row per concurrent workload \[1/s\]: several `s_time` clients at once.
    fn concurrent(&self) -> Vec<Row> {
        let Rows { m, terms, .. } = self;
        let mut rows = Vec::new();
        // Several clients at once (issue 36 #3): the engine run of the single-client rows with K
        // clients (issue 35). `s_server` serves one connection at a time, so the server node holds
        // one session (`sessions = 1`) from a ClientHello until that connection's Finished: the
        // other clients' ClientHellos wait for it, each client having generated its key share
        // meanwhile, and the host's cores are shared by the K clients and the server.
        for w in &m.concurrent {
            let id = concurrent_id(w.group, w.cert, w.clients);
            let quantity = format!(
                "TLS 1.3 full handshakes per second, {} key exchange, {} certificate, {} s_time -new clients at once",
                w.group.openssl_name(),
                w.cert.id(),
                w.clients
            );
            let Some(h) = hs(&HandshakeWorkload {
                group: w.group,
                cert: w.cert,
                runs: w.runs.clone(),
            }) else {
                continue;
            };
            let prediction = terms
                .clone()
                .and_then(|t| predicted_rate(m, &t, (w.group, w.cert), w.clients, false))
                .map(|p| {
                    let why = format!(
                        "the engine's handshake with {} clients at once, s_server holding one connection at a time (a ClientHello waits until the last connection's Finished is processed) on a host of {} cores: period {} in the engine, {} measured",
                        w.clients,
                        m.host_cores,
                        us(1e9 / p.rate),
                        us(h.period_ns.median)
                    );
                    (p.rate, why)
                });
            rows.push(self.handshake_row(id, quantity, h.rate, prediction));
        }
        rows
    }

    /// One row per resumed-handshake workload \[1/s\].
    fn resumed(&self) -> Vec<Row> {
        let Rows { m, terms, .. } = self;
        let mut rows = Vec::new();
        // Resumed handshakes (issue 36 #3): OpenSSL resumes with psk_dhe_ke, so both sides still
        // generate and agree a key share, but neither signs nor verifies a certificate.
        for w in &m.resumed {
            let id = resumed_id(w.group, w.cert);
            let quantity = format!(
                "TLS 1.3 resumed handshakes per second, {} key exchange, {} certificate on the first, s_time -reuse",
                w.group.openssl_name(),
                w.cert.id()
            );
            let Some(h) = hs(w) else {
                continue;
            };
            let prediction = terms
                .clone()
                .and_then(|t| predicted_rate(m, &t, (w.group, w.cert), 1, true))
                .map(|p| {
                    let why = format!(
                        "the engine's full handshake less the certificate's signature and verification ({}; psk_dhe_ke keeps the key exchange; the flights keep a full handshake's sizes, under 0.1 us at loopback's rate): period {} in the engine, {} measured",
                        us(p.skipped_ns),
                        us(1e9 / p.rate),
                        us(h.period_ns.median)
                    );
                    (p.rate, why)
                });
            rows.push(self.handshake_row(id, quantity, h.rate, prediction));
        }
        rows
    }

    /// One row per bulk workload \[Mbit/s\]: the record stream in the engine.
    fn bulk(&self) -> Vec<Row> {
        let Rows {
            m,
            record,
            fit_bulk,
            fitted_to,
            ..
        } = self;
        let mut rows = Vec::new();
        for w in &m.bulk {
            let id = bulk_id(w.suite);
            let quantity = format!(
                "TLS 1.3 record throughput, {}, s_time -www of a {} MiB file",
                w.suite.iana(),
                w.file_bytes / (1 << 20)
            );
            let Some(b) = bulk(w) else {
                continue;
            };
            let fitted_from = if id == *fit_bulk {
                vec![]
            } else {
                vec![fit_bulk.clone()]
            };
            let prediction = record
                .clone()
                .and_then(|r| {
                    let e = record_stream(m, &r, w.suite)?;
                    Ok((r, e, engine_bulk_throughput(e)?))
                })
                .map(|(r, e, mbps)| {
                    let why = format!(
                        "CPU per byte: server {:.3} ns measured, {:.3} ns in the engine ({:.3} fitted + seal {:.3}); client {:.3} ns measured, {:.3} ns in the engine ({:.3} fitted + open {:.3}); loopback delay {} per record each way (fitted); the engine's {ENGINE_RECORDS} records of {RECORD_LEN} B, {BULK_WINDOW} unacknowledged, on {} cores: {mbps:.0} Mbit/s; server + client busy {:.2} of the wall time measured (1 = they alternate)",
                        b.server_ns_per_byte.median,
                        e.server_ns_per_byte,
                        r.server_ns_per_byte.0,
                        e.server_ns_per_byte - r.server_ns_per_byte.0,
                        b.client_ns_per_byte.median,
                        e.client_ns_per_byte,
                        r.client_ns_per_byte.0,
                        e.client_ns_per_byte - r.client_ns_per_byte.0,
                        us(r.delay_ns.0),
                        e.host_cores,
                        b.busy.median
                    );
                    (mbps, why)
                });
            let row = with_prediction(prediction, |p| {
                Row::new(
                    id,
                    quantity,
                    "Mbit/s",
                    b.mbps,
                    p,
                    Rule::Throughput,
                    fitted_from,
                    fitted_to,
                )
            });
            rows.push(row);
        }
        rows
    }
}

/// The row `new` builds with the model's prediction, if any, and why it is what it is:
/// `prediction`'s value and the words it rests on, or why the model has none.
fn with_prediction(
    prediction: Result<(f64, String), MeasureError>,
    new: impl FnOnce(Option<f64>) -> Row,
) -> Row {
    match prediction {
        Ok((value, why)) => new(Some(value)).why(why),
        Err(e) => new(None).why(format!("no prediction: {e}")),
    }
}

/// The rows with their anchors (`crate::ledger`): a handshake rate extends the fitted
/// handshake's measured rate, a bulk throughput the fitted suite's.
pub(super) fn anchored(rows: Vec<Row>, fit_hs: &str, fit_bulk: &str) -> Vec<Row> {
    let fitted = |id: &str| {
        rows.iter()
            .find(|r| r.id == id && r.class == RowClass::Fitted)
            .map(|r| Anchor::new(format!("{id} (fitted)"), r.measured.median))
    };
    let (hs, bulk) = (fitted(fit_hs), fitted(fit_bulk));
    rows.into_iter()
        .map(|r| {
            if r.class == RowClass::Fitted {
                return r;
            }
            let anchor = if r.unit == "1/s" {
                hs.clone()
            } else {
                bulk.clone()
            };
            match anchor {
                Some(a) => r.anchored(Some(a)),
                None => r,
            }
        })
        .collect()
}
