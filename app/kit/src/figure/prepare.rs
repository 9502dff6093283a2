//! The one place that decides what is drawn: it validates the model, skips bad points (with a
//! warning), applies log10 to log axes, resolves cycle colours and computes axis ranges. Both
//! renderers draw its output, so the screen and the files show the same thing.
//!
//! "View" coordinates below are data coordinates with log10 applied on log axes.

use std::sync::Arc;

use super::colormap::{Colormap, Rgba};
use super::model::{
    Annotation, BarPositions, Dash, Figure, GraphNode, Heatmap, Item, Marker, Picture, RefLine,
    Scale, Subplot, TickNames, ValueStats,
};

/// Fraction of the data span added on each side of automatic ranges (not with heatmaps).
const AUTO_PADDING: f64 = 0.05;

/// Room kept right of a labelled graph's rightmost node, as a fraction of the nodes' width.
const GRAPH_LABEL_ROOM: f64 = 0.1;

/// One axis as drawn.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AxisView {
    /// Label text.
    pub label: String,
    /// Scale (log axes are drawn in log10 units).
    pub scale: Scale,
    /// Range in view units (low < high, both finite).
    pub range: (f64, f64),
    /// Names at whole view positions from `first` (bar charts' categories from 0, or the
    /// subplot's own tick names), if any.
    pub categories: Option<TickNames>,
    /// Whether every data coordinate on this (linear) axis is a whole number (epochs, counts,
    /// sizes): its ticks are then whole numbers too.
    pub integer: bool,
}

impl AxisView {
    /// Converts a view coordinate back to a data value.
    pub fn value_of(&self, view: f64) -> f64 {
        match self.scale {
            Scale::Linear => view,
            Scale::Log10 => 10f64.powf(view),
        }
    }
}

/// Data value to view units on an axis of this scale; `None` for non-finite values and
/// non-positive values on a log axis.
pub(crate) fn to_view(scale: Scale, value: f64) -> Option<f64> {
    if !value.is_finite() {
        return None;
    }
    match scale {
        Scale::Linear => Some(value),
        Scale::Log10 => (value > 0.0).then(|| value.log10()),
    }
}

/// A colorbar to draw next to a subplot.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ColorbarSpec {
    pub colormap: Colormap,
    pub value_range: (f64, f64),
    pub label: String,
}

/// One error bar in view units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ErrorBarView {
    pub center: (f64, f64),
    /// Bottom and top of the vertical bar.
    pub y_span: (f64, f64),
    /// Left and right of the horizontal bar, if any.
    pub x_span: Option<(f64, f64)>,
}

/// One bar in view units; `bottom: None` means "at the bottom of the axis" (log y axes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BarView {
    pub x0: f64,
    pub x1: f64,
    pub bottom: Option<f64>,
    pub top: f64,
    pub color: Rgba,
}

/// A graph edge in view units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct EdgeView {
    pub from: (f64, f64),
    pub to: (f64, f64),
    pub color: Rgba,
    pub width_pt: f64,
}

/// A prepared item in view units.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ItemView<'a> {
    Line {
        name: &'a str,
        color: Rgba,
        width_pt: f64,
        dash: Dash,
        segments: Vec<Vec<(f64, f64)>>,
    },
    Scatter {
        name: &'a str,
        color: Rgba,
        marker: Marker,
        size_pt: f64,
        points: Vec<((f64, f64), Rgba)>,
    },
    ErrorBars {
        name: &'a str,
        color: Rgba,
        width_pt: f64,
        marker_pt: f64,
        bars: Vec<ErrorBarView>,
    },
    Bars {
        name: &'a str,
        color: Rgba,
        bars: Vec<BarView>,
    },
    Heatmap {
        src: &'a Heatmap,
        /// (x0, x1, y0, y1) in view units.
        extent: (f64, f64, f64, f64),
        value_range: (f64, f64),
    },
    VectorField {
        name: &'a str,
        color: Rgba,
        /// (origin, tip) pairs.
        arrows: Vec<((f64, f64), (f64, f64))>,
        streamlines: Vec<Vec<(f64, f64)>>,
    },
    Graph {
        edges: Vec<EdgeView>,
        nodes: Vec<((f64, f64), &'a GraphNode)>,
        label_size_pt: f64,
    },
    Text {
        position: (f64, f64),
        src: &'a Annotation,
    },
    HLine {
        y: f64,
        src: &'a RefLine,
    },
    VLine {
        x: f64,
        src: &'a RefLine,
    },
    Picture {
        src: &'a Picture,
        /// (x0, x1, y0, y1) in view units, x0 < x1 and y0 < y1.
        extent: (f64, f64, f64, f64),
        /// The document's coordinate box (min x, min y, width, height).
        view_box: (f64, f64, f64, f64),
    },
}

/// A subplot ready to draw.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SubplotView<'a> {
    pub src: &'a Subplot,
    pub x: AxisView,
    pub y: AxisView,
    pub items: Vec<ItemView<'a>>,
    pub colorbars: Vec<ColorbarSpec>,
}

/// A corner of a subplot's plot area, where the legend goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LegendCorner {
    /// Upper right (the default).
    TopRight,
    /// Upper left.
    TopLeft,
    /// Lower right.
    BottomRight,
    /// Lower left.
    BottomLeft,
}

