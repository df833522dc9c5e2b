//! The parts of a plot around its data: the title and the legend strip ([`Frame::layout`]),
//! legend entries, point markers in pixels, and text measures.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Colour, DrawResult, Frame, LABEL, Mark, Shape, font};

/// Where legend text starts, right of the legend strip's left edge \[pixels\].
const LEGEND_TEXT: u32 = 40;

/// The narrowest legend strip \[pixels\].
const LEGEND_MIN: u32 = 100;

/// Height of one legend entry \[pixels\].
const LEGEND_ROW: i32 = 22;

/// What a legend entry shows beside its label.
#[derive(Debug, Clone, Copy)]
pub(super) enum Swatch {
    /// The layer's own mark: a short line or one marker.
    Mark(Mark),
    /// A filled square (a heat map's region).
    Fill(Colour),
}

/// The chart side of a plot and the legend strip right of it, if there is a legend.
pub(super) type Sides<DB> = (DrawingArea<DB, Shift>, Option<DrawingArea<DB, Shift>>);

impl Frame {
    /// Fills `root` white, draws `title` on top (smaller when it would not fit the width), and
    /// splits the rest into the chart side and a legend strip as wide as the widest of `labels`
    /// needs (none without labels).
    pub(super) fn layout<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        title: &str,
        labels: &[&str],
    ) -> std::result::Result<Sides<DB>, DrawingAreaErrorKind<DB::ErrorType>> {
        root.fill(&WHITE)?;
        let (w, _) = root.dim_in_pixel();
        let room = w.saturating_sub(2 * self.margin).max(1);
        let (tw, _) = root.estimate_text_size(title, &font(self.caption))?;
        let size = if tw > room {
            (u64::from(self.caption) * u64::from(room) / u64::from(tw)).max(8) as u32
        } else {
            self.caption
        };
        let body = root.titled(title, font(size))?;
        if labels.is_empty() {
            return Ok((body, None));
        }
        let mut widest = 0;
        for label in labels {
            widest = widest.max(root.estimate_text_size(label, &font(LABEL))?.0);
        }
        let strip = (widest + LEGEND_TEXT + self.margin)
            .max(LEGEND_MIN)
            .min(w * 2 / 5);
        let split = i32::try_from(w.saturating_sub(strip)).unwrap_or(i32::MAX);
        let (side, legend) = body.split_horizontally(split);
        Ok((side, Some(legend)))
    }
}

/// Draws the legend `entries` down `area` from `top` \[pixels\]: each swatch with its label.
pub(super) fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    top: i32,
    entries: &[(&str, Swatch)],
) -> DrawResult<DB> {
    let mut y = top + LEGEND_ROW / 2;
    for (label, swatch) in entries {
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
        area.draw_text(label, &style, (LEGEND_TEXT as i32, y))?;
        y += LEGEND_ROW;
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
