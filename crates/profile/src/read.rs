//! The one bounded reader for every input file oransim takes: scenarios, profiles, traces,
//! sweep journals, shard files and `openssl speed` output.
//!
//! [`read_input`] refuses what is not a regular file (a FIFO, a device such as `/dev/zero`, a
//! socket, a directory) without reading from it, and refuses a file larger than its kind's
//! [`Input::limit`]. The read itself is bounded (`take(limit + 1)`), so a file that grows while
//! it is read is still capped. A symbolic link is followed: what is checked is the file it
//! points to.
//!
//! Errors are `std::io::Error`s whose message says what the file is and what is allowed; the
//! callers wrap them with the file's name, as they do any other read error.

use std::io::Read;
use std::path::Path;

/// One mebibyte \[B\].
const MIB: u64 = 1 << 20;

/// The kinds of input file, each with its size limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Input {
    /// A scenario or sweep file (TOML): 64 MiB, room for a generated 100,000-gNB E2 star
    /// (`oransim init e2`, about 44 MB; issue 13).
    Scenario,
    /// A calibration profile (TOML): 16 MiB, far above a measured profile (tens of KiB).
    Profile,
    /// `openssl speed -mr` output to import: 16 MiB (real output is a few KiB).
    OpensslSpeed,
    /// A trace CSV: 256 MiB, about 13 million packets of `12.5us,1500B,forward`.
    Trace,
    /// A sweep journal (`points*.jsonl`): 1 GiB, about 1.5 million points of ~700 B each.
    Journal,
    /// A finished shard file (`shard-I-of-N.json`): 1 GiB, as a journal.
    Shard,
    /// A real implementation's measurements (`oransim validate --measurements`, JSON): 16 MiB
    /// (a full strongSwan run is a few KiB).
    Measurements,
}

impl Input {
    /// The largest file of this kind that is read \[B\].
    pub const fn limit(self) -> u64 {
        match self {
            Input::Scenario => 64 * MIB,
            Input::Profile | Input::OpensslSpeed | Input::Measurements => 16 * MIB,
            Input::Trace => 256 * MIB,
            Input::Journal | Input::Shard => 1024 * MIB,
        }
    }

    /// What the file is, for messages: `scenario file`, `trace`, ...
    pub const fn noun(self) -> &'static str {
        match self {
            Input::Scenario => "scenario files",
            Input::Profile => "calibration profiles",
            Input::OpensslSpeed => "openssl speed output",
            Input::Trace => "traces",
            Input::Journal => "sweep journals",
            Input::Shard => "shard files",
            Input::Measurements => "measurement files",
        }
    }
}

/// A file-type description for messages: `a FIFO (named pipe)`, `a directory`, ...
pub fn describe(ft: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_dir() {
        "a directory"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

fn not_regular(ft: std::fs::FileType) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("it is {}; only a regular file is read", describe(ft)),
    )
}

/// Reads the regular file at `path`, of kind `kind`, whole. Refuses, without reading from it,
/// anything that is not a regular file, and refuses a file over [`Input::limit`] bytes.
pub fn read_input(path: &Path, kind: Input) -> std::io::Result<Vec<u8>> {
    // Look first (following links), so a FIFO is refused before `open` could block on it.
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        // Non-blocking, so a file swapped for a FIFO after the look above does not hang `open`;
        // the type is checked again on what was opened.
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    let limit = kind.limit();
    let too_large = || {
        std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!(
                "it is larger than {} MiB, the limit for {}",
                limit / MIB,
                kind.noun()
            ),
        )
    };
    if meta.len() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read_input`], then UTF-8: a file that is not text is an `InvalidData` error giving the
/// byte offset of the first invalid byte.
pub fn read_input_text(path: &Path, kind: Input) -> std::io::Result<String> {
    String::from_utf8(read_input(path, kind)?).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory for one test, removed when dropped (also when an assertion unwinds).
    fn scratch(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("oransim-read-{name}-"))
            .tempdir()
            .expect("create a scratch directory")
    }

    #[test]
    fn reads_a_regular_file_and_follows_a_link_to_one() {
        let dir = scratch("ok");
        let d = dir.path();
        std::fs::write(d.join("a.toml"), "x = 1\n").unwrap();
        assert_eq!(
            read_input(&d.join("a.toml"), Input::Scenario).unwrap(),
            b"x = 1\n"
        );
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.join("a.toml"), d.join("link.toml")).unwrap();
            assert_eq!(
                read_input_text(&d.join("link.toml"), Input::Profile).unwrap(),
                "x = 1\n"
            );
        }
    }

    #[test]
    fn refuses_a_directory() {
        let dir = scratch("dir");
        let d = dir.path();
        let e = read_input(d, Input::Scenario).unwrap_err();
        assert_eq!(
            e.to_string(),
            "it is a directory; only a regular file is read"
        );
    }

    // Issue 14 class 5: `/dev/zero` as a scenario was read until memory ran out. It is only
    // looked at here (an input path), never written.
    #[cfg(unix)]
    #[test]
    fn refuses_a_device_without_reading_it() {
        let e = read_input(Path::new("/dev/zero"), Input::Scenario).unwrap_err();
        assert!(e.to_string().contains("a character device"), "{e}");
    }

    #[test]
    fn refuses_a_file_over_the_limit() {
        let dir = scratch("big");
        let d = dir.path();
        let f = std::fs::File::create(d.join("big.toml")).unwrap();
        // Sparse: no disk space is used.
        f.set_len(Input::Scenario.limit() + 1).unwrap();
        let e = read_input(&d.join("big.toml"), Input::Scenario).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("64 MiB"), "{e}");
        f.set_len(Input::Scenario.limit()).unwrap();
        assert_eq!(
            read_input(&d.join("big.toml"), Input::Scenario)
                .unwrap()
                .len() as u64,
            Input::Scenario.limit()
        );
    }

    #[test]
    fn reports_where_text_is_not_utf8() {
        let dir = scratch("utf8");
        let d = dir.path();
        std::fs::write(d.join("b.toml"), b"ab\xffc").unwrap();
        let e = read_input_text(&d.join("b.toml"), Input::Scenario).unwrap_err();
        assert!(e.to_string().contains("offset 2"), "{e}");
    }
}
