//! The one error type of this crate.

/// Everything that can go wrong when describing, sizing or splitting a protocol stack.
///
/// Every message says what was wrong and, where there is a closed set, what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The stack text is not a `/`-separated list of `name` or `name(arg,...)` layers.
    #[error("malformed stack `{text}`: {reason}")]
    MalformedStack {
        /// The text as given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A layer name that this crate does not know.
    #[error("unknown layer `{name}`; allowed layers: {allowed}")]
    UnknownLayer {
        /// The name as given.
        name: String,
        /// The layer names that are allowed.
        allowed: String,
    },
    /// A cipher suite or algorithm name that a layer does not know.
    #[error("unknown {what} `{name}` for `{layer}`; allowed: {allowed}")]
    UnknownSuite {
        /// The layer, e.g. `esp-tunnel`.
        layer: String,
        /// What kind of name it was (cipher, integrity algorithm, option, ...).
        what: &'static str,
        /// The name as given.
        name: String,
        /// The names that are allowed.
        allowed: String,
    },
    /// A layer's arguments are individually valid but do not make sense together.
    #[error("invalid arguments for `{layer}`: {reason}")]
    BadArguments {
        /// The layer, e.g. `esp-tunnel(aes128-gcm-16,hmac-sha1-96)`.
        layer: String,
        /// Why the combination is rejected and what would be accepted.
        reason: String,
    },
    /// A layer sits on a layer that cannot carry it (e.g. ESP directly on Ethernet).
    #[error("`{layer}` cannot sit on {below}; it must sit on {allowed}")]
    BadPlacement {
        /// The layer that is misplaced.
        layer: String,
        /// What is below it (`the bottom of the stack` when it is first).
        below: String,
        /// What it may sit on.
        allowed: String,
    },
    /// A payload larger than a length field of the protocol can describe.
    #[error("{what} of {len} bytes is over the maximum of {max} bytes for {layer}")]
    PayloadTooLarge {
        /// The layer or message whose limit is exceeded.
        layer: String,
        /// What exceeded it (e.g. `IPv4 total length`).
        what: &'static str,
        /// The size that was asked for \[bytes\].
        len: usize,
        /// The largest size allowed \[bytes\].
        max: usize,
    },
    /// An MTU that cannot carry even the headers of the stack.
    #[error("MTU {mtu} is too small: {what} needs at least {min} bytes")]
    MtuTooSmall {
        /// The MTU as given \[bytes\].
        mtu: usize,
        /// What needed more room.
        what: String,
        /// The smallest MTU that would work \[bytes\].
        min: usize,
    },
    /// A path with no hops has no MTU.
    #[error("a path needs at least one hop to have an MTU")]
    EmptyPath,
    /// An operation needs a layer the stack does not have.
    #[error("stack `{stack}` has no {needed}: {why}")]
    MissingLayer {
        /// The stack as text.
        stack: String,
        /// What kind of layer is needed.
        needed: &'static str,
        /// The operation that needs it.
        why: &'static str,
    },
    /// A name from a closed list that is not on the list (interface, key exchange, policy...).
    #[error("unknown {what} `{name}`; allowed: {allowed}")]
    UnknownName {
        /// What kind of name (e.g. `key exchange`).
        what: &'static str,
        /// The name as given.
        name: String,
        /// The names that are allowed.
        allowed: String,
    },
    /// A size that does not fit a length field of a handshake message.
    #[error("{what}: {len} bytes do not fit the {field} (at most {max} bytes)")]
    FieldOverflow {
        /// The object that is too large.
        what: String,
        /// The length field that cannot describe it.
        field: &'static str,
        /// Its size \[bytes\].
        len: usize,
        /// The largest size the field can describe \[bytes\].
        max: usize,
    },
    /// A buffer too short for the header or packet it should hold.
    #[error("{what}: buffer of {len} bytes is shorter than the {min} bytes needed")]
    Truncated {
        /// The header or packet (e.g. `IPv4 header`).
        what: &'static str,
        /// The buffer's length \[bytes\].
        len: usize,
        /// The bytes needed \[bytes\].
        min: usize,
    },
    /// Bytes that do not follow the protocol: a wrong field value, checksum or padding.
    #[error("malformed {what}: {reason}")]
    Malformed {
        /// The header or packet (e.g. `ESP trailer`).
        what: &'static str,
        /// Which field is wrong, with the value found and the value allowed.
        reason: String,
    },
    /// A layer whose bytes this crate can size but not write.
    #[error("cannot write the bytes of `{layer}`: {why}")]
    Unsupported {
        /// The layer as text.
        layer: String,
        /// What is missing, and which layers can be written.
        why: &'static str,
    },
    /// A measured suite that a protection layer does not carry (e.g. the copy baseline in ESP,
    /// AES-CBC + HMAC in TLS 1.3).
    #[error("`{layer}` does not carry suite `{suite}`; allowed: {allowed}")]
    SuiteNotCarried {
        /// The layer's name (`esp-tunnel`, `tls13`, `macsec`).
        layer: &'static str,
        /// The suite's name (`copy`, `aes128-cbc-hmac-sha256`, ...).
        suite: &'static str,
        /// The suites the layer carries, comma-separated.
        allowed: String,
    },
    /// The built-in data file of KEM sizes could not be read (a bug in this crate).
    #[error("bad KEM size table: {0}")]
    KemTable(String),
}

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;
