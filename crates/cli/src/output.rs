//! Shared output helpers.

use std::io::Write;
use std::path::Path;

use anyhow::Context;

/// The suffix of every temporary file [`write_atomic`] makes:
/// `.<name>.<pid>-<seq>.oransim.tmp` next to the target (`<seq>` counts the writes of this
/// process, so two threads of one process never share a name), so a leftover from a killed run
/// is recognisable and removed by the next write of the same target once its process is gone.
const TMP_SUFFIX: &str = ".oransim.tmp";

/// The name part of [`check_writable`]'s probe file.
const PROBE: &str = "oransim-write-check";

/// Counts this process's temporary files, for their `<seq>` part.
static TMP_SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A fresh temporary name for `name` in `dir`: `.<name>.<pid>-<seq>.oransim.tmp`.
fn tmp_path(dir: &Path, name: &str) -> std::path::PathBuf {
    let seq = TMP_SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    dir.join(format!(".{name}.{}-{seq}{TMP_SUFFIX}", std::process::id()))
}

/// The directory `path` is written in (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Refuses a target that exists and is not a regular file (a symbolic link, FIFO, device,
/// socket or directory): the writers replace only regular files. The link itself is looked at,
/// not what it points to.
pub(crate) fn refuse_non_regular(path: &Path) -> anyhow::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(m) => anyhow::bail!(
            "cannot write {}: it is {}; oransim replaces only regular files, so remove it or \
             give another path",
            path.display(),
            profile::read::describe(m.file_type())
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot write {}", path.display())),
    }
}

/// Checks the directory `path` that oransim itself names inside a directory the user gave (a
/// sweep's `plots/`, `reproduce --write-docs`'s `img/`) without following a symbolic link:
/// `Ok(true)` for a directory, `Ok(false)` if absent, and anything else (a symbolic link, even
/// to a directory, a file, a FIFO) refused naming it.
pub(crate) fn refuse_non_dir(path: &Path) -> anyhow::Result<bool> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => Ok(true),
        Ok(m) => anyhow::bail!(
            "cannot write into {}: it is {}, not a directory; oransim writes only into a \
             directory it finds or makes there, never through a link, so remove it or give \
             another path",
            path.display(),
            profile::read::describe(m.file_type())
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e).with_context(|| format!("cannot create {}", path.display())),
    }
}

/// Makes such a directory ([`refuse_non_dir`]): an existing directory is used, an absent one
/// created (its parent must exist) and looked at again if another writer made something there
/// at the same moment; the files written into it never land in a link's target.
pub(crate) fn make_subdir(path: &Path) -> anyhow::Result<()> {
    if refuse_non_dir(path)? {
        return Ok(());
    }
    match std::fs::create_dir(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => refuse_non_dir(path).map(|_| ()),
        Err(e) => Err(e).with_context(|| format!("cannot create {}", path.display())),
    }
}

/// Whether process `pid` may be alive: `kill(pid, 0)` succeeds or is refused for permission
/// (a process of another user). Where that cannot be asked (not Unix), every process counts
/// as alive, so no temporary file is ever removed.
fn process_alive(pid: u64) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            // Not a process id this system can have.
            return false;
        };
        if pid <= 0 {
            // 0 and below name process groups, not one process: kept.
            return true;
        }
        // SAFETY: kill with signal 0 sends nothing; it only checks that `pid` exists.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// The process id in the middle part of a temporary file name (`<pid>` as older versions wrote
/// it, or `<pid>-<seq>`), if it is one.
fn tmp_pid(middle: &str) -> Option<u64> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let pid = match middle.split_once('-') {
        Some((pid, seq)) if digits(seq) => pid,
        Some(_) => return None,
        None => middle,
    };
    if !digits(pid) {
        return None;
    }
    // Too many digits for any process id: not a name we made, left alone.
    pid.parse().ok()
}

/// Removes temporary files of `name` left in `dir` by earlier, killed writes: only regular
/// files named `.<name>.<pid>[-<seq>].oransim.tmp` whose process is gone ([`process_alive`]);
/// a live process's temporary file is its write in progress and is left alone.
fn remove_stale_tmps(dir: &Path, name: &str) {
    let prefix = format!(".{name}.");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(n) = file_name.to_str() else {
            continue;
        };
        let pid = n
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(TMP_SUFFIX))
            .and_then(tmp_pid);
        let stale = pid.is_some_and(|p| !process_alive(p));
        if stale && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Writes `contents` to `path` atomically: into a temporary file created exclusively in the
/// same directory, flushed and synced, then renamed over `path`. A reader never sees a
/// half-written file, and an interrupted write leaves the old file (or none) in place. A target
/// that exists and is not a regular file is refused before anything is written
/// ([`refuse_non_regular`]); the temporary file is removed on every error.
pub(crate) fn write_atomic(path: &Path, contents: &[u8]) -> anyhow::Result<()> {
    let mut file = AtomicFile::create(path)?;
    let result = file.write_all(contents);
    file.finish(result)
}

/// A file written as a stream (a packet capture as a run goes) that appears at its path only
/// when complete, as [`write_atomic`]'s: the bytes go to a temporary file created exclusively
/// beside the target; [`AtomicFile::finish`] syncs it and renames it over the target, and a
/// file dropped without `finish` (an error, a panic) removes its temporary file. The target is
/// refused if it exists and is not a regular file, when created and again before the rename.
#[derive(Debug)]
pub(crate) struct AtomicFile {
    path: std::path::PathBuf,
    tmp: std::path::PathBuf,
    /// `None` once finished.
    file: Option<std::io::BufWriter<std::fs::File>>,
}

