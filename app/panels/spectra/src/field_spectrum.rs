//! One loaded field and its power spectrum: shared by the panel's data tab and
//! `benchtop spectra`.

use std::path::Path;

use benchtop_compute::ComputeError;
use benchtop_spectra::data::{Field, LoadOptions, load_field};
use benchtop_spectra::{FieldSpectrum, field_spectrum};

/// Loads `path` with `options` and computes its spectrum up to `lmax` (`None`: the most its
/// grid resolves).
pub fn file_spectrum(
    path: &Path,
    options: &LoadOptions,
    lmax: Option<usize>,
) -> Result<(Field, FieldSpectrum), ComputeError> {
    let field = load_field(path, options)?;
    if let Some(lmax) = lmax.filter(|&l| l > field.grid.max_lmax()) {
        return Err(ComputeError::invalid(
            "lmax",
            format!(
                "{}: {lmax} is more than its {}×{} grid resolves (at most {})",
                path.display(),
                field.grid.nlat,
                field.grid.nlon,
                field.grid.max_lmax()
            ),
        ));
    }
    let spectrum = field_spectrum(&field.grid, &field.values, lmax)?;
    Ok((field, spectrum))
}

/// Wavelength 2πR_E/k in km for every k of `spectrum`, infinite at k = 0 (the mean).
pub fn wavelengths_km(spectrum: &FieldSpectrum) -> Vec<f64> {
    spectrum
        .k
        .iter()
        .zip(&spectrum.wavelength_km)
        .map(|(&k, &km)| if k == 0 { f64::INFINITY } else { km })
        .collect()
}

/// The spectrum as CSV with the columns `k,wavelength_km,psd` (wavelength `inf` at k = 0).
pub fn spectrum_csv(spectrum: &FieldSpectrum) -> String {
    let mut text = String::from("k,wavelength_km,psd\n");
    for ((k, km), psd) in spectrum
        .k
        .iter()
        .zip(wavelengths_km(spectrum))
        .zip(&spectrum.psd)
    {
        text.push_str(&format!("{k},{km},{psd}\n"));
    }
    text
}

/// The area-weighted mean square of a field on its grid (Σ_k PSD_k for a band-limited field);
/// an error, not `inf`, when the squares overflow f64.
pub fn mean_square(field: &Field) -> Result<f64, ComputeError> {
    let squares: Vec<f64> = field.values.iter().map(|v| v * v).collect();
    let value = field.grid.mean(&squares)?;
    if value.is_finite() {
        Ok(value)
    } else {
        Err(ComputeError::invalid(
            "field",
            "the mean square overflows f64; rescale the field (for example, change its units)",
        ))
    }
}
