//! The figure model: pure, serialisable data that both renderers draw.
//!
//! Sizes of marks (line widths, marker radii, font sizes) are in typographic points (1/72 inch),
//! positions are in data units. Colours left as `None` take the next colour of the default cycle
//! ([`Rgba::cycle`]) in item order within their subplot.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::colormap::{Colormap, Rgba};
use super::streamlines::{StreamlineOptions, compute_streamlines};

/// A whole figure: a grid of subplots with a title and a physical size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Figure {
    /// Figure title, drawn above the grid (empty: none).
    pub title: String,
    /// The subplots, filled into the grid row by row.
    pub subplots: Vec<Subplot>,
    /// Grid as (rows, columns); more rows are added when there are more subplots than cells.
    pub grid: (usize, usize),
    /// Physical size (width, height) in inches, used by the file renderers.
    pub size_in: (f64, f64),
}

impl Default for Figure {
    fn default() -> Self {
        Self {
            title: String::new(),
            subplots: Vec::new(),
            grid: (1, 1),
            size_in: Self::DEFAULT_SIZE_IN,
        }
    }
}

impl Figure {
    /// Default physical size in inches (width, height).
    pub const DEFAULT_SIZE_IN: (f64, f64) = (6.4, 4.8);

    /// An empty figure with a title, a 1 × 1 grid and the default size.
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            ..Self::default()
        }
    }

    /// Appends a subplot.
    #[must_use]
    pub fn subplot(mut self, subplot: Subplot) -> Self {
        self.subplots.push(subplot);
        self
    }

    /// Sets the grid (rows, columns); zero counts are treated as one.
    #[must_use]
    pub fn grid(mut self, rows: usize, cols: usize) -> Self {
        self.grid = (rows, cols);
        self
    }

    /// Sets the physical size in inches.
    #[must_use]
    pub fn size_in(mut self, width_in: f64, height_in: f64) -> Self {
        self.size_in = (width_in, height_in);
        self
    }

    /// The grid actually used: (rows, columns), at least 1 × 1, with rows added so that every
    /// subplot has a cell.
    pub fn layout(&self) -> (usize, usize) {
        let cols = self.grid.1.max(1);
        let rows = self.grid.0.max(1).max(self.subplots.len().div_ceil(cols));
        (rows, cols)
    }

    /// Problems found in the data (skipped points, mismatched lengths, empty series, bad
    /// ranges), one sentence each, for the panel to show. Both renderers skip exactly these.
    pub fn warnings(&self) -> Vec<String> {
        super::prepare::prepare_figure(self).warnings
    }
}

/// Scale of an axis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scale {
    /// Linear.
    #[default]
    Linear,
    /// Base-10 logarithmic: only positive values can be drawn.
    Log10,
}

/// One axis of a subplot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Axis {
    /// Axis label, with units, e.g. "Temperature (K)".
    pub label: String,
    /// Linear or logarithmic.
    pub scale: Scale,
    /// Fixed range (data units, low, high); `None` fits the data.
    pub range: Option<(f64, f64)>,
    /// Names in place of numbers at whole positions (a heatmap's named rows); `None`: numbers.
    pub tick_names: Option<TickNames>,
}

/// Names that label an axis at `first`, `first + 1`, `first + 2`, … instead of numbers (an
/// empty name: no label there).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TickNames {
    /// The position of the first name (data units).
    pub first: f64,
    /// One name per position.
    pub names: Vec<String>,
}

/// One plot area with two axes and its items.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Subplot {
    /// Title above the plot (empty: none).
    pub title: String,
    /// Horizontal axis.
    pub x: Axis,
    /// Vertical axis.
    pub y: Axis,
    /// What is drawn, back to front.
    pub items: Vec<Item>,
    /// Whether to show a legend of the named items.
    pub legend: bool,
    /// Whether one data unit has the same length on both axes.
    pub equal_aspect: bool,
    /// Whether the frame, ticks, grid and axis labels are left out (a molecule, a tree).
    pub hide_axes: bool,
}

