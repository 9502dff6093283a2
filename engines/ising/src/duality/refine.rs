//! The final estimate of β̃: a profile scan of the loss around the trajectory average.
//!
//! After training, the attention is frozen at its learned (noise-free) value and the loss is
//! evaluated at a few couplings β̃_k = c·(1 + s·(k − (n−1)/2)) around the window average c of
//! the trajectory. At every point a fresh batch of the scanned model is drawn with the same
//! random numbers at every point (common random numbers make the profile smooth in β̃), the
//! affine part (w, b) of the map is re-fitted by Gauss–Newton, and the fit part of the loss is
//! evaluated as the cross-chain U-statistic (free of the Var/N term, whose β̃-dependence would
//! shift the minimum). A least-squares parabola through the profile gives β̃ at its vertex;
//! when the minimum lies outside the scanned range the scan moves there and repeats (at most
//! [`MAX_SCAN_ROUNDS`] rounds). The error is the jackknife over the chains of the scanned
//! model (leave one chain out, keep the fitted maps): the sampling noise of the scan. It does
//! not include the (much smaller) noise of the fixed side (the original's F̄ or pool) nor the
//! finite-size shift of the torus.

use benchtop_compute::{CancelToken, ComputeError};
use candle_core::Device;
use serde::{Deserialize, Serialize};

use super::map::{CANDIDATE_COUNT, DualBatch, MapEvaluation, MapObjective, MapParameters};
use super::score::solve_ridge;
use super::{DualityParams, MAX_DUAL_BETA};
use crate::couplings::Couplings;
use crate::links::{CORRELATOR_COUNT, correlators};
use crate::single_spin::sample_configs;

/// Most scans (a scan whose minimum lies outside its range is moved and repeated).
pub const MAX_SCAN_ROUNDS: usize = 4;

/// Floor of the correlator variances, relative to their mean (see `correlator_weights`).
const WEIGHT_FLOOR: f64 = 0.01;

/// Most Gauss–Newton iterations of the (w, b) fit at one scan point.
const MAX_FIT_ITERATIONS: usize = 40;

/// The outcome of the final profile scan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Refinement {
    /// β̃ of every point of the last scan.
    pub dual_betas: Vec<f64>,
    /// Unbiased fit loss (without the constant penalty) at every point, after re-fitting
    /// (w, b).
    pub losses: Vec<f64>,
    /// Re-fitted map slope at every point, in the forward convention (dual → original links).
    pub w: Vec<f64>,
    /// Re-fitted map offset at every point, forward convention.
    pub b: Vec<f64>,
    /// β̃ at the vertex of the least-squares parabola through the last scan.
    pub dual_beta: f64,
    /// Jackknife error of `dual_beta` over the scanned model's chains.
    pub dual_beta_error: f64,
    /// Whether the last scan had positive curvature and its vertex inside its range; if not,
    /// `dual_beta` is the scan point with the smallest loss.
    pub converged: bool,
    /// Scans performed.
    pub rounds: usize,
    /// Samples drawn at every point of the last scan.
    pub samples: usize,
}

/// What the scan compares, by direction.
pub(super) enum ScanTarget<'a> {
    /// Forward: the scanned dual samples are mapped and compared with the original's F̄.
    Forward {
        /// F̄, the original model's correlators.
        target: [f64; CORRELATOR_COUNT],
    },
    /// Reverse: the pooled original samples are mapped and compared with the correlators of
    /// the scanned model's samples.
    Reverse {
        /// The pooled original samples.
        pool: &'a DualBatch,
    },
}

/// Everything a scan needs besides the sampler settings in the parameters.
pub(super) struct ScanSetup<'a> {
    pub params: &'a DualityParams,
    /// Centre of the first scan (the trajectory average of β̃).
    pub centre: f64,
    /// K̃, held fixed.
    pub dual_plaquette: f64,
    /// The learned attention logits and temperature (frozen).
    pub logits: [f64; CANDIDATE_COUNT],
    pub tau: f64,
    /// Starting slope and offset of the fits, in the trainer's own convention.
    pub weight: f64,
    pub bias: f64,
    pub target: ScanTarget<'a>,
    /// Samples per scan point.
    pub samples: usize,
    pub table: &'a [u32],
    pub device: &'a Device,
    pub seed: u64,
}

