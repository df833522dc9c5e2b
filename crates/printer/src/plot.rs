//! The one plot renderer: x-y charts ([`Chart`]: lines and markers) and heat maps ([`Heat`]),
//! each drawn two ways with the same text (title, axis labels with units, tick labels, legend).
//! SVG carries its text as SVG `<text>`, drawn by the viewer; PNG text is rendered by plotters'
//! `ab_glyph` feature with DejaVu Sans, the font the project carries (`assets/fonts/`, compiled
//! into the binary), so a PNG has its text on a headless CI or cluster node with no font library;
//! each glyph is placed with its side bearing (`plot/glyphs.rs`, which plotters 0.3.7 drops).
//! Both come back as bytes in memory: the caller writes the file atomically.
//!
//! Layout: the title on top (shrunk to fit the width), the legend in a strip right of the data
//! area (never over data), tick labels without needless decimals ([`tick`]), categorical axes
//! with their names under each category, heat-map labels centred on the rows and columns.
//! Positions are in data units on the axes and in pixels for sizes and margins.

use std::ops::Range;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::{Error, Result};

mod glyphs;
mod layout;

use layout::{Swatch, legend, marker, text_width, widest};

/// DejaVu Sans (Bitstream Vera licence, `assets/fonts/LICENSE`): every PNG's text.
static DEJAVU_SANS: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// The family name every text style asks for; [`fonts`] maps it to [`DEJAVU_SANS`], and SVG
/// viewers to their own sans-serif font.
const SANS: &str = "sans-serif";

/// Tick, category and legend text size \[pixels\].
const LABEL: u32 = 13;

/// Axis description size \[pixels\].
const DESC: u32 = 14;

/// Width of `text` in the size ticks, categories and legend entries are drawn in \[pixels\],
/// as both the SVG and the PNG lay it out (DejaVu Sans' advances): what a test needs to check
/// that a legend line ends inside the plot.
pub fn label_width(text: &str) -> u32 {
    text_width(text, LABEL)
}

/// Registers the carried font with plotters once; every draw asks for it first.
fn fonts(what: &str) -> Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(SANS, FontStyle::Normal, DEJAVU_SANS).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err(Error::Draw {
            what: what.to_owned(),
            message: "the carried font DejaVuSans.ttf does not parse".into(),
        })
    }
}

fn font(size: u32) -> TextStyle<'static> {
    (SANS, size).into_font().color(&BLACK)
}

/// A tick value as people write it: at most six decimals and no trailing zeros (`2000`, not
/// `2000.0`; `0.3`, not `0.30000000000000004`), small values in scientific notation.
///
/// ```
/// use printer::plot::tick;
/// assert_eq!(tick(2000.0), "2000");
/// assert_eq!(tick(0.1 + 0.2), "0.3");
/// assert_eq!(tick(-0.0), "0");
/// assert_eq!(tick(2.5e-6), "2.5e-6");
/// ```
pub fn tick(v: f64) -> String {
    if v.abs() < 1e-12 {
        return "0".into();
    }
    if v.abs() < 1e-4 {
        let s = format!("{v:.3e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = m.trim_end_matches('0').trim_end_matches('.');
        return format!("{m}e{e}");
    }
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

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

/// The shape of a point marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A circle.
    Circle,
    /// A square.
    Square,
    /// A triangle, tip up.
    Triangle,
    /// A diamond.
    Diamond,
    /// An x-shaped cross (stroked; `filled` is ignored).
    Cross,
    /// A plus sign (stroked; `filled` is ignored).
    Plus,
}

impl Shape {
    /// The filled shapes model series take, in order (each series its own, repeating).
    pub const MODEL: [Shape; 4] = [
        Shape::Circle,
        Shape::Square,
        Shape::Triangle,
        Shape::Diamond,
    ];

    /// The shapes published values take, in order: distinct from [`Shape::MODEL`] when drawn
    /// open (a paper's "on" and "off" points differ).
    pub const PUBLISHED: [Shape; 4] = [Shape::Cross, Shape::Plus, Shape::Square, Shape::Triangle];
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
    /// A marker at each point.
    Points {
        /// Colour.
        colour: Colour,
        /// Shape.
        shape: Shape,
        /// Filled, or drawn as an outline.
        filled: bool,
        /// Half-size \[pixels\].
        size: u32,
    },
}

/// One drawn series: its points, how they are drawn, and its legend label if any (the legend
/// shows the layer's own mark beside it).
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// Points (x, y) in axis units; non-finite points are skipped.
    pub points: Vec<(f64, f64)>,
    /// How they are drawn.
    pub mark: Mark,
    /// Legend label; `None`: not in the legend.
    pub key: Option<String>,
}

