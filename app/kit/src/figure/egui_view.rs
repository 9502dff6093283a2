//! The screen renderer: draws a figure with egui_plot (pan, zoom, legend, hover), heatmaps as
//! cached textures, colorbars beside the plots, and log axes as log10 values with 10ⁿ labels.
//! It draws exactly what [`super::prepare`] decides, like the file renderer.

use std::collections::HashMap;
use std::sync::Arc;

use egui::epaint::TextShape;
use egui::text::{LayoutJob, TextFormat};
use egui::{
    Align, Align2, Color32, FontId, Rect, RichText, Sense, TextureHandle, TextureOptions,
    UiBuilder, WidgetText, pos2, vec2,
};
use egui_plot::{
    Arrows, AxisHints, Bar, BarChart, GridInput, GridMark, HoverPosition, LineStyle, MarkerShape,
    Plot, PlotImage, PlotPoint, PlotPoints, PlotUi, Points,
};

use super::colormap::{Colormap, Rgba, map_values_rgba};
use super::fonts::{DEJAVU_SANS_TTF, text_width};
use super::layout::{LayoutRecord, TextBox, TextRole, fit_title};
use super::model::{Dash, Figure, Heatmap, Marker, Scale, TextAnchor};
use super::prepare::{
    AxisView, ColorbarSpec, ItemView, LegendCorner, LegendPlace, LegendSample, StatsCache,
    SubplotView, legend_entries, prepare_figure_cached,
};
use super::raster::rasterize_svg;
use super::rich;
use super::ticks::{
    Tick, X_TICK_SPACING_PT, Y_TICK_SPACING_PT, axis_ticks, format_number, linear_ticks, nice_step,
};

/// The gestures the plots understand, for the status bar while a figure is hovered.
pub const ZOOM_HINT: &str =
    "Figure: drag to pan · Ctrl+scroll or right-drag a box to zoom · double-click to reset";

/// Where [`show_figure`] notes the pass in which a figure was last under the pointer.
fn hovered_id() -> egui::Id {
    egui::Id::unique("benchtop-figure-hovered")
}

/// Whether a figure was under the pointer in this pass or the one before (the status bar,
/// drawn before or after the figures, then shows [`ZOOM_HINT`]).
pub fn figure_hovered(ctx: &egui::Context) -> bool {
    let pass = ctx.cumulative_pass_nr();
    ctx.data(|d| d.get_temp::<u64>(hovered_id()))
        .is_some_and(|at| at + 1 >= pass)
}

/// Width reserved for one colorbar, in egui points.
const COLORBAR_STRIP: f32 = 76.0;
/// Fraction of each axis' span the screen adds at both ends of plots without images, so that
/// the labels of ticks at the ends are not cut by the frame.
const SCREEN_EDGE_PAD: f64 = 0.03;
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
    /// Rasterised pictures by (subplot, item).
    pictures: HashMap<(usize, usize), CachedPicture>,
    /// The bounds (min, max corners in view units) each subplot was drawn with last, after
    /// the user's pan and zoom.
    drawn_bounds: HashMap<usize, ([f64; 2], [f64; 2])>,
}

/// A picture rasterised at one pixel size.
struct CachedPicture {
    /// Hash of the SVG text and the pixel size it was rasterised at.
    source: u64,
    handle: TextureHandle,
    last_used_frame: u64,
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
            pictures: HashMap::new(),
            drawn_bounds: HashMap::new(),
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