impl Subplot {
    /// An empty subplot with a title.
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            ..Self::default()
        }
    }

    /// Sets the x-axis label.
    #[must_use]
    pub fn x_label(mut self, label: impl Into<String>) -> Self {
        self.x.label = label.into();
        self
    }

    /// Sets the y-axis label.
    #[must_use]
    pub fn y_label(mut self, label: impl Into<String>) -> Self {
        self.y.label = label.into();
        self
    }

    /// Sets the x-axis scale.
    #[must_use]
    pub fn x_scale(mut self, scale: Scale) -> Self {
        self.x.scale = scale;
        self
    }

    /// Sets the y-axis scale.
    #[must_use]
    pub fn y_scale(mut self, scale: Scale) -> Self {
        self.y.scale = scale;
        self
    }

    /// Fixes the x range (data units).
    #[must_use]
    pub fn x_range(mut self, low: f64, high: f64) -> Self {
        self.x.range = Some((low, high));
        self
    }

    /// Fixes the y range (data units).
    #[must_use]
    pub fn y_range(mut self, low: f64, high: f64) -> Self {
        self.y.range = Some((low, high));
        self
    }

    /// Labels the x axis with `names` at `first`, `first + 1`, … (a linear axis).
    #[must_use]
    pub fn x_tick_names(mut self, first: f64, names: Vec<String>) -> Self {
        self.x.tick_names = Some(TickNames { first, names });
        self
    }

    /// Labels the y axis with `names` at `first`, `first + 1`, … (a linear axis).
    #[must_use]
    pub fn y_tick_names(mut self, first: f64, names: Vec<String>) -> Self {
        self.y.tick_names = Some(TickNames { first, names });
        self
    }

    /// Shows or hides the legend.
    #[must_use]
    pub fn legend(mut self, show: bool) -> Self {
        self.legend = show;
        self
    }

    /// Makes one data unit equally long on both axes.
    #[must_use]
    pub fn equal_aspect(mut self, equal: bool) -> Self {
        self.equal_aspect = equal;
        self
    }

    /// Shows or hides the frame, ticks, grid and axis labels (a depiction has no axes).
    #[must_use]
    pub fn axes(mut self, show: bool) -> Self {
        self.hide_axes = !show;
        self
    }

    /// Appends any item.
    #[must_use]
    pub fn with(mut self, item: impl Into<Item>) -> Self {
        self.items.push(item.into());
        self
    }

    /// Appends any item in place.
    pub fn push(&mut self, item: impl Into<Item>) {
        self.items.push(item.into());
    }

    /// Appends a solid line in the next cycle colour.
    #[must_use]
    pub fn line(
        self,
        name: impl Into<String>,
        xs: impl Into<Vec<f64>>,
        ys: impl Into<Vec<f64>>,
    ) -> Self {
        self.with(Line::new(name, xs, ys))
    }

    /// Appends circle markers in the next cycle colour.
    #[must_use]
    pub fn scatter(
        self,
        name: impl Into<String>,
        xs: impl Into<Vec<f64>>,
        ys: impl Into<Vec<f64>>,
    ) -> Self {
        self.with(Scatter::new(name, xs, ys))
    }

    /// Appends vertical error bars (± `y_err`) with centre markers.
    #[must_use]
    pub fn error_bars(
        self,
        name: impl Into<String>,
        xs: impl Into<Vec<f64>>,
        ys: impl Into<Vec<f64>>,
        y_err: impl Into<Vec<f64>>,
    ) -> Self {
        self.with(ErrorBars::new(name, xs, ys, y_err))
    }

    /// Appends bars over named categories (placed at x = 0, 1, 2, …).
    #[must_use]
    pub fn bars(
        self,
        name: impl Into<String>,
        categories: Vec<String>,
        heights: impl Into<Vec<f64>>,
    ) -> Self {
        self.with(Bars::categories(name, categories, heights))
    }

    /// Appends a heatmap.
    #[must_use]
    pub fn heatmap(self, heatmap: Heatmap) -> Self {
        self.with(heatmap)
    }

    /// Appends a text annotation at a data position.
    #[must_use]
    pub fn text(self, x: f64, y: f64, text: impl Into<String>) -> Self {
        self.with(Annotation::new(x, y, text))
    }

    /// Appends a horizontal reference line at `y` with a label (empty: none).
    #[must_use]
    pub fn hline(self, y: f64, label: impl Into<String>) -> Self {
        self.with(Item::HLine(RefLine::new(y, label)))
    }

    /// Appends a vertical reference line at `x` with a label (empty: none).
    #[must_use]
    pub fn vline(self, x: f64, label: impl Into<String>) -> Self {
        self.with(Item::VLine(RefLine::new(x, label)))
    }
}

/// Anything drawn inside a subplot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Item {
    /// A polyline.
    Line(Line),
    /// Markers.
    Scatter(Scatter),
    /// Error bars around points.
    ErrorBars(ErrorBars),
    /// A bar chart.
    Bars(Bars),
    /// A colour-mapped grid of values.
    Heatmap(Heatmap),
    /// Arrows on a grid, optionally with streamlines.
    VectorField(VectorField),
    /// Nodes and edges (trees, networks).
    Graph(Graph),
    /// A text annotation.
    Text(Annotation),
    /// A horizontal reference line at a y value.
    HLine(RefLine),
    /// A vertical reference line at an x value.
    VLine(RefLine),
    /// A vector picture (an SVG document) over a rectangle, e.g. a molecule depiction.
    Picture(Picture),
}

