//! One security association: the [`Sealer`] writes each datagram through
//! [`protocols::Stack::emit`] and runs the RustCrypto cipher over the regions it names; the
//! [`Opener`] reads the headers through `protocols::wire` views, checks the replay window
//! before the integrity check, verifies and decrypts in place, and delivers the payload only
//! when the padding and the inner headers hold too.

use std::ops::Range;

use aes::Aes256;
use aes::cipher::inout::InOutBuf;
use aes::cipher::{BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, InnerIvInit};
use aes_gcm::aead::{AeadInOut, KeyInit};
use aes_gcm::{Aes128Gcm, Aes256Gcm};
use hmac::{Hmac, Mac};
use protocols::wire::{esp, ethernet, ipv4, macsec, tls, udp};
use protocols::{Ids, Sealing, Stack};
use sha2::Sha256;

use super::Protection;
use super::cipher::aead_seal;
use super::window::ReplayWindow;
use crate::LiveError;

/// Why a packet was refused. None of them delivers anything; each has its own counter in
/// [`OpenStats`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refused {
    /// The integrity check failed (forged or modified packet, wrong key).
    Auth,
    /// The sequence number was already received inside the replay window (a duplicate).
    Replay,
    /// The sequence number is 0 (never sent) or older than the replay window
    /// (RFC 4303 §3.4.3; 802.1AE's InPktsLate).
    Late,
    /// The SPI, SCI or association number is not this SA's (RFC 4303 §3.4.2: no SA; 802.1AE
    /// InPktsUnknownSCI / InPktsNotUsingSA).
    UnknownSa,
    /// Too short, wrong header fields or lengths, bad padding or inner headers.
    Malformed,
}

/// Counters of an [`Opener`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct OpenStats {
    /// Packets verified, decrypted and delivered.
    pub delivered: u64,
    /// Packets whose integrity check failed.
    pub auth_failures: u64,
    /// Packets refused by the anti-replay window as duplicates ([`Refused::Replay`]).
    pub replays: u64,
    /// Packets refused by the anti-replay window as older than it ([`Refused::Late`]).
    pub late: u64,
    /// Packets of another SA: unknown SPI, SCI or association number ([`Refused::UnknownSa`]).
    pub unknown_sa: u64,
    /// Packets refused as malformed.
    pub malformed: u64,
}

impl OpenStats {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &OpenStats) {
        self.delivered += other.delivered;
        self.auth_failures += other.auth_failures;
        self.replays += other.replays;
        self.late += other.late;
        self.unknown_sa += other.unknown_sa;
        self.malformed += other.malformed;
    }
}

