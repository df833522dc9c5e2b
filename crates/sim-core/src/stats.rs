//! Statistics recorded during a run, and their summaries.
//!
//! Everything streams: a run keeps counters, sums and HDR histograms, never a per-packet vector,
//! so memory stays flat however long it runs. Raw statistics of several replications merge
//! exactly (histograms add; sums add); confidence intervals come from the per-replication means
//! with Student's t (statrs).

use hdrhistogram::Histogram;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::slots::Layout;
use crate::tally::Bump;
use crate::time::PS_PER_NS;

/// The four delay components of the papers' Eq. 1 (000 §2.3, 001 §V-A):
/// `D_total = D_que + D_prop + D_trans + D_proc`. `T` is `u64` for one packet \[ps\] and `u128`
/// for sums over many packets \[ps\].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Components<T> {
    /// D_que: waiting for a server (CPU or I/O stage) or for a link's transmitter.
    pub queueing: T,
    /// D_prop: travelling along a link.
    pub propagation: T,
    /// D_trans: being clocked onto a link.
    pub transmission: T,
    /// D_proc: being served at a node (CPU, I/O stage, crypto work) plus the node's fixed
    /// latency.
    pub processing: T,
}

impl<T: Copy> Components<T> {
    /// The components in order: queueing, propagation, transmission, processing.
    #[inline]
    pub fn to_array(self) -> [T; 4] {
        [
            self.queueing,
            self.propagation,
            self.transmission,
            self.processing,
        ]
    }

    /// Applies `f` to every component.
    #[inline]
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> Components<U> {
        Components {
            queueing: f(self.queueing),
            propagation: f(self.propagation),
            transmission: f(self.transmission),
            processing: f(self.processing),
        }
    }
}

impl Components<u64> {
    /// The sum of the four \[ps\]: a packet's end-to-end delay.
    #[inline]
    pub fn total(self) -> u64 {
        self.queueing + self.propagation + self.transmission + self.processing
    }

    /// What each component gained since `earlier` (a snapshot of the same packet) \[ps\].
    #[inline]
    pub fn since(self, earlier: Components<u64>) -> Components<u64> {
        Components {
            queueing: self.queueing - earlier.queueing,
            propagation: self.propagation - earlier.propagation,
            transmission: self.transmission - earlier.transmission,
            processing: self.processing - earlier.processing,
        }
    }
}

impl Components<u128> {
    /// Adds one packet's components to these sums.
    #[inline]
    pub fn add(&mut self, c: Components<u64>) {
        self.queueing += c.queueing as u128;
        self.propagation += c.propagation as u128;
        self.transmission += c.transmission as u128;
        self.processing += c.processing as u128;
    }

    /// Adds other sums to these (merging replications).
    #[inline]
    pub fn merge(&mut self, o: &Components<u128>) {
        self.queueing += o.queueing;
        self.propagation += o.propagation;
        self.transmission += o.transmission;
        self.processing += o.processing;
    }

    /// The mean of each component over `n` packets \[ns\] (`n = 0` counts as 1).
    pub fn means_ns(&self, n: u64) -> Components<f64> {
        let n = n.max(1) as f64;
        self.map(|s| s as f64 / n / PS_PER_NS as f64)
    }
}

/// A packet's role at a node, which picks the node's service model: it was created there, it is
/// delivered there, or it passes through. The `*_by_role` arrays of [`NodeStats`] are indexed
/// by [`Role::index`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The packet was created at this node (the node seals it: `service`).
    Originate,
    /// The packet is delivered at this node (the node opens it: `receive`).
    Terminate,
    /// The packet passes through (`transit`).
    Transit,
}

impl Role {
    /// All roles, in index order.
    pub const ALL: [Role; 3] = [Role::Originate, Role::Terminate, Role::Transit];

    /// The role's index in the `*_by_role` arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The role's name: `originate`, `terminate` or `transit`.
    pub const fn name(self) -> &'static str {
        ROLES[self as usize]
    }

    /// The role of the node at position `i` of a path of `len` nodes.
    #[inline]
    pub const fn at(i: usize, len: usize) -> Role {
        if i == 0 {
            Role::Originate
        } else if i + 1 == len {
            Role::Terminate
        } else {
            Role::Transit
        }
    }
}