impl SubplotView<'_> {
    /// Every data point drawn, in view units (for placing the legend).
    fn data_points(&self) -> Vec<(f64, f64)> {
        let mut points = Vec::new();
        for item in &self.items {
            match item {
                ItemView::Line { segments, .. } => {
                    points.extend(segments.iter().flatten().copied());
                }
                ItemView::Scatter {
                    points: scatter, ..
                } => points.extend(scatter.iter().map(|(p, _)| *p)),
                ItemView::ErrorBars { bars, .. } => {
                    for bar in bars {
                        points.extend([
                            bar.center,
                            (bar.center.0, bar.y_span.0),
                            (bar.center.0, bar.y_span.1),
                        ]);
                    }
                }
                ItemView::Bars { bars, .. } => {
                    points.extend(bars.iter().map(|b| ((b.x0 + b.x1) / 2.0, b.top)));
                }
                ItemView::VectorField { streamlines, .. } => {
                    points.extend(streamlines.iter().flatten().copied());
                }
                ItemView::Graph { nodes, .. } => points.extend(nodes.iter().map(|(p, _)| *p)),
                ItemView::Heatmap { .. }
                | ItemView::Text { .. }
                | ItemView::HLine { .. }
                | ItemView::VLine { .. }
                | ItemView::Picture { .. } => {}
            }
        }
        points
    }

    /// Where a legend box `box_frac` (width, height as fractions of the plot area) goes: the
    /// corner whose box covers the fewest drawn points (lines sampled along their segments), the
    /// top right winning ties, or outside the plot, to its right, when even that corner would
    /// cover more than [`LEGEND_MAX_COVER`] of them. Both renderers follow this.
    pub fn legend_place(&self, box_frac: (f64, f64)) -> LegendPlace {
        let (corner, covered, total) = self.least_covered_corner(box_frac);
        if covered as f64 > LEGEND_MAX_COVER * total as f64 {
            LegendPlace::Outside
        } else {
            LegendPlace::Corner(corner)
        }
    }

    /// The corner where a legend box `box_frac` covers the fewest sampled points, with how many
    /// it covers there and how many there are.
    pub fn least_covered_corner(&self, box_frac: (f64, f64)) -> (LegendCorner, usize, usize) {
        let points = self.normalized_samples();
        if points.is_empty() {
            return (LegendCorner::TopRight, 0, 0);
        }
        let (fw, fh) = (
            box_frac.0.clamp(0.0, 1.0) + LEGEND_MARGIN_FRAC,
            box_frac.1.clamp(0.0, 1.0) + LEGEND_MARGIN_FRAC,
        );
        let count = |right: bool, top: bool| {
            points
                .iter()
                .filter(|&&(u, v)| {
                    (if right { u >= 1.0 - fw } else { u <= fw })
                        && (if top { v >= 1.0 - fh } else { v <= fh })
                })
                .count()
        };
        let (corner, covered) = [
            (LegendCorner::TopRight, count(true, true)),
            (LegendCorner::TopLeft, count(false, true)),
            (LegendCorner::BottomRight, count(true, false)),
            (LegendCorner::BottomLeft, count(false, false)),
        ]
        .into_iter()
        .min_by_key(|&(_, n)| n)
        .unwrap_or((LegendCorner::TopRight, 0));
        (corner, covered, points.len())
    }

    /// The drawn points in plot fractions (0..1 across each axis), with line segments sampled
    /// about every 1 % of the plot so that a line crossing a box counts as covered. Heatmaps
    /// and pictures fill the plot and count as a grid of points.
    pub fn normalized_samples(&self) -> Vec<(f64, f64)> {
        let (x0, x1) = self.x.range;
        let (y0, y1) = self.y.range;
        let norm = |(x, y): (f64, f64)| ((x - x0) / (x1 - x0), (y - y0) / (y1 - y0));
        let mut out: Vec<(f64, f64)> = self.data_points().into_iter().map(norm).collect();
        for item in &self.items {
            // Reference lines and annotations are things the legend must not hide either: a
            // reference line as a line across the plot, a text as a block of points around it.
            match item {
                ItemView::HLine { y, .. } => {
                    let v = norm((x0, *y)).1;
                    out.extend((0..=100).map(|i| (f64::from(i) / 100.0, v)));
                }
                ItemView::VLine { x, .. } => {
                    let u = norm((*x, y0)).0;
                    out.extend((0..=100).map(|i| (u, f64::from(i) / 100.0)));
                }
                ItemView::Text { position, .. } => {
                    let (u, v) = norm(*position);
                    for i in -5..=5 {
                        for j in -1..=1 {
                            out.push((u + 0.02 * f64::from(i), v + 0.02 * f64::from(j)));
                        }
                    }
                }
                _ => {}
            }
            let lines: &[Vec<(f64, f64)>] = match item {
                ItemView::Line { segments, .. } => segments,
                ItemView::VectorField { streamlines, .. } => streamlines,
                ItemView::Heatmap { extent, .. } | ItemView::Picture { extent, .. } => {
                    let (a, b) = (norm((extent.0, extent.2)), norm((extent.1, extent.3)));
                    for i in 0..=10 {
                        for j in 0..=10 {
                            let (u, v) = (f64::from(i) / 10.0, f64::from(j) / 10.0);
                            out.push((a.0 + u * (b.0 - a.0), a.1 + v * (b.1 - a.1)));
                        }
                    }
                    continue;
                }
                _ => continue,
            };
            for line in lines {
                for pair in line.windows(2) {
                    let (a, b) = (norm(pair[0]), norm(pair[1]));
                    let steps = ((b.0 - a.0).hypot(b.1 - a.1) / 0.01)
                        .ceil()
                        .clamp(1.0, 100.0);
                    for k in 1..steps as usize {
                        let t = k as f64 / steps;
                        out.push((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1)));
                    }
                }
            }
        }
        out.retain(|&(u, v)| (0.0..=1.0).contains(&u) && (0.0..=1.0).contains(&v));
        out
    }
}

