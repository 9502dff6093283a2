//! The bundled font (DejaVu Sans, see assets/SOURCES.md): used for every exported figure so
//! that files render the same on any machine, and for measuring text during layout.

use std::sync::{Arc, OnceLock};

use resvg::usvg::fontdb;

/// Family name written into SVG `font-family` attributes.
pub const FONT_FAMILY: &str = "DejaVu Sans";

/// The font file, embedded in the binary.
pub static DEJAVU_SANS_TTF: &[u8] = include_bytes!("../../../../assets/fonts/DejaVuSans.ttf");

/// A font database holding only the bundled font (no system fonts), shared by the PNG and PDF
/// renderers.
pub fn font_database() -> Arc<fontdb::Database> {
    static DB: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = fontdb::Database::new();
        db.load_font_source(fontdb::Source::Binary(Arc::new(DEJAVU_SANS_TTF)));
        db.set_sans_serif_family(FONT_FAMILY);
        db.set_serif_family(FONT_FAMILY);
        db.set_monospace_family(FONT_FAMILY);
        Arc::new(db)
    })
    .clone()
}

/// Advance widths of the bundled font, for measuring text.
struct Metrics {
    units_per_em: f64,
    /// Advance of the characters U+0000–U+00FF, in font units.
    latin: [f64; 256],
    /// Advance used for other characters (the average Latin advance).
    fallback: f64,
}

fn metrics() -> &'static Metrics {
    static METRICS: OnceLock<Metrics> = OnceLock::new();
    METRICS.get_or_init(|| {
        let Ok(face) = ttf_parser::Face::parse(DEJAVU_SANS_TTF, 0) else {
            // The embedded font is known good; an estimate keeps layout going regardless.
            return Metrics {
                units_per_em: 1000.0,
                latin: [600.0; 256],
                fallback: 600.0,
            };
        };
        let advance = |c: char| {
            face.glyph_index(c)
                .and_then(|g| face.glyph_hor_advance(g))
                .map(f64::from)
        };
        let mut latin = [0.0; 256];
        let mut sum = 0.0;
        let mut count = 0.0;
        for (code, slot) in latin.iter_mut().enumerate() {
            let c = char::from(code as u8);
            if let Some(a) = advance(c) {
                *slot = a;
                if c.is_ascii_alphanumeric() {
                    sum += a;
                    count += 1.0;
                }
            }
        }
        let fallback = if count > 0.0 { sum / count } else { 600.0 };
        let units_per_em = f64::from(face.units_per_em());
        Metrics {
            units_per_em,
            latin,
            fallback,
        }
    })
}

/// Width of `text` set in the bundled font at `size` (any unit: the result is in the same unit).
/// Kerning is ignored, so this is a close upper estimate.
pub fn text_width(text: &str, size: f64) -> f64 {
    let m = metrics();
    let units: f64 = text
        .chars()
        .map(|c| {
            let code = c as u32;
            if code < 256 {
                m.latin[code as usize]
            } else {
                m.fallback
            }
        })
        .sum();
    units / m.units_per_em * size
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_font_is_in_the_database_and_measures_text() {
        let db = font_database();
        assert_eq!(db.len(), 1);
        let family = db
            .faces()
            .next()
            .and_then(|f| f.families.first().map(|(name, _)| name.clone()));
        assert_eq!(family.as_deref(), Some(FONT_FAMILY));
        // DejaVu Sans digits are 1303/2048 em wide.
        let w = text_width("00", 2048.0);
        assert!((w - 2606.0).abs() < 1e-9, "{w}");
        assert!(text_width("Wide", 10.0) > text_width("iii", 10.0));
    }
}