/// Sizes and margins of a plot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// Width and height \[pixels\].
    pub size: (u32, u32),
    /// Margin around the chart \[pixels\].
    pub margin: u32,
    /// Height of the x-axis label area (tick labels and description) \[pixels\].
    pub x_label_area: u32,
    /// Width of the y-axis label area (tick labels and description) \[pixels\].
    pub y_label_area: u32,
    /// Caption font size \[pixels\]; a title too wide for the plot is drawn smaller.
    pub caption: u32,
}

/// An x-y chart: axes with ranges and labels, and layers drawn in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Names the plot in errors.
    pub name: String,
    /// Caption.
    pub title: String,
    /// X-axis description with unit.
    pub x_label: String,
    /// Y-axis description with unit.
    pub y_label: String,
    /// X range \[x-axis units\].
    pub x_range: Range<f64>,
    /// Y range \[y-axis units\].
    pub y_range: Range<f64>,
    /// Categorical x axis: these names under x = 0, 1, 2, ... instead of numbers.
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
    /// Caption.
    pub title: String,
    /// Row labels, top to bottom.
    pub rows: Vec<String>,
    /// Column labels, left to right.
    pub cols: Vec<String>,
    /// X-axis description.
    pub x_label: String,
    /// Y-axis description.
    pub y_label: String,
    /// Cell texts, `[row][column]`.
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
    /// SVG text.
    pub svg: String,
    /// PNG bytes (the same text, rendered with the carried font).
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

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        match self {
            Figure::Chart(c) => c.draw(root),
            Figure::Heat(h) => h.draw(root),
        }
    }

    fn title(&self) -> &str {
        match self {
            Figure::Chart(c) => &c.title,
            Figure::Heat(h) => &h.title,
        }
    }

    fn legend_labels(&self) -> Vec<&str> {
        match self {
            Figure::Chart(c) => c.layers.iter().filter_map(|l| l.key.as_deref()).collect(),
            Figure::Heat(h) => h.regions.iter().map(String::as_str).collect(),
        }
    }

    /// The least height at which every legend entry, wrapped to the legend strip of the
    /// plot's width, fits under the title \[pixels\] (0 without a legend).
    pub fn legend_height(&self) -> u32 {
        // Text is measured with the carried font: registered before the first measure (a font
        // that does not parse fails the drawing itself, with its error).
        let _ = fonts(self.name());
        self.frame()
            .legend_needs(self.title(), &self.legend_labels())
    }

    /// The plot at its own width and at least `height` tall, taller if its legend needs it
    /// \[pixels\]: a legend panel sized to its entries.
    pub fn grown_to_legend(mut self) -> Figure {
        let needs = self.legend_height();
        let frame = match &mut self {
            Figure::Chart(c) => &mut c.frame,
            Figure::Heat(h) => &mut h.frame,
        };
        frame.size.1 = frame.size.1.max(needs);
        self
    }

    /// The plot if its legend fits its height, else [`Error::LegendTooTall`].
    pub fn legend_fits(self) -> Result<Figure> {
        let needs = self.legend_height();
        let (width, height) = self.frame().size;
        if needs > height {
            return Err(Error::LegendTooTall {
                what: self.name().to_owned(),
                width,
                height,
                needs,
                entries: self.legend_labels().len(),
            });
        }
        Ok(self)
    }

    /// The plot as SVG text, with caption, axes, labels and legend.
    pub fn svg(&self) -> Result<String> {
        fonts(self.name())?;
        svg_string(self.frame().size, self.name(), |root| self.draw(root))
    }

    /// The plot as PNG bytes, with the same text as [`Figure::svg`].
    pub fn png(&self) -> Result<Vec<u8>> {
        fonts(self.name())?;
        png_bytes(self.frame().size, self.name(), |root| self.draw(root))
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

impl Chart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let keys: Vec<(&str, Swatch)> = self
            .layers
            .iter()
            .filter_map(|l| l.key.as_deref().map(|k| (k, Swatch::Mark(l.mark))))
            .collect();
        let labels: Vec<&str> = keys.iter().map(|k| k.0).collect();
        let (side, legend_area) = self.frame.layout(root, &self.title, &labels)?;
        // Category names too wide for their slot go on two staggered rows: room for the second.
        let stagger = match &self.x_ticks {
            Some(names) if names.len() > 1 => {
                let (w, _) = side.dim_in_pixel();
                let inner = w.saturating_sub(self.frame.y_label_area + 2 * self.frame.margin);
                let span = (self.x_range.end - self.x_range.start).abs().max(1e-9);
                let slot = f64::from(inner) / span;
                f64::from(widest(root, names)? + 8) > slot
            }
            _ => false,
        };
        let x_area = self.frame.x_label_area + if stagger { LABEL + 4 } else { 0 };
        let mut chart = ChartBuilder::on(&side)
            .margin(self.frame.margin)
            .x_label_area_size(x_area)
            .y_label_area_size(self.frame.y_label_area)
            .build_cartesian_2d(self.x_range.clone(), self.y_range.clone())?;
        let fmt = |v: &f64| tick(*v);
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .label_style(font(LABEL))
            .axis_desc_style(font(DESC))
            .bold_line_style(BLACK.mix(0.2))
            .light_line_style(BLACK.mix(0.05))
            .x_label_formatter(&fmt)
            .y_label_formatter(&fmt);
        if self.x_ticks.is_some() {
            mesh.x_labels(0).disable_x_mesh();
        }
        mesh.draw()?;
        for layer in &self.layers {
            let pts = layer
                .points
                .iter()
                .copied()
                .filter(|q| q.0.is_finite() && q.1.is_finite());
            match layer.mark {
                Mark::Line { colour, width } => {
                    chart.draw_series(LineSeries::new(pts, colour.rgba().stroke_width(width)))?;
                }
                mark @ Mark::Points { .. } => {
                    for q in pts {
                        marker(root, chart.backend_coord(&q), mark)?;
                    }
                }
            }
        }
        if let Some(names) = &self.x_ticks {
            for (i, name) in names.iter().enumerate() {
                let (x, y) = chart.backend_coord(&(i as f64, self.y_range.start));
                root.draw(&PathElement::new(vec![(x, y), (x, y + 5)], BLACK))?;
                let row = if stagger && i % 2 == 1 { LABEL + 4 } else { 0 };
                let style = font(LABEL).pos(Pos::new(HPos::Center, VPos::Top));
                root.draw_text(name, &style, (x, y + 8 + row as i32))?;
            }
        }
        if let Some((area, lines)) = legend_area {
            legend(&area, self.frame.margin as i32, &keys, &lines)?;
        }
        root.present()
    }
}