/// Largest fraction of a plot's drawn points a legend inside the plot may cover; beyond it the
/// legend goes outside, to the right of the plot.
pub(crate) const LEGEND_MAX_COVER: f64 = 0.02;
/// The gap between a legend box and the plot's frame, as a fraction of the plot.
const LEGEND_MARGIN_FRAC: f64 = 0.02;

/// Where a subplot's legend is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LegendPlace {
    /// In this corner of the plot area.
    Corner(LegendCorner),
    /// Outside the plot area, to its right, at the top.
    Outside,
    /// Below the plot and its x axis, in columns (the file renderer's choice when there is no
    /// room beside the plot; the screen then uses the corner that covers least).
    Below,
}

/// What a legend entry shows beside its text: a line sample, a marker or a filled patch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum LegendSample {
    /// A line with its colour, width (pt) and dash.
    Line(Rgba, f64, Dash),
    /// A marker with its colour and shape.
    Marker(Rgba, Marker),
    /// A filled patch (bars).
    Patch(Rgba),
}

/// The legend's entries, in item order: every named item except heatmaps, graphs, texts and
/// pictures. Both renderers draw exactly these.
pub(crate) fn legend_entries(view: &SubplotView<'_>) -> Vec<(LegendSample, String)> {
    let mut entries = Vec::new();
    for item in &view.items {
        let (sample, name) = match item {
            ItemView::Line {
                name,
                color,
                width_pt,
                dash,
                ..
            } => (LegendSample::Line(*color, *width_pt, *dash), *name),
            ItemView::Scatter {
                name,
                color,
                marker,
                ..
            } => (LegendSample::Marker(*color, *marker), *name),
            ItemView::ErrorBars { name, color, .. } => {
                (LegendSample::Marker(*color, Marker::Circle), *name)
            }
            ItemView::Bars { name, color, .. } => (LegendSample::Patch(*color), *name),
            ItemView::VectorField { name, color, .. } => {
                (LegendSample::Line(*color, 1.0, Dash::Solid), *name)
            }
            ItemView::HLine { src, .. } | ItemView::VLine { src, .. } => (
                LegendSample::Line(src.color, src.width_pt, src.dash),
                src.label.as_str(),
            ),
            ItemView::Heatmap { .. }
            | ItemView::Graph { .. }
            | ItemView::Text { .. }
            | ItemView::Picture { .. } => continue,
        };
        if !name.is_empty() {
            entries.push((sample, name.to_owned()));
        }
    }
    entries
}

/// A figure ready to draw, with the warnings raised on the way.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FigureView<'a> {
    pub subplots: Vec<SubplotView<'a>>,
    pub warnings: Vec<String>,
}

/// Heatmap statistics kept between frames, keyed by the shared values (held, so the
/// allocation cannot be reused while cached). Entries not used in a frame are dropped.
#[derive(Debug, Default)]
pub(crate) struct StatsCache {
    entries: Vec<(Arc<Vec<f64>>, ValueStats, bool)>,
    enabled: bool,
}

impl StatsCache {
    /// A cache that remembers statistics.
    pub fn new() -> Self {
        Self {
            entries: Vec::new(),
            enabled: true,
        }
    }

    /// A cache that never remembers (for one-off renders).
    fn disabled() -> Self {
        Self::default()
    }

    fn stats(&mut self, heatmap: &Heatmap) -> ValueStats {
        if !self.enabled {
            return heatmap.value_stats();
        }
        if let Some(entry) = self
            .entries
            .iter_mut()
            .find(|(values, _, _)| Arc::ptr_eq(values, &heatmap.values))
        {
            entry.2 = true;
            return entry.1;
        }
        let stats = heatmap.value_stats();
        self.entries
            .push((Arc::clone(&heatmap.values), stats, true));
        stats
    }

    /// Drops the entries not used since the last call.
    pub fn end_frame(&mut self) {
        self.entries.retain(|(_, _, used)| *used);
        for entry in &mut self.entries {
            entry.2 = false;
        }
    }
}

/// Prepares every subplot of a figure.
pub(crate) fn prepare_figure(figure: &Figure) -> FigureView<'_> {
    prepare_figure_cached(figure, &mut StatsCache::disabled())
}

/// Prepares every subplot of a figure, reusing heatmap statistics from `stats_cache`.
pub(crate) fn prepare_figure_cached<'a>(
    figure: &'a Figure,
    stats_cache: &mut StatsCache,
) -> FigureView<'a> {
    let mut warnings = Vec::new();
    if !(figure.size_in.0.is_finite()
        && figure.size_in.1.is_finite()
        && figure.size_in.0 > 0.0
        && figure.size_in.1 > 0.0)
    {
        warnings.push(format!(
            "Figure size {:?} in is not positive; the default size is used for export.",
            figure.size_in
        ));
    }
    let subplots = figure
        .subplots
        .iter()
        .enumerate()
        .map(|(i, s)| prepare_subplot(s, i, &mut warnings, stats_cache))
        .collect();
    FigureView { subplots, warnings }
}

/// Min/max accumulator over view coordinates.
#[derive(Clone, Copy, Debug)]
struct Extent {
    lo: f64,
    hi: f64,
}

impl Extent {
    const EMPTY: Self = Self {
        lo: f64::INFINITY,
        hi: f64::NEG_INFINITY,
    };

    fn add(&mut self, v: f64) {
        if v.is_finite() {
            self.lo = self.lo.min(v);
            self.hi = self.hi.max(v);
        }
    }

    fn is_empty(&self) -> bool {
        self.lo > self.hi
    }
}

