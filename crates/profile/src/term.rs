//! The implementation terms a profile's `[implementation.terms]` may hold: one table of names,
//! units and writers. The writers (`oransim calibrate --run strongswan|tls`, through
//! `evidence::validate`), the checker ([`crate::Profile::from_file`]) and the readers
//! ([`crate::Profile::term`]) all go through [`Term`], so a misspelt term does not compile; a
//! term's name is text only in the file, parsed once by [`Term::parse`].
//!
//! ```
//! use profile::{RealImplementation, Term, TermUnit};
//!
//! let t = Term::parse("ike.daemon.responder.loaded").unwrap();
//! assert_eq!(t, Term::IkeDaemonResponderLoaded);
//! assert_eq!(t.name(), "ike.daemon.responder.loaded");
//! assert_eq!(t.unit(), TermUnit::Ns);
//! assert_eq!(t.unit().as_str(), "ns");
//! assert_eq!(t.implementation(), RealImplementation::Strongswan);
//! assert_eq!(Term::parse("ike.daemon.responder.laoded"), None);
//! assert!(Term::ALL.iter().all(|t| Term::parse(t.name()) == Some(*t)));
//! ```

use std::fmt;

/// A real implementation measured by running it, as `[implementation].name` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RealImplementation {
    /// strongSwan's charon with its data path (`oransim calibrate --run strongswan`).
    Strongswan,
    /// OpenSSL's `s_server`/`s_time` on loopback (`oransim calibrate --run tls`).
    OpensslTls,
}

impl RealImplementation {
    /// Every implementation, in the order of [`RealImplementation::name`]'s table.
    pub const ALL: [RealImplementation; 2] = [
        RealImplementation::Strongswan,
        RealImplementation::OpensslTls,
    ];

    /// The name `[implementation].name` spells: `"strongswan"`, `"openssl-tls"`.
    pub const fn name(self) -> &'static str {
        match self {
            RealImplementation::Strongswan => "strongswan",
            RealImplementation::OpensslTls => "openssl-tls",
        }
    }

    /// The implementation named `name`, if there is one.
    pub fn parse(name: &str) -> Option<RealImplementation> {
        RealImplementation::ALL
            .into_iter()
            .find(|i| i.name() == name)
    }

    /// The terms this implementation's profiles may hold, in [`Term::ALL`]'s order.
    pub fn terms(self) -> impl Iterator<Item = Term> {
        Term::ALL
            .into_iter()
            .filter(move |t| t.implementation() == self)
    }
}

impl fmt::Display for RealImplementation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The unit of an implementation term, as the file writes it (`unit = "ns"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TermUnit {
    /// Nanoseconds, `"ns"`: a time or a CPU time.
    Ns,
    /// Nanoseconds per byte, `"ns/B"`.
    NsPerByte,
    /// Cores' worth of work, `"cores"` (may be fractional).
    Cores,
    /// A dimensionless count, `"1"` (worker threads).
    Count,
}

impl TermUnit {
    /// Every unit.
    pub const ALL: [TermUnit; 4] = [
        TermUnit::Ns,
        TermUnit::NsPerByte,
        TermUnit::Cores,
        TermUnit::Count,
    ];

    /// The unit as the file writes it: `"ns"`, `"ns/B"`, `"cores"`, `"1"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            TermUnit::Ns => "ns",
            TermUnit::NsPerByte => "ns/B",
            TermUnit::Cores => "cores",
            TermUnit::Count => "1",
        }
    }
}

