//! `benchtop spectra FILE … --csv OUT`: the power spectrum of one field of a NetCDF or NPY file.
//!
//! The CSV has one row per total wavenumber k with the columns `k,wavelength_km,psd`
//! (4π-normalised: Σ_k psd is the area-weighted mean square; `wavelength_km` is 2πR_E/k, `inf`
//! at k = 0). A description of the field read goes to stderr.

use std::path::Path;

use anyhow::Context as _;
use benchtop_spectra::data::{GridChoice, LoadOptions, describe};

use benchtop_panel_spectra::{file_spectrum, spectrum_csv};

/// Parses `--grid`: `auto`, `equiangular` or `gauss`.
pub fn parse_grid(text: &str) -> anyhow::Result<GridChoice> {
    match text {
        "auto" => Ok(GridChoice::Auto),
        "equiangular" => Ok(GridChoice::Equiangular),
        "gauss" | "gauss-legendre" => Ok(GridChoice::GaussLegendre),
        other => anyhow::bail!("--grid {other}: use equiangular, gauss or auto"),
    }
}

/// Loads the field, computes its spectrum and writes the CSV to `csv`.
pub fn spectra(
    file: &Path,
    options: &LoadOptions,
    lmax: Option<usize>,
    csv: &Path,
) -> anyhow::Result<()> {
    let (field, spectrum) = file_spectrum(file, options, lmax)?;
    if let Some(parent) = csv.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(csv, spectrum_csv(&spectrum))
        .with_context(|| format!("cannot write {}", csv.display()))?;
    eprintln!(
        "{}: lmax {}, {} rows written to {}",
        describe(&field),
        spectrum.k.len().saturating_sub(1),
        spectrum.psd.len(),
        csv.display()
    );
    Ok(())
}