/// Context for warnings about one item.
struct Reporter<'w> {
    subplot: String,
    warnings: &'w mut Vec<String>,
}

impl Reporter<'_> {
    fn warn(&mut self, item: &Item, message: &str) {
        let name = item.name();
        let what = if name.is_empty() {
            item.kind().to_owned()
        } else {
            format!("{} \u{201c}{}\u{201d}", item.kind(), name)
        };
        self.warnings
            .push(format!("{}, {}: {}", self.subplot, what, message));
    }

    fn skipped(&mut self, item: &Item, skipped: usize, total: usize, log: bool) {
        if skipped > 0 {
            let why = if log {
                "not finite, or not positive on a log axis"
            } else {
                "not finite"
            };
            self.warn(
                item,
                &format!("{skipped} of {total} points skipped ({why})."),
            );
        }
    }

    fn lengths(&mut self, item: &Item, what: &str, a: usize, b: usize) -> usize {
        if a != b {
            self.warn(
                item,
                &format!("{what} lengths differ ({a} and {b}); the extra values are ignored."),
            );
        }
        a.min(b)
    }
}

fn prepare_subplot<'a>(
    subplot: &'a Subplot,
    index: usize,
    warnings: &mut Vec<String>,
    stats_cache: &mut StatsCache,
) -> SubplotView<'a> {
    let label = if subplot.title.is_empty() {
        format!("Subplot {}", index + 1)
    } else {
        format!("Subplot \u{201c}{}\u{201d}", subplot.title)
    };
    let mut rep = Reporter {
        subplot: label,
        warnings,
    };
    let (xs_scale, ys_scale) = (subplot.x.scale, subplot.y.scale);
    let log_any = xs_scale == Scale::Log10 || ys_scale == Scale::Log10;
    let point = |x: f64, y: f64| Some((to_view(xs_scale, x)?, to_view(ys_scale, y)?));

    let mut items = Vec::new();
    let mut colorbars = Vec::new();
    let mut categories: Option<Vec<String>> = None;
    let mut cycle = 0;
    let mut x_ext = Extent::EMPTY;
    let mut y_ext = Extent::EMPTY;
    let mut has_heatmap = false;
    let mut bar_on_linear_y = false;

    for item in &subplot.items {
        let cycle_color = Rgba::cycle(cycle);
        if item.uses_cycle() {
            cycle += 1;
        }
        match item {
            Item::Line(line) => {
                let n = rep.lengths(item, "x and y", line.xs.len(), line.ys.len());
                if n == 0 {
                    rep.warn(item, "empty series.");
                }
                let mut segments = Vec::new();
                let mut current = Vec::new();
                let mut skipped = 0;
                for i in 0..n {
                    if let Some(p) = point(line.xs[i], line.ys[i]) {
                        x_ext.add(p.0);
                        y_ext.add(p.1);
                        current.push(p);
                    } else {
                        skipped += 1;
                        if current.len() > 1 {
                            segments.push(std::mem::take(&mut current));
                        }
                        current.clear();
                    }
                }
                if current.len() > 1 {
                    segments.push(current);
                }
                rep.skipped(item, skipped, n, log_any);
                items.push(ItemView::Line {
                    name: &line.name,
                    color: line.color.unwrap_or(cycle_color),
                    width_pt: sane_size(line.width_pt, 1.5),
                    dash: line.dash,
                    segments,
                });
            }
            Item::Scatter(scatter) => {
                let n = rep.lengths(item, "x and y", scatter.xs.len(), scatter.ys.len());
                if n == 0 {
                    rep.warn(item, "empty series.");
                }
                let color = scatter.color.unwrap_or(cycle_color);
                if let Some(colors) = &scatter.colors
                    && colors.len() != n
                {
                    rep.warn(
                        item,
                        &format!(
                            "{} point colours for {n} points; the series colour fills in.",
                            colors.len()
                        ),
                    );
                }
                let mut points = Vec::with_capacity(n);
                let mut skipped = 0;
                for i in 0..n {
                    if let Some(p) = point(scatter.xs[i], scatter.ys[i]) {
                        x_ext.add(p.0);
                        y_ext.add(p.1);
                        let c = scatter
                            .colors
                            .as_ref()
                            .and_then(|cs| cs.get(i).copied())
                            .unwrap_or(color);
                        points.push((p, c));
                    } else {
                        skipped += 1;
                    }
                }
                rep.skipped(item, skipped, n, log_any);
                items.push(ItemView::Scatter {
                    name: &scatter.name,
                    color,
                    marker: scatter.marker,
                    size_pt: sane_size(scatter.size_pt, 3.0),
                    points,
                });
            }
            Item::ErrorBars(eb) => {
                let mut n = rep.lengths(item, "x and y", eb.xs.len(), eb.ys.len());
                n = rep.lengths(item, "Point and y error", n, eb.y_err.len());
                if let Some(x_err) = &eb.x_err {
                    n = rep.lengths(item, "Point and x error", n, x_err.len());
                }
                if n == 0 {
                    rep.warn(item, "empty series.");
                }
                let mut bars = Vec::with_capacity(n);
                let mut skipped = 0;
                for i in 0..n {
                    let (x, y, ey) = (eb.xs[i], eb.ys[i], eb.y_err[i].abs());
                    let ex = eb.x_err.as_ref().map(|e| e[i].abs());
                    let center = point(x, y);
                    let y_span = to_view(ys_scale, y - ey).zip(to_view(ys_scale, y + ey));
                    let x_span =
                        ex.map(|ex| to_view(xs_scale, x - ex).zip(to_view(xs_scale, x + ex)));
                    match (center, y_span, x_span) {
                        (Some(center), Some(y_span), None) => {
                            bars.push(ErrorBarView {
                                center,
                                y_span,
                                x_span: None,
                            });
                        }
                        (Some(center), Some(y_span), Some(Some(xs))) => {
                            bars.push(ErrorBarView {
                                center,
                                y_span,
                                x_span: Some(xs),
                            });
                        }
                        _ => skipped += 1,
                    }
                }
                for b in &bars {
                    x_ext.add(b.center.0);
                    y_ext.add(b.y_span.0);
                    y_ext.add(b.y_span.1);
                    if let Some((a, c)) = b.x_span {
                        x_ext.add(a);
                        x_ext.add(c);
                    }
                }
                rep.skipped(item, skipped, n, log_any);
                items.push(ItemView::ErrorBars {
                    name: &eb.name,
                    color: eb.color.unwrap_or(cycle_color),
                    width_pt: sane_size(eb.width_pt, 1.0),
                    marker_pt: if eb.marker_pt.is_finite() {
                        eb.marker_pt.max(0.0)
                    } else {
                        0.0
                    },
                    bars,
                });
            }
            Item::Bars(bars) => {
                let xs = bars.xs();
                let n = rep.lengths(item, "Position and height", xs.len(), bars.heights.len());
                if n == 0 {
                    rep.warn(item, "empty series.");
                }
                if let BarPositions::Categories(names) = &bars.positions {
                    if categories.is_none() {
                        categories = Some(names.clone());
                    } else if categories.as_ref() != Some(names) {
                        rep.warn(item, "categories differ from an earlier bar chart's; the first names label the axis.");
                    }
                }
                let width = if bars.bar_width.is_finite() && bars.bar_width > 0.0 {
                    bars.bar_width
                } else {
                    0.8
                };
                let color = bars.color.unwrap_or(cycle_color);
                let mut out = Vec::with_capacity(n);
                let mut skipped = 0;
                for (i, &x) in xs.iter().enumerate().take(n) {
                    let h = bars.heights[i];
                    let ends =
                        to_view(xs_scale, x - width / 2.0).zip(to_view(xs_scale, x + width / 2.0));
                    let top = to_view(ys_scale, h);
                    let bottom = match ys_scale {
                        Scale::Linear => Some(Some(0.0)),
                        Scale::Log10 => Some(None),
                    };
                    match (ends, top, bottom) {
                        (Some((x0, x1)), Some(top), Some(bottom)) => {
                            let c = bars
                                .colors
                                .as_ref()
                                .and_then(|cs| cs.get(i).copied())
                                .unwrap_or(color);
                            out.push(BarView {
                                x0,
                                x1,
                                bottom,
                                top,
                                color: c,
                            });
                        }
                        _ => skipped += 1,
                    }
                }
                for b in &out {
                    x_ext.add(b.x0);
                    x_ext.add(b.x1);
                    y_ext.add(b.top);
                    if let Some(bottom) = b.bottom {
                        y_ext.add(bottom);
                        bar_on_linear_y = true;
                    }
                }
                rep.skipped(item, skipped, n, log_any);
                items.push(ItemView::Bars {
                    name: &bars.name,
                    color,
                    bars: out,
                });
            }
            Item::Heatmap(h) => {
                if !h.is_well_formed() {
                    rep.warn(
                        item,
                        &format!(
                            "{} values do not fill a {} × {} grid; not drawn.",
                            h.values.len(),
                            h.nx,
                            h.ny
                        ),
                    );
                    continue;
                }
                let Some((x0, x1, y0, y1)) =
                    view_extent((xs_scale, ys_scale), h.x_extent, h.y_extent)
                else {
                    rep.warn(item, EXTENT_NOT_DRAWN);
                    continue;
                };
                let stats = stats_cache.stats(h);
                let bad = stats.non_finite;
                if bad > 0 {
                    rep.warn(
                        item,
                        &format!(
                            "{bad} of {} values are not finite (drawn transparent).",
                            h.values.len()
                        ),
                    );
                }
                if h.value_range.is_some() && !h.has_valid_value_range() {
                    rep.warn(
                        item,
                        "value range is not an increasing finite pair; the data range is used.",
                    );
                }
                let value_range = h.value_range_with(&stats);
                has_heatmap = true;
                x_ext.add(x0);
                x_ext.add(x1);
                y_ext.add(y0);
                y_ext.add(y1);
                if h.show_colorbar {
                    colorbars.push(ColorbarSpec {
                        colormap: h.colormap,
                        value_range,
                        label: h.colorbar_label.clone(),
                    });
                }
                items.push(ItemView::Heatmap {
                    src: h,
                    extent: (x0, x1, y0, y1),
                    value_range,
                });
            }
            Item::VectorField(field) => {
                let color = field.color.unwrap_or(cycle_color);
                let mut arrows = Vec::new();
                if !field.is_well_formed() {
                    rep.warn(
                        item,
                        &format!(
                            "u ({}) and v ({}) do not fill a {} × {} grid; arrows not drawn.",
                            field.u.len(),
                            field.v.len(),
                            field.xs.len(),
                            field.ys.len()
                        ),
                    );
                } else if field.show_arrows {
                    let scale = arrow_scale(field);
                    let nx = field.xs.len();
                    let mut skipped = 0;
                    for (j, &y) in field.ys.iter().enumerate() {
                        for (i, &x) in field.xs.iter().enumerate() {
                            let (u, v) = (field.u[j * nx + i], field.v[j * nx + i]);
                            let origin = point(x, y);
                            let tip = point(x + scale * u, y + scale * v);
                            match origin.zip(tip) {
                                Some((o, t)) => {
                                    x_ext.add(o.0);
                                    y_ext.add(o.1);
                                    if o != t {
                                        arrows.push((o, t));
                                    }
                                }
                                None => skipped += 1,
                            }
                        }
                    }
                    rep.skipped(item, skipped, field.u.len(), log_any);
                }
                let mut streamlines = Vec::with_capacity(field.streamlines.len());
                for line in &field.streamlines {
                    let pts: Vec<(f64, f64)> =
                        line.iter().filter_map(|&(x, y)| point(x, y)).collect();
                    for p in &pts {
                        x_ext.add(p.0);
                        y_ext.add(p.1);
                    }
                    if pts.len() > 1 {
                        streamlines.push(pts);
                    }
                }
                items.push(ItemView::VectorField {
                    name: &field.name,
                    color,
                    arrows,
                    streamlines,
                });
            }
            Item::Graph(graph) => {
                let positions: Vec<Option<(f64, f64)>> =
                    graph.nodes.iter().map(|n| point(n.x, n.y)).collect();
                let skipped_nodes = positions.iter().filter(|p| p.is_none()).count();
                rep.skipped(item, skipped_nodes, graph.nodes.len(), log_any);
                let mut bad_edges = 0;
                let mut edges = Vec::with_capacity(graph.edges.len());
                for e in &graph.edges {
                    let a = positions.get(e.from).copied().flatten();
                    let b = positions.get(e.to).copied().flatten();
                    match a.zip(b) {
                        Some((from, to)) => edges.push(EdgeView {
                            from,
                            to,
                            color: e.color,
                            width_pt: sane_size(e.width_pt, 1.0),
                        }),
                        None => bad_edges += 1,
                    }
                }
                if bad_edges > 0 {
                    rep.warn(
                        item,
                        &format!(
                            "{bad_edges} of {} edges skipped (missing or skipped end nodes).",
                            graph.edges.len()
                        ),
                    );
                }
                let nodes: Vec<((f64, f64), &GraphNode)> = positions
                    .iter()
                    .zip(&graph.nodes)
                    .filter_map(|(p, n)| p.map(|p| (p, n)))
                    .collect();
                for (p, _) in &nodes {
                    x_ext.add(p.0);
                    y_ext.add(p.1);
                }
                // Node labels sit to the right of their node: room for them inside the plot.
                if nodes.iter().any(|(_, n)| !n.label.is_empty()) {
                    let (lo, hi) = nodes
                        .iter()
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |a, (p, _)| {
                            (a.0.min(p.0), a.1.max(p.0))
                        });
                    if hi > lo {
                        x_ext.add(hi + GRAPH_LABEL_ROOM * (hi - lo));
                    }
                }
                items.push(ItemView::Graph {
                    edges,
                    nodes,
                    label_size_pt: sane_size(graph.label_size_pt, 8.0),
                });
            }
            Item::Text(text) => match point(text.x, text.y) {
                Some(position) => {
                    x_ext.add(position.0);
                    y_ext.add(position.1);
                    items.push(ItemView::Text {
                        position,
                        src: text,
                    });
                }
                None => rep.warn(item, "position cannot be drawn on these axes; not drawn."),
            },
            Item::HLine(line) => match to_view(ys_scale, line.value) {
                Some(y) => {
                    y_ext.add(y);
                    items.push(ItemView::HLine { y, src: line });
                }
                None => rep.warn(item, "value cannot be drawn on this axis; not drawn."),
            },
            Item::VLine(line) => match to_view(xs_scale, line.value) {
                Some(x) => {
                    x_ext.add(x);
                    items.push(ItemView::VLine { x, src: line });
                }
                None => rep.warn(item, "value cannot be drawn on this axis; not drawn."),
            },
            Item::Picture(picture) => {
                let (x0, x1, y0, y1) = picture.extent;
                let Some((x0, x1, y0, y1)) = view_extent((xs_scale, ys_scale), (x0, x1), (y0, y1))
                else {
                    rep.warn(item, EXTENT_NOT_DRAWN);
                    continue;
                };
                let Some(view_box) = picture.view_box() else {
                    rep.warn(
                        item,
                        "the SVG states no size (viewBox or width and height); not drawn.",
                    );
                    continue;
                };
                let extent = fit_aspect(
                    (x0.min(x1), x0.max(x1), y0.min(y1), y0.max(y1)),
                    view_box.2 / view_box.3,
                );
                x_ext.add(extent.0);
                x_ext.add(extent.1);
                y_ext.add(extent.2);
                y_ext.add(extent.3);
                items.push(ItemView::Picture {
                    src: picture,
                    extent,
                    view_box,
                });
            }
        }
    }

    // Bars on a log y axis stand on the bottom of the axis; make sure some room is below.
    if ys_scale == Scale::Log10
        && !bar_on_linear_y
        && items.iter().any(|i| matches!(i, ItemView::Bars { .. }))
        && !y_ext.is_empty()
    {
        y_ext.add(y_ext.lo - 0.5);
    }
    let categories = categories.filter(|names| !names.is_empty());
    if let Some(names) = &categories {
        x_ext.add(-0.5);
        x_ext.add(names.len() as f64 - 0.5);
    }
    let bar_categories = categories.is_some();
    let categories = categories
        .map(|names| TickNames { first: 0.0, names })
        .or_else(|| tick_names(&subplot.x));
    let x_padding = if has_heatmap || bar_categories {
        0.0
    } else {
        AUTO_PADDING
    };
    let y_padding = if has_heatmap { 0.0 } else { AUTO_PADDING };
    let x_range = axis_range(
        &subplot.x.range,
        xs_scale,
        x_ext,
        x_padding,
        false,
        &mut rep,
        "x",
    );
    let y_range = axis_range(
        &subplot.y.range,
        ys_scale,
        y_ext,
        y_padding,
        bar_on_linear_y,
        &mut rep,
        "y",
    );

    let mut view = SubplotView {
        src: subplot,
        x: AxisView {
            label: subplot.x.label.clone(),
            scale: xs_scale,
            range: x_range,
            categories,
            integer: false,
        },
        y: AxisView {
            label: subplot.y.label.clone(),
            scale: ys_scale,
            range: y_range,
            categories: tick_names(&subplot.y),
            integer: false,
        },
        items,
        colorbars,
    };
    mark_integer_axes(&mut view);
    view
}

