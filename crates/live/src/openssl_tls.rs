//! Runs the real OpenSSL (`openssl s_server`, `s_time`, `speed`) on 127.0.0.1 and records raw
//! per-run values for `oransim validate tls` ([`evidence::validate::tls`] holds the model).
//!
//! [`measure`] makes RSA-2048 and ECDSA P-256 self-signed certificates in a temporary
//! directory, starts one `s_server` per workload on a free loopback port (each held by a guard
//! that kills and reaps it on drop, on an error or a panic too), and runs, round-robin over the
//! workloads so that a drift of the host touches each alike:
//!
//! - TLS 1.3 full handshakes (`s_time -new`) for X25519 and P-256 (`Groups =` in an
//!   `OPENSSL_CONF` both sides read, so no HelloRetryRequest) against each certificate, with the
//!   server's CPU time from `/proc/<pid>/schedstat` and the client's from `wait4`;
//! - bulk records per cipher suite: `s_time -www /<file>` against `s_server -WWW` serving a
//!   64 MiB file;
//! - the full set only (issue 36 #3): the fitted pair's handshakes from [`CONCURRENT_CLIENTS`]
//!   `s_time -new` clients at once against one server, and resumed handshakes (`s_time -reuse
//!   -www /` of a one-byte file against an `s_server -WWW` per certificate: the HTTP exchange
//!   makes the client read the server's NewSessionTicket, which a bare `-reuse` never does in
//!   TLS 1.3, so nothing resumed) for X25519 with each certificate, each connection after the
//!   first checked to be resumed (`s_time` prints `r` for it);
//! - `openssl speed -mr -seconds 1` for the three AEADs (`-aead -evp`) and the key ops, parsed
//!   by the project's importer (`crypto_bench::openssl::parse`).
//!
//! Every child process runs under a time limit and is killed past it. Around the workloads it
//! records the host's other work (live's `noise` module): 3 s before `openssl speed` and the
//! first server, and the whole run, read after the last server is reaped.

use std::fs::File;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub use evidence::validate::tls::Set;
use evidence::validate::tls::{
    BulkRun, BulkWorkload, Cert, ConcurrentWorkload, FIT_HANDSHAKE, Group, HandshakeRun,
    HandshakeWorkload, MEASURE_SCHEMA, Speed, TlsCipherSuite, TlsMeasurements,
};

use crate::LiveError;

/// The OpenSSL command, looked up on `PATH` (Debian: /usr/bin/openssl).
pub const OPENSSL: &str = "openssl";

/// Size of the file the bulk servers serve \[bytes\].
pub const BULK_FILE_BYTES: u64 = 64 << 20;

/// The client counts of the full set's concurrent handshake workloads.
pub const CONCURRENT_CLIENTS: [u32; 2] = [2, 4];

/// The file the resumption servers serve: one byte, in [`WWW`] beside the bulk file.
const RESUME_FILE: &str = "one.txt";

/// How long a server may take to accept its first connection.
const SERVER_READY: Duration = Duration::from_secs(10);

/// Time a client or tool run may take beyond what it was asked to run for.
const SLACK: Duration = Duration::from_secs(60);

/// The key ops `openssl speed` is asked for.
const SPEED_KEY_ARGS: [&str; 5] = ["ecdhx25519", "ecdhp256", "rsa2048", "ecdsap256", "ed25519"];

