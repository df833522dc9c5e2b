//! Name matching shared by the parsers: case, `-` and `_` do not matter.

/// `aes256-GCM_16` -> `aes256gcm16`.
pub(crate) fn norm(s: &str) -> String {
    s.trim()
        .chars()
        .filter(|c| *c != '-' && *c != '_' && !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}
