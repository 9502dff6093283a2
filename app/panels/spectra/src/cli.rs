//! `benchtop spectra FILE … --csv OUT`: the power spectrum of one field of a NetCDF or NPY file.
//!
//! The CSV has one row per total wavenumber k with the columns `k,wavelength_km,psd`
//! (4π-normalised: Σ_k psd is the area-weighted mean square; `wavelength_km` is 2πR_E/k, `inf`
//! at k = 0). A description of the field read goes to stderr, its time as a date decoded from
//! the CF units and calendar (`time 1970-01-01 (0 days since 1970-01-01 00:00:0.0)`), or the
//! raw value labelled as such with the reason it was not decoded.
//!
//! The CSV is written atomically (a temporary file renamed over it: a failed write leaves any
//! previous CSV intact), and a `--csv` naming the input file itself is refused before anything
//! is read. A field whose power overflows f64 (values near 1e300) is an error naming the file
//! and variable, never a column of `inf`.

use std::path::{Path, PathBuf};

use benchtop_compute::ComputeError;
use benchtop_spectra::data::{GridChoice, LoadOptions, describe};

use benchtop_kit::cli::{CommandEntry, refuse_output_over_input, run_command, write_output};

use crate::{file_spectrum, spectrum_csv};

/// The panel's own subcommand.
pub const COMMANDS: &[CommandEntry] = &[CommandEntry {
    name: "spectra",
    about: "Power spectrum of one field of a NetCDF or NPY file, as CSV (`k,wavelength_km,psd`)",
    run: |args| run_command("spectra", args, command),
}];

/// Options of `benchtop spectra`.
#[derive(Debug, clap::Parser)]
#[command(
    name = "benchtop spectra",
    about = "Power spectrum of one field of a NetCDF or NPY file, as CSV (`k,wavelength_km,psd`)"
)]
pub struct SpectraArgs {
    /// The NetCDF (`.nc`) or NumPy (`.npy`, latitude × longitude, north pole first) file.
    pub file: PathBuf,
    /// NetCDF variable (default: the only variable with latitude and longitude).
    #[arg(long = "var")]
    pub variable: Option<String>,
    /// Index along the time dimension.
    #[arg(long, default_value_t = 0)]
    pub time: usize,
    /// Index along the vertical-level dimension.
    #[arg(long, default_value_t = 0)]
    pub level: usize,
    /// The grid: equiangular (both poles included), gauss, or auto (detected).
    #[arg(long, default_value = "auto")]
    pub grid: String,
    /// Largest total wavenumber (default: the most the grid resolves).
    #[arg(long)]
    pub lmax: Option<usize>,
    /// Where to write the CSV.
    #[arg(long)]
    pub csv: PathBuf,
}

/// Runs `benchtop spectra` with `args`.
pub fn command(args: &SpectraArgs) -> anyhow::Result<()> {
    let options = LoadOptions {
        variable: args.variable.clone().unwrap_or_default(),
        time_index: args.time,
        level_index: args.level,
        grid: parse_grid(&args.grid)?,
    };
    spectra(&args.file, &options, args.lmax, &args.csv)
}

/// Parses `--grid`: `auto`, `equiangular` or `gauss`.
pub fn parse_grid(text: &str) -> anyhow::Result<GridChoice> {
    match text {
        "auto" => Ok(GridChoice::Auto),
        "equiangular" => Ok(GridChoice::Equiangular),
        "gauss" | "gauss-legendre" => Ok(GridChoice::GaussLegendre),
        other => anyhow::bail!("--grid {other}: use equiangular, gauss or auto"),
    }
}

/// Loads the field, computes its spectrum and writes the CSV to `csv` atomically; `csv` naming
/// the input file is refused first.
pub fn spectra(
    file: &Path,
    options: &LoadOptions,
    lmax: Option<usize>,
    csv: &Path,
) -> anyhow::Result<()> {
    refuse_output_over_input(file, csv, "--csv")?;
    let (field, spectrum) = file_spectrum(file, options, lmax).map_err(|error| match error {
        // The loaders name the file; the spectrum's own numerical failures do not.
        ComputeError::Numerical(why) => {
            let variable = if options.variable.is_empty() {
                String::new()
            } else {
                format!(": variable `{}`", options.variable)
            };
            anyhow::anyhow!("{}{variable}: {why}", file.display())
        }
        other => other.into(),
    })?;
    write_output(csv, spectrum_csv(&spectrum).as_bytes())?;
    benchtop_kit::note!(
        "{}: lmax {}, {} rows written to {}",
        describe(&field),
        spectrum.k.len().saturating_sub(1),
        spectrum.psd.len(),
        csv.display()
    );
    Ok(())
}
