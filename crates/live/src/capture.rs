//! Recording the datagrams an experiment really sent and received (`oransim live --pcap`):
//! [`crate::rtt::run_recorded`], [`crate::throughput::run_recorded`],
//! [`crate::bulk::run_recorded`].
//!
//! While an experiment runs, each socket's thread has a [`Recorder`]: a buffer preallocated
//! before the stream starts, into which each datagram the socket sent or received is copied
//! with its time (one `memcpy` and one clock read per datagram, no allocation, no lock, no
//! I/O). Past its share of the capture's frame limit a recorder stops recording and counts
//! what it left out; the experiment goes on. After the stream the recorders join the run's
//! [`Capture`], and after the experiments the caller writes it ([`Capture::frames`] gives
//! each datagram as a raw IPv4 packet).
//!
//! A UDP socket does not see its own IP and UDP headers: [`ipv4_udp`] rebuilds them from the
//! two sockets' addresses (IPv4 header with its checksum, UDP header with its length and
//! checksum); the datagram after them is exactly the bytes that went through the socket.
//!
//! Time is `CLOCK_REALTIME` in nanoseconds since the Unix epoch: for a sent datagram, read just
//! before the send call (the time it was handed to the kernel); for a received one, just after
//! the receive call returned.

use std::net::SocketAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use protocols::wire::checksum;

use crate::Protection;

/// Whether a datagram left or arrived at the socket whose recorder holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Sent by this socket to its peer.
    Sent,
    /// Received by this socket from its peer.
    Received,
}

/// One recorded datagram: where its bytes are in the recorder's buffer.
#[derive(Debug, Clone, Copy)]
struct Record {
    time_ns: u64,
    direction: Direction,
    start: usize,
    len: usize,
}

/// The current time, `CLOCK_REALTIME` \[ns since the Unix epoch\] (0 before 1970).
#[inline]
pub fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// The datagrams one socket sent and received, in a buffer allocated and written once before
/// the stream starts (so that recording takes no page fault: measured, the first write to a
/// fresh page cost more than the copy).
#[derive(Debug, Default)]
pub struct Recorder {
    /// `room` slots, the first `len` in use.
    records: Vec<Record>,
    len: usize,
    /// `byte_room` bytes, the first `used` in use.
    bytes: Vec<u8>,
    used: usize,
    /// Most datagrams it records \[count\].
    room: usize,
    /// Most bytes it records \[bytes\].
    byte_room: usize,
    /// Datagrams left out: past `room` or `byte_room`.
    cut: u64,
}

impl Recorder {
    /// A recorder holding at most `frames` datagrams of at most `bytes` bytes in all,
    /// allocated and touched now.
    pub fn with_capacity(frames: usize, bytes: usize) -> Recorder {
        let empty = Record {
            time_ns: 0,
            direction: Direction::Sent,
            start: 0,
            len: 0,
        };
        Recorder {
            records: vec![empty; frames],
            len: 0,
            // Written, not only reserved: `vec![0; n]` maps zero pages lazily.
            bytes: {
                let mut b = Vec::with_capacity(bytes);
                b.resize(bytes, 1);
                b
            },
            used: 0,
            room: frames,
            byte_room: bytes,
            cut: 0,
        }
    }

    /// Records `data`, sent or received at `time_ns` (see [`now_ns`]); when the buffer is full
    /// it is counted as left out instead. Never allocates.
    #[inline]
    pub fn record(&mut self, time_ns: u64, direction: Direction, data: &[u8]) {
        let start = self.used;
        if self.len == self.room || self.byte_room - start < data.len() {
            self.cut += 1;
            return;
        }
        self.bytes[start..start + data.len()].copy_from_slice(data);
        self.used += data.len();
        self.records[self.len] = Record {
            time_ns,
            direction,
            start,
            len: data.len(),
        };
        self.len += 1;
    }

    /// Datagrams recorded \[count\].
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The datagrams recorded.
    fn records(&self) -> &[Record] {
        &self.records[..self.len]
    }

