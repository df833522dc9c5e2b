//! The checkout's data files that commands read at run time — `calibration/`, `scenarios/` and
//! `experiments/` — compiled into the binary, so an installed `oransim` works in any directory:
//! `reproduce` writes them out to a scratch root when the current directory is not a checkout,
//! and `init` writes the default profile a generated scenario names (docs/scenarios.md).

use std::io;
use std::path::{Component, Path, PathBuf};

use include_dir::{Dir, include_dir};

/// `calibration/` of the checkout the binary was built from, without the raw samples
/// (`*.samples.csv`, which no command reads; `build.rs` lists the files).
static CALIBRATION: Dir<'static> = include!(concat!(env!("OUT_DIR"), "/calibration.rs"));
/// `scenarios/` of the checkout the binary was built from.
static SCENARIOS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../../scenarios");
/// `experiments/` of the checkout the binary was built from.
static EXPERIMENTS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../../experiments");

/// Each embedded directory under the name it has in a checkout.
const TREES: [(&str, &Dir<'static>); 3] = [
    ("calibration", &CALIBRATION),
    ("scenarios", &SCENARIOS),
    ("experiments", &EXPERIMENTS),
];

/// The bytes of the checkout's file at `path`, relative to the checkout's root
/// (`calibration/colosseum-e2.toml`, `./calibration/x.toml`), if the binary carries it.
pub(crate) fn file(path: &Path) -> Option<&'static [u8]> {
    let mut parts = path
        .components()
        .filter(|c| *c != Component::CurDir)
        .map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        });
    let top = parts.next()??;
    let rest: Vec<&str> = parts.collect::<Option<_>>()?;
    let (_, dir) = TREES.iter().find(|(name, _)| *name == top)?;
    dir.get_file(rest.join("/")).map(|f| f.contents())
}

/// Whether `dir` holds a checkout's data: `scenarios/` and `experiments/studies.toml`.
pub(crate) fn is_checkout(dir: &Path) -> bool {
    dir.join("scenarios").is_dir() && dir.join(evidence::reproduce::STUDIES_FILE).is_file()
}

/// The directory a command reads the checkout's files from.
pub(crate) enum Root {
    /// A checkout on disk (the current directory or `--root`).
    Dir(PathBuf),
    /// The embedded files written out to a scratch directory, removed when this is dropped.
    Embedded(tempfile::TempDir),
}

impl Root {
    /// `explicit` if given, else the current directory if it is a checkout, else the embedded
    /// files written out to a fresh scratch directory.
    pub(crate) fn find(explicit: Option<&Path>) -> io::Result<Root> {
        if let Some(dir) = explicit {
            return Ok(Root::Dir(dir.to_path_buf()));
        }
        let here = Path::new(".");
        if is_checkout(here) {
            return Ok(Root::Dir(here.to_path_buf()));
        }
        let scratch = tempfile::Builder::new().prefix("oransim-data-").tempdir()?;
        extract(scratch.path())?;
        Ok(Root::Embedded(scratch))
    }

    /// The root's path.
    pub(crate) fn path(&self) -> &Path {
        match self {
            Root::Dir(p) => p,
            Root::Embedded(t) => t.path(),
        }
    }
}

/// A profile a command reads: the file at the path given when there is one, else oransim's
/// built-in copy of the checkout's file at that path (`calibration/NAME.toml`), written to a
/// scratch directory that lives as long as this.
pub(crate) struct Profile {
    /// The path as given.
    pub given: PathBuf,
    /// The path to read.
    pub read: PathBuf,
    /// The scratch directory holding the built-in copy, if one is used.
    scratch: Option<tempfile::TempDir>,
}

impl Profile {
    /// `given`, or the built-in copy of it when nothing is there and the binary carries the
    /// checkout's file at that relative path.
    pub(crate) fn find(given: &Path) -> io::Result<Profile> {
        let mut p = Profile {
            given: given.to_path_buf(),
            read: given.to_path_buf(),
            scratch: None,
        };
        if std::fs::symlink_metadata(given).is_ok() {
            return Ok(p);
        }
        if let Some(bytes) = file(given) {
            let scratch = tempfile::Builder::new()
                .prefix("oransim-profile-")
                .tempdir()?;
            let read = scratch.path().join(given);
            if let Some(dir) = read.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&read, bytes)?;
            p.read = read;
            p.scratch = Some(scratch);
        }
        Ok(p)
    }

    /// Whether the built-in copy is read.
    pub(crate) fn is_builtin(&self) -> bool {
        self.scratch.is_some()
    }

    /// `text` with the built-in copy's scratch path written as the path given, so messages
    /// name what the user typed.
    pub(crate) fn as_given(&self, text: &str) -> String {
        if self.is_builtin() {
            text.replace(
                &self.read.display().to_string(),
                &self.given.display().to_string(),
            )
        } else {
            text.to_owned()
        }
    }
}

/// Writes every embedded file under `dir`, as laid out in a checkout.
fn extract(dir: &Path) -> io::Result<()> {
    for (name, tree) in TREES {
        write_tree(&dir.join(name), tree)?;
    }
    Ok(())
}

fn write_tree(to: &Path, tree: &Dir<'static>) -> io::Result<()> {
    std::fs::create_dir_all(to)?;
    for f in tree.files() {
        let name = f
            .path()
            .file_name()
            .ok_or_else(|| io::Error::other("a nameless file"))?;
        std::fs::write(to.join(name), f.contents())?;
    }
    for d in tree.dirs() {
        let name = d
            .path()
            .file_name()
            .ok_or_else(|| io::Error::other("a nameless directory"))?;
        write_tree(&to.join(name), d)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::file;

    #[test]
    fn a_checkout_path_finds_its_embedded_bytes() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for p in [
            "calibration/colosseum-e2.toml",
            "experiments/studies/ofh_mtu.toml",
        ] {
            let disk = std::fs::read(repo.join(p)).expect("the checkout's file");
            assert_eq!(file(Path::new(p)), Some(disk.as_slice()), "{p}");
        }
        assert!(file(Path::new("./scenarios/mm1.toml")).is_some());
        assert!(file(Path::new("calibration/none.toml")).is_none());
        assert!(file(Path::new("../calibration/colosseum-e2.toml")).is_none());
        assert!(file(Path::new("/calibration/colosseum-e2.toml")).is_none());
        assert!(file(Path::new("docs/limits.md")).is_none());
    }

    /// Issue 25: every file of `calibration/` is carried as it is on disk, but for the raw
    /// samples, which no command reads (about 2.7 MB).
    #[test]
    fn calibration_is_embedded_without_its_samples() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../calibration");
        let mut samples = 0;
        for entry in std::fs::read_dir(&dir).expect("calibration/") {
            let name = entry.expect("an entry").file_name();
            let name = name.to_str().expect("a UTF-8 name");
            let path = format!("calibration/{name}");
            let embedded = file(Path::new(&path));
            if name.ends_with(".samples.csv") {
                samples += 1;
                assert!(embedded.is_none(), "{path} is embedded");
            } else {
                let disk = std::fs::read(dir.join(name)).expect("the file");
                assert_eq!(embedded, Some(disk.as_slice()), "{path}");
            }
        }
        assert!(
            samples > 0,
            "no samples to leave out: the test tests nothing"
        );
    }
}