impl Item {
    /// The item's name for legends and warnings (may be empty).
    pub fn name(&self) -> &str {
        match self {
            Self::Line(i) => &i.name,
            Self::Scatter(i) => &i.name,
            Self::ErrorBars(i) => &i.name,
            Self::Bars(i) => &i.name,
            Self::Heatmap(i) => &i.name,
            Self::VectorField(i) => &i.name,
            Self::Graph(i) => &i.name,
            Self::Text(i) => &i.text,
            Self::HLine(i) | Self::VLine(i) => &i.label,
            Self::Picture(i) => &i.name,
        }
    }

    /// Sentence-case kind, e.g. "line", for warnings.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Line(_) => "line",
            Self::Scatter(_) => "scatter",
            Self::ErrorBars(_) => "error bars",
            Self::Bars(_) => "bars",
            Self::Heatmap(_) => "heatmap",
            Self::VectorField(_) => "vector field",
            Self::Graph(_) => "graph",
            Self::Text(_) => "text",
            Self::HLine(_) => "horizontal line",
            Self::VLine(_) => "vertical line",
            Self::Picture(_) => "picture",
        }
    }

    /// Whether the item takes a colour from the default cycle when its colour is `None`.
    pub(crate) fn uses_cycle(&self) -> bool {
        match self {
            Self::Line(i) => i.color.is_none(),
            Self::Scatter(i) => i.color.is_none(),
            Self::ErrorBars(i) => i.color.is_none(),
            Self::Bars(i) => i.color.is_none(),
            Self::VectorField(i) => i.color.is_none(),
            _ => false,
        }
    }
}

macro_rules! impl_into_item {
    ($($ty:ident => $variant:ident),* $(,)?) => {
        $(impl From<$ty> for Item {
            fn from(value: $ty) -> Self {
                Item::$variant(value)
            }
        })*
    };
}

impl_into_item!(
    Line => Line,
    Scatter => Scatter,
    ErrorBars => ErrorBars,
    Bars => Bars,
    Heatmap => Heatmap,
    VectorField => VectorField,
    Graph => Graph,
    Annotation => Text,
    Picture => Picture,
);

/// An SVG document drawn over a data-space rectangle, keeping its aspect ratio (centred); the
/// screen rasterises it at the size shown, exports embed it as vector graphics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Picture {
    /// Legend name (pictures are never in the legend; used in warnings).
    pub name: String,
    /// The SVG document (with a `viewBox` or `width` and `height` on its root).
    pub svg: String,
    /// (x0, x1, y0, y1) in data units.
    pub extent: (f64, f64, f64, f64),
}

impl Picture {
    /// A picture of `svg` over `extent` = (x0, x1, y0, y1).
    pub fn new(
        name: impl Into<String>,
        svg: impl Into<String>,
        extent: (f64, f64, f64, f64),
    ) -> Self {
        Self {
            name: name.into(),
            svg: svg.into(),
            extent,
        }
    }

    /// The document's coordinate box (min x, min y, width, height): its `viewBox`, else
    /// (0, 0, width, height); `None` if it states neither.
    pub fn view_box(&self) -> Option<(f64, f64, f64, f64)> {
        let root = svg_root_tag(&self.svg)?;
        if let Some(view_box) = attribute(root, "viewBox") {
            let v: Vec<f64> = view_box
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|t| !t.is_empty())
                .filter_map(|t| t.parse().ok())
                .collect();
            if v.len() == 4 && v.iter().all(|x| x.is_finite()) && v[2] > 0.0 && v[3] > 0.0 {
                return Some((v[0], v[1], v[2], v[3]));
            }
        }
        let number = |name| {
            attribute(root, name)?
                .trim_end_matches("px")
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0)
        };
        Some((0.0, 0.0, number("width")?, number("height")?))
    }
}

/// The text of the root `<svg …>` start tag of a document.
pub(crate) fn svg_root_tag(svg: &str) -> Option<&str> {
    let start = svg.find("<svg")?;
    let end = svg[start..].find('>')? + start;
    Some(&svg[start..end])
}

/// The value of attribute `name` in a start tag (double or single quotes).
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let mut rest = tag;
    while let Some(i) = rest.find(name) {
        let before_ok = rest[..i]
            .chars()
            .next_back()
            .is_some_and(char::is_whitespace);
        let after = rest[i + name.len()..].trim_start();
        if before_ok && let Some(after) = after.strip_prefix('=') {
            let after = after.trim_start();
            let quote = after.chars().next()?;
            if quote == '"' || quote == '\'' {
                let body = &after[1..];
                return body.find(quote).map(|end| &body[..end]);
            }
        }
        rest = &rest[i + name.len()..];
    }
    None
}

