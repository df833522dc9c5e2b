//! `oransim init SHAPE`: write a scenario for a named O-RAN shape (fronthaul, E2, a RIC-restart
//! storm) from a few numbers, checked as `oransim check` checks a file; see
//! [`whatif::generate`].

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::values::FlagError;
use anyhow::Context as _;
use clap::Subcommand;
use profile::units::Quantity;
use protocols::Suite;
use whatif::generate::{E2Shape, FronthaulShape, Placement, RicRestartShape, Shape};

/// Arguments of `oransim init`.
#[derive(Debug, clap::Args)]
pub(crate) struct InitArgs {
    #[command(subcommand)]
    shape: ShapeArgs,
}

#[derive(Debug, Subcommand)]
enum ShapeArgs {
    /// Open Fronthaul: O-DUs x O-RUs per O-DU behind switches, eCPRI in MACsec (or none).
    Fronthaul(FronthaulArgs),
    /// E2: N gNBs, each over its own link, sending KPM reports to one near-RT RIC in ESP.
    E2(E2Args),
    /// A RIC restart: N gNBs re-establish their IKEv2 tunnels with the RIC at once.
    RicRestart(RicRestartArgs),
}

/// Flags every shape has.
#[derive(Debug, clap::Args)]
struct Common {
    /// Write the scenario here (replacing a regular file) instead of printing it; `-` prints it
    /// (standard output), as without --out.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Calibration profile of every node; written relative to --out's directory. A path under
    /// calibration/ that is absent here is written from oransim's built-in copy.
    #[arg(long)]
    profile: Option<PathBuf>,
}

/// `oransim init fronthaul`.
#[derive(Debug, clap::Args)]
struct FronthaulArgs {
    #[command(flatten)]
    common: Common,
    /// O-DUs.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    dus: u32,
    /// O-RUs per O-DU.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    rus_per_du: u32,
    /// Switches between each O-DU and its O-RUs.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=64))]
    switches: u32,
    /// Latency of each switch.
    #[arg(long, default_value = "5us", value_parser = crate::values::DURATION)]
    switch_latency: Quantity,
    /// Fibre length from each O-DU to its first hop.
    #[arg(long, default_value = "10km", value_parser = crate::values::LENGTH)]
    fibre: Quantity,
    /// Rate of every link.
    #[arg(long, default_value = "25Gbps", value_parser = crate::values::RATE)]
    rate: Quantity,
    /// eCPRI payload bit rate per O-RU.
    #[arg(long, default_value = "200Mbps", value_parser = crate::values::RATE)]
    load: Quantity,
    /// eCPRI payload of each frame (7660 B makes the 7678 B frame of 000 §3.2).
    #[arg(long, default_value = "7660B", value_parser = crate::values::SIZE)]
    payload: Quantity,
    /// Security mode: none, macsec-integrity, macsec-encrypt, ipsec.
    #[arg(long, default_value = "macsec-encrypt")]
    mode: String,
    /// O-DU cores (default: the profile's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    du_cores: Option<u32>,
    /// Simulated time the O-DUs send for.
    #[arg(long, default_value = "10ms", value_parser = crate::values::DURATION)]
    duration: Quantity,
}

/// `oransim init e2`.
#[derive(Debug, clap::Args)]
struct E2Args {
    #[command(flatten)]
    common: Common,
    /// gNBs.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    gnbs: u32,
    /// KPM load per gNB (E2AP payload bit rate).
    #[arg(long, default_value = "10kbps", value_parser = crate::values::RATE)]
    load: Quantity,
    /// E2AP message payloads, cycled with equal weight.
    #[arg(long, value_delimiter = ',', default_value = "195B,1425B", value_parser = crate::values::SIZE)]
    sizes: Vec<Quantity>,
    /// ESP cipher suite, or none for plaintext SCTP (a bad name lists them all).
    #[arg(long, default_value = "aes256-cbc-hmac-sha256", value_parser = parse_suite)]
    suite: SuiteOrNone,
    /// RIC cores (default: the profile's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    ric_cores: Option<u32>,
    /// Rate of each gNB's link.
    #[arg(long, default_value = "10Gbps", value_parser = crate::values::RATE)]
    rate: Quantity,
    /// Length of each gNB's link.
    #[arg(long, default_value = "1km", value_parser = crate::values::LENGTH)]
    length: Quantity,
    /// Simulated time the gNBs send for.
    #[arg(long, default_value = "1s", value_parser = crate::values::DURATION)]
    duration: Quantity,
}

