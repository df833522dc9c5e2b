//! Helpers shared by the `oransim` integration tests (`mod common;` in each test file).

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh, empty scratch directory `oransim-NAME-PID-N` under the system's temporary
/// directory, removed with everything in it when dropped: at the end of the test, and also when
/// the test fails (a failed assertion unwinds through the drop), so no test leaves directories
/// in /tmp (issue 14).
#[derive(Debug)]
pub struct TempDir(PathBuf);

static NEXT: AtomicUsize = AtomicUsize::new(0);

impl TempDir {
    /// Creates the directory; `name` says which test it is for.
    pub fn new(name: &str) -> TempDir {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("oransim-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a scratch directory");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<OsStr> for TempDir {
    fn as_ref(&self) -> &OsStr {
        self.0.as_os_str()
    }
}
