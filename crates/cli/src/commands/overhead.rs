//! `oransim overhead`: the bytes a protocol stack puts on the wire for a payload, how it is
//! split to fit an MTU, or an interface's row of the O-RAN catalogue. All numbers come from the
//! `protocols` crate; this file only parses flags and prints.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context;
use protocols::fragment::{self, Frame, IpsecFragmentation, SplitPolicy};
use protocols::{Stack, catalogue};
use serde::Serialize;

/// Output format of `overhead` and `handshake`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum OutFormat {
    /// Aligned text for people.
    #[default]
    Table,
    /// JSON for tools.
    Json,
}

/// Arguments of `oransim overhead`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["stack", "interface"])))]
pub struct OverheadArgs {
    /// Protocol stack, lowest layer first, e.g. `eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp`.
    #[arg(long)]
    pub stack: Option<String>,
    /// Application payload [bytes].
    #[arg(long, default_value = "0", value_parser = crate::byte_count)]
    pub payload: usize,
    /// O-RAN interface (000 Table 1): A1, O2, O1, F1-C, E2, F1, W1, E1, X2, Xn, M-plane, C-plane, U-plane, S-plane.
    #[arg(long, conflicts_with_all = ["stack", "mtu"])]
    pub interface: Option<String>,
    /// Link MTU [bytes], or the MTUs of every hop separated by commas (the path MTU is their
    /// minimum): split the payload into frames that fit.
    #[arg(long, value_delimiter = ',', value_parser = crate::byte_count)]
    pub mtu: Vec<usize>,
    /// How to split a payload that does not fit one frame: greedy or even.
    #[arg(long, default_value = "greedy", requires = "mtu")]
    pub policy: String,
    /// Fragment at the IP layer instead of splitting the payload (RFC 791 / RFC 8200).
    #[arg(long, requires = "mtu", conflicts_with = "ipsec_fragment")]
    pub ip_fragment: bool,
    /// IPsec fragmentation of a tunnel: `before` or `after` encryption.
    #[arg(long, requires = "mtu")]
    pub ipsec_fragment: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutFormat::Table)]
    pub format: OutFormat,
}

#[derive(Serialize)]
struct Split {
    path_mtu: usize,
    method: String,
    frames: Vec<Frame>,
    total_wire_len: usize,
}

#[derive(Serialize)]
struct StackOutput {
    #[serde(flatten)]
    report: protocols::OverheadReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    split: Option<Split>,
}

