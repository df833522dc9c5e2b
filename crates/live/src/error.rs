//! The crate's one error type.

/// What can go wrong in a live run or its prediction.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LiveError {
    /// A command-line or configuration value is not allowed.
    #[error("bad {what} `{got}`: allowed {allowed}")]
    BadArgument {
        /// Which setting.
        what: String,
        /// The value given.
        got: String,
        /// What is allowed.
        allowed: String,
    },
    /// A socket or runtime operation failed.
    #[error("{context}: {error}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error, in the message (so it is no `source()` too: a cause is said
        /// once).
        error: std::io::Error,
    },
    /// The protocol model refused a stack or size.
    #[error("protocol model: {0}")]
    Protocol(protocols::Error),
    /// The calibration profile could not be read or lacks an operation.
    #[error(transparent)]
    Profile(#[from] profile::ProfileError),
    /// The simulator refused the scenario built for the prediction.
    #[error("prediction scenario: {0}")]
    Scenario(String),
    /// The cipher refused to seal a packet (the AEAD's length limit); nothing was sent.
    #[error("sealing a {len} B payload with {protection} failed: {reason}")]
    Seal {
        /// The protection's name ([`crate::Protection::name`]).
        protection: &'static str,
        /// The payload length \[bytes\].
        len: usize,
        /// What the cipher or the packet builder reported.
        reason: String,
    },
    /// The SA has sealed as many datagrams as its sequence number allows: one more would repeat
    /// a sequence number and with it an AES-GCM nonce. Nothing was sent; a new SA is needed.
    #[error(
        "{protection} may seal at most {limit} datagrams under one key ({rule}); this security association is exhausted and refuses to repeat a sequence number or nonce: set up a new one"
    )]
    SequenceExhausted {
        /// The protection's name ([`crate::Protection::name`]).
        protection: &'static str,
        /// Datagrams one SA may seal ([`crate::Protection::packets_per_sa`]).
        limit: u64,
        /// The standard's rule.
        rule: &'static str,
    },
    /// The run measured nothing usable (every packet lost, or a bound hit first).
    #[error("measurement failed: {0}")]
    Measurement(String),
    /// A real implementation the run needs is not on this host and cannot be installed.
    #[error("skipped: {0}")]
    Skipped(String),
}

impl LiveError {
    pub(crate) fn io(context: impl Into<String>, error: std::io::Error) -> LiveError {
        LiveError::Io {
            context: context.into(),
            error,
        }
    }
}
