//! Issue 14 class 8: tampering with every field. For each protection, every bit of every byte
//! of a sealed datagram (the header fields, the IV, the lengths, the encrypted or clear body,
//! the padding and trailer, the ICV) is flipped, and the datagram is truncated and extended;
//! the opener must refuse each one, count it under the counter its field calls for, and still
//! deliver the untouched datagram afterwards. No CPU time to speak of: the datagrams never leave
//! memory (the real-socket replay tests are in `tests/live.rs`).

use live::{OpenStats, Opener, Protection, Refused, Sealer, security_association};
use protocols::wire::{esp, macsec, tls};

const PROTECTED: [Protection; 5] = [
    Protection::EspGcm,
    Protection::EspCbc,
    Protection::Macsec,
    Protection::MacsecIntegrity,
    Protection::Tls13,
];

/// Bytes of a datagram that the standard leaves outside the integrity check and that the opener
/// therefore may accept modified: none. The fields that ESP in UDP (RFC 3948) and MACsec leave
/// unprotected (the outer IPv4 and UDP headers, the Ethernet FCS) are the kernel's, outside the
/// datagram the opener is given; inside it, ESP's SPI and sequence number and the rest of the
/// packet are under the ICV (RFC 4303 §2), MACsec's DA, SA and SecTAG are in the GCM AAD
/// (802.1AE §14.5), and the TLS 1.3 record header is the AEAD's additional data (RFC 8446
/// §5.2). The test asserts that nothing else is ever accepted.
const UNAUTHENTICATED: &[usize] = &[];

/// Payload sizes: empty, around ESP's 4- and 16-byte padding boundaries, below and above
/// MACsec's 48-byte Short Length limit, and a full-size one.
const PAYLOADS: [usize; 7] = [0, 1, 2, 17, 19, 100, 1400];

/// Where a sealer and its opener start: a fresh SA (sequence 1, or 0 for TLS), and one far into
/// its sequence space, so that flipped sequence bits land both above and below the window.
fn starts(p: Protection) -> [u64; 2] {
    [p.first_sequence(), 0x0012_3456]
}

fn payload(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 89 + 3) as u8).collect()
}

/// A sealer and an opener of one SA, the opener having received everything before `next`.
fn sa(p: Protection, next: u64) -> (Sealer, Opener) {
    let (s, o) = security_association(p, 0x7a3e).unwrap();
    (
        s.with_next_sequence(next).unwrap(),
        o.with_next_sequence(next),
    )
}

/// What the opener (which has received everything before `next`) must say of sequence number
/// `t` in an otherwise genuine datagram: below the window or 0 is late, inside it a duplicate,
/// above it new, so the ICV decides (the sequence number is authenticated).
fn sequence_verdict(t: u64, next: u64) -> Refused {
    let top = next - 1;
    if t == 0 || (t <= top && top - t >= 64) {
        Refused::Late
    } else if t <= top {
        Refused::Replay
    } else {
        Refused::Auth
    }
}

fn be(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0, |a, &b| (a << 8) | u64::from(b))
}

/// The secure data length of a MACsec datagram of `len` bytes (after a 16-byte SecTAG with SCI,
/// before the 16-byte ICV) \[bytes\].
fn macsec_secure(len: usize) -> usize {
    len - macsec::SECTAG_OFFSET - 16 - 16
}

/// What flipping `mask` in byte `at` of the genuine datagram `d` (sequence number `next`) must
/// give, by the field the byte belongs to.
fn expected_flip(p: Protection, d: &[u8], at: usize, mask: u8, next: u64) -> Refused {
    let flipped = |field: std::ops::Range<usize>| {
        let mut f = d[field.clone()].to_vec();
        f[at - field.start] ^= mask;
        be(&f)
    };
    match p {
        Protection::EspGcm | Protection::EspCbc => match at {
            // SPI: not this SA's (RFC 4303 §3.4.2).
            _ if esp::field::SPI.contains(&at) => Refused::UnknownSa,
            // Sequence number: the window, then the ICV.
            _ if esp::field::SEQ.contains(&at) => sequence_verdict(flipped(esp::field::SEQ), next),
            // IV, encrypted inner packet, padding, trailer, ICV: the ICV fails.
            _ => Refused::Auth,
        },
        Protection::Macsec | Protection::MacsecIntegrity => {
            let t = macsec::SECTAG_OFFSET;
            let tag = |f: std::ops::Range<usize>| f.start + t..f.end + t;
            let secure = macsec_secure(d.len());
            match at {
                // DA, SA: in the AAD.
                _ if at < t => Refused::Auth,
                // EtherType 0x88E5: not a MACsec frame.
                _ if tag(macsec::field::ETHERTYPE).contains(&at) => Refused::Malformed,
                _ if at == t + macsec::field::TCI_AN => match mask {
                    // Version must be 0, E must equal C.
                    macsec::TCI_V | macsec::TCI_E | macsec::TCI_C => Refused::Malformed,
                    // Without SC the SecTAG has no SCI: no SA matches, unless the Short Length
                    // no longer fits the 8 bytes longer secure data.
                    macsec::TCI_SC => {
                        if macsec::short_len(secure + 8) == macsec::short_len(secure) {
                            Refused::UnknownSa
                        } else {
                            Refused::Malformed
                        }
                    }
                    // ES and SCB: authenticated, not interpreted.
                    macsec::TCI_ES | macsec::TCI_SCB => Refused::Auth,
                    // The association number: not this SA's.
                    _ => Refused::UnknownSa,
                },
                // Short Length: must match the secure data exactly.
                _ if at == t + macsec::field::SL => Refused::Malformed,
                _ if tag(macsec::field::PN).contains(&at) => {
                    sequence_verdict(flipped(tag(macsec::field::PN)), next)
                }
                _ if tag(macsec::field::SCI).contains(&at) => Refused::UnknownSa,
                // Secure data (encrypted, or clear under the ICV) and the ICV.
                _ => Refused::Auth,
            }
        }
        _ => {
            if at < tls::HEADER_LEN {
                // Type, legacy version, length: each must be what a TLS 1.3 record over this
                // datagram says (RFC 8446 §5.2), checked before the AEAD.
                Refused::Malformed
            } else {
                Refused::Auth
            }
        }
    }
}

