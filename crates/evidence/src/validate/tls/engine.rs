//! The bench's workloads as engine runs: `s_time -new` handshakes against `s_server`, and the
//! record stream of `s_time -www`, each on one host of the bench's cores.

use super::{Cert, ENGINE_RECORDS, Group, MeasureError, RECORD_LEN};

/// TCP/IP headers of a loopback segment (IPv4 20 + TCP 20, RFC 791, RFC 9293) \[bytes\]: what
/// the engine's record frames and acknowledgements carry besides the record.
const TCP_IP_HEADERS: u32 = 20 + 20;

/// Loopback's rate in the engine's record stream \[bit/s\]: 1 Pbit/s, so that a record's
/// transmission (0.13 ns) is negligible: the kernel's copies are inside each side's measured
/// CPU time, so the link adds only the fitted delay.
const LOOPBACK_BPS: u64 = 1_000_000_000_000_000;

/// Handshakes the engine run of one workload simulates (closed loop of one client: the first
/// has no Finished of an earlier one to overlap with, so more handshakes weigh it less).
pub const ENGINE_HANDSHAKES: u32 = 200;

/// A client's handshake as the engine runs it: the server's and the client's CPU per
/// handshake \[ns\], the wait `W` \[ns\] (negative: the server's work on a Finished
/// overlaps the client's next handshake), and the bench: how many clients at once, on a host
/// of how many cores.
#[derive(Debug, Clone, Copy)]
pub struct EngineHandshake {
    /// The server's CPU per handshake \[ns\].
    pub server_ns: f64,
    /// The client's CPU per handshake \[ns\].
    pub client_ns: f64,
    /// The client's part of it before its ClientHello leaves (key generation and half its
    /// overhead) \[ns\].
    pub client_before_ns: f64,
    /// The wait `W` \[ns\].
    pub wait_ns: f64,
    /// `s_time` clients handshaking at once, at least 1 (each one process, one handshake at a
    /// time).
    pub clients: u32,
    /// The logical CPUs of the host the server and its clients share, at least 1.
    pub host_cores: u32,
}

