//! An IKE daemon's measured work, charged by the engine (issue 35): a node whose profile holds a
//! real strongSwan's implementation terms (`oransim calibrate --run strongswan`) runs its
//! handshakes as that daemon does, not as a cipher-only lower bound.
//!
//! What a handshake source charges at a daemon node, per IKE SA (docs/validation.md, "The
//! engine's model of a daemon"):
//!
//! - **message handling**: the daemon's CPU per SA beyond its key operations, measured in a
//!   storm (`ike.daemon.{initiator,responder}.loaded`), spread evenly over the messages the side
//!   builds and parses: with k exchanges each side handles 2k messages, so each exchange costs
//!   the responder 2/2k of it (parse the request, build the response) and the initiator 1/2k
//!   before its request and 1/2k after the response. A handshake of more exchanges (an
//!   IKE_INTERMEDIATE per additional key exchange) costs more messages' handling. Where the
//!   profile measured it (`ike.daemon.{initiator,responder}.alone`, a storm with each daemon on
//!   a CPU of its own), a daemon that has its host to itself is charged that instead: `loaded`
//!   was measured with both daemons sharing the host's cores, which costs more per SA
//!   ([`Daemon::alone`]); likewise the state work (`ike.daemon.{side}.alone_per_held_sa`).
//! - **certificate handling** (`ike.certificate.{initiator,responder}.loaded`, measured in a
//!   storm, or else `ike.certificate.{initiator,responder}`, one set-up at a time), with
//!   certificate authentication, on IKE_AUTH: all of the responder's on the request, the
//!   initiator's half before its request and half after the response.
//! - **state**: `ike.daemon.{initiator,responder}.per_held_sa` \[ns\] per IKE SA the node holds,
//!   on each message the side receives (the engine counts the SAs each node holds: one per
//!   tunnel it started or answered).
//!
//! A Child SA rekey (a handshake source with `rekey = "child"`: CREATE_CHILD_SA with REKEY_SA,
//! then the INFORMATIONAL deleting the old Child SA) charges its measured work per rekey
//! (`ike.rekey.{initiator,responder}.loaded`, from a rekey storm) spread over its four messages
//! in the same way ([`Daemon::for_rekey`]), and the same state work on each message received,
//! with both ends holding every rekeyed tunnel's IKE SA from the start.
//!
//! Every term is CPU time in the node's CPU stage, on its host's cores: the engine's queueing,
//! not a closed form, turns it into storm times. Where the profile counted the daemon's free
//! worker threads (`ike.threads`), its node uses at most that many cores at once: alone, its
//! servers are the fewer of its cores and its threads; on a `[[host]]`, its `threads` default
//! to them.
//!
//! **Job order.** Where a daemon's jobs wait, a free worker takes them in charon's order
//! ([`job_priority`]): an INFORMATIONAL message first, then IKE_SA_INIT, IKE_INTERMEDIATE and
//! CREATE_CHILD_SA, then IKE_AUTH (strongSwan 5.9's `process_message_job.c`, `get_priority`).
//! Without daemon terms every job is first come, first served.

use profile::Term;

/// `plan kex`'s `KexRow::bound` and `HandshakeReport::bound` of a cipher-only profile.
pub const LOWER_BOUND: &str = "cipher-only lower bound";
/// What a scenario run's handshakes count when no side has a daemon's terms, in words.
pub const LOWER_BOUND_WORDS: &str = "cipher-only lower bound, no daemon or data-path work";
/// `plan kex`'s `KexRow::bound` and `HandshakeReport::bound` with implementation terms.
pub const IMPLEMENTATION_TERMS: &str = "implementation terms";

