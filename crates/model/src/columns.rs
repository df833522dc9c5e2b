//! The metric columns of oransim's CSV outputs, named once: `run --format csv` (one row per
//! flow direction, `printer::run::csv`) and a sweep's `sweep.csv` (one row per point and flow,
//! `whatif::sweep::FlowRow::cells`) list theirs from here, so a column both have carries one
//! name in both. Times are nanoseconds, rates bit/s.

/// A per-flow metric column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// Packets created.
    PacketsSent,
    /// Packets delivered.
    PacketsDelivered,
    /// Packets dropped.
    PacketsDropped,
    /// Delivered bits over first creation to last delivery \[bit/s\].
    ThroughputBps,
    /// Mean end-to-end delay \[ns\].
    DelayMeanNs,
    /// Median delay \[ns\].
    DelayP50Ns,
    /// 99th percentile delay \[ns\].
    DelayP99Ns,
    /// Largest delay \[ns\].
    DelayMaxNs,
    /// Smallest delay \[ns\].
    DelayMinNs,
    /// Mean queueing delay \[ns\].
    QueueingNs,
    /// Mean propagation delay \[ns\].
    PropagationNs,
    /// Mean transmission delay \[ns\].
    TransmissionNs,
    /// Mean processing delay \[ns\].
    ProcessingNs,
    /// Periodic sources: mean message delay \[ns\].
    MessageMeanNs,
    /// Periodic sources: 99th percentile message delay \[ns\].
    MessageP99Ns,
    /// Ping flows: mean round-trip time \[ns\].
    RttMeanNs,
    /// Ping flows: 99th percentile round-trip time \[ns\].
    RttP99Ns,
    /// Bulk flows: first frame created to last delivered \[ns\].
    TransferCompletionNs,
    /// Bulk flows: payload bits over the completion time \[bit/s\].
    GoodputBps,
    /// Highest utilisation of a node on the flow's path, in \[0, 1\].
    PathMaxUtilisation,
    /// The node with that utilisation.
    BottleneckNode,
}

impl Column {
    /// The column's name in a CSV header.
    pub const fn name(self) -> &'static str {
        match self {
            Column::PacketsSent => "packets_sent",
            Column::PacketsDelivered => "packets_delivered",
            Column::PacketsDropped => "packets_dropped",
            Column::ThroughputBps => "throughput_bps",
            Column::DelayMeanNs => "delay_mean_ns",
            Column::DelayP50Ns => "delay_p50_ns",
            Column::DelayP99Ns => "delay_p99_ns",
            Column::DelayMaxNs => "delay_max_ns",
            Column::DelayMinNs => "delay_min_ns",
            Column::QueueingNs => "queueing_ns",
            Column::PropagationNs => "propagation_ns",
            Column::TransmissionNs => "transmission_ns",
            Column::ProcessingNs => "processing_ns",
            Column::MessageMeanNs => "message_mean_ns",
            Column::MessageP99Ns => "message_p99_ns",
            Column::RttMeanNs => "rtt_mean_ns",
            Column::RttP99Ns => "rtt_p99_ns",
            Column::TransferCompletionNs => "transfer_completion_ns",
            Column::GoodputBps => "goodput_bps",
            Column::PathMaxUtilisation => "path_max_utilisation",
            Column::BottleneckNode => "bottleneck_node",
        }
    }
}

/// `run --format csv`'s metric columns, after `scenario`, `flow` and `direction`.
pub const RUN: [Column; 13] = [
    Column::PacketsSent,
    Column::PacketsDelivered,
    Column::PacketsDropped,
    Column::ThroughputBps,
    Column::DelayMeanNs,
    Column::DelayP50Ns,
    Column::DelayP99Ns,
    Column::DelayMaxNs,
    Column::DelayMinNs,
    Column::QueueingNs,
    Column::PropagationNs,
    Column::TransmissionNs,
    Column::ProcessingNs,
];

/// `sweep.csv`'s metric columns, after `point`, the varied keys and `flow`.
pub const SWEEP: [Column; 20] = [
    Column::PacketsSent,
    Column::PacketsDelivered,
    Column::PacketsDropped,
    Column::ThroughputBps,
    Column::DelayMeanNs,
    Column::DelayP50Ns,
    Column::DelayP99Ns,
    Column::DelayMaxNs,
    Column::QueueingNs,
    Column::PropagationNs,
    Column::TransmissionNs,
    Column::ProcessingNs,
    Column::MessageMeanNs,
    Column::MessageP99Ns,
    Column::RttMeanNs,
    Column::RttP99Ns,
    Column::TransferCompletionNs,
    Column::GoodputBps,
    Column::PathMaxUtilisation,
    Column::BottleneckNode,
];
