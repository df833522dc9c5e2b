//! The interface plan: what IPsec or TLS costs an O-RAN interface at an offered load.

use std::path::{Path, PathBuf};

use profile::units::Quantity;
use protocols::Suite;
use serde::Serialize;

use crate::flag_keys::flag_only;
use model::file::{FlowFile, LinkFile, NodeFile, Q, ServiceFile, SourceFile};
use model::oran::interface_stack;
use model::scenario::ScenarioBuilder;
use model::{RunOptions, ScenarioError};

use super::absolute;

/// The inputs of an interface plan.
#[derive(Debug, Clone)]
pub struct InterfaceQuestion {
    /// Interface: E2, F1, Xn, E1 (IPsec) or O1, A1, O2 (TLS).
    pub interface: String,
    /// Profile of both ends.
    pub profile: PathBuf,
    /// Cipher suite, e.g. `aes256-gcm`.
    pub suite: Suite,
    /// Offered plaintext load, a quantity like "3.5Mbps".
    pub rate: Quantity,
    /// Application message sizes, cycled with equal weight (default: E2's short and long E2AP,
    /// 195 and 1425 B on the wire in 000 Table 2, here as payloads).
    pub sizes: Vec<Quantity>,
    /// Cores (default: the profile's).
    pub cores: Option<u32>,
    /// CPU utilisation limit, in (0, 1].
    pub cpu_limit: f64,
    /// Added p99 latency limit \[ns\].
    pub latency_limit_ns: f64,
    /// Suites to compare the chosen one with.
    pub alternatives: Vec<Suite>,
}

/// The load-dependent answer for one suite.
#[derive(Debug, Clone, Serialize)]
pub struct InterfaceRun {
    /// Suite (`None`: plaintext, written `"none"`).
    #[serde(with = "model::file::suite_or_none")]
    pub suite: Option<Suite>,
    /// Stack.
    pub stack: String,
    /// Cores.
    pub cores: u32,
    /// `"ok"`, or `"saturated"` when the offered load is at or above `max_bps`: the queue
    /// grows without bound, so nothing is simulated and the delays and CPU are `None` (JSON
    /// `null`).
    pub status: &'static str,
    /// CPU utilisation of the sending end, in [0, 1]; `None` when saturated.
    pub cpu: Option<f64>,
    /// One-way delay p50 \[ns\]; `None` when saturated.
    pub p50_ns: Option<f64>,
    /// 99th percentile \[ns\]; `None` when saturated.
    pub p99_ns: Option<f64>,
    /// Smallest one-way delay \[ns\] (exact): with several message sizes and little queueing,
    /// the smallest messages' mode, which p50 and p99 may both miss; `None` when saturated.
    pub min_ns: Option<f64>,
    /// Mean Eq. 1 components \[ns\]: queueing, propagation, transmission, processing; `None`
    /// when saturated.
    pub components_ns: Option<[f64; 4]>,
    /// Highest sustainable plaintext load [bit/s]: the lowest of the sending end's CPU (seal),
    /// the receiving end's CPU (open), each on its cores, and the one-server I/O path.
    pub max_bps: f64,
    /// What binds `max_bps`: "cpu" or "io".
    pub limit: String,
    /// The run's busiest stage at the offered load ([`model::Bottleneck::of`]): an
    /// end's CPU or I/O stage or a link direction; `None` when saturated (nothing is run:
    /// `limit` names what saturates).
    pub bottleneck: Option<model::Bottleneck>,
}

/// The measured figures of a run that is not saturated: CPU, p50, p99 \[ns\] and the mean
/// Eq. 1 components \[ns\].
type Measured = (f64, f64, f64, [f64; 4]);

impl InterfaceRun {
    /// The measured figures, or `None` when the run is saturated.
    fn measured(&self) -> Option<Measured> {
        Some((self.cpu?, self.p50_ns?, self.p99_ns?, self.components_ns?))
    }

    /// The binding limit in words.
    fn limit_words(&self) -> String {
        if self.limit == "io" {
            "the one-server I/O path (more cores do not help)".to_owned()
        } else {
            format!(
                "the CPU on {} core{}",
                self.cores,
                if self.cores == 1 { "" } else { "s" }
            )
        }
    }
}

