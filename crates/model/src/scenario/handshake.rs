//! The handshake source: IKEv2 message sizes from `protocols::ikev2`, crypto work from the
//! endpoints' profiles.

use sim_core::{SimDuration, Source};

use crate::error::ScenarioError;
use crate::file::Q;

use super::MAX_SCENARIO_TUNNELS;
use super::context::Ctx;
use super::daemon;
use super::node::{NodeProfile, lacks_key_op};
use profile::{KeyAction, KeyAlg};

/// The keys of a handshake source.
pub(super) struct HandshakeSpec<'a> {
    pub(super) protocol: Option<&'a str>,
    pub(super) ke: &'a str,
    pub(super) auth: &'a str,
    pub(super) peer: Option<&'a str>,
    pub(super) tunnels: Option<i64>,
    pub(super) spacing: Option<&'a Q>,
    pub(super) mtu: Option<&'a Q>,
    pub(super) retransmit: Option<bool>,
    pub(super) retransmit_timeout: Option<&'a Q>,
    pub(super) retransmit_base: Option<f64>,
    pub(super) retransmit_tries: Option<i64>,
    pub(super) clients: Option<i64>,
    pub(super) rekey: Option<&'a str>,
}

/// The exchanges of a Child SA rekey (`rekey = "child"`), as `protocols::ikev2` names them: the
/// CREATE_CHILD_SA with REKEY_SA, then the INFORMATIONAL deleting the old Child SA (RFC 7296
/// §1.3.3, §1.4.1).
pub const REKEY_CHILD: [&str; 2] = [
    "CREATE_CHILD_SA (rekey Child SA)",
    "INFORMATIONAL (delete Child SA)",
];

/// The IKE_AUTH work of signature authentication \[ns\]: (initiator before the request, responder,
/// initiator after the response), from each side's `[sign, verify]` cost \[ns\] and the
/// signatures each side verifies (`verifies`: the peer's AUTH payload and each certificate of its
/// chain). The initiator signs its AUTH; the responder verifies it and signs its own; the
/// initiator verifies that.
pub fn ike_auth_work(initiator: [f64; 2], responder: [f64; 2], verifies: f64) -> (f64, f64, f64) {
    let ([sign_i, verify_i], [sign_r, verify_r]) = (initiator, responder);
    (sign_i, verifies * verify_r + sign_r, verifies * verify_i)
}

/// Whether key exchange `ke` is a Diffie-Hellman group (keygen + agree on each side) rather than
/// a KEM (keygen and decaps at the initiator, encaps at the responder).
fn is_dh(ke: &str) -> bool {
    ["x25519", "x448", "ecp", "modp"]
        .iter()
        .any(|p| ke.starts_with(p))
}

/// The work of one key exchange in IKE_SA_INIT or IKE_INTERMEDIATE \[ns\]: (initiator before the
/// request, responder, initiator after the response), from `cost(responder, action)`, the cost
/// \[ns\] of `action` of `ke` at the initiator (`false`) or the responder (`true`). A DH group:
/// keygen before, keygen + agree at the responder, agree after; a KEM: keygen before, encaps at
/// the responder, decaps after.
pub fn ke_work<E>(
    ke: &str,
    mut cost: impl FnMut(bool, KeyAction) -> Result<f64, E>,
) -> Result<(f64, f64, f64), E> {
    use KeyAction::{Agree, Decaps, Encaps, Keygen};
    Ok(if is_dh(ke) {
        let responder = cost(true, Keygen)? + cost(true, Agree)?;
        (cost(false, Keygen)?, responder, cost(false, Agree)?)
    } else {
        let before = cost(false, Keygen)?;
        let responder = cost(true, Encaps)?;
        (before, responder, cost(false, Decaps)?)
    })
}

