//! The file renderer: draws a figure into SVG text with plotters' SVG backend. PNG and PDF are
//! made from this SVG, so all three files look the same.
//!
//! The SVG's user unit is 1/288 inch (a quarter point) so that plotters' integer coordinates
//! are finer than a 300 DPI pixel. Heatmaps and colorbars are embedded PNG images, and every
//! plot area is clipped; both are spliced in after plotters has written the document, at
//! placeholder pixels that plotters drew in the right place in the drawing order.

use std::fmt::Write as _;

use base64::Engine as _;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::colormap::{Colormap, Rgba, map_values_rgba};
use super::error::FigureError;
use super::export::ExportOptions;
use super::fonts::{FONT_FAMILY, text_width};
use super::layout::{
    LINE_HEIGHT, LayoutRecord, LegendBox, PlotBox, Rect, TextBox, TextRole, fit_title, text_box,
};
use super::model::{Dash, Figure, Marker, TextAnchor};
use super::prepare::{
    ColorbarSpec, ItemView, LegendCorner, LegendPlace, LegendSample, SubplotView, legend_entries,
    prepare_figure,
};
use super::provenance::Provenance;
use super::raster::encode_rgba_png;
use super::rich;
use super::ticks::{Tick, X_TICK_SPACING_PT, Y_TICK_SPACING_PT, axis_ticks, linear_ticks};

/// SVG user units per inch.
pub(crate) const UNITS_PER_INCH: f64 = 288.0;
/// SVG user units per typographic point.
const UNITS_PER_PT: f64 = UNITS_PER_INCH / 72.0;

// Layout, in points.
const OUTER_MARGIN_PT: f64 = 6.0;
const FIGURE_TITLE_PT: f64 = 13.0;
const SUBPLOT_TITLE_PT: f64 = 11.0;
const AXIS_LABEL_PT: f64 = 10.0;
const TICK_LABEL_PT: f64 = 8.5;
const LEGEND_PT: f64 = 8.5;
const LEGEND_PAD_PT: f64 = 4.0;
const LEGEND_SAMPLE_PT: f64 = 16.0;
const LEGEND_MARGIN_PT: f64 = 6.0;
const LEGEND_COLUMN_GAP_PT: f64 = 10.0;
const TICK_LENGTH_PT: f64 = 3.5;
const TICK_GAP_PT: f64 = 2.5;
const PLOT_RIGHT_PAD_PT: f64 = 10.0;
const PLOT_TOP_PAD_PT: f64 = 4.0;
const COLORBAR_GAP_PT: f64 = 10.0;
const COLORBAR_WIDTH_PT: f64 = 10.0;
const FRAME_WIDTH_PT: f64 = 0.8;
const GRID_WIDTH_PT: f64 = 0.5;
const GRID_COLOR: Rgba = Rgba::rgb(0xDD, 0xDD, 0xDD);

/// Pixels (colour entries) of the embedded colorbar gradient image.
const COLORBAR_IMAGE_LEN: usize = 256;
/// Small heatmaps are enlarged by an integer factor to about this many pixels a side, so that
/// viewers that smooth images (most PDF viewers) keep the cells sharp.
const HEATMAP_MIN_IMAGE_SIDE: usize = 512;
/// Largest enlarged heatmap image, in pixels.
const HEATMAP_MAX_UPSCALED_PIXELS: usize = 4 << 20;

/// Placeholder pixel colour; see the module docs.
const PLACEHOLDER_COLOR: RGBAColor = RGBAColor(0xFE, 0x01, 0xFD, 0.5);
const PLACEHOLDER_ORIGIN: i32 = -1_000_000;

/// Renders a figure to SVG text (no provenance embedded; see [`render_svg_with_provenance`]).
/// The size is `options.size_in`, else the figure's own size.
pub fn render_svg(figure: &Figure, options: &ExportOptions) -> Result<String, FigureError> {
    render_document(figure, options, None).map(|(svg, _)| svg)
}

/// Where the file renderer places every text, legend and plot area of `figure` at the export
/// size of `options` (SVG units: a quarter point), for the figure check.
pub(crate) fn export_layout(
    figure: &Figure,
    options: &ExportOptions,
) -> Result<LayoutRecord, FigureError> {
    render_document(figure, options, None).map(|(_, record)| record)
}

/// Renders a figure to SVG text with the short provenance in `<desc>` and the full provenance
/// (JSON) in `<metadata>`.
pub fn render_svg_with_provenance(
    figure: &Figure,
    options: &ExportOptions,
    provenance: &Provenance,
) -> Result<String, FigureError> {
    render_document(figure, options, Some(provenance)).map(|(svg, _)| svg)
}

fn draw_err(e: impl std::fmt::Display) -> FigureError {
    FigureError::Draw(e.to_string())
}

/// Escapes text for XML content and attribute values.
pub(crate) fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A number with at most three decimals and no trailing zeros.
fn num(value: f64) -> String {
    let s = format!("{value:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_owned()
    } else {
        s.to_owned()
    }
}

fn render_document(
    figure: &Figure,
    options: &ExportOptions,
    provenance: Option<&Provenance>,
) -> Result<(String, LayoutRecord), FigureError> {
    let (width_in, height_in) = options.effective_size_in(figure)?;
    let width = width_in * UNITS_PER_INCH;
    let height = height_in * UNITS_PER_INCH;
    let canvas = (width.floor() as u32, height.floor() as u32);
    let view = prepare_figure(figure);

    let mut body = String::new();
    let (replacements, record) = {
        let backend = SVGBackend::with_string(&mut body, canvas);
        let mut painter = Painter {
            area: backend.into_drawing_area(),
            replacements: std::cell::RefCell::new(Vec::new()),
            record: std::cell::RefCell::new(LayoutRecord {
                canvas: (width, height),
                units_per_pt: UNITS_PER_PT,
                ..LayoutRecord::default()
            }),
            clip: None,
        };
        painter.area.fill(&WHITE).map_err(draw_err)?;
        draw_figure(&mut painter, figure, &view.subplots, (width, height))?;
        painter.area.present().map_err(draw_err)?;
        (
            painter.replacements.into_inner(),
            painter.record.into_inner(),
        )
    };
    let body = splice_placeholders(body, &replacements)?;

    // Replace plotters' root element with one that has a physical size and the font family,
    // followed by the title and the provenance.
    let root_open = format!(
        "<svg width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" xmlns=\"http://www.w3.org/2000/svg\">\n",
        canvas.0, canvas.1, canvas.0, canvas.1
    );
    let Some(rest) = body.strip_prefix(&root_open) else {
        return Err(FigureError::Draw(
            "unexpected SVG header from the plotting backend".to_owned(),
        ));
    };
    let mut svg = String::with_capacity(body.len() + 1024);
    let _ = writeln!(
        svg,
        "<svg width=\"{}in\" height=\"{}in\" viewBox=\"0 0 {} {}\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"{FONT_FAMILY}\">",
        num(width_in),
        num(height_in),
        num(width),
        num(height)
    );
    let _ = writeln!(svg, "<title>{}</title>", xml_escape(&figure.title));
    if let Some(p) = provenance {
        let json = p
            .to_json()
            .map_err(|e| FigureError::Provenance(e.to_string()))?;
        let _ = writeln!(svg, "<desc>{}</desc>", xml_escape(&p.summary()));
        let _ = writeln!(
            svg,
            "<metadata id=\"benchtop-provenance\">{}</metadata>",
            xml_escape(&json)
        );
    }
    svg.push_str(rest);
    Ok((svg, record))
}