/// Key material of one direction (one security association), derived from a seed so that both
/// ends of a loopback run agree. These keys protect measurement traffic only.
#[derive(Clone)]
struct Keys {
    enc: [u8; 32],
    mac: [u8; 32],
    iv: [u8; 32],
    salt: [u8; 12],
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Keys {
    fn derive(seed: u64) -> Keys {
        let mut s = seed ^ 0x6f72_616e_7369_6d00;
        let mut fill = |buf: &mut [u8]| {
            for chunk in buf.chunks_mut(8) {
                let v = splitmix(&mut s).to_le_bytes();
                chunk.copy_from_slice(&v[..chunk.len()]);
            }
        };
        let (mut enc, mut mac, mut iv, mut salt) = ([0; 32], [0; 32], [0; 32], [0; 12]);
        fill(&mut enc);
        fill(&mut mac);
        fill(&mut iv);
        fill(&mut salt);
        Keys { enc, mac, iv, salt }
    }
}

enum Engine {
    Plain,
    Gcm256(Box<Aes256Gcm>),
    Gcm128(Box<Aes128Gcm>),
    Cbc {
        block: Box<Aes256>,
        iv_block: Box<Aes256>,
        mac: Box<Hmac<Sha256>>,
    },
}

fn engine(p: Protection, k: &Keys) -> Engine {
    // Key lengths are the suites' own, so construction cannot fail.
    match p {
        Protection::Plain => Engine::Plain,
        Protection::EspGcm | Protection::Tls13 => {
            Engine::Gcm256(Box::new(Aes256Gcm::new(&k.enc.into())))
        }
        Protection::Macsec | Protection::MacsecIntegrity => {
            let key: [u8; 16] = k.enc[..16].try_into().unwrap_or([0; 16]);
            Engine::Gcm128(Box::new(Aes128Gcm::new(&key.into())))
        }
        Protection::EspCbc => Engine::Cbc {
            block: Box::new(<Aes256 as KeyInit>::new(&k.enc.into())),
            iv_block: Box::new(<Aes256 as KeyInit>::new(&k.iv.into())),
            mac: Box::new(
                <Hmac<Sha256> as KeyInit>::new_from_slice(&k.mac)
                    .unwrap_or_else(|_| <Hmac<Sha256> as KeyInit>::new(&[0u8; 64].into())),
            ),
        },
    }
}

/// Where the cipher works in a datagram of a given length, from the regions
/// [`Stack::emit`] names for an empty payload (every region but the encrypted end and the ICV
/// sits at a fixed offset).
#[derive(Debug, Clone)]
struct Layout {
    /// The regions of the empty-payload datagram.
    empty: Sealing,
    /// Length of the empty-payload datagram: nothing shorter is valid \[bytes\].
    min_len: usize,
}

impl Layout {
    fn icv_len(&self) -> usize {
        self.empty.icv.len()
    }

    /// The ICV of a `len`-byte datagram.
    fn icv(&self, len: usize) -> Range<usize> {
        len - self.icv_len()..len
    }
}

/// The datagram stack, the layer it starts at, its cipher layout and the headers' ids.
struct Framing {
    stack: Stack,
    from: usize,
    layout: Layout,
    ids: Ids,
}

fn framing(p: Protection, spi: u32) -> Result<Option<Framing>, LiveError> {
    if p == Protection::Plain {
        return Ok(None);
    }
    let (stack, from) = p.framing()?;
    let ids = Ids {
        spi,
        // SCI: a MAC-address-like id from the SPI, and port 1 (802.1AE §9.9).
        sci: (u64::from(spi) << 32) | 0x0001_0001,
        ..Ids::default()
    };
    let mut buf = Vec::new();
    let e = stack
        .emit(from, &[], &ids, &mut buf)
        .map_err(LiveError::Protocol)?;
    let empty = e.sealing.into_iter().next().ok_or_else(|| {
        LiveError::Protocol(protocols::Error::MissingLayer {
            stack: stack.to_string(),
            needed: "security layer",
            why: "a protection seals its datagrams",
        })
    })?;
    Ok(Some(Framing {
        stack,
        from,
        layout: Layout {
            empty,
            min_len: buf.len(),
        },
        ids,
    }))
}

/// The sender's side of one security association: seals payloads into datagrams.
pub struct Sealer {
    protection: Protection,
    engine: Engine,
    keys: Keys,
    framing: Option<Framing>,
    /// The sequence number of the next datagram: ESP sequence number, MACsec PN or TLS
    /// record sequence number ([`Protection::first_sequence`] for a fresh SA).
    next: u64,
}

/// The receiver's side of one security association: verifies, decrypts and delivers, or refuses
/// and counts.
pub struct Opener {
    protection: Protection,
    engine: Engine,
    keys: Keys,
    framing: Option<Framing>,
    window: ReplayWindow,
    /// TLS: the next expected record sequence number (the wire carries none).
    next: u64,
    stats: OpenStats,
}

/// A matched pair for one direction, from `seed` (both ends of a run use the same seed).
/// Fails only if the protection's own stack cannot be written (a bug, reported as an error).
pub fn security_association(
    protection: Protection,
    seed: u64,
) -> Result<(Sealer, Opener), LiveError> {
    let keys = Keys::derive(seed);
    let spi = 0x1000_0000 | (splitmix(&mut seed.clone()) as u32 & 0x0fff_ffff);
    Ok((
        Sealer {
            protection,
            engine: engine(protection, &keys),
            keys: keys.clone(),
            framing: framing(protection, spi)?,
            next: protection.first_sequence(),
        },
        Opener {
            protection,
            engine: engine(protection, &keys),
            keys,
            framing: framing(protection, spi)?,
            window: ReplayWindow::default(),
            next: protection.first_sequence(),
            stats: OpenStats::default(),
        },
    ))
}

/// The keys of an ESP security association [`security_association`] makes from `seed`, as
/// Wireshark's ESP SA table takes them: for writing beside a capture of live's datagrams
/// (`oransim live --pcap`). The keys are fixed functions of the seed, test keys that protect
/// nothing. `None` for a protection that is not ESP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EspSaKeys {
    /// Security Parameters Index.
    pub spi: u32,
    /// Wireshark's encryption algorithm name (`AES-GCM with 16 octet ICV [RFC4106]`,
    /// `AES-CBC [RFC3602]`).
    pub encryption: &'static str,
    /// The encryption key, followed for AES-GCM by its 4-byte salt.
    pub encryption_key: Vec<u8>,
    /// Wireshark's authentication algorithm name (`NULL` for AES-GCM).
    pub authentication: &'static str,
    /// The HMAC key (empty for AES-GCM).
    pub authentication_key: Vec<u8>,
}

