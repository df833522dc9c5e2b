//! Loopback sockets and runtimes, and the payload every experiment sends.
//!
//! Safety by construction: every socket is bound to 127.0.0.1 and connected only to another
//! socket this process bound there; no other address is ever used.

use std::net::{Ipv4Addr, SocketAddr};
use std::os::fd::AsRawFd;
use std::time::Duration;

use crate::LiveError;

/// The only address live traffic uses.
pub const LOOPBACK: Ipv4Addr = Ipv4Addr::LOCALHOST;

/// Socket receive buffer asked for [bytes] (the kernel may grant less; as root it is forced).
pub const RECV_BUFFER: usize = 4 << 20;

/// The largest datagram any experiment sends or receives [bytes].
pub const MAX_DATAGRAM: usize = 65_507;

/// A current-thread tokio runtime with I/O and timers (one per OS thread).
pub fn runtime() -> Result<tokio::runtime::Runtime, LiveError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| LiveError::io("starting the tokio runtime", e))
}

/// A UDP socket bound to 127.0.0.1 on a free port, non-blocking, with a large receive buffer.
/// Returns it as a std socket (turn it into a tokio socket inside the runtime that uses it).
pub fn bind_loopback() -> Result<std::net::UdpSocket, LiveError> {
    let s = std::net::UdpSocket::bind(SocketAddr::from((LOOPBACK, 0)))
        .map_err(|e| LiveError::io("binding a UDP socket on 127.0.0.1", e))?;
    s.set_nonblocking(true)
        .map_err(|e| LiveError::io("making a socket non-blocking", e))?;
    set_buffers(&s);
    Ok(s)
}

/// Asks for [`RECV_BUFFER`]-byte send and receive buffers; `SO_RCVBUFFORCE` (root) first, then
/// the ordinary option (capped by `net.core.rmem_max`). Failure leaves the default.
fn set_buffers(s: &std::net::UdpSocket) {
    let fd = s.as_raw_fd();
    let size = RECV_BUFFER as libc::c_int;
    let set = |opt: libc::c_int| {
        // SAFETY: a valid fd we own, a pointer to a c_int and its size.
        unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                opt,
                (&size as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        }
    };
    if set(libc::SO_RCVBUFFORCE) != 0 {
        set(libc::SO_RCVBUF);
    }
    if set(libc::SO_SNDBUFFORCE) != 0 {
        set(libc::SO_SNDBUF);
    }
}

/// The address of a bound socket (always on 127.0.0.1).
pub fn local_addr(s: &std::net::UdpSocket) -> Result<SocketAddr, LiveError> {
    s.local_addr()
        .map_err(|e| LiveError::io("reading a socket's address", e))
}

/// Converts a std socket into a tokio socket connected to `peer` (which must be loopback).
pub fn into_tokio(
    s: std::net::UdpSocket,
    peer: Option<SocketAddr>,
) -> Result<tokio::net::UdpSocket, LiveError> {
    if let Some(p) = peer {
        if !p.ip().is_loopback() {
            return Err(LiveError::BadArgument {
                what: "peer address".into(),
                got: p.to_string(),
                allowed: "loopback addresses only".into(),
            });
        }
        s.connect(p)
            .map_err(|e| LiveError::io("connecting a loopback socket", e))?;
    }
    tokio::net::UdpSocket::from_std(s).map_err(|e| LiveError::io("registering a socket", e))
}

/// The payload of packet `id`: the id (8 bytes, little endian) then a fixed pattern.
pub fn fill_payload(buf: &mut [u8], id: u64) {
    let n = buf.len().min(8);
    buf[..n].copy_from_slice(&id.to_le_bytes()[..n]);
}

/// A payload buffer of `len` bytes with the fixed pattern after the id.
pub fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 131 + 7) as u8).collect()
}

/// Whether `got` is packet `id` of the pattern `reference` (every byte compared).
pub fn check_payload(got: &[u8], reference: &[u8], id: u64) -> bool {
    if got.len() != reference.len() {
        return false;
    }
    let n = got.len().min(8);
    got[..n] == id.to_le_bytes()[..n] && got[n..] == reference[n..]
}

/// The id of a received payload (0 when shorter than 8 bytes).
pub fn payload_id(got: &[u8]) -> u64 {
    got.get(..8)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

/// Receives one datagram, or `None` after `wait`.
pub async fn recv_timeout(
    s: &tokio::net::UdpSocket,
    buf: &mut [u8],
    wait: Duration,
) -> Result<Option<usize>, LiveError> {
    match tokio::time::timeout(wait, s.recv(buf)).await {
        Err(_) => Ok(None),
        Ok(Ok(n)) => Ok(Some(n)),
        Ok(Err(e)) => Err(LiveError::io("receiving on loopback", e)),
    }
}

/// Receives one datagram with its source, or `None` after `wait`.
pub async fn recv_from_timeout(
    s: &tokio::net::UdpSocket,
    buf: &mut [u8],
    wait: Duration,
) -> Result<Option<(usize, SocketAddr)>, LiveError> {
    match tokio::time::timeout(wait, s.recv_from(buf)).await {
        Err(_) => Ok(None),
        Ok(Ok(x)) => Ok(Some(x)),
        Ok(Err(e)) => Err(LiveError::io("receiving on loopback", e)),
    }
}

/// Sends one datagram on a connected socket. A full receive queue on loopback drops the
/// datagram silently (UDP); `ECONNREFUSED` from an earlier drop is ignored as well.
pub async fn send(s: &tokio::net::UdpSocket, data: &[u8]) -> Result<(), LiveError> {
    match s.send(data).await {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => Ok(()),
        Err(e) => Err(LiveError::io("sending on loopback", e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_carry_their_id_and_pattern() {
        let reference = pattern(100);
        let mut p = reference.clone();
        fill_payload(&mut p, 42);
        assert!(check_payload(&p, &reference, 42));
        assert!(!check_payload(&p, &reference, 41));
        assert_eq!(payload_id(&p), 42);
        p[50] ^= 1;
        assert!(!check_payload(&p, &reference, 42));
    }
}