    /// The texture of picture `key` rasterised at `size_px`, redone only when the SVG or the
    /// size changed; `None` if the SVG cannot be rasterised.
    fn picture_texture(
        &mut self,
        ctx: &egui::Context,
        key: (usize, usize),
        svg: &str,
        size_px: [u32; 2],
    ) -> Option<&TextureHandle> {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (svg, size_px).hash(&mut hasher);
        let source = hasher.finish();
        let frame = self.frame;
        let fresh = self.pictures.get(&key).is_none_or(|c| c.source != source);
        if fresh {
            let rgba = rasterize_svg(svg, size_px[0], size_px[1])?;
            let image = egui::ColorImage::from_rgba_premultiplied(
                [size_px[0] as usize, size_px[1] as usize],
                &rgba,
            );
            let name = format!("benchtop-picture-{}-{}", key.0, key.1);
            let handle = ctx.load_texture(name, image, TextureOptions::LINEAR);
            self.uploads += 1;
            self.pictures.insert(
                key,
                CachedPicture {
                    source,
                    handle,
                    last_used_frame: frame,
                },
            );
        }
        let cached = self.pictures.get_mut(&key)?;
        cached.last_used_frame = frame;
        Some(&cached.handle)
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
        let color = ui.visuals().strong_text_color();
        area.min.y = paint_title(ui.painter(), &figure.title, 16.0, area, color) + 4.0;
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
    // The status bar says how to zoom and pan while the pointer is over a figure.
    if response.contains_pointer() {
        let pass = ui.ctx().cumulative_pass_nr();
        ui.ctx().data_mut(|d| d.insert_temp(hovered_id(), pass));
    }
    // Drop textures of heatmaps no longer shown.
    let frame = state.frame;
    state.textures.retain(|_, c| c.last_used_frame == frame);
    state.pictures.retain(|_, c| c.last_used_frame == frame);
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
        let color = ui.visuals().text_color();
        plot_rect.min.y = paint_title(ui.painter(), &src.title, 14.0, rect, color);
    }
    let strips = view.colorbars.len() as f32 * COLORBAR_STRIP;
    plot_rect.max.x -= strips;
    if plot_rect.width() < 20.0 || plot_rect.height() < 20.0 {
        return;
    }
    // The legend goes where the export puts it: a free corner, or beside the plot.
    let legend = if src.legend { legend_size(view) } else { None };
    let place = legend.map(|size| {
        let margin = 2.0 * LEGEND_MARGIN;
        view.legend_place((
            f64::from((size.x + margin) / plot_rect.width()),
            f64::from((size.y + margin) / plot_rect.height()),
        ))
    });
    let mut place = place;
    if let (Some(LegendPlace::Outside), Some(size)) = (place, legend) {
        if size.x + LEGEND_MARGIN <= 0.4 * plot_rect.width() {
            plot_rect.max.x -= size.x + LEGEND_MARGIN;
        } else {
            // No room beside the plot: inside after all, in the corner that covers least.
            let frac = (
                f64::from((size.x + 2.0 * LEGEND_MARGIN) / plot_rect.width()),
                f64::from((size.y + 2.0 * LEGEND_MARGIN) / plot_rect.height()),
            );
            place = Some(LegendPlace::Corner(view.least_covered_corner(frac).0));
        }
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
    // egui_plot clips tick labels to the frame, so a tick at the very end of an axis (1.0 on
    // a 0–1 axis, the 0.0 where both axes meet) loses half its label: the screen shows a
    // sliver more around plots without images.
    let has_image = view
        .items
        .iter()
        .any(|i| matches!(i, ItemView::Heatmap { .. } | ItemView::Picture { .. }));
    let edge = if has_image || src.hide_axes {
        0.0
    } else {
        SCREEN_EDGE_PAD
    };
    let widen = |(lo, hi): (f64, f64)| (lo - edge * (hi - lo), hi + edge * (hi - lo));
    let (shown_x, shown_y) = (widen(x_range), widen(y_range));
    // The wheel scrolls the page, not the data (Ctrl+wheel zooms, dragging pans).
    let mut plot = Plot::new(("benchtop-plot", state.view_id, index))
        .allow_scroll(false)
        .width(plot_rect.width())
        .height(plot_rect.height())
        .default_x_bounds(shown_x.0, shown_x.1)
        .default_y_bounds(shown_y.0, shown_y.1)
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
    if src.equal_aspect {
        plot = plot.data_aspect(1.0);
    }
    if src.hide_axes {
        plot = plot
            .show_axes(false)
            .show_grid(false)
            .show_background(false);
    }
    if data_changed {
        plot = plot.reset();
    }
    let (x_ticks, y_ticks) = (SharedTicks::default(), SharedTicks::default());
    let (x_ticks_for_labels, y_ticks_for_labels) = (x_ticks.clone(), y_ticks.clone());
    let axis_title = |axis: &AxisView| {
        let text = if src.hide_axes { "" } else { &axis.label };
        // Placeholder colour: egui_plot paints axis titles in the theme's text colour.
        WidgetText::LayoutJob(Arc::new(rich_job(
            text,
            AXIS_TITLE_SIZE,
            Color32::PLACEHOLDER,
        )))
    };
    // Labels at full strength whatever their spacing: which labels fit was decided with the
    // ticks (egui_plot still skips one wider than its spacing).
    let x_hints = AxisHints::new_x()
        .label(axis_title(&x_axis))
        .label_spacing(0.0..=1.0)
        .formatter(move |mark, range| tick_label(&x_ticks_for_labels, mark, range));
    let y_hints = AxisHints::new_y()
        .label(axis_title(&y_axis))
        .label_spacing(0.0..=1.0)
        .formatter(move |mark, range| tick_label(&y_ticks_for_labels, mark, range));
    plot = plot
        .x_grid_spacer(grid_spacer(&x_axis, X_TICK_SPACING_PT, x_ticks))
        .y_grid_spacer(grid_spacer(&y_axis, Y_TICK_SPACING_PT, y_ticks))
        // Faint grid lines at the ticks, like the export's light grey.
        .grid_spacing(8.0..=1500.0)
        .custom_x_axes(vec![x_hints])
        .custom_y_axes(vec![y_hints]);

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
    let pixels_per_point = ui.ctx().pixels_per_point();
    for (item_index, item) in view.items.iter().enumerate() {
        if let ItemView::Picture { src, extent, .. } = item {
            let (x0, x1, y0, y1) = *extent;
            // Rasterised at the largest size it can take in this plot, in physical pixels.
            let (span_x, span_y) = (x_range.1 - x_range.0, y_range.1 - y_range.0);
            let scale = (f64::from(plot_rect.width()) / span_x)
                .min(f64::from(plot_rect.height()) / span_y)
                * f64::from(pixels_per_point);
            let size_px = [
                ((x1 - x0) * scale).round().clamp(1.0, 4096.0) as u32,
                ((y1 - y0) * scale).round().clamp(1.0, 4096.0) as u32,
            ];
            if let Some(texture) =
                state.picture_texture(ui.ctx(), (index, item_index), &src.svg, size_px)
            {
                let center = PlotPoint::new((x0 + x1) / 2.0, (y0 + y1) / 2.0);
                let size = vec2((x1 - x0) as f32, (y1 - y0) as f32);
                images.push((
                    item_index,
                    PlotImage::new(src.name.clone(), texture.id(), center, size),
                ));
            }
        }
    }
    let spots = ref_label_spots(ui, &view.items, plot_rect, (x_range, y_range));
    let items: Vec<OwnedItem> = view
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| OwnedItem::from_view(i, item, &mut images, (x_range, y_range), spots[i]))
        .collect();

