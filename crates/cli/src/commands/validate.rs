//! `oransim validate`: a real implementation on this host, measured, beside the model's
//! predictions (docs/validation.md). The measuring is done by the scripts this binary
//! carries (`scripts/strongswan-bench.sh` and its `scripts/lib/` helpers, written to a
//! temporary directory and run with bash); the model is `evidence::validate`, the text
//! `printer::validate`.

use std::io::{BufRead as _, BufReader};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};

use anyhow::{Context as _, bail};

use evidence::validate::Validation;
use evidence::validate::across::Across;
use evidence::validate::strongswan::{self, Measurements};

use super::overhead::OutFormat;

/// Arguments of `oransim validate`.
#[derive(Debug, clap::Args)]
pub(crate) struct ValidateArgs {
    /// The implementation to run and validate against.
    #[command(subcommand)]
    pub target: Target,
}

/// What `oransim validate` runs.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Target {
    /// Real strongSwan (charon, kernel-libipsec or the kernel's xfrm) in two network
    /// namespaces (root; installs Debian's packages if missing): IKE set-ups, restart storms and
    /// the ESP data path, beside the model fitted to the PSK set-up, the storm of 50 and
    /// AES-256-GCM's throughput and 64-byte RTT.
    Strongswan(RunArgs),
    /// Real OpenSSL TLS 1.3 (`openssl s_server`, `s_time`) on loopback: full handshakes per
    /// second per key exchange and certificate, and bulk record throughput per cipher suite,
    /// beside the model fitted to X25519 + ECDSA P-256 and AES-256-GCM.
    Tls(RunArgs),
}

/// Arguments of `oransim validate strongswan` and `oransim validate tls`.
#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// Read the measurements from FILE (written by an earlier run's --save-measurements, or by
    /// scripts/strongswan-bench.sh) instead of running the implementation. Given more than
    /// once: each file judged on its own (each with its own fit), then every row's verdict
    /// across them; a row counts only where every run counts it with the same verdict
    /// (docs/validation.md, "Verdicts across runs").
    #[arg(long, value_name = "FILE")]
    pub measurements: Vec<PathBuf>,
    /// The full set instead of the reduced one: strongSwan's storms up to 2000 SAs, with
    /// certificates, a raised IKE SA table, each daemon pinned to a CPU of its own and rekey
    /// storms, 5 runs each, and TCP at MSS 536 and 1000 (about 20 minutes against 90 s); TLS's 7 runs of 2 s per workload (against 3 of 1 s), with concurrent
    /// clients and resumed handshakes.
    #[arg(long, conflicts_with = "measurements")]
    pub full: bool,
    /// Also write the measurements to FILE (JSON, oransim.measure.strongswan/1 or
    /// oransim.measure.tls/1).
    #[arg(long, value_name = "FILE", conflicts_with = "measurements")]
    pub save_measurements: Option<PathBuf>,
    /// Also write the validation to FILE (JSON, oransim.validate/1).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = OutFormat::Table)]
    pub format: OutFormat,
    /// strongSwan only: run the storms in the engine with this profile (e.g. the one `oransim
    /// calibrate --run strongswan` wrote from these or another run's measurements) instead of
    /// the one fitted in memory from them (which has no loopback I/O cost: the daemons' CPU per
    /// SA holds their socket I/O); a storm row is then fitted only where this profile's terms
    /// were fitted to that workload (their `fitted_to`).
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Judge the run even when other work took more of the host's CPU than docs/validation.md
    /// allows (without it: exit 3, "too noisy", the measurements saved); the noise line then
    /// says so.
    #[arg(long)]
    pub despite_noise: bool,
}

/// The scripts the strongSwan run needs, by their path under the temporary directory.
const STRONGSWAN_SCRIPTS: &[(&str, &str)] = &[
    (
        "strongswan-bench.sh",
        include_str!("../../../../scripts/strongswan-bench.sh"),
    ),
    ("lib/apt.sh", include_str!("../../../../scripts/lib/apt.sh")),
    (
        "lib/noise.sh",
        include_str!("../../../../scripts/lib/noise.sh"),
    ),
    (
        "lib/procs.sh",
        include_str!("../../../../scripts/lib/procs.sh"),
    ),
    (
        "lib/charon.sh",
        include_str!("../../../../scripts/lib/charon.sh"),
    ),
    (
        "lib/loss.sh",
        include_str!("../../../../scripts/lib/loss.sh"),
    ),
];

