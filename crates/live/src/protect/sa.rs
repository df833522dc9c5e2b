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
use protocols::Stack;
use protocols::emit::{Ids, Sealing};
use protocols::wire::{esp, ethernet, ipv4, macsec, tls, udp};
use sha2::Sha256;

use super::Protection;
use crate::LiveError;

const REPLAY_WINDOW: u64 = 64;

/// Why a packet was refused. None of them delivers anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The integrity check failed (forged or modified packet, wrong key).
    Auth,
    /// The sequence number was seen before or is older than the replay window.
    Replay,
    /// Too short, wrong header fields, bad padding or inner headers.
    Malformed,
}

/// Counters of an [`Opener`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct OpenStats {
    /// Packets verified, decrypted and delivered.
    pub delivered: u64,
    /// Packets whose integrity check failed.
    pub auth_failures: u64,
    /// Packets refused by the anti-replay window.
    pub replays: u64,
    /// Packets refused as malformed.
    pub malformed: u64,
}

impl OpenStats {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &OpenStats) {
        self.delivered += other.delivered;
        self.auth_failures += other.auth_failures;
        self.replays += other.replays;
        self.malformed += other.malformed;
    }
}

/// Anti-replay sliding window of 64 sequence numbers (RFC 4303 §3.4.3 and Appendix A,
/// IEEE 802.1AE §10.6.2 with a window).
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplayWindow {
    top: u64,
    bitmap: u64,
}

impl ReplayWindow {
    /// Whether `seq` may still be accepted (checked before the integrity check).
    pub fn check(&self, seq: u64) -> bool {
        if seq == 0 {
            return false; // 0 is never sent (ESP starts at 1, MACsec PN 0 is invalid)
        }
        if seq > self.top {
            return true;
        }
        let age = self.top - seq;
        age < REPLAY_WINDOW && self.bitmap & (1u64 << age) == 0
    }

    /// Records `seq` as received (only after the integrity check passed).
    pub fn update(&mut self, seq: u64) {
        if seq > self.top {
            let shift = seq - self.top;
            self.bitmap = if shift >= REPLAY_WINDOW {
                0
            } else {
                self.bitmap << shift
            };
            self.bitmap |= 1;
            self.top = seq;
        } else {
            self.bitmap |= 1u64 << (self.top - seq);
        }
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
    seq: u64,
}

/// The receiver's side of one security association: verifies, decrypts and delivers, or refuses
/// and counts.
pub struct Opener {
    protection: Protection,
    engine: Engine,
    keys: Keys,
    framing: Option<Framing>,
    window: ReplayWindow,
    /// TLS: the next expected record sequence number.
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
            seq: 0,
        },
        Opener {
            protection,
            engine: engine(protection, &keys),
            keys,
            framing: framing(protection, spi)?,
            window: ReplayWindow::default(),
            next: 0,
            stats: OpenStats::default(),
        },
    ))
}

/// The 12-byte AEAD nonce of ESP: the 4-byte salt and the 8-byte explicit IV (RFC 4106 §4).
fn esp_nonce(salt: &[u8; 12], explicit: &[u8]) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[..4].copy_from_slice(&salt[..4]);
    n[4..].copy_from_slice(explicit);
    n
}

/// Encrypts `s.encrypted` in place, authenticating `s.aad` with it, and writes the tag to
/// `s.icv`.
fn aead_seal<A: AeadInOut>(
    aead: &A,
    nonce: [u8; 12],
    s: &Sealing,
    out: &mut [u8],
) -> Result<(), String>
where
    aes_gcm::aead::Nonce<A>: From<[u8; 12]>,
{
    let (head, rest) = out.split_at_mut(s.encrypted.start);
    let (body, tail) = rest.split_at_mut(s.encrypted.len());
    let tag = aead
        .encrypt_inout_detached(&nonce.into(), &head[s.aad.clone()], body.into())
        .map_err(|e| e.to_string())?;
    let at = s.icv.start - s.encrypted.end;
    tail.get_mut(at..at + tag.len())
        .ok_or("the ICV region is shorter than the tag")?
        .copy_from_slice(&tag);
    Ok(())
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

    /// Seals `payload` into `out` (cleared first): `out` becomes the whole UDP payload. A
    /// cipher failure is an error and leaves nothing to send (`out` is cleared).
    pub fn seal(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Result<(), LiveError> {
        let r = self.seal_inner(payload, out);
        if r.is_err() {
            out.clear();
        }
        r
    }

    fn seal_inner(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Result<(), LiveError> {
        self.seq += 1;
        let seq = self.seq;
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
                aead_seal(&**aead, nonce, s, out).map_err(failed)
            }
            Engine::Gcm256(aead) => {
                // TLS 1.3: the record sequence number starts at 0 (RFC 8446 §5.3).
                let nonce = tls::nonce(&self.keys.salt, seq - 1);
                aead_seal(&**aead, nonce, s, out).map_err(failed)
            }
            Engine::Gcm128(aead) => {
                let nonce = macsec::gcm_iv(f.ids.sci, seq as u32);
                aead_seal(&**aead, nonce, s, out).map_err(failed)
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
                    return Err(Refused::Malformed);
                }
                let seq = u64::from(repr.seq);
                if !self.window.check(seq) {
                    return Err(Refused::Replay);
                }
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
                if repr.encrypted != encrypt || repr.sci != Some(f.ids.sci) {
                    return Err(Refused::Malformed);
                }
                if !self.window.check(u64::from(repr.pn)) {
                    return Err(Refused::Replay);
                }
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
                self.next += 1;
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

    #[test]
    fn replay_window_accepts_reordering_within_64() {
        let mut w = ReplayWindow::default();
        for s in [5, 3, 4, 66, 7] {
            assert!(w.check(s), "{s}");
            w.update(s);
        }
        assert!(!w.check(5)); // seen
        assert!(!w.check(2)); // 66 - 2 = 64: outside the window
        assert!(w.check(6)); // inside, not seen
        assert!(w.check(67));
        assert!(!w.check(0));
    }
}
