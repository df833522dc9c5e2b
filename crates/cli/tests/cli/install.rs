//! Installing oransim as a tool (issue 16): `oransim completions <shell>` completes every
//! subcommand, and `oransim man` writes man pages that render.

use std::process::Command;

use crate::common::{TempDir, oransim, stdout};

/// Every subcommand, nested ones by their last word, as `oransim --help` and `plan --help`,
/// `init --help` list them.
const SUBCOMMANDS: &[&str] = &[
    "run",
    "check",
    "init",
    "fronthaul",
    "e2",
    "ric-restart",
    "overhead",
    "handshake",
    "calibrate",
    "plan",
    "kex",
    "interface",
    "sweep",
    "reproduce",
    "live",
    "completions",
    "man",
];

#[test]
fn bash_completion_knows_every_subcommand_and_flag() {
    let script = stdout(&["completions", "bash"]);
    assert!(script.contains("complete -F _oransim"), "{script:.200}");
    for sub in SUBCOMMANDS {
        assert!(
            script.contains(&format!(" {sub} ")) || script.contains(&format!(" {sub}\"")),
            "bash completion lacks the subcommand {sub}"
        );
    }
    for flag in ["--mtu", "--payload", "--plots", "--profile", "--vary"] {
        assert!(script.contains(flag), "bash completion lacks {flag}");
    }
}

#[test]
fn every_shell_gets_a_script_and_an_unknown_shell_is_refused() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout(&["completions", shell]);
        assert!(
            script.contains("oransim") && script.contains("reproduce"),
            "{shell}"
        );
    }
    let out = oransim(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tcsh") && err.contains("bash"), "{err}");
}

/// The roff sections a man page needs, in order.
fn assert_sections(roff: &str, name: &str) {
    assert!(
        roff.contains(&format!(".TH {name} 1")),
        "{name}: {roff:.300}"
    );
    let mut at = 0;
    for section in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH DESCRIPTION",
        ".SH OPTIONS",
        ".SH \"EXIT STATUS\"",
        ".SH EXAMPLES",
    ] {
        let i = roff[at..]
            .find(section)
            .unwrap_or_else(|| panic!("{name}: no {section} after byte {at}"));
        at += i;
    }
}

