//! oransim's output formats, as a library (ripgrep's printer crate is the model): the binary
//! maps flags to these calls and writes what they return.
//!
//! Two renderers do all the drawing:
//! - [`Table`]: columns with a header, as aligned text, Markdown or CSV;
//! - [`plot::Figure`]: x-y charts (lines, model markers, published markers) and heat maps, as
//!   SVG text or PNG bytes in memory (both with their text: PNG text is drawn with the font the
//!   project carries), so the caller writes each file atomically.
//!
//! Each command's report is a module over them: [`run`] (a scenario's report as table, JSON or
//! CSV), [`sweep`] (a sweep's CSV, JSON and plots), [`reproduce`] (the reproduction table,
//! JSON, plots and the `docs/reproduction.md` page), [`live`] (the live experiments' tables,
//! text or Markdown), [`plan`], [`overhead`], [`handshake`] and [`calibrate`] (a profile's
//! summary). [`pcap`] writes packet captures (pcapng) as a stream; [`capture`] writes a stack's frames, sealed by `live::frames`, as one. [`html`] renders the reproduction and the plans as self-contained pages.
//!
//! Every function returns the text or bytes and writes nothing: the binary prints them or
//! writes them atomically, so a reader never sees a half-written file.
//!
//! ```
//! use printer::Table;
//!
//! let mut t = Table::new(["flow", "delay us"]);
//! t.row(["ul", "12.5"]);
//! assert_eq!(t.text(), "flow  delay us\nul        12.5\n");
//! assert_eq!(t.csv(), "flow,delay us\nul,12.5\n");
//! ```

pub mod calibrate;
pub mod capture;
pub mod handshake;
pub mod html;
pub mod live;
mod markup;
pub mod overhead;
pub mod pcap;
pub mod plan;
pub mod plot;
pub mod reproduce;
pub mod run;
pub mod sweep;
mod table;
pub mod validate;

// The face: the table renderer ([`Table`]), the errors and the JSON helpers are at the root.
// Each command's report is a namespace (`run::table`, `sweep::csv`, `reproduce::markdown`, ...):
// every one has its own `table`, `json` or `csv`, so flattened they would collide. `plot` is
// the chart renderer's namespace (`plot::Figure` and its parts: `Layer`, `Frame`, `Mark`, ...),
// `pcap` the capture writer's and `html` the pages'.
pub use table::{Align, Table};

/// What can go wrong while rendering.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// plotters failed to draw a plot (`what` names the plot).
    #[error("cannot draw {what}: {message}")]
    Draw {
        /// The plot, e.g. `e2_sack_cdf` or `the plot of link[0].mtu`.
        what: String,
        /// plotters' message.
        message: String,
    },
    /// The PNG encoder failed.
    #[error("cannot encode {what} as PNG")]
    Png {
        /// The plot.
        what: String,
        /// The encoder's error.
        #[source]
        source: png::EncodingError,
    },
    /// A plot's pixel buffer would not fit in memory (width x height x 3 bytes overflowed).
    #[error("cannot draw {what}: {width}x{height} pixels is too large")]
    TooLarge {
        /// The plot.
        what: String,
        /// Width \[pixels\].
        width: u32,
        /// Height \[pixels\].
        height: u32,
    },
    /// A plot's legend, every entry wrapped to its strip, is taller than the plot.
    #[error(
        "cannot draw {what} at {width}x{height} pixels: its {entries} legend entries need a height of {needs} pixels"
    )]
    LegendTooTall {
        /// The plot.
        what: String,
        /// Width \[pixels\].
        width: u32,
        /// Height \[pixels\].
        height: u32,
        /// The height the legend needs \[pixels\].
        needs: u32,
        /// Legend entries \[count\].
        entries: usize,
    },
    /// A report could not be serialised as JSON.
    #[error("cannot write the {what} as JSON")]
    Json {
        /// The document, e.g. `sweep results`.
        what: &'static str,
        /// serde_json's error.
        #[source]
        source: serde_json::Error,
    },
}

/// The result of a rendering call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A JSON document with its schema version first: `{"schema": "oransim.<command>/<n>", ...}`.
/// Within a version fields are only added, never renamed or removed; docs/json.md documents
/// each schema's fields.
#[derive(Debug, serde::Serialize)]
pub struct Versioned<'a, T: serde::Serialize + ?Sized> {
    /// The schema name, e.g. `oransim.plan.kex/1`.
    pub schema: &'static str,
    /// The document's fields (a struct or map, flattened beside `schema`).
    #[serde(flatten)]
    pub body: &'a T,
}

/// `value` with a top-level `schema` field, as pretty-printed JSON with a final newline;
/// `what` names the document in the error.
pub fn json_versioned<T: serde::Serialize + ?Sized>(
    schema: &'static str,
    value: &T,
    what: &'static str,
) -> Result<String> {
    json_pretty(
        &Versioned {
            schema,
            body: value,
        },
        what,
    )
}

/// `value` as pretty-printed JSON with a final newline (the form of every JSON file oransim
/// writes); `what` names the document in the error.
pub fn json_pretty<T: serde::Serialize + ?Sized>(value: &T, what: &'static str) -> Result<String> {
    let mut s =
        serde_json::to_string_pretty(value).map_err(|source| Error::Json { what, source })?;
    s.push('\n');
    Ok(s)
}
