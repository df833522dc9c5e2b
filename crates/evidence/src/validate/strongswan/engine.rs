//! The bench's workloads as engine runs with a fitted profile: the IKE storms (placed, lossy,
//! rekeying, with a raised IKE SA table), TCP and pings through the ESP data path.

use profile::Term;

use super::MeasureError;

/// `p` with its per-held-SA work divided by `table` (`charon.ikesa_table_size`): the IKE SA
/// manager hashes SAs into `table` lists, so a lookup walks `held / table` entries where the
/// default table of 1 walks all `held` (the per-held terms were fitted with the default).
pub(super) fn with_table(
    p: &profile::Profile,
    table: u32,
) -> Result<profile::Profile, MeasureError> {
    let mut file = p.file().clone();
    if let Some(imp) = file.implementation.as_mut() {
        for term in [
            Term::IkeDaemonInitiatorPerHeldSa,
            Term::IkeDaemonResponderPerHeldSa,
        ] {
            if let Some(t) = imp.terms.get_mut(term.name()) {
                t.value /= f64::from(table.max(1));
            }
        }
    }
    profile::Profile::from_file(file, p.origin())
        .map_err(|e| MeasureError(format!("the profile with ikesa_table_size {table}: {e}")))
}

/// Where [`engine_storm`] says its profile is: the scenario's stand-in path, never read.
pub const STORM_PROFILE: &str = "validate-strongswan.toml";

/// The bench's storm of `n` x25519 PSK SAs in the engine, both daemons free on the host's
/// cores: [`engine_storm_placed`] with `psk` and `shared`; the last tunnel back \[ns\].
pub fn engine_storm(p: &profile::Profile, n: u32) -> Result<f64, MeasureError> {
    engine_storm_placed(p, n, "psk", "shared").map(|s| s.0)
}

/// The bench's storm of `n` x25519 SAs with `auth` in the engine, placed as the bench placed
/// the daemons: `shared` is `oransim init ric-restart --gnbs n --ke x25519 --auth AUTH
/// --placement shared --profile P` (one initiator daemon and the responder on one host of the
/// profile's cores), `pinned` is `--placement initiators --initiator-cores 1 --ric-cores 1`
/// (each daemon on a core of its own); 10 km at 10 Gb/s; `p` stands in for P. Returns the last
/// tunnel back \[ns\] and the responder's CPU per SA \[ns\].
pub fn engine_storm_placed(
    p: &profile::Profile,
    n: u32,
    auth: &str,
    placement: &str,
) -> Result<(f64, f64), MeasureError> {
    let scenario = bench_storm(p, n, auth, placement, 0.0, false)?;
    let opts = model::RunOptions {
        wall_clock: false,
        threads: 1,
        ..Default::default()
    };
    let report = model::run(&scenario, &opts)
        .map_err(|e| MeasureError(format!("the storm of {n} in the engine: {e}")))?;
    let back = report
        .tunnels_back()
        .and_then(|t| t.last_back_ns)
        .ok_or_else(|| MeasureError(format!("the storm of {n} in the engine: no tunnel back")))?;
    // The responder's busy time over the storm, per SA: utilisation x cores x simulated time.
    let ric = report
        .nodes
        .iter()
        .find(|x| x.name == "ric")
        .ok_or_else(|| MeasureError("the storm in the engine has no node `ric`".into()))?;
    let cpu = ric.utilisation * f64::from(ric.cores.unwrap_or(1)) * report.run.sim_time_ns
        / f64::from(n.max(1));
    Ok((back, cpu))
}

/// The bench's rekey storm in the engine: the Child SAs of `n` PSK IKE SAs rekeyed at once,
/// both daemons sharing the host's cores (`oransim init ric-restart --placement shared --rekey
/// child`). Returns when the last CREATE_CHILD_SA response was processed (the bench's clock
/// stops there; the deletions may still run) \[ns\] and the responder's busy time per Child SA
/// over the whole run, deletions included \[ns\].
pub fn engine_rekey(p: &profile::Profile, n: u32) -> Result<(f64, f64), MeasureError> {
    let scenario = bench_storm(p, n, "psk", "shared", 0.0, true)?;
    let opts = model::RunOptions {
        wall_clock: false,
        threads: 1,
        ..Default::default()
    };
    let what = format!("the rekey storm of {n} in the engine");
    let report = model::run(&scenario, &opts).map_err(|e| MeasureError(format!("{what}: {e}")))?;
    // Every tunnel starts at time zero, so its first exchange's time is when it ended.
    let rekeyed = report
        .flows
        .iter()
        .filter_map(|f| f.handshake.as_ref()?.exchanges.first()?.time.as_ref())
        .map(|t| t.max_ns)
        .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.max(t))))
        .ok_or_else(|| MeasureError(format!("{what}: no Child SA rekeyed")))?;
    let ric = report
        .nodes
        .iter()
        .find(|x| x.name == "ric")
        .ok_or_else(|| MeasureError(format!("{what} has no node `ric`")))?;
    let cpu = ric.utilisation * f64::from(ric.cores.unwrap_or(1)) * report.run.sim_time_ns
        / f64::from(n.max(1));
    Ok((rekeyed, cpu))
}

