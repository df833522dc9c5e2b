//! `oransim plan`: capacity-planning questions answered by simulation.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Subcommand;
use profile::units::{Kind, Quantity};
use protocols::Suite;

use crate::builtin::Profile;
use crate::format::print;

/// Arguments of `oransim plan`.
#[derive(Debug, clap::Args)]
pub(crate) struct PlanArgs {
    #[command(subcommand)]
    question: Question,
}

#[derive(Debug, Subcommand)]
enum Question {
    /// Key exchange: SA set-up time, and a rekey/reconnect storm of N tunnels at once.
    Kex(KexArgs),
    /// Fronthaul: which O-DU/O-RU category pairs (000 Table 4) fit each security mode on your
    /// path, with margins, the longest fibre, and the region map.
    Fronthaul(FronthaulArgs),
    /// E2, F1, Xn, E1 (IPsec) and O1, A1, O2 (TLS): CPU, added latency, headroom, the highest
    /// sustainable load and the cores needed, at your load.
    Interface(InterfaceArgs),
}

/// `oransim plan interface`.
#[derive(Debug, clap::Args)]
struct InterfaceArgs {
    /// Interface: E2, F1, Xn, E1, X2, W1 (IPsec) or O1, A1, O2 (TLS 1.3).
    #[arg(long, default_value = "E2")]
    interface: String,
    /// Calibration profile of both ends.
    /// A path under calibration/ with no file there is read from oransim's built-in copy.
    #[arg(long)]
    profile: PathBuf,
    /// Cipher suite, e.g. aes256-gcm, aes256-cbc-hmac-sha256 (a bad name lists them all; `copy`
    /// is no cipher, one memory copy of the packet: the baseline every data path pays).
    #[arg(long, default_value = "aes256-gcm", value_parser = parse_suite)]
    suite: Suite,
    /// Offered plaintext load (e.g. 3.5Mbps for 10 UEs x 31 KPMs in 000 §4).
    #[arg(long, value_parser = crate::values::RATE)]
    rate: Quantity,
    /// Message payload sizes, cycled with equal weight.
    #[arg(long, value_delimiter = ',', default_value = "195B,1425B", value_parser = crate::values::SIZE)]
    sizes: Vec<Quantity>,
    /// Cores of each end (default: the profile's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    cores: Option<u32>,
    /// CPU utilisation limit for the cores-needed answer, in percent (`80` or `80%`).
    #[arg(long, default_value_t = 80.0, value_parser = crate::values::percent)]
    cpu_limit: f64,
    /// Added p99 latency limit for the cores-needed answer.
    #[arg(long, default_value = "1ms", value_parser = crate::values::DURATION)]
    latency_limit: Quantity,
    /// Other suites to compare at the same load.
    #[arg(long, value_delimiter = ',', value_parser = parse_suite)]
    compare: Vec<Suite>,
    /// Also write the plan as one self-contained page to this file (question, inputs, answer;
    /// no script, nothing fetched).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = KexFormat::Table)]
    format: KexFormat,
}