/// `oransim init ric-restart`.
#[derive(Debug, clap::Args)]
struct RicRestartArgs {
    #[command(flatten)]
    common: Common,
    /// gNBs re-establishing their tunnels at once.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    gnbs: u32,
    /// IKEv2 tunnels per gNB.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    tunnels: u32,
    /// Key exchange (e.g. x25519, mlkem768, x25519+mlkem768).
    #[arg(long, default_value = "mlkem768")]
    ke: String,
    /// Authentication: psk, ed25519, ecdsa-p256, rsa2048, rsa3072, mldsa44, mldsa65, mldsa87
    /// (the profiles must hold its sign and verify costs: `oransim calibrate` measures all of
    /// them; profiles made before 2026-11-24 have no RSA).
    #[arg(long, default_value = "ed25519")]
    auth: String,
    /// RIC cores (default: the profile's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    ric_cores: Option<u32>,
    /// Rate of each gNB's link.
    #[arg(long, default_value = whatif::generate::GNB_LINK_RATE, value_parser = crate::values::RATE)]
    rate: Quantity,
    /// Length of each gNB's link.
    #[arg(long, default_value = whatif::generate::GNB_LINK_LENGTH, value_parser = crate::values::LENGTH)]
    length: Quantity,
    /// MTU of each gNB's link (IKE messages are fragmented to it): 68 B to 65535 B.
    #[arg(long, default_value = whatif::generate::GNB_LINK_MTU, value_parser = crate::values::MTU)]
    mtu: Quantity,
    /// Where the IKE daemons run: `separate` (every gNB its own machine, the RIC alone),
    /// `initiators` (every tunnel from one initiator daemon on a host of --initiator-cores
    /// cores, the RIC alone on --ric-cores: the bench with each daemon pinned to its cores) or
    /// `shared` (one initiator daemon and the RIC on one host of --ric-cores cores: the bench
    /// with both daemons on one machine).
    #[arg(long, default_value = "separate", value_parser = parse_placement)]
    placement: Placement,
    /// Cores of the initiators' host with `--placement initiators` (default: the profile's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    initiator_cores: Option<u32>,
    /// Packet loss probability each way on each gNB's link, from 0 to below 1 (e.g. 0.01);
    /// requests are retransmitted as strongSwan does by default (4 s, base 1.8, 5 tries), as
    /// with `plan kex --loss`.
    #[arg(long, default_value_t = 0.0)]
    loss: f64,
    /// `child`: instead of setting the tunnels up, every tunnel rekeys its Child SA at once over
    /// its established IKE SA (CREATE_CHILD_SA, then the old Child SA's deletion), as when the
    /// rekey timers fire together; the scenario is named `ric-rekey`.
    #[arg(long, value_enum)]
    rekey: Option<Rekey>,
}

/// `--rekey`: what a storm rekeys instead of setting the tunnels up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Rekey {
    // Each tunnel's Child SA (a `//` comment: clap would print a doc comment as the value's
    // help and change `--help`).
    Child,
}

/// `--placement`: one of [`Placement::NAMES`].
pub(crate) fn parse_placement(text: &str) -> Result<Placement, FlagError> {
    Placement::parse(text).ok_or_else(|| FlagError::of(format!("one of: {}", Placement::NAMES)))
}

/// A cipher suite, or `None` for `--suite none`.
#[derive(Debug, Clone, Copy)]
struct SuiteOrNone(Option<Suite>);