impl fmt::Display for TermUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One implementation term: a number measured by running a real implementation, beyond what its
/// cipher and key-op calls cost (docs/validation.md, docs/implementation-tls.md; how each is
/// fitted: `evidence::validate::strongswan` and `evidence::validate::tls`).
///
/// Grouped as the model uses them. strongSwan's IKE daemon: per-exchange handling
/// (`ike.exchange.*`, `ike.latency`, `ike.daemon.*.idle|loaded|alone`), certificate handling
/// (`ike.certificate.*`), Child SA installation (`ike.child_sa.install*`), worker threads and
/// parallelism (`ike.threads`, `ike.parallelism`, `ike.host_cpus`), state-dependent work
/// (`ike.daemon.*.per_held_sa`); its data path: per packet, per byte, added latency
/// (`esp.*`); OpenSSL's TLS server: per handshake (`tls.*.handshake_overhead`,
/// `tls.handshake.wait_offset`), per record byte (`tls.record.overhead_per_byte`,
/// `tls.*.record_overhead_per_byte`) and the record stream's delay (`tls.record.wakeup_latency`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    // strongSwan: the IKE daemon's work per SA.
    /// `ike.daemon.initiator.idle` \[ns\]: initiator CPU per PSK IKE SA set up one at a time,
    /// less X25519 keygen + agree.
    IkeDaemonInitiatorIdle,
    /// `ike.daemon.responder.idle` \[ns\]: responder CPU per PSK IKE SA set up one at a time,
    /// less X25519 keygen + agree.
    IkeDaemonResponderIdle,
    /// `ike.latency` \[ns\]: median PSK set-up latency less the key exchange on its critical
    /// path.
    IkeLatency,
    /// `ike.certificate.initiator` \[ns\]: initiator CPU a certificate set-up costs beyond a
    /// PSK one, less its signatures.
    IkeCertificateInitiator,
    /// `ike.certificate.responder` \[ns\]: responder CPU a certificate set-up costs beyond a
    /// PSK one, less its signatures.
    IkeCertificateResponder,
    /// `ike.certificate.latency` \[ns\]: latency a certificate set-up adds beyond a PSK one,
    /// less its signatures on the critical path.
    IkeCertificateLatency,
    /// `ike.certificate.initiator.loaded` \[ns\]: initiator CPU per SA an Ed25519-certificate
    /// storm costs beyond a PSK one of the same size (50, both daemons sharing the host's
    /// cores), less its signatures: certificate handling in a storm, which the engine charges
    /// in place of `ike.certificate.initiator` where a profile has it.
    IkeCertificateInitiatorLoaded,
    /// `ike.certificate.responder.loaded` \[ns\]: responder CPU per SA an Ed25519-certificate
    /// storm costs beyond a PSK one, less its signatures (as
    /// `ike.certificate.initiator.loaded`).
    IkeCertificateResponderLoaded,
    /// `ike.daemon.initiator.loaded` \[ns\]: initiator CPU per SA in a storm, less X25519
    /// keygen + agree.
    IkeDaemonInitiatorLoaded,
    /// `ike.daemon.responder.loaded` \[ns\]: responder CPU per SA in a storm, less X25519
    /// keygen + agree.
    IkeDaemonResponderLoaded,
    /// `ike.daemon.initiator.alone` \[ns\]: initiator CPU per SA in a storm with each daemon
    /// on cores of its own (the bench's pinned storm), less X25519 keygen + agree: what the
    /// engine charges a daemon that has its host to itself, where `loaded` (both daemons
    /// sharing the host's cores) is charged to daemons that share one.
    IkeDaemonInitiatorAlone,
    /// `ike.daemon.responder.alone` \[ns\]: responder CPU per SA in a storm with each daemon
    /// on cores of its own, less X25519 keygen + agree (as `ike.daemon.initiator.alone`).
    IkeDaemonResponderAlone,
    /// `ike.daemon.initiator.alone_per_held_sa` \[ns\]: `ike.daemon.initiator.per_held_sa` with
    /// each daemon on cores of its own, fitted to the growth of CPU per SA from the pinned storm
    /// of 50 to the largest pinned PSK storm of 200 to 1000.
    IkeDaemonInitiatorAlonePerHeldSa,
    /// `ike.daemon.responder.alone_per_held_sa` \[ns\]: `ike.daemon.responder.per_held_sa` with
    /// each daemon on cores of its own (as `ike.daemon.initiator.alone_per_held_sa`).
    IkeDaemonResponderAlonePerHeldSa,
    /// `ike.daemon.initiator.per_held_sa` \[ns\]: initiator CPU per message it receives, per IKE
    /// SA the daemon holds (state-dependent work the engine charges as it grows), fitted by
    /// `calibrate --run strongswan` to the growth of CPU per SA from the storm of 50 to the
    /// largest PSK storm of at least 200.
    IkeDaemonInitiatorPerHeldSa,
    /// `ike.daemon.responder.per_held_sa` \[ns\]: responder CPU per message it receives, per IKE
    /// SA the daemon holds (state-dependent work the engine charges as it grows), fitted by
    /// `calibrate --run strongswan` to the growth of CPU per SA from the storm of 50 to the
    /// largest PSK storm of at least 200.
    IkeDaemonResponderPerHeldSa,
    /// `ike.rekey.initiator.loaded` \[ns\]: initiator CPU per Child SA rekeyed in a rekey storm
    /// (every Child SA of 200 IKE SAs rekeyed at once, both daemons sharing the host's cores:
    /// its CREATE_CHILD_SA and the old Child SA's deletion), less the state work the engine
    /// charges it there (`ike.daemon.initiator.per_held_sa` on each of its two responses).
    IkeRekeyInitiatorLoaded,
    /// `ike.rekey.responder.loaded` \[ns\]: responder CPU per Child SA rekeyed in a rekey storm,
    /// less its state work (as `ike.rekey.initiator.loaded`).
    IkeRekeyResponderLoaded,
    /// `ike.parallelism` \[cores\]: the cores' worth of work both daemons together get done in
    /// a storm.
    IkeParallelism,
    /// `ike.host_cpus` \[cores\]: logical CPUs of the host the daemons shared.
    IkeHostCpus,
    /// `ike.threads` \[1\]: the daemon's worker threads free for IKE jobs: charon's `threads`
    /// less those its long-running jobs hold (its receiver, sender, vici and kernel readers),
    /// the idle workers `swanctl --stats` counts before a storm. The engine runs a daemon's
    /// jobs on at most this many of its host's cores at once.
    IkeThreads,
    // strongSwan: per exchange, and Child SA installation.
    /// `ike.exchange.init` \[ns\]: median IKE_SA_INIT exchange, request to response.
    IkeExchangeInit,
    /// `ike.exchange.auth` \[ns\]: median IKE_AUTH exchange (PSK, with its Child SA installed).
    IkeExchangeAuth,
    /// `ike.exchange.create_child` \[ns\]: median CREATE_CHILD_SA exchange without PFS.
    IkeExchangeCreateChild,
    /// `ike.exchange.create_child.refused` \[ns\]: median CREATE_CHILD_SA the responder
    /// refuses (TS_UNACCEPTABLE: nothing installed).
    IkeExchangeCreateChildRefused,
    /// `ike.exchange.handling` \[ns\]: median IKE_SA_INIT less the responder's X25519 keygen +
    /// agree: an exchange's handling without its key exchange.
    IkeExchangeHandling,
    /// `ike.child_sa.install` \[ns\]: what installing a Child SA adds to an exchange
    /// (CREATE_CHILD_SA less a refused one).
    IkeChildSaInstall,
    /// `ike.child_sa.install.initiator_cpu` \[ns\]: initiator CPU per Child SA less its CPU per
    /// refused CREATE_CHILD_SA.
    IkeChildSaInstallInitiatorCpu,
    /// `ike.child_sa.install.responder_cpu` \[ns\]: responder CPU per Child SA less its CPU per
    /// refused CREATE_CHILD_SA.
    IkeChildSaInstallResponderCpu,
    // strongSwan: the ESP data path.
    /// `esp.per_packet` \[ns\]: the data path's bottleneck time per TCP segment, less the
    /// cipher's seal.
    EspPerPacket,
    /// `esp.openssl.per_packet` \[ns\]: what a packet costs the data path beyond
    /// `esp.per_packet` when strongSwan's openssl plugin, not its aesni plugin, does the AEAD
    /// (ChaCha20-Poly1305 always): the plugin sets a cipher context up for every packet.
    EspOpensslPerPacket,
    /// `esp.per_byte` \[ns/B\]: the data path's time per byte beyond the cipher's. Reserved
    /// for the engine: no writer measures it yet.
    EspPerByte,
    /// `esp.latency` \[ns\]: what ESP adds to a 64-byte ping's RTT over the same path without
    /// IPsec, less four cipher calls.
    EspLatency,
    // OpenSSL TLS (s_server / s_time on loopback).
    /// `tls.server.handshake_overhead` \[ns\]: server CPU per handshake beyond its key ops.
    TlsServerHandshakeOverhead,
    /// `tls.client.handshake_overhead` \[ns\]: client CPU per handshake beyond its key ops.
    TlsClientHandshakeOverhead,
    /// `tls.handshake.wait_offset` \[ns\]: wall time per handshake less server and client CPU;
    /// signed (negative when the two overlap on the host's cores).
    TlsHandshakeWaitOffset,
    /// `tls.record.overhead_per_byte` \[ns/B\]: record time per byte beyond seal and open (the
    /// serial closed form; a scenario's TLS data path charges half of it at each end when the
    /// profile has no per-side terms).
    TlsRecordOverheadPerByte,
    /// `tls.server.record_overhead_per_byte` \[ns/B\]: the record server's CPU per byte it
    /// sends beyond its seal.
    TlsServerRecordOverheadPerByte,
    /// `tls.client.record_overhead_per_byte` \[ns/B\]: the record client's CPU per byte it
    /// receives beyond its open.
    TlsClientRecordOverheadPerByte,
    /// `tls.record.wakeup_latency` \[ns\]: loopback's delay per record and acknowledgement,
    /// each way, at which the engine's record stream reproduces the fitted throughput.
    TlsRecordWakeupLatency,
}