/// Builds a handshake source: message sizes from `protocols::ikev2`, crypto work from the
/// initiator's and responder's profiles.
///
/// Work per exchange (documented in docs/scenarios.md): a DH exchange (x25519) costs keygen +
/// agree on each side; a KEM costs keygen before the request and decaps after the response at
/// the initiator, encaps at the responder; IKE_AUTH costs a signature before the request at the
/// initiator, one verification per signature received (AUTH payload + each certificate) plus a
/// signature at the responder, and the same verifications at the initiator after the response.
pub(super) fn handshake_source(
    cx: &Ctx<'_>,
    key: &str,
    hs: &HandshakeSpec<'_>,
    path_mtu: Option<u32>,
    (init, resp): (Option<&NodeProfile>, Option<&NodeProfile>),
) -> Result<(Source, std::sync::Arc<protocols::ikev2::Config>), ScenarioError> {
    match hs.protocol {
        None | Some("ikev2") => {}
        Some(other) => {
            return Err(cx.invalid(
                format!("{key}.protocol"),
                format!("unknown protocol \"{other}\""),
                "\"ikev2\"",
            ));
        }
    }
    let (Some(init), Some(resp)) = (init, resp) else {
        return Err(cx.invalid(
            key,
            "a handshake between nodes without calibration profiles",
            "both ends of the path with service = { model = \"profile\", ... }: the profiles give the key-exchange and signature costs",
        ));
    };
    let tunnels = match hs.tunnels {
        None => 1,
        Some(t) => cx.count(
            &format!("{key}.tunnels"),
            t,
            "tunnels",
            MAX_SCENARIO_TUNNELS,
        )?,
    };
    let clients = match hs.clients {
        None => 0,
        Some(c) => cx.count(
            &format!("{key}.clients"),
            c,
            "clients",
            MAX_SCENARIO_TUNNELS,
        )?,
    };
    let spacing = hs
        .spacing
        .map(|q| cx.duration(&format!("{key}.spacing"), q))
        .transpose()?
        .unwrap_or_default();
    let mtu = match hs.mtu {
        Some(q) => cx.packet_bytes(&format!("{key}.mtu"), q)?,
        None => path_mtu.unwrap_or(1500),
    };
    let cfg = ike_config(cx, key, hs, mtu)?;
    let auth = cfg.auth;
    let shake = protocols::ikev2::handshake(&cfg).map_err(|e| {
        cx.invalid(
            format!("{key}.ke"),
            e.to_string(),
            "see `oransim handshake --help`",
        )
    })?;
    let rekey = rekeys_child(cx, key, hs.rekey)?;
    // The cost of `action` of the key exchange or signature algorithm named `alg` at `p`; a
    // name that is no key op oransim prices is refused as one the profile lacks.
    let op = |p: &NodeProfile, alg: &str, action: KeyAction| -> Result<f64, ScenarioError> {
        let at = if matches!(action, KeyAction::Sign | KeyAction::Verify) {
            "auth"
        } else {
            "ke"
        };
        let Some(op) = alg
            .parse()
            .ok()
            .and_then(|alg| profile::KeyOp::new(alg, action))
        else {
            let name = format!("{alg}.{action}");
            return Err(cx.invalid(
                format!("{key}.{at}"),
                format!("profile {}: {}", p.origin, lacks_key_op(&name, p)),
                measure_other(&name),
            ));
        };
        p.key_op_ns(&op).map_err(|problem| {
            cx.invalid(
                format!("{key}.{at}"),
                format!("profile {}: {problem}", p.origin),
                how_to_measure(&op),
            )
        })
    };
    let auth_alg = signature_alg(auth);
    let verifies = (1 + cfg.cert_chain.len()) as f64;
    let daemons = (init.daemon.as_ref(), resp.daemon.as_ref());
    let setup = shake
        .exchanges
        .iter()
        .filter(|e| e.phase == "setup")
        .count();
    let mut kes = cfg.kes.iter();
    let mut exchanges = Vec::new();
    // With a daemon's terms, its jobs are ordered as charon's processor orders them.
    let ordered = daemons.0.is_some() || daemons.1.is_some();
    if rekey {
        exchanges = rekey_exchanges(cx, key, &shake, (init, resp), ordered)?;
    }
    for e in shake
        .exchanges
        .iter()
        .filter(|e| e.phase == "setup" && !rekey)
    {
        let (before, responder, after) = if e.name == "IKE_AUTH" {
            match auth_alg {
                None => (0.0, 0.0, 0.0),
                Some(a) => {
                    let (sign, verify) = (KeyAction::Sign, KeyAction::Verify);
                    let (a, i, r) = (a.name(), init, resp);
                    let (sign_i, verify_i) = (op(i, a, sign)?, op(i, a, verify)?);
                    let (sign_r, verify_r) = (op(r, a, sign)?, op(r, a, verify)?);
                    ike_auth_work([sign_i, verify_i], [sign_r, verify_r], verifies)
                }
            }
        } else {
            let Some(k) = kes.next() else {
                return Err(cx.invalid(
                    format!("{key}.ke"),
                    format!("exchange {} has no key exchange method", e.name),
                    "a key exchange per IKE_SA_INIT/IKE_INTERMEDIATE",
                ));
            };
            let n = k.name.as_str();
            ke_work(n, |at_responder, action| {
                op(if at_responder { resp } else { init }, n, action)
            })?
        };
        let d = daemon::exchange_work(daemons, setup, auth_alg.is_some() && e.name == "IKE_AUTH");
        exchanges.push(engine_exchange(e, (before, responder, after), &d, ordered));
    }
    let retransmit = retransmit(cx, key, hs)?;
    Ok((
        Source::Handshake {
            exchanges: exchanges.into(),
            tunnels,
            spacing,
            retransmit,
            clients,
            established: rekey,
            sessions: 0,
        },
        std::sync::Arc::new(cfg),
    ))
}