/// The ESP keys of `security_association(protection, seed)` ([`EspSaKeys`]).
pub fn esp_sa_keys(protection: Protection, seed: u64) -> Option<EspSaKeys> {
    let keys = Keys::derive(seed);
    let spi = 0x1000_0000 | (splitmix(&mut seed.clone()) as u32 & 0x0fff_ffff);
    match protection {
        Protection::EspGcm => Some(EspSaKeys {
            spi,
            encryption: "AES-GCM with 16 octet ICV [RFC4106]",
            encryption_key: [&keys.enc[..], &keys.salt[..4]].concat(),
            authentication: "NULL",
            authentication_key: Vec::new(),
        }),
        Protection::EspCbc => Some(EspSaKeys {
            spi,
            encryption: "AES-CBC [RFC3602]",
            encryption_key: keys.enc.to_vec(),
            authentication: "HMAC-SHA-256-128 [RFC4868]",
            authentication_key: keys.mac.to_vec(),
        }),
        _ => None,
    }
}

/// The 12-byte AEAD nonce of ESP: the 4-byte salt and the 8-byte explicit IV (RFC 4106 §4).
fn esp_nonce(salt: &[u8; 12], explicit: &[u8]) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[..4].copy_from_slice(&salt[..4]);
    n[4..].copy_from_slice(explicit);
    n
}

/// Verifies and decrypts `enc` in place, authenticating `aad` with it, against the tag in `icv`.
fn aead_open<A: AeadInOut>(
    aead: &A,
    nonce: [u8; 12],
    aad: Range<usize>,
    enc: Range<usize>,
    icv: Range<usize>,
    d: &mut [u8],
) -> Result<(), Refused>
where
    aes_gcm::aead::Nonce<A>: From<[u8; 12]>,
{
    let (rest, tag) = d.split_at_mut(icv.start);
    let tag = (&tag[..icv.len()])
        .try_into()
        .map_err(|_| Refused::Malformed)?;
    let (head, body) = rest.split_at_mut(enc.start);
    aead.decrypt_inout_detached(
        &nonce.into(),
        &head[aad],
        (&mut body[..enc.len()]).into(),
        tag,
    )
    .map_err(|_| Refused::Auth)
}

