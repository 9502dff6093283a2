//! The power spectrum of one loaded field: shared by the panel's data tab and `benchtop spectra`.

use std::path::Path;

use benchtop_compute::ComputeError;
use benchtop_spectra::data::{Field, LoadOptions, load_field};
use benchtop_spectra::{Sht, psd, wavelength_km};
use serde::{Deserialize, Serialize};

/// A field's spectrum per total wavenumber k = 0..=lmax (4π-normalised: Σ_k PSD_k is the
/// area-weighted mean square of the field, and PSD_0 is its squared area mean).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldSpectrum {
    /// Largest degree of the transform.
    pub lmax: usize,
    /// PSD_k, k = 0..=lmax, in the field's units squared.
    pub psd: Vec<f64>,
    /// The area-weighted mean square of the field on its grid (Σ_k PSD_k when the field is
    /// band-limited to `lmax`).
    pub mean_square: f64,
}

impl FieldSpectrum {
    /// Wavelength 2πR_E/k in km for every k (infinite at k = 0).
    pub fn wavelengths_km(&self) -> Vec<f64> {
        (0..=self.lmax)
            .map(|k| {
                #[allow(clippy::cast_precision_loss)]
                let k = k as f64;
                if k == 0.0 {
                    f64::INFINITY
                } else {
                    wavelength_km(k)
                }
            })
            .collect()
    }

    /// The spectrum as CSV with the columns `k,wavelength_km,psd` (wavelength `inf` at k = 0).
    pub fn to_csv(&self) -> String {
        let mut text = String::from("k,wavelength_km,psd\n");
        for (k, (wavelength, power)) in self.wavelengths_km().iter().zip(&self.psd).enumerate() {
            text.push_str(&format!("{k},{wavelength},{power}\n"));
        }
        text
    }
}

/// The spectrum of `field` up to `lmax` (`None`: the largest degree its grid resolves).
pub fn field_spectrum(field: &Field, lmax: Option<usize>) -> Result<FieldSpectrum, ComputeError> {
    let lmax = lmax.unwrap_or_else(|| field.grid.max_lmax());
    if lmax > field.grid.max_lmax() {
        return Err(ComputeError::invalid(
            "lmax",
            format!(
                "{lmax} is more than the {}×{} grid resolves (at most {})",
                field.grid.nlat,
                field.grid.nlon,
                field.grid.max_lmax()
            ),
        ));
    }
    let sht = Sht::new(&field.grid, lmax)?;
    let coeffs = sht.forward(&field.values)?;
    let weights = field.grid.weights();
    let nlon = field.grid.nlon;
    let mean_square = field
        .values
        .chunks_exact(nlon)
        .zip(&weights)
        .map(|(row, weight)| weight * row.iter().map(|v| v * v).sum::<f64>())
        .sum::<f64>()
        / f64::from(u32::try_from(nlon).unwrap_or(u32::MAX));
    Ok(FieldSpectrum {
        lmax,
        psd: psd(&coeffs),
        mean_square,
    })
}

/// Loads `path` with `options` and computes its spectrum.
pub fn file_spectrum(
    path: &Path,
    options: &LoadOptions,
    lmax: Option<usize>,
) -> Result<(Field, FieldSpectrum), ComputeError> {
    let field = load_field(path, options)?;
    let spectrum = field_spectrum(&field, lmax)?;
    Ok((field, spectrum))
}