/// The scenario of [`engine_storm_placed`], with `loss` on the link (`init ric-restart
/// --loss`; 0: none); with `rekey`, the rekey storm of [`engine_rekey`] (`--rekey child`).
pub(super) fn bench_storm(
    p: &profile::Profile,
    n: u32,
    auth: &str,
    placement: &str,
    loss: f64,
    rekey: bool,
) -> Result<model::Scenario, MeasureError> {
    use whatif::generate::{Placement, RicRestartShape, Shape};
    let origin = std::path::Path::new("oransim validate strongswan");
    let pinned = placement == "pinned";
    let shape = Shape::RicRestart(RicRestartShape {
        gnbs: n,
        ke: "x25519".into(),
        auth: auth.into(),
        profile: STORM_PROFILE.into(),
        placement: if pinned {
            Placement::Initiators
        } else {
            Placement::Shared
        },
        initiator_cores: pinned.then_some(1),
        ric_cores: pinned.then_some(1),
        loss,
        rekey,
        ..RicRestartShape::default()
    });
    let bad =
        |e: model::ScenarioError| MeasureError(format!("the storm of {n} in the engine: {e}"));
    let file = shape.file().map_err(bad)?;
    let file = model::scenario::expand(file, origin).map_err(bad)?;
    let mut profiles = std::collections::HashMap::new();
    profiles.insert(std::path::PathBuf::from(STORM_PROFILE), p.clone());
    model::Scenario::from_file_with_profiles(file, origin, &profiles).map_err(bad)
}

/// Replications of the engine's lossy storm a loss row compares with: independent draws of
/// the losses, each replication 200 SAs as the bench's storm, so 20 give the shares of 4,000
/// SAs (a binomial standard error under 0.7 points at a share of 80%).
pub const LOSS_REPLICATIONS: u32 = 20;

/// The master seed of those replications (a scenario's default).
pub const LOSS_SEED: u64 = 1;

/// The bench's loss storm in the engine: `n` x25519 PSK SAs as [`engine_storm`] runs them (both
/// daemons sharing the host's cores: `oransim init ric-restart --placement shared --loss P`),
/// every message lost with probability `loss` each way, over [`LOSS_REPLICATIONS`]
/// replications of seed [`LOSS_SEED`]: the share up by each instant of the retransmission
/// schedule, the completion percentiles and the chance of giving up (`plan kex --loss`'s
/// [`whatif::plan::LossSpread`]).
pub fn engine_loss_storm(
    p: &profile::Profile,
    n: u32,
    loss: f64,
) -> Result<whatif::plan::LossSpread, MeasureError> {
    let scenario = bench_storm(p, n, "psk", "shared", loss, false)?;
    let runs = sim_core::Simulation::new(&scenario.network, LOSS_SEED)
        .replications(LOSS_REPLICATIONS)
        .detail(&scenario.detail())
        .run()
        .map_err(|e| MeasureError(format!("the loss storm of {n} in the engine: {e}")))?;
    Ok(whatif::plan::loss_spread(&scenario, LOSS_SEED, &runs))
}

/// TCP payload per segment on a path of MTU `mtu` \[bytes\]: the MTU less the IPv4 header and
/// a TCP header with timestamps (20 + 32 B), as Linux's TCP sends it (iperf3 reports an MSS of
/// 1348 B on the bench's 1400-byte TUN device).
pub fn tcp_payload(mtu: u32) -> u32 {
    mtu.saturating_sub(52)
}

/// Segments a TCP row's engine run moves: enough that the window's fill is under 0.5% of it.
pub const TCP_SEGMENTS: u64 = 20_000;

/// The bench's TCP through the data path in the engine: two nodes with the profile `p` (`p`
/// stands in for [`STORM_PROFILE`]) sealing and opening ESP with `suite`, 10 m of 100 Gb/s
/// between them, and a windowed transfer of [`TCP_SEGMENTS`] segments of `payload` bytes
/// (`eth/ipv4/esp-tunnel(...)/ipv4/tcp(ts)`, 64 in flight, an acknowledgement per two, as
/// TCP's delayed ACK). Each node's data path runs what it seals and what it opens in lines of
/// their own (kernel-libipsec's threads), so the transfer is bounded by the per-packet terms
/// and the cipher at its busier end. Returns the goodput \[Mbit/s\].
pub fn engine_tcp(
    p: &profile::Profile,
    suite: protocols::Suite,
    payload: u32,
) -> Result<f64, MeasureError> {
    let esp = esp_stack_name(suite, "TCP")?;
    let text = two_node_scenario(
        "validate-esp-tcp",
        suite.name(),
        "100Gbps",
        &format!(
            "{{ kind = \"bulk\", bytes = \"{}B\", segment = \"{payload}B\", window = 64, ack_every = 2, stack = \"eth/ipv4/esp-tunnel({esp})/ipv4/tcp(ts)\" }}",
            TCP_SEGMENTS * u64::from(payload),
        ),
    );
    let what = format!("TCP through {esp} in the engine");
    let report = run_text(p, &text, &what)?;
    report
        .flows
        .first()
        .and_then(|f| f.transfer.as_ref())
        .and_then(|t| t.goodput_bps)
        .map(|bps| bps / 1e6)
        .ok_or_else(|| MeasureError(format!("{what}: the transfer did not end")))
}

