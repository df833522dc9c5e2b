//! The one table renderer: a header row and data rows of text cells, rendered as aligned text
//! (for people), Markdown (for docs) or CSV (for tools).
//!
//! Rows may be shorter or longer than the header (a column appears only in some rows): the
//! aligned text pads every column to its widest cell, counted in characters; Markdown and CSV
//! write each row's cells as they are.

use std::fmt::Write as _;

/// How a column's cells sit in aligned text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Padded on the right.
    Left,
    /// Padded on the left (numbers).
    Right,
}

/// A table of text cells: the first column left-aligned, the others right-aligned unless
/// [`Table::align`] says otherwise.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    head: Vec<String>,
    rows: Vec<Vec<String>>,
    align: Vec<Align>,
    fixed: Vec<usize>,
    gaps: Vec<String>,
    gap: String,
    trim: bool,
}

impl Table {
    /// A table with this header row and no data rows.
    pub fn new<I, S>(head: I) -> Table
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Table {
            head: head.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
            align: Vec::new(),
            fixed: Vec::new(),
            gaps: Vec::new(),
            gap: "  ".to_owned(),
            trim: true,
        }
    }

    /// Appends a data row.
    pub fn row<I, S>(&mut self, cells: I) -> &mut Table
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.rows.push(cells.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the alignment of the columns from the first; columns past `align` keep the
    /// default (first left, others right).
    pub fn align(&mut self, align: &[Align]) -> &mut Table {
        self.align = align.to_vec();
        self
    }

    /// Fixed widths of the columns from the first \[characters\], for a layout that must not
    /// move with its content: a longer cell overflows its column in its own row only. Columns
    /// past `widths` are as wide as their widest cell.
    pub fn widths(&mut self, widths: &[usize]) -> &mut Table {
        self.fixed = widths.to_vec();
        self
    }

    /// The text between two columns in aligned text (default: two spaces).
    pub fn gap(&mut self, gap: &str) -> &mut Table {
        self.gap = gap.to_owned();
        self
    }

    /// The text before each column from the second (`gaps[0]` before the second column);
    /// columns past `gaps` take [`Table::gap`].
    pub fn gaps(&mut self, gaps: &[&str]) -> &mut Table {
        self.gaps = gaps.iter().map(|g| (*g).to_owned()).collect();
        self
    }

    /// Whether aligned text drops the spaces at the end of each line (default: yes). `false`
    /// keeps the padding of a left-aligned or empty last cell.
    pub fn trim_end(&mut self, trim: bool) -> &mut Table {
        self.trim = trim;
        self
    }

    /// The number of data rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there is no data row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn all_rows(&self) -> impl Iterator<Item = &Vec<String>> {
        std::iter::once(&self.head).chain(&self.rows)
    }

    fn alignment(&self, column: usize) -> Align {
        match self.align.get(column) {
            Some(&a) => a,
            None if column == 0 => Align::Left,
            None => Align::Right,
        }
    }

    /// Aligned text: each column as wide as its widest cell \[characters\] (or its fixed width),
    /// columns [`Table::gap`] apart, one line per row with the header first, each ending in
    /// `\n`.
    pub fn text(&self) -> String {
        let mut widths: Vec<usize> = self.fixed.clone();
        for row in self.all_rows() {
            for (i, cell) in row.iter().enumerate() {
                let n = cell.chars().count();
                match widths.get_mut(i) {
                    Some(_) if i < self.fixed.len() => {}
                    Some(w) => *w = (*w).max(n),
                    None => widths.push(n),
                }
            }
        }
        let mut out = String::new();
        for row in self.all_rows() {
            let start = out.len();
            for (i, cell) in row.iter().enumerate() {
                if i > 0 {
                    out.push_str(self.gaps.get(i - 1).unwrap_or(&self.gap));
                }
                let w = widths[i];
                let _ = match self.alignment(i) {
                    Align::Left => write!(out, "{cell:<w$}"),
                    Align::Right => write!(out, "{cell:>w$}"),
                };
            }
            if self.trim {
                let kept = out[start..].trim_end().len();
                out.truncate(start + kept);
            }
            out.push('\n');
        }
        out
    }

    /// A Markdown (GitHub) table: `| a | b |` lines, the header, then `|---|---|`. A `|` in a
    /// cell is written `\|`, so that it cannot split the cell.
    pub fn markdown(&self) -> String {
        let cell = |s: &str| s.replace('|', "\\|");
        let mut out = String::new();
        let line = |out: &mut String, row: &[String]| {
            let cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        };
        line(&mut out, &self.head);
        out.push('|');
        for _ in &self.head {
            out.push_str("---|");
        }
        out.push('\n');
        for r in &self.rows {
            line(&mut out, r);
        }
        out
    }

    /// CSV (RFC 4180): one line per row, the header first; a cell holding a comma, a quote or
    /// a line break is quoted, its quotes doubled.
    pub fn csv(&self) -> String {
        let mut out = String::new();
        for row in self.all_rows() {
            for (i, c) in row.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&csv_cell(c));
            }
            out.push('\n');
        }
        out
    }

    /// An HTML `<table>`: the header in `<thead>`, the rows in `<tbody>`, every cell
    /// HTML-escaped ([`crate::markup::escape`]); right-aligned columns carry `class="num"`.
    pub fn html(&self) -> String {
        let mut out = String::from("<table>\n<thead><tr>");
        for (i, h) in self.head.iter().enumerate() {
            let _ = write!(
                out,
                "<th{}>{}</th>",
                self.num_class(i),
                crate::markup::escape(h)
            );
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for r in &self.rows {
            out.push_str("<tr>");
            for (i, c) in r.iter().enumerate() {
                let _ = write!(
                    out,
                    "<td{}>{}</td>",
                    self.num_class(i),
                    crate::markup::escape(c)
                );
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table>\n");
        out
    }

    fn num_class(&self, column: usize) -> &'static str {
        match self.alignment(column) {
            Align::Left => "",
            Align::Right => " class=\"num\"",
        }
    }
}

/// One CSV cell: quoted (quotes doubled) when it holds a comma, a quote or a line break.
pub(crate) fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_pads_to_the_widest_cell_and_trims() {
        let mut t = Table::new(["node", "cores", "note"]);
        t.row(["du", "4", ""]).row(["a-long-name", "16", "x"]);
        assert_eq!(
            t.text(),
            "node         cores  note\ndu               4\na-long-name     16     x\n"
        );
        t.trim_end(false);
        assert_eq!(t.text().lines().nth(1), Some("du               4      "));
    }

    #[test]
    fn text_counts_characters_not_bytes() {
        let mut t = Table::new(["µs", "x"]);
        t.row(["ab", "1"]);
        assert_eq!(t.text(), "µs  x\nab  1\n");
    }

    #[test]
    fn ragged_rows_and_alignment() {
        let mut t = Table::new(["a", "b"]);
        t.row(["1", "2", "333"]).align(&[Align::Right, Align::Left]);
        assert_eq!(t.text(), "a  b\n1  2  333\n");
        assert_eq!(t.len(), 1);
        assert!(!t.is_empty());
    }

    #[test]
    fn fixed_widths_and_gaps_keep_a_layout() {
        let mut t = Table::new(["frame", "payload", "fragment"]);
        t.row(["1", "1234567890", ""]).row(["2", "5", "MF"]);
        t.widths(&[6, 8, 0])
            .gaps(&[" ", "  "])
            .align(&[Align::Right, Align::Right, Align::Left])
            .trim_end(false);
        assert_eq!(
            t.text(),
            " frame  payload  fragment\n     1 1234567890  \n     2        5  MF\n"
        );
        t.gap(" | ").gaps(&[]);
        assert_eq!(t.text().lines().nth(2), Some("     2 |        5 | MF"));
    }

    #[test]
    fn markdown_escapes_pipes() {
        let mut t = Table::new(["q", "median |error|"]);
        t.row(["a|b", "1"]);
        assert_eq!(
            t.markdown(),
            "| q | median \\|error\\| |\n|---|---|\n| a\\|b | 1 |\n"
        );
    }

    #[test]
    fn csv_quotes_what_needs_it() {
        let mut t = Table::new(["key", "v"]);
        t.row(["link[0].rate", "say \"hi\", twice"]);
        assert_eq!(t.csv(), "key,v\nlink[0].rate,\"say \"\"hi\"\", twice\"\n");
        assert_eq!(csv_cell("a\nb"), "\"a\nb\"");
    }
}
