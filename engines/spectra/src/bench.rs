//! Timing of the transforms for `benchtop bench sht` and the ducc0 side-by-side script.
//!
//! A random band-limited field set (seeded) is synthesised and analysed `repeats` times after
//! one warm-up; the medians are reported together with the round-trip error
//! `max |a − forward(inverse(a))|`. Plan construction is timed separately (`plan_ms`): ducc0's
//! `analysis_2d`/`synthesis_2d` have no plan object and pay their setup in every call.

use std::time::Instant;

use benchtop_compute::ComputeError;
use num_complex::Complex64;
use rand::Rng as _;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::grid::{Grid, GridKind};
use crate::sht::{Coeffs, Sht};

/// What to time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchParams {
    /// Ring placement.
    pub grid: GridKind,
    /// Latitude rings.
    pub nlat: usize,
    /// Longitudes per ring.
    pub nlon: usize,
    /// Largest degree.
    pub lmax: usize,
    /// Fields transformed per call.
    pub batch: usize,
    /// `cpu` or `wgpu` (`cuda` is reported as unavailable: the SHT has no CUDA path).
    pub backend: String,
    /// Timed repetitions after one warm-up (the median is reported).
    pub repeats: usize,
    /// Seed of the random coefficients.
    pub seed: u64,
}

impl Default for BenchParams {
    fn default() -> Self {
        Self {
            grid: GridKind::Equiangular,
            nlat: 181,
            nlon: 360,
            lmax: 179,
            batch: 1,
            backend: "cpu".to_owned(),
            repeats: 7,
            seed: 1,
        }
    }
}

/// Times forward and inverse transforms on an equiangular grid (with poles) and returns one
/// JSON object: `forward_ms`, `inverse_ms` (median per call, the whole batch),
/// `forward_ms_per_field`, `inverse_ms_per_field`, `roundtrip_max_abs_err`, `plan_ms`, the
/// grid, lmax, batch, backend, threads and the SIMD level used.
pub fn bench_sht(
    nlat: usize,
    nlon: usize,
    lmax: usize,
    batch: usize,
    backend: &str,
) -> Result<serde_json::Value, ComputeError> {
    bench_sht_with(&BenchParams {
        nlat,
        nlon,
        lmax,
        batch,
        backend: backend.to_owned(),
        ..BenchParams::default()
    })
}

/// Random coefficients of a real field with unit variance per coefficient (seeded).
pub fn random_coeffs(lmax: usize, seed: u64) -> Coeffs {
    let mut rng = benchtop_compute::rng::seeded(seed);
    let mut c = Coeffs::zeros(lmax);
    for m in 0..=lmax {
        for l in m..=lmax {
            let re: f64 = rng.random_range(-1.0..1.0);
            let im: f64 = if m == 0 {
                0.0
            } else {
                rng.random_range(-1.0..1.0)
            };
            c.set(l, m, Complex64::new(re, im));
        }
    }
    c
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

fn max_error(a: &[Coeffs], b: &[Coeffs]) -> f64 {
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| x.data().iter().zip(y.data()).map(|(u, v)| (u - v).norm()))
        .fold(0.0, f64::max)
}