    let inner = ui.scope_builder(UiBuilder::new().max_rect(plot_rect), |ui| {
        plot.show(ui, move |plot_ui| {
            for item in items {
                item.draw(plot_ui);
            }
        })
    });
    let frame_rect = inner.inner.transform.frame();
    let bounds = inner.inner.transform.bounds();
    state
        .drawn_bounds
        .insert(index, (bounds.min(), bounds.max()));
    if let Some(place) = place {
        draw_legend(ui, view, *frame_rect, place);
    }
    let mut x = plot_rect.max.x;
    if let (Some(LegendPlace::Outside), Some(size)) = (place, legend) {
        x += size.x + LEGEND_MARGIN;
    }
    for spec in &view.colorbars {
        let strip = Rect::from_min_max(
            pos2(x, frame_rect.min.y),
            pos2(x + COLORBAR_STRIP, frame_rect.max.y),
        );
        draw_colorbar(ui, spec, strip);
        x += COLORBAR_STRIP;
    }
}

/// Where the screen renderer places every text of `figure` in a window area of `size` egui
/// points (one headless egui pass, no GPU): each text's box, and in `clipped` the texts that
/// their clip rectangle cuts (a tick label running out of its plot), for the figure check.
pub(crate) fn screen_layout(figure: &Figure, size: (f32, f32)) -> LayoutRecord {
    let ctx = egui::Context::default();
    install_figure_font(&ctx);
    let mut state = FigureViewState::new();
    let input = egui::RawInput {
        screen_rect: Some(Rect::from_min_size(egui::Pos2::ZERO, vec2(size.0, size.1))),
        ..egui::RawInput::default()
    };
    let mut output = None;
    // The first pass loads the fonts and sizes the axes; the second is what a user sees.
    for _ in 0..3 {
        let mut pass = ctx.run_ui(input.clone(), |ui| show_figure(ui, figure, &mut state));
        // No GPU takes the textures here.
        pass.textures_delta.clear();
        output = Some(pass);
    }
    let mut record = LayoutRecord {
        canvas: (f64::from(size.0), f64::from(size.1)),
        units_per_pt: 1.0,
        ..LayoutRecord::default()
    };
    fn collect(shape: &egui::Shape, clip: Rect, record: &mut LayoutRecord) {
        match shape {
            egui::Shape::Text(text) if !text.galley.text().trim().is_empty() => {
                let local = text.galley.rect;
                let r = if text.angle == 0.0 {
                    local.translate(text.pos.to_vec2())
                } else {
                    // egui_plot's y-axis titles: a quarter turn about the text's position.
                    let rot = egui::emath::Rot2::from_angle(text.angle);
                    let corners = [
                        local.left_top(),
                        local.right_top(),
                        local.left_bottom(),
                        local.right_bottom(),
                    ]
                    .map(|c| text.pos + rot * c.to_vec2());
                    Rect::from_points(&corners)
                };
                let rect = super::layout::Rect {
                    x0: f64::from(r.min.x),
                    y0: f64::from(r.min.y),
                    x1: f64::from(r.max.x),
                    y1: f64::from(r.max.y),
                };
                let boxed = TextBox {
                    role: TextRole::OnScreen,
                    text: text.galley.text().to_owned(),
                    rect,
                };
                if !clip.expand(1.0).contains_rect(r) && clip.intersects(r) {
                    record.clipped.push(boxed.clone());
                }
                if clip.intersects(r) {
                    record.texts.push(boxed);
                }
            }
            egui::Shape::Vec(shapes) => shapes.iter().for_each(|s| collect(s, clip, record)),
            _ => {}
        }
    }
    for clipped in output.map(|o| o.shapes).unwrap_or_default() {
        collect(&clipped.shape, clipped.clip_rect, &mut record);
    }
    record
}

