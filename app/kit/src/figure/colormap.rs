//! Colours, the default colour cycle and the colormaps (sampled from `colorous`).

use serde::{Deserialize, Serialize};

/// An sRGB colour with straight (not premultiplied) alpha, 8 bits a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rgba {
    /// Red, 0–255.
    pub r: u8,
    /// Green, 0–255.
    pub g: u8,
    /// Blue, 0–255.
    pub b: u8,
    /// Alpha (opacity), 0 = transparent, 255 = opaque.
    pub a: u8,
}

impl Rgba {
    /// Opaque black.
    pub const BLACK: Self = Self::rgb(0, 0, 0);
    /// Opaque white.
    pub const WHITE: Self = Self::rgb(255, 255, 255);
    /// Opaque mid grey, used for reference lines.
    pub const GREY: Self = Self::rgb(110, 110, 110);
    /// Fully transparent.
    pub const TRANSPARENT: Self = Self::new(0, 0, 0, 0);

    /// A colour from its four channels.
    pub const fn new(r: u8, g: u8, b: u8, a: u8) -> Self {
        Self { r, g, b, a }
    }

    /// An opaque colour.
    pub const fn rgb(r: u8, g: u8, b: u8) -> Self {
        Self::new(r, g, b, 255)
    }

    /// The same colour with another alpha.
    pub const fn with_alpha(self, a: u8) -> Self {
        Self::new(self.r, self.g, self.b, a)
    }

    /// Alpha as a fraction in 0..=1.
    pub fn alpha_fraction(self) -> f64 {
        f64::from(self.a) / 255.0
    }

    /// Colour number `index` of the default cycle (d3/matplotlib category10), wrapping around.
    pub fn cycle(index: usize) -> Self {
        let palette = &colorous::CATEGORY10;
        let c = palette[index % palette.len()];
        Self::rgb(c.r, c.g, c.b)
    }

    /// The same colour for egui.
    pub fn to_color32(self) -> egui::Color32 {
        egui::Color32::from_rgba_unmultiplied(self.r, self.g, self.b, self.a)
    }

    /// `#RRGGBB` (alpha not included).
    pub fn hex_rgb(self) -> String {
        format!("#{:02X}{:02X}{:02X}", self.r, self.g, self.b)
    }
}

impl Default for Rgba {
    fn default() -> Self {
        Self::BLACK
    }
}

/// Number of entries in each colormap's lookup table. Both renderers use the same table, so a
/// value gets the same colour on screen and in every exported file.
pub const COLORMAP_LUT_SIZE: usize = 256;

/// A continuous colormap for heatmaps and colorbars.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Colormap {
    /// Perceptually uniform, dark purple to yellow (sequential, the default).
    #[default]
    Viridis,
    /// Perceptually uniform, black to light yellow through magenta (sequential).
    Magma,
    /// Perceptually uniform and colour-vision-deficiency friendly, blue to yellow (sequential).
    Cividis,
    /// Perceptually uniform, black to yellow through red (sequential).
    Inferno,
    /// Diverging red (low) – white (middle) – blue (high), ColorBrewer RdBu.
    RdBu,
}

impl Colormap {
    /// Every colormap, in menu order.
    pub const ALL: [Self; 5] = [
        Self::Viridis,
        Self::Magma,
        Self::Cividis,
        Self::Inferno,
        Self::RdBu,
    ];

    /// Sentence-case name for menus and legends.
    pub fn label(self) -> &'static str {
        match self {
            Self::Viridis => "Viridis",
            Self::Magma => "Magma",
            Self::Cividis => "Cividis",
            Self::Inferno => "Inferno",
            Self::RdBu => "Red–blue (diverging)",
        }
    }

    fn gradient(self) -> colorous::Gradient {
        match self {
            Self::Viridis => colorous::VIRIDIS,
            Self::Magma => colorous::MAGMA,
            Self::Cividis => colorous::CIVIDIS,
            Self::Inferno => colorous::INFERNO,
            Self::RdBu => colorous::RED_BLUE,
        }
    }

    /// Lookup-table entry `index` (clamped to the table), the colour at `index / (N − 1)`.
    pub fn lut_entry(self, index: usize) -> Rgba {
        let c = self
            .gradient()
            .eval_rational(index.min(COLORMAP_LUT_SIZE - 1), COLORMAP_LUT_SIZE);
        Rgba::rgb(c.r, c.g, c.b)
    }

    /// The whole lookup table.
    pub fn lut(self) -> [Rgba; COLORMAP_LUT_SIZE] {
        std::array::from_fn(|i| self.lut_entry(i))
    }

    /// Colour at position `t` in 0..=1 (clamped; NaN gives transparent), via the lookup table.
    pub fn color_at(self, t: f64) -> Rgba {
        lut_index(t).map_or(Rgba::TRANSPARENT, |i| self.lut_entry(i))
    }
}