/// A streaming distribution of delays \[ps\]: exact count, sum, min and max; percentiles from an
/// HDR histogram. Values are counted in the HDR histogram's slots (`slots.rs`), in a vector
/// that grows a bucket at a time to the largest value, so a distribution nothing is recorded in
/// (a flow's reverse direction, its RTTs when it does not ping) costs 96 bytes and recording
/// touches only the counts; the HDR histogram itself is built when a percentile is asked for.
/// While values fall in at most [`DelayHist::FEW_SLOTS`] slots they are counted as (slot,
/// count) pairs instead (16 B a pair): a storm of a million flows with a dozen packets each,
/// whose delays span 10 us to 165 s, would otherwise hold a 4 KB vector per distribution
/// (five per handshake flow, 20 GB in all).
///
/// Two precisions ([`Precision`]): [`Precision::Exact`] (the default), 3 significant digits
/// from 1 ps (relative error at most 0.1%, about 80 KB for delays up to 10 us), and
/// [`Precision::Coarse`], 1 significant digit from 1 ns (16 linear steps per power of two:
/// relative error at most 6.25% above 16 ns; about 1.5 KB for delays up to 10 us, 3 KB up to
/// 100 ms), for the flows of a large network nobody asked to see in detail (see
/// [`crate::engine::Detail`]). Count, sum, mean, min and max are exact in both.
#[derive(Debug, Clone)]
pub struct DelayHist {
    /// Values per HDR slot of `precision`, up to the end of the highest bucket used; empty
    /// while the values are counted in `few`.
    counts: Vec<u64>,
    /// Until a value falls in a slot past the [`DelayHist::FEW_SLOTS`]-th: (slot, values) of
    /// each slot used, sorted by slot; emptied when `counts` takes over.
    few: Vec<(u32, u64)>,
    /// Values recorded.
    n: u64,
    precision: Precision,
    sum_ps: u128,
    min_ps: u64,
    max_ps: u64,
}

/// How finely a [`DelayHist`] resolves its percentiles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Precision {
    /// 3 significant digits from 1 ps: percentiles within 0.1%.
    #[default]
    Exact,
    /// 1 significant digit from 1 ns (1024 ps): 16 linear steps per power of two, so
    /// percentiles within 6.25% above 16 ns.
    Coarse,
}

/// [`Precision::Exact`]'s slots: unit 1 ps, 2048 slots a bucket (`2 * 10^3` rounded up).
const EXACT: Layout = Layout::new(0, 11);
/// [`Precision::Coarse`]'s slots: unit 1024 ps, 32 slots a bucket (`2 * 10^1` rounded up).
const COARSE: Layout = Layout::new(10, 5);

impl Precision {
    /// An empty auto-resizing HDR histogram of this precision.
    pub(crate) fn histogram(self) -> Histogram<u64> {
        let (low, sigfig) = match self {
            Precision::Exact => (1, 3),
            Precision::Coarse => (1024, 1),
        };
        // Valid bounds: low >= 1, high >= 2 * low, sigfig <= 5; auto-resize grows `high`.
        let mut h = Histogram::new_with_bounds(low, low.saturating_mul(2), sigfig)
            .expect("constant HDR bounds and precision are valid");
        h.auto(true);
        h
    }

    /// The slots of [`Precision::histogram`].
    #[inline(always)]
    pub(crate) const fn layout(self) -> Layout {
        match self {
            Precision::Exact => EXACT,
            Precision::Coarse => COARSE,
        }
    }
}

impl Default for DelayHist {
    fn default() -> Self {
        DelayHist::with_precision(Precision::Exact)
    }
}

impl DelayHist {
    /// An empty distribution of the given precision (nothing allocated until the first value).
    pub fn with_precision(precision: Precision) -> Self {
        DelayHist {
            counts: Vec::new(),
            few: Vec::new(),
            n: 0,
            precision,
            sum_ps: 0,
            min_ps: u64::MAX,
            max_ps: 0,
        }
    }

