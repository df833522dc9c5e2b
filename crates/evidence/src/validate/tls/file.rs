//! The calibration writer: the fitted terms as a profile's `[implementation]` section.

use profile::{ImplementationFile, RealImplementation, Term};

use super::compare::noise;
use super::fit::{fit, fit_record};
use super::{FIT_BULK, FIT_HANDSHAKE, TlsMeasurements, bulk_id, handshake_id};

/// The implementation's fitted terms as a profile's `[implementation]` section (name
/// `openssl-tls`, data path `loopback-tcp`). Terms that could not be fitted (a workload or an
/// `openssl speed` op missing) are left out, and `source` says why.
pub fn implementation_file(m: &TlsMeasurements) -> ImplementationFile {
    let fit_hs = handshake_id(FIT_HANDSHAKE.0, FIT_HANDSHAKE.1);
    let fit_bulk = bulk_id(FIT_BULK);
    let mut imp = ImplementationFile::new(
        RealImplementation::OpensslTls,
        m.openssl_version.trim(),
        "loopback-tcp",
        format!(
            "OpenSSL s_server and s_time on 127.0.0.1, {} set ({} runs per workload); {}; crypto from openssl speed -mr on the same host",
            m.set.as_str(),
            m.set.runs(),
            noise(m)
        ),
    );
    match fit(m) {
        Ok(t) => {
            let mut term = |term: Term, (value, spread): (f64, f64), fitted: &str, how: &str| {
                imp.insert_term(term, value, Some(spread), vec![fitted.to_owned()], how);
            };
            term(
                Term::TlsServerHandshakeOverhead,
                t.server_overhead_ns,
                &fit_hs,
                "median s_server CPU per handshake (schedstat) minus keygen + agree + sign from openssl speed",
            );
            term(
                Term::TlsClientHandshakeOverhead,
                t.client_overhead_ns,
                &fit_hs,
                "median s_time CPU per handshake (wait4 rusage) minus keygen + agree + verify from openssl speed",
            );
            term(
                Term::TlsHandshakeWaitOffset,
                t.wait_ns,
                &fit_hs,
                "median wall time per handshake minus the median server and client CPU per handshake: positive when neither computes for a while (loopback round trips, wake-ups), negative when the two overlap on the host's cores",
            );
        }
        Err(e) => imp.source.push_str(&format!("; no handshake terms: {e}")),
    }
    match fit_record(m) {
        Ok(r) => {
            let mut term = |term: Term, (value, spread): (f64, f64), how: &str| {
                imp.insert_term(term, value, Some(spread), vec![fit_bulk.clone()], how);
            };
            term(
                Term::TlsRecordOverheadPerByte,
                r.serial_ns_per_byte,
                "8000 / median Mbit/s minus seal + open per byte at 16384 B from openssl speed (open taken equal to seal): the serial closed form's term, charged by a scenario's TLS data path; validate's bulk rows use the three terms below",
            );
            term(
                Term::TlsServerRecordOverheadPerByte,
                r.server_ns_per_byte,
                "median s_server CPU per byte (schedstat) minus seal per byte at 16384 B from openssl speed",
            );
            term(
                Term::TlsClientRecordOverheadPerByte,
                r.client_ns_per_byte,
                "median s_time CPU per byte (wait4 rusage) minus open per byte at 16384 B (taken equal to seal) from openssl speed",
            );
            term(
                Term::TlsRecordWakeupLatency,
                r.delay_ns,
                "loopback's delay per record and acknowledgement, each way, at which the engine's record stream (2 records unacknowledged, each side one thread on the bench's cores) reproduces the median Mbit/s: bisection on the engine",
            );
        }
        Err(e) => imp.source.push_str(&format!("; no record terms: {e}")),
    }
    imp
}