/// One scan point: fitted map and per-chain residuals.
struct PointFit {
    weight: f64,
    bias: f64,
    /// δ_g = mapped − target of every chain g (13 each).
    residuals: Vec<[f64; CORRELATOR_COUNT]>,
    /// Each chain's share of the samples.
    shares: Vec<f64>,
    /// Weights of the 13 correlators.
    weights: [f64; CORRELATOR_COUNT],
}

impl PointFit {
    fn loss(&self, skip: Option<usize>) -> f64 {
        let (residuals, shares): (Vec<_>, Vec<f64>) = self
            .residuals
            .iter()
            .zip(&self.shares)
            .enumerate()
            .filter(|(g, _)| Some(*g) != skip)
            .map(|(_, (r, w))| (*r, *w))
            .unzip();
        weighted_u_statistic(&residuals, &shares, &self.weights)
    }
}

/// The cross-group estimate of (1/13) Σ_m (E δ_m)² from group residuals δ_g with shares w_g
/// (renormalised here): (1/13) Σ_m (δ̄_m² − Σ_g w_g² δ_{g,m}²)/(1 − Σ_g w_g²).
pub(super) fn u_statistic(residuals: &[[f64; CORRELATOR_COUNT]], shares: &[f64]) -> f64 {
    weighted_u_statistic(residuals, shares, &[1.0; CORRELATOR_COUNT])
}

/// [`u_statistic`] with weight c_m on correlator m: (1/13) Σ_m c_m (δ̄_m² − Σ_g w_g² δ_{g,m}²)
/// /(1 − Σ_g w_g²).
fn weighted_u_statistic(
    residuals: &[[f64; CORRELATOR_COUNT]],
    shares: &[f64],
    weights: &[f64; CORRELATOR_COUNT],
) -> f64 {
    let total: f64 = shares.iter().sum();
    let shares: Vec<f64> = shares.iter().map(|w| w / total).collect();
    let sum_squares: f64 = shares.iter().map(|w| w * w).sum();
    let mut value = 0.0;
    for m in 0..CORRELATOR_COUNT {
        let mean: f64 = residuals.iter().zip(&shares).map(|(r, w)| w * r[m]).sum();
        let within: f64 = residuals
            .iter()
            .zip(&shares)
            .map(|(r, w)| w * w * r[m] * r[m])
            .sum();
        value += weights[m] * (mean * mean - within) / (1.0 - sum_squares);
    }
    let count = CORRELATOR_COUNT as f64;
    value / count
}

