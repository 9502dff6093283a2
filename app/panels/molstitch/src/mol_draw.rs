//! Molecule depictions drawn by RDKit (`MolDraw2DSVG`, through the engine's
//! [`Drawing::depict_svg`]): proper double and triple bonds, Kekulé rings, heteroatom labels
//! with their hydrogens. On screen they are rasterised once into cached textures; in figures
//! they are an SVG picture in a subplot without axes, so SVG, PNG and PDF exports keep them as
//! vector graphics. Atoms may be highlighted with a colour each (the fragment they belong to).

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use benchtop_chem::{Background, DepictOptions, Drawing};
use benchtop_kit::figure::{Annotation, Picture, Rgba, Subplot};
use egui::{ColorImage, Sense, TextureHandle, TextureOptions, Vec2};
use resvg::{tiny_skia, usvg};

/// Colour of fragment `index` (highlights and fragment labels).
pub fn fragment_color(index: usize) -> Rgba {
    Rgba::cycle(index)
}

/// Per-atom highlight colours from atom-index groups: atoms in `groups[k]` get `colors[k]`.
pub fn highlights(atoms: usize, groups: &[(&[usize], Rgba)]) -> Vec<Option<Rgba>> {
    let mut out = vec![None; atoms];
    for (group, color) in groups {
        for &i in *group {
            if let Some(slot) = out.get_mut(i) {
                *slot = Some(*color);
            }
        }
    }
    out
}

/// Share of white mixed into a highlight colour, so that the black bonds and the coloured
/// labels drawn over it stay legible.
const TINT: f64 = 0.55;

/// `color` mixed with white by [`TINT`]: the colour RDKit fills a highlighted atom with.
pub fn highlight_tint(color: Rgba) -> [u8; 3] {
    let mix = |c: u8| (f64::from(c) + (255.0 - f64::from(c)) * TINT).round() as u8;
    [mix(color.r), mix(color.g), mix(color.b)]
}

/// Bonds are at most the picture's shorter side over this many pixels long, so that molecules
/// drawn side by side at one size share one scale (a small fragment is not blown up).
const BONDS_PER_SIDE: u32 = 6;

/// RDKit's drawing options for a `width × height` px depiction with `highlight` (one optional
/// colour per atom, tinted by [`highlight_tint`]) on `background`, bonds at most
/// 1/[`BONDS_PER_SIDE`] of the shorter side long.
pub fn depict_options(
    (width, height): (u32, u32),
    highlight: &[Option<Rgba>],
    background: Background,
) -> DepictOptions {
    let mut options = DepictOptions::new(width, height)
        .background(background)
        .bond_length_px((width.min(height) / BONDS_PER_SIDE).max(1));
    for (atom, color) in highlight.iter().enumerate() {
        if let Some(color) = color {
            options = options.highlight([atom], highlight_tint(*color));
        }
    }
    options
}

/// Size (px) of the SVG document of a molecule in a figure; the picture keeps its aspect in
/// the subplot.
pub type PicturePx = (u32, u32);

/// `drawing` depicted by RDKit as a figure subplot titled `title`: the SVG picture over the
/// whole subplot, no axes, atoms highlighted as `highlight` says. If RDKit cannot draw it
/// the subplot says so in words.
pub fn subplot(
    title: &str,
    drawing: &Drawing,
    highlight: &[Option<Rgba>],
    (width, height): PicturePx,
) -> Subplot {
    let (w, h) = (f64::from(width), f64::from(height));
    let subplot = Subplot::new(title)
        .axes(false)
        .x_range(0.0, w)
        .y_range(0.0, h)
        .equal_aspect(true);
    match drawing.depict_svg(&depict_options(
        (width, height),
        highlight,
        Background::Transparent,
    )) {
        Ok(svg) => subplot.with(Picture::new(title, svg, (0.0, w, 0.0, h))),
        Err(e) => subplot.with(Annotation::new(
            0.5 * w,
            0.5 * h,
            format!("RDKit could not draw this molecule: {e}"),
        )),
    }
}

