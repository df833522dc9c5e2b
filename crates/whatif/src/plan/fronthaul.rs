//! The fronthaul plan: MACsec modes against T12max on the user's Open Fronthaul path.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use profile::units::Quantity;
use protocols::Suite;
use serde::Serialize;

use crate::flag_keys::{FlagKeys, flag_only};
use crate::generate::{FronthaulShape, Shape};
use model::file::{FlowFile, LinkFile, NodeFile, ServiceFile, SourceFile};
use model::oran::{FRONTHAUL_MODES, t12max_margins_us};
use model::scenario::ScenarioBuilder;
use model::{RunOptions, Scenario, ScenarioError, T12maxReport};

use super::absolute;

/// The inputs of a fronthaul plan.
#[derive(Debug, Clone)]
pub struct FronthaulQuestion {
    /// Profile of the O-DU and O-RU data paths.
    pub profile: PathBuf,
    /// O-DU cores (default: the profile's).
    pub cores: Option<u32>,
    /// Fibre length, a quantity like "10km".
    pub fibre: Quantity,
    /// Switches between O-DU and O-RU.
    pub switches: u32,
    /// Latency of each switch, a quantity like "5us".
    pub switch_latency: Quantity,
    /// Link rate, a quantity like "25Gbps".
    pub rate: Quantity,
    /// eCPRI payload of the largest frame, a quantity like "7660B" (7678 B frame unprotected,
    /// the largest 000 §3.2 saw).
    pub payload: Quantity,
    /// Modes to evaluate, from [`FRONTHAUL_MODES`].
    pub modes: Vec<String>,
    /// Also run the path under load (`None`: the unloaded plan only).
    pub load: Option<FronthaulLoad>,
}

/// A fronthaul under load: `oransim init fronthaul`'s shape ([`FronthaulShape`]) on the
/// question's path, run for its default 10 ms in each mode.
#[derive(Debug, Clone, PartialEq)]
pub struct FronthaulLoad {
    /// O-DUs.
    pub dus: u32,
    /// O-RUs per O-DU.
    pub rus_per_du: u32,
    /// eCPRI payload bit rate per O-RU, a quantity like "200Mbps".
    pub load: Quantity,
}

/// One security mode under load.
#[derive(Debug, Clone, Serialize)]
pub struct LoadedRow {
    /// Mode name.
    pub mode: String,
    /// Worst one-way delay of any O-RU's frame, every O-DU, endpoints' processing included
    /// \[ns\].
    pub worst_ns: f64,
    /// Frames delivered.
    pub delivered: u64,
    /// Frames dropped: a dropped frame misses T12max, so no pair fits when any is.
    pub dropped: u64,
    /// Transport delay counted against T12max: `worst_ns` less the endpoints' unprotected
    /// processing, as [`ModeRow::transport_ns`] \[ns\].
    pub transport_ns: f64,
    /// T12max less `transport_ns` per O-RU row and O-DU column \[us\]; the pair fits when it is
    /// zero or more and no frame was dropped.
    pub margin_us: Vec<Vec<f64>>,
    /// Category pairs that fit, of 168.
    pub fits: u64,
    /// The run's busiest stage ([`model::Bottleneck::of`]): an end's or a switch's CPU
    /// or I/O stage, or a link direction.
    pub bottleneck: Option<model::Bottleneck>,
}

/// The fronthaul under load: the question's [`FronthaulLoad`] and each mode's verdict.
#[derive(Debug, Clone, Serialize)]
pub struct LoadedPlan {
    /// O-DUs.
    pub dus: u32,
    /// O-RUs per O-DU.
    pub rus_per_du: u32,
    /// eCPRI payload bit rate per O-RU, as given.
    pub load: String,
    /// Simulated time the O-DUs send for, as `init fronthaul` writes it.
    pub duration: String,
    /// The modes, in the order asked.
    pub modes: Vec<LoadedRow>,
    /// The region map under load, by category letter: per O-RU category (O..Z), per O-DU
    /// category (A..N), the strongest mode asked that fits T12max under this load and its
    /// margin; `None` (JSON `null`) where none fits.
    pub map: BTreeMap<char, BTreeMap<char, Option<LoadedCell>>>,
}