/// Stroke pattern of a line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Dash {
    /// Continuous.
    #[default]
    Solid,
    /// Long dashes.
    Dashed,
    /// Dots.
    Dotted,
}

/// Marker shape of scatter points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Marker {
    /// Filled disc.
    #[default]
    Circle,
    /// Filled square.
    Square,
    /// Filled upward triangle.
    Triangle,
    /// Filled diamond.
    Diamond,
    /// Diagonal cross (×).
    Cross,
}

/// A polyline through (x, y) points; a non-finite point breaks the line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Line {
    /// Legend name (empty: not in the legend).
    pub name: String,
    /// X values (data units).
    pub xs: Vec<f64>,
    /// Y values (data units).
    pub ys: Vec<f64>,
    /// Colour; `None` takes the next cycle colour.
    pub color: Option<Rgba>,
    /// Stroke width in points.
    pub width_pt: f64,
    /// Stroke pattern.
    pub dash: Dash,
}

impl Line {
    /// A solid 1.5 pt line in the next cycle colour.
    pub fn new(name: impl Into<String>, xs: impl Into<Vec<f64>>, ys: impl Into<Vec<f64>>) -> Self {
        Self {
            name: name.into(),
            xs: xs.into(),
            ys: ys.into(),
            color: None,
            width_pt: 1.5,
            dash: Dash::Solid,
        }
    }

    /// Sets the colour.
    #[must_use]
    pub fn color(mut self, color: Rgba) -> Self {
        self.color = Some(color);
        self
    }

    /// Sets the stroke width in points.
    #[must_use]
    pub fn width_pt(mut self, width_pt: f64) -> Self {
        self.width_pt = width_pt;
        self
    }

    /// Sets the stroke pattern.
    #[must_use]
    pub fn dash(mut self, dash: Dash) -> Self {
        self.dash = dash;
        self
    }
}

/// Markers at (x, y) points.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scatter {
    /// Legend name (empty: not in the legend).
    pub name: String,
    /// X values (data units).
    pub xs: Vec<f64>,
    /// Y values (data units).
    pub ys: Vec<f64>,
    /// Colour of all points; `None` takes the next cycle colour.
    pub color: Option<Rgba>,
    /// Optional colour per point (overrides `color` where present).
    pub colors: Option<Vec<Rgba>>,
    /// Marker radius in points.
    pub size_pt: f64,
    /// Marker shape.
    pub marker: Marker,
}

impl Scatter {
    /// 3 pt circles in the next cycle colour.
    pub fn new(name: impl Into<String>, xs: impl Into<Vec<f64>>, ys: impl Into<Vec<f64>>) -> Self {
        Self {
            name: name.into(),
            xs: xs.into(),
            ys: ys.into(),
            color: None,
            colors: None,
            size_pt: 3.0,
            marker: Marker::Circle,
        }
    }

    /// Sets the colour of all points.
    #[must_use]
    pub fn color(mut self, color: Rgba) -> Self {
        self.color = Some(color);
        self
    }

    /// Sets one colour per point.
    #[must_use]
    pub fn colors(mut self, colors: Vec<Rgba>) -> Self {
        self.colors = Some(colors);
        self
    }

    /// Sets the marker radius in points.
    #[must_use]
    pub fn size_pt(mut self, size_pt: f64) -> Self {
        self.size_pt = size_pt;
        self
    }

    /// Sets the marker shape.
    #[must_use]
    pub fn marker(mut self, marker: Marker) -> Self {
        self.marker = marker;
        self
    }
}

/// Error bars: y ± `y_err` (and optionally x ± `x_err`) around (x, y), with a centre marker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorBars {
    /// Legend name (empty: not in the legend).
    pub name: String,
    /// X values (data units).
    pub xs: Vec<f64>,
    /// Y values (data units).
    pub ys: Vec<f64>,
    /// Half-length of the vertical bar (data units, ≥ 0).
    pub y_err: Vec<f64>,
    /// Optional half-length of the horizontal bar (data units, ≥ 0).
    pub x_err: Option<Vec<f64>>,
    /// Colour; `None` takes the next cycle colour.
    pub color: Option<Rgba>,
    /// Stroke width in points.
    pub width_pt: f64,
    /// Radius of the centre marker in points (0: none).
    pub marker_pt: f64,
}

impl ErrorBars {
    /// Vertical error bars with 2.5 pt centre dots in the next cycle colour.
    pub fn new(
        name: impl Into<String>,
        xs: impl Into<Vec<f64>>,
        ys: impl Into<Vec<f64>>,
        y_err: impl Into<Vec<f64>>,
    ) -> Self {
        Self {
            name: name.into(),
            xs: xs.into(),
            ys: ys.into(),
            y_err: y_err.into(),
            x_err: None,
            color: None,
            width_pt: 1.0,
            marker_pt: 2.5,
        }
    }