/// The payload of a tunnelled IPv4 + UDP packet, checked through the `protocols` views.
fn inner_udp(inner: &[u8]) -> Result<Range<usize>, Refused> {
    let ip = ipv4::Packet::new_checked(inner).map_err(|_| Refused::Malformed)?;
    let repr = ipv4::Repr::parse(&ip).map_err(|_| Refused::Malformed)?;
    if repr.protocol != ipv4::PROTO_UDP {
        return Err(Refused::Malformed);
    }
    let datagram = &inner[ipv4::HEADER_LEN..];
    let u = udp::Packet::new_checked(datagram).map_err(|_| Refused::Malformed)?;
    udp::Repr::parse(&u).map_err(|_| Refused::Malformed)?;
    Ok(ipv4::HEADER_LEN + udp::HEADER_LEN..inner.len())
}

impl Sealer {
    /// The protection this SA applies.
    pub fn protection(&self) -> Protection {
        self.protection
    }

    /// Moves this SA's counter so that the next datagram carries sequence number `next` (ESP
    /// sequence number, MACsec PN, TLS record sequence number): from
    /// [`Protection::first_sequence`] to one past [`Protection::last_sequence`] (an exhausted
    /// SA). For tests and for resuming an SA: the counter only ever moves forward in
    /// [`Sealer::seal`], so a sealer that is never moved back never repeats a nonce. The
    /// matching receiver is [`Opener::with_next_sequence`].
    pub fn with_next_sequence(mut self, next: u64) -> Result<Sealer, LiveError> {
        let first = self.protection.first_sequence();
        if let Some(last) = self.protection.last_sequence()
            && !(first..=last.saturating_add(1)).contains(&next)
        {
            return Err(LiveError::BadArgument {
                what: format!("next sequence number of a {} SA", self.protection),
                got: next.to_string(),
                allowed: format!("{first}..={} (one past the last is exhausted)", last + 1),
            });
        }
        self.next = next;
        Ok(self)
    }

    /// The sequence number the next datagram would carry (see [`Sealer::with_next_sequence`]).
    pub fn next_sequence(&self) -> u64 {
        self.next
    }

    /// How many more datagrams this SA may seal before [`LiveError::SequenceExhausted`]
    /// (`u64::MAX` for plaintext, which has no sequence number).
    pub fn remaining(&self) -> u64 {
        match self.protection.last_sequence() {
            Some(last) => (last + 1).saturating_sub(self.next),
            None => u64::MAX,
        }
    }