/// The answer to an interface question.
#[derive(Debug, Clone, Serialize)]
pub struct InterfacePlan {
    /// Interface.
    pub interface: String,
    /// Offered plaintext load [bit/s].
    pub offered_bps: f64,
    /// Plaintext run.
    pub plain: InterfaceRun,
    /// Secured run with the chosen suite.
    pub secured: InterfaceRun,
    /// Added latency, p50 and p99 \[ns\].
    pub added_p50_ns: f64,
    /// Added p99 \[ns\].
    pub added_p99_ns: f64,
    /// Share of the added mean delay that is processing (the papers' Delta D_total ~ Delta
    /// D_proc, checked).
    pub added_processing_share: f64,
    /// Headroom: highest sustainable load over the offered load.
    pub headroom: f64,
    /// Fewest cores that keep CPU under the limit and the added p99 under its limit (`null` if
    /// the I/O path or 256 cores cannot).
    pub cores_needed: Option<u32>,
    /// The alternatives, at the same load.
    pub alternatives: Vec<InterfaceRun>,
    /// What the figures count: `"cipher-only lower bound"` (the profile's cipher calls and
    /// per-packet I/O only, not a real data path's: an ESP daemon's TUN reads and writes,
    /// thread hand-offs) or `"implementation terms"` (the profile has a measured ESP data
    /// path's terms, and `implementation` holds them; the other figures remain the bound).
    pub bound: &'static str,
    /// A measured ESP data path's terms (`oransim calibrate --run strongswan`), for an IPsec
    /// interface; `None` (JSON `null`) otherwise.
    pub implementation: Option<DataPathTerms>,
    /// Plain-language findings.
    pub findings: Vec<String>,
    /// What the profile carries with it ([`model::warnings`]): noisy or flagged, a user-space
    /// profile for the kernel ESP path; absent from the JSON when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A real ESP data path's terms, as measured on the calibration host (docs/validation.md).
#[derive(Debug, Clone, Serialize)]
pub struct DataPathTerms {
    /// The implementation and data path measured (`strongSwan 5.9.8 (kernel-libipsec)`).
    pub implementation: String,
    /// The data path's bottleneck time per packet without the cipher, measured with TCP
    /// segments of the path MTU less 40 B \[ns\].
    pub per_packet_ns: f64,
    /// What ESP adds to a round trip without the ciphers, over the same path without IPsec
    /// \[ns\].
    pub added_rtt_ns: f64,
}

/// The ESP data path's terms of `p` for `suite` (the openssl plugin's per-packet work
/// included where it runs the suite: [`model::scenario::openssl_plugin`]), if it has
/// them.
///
/// A per-packet time of 0 caps no packet rate, so it is not a measured data path: `None`
/// (the figures stay labelled a lower bound) rather than an infinite rate.
fn data_path_terms(p: &profile::Profile, suite: Suite) -> Option<DataPathTerms> {
    let imp = p.real_implementation()?;
    let d = model::scenario::DataPath::from_profile(p, Some(suite))?;
    Some(DataPathTerms {
        implementation: format!("strongSwan {} ({})", imp.version, imp.data_path),
        per_packet_ns: d.per_packet_ns,
        added_rtt_ns: p.term(profile::Term::EspLatency)?,
    })
}

/// Two profile-built nodes over a 10 Gb/s, 100 m link; Poisson packets of the interface's
/// stack at `pps`.
fn interface_scenario(
    q: &InterfaceQuestion,
    suite: Option<Suite>,
    stack: &protocols::Stack,
    cores: Option<u32>,
    pps: f64,
) -> ScenarioBuilder {
    let profile = q.profile.display().to_string();
    // The profile's offload flag for the stack's protocol (none for plaintext, which has no
    // cipher to offload).
    let protocol = stack.protocol().map(protocols::Protocol::name);
    let node = |name: &str| {
        let n =
            NodeFile::new(name).service(ServiceFile::profile(profile.as_str(), suite, protocol));
        match cores {
            Some(c) => n.cores(c.into()),
            None => n,
        }
    };
    let sizes = q.sizes.iter().map(|s| Q::from(s.text())).collect();
    ScenarioBuilder::new("interface")
        .stop_packets(20000)
        .warmup("1ms")
        .node(node("a"))
        .node(node("b"))
        .link(LinkFile::new("a", "b", "10Gbps").length("100m"))
        .flow(FlowFile::new(
            "load",
            "a",
            "b",
            SourceFile::poisson(Q::new(pps, "/s"), sizes).stack(stack.to_string().as_str()),
        ))
}

/// Answers an interface question by simulation at the offered load, plus the profile's
/// capacity for the highest sustainable load.
pub fn interface(q: &InterfaceQuestion) -> Result<InterfacePlan, ScenarioError> {
    // Warnings name the profile as the caller gave it; the scenario needs it absolute.
    let given = q.profile.display().to_string();
    let q = InterfaceQuestion {
        profile: absolute(&q.profile),
        ..q.clone()
    };
    let a = Asked::new(&q)?;
    let plain = a.run_suite(None, q.cores)?;
    let secured = a.run_suite(Some(q.suite), q.cores)?;
    let (Some(p), Some(m)) = (plain.measured(), secured.measured()) else {
        return Err(a.saturated(&plain, &secured));
    };
    let ((_, plain_p50, plain_p99, plain_c), (_, sec_p50, sec_p99, sec_c)) = (p, m);
    let added_mean: f64 = sec_c.iter().sum::<f64>() - plain_c.iter().sum::<f64>();
    let added_proc = sec_c[3] - plain_c[3];
    let cores_needed = a.cores_needed(m.0, secured.cores)?;
    let alternatives = q
        .alternatives
        .iter()
        .filter(|s| **s != q.suite)
        .map(|s| a.run_suite(Some(*s), q.cores))
        .collect::<Result<Vec<_>, _>>()?;
    let mut findings = a.findings((p, m), &secured, &alternatives);
    let secured_protocol = interface_stack(&q.interface, Some(q.suite)).and_then(|s| s.protocol());
    let terms = if secured_protocol == Some(protocols::Protocol::Ipsec) {
        data_path_terms(&a.profile, q.suite)
    } else {
        None
    };
    findings.push(data_path_finding(terms.as_ref()));
    let mut warnings = model::warnings::measurement_warnings(&given, &a.profile);
    if secured_protocol == Some(protocols::Protocol::Ipsec)
        && terms.is_none()
        && let Some(w) = model::warnings::kernel_path_warning(
            &given,
            &a.profile,
            model::warnings::KernelPath::Esp,
        )
    {
        warnings.push(w);
    }
    Ok(InterfacePlan {
        warnings,
        bound: if terms.is_some() {
            super::IMPLEMENTATION_TERMS
        } else {
            super::LOWER_BOUND
        },
        implementation: terms,
        interface: q.interface.clone(),
        offered_bps: a.offered_bps,
        added_p50_ns: sec_p50 - plain_p50,
        added_p99_ns: sec_p99 - plain_p99,
        added_processing_share: if added_mean.abs() > 0.0 {
            added_proc / added_mean
        } else {
            1.0
        },
        headroom: secured.max_bps / a.offered_bps,
        cores_needed,
        plain,
        secured,
        alternatives,
        findings,
    })
}

/// An interface plan's refusal: `problem` with `key` (the flag that gave the value) and what is
/// `allowed`.
fn invalid(key: &str, problem: String, allowed: String) -> ScenarioError {
    ScenarioError::Invalid {
        path: PathBuf::from("oransim plan interface"),
        key: key.into(),
        problem,
        allowed,
    }
}

/// What every run of an interface plan shares: the question (its profile absolute), the
/// profile, the message mix and the load it offers.
struct Asked<'q> {
    /// The question.
    q: &'q InterfaceQuestion,
    /// Its profile, loaded.
    profile: profile::Profile,
    /// The message sizes \[bytes\].
    sizes: Vec<f64>,
    /// The flag that gave the sizes (`--sizes`), for the refusals of the mix.
    sizes_flag: &'q str,
    /// The mean message size \[bytes\].
    mean_bytes: f64,
    /// The offered plaintext load \[bit/s\].
    offered_bps: f64,
    /// The offered messages per second \[1/s\].
    pps: f64,
}

