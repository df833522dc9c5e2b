//! The one plot renderer: x-y charts ([`Chart`]: lines, dots, crosses) and heat maps
//! ([`Heat`]), each drawn two ways. SVG carries all text as SVG `<text>`, drawn by the viewer
//! (no font files needed); PNG is the same data without text and with a light grid, because
//! plotters draws text into bitmaps only with system fonts, which a CI machine may not have.
//! Both come back as bytes in memory: the caller writes the file atomically.
//!
//! Positions are in data units on the axes and in pixels for sizes and margins.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::{Error, Result};

/// A colour with opacity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Colour {
    /// Red, green, blue \[0..=255\].
    pub rgb: (u8, u8, u8),
    /// Opacity \[0..=1\].
    pub alpha: f64,
}

impl Colour {
    /// Opaque black.
    pub const BLACK: Colour = Colour::opaque(0, 0, 0);

    /// An opaque colour.
    pub const fn opaque(r: u8, g: u8, b: u8) -> Colour {
        Colour {
            rgb: (r, g, b),
            alpha: 1.0,
        }
    }

    /// The colour of series `i` in every plot oransim draws (a common 8-colour qualitative
    /// palette, repeating).
    pub fn palette(i: usize) -> Colour {
        const C: [(u8, u8, u8); 8] = [
            (31, 119, 180),
            (214, 39, 40),
            (44, 160, 44),
            (148, 103, 189),
            (255, 127, 14),
            (140, 86, 75),
            (227, 119, 194),
            (127, 127, 127),
        ];
        let (r, g, b) = C[i % C.len()];
        Colour::opaque(r, g, b)
    }

    /// The same colour with its opacity multiplied by `alpha` \[0..=1\].
    pub fn faded(self, alpha: f64) -> Colour {
        Colour {
            alpha: self.alpha * alpha,
            ..self
        }
    }

    fn rgba(self) -> RGBAColor {
        let (r, g, b) = self.rgb;
        RGBAColor(r, g, b, self.alpha)
    }
}

/// How one layer's points are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mark {
    /// A polyline through the points in order.
    Line {
        /// Colour.
        colour: Colour,
        /// Stroke width \[pixels\].
        width: u32,
    },
    /// A filled circle at each point.
    Dots {
        /// Colour.
        colour: Colour,
        /// Radius \[pixels\].
        radius: u32,
    },
    /// An x-shaped cross at each point (published values).
    Crosses {
        /// Colour.
        colour: Colour,
        /// Half-size \[pixels\].
        size: u32,
        /// Stroke width \[pixels\].
        width: u32,
    },
}

/// The symbol beside a layer's label in the legend.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Symbol {
    /// A short horizontal line.
    Line {
        /// Colour.
        colour: Colour,
        /// Stroke width \[pixels\].
        width: u32,
        /// Length \[pixels\].
        length: i32,
    },
    /// A cross, `dx` right of the legend entry's start.
    Cross {
        /// Colour.
        colour: Colour,
        /// Half-size \[pixels\].
        size: u32,
        /// Stroke width \[pixels\].
        width: u32,
        /// Offset to the right \[pixels\].
        dx: i32,
    },
}

/// One drawn series: its points, how they are drawn, and its legend entry if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// Points (x, y) in axis units; non-finite points are skipped.
    pub points: Vec<(f64, f64)>,
    /// How they are drawn.
    pub mark: Mark,
    /// Legend label and symbol (SVG only); `None`: not in the legend.
    pub key: Option<(String, Symbol)>,
}

/// Sizes and margins of a plot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// Width and height \[pixels\].
    pub size: (u32, u32),
    /// Margin around the chart with text (SVG) \[pixels\].
    pub margin: u32,
    /// Margin around the chart without text (PNG) \[pixels\].
    pub bare_margin: u32,
    /// Height of the x-axis label area (SVG) \[pixels\].
    pub x_label_area: u32,
    /// Width of the y-axis label area (SVG) \[pixels\].
    pub y_label_area: u32,
    /// Caption font size \[pixels\].
    pub caption: u32,
}

impl Frame {
    /// Fills `root` white and returns a chart builder on it with this frame's margin; with
    /// `text`, also the caption `title` and the axis label areas.
    fn start<'a, DB: DrawingBackend>(
        &self,
        root: &'a DrawingArea<DB, Shift>,
        title: &str,
        text: bool,
    ) -> std::result::Result<ChartBuilder<'a, 'static, DB>, DrawingAreaErrorKind<DB::ErrorType>>
    {
        root.fill(&WHITE)?;
        let mut builder = ChartBuilder::on(root);
        if text {
            builder
                .margin(self.margin)
                .caption(title, ("sans-serif", self.caption))
                .x_label_area_size(self.x_label_area)
                .y_label_area_size(self.y_label_area);
        } else {
            builder.margin(self.bare_margin);
        }
        Ok(builder)
    }
}