impl Heat {
    fn colour(&self, region: usize) -> Colour {
        match self.colours.len() {
            0 => Colour::BLACK,
            n => self.colours[region % n],
        }
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let keys: Vec<(&str, Swatch)> = self
            .regions
            .iter()
            .enumerate()
            .map(|(i, name)| (name.as_str(), Swatch::Fill(self.colour(i))))
            .collect();
        let labels: Vec<&str> = keys.iter().map(|k| k.0).collect();
        let (side, legend_area) = self.frame.layout(root, &self.title, &labels)?;
        let (nr, nc) = (self.rows.len(), self.cols.len());
        let mut chart = ChartBuilder::on(&side)
            .margin(self.frame.margin)
            .x_label_area_size(self.frame.x_label_area)
            .y_label_area_size(self.frame.y_label_area)
            .build_cartesian_2d(0.0..nc as f64, 0.0..nr as f64)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(0)
            .y_labels(0)
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .axis_desc_style(font(DESC))
            .draw()?;
        let centre = font(LABEL).pos(Pos::new(HPos::Center, VPos::Center));
        for (r, row) in self.region.iter().enumerate() {
            let y = nr.saturating_sub(1 + r) as f64;
            for (c, &reg) in row.iter().enumerate() {
                let x = c as f64;
                let cell = [(x, y), (x + 1.0, y + 1.0)];
                let fill = self.colour(reg).rgba().filled();
                chart.draw_series(std::iter::once(Rectangle::new(cell, fill)))?;
                chart.draw_series(std::iter::once(Rectangle::new(cell, WHITE.stroke_width(1))))?;
                if let Some(value) = self.values.get(r).and_then(|v| v.get(c)) {
                    root.draw_text(value, &centre, chart.backend_coord(&(x + 0.5, y + 0.5)))?;
                }
            }
        }
        let below = font(LABEL).pos(Pos::new(HPos::Center, VPos::Top));
        for (c, name) in self.cols.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(c as f64 + 0.5, 0.0));
            root.draw_text(name, &below, (x, y + 4))?;
        }
        let left = font(LABEL).pos(Pos::new(HPos::Right, VPos::Center));
        for (r, name) in self.rows.iter().enumerate() {
            let y = nr.saturating_sub(1 + r) as f64 + 0.5;
            let (x, y) = chart.backend_coord(&(0.0, y));
            root.draw_text(name, &left, (x - 6, y))?;
        }
        if let Some((area, lines)) = legend_area {
            legend(&area, self.frame.margin as i32, &keys, &lines)?;
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
    draw: impl FnOnce(&DrawingArea<glyphs::Glyphs<'_>, Shift>) -> Drawing<E>,
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
        let backend =
            glyphs::Glyphs::new(BitMapBackend::with_buffer(&mut rgb, size)).ok_or_else(|| {
                Error::Draw {
                    what: what.to_owned(),
                    message: "the carried font DejaVuSans.ttf does not parse".into(),
                }
            })?;
        let root = backend.into_drawing_area();
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
        // Text and anti-aliased lines make many colours: a per-row filter choice and the
        // stronger deflate level keep a plot at 20-60 KB instead of 150-470 KB.
        enc.set_compression(png::Compression::Best);
        enc.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
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
                    key: Some("model".into()),
                },
                Layer {
                    points: vec![(2.0, 2.0)],
                    mark: Mark::Points {
                        colour: Colour::BLACK,
                        shape: Shape::Cross,
                        filled: false,
                        size: 8,
                    },
                    key: Some("paper".into()),
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

    /// Dark pixels in rows `ys` of a PNG.
    fn dark_rows(png_bytes: &[u8], ys: Range<usize>) -> usize {
        let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        let row = info.line_size;
        buf[ys.start * row..ys.end * row]
            .chunks(3)
            .filter(|p| p.iter().all(|&c| c < 96))
            .count()
    }

    #[test]
    fn the_png_has_the_title_drawn_with_the_carried_font() {
        let png = Figure::Chart(chart()).png().unwrap();
        // The 18 px caption "delay vs load" fills the top rows with black glyph pixels.
        assert!(dark_rows(&png, 0..22) > 40, "{}", dark_rows(&png, 0..22));
    }

    #[test]
    fn ticks_read_as_people_write_them() {
        assert_eq!(tick(2000.0), "2000");
        assert_eq!(tick(0.30000000000000004), "0.3");
        assert_eq!(tick(-1e-13), "0");
        assert_eq!(tick(1.5e-5), "1.5e-5");
        assert_eq!(tick(-2.5), "-2.5");
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

    /// Issue 37 item 5: a legend entry wider than the strip is wrapped onto lines that fit it,
    /// every character kept; a plot grows to a legend taller than it, and one whose size is
    /// kept refuses such a legend.
    #[test]
    fn long_legend_entries_wrap_and_tall_legends_grow_the_plot() {
        let long = "flow 0 source stack = eth/ipv4/esp-tunnel(aes256-cbc,hmac-sha256-128)/ipv4/sctp/e2ap, gnb-10/kpm, p99";
        let lines = layout::wrap(long, 300);
        assert!(lines.len() > 1, "{lines:?}");
        assert!(lines.iter().all(|l| label_width(l) <= 300), "{lines:?}");
        let rejoined: String = lines.concat();
        assert_eq!(rejoined.replace(' ', ""), long.replace(' ', ""));
        // A single word wider than the room is cut between characters.
        let word = "x".repeat(200);
        assert!(layout::wrap(&word, 50).iter().all(|l| label_width(l) <= 50));
        let mut c = chart();
        c.layers[0].key = Some(long.into());
        let svg = Figure::Chart(c.clone()).svg().unwrap();
        // The SVG holds every line, each ending inside the 300-pixel plot.
        for line in layout::wrap(long, 300 * 2 / 5 - 40 - 12) {
            let at = svg
                .find(&format!(">\n{line}\n<"))
                .or_else(|| svg.find(&line));
            assert!(at.is_some(), "{line:?} not in the SVG");
        }
        for _ in 0..20 {
            c.layers.push(c.layers[1].clone());
        }
        let f = Figure::Chart(c);
        assert!(f.legend_height() > 200, "{}", f.legend_height());
        assert!(matches!(
            f.clone().legend_fits(),
            Err(Error::LegendTooTall { .. })
        ));
        let grown = f.grown_to_legend();
        assert_eq!(grown.frame().size.1, grown.legend_height());
        assert!(grown.legend_fits().is_ok());
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