    /// The precision of its percentiles.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// Records one value \[ps\].
    #[inline]
    pub fn record(&mut self, ps: u64) {
        // The HDR histogram's lowest value is 1 (0 would be a slot of its own at 1 ps).
        let slot = match self.precision {
            Precision::Exact => EXACT.index(ps.max(1)),
            Precision::Coarse => COARSE.index(ps.max(1)),
        };
        self.add(slot, 1);
        self.n.bump(1);
        self.sum_ps.bump(ps as u128);
        self.min_ps = self.min_ps.min(ps);
        self.max_ps = self.max_ps.max(ps);
    }

    /// The count a value of `ps` \[ps\] would be added to, if its slot is allocated: for
    /// prefetching it ahead of [`DelayHist::record`].
    #[inline]
    pub(crate) fn slot_of(&self, ps: u64) -> Option<&u64> {
        self.counts.get(self.precision.layout().index(ps.max(1)))
    }

    /// The counts of up to `n` slots from the one a value of `ps` \[ps\] would be added to
    /// (those allocated): for prefetching the counts a value at least `ps` will likely add to.
    #[inline]
    pub(crate) fn slots_from(&self, ps: u64, n: usize) -> &[u64] {
        let from = self.precision.layout().index(ps.max(1));
        let to = from.saturating_add(n).min(self.counts.len());
        self.counts.get(from..to).unwrap_or(&[])
    }

    /// Most slots counted as (slot, count) pairs before the counts become a vector indexed by
    /// slot (see the type's doc): 512 B of pairs, against 4 KB for a coarse vector up to 100 s.
    pub const FEW_SLOTS: usize = 32;

    /// Adds `n` values to slot `slot`, growing the counts to the end of its bucket.
    #[inline]
    fn add(&mut self, slot: usize, n: u64) {
        if slot >= self.counts.len() {
            self.grow(slot, n);
        } else {
            self.counts[slot].bump(n);
        }
    }

    /// [`DelayHist::add`] past the end of the counts: among the few pairs while there is room
    /// (or the slot has one), else into counts grown to the end of its bucket.
    #[cold]
    fn grow(&mut self, slot: usize, n: u64) {
        if self.counts.is_empty() {
            // A slot index is far below 2^32 (64 buckets of at most 2^11 slots).
            let key = slot as u32;
            match self.few.binary_search_by_key(&key, |&(s, _)| s) {
                Ok(i) => {
                    self.few[i].1.bump(n);
                    return;
                }
                Err(i) if self.few.len() < Self::FEW_SLOTS => {
                    self.few.insert(i, (key, n));
                    return;
                }
                Err(_) => {}
            }
        }
        self.grow_counts(slot);
        self.counts[slot].bump(n);
    }

    /// Grows the counts to the end of the bucket of `slot` (and of every few pair's slot, which
    /// move into them).
    fn grow_counts(&mut self, slot: usize) {
        let top = self.few.last().map_or(0, |&(s, _)| s as usize).max(slot);
        let len = self.precision.layout().bucket_end(top);
        if len > self.counts.len() {
            self.counts
                .reserve_exact(len.saturating_sub(self.counts.len()));
            self.counts.resize(len, 0);
        }
        for (s, c) in std::mem::take(&mut self.few) {
            self.counts[s as usize].bump(c);
        }
    }