/// Index into a lookup table for the position `t` in 0..=1 (clamped), or `None` for NaN.
pub fn lut_index(t: f64) -> Option<usize> {
    if t.is_nan() {
        return None;
    }
    let scaled = (t.clamp(0.0, 1.0) * (COLORMAP_LUT_SIZE - 1) as f64).round();
    // In 0..=255 after the clamp, so the conversion is exact.
    Some(scaled as usize)
}

/// Position of `value` in `range` as a fraction (0 at `range.0`, 1 at `range.1`); a degenerate
/// range maps everything to 0.5. Non-finite values give NaN.
pub fn normalize(value: f64, range: (f64, f64)) -> f64 {
    if !value.is_finite() {
        return f64::NAN;
    }
    let span = range.1 - range.0;
    if span == 0.0 || !span.is_finite() {
        0.5
    } else {
        (value - range.0) / span
    }
}

/// Maps values to RGBA bytes (4 per value, straight alpha) with a colormap and a value range;
/// non-finite values become transparent.
pub fn map_values_rgba(values: &[f64], colormap: Colormap, range: (f64, f64)) -> Vec<u8> {
    let lut = colormap.lut();
    let mut out = Vec::with_capacity(values.len() * 4);
    for &v in values {
        let c = lut_index(normalize(v, range)).map_or(Rgba::TRANSPARENT, |i| lut[i]);
        out.extend_from_slice(&[c.r, c.g, c.b, c.a]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viridis_end_points_match_the_published_map() {
        // Viridis starts at #440154 and ends at #FDE725 (matplotlib's _viridis_data).
        assert_eq!(Colormap::Viridis.color_at(0.0), Rgba::rgb(0x44, 0x01, 0x54));
        assert_eq!(Colormap::Viridis.color_at(1.0), Rgba::rgb(0xfd, 0xe7, 0x25));
        // Clamped outside 0..=1, transparent for NaN.
        assert_eq!(
            Colormap::Viridis.color_at(-3.0),
            Colormap::Viridis.color_at(0.0)
        );
        assert_eq!(Colormap::Viridis.color_at(f64::NAN), Rgba::TRANSPARENT);
    }

    #[test]
    fn rdbu_is_red_low_and_blue_high() {
        let low = Colormap::RdBu.color_at(0.0);
        let high = Colormap::RdBu.color_at(1.0);
        assert!(low.r > 100 && low.b < 60, "{low:?}");
        assert!(high.b > 60 && high.r < 20, "{high:?}");
    }

    #[test]
    fn mapping_uses_the_lookup_table_and_range() {
        let bytes = map_values_rgba(&[0.0, 5.0, 10.0, f64::NAN], Colormap::Magma, (0.0, 10.0));
        assert_eq!(bytes.len(), 16);
        let first = Colormap::Magma.lut_entry(0);
        let mid = Colormap::Magma.lut_entry(128);
        let last = Colormap::Magma.lut_entry(255);
        assert_eq!(&bytes[0..4], &[first.r, first.g, first.b, 255]);
        assert_eq!(&bytes[4..8], &[mid.r, mid.g, mid.b, 255]);
        assert_eq!(&bytes[8..12], &[last.r, last.g, last.b, 255]);
        assert_eq!(bytes[15], 0);
    }

    #[test]
    fn colour_cycle_is_category10() {
        assert_eq!(Rgba::cycle(0).hex_rgb(), "#1F77B4");
        assert_eq!(Rgba::cycle(1).hex_rgb(), "#FF7F0E");
        assert_eq!(Rgba::cycle(10), Rgba::cycle(0));
    }
}