/// A real IKE daemon's measured work at one node (from its profile's implementation terms).
#[derive(Debug, Clone, PartialEq)]
pub struct Daemon {
    /// The implementation, its version and data path, and the profile that measured it, in
    /// words: `strongSwan 5.9.8-5+deb12u6 (kernel-libipsec, profile host-2026-11-26-strongswan)`.
    pub what: String,
    /// CPU per IKE SA beyond the key operations, \[initiator, responder\] \[ns\]: with the
    /// daemons sharing a host's cores (`loaded`), or, once [`Daemon::alone`] made it so, with
    /// the daemon on cores of its own.
    pub per_sa_ns: [f64; 2],
    /// CPU per IKE SA beyond the key operations with each daemon on cores of its own,
    /// \[initiator, responder\] \[ns\] (`ike.daemon.{initiator,responder}.alone`); `None` when the
    /// profile did not measure it (then a daemon alone is charged `per_sa_ns` too).
    pub alone_ns: Option<[f64; 2]>,
    /// [`Daemon::per_held_ns`] with each daemon on cores of its own, \[initiator, responder\]
    /// \[ns\] (`ike.daemon.{initiator,responder}.alone_per_held_sa`); `None` when the profile
    /// did not measure it (then a daemon alone is charged `per_held_ns`).
    pub alone_per_held_ns: Option<[f64; 2]>,
    /// Certificate handling per SA beyond the signatures, \[initiator, responder\] \[ns\]: in
    /// a storm (`ike.certificate.*.loaded`) where the profile measured it, else one set-up at a
    /// time; `None` when the profile measured neither.
    pub certificate_ns: Option<[f64; 2]>,
    /// CPU per message received per IKE SA the node holds, \[initiator, responder\] \[ns\]
    /// (0: the profile measured no state-dependent work).
    pub per_held_ns: [f64; 2],
    /// CPU per Child SA rekeyed (its CREATE_CHILD_SA and the old one's deletion) beyond the
    /// state work, \[initiator, responder\] \[ns\] (`ike.rekey.{initiator,responder}.loaded`,
    /// measured in a rekey storm); `None` when the profile did not measure it (then a rekey's
    /// four messages are charged as a set-up's: [`Daemon::per_sa_ns`]).
    pub rekey_ns: Option<[f64; 2]>,
    /// Worker threads free for IKE jobs (`ike.threads`): the daemon runs its jobs on at most
    /// this many cores at once, whatever its host has; `None` when the profile did not measure
    /// them (then the host's cores are the only limit).
    pub threads: Option<u32>,
}

impl Daemon {
    /// The daemon a profile describes, if it holds a strongSwan's storm terms.
    pub fn from_profile(p: &profile::Profile) -> Option<Daemon> {
        let imp = p.real_implementation()?;
        if imp.name != "strongswan" {
            return None;
        }
        let per_sa_ns = [
            p.term(Term::IkeDaemonInitiatorLoaded)?,
            p.term(Term::IkeDaemonResponderLoaded)?,
        ];
        // Certificate handling measured in a storm where the profile has it, else one set-up
        // at a time.
        let pair = |i: Term, r: Term| p.term(i).zip(p.term(r)).map(|(i, r)| [i, r]);
        let certificate_ns = pair(
            Term::IkeCertificateInitiatorLoaded,
            Term::IkeCertificateResponderLoaded,
        )
        .or_else(|| pair(Term::IkeCertificateInitiator, Term::IkeCertificateResponder));
        let held = |t: Term| p.term(t).unwrap_or(0.0);
        let alone_ns = pair(Term::IkeDaemonInitiatorAlone, Term::IkeDaemonResponderAlone);
        let alone_per_held_ns = pair(
            Term::IkeDaemonInitiatorAlonePerHeldSa,
            Term::IkeDaemonResponderAlonePerHeldSa,
        );
        let rekey_ns = pair(Term::IkeRekeyInitiatorLoaded, Term::IkeRekeyResponderLoaded);
        Some(Daemon {
            what: format!(
                "strongSwan {} ({}, profile {})",
                imp.version,
                imp.data_path,
                p.name()
            ),
            per_sa_ns,
            alone_ns,
            alone_per_held_ns,
            certificate_ns,
            per_held_ns: [
                held(Term::IkeDaemonInitiatorPerHeldSa),
                held(Term::IkeDaemonResponderPerHeldSa),
            ],
            rekey_ns,
            // A count written as a number: the term's range (1 to 4096) makes it one.
            threads: p.term(Term::IkeThreads).map(|t| t.round() as u32),
        })
    }

    /// This daemon as charged for a Child SA rekey: its work per rekey (`rekey_ns`, or a
    /// set-up's message handling where the profile did not measure one) in place of its work
    /// per set-up, no certificate work (a rekey signs nothing), the same state work.
    pub fn for_rekey(&self) -> Daemon {
        Daemon {
            per_sa_ns: self.rekey_ns.unwrap_or(self.per_sa_ns),
            certificate_ns: None,
            ..self.clone()
        }
    }

    /// This daemon as charged on a host of its own (no other daemon node shares its cores):
    /// its `alone` work per SA and per held SA where the profile measured them; `None` when
    /// that changes nothing.
    pub fn alone(&self) -> Option<Daemon> {
        let d = Daemon {
            per_sa_ns: self.alone_ns.unwrap_or(self.per_sa_ns),
            per_held_ns: self.alone_per_held_ns.unwrap_or(self.per_held_ns),
            ..self.clone()
        };
        (d != *self).then_some(d)
    }
}

