//! `oransim overhead`: the bytes a protocol stack puts on the wire for a payload, how it is
//! split to fit an MTU, or an interface's row of the O-RAN catalogue. All numbers come from the
//! `protocols` crate and the text from `printer::overhead`; this file only parses flags and
//! prints.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use printer::overhead::{Split, StackOutput};
use protocols::{IpsecFragmentation, Layer, SplitPolicy, Stack, catalogue, ipv6};

/// Output format of `overhead` and `handshake`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum OutFormat {
    /// Aligned text for people.
    #[default]
    Table,
    /// JSON for tools.
    Json,
}

/// Arguments of `oransim overhead`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["stack", "interface"])))]
pub(crate) struct OverheadArgs {
    /// Protocol stack, lowest layer first, e.g. `eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp`.
    #[arg(long)]
    pub stack: Option<String>,
    /// Application payload [bytes] (a stack's; an --interface row has none).
    #[arg(long, default_value = "0", value_parser = crate::values::byte_count, conflicts_with = "interface")]
    pub payload: usize,
    /// O-RAN interface (000 Table 1): A1, O2, O1, F1-C, E2, F1, W1, E1, X2, Xn, M-plane, C-plane, U-plane, S-plane.
    #[arg(long, conflicts_with_all = ["stack", "mtu"])]
    pub interface: Option<String>,
    /// Link MTU [bytes], or the MTUs of every hop separated by commas (the path MTU is their
    /// minimum): split the payload into frames that fit. Each 68 to 65535 (1280 to 65535 when
    /// the stack is IPv6).
    #[arg(long, value_delimiter = ',', value_parser = crate::values::mtu_bytes)]
    pub mtu: Vec<usize>,
    /// How to split a payload that does not fit one frame: greedy or even (with --mtu, when
    /// neither --ip-fragment nor --ipsec-fragment is given).
    #[arg(long, default_value = "greedy", value_parser = parse_policy, requires = "mtu",
          conflicts_with_all = ["interface", "ip_fragment", "ipsec_fragment"])]
    pub policy: SplitPolicy,
    /// Fragment at the IP layer instead of splitting the payload (RFC 791 / RFC 8200).
    #[arg(long, requires = "mtu", conflicts_with_all = ["ipsec_fragment", "interface"])]
    pub ip_fragment: bool,
    /// IPsec fragmentation of a tunnel: `before` or `after` encryption (with --mtu).
    #[arg(long, value_parser = parse_ipsec_fragment, requires = "mtu", conflicts_with = "interface")]
    pub ipsec_fragment: Option<IpsecFragmentation>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutFormat::Table)]
    pub format: OutFormat,
    /// Also write the stack's frames (one per frame of the split with --mtu) to FILE as a
    /// pcapng capture, every security layer sealed with fixed test keys, and the keys beside
    /// it: FILE.esp_sa (Wireshark's ESP SA table), FILE.keylog (TLS 1.3, an NSS key log) and
    /// FILE.keys (every layer's keys).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["interface", "ip_fragment", "ipsec_fragment"])]
    pub pcap: Option<PathBuf>,
}

/// `--policy`: a split policy; the error lists the allowed names.
fn parse_policy(text: &str) -> Result<SplitPolicy, protocols::Error> {
    text.parse()
}

/// `--ipsec-fragment`: `before` or `after`; the error lists the allowed names.
fn parse_ipsec_fragment(text: &str) -> Result<IpsecFragmentation, protocols::Error> {
    text.parse()
}

/// A split that failed, with the flag it is about: the MTU too small for the stack is
/// `--mtu`'s, a payload over a length field `--payload`'s, anything else (a stack with no ESP
/// for `--ipsec-fragment`, ...) the splitting method's.
fn split_error(e: protocols::Error, method: &'static str) -> anyhow::Error {
    let flag = match e {
        protocols::Error::MtuTooSmall { .. } => "--mtu",
        protocols::Error::PayloadTooLarge { .. } | protocols::Error::FieldOverflow { .. } => {
            "--payload"
        }
        _ => method,
    };
    anyhow::Error::new(e).context(flag)
}