/// Pings each of [`engine_ping`]'s runs sends, [`PING_INTERVAL`] apart.
pub const PINGS: u32 = 10;

/// The spacing of [`engine_ping`]'s pings: far longer than a round trip, so none waits for
/// another.
pub const PING_INTERVAL: &str = "10ms";

/// What ESP with `suite` adds to a ping's round trip in the engine \[ns\]: two nodes with the
/// profile `p` (`p` stands in for [`STORM_PROFILE`]), 10 m of 10 Gb/s between them, [`PINGS`]
/// pings of `size` bytes of payload, run once through `eth/ipv4/esp-tunnel(...)/ipv4/udp` with
/// each node sealing and opening `suite` and once through `eth/ipv4/udp` with plaintext nodes;
/// the mean round trip of the first less the second's. Four ESP traversals (seal, open, seal,
/// open), each charged as the engine charges a data path (docs/validation.md, "The engine's
/// model of a data path"): the cipher at the protected length, `esp.per_packet` (and
/// `esp.openssl.per_packet` for the openssl plugin's suite) of CPU, the rest of `esp.latency`
/// as delay, and the longer frame's transmission. The bench's plain path, measured, is the rest
/// of the round trip.
pub fn engine_ping(
    p: &profile::Profile,
    suite: protocols::Suite,
    size: u32,
) -> Result<f64, MeasureError> {
    let esp = esp_stack_name(suite, "a ping")?;
    let what = format!("a ping of {size} B through {esp} in the engine");
    let rtt = |suite: &str, stack: &str| -> Result<f64, MeasureError> {
        let text = two_node_scenario(
            "validate-esp-ping",
            suite,
            "10Gbps",
            &format!(
                "{{ kind = \"ping\", interval = \"{PING_INTERVAL}\", size = \"{size}B\", count = {PINGS}, stack = \"{stack}\" }}"
            ),
        );
        let report = run_text(p, &text, &what)?;
        report
            .flows
            .first()
            .and_then(|f| f.rtt.as_ref())
            .map(|r| r.mean_ns)
            .ok_or_else(|| MeasureError(format!("{what}: no ping came back")))
    };
    let protected = rtt(
        suite.name(),
        &format!("eth/ipv4/esp-tunnel({esp})/ipv4/udp"),
    )?;
    let plain = rtt("none", "eth/ipv4/udp")?;
    Ok(protected - plain)
}

/// The ESP stack's name for `suite` (`aes256-gcm-16`, [`protocols::Suite::esp_transform`]),
/// or why the engine has none (`what`: the workload, for the error).
pub(super) fn esp_stack_name(suite: protocols::Suite, what: &str) -> Result<String, MeasureError> {
    suite.esp_transform().map(|t| t.to_string()).ok_or_else(|| {
        MeasureError(format!(
            "{what} in the engine: no ESP stack for {}",
            suite.name()
        ))
    })
}

/// A scenario of nodes `a` and `b`, each `model = "profile"` on [`STORM_PROFILE`] with `suite`
/// over IPsec, 10 m of `rate` between them, and one flow from `a` to `b` with `source`.
pub(super) fn two_node_scenario(name: &str, suite: &str, rate: &str, source: &str) -> String {
    let node = |n: &str| {
        format!(
            "[[node]]\nname = \"{n}\"\nservice = {{ model = \"profile\", profile = \"{STORM_PROFILE}\", suite = \"{suite}\", protocol = \"ipsec\" }}\n"
        )
    };
    format!(
        "[scenario]\nname = \"{name}\"\nseed = 1\n{}{}[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"{rate}\"\nlength = \"10m\"\n[[flow]]\nname = \"{name}\"\nfrom = \"a\"\nto = \"b\"\nsource = {source}\n",
        node("a"),
        node("b"),
    )
}

/// Runs the scenario `text` with `p` standing in for [`STORM_PROFILE`] (`what`: the workload,
/// for errors).
pub(super) fn run_text(
    p: &profile::Profile,
    text: &str,
    what: &str,
) -> Result<model::Report, MeasureError> {
    let origin = std::path::Path::new("oransim validate strongswan");
    let bad = |e: String| MeasureError(format!("{what}: {e}"));
    let file: model::file::ScenarioFile = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
    let mut profiles = std::collections::HashMap::new();
    profiles.insert(std::path::PathBuf::from(STORM_PROFILE), p.clone());
    let scenario = model::Scenario::from_file_with_profiles(file, origin, &profiles)
        .map_err(|e| bad(e.to_string()))?;
    let opts = model::RunOptions {
        wall_clock: false,
        threads: 1,
        ..Default::default()
    };
    model::run(&scenario, &opts).map_err(|e| bad(e.to_string()))
}