/// `oransim plan fronthaul`.
#[derive(Debug, clap::Args)]
struct FronthaulArgs {
    /// Calibration profile of the O-DU and O-RU data paths.
    /// A path under calibration/ with no file there is read from oransim's built-in copy.
    #[arg(long)]
    profile: PathBuf,
    /// A second profile whose region map is printed beside (e.g. a paper's testbed).
    #[arg(long)]
    compare: Option<PathBuf>,
    /// Cores of each end (default: the profile's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    cores: Option<u32>,
    /// Fibre length between O-DU and O-RU.
    #[arg(long, default_value = "0m", value_parser = crate::values::LENGTH)]
    fibre: Quantity,
    /// Switches on the path.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=64))]
    switches: u32,
    /// Latency of each switch [default: 0us] (with --switches 1 or more).
    #[arg(long, value_parser = crate::values::DURATION)]
    switch_latency: Option<Quantity>,
    /// Link rate.
    #[arg(long, default_value = "10Gbps", value_parser = crate::values::RATE)]
    rate: Quantity,
    /// eCPRI payload of the largest frame (7660 B makes the 7678 B frame of 000 §3.2).
    #[arg(long, default_value = "7660B", value_parser = crate::values::SIZE)]
    payload: Quantity,
    /// O-DU category (A..N) of the pair to detail (with --ru; table output only).
    #[arg(long)]
    du: Option<char>,
    /// O-RU category (O..Z) of the pair to detail (with --du; table output only).
    #[arg(long)]
    ru: Option<char>,
    /// Security modes, weakest first: none, macsec-integrity, macsec-encrypt, ipsec.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "none,macsec-integrity,macsec-encrypt"
    )]
    mode: Vec<String>,
    /// Also run `init fronthaul`'s shape on this path at this eCPRI payload bit rate per O-RU
    /// (e.g. 200Mbps) and give each mode's T12max verdict under that load.
    #[arg(long, value_parser = crate::values::RATE)]
    load: Option<Quantity>,
    /// O-DUs of the loaded run [default: 2] (with --load).
    #[arg(long, requires = "load",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    dus: Option<u32>,
    /// O-RUs per O-DU of the loaded run [default: 4] (with --load).
    #[arg(long, requires = "load",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    rus_per_du: Option<u32>,
    /// Also write the plan as one self-contained page to this file (question, inputs, answer;
    /// no script, nothing fetched).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = KexFormat::Table)]
    format: KexFormat,
}

/// `oransim plan kex`.
#[derive(Debug, clap::Args)]
struct KexArgs {
    /// Key exchanges to compare, comma-separated (e.g. x25519,mlkem768,mlkem1024; hybrids with
    /// `+`). The first is the baseline of the findings.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "x25519,mlkem768,mlkem1024"
    )]
    ke: Vec<String>,
    /// Authentication: psk, ed25519, ecdsa-p256, rsa2048, rsa3072, mldsa44, mldsa65, mldsa87
    /// (the profiles must hold its sign and verify costs: `oransim calibrate` measures all of
    /// them; profiles made before 2026-11-24 have no RSA).
    #[arg(long, default_value = "ed25519")]
    auth: String,
    /// Tunnels re-established at once (e.g. gNBs reconnecting after a RIC restart).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=i64::from(whatif::plan::MAX_TUNNELS)))]
    tunnels: u32,
    /// Calibration profile of both ends (key-op and per-packet costs).
    /// A path under calibration/ with no file there is read from oransim's built-in copy.
    #[arg(long)]
    profile: PathBuf,
    /// Profile of the responder, if different.
    #[arg(long)]
    responder_profile: Option<PathBuf>,
    /// Responder cores (default: the profile's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    cores: Option<u32>,
    /// Link rate.
    #[arg(long, default_value = whatif::generate::GNB_LINK_RATE, value_parser = crate::values::RATE)]
    rate: Quantity,
    /// Path length (propagation at 2e8 m/s).
    #[arg(long, default_value = whatif::generate::GNB_LINK_LENGTH, value_parser = crate::values::LENGTH)]
    length: Quantity,
    /// Path MTU (IKE fragmentation above it): 68 B to 65535 B.
    #[arg(long, default_value = whatif::generate::GNB_LINK_MTU, value_parser = crate::values::MTU)]
    mtu: Quantity,
    /// Packet loss probability each way, from 0 to below 1 (e.g. 0.01); requests are
    /// retransmitted as strongSwan does by default (4 s, base 1.8, 5 tries).
    #[arg(long, default_value_t = 0.0)]
    loss: f64,
    /// With --loss: runs of the storm, each drawing the losses anew, that give the share of
    /// tunnels up at each retransmission, the completion percentiles and the chance a tunnel
    /// gives up [default: 10].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(model::scenario::MAX_REPLICATIONS)))]
    replications: Option<u32>,
    /// With --loss: the master seed of the storm's runs (replication i draws from (seed, i))
    /// [default: 1, a scenario's].
    #[arg(long)]
    seed: Option<u64>,
    /// IKEv2 peer whose messages are sized: minimal, strongswan, strongswan-minimal, libreswan
    /// (see `oransim handshake --help`).
    #[arg(long, default_value = "minimal", value_parser = super::handshake::parse_peer)]
    peer: protocols::ikev2::Peer,
    /// Where the IKE daemons run: `separate` (each initiator its own machine, the responder
    /// alone), `initiators` (every tunnel from one initiator daemon on a host of
    /// --initiator-cores cores, the responder alone on --cores) or `shared` (one initiator
    /// daemon and the responder on one host of --cores cores): the storm is the scenario `oransim
    /// init ric-restart --placement` writes, run in the engine.
    #[arg(long, default_value = "separate", value_parser = super::init::parse_placement)]
    placement: whatif::generate::Placement,
    /// Cores of the initiators' host with `--placement initiators` (default: the profile's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    initiator_cores: Option<u32>,
    /// Also write the plan as one self-contained page to this file (question, inputs, answer;
    /// no script, nothing fetched).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = KexFormat::Table)]
    format: KexFormat,
}