/// Exit status of a run too noisy to judge (issue 36 #2): other work took more of the host's
/// CPU than `evidence::validate::TOO_NOISY_SHARE`.
pub(crate) const EXIT_TOO_NOISY: u8 = 3;

/// Runs `oransim validate`: exit 0 when every counted row (`evidence::ledger`) is within its
/// tolerance, 1 on a miss, [`EXIT_TOO_NOISY`] when the host was too noisy to judge.
pub(crate) fn execute(args: &ValidateArgs) -> anyhow::Result<ExitCode> {
    let a = match &args.target {
        Target::Strongswan(a) | Target::Tls(a) => a,
    };
    // Every output target is checked before the first measurement: a run of real daemons
    // takes minutes, and an unwritable file found after it would lose them (issue 39 #7).
    if let Some(p) = &a.save_measurements {
        crate::output::check_writable(p).context("--save-measurements")?;
    }
    if let Some(p) = &a.json {
        crate::output::check_writable(p).context("--json")?;
    }
    match &args.target {
        Target::Strongswan(a) => run_strongswan(a),
        Target::Tls(a) => run_tls(a),
    }
}

/// The strongSwan measurements (read from `path`, or run now with the reduced or `full` set),
/// OpenSSL's costs from their `speed` workload, and where they came from (for messages). A run
/// that fails half-way leaves the rows it measured, marked partial, at `partial_to` when given.
pub(crate) fn strongswan_measurements(
    path: Option<&std::path::Path>,
    full: bool,
    partial_to: Option<&std::path::Path>,
) -> anyhow::Result<(Measurements, strongswan::OpensslCosts, String)> {
    let (text, origin) = match path {
        Some(path) => (
            profile::read::read_input_text(path, profile::read::Input::Measurements)
                .with_context(|| format!("--measurements {}", path.display()))?,
            path.display().to_string(),
        ),
        None => {
            let set = if full { "full" } else { "reduced" };
            (
                run_script(STRONGSWAN_SCRIPTS, "strongswan-bench.sh", set, partial_to)?,
                "the strongSwan run".to_owned(),
            )
        }
    };
    let m: Measurements = serde_json::from_str(&text).with_context(|| {
        format!(
            "{origin}: not a strongSwan measurement file ({})",
            strongswan::MEASURE_SCHEMA
        )
    })?;
    let speed = m
        .speed()
        .with_context(|| format!("{origin}: no `speed` workload (openssl speed -mr output)"))?;
    let ops = crypto_bench::openssl::parse(speed, &format!("{origin}: speed"))
        .with_context(|| format!("{origin}: the `speed` workload"))?;
    Ok((m, ops, origin))
}

fn run_strongswan(a: &RunArgs) -> anyhow::Result<ExitCode> {
    // A profile named is read before the daemons run.
    let named = a
        .profile
        .as_ref()
        .map(|p| profile::Profile::load(p).with_context(|| format!("--profile {}", p.display())))
        .transpose()?;
    if a.measurements.len() > 1 {
        let mut runs = Vec::new();
        for path in &a.measurements {
            let (m, ops, origin) = strongswan_measurements(Some(path), false, None)?;
            match judge_strongswan(a, &m, &ops, &origin, named.as_ref())? {
                Ok(v) => runs.push((origin, v)),
                Err(refused) => return Ok(refused),
            }
        }
        return finish_across(a, &runs);
    }
    // A bench that fails half-way leaves what it measured beside the file asked for, marked
    // partial (issue 39): `--save-measurements M` gets `M.partial`.
    let partial = a
        .save_measurements
        .as_ref()
        .map(|p| std::path::PathBuf::from(format!("{}.partial", p.display())));
    let (m, ops, origin) = strongswan_measurements(
        a.measurements.first().map(PathBuf::as_path),
        a.full,
        partial.as_deref(),
    )?;
    save_measurements(a, &m)?;
    match judge_strongswan(a, &m, &ops, &origin, named.as_ref())? {
        Ok(v) => finish(a, &v),
        Err(refused) => Ok(refused),
    }
}

