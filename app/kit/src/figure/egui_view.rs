//! The screen renderer: draws a figure with egui_plot (pan, zoom, legend, hover), heatmaps as
//! cached textures, colorbars beside the plots, and log axes as log10 values with 10ⁿ labels.
//! It draws exactly what [`super::prepare`] decides, like the file renderer.

use std::collections::HashMap;
use std::sync::Arc;

use egui::epaint::TextShape;
use egui::{
    Align2, Color32, FontId, Rect, RichText, Sense, TextureHandle, TextureOptions, UiBuilder, pos2,
    vec2,
};
use egui_plot::{
    Arrows, Bar, BarChart, Corner, GridInput, GridMark, HoverPosition, Legend, LineStyle,
    MarkerShape, Plot, PlotImage, PlotPoint, PlotPoints, PlotUi, Points,
};

use super::colormap::{Colormap, Rgba, map_values_rgba};
use super::fonts::DEJAVU_SANS_TTF;
use super::model::{Dash, Figure, Heatmap, Marker, Scale, TextAnchor};
use super::prepare::{
    AxisView, ColorbarSpec, ItemView, LegendCorner, StatsCache, SubplotView, prepare_figure_cached,
};
use super::ticks::{format_number, linear_ticks, nice_step, power_of_ten_label};

/// Width reserved for one colorbar, in egui points.
const COLORBAR_STRIP: f32 = 76.0;
/// Height of a subplot title row, in egui points.
const TITLE_ROW: f32 = 22.0;

/// Ephemeral state of figure views: heatmap textures and heatmap statistics. Never saved; a
/// fresh state just re-uploads the textures.
pub struct FigureViewState {
    textures: HashMap<(usize, usize), CachedTexture>,
    stats: StatsCache,
    uploads: u64,
    frame: u64,
    /// Distinguishes this view's plots from other figures' in egui's memory.
    view_id: u64,
    /// The data ranges each subplot was last shown with; when they change (new data streamed
    /// in) the plot's zoom is reset so the new data is in view.
    shown_ranges: HashMap<usize, [u64; 4]>,
}

static NEXT_VIEW_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Default for FigureViewState {
    fn default() -> Self {
        Self {
            textures: HashMap::new(),
            stats: StatsCache::new(),
            uploads: 0,
            frame: 0,
            view_id: NEXT_VIEW_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            shown_ranges: HashMap::new(),
        }
    }
}

/// What a heatmap texture was made from: the shared values (held, so that any change to them
/// makes a new allocation) and the parameters that affect the colours.
#[derive(Clone, Debug)]
struct TextureSource {
    values: Arc<Vec<f64>>,
    shape: (usize, usize),
    colormap: Colormap,
    value_range: (u64, u64),
}

impl TextureSource {
    fn of(heatmap: &Heatmap, value_range: (f64, f64)) -> Self {
        Self {
            values: Arc::clone(&heatmap.values),
            shape: (heatmap.nx, heatmap.ny),
            colormap: heatmap.colormap,
            value_range: (value_range.0.to_bits(), value_range.1.to_bits()),
        }
    }

    fn same_as(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.values, &other.values)
            && self.shape == other.shape
            && self.colormap == other.colormap
            && self.value_range == other.value_range
    }
}

struct CachedTexture {
    source: TextureSource,
    handle: TextureHandle,
    last_used_frame: u64,
}

impl std::fmt::Debug for FigureViewState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FigureViewState")
            .field("textures", &self.textures.len())
            .field("uploads", &self.uploads)
            .finish_non_exhaustive()
    }
}

impl FigureViewState {
    /// An empty state.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many heatmap textures have been uploaded so far (for diagnostics and tests).
    pub fn texture_uploads(&self) -> u64 {
        self.uploads
    }

    /// Number of heatmap textures held.
    pub fn cached_textures(&self) -> usize {
        self.textures.len()
    }

    /// The texture for heatmap `key`, uploaded only when its data or colours changed.
    fn heatmap_texture(
        &mut self,
        ctx: &egui::Context,
        key: (usize, usize),
        heatmap: &Heatmap,
        value_range: (f64, f64),
    ) -> &TextureHandle {
        use std::collections::hash_map::Entry;
        let source = TextureSource::of(heatmap, value_range);
        let frame = self.frame;
        let upload = || {
            let max_side = ctx.input(|i| i.max_texture_side);
            heatmap_color_image(heatmap, value_range, max_side)
        };
        let cached = match self.textures.entry(key) {
            Entry::Occupied(occupied) => {
                let cached = occupied.into_mut();
                if !cached.source.same_as(&source) {
                    cached.handle.set(upload(), TextureOptions::NEAREST);
                    cached.source = source;
                    self.uploads += 1;
                }
                cached
            }
            Entry::Vacant(vacant) => {
                let name = format!("benchtop-heatmap-{}-{}", key.0, key.1);
                let handle = ctx.load_texture(name, upload(), TextureOptions::NEAREST);
                self.uploads += 1;
                vacant.insert(CachedTexture {
                    source,
                    handle,
                    last_used_frame: frame,
                })
            }
        };
        cached.last_used_frame = frame;
        &cached.handle
    }
}