/// One category pair of [`LoadedPlan::map`]: the strongest mode that fits it under load.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadedCell {
    /// Mode name (the last of the modes asked that fits: they are asked weakest first).
    pub mode: String,
    /// T12max less the mode's transport delay under load \[us\].
    pub margin_us: f64,
}

/// One security mode on the user's fronthaul path.
#[derive(Debug, Clone, Serialize)]
pub struct ModeRow {
    /// Mode name.
    pub mode: String,
    /// Protocol stack.
    pub stack: String,
    /// Frame on the wire \[bytes\].
    pub frame_bytes: u64,
    /// One-way delay of the frame from O-DU to O-RU, transport included \[ns\].
    pub one_way_ns: f64,
    /// Of which the security processing adds, compared with no security \[ns\].
    pub added_ns: f64,
    /// Transport delay counted against T12max: propagation, transmission, switches, queueing,
    /// and the added security processing \[ns\].
    pub transport_ns: f64,
    /// Longest fibre this mode allows for each category pair of [`FronthaulPlan::categories`]'s
    /// order, rows O..Z x columns A..N \[m\] (0 where nothing fits).
    pub longest_fibre_m: Vec<Vec<f64>>,
    /// The run's busiest stage ([`model::Bottleneck::of`]): an end's or a switch's CPU
    /// or I/O stage, or a link direction.
    pub bottleneck: Option<model::Bottleneck>,
}