/// The text plotters writes for placeholder number `id`.
fn placeholder_text(id: usize) -> String {
    format!(
        "<rect x=\"{}\" y=\"{PLACEHOLDER_ORIGIN}\" width=\"1\" height=\"1\" stroke=\"none\" opacity=\"0.5\" fill=\"#FE01FD\"/>\n",
        PLACEHOLDER_ORIGIN - id as i32
    )
}

/// Replaces every placeholder with its SVG fragment, in one pass.
fn splice_placeholders(body: String, replacements: &[String]) -> Result<String, FigureError> {
    if replacements.is_empty() {
        return Ok(body);
    }
    let extra: usize = replacements.iter().map(String::len).sum();
    let mut out = String::with_capacity(body.len() + extra);
    let mut rest = body.as_str();
    for (id, replacement) in replacements.iter().enumerate() {
        let needle = placeholder_text(id);
        let Some(at) = rest.find(&needle) else {
            return Err(FigureError::Draw(format!(
                "placeholder {id} missing from the plotting backend's output"
            )));
        };
        out.push_str(&rest[..at]);
        out.push_str(replacement);
        rest = &rest[at + needle.len()..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Maps view coordinates into a plot rectangle.
#[derive(Clone, Copy, Debug)]
struct Frame {
    rect: Rect,
    x_range: (f64, f64),
    y_range: (f64, f64),
    /// Whether the x axis's names are set upright (too wide side by side for this plot).
    upright_x: bool,
}

impl Frame {
    fn map(&self, (x, y): (f64, f64)) -> (f64, f64) {
        let fx = (x - self.x_range.0) / (self.x_range.1 - self.x_range.0);
        let fy = (y - self.y_range.0) / (self.y_range.1 - self.y_range.0);
        (
            self.rect.x0 + fx * self.rect.width(),
            self.rect.y1 - fy * self.rect.height(),
        )
    }
}

fn pt(points: f64) -> f64 {
    points * UNITS_PER_PT
}

fn to_i32((x, y): (f64, f64)) -> (i32, i32) {
    // Callers clip first; the clamp only guards the conversion.
    let c = |v: f64| v.round().clamp(-4.0e8, 4.0e8) as i32;
    (c(x), c(y))
}

fn color(c: Rgba) -> RGBAColor {
    RGBAColor(c.r, c.g, c.b, c.alpha_fraction())
}

fn stroke(c: Rgba, width_pt: f64) -> ShapeStyle {
    ShapeStyle {
        color: color(c),
        filled: false,
        stroke_width: pt(width_pt).round().max(1.0) as u32,
    }
}

fn fill(c: Rgba) -> ShapeStyle {
    ShapeStyle {
        color: color(c),
        filled: true,
        stroke_width: 0,
    }
}

/// Clips a segment to a rectangle (Liang–Barsky); `None` if it misses.
fn clip_segment(a: (f64, f64), b: (f64, f64), r: &Rect) -> Option<((f64, f64), (f64, f64))> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let mut t0 = 0.0_f64;
    let mut t1 = 1.0_f64;
    for (p, q) in [
        (-dx, a.0 - r.x0),
        (dx, r.x1 - a.0),
        (-dy, a.1 - r.y0),
        (dy, r.y1 - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    (t0 <= t1).then_some((
        (a.0 + t0 * dx, a.1 + t0 * dy),
        (a.0 + t1 * dx, a.1 + t1 * dy),
    ))
}

/// Clips a polyline to a rectangle, splitting it where it leaves.
fn clip_polyline(points: &[(f64, f64)], r: &Rect) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut current: Vec<(f64, f64)> = Vec::new();
    for w in points.windows(2) {
        match clip_segment(w[0], w[1], r) {
            Some((a, b)) => {
                if current.last() != Some(&a) {
                    if current.len() > 1 {
                        out.push(std::mem::take(&mut current));
                    }
                    current.clear();
                    current.push(a);
                }
                current.push(b);
                if b != w[1] {
                    out.push(std::mem::take(&mut current));
                }
            }
            None => {
                if current.len() > 1 {
                    out.push(std::mem::take(&mut current));
                }
                current.clear();
            }
        }
    }
    if current.len() > 1 {
        out.push(current);
    }
    out
}

/// Splits a polyline into dashes of `on` length separated by `off` (SVG units).
fn dash_polyline(points: &[(f64, f64)], on: f64, off: f64) -> Vec<Vec<(f64, f64)>> {
    let mut out = Vec::new();
    let mut current = vec![];
    let mut drawing = true;
    let mut left = on;
    for w in points.windows(2) {
        let (mut a, b) = (w[0], w[1]);
        let mut len = (b.0 - a.0).hypot(b.1 - a.1);
        if drawing && current.is_empty() {
            current.push(a);
        }
        while len > left {
            let t = left / len;
            let p = (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1));
            if drawing {
                current.push(p);
                out.push(std::mem::take(&mut current));
            } else {
                current.push(p);
            }
            drawing = !drawing;
            len -= left;
            left = if drawing { on } else { off };
            a = p;
        }
        left -= len;
        if drawing {
            current.push(b);
        } else {
            current.clear();
        }
    }
    if drawing && current.len() > 1 {
        out.push(current);
    }
    out
}

/// Drawing helpers on the root area, in SVG units.
struct Painter<'a> {
    area: DrawingArea<SVGBackend<'a>, Shift>,
    replacements: std::cell::RefCell<Vec<String>>,
    /// Where every text, legend and plot area went, for the figure check.
    record: std::cell::RefCell<LayoutRecord>,
    /// The clip rectangle in force (a plot area while its items are drawn).
    clip: Option<Rect>,
}

impl Painter<'_> {
    /// Draws a placeholder that will become `fragment`.
    fn splice(&self, fragment: String) -> Result<(), FigureError> {
        let id = self.replacements.borrow().len();
        self.area
            .draw_pixel(
                (PLACEHOLDER_ORIGIN - id as i32, PLACEHOLDER_ORIGIN),
                &PLACEHOLDER_COLOR,
            )
            .map_err(draw_err)?;
        self.replacements.borrow_mut().push(fragment);
        Ok(())
    }

    fn begin_clip(&mut self, r: &Rect) -> Result<(), FigureError> {
        self.clip = Some(*r);
        let id = format!("benchtop-clip-{}", self.replacements.borrow().len());
        self.splice(format!(
            "<clipPath id=\"{id}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath>\n<g clip-path=\"url(#{id})\">\n",
            num(r.x0),
            num(r.y0),
            num(r.width()),
            num(r.height())
        ))
    }

    fn end_clip(&mut self) -> Result<(), FigureError> {
        self.clip = None;
        self.splice("</g>\n".to_owned())
    }

    /// An embedded PNG stretched over `r`.
    fn image(&mut self, r: &Rect, png: &[u8], pixelated: bool) -> Result<(), FigureError> {
        let data = base64::engine::general_purpose::STANDARD.encode(png);
        let rendering = if pixelated {
            " image-rendering=\"optimizeSpeed\""
        } else {
            ""
        };
        self.splice(format!(
            "<image x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" preserveAspectRatio=\"none\"{rendering} href=\"data:image/png;base64,{data}\"/>\n",
            num(r.x0),
            num(r.y0),
            num(r.width()),
            num(r.height())
        ))
    }

    fn path(&self, points: &[(f64, f64)], c: Rgba, width_pt: f64) -> Result<(), FigureError> {
        if points.len() < 2 || c.a == 0 {
            return Ok(());
        }
        let pts: Vec<(i32, i32)> = points.iter().map(|&p| to_i32(p)).collect();
        self.area
            .draw(&PathElement::new(pts, stroke(c, width_pt)))
            .map_err(draw_err)
    }

    /// A polyline clipped to `clip`, with a dash pattern.
    fn polyline(
        &self,
        points: &[(f64, f64)],
        clip: &Rect,
        c: Rgba,
        width_pt: f64,
        dash: Dash,
    ) -> Result<(), FigureError> {
        for piece in clip_polyline(points, clip) {
            match dash {
                Dash::Solid => self.path(&piece, c, width_pt)?,
                Dash::Dashed | Dash::Dotted => {
                    let w = pt(width_pt.max(0.5));
                    let (on, off) = if dash == Dash::Dashed {
                        (pt(4.0) + 2.0 * w, pt(2.0) + w)
                    } else {
                        (w, pt(1.2) + w)
                    };
                    for d in dash_polyline(&piece, on, off) {
                        self.path(&d, c, width_pt)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn polygon(&self, points: &[(f64, f64)], c: Rgba) -> Result<(), FigureError> {
        if c.a == 0 {
            return Ok(());
        }
        let pts: Vec<(i32, i32)> = points.iter().map(|&p| to_i32(p)).collect();
        self.area
            .draw(&Polygon::new(pts, fill(c)))
            .map_err(draw_err)
    }

    fn rect(
        &self,
        r: &Rect,
        fill_color: Option<Rgba>,
        border: Option<(Rgba, f64)>,
    ) -> Result<(), FigureError> {
        let corners = [to_i32((r.x0, r.y0)), to_i32((r.x1, r.y1))];
        if let Some(c) = fill_color.filter(|c| c.a > 0) {
            self.area
                .draw(&Rectangle::new(corners, fill(c)))
                .map_err(draw_err)?;
        }
        if let Some((c, w)) = border.filter(|(c, _)| c.a > 0) {
            self.area
                .draw(&Rectangle::new(corners, stroke(c, w)))
                .map_err(draw_err)?;
        }
        Ok(())
    }

    fn circle(&self, center: (f64, f64), radius_pt: f64, c: Rgba) -> Result<(), FigureError> {
        if c.a == 0 || radius_pt <= 0.0 {
            return Ok(());
        }
        let r = pt(radius_pt).round().max(1.0) as u32;
        self.area
            .draw(&Circle::new(to_i32(center), r, fill(c)))
            .map_err(draw_err)
    }

    fn marker(
        &self,
        center: (f64, f64),
        marker: Marker,
        radius_pt: f64,
        c: Rgba,
    ) -> Result<(), FigureError> {
        let r = pt(radius_pt);
        let (x, y) = center;
        match marker {
            Marker::Circle => self.circle(center, radius_pt, c),
            Marker::Square => {
                let s = r * 0.886; // same area as the circle
                self.polygon(
                    &[
                        (x - s, y - s),
                        (x + s, y - s),
                        (x + s, y + s),
                        (x - s, y + s),
                    ],
                    c,
                )
            }
            Marker::Triangle => {
                let s = r * 1.35;
                self.polygon(
                    &[
                        (x, y - s),
                        (x + s * 0.866, y + s * 0.5),
                        (x - s * 0.866, y + s * 0.5),
                    ],
                    c,
                )
            }
            Marker::Diamond => {
                let s = r * 1.25;
                self.polygon(&[(x, y - s), (x + s, y), (x, y + s), (x - s, y)], c)
            }
            Marker::Cross => {
                let s = r * 0.8;
                let w = (radius_pt * 0.4).max(0.75);
                self.path(&[(x - s, y - s), (x + s, y + s)], c, w)?;
                self.path(&[(x - s, y + s), (x + s, y - s)], c, w)
            }
        }
    }

    /// The first of `at`, `at + step`, `at + 2·step`, … (four tries) where the box `boxed`
    /// gives `text` overlaps no annotation placed before; `at` when none is free.
    fn free_spot(
        &self,
        text: &str,
        at: (f64, f64),
        step: (f64, f64),
        boxed: impl Fn((f64, f64)) -> Rect,
    ) -> (f64, f64) {
        if text.is_empty() {
            return at;
        }
        let record = self.record.borrow();
        (0..4)
            .map(|k| (at.0 + step.0 * f64::from(k), at.1 + step.1 * f64::from(k)))
            .find(|&candidate| {
                let b = boxed(candidate);
                record.texts.iter().all(|t| {
                    t.role != TextRole::Annotation
                        || b.x1 <= t.rect.x0
                        || t.rect.x1 <= b.x0
                        || b.y1 <= t.rect.y0
                        || t.rect.y1 <= b.y0
                })
            })
            .unwrap_or(at)
    }

    #[allow(clippy::too_many_arguments)]
    fn text(
        &self,
        role: TextRole,
        text: &str,
        at: (f64, f64),
        size_pt: f64,
        c: Rgba,
        (h, v): (HPos, VPos),
        rotated: bool,
    ) -> Result<(), FigureError> {
        if text.is_empty() || c.a == 0 {
            return Ok(());
        }
        let anchor = (
            match h {
                HPos::Left => -1,
                HPos::Center => 0,
                HPos::Right => 1,
            },
            match v {
                VPos::Top => -1,
                VPos::Center => 0,
                VPos::Bottom => 1,
            },
        );
        let boxed = TextBox {
            role,
            text: text.to_owned(),
            rect: text_box(text, at, pt(size_pt), anchor, rotated),
        };
        let mut record = self.record.borrow_mut();
        if let Some(clip) = self.clip
            && !clip.contains_rect(&boxed.rect, pt(1.0))
        {
            record.clipped.push(boxed.clone());
        }
        record.texts.push(boxed);
        if rich::has_markup(text) {
            return self.splice(rich_text_element(text, at, pt(size_pt), c, (h, v), rotated));
        }
        // plotters writes font-size = size / 1.24.
        let mut font = FontDesc::new(
            FontFamily::Name(FONT_FAMILY),
            pt(size_pt) * 1.24,
            FontStyle::Normal,
        );
        if rotated {
            font = font.transform(FontTransform::Rotate270);
        }
        let rgba = color(c);
        let style = font.color(&rgba).pos(Pos::new(h, v));
        self.area
            .draw_text(text, &style, to_i32(at))
            .map_err(draw_err)
    }
}

fn draw_figure(
    painter: &mut Painter<'_>,
    figure: &Figure,
    subplots: &[SubplotView<'_>],
    (width, height): (f64, f64),
) -> Result<(), FigureError> {
    let mut area = Rect {
        x0: 0.0,
        y0: 0.0,
        x1: width,
        y1: height,
    }
    .inset(pt(OUTER_MARGIN_PT));
    if !figure.title.is_empty() {
        area.y0 = title_lines(
            painter,
            TextRole::FigureTitle,
            &figure.title,
            FIGURE_TITLE_PT,
            &area,
        )?;
    }
    let (rows, cols) = figure.layout();
    let cell_w = area.width() / cols as f64;
    let cell_h = area.height() / rows as f64;
    for (i, subplot) in subplots.iter().enumerate() {
        let (row, col) = (i / cols, i % cols);
        let cell = Rect {
            x0: area.x0 + col as f64 * cell_w,
            y0: area.y0 + row as f64 * cell_h,
            x1: area.x0 + (col + 1) as f64 * cell_w,
            y1: area.y0 + (row + 1) as f64 * cell_h,
        };
        draw_subplot(painter, i, subplot, cell)?;
    }
    Ok(())
}

/// Draws a title centred at the top of `area`, fitted to its width ([`fit_title`]); returns
/// where the space below it starts.
fn title_lines(
    painter: &Painter<'_>,
    role: TextRole,
    text: &str,
    size_pt: f64,
    area: &Rect,
) -> Result<f64, FigureError> {
    let (lines, size) = fit_title(text, pt(size_pt), area.width());
    let size_pt = size / UNITS_PER_PT;
    let line = size * LINE_HEIGHT;
    let top = area.y0 + size * 0.3;
    for (i, text) in lines.iter().enumerate() {
        painter.text(
            role,
            text,
            ((area.x0 + area.x1) / 2.0, top + line * (i as f64 + 0.5)),
            size_pt,
            Rgba::BLACK,
            (HPos::Center, VPos::Center),
            false,
        )?;
    }
    Ok(top + line * lines.len() as f64 + size * 0.3)
}

/// Width of a colorbar strip, in SVG units.
fn colorbar_strip_width(spec: &ColorbarSpec) -> f64 {
    let ticks = linear_ticks(spec.value_range.0, spec.value_range.1, 5);
    let label_w = ticks
        .iter()
        .map(|t| text_width(&t.label, pt(TICK_LABEL_PT)))
        .fold(0.0, f64::max);
    let title_w = if spec.label.is_empty() {
        0.0
    } else {
        pt(AXIS_LABEL_PT * 1.4)
    };
    pt(COLORBAR_GAP_PT + COLORBAR_WIDTH_PT + TICK_LENGTH_PT + TICK_GAP_PT)
        + label_w
        + pt(TICK_GAP_PT)
        + title_w
}

/// The legend's box size (width, height) in SVG units, `None` when it has no entries.
fn legend_size(view: &SubplotView<'_>) -> Option<(f64, f64)> {
    legend_grid_size(view, 1)
}

/// Width of one legend column (sample, gap, the widest entry), in SVG units.
fn legend_column_width(view: &SubplotView<'_>) -> f64 {
    let text_w = legend_entries(view)
        .iter()
        .map(|(_, t)| text_width(&rich::plain(t), pt(LEGEND_PT)))
        .fold(0.0, f64::max);
    pt(LEGEND_SAMPLE_PT) + pt(4.0) + text_w
}

/// The legend's box size with its entries in `columns` columns (filled row by row).
fn legend_grid_size(view: &SubplotView<'_>, columns: usize) -> Option<(f64, f64)> {
    let n = legend_entries(view).len();
    if n == 0 {
        return None;
    }
    let columns = columns.clamp(1, n);
    let rows = n.div_ceil(columns);
    Some((
        pt(LEGEND_PAD_PT) * 2.0
            + legend_column_width(view) * columns as f64
            + pt(LEGEND_COLUMN_GAP_PT) * (columns - 1) as f64,
        pt(LEGEND_PAD_PT) * 2.0 + pt(LEGEND_PT * 1.5) * rows as f64,
    ))
}

/// How many legend columns fit across `width` (at least one).
fn legend_columns_across(view: &SubplotView<'_>, width: f64) -> usize {
    let column = legend_column_width(view) + pt(LEGEND_COLUMN_GAP_PT);
    let inner = width - pt(LEGEND_PAD_PT) * 2.0 + pt(LEGEND_COLUMN_GAP_PT);
    ((inner / column).floor() as usize).max(1)
}

/// When category names are too wide to sit side by side under a plot `width` wide (with a gap
/// of two tick gaps between them), the widest name's width: they are then set upright (reading
/// upwards) under their ticks.
fn upright_categories(view: &SubplotView<'_>, width: f64) -> Option<f64> {
    let names = &view.x.categories.as_ref()?.names;
    let widest = names
        .iter()
        .map(|n| text_width(&rich::plain(n), pt(TICK_LABEL_PT)))
        .fold(0.0, f64::max);
    let spacing = width / names.len().max(1) as f64;
    (widest + pt(2.0 * TICK_GAP_PT) > spacing).then_some(widest)
}

/// The plot area and its mapping inside `r` (the cell below the title, colorbars taken off),
/// with `reserve` units kept free on the right for a legend; `None` when too small to draw.
fn plot_frame(view: &SubplotView<'_>, r: &Rect, reserve: f64) -> Option<Frame> {
    let src = view.src;
    // Label areas: the x area has a fixed height; the y area depends on the y tick labels.
    let axis_label_band = |label: &str| {
        if label.is_empty() {
            0.0
        } else {
            pt(AXIS_LABEL_PT * 1.5)
        }
    };
    let hide_axes = src.hide_axes;
    // The plot area below a band of x tick labels `x_labels` high.
    let place = |x_labels: f64| {
        let x_area = if hide_axes {
            0.0
        } else {
            pt(TICK_LENGTH_PT + TICK_GAP_PT) + x_labels + axis_label_band(&view.x.label)
        };
        let plot_y0 = r.y0 + pt(PLOT_TOP_PAD_PT);
        let plot_y1 = r.y1 - x_area;
        let y_ticks_guess = axis_ticks(
            &view.y,
            view.y.range,
            (plot_y1 - plot_y0) / UNITS_PER_PT,
            Y_TICK_SPACING_PT,
        );
        let y_label_w = y_ticks_guess
            .iter()
            .map(|t| text_width(&t.label, pt(TICK_LABEL_PT)))
            .fold(0.0, f64::max);
        let y_area = if hide_axes {
            0.0
        } else {
            pt(TICK_LENGTH_PT + TICK_GAP_PT)
                + y_label_w
                + pt(TICK_GAP_PT)
                + axis_label_band(&view.y.label)
        };
        Rect {
            x0: r.x0 + y_area,
            y0: plot_y0,
            x1: r.x1 - pt(PLOT_RIGHT_PAD_PT) - reserve,
            y1: plot_y1,
        }
    };
    // Names side by side when they fit the plot's own width, else upright in a taller band.
    let mut plot = place(pt(TICK_LABEL_PT * 1.25));
    let upright = upright_categories(view, plot.width());
    if let Some(widest) = upright {
        plot = place(widest + pt(TICK_GAP_PT));
    }
    let mut x_range = view.x.range;
    let mut y_range = view.y.range;
    if plot.width() < pt(10.0) || plot.height() < pt(10.0) {
        // Too small to draw anything legible; the figure size is the caller's choice.
        return None;
    }
    if src.equal_aspect {
        let ux = (x_range.1 - x_range.0) / plot.width();
        let uy = (y_range.1 - y_range.0) / plot.height();
        if ux > uy {
            let half = ux * plot.height() / 2.0;
            let mid = (y_range.0 + y_range.1) / 2.0;
            y_range = (mid - half, mid + half);
        } else {
            let half = uy * plot.width() / 2.0;
            let mid = (x_range.0 + x_range.1) / 2.0;
            x_range = (mid - half, mid + half);
        }
    }
    Some(Frame {
        rect: plot,
        x_range,
        y_range,
        upright_x: upright.is_some(),
    })
}

/// A legend box of `(w, h)` with its margins, as fractions of the plot's width and height.
fn legend_fraction((w, h): (f64, f64), plot: &Rect) -> (f64, f64) {
    let margin = pt(LEGEND_MARGIN_PT) * 2.0;
    ((w + margin) / plot.width(), (h + margin) / plot.height())
}

fn draw_subplot(
    painter: &mut Painter<'_>,
    index: usize,
    view: &SubplotView<'_>,
    cell: Rect,
) -> Result<(), FigureError> {
    let mut r = cell.inset(pt(OUTER_MARGIN_PT / 2.0));
    let src = view.src;
    if !src.title.is_empty() {
        r.y0 = title_lines(
            painter,
            TextRole::SubplotTitle,
            &src.title,
            SUBPLOT_TITLE_PT,
            &r,
        )?;
    }
    let strips: Vec<f64> = view.colorbars.iter().map(colorbar_strip_width).collect();
    r.x1 -= strips.iter().sum::<f64>();

    // The legend goes in the corner it covers least; or beside the plot (which narrows for
    // it); or, when that leaves too narrow a plot, below it in as many columns as fit (the
    // plot shortens); or, when neither leaves a legible plot, in the corner it covers least.
    let mut legend = if src.legend { legend_size(view) } else { None };
    let Some(mut frame) = plot_frame(view, &r, 0.0) else {
        return Ok(());
    };
    let mut axes_area = r;
    let mut columns = 1;
    let mut place = legend.map(|size| view.legend_place(legend_fraction(size, &frame.rect)));
    if let (Some(LegendPlace::Outside), Some((w, _))) = (place, legend) {
        let beside = plot_frame(view, &r, w + pt(LEGEND_MARGIN_PT))
            .filter(|narrowed| narrowed.rect.width() >= 0.6 * frame.rect.width());
        let below_columns = legend_columns_across(view, r.width());
        let below_size = legend_grid_size(view, below_columns).filter(|&(bw, _)| bw <= r.width());
        let below = below_size.and_then(|(_, bh)| {
            let shorter = Rect {
                y1: r.y1 - bh - pt(LEGEND_MARGIN_PT),
                ..r
            };
            plot_frame(view, &shorter, 0.0)
                .filter(|f| f.rect.height() >= 0.5 * frame.rect.height())
                .map(|f| (f, shorter))
        });
        match (beside, below) {
            (Some(narrowed), _) => frame = narrowed,
            (None, Some((shortened, shorter))) => {
                frame = shortened;
                axes_area = shorter;
                columns = below_columns;
                legend = below_size;
                place = Some(LegendPlace::Below);
            }
            (None, None) => {
                let frac = legend_fraction(legend.unwrap_or_default(), &frame.rect);
                place = Some(LegendPlace::Corner(view.least_covered_corner(frac).0));
            }
        }
    }
    let plot = frame.rect;
    let (x_range, y_range) = (frame.x_range, frame.y_range);
    painter.record.borrow_mut().plots.push(PlotBox {
        subplot: index,
        rect: plot,
    });
    let hide_axes = src.hide_axes;
    let x_ticks = axis_ticks(
        &view.x,
        x_range,
        plot.width() / UNITS_PER_PT,
        X_TICK_SPACING_PT,
    );
    let y_ticks = axis_ticks(
        &view.y,
        y_range,
        plot.height() / UNITS_PER_PT,
        Y_TICK_SPACING_PT,
    );
    let has_heatmap = view
        .items
        .iter()
        .any(|i| matches!(i, ItemView::Heatmap { .. }));

    // Grid lines under the data (not over heatmaps).
    if !has_heatmap && !hide_axes {
        for t in &x_ticks {
            let (x, _) = frame.map((t.position, y_range.0));
            painter.path(&[(x, plot.y0), (x, plot.y1)], GRID_COLOR, GRID_WIDTH_PT)?;
        }
        for t in &y_ticks {
            let (_, y) = frame.map((x_range.0, t.position));
            painter.path(&[(plot.x0, y), (plot.x1, y)], GRID_COLOR, GRID_WIDTH_PT)?;
        }
    }

    painter.begin_clip(&plot)?;
    let clip = plot.inset(-pt(4.0));
    for item in &view.items {
        draw_item(painter, item, &frame, &clip)?;
    }
    painter.end_clip()?;

    if !hide_axes {
        draw_axes(painter, view, &frame, &x_ticks, &y_ticks, &axes_area)?;
    }

    if let (Some(place), Some(size)) = (place, legend) {
        let spot = LegendSpot {
            place,
            size,
            columns,
            below_y: axes_area.y1 + pt(LEGEND_MARGIN_PT),
        };
        draw_legend(painter, index, view, &frame, &spot)?;
    }

    // Colorbars start where the cell's drawing area ends (beyond the legend, when outside).
    let mut x = r.x1;
    for (spec, w) in view.colorbars.iter().zip(&strips) {
        draw_colorbar(painter, spec, x, plot.y0, plot.y1)?;
        x += w;
    }
    Ok(())
}

/// The frame, the ticks with their labels and the axis labels of a subplot whose cell is `r`.
fn draw_axes(
    painter: &mut Painter<'_>,
    view: &SubplotView<'_>,
    frame: &Frame,
    x_ticks: &[Tick],
    y_ticks: &[Tick],
    r: &Rect,
) -> Result<(), FigureError> {
    let plot = frame.rect;
    painter.rect(&plot, None, Some((Rgba::BLACK, FRAME_WIDTH_PT)))?;
    let tick = pt(TICK_LENGTH_PT);
    let upright = frame.upright_x;
    for t in x_ticks {
        let (x, _) = frame.map((t.position, frame.y_range.0));
        painter.path(
            &[(x, plot.y1), (x, plot.y1 + tick)],
            Rgba::BLACK,
            FRAME_WIDTH_PT,
        )?;
        // A label at either end of the axis stays inside the cell (no clipped "1.(").
        let half = text_width(&t.label, pt(TICK_LABEL_PT)) / 2.0;
        let label_x = x.min(r.x1 - half).max(r.x0 + half);
        let (at, anchor) = if upright {
            (
                (x, plot.y1 + tick + pt(TICK_GAP_PT)),
                (HPos::Right, VPos::Center),
            )
        } else {
            (
                (label_x, plot.y1 + tick + pt(TICK_GAP_PT)),
                (HPos::Center, VPos::Top),
            )
        };
        painter.text(
            TextRole::TickLabel,
            &t.label,
            at,
            TICK_LABEL_PT,
            Rgba::BLACK,
            anchor,
            upright,
        )?;
    }
    for t in y_ticks {
        let (_, y) = frame.map((frame.x_range.0, t.position));
        painter.path(
            &[(plot.x0 - tick, y), (plot.x0, y)],
            Rgba::BLACK,
            FRAME_WIDTH_PT,
        )?;
        painter.text(
            TextRole::TickLabel,
            &t.label,
            (plot.x0 - tick - pt(TICK_GAP_PT), y),
            TICK_LABEL_PT,
            Rgba::BLACK,
            (HPos::Right, VPos::Center),
            false,
        )?;
    }
    painter.text(
        TextRole::AxisLabel,
        &view.x.label,
        ((plot.x0 + plot.x1) / 2.0, r.y1 - pt(AXIS_LABEL_PT * 0.75)),
        AXIS_LABEL_PT,
        Rgba::BLACK,
        (HPos::Center, VPos::Center),
        false,
    )?;
    painter.text(
        TextRole::AxisLabel,
        &view.y.label,
        (r.x0 + pt(AXIS_LABEL_PT * 0.75), (plot.y0 + plot.y1) / 2.0),
        AXIS_LABEL_PT,
        Rgba::BLACK,
        (HPos::Center, VPos::Center),
        true,
    )?;
    Ok(())
}

fn draw_item(
    painter: &mut Painter<'_>,
    item: &ItemView<'_>,
    frame: &Frame,
    clip: &Rect,
) -> Result<(), FigureError> {
    let map_all = |pts: &[(f64, f64)]| pts.iter().map(|&p| frame.map(p)).collect::<Vec<_>>();
    match item {
        ItemView::Line {
            color,
            width_pt,
            dash,
            segments,
            ..
        } => {
            for seg in segments {
                painter.polyline(&map_all(seg), clip, *color, *width_pt, *dash)?;
            }
        }
        ItemView::Scatter {
            marker,
            size_pt,
            points,
            ..
        } => {
            for &(p, c) in points {
                let q = frame.map(p);
                if in_rect(q, clip) {
                    painter.marker(q, *marker, *size_pt, c)?;
                }
            }
        }
        ItemView::ErrorBars {
            color,
            width_pt,
            marker_pt,
            bars,
            ..
        } => {
            let cap = pt(3.0);
            for b in bars {
                let c = frame.map(b.center);
                let lo = frame.map((b.center.0, b.y_span.0));
                let hi = frame.map((b.center.0, b.y_span.1));
                painter.polyline(&[lo, hi], clip, *color, *width_pt, Dash::Solid)?;
                for end in [lo, hi] {
                    painter.polyline(
                        &[(end.0 - cap, end.1), (end.0 + cap, end.1)],
                        clip,
                        *color,
                        *width_pt,
                        Dash::Solid,
                    )?;
                }
                if let Some((x0, x1)) = b.x_span {
                    let l = frame.map((x0, b.center.1));
                    let r = frame.map((x1, b.center.1));
                    painter.polyline(&[l, r], clip, *color, *width_pt, Dash::Solid)?;
                    for end in [l, r] {
                        painter.polyline(
                            &[(end.0, end.1 - cap), (end.0, end.1 + cap)],
                            clip,
                            *color,
                            *width_pt,
                            Dash::Solid,
                        )?;
                    }
                }
                if in_rect(c, clip) {
                    painter.circle(c, *marker_pt, *color)?;
                }
            }
        }
        ItemView::Bars { bars, .. } => {
            for b in bars {
                let bottom = b.bottom.unwrap_or(frame.y_range.0);
                let (x0, y0) = frame.map((b.x0, b.top));
                let (x1, y1) = frame.map((b.x1, bottom));
                let r = intersect(
                    &Rect {
                        x0: x0.min(x1),
                        y0: y0.min(y1),
                        x1: x0.max(x1),
                        y1: y0.max(y1),
                    },
                    clip,
                );
                if let Some(r) = r {
                    painter.rect(&r, Some(b.color), None)?;
                }
            }
        }
        ItemView::Heatmap {
            src,
            extent,
            value_range,
        } => {
            let (x0, y0) = frame.map((extent.0, extent.3));
            let (x1, y1) = frame.map((extent.1, extent.2));
            let flip_x = x1 < x0;
            let flip_y = y1 < y0;
            let r = Rect {
                x0: x0.min(x1),
                y0: y0.min(y1),
                x1: x0.max(x1),
                y1: y0.max(y1),
            };
            let (w, h, rgba) = heatmap_image(
                src.nx,
                src.ny,
                &src.values,
                src.colormap,
                *value_range,
                flip_x,
                flip_y,
            )
            .ok_or_else(|| {
                FigureError::Draw(format!(
                    "heatmap {} × {} is too large for an image",
                    src.nx, src.ny
                ))
            })?;
            let png = encode_rgba_png(w, h, &rgba)?;
            painter.image(&r, &png, true)?;
        }
        ItemView::VectorField {
            color,
            arrows,
            streamlines,
            ..
        } => {
            for line in streamlines {
                painter.polyline(&map_all(line), clip, *color, 0.9, Dash::Solid)?;
            }
            for &(o, t) in arrows {
                let (a, b) = (frame.map(o), frame.map(t));
                if in_rect(a, clip) {
                    draw_arrow(painter, a, b, clip, *color)?;
                }
            }
        }
        ItemView::Graph {
            edges,
            nodes,
            label_size_pt,
        } => {
            for e in edges {
                let ends = [frame.map(e.from), frame.map(e.to)];
                painter.polyline(&ends, clip, e.color, e.width_pt, Dash::Solid)?;
            }
            for &(p, node) in nodes {
                let q = frame.map(p);
                if in_rect(q, clip) {
                    painter.circle(q, node.radius_pt + 0.6, Rgba::WHITE)?;
                    painter.circle(q, node.radius_pt, node.color)?;
                }
            }
            for &(p, node) in nodes {
                let q = frame.map(p);
                if in_rect(q, clip) && !node.label.is_empty() {
                    painter.text(
                        TextRole::Annotation,
                        &node.label,
                        (q.0 + pt(node.radius_pt + 2.0), q.1),
                        *label_size_pt,
                        Rgba::BLACK,
                        (HPos::Left, VPos::Center),
                        false,
                    )?;
                }
            }
        }
        ItemView::Text { position, src } => {
            let q = frame.map(*position);
            let h = match src.anchor {
                TextAnchor::Left => HPos::Left,
                TextAnchor::Center => HPos::Center,
                TextAnchor::Right => HPos::Right,
            };
            painter.text(
                TextRole::Annotation,
                &src.text,
                q,
                src.size_pt,
                src.color,
                (h, VPos::Center),
                false,
            )?;
        }
        ItemView::HLine { y, src } => {
            let (_, py) = frame.map((frame.x_range.0, *y));
            let (x0, x1) = (frame.rect.x0, frame.rect.x1);
            painter.polyline(
                &[(x0, py), (x1, py)],
                clip,
                src.color,
                src.width_pt,
                src.dash,
            )?;
            // The label sits above the line, or below it when the plot's top is too close;
            // labels of nearby reference lines stack instead of printing over each other.
            let step = pt(TICK_LABEL_PT * LINE_HEIGHT);
            let above = py - pt(2.0) - step >= frame.rect.y0;
            let (start, direction, v) = if above {
                ((x1 - pt(3.0), py - pt(2.0)), -step, (VPos::Bottom, 1))
            } else {
                ((x1 - pt(3.0), py + pt(2.0)), step, (VPos::Top, -1))
            };
            let at = painter.free_spot(&src.label, start, (0.0, direction), |at| {
                text_box(&src.label, at, pt(TICK_LABEL_PT), (1, v.1), false)
            });
            painter.text(
                TextRole::Annotation,
                &src.label,
                at,
                TICK_LABEL_PT,
                src.color,
                (HPos::Right, v.0),
                false,
            )?;
        }
        ItemView::VLine { x, src } => {
            let (px, _) = frame.map((*x, frame.y_range.0));
            let (y0, y1) = (frame.rect.y0, frame.rect.y1);
            painter.polyline(
                &[(px, y0), (px, y1)],
                clip,
                src.color,
                src.width_pt,
                src.dash,
            )?;
            let step = pt(TICK_LABEL_PT * LINE_HEIGHT);
            let at = painter.free_spot(
                &src.label,
                (px + pt(3.0), y0 + pt(3.0)),
                (0.0, step),
                |at| text_box(&src.label, at, pt(TICK_LABEL_PT), (-1, -1), false),
            );
            painter.text(
                TextRole::Annotation,
                &src.label,
                at,
                TICK_LABEL_PT,
                src.color,
                (HPos::Left, VPos::Top),
                false,
            )?;
        }
        ItemView::Picture {
            src,
            extent,
            view_box,
        } => {
            let (a, b) = (
                frame.map((extent.0, extent.3)),
                frame.map((extent.1, extent.2)),
            );
            let r = Rect {
                x0: a.0.min(b.0),
                y0: a.1.min(b.1),
                x1: a.0.max(b.0),
                y1: a.1.max(b.1),
            };
            painter.splice(nested_svg(&src.svg, &r, *view_box))?;
        }
    }
    Ok(())
}

/// A `<text>` element with subscripts as `<tspan>`s, placed and styled exactly as plotters
/// places plain text (same anchor, baseline offset and rotation).
fn rich_text_element(
    text: &str,
    (x, y): (f64, f64),
    size: f64,
    c: Rgba,
    (h, v): (HPos, VPos),
    rotated: bool,
) -> String {
    let anchor = match h {
        HPos::Left => "start",
        HPos::Center => "middle",
        HPos::Right => "end",
    };
    let dy = match v {
        VPos::Top => "0.76em",
        VPos::Center => "0.5ex",
        VPos::Bottom => "-0.5ex",
    };
    let (x, y) = to_i32((x, y));
    let transform = if rotated {
        format!(" transform=\"rotate(270, {x}, {y})\"")
    } else {
        String::new()
    };
    let mut out = format!(
        "<text x=\"{x}\" y=\"{y}\" dy=\"{dy}\" text-anchor=\"{anchor}\" font-family=\"{FONT_FAMILY}\" font-size=\"{}\" opacity=\"{}\" fill=\"#{:02X}{:02X}{:02X}\"{transform}>",
        num(size),
        num(f64::from(c.a) / 255.0),
        c.r,
        c.g,
        c.b
    );
    for span in rich::spans(text) {
        if span.sub {
            let _ = write!(
                out,
                "<tspan font-size=\"{}\" baseline-shift=\"{}\">{}</tspan>",
                num(size * rich::SUBSCRIPT_SCALE),
                num(-size * rich::SUBSCRIPT_DROP),
                xml_escape(&span.text)
            );
        } else {
            out.push_str(&xml_escape(&span.text));
        }
    }
    out.push_str("</text>\n");
    out
}

/// `svg` as a nested `<svg>` element filling `r` (the preparation step fitted `r` to the
/// picture's aspect); the root's namespace
/// declarations are kept, the XML prolog dropped.
fn nested_svg(svg: &str, r: &Rect, (min_x, min_y, width, height): (f64, f64, f64, f64)) -> String {
    let Some(root) = super::model::svg_root_tag(svg) else {
        return String::new();
    };
    let start = svg.find(root).unwrap_or(0);
    let body_start = start + root.len() + 1;
    let body_end = svg.rfind("</svg>").filter(|&e| e >= body_start);
    let body = body_end.map_or("", |end| &svg[body_start..end]);
    let namespaces: String = root
        .split_whitespace()
        .filter(|attr| attr.starts_with("xmlns:"))
        .map(|attr| format!(" {attr}"))
        .collect();
    format!(
        "<svg{namespaces} x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"{} {} {} {}\" preserveAspectRatio=\"none\">{body}</svg>\n",
        num(r.x0),
        num(r.y0),
        num(r.width()),
        num(r.height()),
        num(min_x),
        num(min_y),
        num(width),
        num(height),
    )
}

fn in_rect((x, y): (f64, f64), r: &Rect) -> bool {
    x >= r.x0 && x <= r.x1 && y >= r.y0 && y <= r.y1
}

fn intersect(a: &Rect, b: &Rect) -> Option<Rect> {
    let r = Rect {
        x0: a.x0.max(b.x0),
        y0: a.y0.max(b.y0),
        x1: a.x1.min(b.x1),
        y1: a.y1.min(b.y1),
    };
    (r.x0 < r.x1 && r.y0 < r.y1).then_some(r)
}

fn draw_arrow(
    painter: &Painter<'_>,
    a: (f64, f64),
    b: (f64, f64),
    clip: &Rect,
    c: Rgba,
) -> Result<(), FigureError> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = dx.hypot(dy);
    if len < 0.5 {
        return Ok(());
    }
    let head = (0.35 * len).min(pt(5.0));
    let (ux, uy) = (dx / len, dy / len);
    let base = (b.0 - head * ux, b.1 - head * uy);
    painter.polyline(&[a, base], clip, c, 0.8, Dash::Solid)?;
    let half = 0.45 * head;
    painter.polygon(
        &[
            b,
            (base.0 - half * uy, base.1 + half * ux),
            (base.0 + half * uy, base.1 - half * ux),
        ],
        c,
    )
}

/// RGBA pixels of a heatmap image (top row first), enlarged by an integer factor when small;
/// `None` if a side does not fit a `u32`.
pub(crate) fn heatmap_image(
    nx: usize,
    ny: usize,
    values: &[f64],
    colormap: Colormap,
    value_range: (f64, f64),
    flip_x: bool,
    flip_y: bool,
) -> Option<(u32, u32, Vec<u8>)> {
    let rgba = map_values_rgba(values, colormap, value_range);
    let side = nx.max(ny).max(1);
    let mut factor = HEATMAP_MIN_IMAGE_SIDE.div_ceil(side).max(1);
    while factor > 1 && nx * ny * factor * factor > HEATMAP_MAX_UPSCALED_PIXELS {
        factor -= 1;
    }
    let (w, h) = (nx * factor, ny * factor);
    let mut out = vec![0u8; w * h * 4];
    for row in 0..h {
        // Image row 0 is the top; data row 0 is the bottom.
        let data_row = ny - 1 - row / factor;
        let data_row = if flip_y { ny - 1 - data_row } else { data_row };
        for col in 0..w {
            let data_col = col / factor;
            let data_col = if flip_x { nx - 1 - data_col } else { data_col };
            let src = (data_row * nx + data_col) * 4;
            let dst = (row * w + col) * 4;
            out[dst..dst + 4].copy_from_slice(&rgba[src..src + 4]);
        }
    }
    Some((u32::try_from(w).ok()?, u32::try_from(h).ok()?, out))
}

fn draw_colorbar(
    painter: &mut Painter<'_>,
    spec: &ColorbarSpec,
    x: f64,
    y0: f64,
    y1: f64,
) -> Result<(), FigureError> {
    let bar = Rect {
        x0: x + pt(COLORBAR_GAP_PT),
        y0,
        x1: x + pt(COLORBAR_GAP_PT + COLORBAR_WIDTH_PT),
        y1,
    };
    // Gradient, top = high.
    let mut rgba = Vec::with_capacity(COLORBAR_IMAGE_LEN * 4);
    for i in (0..COLORBAR_IMAGE_LEN).rev() {
        let c = spec
            .colormap
            .lut_entry(i * (super::colormap::COLORMAP_LUT_SIZE - 1) / (COLORBAR_IMAGE_LEN - 1));
        rgba.extend_from_slice(&[c.r, c.g, c.b, 255]);
    }
    let png = encode_rgba_png(1, COLORBAR_IMAGE_LEN as u32, &rgba)?;
    painter.image(&bar, &png, false)?;
    painter.rect(&bar, None, Some((Rgba::BLACK, FRAME_WIDTH_PT)))?;
    let (lo, hi) = spec.value_range;
    let ticks = linear_ticks(lo, hi, 5);
    let mut label_w: f64 = 0.0;
    for t in &ticks {
        let f = if hi > lo {
            (t.position - lo) / (hi - lo)
        } else {
            0.5
        };
        let y = bar.y1 - f * bar.height();
        painter.path(
            &[(bar.x1, y), (bar.x1 + pt(TICK_LENGTH_PT), y)],
            Rgba::BLACK,
            FRAME_WIDTH_PT,
        )?;
        painter.text(
            TextRole::TickLabel,
            &t.label,
            (bar.x1 + pt(TICK_LENGTH_PT + TICK_GAP_PT), y),
            TICK_LABEL_PT,
            Rgba::BLACK,
            (HPos::Left, VPos::Center),
            false,
        )?;
        label_w = label_w.max(text_width(&t.label, pt(TICK_LABEL_PT)));
    }
    painter.text(
        TextRole::AxisLabel,
        &spec.label,
        (
            bar.x1 + pt(TICK_LENGTH_PT + 2.0 * TICK_GAP_PT) + label_w + pt(AXIS_LABEL_PT * 0.7),
            (bar.y0 + bar.y1) / 2.0,
        ),
        AXIS_LABEL_PT,
        Rgba::BLACK,
        (HPos::Center, VPos::Center),
        true,
    )
}

/// Where and how a legend is drawn.
struct LegendSpot {
    place: LegendPlace,
    /// Box size (width, height), SVG units.
    size: (f64, f64),
    /// Columns the entries fill, row by row.
    columns: usize,
    /// The top of a legend placed below the plot (under the x axis label).
    below_y: f64,
}

/// Draws the legend at its spot (a corner of the plot, beside it or below it) and records its
/// box with the data points it covers.
fn draw_legend(
    painter: &Painter<'_>,
    index: usize,
    view: &SubplotView<'_>,
    frame: &Frame,
    spot: &LegendSpot,
) -> Result<(), FigureError> {
    let plot = &frame.rect;
    let (w, h) = spot.size;
    let entries = legend_entries(view);
    let row = pt(LEGEND_PT * 1.5);
    let pad = pt(LEGEND_PAD_PT);
    let sample_w = pt(LEGEND_SAMPLE_PT);
    let margin = pt(LEGEND_MARGIN_PT);
    let column_w = legend_column_width(view) + pt(LEGEND_COLUMN_GAP_PT);
    let (x0, y0) = match spot.place {
        LegendPlace::Outside => (plot.x1 + margin, plot.y0),
        LegendPlace::Below => ((plot.x0 + plot.x1 - w) / 2.0, spot.below_y),
        LegendPlace::Corner(corner) => {
            let (right, top) = match corner {
                LegendCorner::TopRight => (true, true),
                LegendCorner::TopLeft => (false, true),
                LegendCorner::BottomRight => (true, false),
                LegendCorner::BottomLeft => (false, false),
            };
            (
                if right {
                    plot.x1 - margin - w
                } else {
                    plot.x0 + margin
                },
                if top {
                    plot.y0 + margin
                } else {
                    plot.y1 - margin - h
                },
            )
        }
    };
    let boxr = Rect {
        x0,
        y0,
        x1: x0 + w,
        y1: y0 + h,
    };
    let samples = view.normalized_samples();
    let covered = samples
        .iter()
        .filter(|&&(u, v)| boxr.contains((plot.x0 + u * plot.width(), plot.y1 - v * plot.height())))
        .count();
    painter.record.borrow_mut().legends.push(LegendBox {
        subplot: index,
        rect: boxr,
        covered,
        total: samples.len(),
    });
    painter.rect(
        &boxr,
        Some(Rgba::WHITE.with_alpha(220)),
        Some((Rgba::rgb(0xAA, 0xAA, 0xAA), 0.5)),
    )?;
    let columns = spot.columns.max(1);
    for (i, (sample, text)) in entries.iter().enumerate() {
        let (r_i, c_i) = (i / columns, i % columns);
        let cy = boxr.y0 + pad + row * (r_i as f64 + 0.5);
        let sx = boxr.x0 + pad + column_w * c_i as f64;
        match *sample {
            LegendSample::Line(c, width, dash) => {
                let whole = Rect {
                    x0: sx - 1.0,
                    y0: cy - row,
                    x1: sx + sample_w + 1.0,
                    y1: cy + row,
                };
                painter.polyline(&[(sx, cy), (sx + sample_w, cy)], &whole, c, width, dash)?;
            }
            LegendSample::Marker(c, m) => painter.marker((sx + sample_w / 2.0, cy), m, 3.0, c)?,
            LegendSample::Patch(c) => painter.rect(
                &Rect {
                    x0: sx + sample_w * 0.2,
                    y0: cy - pt(3.5),
                    x1: sx + sample_w * 0.8,
                    y1: cy + pt(3.5),
                },
                Some(c),
                None,
            )?,
        }
        painter.text(
            TextRole::Legend,
            text,
            (sx + sample_w + pt(4.0), cy),
            LEGEND_PT,
            Rgba::BLACK,
            (HPos::Left, VPos::Center),
            false,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_clipped_to_the_rectangle() {
        let r = Rect {
            x0: 0.0,
            y0: 0.0,
            x1: 10.0,
            y1: 10.0,
        };
        assert_eq!(
            clip_segment((-5.0, 5.0), (15.0, 5.0), &r),
            Some(((0.0, 5.0), (10.0, 5.0)))
        );
        assert_eq!(clip_segment((-5.0, -5.0), (-1.0, 20.0), &r), None);
        // In, out and back in: two pieces.
        let pieces = clip_polyline(&[(1.0, 1.0), (20.0, 1.0), (20.0, 2.0), (1.0, 2.0)], &r);
        assert_eq!(
            pieces,
            vec![vec![(1.0, 1.0), (10.0, 1.0)], vec![(10.0, 2.0), (1.0, 2.0)]]
        );
    }

    #[test]
    fn dashes_alternate_with_the_requested_lengths() {
        let dashes = dash_polyline(&[(0.0, 0.0), (10.0, 0.0)], 2.0, 1.0);
        let starts: Vec<f64> = dashes.iter().map(|d| d[0].0).collect();
        assert_eq!(starts, [0.0, 3.0, 6.0, 9.0]);
        assert_eq!(dashes[0], vec![(0.0, 0.0), (2.0, 0.0)]);
        assert_eq!(dashes[3], vec![(9.0, 0.0), (10.0, 0.0)]);
    }

    #[test]
    fn heatmap_images_put_row_zero_at_the_bottom_and_enlarge_small_grids() {
        // 2 × 2: bottom row (0, 1), top row (2, 3) with a 0..3 range.
        let (w, h, rgba) = heatmap_image(
            2,
            2,
            &[0.0, 1.0, 2.0, 3.0],
            Colormap::Viridis,
            (0.0, 3.0),
            false,
            false,
        )
        .expect("image");
        assert_eq!((w, h), (512, 512));
        let px = |x: usize, y: usize| {
            let i = (y * w as usize + x) * 4;
            Rgba::new(rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3])
        };
        assert_eq!(px(0, 511), Colormap::Viridis.color_at(0.0));
        assert_eq!(px(511, 0), Colormap::Viridis.color_at(1.0));
        assert_eq!(px(300, 511), Colormap::Viridis.color_at(1.0 / 3.0));
        let (w, h, _) = heatmap_image(
            2048,
            1024,
            &vec![0.0; 2048 * 1024],
            Colormap::Magma,
            (0.0, 1.0),
            false,
            false,
        )
        .expect("image");
        assert_eq!((w, h), (2048, 1024));
    }

    #[test]
    fn placeholders_are_spliced_in_order() {
        let body = format!("a{}b{}c", placeholder_text(0), placeholder_text(1));
        let out = splice_placeholders(body, &["X".to_owned(), "Y".to_owned()]).expect("splice");
        assert_eq!(out, "aXbYc");
        assert!(splice_placeholders("abc".to_owned(), &["X".to_owned()]).is_err());
    }
}
