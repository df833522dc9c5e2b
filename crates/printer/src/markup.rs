//! HTML escaping: the one function the page writer ([`crate::html`]) and the table renderer
//! ([`crate::table`]) share.

/// `text` with the five characters HTML gives a meaning escaped (`&`, `<`, `>`, `"`, `'`), so
/// it reads as itself in element content and in quoted attribute values.
///
/// ```
/// use printer::html::escape;
/// assert_eq!(escape("<script>alert('x & y')</script>"),
///            "&lt;script&gt;alert(&#39;x &amp; y&#39;)&lt;/script&gt;");
/// assert_eq!(escape("a=\"1\""), "a=&quot;1&quot;");
/// ```
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