/// A real data path's measured work at one node (from its profile's implementation terms,
/// docs/validation.md "The engine's model of a data path"): every packet the node seals or
/// opens costs `per_packet_ns` + `per_byte_ns` x its length of CPU besides the cipher, in the
/// stage the implementation runs it in (`threads` servers), and is delayed `delay_ns` more
/// without occupying it. strongSwan's ESP ([`DataPath::from_profile`]) or OpenSSL's TLS
/// records ([`DataPath::tls_from_profile`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DataPath {
    /// The implementation, version and data path, and the profile, in words (as
    /// [`Daemon::what`]).
    pub what: String,
    /// CPU per ESP packet besides the cipher \[ns\]: `esp.per_packet`, plus
    /// `esp.openssl.per_packet` for a suite strongSwan's openssl plugin does (ChaCha20-Poly1305:
    /// [`openssl_plugin`]).
    pub per_packet_ns: f64,
    /// CPU per byte of a packet the node seals, besides the cipher \[ns/B\]: TLS's
    /// `tls.server.record_overhead_per_byte` (the sending process's), or half of the older
    /// `tls.record.overhead_per_byte` (0 for ESP: `esp.per_byte` is not measured).
    pub seal_per_byte_ns: f64,
    /// CPU per byte of a packet the node opens, besides the cipher \[ns/B\]: TLS's
    /// `tls.client.record_overhead_per_byte` (the receiving process's), or half of the older
    /// `tls.record.overhead_per_byte` (0 for ESP).
    pub open_per_byte_ns: f64,
    /// Delay per ESP traversal that occupies no server: a quarter of what ESP adds to a round
    /// trip besides the ciphers (`esp.latency`: four traversals, measured through aesni), less
    /// the `esp.per_packet` each traversal already pays as CPU; at least 0 \[ns\].
    pub delay_ns: f64,
    /// Servers the stage has: kernel-libipsec runs each direction's ESP in one thread (its
    /// processor); `None`: the node's cores (a kernel data path, softirq on every core).
    pub threads: Option<u32>,
}

/// Whether strongSwan's data path runs `suite` in its openssl plugin rather than its aesni
/// plugin, with the plugins in strongSwan's default order (aesni before openssl): only
/// ChaCha20-Poly1305, which aesni does not implement.
pub fn openssl_plugin(suite: protocols::Suite) -> bool {
    use protocols::Suite;
    match suite {
        Suite::ChaCha20Poly1305 => true,
        // The copy has no plugin; aesni runs AES-GCM, AES-CCM, GMAC and AES-CBC.
        Suite::Copy
        | Suite::Aes128Gcm
        | Suite::Aes256Gcm
        | Suite::Aes128Ccm
        | Suite::Aes256Ccm
        | Suite::AesCbcHmac { .. }
        | Suite::Gmac { .. } => false,
    }
}

impl DataPath {
    /// The ESP data path a profile describes for `suite`, if the profile holds a strongSwan's
    /// `esp.per_packet` (a per-packet time of 0 is no measured data path). A suite the openssl
    /// plugin runs ([`openssl_plugin`]) also pays the profile's `esp.openssl.per_packet`
    /// (0 in a profile fitted before that term).
    pub fn from_profile(p: &profile::Profile, suite: Option<protocols::Suite>) -> Option<DataPath> {
        let imp = p.real_implementation()?;
        if imp.name != "strongswan" {
            return None;
        }
        let base_ns = p.term(Term::EspPerPacket).filter(|v| *v > 0.0)?;
        let plugin_ns = if suite.is_some_and(openssl_plugin) {
            p.term(Term::EspOpensslPerPacket).unwrap_or(0.0)
        } else {
            0.0
        };
        // `esp.latency` was measured through aesni: it holds `esp.per_packet` four times, and
        // the openssl plugin's work lengthens a round trip beyond it.
        let latency = p.term(Term::EspLatency).unwrap_or(0.0);
        Some(DataPath {
            what: format!(
                "strongSwan {} ({}, profile {})",
                imp.version,
                imp.data_path,
                p.name()
            ),
            per_packet_ns: base_ns + plugin_ns,
            seal_per_byte_ns: 0.0,
            open_per_byte_ns: 0.0,
            delay_ns: (latency / 4.0 - base_ns).max(0.0),
            threads: (imp.data_path == "kernel-libipsec").then_some(1),
        })
    }

