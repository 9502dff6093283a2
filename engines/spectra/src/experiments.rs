//! Part (a) of the AMSE paper's argument, analytically: a "forecast" equal to the truth with
//! scale-dependent decorrelation ρ_k, and per-wavenumber gains g_k fitted to it by gradient
//! descent under MSE and under AMSE.
//!
//! Truth `a` is a random field with a prescribed spectrum ([`crate::synthetic`]); the forecast
//! `b` has `PSD_k(b) = PSD_k(a)` and `Coh_k(a, b) = ρ_k = exp(−k/k_c)` exactly
//! ([`decorrelated_forecast`]). The fitted forecast is `g_k·b_k`. Per k, with `P = PSD_k(a) =
//! PSD_k(b)` and cross-power `X = ρ_k P`:
//! - MSE_k(g) = `P − 2gX + g²P`, minimised at `g = X/P = ρ_k`: the MSE-optimal forecast damps
//!   every scale by its correlation (it blurs);
//! - AMSE_k(g) = `(g√P − √P)² + 2·max(g²P, P)·(1 − ρ_k)`, minimised at `g = 1`: the
//!   AMSE-optimal forecast keeps its amplitude.
//!
//! Gradient descent uses the exact per-k gradients, preconditioned by `1/(2P)` so that every k
//! moves at the same rate; the reported losses are the crate's [`mse`] and [`amse`] of the
//! fitted coefficients, so the two are tied together in the tests.

use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError, Progress};
use serde::{Deserialize, Serialize};

use crate::grid::{Grid, GridKind};
use crate::loss::{MseTerms, amse, amse_decomposition, mse, mse_decomposition};
use crate::resolution::{EffectiveResolution, effective_resolution, wavelength_km};
use crate::sht::{Coeffs, Sht};
use crate::spectrum::{amplitude_ratio, coherence, joint_spectra};
use crate::synthetic::{
    SpectrumSpec, apply_gains, decorrelated_forecast, exponential_decorrelation, random_coeffs,
};

/// Settings of the analytic experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AnalyticParams {
    /// Largest total wavenumber.
    pub lmax: usize,
    /// Spectrum of the truth.
    pub spectrum: SpectrumSpec,
    /// Decorrelation wavenumber k_c in ρ_k = exp(−k/k_c); smaller means a longer lead time.
    pub k_c: f64,
    /// Gradient-descent iterations.
    pub steps: usize,
    /// Step size of the preconditioned gradient descent (0 < η ≤ 1).
    pub learning_rate: f64,
    /// Gain every k starts from.
    pub initial_gain: f64,
    /// Compute maps of truth, forecast and both fits on an equiangular grid.
    pub maps: bool,
}

impl Default for AnalyticParams {
    fn default() -> Self {
        Self {
            lmax: 127,
            spectrum: SpectrumSpec::default(),
            k_c: 24.0,
            steps: 100,
            learning_rate: 0.1,
            initial_gain: 0.5,
            maps: true,
        }
    }
}

impl AnalyticParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !(2..=1023).contains(&self.lmax) {
            return Err(ComputeError::invalid(
                "lmax",
                format!("must be 2..=1023 (got {})", self.lmax),
            ));
        }
        if !(self.k_c.is_finite() && self.k_c > 0.0) {
            return Err(ComputeError::invalid(
                "k_c",
                format!("must be finite and > 0 (got {})", self.k_c),
            ));
        }
        if !(self.learning_rate > 0.0 && self.learning_rate <= 1.0) {
            return Err(ComputeError::invalid(
                "learning_rate",
                format!("must lie in (0, 1] (got {})", self.learning_rate),
            ));
        }
        if !(self.initial_gain.is_finite() && self.initial_gain > 0.0) {
            return Err(ComputeError::invalid(
                "initial_gain",
                format!("must be finite and > 0 (got {})", self.initial_gain),
            ));
        }
        self.spectrum.psd(self.lmax).map(|_| ())
    }
}

/// Losses of the two fits after one gradient-descent iteration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GainStep {
    /// Iteration, from 1.
    pub step: usize,
    /// MSE of the MSE-fitted forecast.
    pub mse_of_mse_fit: f64,
    /// AMSE of the AMSE-fitted forecast.
    pub amse_of_amse_fit: f64,
    /// Mean |g_k − ρ_k| of the MSE fit over k ≥ 1.
    pub mse_gain_error: f64,
    /// Mean |g_k − 1| of the AMSE fit over k ≥ 1.
    pub amse_gain_error: f64,
}

