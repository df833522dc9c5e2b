//! One self-contained HTML page per report, for people who would rather look than read a
//! terminal: `oransim reproduce --html DIR` ([`reproduce()`]) and `oransim plan … --html FILE`
//! ([`interface`], [`fronthaul`], [`kex`]).
//!
//! A page needs nothing outside itself: the CSS is inline, the plots are inline SVG (drawn by
//! [`crate::plot`], whose text plotters escapes), there is no JavaScript, no font, image or
//! style sheet to fetch, and the only links are anchors within the page. Provenance sits in
//! `<details>` elements, which every browser folds and unfolds without a script. Every string
//! that comes from data (targets, notes, reasons, paths, flags) goes through [`escape`]. A plan
//! page ends with a footer naming the oransim version and the date it was made ([`Made`], both
//! given by the caller); the reproduction page holds no timestamp or path of its own. The same
//! run on the same date gives the same bytes.
//!
//! ```
//! let page = printer::html::page("a <b>", "<p>body</p>\n");
//! assert!(page.starts_with("<!DOCTYPE html>\n"));
//! assert!(page.contains("<title>a &lt;b&gt;</title>"));
//! ```

use std::fmt::Write as _;

mod figures;
mod plan;
mod reproduce;

pub use plan::{fronthaul, interface, kex};
pub use reproduce::reproduce;

pub use crate::markup::escape;

/// The page's style sheet: readable tables, folded provenance, PASS and FAIL in colour (with
/// the words, so the verdict does not rest on colour alone), plots scaled to the width.
const CSS: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:0;color:#1b1b1b;background:#fff;line-height:1.45}
main{max-width:1200px;margin:0 auto;padding:1rem 1.5rem 3rem}
h1{font-size:1.7rem;margin:.6rem 0}
h2{font-size:1.3rem;margin-top:2.2rem;border-bottom:2px solid #ddd;padding-bottom:.2rem}
h3{font-size:1.05rem;margin-top:1.4rem}
code{font-family:'DejaVu Sans Mono',monospace;font-size:.88em;background:#f3f3f3;padding:0 .2em;border-radius:3px}
pre{background:#f6f6f6;padding:.6rem .8rem;overflow-x:auto;font-size:.85rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.88rem}
th,td{border:1px solid #d4d4d4;padding:.25rem .45rem;vertical-align:top;text-align:left}
th{background:#f1f1f1}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.fail>td{background:#fff1f0}
td.verdict{font-weight:bold;white-space:nowrap}
tr.pass td.verdict{color:#1a7f37}
tr.fail td.verdict{color:#c62828}
td.class{white-space:nowrap}
tr.prov>td{border-top:none;background:#fbfbfb;padding:.1rem .45rem .3rem}
details>summary{cursor:pointer;color:#444;font-size:.85rem}
details dl{margin:.3rem 0 .3rem 1rem}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem}
dl.meta dt{font-weight:bold}
dl.meta dd{margin:0}
.summary{font-size:1.05rem;padding:.5rem .8rem;border-left:5px solid #1a7f37;background:#f3faf4}
.summary.failed{border-left-color:#c62828;background:#fff5f4}
.why{color:#7a1f1f}
figure{margin:1rem 0;overflow-x:auto}
figure svg{max-width:100%;height:auto;border:1px solid #e2e2e2}
figcaption{font-size:.85rem;color:#555}
nav table td{padding:.15rem .45rem}
table.region{display:inline-table;margin-right:2rem;vertical-align:top}
td.region{font-family:'DejaVu Sans Mono',monospace;text-align:center;min-width:1.4em}
td.m-N{background:#e8e8e8}td.m-I{background:#c9e7c9}td.m-E{background:#a6d8a6}td.m-P{background:#f6d98e}td.m-none{background:#f4b4ad}
";

/// A complete page: the doctype, `<head>` with `title` (escaped) and the inline style sheet,
/// and `body` (HTML, inserted as given) inside `<main>`.
pub fn page(title: &str, body: &str) -> String {
    let mut out = String::with_capacity(body.len() + CSS.len() + 512);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let _ = write!(out, "<style>\n{CSS}</style>\n</head>\n<body>\n<main>\n");
    out.push_str(body);
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

/// Who made a page and when, for its footer ([`footer`]).
#[derive(Debug, Clone, Copy)]
pub struct Made<'a> {
    /// The oransim version (`0.1.0`, or with `git describe` in brackets).
    pub version: &'a str,
    /// The date, `YYYY-MM-DD` UTC.
    pub date: &'a str,
}

/// The page's footer: the version and date of `made`, and how its paths read.
///
/// ```
/// let f = printer::html::footer(&printer::html::Made { version: "0.1.0", date: "2026-11-26" });
/// assert!(f.contains("oransim 0.1.0 on 2026-11-26"));
/// ```
pub fn footer(made: &Made<'_>) -> String {
    format!(
        "<footer><p>Made by oransim {} on {} (UTC). Paths are as given, relative to the directory oransim ran in; a path given absolute is relative to this page.</p></footer>\n",
        escape(made.version),
        escape(made.date)
    )
}

/// A bulleted list of `items`, each escaped; nothing when there are none.
fn list<S: AsRef<str>>(items: &[S]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let mut out = String::from("<ul>\n");
    for i in items {
        let _ = writeln!(out, "<li>{}</li>", escape(i.as_ref()));
    }
    out.push_str("</ul>\n");
    out
}