/// The heatmap as an egui image, top row first, subsampled if a side exceeds `max_side`.
fn heatmap_color_image(
    heatmap: &Heatmap,
    value_range: (f64, f64),
    max_side: usize,
) -> egui::ColorImage {
    let (nx, ny) = (heatmap.nx, heatmap.ny);
    let stride = nx.max(ny).div_ceil(max_side.max(1)).max(1);
    let (w, h) = (nx.div_ceil(stride), ny.div_ceil(stride));
    let mut values = Vec::with_capacity(w * h);
    for row in 0..h {
        let data_row = ny - 1 - (row * stride).min(ny - 1);
        for col in 0..w {
            values.push(heatmap.values[data_row * nx + (col * stride).min(nx - 1)]);
        }
    }
    let rgba = map_values_rgba(&values, heatmap.colormap, value_range);
    egui::ColorImage::from_rgba_unmultiplied([w, h], &rgba)
}

/// Adds the bundled DejaVu Sans as a fallback font, so that the superscript minus of log-axis
/// labels (10⁻³) and other symbols have glyphs on screen. Call once at start-up; calling it
/// again does nothing.
pub fn install_figure_font(ctx: &egui::Context) {
    use egui::epaint::text::{FontInsert, FontPriority, InsertFontFamily};
    ctx.add_font(FontInsert::new(
        "benchtop-dejavu-sans",
        egui::FontData::from_static(DEJAVU_SANS_TTF),
        vec![
            InsertFontFamily {
                family: egui::FontFamily::Proportional,
                priority: FontPriority::Lowest,
            },
            InsertFontFamily {
                family: egui::FontFamily::Monospace,
                priority: FontPriority::Lowest,
            },
        ],
    ));
}

/// egui points per typographic point (egui's point is 1/96 inch at scale 1).
const POINTS_PER_PT: f32 = 96.0 / 72.0;

fn c32(c: Rgba) -> Color32 {
    Color32::from_rgba_unmultiplied(c.r, c.g, c.b, c.a)
}

fn line_style(dash: Dash, width: f32) -> LineStyle {
    match dash {
        Dash::Solid => LineStyle::Solid,
        Dash::Dashed => LineStyle::Dashed {
            length: 6.0 + 2.0 * width,
        },
        Dash::Dotted => LineStyle::Dotted {
            spacing: 3.0 + width,
        },
    }
}

fn marker_shape(marker: Marker) -> MarkerShape {
    match marker {
        Marker::Circle => MarkerShape::Circle,
        Marker::Square => MarkerShape::Square,
        Marker::Triangle => MarkerShape::Up,
        Marker::Diamond => MarkerShape::Diamond,
        Marker::Cross => MarkerShape::Cross,
    }
}

fn points(pts: &[(f64, f64)]) -> PlotPoints<'static> {
    pts.iter().map(|&(x, y)| [x, y]).collect()
}

/// Draws a figure into the available space: its title, then the subplots in their grid, on
/// white paper whatever the theme (as exported). Use one [`FigureViewState`] per figure shown.
pub fn show_figure(ui: &mut egui::Ui, figure: &Figure, state: &mut FigureViewState) {
    // Cheap when already installed; the shell should also call it at start-up, before any
    // text is laid out.
    install_figure_font(ui.ctx());
    state.frame += 1;
    let view = prepare_figure_cached(figure, &mut state.stats);
    state.stats.end_frame();
    let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::hover());
    // Figures are drawn on light "paper" in any theme, as they are exported.
    let mut paper = ui.new_child(UiBuilder::new().max_rect(rect).id_salt(response.id));
    *paper.visuals_mut() = egui::Visuals::light();
    paper.painter().rect_filled(rect, 0.0, Color32::WHITE);
    let ui = &mut paper;
    let mut area = rect;
    if !figure.title.is_empty() {
        let title_rect = Rect::from_min_size(area.min, vec2(area.width(), TITLE_ROW + 4.0));
        ui.painter().text(
            title_rect.center(),
            Align2::CENTER_CENTER,
            &figure.title,
            FontId::proportional(16.0),
            ui.visuals().strong_text_color(),
        );
        area.min.y += TITLE_ROW + 4.0;
    }
    let (rows, cols) = figure.layout();
    let cell = vec2(area.width() / cols as f32, area.height() / rows as f32);
    for (i, subplot) in view.subplots.iter().enumerate() {
        let (row, col) = (i / cols, i % cols);
        let min = area.min + vec2(col as f32 * cell.x, row as f32 * cell.y);
        let cell_rect = Rect::from_min_size(min, cell).shrink(4.0);
        ui.scope_builder(
            UiBuilder::new()
                .max_rect(cell_rect)
                .id_salt(("benchtop-subplot", i)),
            |ui| {
                show_subplot(ui, i, subplot, state);
            },
        );
    }
    // Drop textures of heatmaps no longer shown.
    let frame = state.frame;
    state.textures.retain(|_, c| c.last_used_frame == frame);
}