/// Paints `drawing` as RDKit depicts it (on white, highlighted atoms tinted) into a new
/// `size` area and returns the area's response. The picture is drawn and rasterised once per
/// molecule, highlight, size and display scale, then reused from a texture.
pub fn paint(
    ui: &mut egui::Ui,
    drawing: &Drawing,
    highlight: &[Option<Rgba>],
    size: Vec2,
) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(size, Sense::click());
    let logical = (
        size.x.round().max(1.0) as u32,
        size.y.round().max(1.0) as u32,
    );
    let options = depict_options(logical, highlight, Background::White);
    let scale = ui.ctx().pixels_per_point();
    match texture(ui.ctx(), drawing, &options, scale) {
        Ok(texture) => {
            egui::Image::from_texture(&texture)
                .corner_radius(4.0)
                .paint_at(ui, rect);
            response
        }
        Err(message) => {
            let painter = ui.painter_at(rect);
            painter.rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                "RDKit could not draw it",
                egui::FontId::proportional(11.0),
                ui.visuals().error_fg_color,
            );
            response.on_hover_text(message.as_ref())
        }
    }
}

/// Most depiction textures kept; beyond it, those not shown in the last frame are dropped.
const MAX_TEXTURES: usize = 160;

/// Depiction textures by key (molecule, options, scale), with the frame each was last shown
/// in; a failure is kept as its message, so that RDKit is not asked again every frame.
#[derive(Clone, Default)]
struct Textures(HashMap<u64, (Result<TextureHandle, Arc<str>>, u64)>);

/// The texture of `drawing` depicted with `options` at `scale` physical px per point, made
/// when not cached.
fn texture(
    ctx: &egui::Context,
    drawing: &Drawing,
    options: &DepictOptions,
    scale: f32,
) -> Result<TextureHandle, Arc<str>> {
    let mut hasher = DefaultHasher::new();
    (drawing.molblock(), options, scale.to_bits()).hash(&mut hasher);
    let key = hasher.finish();
    let id = egui::Id::unique("molstitch depiction textures");
    let frame = ctx.cumulative_frame_nr();
    let cached = ctx.data_mut(|d| {
        let textures = d.get_temp_mut_or_default::<Textures>(id);
        textures.0.get_mut(&key).map(|(made, used)| {
            *used = frame;
            made.clone()
        })
    });
    if let Some(made) = cached {
        return made;
    }
    let made = drawing
        .depict_svg(options)
        .map_err(|e| e.to_string())
        .and_then(|svg| rasterise(&svg, options, scale))
        .map(|image| ctx.load_texture("molstitch depiction", image, TextureOptions::LINEAR))
        .map_err(Arc::from);
    ctx.data_mut(|d| {
        let textures = d.get_temp_mut_or_default::<Textures>(id);
        if textures.0.len() >= MAX_TEXTURES {
            textures.0.retain(|_, (_, used)| *used + 1 >= frame);
        }
        textures.0.insert(key, (made.clone(), frame));
    });
    made
}

/// `svg` (an RDKit depiction of `options`' size) as an image `scale` times that size.
fn rasterise(svg: &str, options: &DepictOptions, scale: f32) -> Result<ColorImage, String> {
    let tree = usvg::Tree::from_str(svg, &usvg::Options::default())
        .map_err(|e| format!("the depiction is not readable SVG: {e}"))?;
    let (width, height) = (
        ((options.width_px as f32) * scale).round().max(1.0) as u32,
        ((options.height_px as f32) * scale).round().max(1.0) as u32,
    );
    let mut pixmap = tiny_skia::Pixmap::new(width, height)
        .ok_or_else(|| format!("no {width} × {height} px image"))?;
    let transform = tiny_skia::Transform::from_scale(
        width as f32 / tree.size().width(),
        height as f32 / tree.size().height(),
    );
    resvg::render(&tree, transform, &mut pixmap.as_mut());
    Ok(ColorImage::from_rgba_premultiplied(
        [width as usize, height as usize],
        pixmap.data(),
    ))
}
