//! What the spectra panel's sweeps record (the parameters they vary are declared in
//! [`super::params`]): the outputs, one point's evaluation, and the exact curves of the
//! analytic experiment.

use std::collections::BTreeMap;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::sweep::{ReferenceCurve, SweepOutput};
use benchtop_spectra::EffectiveResolution;
use benchtop_spectra::experiments::run_analytic;
use benchtop_spectra::forecast;
use benchtop_spectra::wavelength_km;

use super::SpectraParams;

/// The outputs sweeps may record.
pub fn outputs() -> Vec<SweepOutput> {
    vec![
        SweepOutput::new(
            "analytic.resolution_k_mse",
            "Effective resolution k, MSE-optimal",
        ),
        SweepOutput::new(
            "analytic.resolution_k_amse",
            "Effective resolution k, AMSE-optimal",
        ),
        SweepOutput::new(
            "analytic.resolution_km_mse",
            "Effective resolution (km), MSE-optimal",
        ),
        SweepOutput::new(
            "analytic.resolution_km_amse",
            "Effective resolution (km), AMSE-optimal",
        ),
        SweepOutput::new("analytic.mean_gain_mse", "Mean gain g_k, MSE fit"),
        SweepOutput::new("analytic.mean_gain_amse", "Mean gain g_k, AMSE fit"),
        SweepOutput::new("analytic.mse_of_mse_fit", "MSE of the MSE-optimal forecast"),
        SweepOutput::new(
            "analytic.mse_of_amse_fit",
            "MSE of the AMSE-optimal forecast",
        ),
        SweepOutput::new(
            "learned.resolution_km_mse",
            "Effective resolution (km), MSE-trained, longest lead",
        ),
        SweepOutput::new(
            "learned.resolution_km_amse",
            "Effective resolution (km), AMSE-trained, longest lead",
        ),
        SweepOutput::new("learned.rmse_mse", "RMSE, MSE-trained, longest lead"),
        SweepOutput::new("learned.rmse_amse", "RMSE, AMSE-trained, longest lead"),
    ]
}

/// First k ≥ 1 with ρ_k² = exp(−2k/k_c) ≤ 0.75, i.e. k ≥ k_c·ln(4/3)/2, capped at `lmax`.
fn exact_resolution_k(k_c: f64, lmax: usize) -> f64 {
    (k_c * (4.0_f64 / 3.0).ln() / 2.0)
        .ceil()
        .max(1.0)
        .min(lmax as f64)
}

/// Mean of ρ_k = exp(−k/k_c) over k = 1..=lmax.
fn mean_rho(k_c: f64, lmax: usize) -> f64 {
    let n = lmax.max(1) as f64;
    (1..=lmax)
        .map(|k| {
            let k = k as f64;
            (-k / k_c).exp()
        })
        .sum::<f64>()
        / n
}

/// Exact curves of the analytic experiment against k_c: the MSE optimum is g_k = ρ_k, the AMSE
/// optimum g_k = 1.
pub fn reference(
    param: &str,
    output: &str,
    low: f64,
    high: f64,
    lmax: usize,
) -> Option<ReferenceCurve> {
    if param != "analytic.k_c" {
        return None;
    }
    let (label, f): (&str, Box<dyn Fn(f64) -> f64>) = match output {
        "analytic.mean_gain_mse" => ("Exact: mean ρ_k", Box::new(move |k_c| mean_rho(k_c, lmax))),
        "analytic.mean_gain_amse" => ("Exact: 1", Box::new(|_| 1.0)),
        "analytic.resolution_k_mse" => (
            "Exact: ρ_k² = 0.75",
            Box::new(move |k_c| exact_resolution_k(k_c, lmax)),
        ),
        "analytic.resolution_km_mse" => (
            "Exact: ρ_k² = 0.75",
            Box::new(move |k_c| wavelength_km(exact_resolution_k(k_c, lmax))),
        ),
        _ => return None,
    };
    Some(ReferenceCurve::sample(param, output, label, low, high, &f))
}

/// The dissipation wavenumber, or the truncation when R_k² never falls to 0.75 (the forecast
/// then keeps its amplitude at every resolved scale).
fn resolution_k(resolution: &EffectiveResolution, lmax: usize) -> f64 {
    resolution.dissipation_k.unwrap_or(lmax) as f64
}

/// Computes the analytic and learned outputs for one sweep point.
pub fn evaluate(
    params: &SpectraParams,
    outputs: &[String],
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<BTreeMap<String, f64>, ComputeError> {
    let (mut analytic, learned) = (params.analytic.clone(), &params.learned);
    let wants = |prefix: &str| outputs.iter().any(|o| o.starts_with(prefix));
    let (want_analytic, want_learned) = (wants("analytic."), wants("learned."));
    let split = if want_learned && want_analytic {
        0.05
    } else {
        1.0
    };
    let mut values = BTreeMap::new();
    if want_analytic {
        analytic.maps = false;
        let r = run_analytic(&analytic, seed, &progress.slice(0.0, split), cancel)?;
        let lmax = analytic.lmax;
        let (k_mse, k_amse) = (
            resolution_k(&r.resolution_mse_fit, lmax),
            resolution_k(&r.resolution_amse_fit, lmax),
        );
        let mean = |g: &[f64]| g.iter().skip(1).sum::<f64>() / lmax.max(1) as f64;
        for (key, value) in [
            ("analytic.resolution_k_mse", k_mse),
            ("analytic.resolution_k_amse", k_amse),
            ("analytic.resolution_km_mse", wavelength_km(k_mse)),
            ("analytic.resolution_km_amse", wavelength_km(k_amse)),
            ("analytic.mean_gain_mse", mean(&r.gain_mse)),
            ("analytic.mean_gain_amse", mean(&r.gain_amse)),
            ("analytic.mse_of_mse_fit", r.mse_terms_mse_fit.total),
            ("analytic.mse_of_amse_fit", r.mse_terms_amse_fit.total),
        ] {
            values.insert(key.to_owned(), value);
        }
    }
    if want_learned {
        let start = if want_analytic { split } else { 0.0 };
        let r = forecast::run(learned, seed, &progress.slice(start, 1.0), cancel)?;
        let lmax = learned.model.lmax;
        if let Some(lead) = r.leads.iter().max_by(|a, b| a.lead_h.total_cmp(&b.lead_h)) {
            for (key, value) in [
                (
                    "learned.resolution_km_mse",
                    wavelength_km(resolution_k(&lead.mse.resolution, lmax)),
                ),
                (
                    "learned.resolution_km_amse",
                    wavelength_km(resolution_k(&lead.amse.resolution, lmax)),
                ),
                ("learned.rmse_mse", lead.mse.rmse),
                ("learned.rmse_amse", lead.amse.rmse),
            ] {
                values.insert(key.to_owned(), value);
            }
        }
    }
    Ok(values)
}