/// The handshakes per second of `s_time -new` (each client one handshake at a time) against
/// `s_server`, as the engine runs it: the clients and the server two nodes joined by loopback
/// on one host of `host_cores` cores, the server on one thread holding one connection at a time
/// (`s_server`: one session, from a ClientHello to that connection's Finished) and the clients
/// on one each (a closed loop of `clients`), a TLS 1.3
/// handshake of X25519/P-256 with the certificate's sizes
/// (`protocols::tls_handshake`): the ClientHello flight and the server's flight as one
/// exchange, the client's Finished as a one-way exchange after which the client starts its
/// next handshake. The client's CPU is charged half before its ClientHello (with its key
/// generation), the rest on the server's flight; the server's on the ClientHello, less what
/// overlaps: with `W` < 0, `-W` of the server's CPU (at most all of it) is charged on the
/// Finished instead, while the client's next handshake begins; with `W` > 0 the loopback
/// carries each flight `W / 2` later. Loopback's kernel time is inside each side's measured CPU,
/// so the link adds no time of its own (100 Gbit/s, no propagation).
pub fn engine_handshake_rate(
    h: EngineHandshake,
    group: Group,
    cert: Cert,
) -> Result<f64, MeasureError> {
    use sim_core::{DataRate, SimDuration};
    use sim_core::{
        FlowConfig, HandshakeExchange, LineFraming, LinkConfig, Network, NodeConfig, Service,
        Source, Stop,
    };
    let ps = |ns: f64| SimDuration::from_secs_f64(ns.max(0.0) * 1e-9).unwrap_or_default();
    let auth = match cert {
        Cert::Rsa2048 => protocols::ikev2::Auth::Rsa2048,
        Cert::EcdsaP256 => protocols::ikev2::Auth::EcdsaP256,
    };
    let name = match group {
        Group::X25519 => "x25519",
        Group::P256 => "secp256r1",
    };
    // Loopback's MTU (65536) carries each flight in one segment.
    let shake =
        protocols::tls_handshake::handshake(name, auth, &[auth.estimated_cert_len()], 65536, 4)
            .map_err(|e| MeasureError(e.to_string()))?;
    let flight = |i: usize| -> u32 {
        let f = &shake.flights[i];
        (f.record_bytes + f.segments * (20 + 20)) as u32
    };
    let overlap = (-h.wait_ns).clamp(0.0, h.server_ns);
    let delay = ps(h.wait_ns.max(0.0) / 2.0);
    let before = h.client_before_ns.min(h.client_ns);
    let exchanges = vec![
        HandshakeExchange {
            name: "ClientHello".into(),
            request: flight(0),
            response: flight(1),
            request_datagrams: shake.flights[0].segments as u32,
            response_datagrams: shake.flights[1].segments as u32,
            initiator_before: ps(before),
            responder: ps(h.server_ns - overlap),
            initiator_after: ps(h.client_ns - before),
            initiator_per_held: SimDuration::ZERO,
            responder_per_held: SimDuration::ZERO,
            one_way: false,
            priority: sim_core::JobPriority::Medium,
        },
        HandshakeExchange {
            name: "Finished".into(),
            request: flight(2),
            response: 0,
            request_datagrams: shake.flights[2].segments as u32,
            response_datagrams: 0,
            initiator_before: SimDuration::ZERO,
            responder: ps(overlap),
            initiator_after: SimDuration::ZERO,
            initiator_per_held: SimDuration::ZERO,
            responder_per_held: SimDuration::ZERO,
            one_way: true,
            priority: sim_core::JobPriority::Medium,
        },
    ];
    let node = |n: &str| NodeConfig::new(n, Service::None);
    let clients = h.clients.max(1);
    let net = Network {
        nodes: vec![node("s_time"), node("s_server")],
        links: vec![LinkConfig {
            name: "loopback".into(),
            a: 0,
            b: 1,
            rate: DataRate::from_bps(100_000_000_000)
                .ok_or_else(|| MeasureError("a 100 Gbit/s rate".into()))?,
            propagation: delay,
            mtu: None,
            queue_capacity: None,
            loss: 0.0,
            framing: LineFraming::Bare,
        }],
        flows: vec![FlowConfig {
            name: "tls".into(),
            path: vec![0, 1],
            mtu_exempt: 0,
            ethernet_header: false,
            protected_len: vec![],
            source: Source::Handshake {
                exchanges: exchanges.into(),
                tunnels: ENGINE_HANDSHAKES,
                spacing: SimDuration::ZERO,
                retransmit: None,
                clients,
                established: false,
                sessions: 1,
            },
        }],
        stop: Stop::default(),
        warmup: SimDuration::ZERO,
        hosts: vec![sim_core::HostConfig {
            name: "bench".into(),
            cores: h.host_cores.max(1),
            nodes: vec![0, 1],
            threads: vec![(0, clients), (1, 1)],
        }],
    };
    let r = sim_core::Simulation::new(&net, 1)
        .init(0)
        .and_then(|engine| engine.run())
        .map_err(|e| MeasureError(e.to_string()))?;
    let hs = &r.flows[0].handshake;
    if hs.count() != u64::from(ENGINE_HANDSHAKES) {
        return Err(MeasureError(format!(
            "the engine completed {} of {ENGINE_HANDSHAKES} handshakes",
            hs.count()
        )));
    }
    let mean = hs.summary().mean_ns;
    if mean.is_nan() || mean <= 0.0 {
        return Err(MeasureError("the engine's handshakes took no time".into()));
    }
    // Little's law: `clients` handshakes are always in progress (each client starts its next
    // as its last ends), so the rate is clients over the mean handshake.
    Ok(f64::from(clients) * 1e9 / mean)
}

/// The record stream of `s_time -www` fetching from `s_server -WWW` as the engine runs it
/// ([`engine_bulk_throughput`]): each side's CPU per plaintext byte, the loopback's delay, the
/// window and the host.
#[derive(Debug, Clone, Copy)]
pub struct EngineBulk {
    /// `s_server`'s CPU per plaintext byte it sends (read, seal, write) \[ns/B\].
    pub server_ns_per_byte: f64,
    /// `s_time`'s CPU per plaintext byte it receives (read, open) \[ns/B\].
    pub client_ns_per_byte: f64,
    /// Loopback's delay per record and per acknowledgement, each way (the link's propagation)
    /// \[ns\].
    pub delay_ns: f64,
    /// Records unacknowledged at most, at least 1 ([`super::BULK_WINDOW`] in `validate`).
    pub window: u32,
    /// The logical CPUs of the host the two processes share, at least 1.
    pub host_cores: u32,
}

