//! Issue 37, item 10, the table's row "Smaller": each item re-run as written, and what it
//! shows now.

use crate::common::{TempDir, oransim as run, stdout};

/// `oransim` with `args` in `dir`.
fn run_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_oransim"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run oransim")
}

/// "`init --out -` writes a file named `-`": it prints the scenario, as without `--out`, and
/// writes no file.
#[test]
fn init_out_dash_prints() {
    let dir = TempDir::new("ux-init-dash");
    let out = run_in(&dir, &["init", "e2", "--gnbs", "2", "--out", "-"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = run_in(&dir, &["init", "e2", "--gnbs", "2"]);
    assert_eq!(out.stdout, printed.stdout);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("[scenario]"));
    assert!(!dir.join("-").exists(), "a file named - was written");
}

/// "`plan interface`'s last finding ends mid-phrase" ("... measures strongSwan's"): every
/// finding ends in a whole phrase.
#[test]
fn interface_findings_end_whole() {
    let text = stdout(&[
        "plan",
        "interface",
        "--profile",
        "calibration/colosseum-e2.toml",
        "--rate",
        "3.5Mbps",
    ]);
    let last = text
        .lines()
        .rfind(|l| l.starts_with("- "))
        .expect("findings");
    assert!(
        last.ends_with("measures strongSwan's ESP data path on a host"),
        "{last}"
    );
    for l in text.lines().filter(|l| l.starts_with("- ")) {
        assert!(!l.ends_with("'s"), "ends mid-phrase: {l}");
    }
}

/// "HTML findings show Markdown back-ticks": the plan page's findings show code as `<code>`.
#[test]
fn html_findings_show_code() {
    let dir = TempDir::new("ux-html-code");
    let page = dir.join("p.html");
    let out = run(&[
        "plan",
        "interface",
        "--profile",
        "calibration/colosseum-e2.toml",
        "--rate",
        "3.5Mbps",
        "--html",
        page.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    let findings = html.split("id=\"findings\"").nth(1).expect("findings");
    assert!(
        findings.contains("<code>oransim calibrate --run strongswan</code>"),
        "{findings}"
    );
    assert!(!findings.contains('`'), "{findings}");
}

/// "ChaCha20- Poly1305" in `calibrate --help`.
#[test]
fn help_keeps_chacha20_poly1305_whole() {
    let help = stdout(&["calibrate", "--help"]);
    assert!(help.contains("ChaCha20-Poly1305, X25519, ML-KEM"), "{help}");
    assert!(!help.contains("ChaCha20- "), "{help}");
}

/// "no suggestion for a misspelt subcommand such as `oransim rnu` or `kex plan`": a tip
/// names the subcommand meant; exit 2 as any usage error.
#[test]
fn misspelt_subcommands_get_a_tip() {
    for (args, tip) in [
        (
            &["rnu"][..],
            "tip: a similar subcommand exists: 'oransim run'",
        ),
        (
            &["kex", "plan"][..],
            "tip: 'kex' is a subcommand of 'plan': 'oransim plan kex'",
        ),
        (&["plan", "fronthual"][..], "fronthaul'"),
        (&["plan", "kexx"][..], "'kex'"),
    ] {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(err.contains(tip), "{args:?}: {err}");
    }
    // Nothing near: no tip.
    let out = run(&["zzzzzz"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("tip:"));
}

/// "`--version` without build features or commit": it names both (the commit as `git
/// rev-parse --short=12 HEAD` gave it at build time, or "unknown").
#[test]
fn version_names_commit_and_features() {
    let v = stdout(&["--version"]);
    let line = v.trim_end();
    assert!(
        line.starts_with(&format!("oransim {} (commit ", env!("CARGO_PKG_VERSION"))),
        "{line}"
    );
    assert!(line.contains("; features: "), "{line}");
    assert!(line.ends_with(')'), "{line}");
}

/// "no exit codes in `--help`": the top-level help ends with them.
#[test]
fn help_lists_exit_statuses() {
    let help = stdout(&["--help"]);
    let tail = help.split("Exit status:").nth(1).expect("exit statuses");
    for code in ["  0 ", "  1 ", "  2 ", "  101 "] {
        assert!(tail.contains(code), "{code} in {tail}");
    }
}

/// "an unexplained `copy` among `--suite` values": the refusal says what `copy` is.
#[test]
fn suite_copy_is_explained() {
    for args in [
        &[
            "plan",
            "interface",
            "--profile",
            "calibration/colosseum-e2.toml",
            "--rate",
            "1Mbps",
            "--suite",
            "bogus",
        ][..],
        &["init", "e2", "--suite", "bogus"][..],
    ] {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("copy (no cipher: one memory copy of the packet"),
            "{args:?}: {err}"
        );
    }
}

/// "`oransim: wrote` vs `wrote`": a command that writes a capture says `wrote ...` as every
/// other command that writes a file does.
#[test]
fn wrote_is_said_one_way() {
    let dir = TempDir::new("ux-wrote");
    let pcap = dir.join("e2.pcapng");
    let out = run(&[
        "overhead",
        "--stack",
        "eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp/e2ap",
        "--payload",
        "100",
        "--pcap",
        pcap.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.starts_with(&format!("wrote {}", pcap.display())),
        "{err}"
    );
    assert!(!err.contains("oransim: wrote"), "{err}");
    // The other writers say it the same way, on stderr, with no prefix: `profile merge`
    // (it printed it on stdout) and `run --pcap`'s key files (`note: --pcap: wrote`).
    let merged = dir.join("m.toml");
    let out = run(&[
        "profile",
        "merge",
        "calibration/host-2026-11-26-strongswan.toml",
        "calibration/host-2026-11-28-rustcrypto-mlkem.toml",
        "--out",
        merged.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.starts_with(&format!("wrote {} (", merged.display())),
        "{err}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("wrote"));
    let e2 = dir.join("e2.toml");
    assert!(
        run(&["init", "e2", "--out", e2.to_str().unwrap()])
            .status
            .success()
    );
    let out = run(&[
        "run",
        e2.to_str().unwrap(),
        "--pcap",
        pcap.to_str().unwrap(),
        "--pcap-limit",
        "5",
        "--summary",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let wrote: Vec<&str> = err.lines().filter(|l| l.contains("wrote")).collect();
    assert_eq!(wrote.len(), 2, "{err}");
    assert!(wrote.iter().all(|l| l.starts_with("wrote ")), "{err}");
}
