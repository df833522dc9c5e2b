//! `[stats]`: which flows keep exact delay histograms ([`StatsOptions`], the engine's
//! [`Detail`]). Names are looked up in the flows' name index, so a list of thousands of flows in
//! a scenario of 100,000 checks in linear time.

use std::collections::HashMap;

use sim_core::Detail;

use crate::error::ScenarioError;
use crate::file::{FlowFile, StatsFile};

use super::Scenario;
use super::context::Ctx;

/// What a run keeps per flow beyond its counts, sums and means (`[stats]`): which flows' delay
/// percentiles and CDFs are exact (3 significant digits) rather than coarse (within 6.25%).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatsOptions {
    /// Flows (indices in the network's flows, in file order, no duplicates) that keep exact
    /// histograms whatever the scenario's size (`exact`).
    pub exact: Vec<usize>,
    /// Every flow keeps exact histograms when the scenario has at most this many flows
    /// (`exact_up_to`, default [`Detail::ALL_EXACT_UP_TO`]).
    pub exact_up_to: usize,
}

impl Default for StatsOptions {
    fn default() -> Self {
        StatsOptions {
            exact: Vec::new(),
            exact_up_to: Detail::ALL_EXACT_UP_TO,
        }
    }
}

impl Scenario {
    /// What the engine keeps in a run of this scenario: `[stats]`'s histogram precision, and
    /// per-hop sums only when `[report] hops` asks for them.
    pub fn detail(&self) -> Detail {
        Detail {
            all_exact_up_to: self.stats.exact_up_to,
            exact: self.stats.exact.clone(),
            hops: self.report.hops,
        }
    }
}

/// Validates `[stats]`: every name in `exact` is a flow's (`flow_names` maps names to indices,
/// `flows` gives the names in file order for the error message).
pub(super) fn stats(
    cx: &Ctx,
    file: Option<&StatsFile>,
    flow_names: &HashMap<&str, usize>,
    flows: &[FlowFile],
) -> Result<StatsOptions, ScenarioError> {
    let Some(file) = file else {
        return Ok(StatsOptions::default());
    };
    let mut exact = Vec::new();
    for (i, name) in file.exact.iter().flatten().enumerate() {
        let Some(&f) = flow_names.get(name.as_str()) else {
            const SHOWN: usize = 5;
            let mut some: Vec<String> = flows
                .iter()
                .take(SHOWN)
                .map(|f| format!("\"{}\"", f.name))
                .collect();
            if flows.len() > SHOWN {
                some.push("...".into());
            }
            return Err(cx.invalid(
                format!("stats.exact[{i}]"),
                format!("no flow named \"{name}\""),
                format!(
                    "the name of a [[flow]] ({} flow(s): {})",
                    flows.len(),
                    some.join(", ")
                ),
            ));
        };
        exact.push(f);
    }
    exact.sort_unstable();
    exact.dedup();
    Ok(StatsOptions {
        exact,
        // A count above the address space means "every flow", as usize::MAX does.
        exact_up_to: file.exact_up_to.map_or(Detail::ALL_EXACT_UP_TO, |n| {
            usize::try_from(n).unwrap_or(usize::MAX)
        }),
    })
}

#[cfg(test)]
mod tests {
    use crate::Scenario;
    use std::path::Path;

    /// One RIC looping two Poisson flows back to itself, then `extra`.
    fn load(extra: &str) -> Result<Scenario, String> {
        let flows: String = (1..=2)
            .map(|i| {
                format!(
                    "[[flow]]\nname = \"e2-{i}\"\nfrom = \"ric\"\nto = \"ric\"\n\
                     source = {{ kind = \"poisson\", rate = \"100kpps\", size = \"100B\" }}\n"
                )
            })
            .collect();
        let text = format!(
            "[stop]\npackets = 1000\n[[node]]\nname = \"ric\"\n\
             service = {{ model = \"exponential\", mean = \"1us\" }}\n{flows}{extra}"
        );
        Scenario::from_toml_str(&text, Path::new("s.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_keep_every_flow_of_a_small_scenario_exact_and_no_hops() {
        let s = load("").unwrap();
        let d = s.detail();
        assert_eq!(d.all_exact_up_to, 1000);
        assert!(d.exact.is_empty() && !d.hops);
        assert!(load("[report]\nhops = true\n").unwrap().detail().hops);
    }

    #[test]
    fn exact_names_become_indices_and_exact_up_to_is_taken() {
        let s = load("[stats]\nexact = [\"e2-2\", \"e2-1\", \"e2-2\"]\nexact_up_to = 0\n").unwrap();
        assert_eq!(
            (s.stats.exact.clone(), s.stats.exact_up_to),
            (vec![0, 1], 0)
        );
        let d = s.detail();
        assert_eq!(d.precisions(&s.network), [sim_core::Precision::Exact; 2]);
        let s = load("[stats]\nexact_up_to = 1\n").unwrap();
        assert_eq!(
            s.detail().precisions(&s.network),
            [sim_core::Precision::Coarse; 2]
        );
    }

    #[test]
    fn errors_name_the_key_and_what_is_allowed() {
        let e = load("[stats]\nexact = [\"e2-1\", \"e2-9\"]\n").unwrap_err();
        assert!(e.contains("stats.exact[1]"), "{e}");
        assert!(e.contains("no flow named \"e2-9\""), "{e}");
        assert!(e.contains("2 flow(s): \"e2-1\", \"e2-2\""), "{e}");
        let e = load("[stats]\nexact_upto = 3\n").unwrap_err();
        assert!(e.contains("exact_upto"), "{e}");
        let e = load("[stats]\nexact_up_to = -1\n").unwrap_err();
        assert!(e.contains("exact_up_to"), "{e}");
    }
}