/// Whether each tunnel rekeys its Child SA (`rekey = "child"`) rather than set its IKE SA up.
fn rekeys_child(cx: &Ctx<'_>, key: &str, rekey: Option<&str>) -> Result<bool, ScenarioError> {
    match rekey {
        None => Ok(false),
        Some("child") => Ok(true),
        Some(other) => Err(cx.invalid(
            format!("{key}.rekey"),
            format!("\"{other}\""),
            "\"child\" (each tunnel rekeys its Child SA over an established IKE SA); absent: each tunnel sets its IKE SA up",
        )),
    }
}

/// The engine's exchanges of a Child SA rekey ([`REKEY_CHILD`]) of `shake`, between the
/// daemons of `ends` (their jobs `ordered` as charon's processor orders them).
fn rekey_exchanges(
    cx: &Ctx<'_>,
    key: &str,
    shake: &protocols::ikev2::Handshake,
    (init, resp): (&NodeProfile, &NodeProfile),
    ordered: bool,
) -> Result<Vec<sim_core::HandshakeExchange>, ScenarioError> {
    // A Child SA rekey: its two exchanges, no key exchange (no PFS) and no signature, the
    // daemons' work per rekey (`Daemon::for_rekey`) spread over their four messages.
    let rekeying = (
        init.daemon.as_ref().map(daemon::Daemon::for_rekey),
        resp.daemon.as_ref().map(daemon::Daemon::for_rekey),
    );
    let mut exchanges = Vec::new();
    for name in REKEY_CHILD {
        let e = shake
            .exchanges
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| {
                cx.invalid(
                    format!("{key}.rekey"),
                    format!("the IKEv2 model has no {name} exchange"),
                    "a peer whose messages include a Child SA rekey",
                )
            })?;
        let d = daemon::exchange_work(
            (rekeying.0.as_ref(), rekeying.1.as_ref()),
            REKEY_CHILD.len(),
            false,
        );
        exchanges.push(engine_exchange(e, (0.0, 0.0, 0.0), &d, ordered));
    }
    Ok(exchanges)
}

/// The IKEv2 configuration of `hs`'s key exchange, authentication and peer at `mtu` \[bytes\]
/// (refusals name the key).
fn ike_config(
    cx: &Ctx<'_>,
    key: &str,
    hs: &HandshakeSpec<'_>,
    mtu: u32,
) -> Result<protocols::ikev2::Config, ScenarioError> {
    let perr = |k: &str, e: protocols::Error| {
        cx.invalid(
            format!("{key}.{k}"),
            e.to_string(),
            "see `oransim handshake --help`",
        )
    };
    let auth = protocols::ikev2::Auth::parse(hs.auth).map_err(|e| perr("auth", e))?;
    let mut cfg =
        protocols::ikev2::Config::new(hs.ke, auth, mtu as usize).map_err(|e| perr("ke", e))?;
    if let Some(peer) = hs.peer {
        cfg.peer = protocols::ikev2::Peer::parse(peer).map_err(|e| {
            cx.invalid(
                format!("{key}.peer"),
                e.to_string(),
                protocols::ikev2::PEER_NAMES,
            )
        })?;
    }
    Ok(cfg)
}

/// The profile key-op algorithm that signs and verifies IKE_AUTH under `auth`; `None` for a
/// pre-shared key.
fn signature_alg(auth: protocols::ikev2::Auth) -> Option<KeyAlg> {
    match auth {
        protocols::ikev2::Auth::Psk => None,
        protocols::ikev2::Auth::Rsa2048 => Some(KeyAlg::Rsa2048),
        protocols::ikev2::Auth::Rsa3072 => Some(KeyAlg::Rsa3072),
        protocols::ikev2::Auth::EcdsaP256 => Some(KeyAlg::EcdsaP256),
        protocols::ikev2::Auth::Ed25519 => Some(KeyAlg::Ed25519),
        protocols::ikev2::Auth::MlDsa44 => Some(KeyAlg::MlDsa44),
        protocols::ikev2::Auth::MlDsa65 => Some(KeyAlg::MlDsa65),
        protocols::ikev2::Auth::MlDsa87 => Some(KeyAlg::MlDsa87),
    }
}

/// `ns` nanoseconds as a simulated duration (0 when it is not one).
fn ps(ns: f64) -> SimDuration {
    SimDuration::from_secs_f64(ns * 1e-9).unwrap_or_default()
}

/// A message's size on the wire with each datagram's Ethernet header \[bytes\].
fn eth(m: &protocols::ikev2::Message) -> u32 {
    (m.datagrams.iter().sum::<usize>() + 14 * m.datagrams.len()) as u32
}