/// Judges strongSwan's measurements `m` (from `origin`) against the engine, with the profile
/// `named` by `--profile` or the one fitted from them: `Ok(Err(status))` when the run was too
/// noisy to judge (refused, [`too_noisy`] said why).
fn judge_strongswan(
    a: &RunArgs,
    m: &Measurements,
    ops: &strongswan::OpensslCosts,
    origin: &str,
    named: Option<&profile::Profile>,
) -> anyhow::Result<Result<Validation, ExitCode>> {
    let noisy = match noise_gate(a, origin, m.noise.as_ref()) {
        Ok(noisy) => noisy,
        Err(refused) => return Ok(Err(refused)),
    };
    // The storms are engine runs of the profile `calibrate --run strongswan` writes from the
    // same measurements, without its loopback I/O cost: the daemons' CPU per SA (schedstat)
    // already holds their socket I/O.
    let profile = match named {
        Some(p) => p.clone(),
        None => {
            let file = strongswan_profile(m, ops, origin, "validate-strongswan", None)?;
            profile::Profile::from_file(file, strongswan::STORM_PROFILE)?
        }
    };
    let mut v = strongswan::validate(m, ops, &profile).with_context(|| origin.to_owned())?;
    judged_despite_noise(&mut v, noisy);
    Ok(Ok(v))
}

/// The run's noise against `evidence::validate::TOO_NOISY_SHARE` (issue 36 #2): `Ok(None)` within
/// it (or not measured), `Ok(Some(why))` above it with `--despite-noise` (judged anyway),
/// `Err(exit status)` above it without: refused, [`too_noisy`] said why.
fn noise_gate(
    a: &RunArgs,
    origin: &str,
    noise: Option<&evidence::validate::Noise>,
) -> Result<Option<String>, ExitCode> {
    match noise.and_then(evidence::validate::Noise::too_noisy) {
        Some(why) if !a.despite_noise => Err(too_noisy(a, origin, &why)),
        noisy => Ok(noisy),
    }
}

/// A run judged despite its noise says so first on its noise line.
fn judged_despite_noise(v: &mut Validation, noisy: Option<String>) {
    if let Some(why) = noisy {
        v.noise = format!("TOO NOISY, judged anyway (--despite-noise): {why}");
    }
}

/// Refuses to judge: says what was measured and where the measurements are, exit
/// [`EXIT_TOO_NOISY`].
fn too_noisy(a: &RunArgs, origin: &str, why: &str) -> ExitCode {
    let saved = match (&a.save_measurements, a.measurements.is_empty()) {
        (Some(p), _) => format!("the measurements are saved in {}", p.display()),
        (None, false) => format!("the measurements are {origin}"),
        (None, true) => {
            "the measurements are not saved (--save-measurements FILE keeps them)".into()
        }
    };
    eprintln!(
        "validate: too noisy to judge ({origin}): {why}; {saved}; --despite-noise judges it anyway"
    );
    ExitCode::from(EXIT_TOO_NOISY)
}

/// The profile `calibrate --run strongswan` writes from the measurements `m` (read from
/// `origin`): OpenSSL's key ops and ciphers from the `speed` workload, `io` as the per-packet
/// I/O cost (`None`: none), and the fitted implementation terms.
pub(crate) fn strongswan_profile(
    m: &Measurements,
    ops: &strongswan::OpensslCosts,
    origin: &str,
    name: &str,
    io: Option<crypto_bench::LoopbackIo>,
) -> anyhow::Result<profile::ProfileFile> {
    let speed = m.speed().unwrap_or_default();
    let opts = crypto_bench::openssl::ImportOptions {
        cores: Some(m.cpus.max(1)),
        io,
    };
    let mut file = crypto_bench::openssl::import(speed, &format!("{origin}: speed"), name, &opts)
        .with_context(|| format!("{origin}: the `speed` workload"))?;
    file.profile.description = Some(format!(
        "strongSwan {} measured on this host by running it ({}): key ops and ciphers from openssl speed, I/O per packet from loopback UDP, the daemon's and data path's terms in [implementation]",
        m.strongswan, m.data_path
    ));
    file.node.cores.source = "logical CPUs of the host the strongSwan run measured".into();
    file.implementation =
        Some(strongswan::implementation_file(m, ops).with_context(|| origin.to_owned())?);
    Ok(file)
}

/// The TLS measurements (read from `path`, or run now), and where they came from.
pub(crate) fn tls_measurements(
    path: Option<&std::path::Path>,
    full: bool,
) -> anyhow::Result<(evidence::validate::tls::TlsMeasurements, String)> {
    use evidence::validate::tls::{MEASURE_SCHEMA, Set};
    match path {
        Some(path) => {
            let text = profile::read::read_input_text(path, profile::read::Input::Measurements)
                .with_context(|| format!("--measurements {}", path.display()))?;
            let origin = path.display().to_string();
            let m: evidence::validate::tls::TlsMeasurements = serde_json::from_str(&text)
                .with_context(|| {
                    format!("{origin}: not a TLS measurement file ({MEASURE_SCHEMA})")
                })?;
            if m.schema != MEASURE_SCHEMA {
                bail!("{origin}: schema `{}` is not {MEASURE_SCHEMA}", m.schema);
            }
            if let Err(e) = m.check() {
                bail!("{origin}: {e}");
            }
            Ok((m, origin))
        }
        None => {
            let set = if full { Set::Full } else { Set::Reduced };
            let m = live::openssl_tls::measure(set, &mut |line| eprintln!("validate tls: {line}"))
                .context("the OpenSSL run")?;
            Ok((m, "the OpenSSL run".to_owned()))
        }
    }
}