/// The plaintext throughput of the record stream in the engine \[Mbit/s\]: a bulk flow
/// (`sim_core`'s `Source::Bulk`) of [`RECORD_LEN`]-byte records, each one TCP segment on
/// loopback (record header, content type and tag, and 40 bytes of TCP/IP headers), from an
/// `s_server` node to an `s_time` node on one host of `host_cores` cores, each node one thread.
/// The server charges `RECORD_LEN x server_ns_per_byte` of CPU per record it sends, the client
/// `RECORD_LEN x client_ns_per_byte` per record it receives; the client acknowledges every
/// record, at most `window` are unacknowledged, and an acknowledgement costs neither side
/// anything beyond what their per-byte CPU holds. Loopback carries each record and each
/// acknowledgement `delay_ns` later, at 1 Pbit/s (the kernel's copies are inside each side's
/// CPU). The throughput is the steady state's: the bytes of the last [`ENGINE_RECORDS`]`/2`
/// records over the time they add (a run of [`ENGINE_RECORDS`] records less one of half as
/// many). Analytically, the period per record is `max(S, C, (S + C + 2d) / window)` for server
/// and client CPU per record `S`, `C` on two or more cores (crates/evidence/tests/tls.rs checks
/// the corners).
pub fn engine_bulk_throughput(b: EngineBulk) -> Result<f64, MeasureError> {
    use sim_core::{DataRate, SimDuration};
    use sim_core::{
        FlowConfig, HostConfig, LineFraming, LinkConfig, Network, NodeConfig, Service, Source, Stop,
    };
    for (name, v) in [
        ("server CPU per byte", b.server_ns_per_byte),
        ("client CPU per byte", b.client_ns_per_byte),
        ("loopback delay", b.delay_ns),
    ] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(MeasureError(format!(
                "the engine's record stream needs a {name} >= 0, not {v}"
            )));
        }
    }
    let ps = |ns: f64| {
        SimDuration::from_secs_f64(ns * 1e-9)
            .ok_or_else(|| MeasureError("a time the engine can hold".into()))
    };
    let per_record = |ns_per_byte: f64| -> Result<Service, MeasureError> {
        Ok(Service::Deterministic {
            time_ps: ps(ns_per_byte * RECORD_LEN as f64)?.as_ps(),
        })
    };
    let record = (protocols::tls::TLS_HEADER
        + protocols::tls::MAX_FRAGMENT
        + protocols::tls::INNER_TYPE
        + protocols::tls::TAG) as u32;
    let frame = record + TCP_IP_HEADERS;
    // The server originates the records (its service) and takes in the acknowledgements for
    // nothing; the client opens the records it terminates and sends the acknowledgements for
    // nothing.
    let node =
        |n: &str, service: Service, receive: Service| NodeConfig::new(n, service).receive(receive);
    let run = |records: u32| -> Result<u64, MeasureError> {
        let net = Network {
            nodes: vec![
                node("s_server", per_record(b.server_ns_per_byte)?, Service::None),
                node("s_time", Service::None, per_record(b.client_ns_per_byte)?),
            ],
            links: vec![LinkConfig {
                name: "loopback".into(),
                a: 0,
                b: 1,
                rate: DataRate::from_bps(LOOPBACK_BPS)
                    .ok_or_else(|| MeasureError("a 1 Pbit/s rate".into()))?,
                propagation: ps(b.delay_ns)?,
                mtu: None,
                queue_capacity: None,
                loss: 0.0,
                framing: LineFraming::Bare,
            }],
            flows: vec![FlowConfig {
                name: "records".into(),
                path: vec![0, 1],
                mtu_exempt: 0,
                ethernet_header: false,
                protected_len: vec![],
                source: Source::Bulk {
                    total_bytes: u64::from(records) * RECORD_LEN,
                    segment: RECORD_LEN as u32,
                    frame,
                    last_frame: frame,
                    window: b.window.max(1),
                    ack_size: TCP_IP_HEADERS,
                    ack_every: 1,
                },
            }],
            stop: Stop::default(),
            warmup: SimDuration::ZERO,
            hosts: vec![HostConfig {
                name: "bench".into(),
                cores: b.host_cores.max(1),
                nodes: vec![0, 1],
                threads: vec![(0, 1), (1, 1)],
            }],
        };
        let r = sim_core::Simulation::new(&net, 1)
            .init(0)
            .and_then(|engine| engine.run())
            .map_err(|e| MeasureError(e.to_string()))?;
        let f = &r.flows[0];
        if f.transfer_payload_bytes != u64::from(records) * RECORD_LEN {
            return Err(MeasureError(format!(
                "the engine delivered {} of {} record bytes",
                f.transfer_payload_bytes,
                u64::from(records) * RECORD_LEN
            )));
        }
        f.transfer_ps
            .ok_or_else(|| MeasureError("the engine's record stream did not finish".into()))
    };
    let (long, short) = (ENGINE_RECORDS, ENGINE_RECORDS / 2);
    let added_ps = run(long)?.saturating_sub(run(short)?);
    if added_ps == 0 {
        return Err(MeasureError("the engine's records took no time".into()));
    }
    // bits over picoseconds is Tbit/s; x 1e6 is Mbit/s.
    Ok(f64::from(long - short) * RECORD_LEN as f64 * 8.0 * 1e6 / added_ps as f64)
}
