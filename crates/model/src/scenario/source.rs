//! Sources: what each flow sends (poisson, periodic, pattern, ping, bulk, trace).

use std::path::Path;

use protocols::SplitPolicy;
use sim_core::{SimDuration, SizeDist, Source};

use crate::error::ScenarioError;
use crate::file::SourceFile;
use profile::units::Kind;

use super::MAX_PACKET_BYTES;
use super::context::Ctx;
use super::framing::{BuiltSource, Framing, split_plain, split_with_stack};
use super::node::cumulative_weights;
use super::trace::read_trace;

/// Flow source `s` at `key`, framed by its stack (if any) at the path MTU `mtu` \[bytes\]; a
/// trace's file is found beside the scenario at `scenario_path`.
pub(super) fn source(
    cx: &Ctx<'_>,
    key: &str,
    s: &SourceFile,
    mtu: Option<u32>,
    scenario_path: &Path,
) -> Result<BuiltSource, ScenarioError> {
    let stack_of = |s: &SourceFile| match s {
        SourceFile::Poisson { stack, .. }
        | SourceFile::Periodic { stack, .. }
        | SourceFile::Pattern { stack, .. }
        | SourceFile::Ping { stack, .. }
        | SourceFile::Bulk { stack, .. } => stack.clone(),
        SourceFile::Trace { .. } | SourceFile::Handshake { .. } => None,
    };
    let fr = Framing::new(cx, key, stack_of(s).as_ref(), mtu)?;
    let source = match s {
        SourceFile::Poisson { .. } => poisson(&fr, key, s)?,
        SourceFile::Periodic { .. } => periodic(&fr, key, s)?,
        SourceFile::Pattern { .. } => pattern(&fr, key, s)?,
        SourceFile::Ping { .. } => ping(&fr, key, s)?,
        SourceFile::Bulk { .. } => bulk(&fr, key, s)?,
        SourceFile::Handshake { .. } => {
            unreachable!("handshake sources are built by handshake_source")
        }
        SourceFile::Trace { file } => {
            let base = scenario_path.parent().unwrap_or(Path::new("."));
            let trace_path = base.join(file);
            Source::Trace {
                records: read_trace(cx, &format!("{key}.file"), &trace_path)?,
            }
        }
    };
    Ok((source, fr.exempt(), fr.has_ethernet(), fr.pairs.take()))
}

/// A Poisson source: exponential gaps at `rate` (or `bitrate` over the mean size) \[1/s\], and
/// one packet-size form (`size`; `size_min` and `size_max`; `sizes` with `weights`).
fn poisson(fr: &Framing<'_, '_>, key: &str, s: &SourceFile) -> Result<Source, ScenarioError> {
    let cx = fr.cx;
    let SourceFile::Poisson {
        rate,
        bitrate,
        size,
        size_min,
        size_max,
        sizes,
        weights,
        count,
        ..
    } = s
    else {
        unreachable!("poisson is called for a poisson source");
    };
    let k = |f: &str| format!("{key}.{f}");
    let dist = match (size, size_min, size_max, sizes) {
        (Some(s), None, None, None) => {
            let frames = fr.message(&k("size"), cx.packet_bytes(&k("size"), s)?)?;
            match frames.as_slice() {
                [one] => SizeDist::Fixed(*one),
                _ => SizeDist::Messages {
                    frames: vec![frames],
                    cumulative: vec![1.0],
                },
            }
        }
        (None, Some(lo), Some(hi), None) => {
            let min = cx.packet_bytes(&k("size_min"), lo)?;
            let max = cx.packet_bytes(&k("size_max"), hi)?;
            if min > max {
                return Err(cx.invalid(
                    k("size_max"),
                    "smaller than size_min",
                    "size_min <= size_max",
                ));
            }
            fr.frame(&k("size_max"), max)?;
            if fr.stack.is_none() {
                SizeDist::Uniform { min, max }
            } else if max - min <= 65_536 {
                // Frame sizes are not a linear function of payload sizes (block padding),
                // so a uniform payload becomes an exact table of frame sizes.
                let sizes = (min..=max)
                    .map(|b| fr.frame(&k("size_min"), b))
                    .collect::<Result<Vec<_>, _>>()?;
                let cumulative = (1..=sizes.len()).map(|i| i as f64).collect();
                SizeDist::Empirical { sizes, cumulative }
            } else {
                return Err(cx.invalid(
                    k("size_max"),
                    "a uniform range over 65536 sizes with a stack",
                    "a narrower range, or listed `sizes`",
                ));
            }
        }
        (None, None, None, Some(list)) if !list.is_empty() => {
            let messages: Vec<Vec<u32>> = list
                .iter()
                .enumerate()
                .map(|(i, q)| {
                    let key = format!("{key}.sizes[{i}]");
                    fr.message(&key, cx.packet_bytes(&key, q)?)
                })
                .collect::<Result<_, _>>()?;
            let cumulative = cumulative_weights(cx, &k("weights"), weights.as_deref(), list.len())?;
            // Fragmented SCTP messages when any size is; else single packets, as always.
            if messages.iter().all(|m| m.len() == 1) {
                SizeDist::Empirical {
                    sizes: messages.into_iter().flatten().collect(),
                    cumulative,
                }
            } else {
                SizeDist::Messages {
                    frames: messages,
                    cumulative,
                }
            }
        }
        _ => {
            return Err(cx.invalid(
                key,
                "no single packet-size form",
                "exactly one of: size = \"1500B\"; size_min and size_max; sizes = [...] (with optional weights)",
            ));
        }
    };
    let rate_per_s = match (rate, bitrate) {
        (Some(r), None) => cx.positive(&k("rate"), r, Kind::PacketRate)?,
        (None, Some(b)) => cx.positive(&k("bitrate"), b, Kind::DataRate)? / (8.0 * dist.mean()),
        _ => {
            return Err(cx.invalid(
                key,
                "no single rate",
                "exactly one of rate = \"0.9/us\" or bitrate = \"1Gbps\"",
            ));
        }
    };
    let rate_per_s = cx.poisson_rate(
        &k(if rate.is_some() { "rate" } else { "bitrate" }),
        rate_per_s,
    )?;
    Ok(Source::Poisson {
        rate_per_s,
        size: dist,
        count: *count,
    })
}

