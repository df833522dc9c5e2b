//! Installing oransim as a tool (issue 16): `oransim completions <shell>` completes every
//! subcommand, and `oransim man` writes man pages that render.

mod common;

use std::process::Command;

use common::{TempDir, oransim, stdout};

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