    /// Seals `payload` into `out` (cleared first): `out` becomes the whole UDP payload. A
    /// cipher failure is an error and leaves nothing to send (`out` is cleared).
    ///
    /// **Never a repeated nonce**: each datagram takes the next sequence number, and once the
    /// SA has used its last ([`Protection::last_sequence`]: 2^32 - 1 for ESP without ESN and
    /// MACsec without XPN, whose 32-bit counters must not cycle, RFC 4303 §3.3.3, an exhausted
    /// MACsec PN needing a new SAK, IEEE 802.1AE; the AES-GCM record limit of RFC 8446 §5.5
    /// for TLS 1.3) every further call is refused with [`LiveError::SequenceExhausted`] and
    /// changes nothing. The SA is not rekeyed: a new one is the caller's to set up.
    pub fn seal(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Result<(), LiveError> {
        let r = self.seal_inner(payload, out);
        if r.is_err() {
            out.clear();
        }
        r
    }

    fn seal_inner(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Result<(), LiveError> {
        let seq = self.next;
        if let Some(last) = self.protection.last_sequence()
            && seq > last
        {
            return Err(LiveError::SequenceExhausted {
                protection: self.protection.name(),
                limit: self.protection.packets_per_sa().unwrap_or(0),
                rule: self.protection.sequence_rule(),
            });
        }
        self.next = seq.saturating_add(1);
        let Some(f) = &mut self.framing else {
            out.clear();
            out.extend_from_slice(payload);
            return Ok(());
        };
        f.ids.seq = seq;
        let e = f
            .stack
            .emit(f.from, payload, &f.ids, out)
            .map_err(LiveError::Protocol)?;
        let s = &e.sealing[0];
        let failed = |reason: String| LiveError::Seal {
            protection: self.protection.name(),
            len: payload.len(),
            reason,
        };
        match &self.engine {
            Engine::Plain => Ok(()),
            Engine::Gcm256(aead) if self.protection == Protection::EspGcm => {
                let nonce = esp_nonce(&self.keys.salt, &out[s.iv.clone()]);
                aead_seal(&**aead, nonce, s, out).map_err(|e| failed(e.to_string()))
            }
            Engine::Gcm256(aead) => {
                // TLS 1.3: the record sequence number starts at 0 (RFC 8446 §5.3).
                let nonce = tls::nonce(&self.keys.salt, seq);
                aead_seal(&**aead, nonce, s, out).map_err(|e| failed(e.to_string()))
            }
            Engine::Gcm128(aead) => {
                // At most last_sequence() = 2^32 - 1 (checked above): the PN fits.
                let pn = u32::try_from(seq).map_err(|_| failed(format!("PN {seq} > 2^32 - 1")))?;
                let nonce = macsec::gcm_iv(f.ids.sci, pn);
                aead_seal(&**aead, nonce, s, out).map_err(|e| failed(e.to_string()))
            }
            Engine::Cbc {
                block,
                iv_block,
                mac,
            } => {
                // An unpredictable IV (RFC 3602 §2): the counter encrypted under a second key.
                let mut ctr = [0u8; 16];
                ctr[8..].copy_from_slice(&seq.to_be_bytes());
                let mut iv = ctr.into();
                iv_block.encrypt_block_b2b(&ctr.into(), &mut iv);
                out[s.iv.clone()].copy_from_slice(&iv);
                let (blocks, tail) = InOutBuf::from(&mut out[s.encrypted.clone()]).into_chunks();
                if !tail.is_empty() {
                    return Err(failed("ciphertext not a whole number of blocks".into()));
                }
                cbc::Encryptor::<Aes256>::inner_iv_init((**block).clone(), &iv)
                    .encrypt_blocks_inout(blocks);
                let mut m = (**mac).clone();
                m.update(&out[s.aad.start..s.encrypted.end]);
                let icv = m.finalize().into_bytes();
                let n = s.icv.len();
                out[s.icv.clone()].copy_from_slice(&icv[..n]);
                Ok(())
            }
        }
    }
}

impl Opener {
    /// The protection this SA expects.
    pub fn protection(&self) -> Protection {
        self.protection
    }

    /// Joins the SA at sequence number `next`, as a receiver that has already received
    /// everything before it: the replay window starts there and TLS expects record `next`. The
    /// receiving side of [`Sealer::with_next_sequence`].
    pub fn with_next_sequence(mut self, next: u64) -> Opener {
        self.window = ReplayWindow::starting_at(next);
        self.next = next;
        self
    }

    /// Counters so far.
    pub fn stats(&self) -> OpenStats {
        self.stats
    }

    /// Opens a received datagram in place and returns the payload; on refusal counts the reason
    /// and returns it. Nothing of a refused packet is returned.
    pub fn open<'a>(&mut self, datagram: &'a mut [u8]) -> Result<&'a [u8], Refused> {
        let r = self.open_inner(datagram);
        match r {
            Ok(_) => self.stats.delivered += 1,
            Err(Refused::Auth) => self.stats.auth_failures += 1,
            Err(Refused::Replay) => self.stats.replays += 1,
            Err(Refused::Late) => self.stats.late += 1,
            Err(Refused::UnknownSa) => self.stats.unknown_sa += 1,
            Err(Refused::Malformed) => self.stats.malformed += 1,
        }
        r.map(|range| &datagram[range])
    }