impl<'q> Asked<'q> {
    /// `q` checked (a positive load of messages of at least a byte) with its profile loaded;
    /// a profile without any per-packet cost is refused (its plaintext path would carry any
    /// load).
    fn new(q: &'q InterfaceQuestion) -> Result<Asked<'q>, ScenarioError> {
        let offered_bps = q.rate.value();
        let sizes: Vec<f64> = q.sizes.iter().map(Quantity::value).collect();
        let sizes_flag = q.sizes.first().map_or("--sizes", Quantity::origin);
        let mean_bytes = sizes.iter().sum::<f64>() / sizes.len().max(1) as f64;
        if offered_bps <= 0.0 {
            return Err(invalid(
                q.rate.origin(),
                "a zero load".into(),
                "a positive rate".into(),
            ));
        }
        if mean_bytes <= 0.0 {
            return Err(invalid(
                sizes_flag,
                "zero-byte messages carry no load".into(),
                "sizes of at least 1B".into(),
            ));
        }
        let pps = offered_bps / (8.0 * mean_bytes);
        let profile = profile::Profile::load(&q.profile).map_err(|e| {
            invalid(
                "--profile",
                e.to_string(),
                "a profile written by `oransim calibrate` or one under calibration/".into(),
            )
        })?;
        // Without any per-packet cost the plaintext path never saturates: its sustainable load
        // would be infinite. Refuse, naming the missing costs and how to measure them.
        if profile.stack_ns() == 0.0 && profile.io_ns() == 0.0 && profile.io_per_byte_ns() == 0.0 {
            return Err(invalid(
                "--profile",
                format!(
                    "{}: the profile has no per-packet cost ([node.stack] and [node.io] are both 0: {}), so the plaintext path would carry any load and the sustainable load would be infinite",
                    q.profile.display(),
                    profile.io().provenance.source
                ),
                super::MEASURE_IO.into(),
            ));
        }
        Ok(Asked {
            q,
            profile,
            sizes,
            sizes_flag,
            mean_bytes,
            offered_bps,
            pps,
        })
    }

    /// The interface with `suite` (`None`: plaintext) on `cores` (`None`: the data path's
    /// threads, else the profile's): its capacity from the profile, and, below it, the run at
    /// the offered load.
    fn run_suite(
        &self,
        suite: Option<Suite>,
        cores: Option<u32>,
    ) -> Result<InterfaceRun, ScenarioError> {
        let q = self.q;
        let stack_p = interface_stack(&q.interface, suite).ok_or_else(|| {
            invalid(
                "--interface/--suite",
                format!(
                    "no stack for interface {} with suite {}",
                    q.interface,
                    model::file::suite_or_none::name(suite)
                ),
                "interfaces E2, F1, Xn, E1, X2, W1 (IPsec) or O1, A1, O2 (TLS 1.3), with an AEAD or AES-CBC+HMAC suite (TLS: AEAD only)".into(),
            )
        })?;
        let stack = stack_p.to_string();
        let (node_cores, max_bps, limit) = self.capacity(suite, &stack_p, cores)?;
        // At or above the capacity the queue grows without bound: no delay means anything.
        // A capacity that is not a number is saturated too.
        if self.offered_bps >= max_bps || max_bps.is_nan() {
            return Ok(InterfaceRun {
                suite,
                stack,
                cores: node_cores,
                status: "saturated",
                cpu: None,
                p50_ns: None,
                p99_ns: None,
                min_ns: None,
                components_ns: None,
                max_bps,
                limit,
                bottleneck: None,
            });
        }
        // The flags of `oransim plan interface` and the keys of its scenario they set.
        let flags: [(&str, &str, &str); 6] = [
            ("node", "service.profile", "--profile"),
            ("node", "cores", "--cores"),
            ("flow", "source.size", self.sizes_flag),
            ("flow", "source.rate", q.rate.origin()),
            ("flow", "source.stack", "--interface/--suite"),
            ("link", "", q.rate.origin()),
        ];
        let opts = RunOptions {
            wall_clock: false,
            threads: 1,
            ..Default::default()
        };
        let s = interface_scenario(q, suite, &stack_p, cores, self.pps)
            .build(Path::new("oransim plan interface"))
            .map_err(|e| flag_only(e, &flags))?;
        let r = model::run(&s, &opts)?;
        let d = &r.flows[0].forward.delay;
        Ok(InterfaceRun {
            suite,
            stack,
            // The ends have a count of cores (`--cores` or the profile's), never unlimited.
            cores: r.nodes[0].cores.unwrap_or_default(),
            status: "ok",
            cpu: Some(r.nodes[0].utilisation),
            p50_ns: Some(d.p50_ns),
            p99_ns: Some(d.p99_ns),
            min_ns: Some(d.min_ns),
            components_ns: Some([
                d.queueing_ns,
                d.propagation_ns,
                d.transmission_ns,
                d.processing_ns,
            ]),
            max_bps,
            limit,
            bottleneck: r.bottleneck.clone(),
        })
    }

    /// Capacity from the profile for this mix with `suite` over `stack_p`: the node's cores,
    /// the highest sustainable load \[bit/s\] and what limits it (`"cpu"` or `"io"`): each
    /// end's CPU stage on its cores, the I/O stage alone; frames as the stack builds them, the
    /// cipher at the bytes it protects.
    fn capacity(
        &self,
        suite: Option<Suite>,
        stack_p: &protocols::Stack,
        cores: Option<u32>,
    ) -> Result<(u32, f64, String), ScenarioError> {
        let (q, profile, sizes) = (self.q, &self.profile, &self.sizes);
        let (mut seal_ns, mut open_ns, mut io_ns) = (0.0, 0.0, 0.0);
        for &b in sizes {
            let frame = stack_p.wire_len(b as usize).map_err(|e| {
                invalid(
                    self.sizes_flag,
                    e.to_string(),
                    "sizes whose frames fit every length field of the interface's stack".into(),
                )
            })? as u64;
            // The cipher at the length it protects, as the engine charges it; the I/O at the
            // frame.
            let protected =
                model::scenario::protected_len(stack_p, b as u32).map_or(frame, u64::from);
            // An alternative's missing operation is `--compare`'s (issue 37 audit: it named
            // `--suite`).
            let flag = if suite.is_some() && suite != Some(q.suite) {
                "--compare"
            } else {
                "--suite"
            };
            let cost = |dir| {
                profile.packet(suite, dir, protected, frame).map_err(|e| {
                    invalid(flag, e.to_string(), "a suite the profile measured".into())
                })
            };
            let (seal, open) = (
                cost(profile::Direction::Seal)?,
                cost(profile::Direction::Open)?,
            );
            seal_ns += seal.cpu_ns / sizes.len() as f64;
            open_ns += open.cpu_ns / sizes.len() as f64;
            io_ns += seal.io_ns / sizes.len() as f64;
        }
        // A measured ESP data path is charged as the engine charges it (the scenario's node
        // builds the same `DataPath`): its time per packet besides the cipher at each end, on
        // its threads.
        let offloaded =
            stack_p.protocol() == Some(protocols::Protocol::Ipsec) && profile.offload().ipsec;
        let data_path = (suite.is_some()
            && !offloaded
            && stack_p.protocol() == Some(protocols::Protocol::Ipsec))
        .then(|| model::scenario::DataPath::from_profile(profile, suite))
        .flatten();
        if let Some(d) = &data_path {
            seal_ns += d.per_packet_ns;
            open_ns += d.per_packet_ns;
        }
        // The node's cores, as the scenario gives them (`--cores`, else the data path's
        // threads, else the profile's).
        let node_cores = cores
            .or(data_path.as_ref().and_then(|d| d.threads))
            .unwrap_or(profile.cores())
            .max(1);
        let per_s = |ns: f64, servers: u32| {
            if ns > 0.0 {
                f64::from(servers) * 1e9 / ns
            } else {
                f64::INFINITY
            }
        };
        let cpu_pps = per_s(seal_ns.max(open_ns), node_cores);
        let io_pps = per_s(io_ns, 1);
        let max_bps = cpu_pps.min(io_pps) * 8.0 * self.mean_bytes;
        let limit = if io_pps < cpu_pps { "io" } else { "cpu" }.to_owned();
        Ok((node_cores, max_bps, limit))
    }

    /// The refusal of a load that saturates the plaintext or the secured run: the lower
    /// ceiling binds (the secured one unless the suite is cheaper than none).
    fn saturated(&self, plain: &InterfaceRun, secured: &InterfaceRun) -> ScenarioError {
        let bind = if plain.max_bps < secured.max_bps {
            plain
        } else {
            secured
        };
        invalid(
            self.q.rate.origin(),
            format!(
                "saturated: the offered load {:.3} Mb/s is at or above what the profile's limits carry with {}: {} saturates at {:.1} Mb/s, so the queue grows without bound and no latency is meaningful",
                self.offered_bps / 1e6,
                model::file::suite_or_none::name(bind.suite),
                bind.limit_words(),
                bind.max_bps / 1e6
            ),
            format!(
                "a rate below {:.1} Mb/s{}",
                bind.max_bps / 1e6,
                if bind.limit == "cpu" {
                    ", or more --cores"
                } else {
                    ""
                }
            ),
        )
    }

    /// Fewest cores under both limits (`--cpu-limit`, `--latency-limit`): the CPU bound
    /// first, from the secured run's `sec_cpu` on `sec_cores`, then simulate upwards for
    /// latency; a core count where either run saturates does not do. `None` within 256 cores.
    fn cores_needed(&self, sec_cpu: f64, sec_cores: u32) -> Result<Option<u32>, ScenarioError> {
        let q = self.q;
        for c in 1..=256u32 {
            let cpu_est = sec_cpu * sec_cores as f64 / c as f64;
            if cpu_est > q.cpu_limit {
                continue;
            }
            let run = self.run_suite(Some(q.suite), Some(c))?;
            let plain_c = self.run_suite(None, Some(c))?;
            if let (Some((cpu, _, p99, _)), Some((_, _, plain_p99, _))) =
                (run.measured(), plain_c.measured())
                && cpu <= q.cpu_limit
                && p99 - plain_p99 <= q.latency_limit_ns
            {
                return Ok(Some(c));
            }
        }
        Ok(None)
    }

    /// The plan's findings in words: the secured run against the plaintext one (`measured`),
    /// where the added delay comes from, the highest sustainable load, and each alternative
    /// suite against the asked one.
    fn findings(
        &self,
        measured: (Measured, Measured),
        secured: &InterfaceRun,
        alternatives: &[InterfaceRun],
    ) -> Vec<String> {
        let (q, offered_bps) = (self.q, self.offered_bps);
        let ((plain_cpu, plain_p50, plain_p99, plain_c), (sec_cpu, sec_p50, sec_p99, sec_c)) =
            measured;
        let added_mean: f64 = sec_c.iter().sum::<f64>() - plain_c.iter().sum::<f64>();
        let added_proc = sec_c[3] - plain_c[3];
        let added_p99 = sec_p99 - plain_p99;
        let mut findings = vec![format!(
            "{} with {} at {:.3} Mb/s: the sending end's CPU is {:.2}% busy (plaintext {:.2}%); added latency p50 {:.2} us, p99 {:.2} us",
            q.interface,
            q.suite,
            offered_bps / 1e6,
            sec_cpu * 100.0,
            plain_cpu * 100.0,
            (sec_p50 - plain_p50) / 1e3,
            added_p99 / 1e3
        )];
        findings.push(format!(
            "Delta D_total ~ Delta D_proc: {:.1}% of the added mean delay ({:.2} us) is processing, the rest queueing and transmission",
            if added_mean.abs() > 0.0 { added_proc / added_mean * 100.0 } else { 100.0 },
            added_mean / 1e3
        ));
        findings.push(format!(
            "highest sustainable load {:.1} Mb/s, limited by the {} ({:.0}x the offered load)",
            secured.max_bps / 1e6,
            if secured.limit == "io" {
                "one-server I/O path: more cores do not help"
            } else {
                "CPU"
            },
            secured.max_bps / offered_bps
        ));
        for a in alternatives {
            let Some((a_cpu, ..)) = a.measured() else {
                findings.push(format!(
                    "{} instead of {}: saturated at this load: {} carries at most {:.1} Mb/s",
                    model::file::suite_or_none::name(a.suite),
                    q.suite,
                    a.limit_words(),
                    a.max_bps / 1e6
                ));
                continue;
            };
            let delta = (sec_cpu - a_cpu) * a.cores as f64 * 100.0;
            findings.push(format!(
                "{} instead of {}: {} {:.2}% of a core at this load; highest sustainable load {:.1} Mb/s ({}-bound)",
                model::file::suite_or_none::name(a.suite),
                q.suite,
                if delta >= 0.0 { "frees" } else { "costs" },
                delta.abs(),
                a.max_bps / 1e6,
                a.limit
            ));
        }
        findings
    }
}

/// What the engine charged the secured ends, in words: the measured ESP data path `terms`, or
/// the cipher-only lower bound and the reference host's factor it is short by.
fn data_path_finding(terms: Option<&DataPathTerms>) -> String {
    match terms {
        Some(t) => format!(
            "the engine charged {}'s measured ESP data path at both ends: {:.1} us of CPU per packet besides the cipher, on {} (at most {:.0} packets/s per direction per thread), and the rest of the {:.0} us ESP adds to a round trip besides the ciphers as delay",
            t.implementation,
            t.per_packet_ns / 1e3,
            if t.implementation.contains("kernel-libipsec") {
                "one thread per direction (libipsec's processor)"
            } else {
                "the node's cores"
            },
            1e9 / t.per_packet_ns,
            t.added_rtt_ns / 1e3
        ),
        None => format!(
            "{}: the profile has no measured data path, so these figures count its cipher calls and per-packet I/O only, not a real ESP or TLS implementation's (a daemon's TUN reads and writes, thread hand-offs){}; `oransim calibrate --run strongswan` measures strongSwan's ESP data path on a host",
            super::LOWER_BOUND,
            match model::warnings::reference_esp_factor() {
                Some((f, real, only)) => format!(
                    "; on the reference host (calibration/host-2026-11-26-strongswan.toml) strongSwan's kernel-libipsec path took {f:.1}x the cipher-only time per 1400-byte packet ({:.1} us against {:.1} us)",
                    real / 1e3,
                    only / 1e3
                ),
                None => String::new(),
            }
        ),
    }
}

/// One suite's delay against load, for `plan interface --html`'s figure.
#[derive(Debug, Clone, Serialize)]
pub struct LoadCurve {
    /// Suite (`None`: plaintext, written `"none"`).
    #[serde(with = "model::file::suite_or_none")]
    pub suite: Option<Suite>,
    /// Points, load ascending.
    pub points: Vec<LoadPoint>,
}

/// The one-way delay of one suite at one offered load.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LoadPoint {
    /// Offered plaintext load \[bit/s\].
    pub load_bps: f64,
    /// One-way delay p50 \[ns\].
    pub p50_ns: f64,
    /// One-way delay p99 \[ns\].
    pub p99_ns: f64,
}

