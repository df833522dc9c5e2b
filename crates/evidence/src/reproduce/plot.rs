//! Plots as data, in the paper's form; the CLI draws them.

use serde::{Deserialize, Serialize};

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// Model output: a line through the points.
    Line,
    /// Model output: markers.
    Points,
    /// Published values: drawn on top as distinct markers.
    Published,
}

/// One series of an x-y plot.
#[derive(Debug, Clone, Serialize)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// How to draw it.
    pub style: Style,
    /// (x, y) in the plot's units.
    pub points: Vec<(f64, f64)>,
}

impl Series {
    /// A series of `points` labelled `label`, drawn in `style`.
    pub(super) fn new(label: impl Into<String>, style: Style, points: Vec<(f64, f64)>) -> Series {
        Series {
            label: label.into(),
            style,
            points,
        }
    }
}

/// An x-y plot in the paper's form.
#[derive(Debug, Clone, Serialize)]
pub struct XyPlot {
    /// File stem, e.g. `e2_sack_cdf`.
    pub name: String,
    /// Title.
    pub title: String,
    /// X axis label with unit.
    pub x_label: String,
    /// Y axis label with unit.
    pub y_label: String,
    /// A categorical x axis: the name of x = 0, 1, 2, ...; empty: a numeric axis.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
    /// Series, model first, published last.
    pub series: Vec<Series>,
}

/// A heat map with regions (Table 4).
#[derive(Debug, Clone, Serialize)]
pub struct HeatMap {
    /// File stem.
    pub name: String,
    /// Title.
    pub title: String,
    /// Row labels (top to bottom).
    pub rows: Vec<String>,
    /// Column labels (left to right).
    pub cols: Vec<String>,
    /// Cell values.
    pub values: Vec<Vec<f64>>,
    /// Cell region index into `regions`.
    pub region: Vec<Vec<usize>>,
    /// Region names.
    pub regions: Vec<String>,
}

/// A plot to draw.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Plot {
    /// Lines and points.
    Xy(XyPlot),
    /// Heat map.
    Heat(HeatMap),
}

impl Plot {
    /// File stem.
    pub fn name(&self) -> &str {
        match self {
            Plot::Xy(p) => &p.name,
            Plot::Heat(h) => &h.name,
        }
    }

    /// Title.
    pub fn title(&self) -> &str {
        match self {
            Plot::Xy(p) => &p.title,
            Plot::Heat(h) => &h.title,
        }
    }
}
