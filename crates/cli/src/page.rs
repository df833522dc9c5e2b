//! What a `plan --html` page records about its making: the oransim version, the date (from
//! `SOURCE_DATE_EPOCH` when set, so a page can be rebuilt byte for byte), and the input paths
//! as the page's reader can follow them.

use std::path::{Component, Path, PathBuf};

/// The latest `SOURCE_DATE_EPOCH` taken \[s\]: 9999-12-31T23:59:59Z, the last date with a
/// four-digit year.
pub(crate) const MAX_SOURCE_DATE_EPOCH: u64 = 253_402_300_799;

/// The version the page names: the package version, and `git describe` when the build was
/// given it (`ORANSIM_GIT_DESCRIBE=$(git describe --tags --dirty) cargo build`).
pub(crate) fn version() -> String {
    let v = env!("CARGO_PKG_VERSION");
    match option_env!("ORANSIM_GIT_DESCRIBE") {
        Some(d) if !d.trim().is_empty() => format!("{v} ({})", d.trim()),
        _ => v.to_owned(),
    }
}

/// The page's date, `YYYY-MM-DD` UTC: `SOURCE_DATE_EPOCH` (whole seconds since 1970-01-01
/// UTC, the reproducible-builds convention) when set, else today. A value that is not such a
/// number is refused naming the variable.
pub(crate) fn date() -> anyhow::Result<String> {
    let secs = match std::env::var_os("SOURCE_DATE_EPOCH") {
        Some(v) => {
            let text = v.to_string_lossy();
            match text.trim().parse::<u64>() {
                Ok(s) if s <= MAX_SOURCE_DATE_EPOCH => s,
                _ => anyhow::bail!(
                    "SOURCE_DATE_EPOCH={text:?}: not a date; expected whole seconds since 1970-01-01 UTC, 0 to {MAX_SOURCE_DATE_EPOCH} (9999-12-31), or leave it unset for today"
                ),
            }
        }
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    };
    let stamp = crypto_bench::rfc3339(secs);
    Ok(stamp.get(..10).unwrap_or(&stamp).to_owned())
}

/// `path` as the page at `page` records it: a relative path as given (relative to the
/// directory oransim ran in); an absolute one relative to the page's directory, so the page
/// holds no directory of the machine that wrote it (as given when no relative path joins them).
pub(crate) fn path_for(path: &Path, page: &Path) -> PathBuf {
    if !path.is_absolute() {
        return path.to_path_buf();
    }
    let Ok(cwd) = std::env::current_dir() else {
        return path.to_path_buf();
    };
    let dir = normal(&cwd.join(page));
    let dir = dir.parent().unwrap_or(Path::new("/"));
    relative(&normal(path), dir).unwrap_or_else(|| path.to_path_buf())
}

/// `path` without `.` components and with each `..` taking off the component before it
/// (lexically: no file is read).
pub(crate) fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// `path` relative to the directory `base` (both absolute and normal), or `None` when they
/// share no root.
fn relative(path: &Path, base: &Path) -> Option<PathBuf> {
    let p: Vec<Component> = path.components().collect();
    let b: Vec<Component> = base.components().collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return None;
    }
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{normal, relative};
    use std::path::Path;

    #[test]
    fn an_absolute_path_is_made_relative_to_the_page() {
        let rel = |p: &str, b: &str| relative(Path::new(p), Path::new(b)).unwrap();
        assert_eq!(rel("/a/b/c.toml", "/a/b"), Path::new("c.toml"));
        assert_eq!(rel("/a/cal/x.toml", "/a/out"), Path::new("../cal/x.toml"));
        assert_eq!(rel("/x.toml", "/a/b"), Path::new("../../x.toml"));
        assert_eq!(normal(Path::new("/a/./b/../c")), Path::new("/a/c"));
    }
}