/// Loads [`load_curves`] simulates: `1/CURVE_STEPS`, `2/CURVE_STEPS`, ... of the highest
/// sustainable load of the secured suites, each run only below [`CURVE_CEILING`] of its own
/// suite's sustainable load.
pub const CURVE_STEPS: u32 = 10;

/// The highest share of a suite's sustainable load [`load_curves`] simulates it at, in (0, 1):
/// nearer saturation the queue's p99 does not settle within the run's 20000 packets.
pub const CURVE_CEILING: f64 = 0.95;

/// Delay against load for the plaintext path, the chosen suite and each alternative of `q`,
/// as `plan` ([`interface`]'s answer to `q`) found them: each simulated as [`interface`]
/// simulates the offered load (same profile, cores, sizes and scenario) at loads from
/// `1/`[`CURVE_STEPS`] of the secured suites' highest sustainable load upwards, below
/// [`CURVE_CEILING`] of the suite's own, with the offered load's point from `plan` itself.
pub fn load_curves(
    q: &InterfaceQuestion,
    plan: &InterfacePlan,
) -> Result<Vec<LoadCurve>, ScenarioError> {
    let q = InterfaceQuestion {
        profile: absolute(&q.profile),
        ..q.clone()
    };
    let origin = Path::new("oransim plan interface");
    let opts = RunOptions {
        wall_clock: false,
        threads: 1,
        ..Default::default()
    };
    let sizes: Vec<f64> = q.sizes.iter().map(Quantity::value).collect();
    let mean_bytes = sizes.iter().sum::<f64>() / sizes.len().max(1) as f64;
    let runs: Vec<&InterfaceRun> = std::iter::once(&plan.plain)
        .chain(std::iter::once(&plan.secured))
        .chain(&plan.alternatives)
        .collect();
    let top = std::iter::once(&plan.secured)
        .chain(&plan.alternatives)
        .map(|r| r.max_bps)
        .filter(|b| b.is_finite())
        .fold(plan.offered_bps, f64::max);
    let mut curves = Vec::new();
    for run in runs {
        let mut points: Vec<LoadPoint> = Vec::new();
        if let (Some(p50), Some(p99)) = (run.p50_ns, run.p99_ns) {
            points.push(LoadPoint {
                load_bps: plan.offered_bps,
                p50_ns: p50,
                p99_ns: p99,
            });
        }
        let stack =
            interface_stack(&q.interface, run.suite).ok_or_else(|| ScenarioError::Invalid {
                path: origin.to_path_buf(),
                key: "--interface/--suite".into(),
                problem: format!("no stack for interface {}", q.interface),
                allowed: "the interfaces `oransim plan interface --help` lists".into(),
            })?;
        for i in 1..CURVE_STEPS {
            let load = top * f64::from(i) / f64::from(CURVE_STEPS);
            if load >= CURVE_CEILING * run.max_bps || load == plan.offered_bps {
                continue;
            }
            let pps = load / (8.0 * mean_bytes);
            let s = interface_scenario(&q, run.suite, &stack, q.cores, pps).build(origin)?;
            let r = model::run(&s, &opts)?;
            let d = &r.flows[0].forward.delay;
            points.push(LoadPoint {
                load_bps: load,
                p50_ns: d.p50_ns,
                p99_ns: d.p99_ns,
            });
        }
        points.sort_by(|a, b| a.load_bps.total_cmp(&b.load_bps));
        curves.push(LoadCurve {
            suite: run.suite,
            points,
        });
    }
    Ok(curves)
}

