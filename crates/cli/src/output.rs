//! Shared output helpers.

use std::io::Write;
use std::path::Path;

use anyhow::Context;

/// The suffix of every temporary file [`write_atomic`] makes: `.<name>.<pid>.oransim.tmp` next
/// to the target, so a leftover from a killed run is recognisable and removed by the next write
/// of the same target.
const TMP_SUFFIX: &str = ".oransim.tmp";

/// The name part of [`check_writable`]'s probe file.
const PROBE: &str = "oransim-write-check";

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
pub fn refuse_non_regular(path: &Path) -> anyhow::Result<()> {
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

/// Removes temporary files of `name` left in `dir` by earlier, killed writes (only regular
/// files named `.<name>.<digits>.oransim.tmp`).
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
            .and_then(|rest| rest.strip_suffix(TMP_SUFFIX));
        let ours = pid.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        if ours && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Writes `contents` to `path` atomically: into a temporary file created exclusively in the
/// same directory, flushed and synced, then renamed over `path`. A reader never sees a
/// half-written file, and an interrupted write leaves the old file (or none) in place. A target
/// that exists and is not a regular file is refused before anything is written
/// ([`refuse_non_regular`]); the temporary file is removed on every error.
pub fn write_atomic(path: &Path, contents: &[u8]) -> anyhow::Result<()> {
    refuse_non_regular(path)?;
    let dir = parent_dir(path);
    let name = path
        .file_name()
        .with_context(|| format!("output path {} has no file name", path.display()))?
        .to_string_lossy()
        .into_owned();
    remove_stale_tmps(dir, &name);
    let tmp = dir.join(format!(".{name}.{}{TMP_SUFFIX}", std::process::id()));
    let cannot = || format!("cannot write {}", path.display());
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .with_context(cannot)?;
    let result = file
        .write_all(contents)
        .and_then(|()| file.sync_all())
        .with_context(cannot)
        // Looked at again: the target may have been replaced while we wrote.
        .and_then(|()| refuse_non_regular(path))
        .and_then(|()| std::fs::rename(&tmp, path).with_context(cannot));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes a set of files that belong together (one run's reports), so that the set on disk is
/// never a mix of two runs: every target is checked first ([`refuse_non_regular`]), the old
/// files of the set are removed, then each is written with [`write_atomic`] in the order given.
/// The last file written marks a complete set: after a kill the directory holds the old set,
/// or part of the new one without its last file, never old and new files together.
pub fn write_set(files: &[(std::path::PathBuf, Vec<u8>)]) -> anyhow::Result<()> {
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
pub struct StatusLine {
    live: bool,
    prefix: &'static str,
}

impl StatusLine {
    /// A line whose every update starts with `prefix`.
    pub fn new(prefix: &'static str) -> StatusLine {
        StatusLine {
            live: std::io::IsTerminal::is_terminal(&std::io::stderr()),
            prefix,
        }
    }

    /// Replaces the line with `prefix` and `what`.
    pub fn show(&self, what: &str) {
        if self.live {
            let mut e = std::io::stderr();
            let _ = write!(e, "\r\x1b[2K{}{what}", self.prefix);
            let _ = e.flush();
        }
    }

    /// Erases the line, so what follows starts on a clean one.
    pub fn clear(&self) {
        if self.live {
            eprint!("\r\x1b[2K");
        }
    }
}

/// Checks, before a long measurement, that [`write_atomic`] will be able to write `path`: it is
/// a regular file or absent ([`refuse_non_regular`]), and a file can be created (then removed)
/// in its directory.
pub fn check_writable(path: &Path) -> anyhow::Result<()> {
    refuse_non_regular(path)?;
    remove_stale_tmps(parent_dir(path), PROBE);
    let probe = parent_dir(path).join(format!(".{PROBE}.{}{TMP_SUFFIX}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .and_then(|_| std::fs::remove_file(&probe))
        .with_context(|| format!("cannot write {}", path.display()))
}