/// Marks the linear axes on which every drawn data coordinate is a whole number (at least two
/// points, no heatmap or picture, no categories).
fn mark_integer_axes(view: &mut SubplotView<'_>) {
    let has_extent = view.items.iter().any(|item| {
        matches!(
            item,
            ItemView::Heatmap { .. } | ItemView::Picture { .. } | ItemView::VectorField { .. }
        )
    });
    let points = view.data_points();
    if has_extent || points.len() < 2 {
        return;
    }
    let whole = |v: f64| (v - v.round()).abs() <= 1e-9 * v.abs().max(1.0);
    view.x.integer = view.x.scale == Scale::Linear
        && view.x.categories.is_none()
        && points.iter().all(|p| whole(p.0));
    view.y.integer = view.y.scale == Scale::Linear
        && view.y.categories.is_none()
        && points.iter().all(|p| whole(p.1));
}

/// An axis's own tick names, when it has any and is linear (names mean nothing on a log axis).
fn tick_names(axis: &super::model::Axis) -> Option<TickNames> {
    axis.tick_names
        .clone()
        .filter(|t| axis.scale == Scale::Linear && t.first.is_finite() && !t.names.is_empty())
}

/// Why an item with an extent (heatmap, picture) is not drawn.
const EXTENT_NOT_DRAWN: &str =
    "extent is empty, not finite or not positive on a log axis; not drawn.";