    /// Every slot that holds values, and its count, in slot order.
    fn used(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        let few = self.few.iter().map(|&(s, c)| (s as usize, c));
        let dense = self
            .counts
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(i, &c)| (i, c));
        few.chain(dense)
    }

    /// The HDR histogram direct recording would have built: the same counts in the same slots
    /// (each slot recorded at its lowest value); `None` when empty.
    fn hdr(&self) -> Option<Histogram<u64>> {
        if self.n == 0 {
            return None;
        }
        let layout = self.precision.layout();
        let mut h = self.precision.histogram();
        for (i, c) in self.used() {
            // Auto-resizing histogram: recording cannot fail for any u64 value.
            let _ = h.record_n(layout.value(i), c);
        }
        Some(h)
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Exact mean \[ps\]; 0 when empty.
    pub fn mean_ps(&self) -> f64 {
        let n = self.count();
        if n == 0 {
            0.0
        } else {
            self.sum_ps as f64 / n as f64
        }
    }

    /// Adds another distribution's values to this one. An empty distribution takes the other's
    /// as it is (its precision too); otherwise values are re-recorded at this one's precision
    /// (each of the other's slots at its lowest value, as hdrhistogram's `add` does).
    pub fn merge(&mut self, other: &DelayHist) {
        if other.n == 0 {
        } else if self.n == 0 {
            self.counts.clone_from(&other.counts);
            self.few.clone_from(&other.few);
            self.precision = other.precision;
        } else if self.precision == other.precision && !other.counts.is_empty() {
            // Moves the few pairs into the counts too.
            self.grow_counts(other.counts.len().saturating_sub(1));
            for (a, &b) in self.counts.iter_mut().zip(&other.counts) {
                a.bump(b);
            }
        } else if self.precision == other.precision {
            for (i, c) in other.used() {
                self.add(i, c);
            }
        } else {
            let (mine, theirs) = (self.precision.layout(), other.precision.layout());
            for (i, c) in other.used() {
                self.add(mine.index(theirs.value(i)), c);
            }
        }
        self.n.bump(other.n);
        self.sum_ps.bump(other.sum_ps);
        self.min_ps = self.min_ps.min(other.min_ps);
        self.max_ps = self.max_ps.max(other.max_ps);
    }

    /// The value at quantile `q` in [0, 1] \[ps\] (HDR: the highest value equivalent to it).
    pub fn quantile_ps(&self, q: f64) -> u64 {
        self.quantile_in(self.hdr().as_ref(), q)
    }

    /// [`DelayHist::quantile_ps`] with the HDR histogram already built.
    fn quantile_in(&self, hdr: Option<&Histogram<u64>>, q: f64) -> u64 {
        match hdr {
            None => 0,
            Some(h) if q < 1.0 => h.value_at_quantile(q).min(self.max_ps),
            Some(_) => self.max_ps,
        }
    }

    /// Points of the empirical CDF: `(delay \[ns\], fraction of values at or below)`, one per
    /// histogram bucket that holds values.
    pub fn cdf_ns(&self) -> Vec<(f64, f64)> {
        let n = self.count() as f64;
        let mut acc = 0u64;
        let mut out = Vec::new();
        for v in self.hdr().iter().flat_map(|h| h.iter_recorded()) {
            acc += v.count_at_value();
            out.push((
                v.value_iterated_to() as f64 / PS_PER_NS as f64,
                acc as f64 / n,
            ));
        }
        out
    }

    /// Summary in nanoseconds.
    pub fn summary(&self) -> DistSummary {
        let ns = |ps: u64| ps as f64 / PS_PER_NS as f64;
        let hdr = self.hdr();
        DistSummary {
            count: self.count(),
            mean_ns: self.mean_ps() / PS_PER_NS as f64,
            min_ns: if self.count() == 0 {
                0.0
            } else {
                ns(self.min_ps)
            },
            p50_ns: ns(self.quantile_in(hdr.as_ref(), 0.5)),
            p99_ns: ns(self.quantile_in(hdr.as_ref(), 0.99)),
            max_ns: ns(self.max_ps),
        }
    }
}

/// Count, mean and percentiles of a distribution \[ns\].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DistSummary {
    /// Number of values.
    pub count: u64,
    /// Mean \[ns\].
    pub mean_ns: f64,
    /// Minimum \[ns\].
    pub min_ns: f64,
    /// Median \[ns\] (HDR, within 0.1%).
    pub p50_ns: f64,
    /// 99th percentile \[ns\] (HDR, within 0.1%).
    pub p99_ns: f64,
    /// Maximum \[ns\] (exact).
    pub max_ns: f64,
}

/// Sums of the Eq. 1 components over the packets that passed one hop of a path.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HopSums {
    /// Packets that completed this hop.
    pub packets: u64,
    /// Component sums \[ps\].
    pub sums_ps: Components<u128>,
}

