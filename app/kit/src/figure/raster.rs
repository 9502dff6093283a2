//! PNG export: the figure's SVG rasterised with resvg at `size × dpi`, using only the bundled
//! font, written with a pHYs chunk (the DPI) and text chunks (title, provenance, software).

use resvg::tiny_skia;
use resvg::usvg;

use super::error::FigureError;
use super::export::ExportOptions;
use super::fonts::{FONT_FAMILY, font_database};
use super::model::Figure;
use super::provenance::{APP_VERSION, Provenance};
use super::svg::render_svg;

/// Largest PNG export, in pixels (width × height).
const MAX_PNG_PIXELS: u64 = 400_000_000;

/// Renders a figure to PNG bytes at `options.dpi`, with the provenance summary in the
/// "Description" text chunk.
pub fn render_png(
    figure: &Figure,
    options: &ExportOptions,
    provenance: &Provenance,
) -> Result<Vec<u8>, FigureError> {
    let (width_in, height_in) = options.effective_size_in(figure)?;
    let (width_px, height_px) = png_size_px((width_in, height_in), options.dpi)?;
    let svg = render_svg(figure, options)?;
    let tree = parse_svg(&svg)?;
    let mut pixmap =
        tiny_skia::Pixmap::new(width_px, height_px).ok_or_else(|| FigureError::InvalidOption {
            name: "dpi",
            reason: format!("cannot allocate a {width_px} × {height_px} image"),
        })?;
    pixmap.fill(tiny_skia::Color::WHITE);
    let size = tree.size();
    let transform = tiny_skia::Transform::from_scale(
        width_px as f32 / size.width(),
        height_px as f32 / size.height(),
    );
    resvg::render(&tree, transform, &mut pixmap.as_mut());

    // Opaque white background, so premultiplied and straight alpha agree: drop alpha.
    let rgb: Vec<u8> = pixmap
        .data()
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    let texts = [
        ("Title", figure.title.clone()),
        ("Description", provenance.summary()),
        ("Software", format!("Benchtop {APP_VERSION}")),
    ];
    encode_png(
        width_px,
        height_px,
        png::ColorType::Rgb,
        &rgb,
        Some(options.dpi),
        &texts,
    )
}

/// Pixel size of a PNG export: `size_in × dpi`, rounded.
pub fn png_size_px((width_in, height_in): (f64, f64), dpi: u32) -> Result<(u32, u32), FigureError> {
    let w = (width_in * f64::from(dpi)).round();
    let h = (height_in * f64::from(dpi)).round();
    if !(w >= 1.0 && h >= 1.0) || w * h > MAX_PNG_PIXELS as f64 {
        return Err(FigureError::InvalidOption {
            name: "dpi",
            reason: format!(
                "{width_in} × {height_in} in at {dpi} DPI gives {w} × {h} pixels (allowed: 1 to {MAX_PNG_PIXELS} pixels)"
            ),
        });
    }
    // Both are in 1..=4e8 here.
    Ok((w as u32, h as u32))
}

/// Parses an SVG written by this module's renderer, with the bundled font only.
pub(crate) fn parse_svg(svg: &str) -> Result<usvg::Tree, FigureError> {
    let options = usvg::Options {
        font_family: FONT_FAMILY.to_owned(),
        fontdb: font_database(),
        ..usvg::Options::default()
    };
    usvg::Tree::from_str(svg, &options).map_err(|e| FigureError::Svg(e.to_string()))
}

/// Rasterises any SVG document to `width × height` premultiplied RGBA pixels (transparent
/// background), stretched to fill; `None` when it cannot be parsed or the size is zero.
pub(crate) fn rasterize_svg(svg: &str, width: u32, height: u32) -> Option<Vec<u8>> {
    let tree = parse_svg(svg).ok()?;
    let mut pixmap = tiny_skia::Pixmap::new(width, height)?;
    let size = tree.size();
    let transform = tiny_skia::Transform::from_scale(
        width as f32 / size.width(),
        height as f32 / size.height(),
    );
    resvg::render(&tree, transform, &mut pixmap.as_mut());
    Some(pixmap.take())
}

/// Encodes straight-alpha RGBA pixels as a PNG (no metadata), e.g. for images inside an SVG.
pub(crate) fn encode_rgba_png(
    width: u32,
    height: u32,
    rgba: &[u8],
) -> Result<Vec<u8>, FigureError> {
    encode_png(width, height, png::ColorType::Rgba, rgba, None, &[])
}

/// Whether text fits a PNG tEXt chunk (Latin-1).
fn is_latin1(text: &str) -> bool {
    text.chars().all(|c| (c as u32) < 256)
}

fn encode_png(
    width: u32,
    height: u32,
    color: png::ColorType,
    data: &[u8],
    dpi: Option<u32>,
    texts: &[(&str, String)],
) -> Result<Vec<u8>, FigureError> {
    let png_err = |e: png::EncodingError| FigureError::Png(e.to_string());
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(color);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Balanced);
        if let Some(dpi) = dpi {
            let per_meter = (f64::from(dpi) / 0.0254).round() as u32;
            encoder.set_pixel_dims(Some(png::PixelDimensions {
                xppu: per_meter,
                yppu: per_meter,
                unit: png::Unit::Meter,
            }));
        }
        for (keyword, text) in texts {
            if text.is_empty() {
                continue;
            }
            if is_latin1(text) {
                encoder
                    .add_text_chunk((*keyword).to_owned(), text.clone())
                    .map_err(png_err)?;
            } else {
                encoder
                    .add_itxt_chunk((*keyword).to_owned(), text.clone())
                    .map_err(png_err)?;
            }
        }
        let mut writer = encoder.write_header().map_err(png_err)?;
        writer.write_image_data(data).map_err(png_err)?;
        writer.finish().map_err(png_err)?;
    }
    Ok(out)
}
