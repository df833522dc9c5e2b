//! `oransim completions SHELL` and `oransim man`: what installing oransim as a tool needs, both
//! generated from the clap definitions of every subcommand, so they cannot drift from the flags.
//!
//! The man page is a subcommand rather than a build step: the clap definitions live in this
//! binary, and a `build.rs` could only reach them by moving them into a library crate; the
//! page of the binary a user has is always the page of the flags it takes.

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `oransim completions`.
#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// Shell to complete for; the script goes to stdout (e.g. `oransim completions bash >
    /// ~/.local/share/bash-completion/completions/oransim`).
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `oransim man`.
#[derive(Debug, clap::Args)]
pub(crate) struct ManArgs {
    /// Write `oransim.1` and one page per subcommand (`oransim-run.1`, `oransim-plan-kex.1`,
    /// ...) into this directory (created if missing) instead of printing `oransim.1`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Runs `oransim completions`: prints the completion script of `shell` for `cli`, the
/// command line's definition (`Cli::command()`).
pub(crate) fn completions(
    args: &CompletionsArgs,
    mut cli: clap::Command,
) -> anyhow::Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cli, "oransim", &mut script);
    crate::format::print(&String::from_utf8(script)?)?;
    Ok(ExitCode::SUCCESS)
}

/// Examples on each page (by its name): what the line does, and the line. Each line is parsed
/// with the real flag definitions by a test, so a renamed flag cannot leave a stale example.
pub(crate) const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "oransim",
        &[
            (
                "Simulate the Open Fronthaul MTU scenario and print its report",
                "oransim run scenarios/ofh_mtu.toml",
            ),
            (
                "Measure this machine's ciphers and key exchanges into a profile",
                "oransim calibrate --quick --out host.toml",
            ),
            (
                "Check the papers' published numbers against the model",
                "oransim reproduce --only e2_sack",
            ),
        ],
    ),
    (
        "oransim-run",
        &[
            ("Run a scenario", "oransim run scenarios/ofh_mtu.toml"),
            (
                "The report as JSON, without the wall-clock fields (byte-identical runs)",
                "oransim run scenarios/mm1.toml --format json --no-wall-clock",
            ),
            (
                "Ten replications with a 99% confidence interval, written as txt, csv and json",
                "oransim run scenarios/mm1.toml --replications 10 --out results/mm1",
            ),
        ],
    ),
    (
        "oransim-check",
        &[(
            "Validate a scenario without running it",
            "oransim check scenarios/mm1.toml",
        )],
    ),
    (
        "oransim-init",
        &[(
            "Write a 20-gNB E2 scenario to edit",
            "oransim init e2 --gnbs 20 --out e2.toml",
        )],
    ),
    (
        "oransim-init-fronthaul",
        &[(
            "40 O-DUs with 8 O-RUs each behind one switch, MACsec",
            "oransim init fronthaul --dus 40 --rus-per-du 8 --out fh.toml",
        )],
    ),
    (
        "oransim-init-e2",
        &[(
            "100 gNBs to one near-RT RIC",
            "oransim init e2 --gnbs 100 --out e2.toml",
        )],
    ),
    (
        "oransim-init-ric-restart",
        &[(
            "The IKEv2 storm after a RIC restart with 2000 gNBs",
            "oransim init ric-restart --gnbs 2000 --out storm.toml",
        )],
    ),
    (
        "oransim-overhead",
        &[
            (
                "Bytes an ESP tunnel adds to an empty SCTP payload",
                "oransim overhead --stack \"eth/ipv4/esp-tunnel(aes256-gcm-16)/ipv4/sctp\" --payload 0",
            ),
            (
                "The catalogue row of the E2 interface",
                "oransim overhead --interface E2",
            ),
        ],
    ),
    (
        "oransim-handshake",
        &[(
            "IKEv2 with ML-KEM-768 at a 1280-byte MTU: messages, sizes, fragments",
            "oransim handshake --protocol ikev2 --ke mlkem768 --mtu 1280",
        )],
    ),
    (
        "oransim-calibrate",
        &[
            (
                "Measure the ciphers and key exchanges of this machine",
                "oransim calibrate --out host.toml",
            ),
            (
                "Import an `openssl speed -mr` run instead of measuring",
                "oransim calibrate --from-openssl-speed speed.txt --out openssl.toml",
            ),
        ],
    ),
    (
        "oransim-plan",
        &[(
            "How long 1000 IKEv2 tunnels take to come back, per key exchange",
            "oransim plan kex --profile calibration/dev-host-aws-lc.toml --tunnels 1000",
        )],
    ),
    (
        "oransim-plan-kex",
        &[
            (
                "A restart storm of 1000 tunnels, per key exchange",
                "oransim plan kex --profile calibration/dev-host-aws-lc.toml --tunnels 1000",
            ),
            (
                "20,000 gNBs reconnect with x25519+ML-KEM-768 to a RIC running strongSwan",
                "oransim plan kex --profile calibration/host-2026-11-28-strongswan-mlkem.toml --ke x25519+mlkem768 --auth psk --tunnels 20000",
            ),
        ],
    ),
    (
        "oransim-profile",
        &[(
            "Compose a profile from two measured ones",
            "oransim profile merge calibration/host-2026-11-26-strongswan.toml calibration/host-2026-11-28-rustcrypto-mlkem.toml --out strongswan-mlkem.toml",
        )],
    ),
    (
        "oransim-profile-merge",
        &[(
            "Add ML-KEM-768 measured with RustCrypto to strongSwan's measured profile",
            "oransim profile merge calibration/host-2026-11-26-strongswan.toml calibration/host-2026-11-28-rustcrypto-mlkem.toml --out strongswan-mlkem.toml",
        )],
    ),
    (
        "oransim-plan-fronthaul",
        &[(
            "Which security modes fit the T12max budget over 20 km of fibre",
            "oransim plan fronthaul --profile calibration/ofh-macsec-i9.toml --fibre 20km",
        )],
    ),
    (
        "oransim-plan-interface",
        &[(
            "What securing E2 costs at 100 Mb/s",
            "oransim plan interface --interface E2 --profile calibration/dev-host-aws-lc.toml --rate 100Mbps",
        )],
    ),
    (
        "oransim-sweep",
        &[(
            "Vary the fibre length and write every point and plot to a directory",
            "oransim sweep scenarios/sweep_fronthaul.toml --vary link[0].length=0km..20km:5km --out sweep-out",
        )],
    ),
    (
        "oransim-reproduce",
        &[
            ("Every study against the papers", "oransim reproduce"),
            ("One study", "oransim reproduce --only e2_sack"),
        ],
    ),
    (
        "oransim-live",
        &[(
            "Real encrypted round trips on loopback against the prediction",
            "oransim live --compare --experiment rtt --protection macsec --sizes 64,1400,9000",
        )],
    ),
    (
        "oransim-validate",
        &[
            (
                "The reduced strongSwan set, as root (two charons in network namespaces)",
                "oransim validate strongswan",
            ),
            (
                "OpenSSL TLS 1.3 on loopback, the full set",
                "oransim validate tls --full",
            ),
        ],
    ),
    (
        "oransim-validate-strongswan",
        &[
            (
                "The reduced set, as root, its raw measurements kept",
                "oransim validate strongswan --save-measurements ss.json",
            ),
            (
                "Score a committed run again without running strongSwan",
                "oransim validate strongswan --measurements calibration/host-2026-11-26-strongswan.measurements.json",
            ),
        ],
    ),
    (
        "oransim-validate-tls",
        &[(
            "The full TLS set, its report as JSON",
            "oransim validate tls --full --json tls.json",
        )],
    ),
    (
        "oransim-completions",
        &[("Bash completion for this user", "oransim completions bash")],
    ),
    (
        "oransim-man",
        &[("Every page into a directory", "oransim man --out man1")],
    ),
];

