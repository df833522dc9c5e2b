//! The locks a sweep holds on its files in `--out` for its whole life, so two sweeps never
//! write one journal or one set of results at once.
//!
//! A lock is a small file in the directory, locked with `flock(2)` (through `fs4`; `LockFileEx`
//! on Windows): the kernel releases it when the holder exits, however it exits, so a sweep
//! killed with `kill -9` leaves the file but no lock, and its resume takes the lock again. The
//! file holds one line naming the holder (pid, host, start time) while it is held, for the
//! message that refuses a second sweep, and is emptied when the holder finishes (so a finished
//! directory's files do not depend on who ran it).
//!
//! - `.sweep.lock`: a whole sweep (`points.jsonl`, `sweep.json`, `sweep.csv`, `plots/`) and a
//!   merge into the directory (the same result files).
//! - `.shard-I-of-N.lock`: shard I of N (`points-I-of-N.jsonl`, `shard-I-of-N.json`); shards
//!   share a directory, each with its own lock. A merge holds each such lock it finds beside
//!   its input shard files shared, so it never reads a shard that is being written.

use std::fs::File;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// The lock of a whole sweep and of a merge, in the `--out` directory.
pub(crate) const SWEEP_LOCK: &str = ".sweep.lock";

/// The lock of shard `index` of `count`.
pub(crate) fn shard_lock(index: u64, count: u64) -> String {
    format!(".shard-{index}-of-{count}.lock")
}

/// A lock held until dropped.
#[derive(Debug)]
pub(crate) struct Held {
    file: File,
    exclusive: bool,
}

impl Drop for Held {
    fn drop(&mut self) {
        if self.exclusive {
            // No holder any more: the name is not left behind (the lock goes with the file
            // handle).
            let _ = self.file.set_len(0);
        }
    }
}

/// Opens the lock file `path` without following a symbolic link (creating it if `create`).
fn open(path: &Path, create: bool) -> std::io::Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    if create {
        o.write(true).create(true);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    o.open(path)
}

/// Who holds the lock in `file`, as its holder wrote it.
fn holder(file: &File) -> String {
    let mut text = String::new();
    let _ = std::io::Read::take(file, 512).read_to_string(&mut text);
    let line = text.lines().next().unwrap_or("").trim();
    let shown: String = line.chars().filter(|c| !c.is_control()).take(200).collect();
    if shown.is_empty() {
        "another process (it has not written its name yet)".to_owned()
    } else {
        shown
    }
}

/// Refuses a lock path that exists and is not a regular file.
fn regular(path: &Path, flag: &str) -> anyhow::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(m) => bail!(
            "{flag} {}: the lock file {} is {}; it must be a regular file (oransim makes it), so \
             remove it",
            parent(path).display(),
            path.display(),
            profile::read::describe(m.file_type())
        ),
        Err(_) => Ok(()),
    }
}

fn parent(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("."))
}

/// Takes the exclusive lock `name` in `dir` (which exists) for the caller's life, or refuses
/// (naming `flag`, the directory and the holder) when another process holds it.
pub(crate) fn exclusive(dir: &Path, name: &str, flag: &str) -> anyhow::Result<Held> {
    let path = dir.join(name);
    regular(&path, flag)?;
    let mut file = open(&path, true)
        .with_context(|| format!("{flag} {}: cannot open {}", dir.display(), path.display()))?;
    match fs4::FileExt::try_lock(&file) {
        Ok(()) => {}
        Err(fs4::TryLockError::WouldBlock) => bail!(
            "{flag} {}: another sweep is writing there now: {} holds {}; wait for it to end, or \
             give another {flag} directory",
            dir.display(),
            holder(&file),
            path.display()
        ),
        Err(fs4::TryLockError::Error(e)) => {
            return Err(e).with_context(|| {
                format!(
                    "{flag} {}: cannot lock {} (the file system must support file locks, \
                     flock(2))",
                    dir.display(),
                    path.display()
                )
            });
        }
    }
    let me = me();
    file.set_len(0)
        .and_then(|()| file.write_all(me.as_bytes()))
        .and_then(|()| file.sync_data())
        .with_context(|| format!("{flag} {}: cannot write {}", dir.display(), path.display()))?;
    Ok(Held {
        file,
        exclusive: true,
    })
}

/// Holds every shard lock (`.shard-*.lock`) found in `dir` shared, or refuses (naming `flag`,
/// the lock and its holder) when a shard is running there.
pub(crate) fn shards_shared(dir: &Path, flag: &str) -> anyhow::Result<Vec<Held>> {
    let mut names: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(".shard-") && n.ends_with(".lock"))
            })
            .collect(),
        // Not readable: the merge's own reading says why.
        Err(_) => return Ok(Vec::new()),
    };
    names.sort();
    let mut held = Vec::new();
    for path in names {
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let file = open(&path, false)
            .with_context(|| format!("{flag} {}: cannot open {}", dir.display(), path.display()))?;
        match fs4::FileExt::try_lock_shared(&file) {
            Ok(()) => held.push(Held {
                file,
                exclusive: false,
            }),
            Err(fs4::TryLockError::WouldBlock) => bail!(
                "{flag} {}: a shard is still running there: {} holds {}; merge when it has \
                 ended",
                dir.display(),
                holder(&file),
                path.display()
            ),
            Err(fs4::TryLockError::Error(e)) => {
                return Err(e).with_context(|| {
                    format!("{flag} {}: cannot lock {}", dir.display(), path.display())
                });
            }
        }
    }
    Ok(held)
}

/// This process, as the lock file names it: `pid 1234 on host H since 2026-01-02T03:04:05Z`.
fn me() -> String {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or_else(|_| "an unknown time".to_owned(), |d| utc(d.as_secs()));
    format!(
        "pid {} on host {} since {since} (oransim sweep)\n",
        std::process::id(),
        host()
    )
}

/// The host name, or `?`.
fn host() -> String {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: the buffer is valid for its length; gethostname writes at most that much.
        let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
        if r == 0 {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            let name = String::from_utf8_lossy(&buf[..end]).into_owned();
            if !name.is_empty() {
                return name;
            }
        }
    }
    "?".to_owned()
}

/// Seconds since 1970 as `YYYY-MM-DDTHH:MM:SSZ` (UTC), as calibration profiles record dates.
fn utc(secs: u64) -> String {
    crypto_bench::rfc3339(secs)
}

#[cfg(test)]
mod tests {
    use super::utc;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_798_761_599), "2026-12-31T23:59:59Z");
    }
}