/// The answer to a fronthaul question.
#[derive(Debug, Clone, Serialize)]
pub struct FronthaulPlan {
    /// Profile used.
    pub profile: String,
    /// Fibre length \[m\].
    pub fibre_m: f64,
    /// The modes, in the order asked.
    pub modes: Vec<ModeRow>,
    /// O-RU row labels and O-DU column labels of Table 4.
    pub categories: (Vec<char>, Vec<char>),
    /// T12max per O-RU row and O-DU column \[us\] (000 Table 4).
    pub t12max_us: Vec<Vec<i64>>,
    /// Per cell, the strongest mode that fits on this path (index into `modes`, modes ordered as
    /// asked; `null` when none fits), and its margin \[us\].
    pub best: Vec<Vec<Option<(usize, f64)>>>,
    /// Plain-language findings: under load (with [`FronthaulQuestion::load`]) the loaded
    /// verdict's, otherwise the unloaded path's.
    pub findings: Vec<String>,
    /// With [`FronthaulQuestion::load`], the unloaded path's findings (one frame per
    /// millisecond), for reference; absent from the JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unloaded_findings: Option<Vec<String>>,
    /// The verdict under load (only with [`FronthaulQuestion::load`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loaded: Option<LoadedPlan>,
    /// What the profile carries with it ([`model::warnings`]): noisy or flagged, a user-space
    /// profile for Linux MACsec's or ESP's kernel path (also among the findings); absent from
    /// the JSON when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The fronthaul path: O-DU, the switches, O-RU, the fibre as the first link; one frame of the
/// mode's stack per millisecond.
fn fronthaul_scenario(
    q: &FronthaulQuestion,
    mode: (&str, &str, Option<Suite>, &str),
) -> ScenarioBuilder {
    let (_, stack, suite, protocol) = mode;
    let profile = q.profile.display().to_string();
    let service = || ServiceFile::profile(profile.as_str(), suite, Some(protocol));
    let mut du = NodeFile::new("du").service(service());
    if let Some(c) = q.cores {
        du = du.cores(c.into());
    }
    let mut b = ScenarioBuilder::new("fronthaul")
        .stop_packets(50)
        .node(du)
        .node(NodeFile::new("ru").service(service()));
    let mut hops = vec!["du".to_owned()];
    for i in 0..q.switches {
        b = b.node(NodeFile::new(format!("sw{i}")).latency(q.switch_latency.text()));
        hops.push(format!("sw{i}"));
    }
    hops.push("ru".into());
    for (i, w) in hops.windows(2).enumerate() {
        let length = if i == 0 { q.fibre.text() } else { "0m" };
        b = b.link(LinkFile::new(w[0].as_str(), w[1].as_str(), q.rate.text()).length(length));
    }
    b.flow(
        FlowFile::new(
            "uplane",
            "du",
            "ru",
            SourceFile::periodic_payload("1ms", q.payload.text()).stack(stack),
        )
        .path(hops),
    )
}

/// Answers a fronthaul question: for each mode, the frame's one-way delay on the user's path
/// (simulated, unloaded: one frame per millisecond), what the security adds, and for each O-DU /
/// O-RU category pair whether it fits T12max, with the margin and the longest fibre. Errors
/// name the flag (`--fibre`, ...), not the scenario key it set.
pub fn fronthaul(q: &FronthaulQuestion) -> Result<FronthaulPlan, ScenarioError> {
    fronthaul_plan(q).map_err(|e| match e {
        // An end node the profile overloads (its costs at this rate and payload): the profile
        // file is the input to blame, with the node and stage the check found.
        ScenarioError::Invalid {
            path,
            key,
            problem,
            allowed,
        } if (key.starts_with("node[0]") || key.starts_with("node[1]"))
            && !key.contains("\").") =>
        {
            ScenarioError::Invalid {
                path,
                key: format!("--profile {} ({key})", q.profile.display()),
                problem,
                allowed,
            }
        }
        // A mode whose suite the profile lacks (a partial profile, `calibrate --only
        // aes128-gcm`): the profile and the modes are to blame, and the modes it can serve are
        // the way out.
        ScenarioError::Invalid {
            key,
            problem,
            allowed,
            path,
        } if (key.starts_with("node[0]") || key.starts_with("node[1]"))
            && key.ends_with(".service.suite") =>
        {
            match servable_modes(q) {
                Some((can, cannot)) if !cannot.is_empty() => ScenarioError::Invalid {
                    path: PathBuf::from("oransim plan fronthaul"),
                    key: format!(
                        "--profile {} with --mode {}",
                        q.profile.display(),
                        cannot.join(",")
                    ),
                    problem,
                    allowed: format!(
                        "the modes this profile can serve: --mode {} (or a profile that measured the others' suites, e.g. a full `oransim calibrate`)",
                        can.join(",")
                    ),
                },
                _ => ScenarioError::Invalid {
                    path,
                    key,
                    problem,
                    allowed,
                },
            }
        }
        e => {
            // The flags of `oransim plan fronthaul` and the keys they set.
            let overload = format!("{}/{}", q.rate.origin(), q.payload.origin());
            let flags: &FlagKeys<'_> = &[
                ("link[0]", "length", q.fibre.origin()),
                ("link", "rate", q.rate.origin()),
                ("link", "", &overload),
                ("node", "latency", q.switch_latency.origin()),
                ("node", "service.profile", "--profile"),
                ("node", "cores", "--cores"),
                ("flow", "source.payload", q.payload.origin()),
                ("flow", "source.stack", "--mode"),
            ];
            flag_only(e, flags)
        }
    })
}