/// A hover readout: data value (10^v on log axes), or the category name.
fn hover_value(axis: &AxisView, v: f64) -> String {
    if let Some(named) = &axis.categories {
        let i = (v - named.first).round();
        if i >= 0.0 && (i as usize) < named.names.len() {
            return named.names[i as usize].clone();
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

/// The ticks an axis shows, computed by the grid spacer for the range and length on screen
/// and read back by the label formatter of the same frame.
type SharedTicks = std::sync::Arc<std::sync::Mutex<Vec<Tick>>>;

/// Grid marks at exactly the ticks the export would draw for the range and length shown
/// ([`axis_ticks`], the same spacing in points), so the screen labels what the export labels.
/// Each mark's step is the spacing of the ticks, which egui_plot uses to fade grid lines.
fn grid_spacer(
    axis: &AxisView,
    spacing_pt: f64,
    ticks: SharedTicks,
) -> Box<dyn Fn(GridInput) -> Vec<GridMark>> {
    let axis = axis.clone();
    Box::new(move |input: GridInput| {
        let (lo, hi) = input.bounds;
        let per_point = input.base_step_size / EGUI_MIN_GRID_SPACING;
        if !(lo.is_finite() && hi.is_finite() && per_point.is_finite() && per_point > 0.0)
            || hi <= lo
        {
            return Vec::new();
        }
        let length_pt = (hi - lo) / per_point / f64::from(POINTS_PER_PT);
        let shown = axis_ticks(&axis, (lo, hi), length_pt, spacing_pt);
        let step = shown
            .windows(2)
            .map(|w| (w[1].position - w[0].position).abs())
            .fold(f64::INFINITY, f64::min);
        let step = if step.is_finite() { step } else { hi - lo };
        let marks = shown
            .iter()
            .map(|t| GridMark {
                value: t.position,
                step_size: step,
            })
            .collect();
        if let Ok(mut store) = ticks.lock() {
            *store = shown;
        }
        marks
    })
}

/// Egui's default minimum grid spacing in points, which `GridInput::base_step_size` is based on.
const EGUI_MIN_GRID_SPACING: f64 = 8.0;

/// The label of the tick at a grid mark (empty off the axis: egui_plot draws the label of
/// every mark it is given, even one outside the axis, where it lands on whatever is next to
/// the plot).
fn tick_label(
    ticks: &SharedTicks,
    mark: GridMark,
    range: &std::ops::RangeInclusive<f64>,
) -> String {
    if !range.contains(&mark.value) {
        return String::new();
    }
    let Ok(ticks) = ticks.lock() else {
        return String::new();
    };
    let tolerance = (range.end() - range.start()).abs() * 1e-9;
    ticks
        .iter()
        .find(|t| (t.position - mark.value).abs() <= tolerance)
        .map(|t| t.label.clone())
        .unwrap_or_default()
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
        label_spot: Option<(PlotPoint, Align2)>,
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
            ItemView::Heatmap { .. } | ItemView::Picture { .. } => {
                match images.iter().position(|(i, _)| *i == index) {
                    Some(at) => Self::Image(images.swap_remove(at).1),
                    None => Self::Many(Vec::new()),
                }
            }
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
                        WidgetText::LayoutJob(Arc::new(rich_job(
                            &src.text,
                            src.size_pt as f32 * POINTS_PER_PT,
                            c32(src.color),
                        ))),
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
                let spot =
                    label_spot.unwrap_or((PlotPoint::new(ranges.0.1, *y), Align2::RIGHT_BOTTOM));
                Self::Many(vec![line, ref_label(&src.label, spot, src.color)])
            }
            ItemView::VLine { x, src } => {
                let w = src.width_pt as f32 * POINTS_PER_PT;
                let line = Self::VLine(
                    egui_plot::VLine::new(src.label.clone(), *x)
                        .color(c32(src.color))
                        .width(w)
                        .style(line_style(src.dash, w)),
                );
                let spot = label_spot.unwrap_or((PlotPoint::new(*x, ranges.1.1), Align2::LEFT_TOP));
                Self::Many(vec![line, ref_label(&src.label, spot, src.color)])
            }
        }
    }
}

/// The size of reference-line labels on screen, in points.
const REF_LABEL_SIZE: f32 = 8.5 * POINTS_PER_PT;

/// A reference line's label as laid out (padded by a space on each side).
fn ref_label_job(text: &str, color: Rgba) -> LayoutJob {
    rich_job(&format!(" {text} "), REF_LABEL_SIZE, c32(color))
}

