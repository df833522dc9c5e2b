//! Sockets and runtimes, and the payload every experiment sends.
//!
//! Safety by construction: every socket is bound either to 127.0.0.1 ([`Transport::loopback`])
//! or, with [`Transport::veth`] (root only), inside one of two network namespaces this process
//! creates and joins by a veth pair, and is connected only to another socket this process bound
//! there. No other address or interface is ever used, and the namespaces (with the veth pair in
//! them) are deleted when the last [`Transport`] handle is dropped, and at the next start if a
//! killed run left them behind.

use std::net::{Ipv4Addr, SocketAddr};
use std::os::fd::AsRawFd;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use crate::LiveError;

/// The only address live traffic uses.
pub const LOOPBACK: Ipv4Addr = Ipv4Addr::LOCALHOST;

/// Socket receive buffer asked for \[bytes\] (the kernel may grant less; as root it is forced).
pub const RECV_BUFFER: usize = 4 << 20;

/// The largest datagram any experiment sends or receives \[bytes\].
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
    prepare(s)
}

fn prepare(s: std::net::UdpSocket) -> Result<std::net::UdpSocket, LiveError> {
    s.set_nonblocking(true)
        .map_err(|e| LiveError::io("making a socket non-blocking", e))?;
    set_buffers(&s);
    Ok(s)
}

/// Which end of an experiment a socket is for: the client (pinger, sender) or the server
/// (echo, receiver). Over a veth pair they live in different namespaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The end that starts the exchange.
    Client,
    /// The end that answers or receives.
    Server,
}

/// Where live traffic flows: loopback (the default), or a veth pair between two network
/// namespaces this process created. Cloning shares the namespaces; the last clone dropped
/// deletes them.
#[derive(Debug, Clone, Default)]
pub struct Transport {
    veth: Option<Arc<Veth>>,
}

impl Transport {
    /// Loopback: every socket on 127.0.0.1.
    pub fn loopback() -> Transport {
        Transport::default()
    }

    /// A veth pair between two new network namespaces (`oransim-<pid>-a` holds the client end,
    /// 10.203.0.1, and `oransim-<pid>-b` the server end, 10.203.0.2; MTU 9500 so 9000-byte
    /// payloads are not fragmented). Needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN) and `ip`
    /// from iproute2. Namespaces a killed run left behind (their pid is gone) are removed first.
    pub fn veth() -> Result<Transport, LiveError> {
        Ok(Transport {
            veth: Some(Arc::new(Veth::create()?)),
        })
    }

    /// `loopback` or `veth`.
    pub fn name(&self) -> &'static str {
        if self.veth.is_some() {
            "veth"
        } else {
            "loopback"
        }
    }

    /// The network namespaces in use (empty for loopback).
    pub fn namespaces(&self) -> Vec<String> {
        self.veth.as_ref().map_or_else(Vec::new, |v| v.ns.to_vec())
    }

    /// A non-blocking UDP socket for `side`, bound on a free port (see [`bind_loopback`]).
    pub fn bind(&self, side: Side) -> Result<std::net::UdpSocket, LiveError> {
        match &self.veth {
            None => bind_loopback(),
            Some(v) => {
                let i = usize::from(side == Side::Server);
                prepare(bind_in_namespace(&v.ns[i], v.addr[i])?)
            }
        }
    }

    /// Whether live traffic may be sent to `peer`: loopback, or over the veth pair the other
    /// end's address.
    pub fn allows(&self, peer: &SocketAddr) -> bool {
        match (&self.veth, peer.ip()) {
            (None, ip) => ip.is_loopback(),
            (Some(v), std::net::IpAddr::V4(ip)) => v.addr.contains(&ip),
            (Some(_), _) => false,
        }
    }

    /// The addresses [`Transport::allows`] accepts, in words (for errors).
    pub fn allowed(&self) -> String {
        match &self.veth {
            None => "loopback addresses only".into(),
            Some(v) => format!("{} or {} (this run's veth pair) only", v.addr[0], v.addr[1]),
        }
    }
}

/// Two namespaces joined by a veth pair; deleted on drop.
#[derive(Debug)]
struct Veth {
    ns: [String; 2],
    addr: [Ipv4Addr; 2],
}

/// Prefix of the namespaces `oransim live` creates.
const NS_PREFIX: &str = "oransim-";