    /// Datagrams left out because the buffer was full \[count\].
    pub fn cut(&self) -> u64 {
        self.cut
    }
}

/// The two ends of one stream (a protection at a size, between two fresh sockets) and what
/// each recorded.
#[derive(Debug)]
pub struct Stream {
    /// A name for the stream, e.g. `rtt esp-gcm 64B`.
    pub name: String,
    /// What its datagrams carry.
    pub protection: Protection,
    /// Its security associations: the seed each was made from
    /// ([`crate::security_association`]) and whether the client seals with it (else the
    /// server does).
    pub sas: Vec<(u64, bool)>,
    /// The client's (pinger's, sender's) socket address and recorder.
    pub client: (SocketAddr, Recorder),
    /// The server's (echo's, receiver's) socket address and recorder.
    pub server: (SocketAddr, Recorder),
}

impl Stream {
    /// The Wireshark dissector its datagrams are (`-d udp.port==PORT,NAME` on the server's
    /// port; the ports are ephemeral, so nothing else tells Wireshark): `udpencap` for ESP in
    /// UDP (RFC 3948), `eth` for a MACsec frame (an Ethernet frame of type 0x88E5, without FCS),
    /// `data` for plaintext and for TLS 1.3 records (Wireshark's TLS dissector runs over a
    /// stream, not datagrams).
    pub fn dissector(&self) -> &'static str {
        match self.protection {
            Protection::EspGcm | Protection::EspCbc => "udpencap",
            Protection::Macsec | Protection::MacsecIntegrity => "eth",
            Protection::Plain | Protection::Tls13 => "data",
        }
    }
}

/// One frame of the capture: which stream and end saw it, when, and its bytes as a raw IPv4
/// packet (rebuilt headers, then the datagram).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    /// Index of the stream in [`Capture::streams`].
    pub stream: usize,
    /// Whether the server's end saw it (else the client's).
    pub at_server: bool,
    /// Sent or received by that end.
    pub direction: Direction,
    /// `CLOCK_REALTIME` \[ns since the Unix epoch\].
    pub time_ns: u64,
    /// The datagram as it went through the socket (without IP and UDP headers).
    pub datagram: &'a [u8],
    /// Its source and destination socket addresses.
    pub addrs: (SocketAddr, SocketAddr),
}

/// Most bytes of datagrams a capture holds in memory \[bytes\] (256 MiB), whatever its frame
/// limit: the buffers are allocated before each stream, so this bounds what recording takes.
pub const MAX_BYTES: usize = 256 << 20;

/// The datagrams of a run's streams, up to a frame limit and [`MAX_BYTES`].
#[derive(Debug)]
pub struct Capture {
    limit: u64,
    taken: u64,
    /// Bytes reserved by the recorders handed out \[bytes\].
    bytes_taken: usize,
    streams: Vec<Stream>,
}

impl Capture {
    /// An empty capture that will hold at most `limit` frames.
    pub fn new(limit: u64) -> Capture {
        Capture {
            limit,
            taken: 0,
            bytes_taken: 0,
            streams: Vec::new(),
        }
    }

    /// The most frames the capture holds.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Datagrams of `len` bytes the frame limit and [`MAX_BYTES`] leave for the streams to
    /// come \[count\].
    pub fn room(&self, len: usize) -> u64 {
        let bytes = (MAX_BYTES - self.bytes_taken)
            .checked_div(len)
            .map_or(u64::MAX, |n| n as u64);
        (self.limit - self.taken).min(bytes)
    }

    /// Two recorders for a stream expected to record up to `frames` datagrams at each end, each
    /// at most `max_len` bytes: each reserves its share of what the limit leaves, the client's
    /// first, so the capture never holds more than the limit. The limit is thus shared out
    /// stream by stream in the order they run: a capture cut at N holds the first streams
    /// whole, then the client's end of the stream it was cut in before its server's.
    pub fn recorders(&mut self, frames: u64, max_len: usize) -> (Recorder, Recorder) {
        let mut take = || {
            let (n, bytes) = self.reserve(frames, max_len);
            Recorder::with_capacity(n, bytes)
        };
        let client = take();
        let server = take();
        (client, server)
    }