/// Maps of the experiment on an equiangular grid (row-major, north first).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnalyticMaps {
    /// The grid of the maps.
    pub grid: Grid,
    /// The truth.
    pub truth: Vec<f64>,
    /// The decorrelated forecast.
    pub forecast: Vec<f64>,
    /// The MSE-fitted forecast.
    pub mse_fit: Vec<f64>,
    /// The AMSE-fitted forecast.
    pub amse_fit: Vec<f64>,
}

/// Everything the analytic experiment produces; per-k vectors run over k = 0..=lmax.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnalyticResult {
    /// Total wavenumbers k.
    pub k: Vec<usize>,
    /// Wavelength 2πR_E/k in km (0 at k = 0, where it is undefined).
    pub wavelength_km: Vec<f64>,
    /// The prescribed correlation ρ_k.
    pub rho: Vec<f64>,
    /// PSD_k of the truth (equal to the forecast's).
    pub psd_truth: Vec<f64>,
    /// Coherence of the forecast with the truth (= ρ_k).
    pub coherence: Vec<f64>,
    /// Gains fitted under MSE.
    pub gain_mse: Vec<f64>,
    /// Gains fitted under AMSE.
    pub gain_amse: Vec<f64>,
    /// The exact MSE optimum `X_k/PSD_k(b)` of this realisation (= ρ_k).
    pub optimal_gain_mse: Vec<f64>,
    /// The exact AMSE optimum `√(PSD_k(a)/PSD_k(b))` of this realisation (= 1).
    pub optimal_gain_amse: Vec<f64>,
    /// PSD_k of the MSE fit.
    pub psd_mse_fit: Vec<f64>,
    /// PSD_k of the AMSE fit.
    pub psd_amse_fit: Vec<f64>,
    /// Amplitude ratio R_k of the MSE fit (1 where the truth has no power).
    pub ratio_mse_fit: Vec<f64>,
    /// Amplitude ratio R_k of the AMSE fit (1 where the truth has no power).
    pub ratio_amse_fit: Vec<f64>,
    /// Effective resolution of the MSE fit.
    pub resolution_mse_fit: EffectiveResolution,
    /// Effective resolution of the AMSE fit.
    pub resolution_amse_fit: EffectiveResolution,
    /// MSE of the unfitted forecast split per k into amplitude and decorrelation terms.
    pub mse_terms_forecast: MseTerms,
    /// MSE of the MSE fit, split per k.
    pub mse_terms_mse_fit: MseTerms,
    /// MSE of the AMSE fit, split per k.
    pub mse_terms_amse_fit: MseTerms,
    /// AMSE of the AMSE fit, split per k.
    pub amse_terms_amse_fit: MseTerms,
    /// Loss history, one entry per iteration.
    pub history: Vec<GainStep>,
    /// Maps, when asked for.
    pub maps: Option<AnalyticMaps>,
}

/// The gradient-descent fit as a stepper (for live curves).
#[derive(Clone, Debug)]
pub struct GainFit {
    params: AnalyticParams,
    truth: Coeffs,
    forecast: Coeffs,
    rho: Vec<f64>,
    /// PSD_k(truth), PSD_k(forecast), cross X_k.
    spectra: (Vec<f64>, Vec<f64>, Vec<f64>),
    gain_mse: Vec<f64>,
    gain_amse: Vec<f64>,
    history: Vec<GainStep>,
}

/// `d MSE_k/dg` for gain g with forecast power `pb` and cross power `x`.
pub fn mse_gain_gradient(g: f64, pb: f64, x: f64) -> f64 {
    2.0 * (g * pb - x)
}

/// `d AMSE_k/dg` for gain g ≥ 0 (one-sided where `g²·pb = pa`: the larger branch is taken
/// only when strictly above).
pub fn amse_gain_gradient(g: f64, pa: f64, pb: f64, x: f64) -> f64 {
    let (sa, sb) = (pa.sqrt(), pb.sqrt());
    let coh = if sa * sb > 0.0 {
        (x / (sa * sb)).min(1.0)
    } else {
        0.0
    };
    let mut gradient = 2.0 * sb * (g * sb - sa);
    if g * g * pb > pa {
        gradient += 4.0 * g * pb * (1.0 - coh);
    }
    gradient
}