/// Runs the scan (see the module docs).
pub(super) fn refine(
    setup: &ScanSetup<'_>,
    cancel: &CancelToken,
) -> Result<Refinement, ComputeError> {
    let p = setup.params;
    let n = p.refine_points;
    let offsets: Vec<f64> = (0..n).map(|k| k as f64 - (n - 1) as f64 / 2.0).collect();
    let mut centre = setup.centre.clamp(1e-3, MAX_DUAL_BETA);
    let (mut weight, mut bias) = (setup.weight, setup.bias);
    let mut samples = setup.samples;
    let mut rounds = 0;
    loop {
        rounds += 1;
        let seed = benchtop_compute::rng::derive_seed(setup.seed, rounds as u64);
        let betas: Vec<f64> = offsets
            .iter()
            .map(|u| (centre * (1.0 + p.refine_spacing * u)).clamp(1e-3, MAX_DUAL_BETA))
            .collect();
        let points = betas
            .iter()
            .map(|&beta| draw_point(setup, beta, samples, seed, cancel))
            .collect::<Result<Vec<_>, ComputeError>>()?;
        // One set of correlator weights for the whole scan, from its centre point.
        let weights = if p.refine_weighted {
            correlator_weights(setup, &points[n / 2], weight, bias)?
        } else {
            [1.0; CORRELATOR_COUNT]
        };
        // Fit from the centre outwards, each fit starting from its neighbour's.
        let mut fits: Vec<Option<PointFit>> = (0..n).map(|_| None).collect();
        let centre_fit = fit_point(setup, &points[n / 2], &weights, weight, bias)?;
        let (centre_w, centre_b) = (centre_fit.weight, centre_fit.bias);
        fits[n / 2] = Some(centre_fit);
        for range in [
            (0..n / 2).rev().collect::<Vec<_>>(),
            (n / 2 + 1..n).collect(),
        ] {
            let (mut w, mut b) = (centre_w, centre_b);
            for k in range {
                let fit = fit_point(setup, &points[k], &weights, w, b)?;
                (w, b) = (fit.weight, fit.bias);
                fits[k] = Some(fit);
            }
        }
        let fits: Vec<PointFit> = fits.into_iter().flatten().collect();
        (weight, bias) = (centre_w, centre_b);
        let losses: Vec<f64> = fits.iter().map(|f| f.loss(None)).collect();
        let vertex = parabola_vertex(&offsets, &losses);
        let lowest = losses
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .map_or(0, |(k, _)| k);
        let (first, last) = (offsets[0], offsets[n - 1]);
        let inside = vertex.filter(|u| (first..=last).contains(u));
        if inside.is_none() && rounds < MAX_SCAN_ROUNDS {
            // Move the scan: to the vertex when it is near, else to the lowest point's side.
            let shift = vertex
                .filter(|u| u.abs() <= 2.0 * last)
                .unwrap_or(offsets[lowest] + offsets[lowest].signum() * last);
            centre = (centre * (1.0 + p.refine_spacing * shift)).clamp(1e-3, MAX_DUAL_BETA);
            continue;
        }
        let to_beta = |u: f64| centre * (1.0 + p.refine_spacing * u);
        let (dual_beta, converged) = match inside {
            Some(u) => (to_beta(u), true),
            None => (betas[lowest], false),
        };
        // Jackknife over the chains, with the fitted maps kept.
        let groups = fits.first().map_or(0, |f| f.residuals.len());
        let leave_out: Vec<Option<f64>> = (0..groups)
            .map(|g| {
                let losses: Vec<f64> = fits.iter().map(|f| f.loss(Some(g))).collect();
                parabola_vertex(&offsets, &losses).map(to_beta)
            })
            .collect();
        let g = groups as f64;
        let dual_beta_error = if converged && leave_out.iter().all(Option::is_some) {
            let values: Vec<f64> = leave_out.iter().flatten().copied().collect();
            let mean = values.iter().sum::<f64>() / g;
            ((g - 1.0) / g * values.iter().map(|v| (v - mean).powi(2)).sum::<f64>()).sqrt()
        } else {
            // No usable parabola: the scan's half-width is the honest uncertainty.
            0.5 * (betas[n - 1] - betas[0])
        };
        let relative = dual_beta_error / dual_beta;
        if converged
            && relative > p.refine_tolerance
            && samples < p.refine_max_samples
            && rounds < MAX_SCAN_ROUNDS
        {
            // Too imprecise: scan again around the vertex with more samples (the error falls
            // like 1/√N), at least twice as many.
            let factor = (relative / p.refine_tolerance).powi(2).max(2.0);
            let more = (samples as f64 * factor)
                .ceil()
                .min(p.refine_max_samples as f64) as usize;
            samples = more.max(samples);
            centre = dual_beta;
            continue;
        }
        let reverse = matches!(setup.target, ScanTarget::Reverse { .. });
        let forward = |fit: &PointFit| to_forward(reverse, fit.weight, fit.bias);
        return Ok(Refinement {
            dual_beta,
            dual_beta_error,
            converged,
            rounds,
            samples,
            w: fits.iter().map(|f| forward(f).0).collect(),
            b: fits.iter().map(|f| forward(f).1).collect(),
            losses,
            dual_betas: betas,
        });
    }
}

/// The trainer's map (w, b) in the forward convention: unchanged in the forward direction,
/// inverted (o = (ô − b)/w) in the reverse one.
pub(super) fn to_forward(reverse: bool, weight: f64, bias: f64) -> (f64, f64) {
    if reverse {
        (1.0 / weight, -bias / weight)
    } else {
        (weight, bias)
    }
}

