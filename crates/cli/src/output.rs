//! Shared output helpers.

use std::io::Write;
use std::path::Path;

use anyhow::Context;

/// Writes `contents` to `path` atomically: into a temporary file in the same directory, flushed
/// and synced, then renamed over `path`. A reader never sees a half-written file, and an
/// interrupted write leaves the old file (or none) in place.
pub fn write_atomic(path: &Path, contents: &[u8]) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .with_context(|| format!("output path {} has no file name", path.display()))?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| -> std::io::Result<()> {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(contents)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("cannot write {}", path.display()))
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
/// not a directory, and a file can be created (then removed) in its directory.
pub fn check_writable(path: &Path) -> anyhow::Result<()> {
    if path.is_dir() {
        anyhow::bail!("cannot write {}: it is a directory", path.display());
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let probe = dir.join(format!(".oransim-write-check.{}.tmp", std::process::id()));
    std::fs::File::create(&probe)
        .and_then(|_| std::fs::remove_file(&probe))
        .with_context(|| format!("cannot write {}", path.display()))
}
