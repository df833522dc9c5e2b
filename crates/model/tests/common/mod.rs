//! Scratch directories for the model's integration tests: each is unique to its test and
//! removed when dropped, also when an assertion fails and the test unwinds (`tempfile`).

#![allow(dead_code)]

use std::ops::Deref;
use std::path::{Path, PathBuf};

/// A temporary directory and the path a test uses in it (the directory itself, or its first
/// file).
pub(crate) struct Scratch {
    dir: tempfile::TempDir,
    path: PathBuf,
}

impl Scratch {
    /// A new empty directory whose name starts with `oransim-model-{name}-`.
    pub(crate) fn dir(name: &str) -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix(&format!("oransim-model-{name}-"))
            .tempdir()
            .expect("create a scratch directory");
        Scratch {
            path: dir.path().to_path_buf(),
            dir,
        }
    }

    /// A new directory holding `files` (name, text); the path is the first file's.
    pub(crate) fn with_files(name: &str, files: &[(&str, &str)]) -> Scratch {
        let mut s = Scratch::dir(name);
        for (f, text) in files {
            std::fs::write(s.dir.path().join(f), text).expect("write a scratch file");
        }
        s.path = s.dir.path().join(files[0].0);
        s
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}
