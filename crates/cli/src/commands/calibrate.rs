//! `oransim calibrate`: measure this host's crypto costs and write a calibration profile, or
//! import `openssl speed -mr -evp` output from a machine that has no Rust.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use crypto_bench::{Config, Implementation};
use profile::Term;

use crate::output::{StatusLine, check_writable, write_atomic};

/// Arguments of `oransim calibrate`.
#[derive(Debug, clap::Args)]
pub(crate) struct CalibrateArgs {
    /// One round of samples per point (under 30 s) instead of repeating until medians settle.
    #[arg(long)]
    pub quick: bool,
    /// Profile to write; the raw samples go beside it as `<stem>.samples.csv`.
    #[arg(long, value_name = "FILE", default_value = "this-host.toml")]
    pub out: PathBuf,
    /// Profile name (default: the output file's stem).
    #[arg(long)]
    pub name: Option<String>,
    /// Implementation to measure: `rustcrypto`, or `aws-lc-rs` (assembly AES-GCM,
    /// ChaCha20-Poly1305, X25519, ML-KEM; needs a build with `--features aws-lc`).
    #[arg(long, value_enum, default_value = "rustcrypto")]
    pub implementation: ImplementationFlag,
    /// Import `openssl speed -mr` output from FILE instead of measuring: ciphers (`-aead -evp
    /// <cipher>`), ESP's CBC + HMAC (`-evp aes-128-cbc` with `-hmac sha256` 24 B longer), GMAC
    /// (scripts/openssl-gmac.c), key exchange and signatures (`ecdhx25519 ecdsap256 ed25519
    /// rsa2048 rsa3072`); see docs/calibration.md section 5. Not with --quick, --implementation or
    /// --only, which choose what to measure.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["quick", "implementation", "only"])]
    pub from_openssl_speed: Option<PathBuf>,
    /// With --from-openssl-speed: the target's cores (openssl speed runs one thread) [default: 1].
    #[arg(long, value_name = "N", requires = "from_openssl_speed", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub cores: Option<u32>,
    /// With --from-openssl-speed: also measure the per-packet I/O cost here (loopback UDP, as
    /// `oransim calibrate` does; run it on the target). Without it the profile has no
    /// per-packet cost and `plan interface` refuses it.
    #[arg(long, requires = "from_openssl_speed")]
    pub measure_io: bool,
    /// Measure only ops whose name starts with PREFIX (repeatable), e.g. `--only aes128-gcm`.
    #[arg(long, value_name = "PREFIX")]
    pub only: Vec<String>,
    /// Calibrate a real implementation by running it on this host: `strongswan` (two charons
    /// in network namespaces, root; scripts/strongswan-bench.sh) or `openssl-tls` (`openssl
    /// s_server` and `s_time` on loopback). The profile gets its key-op
    /// and cipher costs from `openssl speed` (the library charon's openssl plugin uses), the
    /// loopback I/O cost, and an `[implementation]` section with the daemon's and data path's
    /// terms (docs/validation.md).
    #[arg(long, value_name = "IMPL", value_enum, conflicts_with_all = ["quick", "only", "from_openssl_speed"])]
    pub run: Option<RunImplementation>,
    /// With --run: fit to the measurements in FILE (from `oransim validate strongswan
    /// --save-measurements`) instead of running the implementation.
    #[arg(long, value_name = "FILE", requires = "run")]
    pub measurements: Option<PathBuf>,
}

// The choices' variants carry `//` comments, not doc comments: clap would print a doc comment
// as the value's help and change `--help`.

/// `--implementation`: the cipher library measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ImplementationFlag {
    // RustCrypto.
    Rustcrypto,
    // aws-lc-rs (a build with `--features aws-lc`).
    AwsLcRs,
}

/// `--run`: the real implementation calibrated by running it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum RunImplementation {
    // strongSwan's charon, two in network namespaces.
    Strongswan,
    // OpenSSL's `s_server` and `s_time` on loopback.
    OpensslTls,
}