/// Statistics of the packets of one flow travelling one direction.
#[derive(Debug, Clone, Default)]
pub struct DirStats {
    /// Packets created (after warm-up).
    pub sent: u64,
    /// Packets delivered at the end of the path.
    pub delivered: u64,
    /// Packets dropped on the way (full buffer or oversize).
    pub dropped: u64,
    /// Bytes delivered \[bytes\].
    pub bytes_delivered: u64,
    /// Creation time of the first counted packet \[ps\].
    pub first_sent_ps: Option<u64>,
    /// Delivery time of the first counted packet \[ps\]; `None` before one is delivered.
    pub first_delivered_ps: Option<u64>,
    /// Delivery time of the last counted packet \[ps\].
    pub last_delivered_ps: u64,
    /// End-to-end delay of delivered packets.
    pub delay: DelayHist,
    /// End-to-end sums of the Eq. 1 components over delivered packets \[ps\].
    pub components_ps: Components<u128>,
    /// Per-hop sums over the packets that completed the hop: entry `2i` is node `i` of the path
    /// (queueing and processing), entry `2i+1` the link leaving it (queueing, transmission,
    /// propagation).
    pub hops: Vec<HopSums>,
}

impl DirStats {
    /// Adds another replication's statistics.
    pub fn merge(&mut self, o: &DirStats) {
        self.sent += o.sent;
        self.delivered += o.delivered;
        self.dropped += o.dropped;
        self.bytes_delivered += o.bytes_delivered;
        self.first_sent_ps = match (self.first_sent_ps, o.first_sent_ps) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.first_delivered_ps = match (self.first_delivered_ps, o.first_delivered_ps) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.last_delivered_ps = self.last_delivered_ps.max(o.last_delivered_ps);
        self.delay.merge(&o.delay);
        self.components_ps.merge(&o.components_ps);
        if self.hops.len() < o.hops.len() {
            self.hops.resize(o.hops.len(), HopSums::default());
        }
        for (h, oh) in self.hops.iter_mut().zip(&o.hops) {
            h.packets += oh.packets;
            h.sums_ps.merge(&oh.sums_ps);
        }
    }

    /// Mean of each Eq. 1 component over delivered packets \[ns\].
    pub fn component_means_ns(&self) -> Components<f64> {
        self.components_ps.means_ns(self.delivered)
    }

    /// Delivered bits per second between the first creation and the last delivery [bit/s].
    pub fn throughput_bps(&self) -> f64 {
        match self.first_sent_ps {
            Some(first) if self.last_delivered_ps > first => {
                self.bytes_delivered as f64 * 8.0
                    / ((self.last_delivered_ps - first) as f64 * 1e-12)
            }
            _ => 0.0,
        }
    }
}

/// Statistics of one flow.
#[derive(Debug, Clone, Default)]
pub struct FlowStats {
    /// Packets from the first node of the path to the last.
    pub forward: DirStats,
    /// Replies, acknowledgements and reverse trace records.
    pub reverse: DirStats,
    /// Round-trip times of ping requests answered \[ps\].
    pub rtt: DelayHist,
    /// Delay of periodic messages (one or more frames), creation to last frame delivered \[ps\].
    pub message: DelayHist,
    /// Messages with at least one frame dropped.
    pub messages_incomplete: u64,
    /// Bulk transfers: time from the first frame created to the last frame delivered \[ps\];
    /// `None` while the transfer is unfinished (a `[stop]` cut it short). Merged: the longest.
    pub transfer_ps: Option<u64>,
    /// Bulk transfers: payload delivered \[bytes\].
    pub transfer_payload_bytes: u64,
    /// Handshakes: time from a tunnel's start to its last response \[ps\].
    pub handshake: DelayHist,
    /// Handshakes that failed (a message lost without retransmission, or all tries used).
    pub handshakes_failed: u64,
    /// Handshake requests retransmitted.
    pub handshake_retransmissions: u64,
    /// Of those, the ones sent after a copy of the exchange's request or response was lost
    /// since the send before (the others: timers that expired while the exchange waited).
    pub handshake_retransmissions_after_loss: u64,
    /// Handshakes: per exchange, request sent (work included) to response processed \[ps\].
    pub exchanges: Vec<DelayHist>,
}

impl FlowStats {
    /// Empty statistics whose histograms (both directions' delays, RTTs, messages, handshakes)
    /// have precision `precision`; exchanges' histograms, made at the first exchange completed,
    /// take the handshakes' precision.
    pub fn with_precision(precision: Precision) -> Self {
        let h = || DelayHist::with_precision(precision);
        FlowStats {
            forward: DirStats {
                delay: h(),
                ..DirStats::default()
            },
            reverse: DirStats {
                delay: h(),
                ..DirStats::default()
            },
            rtt: h(),
            message: h(),
            handshake: h(),
            ..FlowStats::default()
        }
    }