fn fronthaul_plan(q: &FronthaulQuestion) -> Result<FronthaulPlan, ScenarioError> {
    // The report names the profile as the user gave it; the scenario needs it absolute.
    let given = q.profile.display().to_string();
    let q = FronthaulQuestion {
        profile: absolute(&q.profile),
        ..q.clone()
    };
    let origin = Path::new("oransim plan fronthaul");
    let opts = RunOptions {
        wall_clock: false,
        threads: 1,
        ..Default::default()
    };
    let fibre_m = q.fibre.value();
    let mut modes = Vec::new();
    let mut baseline_proc = None;
    let none = FRONTHAUL_MODES[0];
    for name in std::iter::once(none.0).chain(q.modes.iter().map(String::as_str)) {
        let Some(mode) = FRONTHAUL_MODES.iter().find(|m| m.0 == name) else {
            return Err(ScenarioError::Invalid {
                path: origin.to_path_buf(),
                key: "--mode".into(),
                problem: format!("unknown mode \"{name}\""),
                allowed: format!("one of: {}", FRONTHAUL_MODES.map(|m| m.0).join(", ")),
            });
        };
        let s = fronthaul_scenario(&q, *mode).build(origin)?;
        let r = model::run(&s, &opts)?;
        let f = &r.flows[0];
        let d = &f.forward.delay;
        if f.forward.packets_delivered == 0 || !d.mean_ns.is_finite() {
            return Err(ScenarioError::Invalid {
                path: origin.to_path_buf(),
                key: "--mode".into(),
                problem: format!(
                    "no {name} frame reached the O-RU, so it has no delay to compare with T12max"
                ),
                allowed: "a path that delivers frames (check --rate, --payload and the profile)"
                    .into(),
            });
        }
        // The switches' latency counts as processing in the run, but it is transport: only the
        // endpoints' processing is set apart (the switches are nodes after `du` and `ru`).
        let switches_ns: f64 = s.network.nodes[2..]
            .iter()
            .map(|n| n.latency.as_ns_f64())
            .sum();
        let endpoints_ns = d.processing_ns - switches_ns;
        let base = *baseline_proc.get_or_insert(endpoints_ns);
        if name == none.0 && modes.iter().any(|m: &ModeRow| m.mode == name) {
            continue;
        }
        let added = endpoints_ns - base;
        // Against T12max: everything but the endpoints' own unprotected processing.
        let transport = d.mean_ns - base;
        let longest = model::oran::table4()
            .iter()
            .map(|row| {
                row.iter()
                    .map(|&t| {
                        let room_ns = t as f64 * 1e3 - (transport - d.propagation_ns);
                        (room_ns * 1e-9 * sim_core::DEFAULT_PROPAGATION_SPEED).max(0.0)
                    })
                    .collect()
            })
            .collect();
        modes.push(ModeRow {
            mode: name.to_owned(),
            stack: mode.1.to_owned(),
            frame_bytes: f.forward.bytes_delivered / f.forward.packets_delivered.max(1),
            one_way_ns: d.mean_ns,
            added_ns: added,
            transport_ns: transport,
            longest_fibre_m: longest,
            bottleneck: r.bottleneck.clone(),
        });
    }
    // Keep the modes asked (the baseline run above only supplies the reference processing).
    modes.retain(|m| q.modes.contains(&m.mode));
    let t = model::oran::table4();
    let margins: Vec<Vec<Vec<f64>>> = modes
        .iter()
        .map(|m| t12max_margins_us(m.transport_ns))
        .collect();
    let best = (0..t.len())
        .map(|r| {
            (0..t[r].len())
                .map(|c| {
                    // The strongest mode is the last one asked that fits.
                    margins
                        .iter()
                        .enumerate()
                        .rev()
                        .find(|(_, m)| m[r][c] >= 0.0)
                        .map(|(i, m)| (i, m[r][c]))
                })
                .collect()
        })
        .collect::<Vec<Vec<_>>>();
    let mut findings = Vec::new();
    for (i, m) in modes.iter().enumerate() {
        let fits = best
            .iter()
            .flatten()
            .filter(|b| b.is_some_and(|(j, _)| j >= i))
            .count();
        findings.push(format!(
            "{}: the {} B frame takes {:.1} us one way, {:.1} us of it added by the security processing; {} of 168 category pairs fit it on this path",
            m.mode,
            m.frame_bytes,
            m.one_way_ns / 1e3,
            m.added_ns / 1e3,
            fits
        ));
    }
    let base = baseline_proc.unwrap_or(0.0);
    let loaded = q
        .load
        .as_ref()
        .map(|l| loaded_plan(&q, l, base, origin, &opts))
        .transpose()?;
    // Under load the answer is the loaded one; the unloaded findings stay for reference.
    let (mut findings, unloaded_findings) = match &loaded {
        Some(l) => (loaded_findings(l, &modes, &best), Some(findings)),
        None => (findings, None),
    };
    let (warnings, bounds) = profile_warnings(&q, &given);
    findings.extend(bounds);
    Ok(FronthaulPlan {
        warnings,
        loaded,
        unloaded_findings,
        profile: given,
        fibre_m,
        modes,
        categories: (
            model::oran::table4_ru().iter().map(|c| c.0).collect(),
            model::oran::table4_du().iter().map(|c| c.0).collect(),
        ),
        t12max_us: t,
        best,
        findings,
    })
}

