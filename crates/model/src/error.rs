//! The one error type of the model crate.

use std::path::PathBuf;

/// Why a scenario could not be loaded. Every variant names the file; validation errors name the
/// key path, what was wrong and what is allowed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("cannot read {}: {error}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error, said in the message (so it is no `source()` too: a cause is said
        /// once).
        error: std::io::Error,
    },
    /// The file is not UTF-8 text (binary garbage, a wrong file).
    #[error("{}: not UTF-8 text (byte {offset} is invalid); a TOML scenario file is expected", path.display())]
    NotText {
        /// The file.
        path: PathBuf,
        /// Offset of the first invalid byte.
        offset: usize,
    },
    /// The file is empty or only comments.
    #[error("{}: the file is empty; a scenario needs at least one [[node]] and one [[flow]] table", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// TOML syntax, an unknown key, a wrong type, or a missing key (with line and column).
    #[error("{}: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The parser's message, with line, column and the offending text.
        message: String,
    },
    /// The engine refused the network (a scenario changed after validation into one it cannot
    /// run).
    #[error(transparent)]
    Network(#[from] sim_core::NetworkError),
    /// A value that parses but is not acceptable.
    #[error("{}: {key}: {problem}; {allowed}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The TOML key path, e.g. `link[0] ("fh").rate`.
        key: String,
        /// What is wrong.
        problem: String,
        /// What is allowed.
        allowed: String,
    },
}

impl ScenarioError {
    /// The same error with an [`Invalid`](ScenarioError::Invalid) key rewritten by `f` (to name
    /// the flag or the template behind a generated key); any other error as it is.
    pub fn map_key(self, f: impl FnOnce(String) -> String) -> ScenarioError {
        match self {
            ScenarioError::Invalid {
                path,
                key,
                problem,
                allowed,
            } => ScenarioError::Invalid {
                path,
                key: f(key),
                problem,
                allowed,
            },
            other => other,
        }
    }
}