/// What a genuine datagram `d` cut or padded to `len` bytes must give (`len != d.len()`).
fn expected_resize(p: Protection, d: &[u8], len: usize, min_len: usize) -> Refused {
    if len < min_len {
        return Refused::Malformed;
    }
    match p {
        // The ICV is read from the new end: it fails.
        Protection::EspGcm => Refused::Auth,
        // CBC ciphertext is whole 16-byte blocks (after SPI, seq, IV; before the 16-byte ICV).
        Protection::EspCbc => {
            if (len - esp::HEADER_LEN - 16 - 16).is_multiple_of(16) {
                Refused::Auth
            } else {
                Refused::Malformed
            }
        }
        // The Short Length must still match the secure data.
        Protection::Macsec | Protection::MacsecIntegrity => {
            let sl = macsec::short_len(macsec_secure(d.len()));
            if macsec::short_len(macsec_secure(len)) == sl {
                Refused::Auth
            } else {
                Refused::Malformed
            }
        }
        // The record length no longer matches the datagram.
        _ => Refused::Malformed,
    }
}

fn count(stats: &mut OpenStats, r: Refused) {
    match r {
        Refused::Auth => stats.auth_failures += 1,
        Refused::Replay => stats.replays += 1,
        Refused::Late => stats.late += 1,
        Refused::UnknownSa => stats.unknown_sa += 1,
        _ => stats.malformed += 1,
    }
}

/// Opens `bad` and checks the verdict against `want`; records a mismatch.
fn try_open(
    o: &mut Opener,
    mut bad: Vec<u8>,
    want: Refused,
    tally: &mut OpenStats,
    what: impl FnOnce() -> String,
    wrong: &mut Vec<String>,
) {
    let got = o.open(&mut bad).map(|_| ()).err();
    if got != Some(want) {
        wrong.push(format!("{}: got {got:?}, want {want:?}", what()));
    }
    count(tally, want);
}

#[test]
fn every_bit_of_every_byte_flipped_is_refused_and_counted_by_its_field() {
    let mut wrong = Vec::new();
    let mut trials = 0u64;
    for p in PROTECTED {
        for next in starts(p) {
            for n in PAYLOADS {
                let (mut s, mut o) = sa(p, next);
                let mut d = Vec::new();
                s.seal(&payload(n), &mut d).unwrap();
                let mut tally = OpenStats::default();
                for at in (0..d.len()).filter(|at| !UNAUTHENTICATED.contains(at)) {
                    for bit in 0..8 {
                        let mask = 1u8 << bit;
                        let mut bad = d.clone();
                        bad[at] ^= mask;
                        let want = expected_flip(p, &d, at, mask, next);
                        let what =
                            || format!("{p} seq {next} payload {n}: byte {at} ^ {mask:#04x}");
                        try_open(&mut o, bad, want, &mut tally, what, &mut wrong);
                        trials += 1;
                    }
                }
                // None of it moved the receiver: the genuine datagram is still delivered.
                let mut good = d.clone();
                assert_eq!(
                    o.open(&mut good).unwrap(),
                    &payload(n)[..],
                    "{p} {next} {n}"
                );
                tally.delivered = 1;
                assert_eq!(o.stats(), tally, "{p} seq {next} payload {n}");
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {trials} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    eprintln!("{trials} flips");
    assert!(trials > 100_000, "{trials}");
}

#[test]
fn truncated_and_extended_datagrams_are_refused_and_counted() {
    let mut wrong = Vec::new();
    for p in PROTECTED {
        for n in PAYLOADS {
            // Nothing shorter than an empty payload's datagram is valid.
            let min_len = p.datagram_len(0).unwrap();
            let (mut s, mut o) = sa(p, p.first_sequence());
            let mut d = Vec::new();
            s.seal(&payload(n), &mut d).unwrap();
            let mut tally = OpenStats::default();
            let lens = (0..d.len()).chain(d.len() + 1..=d.len() + 64);
            for len in lens {
                let mut bad = d.clone();
                bad.resize(len, 0xa5);
                let want = expected_resize(p, &d, len, min_len);
                let what = || format!("{p} payload {n}: {} -> {len} bytes", d.len());
                try_open(&mut o, bad, want, &mut tally, what, &mut wrong);
            }
            let mut good = d.clone();
            assert_eq!(o.open(&mut good).unwrap(), &payload(n)[..], "{p} {n}");
            tally.delivered = 1;
            assert_eq!(o.stats(), tally, "{p} payload {n}");
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
