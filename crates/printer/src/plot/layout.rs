//! The parts of a plot around its data: the title and the legend strip ([`Frame::layout`]),
//! legend entries (wrapped to the strip, never clipped: [`wrap`]), point markers in pixels,
//! and text measures.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Colour, DrawResult, Frame, LABEL, Mark, Shape, font};

/// Where legend text starts, right of the legend strip's left edge \[pixels\].
const LEGEND_TEXT: u32 = 40;

/// The narrowest legend strip \[pixels\].
const LEGEND_MIN: u32 = 100;

/// Height of one legend entry of one line \[pixels\].
const LEGEND_ROW: i32 = 22;

/// Height each further line of a wrapped legend entry adds \[pixels\].
const LEGEND_LINE: i32 = 16;

/// What a legend entry shows beside its label.
#[derive(Debug, Clone, Copy)]
pub(super) enum Swatch {
    /// The layer's own mark: a short line or one marker.
    Mark(Mark),
    /// A filled square (a heat map's region).
    Fill(Colour),
}

/// The chart side of a plot, and the legend strip right of it with each label wrapped to the
/// strip's width, if there is a legend.
pub(super) type Sides<DB> = (
    DrawingArea<DB, Shift>,
    Option<(DrawingArea<DB, Shift>, Vec<Vec<String>>)>,
);

/// Width of `text` in the label font \[pixels\], as both backends lay it out (the carried
/// font's glyph advances).
pub(super) fn text_width(text: &str, size: u32) -> u32 {
    font(size).font.box_size(text).map_or(0, |(w, _)| w)
}

/// `text` broken into lines no wider than `room` \[pixels\] in the label font: after a comma,
/// space, slash or opening parenthesis where it can, inside a word only where one word alone
/// is wider than `room`. Every character is kept, in order (the lines joined give `text`
/// back, but for the spaces that end a line).
pub(super) fn wrap(text: &str, room: u32) -> Vec<String> {
    if text_width(text, LABEL) <= room {
        return vec![text.to_owned()];
    }
    // Tokens end after a break character.
    let mut tokens: Vec<String> = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        cur.push(c);
        if matches!(c, ',' | ' ' | '/' | '(') {
            tokens.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        tokens.push(cur);
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for token in tokens {
        let joined = format!("{line}{token}");
        if text_width(joined.trim_end(), LABEL) <= room {
            line = joined;
            continue;
        }
        if !line.trim().is_empty() {
            lines.push(line.trim_end().to_owned());
        }
        line = String::new();
        // A token wider than the room alone is cut between characters.
        for c in token.chars() {
            line.push(c);
            if text_width(line.trim_end(), LABEL) > room && line.chars().count() > 1 {
                line.pop();
                lines.push(line.trim_end().to_owned());
                line = c.to_string();
            }
        }
    }
    if !line.trim().is_empty() {
        lines.push(line.trim_end().to_owned());
    }
    lines
}

/// Height of a legend whose entries have these many lines each \[pixels\].
pub(super) fn legend_height(lines: impl Iterator<Item = usize>) -> u32 {
    lines
        .map(|n| LEGEND_ROW + LEGEND_LINE * i32::try_from(n.max(1) - 1).unwrap_or(0))
        .sum::<i32>()
        .unsigned_abs()
}

impl Frame {
    /// The caption size that fits `title` in the width \[pixels\].
    fn title_size(&self, title: &str) -> u32 {
        let room = self.size.0.saturating_sub(2 * self.margin).max(1);
        let tw = text_width(title, self.caption);
        if tw > room {
            (u64::from(self.caption) * u64::from(room) / u64::from(tw)).max(8) as u32
        } else {
            self.caption
        }
    }

    /// The legend strip's width for `labels` \[pixels\]: as wide as the widest label needs,
    /// at most 2/5 of the plot (longer labels wrap).
    fn strip(&self, labels: &[&str]) -> u32 {
        let widest = labels
            .iter()
            .map(|l| text_width(l, LABEL))
            .max()
            .unwrap_or(0);
        (widest + LEGEND_TEXT + self.margin)
            .max(LEGEND_MIN)
            .min(self.size.0 * 2 / 5)
    }

    /// Each of `labels` wrapped to the legend strip.
    pub(super) fn wrapped(&self, labels: &[&str]) -> Vec<Vec<String>> {
        let room = self
            .strip(labels)
            .saturating_sub(LEGEND_TEXT + self.margin)
            .max(1);
        labels.iter().map(|l| wrap(l, room)).collect()
    }

    /// The least plot height at which the legend of `labels` fits below `title` \[pixels\].
    pub(super) fn legend_needs(&self, title: &str, labels: &[&str]) -> u32 {
        if labels.is_empty() {
            return 0;
        }
        let size = self.title_size(title);
        let (_, th) = font(size).font.box_size(title).unwrap_or((0, size));
        let title_h = th + 2 * (th / 2).min(5);
        let legend = legend_height(self.wrapped(labels).iter().map(Vec::len));
        title_h + self.margin + legend + self.margin
    }

    /// Fills `root` white, draws `title` on top (smaller when it would not fit the width), and
    /// splits the rest into the chart side and a legend strip as wide as the widest of `labels`
    /// needs, at most 2/5 of the width, each label wrapped to it (none without labels).
    pub(super) fn layout<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        title: &str,
        labels: &[&str],
    ) -> std::result::Result<Sides<DB>, DrawingAreaErrorKind<DB::ErrorType>> {
        root.fill(&WHITE)?;
        let (w, _) = root.dim_in_pixel();
        let body = root.titled(title, font(self.title_size(title)))?;
        if labels.is_empty() {
            return Ok((body, None));
        }
        let strip = self.strip(labels);
        let split = i32::try_from(w.saturating_sub(strip)).unwrap_or(i32::MAX);
        let (side, legend) = body.split_horizontally(split);
        Ok((side, Some((legend, self.wrapped(labels)))))
    }
}

