//! What one sweep point produced: per flow its key metrics, per node its utilisation.

use serde::{Deserialize, Serialize};

use model::Report;
use model::columns::Column;

/// A float for the outputs: `None` (JSON `null`, an empty CSV cell) when not finite.
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// One flow's key metrics at one point (forward direction; times \[ns\], rates [bit/s]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowRow {
    /// Flow name.
    pub flow: String,
    /// Packets created.
    pub packets_sent: u64,
    /// Packets delivered.
    pub packets_delivered: u64,
    /// Packets dropped (full queue or node, or over the MTU).
    pub packets_dropped: u64,
    /// Delivered bits over first creation to last delivery [bit/s].
    pub throughput_bps: Option<f64>,
    /// Mean end-to-end delay \[ns\].
    pub delay_mean_ns: Option<f64>,
    /// Median delay \[ns\] (HDR histogram, within 0.1%).
    pub delay_p50_ns: Option<f64>,
    /// 99th percentile delay \[ns\] (within 0.1%).
    pub delay_p99_ns: Option<f64>,
    /// Largest delay \[ns\].
    pub delay_max_ns: Option<f64>,
    /// Eq. 1: mean queueing delay D_que \[ns\].
    pub queueing_ns: Option<f64>,
    /// Eq. 1: mean propagation delay D_prop \[ns\].
    pub propagation_ns: Option<f64>,
    /// Eq. 1: mean transmission delay D_trans \[ns\].
    pub transmission_ns: Option<f64>,
    /// Eq. 1: mean processing delay D_proc \[ns\].
    pub processing_ns: Option<f64>,
    /// Periodic sources: mean message delay, creation to last frame delivered \[ns\].
    pub message_mean_ns: Option<f64>,
    /// Periodic sources: 99th percentile message delay \[ns\].
    pub message_p99_ns: Option<f64>,
    /// Ping flows: mean round-trip time \[ns\].
    pub rtt_mean_ns: Option<f64>,
    /// Ping flows: 99th percentile round-trip time \[ns\].
    pub rtt_p99_ns: Option<f64>,
    /// Bulk flows: first frame created to last delivered \[ns\].
    pub transfer_completion_ns: Option<f64>,
    /// Bulk flows: payload bits over the completion time [bit/s].
    pub goodput_bps: Option<f64>,
    /// Highest utilisation of a node on the flow's path, in [0, 1].
    pub path_max_utilisation: Option<f64>,
    /// The node on the path with that utilisation (the first of equals).
    pub bottleneck_node: String,
}

/// One node's utilisation at one point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeUse {
    /// Node name.
    pub name: String,
    /// Busy time over (cores x simulated time), in [0, 1].
    pub utilisation: Option<f64>,
}

/// What one point produced: per flow its key metrics, per node its utilisation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    /// Point index in sweep order.
    pub index: u64,
    /// [`Sweep::point_hash`](super::Sweep::point_hash) of the point.
    pub hash: String,
    /// One row per reported flow, in the scenario's order.
    pub flows: Vec<FlowRow>,
    /// Every node, in the scenario's order.
    pub nodes: Vec<NodeUse>,
}

impl PointResult {
    /// Extracts the sweep metrics from a run's report.
    pub fn from_report(index: u64, hash: String, report: &Report) -> PointResult {
        let nodes: Vec<NodeUse> = report
            .nodes
            .iter()
            .map(|n| NodeUse {
                name: n.name.clone(),
                utilisation: finite(n.utilisation),
            })
            .collect();
        let flows = report
            .flows
            .iter()
            .map(|f| {
                let mut bottleneck = (String::new(), None::<f64>);
                for name in &f.path {
                    if let Some(n) = report.nodes.iter().find(|n| &n.name == name)
                        && bottleneck.1.is_none_or(|u| n.utilisation > u)
                    {
                        bottleneck = (n.name.clone(), Some(n.utilisation));
                    }
                }
                let d = &f.forward.delay;
                // No delay statistic of a direction that delivered nothing.
                let delay = |x: f64| finite(x).filter(|_| d.count > 0);
                FlowRow {
                    flow: f.name.clone(),
                    packets_sent: f.forward.packets_sent,
                    packets_delivered: f.forward.packets_delivered,
                    packets_dropped: f.forward.packets_dropped,
                    throughput_bps: finite(f.forward.throughput_bps),
                    delay_mean_ns: delay(d.mean_ns),
                    delay_p50_ns: delay(d.p50_ns),
                    delay_p99_ns: delay(d.p99_ns),
                    delay_max_ns: delay(d.max_ns),
                    queueing_ns: delay(d.queueing_ns),
                    propagation_ns: delay(d.propagation_ns),
                    transmission_ns: delay(d.transmission_ns),
                    processing_ns: delay(d.processing_ns),
                    message_mean_ns: f.message.as_ref().and_then(|m| finite(m.mean_ns)),
                    message_p99_ns: f.message.as_ref().and_then(|m| finite(m.p99_ns)),
                    rtt_mean_ns: f.rtt.as_ref().and_then(|m| finite(m.mean_ns)),
                    rtt_p99_ns: f.rtt.as_ref().and_then(|m| finite(m.p99_ns)),
                    transfer_completion_ns: f
                        .transfer
                        .as_ref()
                        .and_then(|t| t.completion_ns.and_then(finite)),
                    goodput_bps: f
                        .transfer
                        .as_ref()
                        .and_then(|t| t.goodput_bps.and_then(finite)),
                    path_max_utilisation: bottleneck.1.and_then(finite),
                    bottleneck_node: bottleneck.0,
                }
            })
            .collect();
        PointResult {
            index,
            hash,
            flows,
            nodes,
        }
    }
}

impl FlowRow {
    /// The cells of [`model::columns::SWEEP`] as text (empty for `None`; floats in Rust's
    /// shortest round-trip form).
    pub fn cells(&self) -> Vec<String> {
        model::columns::SWEEP
            .iter()
            .map(|c| self.cell(*c))
            .collect()
    }

    /// One column's cell (empty for a column the row does not have).
    fn cell(&self, c: Column) -> String {
        let f = |x: Option<f64>| x.map_or_else(String::new, |v| v.to_string());
        match c {
            Column::PacketsSent => self.packets_sent.to_string(),
            Column::PacketsDelivered => self.packets_delivered.to_string(),
            Column::PacketsDropped => self.packets_dropped.to_string(),
            Column::ThroughputBps => f(self.throughput_bps),
            Column::DelayMeanNs => f(self.delay_mean_ns),
            Column::DelayP50Ns => f(self.delay_p50_ns),
            Column::DelayP99Ns => f(self.delay_p99_ns),
            Column::DelayMaxNs => f(self.delay_max_ns),
            Column::DelayMinNs => String::new(),
            Column::QueueingNs => f(self.queueing_ns),
            Column::PropagationNs => f(self.propagation_ns),
            Column::TransmissionNs => f(self.transmission_ns),
            Column::ProcessingNs => f(self.processing_ns),
            Column::MessageMeanNs => f(self.message_mean_ns),
            Column::MessageP99Ns => f(self.message_p99_ns),
            Column::RttMeanNs => f(self.rtt_mean_ns),
            Column::RttP99Ns => f(self.rtt_p99_ns),
            Column::TransferCompletionNs => f(self.transfer_completion_ns),
            Column::GoodputBps => f(self.goodput_bps),
            Column::PathMaxUtilisation => f(self.path_max_utilisation),
            Column::BottleneckNode => self.bottleneck_node.clone(),
        }
    }
}