/// `--suite`: `none` or a suite name; the error lists the allowed names.
fn parse_suite(text: &str) -> Result<SuiteOrNone, FlagError> {
    if text.trim().eq_ignore_ascii_case("none") {
        return Ok(SuiteOrNone(None));
    }
    text.parse()
        .map(|s| SuiteOrNone(Some(s)))
        .map_err(|e: protocols::Error| {
            FlagError::of(format!(
                "{}; or none (plaintext SCTP)",
                crate::values::suite_error(e)
            ))
        })
}

/// Runs `oransim init`: builds the shape, validates it where it will be written, and writes it
/// to `--out` atomically or prints it. Outside a checkout, the profile it names is first written
/// from the binary's built-in copy, so the scenario runs where it is.
pub(crate) fn execute(args: &InitArgs) -> anyhow::Result<ExitCode> {
    let (shape, common) = shape(&args.shape);
    let profile = common
        .profile
        .clone()
        .unwrap_or_else(|| PathBuf::from(default_profile(&args.shape)));
    let copied = BuiltinCopy::write_if_absent(&profile)?;
    let written = generate_and_write(&shape, common);
    match (&written, copied) {
        // No half-written output: a refused scenario leaves no profile behind either.
        (Err(_), Some(copy)) => copy.remove(),
        (Ok(_), Some(copy)) => eprintln!(
            "wrote {} (the profile the scenario names, oransim's built-in copy)",
            copy.file.display()
        ),
        (_, None) => {}
    }
    written
}

/// The path of the shape's default profile, relative to the current directory.
fn default_profile(args: &ShapeArgs) -> String {
    match args {
        ShapeArgs::Fronthaul(_) => FronthaulShape::default().profile,
        ShapeArgs::E2(_) => E2Shape::default().profile,
        ShapeArgs::RicRestart(_) => RicRestartShape::default().profile,
    }
}

/// A profile written from the binary's built-in copy (`crate::builtin`) because the path a
/// scenario names (`calibration/NAME.toml`, relative to the current directory) held nothing.
struct BuiltinCopy {
    file: PathBuf,
    /// The directory made for it, removed with it if the scenario is not written.
    made_dir: Option<PathBuf>,
}

impl BuiltinCopy {
    /// Writes the built-in copy of `profile` if nothing is at that path and the binary carries
    /// it (a relative path under `calibration/`); otherwise leaves everything as it is.
    fn write_if_absent(profile: &Path) -> anyhow::Result<Option<BuiltinCopy>> {
        if profile.is_absolute() || std::fs::symlink_metadata(profile).is_ok() {
            return Ok(None);
        }
        let Some(bytes) = crate::builtin::file(profile) else {
            return Ok(None);
        };
        let dir = profile.parent().unwrap_or(Path::new("."));
        let made_dir = if dir.as_os_str().is_empty() || dir.exists() {
            None
        } else {
            std::fs::create_dir_all(dir).with_context(|| {
                format!(
                    "--profile {}: cannot create {} for oransim's built-in copy",
                    profile.display(),
                    dir.display()
                )
            })?;
            Some(dir.to_path_buf())
        };
        let copy = BuiltinCopy {
            file: profile.to_path_buf(),
            made_dir,
        };
        if let Err(e) = crate::output::write_atomic(profile, bytes) {
            copy.remove();
            return Err(e.context(format!(
                "--profile {}: cannot write oransim's built-in copy",
                profile.display()
            )));
        }
        Ok(Some(copy))
    }