fn show_subplot(
    ui: &mut egui::Ui,
    index: usize,
    view: &SubplotView<'_>,
    state: &mut FigureViewState,
) {
    let rect = ui.max_rect();
    let mut plot_rect = rect;
    let src = view.src;
    if !src.title.is_empty() {
        ui.painter().text(
            pos2(rect.center().x, rect.min.y + TITLE_ROW / 2.0),
            Align2::CENTER_CENTER,
            &src.title,
            FontId::proportional(14.0),
            ui.visuals().text_color(),
        );
        plot_rect.min.y += TITLE_ROW;
    }
    let strips = view.colorbars.len() as f32 * COLORBAR_STRIP;
    plot_rect.max.x -= strips;
    if plot_rect.width() < 20.0 || plot_rect.height() < 20.0 {
        return;
    }

    let has_heatmap = view
        .items
        .iter()
        .any(|i| matches!(i, ItemView::Heatmap { .. }));
    let (x_range, y_range) = (view.x.range, view.y.range);
    let x_axis = view.x.clone();
    let y_axis = view.y.clone();
    let (hover_x, hover_y) = (view.x.clone(), view.y.clone());
    let ranges = [
        x_range.0.to_bits(),
        x_range.1.to_bits(),
        y_range.0.to_bits(),
        y_range.1.to_bits(),
    ];
    let data_changed = state.shown_ranges.insert(index, ranges) != Some(ranges);
    let mut plot = Plot::new(("benchtop-plot", state.view_id, index))
        .width(plot_rect.width())
        .height(plot_rect.height())
        .x_axis_label(view.x.label.clone())
        .y_axis_label(view.y.label.clone())
        .default_x_bounds(x_range.0, x_range.1)
        .default_y_bounds(y_range.0, y_range.1)
        .show_grid(!has_heatmap)
        .label_formatter(move |pos: &HoverPosition<'_>| {
            let (name, p) = match pos {
                HoverPosition::NearDataPoint {
                    plot_name,
                    position,
                    ..
                } => (*plot_name, *position),
                HoverPosition::Elsewhere { position } => ("", *position),
            };
            let x = hover_value(&hover_x, p.x);
            let y = hover_value(&hover_y, p.y);
            Some(if name.is_empty() {
                format!("x = {x}\ny = {y}")
            } else {
                format!("{name}\nx = {x}\ny = {y}")
            })
        });
    if src.legend {
        plot = plot.legend(
            Legend::default()
                .position(match view.legend_corner() {
                    LegendCorner::TopRight => Corner::RightTop,
                    LegendCorner::TopLeft => Corner::LeftTop,
                    LegendCorner::BottomRight => Corner::RightBottom,
                    LegendCorner::BottomLeft => Corner::LeftBottom,
                })
                .follow_insertion_order(true),
        );
    }
    if src.equal_aspect {
        plot = plot.data_aspect(1.0);
    }
    if data_changed {
        plot = plot.reset();
    }
    if let Some(spacer) = grid_spacer(&x_axis, 80.0) {
        plot = plot.x_grid_spacer(spacer);
    }
    if let Some(spacer) = grid_spacer(&y_axis, 40.0) {
        plot = plot.y_grid_spacer(spacer);
    }
    let (fx, fy) = (x_axis.clone(), y_axis.clone());
    plot = plot
        .x_axis_formatter(move |mark, range| axis_label(&fx, mark, range))
        .y_axis_formatter(move |mark, range| axis_label(&fy, mark, range));

    // Textures first (they need the state), then the plot closure owns everything it draws.
    let mut images = Vec::new();
    for (item_index, item) in view.items.iter().enumerate() {
        if let ItemView::Heatmap {
            src,
            extent,
            value_range,
        } = item
        {
            let texture = state.heatmap_texture(ui.ctx(), (index, item_index), src, *value_range);
            let (x0, x1, y0, y1) = *extent;
            let center = PlotPoint::new((x0 + x1) / 2.0, (y0 + y1) / 2.0);
            let size = vec2((x1 - x0).abs() as f32, (y1 - y0).abs() as f32);
            // UV (0,0) is the image's top-left, which is (x0, y1) unless an extent is reversed.
            let (u0, u1) = if x1 >= x0 { (0.0, 1.0) } else { (1.0, 0.0) };
            let (v0, v1) = if y1 >= y0 { (0.0, 1.0) } else { (1.0, 0.0) };
            images.push((
                item_index,
                PlotImage::new(src.name.clone(), texture.id(), center, size)
                    .uv(Rect::from_min_max(pos2(u0, v0), pos2(u1, v1))),
            ));
        }
    }
    let items: Vec<OwnedItem> = view
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| OwnedItem::from_view(i, item, &mut images, (x_range, y_range)))
        .collect();

    let inner = ui.scope_builder(UiBuilder::new().max_rect(plot_rect), |ui| {
        plot.show(ui, move |plot_ui| {
            for item in items {
                item.draw(plot_ui);
            }
        })
    });
    let frame_rect = inner.inner.transform.frame();
    let mut x = plot_rect.max.x;
    for spec in &view.colorbars {
        let strip = Rect::from_min_max(
            pos2(x, frame_rect.min.y),
            pos2(x + COLORBAR_STRIP, frame_rect.max.y),
        );
        draw_colorbar(ui, spec, strip);
        x += COLORBAR_STRIP;
    }
}