/// Runs `oransim overhead`.
pub(crate) fn execute(args: &OverheadArgs) -> anyhow::Result<ExitCode> {
    let text = if let Some(name) = &args.interface {
        let row = catalogue::interface(name).context("--interface")?;
        match args.format {
            OutFormat::Json => printer::overhead::interface_json(&row)?,
            OutFormat::Table => printer::overhead::interface_table(&row),
        }
    } else {
        let stack_text = args.stack.as_deref().unwrap_or_default();
        let stack: Stack = stack_text
            .parse()
            .with_context(|| format!("bad --stack `{stack_text}`"))?;
        let report = stack
            .report(args.payload)
            .with_context(|| format!("--payload {} through `{stack}`", args.payload))?;
        // The link carries the outermost IP layer: an IPv6 one needs 1280 B on every hop.
        let outer_ipv6 = stack
            .layers()
            .iter()
            .find(|l| matches!(l, Layer::Ipv4(_) | Layer::Ipv6(_)))
            .is_some_and(|l| matches!(l, Layer::Ipv6(_)));
        if outer_ipv6 && let Some(m) = args.mtu.iter().find(|&&m| m < ipv6::MIN_MTU) {
            anyhow::bail!(
                "--mtu: an MTU of {m} B is below the {} B every IPv6 link carries (RFC 8200 §5), and `{stack}` puts IPv6 on the link; allowed: {} to {} B",
                ipv6::MIN_MTU,
                ipv6::MIN_MTU,
                crate::values::MAX_FLAG_MTU
            );
        }
        let split = if args.mtu.is_empty() {
            None
        } else {
            let mtu = protocols::path_mtu(&args.mtu).context("--mtu")?;
            let (method, frames) = if args.ip_fragment {
                (
                    "ip-fragment".to_string(),
                    protocols::ip_fragments(&stack, args.payload, mtu)
                        .map_err(|e| split_error(e, "--ip-fragment"))?,
                )
            } else if let Some(when) = args.ipsec_fragment {
                (
                    format!(
                        "ipsec-fragment-{}",
                        if when == IpsecFragmentation::BeforeEncryption {
                            "before"
                        } else {
                            "after"
                        }
                    ),
                    protocols::ipsec_fragments(&stack, args.payload, mtu, when)
                        .map_err(|e| split_error(e, "--ipsec-fragment"))?,
                )
            } else {
                let policy = args.policy;
                (
                    format!("split-{policy}"),
                    protocols::split_payload(&stack, args.payload, mtu, policy)
                        .map_err(|e| split_error(e, "--policy"))?,
                )
            };
            Some(Split {
                path_mtu: mtu,
                method,
                total_wire_len: frames.iter().map(|f| f.wire_len).sum(),
                frames,
            })
        };
        if let Some(path) = &args.pcap {
            let payloads: Vec<usize> = match &split {
                Some(s) => s.frames.iter().map(|f| f.payload).collect(),
                None => vec![args.payload],
            };
            write_capture(path, &stack, &payloads)?;
        }
        let out = StackOutput { report, split };
        match args.format {
            OutFormat::Json => printer::overhead::stack_json(&out)?,
            OutFormat::Table => printer::overhead::stack_table(&out),
        }
    };
    crate::format::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `--pcap FILE`: the capture and its key files, written together ([`crate::output::write_set`]:
/// every target checked first, none replaced unless all can be); says on stderr what it wrote.
fn write_capture(path: &Path, stack: &Stack, payloads: &[usize]) -> anyhow::Result<()> {
    let capture = live::frames::overhead(stack, payloads).context("--pcap")?;
    let pcap = printer::capture::pcapng(
        format!("oransim overhead --stack {stack}"),
        capture.ethernet,
        &capture.frames,
    )
    .context("--pcap")?;
    let beside = |ext: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(ext);
        PathBuf::from(name)
    };
    let mut files = vec![(path.to_path_buf(), pcap)];
    let mut stale = Vec::new();
    for (ext, text) in [
        (".esp_sa", capture.esp_sa),
        (".keys", capture.keys),
        (".keylog", capture.keylog),
    ] {
        match text {
            Some(t) => files.push((beside(ext), t.into_bytes())),
            None => stale.push(beside(ext)),
        }
    }
    crate::output::write_set(&files).context("--pcap")?;
    // A key file of an earlier capture at this path would sit beside this one with keys it
    // does not use: removed (a regular file only; anything else is left and named).
    for p in &stale {
        match std::fs::symlink_metadata(p) {
            Ok(m) if m.is_file() => {
                std::fs::remove_file(p).with_context(|| {
                    format!(
                        "--pcap: cannot remove {}, an earlier capture's key file",
                        p.display()
                    )
                })?;
                eprintln!(
                    "oransim: removed {}, an earlier capture's key file",
                    p.display()
                );
            }
            Ok(_) => eprintln!(
                "oransim: warning: {} is not this capture's (and not a regular file): left as it is",
                p.display()
            ),
            Err(_) => {}
        }
    }
    let names: Vec<String> = files.iter().map(|(p, _)| p.display().to_string()).collect();
    let opening = if capture.opening_frames > 0 {
        format!(", the first {} a TLS opening", capture.opening_frames)
    } else {
        String::new()
    };
    eprintln!(
        "wrote {} ({} frame{}{opening}, sealed with fixed test keys)",
        names.join(", "),
        capture.frames.len(),
        if capture.frames.len() == 1 { "" } else { "s" }
    );
    Ok(())
}