    /// Adds horizontal error bars.
    #[must_use]
    pub fn x_err(mut self, x_err: impl Into<Vec<f64>>) -> Self {
        self.x_err = Some(x_err.into());
        self
    }

    /// Sets the colour.
    #[must_use]
    pub fn color(mut self, color: Rgba) -> Self {
        self.color = Some(color);
        self
    }
}

/// Where bars stand on the x axis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum BarPositions {
    /// Named categories at x = 0, 1, 2, …; the names become the x tick labels.
    Categories(Vec<String>),
    /// Numeric x positions (data units).
    Values(Vec<f64>),
}

/// A bar chart: vertical bars from 0 (or the bottom of a log axis) to each height.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bars {
    /// Legend name (empty: not in the legend).
    pub name: String,
    /// Bar positions.
    pub positions: BarPositions,
    /// Bar heights (data units).
    pub heights: Vec<f64>,
    /// Bar width in x data units (categories are 1 apart).
    pub bar_width: f64,
    /// Colour of all bars; `None` takes the next cycle colour.
    pub color: Option<Rgba>,
    /// Optional colour per bar.
    pub colors: Option<Vec<Rgba>>,
}

impl Bars {
    /// Bars over named categories.
    pub fn categories(
        name: impl Into<String>,
        categories: Vec<String>,
        heights: impl Into<Vec<f64>>,
    ) -> Self {
        Self {
            name: name.into(),
            positions: BarPositions::Categories(categories),
            heights: heights.into(),
            bar_width: 0.8,
            color: None,
            colors: None,
        }
    }

    /// Bars at numeric x positions, `bar_width` data units wide.
    pub fn at(
        name: impl Into<String>,
        xs: impl Into<Vec<f64>>,
        heights: impl Into<Vec<f64>>,
        bar_width: f64,
    ) -> Self {
        Self {
            name: name.into(),
            positions: BarPositions::Values(xs.into()),
            heights: heights.into(),
            bar_width,
            color: None,
            colors: None,
        }
    }

    /// Sets the colour of all bars.
    #[must_use]
    pub fn color(mut self, color: Rgba) -> Self {
        self.color = Some(color);
        self
    }

    /// Sets one colour per bar.
    #[must_use]
    pub fn colors(mut self, colors: Vec<Rgba>) -> Self {
        self.colors = Some(colors);
        self
    }

    /// The x position of each bar (categories at 0, 1, 2, …).
    pub fn xs(&self) -> Vec<f64> {
        match &self.positions {
            BarPositions::Categories(names) => (0..names.len()).map(|i| i as f64).collect(),
            BarPositions::Values(xs) => xs.clone(),
        }
    }
}

/// A colour-mapped grid of `nx × ny` cells covering `x_extent × y_extent`.
///
/// `values` is row-major with `ny` rows of `nx` values; row 0 is the bottom row (at `y_extent.0`)
/// and column 0 the left column (at `x_extent.0`). On a log axis the cells are spaced evenly in
/// log10. Non-finite values are transparent.
///
/// The values are shared (cloning a figure does not copy them). Change them through
/// [`Heatmap::values_mut`] or by assigning a new `Arc`: a view still holding the old values
/// then sees a different allocation, which is how the screen renderer notices new data
/// without rescanning millions of values every frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Heatmap {
    /// Name (for hover and warnings).
    pub name: String,
    /// Left and right edges of the grid (data units).
    pub x_extent: (f64, f64),
    /// Bottom and top edges of the grid (data units).
    pub y_extent: (f64, f64),
    /// Number of columns.
    pub nx: usize,
    /// Number of rows.
    pub ny: usize,
    /// `ny × nx` values, row-major, bottom row first.
    #[serde(with = "shared_values")]
    pub values: Arc<Vec<f64>>,
    /// Colormap.
    pub colormap: Colormap,
    /// Values mapped to the colormap's ends; `None` uses the finite min and max.
    pub value_range: Option<(f64, f64)>,
    /// Label of the colorbar (with units).
    pub colorbar_label: String,
    /// Whether to draw a colorbar.
    pub show_colorbar: bool,
}

impl Heatmap {
    /// A heatmap with the Viridis colormap, automatic value range and a colorbar.
    pub fn new(
        name: impl Into<String>,
        x_extent: (f64, f64),
        y_extent: (f64, f64),
        nx: usize,
        ny: usize,
        values: impl Into<Vec<f64>>,
    ) -> Self {
        Self {
            name: name.into(),
            x_extent,
            y_extent,
            nx,
            ny,
            values: Arc::new(values.into()),
            colormap: Colormap::Viridis,
            value_range: None,
            colorbar_label: String::new(),
            show_colorbar: true,
        }
    }

