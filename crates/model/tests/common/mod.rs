//! Scratch directories for the model's integration tests: each is unique to its test and
//! removed when dropped, also when an assertion fails and the test unwinds.

#![allow(dead_code)]

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A temporary directory and the path a test uses in it (the directory itself, or its first
/// file).
pub struct Scratch {
    dir: PathBuf,
    path: PathBuf,
}

impl Scratch {
    /// A new empty directory named after `name`, this process and a counter.
    pub fn dir(name: &str) -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("oransim-model-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a scratch directory");
        Scratch {
            path: dir.clone(),
            dir,
        }
    }

    /// A new directory holding `files` (name, text); the path is the first file's.
    pub fn with_files(name: &str, files: &[(&str, &str)]) -> Scratch {
        let mut s = Scratch::dir(name);
        for (f, text) in files {
            std::fs::write(s.dir.join(f), text).expect("write a scratch file");
        }
        s.path = s.dir.join(files[0].0);
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

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
