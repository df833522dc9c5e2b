//! Name matching shared by the parsers: case, `-` and `_` do not matter.

/// `aes256-GCM_16` -> `aes256gcm16`.
pub(crate) fn norm(s: &str) -> String {
    s.trim()
        .chars()
        .filter(|c| *c != '-' && *c != '_' && !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Joins names for an "allowed:" list.
pub(crate) fn list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    names.into_iter().collect::<Vec<_>>().join(", ")
}