impl Term {
    /// Every term, grouped by implementation.
    pub const ALL: [Term; 40] = [
        Term::IkeDaemonInitiatorIdle,
        Term::IkeDaemonResponderIdle,
        Term::IkeLatency,
        Term::IkeCertificateInitiator,
        Term::IkeCertificateResponder,
        Term::IkeCertificateLatency,
        Term::IkeCertificateInitiatorLoaded,
        Term::IkeCertificateResponderLoaded,
        Term::IkeDaemonInitiatorLoaded,
        Term::IkeDaemonResponderLoaded,
        Term::IkeDaemonInitiatorAlone,
        Term::IkeDaemonResponderAlone,
        Term::IkeDaemonInitiatorAlonePerHeldSa,
        Term::IkeDaemonResponderAlonePerHeldSa,
        Term::IkeDaemonInitiatorPerHeldSa,
        Term::IkeDaemonResponderPerHeldSa,
        Term::IkeRekeyInitiatorLoaded,
        Term::IkeRekeyResponderLoaded,
        Term::IkeParallelism,
        Term::IkeHostCpus,
        Term::IkeThreads,
        Term::IkeExchangeInit,
        Term::IkeExchangeAuth,
        Term::IkeExchangeCreateChild,
        Term::IkeExchangeCreateChildRefused,
        Term::IkeExchangeHandling,
        Term::IkeChildSaInstall,
        Term::IkeChildSaInstallInitiatorCpu,
        Term::IkeChildSaInstallResponderCpu,
        Term::EspPerPacket,
        Term::EspOpensslPerPacket,
        Term::EspPerByte,
        Term::EspLatency,
        Term::TlsServerHandshakeOverhead,
        Term::TlsClientHandshakeOverhead,
        Term::TlsHandshakeWaitOffset,
        Term::TlsRecordOverheadPerByte,
        Term::TlsServerRecordOverheadPerByte,
        Term::TlsClientRecordOverheadPerByte,
        Term::TlsRecordWakeupLatency,
    ];