/// A data extent in view units, `None` when a side is empty or cannot be drawn on the axes.
fn view_extent(
    (xs, ys): (Scale, Scale),
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> Option<(f64, f64, f64, f64)> {
    let (x0, x1) = (to_view(xs, x0)?, to_view(xs, x1)?);
    let (y0, y1) = (to_view(ys, y0)?, to_view(ys, y1)?);
    (x0 != x1 && y0 != y1).then_some((x0, x1, y0, y1))
}

/// The largest rectangle of aspect `width / height` = `aspect` centred in `extent`.
fn fit_aspect((x0, x1, y0, y1): (f64, f64, f64, f64), aspect: f64) -> (f64, f64, f64, f64) {
    let (w, h) = (x1 - x0, y1 - y0);
    if w / h > aspect {
        let half = h * aspect / 2.0;
        let mid = (x0 + x1) / 2.0;
        (mid - half, mid + half, y0, y1)
    } else {
        let half = w / aspect / 2.0;
        let mid = (y0 + y1) / 2.0;
        (x0, x1, mid - half, mid + half)
    }
}

/// A finite, positive size or the default.
fn sane_size(size: f64, default: f64) -> f64 {
    if size.is_finite() && size >= 0.0 {
        size
    } else {
        default
    }
}

/// Arrow length per unit magnitude: the explicit scale, or 0.9 grid spacings for the longest.
fn arrow_scale(field: &super::model::VectorField) -> f64 {
    if let Some(s) = field.arrow_scale
        && s.is_finite()
    {
        return s;
    }
    let spacing = |c: &[f64]| {
        if c.len() < 2 {
            f64::INFINITY
        } else {
            ((c[c.len() - 1] - c[0]) / (c.len() - 1) as f64).abs()
        }
    };
    let mut cell = spacing(&field.xs).min(spacing(&field.ys));
    if !cell.is_finite() || cell == 0.0 {
        cell = 1.0;
    }
    let max_mag = field
        .u
        .iter()
        .zip(&field.v)
        .map(|(u, v)| u.hypot(*v))
        .filter(|m| m.is_finite())
        .fold(0.0_f64, f64::max);
    if max_mag > 0.0 {
        0.9 * cell / max_mag
    } else {
        0.0
    }
}

/// The view range of one axis: the fixed range if it is usable, else the data extent padded
/// (except at an end that is exactly zero when `sticky_zero`, so bars stand on the axis).
fn axis_range(
    fixed: &Option<(f64, f64)>,
    scale: Scale,
    extent: Extent,
    padding: f64,
    sticky_zero: bool,
    rep: &mut Reporter<'_>,
    axis: &str,
) -> (f64, f64) {
    if let Some((lo, hi)) = *fixed {
        match to_view(scale, lo).zip(to_view(scale, hi)) {
            Some((a, b)) if a < b => return (a, b),
            _ => rep.warnings.push(format!(
                "{}: the {axis} range ({lo}, {hi}) is not increasing, finite{}; the data range is used.",
                rep.subplot,
                if scale == Scale::Log10 { " and positive" } else { "" }
            )),
        }
    }
    if extent.is_empty() {
        return (0.0, 1.0);
    }
    let span = extent.hi - extent.lo;
    if span <= 0.0 {
        let half = if extent.lo == 0.0 {
            0.5
        } else {
            0.1 * extent.lo.abs()
        };
        return (extent.lo - half, extent.hi + half);
    }
    let lo = if sticky_zero && extent.lo == 0.0 {
        0.0
    } else {
        extent.lo - padding * span
    };
    let hi = if sticky_zero && extent.hi == 0.0 {
        0.0
    } else {
        extent.hi + padding * span
    };
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figure::model::{Line, Scatter};

    #[test]
    fn log_axis_skips_non_positive_and_nan_points_with_warnings() {
        let figure = Figure::new("Bad data").subplot(
            Subplot::new("Spectrum")
                .x_scale(Scale::Log10)
                .y_scale(Scale::Log10)
                .with(Line::new(
                    "power",
                    [1.0, 10.0, 0.0, 100.0, 1000.0],
                    [1.0, f64::NAN, 5.0, 0.01, -1.0],
                ))
                .with(Scatter::new("empty", Vec::new(), Vec::new())),
        );
        let view = prepare_figure(&figure);
        let warnings = &view.warnings;
        assert_eq!(warnings.len(), 2, "{warnings:#?}");
        assert!(
            warnings[0].contains("3 of 5 points skipped"),
            "{}",
            warnings[0]
        );
        assert!(warnings[1].contains("empty series"), "{}", warnings[1]);
        let ItemView::Line { segments, .. } = &view.subplots[0].items[0] else {
            panic!("expected a line");
        };
        // Only (1, 1) and (100, 0.01) survive, in separate segments of one point each: nothing
        // to draw, but nothing invented either.
        assert!(segments.is_empty());
        let x = &view.subplots[0].x;
        assert!(x.range.0 < 0.0 && x.range.1 > 2.0, "{:?}", x.range);
        assert_eq!(figure.warnings(), view.warnings);
    }

    #[test]
    fn ranges_come_from_the_data_or_the_axis() {
        let s = Subplot::new("")
            .line("a", [0.0, 10.0], [-1.0, 1.0])
            .x_range(2.0, 4.0);
        let figure = Figure::new("").subplot(s);
        let view = prepare_figure(&figure);
        assert_eq!(view.subplots[0].x.range, (2.0, 4.0));
        assert_eq!(view.subplots[0].y.range, (-1.1, 1.1));
        // A log range that includes zero is rejected with a warning.
        let bad = Figure::new("").subplot(
            Subplot::new("")
                .y_scale(Scale::Log10)
                .y_range(0.0, 10.0)
                .line("a", [0.0, 1.0], [1.0, 100.0]),
        );
        let view = prepare_figure(&bad);
        assert_eq!(view.warnings.len(), 1, "{:?}", view.warnings);
        assert_eq!(view.subplots[0].y.range, (-0.1, 2.1));
    }

    #[test]
    fn colours_follow_the_cycle_in_item_order() {
        let figure = Figure::new("").subplot(
            Subplot::new("")
                .line("a", [0.0, 1.0], [0.0, 1.0])
                .with(Line::new("b", [0.0, 1.0], [1.0, 0.0]).color(Rgba::BLACK))
                .scatter("c", [0.5], [0.5]),
        );
        let view = prepare_figure(&figure);
        let colors: Vec<Rgba> = view.subplots[0]
            .items
            .iter()
            .map(|i| match i {
                ItemView::Line { color, .. } | ItemView::Scatter { color, .. } => *color,
                _ => Rgba::TRANSPARENT,
            })
            .collect();
        assert_eq!(colors, [Rgba::cycle(0), Rgba::BLACK, Rgba::cycle(1)]);
    }

    #[test]
    fn malformed_heatmaps_and_graph_edges_are_skipped_not_fatal() {
        use crate::figure::model::{Graph, GraphEdge, GraphNode};
        let figure = Figure::new("").subplot(
            Subplot::new("")
                .heatmap(Heatmap::new(
                    "h",
                    (0.0, 1.0),
                    (0.0, 1.0),
                    3,
                    3,
                    vec![0.0; 8],
                ))
                .with(Graph::new(
                    "tree",
                    vec![
                        GraphNode::new(0.0, 0.0, "root"),
                        GraphNode::new(1.0, f64::NAN, "leaf"),
                    ],
                    vec![GraphEdge::new(0, 1), GraphEdge::new(0, 7)],
                )),
        );
        let view = prepare_figure(&figure);
        assert_eq!(view.warnings.len(), 3, "{:#?}", view.warnings);
        assert_eq!(view.subplots[0].items.len(), 1);
        let ItemView::Graph { edges, nodes, .. } = &view.subplots[0].items[0] else {
            panic!("expected a graph");
        };
        assert!(edges.is_empty());
        assert_eq!(nodes.len(), 1);
    }

    #[test]
    fn heatmap_statistics_are_cached_by_shared_values() {
        let figure = Figure::new("").subplot(Subplot::new("").heatmap(Heatmap::new(
            "h",
            (0.0, 1.0),
            (0.0, 1.0),
            2,
            1,
            [f64::NAN, 4.0],
        )));
        let mut cache = StatsCache::new();
        let cached = prepare_figure_cached(&figure, &mut cache);
        let uncached = prepare_figure(&figure);
        // (NaN values make whole views unequal, so compare the parts.)
        assert_eq!(cached.warnings, uncached.warnings);
        assert_eq!(cached.warnings.len(), 1);
        assert_eq!(cached.subplots[0].colorbars, uncached.subplots[0].colorbars);
        assert_eq!(cached.subplots[0].colorbars[0].value_range, (4.0, 4.0));
        assert_eq!(cache.entries.len(), 1);
        cache.end_frame();
        let _ = prepare_figure_cached(&figure, &mut cache);
        assert_eq!(cache.entries.len(), 1, "reused, not added again");
        cache.end_frame();
        cache.end_frame();
        assert!(cache.entries.is_empty(), "unused entries are dropped");
    }
}
