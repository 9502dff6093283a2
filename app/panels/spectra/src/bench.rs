//! `benchtop bench sht`: the panel's benchmark entry (options, and the engine's real code
//! path timed with the run's own observables).

use benchtop_kit::cli::{BenchEntry, run_bench};
use clap::Parser;

/// The panel's `benchtop bench` entries.
pub const BENCHES: &[BenchEntry] = &[BenchEntry {
    name: "sht",
    about: "Spherical harmonic transform timings and round-trip error",
    run: |args| run_bench("sht", args, sht),
}];

/// Options of `benchtop bench sht`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench sht",
    allow_negative_numbers = true,
    about = "Spherical harmonic transform timings and round-trip error"
)]
pub struct ShtBench {
    /// Latitude rings.
    #[arg(long, default_value_t = 181)]
    pub nlat: usize,
    /// Longitudes per ring.
    #[arg(long, default_value_t = 360)]
    pub nlon: usize,
    /// Largest degree.
    #[arg(long, default_value_t = 179)]
    pub lmax: usize,
    /// Fields transformed per call.
    #[arg(long, default_value_t = 1)]
    pub batch: usize,
    /// equiangular (both poles included) or gauss.
    #[arg(long, default_value = "equiangular")]
    pub grid: String,
    /// cpu or wgpu.
    #[arg(long, default_value = "cpu")]
    pub backend: String,
    /// Timed repetitions after one warm-up (the median is reported).
    #[arg(long, default_value_t = 7)]
    pub repeats: usize,
    /// Seed of the random coefficients.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The SHT benchmark: `forward_ms`, `inverse_ms`, `roundtrip_max_abs_err` and the setup.
pub fn sht(options: &ShtBench) -> anyhow::Result<serde_json::Value> {
    let grid = match options.grid.as_str() {
        "equiangular" => benchtop_spectra::GridKind::Equiangular,
        "gauss" | "gauss-legendre" => benchtop_spectra::GridKind::GaussLegendre,
        other => anyhow::bail!("--grid {other}: use equiangular or gauss"),
    };
    let value = benchtop_spectra::bench::bench_sht_with(&benchtop_spectra::bench::BenchParams {
        grid,
        nlat: options.nlat,
        nlon: options.nlon,
        lmax: options.lmax,
        batch: options.batch,
        backend: options.backend.clone(),
        repeats: options.repeats,
        seed: options.seed,
    })?;
    Ok(value)
}