/// Measures the [`Set`]'s workloads; `log` receives one line per step (including `started
/// s_server pid N` for each server). Returns [`LiveError::Skipped`] when `openssl` is missing
/// and cannot be installed (only root installs it, with `apt-get`).
pub fn measure(set: Set, log: &mut dyn FnMut(&str)) -> Result<TlsMeasurements, LiveError> {
    let openssl_version = openssl_version(log)?;
    log(&format!("{openssl_version}; {} set", set.as_str()));
    let load_before = load_average()?;
    let dir = tempfile::Builder::new()
        .prefix("oransim-tls-")
        .tempdir()
        .map_err(|e| LiveError::io("creating a temporary directory", e))?;
    let d = dir.path();
    // Removed however oransim ends (a kill included); every openssl it starts dies with it.
    let _reaper = crate::child::Reaper::new(d)?;
    log(&format!("working in {}", d.display()));
    prepare(d)?;
    // The host before any workload runs, then the whole run's window from here (issue 36 #2).
    let noise_before = crate::noise::before()?;
    log(&format!(
        "noise: before the run {}",
        crate::noise::describe(&noise_before)
    ));
    let noise_s0 = crate::noise::sample()?;
    let speed = speed(d, log)?;

    let mut hs_servers = Vec::new();
    for g in Group::ALL {
        for c in Cert::ALL {
            let s = Server::start(d, g, c, None, log)?;
            hs_servers.push((g, c, s, Vec::new()));
        }
    }
    // The full set's resumption servers (one per certificate, X25519) and concurrent runs.
    let full = set == Set::Full;
    let mut resume_servers = Vec::new();
    if full {
        for c in Cert::ALL {
            let s = Server::start(
                d,
                Group::X25519,
                c,
                Some(TlsCipherSuite::Aes256GcmSha384),
                log,
            )?;
            resume_servers.push((c, s, Vec::new()));
        }
    }
    let mut concurrent: Vec<(u32, Vec<HandshakeRun>)> = if full {
        CONCURRENT_CLIENTS
            .iter()
            .map(|&k| (k, Vec::new()))
            .collect()
    } else {
        Vec::new()
    };
    let mut bulk_servers = Vec::new();
    for s in TlsCipherSuite::ALL {
        let srv = Server::start(d, Group::X25519, Cert::EcdsaP256, Some(s), log)?;
        bulk_servers.push((s, srv, Vec::new()));
    }
    for run in 0..set.runs() {
        handshake_round(run, d, set, &mut hs_servers, log)?;
        if let Some((_, _, srv, _)) = hs_servers
            .iter_mut()
            .find(|(g, c, _, _)| (*g, *c) == FIT_HANDSHAKE)
        {
            concurrent_round(run, d, set, srv, &mut concurrent, log)?;
        }
        resume_round(run, d, set, &mut resume_servers, log)?;
        bulk_round(run, d, set, &mut bulk_servers, log)?;
    }
    let handshakes = hs_servers
        .into_iter()
        .map(|(group, cert, _server, runs)| HandshakeWorkload { group, cert, runs })
        .collect();
    let bulk = bulk_servers
        .into_iter()
        .map(|(suite, _server, runs)| BulkWorkload {
            suite,
            file_bytes: BULK_FILE_BYTES,
            runs,
        })
        .collect();
    let concurrent = concurrent
        .into_iter()
        .map(|(clients, runs)| ConcurrentWorkload {
            group: FIT_HANDSHAKE.0,
            cert: FIT_HANDSHAKE.1,
            clients,
            runs,
        })
        .collect();
    let resumed = resume_servers
        .into_iter()
        .map(|(cert, _server, runs)| HandshakeWorkload {
            group: Group::X25519,
            cert,
            runs,
        })
        .collect();
    // Every server is reaped by now (its guard dropped above), so its CPU time is in the
    // children's.
    let noise_during = crate::noise::window(&noise_s0, &crate::noise::sample()?);
    log(&format!(
        "noise: during the run {}",
        crate::noise::describe(&noise_during)
    ));
    Ok(TlsMeasurements {
        schema: MEASURE_SCHEMA.to_owned(),
        openssl_version,
        set,
        host_cores: std::thread::available_parallelism()
            .map(|n| u32::try_from(n.get()).unwrap_or(u32::MAX))
            .unwrap_or(1),
        load_before,
        load_after: load_average()?,
        handshakes,
        bulk,
        concurrent,
        resumed,
        speed,
        noise: Some(evidence::validate::Noise {
            method: crate::noise::METHOD.to_owned(),
            before: noise_before,
            during: noise_during,
        }),
    })
}