fn run_tls(a: &RunArgs) -> anyhow::Result<ExitCode> {
    if a.profile.is_some() {
        bail!("--profile: applies to `validate strongswan` only (its storms run in the engine)");
    }
    if a.measurements.len() > 1 {
        let mut runs = Vec::new();
        for path in &a.measurements {
            let (m, origin) = tls_measurements(Some(path), false)?;
            match judge_tls(a, &m, &origin) {
                Ok(v) => runs.push((origin, v)),
                Err(refused) => return Ok(refused),
            }
        }
        return finish_across(a, &runs);
    }
    let (m, origin) = tls_measurements(a.measurements.first().map(PathBuf::as_path), a.full)?;
    save_measurements(a, &m)?;
    match judge_tls(a, &m, &origin) {
        Ok(v) => finish(a, &v),
        Err(refused) => Ok(refused),
    }
}

/// Judges the TLS measurements `m` (from `origin`): `Err(status)` when the run was too noisy
/// to judge (refused, [`too_noisy`] said why).
fn judge_tls(
    a: &RunArgs,
    m: &evidence::validate::tls::TlsMeasurements,
    origin: &str,
) -> Result<Validation, ExitCode> {
    let noisy = noise_gate(a, origin, m.noise.as_ref())?;
    let mut v = evidence::validate::tls::validate(m, m.set.as_str());
    judged_despite_noise(&mut v, noisy);
    Ok(v)
}

/// Writes the measurements where `--save-measurements` asks, as soon as they exist: a fit
/// that then refuses them (a host too noisy for a difference term) loses nothing, and
/// `validate --measurements FILE` gives the same answer again.
fn save_measurements<M: serde::Serialize>(a: &RunArgs, m: &M) -> anyhow::Result<()> {
    match &a.save_measurements {
        Some(p) => crate::output::write_set(&[(
            p.clone(),
            printer::json_pretty(m, "measurements")?.into_bytes(),
        )]),
        None => Ok(()),
    }
}

/// Writes the validation's JSON where `--json` asks, then prints.
fn finish(a: &RunArgs, v: &Validation) -> anyhow::Result<ExitCode> {
    if let Some(p) = &a.json {
        crate::output::write_set(&[(p.clone(), printer::validate::json(v)?.into_bytes())])?;
    }
    print(v, a.format)
}

