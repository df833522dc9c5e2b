//! The one error type of this crate.

use std::path::PathBuf;

/// Everything that can go wrong loading a profile or asking it for a cost. Every variant names
/// the file (or the origin given to [`crate::Profile::from_toml_str`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProfileError {
    /// The file could not be read.
    #[error("cannot read calibration profile {}: {error}", path.display())]
    Io {
        /// The path that was opened.
        path: PathBuf,
        /// What the operating system said, in the message (so it is no `source()` too: a
        /// cause is said once).
        error: std::io::Error,
    },
    /// The text is not TOML, or does not have the profile's shape (a missing field, a field of
    /// the wrong type, an unknown field). The message from the TOML reader gives the line,
    /// column and key.
    #[error("{origin}: {message}")]
    Parse {
        /// File name or origin.
        origin: String,
        /// The TOML reader's message.
        message: String,
    },
    /// The profile was written in a newer format than this build of oransim reads.
    #[error(
        "{origin}: `format_version` is {found}, but this build of oransim reads profile formats up to {supported}; upgrade oransim or re-run `oransim calibrate`"
    )]
    NewerFormat {
        /// File name or origin.
        origin: String,
        /// The version in the file.
        found: i64,
        /// The newest version this build reads.
        supported: u32,
    },
    /// A value has the right TOML type but is not allowed: a negative cost, a unit error, an
    /// unordered table, an inconsistent model.
    #[error("{origin}: `{key}`: {message}")]
    Invalid {
        /// File name or origin.
        origin: String,
        /// Dotted key path of the offending value, e.g. `ops."aes128-gcm.seal".fixed`.
        key: String,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// A cost was asked for an operation the profile does not hold.
    #[error("{origin}: profile `{profile}` has no operation `{op}`; it has: {}", available.join(", "))]
    UnknownOp {
        /// File name or origin.
        origin: String,
        /// Profile name.
        profile: String,
        /// The operation asked for.
        op: String,
        /// The operations the profile holds, sorted.
        available: Vec<String>,
    },
    /// The profile could not be written as TOML (a bug in the writer, not the user's input).
    #[error("cannot serialise profile `{profile}` as TOML: {message}")]
    Serialize {
        /// Profile name.
        profile: String,
        /// The TOML writer's message.
        message: String,
    },
    /// Merging profiles: an added profile has an operation the base (or an earlier added
    /// profile) has too, and it was not named to be replaced.
    #[error(
        "{origin}: `ops.\"{op}\"`: {other} has this operation too{}",
        if *other_is_base { "; a merge takes each op from one file, so name it to be replaced to take this file's cost" } else { " (another added file); a merge takes each op from one file" }
    )]
    MergeOpInBoth {
        /// The added profile.
        origin: String,
        /// The operation.
        op: String,
        /// The profile that has it too.
        other: String,
        /// Whether that is the base (which a replacement may override).
        other_is_base: bool,
    },
    /// Merging profiles: an added profile has an `[implementation]` section; only the base's
    /// terms are kept.
    #[error(
        "{origin}: `implementation`: the added profile has `{implementation}`'s terms, which a merge does not take (they were fitted with that profile's own op costs){}",
        if *base_has_one { format!("; the base {base} has its own") } else { format!("; give {origin} as the base and add {base}'s ops to it instead") }
    )]
    MergeImplementation {
        /// The added profile.
        origin: String,
        /// Its `[implementation].name`.
        implementation: String,
        /// The base profile.
        base: String,
        /// Whether the base has an `[implementation]` too.
        base_has_one: bool,
    },
    /// Merging profiles: an op named to be replaced is not one the base has, or no added
    /// profile has it.
    #[error(
        "`{op}` is named to be replaced, but {}",
        if *in_base { "no added profile has it".to_owned() } else { format!("the base {base} has no such operation") }
    )]
    MergeReplaceUnused {
        /// The op named.
        op: String,
        /// The base profile.
        base: String,
        /// Whether the base has it.
        in_base: bool,
    },
}