/// Writes what the servers and clients read into `d`: the certificates, each group's
/// `OPENSSL_CONF`, and the `-WWW` servers' directory with the bulk and resumption files.
fn prepare(d: &Path) -> Result<(), LiveError> {
    make_certificates(d)?;
    for g in Group::ALL {
        std::fs::write(d.join(conf_name(g)), groups_conf(g))
            .map_err(|e| LiveError::io(format!("writing {}", conf_name(g)), e))?;
    }
    // What the `-WWW` servers serve: the bulk file alone, in a directory of its own (issue 39
    // #7: served from `d`, `GET /ecdsap256.key` returned the private key).
    std::fs::create_dir(d.join(WWW))
        .map_err(|e| LiveError::io(format!("creating {}", d.join(WWW).display()), e))?;
    write_bulk_file(&d.join(WWW).join("bulk.bin"))?;
    std::fs::write(d.join(WWW).join(RESUME_FILE), b"x")
        .map_err(|e| LiveError::io(format!("writing {RESUME_FILE}"), e))?;
    Ok(())
}
/// Run `run` (from 0) of the handshake workloads: `s_time -new` for `set`'s seconds against
/// each server, its handshakes, wall time and each side's CPU time \[ns\].
fn handshake_round(
    run: u32,
    d: &Path,
    set: Set,
    servers: &mut [(Group, Cert, Server, Vec<HandshakeRun>)],
    log: &mut dyn FnMut(&str),
) -> Result<(), LiveError> {
    let secs = set.seconds().to_string();
    for (g, c, srv, runs) in servers {
        let args = ["s_time", "-connect", &srv.addr(), "-new", "-time", &secs];
        let (out, cpu0, fin, cpu1) = srv.client(d, *g, &args, set)?;
        let handshakes = parse_s_time(&out)?.0;
        runs.push(HandshakeRun {
            handshakes,
            wall_ns: fin.wall_ns,
            server_cpu_ns: cpu1.saturating_sub(cpu0),
            client_cpu_ns: fin.cpu_ns,
        });
        log(&format!(
            "run {}: {} {}: {handshakes} handshakes in {:.2} s",
            run + 1,
            g.id(),
            c.id(),
            fin.wall_ns as f64 / 1e9
        ));
    }
    Ok(())
}

/// Run `run` of the concurrent workloads (the full set): each client count's `s_time -new`
/// clients at once against the fitted pair's server `srv`, their handshakes together.
fn concurrent_round(
    run: u32,
    d: &Path,
    set: Set,
    srv: &mut Server,
    concurrent: &mut [(u32, Vec<HandshakeRun>)],
    log: &mut dyn FnMut(&str),
) -> Result<(), LiveError> {
    let secs = set.seconds().to_string();
    for (k, runs) in concurrent {
        let args = ["s_time", "-connect", &srv.addr(), "-new", "-time", &secs];
        let (outs, cpu0, fins, cpu1) = srv.clients(d, FIT_HANDSHAKE.0, &args, *k, set)?;
        let mut handshakes = 0;
        for out in &outs {
            handshakes += parse_s_time(out)?.0;
        }
        runs.push(HandshakeRun {
            handshakes,
            wall_ns: fins.iter().map(|f| f.wall_ns).max().unwrap_or(0),
            server_cpu_ns: cpu1.saturating_sub(cpu0),
            client_cpu_ns: fins.iter().map(|f| f.cpu_ns).sum(),
        });
        log(&format!(
            "run {}: {} {} x {k} clients: {handshakes} handshakes",
            run + 1,
            FIT_HANDSHAKE.0.id(),
            FIT_HANDSHAKE.1.id(),
        ));
    }
    Ok(())
}