/// Writes the verdicts across `runs` where `--json` asks, then prints them: exit 0 when every
/// row counted across the runs passes in each, 1 otherwise.
fn finish_across(a: &RunArgs, runs: &[(String, Validation)]) -> anyhow::Result<ExitCode> {
    let across = Across::of(runs);
    if let Some(p) = &a.json {
        crate::output::write_set(&[(
            p.clone(),
            printer::validate::across_json(&across)?.into_bytes(),
        )])?;
    }
    match a.format {
        OutFormat::Json => print!("{}", printer::validate::across_json(&across)?),
        OutFormat::Table => print!("{}", printer::validate::across_table(&across)),
    }
    Ok(if across.evidence.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print(v: &Validation, format: OutFormat) -> anyhow::Result<ExitCode> {
    match format {
        OutFormat::Json => print!("{}", printer::validate::json(v)?),
        OutFormat::Table => print!("{}", printer::validate::table(v)),
    }
    Ok(if v.evidence.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Writes `scripts` into a temporary directory, runs `main` with bash (`--out FILE --set SET
/// --partial PARTIAL`), passes its progress lines on to stderr, and returns the measurement
/// file's text. A script that skips (exit 77: not root, no apt-get, no network namespaces) is an
/// error naming why. A script that fails or is stopped half-way writes the rows it measured,
/// marked partial, to `partial_to` itself (so a `kill -9` of oransim, which the script sees as
/// its parent-death SIGTERM, keeps them too); the error names that file.
///
/// The script runs in a process group of its own, so that a terminal's Ctrl-C reaches oransim
/// only; SIGINT and SIGTERM to oransim are passed on to it ([`live::Forwarder`]), oransim
/// waits while its exit trap stops the daemons and removes the namespaces, then ends with
/// [`Interrupted`] (exit 130 or 143).
fn run_script(
    scripts: &[(&str, &str)],
    main: &str,
    set: &str,
    partial_to: Option<&std::path::Path>,
) -> anyhow::Result<String> {
    let dir = TempDir::new()?;
    for (name, text) in scripts {
        let path = dir.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot make {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    // Removed however oransim ends (a kill included); the script, sent SIGTERM when oransim
    // ends, stops its daemons and removes its namespaces in its exit trap.
    let _reaper = live::Reaper::new(&dir.0)?;
    let out = dir.0.join("measurements.json");
    let partial = match partial_to {
        Some(p) => p.to_path_buf(),
        None => dir.0.join("measurements.json.partial"),
    };
    // A partial file left by an earlier run is not this run's: only one written after the
    // start counts.
    let started = std::time::SystemTime::now();
    eprintln!("{main}: working in {}", dir.0.display());
    let forwarder = live::Forwarder::new()?;
    let mut bash = Command::new("bash");
    let mut child = {
        use std::os::unix::process::CommandExt as _;
        live::die_with_parent(&mut bash, libc::SIGTERM).process_group(0)
    }
    .arg(dir.0.join(main))
    .arg("--out")
    .arg(&out)
    .arg("--partial")
    .arg(&partial)
    .arg("--set")
    .arg(set)
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .context("cannot start bash to run the measurement script")?;
    forwarder.to(&child);
    let mut skipped = None;
    if let Some(err) = child.stderr.take() {
        for line in BufReader::new(err).lines() {
            let line = line.unwrap_or_default();
            if let Some(why) = line.strip_prefix("skipped: ") {
                skipped = Some(why.to_owned());
            }
            eprintln!("{line}");
        }
    }
    // No signal is passed on to a pid once waited for (it could be another process's by then);
    // one that comes in the meantime is still recorded.
    forwarder.stop();
    let status = child.wait().context("waiting for the measurement script")?;
    let signal = forwarder.received();
    drop(forwarder);
    let saved = partial_to.filter(|p| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= started)
    });
    if let Some(signal) = signal {
        return Err(Interrupted {
            signal,
            script: main.to_owned(),
            status: status.to_string(),
            saved: saved.map(std::path::Path::to_path_buf),
        }
        .into());
    }
    match status.code() {
        Some(0) => {}
        Some(77) => bail!(
            "cannot run {main} on this machine: {}",
            skipped.unwrap_or_else(|| "it skipped".into())
        ),
        _ => {
            if let Some(to) = saved {
                bail!(
                    "{main} failed ({status}); its output is above; the measurements it took before the failure are in {} (marked partial: validate and calibrate refuse it)",
                    to.display()
                );
            }
            bail!("{main} failed ({status}); its output is above")
        }
    }
    std::fs::read_to_string(&out).with_context(|| format!("cannot read {}", out.display()))
}

/// A measurement run stopped by SIGINT or SIGTERM to oransim (issue 39 #7): the script was
/// passed the signal and has cleaned up. `main` ends with exit status 128 + the signal's number
/// (130, 143), as a shell reports a process ended by it.
#[derive(Debug)]
pub(crate) struct Interrupted {
    /// The signal received (`libc::SIGINT`, `libc::SIGTERM`).
    pub signal: libc::c_int,
    /// The script that was running.
    script: String,
    /// How the script ended.
    status: String,
    /// Where the rows measured before the stop are (marked partial), if anywhere.
    saved: Option<PathBuf>,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "interrupted by {}: {} stopped ({}), its daemons, namespaces and temporary files removed; ",
            live::signal_name(self.signal),
            self.script,
            self.status
        )?;
        match &self.saved {
            Some(p) => write!(
                f,
                "the measurements taken so far are in {} (marked partial: validate and calibrate refuse it)",
                p.display()
            ),
            None => write!(
                f,
                "no measurement was kept (none taken yet, or nowhere to keep them: `validate --save-measurements FILE` keeps them in FILE.partial)"
            ),
        }
    }
}

impl std::error::Error for Interrupted {}

/// A temporary directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> anyhow::Result<TempDir> {
        let base = std::env::temp_dir();
        for i in 0..100u32 {
            let p = base.join(format!("oransim-validate-{}-{i}", std::process::id()));
            match std::fs::create_dir(&p) {
                Ok(()) => return Ok(TempDir(p)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e).context(format!("cannot make {}", p.display())),
            }
        }
        bail!("cannot make a temporary directory under {}", base.display())
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