/// An x-y chart: axes with ranges and labels, and layers drawn in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Names the plot in errors.
    pub name: String,
    /// Caption (SVG only).
    pub title: String,
    /// X-axis description with unit.
    pub x_label: String,
    /// Y-axis description with unit.
    pub y_label: String,
    /// X range \[x-axis units\].
    pub x_range: Range<f64>,
    /// Y range \[y-axis units\].
    pub y_range: Range<f64>,
    /// Categorical x axis: these labels at x = 0, 1, 2, ... instead of numbers (SVG only).
    pub x_ticks: Option<Vec<String>>,
    /// Layers, drawn first to last.
    pub layers: Vec<Layer>,
    /// Sizes and margins.
    pub frame: Frame,
}

/// A heat map: a grid of cells coloured by region, each showing its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Heat {
    /// Names the plot in errors.
    pub name: String,
    /// Caption (SVG only).
    pub title: String,
    /// Row labels, top to bottom.
    pub rows: Vec<String>,
    /// Column labels, left to right.
    pub cols: Vec<String>,
    /// X-axis description.
    pub x_label: String,
    /// Y-axis description.
    pub y_label: String,
    /// Cell texts, `[row][column]` (SVG only).
    pub values: Vec<Vec<String>>,
    /// Cell regions, `[row][column]`, indices into `regions`.
    pub region: Vec<Vec<usize>>,
    /// Region names, for the legend.
    pub regions: Vec<String>,
    /// Region colours (region `i` takes colour `i` modulo their number).
    pub colours: Vec<Colour>,
    /// Sizes and margins.
    pub frame: Frame,
}

/// One plot drawn both ways, for the files `{stem}.svg` and `{stem}.png`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drawn {
    /// File stem.
    pub stem: String,
    /// SVG text (with text).
    pub svg: String,
    /// PNG bytes (without text).
    pub png: Vec<u8>,
}

/// A plot of either shape: the one entry point that draws SVG and PNG.
#[derive(Debug, Clone, PartialEq)]
pub enum Figure {
    /// An x-y chart.
    Chart(Chart),
    /// A heat map.
    Heat(Heat),
}

impl Figure {
    fn name(&self) -> &str {
        match self {
            Figure::Chart(c) => &c.name,
            Figure::Heat(h) => &h.name,
        }
    }

    fn frame(&self) -> Frame {
        match self {
            Figure::Chart(c) => c.frame,
            Figure::Heat(h) => h.frame,
        }
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        text: bool,
    ) -> DrawResult<DB> {
        match self {
            Figure::Chart(c) => c.draw(root, text),
            Figure::Heat(h) => h.draw(root, text),
        }
    }

    /// The plot as SVG text, with caption, axes, labels and legend.
    pub fn svg(&self) -> Result<String> {
        svg_string(self.frame().size, self.name(), |root| self.draw(root, true))
    }

    /// The plot as PNG bytes: the same data without text (a chart on a light grid).
    pub fn png(&self) -> Result<Vec<u8>> {
        png_bytes(self.frame().size, self.name(), |root| {
            self.draw(root, false)
        })
    }

    /// The plot drawn both ways, named `stem`.
    pub fn drawn(&self, stem: &str) -> Result<Drawn> {
        Ok(Drawn {
            stem: stem.to_owned(),
            svg: self.svg()?,
            png: self.png()?,
        })
    }
}

/// What a drawing step returns, for a backend error type `E`.
type Drawing<E> = std::result::Result<(), DrawingAreaErrorKind<E>>;

type DrawResult<DB> =
    std::result::Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Lines every fifth of each axis: the PNG's stand-in for the mesh.
fn grid<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    xr: &Range<f64>,
    yr: &Range<f64>,
) -> DrawResult<DB> {
    let grid = BLACK.mix(0.12);
    for i in 0..=5 {
        let x = xr.start + (xr.end - xr.start) * f64::from(i) / 5.0;
        let y = yr.start + (yr.end - yr.start) * f64::from(i) / 5.0;
        chart.draw_series(LineSeries::new([(x, yr.start), (x, yr.end)], grid))?;
        chart.draw_series(LineSeries::new([(xr.start, y), (xr.end, y)], grid))?;
    }
    Ok(())
}

