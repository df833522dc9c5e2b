//! Children that do not outlive oransim (issue 39 #7): a process this crate or the cli starts
//! (an `openssl s_server`, the bench's bash) is sent a signal when oransim ends, however it
//! ends, including `kill -9` ([`die_with_parent`]: Linux's `PR_SET_PDEATHSIG`); and a temporary
//! directory is removed when oransim ends, however it ends ([`Reaper`]: a `sh` that waits for
//! the end of a pipe only oransim holds).
//!
//! A SIGINT or SIGTERM to oransim ends it without unwinding (no destructor runs), and `kill -9`
//! cannot be caught: both are covered by the kernel's parent-death signal and by the pipe's end
//! of file, not by code in oransim that might not run. Where oransim can do better than end (a
//! bench script that saves what it measured in its exit trap), a [`Forwarder`] catches SIGINT
//! and SIGTERM for a while, passes them on to the script and lets oransim wait for it.

use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};

use crate::LiveError;

/// Makes the process `cmd` starts receive `signal` (e.g. `libc::SIGTERM`, so a script's traps
/// clean up; `libc::SIGKILL` for a server with nothing to clean) when the thread that starts it
/// ends, which for oransim's single-threaded measuring is the process. A parent that is already
/// gone by the time the child runs makes the child exit at once (status 1).
pub fn die_with_parent(cmd: &mut Command, signal: libc::c_int) -> &mut Command {
    // SAFETY: getpid is async-signal-safe and has no preconditions.
    let parent = unsafe { libc::getpid() };
    let hook = move || {
        // SAFETY: prctl(PR_SET_PDEATHSIG) and getppid are async-signal-safe system calls on
        // plain integers, allowed between fork and exec; nothing is allocated here.
        unsafe {
            if libc::prctl(libc::PR_SET_PDEATHSIG, signal as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                libc::_exit(1);
            }
        }
        Ok(())
    };
    // SAFETY: the hook only makes async-signal-safe system calls (see above).
    unsafe { cmd.pre_exec(hook) }
}

/// A temporary directory's reaper: a `sh` that removes the directory once its standard input
/// ends, which is when oransim ends, however it ends (the pipe's only writer is this value,
/// held by oransim). Dropping it ends the pipe too, so the directory is removed then as well:
/// keep it as long as the directory is in use.
#[derive(Debug)]
pub struct Reaper {
    sh: Child,
    pipe: Option<ChildStdin>,
}

impl Reaper {
    /// Starts the reaper of `dir` (an absolute path to a directory of our own).
    pub fn new(dir: &Path) -> Result<Reaper, LiveError> {
        let mut sh = Command::new("sh");
        sh.args(["-c", "while read -r _; do :; done; rm -rf -- \"$1\"", "sh"])
            .arg(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // Its own process group: a SIGINT from the terminal does not end it before oransim's
        // children have gone.
        sh.process_group(0);
        let mut sh = sh
            .spawn()
            .map_err(|e| LiveError::io("starting the temporary directory's reaper (sh)", e))?;
        let pipe = sh.stdin.take();
        Ok(Reaper { sh, pipe })
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        if let Some(mut pipe) = self.pipe.take() {
            let _ = pipe.flush();
        }
        let _ = self.sh.wait();
    }
}

/// The child SIGINT and SIGTERM are passed on to while a [`Forwarder`] lives (0: none).
static FORWARD_TO: AtomicI32 = AtomicI32::new(0);
/// The last of SIGINT and SIGTERM oransim received while a [`Forwarder`] lived (0: none).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

extern "C" fn forward(signal: libc::c_int) {
    RECEIVED.store(signal, Ordering::SeqCst);
    let pid = FORWARD_TO.load(Ordering::SeqCst);
    if pid > 0 {
        // SAFETY: kill(2) is async-signal-safe; the pid is a child of ours not yet waited for
        // (cleared before the wait returns), so it names no other process.
        unsafe {
            libc::kill(pid, signal);
        }
    }
}

/// While it lives, SIGINT and SIGTERM to oransim do not end it: each is passed on to one child
/// (a script whose traps stop its daemons and save what it measured, issue 39 #7) and recorded
/// ([`Forwarder::received`]), so that oransim can wait for the child, keep what it saved and say
/// what happened. Dropping it puts back the handlers it replaced. One at a time (a process-wide
/// signal disposition): oransim measures with one child script at a time.
pub struct Forwarder {
    old: [(libc::c_int, libc::sigaction); 2],
}

impl std::fmt::Debug for Forwarder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Forwarder")
            .field("to", &FORWARD_TO.load(Ordering::SeqCst))
            .field("received", &self.received())
            .finish()
    }
}