/// The modes of [`FRONTHAUL_MODES`] `q`'s profile can serve (it has both directions of the
/// mode's suite; `none` always), and those of `q.modes` it cannot; `None` when the profile does
/// not read.
fn servable_modes(q: &FronthaulQuestion) -> Option<(Vec<&'static str>, Vec<String>)> {
    let p = profile::Profile::load(&q.profile).ok()?;
    let serves = |suite: Option<Suite>| {
        suite.is_none_or(|s| {
            p.cipher(s, profile::Direction::Seal).is_ok()
                && p.cipher(s, profile::Direction::Open).is_ok()
        })
    };
    let can = FRONTHAUL_MODES
        .iter()
        .filter(|m| serves(m.2))
        .map(|m| m.0)
        .collect();
    let cannot = q
        .modes
        .iter()
        .filter(|name| {
            FRONTHAUL_MODES
                .iter()
                .find(|m| m.0 == name.as_str())
                .is_some_and(|m| !serves(m.2))
        })
        .cloned()
        .collect();
    Some((can, cannot))
}

/// The warnings of `q`'s profile (named `shown`) and, of them, the lower bounds of a
/// user-space profile for the kernel paths of the modes asked (MACsec at the protected length of
/// the question's payload, ESP), which are findings too. A profile that does not read has none
/// (the plan refused it before).
fn profile_warnings(q: &FronthaulQuestion, shown: &str) -> (Vec<String>, Vec<String>) {
    let Ok(p) = profile::Profile::load(&q.profile) else {
        return (Vec::new(), Vec::new());
    };
    let mut macsec = Vec::new();
    let mut esp = false;
    for name in &q.modes {
        let Some(&(_, stack, Some(suite), protocol)) = FRONTHAUL_MODES.iter().find(|m| m.0 == name)
        else {
            continue;
        };
        if protocol == "macsec" {
            let bytes = stack
                .parse::<protocols::Stack>()
                .ok()
                .and_then(|s| s.protected_len(q.payload.value() as usize).ok().flatten());
            if let Some(bytes) = bytes {
                macsec.push((name.clone(), suite, bytes));
            }
        } else {
            esp = true;
        }
    }
    let mut bounds: Vec<String> = Vec::new();
    if !macsec.is_empty() {
        bounds.extend(model::warnings::kernel_path_warning(
            shown,
            &p,
            model::warnings::KernelPath::Macsec(&macsec),
        ));
    }
    if esp {
        bounds.extend(model::warnings::kernel_path_warning(
            shown,
            &p,
            model::warnings::KernelPath::Esp,
        ));
    }
    let mut warnings = model::warnings::measurement_warnings(shown, &p);
    warnings.extend(bounds.iter().cloned());
    (warnings, bounds)
}