/// Run `run` of the resumption workloads (the full set): `s_time -reuse -www` against each
/// certificate's server, every connection after the first checked to be resumed.
fn resume_round(
    run: u32,
    d: &Path,
    set: Set,
    servers: &mut [(Cert, Server, Vec<HandshakeRun>)],
    log: &mut dyn FnMut(&str),
) -> Result<(), LiveError> {
    let secs = set.seconds().to_string();
    for (c, srv, runs) in servers {
        let page = format!("/{RESUME_FILE}");
        let args = [
            "s_time",
            "-connect",
            &srv.addr(),
            "-reuse",
            "-www",
            &page,
            "-time",
            &secs,
        ];
        let (out, cpu0, fin, cpu1) = srv.client(d, Group::X25519, &args, set)?;
        let handshakes = parse_s_time(&out)?.0;
        // One `r` per resumed connection, `*` (or a version letter) per full one: all but
        // the first must be resumed.
        let marks = out
            .lines()
            .filter(|l| !l.is_empty() && l.chars().all(|ch| "rt*123".contains(ch)))
            .collect::<String>();
        let resumed = marks.chars().filter(|&ch| ch == 'r').count() as u64;
        if resumed + 1 < handshakes {
            return Err(LiveError::Measurement(format!(
                "s_time -reuse against the {} server resumed {resumed} of {handshakes} connections",
                c.id()
            )));
        }
        runs.push(HandshakeRun {
            handshakes,
            wall_ns: fin.wall_ns,
            server_cpu_ns: cpu1.saturating_sub(cpu0),
            client_cpu_ns: fin.cpu_ns,
        });
        log(&format!(
            "run {}: {} {} resumed: {handshakes} handshakes ({resumed} resumed)",
            run + 1,
            Group::X25519.id(),
            c.id()
        ));
    }
    Ok(())
}

/// Run `run` of the bulk workloads: `s_time -www /bulk.bin` with each cipher suite, its
/// connections, bytes \[bytes\], wall time and each side's CPU time \[ns\].
fn bulk_round(
    run: u32,
    d: &Path,
    set: Set,
    servers: &mut [(TlsCipherSuite, Server, Vec<BulkRun>)],
    log: &mut dyn FnMut(&str),
) -> Result<(), LiveError> {
    let secs = set.seconds().to_string();
    for (s, srv, runs) in servers {
        let args = [
            "s_time",
            "-connect",
            &srv.addr(),
            "-new",
            "-time",
            &secs,
            "-www",
            "/bulk.bin",
            "-ciphersuites",
            s.iana(),
        ];
        let (out, cpu0, fin, cpu1) = srv.client(d, Group::X25519, &args, set)?;
        let (connections, bytes) = parse_s_time(&out)?;
        runs.push(BulkRun {
            connections,
            bytes,
            wall_ns: fin.wall_ns,
            server_cpu_ns: cpu1.saturating_sub(cpu0),
            client_cpu_ns: fin.cpu_ns,
        });
        log(&format!(
            "run {}: {}: {:.0} Mbit/s",
            run + 1,
            s.iana(),
            bytes as f64 * 8e3 / fin.wall_ns.max(1) as f64
        ));
    }
    Ok(())
}

/// `openssl version`, installing OpenSSL first when it is missing and this process is root.
fn openssl_version(log: &mut dyn FnMut(&str)) -> Result<String, LiveError> {
    let version = || {
        Command::new(OPENSSL)
            .arg("version")
            .stdin(Stdio::null())
            .output()
    };
    match version() {
        Ok(o) if o.status.success() => {
            return Ok(String::from_utf8_lossy(&o.stdout).trim().to_owned());
        }
        Ok(o) => {
            return Err(LiveError::Skipped(format!(
                "`openssl version` failed ({}): {}",
                o.status,
                String::from_utf8_lossy(&o.stderr).trim()
            )));
        }
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(LiveError::io("running `openssl version`", e));
        }
        Err(_) => {}
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Err(LiveError::Skipped(
            "`openssl` is not installed and only root may install it (`apt-get install openssl`)"
                .into(),
        ));
    }
    log("openssl is missing: installing it with apt-get");
    let apt = |args: &[&str]| {
        Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !(apt(&["update", "-qq"])
        && apt(&["install", "-y", "-qq", "--no-install-recommends", "openssl"]))
    {
        return Err(LiveError::Skipped(
            "`openssl` is not installed and `apt-get install openssl` failed".into(),
        ));
    }
    match version() {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).trim().to_owned()),
        _ => Err(LiveError::Skipped(
            "`openssl` was installed but `openssl version` does not run".into(),
        )),
    }
}

/// The 1-minute load average from /proc/loadavg.
fn load_average() -> Result<f64, LiveError> {
    let text = std::fs::read_to_string("/proc/loadavg")
        .map_err(|e| LiveError::io("reading /proc/loadavg", e))?;
    text.split_whitespace()
        .next()
        .and_then(|f| f.parse().ok())
        .ok_or_else(|| LiveError::Measurement(format!("/proc/loadavg reads `{}`", text.trim())))
}