/// Draws the legend `entries` down `area` from `top` \[pixels\]: each swatch beside its
/// label's lines (`lines[i]` for entry `i`).
pub(super) fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    top: i32,
    entries: &[(&str, Swatch)],
    lines: &[Vec<String>],
) -> DrawResult<DB> {
    let mut y = top + LEGEND_ROW / 2;
    for ((_, swatch), text) in entries.iter().zip(lines) {
        match *swatch {
            Swatch::Mark(Mark::Line { colour, width }) => area.draw(&PathElement::new(
                vec![(8, y), (32, y)],
                colour.rgba().stroke_width(width),
            ))?,
            Swatch::Mark(mark) => marker(area, (20, y), mark)?,
            Swatch::Fill(colour) => area.draw(&Rectangle::new(
                [(12, y - 7), (28, y + 7)],
                colour.rgba().filled(),
            ))?,
        }
        let style = font(LABEL).pos(Pos::new(HPos::Left, VPos::Center));
        for (i, line) in text.iter().enumerate() {
            let dy = LEGEND_LINE * i32::try_from(i).unwrap_or(0);
            area.draw_text(line, &style, (LEGEND_TEXT as i32, y + dy))?;
        }
        y += LEGEND_ROW + LEGEND_LINE * i32::try_from(text.len().max(1) - 1).unwrap_or(0);
    }
    Ok(())
}

/// Draws one point marker of `mark` centred on `(x, y)` \[pixels in `area`\]; a line mark
/// draws nothing.
pub(super) fn marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (x, y): (i32, i32),
    mark: Mark,
) -> DrawResult<DB> {
    let Mark::Points {
        colour,
        shape,
        filled,
        size,
    } = mark
    else {
        return Ok(());
    };
    let s = i32::try_from(size).unwrap_or(i32::MAX / 4);
    let stroke = colour.rgba().stroke_width(2);
    let style = if filled {
        colour.rgba().filled()
    } else {
        stroke
    };
    let outline = |pts: Vec<(i32, i32)>| -> DrawResult<DB> {
        if filled {
            area.draw(&Polygon::new(pts, style))
        } else {
            let mut closed = pts.clone();
            closed.push(pts[0]);
            area.draw(&PathElement::new(closed, stroke))
        }
    };
    match shape {
        Shape::Circle => area.draw(&Circle::new((x, y), size, style)),
        Shape::Square => area.draw(&Rectangle::new([(x - s, y - s), (x + s, y + s)], style)),
        Shape::Triangle => outline(vec![
            (x, y - s - s / 4),
            (x + s, y + s * 3 / 4),
            (x - s, y + s * 3 / 4),
        ]),
        Shape::Diamond => outline(vec![
            (x, y - s - s / 4),
            (x + s, y),
            (x, y + s + s / 4),
            (x - s, y),
        ]),
        Shape::Cross => {
            area.draw(&PathElement::new(
                vec![(x - s, y - s), (x + s, y + s)],
                stroke,
            ))?;
            area.draw(&PathElement::new(
                vec![(x - s, y + s), (x + s, y - s)],
                stroke,
            ))
        }
        Shape::Plus => {
            area.draw(&PathElement::new(vec![(x - s, y), (x + s, y)], stroke))?;
            area.draw(&PathElement::new(vec![(x, y - s), (x, y + s)], stroke))
        }
    }
}

/// The widest of `texts` in the label font \[pixels\].
pub(super) fn widest<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    texts: &[String],
) -> std::result::Result<u32, DrawingAreaErrorKind<DB::ErrorType>> {
    let mut w = 0;
    for t in texts {
        w = w.max(area.estimate_text_size(t, &font(LABEL))?.0);
    }
    Ok(w)
}