/// Vertex of the least-squares parabola y = c₀ + c₁u + c₂u² through (u_k, y_k), when c₂ > 0.
pub(super) fn parabola_vertex(u: &[f64], y: &[f64]) -> Option<f64> {
    let mut matrix = vec![vec![0.0; 3]; 3];
    let mut rhs = vec![0.0; 3];
    for (&x, &value) in u.iter().zip(y) {
        let powers = [1.0, x, x * x];
        for i in 0..3 {
            rhs[i] += powers[i] * value;
            for j in 0..3 {
                matrix[i][j] += powers[i] * powers[j];
            }
        }
    }
    let c = solve_ridge(&matrix, &rhs)?;
    (c[2] > 0.0)
        .then(|| -c[1] / (2.0 * c[2]))
        .filter(|v| v.is_finite())
}

/// The samples of one scan point, prepared for the map.
enum PointData {
    /// Forward: the scanned dual samples as a batch (groups = chains), against F̄.
    Forward {
        batch: Box<DualBatch>,
        target: [f64; CORRELATOR_COUNT],
    },
    /// Reverse: the scanned model's own correlators, sample by sample.
    Reverse { rows: Vec<[f64; CORRELATOR_COUNT]> },
}

/// One scan point's samples with their chain structure.
struct PointSamples {
    data: PointData,
    ranges: Vec<std::ops::Range<usize>>,
    shares: Vec<f64>,
}

/// Mean of the rows in `range`.
fn group_mean(
    rows: &[[f64; CORRELATOR_COUNT]],
    range: &std::ops::Range<usize>,
) -> [f64; CORRELATOR_COUNT] {
    let count = range.len().max(1) as f64;
    std::array::from_fn(|m| rows[range.clone()].iter().map(|r| r[m]).sum::<f64>() / count)
}

/// Draws the scanned model at `dual_beta` (same seed at every point of a scan).
fn draw_point(
    setup: &ScanSetup<'_>,
    dual_beta: f64,
    samples: usize,
    seed: u64,
    cancel: &CancelToken,
) -> Result<PointSamples, ComputeError> {
    let p = setup.params;
    let couplings = Couplings {
        beta: dual_beta,
        plaquette: setup.dual_plaquette,
    };
    let count = samples;
    let samples = sample_configs(
        p.size,
        couplings,
        count,
        p.warmup_per_site,
        p.thin_per_site,
        seed,
        p.refine_chains,
        cancel,
    )?;
    let sizes = chain_sizes(count, p.refine_chains);
    let shares: Vec<f64> = sizes.iter().map(|&s| s as f64 / count as f64).collect();
    let mut ranges = Vec::with_capacity(sizes.len());
    let mut start = 0;
    for &s in &sizes {
        ranges.push(start..start + s);
        start += s;
    }
    let data = match &setup.target {
        ScanTarget::Forward { target } => PointData::Forward {
            batch: Box::new(DualBatch::new(
                &samples,
                p.size,
                setup.table,
                &sizes,
                setup.device,
            )?),
            target: *target,
        },
        ScanTarget::Reverse { .. } => PointData::Reverse {
            rows: samples.iter().map(correlators).collect(),
        },
    };
    Ok(PointSamples {
        data,
        ranges,
        shares,
    })
}

impl PointSamples {
    /// The batch the map reads and the target it is compared with.
    fn problem<'a>(
        &'a self,
        setup: &'a ScanSetup<'_>,
    ) -> Result<(&'a DualBatch, [f64; CORRELATOR_COUNT]), ComputeError> {
        match (&self.data, &setup.target) {
            (PointData::Forward { batch, target }, _) => Ok((batch, *target)),
            (PointData::Reverse { rows }, ScanTarget::Reverse { pool }) => {
                Ok((pool, group_mean(rows, &(0..rows.len()))))
            }
            (PointData::Reverse { .. }, ScanTarget::Forward { .. }) => Err(
                ComputeError::Numerical("a reverse scan point without the pool".to_owned()),
            ),
        }
    }

    /// Per-chain residuals δ_g = mapped − target for the evaluated map.
    fn residuals(&self, evaluation: &MapEvaluation) -> Vec<[f64; CORRELATOR_COUNT]> {
        match &self.data {
            PointData::Forward { target, .. } => self
                .ranges
                .iter()
                .map(|range| {
                    let mean = group_mean(&evaluation.per_sample, range);
                    std::array::from_fn(|m| mean[m] - target[m])
                })
                .collect(),
            PointData::Reverse { rows } => self
                .ranges
                .iter()
                .map(|range| {
                    let group = group_mean(rows, range);
                    std::array::from_fn(|m| evaluation.mapped[m] - group[m])
                })
                .collect(),
        }
    }
}

