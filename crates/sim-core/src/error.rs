//! The one error type of sim-core.

/// Why the engine refuses a [`Network`](crate::network::Network): an invariant the engine relies
/// on does not hold. Scenario files are checked first, with messages naming the file and key, by
/// the `model` crate; this is the engine's own backstop, so it names the item by its index and
/// name. Returned by [`Network::validate`](crate::network::Network::validate) and by every way
/// of running a [`Simulation`](crate::engine::Simulation).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum NetworkError {
    /// A link or a flow's path names a node index that does not exist.
    #[error("{item}: node index {index} is out of range; the network has {nodes} node(s)")]
    NodeOutOfRange {
        /// The link or flow, e.g. `flow[0] ("uplink")`.
        item: String,
        /// The index given.
        index: usize,
        /// Number of nodes.
        nodes: usize,
    },
    /// A flow's path is empty.
    #[error("{item}: the path is empty; at least one node is needed")]
    EmptyPath {
        /// The flow.
        item: String,
    },
    /// Two consecutive nodes of a flow's path share no link.
    #[error(
        "{item}: no link between path nodes {from} and {to}; consecutive path nodes must be linked"
    )]
    NotLinked {
        /// The flow.
        item: String,
        /// Node index.
        from: usize,
        /// Node index.
        to: usize,
    },
    /// More nodes, links, flows or path nodes than the engine can index.
    #[error("{what}: {count} is too many; at most {max}")]
    TooMany {
        /// What was counted, e.g. `nodes` or `flow[0] ("f") path`.
        what: String,
        /// How many there are.
        count: usize,
        /// The most the engine indexes.
        max: usize,
    },
    /// A number outside the range the engine accepts.
    #[error("{item}: {field} is {value}; {allowed}")]
    OutOfRange {
        /// The node, link or flow.
        item: String,
        /// The field, e.g. `loss` or `service.mean_ps`.
        field: &'static str,
        /// The value given, formatted.
        value: String,
        /// What is allowed.
        allowed: &'static str,
    },
    /// A list the engine draws from or walks through is empty, of mismatched lengths, or not in
    /// the required order.
    #[error("{item}: {field}: {problem}")]
    BadList {
        /// The node or flow.
        item: String,
        /// The field, e.g. `service.cumulative` or `source.records`.
        field: &'static str,
        /// What is wrong and what is required.
        problem: &'static str,
    },
    /// No stop limit and a source that never ends: the run would not end.
    #[error(
        "{item}: the source never ends and the stop condition sets no limit; set stop.packets or stop.duration, or give the source a count"
    )]
    Endless {
        /// The flow.
        item: String,
    },
    /// The run's clock would pass [`MAX_TIME_PS`](crate::network::MAX_TIME_PS): steps that are
    /// each within bounds chained (queued behind one another, or a source's gaps) beyond what the
    /// picosecond clock is allowed to reach. The run stops rather than wrap or saturate.
    #[error(
        "{item}: the run would schedule an event at {at_ps} ps, past the clock's limit of 2^62 ps (53 days); shorten the service times, gaps or stop condition"
    )]
    ClockOverflow {
        /// The event time the run tried to schedule \[ps\].
        at_ps: u64,
        /// The item and key whose step drove the clock there, e.g. `node[0] ("a").service`
        /// or `flow[0] ("f").source`.
        item: String,
    },
}