fn conf_name(g: Group) -> String {
    format!("groups-{}.cnf", g.id())
}

/// An `OPENSSL_CONF` that offers and accepts only `g`.
fn groups_conf(g: Group) -> String {
    format!(
        "openssl_conf = openssl_init\n[openssl_init]\nssl_conf = ssl_sect\n[ssl_sect]\nsystem_default = system_default_sect\n[system_default_sect]\nGroups = {}\n",
        g.openssl_name()
    )
}

/// The subdirectory of the working directory every `s_server` runs in: it holds the bulk file
/// and nothing else, so `s_server -WWW` serves no key, certificate or configuration.
const WWW: &str = "www";

fn cert_files(c: Cert) -> (&'static str, &'static str) {
    match c {
        Cert::Rsa2048 => ("rsa2048.key", "rsa2048.pem"),
        Cert::EcdsaP256 => ("ecdsap256.key", "ecdsap256.pem"),
    }
}

fn make_certificates(d: &Path) -> Result<(), LiveError> {
    for c in Cert::ALL {
        let (key, pem) = cert_files(c);
        let gen_args: &[&str] = match c {
            Cert::Rsa2048 => &["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
            Cert::EcdsaP256 => &["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
        };
        let mut genpkey = vec!["genpkey"];
        genpkey.extend_from_slice(gen_args);
        genpkey.extend_from_slice(&["-out", key]);
        tool(d, &genpkey, Duration::from_secs(60))?;
        let req = [
            "req",
            "-x509",
            "-new",
            "-key",
            key,
            "-subj",
            "/CN=localhost",
            "-days",
            "2",
            "-out",
            pem,
        ];
        tool(d, &req, Duration::from_secs(60))?;
    }
    Ok(())
}

fn write_bulk_file(path: &Path) -> Result<(), LiveError> {
    let f =
        File::create(path).map_err(|e| LiveError::io(format!("creating {}", path.display()), e))?;
    f.set_len(BULK_FILE_BYTES)
        .map_err(|e| LiveError::io(format!("sizing {}", path.display()), e))
}

/// Runs `openssl args...` in `d` and returns its standard output.
fn tool(d: &Path, args: &[&str], limit: Duration) -> Result<String, LiveError> {
    let out = d.join("tool.out");
    let mut cmd = Command::new(OPENSSL);
    cmd.args(args).current_dir(d);
    run_timed(&mut cmd, &out, &d.join("tool.err"), limit, &args.join(" "))?;
    std::fs::read_to_string(&out)
        .map_err(|e| LiveError::io(format!("reading {}", out.display()), e))
}

fn speed(d: &Path, log: &mut dyn FnMut(&str)) -> Result<Speed, LiveError> {
    let mut commands = Vec::new();
    let mut output = String::new();
    let mut lists: Vec<Vec<&str>> = TlsCipherSuite::ALL
        .iter()
        .map(|s| vec!["-mr", "-seconds", "1", "-aead", "-evp", s.speed_name()])
        .collect();
    let mut keys = vec!["-mr", "-seconds", "1"];
    keys.extend_from_slice(&SPEED_KEY_ARGS);
    lists.push(keys);
    for list in &lists {
        let mut args = vec!["speed"];
        args.extend_from_slice(list);
        log(&format!("openssl {}", args.join(" ")));
        output.push_str(&tool(d, &args, Duration::from_secs(30) + SLACK)?);
        commands.push(list.join(" "));
    }
    let ops = crypto_bench::openssl::parse(&output, "openssl speed on this host")
        .map_err(|e| LiveError::Measurement(e.to_string()))?;
    Ok(Speed {
        commands,
        output,
        ops,
    })
}

/// A child that ran to its end: wall time and CPU time.
struct Finished {
    wall_ns: u64,
    cpu_ns: u64,
}

/// Runs `cmd` with stdout and stderr to files, polls for its end every 2 ms, kills it past
/// `limit`; its CPU time is from `wait4`'s rusage (user + system).
fn run_timed(
    cmd: &mut Command,
    stdout: &Path,
    stderr: &Path,
    limit: Duration,
    what: &str,
) -> Result<Finished, LiveError> {
    let out = File::create(stdout)
        .map_err(|e| LiveError::io(format!("creating {}", stdout.display()), e))?;
    let err = File::create(stderr)
        .map_err(|e| LiveError::io(format!("creating {}", stderr.display()), e))?;
    let t0 = Instant::now();
    let child = crate::child::die_with_parent(cmd, libc::SIGKILL)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| LiveError::io(format!("starting `openssl {what}`"), e))?;
    let pid = libc::pid_t::try_from(child.id())
        .map_err(|_| LiveError::Measurement(format!("pid {} out of range", child.id())))?;
    let mut killed = false;
    loop {
        let mut status = 0;
        // SAFETY: an all-zero rusage is a valid value of this plain C struct.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: pid is our own unreaped child; status and ru are valid for writes.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) };
        if r == pid {
            let wall_ns = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX);
            let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
            let cpu_ns = tv(ru.ru_utime) + tv(ru.ru_stime);
            let tail = || {
                let e = std::fs::read_to_string(stderr).unwrap_or_default();
                e.lines().rev().take(3).collect::<Vec<_>>().join(" / ")
            };
            if killed {
                return Err(LiveError::Measurement(format!(
                    "`openssl {what}` ran past {} s and was killed",
                    limit.as_secs()
                )));
            }
            if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
                return Err(LiveError::Measurement(format!(
                    "`openssl {what}` failed (wait status {status}): {}",
                    tail()
                )));
            }
            return Ok(Finished { wall_ns, cpu_ns });
        }
        if r == -1 {
            return Err(LiveError::io(
                format!("waiting for `openssl {what}`"),
                std::io::Error::last_os_error(),
            ));
        }
        if !killed && t0.elapsed() > limit {
            // SAFETY: pid is our own child, not yet reaped, so it names no other process.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed = true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// `(connections, bytes read)` from `s_time`'s `N connections in Xs; ... bytes read B` line.
fn parse_s_time(out: &str) -> Result<(u64, u64), LiveError> {
    let bad = || {
        LiveError::Measurement(format!(
            "s_time printed no `N connections in ...; bytes read B` line: `{}`",
            out.trim().chars().take(300).collect::<String>()
        ))
    };
    let line = out
        .lines()
        .find(|l| l.contains("connections/user sec"))
        .ok_or_else(bad)?;
    let n = line
        .split_whitespace()
        .next()
        .and_then(|t| t.parse().ok())
        .ok_or_else(bad)?;
    let bytes = line
        .rsplit("bytes read ")
        .next()
        .and_then(|t| t.trim().parse().ok())
        .ok_or_else(bad)?;
    Ok((n, bytes))
}

/// One `s_server` on 127.0.0.1; killed and reaped on drop.
struct Server {
    child: Child,
    port: u16,
    log: PathBuf,
    name: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// `s_server -www` (handshakes) or, with a suite, `s_server -WWW` serving `d`'s [`WWW`]
    /// directory (the bulk file only: the key and certificate are read from `d` by path).
    fn start(
        d: &Path,
        g: Group,
        c: Cert,
        bulk: Option<TlsCipherSuite>,
        log: &mut dyn FnMut(&str),
    ) -> Result<Server, LiveError> {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| LiveError::io("finding a free port on 127.0.0.1", e))?
            .port();
        let (key, pem) = cert_files(c);
        let name = match bulk {
            Some(s) => format!("s_server -WWW {}", s.iana()),
            None => format!("s_server -www {} {}", g.id(), c.id()),
        };
        let log_path = d.join(format!("server-{port}.log"));
        let f = File::create(&log_path)
            .map_err(|e| LiveError::io(format!("creating {}", log_path.display()), e))?;
        let f2 = f
            .try_clone()
            .map_err(|e| LiveError::io(format!("opening {}", log_path.display()), e))?;
        let accept = format!("127.0.0.1:{port}");
        let mut cmd = Command::new(OPENSSL);
        cmd.args(["s_server", "-accept", &accept, "-cert"])
            .arg(d.join(pem))
            .arg("-key")
            .arg(d.join(key))
            .arg("-tls1_3")
            .current_dir(d.join(WWW))
            .env("OPENSSL_CONF", d.join(conf_name(g)))
            .stdin(Stdio::null())
            .stdout(f)
            .stderr(f2);
        match bulk {
            Some(s) => cmd.args(["-WWW", "-ciphersuites", s.iana()]),
            None => cmd.arg("-www"),
        };
        let child = crate::child::die_with_parent(&mut cmd, libc::SIGKILL)
            .spawn()
            .map_err(|e| LiveError::io(format!("starting `openssl {name}`"), e))?;
        let mut server = Server {
            child,
            port,
            log: log_path,
            name,
        };
        log(&format!(
            "started {} pid {} on {accept}",
            server.name,
            server.child.id()
        ));
        let t0 = Instant::now();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        loop {
            server.alive()?;
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return Ok(server);
            }
            if t0.elapsed() > SERVER_READY {
                return Err(LiveError::Measurement(format!(
                    "`openssl {}` accepted no connection on {accept} within {} s",
                    server.name,
                    SERVER_READY.as_secs()
                )));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// An error naming the server and its log's last lines if it has exited.
    fn alive(&mut self) -> Result<(), LiveError> {
        match self.child.try_wait() {
            Ok(None) => Ok(()),
            Ok(Some(status)) => {
                let text = std::fs::read_to_string(&self.log).unwrap_or_default();
                let tail: Vec<&str> = text.lines().rev().take(3).collect();
                Err(LiveError::Measurement(format!(
                    "`openssl {}` exited ({status}): {}",
                    self.name,
                    tail.join(" / ")
                )))
            }
            Err(e) => Err(LiveError::io(
                format!("checking `openssl {}`", self.name),
                e,
            )),
        }
    }

    /// CPU time of the server so far \[ns\]: `/proc/<pid>/schedstat`'s first field, or
    /// `/proc/<pid>/stat`'s utime + stime in clock ticks where schedstat is absent.
    fn cpu_ns(&mut self) -> Result<u64, LiveError> {
        self.alive()?;
        let pid = self.child.id();
        if let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/schedstat"))
            && let Some(ns) = s.split_whitespace().next().and_then(|f| f.parse().ok())
        {
            return Ok(ns);
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map_err(|e| LiveError::io(format!("reading /proc/{pid}/stat"), e))?;
        // Fields after the command name's closing parenthesis; utime and stime are fields 14
        // and 15 of the line, 12 and 13 after it.
        let after = stat.rsplit(')').next().unwrap_or("");
        let f: Vec<&str> = after.split_whitespace().collect();
        let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok());
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        match (ticks(11), ticks(12), u64::try_from(hz)) {
            (Some(u), Some(s), Ok(hz)) if hz > 0 => Ok((u + s) * 1_000_000_000 / hz),
            _ => Err(LiveError::Measurement(format!(
                "/proc/{pid}/stat has no utime and stime: `{}`",
                stat.trim()
            ))),
        }
    }

    /// Runs one `s_time` against this server: (its stdout, server CPU before, the client's
    /// times, server CPU after).
    fn client(
        &mut self,
        d: &Path,
        g: Group,
        args: &[&str],
        set: Set,
    ) -> Result<(String, u64, Finished, u64), LiveError> {
        let out = d.join("client.out");
        let mut cmd = Command::new(OPENSSL);
        cmd.args(args)
            .current_dir(d)
            .env("OPENSSL_CONF", d.join(conf_name(g)));
        let cpu0 = self.cpu_ns()?;
        let limit = Duration::from_secs(u64::from(set.seconds())) + SLACK;
        let fin = run_timed(
            &mut cmd,
            &out,
            &d.join("client.err"),
            limit,
            &args.join(" "),
        )?;
        let cpu1 = self.cpu_ns()?;
        let text = std::fs::read_to_string(&out)
            .map_err(|e| LiveError::io(format!("reading {}", out.display()), e))?;
        Ok((text, cpu0, fin, cpu1))
    }
}

impl Server {
    /// Runs `clients` copies of one `s_time` against this server at once: (each one's stdout,
    /// server CPU before, each one's times, server CPU after).
    fn clients(
        &mut self,
        d: &Path,
        g: Group,
        args: &[&str],
        clients: u32,
        set: Set,
    ) -> Result<(Vec<String>, u64, Vec<Finished>, u64), LiveError> {
        let limit = Duration::from_secs(u64::from(set.seconds())) + SLACK;
        let conf = d.join(conf_name(g));
        let cpu0 = self.cpu_ns()?;
        let results: Vec<Result<(String, Finished), LiveError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..clients)
                .map(|i| {
                    let conf = conf.clone();
                    scope.spawn(move || {
                        let out = d.join(format!("client-{i}.out"));
                        let mut cmd = Command::new(OPENSSL);
                        cmd.args(args).current_dir(d).env("OPENSSL_CONF", conf);
                        let fin = run_timed(
                            &mut cmd,
                            &out,
                            &d.join(format!("client-{i}.err")),
                            limit,
                            &args.join(" "),
                        )?;
                        let text = std::fs::read_to_string(&out)
                            .map_err(|e| LiveError::io(format!("reading {}", out.display()), e))?;
                        Ok((text, fin))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(LiveError::Measurement("a client thread panicked".into()))
                    })
                })
                .collect()
        });
        let cpu1 = self.cpu_ns()?;
        let mut outs = Vec::new();
        let mut fins = Vec::new();
        for r in results {
            let (o, f) = r?;
            outs.push(o);
            fins.push(f);
        }
        Ok((outs, cpu0, fins, cpu1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s_time_lines_are_read() {
        let out = "Collecting connection statistics for 1 seconds\ntttt\n\n1842 connections in 0.77s; 2392.21 connections/user sec, bytes read 0\n1842 connections in 3 real seconds, 0 bytes read per connection\n";
        assert_eq!(parse_s_time(out).unwrap(), (1842, 0));
        let out = "27 connections in 0.50s; 54.00 connections/user sec, bytes read 1811940543\n";
        assert_eq!(parse_s_time(out).unwrap(), (27, 1_811_940_543));
        let e = parse_s_time("ERROR\n").unwrap_err().to_string();
        assert!(e.contains("s_time printed no"), "{e}");
    }

    /// Issue 39 #7: a bulk server (`s_server -WWW`) serves the bulk file and no key: `GET
    /// /ecdsap256.key` (and the same by `..`) returns no private key, while `GET /bulk.bin`
    /// returns the file. Needs `openssl` (said and skipped without it).
    #[test]
    fn a_bulk_server_serves_no_key() {
        if Command::new(OPENSSL).arg("version").output().is_err() {
            eprintln!("skipped: no {OPENSSL}");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        make_certificates(d).unwrap();
        std::fs::write(d.join(conf_name(Group::X25519)), groups_conf(Group::X25519)).unwrap();
        std::fs::create_dir(d.join(WWW)).unwrap();
        std::fs::write(d.join(WWW).join("bulk.bin"), b"bulk bytes\n").unwrap();
        let mut lines = Vec::new();
        let srv = Server::start(
            d,
            Group::X25519,
            Cert::EcdsaP256,
            Some(TlsCipherSuite::ALL[0]),
            &mut |l| lines.push(l.to_owned()),
        )
        .unwrap();
        let get = |path: &str| {
            let mut c = Command::new(OPENSSL)
                .args(["s_client", "-connect", &srv.addr(), "-quiet", "-tls1_3"])
                .env("OPENSSL_CONF", d.join(conf_name(Group::X25519)))
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            use std::io::Write as _;
            let _ = write!(c.stdin.take().unwrap(), "GET {path} HTTP/1.0\r\n\r\n");
            String::from_utf8_lossy(&c.wait_with_output().unwrap().stdout).into_owned()
        };
        let file = get("/bulk.bin");
        assert!(file.contains("bulk bytes"), "{file}");
        for path in [
            "/ecdsap256.key",
            "/rsa2048.key",
            "/../ecdsap256.key",
            "/%2e%2e/ecdsap256.key",
        ] {
            let got = get(path);
            assert!(
                !got.contains("PRIVATE KEY"),
                "GET {path} served a key: {got}"
            );
        }
        drop(srv);
    }

    #[test]
    fn groups_conf_names_the_group() {
        assert!(groups_conf(Group::P256).contains("Groups = P-256\n"));
    }
}