    /// Sets the colormap.
    #[must_use]
    pub fn colormap(mut self, colormap: Colormap) -> Self {
        self.colormap = colormap;
        self
    }

    /// Fixes the value range mapped to the colormap.
    #[must_use]
    pub fn value_range(mut self, low: f64, high: f64) -> Self {
        self.value_range = Some((low, high));
        self
    }

    /// Sets the colorbar label.
    #[must_use]
    pub fn colorbar_label(mut self, label: impl Into<String>) -> Self {
        self.colorbar_label = label.into();
        self
    }

    /// Shows or hides the colorbar.
    #[must_use]
    pub fn show_colorbar(mut self, show: bool) -> Self {
        self.show_colorbar = show;
        self
    }

    /// The values for changing in place (copied first if a view still shares them).
    pub fn values_mut(&mut self) -> &mut Vec<f64> {
        Arc::make_mut(&mut self.values)
    }

    /// Counts the non-finite values and finds the finite min and max, in one pass.
    pub fn value_stats(&self) -> ValueStats {
        ValueStats::of(self.values.iter().copied())
    }

    /// Whether `value_range` is set to an increasing pair of finite numbers.
    pub fn has_valid_value_range(&self) -> bool {
        self.value_range
            .is_some_and(|(lo, hi)| lo.is_finite() && hi.is_finite() && lo < hi)
    }

    /// The value range used for colours, given the values' statistics: `value_range` if valid,
    /// else the finite min and max, else (0, 1).
    pub fn value_range_with(&self, stats: &ValueStats) -> (f64, f64) {
        match self.value_range {
            Some(range) if self.has_valid_value_range() => range,
            _ if stats.min <= stats.max => (stats.min, stats.max),
            _ => (0.0, 1.0),
        }
    }

    /// The value range used for colours (see [`Heatmap::value_range_with`]).
    pub fn effective_value_range(&self) -> (f64, f64) {
        if self.has_valid_value_range() {
            return self.value_range_with(&ValueStats::EMPTY);
        }
        self.value_range_with(&self.value_stats())
    }

    /// Whether the grid's shape matches its values.
    pub fn is_well_formed(&self) -> bool {
        self.nx > 0 && self.ny > 0 && self.nx.checked_mul(self.ny) == Some(self.values.len())
    }
}

/// Summary of a heatmap's values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValueStats {
    /// Number of NaN and infinite values.
    pub non_finite: usize,
    /// Smallest finite value (+∞ if there is none).
    pub min: f64,
    /// Largest finite value (−∞ if there is none).
    pub max: f64,
}

impl ValueStats {
    /// Statistics of no values.
    pub const EMPTY: Self = Self {
        non_finite: 0,
        min: f64::INFINITY,
        max: f64::NEG_INFINITY,
    };

    /// Statistics of `values`.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Self {
        values.into_iter().fold(Self::EMPTY, |s, v| {
            if v.is_finite() {
                Self {
                    min: s.min.min(v),
                    max: s.max.max(v),
                    ..s
                }
            } else {
                Self {
                    non_finite: s.non_finite + 1,
                    ..s
                }
            }
        })
    }

    /// A range for colours or axes: the finite min and max; a unit width around a constant;
    /// (0, 1) when there is no finite value.
    pub fn padded_range(&self) -> (f64, f64) {
        if self.min < self.max {
            (self.min, self.max)
        } else if self.min.is_finite() {
            (self.min - 0.5, self.min + 0.5)
        } else {
            (0.0, 1.0)
        }
    }
}

/// Serialises shared values as a plain list.
mod shared_values {
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(
        values: &Arc<Vec<f64>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        values.as_slice().serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Arc<Vec<f64>>, D::Error> {
        Vec::<f64>::deserialize(deserializer).map(Arc::new)
    }
}

/// Arrows of a 2-D vector field on a regular grid, optionally with streamlines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VectorField {
    /// Legend name (empty: not in the legend).
    pub name: String,
    /// Grid x coordinates, increasing and evenly spaced (data units).
    pub xs: Vec<f64>,
    /// Grid y coordinates, increasing and evenly spaced (data units).
    pub ys: Vec<f64>,
    /// X components, row-major with `ys.len()` rows of `xs.len()` values (row 0 at `ys[0]`).
    pub u: Vec<f64>,
    /// Y components, same layout as `u`.
    pub v: Vec<f64>,
    /// Colour; `None` takes the next cycle colour.
    pub color: Option<Rgba>,
    /// Arrow length per unit of vector magnitude (data units); `None` scales the longest arrow
    /// to 0.9 grid spacings.
    pub arrow_scale: Option<f64>,
    /// Whether to draw the arrows.
    pub show_arrows: bool,
    /// Streamlines (polylines in data units), computed by [`VectorField::with_streamlines`].
    pub streamlines: Vec<Vec<(f64, f64)>>,
}

