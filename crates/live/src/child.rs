//! Children that do not outlive oransim (issue 39 #7): a process this crate or the cli starts
//! (an `openssl s_server`, the bench's bash) is sent a signal when oransim ends, however it
//! ends, including `kill -9` ([`die_with_parent`]: Linux's `PR_SET_PDEATHSIG`); and a temporary
//! directory is removed when oransim ends, however it ends ([`Reaper`]: a `sh` that waits for
//! the end of a pipe only oransim holds).
//!
//! A SIGINT or SIGTERM to oransim ends it without unwinding (no destructor runs), and `kill -9`
//! cannot be caught: both are covered by the kernel's parent-death signal and by the pipe's end
//! of file, not by code in oransim that might not run.

use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};

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