    /// Adds another replication's statistics.
    pub fn merge(&mut self, o: &FlowStats) {
        self.forward.merge(&o.forward);
        self.reverse.merge(&o.reverse);
        self.rtt.merge(&o.rtt);
        self.message.merge(&o.message);
        self.messages_incomplete += o.messages_incomplete;
        self.transfer_ps = match (self.transfer_ps, o.transfer_ps) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.transfer_payload_bytes += o.transfer_payload_bytes;
        self.handshake.merge(&o.handshake);
        self.handshakes_failed += o.handshakes_failed;
        self.handshake_retransmissions += o.handshake_retransmissions;
        self.handshake_retransmissions_after_loss += o.handshake_retransmissions_after_loss;
        if self.exchanges.len() < o.exchanges.len() {
            self.exchanges
                .resize(o.exchanges.len(), DelayHist::default());
        }
        for (a, b) in self.exchanges.iter_mut().zip(&o.exchanges) {
            a.merge(b);
        }
    }
}

/// Statistics of one node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeStats {
    /// Packets whose service completed.
    pub served: u64,
    /// Arrivals dropped because the node was full.
    pub dropped: u64,
    /// Total service time handed out, over all servers \[ps\].
    pub busy_ps: u128,
    /// Largest number of packets waiting (not in service).
    pub max_waiting: u64,
    /// Largest number of CPU servers busy at once.
    pub max_busy: u32,
    /// Packets started, by role (indexed by [`Role::index`]: originate, terminate, transit).
    pub served_by_role: [u64; 3],
    /// Bytes of the packets started, by role, as the service saw them (protected length for
    /// nodes costing by it) \[bytes\].
    pub bytes_by_role: [u64; 3],
    /// Service time handed out, by role \[ps\].
    pub busy_by_role_ps: [u128; 3],
    /// Packets through the one-server I/O stage.
    pub io_served: u64,
    /// Time the I/O stage was busy \[ps\].
    pub io_busy_ps: u128,
}

/// The names of the [`Role`]s, in the order of the `*_by_role` arrays.
pub(crate) const ROLES: [&str; 3] = ["originate", "terminate", "transit"];

/// Statistics of one direction of a link.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkDirStats {
    /// Packets transmitted.
    pub sent: u64,
    /// Bytes transmitted \[bytes\].
    pub bytes: u64,
    /// Packets dropped because the transmit queue was full.
    pub dropped_full: u64,
    /// Packets dropped because they exceeded the MTU.
    pub dropped_mtu: u64,
    /// Packets lost in transit (the link's loss probability).
    pub dropped_loss: u64,
    /// Time the transmitter was busy \[ps\].
    pub busy_ps: u128,
}

/// A confidence interval for a mean across replications.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ConfidenceInterval {
    /// Confidence level, e.g. 0.99.
    pub level: f64,
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