    /// Reserves room for up to `frames` datagrams of at most `max_len` bytes within what the
    /// frame limit and [`MAX_BYTES`] leave: the frames and bytes granted.
    fn reserve(&mut self, frames: u64, max_len: usize) -> (usize, usize) {
        let n = usize::try_from(frames.min(self.limit - self.taken)).unwrap_or(usize::MAX);
        let bytes = n.saturating_mul(max_len).min(MAX_BYTES - self.bytes_taken);
        // No more records than the bytes hold (a zero-length datagram takes no byte).
        let n = bytes.checked_div(max_len).map_or(n, |fit| n.min(fit));
        self.taken += n as u64;
        self.bytes_taken += bytes;
        (n, bytes)
    }

    /// Adds a finished stream; the unused room of its recorders goes back to the limits.
    pub fn push(&mut self, stream: Stream) {
        for r in [&stream.client.1, &stream.server.1] {
            self.taken -= (r.room - r.len) as u64;
            self.bytes_taken -= r.byte_room - r.used;
        }
        self.streams.push(stream);
    }

    /// The streams, in the order they ran.
    pub fn streams(&self) -> &[Stream] {
        &self.streams
    }

    /// Frames recorded \[count\].
    pub fn len(&self) -> u64 {
        self.streams
            .iter()
            .map(|s| (s.client.1.len() + s.server.1.len()) as u64)
            .sum()
    }

    /// Whether no frame was recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Datagrams sent or received but left out at the limit \[count\].
    pub fn cut(&self) -> u64 {
        self.streams
            .iter()
            .map(|s| s.client.1.cut + s.server.1.cut)
            .sum()
    }

    /// Every frame, stream by stream (in the order they ran), and within a stream in time
    /// order (the client's first at equal times).
    pub fn frames(&self) -> Vec<Frame<'_>> {
        let mut out = Vec::with_capacity(usize::try_from(self.len()).unwrap_or(0));
        for (i, s) in self.streams.iter().enumerate() {
            let first = out.len();
            for (at_server, (own, rec), peer) in [
                (false, &s.client, s.server.0),
                (true, &s.server, s.client.0),
            ] {
                for r in rec.records() {
                    out.push(Frame {
                        stream: i,
                        at_server,
                        direction: r.direction,
                        time_ns: r.time_ns,
                        datagram: &rec.bytes[r.start..r.start + r.len],
                        addrs: match r.direction {
                            Direction::Sent => (*own, peer),
                            Direction::Received => (peer, *own),
                        },
                    });
                }
            }
            out[first..].sort_by_key(|f| f.time_ns);
        }
        out
    }
}

/// IPv4 header length without options \[bytes\] (RFC 791 §3.1).
const IPV4_HEADER: usize = 20;
/// UDP header length \[bytes\]: source port, destination port, length, checksum (RFC 768).
const UDP_HEADER: usize = 2 + 2 + 2 + 2;