impl Chart {
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        text: bool,
    ) -> DrawResult<DB> {
        let (xr, yr) = (self.x_range.clone(), self.y_range.clone());
        let mut builder = self.frame.start(root, &self.title, text)?;
        let mut chart = builder.build_cartesian_2d(xr.clone(), yr.clone())?;
        if text {
            let mut mesh = chart.configure_mesh();
            mesh.x_desc(self.x_label.as_str())
                .y_desc(self.y_label.as_str());
            let ticks = self.x_ticks.clone().unwrap_or_default();
            let n = ticks.len();
            let fmt = move |x: &f64| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 {
                    ticks.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            };
            if self.x_ticks.is_some() {
                mesh.x_labels(n.max(2)).x_label_formatter(&fmt);
            }
            mesh.draw()?;
        } else {
            grid(&mut chart, &xr, &yr)?;
        }
        for layer in &self.layers {
            let pts = layer
                .points
                .iter()
                .copied()
                .filter(|q| q.0.is_finite() && q.1.is_finite());
            let anno = match layer.mark {
                Mark::Line { colour, width } => {
                    chart.draw_series(LineSeries::new(pts, colour.rgba().stroke_width(width)))?
                }
                Mark::Dots { colour, radius } => chart
                    .draw_series(pts.map(|q| Circle::new(q, radius, colour.rgba().filled())))?,
                Mark::Crosses {
                    colour,
                    size,
                    width,
                } => chart.draw_series(
                    pts.map(|q| Cross::new(q, size, colour.rgba().stroke_width(width))),
                )?,
            };
            if let (true, Some((label, symbol))) = (text, &layer.key) {
                let anno = anno.label(label.clone());
                match *symbol {
                    Symbol::Line {
                        colour,
                        width,
                        length,
                    } => {
                        anno.legend(move |(x, y)| {
                            PathElement::new(
                                vec![(x, y), (x + length, y)],
                                colour.rgba().stroke_width(width),
                            )
                        });
                    }
                    Symbol::Cross {
                        colour,
                        size,
                        width,
                        dx,
                    } => {
                        anno.legend(move |(x, y)| {
                            Cross::new((x + dx, y), size, colour.rgba().stroke_width(width))
                        });
                    }
                }
            }
        }
        if text {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()?;
        }
        root.present()
    }
}

impl Heat {
    fn colour(&self, region: usize) -> RGBAColor {
        match self.colours.len() {
            0 => Colour::BLACK.rgba(),
            n => self.colours[region % n].rgba(),
        }
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        text: bool,
    ) -> DrawResult<DB> {
        let (nr, nc) = (self.rows.len(), self.cols.len());
        let mut builder = self.frame.start(root, &self.title, text)?;
        let mut chart = builder.build_cartesian_2d(0.0..nc as f64, 0.0..nr as f64)?;
        for (r, row) in self.region.iter().enumerate() {
            for (c, &reg) in row.iter().enumerate() {
                let y = nr.saturating_sub(1 + r) as f64;
                let cell = [(c as f64, y), (c as f64 + 1.0, y + 1.0)];
                chart.draw_series(std::iter::once(Rectangle::new(
                    cell,
                    self.colour(reg).filled(),
                )))?;
                chart.draw_series(std::iter::once(Rectangle::new(cell, WHITE.stroke_width(1))))?;
                if text {
                    let value = self.values.get(r).and_then(|v| v.get(c));
                    chart.draw_series(std::iter::once(Text::new(
                        value.cloned().unwrap_or_default(),
                        (c as f64 + 0.15, y + 0.65),
                        ("sans-serif", 12),
                    )))?;
                }
            }
        }
        if text {
            let cols = self.cols.clone();
            let rows = self.rows.clone();
            let fx = move |x: &f64| cols.get(x.floor() as usize).cloned().unwrap_or_default();
            let fy = move |y: &f64| {
                let i = y.floor() as usize;
                if i < nr {
                    rows[nr - 1 - i].clone()
                } else {
                    String::new()
                }
            };
            chart
                .configure_mesh()
                .disable_mesh()
                .x_labels(nc * 2)
                .y_labels(nr * 2)
                .x_label_formatter(&fx)
                .y_label_formatter(&fy)
                .x_desc(self.x_label.as_str())
                .y_desc(self.y_label.as_str())
                .draw()?;
            for (i, name) in self.regions.iter().enumerate() {
                let colour = self.colour(i);
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(0.0, 0.0), (0.0, 0.0)],
                        colour.filled(),
                    )))?
                    .label(name.clone())
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled())
                    });
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK)
                .draw()?;
        }
        root.present()
    }
}

fn draw_error<E: std::error::Error + Send + Sync>(what: &str, e: DrawingAreaErrorKind<E>) -> Error {
    Error::Draw {
        what: what.to_owned(),
        message: e.to_string(),
    }
}

/// Draws a `size` plot with `draw` onto an SVG backend and returns the SVG text.
fn svg_string<E: std::error::Error + Send + Sync>(
    size: (u32, u32),
    what: &str,
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Drawing<E>,
) -> Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        draw(&root).map_err(|e| draw_error(what, e))?;
    }
    out.push('\n');
    Ok(out)
}