/// Runs `oransim overhead`.
pub fn execute(args: &OverheadArgs) -> anyhow::Result<ExitCode> {
    let text = if let Some(name) = &args.interface {
        let row = catalogue::interface(name)?;
        match args.format {
            OutFormat::Json => serde_json::to_string_pretty(&row)? + "\n",
            OutFormat::Table => interface_table(&row),
        }
    } else {
        let stack_text = args.stack.as_deref().unwrap_or_default();
        let stack: Stack = stack_text
            .parse()
            .with_context(|| format!("bad --stack `{stack_text}`"))?;
        let report = stack
            .report(args.payload)
            .with_context(|| format!("--payload {} through `{stack}`", args.payload))?;
        let split = if args.mtu.is_empty() {
            None
        } else {
            let mtu = fragment::path_mtu(&args.mtu)?;
            let (method, frames) = if args.ip_fragment {
                (
                    "ip-fragment".to_string(),
                    fragment::ip_fragments(&stack, args.payload, mtu)?,
                )
            } else if let Some(when) = &args.ipsec_fragment {
                let when: IpsecFragmentation = when.parse()?;
                (
                    format!(
                        "ipsec-fragment-{}",
                        if when == IpsecFragmentation::BeforeEncryption {
                            "before"
                        } else {
                            "after"
                        }
                    ),
                    fragment::ipsec_fragments(&stack, args.payload, mtu, when)?,
                )
            } else {
                let policy: SplitPolicy = args.policy.parse()?;
                (
                    format!("split-{policy}"),
                    fragment::split_payload(&stack, args.payload, mtu, policy)?,
                )
            };
            Some(Split {
                path_mtu: mtu,
                method,
                total_wire_len: frames.iter().map(|f| f.wire_len).sum(),
                frames,
            })
        };
        let out = StackOutput { report, split };
        match args.format {
            OutFormat::Json => serde_json::to_string_pretty(&out)? + "\n",
            OutFormat::Table => stack_table(&out),
        }
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn stack_table(out: &StackOutput) -> String {
    let r = &out.report;
    let mut s = String::new();
    let _ = writeln!(s, "stack     {}", r.stack);
    let _ = writeln!(s, "payload   {} B", r.payload);
    let _ = writeln!(
        s,
        "wire_len  {} B (capture: no Ethernet padding, FCS, preamble or gap)",
        r.wire_len
    );
    let _ = writeln!(s, "overhead  {} B", r.overhead);
    let _ = writeln!(
        s,
        "mtu_len   {} B (counted against the link MTU)",
        r.mtu_len
    );
    if let (Some(f), Some(l)) = (r.frame_len, r.line_len) {
        let _ = writeln!(
            s,
            "frame     {f} B (802.3 frame with FCS), line {l} B (with preamble and gap)"
        );
    }
    let _ = writeln!(
        s,
        "\n{:<58} {:>7} {:>7} {:>7} {:>7} {:>7}",
        "layer", "header", "padding", "trailer", "inner", "total"
    );
    for l in &r.layers {
        let _ = writeln!(
            s,
            "{:<58} {:>7} {:>7} {:>7} {:>7} {:>7}",
            l.layer, l.header, l.padding, l.trailer, l.inner, l.total
        );
    }
    if let Some(split) = &out.split {
        let _ = writeln!(
            s,
            "\n{} at path MTU {}: {} frame(s), {} B in total",
            split.method,
            split.path_mtu,
            split.frames.len(),
            split.total_wire_len
        );
        let _ = writeln!(
            s,
            "{:>6} {:>8} {:>8} {:>8}  fragment",
            "frame", "payload", "wire_len", "mtu_len"
        );
        for (i, f) in split.frames.iter().enumerate() {
            let frag = f.fragment.map_or(String::new(), |fr| {
                format!(
                    "IPv{} offset {} data {}{}",
                    fr.ip_version,
                    fr.offset,
                    fr.data_len,
                    if fr.more { " MF" } else { "" }
                )
            });
            let _ = writeln!(
                s,
                "{:>6} {:>8} {:>8} {:>8}  {frag}",
                i + 1,
                f.payload,
                f.wire_len,
                f.mtu_len
            );
        }
    }
    s
}

fn interface_table(row: &catalogue::InterfaceRow) -> String {
    let yn = |b: bool| if b { "yes" } else { "no" };
    let mut s = String::new();
    let _ = writeln!(s, "interface        {}", row.interfaces);
    let _ = writeln!(
        s,
        "requires         confidentiality {}, integrity {}, authentication {}, replay protection {}",
        yn(row.confidentiality),
        yn(row.integrity),
        yn(row.authentication),
        yn(row.replay_protection)
    );
    let _ = writeln!(s, "protocol         {}", row.protocol);
    let _ = writeln!(s, "paper minimum    {}", row.paper_min);
    match &row.model_min {
        Some(m) => {
            let _ = writeln!(
                s,
                "model minimum    {}..{} B with {} (recommended suites)",
                m.min, m.max, m.stack
            );
        }
        None => {
            let _ = writeln!(s, "model minimum    0 B (no per-packet protection)");
        }
    }
    if let Some(m) = &row.model_min_any {
        let _ = writeln!(
            s,
            "any suite        {}..{} B with {}",
            m.min, m.max, m.stack
        );
    }
    if !row.paper_figure_in_range_of.is_empty() {
        let _ = writeln!(s, "paper's figure within the range of:");
        for x in &row.paper_figure_in_range_of {
            let _ = writeln!(s, "  {x}");
        }
    }
    let _ = writeln!(s, "\n{}", row.note);
    s
}