impl Forwarder {
    /// Catches SIGINT and SIGTERM from now on; none is passed on until [`Forwarder::to`].
    pub fn new() -> Result<Forwarder, LiveError> {
        RECEIVED.store(0, Ordering::SeqCst);
        FORWARD_TO.store(0, Ordering::SeqCst);
        let mut old = [
            (libc::SIGINT, zeroed_sigaction()),
            (libc::SIGTERM, zeroed_sigaction()),
        ];
        for (signal, prev) in &mut old {
            let mut act = zeroed_sigaction();
            act.sa_sigaction = forward as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // SA_RESTART: the reads of the child's progress lines go on after the handler.
            act.sa_flags = libc::SA_RESTART;
            // SAFETY: `act` is a valid sigaction whose handler only makes async-signal-safe
            // calls (atomics and kill); `prev` receives the old one.
            if unsafe { libc::sigaction(*signal, &act, prev) } != 0 {
                return Err(LiveError::io(
                    "catching SIGINT and SIGTERM",
                    std::io::Error::last_os_error(),
                ));
            }
        }
        Ok(Forwarder { old })
    }

    /// Passes SIGINT and SIGTERM on to `child` from now on, and at once the one received
    /// before (if any).
    pub fn to(&self, child: &Child) {
        let Ok(pid) = i32::try_from(child.id()) else {
            return;
        };
        FORWARD_TO.store(pid, Ordering::SeqCst);
        let before = RECEIVED.load(Ordering::SeqCst);
        if before != 0 {
            // SAFETY: kill(2) on our own child, not yet waited for.
            unsafe {
                libc::kill(pid, before);
            }
        }
    }

    /// Stops passing signals on (call it before waiting for the child: a pid waited for may
    /// be reused).
    pub fn stop(&self) {
        FORWARD_TO.store(0, Ordering::SeqCst);
    }

    /// The signal received while this lived (`libc::SIGINT` or `libc::SIGTERM`), if any.
    pub fn received(&self) -> Option<libc::c_int> {
        Some(RECEIVED.load(Ordering::SeqCst)).filter(|s| *s != 0)
    }
}

impl Drop for Forwarder {
    fn drop(&mut self) {
        FORWARD_TO.store(0, Ordering::SeqCst);
        for (signal, prev) in &self.old {
            // SAFETY: puts back the disposition sigaction returned for this signal.
            unsafe {
                libc::sigaction(*signal, prev, std::ptr::null_mut());
            }
        }
    }
}

fn zeroed_sigaction() -> libc::sigaction {
    // SAFETY: sigaction is a plain C struct for which all-zero bytes are valid (SIG_DFL, an
    // empty mask, no flags).
    unsafe { std::mem::zeroed() }
}

/// The conventional name of a signal this module catches ("SIGINT", "SIGTERM").
pub fn signal_name(signal: libc::c_int) -> &'static str {
    match signal {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reaper_removes_its_directory_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.keep();
        std::fs::write(kept.join("f"), b"x").unwrap();
        let r = Reaper::new(&kept).unwrap();
        assert!(kept.exists(), "removed while held");
        drop(r);
        assert!(!kept.exists(), "{} left behind", kept.display());
    }

    #[test]
    fn sigterm_to_us_is_passed_on_to_the_child_and_recorded() {
        use std::io::BufRead as _;
        let fw = Forwarder::new().unwrap();
        assert_eq!(fw.received(), None);
        let mut child = Command::new("sh")
            .args([
                "-c",
                "trap 'kill $!; exit 7' TERM; sleep 30 & echo ready; wait",
            ])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line, "ready\n");
        fw.to(&child);
        // SAFETY: raise(3) on this process, whose SIGTERM the forwarder catches.
        unsafe {
            libc::raise(libc::SIGTERM);
        }
        let status = child.wait().unwrap();
        fw.stop();
        assert_eq!(status.code(), Some(7), "the child did not get the SIGTERM");
        assert_eq!(fw.received(), Some(libc::SIGTERM));
        assert_eq!(signal_name(libc::SIGTERM), "SIGTERM");
    }

    #[test]
    fn a_child_whose_parent_is_gone_is_signalled() {
        // sh (the parent) starts a child with the parent-death signal through `die_with_parent`
        // only in oransim; here the hook runs in a child of this test process and the test
        // checks it starts and runs normally while the parent lives.
        let out = die_with_parent(Command::new("sh").args(["-c", "echo up"]), libc::SIGKILL)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "up\n");
    }
}