impl VectorField {
    /// A field drawn as arrows, automatically scaled, in the next cycle colour.
    pub fn new(
        name: impl Into<String>,
        xs: impl Into<Vec<f64>>,
        ys: impl Into<Vec<f64>>,
        u: impl Into<Vec<f64>>,
        v: impl Into<Vec<f64>>,
    ) -> Self {
        Self {
            name: name.into(),
            xs: xs.into(),
            ys: ys.into(),
            u: u.into(),
            v: v.into(),
            color: None,
            arrow_scale: None,
            show_arrows: true,
            streamlines: Vec::new(),
        }
    }

    /// Sets the colour.
    #[must_use]
    pub fn color(mut self, color: Rgba) -> Self {
        self.color = Some(color);
        self
    }

    /// Fixes the arrow length per unit of magnitude (data units).
    #[must_use]
    pub fn arrow_scale(mut self, scale: f64) -> Self {
        self.arrow_scale = Some(scale);
        self
    }

    /// Shows or hides the arrows (streamlines stay).
    #[must_use]
    pub fn show_arrows(mut self, show: bool) -> Self {
        self.show_arrows = show;
        self
    }

    /// Integrates streamlines (RK4 on the bilinearly interpolated field, seeded on a regular
    /// grid) and stores them in the item. Deterministic.
    #[must_use]
    pub fn with_streamlines(mut self, options: &StreamlineOptions) -> Self {
        self.streamlines = compute_streamlines(&self.xs, &self.ys, &self.u, &self.v, options);
        self
    }

    /// Whether the grid's shape matches the components.
    pub fn is_well_formed(&self) -> bool {
        let n = self.xs.len().checked_mul(self.ys.len());
        !self.xs.is_empty()
            && !self.ys.is_empty()
            && n == Some(self.u.len())
            && n == Some(self.v.len())
    }
}

/// A node of a [`Graph`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphNode {
    /// Position x (data units).
    pub x: f64,
    /// Position y (data units).
    pub y: f64,
    /// Text next to the node (empty: none).
    pub label: String,
    /// Fill colour.
    pub color: Rgba,
    /// Radius in points.
    pub radius_pt: f64,
}

impl GraphNode {
    /// A 4 pt node in the first cycle colour.
    pub fn new(x: f64, y: f64, label: impl Into<String>) -> Self {
        Self {
            x,
            y,
            label: label.into(),
            color: Rgba::cycle(0),
            radius_pt: 4.0,
        }
    }

    /// Sets the fill colour.
    #[must_use]
    pub fn color(mut self, color: Rgba) -> Self {
        self.color = color;
        self
    }

    /// Sets the radius in points.
    #[must_use]
    pub fn radius_pt(mut self, radius_pt: f64) -> Self {
        self.radius_pt = radius_pt;
        self
    }
}

/// An edge of a [`Graph`] between two node indices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphEdge {
    /// Index of the first node.
    pub from: usize,
    /// Index of the second node.
    pub to: usize,
    /// Stroke colour.
    pub color: Rgba,
    /// Stroke width in points.
    pub width_pt: f64,
}

impl GraphEdge {
    /// A 1 pt grey edge.
    pub fn new(from: usize, to: usize) -> Self {
        Self {
            from,
            to,
            color: Rgba::GREY,
            width_pt: 1.0,
        }
    }

    /// Sets the stroke colour.
    #[must_use]
    pub fn color(mut self, color: Rgba) -> Self {
        self.color = color;
        self
    }

    /// Sets the stroke width in points.
    #[must_use]
    pub fn width_pt(mut self, width_pt: f64) -> Self {
        self.width_pt = width_pt;
        self
    }
}

/// Nodes and straight edges, e.g. a tree.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    /// Name (for warnings).
    pub name: String,
    /// Nodes.
    pub nodes: Vec<GraphNode>,
    /// Edges (indices into `nodes`).
    pub edges: Vec<GraphEdge>,
    /// Font size of node labels in points.
    pub label_size_pt: f64,
}

impl Graph {
    /// A graph from nodes and edges, with 8 pt labels.
    pub fn new(name: impl Into<String>, nodes: Vec<GraphNode>, edges: Vec<GraphEdge>) -> Self {
        Self {
            name: name.into(),
            nodes,
            edges,
            label_size_pt: 8.0,
        }
    }
}

/// Horizontal alignment of a text annotation relative to its position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TextAnchor {
    /// Text starts at the position.
    Left,
    /// Text is centred on the position.
    #[default]
    Center,
    /// Text ends at the position.
    Right,
}