fn ip(args: &[&str]) -> Result<(), LiveError> {
    let out = Command::new("ip").args(args).output().map_err(|e| {
        LiveError::io(
            "running `ip` (iproute2) to set up the veth pair; install iproute2 or use the loopback transport",
            e,
        )
    })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(LiveError::Measurement(format!(
            "`ip {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

impl Veth {
    fn create() -> Result<Veth, LiveError> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err(LiveError::BadArgument {
                what: "transport".into(),
                got: "veth without root".into(),
                allowed: "veth only when run as root (it creates two network namespaces and a veth pair); loopback otherwise".into(),
            });
        }
        remove_stale();
        let pid = std::process::id();
        // Built before anything exists, so that a failure half-way deletes what was made.
        let veth = Veth {
            ns: [format!("{NS_PREFIX}{pid}-a"), format!("{NS_PREFIX}{pid}-b")],
            addr: [Ipv4Addr::new(10, 203, 0, 1), Ipv4Addr::new(10, 203, 0, 2)],
        };
        let dev = [format!("osa{pid}"), format!("osb{pid}")];
        ip(&["netns", "add", &veth.ns[0]])?;
        ip(&["netns", "add", &veth.ns[1]])?;
        ip(&[
            "link",
            "add",
            &dev[0],
            "netns",
            &veth.ns[0],
            "type",
            "veth",
            "peer",
            "name",
            &dev[1],
            "netns",
            &veth.ns[1],
        ])?;
        for ((ns, addr), dev) in veth.ns.iter().zip(veth.addr).zip(&dev) {
            let addr = format!("{addr}/30");
            ip(&["-n", ns, "addr", "add", &addr, "dev", dev])?;
            ip(&["-n", ns, "link", "set", dev, "mtu", "9500", "up"])?;
            ip(&["-n", ns, "link", "set", "lo", "up"])?;
        }
        Ok(veth)
    }
}

impl Drop for Veth {
    fn drop(&mut self) {
        // Deleting a namespace deletes the veth end in it, and with it the pair.
        for ns in &self.ns {
            let _ = ip(&["netns", "del", ns]);
        }
    }
}

/// Deletes `oransim-<pid>-*` namespaces whose process no longer exists.
fn remove_stale() {
    let Ok(out) = Command::new("ip").args(["netns", "list"]).output() else {
        return;
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let name = line.split_whitespace().next().unwrap_or("");
        let Some(rest) = name.strip_prefix(NS_PREFIX) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = ip(&["netns", "del", name]);
        }
    }
}

/// A UDP socket bound to `addr` inside network namespace `ns`: a short-lived thread joins the
/// namespace (`setns` changes only the calling thread's) and creates the socket, which stays in
/// that namespace wherever it is used afterwards.
fn bind_in_namespace(ns: &str, addr: Ipv4Addr) -> Result<std::net::UdpSocket, LiveError> {
    let path = format!("/run/netns/{ns}");
    let file = std::fs::File::open(&path)
        .map_err(|e| LiveError::io(format!("opening the network namespace {path}"), e))?;
    std::thread::scope(|s| {
        s.spawn(|| {
            // SAFETY: a valid namespace fd we own; CLONE_NEWNET affects only this thread.
            if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
                return Err(LiveError::io(
                    format!("joining the network namespace {ns}"),
                    std::io::Error::last_os_error(),
                ));
            }
            std::net::UdpSocket::bind(SocketAddr::from((addr, 0)))
                .map_err(|e| LiveError::io(format!("binding a UDP socket on {addr} in {ns}"), e))
        })
        .join()
        .map_err(|_| LiveError::Measurement("the namespace thread panicked".into()))?
    })
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

/// The address of a bound socket.
pub fn local_addr(s: &std::net::UdpSocket) -> Result<SocketAddr, LiveError> {
    s.local_addr()
        .map_err(|e| LiveError::io("reading a socket's address", e))
}

/// Converts a std socket into a tokio socket connected to `peer` (which `transport` must allow:
/// see [`Transport::allows`]).
pub fn into_tokio(
    s: std::net::UdpSocket,
    peer: Option<SocketAddr>,
    transport: &Transport,
) -> Result<tokio::net::UdpSocket, LiveError> {
    if let Some(p) = peer {
        connect(&s, p, transport)?;
    }
    tokio::net::UdpSocket::from_std(s).map_err(|e| LiveError::io("registering a socket", e))
}

/// Connects `s` to `peer` if `transport` allows it (see [`Transport::allows`]).
pub fn connect(
    s: &std::net::UdpSocket,
    peer: SocketAddr,
    transport: &Transport,
) -> Result<(), LiveError> {
    if !transport.allows(&peer) {
        return Err(LiveError::BadArgument {
            what: "peer address".into(),
            got: peer.to_string(),
            allowed: transport.allowed(),
        });
    }
    s.connect(peer)
        .map_err(|e| LiveError::io(format!("connecting a socket to {peer}"), e))
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

/// [`send`], recording the datagram into `rec` (when given) if the kernel took it, with the
/// time read just before the send call (`oransim live --pcap`).
pub async fn send_recorded(
    s: &tokio::net::UdpSocket,
    data: &[u8],
    rec: Option<&mut crate::capture::Recorder>,
) -> Result<(), LiveError> {
    let Some(r) = rec else {
        return send(s, data).await;
    };
    let t = crate::capture::now_ns();
    match s.send(data).await {
        Ok(_) => {
            r.record(t, crate::capture::Direction::Sent, data);
            Ok(())
        }
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