/// A hover readout: data value (10^v on log axes), or the category name.
fn hover_value(axis: &AxisView, v: f64) -> String {
    if let Some(names) = &axis.categories {
        let i = v.round();
        if i >= 0.0 && (i as usize) < names.len() {
            return names[i as usize].clone();
        }
    }
    let value = axis.value_of(v);
    let step = nice_step((axis.range.1 - axis.range.0).abs(), 200);
    match axis.scale {
        Scale::Linear => format_number(value, step),
        // About four significant digits.
        Scale::Log10 => format_number(value, 10f64.powf(v.floor() - 3.0)),
    }
}

/// Grid marks: 1–2–5 steps with labelled marks about `label_px` apart (like the exported
/// ticks) on linear axes, decades on log axes, integers on category axes.
fn grid_spacer(axis: &AxisView, label_px: f64) -> Option<Box<dyn Fn(GridInput) -> Vec<GridMark>>> {
    if axis.categories.is_some() {
        return Some(Box::new(|input: GridInput| {
            let (lo, hi) = input.bounds;
            let step = nice_step(hi - lo, 12).max(1.0).round();
            let mut marks = Vec::new();
            let mut k = (lo / step).ceil() * step;
            while k <= hi && marks.len() < 1000 {
                marks.push(GridMark {
                    value: k,
                    step_size: step,
                });
                k += step;
            }
            marks
        }));
    }
    if axis.scale == Scale::Linear {
        return Some(Box::new(move |input: GridInput| {
            linear_marks(&input, label_px)
        }));
    }
    if axis.scale == Scale::Log10 {
        return Some(Box::new(|input: GridInput| {
            let (lo, hi) = input.bounds;
            let mut marks = Vec::new();
            if !(lo.is_finite() && hi.is_finite()) || hi - lo > 600.0 {
                return marks;
            }
            let decades = hi - lo;
            let stride = (decades / 8.0).ceil().max(1.0);
            let mut k = (lo / stride).floor() * stride;
            while k <= hi {
                marks.push(GridMark {
                    value: k,
                    step_size: stride,
                });
                if stride == 1.0 && decades < 6.0 {
                    for m in 2..10 {
                        marks.push(GridMark {
                            value: k + f64::from(m).log10(),
                            step_size: 0.1,
                        });
                    }
                }
                k += stride;
            }
            marks
        }));
    }
    None
}

/// Egui's default minimum grid spacing in points, which `GridInput::base_step_size` is based on.
const EGUI_MIN_GRID_SPACING: f64 = 8.0;

/// Linear grid marks: major 1–2–5 steps at least `label_px` apart, minor fifths (quarters for
/// steps of 2) for the faint lines. On an axis too short for two labels that far apart (a
/// narrow equal-aspect plot), the major step shrinks until two labelled marks fit.
fn linear_marks(input: &GridInput, label_px: f64) -> Vec<GridMark> {
    let (lo, hi) = input.bounds;
    let per_px = input.base_step_size / EGUI_MIN_GRID_SPACING;
    if !(lo.is_finite() && hi.is_finite() && per_px.is_finite() && per_px > 0.0) || hi <= lo {
        return Vec::new();
    }
    let mut major = nice_step(per_px * label_px, 1);
    let labelled = |step: f64| (hi / step).floor() - (lo / step).ceil() + 1.0;
    for _ in 0..3 {
        if labelled(major) >= 2.0 {
            break;
        }
        major = smaller_nice_step(major);
    }
    let mantissa = major / 10f64.powf(major.log10().floor());
    let minor = if (mantissa - 2.0).abs() < 1e-6 {
        major / 4.0
    } else {
        major / 5.0
    };
    let first = (lo / minor).floor() as i64;
    let last = (hi / minor).ceil() as i64;
    if last - first > 10_000 {
        return Vec::new();
    }
    (first..=last)
        .map(|k| {
            let value = k as f64 * minor;
            let on_major = ((value / major).round() * major - value).abs() < minor * 1e-6;
            GridMark {
                value: if on_major {
                    (value / major).round() * major
                } else {
                    value
                },
                step_size: if on_major { major } else { minor },
            }
        })
        .collect()
}

