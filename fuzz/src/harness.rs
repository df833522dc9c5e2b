//! The protocol fuzz harnesses: stack strings and the `protocols::wire` parsers. This file
//! depends on `protocols` only, so the main workspace's `crates/protocols/tests/fuzz_corpus.rs`
//! compiles it too (`#[path]`) and replays the corpus on every `cargo test`.

use protocols::wire::{ecpri, esp, ethernet, ipv4, macsec, tls, udp};
use protocols::{
    Error, Ids, IpsecFragmentation, SplitPolicy, Stack, ip_fragments, ipsec_fragments,
    split_payload,
};

/// Payloads a parsed stack is sized and written for \[bytes\].
const PAYLOADS: [usize; 5] = [0, 1, 100, 1500, 9000];

/// A stack string: parsed; when it parses, its canonical text parses to the same stack, and
/// its sizes, emitted frames, protected lengths and fragments of small payloads hold together.
pub fn stack(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let st = match Stack::parse(text) {
        Ok(st) => st,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    let canonical = st.to_string();
    assert_eq!(
        Stack::parse(&canonical).as_ref(),
        Ok(&st),
        "`{text}` -> `{canonical}`"
    );
    let mut out = Vec::new();
    let mut prev = 0;
    for n in PAYLOADS {
        let Ok(wire) = st.wire_len(n) else {
            // Refused (a SACK with a payload, a payload over a length field): so are the rest.
            continue;
        };
        assert!(wire >= prev && wire >= n, "`{canonical}` {n} B: {wire} B");
        prev = wire;
        let b = st.breakdown(n).expect("breakdown where wire_len succeeds");
        assert_eq!(b.first().map(|l| l.total), Some(wire));
        assert!(st.mtu_len(n).is_ok_and(|m| m <= wire));
        if let Some(p) = st.protected(n).expect("protected where wire_len succeeds") {
            assert!(p.encrypted.saturating_add(p.authenticated) <= wire);
        }
        match st.emit(0, &vec![0xa5; n], &Ids::default(), &mut out) {
            Ok(e) => {
                assert_eq!(out.len(), wire, "`{canonical}` {n} B");
                assert_eq!(e.payload.len(), n);
                for s in &e.sealing {
                    assert!(s.encrypted.end <= s.icv.start && s.icv.end <= out.len());
                }
            }
            Err(Error::Unsupported { .. }) => {}
            Err(e) => panic!("`{canonical}` {n} B: emit failed where wire_len did not: {e}"),
        }
        for mtu in [576, 1500] {
            if let Ok(frames) = split_payload(&st, n, mtu, SplitPolicy::Even) {
                assert_eq!(frames.iter().map(|f| f.payload).sum::<usize>(), n);
                assert!(frames.iter().all(|f| f.mtu_len <= mtu));
            }
            for frames in [
                ip_fragments(&st, n, mtu),
                ipsec_fragments(&st, n, mtu, IpsecFragmentation::BeforeEncryption),
            ]
            .into_iter()
            .flatten()
            {
                assert_eq!(frames.iter().map(|f| f.payload).sum::<usize>(), n);
                assert!(
                    frames.iter().all(|f| f.mtu_len <= mtu),
                    "`{canonical}` {n} B"
                );
            }
        }
    }
    for mtu in [0, 68, 1500, 9000] {
        if let Ok(p) = st.max_payload(mtu) {
            assert!(st.mtu_len(p).is_ok_and(|l| l <= mtu));
        }
    }
}

/// Parses `data` with `Repr::parse` through a checked view, writes what it read into a copy
/// and parses that again: the same meaning.
macro_rules! round_trip {
    ($m:ident, $data:expr $(, $arg:expr)?) => {{
        if let Ok(p) = $m::Packet::new_checked($data) {
            if let Ok(repr) = $m::Repr::parse(&p $(, $arg)?) {
                let mut copy = $data.to_vec();
                repr.emit(&mut $m::Packet::new_unchecked(&mut copy[..]))
                    .expect("emit what was parsed");
                let again = $m::Packet::new_checked(&copy[..]).expect("same length");
                assert_eq!($m::Repr::parse(&again $(, $arg)?).ok(), Some(repr));
            }
        }
    }};
}

/// One of the `protocols::wire` parsers, chosen by the first byte, on the rest: the checked
/// views and every accessor (which must not panic once `new_checked` accepted the buffer),
/// `Repr::parse` and its round trip, and the ESP and TLS trailer parsers.
pub fn wire(data: &[u8]) {
    let Some((&which, data)) = data.split_first() else {
        return;
    };
    match which % 8 {
        0 => {
            if let Ok(p) = ethernet::Packet::new_checked(data) {
                let _ = (p.dst(), p.src(), p.ethertype());
            }
            round_trip!(ethernet, data);
        }
        1 => {
            if let Ok(p) = ipv4::Packet::new_checked(data) {
                let _ = (
                    p.version(),
                    p.header_len(),
                    p.total_len(),
                    p.ttl(),
                    p.protocol(),
                );
                let _ = (p.src(), p.dst(), p.verify_checksum());
            }
            let _ = ipv4::checksum(data);
            round_trip!(ipv4, data);
        }
        2 => {
            if let Ok(p) = udp::Packet::new_checked(data) {
                let _ = (
                    p.src_port(),
                    p.dst_port(),
                    p.len(),
                    p.is_empty(),
                    p.checksum(),
                );
            }
            round_trip!(udp, data);
        }
        3 => {
            if let Ok(p) = esp::Packet::new_checked(data) {
                let _ = (p.spi(), p.seq());
            }
            round_trip!(esp, data);
            if let Ok((payload, _)) = esp::parse_trailer(data) {
                assert!(payload + 2 <= data.len());
            }
        }
        4 | 5 => {
            if let Ok(p) = macsec::Packet::new_checked(data) {
                let _ = (
                    p.ethertype(),
                    p.tci(),
                    p.an(),
                    p.short_len(),
                    p.pn(),
                    p.sci(),
                );
                let header = p.header_len();
                assert!(header <= data.len());
                // The secure data follows the SecTAG in a frame; here its length is the rest.
                round_trip!(macsec, data, data.len() - header);
            }
        }
        6 => {
            if let Ok(p) = ecpri::Packet::new_checked(data) {
                let _ = (p.revision(), p.message_type(), p.payload_size());
            }
            round_trip!(ecpri, data);
        }
        _ => {
            if let Ok(p) = tls::Packet::new_checked(data) {
                let _ = (p.content_type(), p.version(), p.len(), p.is_empty());
            }
            round_trip!(tls, data);
            if let Ok((content, _)) = tls::parse_inner(data) {
                assert!(content < data.len());
            }
        }
    }
}
