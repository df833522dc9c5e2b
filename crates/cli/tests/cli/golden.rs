//! Golden outputs (issue 15): the README tour, `oransim reproduce`, every scenario's run, the
//! plans of docs/plan.md and a sweep, byte for byte, so that a refactor that changes any of them
//! fails here and has to say why.
//!
//! Each case runs the real binary from the repository root and compares its stdout, then its
//! stderr (after a line `stderr:`, when there is any) and a line `exit N`, with `tests/golden/NAME.out`. Wall-clock figures (`wall_s`, `events_per_s`
//! and the `run:` line's seconds and events/s) are replaced by `*` first: they are the only
//! parts of these outputs that differ between two runs.
//!
//! After a change that is meant to alter an output, regenerate the files with
//! `ORANSIM_BLESS=1 cargo test -p oransim --test cli golden::` and review the diff: the commit that
//! changes a golden file says why.

#[allow(dead_code)] // golden.rs uses only `scrub_wall_clock` of the shared helpers
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// (name, arguments): the commands whose outputs are pinned.
const CASES: &[(&str, &[&str])] = &[
    ("run_ofh_mtu", &["run", "scenarios/ofh_mtu.toml"]),
    (
        "run_ofh_mtu_csv",
        &["run", "scenarios/ofh_mtu.toml", "--format", "csv"],
    ),
    ("check_mm1", &["check", "scenarios/mm1.toml"]),
    (
        "sweep_overloaded_point",
        &[
            "sweep",
            "scenarios/sweep_fronthaul.toml",
            "--vary",
            "link[0].mtu=1500B,9000B",
            "-q",
        ],
    ),
    (
        "overhead_e2_sack",
        &[
            "overhead",
            "--stack",
            "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp(sack)",
            "--payload",
            "0",
        ],
    ),
    (
        "overhead_macsec_ecpri",
        &[
            "overhead",
            "--stack",
            "eth/macsec(gcm-aes-128,encrypt)/ecpri",
            "--payload",
            "7660",
        ],
    ),
    (
        "handshake_ikev2_mlkem768",
        &[
            "handshake",
            "--protocol",
            "ikev2",
            "--ke",
            "mlkem768",
            "--mtu",
            "1280",
        ],
    ),
    ("handshake_tls13", &["handshake", "--protocol", "tls13"]),
    (
        "plan_kex_aws_lc",
        &[
            "plan",
            "kex",
            "--profile",
            "calibration/dev-host-aws-lc.toml",
        ],
    ),
    (
        "plan_kex_rustcrypto",
        &[
            "plan",
            "kex",
            "--profile",
            "calibration/dev-host-rustcrypto.toml",
        ],
    ),
    (
        "plan_kex_hybrids",
        &[
            "plan",
            "kex",
            "--profile",
            "calibration/dev-host-rustcrypto.toml",
            "--ke",
            "x25519,x25519+mlkem768",
            "--tunnels",
            "100",
        ],
    ),
    (
        "plan_kex_loss",
        &[
            "plan",
            "kex",
            "--profile",
            "calibration/dev-host-aws-lc.toml",
            "--loss",
            "0.05",
            "--mtu",
            "1280B",
        ],
    ),
    (
        "plan_fronthaul",
        &[
            "plan",
            "fronthaul",
            "--profile",
            "calibration/dev-host-rustcrypto.toml",
            "--compare",
            "calibration/ofh-macsec-i9.toml",
            "--fibre",
            "10km",
            "--switches",
            "2",
            "--switch-latency",
            "5us",
            "--du",
            "B",
            "--ru",
            "O",
        ],
    ),
    (
        "plan_interface",
        &[
            "plan",
            "interface",
            "--profile",
            "calibration/colosseum-e2.toml",
            "--suite",
            "aes256-cbc-hmac-sha256",
            "--rate",
            "3.5Mbps",
            "--compare",
            "aes256-gcm,chacha20-poly1305",
        ],
    ),
    ("reproduce", &["reproduce"]),
    ("reproduce_json", &["reproduce", "--format", "json"]),
    (
        "sweep_fronthaul",
        &[
            "sweep",
            "scenarios/sweep_fronthaul.toml",
            "--vary",
            "link[0].mtu=2000B..9000B:500B",
            "--vary",
            "flow[0].source.split=greedy,even",
            "-q",
        ],
    ),
    (
        "sweep_fronthaul_json",
        &[
            "sweep",
            "scenarios/sweep_fronthaul.toml",
            "--vary",
            "link[0].mtu=4000B,9000B",
            "--set",
            "stop.packets=100",
            "--format",
            "json",
            "-q",
        ],
    ),
];

/// Replaces the wall-clock figures with `*`.
fn scrub(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(&crate::common::scrub_wall_clock(line).unwrap_or_else(|| line.to_string()));
        out.push('\n');
    }
    out
}

fn output(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_oransim"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the oransim binary runs");
    let mut text = scrub(&String::from_utf8_lossy(&out.stdout));
    if !out.stderr.is_empty() {
        text.push_str("stderr:\n");
        text.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    text.push_str(&format!("exit {}\n", out.status.code().unwrap_or(-1)));
    text
}

/// Every scenario in `scenarios/`, run as JSON, is one more case.
fn scenario_cases() -> Vec<(String, Vec<String>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("scenarios"))
        .expect("scenarios/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            (
                format!("run_json_{stem}"),
                vec![
                    "run".into(),
                    format!("scenarios/{stem}.toml"),
                    "--format".into(),
                    "json".into(),
                ],
            )
        })
        .collect()
}

#[test]
fn outputs_match_the_golden_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let bless = std::env::var_os("ORANSIM_BLESS").is_some();
    let mut cases: Vec<(String, Vec<String>)> = CASES
        .iter()
        .map(|(n, a)| (n.to_string(), a.iter().map(|s| s.to_string()).collect()))
        .collect();
    cases.extend(scenario_cases());
    let mut differ = vec![];
    for (name, args) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let got = output(&args);
        let file = dir.join(format!("{name}.out"));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&file, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{}: {e} (bless with ORANSIM_BLESS=1)", file.display()));
        if got != want {
            let line = got
                .lines()
                .zip(want.lines())
                .position(|(g, w)| g != w)
                .unwrap_or(got.lines().count().min(want.lines().count()));
            differ.push(format!(
                "{name} (oransim {}): first difference at line {}:\n  got:  {}\n  want: {}",
                args.join(" "),
                line + 1,
                got.lines().nth(line).unwrap_or("<end>"),
                want.lines().nth(line).unwrap_or("<end>"),
            ));
        }
    }
    assert!(differ.is_empty(), "outputs changed:\n{}", differ.join("\n"));
}
