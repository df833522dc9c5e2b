//! A reproduced experiment's further results: facts in words, and the MTU advice as data.
//!
//! The model decides what the advice says (which variant is fastest, which saturate, by how
//! much, each backed by claims checked against the runs); `printer::reproduce` turns it into
//! sentences. A [`Fact::Text`] is a result an analysis states in words itself.

use serde::Serialize;

/// One further result of an experiment.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Fact {
    /// A result in words.
    Text(String),
    /// The MTU study's advice (000 Fig. 15 under load), as data.
    Advice {
        /// The advice.
        advice: MtuAdvice,
        /// Its claims do not all hold in its own runs: printed as withheld.
        withheld: bool,
    },
}

impl Fact {
    /// The words of a [`Fact::Text`]; `None` for advice.
    pub fn text(&self) -> Option<&str> {
        match self {
            Fact::Text(t) => Some(t),
            Fact::Advice { .. } => None,
        }
    }
}

impl From<String> for Fact {
    fn from(text: String) -> Fact {
        Fact::Text(text)
    }
}

impl From<&str> for Fact {
    fn from(text: &str) -> Fact {
        Fact::Text(text.to_owned())
    }
}

/// One advice of the MTU study.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum MtuAdvice {
    /// At one load: per group of core counts that agree, which variants are fastest, which
    /// saturate, or which carry the most when all saturate.
    AtLoad {
        /// The load's label, e.g. `low load (one payload per ms)`.
        load: String,
        /// The groups, in the order of their first core count.
        groups: Vec<CoreGroup>,
    },
    /// Even against greedy splits at MTU 5000 and 8000, over every run.
    SplitPolicy {
        /// Loads run \[count\].
        loads: usize,
        /// Core counts run \[count\].
        core_counts: usize,
        /// Comparisons where the even split is as fast or faster \[count\].
        even: usize,
        /// Comparisons made \[count\].
        runs: usize,
        /// Where it is not: (MTU \[bytes\], load label, cores).
        against: Vec<(usize, String, u32)>,
    },
    /// MTU 9000 (no split) against the even split (two 4096 B frames): per outcome, the loads
    /// and core counts where it is the outcome.
    NoSplit {
        /// Only MTU 9000 sustains the load.
        only_no_split_sustains: Vec<Outcome>,
        /// MTU 9000 has the lower payload delay.
        no_split_faster: Vec<Outcome>,
        /// The even split is as fast or faster (or only it sustains the load).
        even_not_slower: Vec<Outcome>,
        /// Both saturate.
        both_saturate: Vec<Outcome>,
    },
}

/// Core counts at one load whose runs give the same verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoreGroup {
    /// The core counts \[cores\].
    pub cores: Vec<u32>,
    /// The profile's own core count \[cores\] (named as such).
    pub profile_cores: u32,
    /// The variants with the lowest payload delay (tied within 1 ns); empty when all saturate.
    pub lowest: Vec<&'static str>,
    /// The saturated variants.
    pub saturated: Vec<&'static str>,
    /// When all saturate: the variants carrying the most payload (ties within 1 Mb/s).
    pub most: Vec<&'static str>,
    /// The numbers of the first core count, for the first of `lowest` (or of `most`).
    pub numbers: GroupNumbers,
}

/// The numbers a group's verdict quotes, at its first core count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupNumbers {
    /// Mean payload delay \[us\] (of the fastest variant).
    pub mean_us: f64,
    /// 99th percentile payload delay \[us\] (of the fastest variant).
    pub p99_us: f64,
    /// Payload rate carried \[Mb/s\] (of the variant carrying the most, when all saturate).
    pub delivered_mbps: f64,
    /// When all saturate, the first other variant: its rate \[Mb/s\] and label.
    pub against: Option<(f64, &'static str)>,
}

/// Where one outcome of MTU 9000 against the even split holds: a load and the core counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// The load's label.
    pub load: String,
    /// The core counts \[cores\].
    pub cores: Vec<u32>,
    /// The profile's own core count \[cores\].
    pub profile_cores: u32,
    /// The numbers at the first core count.
    pub numbers: OutcomeNumbers,
}

/// The numbers an outcome quotes at its first core count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum OutcomeNumbers {
    /// MTU 9000 sustains the load and the even split does not: their rates \[Mb/s\] and how
    /// much more MTU 9000 carries \[%, floored\].
    MoreThroughput {
        /// MTU 9000's rate \[Mb/s\].
        mbps: f64,
        /// The even split's rate \[Mb/s\].
        against_mbps: f64,
        /// How much more \[%\].
        pct: f64,
    },
    /// Both sustain it: the faster one's mean payload delay and the other's \[us\].
    Delays {
        /// The faster \[us\].
        us: f64,
        /// The other \[us\].
        against_us: f64,
    },
    /// MTU 9000 saturates and the even split does not.
    OnlyEvenSustains,
    /// Both saturate: no numbers.
    None,
}