/// Draws a `size` plot with `draw` into an RGB buffer and returns it encoded as PNG.
fn png_bytes<E: std::error::Error + Send + Sync>(
    size: (u32, u32),
    what: &str,
    draw: impl FnOnce(&DrawingArea<BitMapBackend<'_>, Shift>) -> Drawing<E>,
) -> Result<Vec<u8>> {
    let (w, h) = size;
    let too_large = || Error::TooLarge {
        what: what.to_owned(),
        width: w,
        height: h,
    };
    let len = (w as usize)
        .checked_mul(h as usize)
        .and_then(|n| n.checked_mul(3))
        .ok_or_else(too_large)?;
    let mut rgb = vec![0u8; len];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
        draw(&root).map_err(|e| draw_error(what, e))?;
    }
    let png_error = |source| Error::Png {
        what: what.to_owned(),
        source,
    };
    let mut bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut bytes, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(png_error)?;
        writer.write_image_data(&rgb).map_err(png_error)?;
        writer.finish().map_err(png_error)?;
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame() -> Frame {
        Frame {
            size: (300, 200),
            margin: 12,
            bare_margin: 24,
            x_label_area: 40,
            y_label_area: 70,
            caption: 18,
        }
    }

    fn chart() -> Chart {
        let c = Colour::palette(0);
        Chart {
            name: "test".into(),
            title: "delay vs load".into(),
            x_label: "load [%]".into(),
            y_label: "delay [us]".into(),
            x_range: 0.0..10.0,
            y_range: 0.0..5.0,
            x_ticks: None,
            layers: vec![
                Layer {
                    points: vec![(1.0, 1.0), (5.0, f64::NAN), (9.0, 4.0)],
                    mark: Mark::Line {
                        colour: c,
                        width: 2,
                    },
                    key: Some((
                        "model".into(),
                        Symbol::Line {
                            colour: c,
                            width: 2,
                            length: 16,
                        },
                    )),
                },
                Layer {
                    points: vec![(2.0, 2.0)],
                    mark: Mark::Crosses {
                        colour: Colour::BLACK,
                        size: 8,
                        width: 3,
                    },
                    key: None,
                },
            ],
            frame: frame(),
        }
    }

    #[test]
    fn svg_has_the_text_and_png_is_a_png_of_the_size() {
        let c = Figure::Chart(chart());
        let svg = c.svg().unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("delay vs load") && svg.contains("\nmodel\n"));
        // plotters ends the SVG with a newline, and the file with another.
        assert!(svg.ends_with("</svg>\n\n"));
        let png = c.png().unwrap();
        assert_eq!(&png[1..4], b"PNG");
        // IHDR: width and height, big-endian, at bytes 16..24.
        assert_eq!(&png[16..24], &[0, 0, 1, 44, 0, 0, 0, 200]);
        // Deterministic: the same chart gives the same bytes.
        assert_eq!(c.png().unwrap(), png);
    }

    #[test]
    fn categorical_ticks_label_the_x_axis() {
        let mut c = chart();
        c.x_ticks = Some(vec!["greedy".into(), "even".into()]);
        c.x_range = -0.5..1.5;
        assert!(Figure::Chart(c).svg().unwrap().contains("\ngreedy\n"));
    }

    #[test]
    fn heat_map_shows_values_and_regions() {
        let h = Figure::Heat(Heat {
            name: "heat".into(),
            title: "t".into(),
            rows: vec!["A".into(), "B".into()],
            cols: vec!["x".into()],
            x_label: "col".into(),
            y_label: "row".into(),
            values: vec![vec!["1.5".into()], vec!["2".into()]],
            region: vec![vec![0], vec![4]],
            regions: vec!["ok".into(), "tight".into()],
            colours: vec![Colour::opaque(120, 190, 120), Colour::opaque(250, 210, 110)],
            frame: frame(),
        });
        let svg = h.svg().unwrap();
        assert!(svg.contains("\n1.5\n") && svg.contains("\ntight\n"));
        assert_eq!(&h.png().unwrap()[1..4], b"PNG");
    }

    #[test]
    fn a_huge_plot_is_an_error_not_a_panic() {
        let mut c = chart();
        c.frame.size = (u32::MAX, u32::MAX);
        // (2^32 - 1)^2 x 3 bytes overflows even a 64-bit usize.
        assert!(matches!(
            Figure::Chart(c).png(),
            Err(Error::TooLarge { .. })
        ));
        assert_eq!(Colour::palette(9), Colour::palette(1));
        assert_eq!(Colour::BLACK.faded(0.5).alpha, 0.5);
    }
}
