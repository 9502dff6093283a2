//! Figure pieces shared by the spectra tabs: maps, log–log spectra with a wavelength scale, and
//! the amplitude-ratio and coherence plots with their reference lines.

use benchtop_spectra::{Grid, wavelength_km};

use benchtop_kit::figure::{Colormap, Dash, Heatmap, Line, Rgba, Scale, Subplot};

/// Colour of the truth in every spectra figure.
pub const TRUTH: Rgba = Rgba::rgb(0x22, 0x22, 0x22);
/// Colour of the MSE-trained or MSE-optimal forecast.
pub const MSE: Rgba = Rgba::rgb(0xd6, 0x27, 0x28);
/// Colour of the AMSE-trained or AMSE-optimal forecast.
pub const AMSE: Rgba = Rgba::rgb(0x1f, 0x77, 0xb4);
/// Colour of persistence and of the unfitted forecast.
pub const OTHER: Rgba = Rgba::rgb(0x7f, 0x7f, 0x7f);

/// Wavelengths marked on spectra (km).
const MARKED_WAVELENGTHS_KM: [f64; 4] = [10_000.0, 3_000.0, 1_000.0, 300.0];

/// Total wavenumber k with wavelength 2πR_E/k equal to `km`.
fn wavenumber_of(km: f64) -> f64 {
    wavelength_km(1.0) / km
}

/// Wavenumbers 1..=lmax as f64 (k = 0 has no place on a log axis).
pub fn wavenumbers(lmax: usize) -> Vec<f64> {
    (1..=lmax).map(|k| k as f64).collect()
}

/// `values[1..]` (dropping k = 0), for plotting against [`wavenumbers`].
pub fn from_k1(values: &[f64]) -> Vec<f64> {
    values.get(1..).unwrap_or_default().to_vec()
}

/// A log–log subplot over k with unlabelled vertical lines at marked wavelengths inside
/// 1..=lmax, their wavelengths written at height `label_y` (data units, e.g. the largest value
/// drawn).
pub fn spectrum_subplot(title: &str, y_label: &str, lmax: usize, label_y: f64) -> Subplot {
    let mut subplot = Subplot::new(title)
        .x_label("Total wavenumber k (wavelength 2πR_E/k marked)")
        .y_label(y_label)
        .x_scale(Scale::Log10)
        .y_scale(Scale::Log10)
        .legend(true);
    let top = lmax as f64;
    for km in MARKED_WAVELENGTHS_KM {
        let k = wavenumber_of(km);
        if (1.0..=top).contains(&k) {
            subplot = subplot.vline(k, "");
            if label_y.is_finite() && label_y > 0.0 {
                subplot = subplot.text(k, label_y, format!("{km:.0} km"));
            }
        }
    }
    subplot
}

/// The largest finite positive value of k ≥ 1 in some per-k vectors (for [`spectrum_subplot`]).
pub fn top_value<'a>(series: impl IntoIterator<Item = &'a [f64]>) -> f64 {
    series
        .into_iter()
        .flat_map(|s| s.iter().skip(1))
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold(f64::NAN, f64::max)
}

/// A linear subplot of R_k or Coh_k over k with reference lines at 1 and √0.75.
pub fn ratio_subplot(title: &str, y_label: &str) -> Subplot {
    Subplot::new(title)
        .x_label("Total wavenumber k")
        .y_label(y_label)
        .x_scale(Scale::Log10)
        .legend(true)
        .hline(1.0, "1")
        .hline(0.75_f64.sqrt(), "√0.75")
}

/// A line over k = 1..=lmax from a per-k vector that starts at k = 0.
pub fn per_k_line(name: &str, values: &[f64], color: Rgba) -> Line {
    let ys = from_k1(values);
    Line::new(name, wavenumbers(ys.len()), ys).color(color)
}

/// The same, dashed.
pub fn per_k_dashed(name: &str, values: &[f64], color: Rgba) -> Line {
    per_k_line(name, values, color).dash(Dash::Dashed)
}

/// An equirectangular map of a field (north first, longitudes from 0° eastward).
pub fn map_subplot(
    title: &str,
    grid: &Grid,
    values: &[f64],
    range: (f64, f64),
    colormap: Colormap,
    colorbar: &str,
) -> Subplot {
    let (nlat, nlon) = (grid.nlat, grid.nlon);
    // The heatmap wants the bottom (southernmost) row first.
    let flipped: Vec<f64> = values
        .chunks_exact(nlon)
        .rev()
        .flat_map(|row| row.iter().copied())
        .collect();
    let half_cell = 180.0 / nlon as f64;
    let heatmap = Heatmap::new(
        title,
        (-half_cell, 360.0 - half_cell),
        (-90.0, 90.0),
        nlon,
        nlat,
        flipped,
    )
    .colormap(colormap)
    .value_range(range.0, range.1)
    .colorbar_label(colorbar);
    Subplot::new(title)
        .x_label("Longitude (°E)")
        .y_label("Latitude (°N)")
        .x_range(0.0, 360.0)
        .y_range(-90.0, 90.0)
        .heatmap(heatmap)
}

/// A symmetric colour range ±max|v| over several fields (at least a tiny positive width).
pub fn symmetric_range<'a>(fields: impl IntoIterator<Item = &'a [f64]>) -> (f64, f64) {
    let largest = fields
        .into_iter()
        .flat_map(|f| f.iter())
        .filter(|v| v.is_finite())
        .fold(0.0_f64, |m, v| m.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    (-largest, largest)
}

/// The finite minimum and maximum of a field (a tiny width if constant).
pub fn value_range(values: &[f64]) -> (f64, f64) {
    benchtop_kit::figure::ValueStats::of(values.iter().copied()).padded_range()
}

/// "k = 12 (3336 km)" or "not reached".
pub fn describe_k(k: Option<usize>) -> String {
    match k {
        Some(k) => format!("k = {k} ({:.0} km)", wavelength_km(k as f64)),
        None => "not reached".to_owned(),
    }
}
