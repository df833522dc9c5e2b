//! # whatif: oransim's what-ifs
//!
//! Questions a user asks of a network that does not exist yet, each answered by generating
//! scenarios and running them through the one engine ([`model::run`]):
//!
//! - [`plan`]: what a key-exchange storm (`plan kex`), a fronthaul budget (`plan fronthaul`) or a
//!   protected interface at a load (`plan interface`) costs;
//! - [`sweep`]: one scenario file with keys set and varied, every combination an independent run;
//! - [`generate`]: the deployments `oransim init` writes (a fronthaul, an E2 star, a RIC-restart
//!   storm), as files or as validated scenarios.
//!
//! It builds on `model` (the scenario, its validation and the run's report) and is used by the
//! CLI, the printer and the `evidence` crate, which judges the model with scenarios generated
//! here.

// The face: three namespaces, one per what-if, each with private rooms and its chosen items
// re-exported (`plan::kex`, `sweep::Sweep`, `generate::Shape`). They stay namespaces because
// their names read with them: `plan::kex`, `plan::fronthaul` and `plan::interface` are the three
// plans (functions named for the question), `sweep::parse_set` and `sweep::Journal` are a
// sweep's, `generate::Shape` and `generate::Placement` a generated deployment's.
mod flag_keys;
pub mod generate;
pub mod plan;
pub mod sweep;