impl AtomicFile {
    /// Starts writing `path`.
    pub(crate) fn create(path: &Path) -> anyhow::Result<AtomicFile> {
        refuse_non_regular(path)?;
        let dir = parent_dir(path);
        let name = path
            .file_name()
            .with_context(|| format!("output path {} has no file name", path.display()))?
            .to_string_lossy()
            .into_owned();
        remove_stale_tmps(dir, &name);
        let tmp = tmp_path(dir, &name);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            file: Some(std::io::BufWriter::with_capacity(1 << 16, file)),
        })
    }

    /// Ends the write: if `written` (the outcome of writing the contents) is an error, or the
    /// flush, sync or rename fails, the temporary file is removed and the target left as it
    /// was; otherwise the file replaces the target.
    pub(crate) fn finish(mut self, written: std::io::Result<()>) -> anyhow::Result<()> {
        let path = self.path.clone();
        let cannot = || format!("cannot write {}", path.display());
        let Some(buffered) = self.file.take() else {
            anyhow::bail!("{} was already finished", path.display());
        };
        let result = written
            .and_then(|()| buffered.into_inner().map_err(|e| e.into_error()))
            .and_then(|file| file.sync_all())
            .with_context(cannot)
            // Looked at again: the target may have been replaced while we wrote.
            .and_then(|()| refuse_non_regular(&path))
            .and_then(|()| std::fs::rename(&self.tmp, &path).with_context(cannot));
        if result.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        result
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(std::io::Error::other("file already finished")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes a set of files that belong together (one run's reports), so that the set on disk is
/// never a mix of two runs: every target is checked first ([`refuse_non_regular`]), the old
/// files of the set are removed, then each is written with [`write_atomic`] in the order given.
/// The last file written marks a complete set: after a kill the directory holds the old set,
/// or part of the new one without its last file, never old and new files together.
pub(crate) fn write_set(files: &[(std::path::PathBuf, Vec<u8>)]) -> anyhow::Result<()> {
    // Two writers of one set into one directory (two `run --out d` at once) take turns: each
    // holds the directory's flock(2) from its first removal to its last rename, so the set
    // left is one writer's whole, never a mix (issue 39 #5). Where a directory cannot be
    // opened as a file (not Linux), the set is written unlocked as before.
    let _turn = match files.first() {
        Some((path, _)) => std::fs::File::open(parent_dir(path)).ok().map(|dir| {
            let locked = fs4::FileExt::lock(&dir);
            (dir, locked)
        }),
        None => None,
    };
    for (path, _) in files {
        refuse_non_regular(path)?;
    }
    for (path, _) in files {
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(e).with_context(|| format!("cannot replace {}", path.display()));
            }
        }
    }
    for (path, contents) in files {
        write_atomic(path, contents)?;
    }
    Ok(())
}

/// A status line on stderr, rewritten in place, for a person watching a terminal; nothing when
/// stderr is a log or a pipe.
pub(crate) struct StatusLine {
    live: bool,
    prefix: &'static str,
}

impl StatusLine {
    /// A line whose every update starts with `prefix`.
    pub(crate) fn new(prefix: &'static str) -> StatusLine {
        StatusLine {
            live: std::io::IsTerminal::is_terminal(&std::io::stderr()),
            prefix,
        }
    }

    /// Replaces the line with `prefix` and `what`.
    pub(crate) fn show(&self, what: &str) {
        if self.live {
            let mut e = std::io::stderr();
            let _ = write!(e, "\r\x1b[2K{}{what}", self.prefix);
            let _ = e.flush();
        }
    }

    /// Erases the line, so what follows starts on a clean one.
    pub(crate) fn clear(&self) {
        if self.live {
            eprint!("\r\x1b[2K");
        }
    }
}

/// Checks, before a long measurement, that [`write_atomic`] will be able to write `path`: it is
/// a regular file or absent ([`refuse_non_regular`]), and a file can be created (then removed)
/// in its directory.
pub(crate) fn check_writable(path: &Path) -> anyhow::Result<()> {
    refuse_non_regular(path)?;
    remove_stale_tmps(parent_dir(path), PROBE);
    let probe = tmp_path(parent_dir(path), PROBE);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .and_then(|_| std::fs::remove_file(&probe))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// `name` as the stem of files written into an output directory: a file name, never a path
/// (issue 39). Refuses an empty name, `/` or `\`, a leading `.` (so `..` and hidden files),
/// and control characters; `what` names where the name came from (e.g. `[scenario] name`).
pub(crate) fn file_stem<'a>(name: &'a str, what: &str) -> anyhow::Result<&'a str> {
    let problem = if name.is_empty() {
        Some("is empty")
    } else if name.contains(['/', '\\']) {
        Some("contains a path separator")
    } else if name.starts_with('.') {
        Some("starts with '.'")
    } else if name.chars().any(char::is_control) {
        Some("contains a control character")
    } else {
        None
    };
    match problem {
        None => Ok(name),
        Some(p) => anyhow::bail!(
            "{what} {name:?} {p}: the output files are named after it, so it must be a plain file name (no '/' or '\\', no leading '.', no control characters)"
        ),
    }
}

/// Says each of a command's `warnings` ([`model::warnings`]) on stderr, one line each:
/// `oransim COMMAND: warning: ...`. The JSON output carries them too, as `warnings`.
pub(crate) fn warn(command: &str, warnings: &[String]) {
    for w in warnings {
        eprintln!("oransim {command}: warning: {w}");
    }
}