#[test]
fn man_pages_have_their_sections_and_render() {
    let top = stdout(&["man"]);
    assert_sections(&top, "oransim");
    assert!(top.contains(".SH SUBCOMMANDS") && top.contains("oransim\\-reproduce(1)"));
    let dir = TempDir::new("man");
    let listed = stdout(&["man", "--out", dir.to_str().expect("utf-8 path")]);
    for name in ["oransim", "oransim-run", "oransim-plan-kex", "oransim-man"] {
        let path = dir.join(format!("{name}.1"));
        assert!(listed.contains(path.to_str().expect("utf-8")), "{listed}");
        let roff = std::fs::read_to_string(&path).expect("a page");
        assert_sections(&roff, name);
    }
    let kex = std::fs::read_to_string(dir.join("oransim-plan-kex.1")).expect("plan kex");
    assert!(kex.contains("\\-\\-mtu"), "{kex:.400}");
    // Rendered by man(1) where it is installed (CI images may lack it): no warnings, and the
    // page shows the flags.
    let rendered = Command::new("man")
        .env("MANWIDTH", "80")
        .args(["--warnings", "-l"])
        .arg(dir.join("oransim-plan-kex.1"))
        .output();
    match rendered {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                text.contains("--profile") && text.contains("SYNOPSIS"),
                "{text}"
            );
            assert!(
                out.stderr.is_empty(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(out) => panic!("man -l failed: {}", String::from_utf8_lossy(&out.stderr)),
        Err(e) => eprintln!("man(1) is not installed ({e}); checked the roff sections only"),
    }
}

/// The checkout's root, where `common::oransim` runs the binary.
fn repo() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Stdout, stderr and exit code of `bin args` run in `dir`, with `TMPDIR` set to `tmp`.
fn run_in(
    bin: &std::path::Path,
    dir: &std::path::Path,
    tmp: &std::path::Path,
    args: &[&str],
) -> (String, String, i32) {
    // A binary just copied can be busy for a moment: a process another test thread forks while
    // the copy's file is open for writing holds that descriptor until it execs (ETXTBSY).
    let mut tries = 0;
    let out = loop {
        match Command::new(bin)
            .current_dir(dir)
            .env("TMPDIR", tmp)
            .args(args)
            .output()
        {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 100 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => break other.expect("run the installed oransim"),
        }
    };
    (
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
        out.status.code().expect("an exit code"),
    )
}

/// A simulation's output with its wall-clock figures scrubbed (`common::scrub_wall_clock`).
fn scrubbed(text: &str) -> String {
    text.lines()
        .map(|l| crate::common::scrub_wall_clock(l).unwrap_or_else(|| l.to_owned()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Issue 25: the binary, installed by copying it alone into `PREFIX/bin` (what `cargo install`
/// puts there; the test copies the built test binary rather than building a release one), runs
/// the README's tour from an empty directory: `init` writes the profile its scenario names from
/// its built-in copy, `run` runs that scenario, `plan kex` reads the profile `init` wrote, and
/// `reproduce --only` runs from files it carries, leaving no scratch files behind. Each output
/// is the checkout's, byte for byte (the `run:` line's wall-clock figures aside).
#[test]
fn the_installed_binary_runs_the_tour_from_an_empty_directory() {
    let prefix = TempDir::new("install-prefix");
    std::fs::create_dir(prefix.join("bin")).expect("PREFIX/bin");
    let bin = prefix.join("bin/oransim");
    std::fs::copy(env!("CARGO_BIN_EXE_oransim"), &bin).expect("install the binary");
    let work = TempDir::new("install-work");
    let tmp = TempDir::new("install-tmp");
    let ok = |args: &[&str]| {
        let (out, err, code) = run_in(&bin, &work, &tmp, args);
        assert_eq!(code, 0, "oransim {args:?} in an empty directory: {err}");
        (out, err)
    };

    // init e2 writes the scenario the checkout's init writes, and the profile it names.
    let (out, err) = ok(&["init", "e2", "--gnbs", "3", "--out", "e2.toml"]);
    assert_eq!(out, "");
    assert!(
        err.contains("wrote calibration/colosseum-e2.toml"),
        "init says what it wrote: {err}"
    );
    let scenario = std::fs::read_to_string(work.join("e2.toml")).expect("e2.toml");
    assert_eq!(scenario, stdout(&["init", "e2", "--gnbs", "3"]));
    let profile = "calibration/colosseum-e2.toml";
    assert_eq!(
        std::fs::read(work.join(profile)).expect("the written profile"),
        std::fs::read(repo().join(profile)).expect("the checkout's profile")
    );

    // run: the same scenario beside a copy of the checkout's profile gives the same report.
    let (ran, _) = ok(&["run", "e2.toml"]);
    let beside = TempDir::new("install-checkout");
    std::fs::create_dir(beside.join("calibration")).expect("calibration/");
    std::fs::copy(repo().join(profile), beside.join(profile)).expect("copy the profile");
    std::fs::write(beside.join("e2.toml"), &scenario).expect("e2.toml");
    let (there, err, code) = run_in(
        std::path::Path::new(env!("CARGO_BIN_EXE_oransim")),
        &beside,
        &tmp,
        &["run", "e2.toml"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(ran.contains("kpm3"), "{ran}");
    assert_eq!(scrubbed(&ran), scrubbed(&there));

    // init ric-restart writes calibration/dev-host-aws-lc.toml; plan kex reads it as in the
    // checkout.
    ok(&["init", "ric-restart", "--gnbs", "10", "--out", "r.toml"]);
    let kex = [
        "plan",
        "kex",
        "--profile",
        "calibration/dev-host-aws-lc.toml",
    ];
    assert_eq!(ok(&kex).0, stdout(&kex));

    // reproduce --only: the same table and exit status as in the checkout (1 while a
    // published number is missed), and its scratch copy of the data files removed.
    let only = ["reproduce", "--only", "e2_sack"];
    let (table, err, code) = run_in(&bin, &work, &tmp, &only);
    let checkout = oransim(&only);
    assert_eq!(Some(code), checkout.status.code(), "{err}");
    assert!(err.contains("using the files built into oransim"), "{err}");
    assert_eq!(table, String::from_utf8(checkout.stdout).expect("utf-8"));
    assert!(table.contains("e2_sack"), "{table}");
    let left: Vec<_> = std::fs::read_dir(&*tmp).expect("TMPDIR").collect();
    assert!(left.is_empty(), "scratch left in TMPDIR: {left:?}");

    // The empty directory now holds what the tour wrote, and nothing else.
    let mut names: Vec<String> = std::fs::read_dir(&*work)
        .expect("the work directory")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    assert_eq!(names, ["calibration", "e2.toml", "r.toml"]);
}

/// Issue 25: outside a checkout, `init` that cannot write the built-in profile (here
/// `calibration` is a regular file) is refused naming the profile, writes nothing and leaves
/// the file as it was; a refused scenario takes its profile copy away again.
#[test]
fn init_outside_a_checkout_writes_nothing_when_refused() {
    let work = TempDir::new("install-refused");
    std::fs::write(work.join("calibration"), "mine\n").expect("a file named calibration");
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_oransim"));
    let (out, err, code) = run_in(bin, &work, &work, &["init", "e2", "--out", "e2.toml"]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.starts_with(
            "error: --profile calibration/colosseum-e2.toml: cannot write oransim's built-in copy"
        ),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(work.join("calibration")).unwrap(),
        "mine\n"
    );
    assert!(!work.join("e2.toml").exists());

    let work = TempDir::new("install-refused-ke");
    let args = ["init", "ric-restart", "--ke", "bogus", "--out", "r.toml"];
    let (_, err, code) = run_in(bin, &work, &work, &args);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--ke"), "{err}");
    assert_eq!(std::fs::read_dir(&*work).unwrap().count(), 0, "{err}");
}

/// Issue 25: outside a checkout, `plan --profile calibration/NAME.toml` reads oransim's
/// built-in copy of that profile (said on stderr) and prints what the checkout's plan prints;
/// it writes nothing in the directory and leaves no scratch file; a profile the binary does
/// not carry is still refused naming `--profile`.
#[test]
fn plan_reads_a_built_in_profile_outside_a_checkout() {
    let prefix = TempDir::new("plan-builtin-prefix");
    let bin = prefix.join("oransim");
    std::fs::copy(env!("CARGO_BIN_EXE_oransim"), &bin).expect("install the binary");
    let work = TempDir::new("plan-builtin-work");
    let tmp = TempDir::new("plan-builtin-tmp");
    let plans: [&[&str]; 3] = [
        &[
            "plan",
            "kex",
            "--profile",
            "calibration/dev-host-aws-lc.toml",
            "--ke",
            "x25519,mlkem768",
        ],
        &[
            "plan",
            "fronthaul",
            "--profile",
            "calibration/dev-host-rustcrypto.toml",
            "--compare",
            "calibration/ofh-macsec-i9.toml",
        ],
        &[
            "plan",
            "interface",
            "--interface",
            "E2",
            "--profile",
            "calibration/colosseum-e2.toml",
            "--rate",
            "3.5Mbps",
            "--format",
            "json",
        ],
    ];
    for args in plans {
        let (out, err, code) = run_in(&bin, &work, &tmp, args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert_eq!(out, stdout(args), "{args:?}");
        assert!(
            err.contains("--profile calibration/")
                && err.contains("no such file here; using oransim's built-in copy"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(std::fs::read_dir(&*work).unwrap().count(), 0, "wrote here");
    assert_eq!(std::fs::read_dir(&*tmp).unwrap().count(), 0, "scratch left");
    let (out, err, code) = run_in(
        &bin,
        &work,
        &tmp,
        &["plan", "kex", "--profile", "calibration/none.toml"],
    );
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains("--profile") && err.contains("calibration/none.toml"),
        "{err}"
    );
}