/// Writes into `out` (cleared first) `datagram` as the raw IPv4 packet that carried it from
/// `src` to `dst`: an IPv4 header (version 4, IHL 5, TTL 64, protocol UDP, don't-fragment,
/// identification `id`, its checksum) and a UDP header (ports, length, checksum over the
/// pseudo-header, RFC 768), then the datagram. `None` for an IPv6 address or a datagram too
/// long for one IPv4 packet.
pub fn ipv4_udp(
    src: SocketAddr,
    dst: SocketAddr,
    id: u16,
    datagram: &[u8],
    out: &mut Vec<u8>,
) -> Option<()> {
    let (SocketAddr::V4(s), SocketAddr::V4(d)) = (src, dst) else {
        return None;
    };
    let udp_len = u16::try_from(UDP_HEADER + datagram.len()).ok()?;
    let total = u16::try_from(IPV4_HEADER + usize::from(udp_len)).ok()?;
    out.clear();
    out.extend_from_slice(&[0x45, 0]);
    out.extend_from_slice(&total.to_be_bytes());
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(&0x4000u16.to_be_bytes()); // DF, offset 0
    out.extend_from_slice(&[64, 17, 0, 0]); // TTL, UDP, checksum (below)
    out.extend_from_slice(&s.ip().octets());
    out.extend_from_slice(&d.ip().octets());
    let sum = protocols::wire::ipv4::checksum(&out[..IPV4_HEADER]);
    out[10..12].copy_from_slice(&sum.to_be_bytes());
    out.extend_from_slice(&s.port().to_be_bytes());
    out.extend_from_slice(&d.port().to_be_bytes());
    out.extend_from_slice(&udp_len.to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(datagram);
    let sum = match checksum::transport(
        checksum::Pseudo::V4(s.ip().octets(), d.ip().octets()),
        17,
        &out[IPV4_HEADER..],
    ) {
        0 => 0xffff, // RFC 768: a computed zero is sent as all ones
        x => x,
    };
    out[IPV4_HEADER + 6..IPV4_HEADER + 8].copy_from_slice(&sum.to_be_bytes());
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorders_share_the_limit_and_cut_past_it() {
        let mut cap = Capture::new(5);
        let (mut c, mut s) = cap.recorders(4, 10);
        for i in 0..6u8 {
            c.record(u64::from(i), Direction::Sent, &[i; 10]);
        }
        s.record(3, Direction::Received, &[9; 10]);
        // Too long for the room left: cut, not truncated.
        s.record(4, Direction::Received, &[9; 11]);
        assert_eq!((c.len(), c.cut(), s.len(), s.cut()), (4, 2, 1, 1));
        let a: SocketAddr = "127.0.0.1:1000".parse().unwrap();
        let b: SocketAddr = "127.0.0.1:2000".parse().unwrap();
        cap.push(Stream {
            name: "x".into(),
            protection: Protection::Plain,
            sas: Vec::new(),
            client: (a, c),
            server: (b, s),
        });
        assert_eq!((cap.len(), cap.cut()), (5, 3));
        let f = cap.frames();
        let times: Vec<u64> = f.iter().map(|f| f.time_ns).collect();
        assert_eq!(times, [0, 1, 2, 3, 3]);
        assert_eq!(f[4].addrs, (a, b), "the server received from the client");
        assert!(f[4].at_server && f[4].datagram == [9; 10]);
        // Nothing left for the next stream.
        let (c, s) = cap.recorders(4, 10);
        assert_eq!((c.room, s.room), (0, 0));
    }

    /// Whatever the frame limit, the buffers handed out hold at most `MAX_BYTES`.
    #[test]
    fn the_memory_bound_holds_at_any_frame_limit() {
        let mut cap = Capture::new(u64::MAX);
        let (n, bytes) = cap.reserve(4_000_000, 9000);
        assert_eq!(n, MAX_BYTES / 9000);
        assert!(bytes <= MAX_BYTES);
        assert_eq!(cap.reserve(4_000_000, 9000), (0, 0));
    }

    #[test]
    fn rebuilt_headers_have_right_lengths_and_checksums() {
        let a: SocketAddr = "127.0.0.1:40000".parse().unwrap();
        let b: SocketAddr = "127.0.0.1:4500".parse().unwrap();
        let mut out = Vec::new();
        ipv4_udp(a, b, 7, b"hello", &mut out).unwrap();
        assert_eq!(out.len(), 20 + 8 + 5);
        assert_eq!(u16::from_be_bytes([out[2], out[3]]), 33);
        assert_eq!(u16::from_be_bytes([out[24], out[25]]), 13);
        // A header with its checksum sums to zero (RFC 1071).
        assert_eq!(protocols::wire::ipv4::checksum(&out[..20]), 0);
        let mut pseudo = vec![127, 0, 0, 1, 127, 0, 0, 1, 0, 17, 0, 13];
        pseudo.extend_from_slice(&out[20..]);
        assert_eq!(protocols::wire::ipv4::checksum(&pseudo), 0);
        assert!(ipv4_udp("[::1]:1".parse().unwrap(), b, 0, b"", &mut out).is_none());
    }
}