/// Runs `oransim calibrate`.
pub(crate) fn execute(args: &CalibrateArgs) -> anyhow::Result<ExitCode> {
    let name = match &args.name {
        Some(n) if n.trim().is_empty() => {
            anyhow::bail!(
                "--name: an empty profile name; give a name, or leave --name out for the output file's stem"
            )
        }
        Some(n) => n.clone(),
        None => args
            .out
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty())
            .with_context(|| format!("cannot take a profile name from {}", args.out.display()))?,
    };
    if let Some(input) = &args.from_openssl_speed {
        return import_openssl(input, &name, &args.out, args);
    }
    if args.run.is_some() {
        return run_implementation(&name, &args.out, args);
    }
    let mut config = if args.quick {
        Config::quick(&name)
    } else {
        Config::full(&name)
    };
    config.implementation = match args.implementation {
        ImplementationFlag::AwsLcRs => Implementation::AwsLc,
        ImplementationFlag::Rustcrypto => Implementation::RustCrypto,
    };
    config.only = args.only.clone();
    let csv_path = samples_path(&args.out);
    // A measurement takes seconds to minutes: find an unwritable output before it, not after.
    check_writable(&args.out).context("--out")?;
    check_writable(&csv_path).context("--out (its samples file)")?;
    config.raw_samples_file = csv_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());

    // Progress for a person watching; a log gets the summary only.
    let status = StatusLine::new("measuring ");
    let cal = crypto_bench::run(&config, &mut |what| status.show(what)).map_err(|e| {
        let flag = match e {
            crypto_bench::BenchError::NothingSelected { .. } => "--only",
            _ => "calibration failed",
        };
        anyhow::Error::new(e).context(flag)
    })?;
    status.clear();
    eprintln!(
        "measured {} points in {:.1} s",
        cal.points.len(),
        cal.wall_time.as_secs_f64()
    );

    // Validated before anything is written: a profile that would not load is never on disk.
    let text = profile::to_toml_string(&cal.profile)?;
    let profile = profile::Profile::from_file(cal.profile, &args.out.display().to_string())?;
    write_atomic(&args.out, text.as_bytes())?;
    write_atomic(&csv_path, cal.samples_csv.as_bytes())?;

    print_summary(&profile)?;
    eprintln!("wrote {} and {}", args.out.display(), csv_path.display());
    println!("noise: {}", cal.noise_note);
    if cal.noisy {
        eprintln!(
            "warning: the machine was too noisy for these costs to be trusted ({}); re-run when it is idle",
            cal.noise_note
        );
    }
    for p in cal.sanity_problems.iter().filter(|p| !p.severe) {
        eprintln!("WARNING: {p} (recorded in the profile)");
    }
    if cal.sanity_problems.iter().any(|p| p.severe) {
        eprintln!(
            "error: this build's results are pathological; the profile is marked FLAGGED and must not be used:"
        );
        for p in cal.sanity_problems.iter().filter(|p| p.severe) {
            eprintln!("  - {p}");
        }
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn samples_path(out: &Path) -> PathBuf {
    let stem = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "profile".into());
    out.with_file_name(format!("{stem}.samples.csv"))
}