/// Re-fits (w, b) at one scan point with the correlator weights and returns the per-chain
/// residuals.
fn fit_point(
    setup: &ScanSetup<'_>,
    point: &PointSamples,
    weights: &[f64; CORRELATOR_COUNT],
    weight: f64,
    bias: f64,
) -> Result<PointFit, ComputeError> {
    let (batch, target) = point.problem(setup)?;
    let objective = MapObjective::new(setup.params.size, target, 0.0, setup.device)?;
    let (evaluation, weight, bias) = fit_affine(
        &objective,
        batch,
        setup.logits,
        setup.tau,
        weights,
        weight,
        bias,
    )?;
    Ok(PointFit {
        weight,
        bias,
        residuals: point.residuals(&evaluation),
        shares: point.shares.clone(),
        weights: *weights,
    })
}

/// Inverse-variance weights of the 13 correlators (normalised to mean 1): the variance of
/// each residual's batch mean, estimated between chains at one point with the map (w, b), plus
/// a floor of [`WEIGHT_FLOOR`] times the mean variance (a residual without sampling noise,
/// such as the identity plaquette = 1 of spin samples, would otherwise get infinite weight).
fn correlator_weights(
    setup: &ScanSetup<'_>,
    point: &PointSamples,
    weight: f64,
    bias: f64,
) -> Result<[f64; CORRELATOR_COUNT], ComputeError> {
    let (batch, target) = point.problem(setup)?;
    let objective = MapObjective::new(setup.params.size, target, 0.0, setup.device)?;
    let map = MapParameters {
        logits: setup.logits,
        weight,
        bias,
    };
    let evaluation = objective.evaluate(
        batch,
        &map,
        &[0.0; CANDIDATE_COUNT],
        setup.tau,
        false,
        false,
    )?;
    let residuals = point.residuals(&evaluation);
    let shares = &point.shares;
    let sum_squares: f64 = shares.iter().map(|w| w * w).sum();
    let variances: [f64; CORRELATOR_COUNT] = std::array::from_fn(|m| {
        let mean: f64 = residuals.iter().zip(shares).map(|(r, w)| w * r[m]).sum();
        let spread: f64 = residuals
            .iter()
            .zip(shares)
            .map(|(r, w)| w * (r[m] - mean).powi(2))
            .sum();
        // Var of the weighted mean ≈ Σ w_g²·s² with s² the between-chain variance.
        spread / (1.0 - sum_squares) * sum_squares
    });
    let mean_variance = variances.iter().sum::<f64>() / CORRELATOR_COUNT as f64;
    if !(mean_variance.is_finite() && mean_variance > 0.0) {
        return Ok([1.0; CORRELATOR_COUNT]);
    }
    let raw = variances.map(|v| 1.0 / (v + WEIGHT_FLOOR * mean_variance));
    let mean_raw = raw.iter().sum::<f64>() / CORRELATOR_COUNT as f64;
    Ok(raw.map(|w| w / mean_raw))
}

/// Samples per chain when `n` samples come from `chains` chains (as [`sample_configs`] splits
/// them).
fn chain_sizes(n: usize, chains: usize) -> Vec<usize> {
    (0..chains)
        .map(|c| n / chains + usize::from(c < n % chains))
        .filter(|&s| s > 0)
        .collect()
}

