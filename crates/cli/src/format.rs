//! The `--format` of a [`model::Report`]: a table (for people), JSON (for tools;
//! `docs/json.md`) or CSV, rendered by [`printer::run`]; and printing to stdout.

use std::io::Write as _;

use model::Report;

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// Aligned columns for people.
    Table,
    /// The stable JSON interface.
    Json,
    /// One row per flow direction.
    Csv,
}

impl Format {
    /// File extension for `--out`.
    pub(crate) fn extension(self) -> &'static str {
        match self {
            Format::Table => "txt",
            Format::Json => "json",
            Format::Csv => "csv",
        }
    }
}

/// Writes `text` to stdout; a closed pipe surfaces as a BrokenPipe error that `main` ignores.
pub(crate) fn print(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Renders the report in `format` (the renderers are [`printer::run`]); a table has the
/// lines `lines` asks for.
pub(crate) fn render(
    report: &Report,
    format: Format,
    lines: printer::run::Lines,
) -> anyhow::Result<String> {
    Ok(match format {
        Format::Json => printer::run::json(report)?,
        Format::Csv => printer::run::csv(report),
        Format::Table => printer::run::table_with(report, lines),
    })
}