    /// The term's key in `[implementation.terms]`, e.g. `"ike.daemon.responder.loaded"`.
    pub const fn name(self) -> &'static str {
        match self {
            Term::IkeDaemonInitiatorIdle => "ike.daemon.initiator.idle",
            Term::IkeDaemonResponderIdle => "ike.daemon.responder.idle",
            Term::IkeLatency => "ike.latency",
            Term::IkeCertificateInitiator => "ike.certificate.initiator",
            Term::IkeCertificateResponder => "ike.certificate.responder",
            Term::IkeCertificateLatency => "ike.certificate.latency",
            Term::IkeCertificateInitiatorLoaded => "ike.certificate.initiator.loaded",
            Term::IkeCertificateResponderLoaded => "ike.certificate.responder.loaded",
            Term::IkeDaemonInitiatorLoaded => "ike.daemon.initiator.loaded",
            Term::IkeDaemonResponderLoaded => "ike.daemon.responder.loaded",
            Term::IkeDaemonInitiatorAlone => "ike.daemon.initiator.alone",
            Term::IkeDaemonResponderAlone => "ike.daemon.responder.alone",
            Term::IkeDaemonInitiatorAlonePerHeldSa => "ike.daemon.initiator.alone_per_held_sa",
            Term::IkeDaemonResponderAlonePerHeldSa => "ike.daemon.responder.alone_per_held_sa",
            Term::IkeDaemonInitiatorPerHeldSa => "ike.daemon.initiator.per_held_sa",
            Term::IkeDaemonResponderPerHeldSa => "ike.daemon.responder.per_held_sa",
            Term::IkeRekeyInitiatorLoaded => "ike.rekey.initiator.loaded",
            Term::IkeRekeyResponderLoaded => "ike.rekey.responder.loaded",
            Term::IkeParallelism => "ike.parallelism",
            Term::IkeHostCpus => "ike.host_cpus",
            Term::IkeThreads => "ike.threads",
            Term::IkeExchangeInit => "ike.exchange.init",
            Term::IkeExchangeAuth => "ike.exchange.auth",
            Term::IkeExchangeCreateChild => "ike.exchange.create_child",
            Term::IkeExchangeCreateChildRefused => "ike.exchange.create_child.refused",
            Term::IkeExchangeHandling => "ike.exchange.handling",
            Term::IkeChildSaInstall => "ike.child_sa.install",
            Term::IkeChildSaInstallInitiatorCpu => "ike.child_sa.install.initiator_cpu",
            Term::IkeChildSaInstallResponderCpu => "ike.child_sa.install.responder_cpu",
            Term::EspPerPacket => "esp.per_packet",
            Term::EspOpensslPerPacket => "esp.openssl.per_packet",
            Term::EspPerByte => "esp.per_byte",
            Term::EspLatency => "esp.latency",
            Term::TlsServerHandshakeOverhead => "tls.server.handshake_overhead",
            Term::TlsClientHandshakeOverhead => "tls.client.handshake_overhead",
            Term::TlsHandshakeWaitOffset => "tls.handshake.wait_offset",
            Term::TlsRecordOverheadPerByte => "tls.record.overhead_per_byte",
            Term::TlsServerRecordOverheadPerByte => "tls.server.record_overhead_per_byte",
            Term::TlsClientRecordOverheadPerByte => "tls.client.record_overhead_per_byte",
            Term::TlsRecordWakeupLatency => "tls.record.wakeup_latency",
        }
    }

    /// The term's unit.
    pub const fn unit(self) -> TermUnit {
        match self {
            Term::IkeDaemonInitiatorIdle
            | Term::IkeDaemonResponderIdle
            | Term::IkeLatency
            | Term::IkeCertificateInitiator
            | Term::IkeCertificateResponder
            | Term::IkeCertificateLatency
            | Term::IkeCertificateInitiatorLoaded
            | Term::IkeCertificateResponderLoaded
            | Term::IkeDaemonInitiatorLoaded
            | Term::IkeDaemonResponderLoaded
            | Term::IkeDaemonInitiatorAlone
            | Term::IkeDaemonResponderAlone
            | Term::IkeDaemonInitiatorAlonePerHeldSa
            | Term::IkeDaemonResponderAlonePerHeldSa
            | Term::IkeDaemonInitiatorPerHeldSa
            | Term::IkeDaemonResponderPerHeldSa
            | Term::IkeRekeyInitiatorLoaded
            | Term::IkeRekeyResponderLoaded
            | Term::IkeExchangeInit
            | Term::IkeExchangeAuth
            | Term::IkeExchangeCreateChild
            | Term::IkeExchangeCreateChildRefused
            | Term::IkeExchangeHandling
            | Term::IkeChildSaInstall
            | Term::IkeChildSaInstallInitiatorCpu
            | Term::IkeChildSaInstallResponderCpu
            | Term::EspPerPacket
            | Term::EspOpensslPerPacket
            | Term::EspLatency
            | Term::TlsServerHandshakeOverhead
            | Term::TlsClientHandshakeOverhead
            | Term::TlsHandshakeWaitOffset
            | Term::TlsRecordWakeupLatency => TermUnit::Ns,
            Term::EspPerByte
            | Term::TlsRecordOverheadPerByte
            | Term::TlsServerRecordOverheadPerByte
            | Term::TlsClientRecordOverheadPerByte => TermUnit::NsPerByte,
            Term::IkeParallelism | Term::IkeHostCpus => TermUnit::Cores,
            Term::IkeThreads => TermUnit::Count,
        }
    }

    /// The implementation whose profiles hold the term.
    pub const fn implementation(self) -> RealImplementation {
        match self {
            Term::IkeDaemonInitiatorIdle
            | Term::IkeDaemonResponderIdle
            | Term::IkeLatency
            | Term::IkeCertificateInitiator
            | Term::IkeCertificateResponder
            | Term::IkeCertificateLatency
            | Term::IkeCertificateInitiatorLoaded
            | Term::IkeCertificateResponderLoaded
            | Term::IkeDaemonInitiatorLoaded
            | Term::IkeDaemonResponderLoaded
            | Term::IkeDaemonInitiatorAlone
            | Term::IkeDaemonResponderAlone
            | Term::IkeDaemonInitiatorAlonePerHeldSa
            | Term::IkeDaemonResponderAlonePerHeldSa
            | Term::IkeDaemonInitiatorPerHeldSa
            | Term::IkeDaemonResponderPerHeldSa
            | Term::IkeRekeyInitiatorLoaded
            | Term::IkeRekeyResponderLoaded
            | Term::IkeParallelism
            | Term::IkeHostCpus
            | Term::IkeThreads
            | Term::IkeExchangeInit
            | Term::IkeExchangeAuth
            | Term::IkeExchangeCreateChild
            | Term::IkeExchangeCreateChildRefused
            | Term::IkeExchangeHandling
            | Term::IkeChildSaInstall
            | Term::IkeChildSaInstallInitiatorCpu
            | Term::IkeChildSaInstallResponderCpu
            | Term::EspPerPacket
            | Term::EspOpensslPerPacket
            | Term::EspPerByte
            | Term::EspLatency => RealImplementation::Strongswan,
            Term::TlsServerHandshakeOverhead
            | Term::TlsClientHandshakeOverhead
            | Term::TlsHandshakeWaitOffset
            | Term::TlsRecordOverheadPerByte
            | Term::TlsServerRecordOverheadPerByte
            | Term::TlsClientRecordOverheadPerByte
            | Term::TlsRecordWakeupLatency => RealImplementation::OpensslTls,
        }
    }

    /// Whether the term may be negative: a signed correction of a linear model (TLS's wait
    /// between handshakes, negative when server and client overlap). Every other term is a
    /// cost, a rate or a count, never negative.
    pub const fn signed(self) -> bool {
        match self {
            Term::TlsHandshakeWaitOffset => true,
            Term::IkeDaemonInitiatorIdle
            | Term::IkeDaemonResponderIdle
            | Term::IkeLatency
            | Term::IkeCertificateInitiator
            | Term::IkeCertificateResponder
            | Term::IkeCertificateLatency
            | Term::IkeCertificateInitiatorLoaded
            | Term::IkeCertificateResponderLoaded
            | Term::IkeDaemonInitiatorLoaded
            | Term::IkeDaemonResponderLoaded
            | Term::IkeDaemonInitiatorAlone
            | Term::IkeDaemonResponderAlone
            | Term::IkeDaemonInitiatorAlonePerHeldSa
            | Term::IkeDaemonResponderAlonePerHeldSa
            | Term::IkeDaemonInitiatorPerHeldSa
            | Term::IkeDaemonResponderPerHeldSa
            | Term::IkeRekeyInitiatorLoaded
            | Term::IkeRekeyResponderLoaded
            | Term::IkeParallelism
            | Term::IkeHostCpus
            | Term::IkeThreads
            | Term::IkeExchangeInit
            | Term::IkeExchangeAuth
            | Term::IkeExchangeCreateChild
            | Term::IkeExchangeCreateChildRefused
            | Term::IkeExchangeHandling
            | Term::IkeChildSaInstall
            | Term::IkeChildSaInstallInitiatorCpu
            | Term::IkeChildSaInstallResponderCpu
            | Term::EspPerPacket
            | Term::EspOpensslPerPacket
            | Term::EspPerByte
            | Term::EspLatency
            | Term::TlsServerHandshakeOverhead
            | Term::TlsClientHandshakeOverhead
            | Term::TlsRecordOverheadPerByte
            | Term::TlsServerRecordOverheadPerByte
            | Term::TlsClientRecordOverheadPerByte
            | Term::TlsRecordWakeupLatency => false,
        }
    }

    /// The values a profile may give the term, inclusive, in its unit: a time of at most 10 s
    /// (a daemon's work per SA or a data path's per packet are micro- to milliseconds; TLS's
    /// signed wait as far below 0), at most 1 ms per byte, cores' worth of work from 0.01 to
    /// 4096 (a host's CPUs from 1), and 1 to 4096 threads. A value beyond is no measurement of
    /// a daemon on a host (`ike.parallelism = 0` would divide by zero, `1e308` ns is no set-up
    /// time), so a profile holding one is refused naming the term.
    pub const fn range(self) -> (f64, f64) {
        match (self, self.unit()) {
            (Term::IkeHostCpus, _) => (1.0, 4096.0),
            (_, TermUnit::Cores) => (0.01, 4096.0),
            (_, TermUnit::Count) => (1.0, 4096.0),
            (_, TermUnit::NsPerByte) => (0.0, 1e6),
            (_, TermUnit::Ns) if self.signed() => (-1e10, 1e10),
            (_, TermUnit::Ns) => (0.0, 1e10),
        }
    }

    /// The term whose key is `name`, if there is one (exact, case-sensitive).
    pub fn parse(name: &str) -> Option<Term> {
        Term::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// A term serialises as its name (a report's map of terms is keyed as the file keys them).
impl serde::Serialize for Term {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_parse_back() {
        let mut names: Vec<&str> = Term::ALL.iter().map(|t| t.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Term::ALL.len(), "a name is used twice");
        for t in Term::ALL {
            assert_eq!(Term::parse(t.name()), Some(t));
            assert_eq!(t.to_string(), t.name());
        }
        assert_eq!(Term::parse("ike.Latency"), None);
        assert_eq!(Term::parse(""), None);
    }

    #[test]
    fn all_holds_every_variant_once() {
        // `unit` and `implementation` match exhaustively, so a new variant must be placed in
        // both; here it must also be in ALL (sorted by variant order, no repeats).
        let mut sorted = Term::ALL;
        sorted.sort();
        assert_eq!(sorted, Term::ALL, "ALL is in declaration order");
        for w in Term::ALL.windows(2) {
            assert_ne!(w[0], w[1]);
        }
    }

    #[test]
    fn units_and_implementations_are_the_files_spellings() {
        assert_eq!(Term::EspPerPacket.unit().as_str(), "ns");
        assert_eq!(Term::TlsRecordOverheadPerByte.unit().as_str(), "ns/B");
        assert_eq!(Term::EspPerByte.unit().as_str(), "ns/B");
        assert_eq!(Term::IkeParallelism.unit().as_str(), "cores");
        assert_eq!(Term::IkeThreads.unit().as_str(), "1");
        assert_eq!(
            RealImplementation::parse("openssl-tls"),
            Some(RealImplementation::OpensslTls)
        );
        assert_eq!(RealImplementation::parse("strongSwan"), None);
        assert_eq!(RealImplementation::OpensslTls.terms().count(), 7);
        assert!(
            RealImplementation::Strongswan
                .terms()
                .all(|t| !t.name().starts_with("tls."))
        );
        let signed: Vec<Term> = Term::ALL.into_iter().filter(|t| t.signed()).collect();
        assert_eq!(signed, [Term::TlsHandshakeWaitOffset]);
    }
}
