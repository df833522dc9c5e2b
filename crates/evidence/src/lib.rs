//! # evidence: what the model is checked against
//!
//! - [`reproduce`]: every published experiment as a scenario, run through the model and
//!   compared with the papers' numbers (`oransim reproduce`);
//! - [`validate`]: real implementations driven on this host (strongSwan, OpenSSL TLS) and
//!   compared with the engine's predictions from an implementation profile
//!   (`oransim validate`, and the fits `oransim calibrate --run` writes);
//! - [`ledger`]: the one rule both ledgers judge their rows by (fitted, anchored, informative,
//!   ...), and the counts they report.
//!
//! It builds on `model` (scenarios and runs) and `whatif` (the generated storms and plans a
//! prediction runs).

// The face: three namespaces, each with private rooms and its chosen items re-exported. They
// stay namespaces because their names repeat across them: `reproduce::Summary` and
// `ledger::Summary`, `reproduce::Class` and `ledger::Class`, `validate::strongswan::validate`
// and `validate::tls::validate` (each implementation's run, judged by the `ledger`'s rule).
pub mod ledger;
pub mod reproduce;
pub mod validate;