impl GainFit {
    /// Draws the truth and forecast and starts both fits at `initial_gain`.
    pub fn new(params: &AnalyticParams, seed: u64) -> Result<Self, ComputeError> {
        params.validate()?;
        let psd = params.spectrum.psd(params.lmax)?;
        let truth = random_coeffs(&psd, &mut seeded(derive_seed(seed, 0)))?;
        let rho = exponential_decorrelation(params.lmax, params.k_c)?;
        let forecast = decorrelated_forecast(&truth, &rho, &mut seeded(derive_seed(seed, 1)))?;
        let spectra = joint_spectra(&truth, &forecast);
        for (what, values) in [
            ("truth's power", &spectra.0),
            ("forecast's power", &spectra.1),
        ] {
            if let Some(bad) = values.iter().find(|v| !v.is_finite()) {
                return Err(overflow(what, *bad, params.spectrum.variance));
            }
        }
        let mut gains = vec![params.initial_gain; params.lmax + 1];
        gains[0] = 1.0;
        Ok(Self {
            params: params.clone(),
            truth,
            forecast,
            rho,
            spectra,
            gain_mse: gains.clone(),
            gain_amse: gains,
            history: Vec::new(),
        })
    }

    /// Whether all iterations are done.
    pub fn is_finished(&self) -> bool {
        self.history.len() >= self.params.steps
    }

    /// The loss history so far.
    pub fn history(&self) -> &[GainStep] {
        &self.history
    }

    /// The current MSE and AMSE gains.
    pub fn gains(&self) -> (&[f64], &[f64]) {
        (&self.gain_mse, &self.gain_amse)
    }

    /// The truth and the decorrelated forecast.
    pub fn fields(&self) -> (&Coeffs, &Coeffs) {
        (&self.truth, &self.forecast)
    }

    /// One preconditioned gradient-descent iteration of both fits (k = 0 stays at 1).
    pub fn step(&mut self) -> Result<GainStep, ComputeError> {
        let (pa, pb, x) = &self.spectra;
        let eta = self.params.learning_rate;
        for k in 1..=self.params.lmax {
            if pb[k] <= 0.0 {
                continue;
            }
            let precondition = 1.0 / (2.0 * pb[k]);
            self.gain_mse[k] -=
                eta * precondition * mse_gain_gradient(self.gain_mse[k], pb[k], x[k]);
            let g = self.gain_amse[k];
            self.gain_amse[k] =
                (g - eta * precondition * amse_gain_gradient(g, pa[k], pb[k], x[k])).max(0.0);
        }
        let mse_fit = apply_gains(&self.forecast, &self.gain_mse)?;
        let amse_fit = apply_gains(&self.forecast, &self.gain_amse)?;
        let n = self.params.lmax as f64;
        let step = GainStep {
            step: self.history.len() + 1,
            mse_of_mse_fit: self.finite("MSE of the MSE fit", mse(&mse_fit, &self.truth))?,
            amse_of_amse_fit: self.finite("AMSE of the AMSE fit", amse(&amse_fit, &self.truth))?,
            mse_gain_error: (1..=self.params.lmax)
                .map(|k| (self.gain_mse[k] - self.rho[k]).abs())
                .sum::<f64>()
                / n,
            amse_gain_error: (1..=self.params.lmax)
                .map(|k| (self.gain_amse[k] - 1.0).abs())
                .sum::<f64>()
                / n,
        };
        self.history.push(step.clone());
        Ok(step)
    }

    /// `value`, or the error [`overflow`] gives when it is not finite.
    fn finite(&self, what: &str, value: f64) -> Result<f64, ComputeError> {
        if value.is_finite() {
            Ok(value)
        } else {
            Err(overflow(what, value, self.params.spectrum.variance))
        }
    }

    /// `terms`, or the error [`overflow`] gives when any term or the total is not finite.
    fn finite_terms(&self, what: &str, terms: MseTerms) -> Result<MseTerms, ComputeError> {
        let bad = std::iter::once(terms.total)
            .chain(terms.amplitude.iter().copied())
            .chain(terms.decorrelation.iter().copied())
            .find(|v| !v.is_finite());
        match bad {
            Some(value) => Err(overflow(what, value, self.params.spectrum.variance)),
            None => Ok(terms),
        }
    }