#[cfg(test)]
mod tests {
    use profile::units::Kind;

    use super::*;
    use crate::plan::quantity;

    /// Issue 37 item 10: the interface page's delay-against-load curves hold the table's own
    /// run at the offered load, stay below each suite's ceiling, and the secured suite's p99
    /// grows with load (queueing) while staying above the plaintext's at every common load.
    #[test]
    fn delay_rises_with_load_and_passes_through_the_offered_load() {
        let q = InterfaceQuestion {
            interface: "E2".into(),
            profile: Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../calibration/colosseum-e2.toml"),
            suite: Suite::Aes256Gcm,
            rate: quantity("3.5Mbps", Kind::DataRate, "--rate").unwrap(),
            sizes: ["195B", "1425B"]
                .iter()
                .map(|s| quantity(s, Kind::Size, "--sizes").unwrap())
                .collect(),
            cores: None,
            cpu_limit: 0.7,
            latency_limit_ns: 1e6,
            alternatives: vec![],
        };
        let plan = interface(&q).unwrap();
        let curves = load_curves(&q, &plan).unwrap();
        assert_eq!(curves.len(), 2);
        assert_eq!(curves[0].suite, None);
        assert_eq!(curves[1].suite, Some(Suite::Aes256Gcm));
        for (c, run) in curves.iter().zip([&plan.plain, &plan.secured]) {
            assert!(c.points.len() >= 3, "{c:?}");
            let at = c
                .points
                .iter()
                .find(|p| p.load_bps == plan.offered_bps)
                .expect("the offered load's point");
            assert_eq!(Some(at.p99_ns), run.p99_ns);
            assert!(c.points.windows(2).all(|w| w[0].load_bps < w[1].load_bps));
            assert!(
                c.points
                    .iter()
                    .all(|p| p.load_bps < CURVE_CEILING * run.max_bps)
            );
        }
        let sec = &curves[1].points;
        assert!(sec.last().unwrap().p99_ns > sec[0].p99_ns, "{:?}", sec);
        for p in sec {
            if let Some(plain) = curves[0].points.iter().find(|q| q.load_bps == p.load_bps) {
                assert!(p.p99_ns > plain.p99_ns, "{p:?} vs {plain:?}");
            }
        }
    }
}