/// The next 1–2–5 step below `step` (5 → 2 → 1 → 0.5 …).
fn smaller_nice_step(step: f64) -> f64 {
    let magnitude = 10f64.powf(step.log10().floor());
    let mantissa = (step / magnitude).round();
    if mantissa >= 5.0 {
        2.0 * magnitude
    } else if mantissa >= 2.0 {
        magnitude
    } else {
        0.5 * magnitude
    }
}

/// Tick label text for a grid mark.
fn axis_label(axis: &AxisView, mark: GridMark, range: &std::ops::RangeInclusive<f64>) -> String {
    let v = mark.value;
    // egui_plot draws the label of every mark it is given, even one outside the axis, where
    // it lands on whatever is next to the plot.
    if !range.contains(&v) {
        return String::new();
    }
    if let Some(names) = &axis.categories {
        let i = v.round();
        return if (v - i).abs() < 1e-9 && i >= 0.0 && (i as usize) < names.len() {
            names[i as usize].clone()
        } else {
            String::new()
        };
    }
    match axis.scale {
        Scale::Linear => format_number(v, mark.step_size),
        Scale::Log10 => {
            let k = v.round();
            if (v - k).abs() < 1e-9 {
                power_of_ten_label(k as i64)
            } else if range.end() - range.start() < 1.5 {
                let value = 10f64.powf(v);
                format_number(value, 10f64.powf(v.floor()))
            } else {
                String::new()
            }
        }
    }
}