/// The engine's exchange of `e`: its crypto work (before, responder, after) \[ns\] and the
/// daemons' `d`, its jobs ordered as charon's processor orders them when `ordered` (a daemon's
/// terms charged).
fn engine_exchange(
    e: &protocols::ikev2::Exchange,
    (before, responder, after): (f64, f64, f64),
    d: &daemon::ExchangeWork,
    ordered: bool,
) -> sim_core::HandshakeExchange {
    sim_core::HandshakeExchange {
        name: e.name.clone(),
        request: eth(&e.request),
        response: eth(&e.response),
        request_datagrams: e.request.datagrams.len().max(1) as u32,
        response_datagrams: e.response.datagrams.len().max(1) as u32,
        initiator_before: ps(before + d.before),
        responder: ps(responder + d.responder),
        initiator_after: ps(after + d.after),
        initiator_per_held: ps(d.held[0]),
        responder_per_held: ps(d.held[1]),
        one_way: false,
        priority: if ordered {
            daemon::job_priority(&e.name)
        } else {
            sim_core::JobPriority::Medium
        },
    }
}

/// Retransmission as strongSwan's charon does it by default (docs.strongswan.org,
/// config/retransmission: retransmit_timeout 4 s, retransmit_base 1.8, retransmit_tries 5),
/// or as `hs` sets it; `None` with `retransmit = false`.
fn retransmit(
    cx: &Ctx<'_>,
    key: &str,
    hs: &HandshakeSpec<'_>,
) -> Result<Option<sim_core::Retransmit>, ScenarioError> {
    if !hs.retransmit.unwrap_or(true) {
        return Ok(None);
    }
    let timeout = match hs.retransmit_timeout {
        Some(q) => cx.duration(&format!("{key}.retransmit_timeout"), q)?,
        None => SimDuration::from_us(4_000_000),
    };
    if timeout == SimDuration::ZERO {
        return Err(cx.invalid(
            format!("{key}.retransmit_timeout"),
            "a zero timeout",
            "a positive timeout like \"4s\"",
        ));
    }
    let base = hs.retransmit_base.unwrap_or(1.8);
    if !(1.0..=10.0).contains(&base) {
        return Err(cx.invalid(
            format!("{key}.retransmit_base"),
            format!("{base}"),
            "a backoff base from 1 to 10 (strongSwan's default is 1.8)",
        ));
    }
    let tries = match hs.retransmit_tries {
        None => 5,
        Some(t) if (0..=100).contains(&t) => t as u32,
        Some(t) => {
            return Err(cx.invalid(
                format!("{key}.retransmit_tries"),
                format!("{t}"),
                "0 to 100 retransmissions",
            ));
        }
    };
    Ok(Some(sim_core::Retransmit {
        timeout,
        base,
        tries,
    }))
}

/// How to measure the key op `op` (`x25519.keygen`, `rsa2048.sign`, ...) a profile lacks: the
/// `allowed` part of the error that refuses it.
fn how_to_measure(op: &profile::KeyOp) -> String {
    let alg = op.alg();
    let openssl = match alg {
        KeyAlg::X25519 => Some("ecdhx25519"),
        KeyAlg::EcdsaP256 => Some("ecdsap256"),
        KeyAlg::Ed25519 | KeyAlg::Rsa2048 | KeyAlg::Rsa3072 => Some(alg.name()),
        _ => None,
    };
    if profile::OPTIONAL_KEY_OPS.contains(op) {
        return "a key exchange the profiles measured: HQC and FrodoKEM are measured only by `oransim calibrate` built with `--features pqclean` (calibration/dev-host-rustcrypto.toml has them)".to_owned();
    }
    match openssl {
        Some(arg) => format!(
            "a profile that measured `{op}`: `oransim calibrate --only {alg}` on the machine, or on a target with OpenSSL `openssl speed -mr {arg} >> speed.txt` and `oransim calibrate --from-openssl-speed speed.txt`"
        ),
        None if matches!(
            alg,
            KeyAlg::MlKem512
                | KeyAlg::MlKem768
                | KeyAlg::MlKem1024
                | KeyAlg::MlDsa44
                | KeyAlg::MlDsa65
                | KeyAlg::MlDsa87
        ) =>
        {
            format!(
                "a profile that measured `{op}`: `oransim calibrate --only {alg}` on the machine (`openssl speed` in OpenSSL 3.0 measures no ML-KEM or ML-DSA, so an imported profile has none)"
            )
        }
        None => measure_other(&op.to_string()),
    }
}

/// How to price the key op named `op` that `oransim calibrate` does not measure (of a group
/// such as `ecp256`, which no profile can hold as a key op either).
fn measure_other(op: &str) -> String {
    format!(
        "a profile with an `{op}` op: `oransim calibrate` measures X25519, ML-KEM, Ed25519, ECDSA P-256, RSA and ML-DSA; other groups need a profile that sets the op"
    )
}