    /// The result for the current gains.
    pub fn result(&self) -> Result<AnalyticResult, ComputeError> {
        let lmax = self.params.lmax;
        let (pa, pb, x) = &self.spectra;
        let mse_fit = apply_gains(&self.forecast, &self.gain_mse)?;
        let amse_fit = apply_gains(&self.forecast, &self.gain_amse)?;
        let ratio_mse_fit = finite_ratio(amplitude_ratio(&mse_fit, &self.truth));
        let ratio_amse_fit = finite_ratio(amplitude_ratio(&amse_fit, &self.truth));
        let optimal_gain_mse = (0..=lmax)
            .map(|k| if pb[k] > 0.0 { x[k] / pb[k] } else { 1.0 })
            .collect();
        let optimal_gain_amse = (0..=lmax)
            .map(|k| {
                if pb[k] > 0.0 {
                    (pa[k] / pb[k]).sqrt()
                } else {
                    1.0
                }
            })
            .collect();
        let maps = if self.params.maps {
            // The smallest equiangular grid that holds lmax.
            let grid = Grid::new(GridKind::Equiangular, lmax + 2, 2 * lmax + 2)?;
            let sht = Sht::new(&grid, lmax)?;
            let fields = sht.inverse_batch(&[&self.truth, &self.forecast, &mse_fit, &amse_fit])?;
            let mut fields = fields.into_iter();
            let mut next = || fields.next().unwrap_or_default();
            Some(AnalyticMaps {
                grid,
                truth: next(),
                forecast: next(),
                mse_fit: next(),
                amse_fit: next(),
            })
        } else {
            None
        };
        Ok(AnalyticResult {
            k: (0..=lmax).collect(),
            wavelength_km: (0..=lmax)
                .map(|k| if k == 0 { 0.0 } else { wavelength_km(k as f64) })
                .collect(),
            rho: self.rho.clone(),
            psd_truth: pa.clone(),
            coherence: coherence(&self.forecast, &self.truth),
            gain_mse: self.gain_mse.clone(),
            gain_amse: self.gain_amse.clone(),
            optimal_gain_mse,
            optimal_gain_amse,
            psd_mse_fit: crate::spectrum::psd(&mse_fit),
            psd_amse_fit: crate::spectrum::psd(&amse_fit),
            resolution_mse_fit: effective_resolution(&ratio_mse_fit),
            resolution_amse_fit: effective_resolution(&ratio_amse_fit),
            ratio_mse_fit,
            ratio_amse_fit,
            mse_terms_forecast: self.finite_terms(
                "MSE of the forecast",
                mse_decomposition(&self.forecast, &self.truth),
            )?,
            mse_terms_mse_fit: self.finite_terms(
                "MSE of the MSE fit",
                mse_decomposition(&mse_fit, &self.truth),
            )?,
            mse_terms_amse_fit: self.finite_terms(
                "MSE of the AMSE fit",
                mse_decomposition(&amse_fit, &self.truth),
            )?,
            amse_terms_amse_fit: self.finite_terms(
                "AMSE of the AMSE fit",
                amse_decomposition(&amse_fit, &self.truth),
            )?,
            history: self.history.clone(),
            maps,
        })
    }
}

/// The error for a loss or power that is not finite: the prescribed variance is too large for
/// f64 (the losses are sums of powers, so a variance near f64's largest number overflows).
fn overflow(what: &str, value: f64, variance: f64) -> ComputeError {
    ComputeError::invalid(
        "variance",
        format!(
            "the {what} is {value}: with a variance of {variance:.3e} the powers and losses \
             overflow f64 (largest number {:.3e}); use a smaller variance",
            f64::MAX
        ),
    )
}

/// The amplitude ratio with NaN (no truth power, as at k = 0 of a field without a mean)
/// reported as 1, so that results stay finite and serialise to JSON.
fn finite_ratio(mut ratio: Vec<f64>) -> Vec<f64> {
    for r in &mut ratio {
        if r.is_nan() {
            *r = 1.0;
        }
    }
    ratio
}

/// Runs the analytic experiment to the end.
pub fn run_analytic(
    params: &AnalyticParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<AnalyticResult, ComputeError> {
    run_analytic_with(params, seed, progress, cancel, usize::MAX, |_| {})
}

/// Runs the analytic experiment to the end, calling `partial` with the result so far every
/// `every` iterations (for a live view).
pub fn run_analytic_with(
    params: &AnalyticParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
    every: usize,
    mut partial: impl FnMut(AnalyticResult),
) -> Result<AnalyticResult, ComputeError> {
    let mut fit = GainFit::new(params, seed)?;
    while !fit.is_finished() {
        cancel.check()?;
        let step = fit.step()?;
        progress.set(
            step.step as f64 / params.steps.max(1) as f64,
            format!(
                "iteration {}: mean |g − ρ| (MSE) {:.1e}, mean |g − 1| (AMSE) {:.1e}",
                step.step, step.mse_gain_error, step.amse_gain_error
            ),
        );
        if step.step % every.max(1) == 0 && !fit.is_finished() {
            partial(fit.result()?);
        }
    }
    progress.set(1.0, "done");
    fit.result()
}

#[cfg(test)]
pub(crate) mod tests;