/// A plot item that owns its data, built before entering the plot closure.
enum OwnedItem {
    Many(Vec<OwnedItem>),
    Line(egui_plot::Line<'static>),
    Points(Points<'static>),
    Bars(BarChart),
    Image(PlotImage),
    Arrows(Arrows<'static>),
    Text(egui_plot::Text),
    HLine(egui_plot::HLine),
    VLine(egui_plot::VLine),
}

impl OwnedItem {
    fn draw(self, plot_ui: &mut PlotUi<'_>) {
        match self {
            Self::Many(items) => {
                for item in items {
                    item.draw(plot_ui);
                }
            }
            Self::Line(l) => plot_ui.line(l),
            Self::Points(p) => plot_ui.points(p),
            Self::Bars(b) => plot_ui.bar_chart(b),
            Self::Image(i) => plot_ui.image(i),
            Self::Arrows(a) => plot_ui.arrows(a),
            Self::Text(t) => plot_ui.text(t),
            Self::HLine(h) => plot_ui.hline(h),
            Self::VLine(v) => plot_ui.vline(v),
        }
    }

    fn line(name: &str, pts: &[(f64, f64)], color: Rgba, width_pt: f64, dash: Dash) -> Self {
        let width = width_pt as f32 * POINTS_PER_PT;
        Self::Line(
            egui_plot::Line::new(name.to_owned(), points(pts))
                .color(c32(color))
                .width(width)
                .style(line_style(dash, width)),
        )
    }

    fn from_view(
        index: usize,
        item: &ItemView<'_>,
        images: &mut Vec<(usize, PlotImage)>,
        ranges: ((f64, f64), (f64, f64)),
    ) -> Self {
        let y_bottom = ranges.1.0;
        match item {
            ItemView::Line {
                name,
                color,
                width_pt,
                dash,
                segments,
            } => Self::Many(
                segments
                    .iter()
                    .map(|s| Self::line(name, s, *color, *width_pt, *dash))
                    .collect(),
            ),
            ItemView::Scatter {
                name,
                color,
                marker,
                size_pt,
                points: pts,
            } => {
                // One egui item per colour, all under the same legend name.
                let mut groups: Vec<(Rgba, Vec<[f64; 2]>)> = Vec::new();
                for &((x, y), c) in pts {
                    match groups.iter_mut().find(|(gc, _)| *gc == c) {
                        Some((_, g)) => g.push([x, y]),
                        None => groups.push((c, vec![[x, y]])),
                    }
                }
                if groups.is_empty() {
                    groups.push((*color, Vec::new()));
                }
                Self::Many(
                    groups
                        .into_iter()
                        .map(|(c, g)| {
                            Self::Points(
                                Points::new(name.to_string(), PlotPoints::from(g))
                                    .color(c32(c))
                                    .radius(*size_pt as f32 * POINTS_PER_PT)
                                    .shape(marker_shape(*marker))
                                    .filled(true),
                            )
                        })
                        .collect(),
                )
            }
            ItemView::ErrorBars {
                name,
                color,
                width_pt,
                marker_pt,
                bars,
            } => {
                let mut out = Vec::new();
                for b in bars {
                    let (x, y) = b.center;
                    out.push(Self::line(
                        name,
                        &[(x, b.y_span.0), (x, b.y_span.1)],
                        *color,
                        *width_pt,
                        Dash::Solid,
                    ));
                    if let Some((x0, x1)) = b.x_span {
                        out.push(Self::line(
                            name,
                            &[(x0, y), (x1, y)],
                            *color,
                            *width_pt,
                            Dash::Solid,
                        ));
                    }
                }
                if *marker_pt > 0.0 {
                    let centers: Vec<[f64; 2]> =
                        bars.iter().map(|b| [b.center.0, b.center.1]).collect();
                    out.push(Self::Points(
                        Points::new(name.to_string(), PlotPoints::from(centers))
                            .color(c32(*color))
                            .radius(*marker_pt as f32 * POINTS_PER_PT)
                            .filled(true),
                    ));
                }
                Self::Many(out)
            }
            ItemView::Bars { name, color, bars } => {
                let egui_bars = bars
                    .iter()
                    .map(|b| {
                        let bottom = b.bottom.unwrap_or(y_bottom);
                        Bar::new((b.x0 + b.x1) / 2.0, b.top - bottom)
                            .width((b.x1 - b.x0).abs())
                            .fill(c32(b.color))
                            .base_offset(bottom)
                    })
                    .collect();
                Self::Bars(BarChart::new(name.to_string(), egui_bars).color(c32(*color)))
            }
            ItemView::Heatmap { .. } => match images.iter().position(|(i, _)| *i == index) {
                Some(at) => Self::Image(images.swap_remove(at).1),
                None => Self::Many(Vec::new()),
            },
            ItemView::VectorField {
                name,
                color,
                arrows,
                streamlines,
            } => {
                let mut out: Vec<Self> = streamlines
                    .iter()
                    .map(|s| Self::line(name, s, *color, 0.9, Dash::Solid))
                    .collect();
                if !arrows.is_empty() {
                    let origins: Vec<[f64; 2]> = arrows.iter().map(|(o, _)| [o.0, o.1]).collect();
                    let tips: Vec<[f64; 2]> = arrows.iter().map(|(_, t)| [t.0, t.1]).collect();
                    out.push(Self::Arrows(
                        Arrows::new(
                            name.to_string(),
                            PlotPoints::from(origins),
                            PlotPoints::from(tips),
                        )
                        .color(c32(*color))
                        .tip_length(6.0),
                    ));
                }
                Self::Many(out)
            }
            ItemView::Graph {
                edges,
                nodes,
                label_size_pt,
            } => {
                let mut out: Vec<Self> = edges
                    .iter()
                    .map(|e| Self::line("", &[e.from, e.to], e.color, e.width_pt, Dash::Solid))
                    .collect();
                for &((x, y), node) in nodes {
                    out.push(Self::Points(
                        Points::new("", PlotPoints::from(vec![[x, y]]))
                            .color(c32(node.color))
                            .radius(node.radius_pt as f32 * POINTS_PER_PT)
                            .filled(true),
                    ));
                    if !node.label.is_empty() {
                        out.push(Self::Text(
                            egui_plot::Text::new(
                                "",
                                PlotPoint::new(x, y),
                                RichText::new(format!("   {}", node.label))
                                    .size(*label_size_pt as f32 * POINTS_PER_PT),
                            )
                            .anchor(Align2::LEFT_CENTER),
                        ));
                    }
                }
                Self::Many(out)
            }
            ItemView::Text { position, src } => {
                let anchor = match src.anchor {
                    TextAnchor::Left => Align2::LEFT_CENTER,
                    TextAnchor::Center => Align2::CENTER_CENTER,
                    TextAnchor::Right => Align2::RIGHT_CENTER,
                };
                Self::Text(
                    egui_plot::Text::new(
                        "",
                        PlotPoint::new(position.0, position.1),
                        RichText::new(src.text.clone()).size(src.size_pt as f32 * POINTS_PER_PT),
                    )
                    .color(c32(src.color))
                    .anchor(anchor),
                )
            }
            ItemView::HLine { y, src } => {
                let w = src.width_pt as f32 * POINTS_PER_PT;
                let line = Self::HLine(
                    egui_plot::HLine::new(src.label.clone(), *y)
                        .color(c32(src.color))
                        .width(w)
                        .style(line_style(src.dash, w)),
                );
                let label = ref_label(
                    &src.label,
                    (ranges.0.1, *y),
                    src.color,
                    Align2::RIGHT_BOTTOM,
                );
                Self::Many(vec![line, label])
            }
            ItemView::VLine { x, src } => {
                let w = src.width_pt as f32 * POINTS_PER_PT;
                let line = Self::VLine(
                    egui_plot::VLine::new(src.label.clone(), *x)
                        .color(c32(src.color))
                        .width(w)
                        .style(line_style(src.dash, w)),
                );
                let label = ref_label(&src.label, (*x, ranges.1.1), src.color, Align2::LEFT_TOP);
                Self::Many(vec![line, label])
            }
        }
    }
}

/// The label of a reference line, placed at the edge of the default view.
fn ref_label(text: &str, (x, y): (f64, f64), color: Rgba, anchor: Align2) -> OwnedItem {
    if text.is_empty() {
        return OwnedItem::Many(Vec::new());
    }
    OwnedItem::Text(
        egui_plot::Text::new(
            "",
            PlotPoint::new(x, y),
            RichText::new(format!(" {text} ")).size(8.5 * POINTS_PER_PT),
        )
        .color(c32(color))
        .anchor(anchor),
    )
}

/// A vertical colour gradient with value ticks and the label, in `strip`.
fn draw_colorbar(ui: &egui::Ui, spec: &ColorbarSpec, strip: Rect) {
    let painter = ui.painter();
    let text_color = ui.visuals().text_color();
    let bar = Rect::from_min_max(
        pos2(strip.min.x + 8.0, strip.min.y),
        pos2(strip.min.x + 22.0, strip.max.y),
    );
    let slices = 128;
    for i in 0..slices {
        let t0 = i as f32 / slices as f32;
        let t1 = (i + 1) as f32 / slices as f32;
        let c = spec
            .colormap
            .color_at((f64::from(t0) + f64::from(t1)) / 2.0);
        let r = Rect::from_min_max(
            pos2(bar.min.x, bar.max.y - t1 * bar.height()),
            pos2(bar.max.x, bar.max.y - t0 * bar.height() + 0.5),
        );
        painter.rect_filled(r, 0.0, c32(c));
    }
    painter.rect_stroke(
        bar,
        0.0,
        egui::Stroke::new(1.0, text_color),
        egui::StrokeKind::Inside,
    );
    let (lo, hi) = spec.value_range;
    let font = FontId::proportional(11.0);
    let mut label_w: f32 = 0.0;
    for t in linear_ticks(lo, hi, 5) {
        let f = if hi > lo {
            ((t.position - lo) / (hi - lo)) as f32
        } else {
            0.5
        };
        let y = bar.max.y - f * bar.height();
        painter.line_segment(
            [pos2(bar.max.x, y), pos2(bar.max.x + 4.0, y)],
            egui::Stroke::new(1.0, text_color),
        );
        let r = painter.text(
            pos2(bar.max.x + 6.0, y),
            Align2::LEFT_CENTER,
            &t.label,
            font.clone(),
            text_color,
        );
        label_w = label_w.max(r.width());
    }
    if !spec.label.is_empty() {
        let galley =
            painter.layout_no_wrap(spec.label.clone(), FontId::proportional(12.0), text_color);
        let x = (bar.max.x + 10.0 + label_w + 2.0).min(strip.max.x - galley.size().y);
        let y = bar.center().y + galley.size().x / 2.0;
        painter.add(
            TextShape::new(pos2(x, y), galley, text_color).with_angle(-std::f32::consts::FRAC_PI_2),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figure::model::{Item, Subplot};
    use egui_kittest::Harness;

    fn heatmap_figure() -> Figure {
        let values: Vec<f64> = (0..6).map(f64::from).collect();
        Figure::new("Screen")
            .grid(1, 2)
            .subplot(
                Subplot::new("Map").heatmap(
                    Heatmap::new("field", (0.0, 3.0), (0.0, 2.0), 3, 2, values)
                        .colormap(Colormap::Cividis)
                        .colorbar_label("Value"),
                ),
            )
            .subplot(
                Subplot::new("Spectrum")
                    .x_scale(Scale::Log10)
                    .y_scale(Scale::Log10)
                    .x_label("Frequency (Hz)")
                    .line("psd", [1.0, 10.0, 100.0, 0.0], [1.0, 0.1, 0.01, f64::NAN])
                    .legend(true),
            )
    }

    type State = (Figure, FigureViewState);

    fn harness(figure: Figure) -> Harness<'static, State> {
        Harness::builder()
            .with_size(vec2(900.0, 420.0))
            .build_ui_state(
                |ui, (figure, state): &mut State| show_figure(ui, figure, state),
                (figure, FigureViewState::new()),
            )
    }

    #[test]
    fn heatmap_textures_are_uploaded_only_when_the_data_change() {
        let mut h = harness(heatmap_figure());
        h.run();
        assert_eq!(h.state().1.texture_uploads(), 1);
        assert_eq!(h.state().1.cached_textures(), 1);
        h.run_steps(3);
        assert_eq!(
            h.state().1.texture_uploads(),
            1,
            "re-uploaded unchanged data"
        );
        if let Item::Heatmap(heatmap) = &mut h.state_mut().0.subplots[0].items[0] {
            heatmap.values_mut()[4] = 100.0;
        }
        h.run_steps(1);
        assert_eq!(h.state().1.texture_uploads(), 2);
        // The heatmap removed: its texture is dropped.
        h.state_mut().0.subplots[0].items.clear();
        h.run_steps(1);
        assert_eq!(h.state().1.cached_textures(), 0);
    }

    #[test]
    fn heatmap_image_is_top_row_first_and_fits_the_texture_limit() {
        let heatmap = Heatmap::new("h", (0.0, 1.0), (0.0, 1.0), 2, 2, [0.0, 1.0, 2.0, 3.0]);
        let image = heatmap_color_image(&heatmap, (0.0, 3.0), 4096);
        assert_eq!(image.size, [2, 2]);
        assert_eq!(image.pixels[0], c32(Colormap::Viridis.color_at(2.0 / 3.0)));
        assert_eq!(image.pixels[3], c32(Colormap::Viridis.color_at(1.0 / 3.0)));
        let big = Heatmap::new("b", (0.0, 1.0), (0.0, 1.0), 10, 3, vec![0.5; 30]);
        assert_eq!(heatmap_color_image(&big, (0.0, 1.0), 4).size, [4, 1]);
        let source = TextureSource::of(&big, (0.0, 1.0));
        assert!(source.same_as(&TextureSource::of(&big.clone(), (0.0, 1.0))));
        assert!(!source.same_as(&TextureSource::of(&big, (0.0, 2.0))));
        let mut changed = big.clone();
        changed.values_mut()[29] = 0.25;
        assert!(!source.same_as(&TextureSource::of(&changed, (0.0, 1.0))));
    }

    #[test]
    fn a_short_linear_axis_still_gets_two_labelled_marks() {
        let majors = |bounds: (f64, f64), px: f64| -> Vec<f64> {
            let input = GridInput {
                bounds,
                base_step_size: (bounds.1 - bounds.0) / px * EGUI_MIN_GRID_SPACING,
            };
            let marks = linear_marks(&input, 80.0);
            let major = marks.iter().map(|m| m.step_size).fold(0.0, f64::max);
            marks
                .iter()
                .filter(|m| m.step_size == major && m.value >= bounds.0 && m.value <= bounds.1)
                .map(|m| m.value)
                .collect()
        };
        // 3.4 units over 245 px: 80 px asks for a step of 2, which labels only 0.
        assert_eq!(majors((-1.7, 1.7), 245.0), vec![-1.0, 0.0, 1.0]);
        // A wide axis keeps its spacing.
        assert_eq!(
            majors((0.0, 10.0), 400.0),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        assert_eq!(smaller_nice_step(5.0), 2.0);
        assert_eq!(smaller_nice_step(2.0), 1.0);
        assert!((smaller_nice_step(1.0) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn axis_labels_show_decades_and_categories() {
        let log = AxisView {
            label: String::new(),
            scale: Scale::Log10,
            range: (-3.0, 3.0),
            categories: None,
        };
        let mark = |value: f64, step_size: f64| GridMark { value, step_size };
        assert_eq!(axis_label(&log, mark(-2.0, 1.0), &(-3.0..=3.0)), "10⁻²");
        assert_eq!(axis_label(&log, mark(0.301, 0.1), &(-3.0..=3.0)), "");
        assert_eq!(axis_label(&log, mark(2f64.log10(), 0.1), &(0.0..=1.0)), "2");
        let cats = AxisView {
            categories: Some(vec!["a".to_owned(), "b".to_owned()]),
            scale: Scale::Linear,
            ..log
        };
        assert_eq!(axis_label(&cats, mark(1.0, 1.0), &(0.0..=1.0)), "b");
        assert_eq!(axis_label(&cats, mark(0.5, 0.5), &(0.0..=1.0)), "");
        let lin = AxisView {
            categories: None,
            ..cats.clone()
        };
        assert_eq!(axis_label(&lin, mark(0.4, 0.2), &(0.0..=1.0)), "0.4");
        assert_eq!(hover_value(&cats, 0.2), "a");
    }
}