/// A periodic source: every `period` (or 1/`rate`) from `offset`, one frame of `size` or the
/// frames a `payload` splits into at the path MTU.
fn periodic(fr: &Framing<'_, '_>, key: &str, s: &SourceFile) -> Result<Source, ScenarioError> {
    let cx = fr.cx;
    let SourceFile::Periodic {
        period,
        rate,
        size,
        payload,
        overhead,
        split: policy,
        offset,
        count,
        ..
    } = s
    else {
        unreachable!("periodic is called for a periodic source");
    };
    let mtu = fr.mtu;
    let period = match (period, rate) {
        (Some(p), None) => cx.duration(&format!("{key}.period"), p)?,
        (None, Some(r)) => {
            let k = format!("{key}.rate");
            let per_s = cx.positive(&k, r, Kind::PacketRate)?;
            let ps = 1e12 / per_s;
            if ps > sim_core::MAX_STEP_PS as f64 {
                return Err(cx.invalid(
                    k,
                    format!("\"{}\" is a period over 13.3 days (2^60 ps)", r.0),
                    "a period of at most 13.3 days",
                ));
            }
            SimDuration::from_ps(cx.whole_ps(&k, &format!("a period of 1/({})", r.0), ps)?)
        }
        _ => {
            return Err(cx.invalid(
                key,
                "no single period",
                "exactly one of period = \"100us\" or rate = \"10/ms\"",
            ));
        }
    };
    if period == SimDuration::ZERO {
        return Err(cx.invalid(
            format!("{key}.period"),
            "a zero period",
            "a positive period (at least 1 ps)",
        ));
    }
    let frames = match (size, payload) {
        (Some(s), None) => {
            let k = format!("{key}.size");
            vec![fr.frame(&k, cx.packet_bytes(&k, s)?)?]
        }
        (None, Some(p)) => {
            let payload = cx.packet_bytes(&format!("{key}.payload"), p)?;
            let policy = match policy.as_deref() {
                None => SplitPolicy::default(),
                Some(name) => name.parse::<SplitPolicy>().map_err(|_| {
                    cx.invalid(
                        format!("{key}.split"),
                        format!("unknown policy \"{name}\""),
                        "\"greedy\" or \"even\"",
                    )
                })?,
            };
            match (&fr.stack, overhead) {
                (Some(_), Some(_)) => {
                    return Err(cx.invalid(
                        format!("{key}.overhead"),
                        "both `stack` and `overhead`",
                        "one of them: the stack gives each frame's overhead exactly",
                    ));
                }
                (Some(stack), None) => {
                    let frames = split_with_stack(cx, key, stack, payload, mtu, policy)?;
                    fr.pairs
                        .borrow_mut()
                        .extend(frames.iter().filter_map(|&(w, p)| p.map(|p| (w, p))));
                    frames.into_iter().map(|(w, _)| w).collect()
                }
                (None, _) => split_plain(cx, key, payload, overhead.as_ref(), mtu, policy)?,
            }
        }
        _ => {
            return Err(cx.invalid(
                key,
                "no single frame form",
                "exactly one of size = \"1500B\" or payload = \"8192B\" (with split, and stack or overhead)",
            ));
        }
    };
    let offset = offset
        .as_ref()
        .map(|o| cx.instant(&format!("{key}.offset"), o))
        .transpose()?
        .unwrap_or_default();
    Ok(Source::Periodic {
        period,
        offset,
        frames,
        count: *count,
    })
}