/// Student-t confidence interval of the mean of `samples` at `level` (e.g. 0.99); `None` with
/// fewer than two samples.
///
/// ```
/// let ci = sim_core::mean_ci(&[9.0, 10.0, 11.0], 0.95).unwrap();
/// assert!(ci.low < 10.0 && ci.high > 10.0);
/// ```
pub fn mean_ci(samples: &[f64], level: f64) -> Option<ConfidenceInterval> {
    let n = samples.len();
    if n < 2 || !(level > 0.0 && level < 1.0) {
        return None;
    }
    let mean = samples.iter().sum::<f64>() / n as f64;
    let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .ok()?
        .inverse_cdf(0.5 + level / 2.0);
    let half = t * (var / n as f64).sqrt();
    Some(ConfidenceInterval {
        level,
        low: mean - half,
        high: mean + half,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hist_summary_and_merge() {
        let mut a = DelayHist::default();
        let mut b = DelayHist::default();
        for v in 1..=100u64 {
            a.record(v * 1000);
        }
        for v in 101..=200u64 {
            b.record(v * 1000);
        }
        a.merge(&b);
        let s = a.summary();
        assert_eq!(s.count, 200);
        assert_eq!(s.mean_ns, 100.5);
        assert_eq!(s.min_ns, 1.0);
        assert_eq!(s.max_ns, 200.0);
        assert!((s.p50_ns - 100.0).abs() <= 0.1, "{}", s.p50_ns);
        assert!((s.p99_ns - 198.0).abs() <= 0.2, "{}", s.p99_ns);
    }

    /// Issue 13: a coarse histogram keeps exact count, mean, min and max, and percentiles within
    /// its stated 6.25%; an empty one allocates nothing and merging into it keeps the other's
    /// precision.
    #[test]
    fn coarse_hist_is_exact_where_it_says_and_within_its_bound_elsewhere() {
        let mut c = DelayHist::with_precision(Precision::Coarse);
        let mut e = DelayHist::default();
        for v in 1..=10_000u64 {
            c.record(v * 10_007);
            e.record(v * 10_007);
        }
        let (cs, es) = (c.summary(), e.summary());
        assert_eq!(
            (cs.count, cs.mean_ns, cs.min_ns, cs.max_ns),
            (es.count, es.mean_ns, es.min_ns, es.max_ns)
        );
        for q in [0.5, 0.9, 0.99] {
            let (a, b) = (c.quantile_ps(q) as f64, e.quantile_ps(q) as f64);
            assert!((a - b).abs() <= 0.0625 * b, "q {q}: coarse {a}, exact {b}");
        }
        // Each precision's own resolution: 0.1% and 6.25% (HDR's bucket width over value).
        assert!(
            cs.p50_ns != es.p50_ns || cs.p99_ns != es.p99_ns,
            "coarse is coarser"
        );
        let mut m = DelayHist::default();
        assert!(m.counts.is_empty() && m.few.is_empty());
        m.merge(&c);
        assert_eq!(m.quantile_ps(0.5), c.quantile_ps(0.5));
        assert_eq!(m.count(), 10_000);
    }

    /// A distribution of few slots (pairs) answers as one counted in a vector: percentiles,
    /// CDF and merges either way round, at both precisions, across the switch to the vector.
    #[test]
    fn few_slots_answer_as_the_vector() {
        let values: Vec<u64> = (0..40u64).map(|i| 1000 + i * i * 7919 * 1024).collect();
        for p in [Precision::Exact, Precision::Coarse] {
            for n in [1, 5, DelayHist::FEW_SLOTS, DelayHist::FEW_SLOTS + 1, 40] {
                let mut few = DelayHist::with_precision(p);
                // Counted in the vector from the start.
                let mut dense = DelayHist::with_precision(p);
                dense.grow_counts(0);
                for &v in values[..n].iter().chain(&values[..n]) {
                    few.record(v);
                    dense.record(v);
                }
                assert_eq!(few.few.is_empty(), n > DelayHist::FEW_SLOTS, "{p:?} {n}");
                assert!(dense.few.is_empty());
                assert_eq!(few.hdr(), dense.hdr(), "{p:?} {n}");
                assert_eq!(few.cdf_ns(), dense.cdf_ns(), "{p:?} {n}");
                assert_eq!(few.summary(), dense.summary(), "{p:?} {n}");
                // A vector-counted one merged with the few, and the few merged into it.
                let mut many = DelayHist::with_precision(p);
                for &v in &values {
                    many.record(v);
                }
                let mut a = many.clone();
                a.merge(&few);
                let mut b = few.clone();
                b.merge(&many);
                assert_eq!(a.hdr(), b.hdr(), "{p:?} {n}");
                assert_eq!(a.cdf_ns(), b.cdf_ns(), "{p:?} {n}");
                assert_eq!(a.count(), (40 + 2 * n) as u64);
                assert_eq!(a.hdr().unwrap().len(), a.count());
            }
        }
    }

    /// t(0.995, 9 dof) = 3.2498: the interval of 10 samples with sd 1 is mean +- 1.0277.
    #[test]
    fn ci_uses_student_t() {
        let xs: Vec<f64> = (0..10)
            .map(|i| if i % 2 == 0 { -1.0 } else { 1.0 })
            .collect();
        let sd = (10.0f64 / 9.0).sqrt();
        let ci = mean_ci(&xs, 0.99).unwrap();
        assert!(
            (ci.high - 3.2498 * sd / 10f64.sqrt()).abs() < 1e-3,
            "{ci:?}"
        );
        assert!(mean_ci(&[1.0], 0.99).is_none());
    }
}