fn import_openssl(
    input: &Path,
    name: &str,
    out: &Path,
    args: &CalibrateArgs,
) -> anyhow::Result<ExitCode> {
    let text = profile::read::read_input_text(input, profile::read::Input::OpensslSpeed)
        .with_context(|| format!("--from-openssl-speed: cannot read {}", input.display()))?;
    let io = if args.measure_io {
        let status = StatusLine::new("measuring ");
        status.show("per-packet I/O (loopback UDP)");
        let io = crypto_bench::udp_loopback(11)
            .context("--measure-io: cannot measure loopback UDP on this machine")?;
        status.clear();
        Some(io)
    } else {
        None
    };
    let opts = crypto_bench::openssl::ImportOptions {
        cores: args.cores,
        io,
    };
    let file = crypto_bench::openssl::import(&text, &input.display().to_string(), name, &opts)
        .context("--from-openssl-speed")?;
    let toml = profile::to_toml_string(&file)?;
    let profile = profile::Profile::from_file(file, &out.display().to_string())?;
    check_writable(out).context("--out")?;
    write_atomic(out, toml.as_bytes())?;
    print_summary(&profile)?;
    eprintln!(
        "wrote {} (imported from {})",
        out.display(),
        input.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `calibrate --run strongswan`: the measurements (run now, or read), OpenSSL's costs from
/// their `speed` workload, the loopback I/O cost measured here, and the fitted terms.
fn run_implementation(name: &str, out: &Path, args: &CalibrateArgs) -> anyhow::Result<ExitCode> {
    check_writable(out).context("--out")?;
    if args.run == Some(RunImplementation::OpensslTls) {
        return run_tls(name, out, args);
    }
    // A bench stopped or failing half-way keeps what it measured beside the profile, where a
    // fit that refuses keeps a whole set (`keep_measurements`), marked partial (issue 39 #7).
    let partial = out.with_extension("measurements.json.partial");
    let (m, ops, origin) = super::validate::strongswan_measurements(
        args.measurements.as_deref(),
        false,
        Some(&partial),
    )?;
    let io =
        crypto_bench::udp_loopback(11).context("cannot measure loopback UDP on this machine")?;
    let file = super::validate::strongswan_profile(&m, &ops, &origin, name, Some(io))
        .map_err(|e| keep_measurements(e, out, args, &m))?;
    let toml = profile::to_toml_string(&file)?;
    let profile = profile::Profile::from_file(file, &out.display().to_string())?;
    write_atomic(out, toml.as_bytes())?;
    print_summary(&profile)?;
    if profile.term(Term::IkeChildSaInstall).is_none() {
        eprintln!(
            "note: {origin} has no per-exchange times or no `child` workload (written before scripts/strongswan-bench.sh recorded them): the profile has no `{}` nor `ike.exchange.*` terms",
            Term::IkeChildSaInstall
        );
    }
    eprintln!(
        "wrote {} (strongSwan {} measured by running it)",
        out.display(),
        m.strongswan
    );
    Ok(ExitCode::SUCCESS)
}

/// A fit that refused measurements this run took (minutes of real daemons): they are written
/// beside `out` (`NAME.measurements.json`, the committed profiles' convention) and the error
/// says so, so a re-run with `--measurements` needs no second run. Measurements read from a
/// file are already kept.
fn keep_measurements<M: serde::Serialize>(
    e: anyhow::Error,
    out: &Path,
    args: &CalibrateArgs,
    m: &M,
) -> anyhow::Error {
    if args.measurements.is_some() {
        return e;
    }
    let keep = out.with_extension("measurements.json");
    let saved = (|| -> anyhow::Result<()> {
        let text = printer::json_pretty(m, "measurements")?;
        check_writable(&keep)?;
        write_atomic(&keep, text.as_bytes())
    })();
    match saved {
        Ok(()) => e.context(format!(
            "the measurements are kept in {}: `--measurements {}` fits them again without running",
            keep.display(),
            keep.display()
        )),
        Err(w) => e.context(format!("the measurements could not be kept either: {w:#}")),
    }
}

/// `calibrate --run openssl-tls`: OpenSSL's costs from the run's `openssl speed`, the loopback
/// I/O cost, and the TLS terms.
fn run_tls(name: &str, out: &Path, args: &CalibrateArgs) -> anyhow::Result<ExitCode> {
    let (m, origin) = super::validate::tls_measurements(args.measurements.as_deref(), false)?;
    let io =
        crypto_bench::udp_loopback(11).context("cannot measure loopback UDP on this machine")?;
    let opts = crypto_bench::openssl::ImportOptions {
        cores: Some(m.host_cores.max(1)),
        io: Some(io),
    };
    let mut file =
        crypto_bench::openssl::import(&m.speed.output, &format!("{origin}: speed"), name, &opts)
            .with_context(|| format!("{origin}: the `speed` output"))?;
    file.profile.description = Some(format!(
        "{} TLS 1.3 measured on this host by running it (s_server, s_time on loopback): key ops and ciphers from openssl speed, I/O per packet from loopback UDP, the handshake and record terms in [implementation]",
        m.openssl_version
    ));
    file.node.cores.source = "logical CPUs of the host the OpenSSL run measured".into();
    file.implementation = Some(evidence::validate::tls::implementation_file(&m));
    let toml = profile::to_toml_string(&file)?;
    let profile = profile::Profile::from_file(file, &out.display().to_string())?;
    write_atomic(out, toml.as_bytes())?;
    print_summary(&profile)?;
    eprintln!(
        "wrote {} ({} measured by running it)",
        out.display(),
        m.openssl_version
    );
    Ok(ExitCode::SUCCESS)
}

fn print_summary(p: &profile::Profile) -> anyhow::Result<()> {
    Ok(crate::format::print(&printer::calibrate::summary(p))?)
}