    fn open_inner(&mut self, d: &mut [u8]) -> Result<Range<usize>, Refused> {
        let Some(f) = &self.framing else {
            return Ok(0..d.len());
        };
        let l = &f.layout;
        if d.len() < l.min_len {
            return Err(Refused::Malformed);
        }
        let icv = l.icv(d.len());
        match (&self.engine, self.protection) {
            (Engine::Plain, _) => Ok(0..d.len()),
            (Engine::Gcm256(_) | Engine::Cbc { .. }, Protection::EspGcm | Protection::EspCbc) => {
                let hdr = esp::Packet::new_checked(&d[..]).map_err(|_| Refused::Malformed)?;
                let repr = esp::Repr::parse(&hdr).map_err(|_| Refused::Malformed)?;
                if repr.spi != f.ids.spi {
                    return Err(Refused::UnknownSa);
                }
                let seq = u64::from(repr.seq);
                self.window.verdict(seq)?;
                let body = l.empty.encrypted.start..icv.start;
                match &self.engine {
                    Engine::Gcm256(aead) => {
                        let nonce = esp_nonce(&self.keys.salt, &d[l.empty.iv.clone()]);
                        aead_open(&**aead, nonce, l.empty.aad.clone(), body.clone(), icv, d)?;
                    }
                    Engine::Cbc { block, mac, .. } => {
                        if body.len() % 16 != 0 {
                            return Err(Refused::Malformed);
                        }
                        let mut m = (**mac).clone();
                        m.update(&d[..icv.start]);
                        m.verify_truncated_left(&d[icv])
                            .map_err(|_| Refused::Auth)?;
                        let iv: [u8; 16] = d[l.empty.iv.clone()]
                            .try_into()
                            .map_err(|_| Refused::Malformed)?;
                        let (blocks, _) = InOutBuf::from(&mut d[body.clone()]).into_chunks();
                        cbc::Decryptor::<Aes256>::inner_iv_init((**block).clone(), &iv.into())
                            .decrypt_blocks_inout(blocks);
                    }
                    _ => return Err(Refused::Malformed),
                }
                self.window.update(seq);
                let (inner, next) =
                    esp::parse_trailer(&d[body.clone()]).map_err(|_| Refused::Malformed)?;
                if next != ipv4::PROTO_IPV4 {
                    return Err(Refused::Malformed);
                }
                let r = inner_udp(&d[body.start..body.start + inner])?;
                Ok(r.start + body.start..r.end + body.start)
            }
            (Engine::Gcm128(aead), p) => {
                let encrypt = p == Protection::Macsec;
                let tag = macsec::Packet::new_checked(&d[macsec::SECTAG_OFFSET..])
                    .map_err(|_| Refused::Malformed)?;
                let secure = macsec::SECTAG_OFFSET + tag.header_len()..icv.start;
                let repr =
                    macsec::Repr::parse(&tag, secure.len()).map_err(|_| Refused::Malformed)?;
                if repr.encrypted != encrypt {
                    return Err(Refused::Malformed);
                }
                if repr.sci != Some(f.ids.sci) || repr.an != f.ids.an {
                    return Err(Refused::UnknownSa);
                }
                self.window.verdict(u64::from(repr.pn))?;
                let nonce = macsec::gcm_iv(f.ids.sci, repr.pn);
                let (aad, enc) = if encrypt {
                    (0..secure.start, secure.clone())
                } else {
                    (0..secure.end, secure.end..secure.end)
                };
                aead_open(&**aead, nonce, aad, enc, icv, d)?;
                self.window.update(u64::from(repr.pn));
                let ethertype = ethernet::field::ETHERTYPE.len();
                if secure.len() < ethertype
                    || d[secure.start..secure.start + ethertype]
                        != ethernet::ETHERTYPE_IPV4.to_be_bytes()
                {
                    return Err(Refused::Malformed);
                }
                let start = secure.start + ethertype;
                let r = inner_udp(&d[start..secure.end])?;
                Ok(r.start + start..r.end + start)
            }
            (Engine::Gcm256(aead), _) => {
                let rec = tls::Packet::new_checked(&d[..]).map_err(|_| Refused::Malformed)?;
                tls::Repr::parse(&rec).map_err(|_| Refused::Malformed)?;
                let nonce = tls::nonce(&self.keys.salt, self.next);
                let body = tls::HEADER_LEN..icv.start;
                // A replayed or reordered record fails here: its nonce is not the expected one.
                aead_open(&**aead, nonce, 0..tls::HEADER_LEN, body.clone(), icv, d)?;
                self.next = self.next.saturating_add(1);
                let (end, kind) = tls::parse_inner(&d[body]).map_err(|_| Refused::Malformed)?;
                if kind != tls::APPLICATION_DATA {
                    return Err(Refused::Malformed);
                }
                Ok(tls::HEADER_LEN..tls::HEADER_LEN + end)
            }
            _ => Err(Refused::Malformed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Protection;

    fn payload(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 131 + 7) as u8).collect()
    }

    #[test]
    fn every_protection_round_trips_at_the_modelled_length() {
        for p in Protection::ALL {
            let (mut s, mut o) = security_association(p, 7).unwrap();
            let mut out = Vec::new();
            for n in (0..300).chain([1400, 1500, 8972, 9000]) {
                let pl = payload(n);
                s.seal(&pl, &mut out).unwrap();
                assert_eq!(out.len(), p.datagram_len(n).unwrap(), "{p} {n}");
                let got = o.open(&mut out).unwrap();
                assert_eq!(got, &pl[..], "{p} {n}");
            }
            assert_eq!(o.stats().delivered, 304);
        }
    }

    #[test]
    fn encryption_hides_the_payload_and_integrity_only_does_not() {
        let pl = vec![0xabu8; 256];
        for p in Protection::ALL {
            let (mut s, _) = security_association(p, 1).unwrap();
            let mut out = Vec::new();
            s.seal(&pl, &mut out).unwrap();
            let visible = out.windows(32).any(|w| w == &pl[..32]);
            let clear = matches!(p, Protection::Plain | Protection::MacsecIntegrity);
            assert_eq!(visible, clear, "{p}");
        }
    }

    #[test]
    fn flipped_bits_and_replays_are_refused_and_counted() {
        for p in Protection::ALL.into_iter().filter(|p| p.authenticates()) {
            let (mut s, mut o) = security_association(p, 3).unwrap();
            let mut good = Vec::new();
            s.seal(&payload(500), &mut good).unwrap();
            let mut bad_count = 0;
            for at in [good.len() / 2, good.len() - 1] {
                let mut bad = good.clone();
                bad[at] ^= 0x10;
                assert_eq!(o.open(&mut bad), Err(Refused::Auth), "{p} @{at}");
                bad_count += 1;
            }
            let mut copy = good.clone();
            assert!(o.open(&mut copy).is_ok(), "{p}");
            let mut again = good.clone();
            let expect = if p == Protection::Tls13 {
                Refused::Auth
            } else {
                Refused::Replay
            };
            assert_eq!(o.open(&mut again), Err(expect), "{p}");
            let st = o.stats();
            assert_eq!(st.delivered, 1, "{p}");
            assert_eq!(st.auth_failures + st.replays, bad_count + 1, "{p}");
        }
    }

    /// The identifiers a datagram's nonce is built from, as sent: ESP sequence number and
    /// explicit IV, MACsec SCI and PN, the TLS record sequence number (implicit: `tls_seq`).
    fn nonce_of(p: Protection, d: &[u8], tls_seq: u64) -> Vec<u8> {
        match p {
            Protection::EspGcm => d[4..16].to_vec(),
            Protection::EspCbc => d[4..24].to_vec(),
            Protection::Macsec | Protection::MacsecIntegrity => {
                let t = macsec::SECTAG_OFFSET;
                d[t + 4..t + 16].to_vec()
            }
            _ => tls_seq.to_be_bytes().to_vec(),
        }
    }

    /// Issue 14 class 8: ESP's and MACsec's 32-bit counters never cycle and TLS never passes
    /// its record limit: a sealer moved next to the limit seals up to it, then refuses with a
    /// typed error naming the protection and the limit, and no two datagrams under one key
    /// (the SA's first ones and its last ones) share a nonce. On the code before, the counter
    /// went on: MACsec's PN wrapped to 0 and ESP's sequence number to 0, repeating nonces.
    #[test]
    fn an_exhausted_sa_refuses_instead_of_repeating_a_nonce() {
        for p in Protection::ALL.into_iter().filter(|p| p.authenticates()) {
            let last = p.last_sequence().unwrap();
            let mut seen = std::collections::HashSet::new();
            let mut out = Vec::new();
            let (mut fresh, mut fresh_rx) = security_association(p, 5).unwrap();
            for k in 0..3 {
                fresh.seal(&payload(40), &mut out).unwrap();
                assert!(seen.insert(nonce_of(p, &out, k)), "{p}");
                assert!(fresh_rx.open(&mut out).is_ok(), "{p}");
            }
            let (s, o) = security_association(p, 5).unwrap();
            let mut s = s.with_next_sequence(last - 2).unwrap();
            let mut o = o.with_next_sequence(last - 2);
            for _ in 0..3 {
                let seq = s.next_sequence();
                s.seal(&payload(40), &mut out).unwrap();
                assert!(
                    seen.insert(nonce_of(p, &out, seq)),
                    "{p}: nonce repeated at {seq}"
                );
                assert_eq!(o.open(&mut out).unwrap(), &payload(40)[..], "{p} {seq}");
            }
            assert_eq!(s.remaining(), 0, "{p}");
            for _ in 0..2 {
                out = vec![1, 2, 3];
                let e = s.seal(&payload(40), &mut out).unwrap_err();
                assert!(
                    matches!(e, LiveError::SequenceExhausted { limit, .. }
                        if limit == p.packets_per_sa().unwrap()),
                    "{p}: {e}"
                );
                let text = e.to_string();
                assert!(
                    text.contains(p.name()) && text.contains(&limit_text(p)),
                    "{text}"
                );
                assert!(out.is_empty(), "{p}: nothing to send");
                assert_eq!(s.next_sequence(), last + 1, "{p}: the counter stays put");
            }
            assert_eq!(o.stats().delivered, 3, "{p}");
        }
        assert_eq!(Protection::EspGcm.packets_per_sa(), Some((1 << 32) - 1));
        assert_eq!(Protection::Macsec.packets_per_sa(), Some((1 << 32) - 1));
        assert_eq!(Protection::Tls13.packets_per_sa(), Some(23_726_566)); // 2^24.5
        assert_eq!(Protection::Plain.packets_per_sa(), None);
    }

    fn limit_text(p: Protection) -> String {
        p.packets_per_sa().unwrap().to_string()
    }

    #[test]
    fn the_sequence_can_only_be_moved_within_the_sa() {
        for p in Protection::ALL.into_iter().filter(|p| p.authenticates()) {
            let last = p.last_sequence().unwrap();
            let sa = || security_association(p, 2).unwrap().0;
            assert!(sa().with_next_sequence(last + 1).is_ok(), "{p}");
            let e = sa().with_next_sequence(last + 2).err().unwrap().to_string();
            assert!(e.contains(&(last + 1).to_string()), "{e}");
            assert_eq!(
                sa().with_next_sequence(0).is_ok(),
                p.first_sequence() == 0,
                "{p}"
            );
        }
        let plain = security_association(Protection::Plain, 2).unwrap().0;
        let mut plain = plain.with_next_sequence(u64::MAX).unwrap();
        let mut out = Vec::new();
        plain.seal(b"no sequence number", &mut out).unwrap();
        plain.seal(b"no sequence number", &mut out).unwrap(); // saturates, never panics
        assert_eq!(plain.remaining(), u64::MAX);
    }
}