/// A pattern source: `sizes` in turn every `interval`, with a reply of `reply_size` every
/// `reply_every` packets (in `reply_stack`, or the data stack).
fn pattern(fr: &Framing<'_, '_>, key: &str, s: &SourceFile) -> Result<Source, ScenarioError> {
    let cx = fr.cx;
    let SourceFile::Pattern {
        interval,
        sizes,
        reply_every,
        reply_size,
        reply_stack,
        count,
        ..
    } = s
    else {
        unreachable!("pattern is called for a pattern source");
    };
    let mtu = fr.mtu;
    if sizes.is_empty() {
        return Err(cx.invalid(
            format!("{key}.sizes"),
            "an empty list",
            "at least one size, e.g. [\"195B\", \"1425B\"]",
        ));
    }
    let sizes = sizes
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let k = format!("{key}.sizes[{i}]");
            fr.frame(&k, cx.packet_bytes(&k, q)?)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let interval = cx.duration(&format!("{key}.interval"), interval)?;
    if interval == SimDuration::ZERO {
        return Err(cx.invalid(
            format!("{key}.interval"),
            "a zero interval",
            "a positive interval",
        ));
    }
    let reply_fr = match reply_stack {
        Some(t) => Framing::new(cx, &format!("{key}.reply"), Some(t), mtu)?,
        None => Framing {
            cx,
            stack: fr.stack.clone(),
            mtu,
            pairs: Default::default(),
        },
    };
    if reply_fr.exempt() != fr.exempt() {
        return Err(cx.invalid(
            format!("{key}.reply_stack"),
            "one stack starts with eth and the other does not",
            "data and reply stacks that both include, or both omit, the Ethernet layer",
        ));
    }
    let reply_size = reply_size
        .as_ref()
        .map(|q| {
            let k = format!("{key}.reply_size");
            reply_fr.frame(&k, cx.bytes(&k, q)?)
        })
        .transpose()?;
    fr.pairs.borrow_mut().extend(reply_fr.pairs.take());
    let reply_every = reply_every.unwrap_or(if reply_size.is_some() { 2 } else { 0 });
    if reply_every > 0 && reply_size.is_none() {
        return Err(cx.invalid(
            format!("{key}.reply_size"),
            "replies without a size",
            "reply_size = \"62B\" with reply_every",
        ));
    }
    Ok(Source::Pattern {
        interval,
        sizes,
        reply_every,
        reply_size: reply_size.unwrap_or(0),
        count: *count,
    })
}

/// A ping source: a request of `size` every `interval` and its reply of `reply_size`.
fn ping(fr: &Framing<'_, '_>, key: &str, s: &SourceFile) -> Result<Source, ScenarioError> {
    let cx = fr.cx;
    let SourceFile::Ping {
        interval,
        size,
        reply_size,
        count,
        ..
    } = s
    else {
        unreachable!("ping is called for a ping source");
    };
    let interval = cx.duration(&format!("{key}.interval"), interval)?;
    if interval == SimDuration::ZERO {
        return Err(cx.invalid(
            format!("{key}.interval"),
            "a zero interval",
            "a positive interval",
        ));
    }
    let k = format!("{key}.size");
    let size = fr.frame(&k, cx.packet_bytes(&k, size)?)?;
    let k = format!("{key}.reply_size");
    let reply_size = reply_size
        .as_ref()
        .map(|q| fr.frame(&k, cx.packet_bytes(&k, q)?))
        .transpose()?
        .unwrap_or(size);
    Ok(Source::Ping {
        interval,
        size,
        reply_size,
        count: *count,
    })
}