/// Pages whose command exits 1 for an answer that is not a success, and what that answer is.
pub(crate) const EXIT_ONE: &[(&str, &str)] = &[
    (
        "oransim-reproduce",
        "a published number was missed by more than its tolerance (the rows are on stderr)",
    ),
    (
        "oransim-validate",
        "a measured value missed its prediction by more than its tolerance",
    ),
    (
        "oransim-validate-strongswan",
        "a measured value missed its prediction by more than its tolerance",
    ),
    (
        "oransim-validate-tls",
        "a measured value missed its prediction by more than its tolerance",
    ),
    (
        "oransim-live",
        "with --tolerance, a measurement missed the prediction (the rows are on stderr)",
    ),
    (
        "oransim-calibrate",
        "the measurements were pathological: the profile is written marked FLAGGED and must not be used",
    ),
];

/// `text` escaped for roff: backslashes and hyphens, and a leading dot or quote.
fn roff_escape(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// The EXIT STATUS and EXAMPLES sections of the page `name`, in roff.
fn extra_sections(name: &str) -> String {
    let mut roff = String::from(".SH \"EXIT STATUS\"\n.TP\n0\nSuccess.\n");
    let one = if name == "oransim" {
        Some(
            "an answer that is not a success: `reproduce` or `validate` missed a tolerance, `live --tolerance` missed a prediction, `calibrate` measured pathological results",
        )
    } else {
        EXIT_ONE.iter().find(|(n, _)| *n == name).map(|(_, w)| *w)
    };
    if let Some(why) = one {
        roff.push_str(&format!(".TP\n1\n{}.\n", roff_escape(&capitalised(why))));
    }
    roff.push_str(
        ".TP\n2\nAn error: bad input (a file, key, flag or value, named on stderr after \\fBerror:\\fR), or a failure to read or write; no output file is left half written.\n",
    );
    if let Some((_, examples)) = EXAMPLES.iter().find(|(n, _)| *n == name) {
        roff.push_str(".SH EXAMPLES\n");
        for (what, line) in examples.iter() {
            roff.push_str(&format!(
                ".TP\n{}\n.nf\n\\fB{}\\fR\n.fi\n",
                roff_escape(what),
                roff_escape(line)
            ));
        }
    }
    roff
}

fn capitalised(text: &str) -> String {
    let mut c = text.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The roff of one command's page, with its exit status and examples.
fn page(cmd: clap::Command) -> anyhow::Result<Vec<u8>> {
    let name = cmd
        .get_display_name()
        .unwrap_or_else(|| cmd.get_name())
        .to_owned();
    let mut roff = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut roff)?;
    roff.extend_from_slice(extra_sections(&name).as_bytes());
    Ok(roff)
}

/// `cmd`'s page and those of its subcommands, each with its file name (`oransim-plan-kex.1`).
pub(crate) fn pages(cmd: clap::Command, out: &mut Vec<(String, Vec<u8>)>) -> anyhow::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        pages(sub.clone(), out)?;
    }
    let name = format!(
        "{}.1",
        cmd.get_display_name().unwrap_or_else(|| cmd.get_name())
    );
    out.push((name, page(cmd)?));
    Ok(())
}

/// Runs `oransim man`: prints the oransim(1) page of `cli` (the command line's definition,
/// `Cli::command()`), or writes every page into `--out`.
pub(crate) fn man(args: &ManArgs, cli: clap::Command) -> anyhow::Result<ExitCode> {
    let mut cmd = cli.disable_help_subcommand(true);
    cmd.build();
    let Some(dir) = &args.out else {
        crate::format::print(&String::from_utf8(page(cmd)?)?)?;
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    let mut all = Vec::new();
    pages(cmd, &mut all)?;
    let mut written = String::new();
    for (name, roff) in all {
        let path = dir.join(name);
        crate::output::write_atomic(&path, &roff)?;
        written.push_str(&format!("{}\n", path.display()));
    }
    crate::format::print(&written)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roff_escapes_hyphens_backslashes_and_leading_dots() {
        assert_eq!(roff_escape("--mtu a\\b"), "\\-\\-mtu a\\eb");
        assert_eq!(roff_escape(".x"), "\\&.x");
    }
}