/// [`bench_sht`] with every setting.
pub fn bench_sht_with(params: &BenchParams) -> Result<serde_json::Value, ComputeError> {
    if params.batch == 0 {
        return Err(ComputeError::invalid("batch", "at least one field"));
    }
    let grid = Grid::new(params.grid, params.nlat, params.nlon)?;
    let repeats = params.repeats.max(1);
    let coeffs: Vec<Coeffs> = (0..params.batch)
        .map(|i| {
            random_coeffs(
                params.lmax,
                benchtop_compute::rng::derive_seed(params.seed, i as u64),
            )
        })
        .collect();
    let refs: Vec<&Coeffs> = coeffs.iter().collect();
    let (plan_ms, forward, inverse, error, simd, device) = match params.backend.as_str() {
        "cpu" => {
            let start = Instant::now();
            let sht = Sht::new(&grid, params.lmax)?;
            let plan_ms = start.elapsed().as_secs_f64() * 1e3;
            let mut fields = sht.inverse_batch(&refs)?;
            let mut inverse = Vec::with_capacity(repeats);
            for _ in 0..repeats {
                let start = Instant::now();
                fields = sht.inverse_batch(&refs)?;
                inverse.push(start.elapsed().as_secs_f64() * 1e3);
            }
            let views: Vec<&[f64]> = fields.iter().map(Vec::as_slice).collect();
            let mut back = sht.forward_batch(&views)?;
            let mut forward = Vec::with_capacity(repeats);
            for _ in 0..repeats {
                let start = Instant::now();
                back = sht.forward_batch(&views)?;
                forward.push(start.elapsed().as_secs_f64() * 1e3);
            }
            let error = max_error(&coeffs, &back);
            (
                plan_ms,
                forward,
                inverse,
                error,
                sht.simd_level(),
                "cpu".to_owned(),
            )
        }
        "wgpu" => {
            let context = benchtop_compute::gpu::context()?;
            let start = Instant::now();
            let gpu = crate::gpu::GpuSht::new(context.clone(), &grid, params.lmax, params.batch)?;
            let plan_ms = start.elapsed().as_secs_f64() * 1e3;
            let mut fields = gpu.inverse(&refs)?;
            let mut inverse = Vec::with_capacity(repeats);
            for _ in 0..repeats {
                let start = Instant::now();
                fields = gpu.inverse(&refs)?;
                inverse.push(start.elapsed().as_secs_f64() * 1e3);
            }
            let views: Vec<&[f64]> = fields.iter().map(Vec::as_slice).collect();
            let mut back = gpu.forward(&views)?;
            let mut forward = Vec::with_capacity(repeats);
            for _ in 0..repeats {
                let start = Instant::now();
                back = gpu.forward(&views)?;
                forward.push(start.elapsed().as_secs_f64() * 1e3);
            }
            let error = max_error(&coeffs, &back);
            (
                plan_ms,
                forward,
                inverse,
                error,
                "f32".to_owned(),
                context.describe(),
            )
        }
        "cuda" => {
            return Err(ComputeError::BackendUnavailable {
                backend: "CUDA",
                reason: "the spherical harmonic transform has no CUDA path; use --backend wgpu"
                    .to_owned(),
            });
        }
        other => {
            return Err(ComputeError::invalid(
                "backend",
                format!("unknown backend `{other}` (cpu, wgpu or cuda)"),
            ));
        }
    };
    let (forward_ms, inverse_ms) = (median(forward), median(inverse));
    let batch = params.batch as f64;
    Ok(json!({
        "benchmark": "sht",
        "backend": params.backend,
        "device": device,
        "grid": params.grid.name(),
        "nlat": params.nlat,
        "nlon": params.nlon,
        "lmax": params.lmax,
        "batch": params.batch,
        "threads": rayon::current_num_threads(),
        "simd": simd,
        "repeats": repeats,
        "plan_ms": plan_ms,
        "forward_ms": forward_ms,
        "inverse_ms": inverse_ms,
        "forward_ms_per_field": forward_ms / batch,
        "inverse_ms_per_field": inverse_ms / batch,
        "roundtrip_max_abs_err": error,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_the_documented_fields() {
        let report = bench_sht_with(&BenchParams {
            nlat: 19,
            nlon: 36,
            lmax: 17,
            batch: 2,
            repeats: 1,
            ..BenchParams::default()
        })
        .unwrap();
        for key in [
            "forward_ms",
            "inverse_ms",
            "roundtrip_max_abs_err",
            "plan_ms",
            "threads",
        ] {
            assert!(report[key].is_number(), "{key}: {report}");
        }
        assert!(report["roundtrip_max_abs_err"].as_f64().unwrap() < 1e-12);
        assert_eq!(report["grid"], "equiangular");
        assert!(bench_sht(19, 36, 17, 1, "cuda").is_err());
        assert!(bench_sht(19, 36, 17, 1, "tpu").is_err());
    }
}