/// A bulk transfer: `bytes` in segments (given, or the most the path MTU carries) sent in a
/// `window` of frames, acknowledged every `ack_every` frames by an `ack_size` frame.
fn bulk(fr: &Framing<'_, '_>, key: &str, s: &SourceFile) -> Result<Source, ScenarioError> {
    let cx = fr.cx;
    let SourceFile::Bulk {
        bytes,
        segment,
        overhead,
        window,
        ack_size,
        ack_every,
        ..
    } = s
    else {
        unreachable!("bulk is called for a bulk source");
    };
    let mtu = fr.mtu;
    let total = cx.positive(&format!("{key}.bytes"), bytes, Kind::Size)?;
    if total.fract() != 0.0 || total > 1e15 {
        return Err(cx.invalid(
            format!("{key}.bytes"),
            format!("\"{}\"", bytes.0),
            "a whole number of bytes up to 1PB",
        ));
    }
    let total = total as u64;
    if fr.stack.is_some() && overhead.is_some() {
        return Err(cx.invalid(
            format!("{key}.overhead"),
            "both `stack` and `overhead`",
            "one of them",
        ));
    }
    let over = overhead
        .as_ref()
        .map(|o| cx.bytes(&format!("{key}.overhead"), o))
        .transpose()?
        .unwrap_or(0);
    let segment = match (segment, mtu, &fr.stack) {
        (Some(s), _, _) => cx.packet_bytes(&format!("{key}.segment"), s)?,
        (None, Some(m), Some(stack)) => match stack.max_payload(m as usize) {
            Ok(p) if p > 0 => p.min(MAX_PACKET_BYTES as usize) as u32,
            _ => {
                return Err(cx.invalid(
                    format!("{key}.stack"),
                    format!("the headers fill the path MTU of {m} B"),
                    "a larger MTU",
                ));
            }
        },
        (None, Some(m), None) if m > over => m - over,
        (None, Some(m), None) => {
            return Err(cx.invalid(
                format!("{key}.overhead"),
                format!("{over} B of headers fill the path MTU of {m} B"),
                "an overhead below the MTU",
            ));
        }
        (None, None, _) => {
            return Err(cx.invalid(
                format!("{key}.segment"),
                "no segment size and no MTU on the path",
                "segment = \"1448B\", or an mtu on the links",
            ));
        }
    };
    let plain = |payload: u32| payload + over;
    let frame_of = |payload: u32| -> Result<u32, ScenarioError> {
        let f = fr.frame(&format!("{key}.segment"), payload)?;
        Ok(if fr.stack.is_some() { f } else { plain(f) })
    };
    if fr.stack.is_none() && mtu.is_some_and(|m| plain(segment) > m) {
        return Err(cx.invalid(
            format!("{key}.segment"),
            format!("{} B frames exceed the path MTU", plain(segment)),
            "a segment plus overhead within the MTU",
        ));
    }
    let frame = frame_of(segment)?;
    let rem = (total % segment as u64) as u32;
    let last_frame = if rem == 0 { frame } else { frame_of(rem)? };
    let window = cx.count(&format!("{key}.window"), *window, "frames", 1 << 20)?;
    let k = format!("{key}.ack_size");
    let ack_size = match &fr.stack {
        // With a stack, the acknowledgement is a frame of the same stack carrying
        // `ack_size` payload bytes (default 0: a pure TCP ACK).
        Some(_) => fr.frame(
            &k,
            ack_size
                .as_ref()
                .map(|q| cx.bytes(&k, q))
                .transpose()?
                .unwrap_or(0),
        )?,
        None => ack_size
            .as_ref()
            .map(|q| cx.packet_bytes(&k, q))
            .transpose()?
            .unwrap_or(64),
    };
    let k = format!("{key}.ack_every");
    let ack_every = match ack_every {
        None => 1,
        Some(n) => cx.count(&k, *n, "frames", 1 << 20)?,
    };
    if ack_every > window {
        return Err(cx.invalid(
            k,
            format!("{ack_every} frames per acknowledgement with a window of {window}"),
            "at most the window, or the window fills before an acknowledgement is due",
        ));
    }
    Ok(Source::Bulk {
        total_bytes: total,
        segment,
        frame,
        last_frame,
        window,
        ack_size,
        ack_every,
    })
}