/// `--suite` and `--compare`: a suite name; the error lists the allowed names.
fn parse_suite(text: &str) -> Result<Suite, protocols::Error> {
    text.parse().map_err(crate::values::suite_error)
}

/// `--html FILE`: writes the page `page` renders, atomically. `page` is given the page's path
/// (for [`crate::page::path_for`]) and its footer's version and date.
fn write_html(
    path: Option<&Path>,
    page: impl FnOnce(&Path, &printer::html::Made<'_>) -> anyhow::Result<String>,
) -> anyhow::Result<()> {
    path.map_or(Ok(()), |p| {
        let version = crate::page::version();
        let date = crate::page::date()?;
        let made = printer::html::Made {
            version: &version,
            date: &date,
        };
        let text = page(p, &made).context("--html")?;
        crate::output::write_atomic(p, text.as_bytes()).context("--html")
    })
}

/// `--html FILE`, before the plan runs: the file must be writable and `SOURCE_DATE_EPOCH`, if
/// set, a date.
fn check_html(path: Option<&Path>) -> anyhow::Result<()> {
    path.map_or(Ok(()), |p| {
        crate::page::date()?;
        crate::output::check_writable(p).context("--html")
    })
}

/// The profile `flag` names: the file there, or, when there is none and the path is one of a
/// checkout's (`calibration/NAME.toml`), oransim's built-in copy, said on stderr.
fn profile(flag: &str, given: &Path) -> anyhow::Result<Profile> {
    let p = Profile::find(given).with_context(|| {
        format!(
            "{flag} {}: cannot write out oransim's built-in copy",
            given.display()
        )
    })?;
    if p.is_builtin() {
        eprintln!(
            "oransim plan: {flag} {}: no such file here; using oransim's built-in copy",
            given.display()
        );
    }
    Ok(p)
}

/// A plan's `result`, its error naming each built-in profile by the path given rather than its
/// scratch copy's (the error is unchanged when no built-in copy is read).
fn as_given<T, E>(result: Result<T, E>, profiles: &[&Profile]) -> anyhow::Result<T>
where
    E: std::error::Error + Send + Sync + 'static,
{
    result.map_err(|e| {
        let e = anyhow::Error::new(e);
        if profiles.iter().any(|p| p.is_builtin()) {
            let text = profiles
                .iter()
                .fold(format!("{e:#}"), |t, p| p.as_given(&t));
            anyhow::anyhow!(text)
        } else {
            e
        }
    })
}

/// `texts` (warnings, findings) with each built-in profile's scratch path written as the path
/// given, as [`as_given`] does for errors.
fn texts_as_given(texts: &mut [String], profiles: &[&Profile]) {
    for t in texts {
        for p in profiles {
            *t = p.as_given(t);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum KexFormat {
    Table,
    Json,
}

/// Runs `oransim plan`.
pub(crate) fn execute(args: &PlanArgs) -> anyhow::Result<ExitCode> {
    match &args.question {
        Question::Kex(k) => kex(k),
        Question::Fronthaul(f) => fronthaul(f),
        Question::Interface(i) => interface(i),
    }
}

fn interface(a: &InterfaceArgs) -> anyhow::Result<ExitCode> {
    if !(a.cpu_limit > 0.0 && a.cpu_limit <= 100.0) {
        anyhow::bail!(
            "--cpu-limit {}: expected a percentage above 0 and at most 100",
            a.cpu_limit
        );
    }
    let limit_ps = a.latency_limit.value();
    let q = whatif::plan::InterfaceQuestion {
        interface: a.interface.clone(),
        profile: a.profile.clone(),
        suite: a.suite,
        rate: a.rate.clone(),
        sizes: a.sizes.clone(),
        cores: a.cores,
        cpu_limit: a.cpu_limit / 100.0,
        latency_limit_ns: limit_ps / 1e3,
        alternatives: a.compare.clone(),
    };
    check_html(a.html.as_deref())?;
    let prof = profile("--profile", &a.profile)?;
    let run = whatif::plan::InterfaceQuestion {
        profile: prof.read.clone(),
        ..q.clone()
    };
    let mut plan = as_given(whatif::plan::interface(&run), &[&prof])?;
    texts_as_given(&mut plan.warnings, &[&prof]);
    crate::output::warn("plan", &plan.warnings);
    // The page's figure: delay against load, simulated only for the page.
    let curves = match a.html {
        Some(_) => as_given(whatif::plan::load_curves(&run, &plan), &[&prof])?,
        None => Vec::new(),
    };
    write_html(a.html.as_deref(), |page, made| {
        let q = whatif::plan::InterfaceQuestion {
            profile: crate::page::path_for(&q.profile, page),
            ..q.clone()
        };
        Ok(printer::html::interface(
            &plan,
            &q,
            &curves,
            a.cpu_limit,
            a.latency_limit.text(),
            made,
        )?)
    })?;
    let text = match a.format {
        KexFormat::Json => printer::plan::json(printer::plan::INTERFACE_SCHEMA, &plan)?,
        KexFormat::Table => {
            printer::plan::interface(&plan, &q, a.cpu_limit, a.latency_limit.text())
        }
    };
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn fronthaul(a: &FronthaulArgs) -> anyhow::Result<ExitCode> {
    // Flags that would change nothing are refused, not silently ignored.
    if a.switches == 0
        && let Some(l) = &a.switch_latency
    {
        anyhow::bail!(
            "--switch-latency {l} applies to the switches on the path, and --switches is 0; give --switches 1..=64 or leave --switch-latency out"
        );
    }
    if a.format == KexFormat::Json && (a.du.is_some() || a.ru.is_some()) {
        anyhow::bail!(
            "--du and --ru detail one category pair in the table output; --format json already holds every pair"
        );
    }
    // Without switches the latency is never used; its default is none.
    let switch_latency = match &a.switch_latency {
        Some(l) => l.clone(),
        None => whatif::plan::quantity("0us", Kind::Duration, "--switch-latency")?,
    };
    let question = |profile: &PathBuf| whatif::plan::FronthaulQuestion {
        profile: profile.clone(),
        cores: a.cores,
        fibre: a.fibre.clone(),
        switches: a.switches,
        switch_latency: switch_latency.clone(),
        rate: a.rate.clone(),
        payload: a.payload.clone(),
        modes: a.mode.clone(),
        load: a.load.as_ref().map(|load| {
            let shape = whatif::generate::FronthaulShape::default();
            whatif::plan::FronthaulLoad {
                dus: a.dus.unwrap_or(shape.dus),
                rus_per_du: a.rus_per_du.unwrap_or(shape.rus_per_du),
                load: load.clone(),
            }
        }),
    };
    check_html(a.html.as_deref())?;
    let q = question(&a.profile);
    let prof = profile("--profile", &a.profile)?;
    let mut mine = as_given(whatif::plan::fronthaul(&question(&prof.read)), &[&prof])?;
    mine.profile = a.profile.display().to_string();
    texts_as_given(&mut mine.warnings, &[&prof]);
    texts_as_given(&mut mine.findings, &[&prof]);
    crate::output::warn("plan", &mine.warnings);
    let other = a
        .compare
        .as_ref()
        .map(|p| -> anyhow::Result<_> {
            let prof = profile("--compare", p)?;
            let mut plan = as_given(whatif::plan::fronthaul(&question(&prof.read)), &[&prof])
                .with_context(|| {
                    format!(
                        "--compare {}: the second profile, run with the same flags",
                        p.display()
                    )
                })?;
            plan.profile = p.display().to_string();
            texts_as_given(&mut plan.warnings, &[&prof]);
            texts_as_given(&mut plan.findings, &[&prof]);
            crate::output::warn("plan", &plan.warnings);
            Ok(plan)
        })
        .transpose()?;
    let pair = match (a.du, a.ru) {
        (Some(du), Some(ru)) => {
            let (rows, cols) = &mine.categories;
            let (Some(i), Some(j)) = (
                rows.iter().position(|&c| c == ru.to_ascii_uppercase()),
                cols.iter().position(|&c| c == du.to_ascii_uppercase()),
            ) else {
                anyhow::bail!(
                    "--du {du} --ru {ru}: not a category pair of 000 Table 4; O-DU categories are A..N, O-RU categories O..Z"
                );
            };
            Some((i, j))
        }
        (None, None) => None,
        _ => anyhow::bail!("--du and --ru go together: give both to detail one category pair"),
    };
    write_html(a.html.as_deref(), |page, made| {
        let q = whatif::plan::FronthaulQuestion {
            profile: crate::page::path_for(&q.profile, page),
            ..q.clone()
        };
        let on_page = |plan: &whatif::plan::FronthaulPlan| whatif::plan::FronthaulPlan {
            profile: crate::page::path_for(Path::new(&plan.profile), page)
                .display()
                .to_string(),
            ..plan.clone()
        };
        let other = other.as_ref().map(on_page);
        Ok(printer::html::fronthaul(
            &q,
            &on_page(&mine),
            other.as_ref(),
            pair,
            made,
        ))
    })?;
    let text = match a.format {
        KexFormat::Json => printer::plan::json(
            printer::plan::FRONTHAUL_SCHEMA,
            &serde_json::json!({ "plan": mine, "compare": other }),
        )?,
        KexFormat::Table => printer::plan::fronthaul(&q, &mine, other.as_ref(), pair),
    };
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn kex(a: &KexArgs) -> anyhow::Result<ExitCode> {
    let q = whatif::plan::KexQuestion {
        kes: a.ke.clone(),
        auth: a.auth.clone(),
        tunnels: a.tunnels,
        initiator_profile: a.profile.clone(),
        responder_profile: a
            .responder_profile
            .clone()
            .unwrap_or_else(|| a.profile.clone()),
        responder_cores: a.cores,
        rate: a.rate.clone(),
        length: a.length.clone(),
        mtu: a.mtu.clone(),
        loss: a.loss,
        peer: a.peer,
        placement: a.placement,
        initiator_cores: a.initiator_cores,
        replications: a.replications,
        seed: a.seed,
    };
    check_html(a.html.as_deref())?;
    let initiator = profile("--profile", &q.initiator_profile)?;
    let responder = match &a.responder_profile {
        Some(p) => profile("--responder-profile", p)?,
        None => Profile::find(&q.responder_profile)?,
    };
    let run = whatif::plan::KexQuestion {
        initiator_profile: initiator.read.clone(),
        responder_profile: responder.read.clone(),
        ..q.clone()
    };
    let mut plan = as_given(whatif::plan::kex(&run), &[&initiator, &responder])?;
    texts_as_given(&mut plan.warnings, &[&initiator, &responder]);
    crate::output::warn("plan", &plan.warnings);
    write_html(a.html.as_deref(), |page, made| {
        let q = whatif::plan::KexQuestion {
            initiator_profile: crate::page::path_for(&q.initiator_profile, page),
            responder_profile: crate::page::path_for(&q.responder_profile, page),
            ..q.clone()
        };
        Ok(printer::html::kex(&plan, &q, made)?)
    })?;
    let text = match a.format {
        KexFormat::Json => printer::plan::json(printer::plan::KEX_SCHEMA, &plan)?,
        KexFormat::Table => printer::plan::kex(&plan, &q),
    };
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}