/// Minimises the weighted fit Σ_m c_m (⟨F_m(ô)⟩ − target_m)² over (w, b) with the attention
/// fixed at softmax(e/τ), by Levenberg–Marquardt on the exact Jacobian of the batch means.
pub(super) fn fit_affine(
    objective: &MapObjective,
    batch: &DualBatch,
    logits: [f64; CANDIDATE_COUNT],
    tau: f64,
    weights: &[f64; CORRELATOR_COUNT],
    weight: f64,
    bias: f64,
) -> Result<(MapEvaluation, f64, f64), ComputeError> {
    let weighted_fit = |evaluation: &MapEvaluation| -> f64 {
        evaluation
            .mapped
            .iter()
            .zip(&objective.target)
            .zip(weights)
            .map(|((f, t), c)| c * (f - t).powi(2))
            .sum()
    };
    let noise = [0.0; CANDIDATE_COUNT];
    let evaluate = |weight: f64, bias: f64| {
        let map = MapParameters {
            logits,
            weight,
            bias,
        };
        objective.evaluate(batch, &map, &noise, tau, false, false)
    };
    let (mut weight, mut bias) = (weight, bias);
    let mut current = evaluate(weight, bias)?;
    let mut current_fit = weighted_fit(&current);
    let mut lambda = 1e-3;
    for _ in 0..MAX_FIT_ITERATIONS {
        let jacobian = batch.affine_jacobian(&current.mixed, weight, bias);
        let (mut a, mut g) = ([[0.0; 2]; 2], [0.0; 2]);
        for ((row, (mapped, target)), c) in jacobian
            .iter()
            .zip(current.mapped.iter().zip(&objective.target))
            .zip(weights)
        {
            let residual = mapped - target;
            for i in 0..2 {
                g[i] += c * row[i] * residual;
                for j in 0..2 {
                    a[i][j] += c * row[i] * row[j];
                }
            }
        }
        let mut improved = false;
        while lambda < 1e10 {
            let (d0, d1) = (a[0][0] * (1.0 + lambda), a[1][1] * (1.0 + lambda));
            let det = d0 * d1 - a[0][1] * a[1][0];
            if det.abs() < 1e-300 {
                break;
            }
            let step_w = -(d1 * g[0] - a[0][1] * g[1]) / det;
            let step_b = -(d0 * g[1] - a[1][0] * g[0]) / det;
            let trial = evaluate(weight + step_w, bias + step_b)?;
            let trial_fit = weighted_fit(&trial);
            if trial_fit < current_fit {
                let gain = current_fit - trial_fit;
                weight += step_w;
                bias += step_b;
                let converged = gain <= 1e-12 * current_fit.max(1e-300);
                current = trial;
                current_fit = trial_fit;
                lambda = (lambda / 3.0).max(1e-9);
                improved = !converged;
                break;
            }
            lambda *= 10.0;
        }
        if !improved {
            break;
        }
    }
    Ok((current, weight, bias))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parabola_vertex_of_exact_and_concave_data() {
        let u = [-2.0, -1.0, 0.0, 1.0, 2.0];
        let y: Vec<f64> = u
            .iter()
            .map(|x| 3.0 * (x - 0.4) * (x - 0.4) + 1.0)
            .collect();
        let vertex = parabola_vertex(&u, &y).unwrap();
        assert!((vertex - 0.4).abs() < 1e-6, "{vertex}");
        let concave: Vec<f64> = y.iter().map(|v| -v).collect();
        assert!(parabola_vertex(&u, &concave).is_none());
    }

    #[test]
    fn u_statistic_is_the_cross_product_of_groups() {
        let a = [0.3; CORRELATOR_COUNT];
        let b = [-0.1; CORRELATOR_COUNT];
        // Two equal groups: only the cross product a·b survives.
        let value = u_statistic(&[a, b], &[0.5, 0.5]);
        assert!((value - 0.3 * -0.1).abs() < 1e-15, "{value}");
        // Identical groups: the square of the common residual.
        let same = u_statistic(&[a, a, a], &[1.0, 1.0, 1.0]);
        assert!((same - 0.09).abs() < 1e-15, "{same}");
    }

    #[test]
    fn forward_convention_inverts_the_reverse_map() {
        let (w, b) = (-2.4, 2.6);
        let (wf, bf) = to_forward(true, w, b);
        for x in [-1.0, 0.3, 1.0] {
            assert!((wf * (w * x + b) + bf - x).abs() < 1e-12);
        }
        assert_eq!(to_forward(false, w, b), (w, b));
    }

    #[test]
    fn chain_sizes_match_the_sampler() {
        assert_eq!(chain_sizes(10, 4), vec![3, 3, 2, 2]);
        assert_eq!(chain_sizes(2, 4), vec![1, 1]);
    }
}