/// Where each reference line's label goes (indexed like `items`; `None` for other items), so
/// that labels of nearby lines do not print over each other, as the export stacks them: a
/// horizontal line's label sits above its right end, else below it, else at the left end; a
/// vertical line's label hangs from the top right of the line, else left of it, else a row
/// lower. Sizes are taken from `plot_rect` (the plot with its axes, a slight overestimate of
/// the data area, so labels keep a little more room than they need).
fn ref_label_spots(
    ui: &egui::Ui,
    items: &[ItemView<'_>],
    plot_rect: Rect,
    (x_range, y_range): ((f64, f64), (f64, f64)),
) -> Vec<Option<(PlotPoint, Align2)>> {
    let frame = plot_rect.shrink2(vec2(0.08 * plot_rect.width(), 0.08 * plot_rect.height()));
    let per_px_x = (x_range.1 - x_range.0) / f64::from(frame.width().max(1.0));
    let per_px_y = (y_range.1 - y_range.0) / f64::from(frame.height().max(1.0));
    // Pixel position of a data point inside the frame.
    let to_px = |x: f64, y: f64| {
        pos2(
            frame.min.x + ((x - x_range.0) / per_px_x) as f32,
            frame.max.y - ((y - y_range.0) / per_px_y) as f32,
        )
    };
    let mut placed: Vec<Rect> = Vec::new();
    let mut spots = vec![None; items.len()];
    for (index, item) in items.iter().enumerate() {
        let (src, candidates) = match item {
            ItemView::HLine { y, src } => (
                src,
                vec![
                    (PlotPoint::new(x_range.1, *y), Align2::RIGHT_BOTTOM),
                    (PlotPoint::new(x_range.1, *y), Align2::RIGHT_TOP),
                    (PlotPoint::new(x_range.0, *y), Align2::LEFT_BOTTOM),
                    (PlotPoint::new(x_range.0, *y), Align2::LEFT_TOP),
                ],
            ),
            ItemView::VLine { x, src } => {
                let row = 1.3 * f64::from(REF_LABEL_SIZE) * per_px_y;
                let at = |k: f64| PlotPoint::new(*x, y_range.1 - k * row);
                (
                    src,
                    vec![
                        (at(0.0), Align2::LEFT_TOP),
                        (at(0.0), Align2::RIGHT_TOP),
                        (at(1.0), Align2::LEFT_TOP),
                        (at(1.0), Align2::RIGHT_TOP),
                        (at(2.0), Align2::LEFT_TOP),
                    ],
                )
            }
            _ => continue,
        };
        if src.label.is_empty() {
            continue;
        }
        let size = ui
            .fonts_mut(|fonts| fonts.layout_job(ref_label_job(&src.label, src.color)))
            .size();
        let boxes: Vec<Rect> = candidates
            .iter()
            .map(|(at, anchor)| anchor.anchor_size(to_px(at.x, at.y), size))
            .collect();
        let free = |r: &Rect| frame.contains_rect(*r) && !placed.iter().any(|p| p.intersects(*r));
        let choice = boxes.iter().position(free).unwrap_or(0);
        placed.push(boxes[choice]);
        spots[index] = Some(candidates[choice]);
    }
    spots
}

/// The label of a reference line at `(at, anchor)`.
fn ref_label(text: &str, (at, anchor): (PlotPoint, Align2), color: Rgba) -> OwnedItem {
    if text.is_empty() {
        return OwnedItem::Many(Vec::new());
    }
    OwnedItem::Text(
        egui_plot::Text::new(
            "",
            at,
            WidgetText::LayoutJob(Arc::new(ref_label_job(text, color))),
        )
        .color(c32(color))
        .anchor(anchor),
    )
}

/// Size of axis titles in egui points.
const AXIS_TITLE_SIZE: f32 = 14.0;

/// `text` laid out on one line with its subscripts ([`rich::spans`]) smaller and lowered.
fn rich_job(text: &str, size: f32, color: Color32) -> LayoutJob {
    let mut job = LayoutJob::default();
    for span in rich::spans(text) {
        let format = if span.sub {
            TextFormat {
                font_id: FontId::proportional(size * rich::SUBSCRIPT_SCALE as f32),
                color,
                valign: Align::BOTTOM,
                ..TextFormat::default()
            }
        } else {
            TextFormat {
                font_id: FontId::proportional(size),
                color,
                valign: Align::BOTTOM,
                ..TextFormat::default()
            }
        };
        job.append(&span.text, 0.0, format);
    }
    job
}

/// Paints a title centred at the top of `area`, fitted to its width as the export fits it
/// ([`fit_title`]: shrunk, then wrapped); returns where the space below it starts.
fn paint_title(painter: &egui::Painter, text: &str, size: f32, area: Rect, color: Color32) -> f32 {
    let (lines, size) = fit_title(text, f64::from(size), f64::from(area.width()));
    let size = size as f32;
    let line = (TITLE_ROW * size / 14.0).max(size * 1.3);
    for (i, text) in lines.iter().enumerate() {
        let y = area.min.y + line * (i as f32 + 0.5);
        paint_rich(
            painter,
            pos2(area.center().x, y),
            Align2::CENTER_CENTER,
            text,
            size,
            color,
        );
    }
    area.min.y + line * lines.len() as f32
}

/// Paints `text` with its subscripts, anchored like `Painter::text`.
fn paint_rich(
    painter: &egui::Painter,
    at: egui::Pos2,
    anchor: Align2,
    text: &str,
    size: f32,
    color: Color32,
) -> Rect {
    let galley = painter.layout_job(rich_job(text, size, color));
    let rect = anchor.anchor_size(at, galley.size());
    painter.galley(rect.min, galley, color);
    rect
}

/// Legend text size in egui points (the export's 8.5 pt at 96 dpi is about 11).
const LEGEND_TEXT: f32 = 11.5;
/// Gap between a legend and the plot frame, in egui points.
const LEGEND_MARGIN: f32 = 8.0;

/// The legend of the export ([`legend_entries`]: line samples with their dash, markers,
/// patches) in the same corner of the plot frame, on a translucent white box.
/// The legend's size in egui points at full text size, `None` without entries.
fn legend_size(view: &SubplotView<'_>) -> Option<egui::Vec2> {
    let entries = legend_entries(view);
    if entries.is_empty() {
        return None;
    }
    let text_w = entries
        .iter()
        .map(|(_, t)| text_width(&rich::plain(t), f64::from(LEGEND_TEXT)) as f32)
        .fold(0.0, f32::max);
    Some(vec2(
        10.0 + 22.0 + 5.0 + text_w,
        10.0 + LEGEND_TEXT * 1.45 * entries.len() as f32,
    ))
}

fn draw_legend(ui: &egui::Ui, view: &SubplotView<'_>, frame: Rect, place: LegendPlace) {
    let entries = legend_entries(view);
    if entries.is_empty() {
        return;
    }
    let clip = match place {
        LegendPlace::Corner(_) => frame,
        LegendPlace::Outside | LegendPlace::Below => ui.max_rect(),
    };
    let painter = ui.painter().with_clip_rect(clip);
    // Smaller text in a small plot, so that the legend keeps to about 40 % of its height.
    let wanted = LEGEND_TEXT * 1.45 * entries.len() as f32 + 10.0;
    let text_size = (LEGEND_TEXT * (0.4 * frame.height() / wanted).min(1.0)).max(8.0);
    let galleys: Vec<_> = entries
        .iter()
        .map(|(_, text)| painter.layout_job(rich_job(text, text_size, Color32::BLACK)))
        .collect();
    let row = text_size * 1.45;
    let pad = 5.0 * text_size / LEGEND_TEXT;
    let sample_w = 22.0;
    let text_w = galleys.iter().map(|g| g.size().x).fold(0.0, f32::max);
    let size = vec2(
        pad + sample_w + 5.0 + text_w + pad,
        pad * 2.0 + row * entries.len() as f32,
    );
    let margin = LEGEND_MARGIN;
    let min = match place {
        LegendPlace::Outside | LegendPlace::Below => pos2(frame.max.x + margin, frame.min.y),
        LegendPlace::Corner(LegendCorner::TopRight) => {
            pos2(frame.max.x - margin - size.x, frame.min.y + margin)
        }
        LegendPlace::Corner(LegendCorner::TopLeft) => {
            pos2(frame.min.x + margin, frame.min.y + margin)
        }
        LegendPlace::Corner(LegendCorner::BottomRight) => {
            pos2(frame.max.x - margin - size.x, frame.max.y - margin - size.y)
        }
        LegendPlace::Corner(LegendCorner::BottomLeft) => {
            pos2(frame.min.x + margin, frame.max.y - margin - size.y)
        }
    };
    let boxed = Rect::from_min_size(min, size);
    painter.rect(
        boxed,
        2.0,
        Color32::from_rgba_unmultiplied(255, 255, 255, 220),
        egui::Stroke::new(0.7, Color32::from_gray(0xAA)),
        egui::StrokeKind::Inside,
    );
    for (i, ((sample, _), galley)) in entries.iter().zip(galleys).enumerate() {
        let cy = boxed.min.y + pad + row * (i as f32 + 0.5);
        let x0 = boxed.min.x + pad;
        let x1 = x0 + sample_w;
        match *sample {
            LegendSample::Line(color, width_pt, dash) => {
                let stroke = egui::Stroke::new(width_pt as f32 * POINTS_PER_PT, c32(color));
                let line = [pos2(x0, cy), pos2(x1, cy)];
                match dash {
                    Dash::Solid => {
                        painter.line_segment(line, stroke);
                    }
                    Dash::Dashed => {
                        painter.extend(egui::Shape::dashed_line(&line, stroke, 6.0, 3.0));
                    }
                    Dash::Dotted => {
                        painter.extend(egui::Shape::dotted_line(
                            &line,
                            c32(color),
                            3.0,
                            stroke.width.max(1.0) / 2.0,
                        ));
                    }
                }
            }
            LegendSample::Marker(color, marker) => {
                legend_marker(&painter, pos2((x0 + x1) / 2.0, cy), marker, c32(color));
            }
            LegendSample::Patch(color) => {
                painter.rect_filled(
                    Rect::from_center_size(pos2((x0 + x1) / 2.0, cy), vec2(sample_w * 0.6, 9.0)),
                    0.0,
                    c32(color),
                );
            }
        }
        let at = pos2(x1 + 5.0, cy - galley.size().y / 2.0);
        painter.galley(at, galley, Color32::BLACK);
    }
}

/// A legend marker of `marker`'s shape, about 4 points in radius.
fn legend_marker(painter: &egui::Painter, center: egui::Pos2, marker: Marker, color: Color32) {
    let r = 4.0;
    match marker {
        Marker::Circle => {
            painter.circle_filled(center, r, color);
        }
        Marker::Square => {
            painter.rect_filled(
                Rect::from_center_size(center, vec2(2.0 * r, 2.0 * r)),
                0.0,
                color,
            );
        }
        Marker::Triangle => {
            painter.add(egui::Shape::convex_polygon(
                vec![
                    center + vec2(0.0, -r),
                    center + vec2(r, r * 0.8),
                    center + vec2(-r, r * 0.8),
                ],
                color,
                egui::Stroke::NONE,
            ));
        }
        Marker::Diamond => {
            painter.add(egui::Shape::convex_polygon(
                vec![
                    center + vec2(0.0, -r),
                    center + vec2(r, 0.0),
                    center + vec2(0.0, r),
                    center + vec2(-r, 0.0),
                ],
                color,
                egui::Stroke::NONE,
            ));
        }
        Marker::Cross => {
            let stroke = egui::Stroke::new(1.5, color);
            painter.line_segment([center + vec2(-r, -r), center + vec2(r, r)], stroke);
            painter.line_segment([center + vec2(-r, r), center + vec2(r, -r)], stroke);
        }
    }
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
        let galley = painter.layout_job(rich_job(&spec.label, 12.0, text_color));
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
    use std::collections::BTreeSet;

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

    /// A figure with what the issue saw lose its labels on screen: log-log spectra with a
    /// dashed line in the legend, a linear fit with tiny values, category bars and a ROC curve.
    fn both_ways_figure() -> Figure {
        let k: Vec<f64> = (1..=100).map(f64::from).collect();
        let psd = |slope: f64| k.iter().map(|k| 10.0 * k.powf(-slope)).collect::<Vec<_>>();
        let iterations: Vec<f64> = (0..=100).map(f64::from).collect();
        let error = |a: f64| {
            iterations
                .iter()
                .map(|i| a * (1.0 - i / 200.0))
                .collect::<Vec<_>>()
        };
        Figure::new("Both ways")
            .grid(2, 2)
            .subplot(
                Subplot::new("Power spectra")
                    .x_scale(Scale::Log10)
                    .y_scale(Scale::Log10)
                    .x_label("Total wavenumber k")
                    .y_label("PSD_k")
                    .line("Truth", k.clone(), psd(1.0))
                    .line("MSE-optimal", k.clone(), psd(2.0))
                    .with(
                        crate::figure::Line::new("AMSE-optimal", k.clone(), psd(1.1))
                            .dash(Dash::Dashed),
                    )
                    .legend(true),
            )
            .subplot(
                Subplot::new("Fit")
                    .x_label("Iteration")
                    .y_label("Mean gain error")
                    .line("MSE: mean |g_k − ρ_k|", iterations.clone(), error(0.004))
                    .line("AMSE", iterations.clone(), error(0.003))
                    .legend(true),
            )
            .subplot(
                Subplot::new("Trunk")
                    .bars(
                        "Strength",
                        ["VIS", "SMN", "DAN", "VAN", "LIM", "FPN", "DMN"]
                            .map(str::to_owned)
                            .to_vec(),
                        [0.2, 0.5, 0.1, 0.7, 0.3, 0.4, 0.9],
                    )
                    .legend(true),
            )
            .subplot(
                Subplot::new("ROC")
                    .x_label("False positive rate")
                    .y_label("True positive rate")
                    .line("AGE-GCN", [0.0, 0.1, 0.3, 1.0], [0.0, 0.6, 0.9, 1.0])
                    .with(
                        crate::figure::Line::new("Chance", [0.0, 1.0], [0.0, 1.0])
                            .dash(Dash::Dashed),
                    )
                    .legend(true),
            )
    }

    /// Every text the screen painted (titles, axis labels, tick labels, legend entries).
    fn painted_texts(output: &egui::FullOutput) -> BTreeSet<String> {
        fn collect(shape: &egui::Shape, out: &mut BTreeSet<String>) {
            match shape {
                egui::Shape::Text(text) if !text.galley.text().trim().is_empty() => {
                    out.insert(text.galley.text().to_owned());
                }
                egui::Shape::Vec(shapes) => shapes.iter().for_each(|s| collect(s, out)),
                _ => {}
            }
        }
        let mut out = BTreeSet::new();
        for clipped in &output.shapes {
            collect(&clipped.shape, &mut out);
        }
        out
    }

    /// Every `<text>` of an SVG, unescaped.
    fn svg_texts(svg: &str) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut rest = svg;
        while let Some(start) = rest.find("<text") {
            let Some(open_end) = rest[start..].find('>') else {
                break;
            };
            let body = &rest[start + open_end + 1..];
            let Some(close) = body.find("</text>") else {
                break;
            };
            let inner: String = {
                let mut plain = String::new();
                let mut in_tag = false;
                for c in body[..close].chars() {
                    match c {
                        '<' => in_tag = true,
                        '>' => in_tag = false,
                        c if !in_tag => plain.push(c),
                        _ => {}
                    }
                }
                plain
            };
            let text = inner
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&apos;", "'")
                .replace("&amp;", "&");
            if !text.trim().is_empty() {
                out.insert(text.trim().to_owned());
            }
            rest = &body[close..];
        }
        out
    }

    #[test]
    fn screen_and_export_draw_the_same_labels_and_legends() {
        let size = vec2(1000.0, 640.0);
        let figure = both_ways_figure();
        let mut h = Harness::builder().with_size(size).build_ui_state(
            |ui, (figure, state): &mut State| show_figure(ui, figure, state),
            (figure.clone(), FigureViewState::new()),
        );
        h.run();
        let screen = painted_texts(h.output());
        // The export at the screen's physical size (egui points are 1/96 in).
        let options = crate::figure::ExportOptions {
            format: crate::figure::ExportFormat::Svg,
            size_in: Some((f64::from(size.x) / 96.0, f64::from(size.y) / 96.0)),
            ..Default::default()
        };
        let svg = crate::figure::render_svg(&figure, &options).expect("svg");
        let export = svg_texts(&svg);
        assert_eq!(
            screen,
            export,
            "screen and export differ: only on screen {:?}, only in the export {:?}",
            screen.difference(&export).collect::<Vec<_>>(),
            export.difference(&screen).collect::<Vec<_>>()
        );
        // Every axis is labelled: the tiny fit values and the decades are there.
        for label in ["10⁻³", "10¹", "0.0020", "VIS", "DMN", "0.0", "1.0"] {
            assert!(
                screen.contains(label),
                "{label} missing on screen: {screen:?}"
            );
        }
    }

    /// The screen rendering of the same figure as an image snapshot (next to the export's
    /// `figure_both_ways_export.png`, written by the same test), to look at side by side.
    #[test]
    fn both_ways_figure_snapshot() {
        let figure = both_ways_figure();
        let mut h = Harness::builder()
            .with_size(vec2(1000.0, 640.0))
            .with_context_setup(install_figure_font)
            .wgpu()
            .build_ui_state(
                |ui, (figure, state): &mut State| show_figure(ui, figure, state),
                (figure.clone(), FigureViewState::new()),
            );
        h.run();
        let options = crate::figure::ExportOptions {
            format: crate::figure::ExportFormat::Png,
            size_in: Some((1000.0 / 96.0, 640.0 / 96.0)),
            dpi: 96,
        };
        let png = crate::figure::render_png(
            &figure,
            &options,
            &crate::figure::Provenance::new("tests", "both ways"),
        )
        .expect("png");
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
        std::fs::create_dir_all(&folder).expect("snapshot folder");
        std::fs::write(folder.join("figure_both_ways_export.png"), png).expect("export png");
        h.snapshot_options(
            "figure_both_ways",
            &egui_kittest::SnapshotOptions::new()
                .threshold(1.0)
                .max_failed_pixels(40),
        );
    }

    /// A plot pans when dragged, and a hovered figure asks for the gestures (egui_plot's: drag,
    /// Ctrl+scroll, box zoom, double-click reset) to be shown.
    #[test]
    fn plots_pan_when_dragged_and_say_how_to_zoom() {
        let mut h = harness(both_ways_figure());
        h.run();
        let bounds = |h: &Harness<'static, State>| {
            *h.state()
                .1
                .drawn_bounds
                .get(&1)
                .expect("the Fit subplot was drawn")
        };
        let start = bounds(&h);
        // The "Fit" subplot is in the top right quarter of the 900 × 420 window.
        let at = egui::pos2(700.0, 110.0);
        h.hover_at(at);
        h.run();
        assert!(
            figure_hovered(&h.ctx),
            "a hovered figure asks for the gestures to be shown"
        );
        h.drag_at(at);
        h.run();
        h.hover_at(at + vec2(-80.0, 30.0));
        h.run();
        h.drop_at(at + vec2(-80.0, 30.0));
        h.run();
        let panned = bounds(&h);
        assert!(
            panned.0[0] > start.0[0],
            "dragging left pans right: {start:?} → {panned:?}"
        );
    }

    /// The legend samples on screen are lines for lines (a segment in the line's colour, a
    /// dashed one as several segments), not egui_plot's dots.
    #[test]
    fn legend_samples_on_screen_are_lines_in_the_line_colour() {
        let mut h = harness(both_ways_figure());
        h.run();
        let mut segments: Vec<(egui::Color32, f32)> = Vec::new();
        fn collect(shape: &egui::Shape, out: &mut Vec<(egui::Color32, f32)>) {
            match shape {
                egui::Shape::LineSegment { points, stroke } => {
                    out.push((stroke.color, (points[1].x - points[0].x).abs()));
                }
                egui::Shape::Vec(shapes) => shapes.iter().for_each(|s| collect(s, out)),
                _ => {}
            }
        }
        for clipped in &h.output().shapes {
            collect(&clipped.shape, &mut segments);
        }
        let truth = c32(Rgba::cycle(0));
        assert!(
            segments
                .iter()
                .any(|&(c, len)| c == truth && (len - 22.0).abs() < 0.5),
            "no 22-point legend sample in the first cycle colour"
        );
        let dashed = segments
            .iter()
            .filter(|&&(c, len)| c == c32(Rgba::cycle(2)) && len < 10.0)
            .count();
        assert!(
            dashed >= 2,
            "the dashed entry is not drawn dashed ({dashed} pieces)"
        );
    }
}
