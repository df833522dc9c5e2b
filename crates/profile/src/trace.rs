//! Which profile parameters a computation read: the provenance of a result.
//!
//! `oransim reproduce` classifies each published number it compares by what the model's value
//! depends on (docs/reproduction.md, "Evidence classes"): a value computed from a parameter that
//! was fitted to the same published number is *fitted*, not *predicted*. Rather than have each
//! study declare the parameters it uses, [`record`] runs a computation and returns every
//! parameter the [`Profile`](crate::Profile) accessors were asked for while it ran, with the
//! published numbers each was fitted to.
//!
//! Reads are recorded per thread, so a computation must not hand profile reads to other
//! threads (the reproduction runs its scenarios with one thread). Recordings nest: an inner
//! [`record`] also reports its reads to every enclosing one. Outside any recording a read costs
//! one thread-local lookup.

use std::cell::RefCell;
use std::collections::BTreeMap;

/// One profile parameter a computation read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Read {
    /// The parameter: `<profile name>:<key>`, the key as the file spells it (`node.io`,
    /// `node.cores`, `ops."aes128-gcm.seal"`).
    pub param: String,
    /// The published numbers (target ids) the parameter was fitted to; empty for a measured or
    /// assumed value.
    pub fitted_to: Vec<String>,
}

thread_local! {
    static FRAMES: RefCell<Vec<BTreeMap<String, Vec<String>>>> = const { RefCell::new(Vec::new()) };
}

/// Whether a [`record`] is running on this thread.
pub(crate) fn recording() -> bool {
    FRAMES.with(|f| !f.borrow().is_empty())
}

/// Notes that parameter `key` of the profile named `profile`, fitted to the targets
/// `fitted_to`, was read. The [`Profile`](crate::Profile) accessors call it; so does code that
/// keeps a copy of a parameter and reads the copy later.
pub fn note(profile: &str, key: &str, fitted_to: &[String]) {
    FRAMES.with(|f| {
        let mut frames = f.borrow_mut();
        if frames.is_empty() {
            return;
        }
        let param = format!("{profile}:{key}");
        for frame in frames.iter_mut() {
            frame
                .entry(param.clone())
                .or_insert_with(|| fitted_to.to_vec());
        }
    });
}

/// Runs `f` with no recording: what it reads is not reported to any enclosing [`record`]. For
/// reads that describe a profile (a warning about it, a reference figure beside a result)
/// rather than compute the result.
pub fn unrecorded<T>(f: impl FnOnce() -> T) -> T {
    let saved = FRAMES.with(|frames| std::mem::take(&mut *frames.borrow_mut()));
    // Put the recordings back even if `f` panics.
    struct Restore(Option<Vec<BTreeMap<String, Vec<String>>>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(saved) = self.0.take() {
                FRAMES.with(|frames| *frames.borrow_mut() = saved);
            }
        }
    }
    let _restore = Restore(Some(saved));
    f()
}

/// Runs `f` and returns its value with every profile parameter read while it ran, sorted by
/// parameter, each once.
pub fn record<T>(f: impl FnOnce() -> T) -> (T, Vec<Read>) {
    FRAMES.with(|frames| frames.borrow_mut().push(BTreeMap::new()));
    // Pop the frame even if `f` panics, so a later recording on this thread starts clean.
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            FRAMES.with(|frames| {
                frames.borrow_mut().pop();
            });
        }
    }
    let guard = Pop;
    let value = f();
    let reads = FRAMES.with(|frames| frames.borrow_mut().last_mut().map(std::mem::take));
    drop(guard);
    let reads = reads
        .unwrap_or_default()
        .into_iter()
        .map(|(param, fitted_to)| Read { param, fitted_to })
        .collect();
    (value, reads)
}