/// Each mode asked, under load: `init fronthaul`'s shape of `l` on `q`'s path (its profile
/// absolute), run, its worst one-way delay less `base` (the endpoints' unprotected processing
/// the unloaded plan found) held against T12max. A refused value names the flag of `plan
/// fronthaul` that set it.
fn loaded_plan(
    q: &FronthaulQuestion,
    l: &FronthaulLoad,
    base: f64,
    origin: &Path,
    opts: &RunOptions,
) -> Result<LoadedPlan, ScenarioError> {
    let mut modes = Vec::new();
    let mut duration = String::new();
    for name in &q.modes {
        let shape = FronthaulShape {
            dus: l.dus,
            rus_per_du: l.rus_per_du,
            switches: q.switches,
            switch_latency: q.switch_latency.clone(),
            fibre: q.fibre.clone(),
            rate: q.rate.clone(),
            load: l.load.clone(),
            payload: q.payload.clone(),
            mode: name.clone(),
            profile: q.profile.display().to_string(),
            du_cores: q.cores,
            ..FronthaulShape::default()
        };
        shape.duration.text().clone_into(&mut duration);
        let file = Shape::Fronthaul(shape)
            .generate(origin)
            .map_err(|e| match e {
                // The shape's errors name `init fronthaul` and its flags; these are this command's.
                ScenarioError::Invalid {
                    key,
                    problem,
                    allowed,
                    ..
                } => ScenarioError::Invalid {
                    path: origin.to_path_buf(),
                    key: key.replace("--du-cores", "--cores"),
                    problem,
                    allowed,
                },
                other => other,
            })?;
        let s = Scenario::from_file(file, origin)?;
        let r = model::run(&s, opts)?;
        // Every flow of the shape is eCPRI (and the shape asks for this report).
        let t = r.t12max.unwrap_or_else(|| T12maxReport::of(&r.flows));
        let Some(worst) = t.worst_ns else {
            return Err(ScenarioError::Invalid {
                path: origin.to_path_buf(),
                key: "--load".into(),
                problem: format!(
                    "no {name} frame reached an O-RU in the {duration} run at {} per O-RU, so it \
                     has no delay to compare with T12max",
                    l.load
                ),
                allowed: format!(
                    "a load that sends at least one --payload frame per O-RU in {duration}"
                ),
            });
        };
        let transport = worst - base;
        let margin_us = t12max_margins_us(transport);
        let fits = if t.dropped == 0 {
            margin_us.iter().flatten().filter(|&&m| m >= 0.0).count() as u64
        } else {
            0
        };
        modes.push(LoadedRow {
            mode: name.clone(),
            worst_ns: worst,
            delivered: t.delivered,
            dropped: t.dropped,
            transport_ns: transport,
            margin_us,
            fits,
            bottleneck: r.bottleneck.clone(),
        });
    }
    let map = loaded_map(&modes);
    Ok(LoadedPlan {
        dus: l.dus,
        rus_per_du: l.rus_per_du,
        load: l.load.text().to_owned(),
        duration,
        modes,
        map,
    })
}

/// The region map under load by category letter: per pair the strongest mode (the last asked)
/// that fits, none where a mode drops frames or its margin is negative.
fn loaded_map(modes: &[LoadedRow]) -> BTreeMap<char, BTreeMap<char, Option<LoadedCell>>> {
    let ru = model::oran::table4_ru();
    let du = model::oran::table4_du();
    ru.iter()
        .enumerate()
        .map(|(r, row)| {
            let cells = du
                .iter()
                .enumerate()
                .map(|(c, col)| {
                    let best = modes
                        .iter()
                        .rev()
                        .find(|m| m.dropped == 0 && m.margin_us[r][c] >= 0.0)
                        .map(|m| LoadedCell {
                            mode: m.mode.clone(),
                            margin_us: m.margin_us[r][c],
                        });
                    (col.0, best)
                })
                .collect();
            (row.0, cells)
        })
        .collect()
}

/// The findings under load: per mode its worst delay, what counts against T12max, frames
/// dropped and the pairs that fit, against the pairs that fit it unloaded (`best`, the
/// unloaded map of `unloaded`'s modes).
fn loaded_findings(
    l: &LoadedPlan,
    unloaded: &[ModeRow],
    best: &[Vec<Option<(usize, f64)>>],
) -> Vec<String> {
    l.modes
        .iter()
        .map(|m| {
            let unloaded_fits = unloaded.iter().position(|u| u.mode == m.mode).map(|i| {
                best.iter()
                    .flatten()
                    .filter(|b| b.is_some_and(|(j, _)| j >= i))
                    .count()
            });
            format!(
                "{} under load ({} O-DUs x {} O-RUs, {} of eCPRI per O-RU): the worst frame takes {:.1} us one way, {:.1} us of it counted against T12max{}; {} of 168 category pairs fit it{}",
                m.mode,
                l.dus,
                l.rus_per_du,
                l.load,
                m.worst_ns / 1e3,
                m.transport_ns / 1e3,
                if m.dropped > 0 {
                    format!(
                        ", and {} frames were dropped, so it misses T12max everywhere",
                        m.dropped
                    )
                } else {
                    String::new()
                },
                m.fits,
                unloaded_fits.map_or_else(String::new, |n| format!(" ({n} unloaded)"))
            )
        })
        .collect()
}