    /// Removes the copy and the directory made for it (if still empty).
    fn remove(self) {
        let _ = std::fs::remove_file(&self.file);
        if let Some(dir) = self.made_dir {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

impl Common {
    /// The file `--out` names; `None` to print (no `--out`, or `--out -`: standard output, not
    /// a file named `-`).
    fn out(&self) -> Option<&PathBuf> {
        self.out.as_ref().filter(|p| p.as_os_str() != "-")
    }
}

/// Generates the scenario, validated where it will be written, and writes or prints it.
fn generate_and_write(shape: &Shape, common: &Common) -> anyhow::Result<ExitCode> {
    // The file's relative profile path is resolved from the file's directory; printed, the
    // file is read from the current one.
    let origin = match common.out() {
        Some(out) => out.clone(),
        None => PathBuf::from(format!("oransim init {}", shape.name())),
    };
    let file = shape.generate(&origin)?;
    let text = file
        .to_toml_string()
        .context("cannot write the scenario as TOML")?;
    match common.out() {
        Some(out) => crate::output::write_atomic(out, text.as_bytes())
            .with_context(|| format!("--out {}", out.display()))?,
        None => crate::format::print(&text)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The shape the flags describe, with the profile written relative to `--out`.
fn shape(args: &ShapeArgs) -> (Shape, &Common) {
    let profile = |c: &Common, default: &str| {
        let given = c.profile.clone().unwrap_or_else(|| PathBuf::from(default));
        let text = match c.out() {
            Some(out) => relative_to_dir_of(&given, out),
            None => given,
        };
        text.display().to_string()
    };
    match args {
        ShapeArgs::Fronthaul(a) => (
            Shape::Fronthaul(FronthaulShape {
                dus: a.dus,
                rus_per_du: a.rus_per_du,
                switches: a.switches,
                switch_latency: a.switch_latency.clone(),
                fibre: a.fibre.clone(),
                rate: a.rate.clone(),
                load: a.load.clone(),
                payload: a.payload.clone(),
                mode: a.mode.clone(),
                profile: profile(&a.common, &FronthaulShape::default().profile),
                du_cores: a.du_cores,
                duration: a.duration.clone(),
            }),
            &a.common,
        ),
        ShapeArgs::E2(a) => (
            Shape::E2(E2Shape {
                gnbs: a.gnbs,
                load: a.load.clone(),
                sizes: a.sizes.clone(),
                suite: a.suite.0,
                profile: profile(&a.common, &E2Shape::default().profile),
                ric_cores: a.ric_cores,
                rate: a.rate.clone(),
                length: a.length.clone(),
                duration: a.duration.clone(),
            }),
            &a.common,
        ),
        ShapeArgs::RicRestart(a) => (
            Shape::RicRestart(RicRestartShape {
                gnbs: a.gnbs,
                tunnels: a.tunnels,
                ke: a.ke.clone(),
                auth: a.auth.clone(),
                profile: profile(&a.common, &RicRestartShape::default().profile),
                ric_cores: a.ric_cores,
                rate: a.rate.clone(),
                length: a.length.clone(),
                mtu: a.mtu.clone(),
                placement: a.placement,
                initiator_cores: a.initiator_cores,
                loss: a.loss,
                rekey: a.rekey == Some(Rekey::Child),
            }),
            &a.common,
        ),
    }
}

/// `path` (relative to the current directory, or absolute) as a path relative to the directory
/// of `file`, so the file names it wherever both are; an absolute `path` stays absolute. Both
/// are made absolute and normalised lexically (`a/../b` is `b`; symbolic links are not
/// followed, so the result is exact unless a `..` crosses one).
fn relative_to_dir_of(path: &Path, file: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    let (Ok(target), Ok(file)) = (std::path::absolute(path), std::path::absolute(file)) else {
        return path.to_path_buf();
    };
    let target = crate::page::normal(&target);
    let dir = crate::page::normal(file.parent().unwrap_or(Path::new("/")));
    let common = target
        .components()
        .zip(dir.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = PathBuf::new();
    for _ in dir.components().skip(common) {
        out.push("..");
    }
    for c in target.components().skip(common) {
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_is_written_relative_to_the_output_directory() {
        let r = |p: &str, f: &str| relative_to_dir_of(Path::new(p), Path::new(f));
        assert_eq!(
            r("calibration/x.toml", "scenarios/a.toml"),
            Path::new("../calibration/x.toml")
        );
        assert_eq!(
            r("calibration/x.toml", "a.toml"),
            Path::new("calibration/x.toml")
        );
        assert_eq!(
            r("./calibration/../calibration/x.toml", "out/deep/a.toml"),
            Path::new("../../calibration/x.toml")
        );
        assert_eq!(r("/abs/x.toml", "out/a.toml"), Path::new("/abs/x.toml"));
        assert!(!r("x.toml", "/elsewhere/a.toml").is_absolute());
    }
}