/// A text annotation at a data position (vertically centred on it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Annotation {
    /// Position x (data units).
    pub x: f64,
    /// Position y (data units).
    pub y: f64,
    /// The text.
    pub text: String,
    /// Colour.
    pub color: Rgba,
    /// Font size in points.
    pub size_pt: f64,
    /// Horizontal alignment.
    pub anchor: TextAnchor,
}

impl Annotation {
    /// Black 9 pt text centred on (x, y).
    pub fn new(x: f64, y: f64, text: impl Into<String>) -> Self {
        Self {
            x,
            y,
            text: text.into(),
            color: Rgba::BLACK,
            size_pt: 9.0,
            anchor: TextAnchor::Center,
        }
    }

    /// Sets the colour.
    #[must_use]
    pub fn color(mut self, color: Rgba) -> Self {
        self.color = color;
        self
    }

    /// Sets the font size in points.
    #[must_use]
    pub fn size_pt(mut self, size_pt: f64) -> Self {
        self.size_pt = size_pt;
        self
    }

    /// Sets the horizontal alignment.
    #[must_use]
    pub fn anchor(mut self, anchor: TextAnchor) -> Self {
        self.anchor = anchor;
        self
    }
}

/// A reference line across the whole plot at one value, with an optional label.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RefLine {
    /// Position on the axis it crosses (data units).
    pub value: f64,
    /// Label drawn near the line's end and shown in the legend (empty: none).
    pub label: String,
    /// Colour.
    pub color: Rgba,
    /// Stroke width in points.
    pub width_pt: f64,
    /// Stroke pattern.
    pub dash: Dash,
}

impl RefLine {
    /// A 1 pt dashed grey reference line.
    pub fn new(value: f64, label: impl Into<String>) -> Self {
        Self {
            value,
            label: label.into(),
            color: Rgba::GREY,
            width_pt: 1.0,
            dash: Dash::Dashed,
        }
    }

    /// Sets the colour.
    #[must_use]
    pub fn color(mut self, color: Rgba) -> Self {
        self.color = color;
        self
    }

    /// Sets the stroke pattern.
    #[must_use]
    pub fn dash(mut self, dash: Dash) -> Self {
        self.dash = dash;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builders_compose_and_round_trip_through_json() {
        let figure = Figure::new("Magnetisation")
            .grid(1, 2)
            .subplot(
                Subplot::new("Order parameter")
                    .x_label("Temperature")
                    .y_label("|m|")
                    .line("Onsager", vec![1.0, 2.0], vec![1.0, 0.5])
                    .error_bars("Sampler", [1.0, 2.0], [0.9, 0.4], [0.1, 0.1])
                    .vline(2.269, "T_c")
                    .legend(true),
            )
            .subplot(Subplot::new("Bars").bars(
                "Weights",
                vec!["a".to_owned(), "b".to_owned()],
                [0.3, 0.7],
            ));
        assert_eq!(figure.layout(), (1, 2));
        assert_eq!(figure.subplots[0].items.len(), 3);
        let json = serde_json::to_string(&figure).expect("serialise");
        let back: Figure = serde_json::from_str(&json).expect("deserialise");
        assert_eq!(back, figure);
    }

    #[test]
    fn layout_grows_rows_for_extra_subplots() {
        let mut figure = Figure::new("").grid(1, 2);
        for i in 0..5 {
            figure = figure.subplot(Subplot::new(format!("s{i}")));
        }
        assert_eq!(figure.layout(), (3, 2));
        assert_eq!(Figure::new("").grid(0, 0).layout(), (1, 1));
    }

    #[test]
    fn heatmap_value_range_ignores_non_finite_values() {
        let h = Heatmap::new(
            "h",
            (0.0, 1.0),
            (0.0, 1.0),
            2,
            2,
            [f64::NAN, -2.0, 5.0, f64::INFINITY],
        );
        assert_eq!(h.effective_value_range(), (-2.0, 5.0));
        assert!(h.is_well_formed());
        let fixed = h.clone().value_range(0.0, 1.0);
        assert_eq!(fixed.effective_value_range(), (0.0, 1.0));
        let reversed = h.clone().value_range(1.0, 0.0);
        assert_eq!(reversed.effective_value_range(), (-2.0, 5.0));
        assert_eq!(h.value_stats().non_finite, 2);
        // Shared values: a clone shares them until one side changes.
        let mut copy = h.clone();
        assert!(Arc::ptr_eq(&copy.values, &h.values));
        copy.values_mut()[1] = 7.0;
        assert!(!Arc::ptr_eq(&copy.values, &h.values));
        assert_eq!(h.values[1], -2.0);
        let empty = Heatmap::new("e", (0.0, 1.0), (0.0, 1.0), 0, 0, Vec::new());
        assert_eq!(empty.effective_value_range(), (0.0, 1.0));
        assert!(!empty.is_well_formed());
    }
}
