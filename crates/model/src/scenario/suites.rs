//! The suite check: a profile node's `suite` (whose cipher its costs charge) must be the suite
//! of every stack whose frames it seals or opens (whose bytes the frames carry). Otherwise a
//! scenario charges one cipher for another's frames (a ChaCha20 stack at AES-GCM's cost, a
//! plaintext stack at CBC's), and nothing in the report would say so.

use protocols::{Stack, Suite};
use sim_core::NodeConfig;

use super::context::Ctx;
use super::node::{NodeProfile, profile_service};
use crate::error::ScenarioError;
use crate::file::SourceFile;

/// The stacks a source names, each with its key (`stack`, `reply_stack`).
pub(super) fn stacks(s: &SourceFile) -> Vec<(&'static str, &str)> {
    let mut out = Vec::new();
    let (stack, reply) = match s {
        SourceFile::Poisson { stack, .. }
        | SourceFile::Periodic { stack, .. }
        | SourceFile::Bulk { stack, .. } => (stack.as_deref(), None),
        SourceFile::Pattern {
            stack, reply_stack, ..
        } => (stack.as_deref(), reply_stack.as_deref()),
        SourceFile::Ping { stack, .. } => (stack.as_deref(), None),
        SourceFile::Trace { .. } | SourceFile::Handshake { .. } => (None, None),
    };
    if let Some(t) = stack {
        out.push(("stack", t));
    }
    if let Some(t) = reply {
        out.push(("reply_stack", t));
    }
    out
}

/// What a suite is called in messages: its name, or "none" (plaintext).
fn named(s: Option<Suite>) -> &'static str {
    s.map_or("none", Suite::name)
}

/// Checks that `node` (a profile node at key `node_key`, which seals or opens the frames of the
/// stack `text` at `stack_key`) costs the stack's cipher.
pub(super) fn check(
    cx: &Ctx<'_>,
    stack_key: &str,
    text: &str,
    node_key: &str,
    node: &NodeProfile,
) -> Result<(), ScenarioError> {
    let carried = carried(cx, stack_key, text, node_key)?;
    if carried != node.suite {
        let node_suite = named(node.suite);
        let stack_suite = named(carried);
        return Err(cx.invalid(
            stack_key,
            format!(
                "the stack's cipher is {stack_suite}, but {node_key}.service.suite, which seals or opens these frames, costs {node_suite}"
            ),
            format!(
                "the node's suite and the stack's cipher the same: suite = \"{stack_suite}\" at {node_key}, or a stack whose cipher is {node_suite}"
            ),
        ));
    }
    Ok(())
}

/// The suite a stack's frames carry, `None` for plaintext (or a stack that does not parse: the
/// source reports it); a stack protected by a cipher no profile measures is refused at
/// `stack_key` (`node_key` would cost it).
fn carried(
    cx: &Ctx<'_>,
    stack_key: &str,
    text: &str,
    node_key: &str,
) -> Result<Option<Suite>, ScenarioError> {
    let Ok(stack) = text.parse::<Stack>() else {
        return Ok(None);
    };
    let suite = stack.suite();
    if suite.is_none() && stack.protected_len(0).ok().flatten().is_some() {
        return Err(cx.invalid(
            stack_key,
            format!(
                "\"{text}\" protects its frames with a cipher no profile measures, and {node_key} costs them with a profile"
            ),
            format!(
                "a stack whose cipher is one of the measured suites ({})",
                Suite::names()
            ),
        ));
    }
    Ok(suite)
}

/// A stack whose frames a node seals or opens: the node's key, the stack's key and text.
pub(super) struct Crossing {
    /// Index of the node.
    pub node: usize,
    /// `node[i] ("name")`.
    pub node_key: String,
    /// `flow[j] ("name").source.stack`.
    pub stack_key: String,
    /// The stack as the file gives it.
    pub text: String,
}

/// Gives every profile node that named no `suite` the suite of the stacks it seals or opens
/// (`crossings`, in file order), and its seal and open costs from its profile: one suite per
/// node (two are refused, naming both stacks), plaintext when no protected stack crosses it.
pub(super) fn resolve(
    cx: &Ctx<'_>,
    crossings: &[Crossing],
    nodes: &mut [NodeConfig],
    node_profiles: &mut [Option<std::sync::Arc<NodeProfile>>],
    profiles: &std::collections::HashMap<std::path::PathBuf, profile::Profile>,
) -> Result<(), ScenarioError> {
    // The first stack seen at each node, and its suite.
    let mut first: Vec<Option<(&Crossing, Option<Suite>)>> = vec![None; nodes.len()];
    for c in crossings {
        let suite = carried(cx, &c.stack_key, &c.text, &c.node_key)?;
        match first[c.node] {
            None => first[c.node] = Some((c, suite)),
            Some((f, s)) if s != suite => {
                return Err(cx.invalid(
                    &c.stack_key,
                    format!(
                        "{} seals or opens frames of {} here and of {} at {}: one node costs one suite",
                        c.node_key,
                        named(suite),
                        named(s),
                        f.stack_key
                    ),
                    format!(
                        "stacks of one cipher at {}, or a node per cipher",
                        c.node_key
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    for (n, seen) in first.iter().enumerate() {
        let Some((c, Some(suite))) = seen else {
            continue;
        };
        // Copied only for a node whose suite the stacks decide (a profile shared by other
        // nodes stays theirs).
        let Some(np) = node_profiles[n]
            .as_mut()
            .filter(|np| np.suite_from_stacks)
            .map(std::sync::Arc::make_mut)
        else {
            continue;
        };
        if np.offloaded {
            np.suite = Some(*suite);
            continue;
        }
        let Some(p) = profiles.get(std::path::Path::new(&np.origin)) else {
            continue;
        };
        let op = |dir: profile::Direction| {
            p.cipher(*suite, dir).cloned().map_err(|e| {
                cx.invalid(
                    &c.stack_key,
                    format!(
                        "{e}: {} costs this stack's {} with {}",
                        c.node_key,
                        suite.name(),
                        np.origin
                    ),
                    "a stack whose cipher the node's profile measured both ways, or a profile that measured it",
                )
            })
        };
        let (seal, open) = (op(profile::Direction::Seal)?, op(profile::Direction::Open)?);
        nodes[n].service = profile_service(np.stack_ns, Some(&seal));
        nodes[n].receive = Some(profile_service(np.stack_ns, Some(&open)));
        np.suite = Some(*suite);
        np.seal = Some(seal);
        np.open = Some(open);
    }
    Ok(())
}
