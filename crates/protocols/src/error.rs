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
    /// A handshake's setting that the model refuses (a CERTREQ with too many CAs, vendor IDs
    /// from a peer that sends none), naming the setting.
    #[error("invalid arguments for `{layer}`: {reason}")]
    BadSetting {
        /// The setting.
        input: Input,
        /// The payload or message it shapes, e.g. `IKEv2 CERTREQ`.
        layer: &'static str,
        /// Why it is refused and what would be accepted.
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
        /// What kind of name (e.g. [`Input::KeyExchange`], said `key exchange`).
        what: Input,
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
        /// The input that made it so large (certificates, a key exchange, an identity), or
        /// [`Input::Message`] for the message as a whole.
        input: Input,
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

impl Error {
    /// The input this error is about, when it names one: a caller blames its own flag or key
    /// for it from this, never from the message's words.
    pub fn input(&self) -> Option<Input> {
        match self {
            Error::UnknownName { what, .. } => Some(*what),
            Error::FieldOverflow { input, .. } | Error::BadSetting { input, .. } => Some(*input),
            Error::MtuTooSmall { .. } => Some(Input::Mtu),
            _ => None,
        }
    }
}

/// What an error is about: the kind of name refused, or the input of a handshake whose value
/// did not fit. Displayed as a message says it (`key exchange`, `IKE cipher`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Input {
    /// A key exchange method (`x25519`, `mlkem768`, a hybrid), or the KE payload it fills.
    KeyExchange,
    /// A TLS 1.3 key-share group.
    TlsGroup,
    /// An IKEv2 authentication method.
    Authentication,
    /// A TLS 1.3 server's authentication.
    TlsAuthentication,
    /// The certificate chain: a CERT payload, IKE_AUTH's chain, TLS's Certificate message.
    Certificates,
    /// An IKEv2 identity (an IDi or IDr payload).
    Identity,
    /// The CAs a CERTREQ names.
    CertReq,
    /// A peer's vendor IDs.
    VendorId,
    /// An IKE SA's cipher.
    IkeCipher,
    /// An IKEv2 peer whose messages are modelled.
    IkePeer,
    /// An IKEv2 notify message type.
    IkeNotify,
    /// The IP version of a path.
    IpVersion,
    /// A path's MTU.
    Mtu,
    /// An O-RAN interface of the catalogue.
    Interface,
    /// A split policy.
    SplitPolicy,
    /// Where IPsec fragments (before or after encryption).
    IpsecFragmentation,
    /// What an Ethernet byte count counts.
    ByteCount,
    /// A message as a whole, or a part of it no single input sizes.
    Message,
}

impl std::fmt::Display for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Input::KeyExchange => "key exchange",
            Input::TlsGroup => "TLS key-share group",
            Input::Authentication => "authentication",
            Input::TlsAuthentication => "TLS 1.3 server authentication",
            Input::Certificates => "certificate chain",
            Input::Identity => "identity",
            Input::CertReq => "CERTREQ",
            Input::VendorId => "vendor ID",
            Input::IkeCipher => "IKE cipher",
            Input::IkePeer => "IKEv2 peer",
            Input::IkeNotify => "IKEv2 notify",
            Input::IpVersion => "IP version",
            Input::Mtu => "MTU",
            Input::Interface => "interface",
            Input::SplitPolicy => "split policy",
            Input::IpsecFragmentation => "IPsec fragmentation",
            Input::ByteCount => "byte count",
            Input::Message => "message",
        })
    }
}

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;