    /// The TLS record path a profile describes (`oransim calibrate --run openssl-tls`), the
    /// record stream `validate tls` runs in the engine (docs/implementation-tls.md, "Bulk
    /// records"): a record the node seals costs `tls.server.record_overhead_per_byte` of CPU
    /// per byte besides the cipher (`s_server`'s, which sends), one it opens
    /// `tls.client.record_overhead_per_byte` (`s_time`'s, which receives), on the node's cores;
    /// and a record reaches its reader `tls.record.wakeup_latency` after it was written, half
    /// of it at each end (a delay that occupies no server). A profile fitted before those terms
    /// holds only the serial form's `tls.record.overhead_per_byte` (the record stream's time per
    /// byte beyond seal and open, which end spends it not measured apart): each end is charged
    /// half of it, with no delay. `None` without either (0 is no measured path).
    pub fn tls_from_profile(p: &profile::Profile) -> Option<DataPath> {
        let imp = p.real_implementation()?;
        if imp.name != "openssl-tls" {
            return None;
        }
        let sides = (
            p.term(Term::TlsServerRecordOverheadPerByte),
            p.term(Term::TlsClientRecordOverheadPerByte),
        );
        let (seal, open, delay) = match sides {
            (Some(seal), Some(open)) => (
                seal,
                open,
                p.term(Term::TlsRecordWakeupLatency).unwrap_or(0.0) / 2.0,
            ),
            _ => {
                let serial = p
                    .term(Term::TlsRecordOverheadPerByte)
                    .filter(|v| *v > 0.0)?;
                (serial / 2.0, serial / 2.0, 0.0)
            }
        };
        Some(DataPath {
            what: format!(
                "OpenSSL {} TLS records ({}, profile {})",
                imp.version,
                imp.data_path,
                p.name()
            ),
            per_packet_ns: 0.0,
            seal_per_byte_ns: seal,
            open_per_byte_ns: open,
            delay_ns: delay,
            threads: None,
        })
    }
}

/// The daemon work of one exchange at each side \[ns\]: (initiator before the request,
/// responder, initiator after the response, initiator per held SA, responder per held SA).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct ExchangeWork {
    pub(super) before: f64,
    pub(super) responder: f64,
    pub(super) after: f64,
    pub(super) held: [f64; 2],
}

/// The class of charon's job processing a message of the exchange `name` (strongSwan 5.9.8,
/// `src/libcharon/processing/jobs/process_message_job.c`, `get_priority`): INFORMATIONAL is
/// high ("inexpensive, for DPD we should have low reaction times"), IKE_AUTH low ("rather
/// expensive and often blocking"), every other exchange (IKE_SA_INIT, IKE_INTERMEDIATE,
/// CREATE_CHILD_SA) medium. `name` is the IKEv2 model's exchange name, which starts with the
/// exchange type (`protocols::ikev2::Exchange::name`, e.g. `INFORMATIONAL (delete Child SA)`).
pub(super) fn job_priority(name: &str) -> sim_core::JobPriority {
    use sim_core::JobPriority;
    match name.split(' ').next() {
        Some("INFORMATIONAL") => JobPriority::High,
        Some("IKE_AUTH") => JobPriority::Low,
        _ => JobPriority::Medium,
    }
}

/// The daemon work of exchange `j` of `k` (`auth`: the IKE_AUTH exchange of a certificate
/// set-up) between an initiator node and a responder node, each with or without a daemon (see
/// the module docs).
pub(super) fn exchange_work(
    (init, resp): (Option<&Daemon>, Option<&Daemon>),
    k: usize,
    cert_auth: bool,
) -> ExchangeWork {
    let messages = 2.0 * k.max(1) as f64;
    let mut w = ExchangeWork::default();
    if let Some(d) = init {
        let share = d.per_sa_ns[0] / messages;
        let cert = if cert_auth {
            d.certificate_ns.map_or(0.0, |c| c[0] / 2.0)
        } else {
            0.0
        };
        w.before = share + cert;
        w.after = share + cert;
        w.held[0] = d.per_held_ns[0];
    }
    if let Some(d) = resp {
        let cert = if cert_auth {
            d.certificate_ns.map_or(0.0, |c| c[1])
        } else {
            0.0
        };
        w.responder = 2.0 * d.per_sa_ns[1] / messages + cert;
        w.held[1] = d.per_held_ns[1];
    }
    w
}

/// What a handshake between `init` and `resp` was charged, in words: each side's daemon, or the
/// cipher-only lower bound where a side has none.
pub fn charged(init: Option<&Daemon>, resp: Option<&Daemon>) -> String {
    match (init.map(|d| &d.what), resp.map(|d| &d.what)) {
        (None, None) => LOWER_BOUND_WORDS.to_owned(),
        (Some(i), Some(r)) if i == r => format!("charged: {i}, both sides"),
        (i, r) => format!(
            "charged: initiator {}, responder {}",
            i.map_or("cipher-only (no daemon terms)", |s| s.as_str()),
            r.map_or("cipher-only (no daemon terms)", |s| s.as_str())
        ),
    }
}
