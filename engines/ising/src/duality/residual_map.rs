//! The residual loss over a grid of dual couplings: the family of approximate duals for K ≠ 0.
//!
//! With a plaquette term there is no exact dual in the Ising + plaquette family. At every grid
//! point θ = (β̃, K̃) the couplings are held fixed, the map ψ is fitted to one fixed batch of dual
//! samples, and the loss that remains is reported; small values mark approximate duals.

use std::sync::atomic::{AtomicUsize, Ordering};

use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError, Progress};
use candle_core::Device;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::map::{
    CANDIDATE_COUNT, DualBatch, MapObjective, MapParameters, candidate_table, gumbel_noise,
};
use super::trainer::mean_correlators;
use super::{DualityParams, MAX_DUAL_BETA, MAX_DUAL_PLAQUETTE};
use crate::couplings::Couplings;
use crate::links::CORRELATOR_COUNT;
use crate::single_spin::sample_configs;
use benchtop_learn::adam::Adam;

/// Most grid points along either axis.
pub const MAX_GRID_SIDE: usize = 64;

/// The target correlators come from this many times `samples_per_step` original samples.
pub const TARGET_SAMPLE_FACTOR: usize = 4;

/// Residual loss over a (β̃, K̃) grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResidualMap {
    /// β̃ values (columns).
    pub dual_betas: Vec<f64>,
    /// K̃ values (rows).
    pub dual_plaquettes: Vec<f64>,
    /// Loss of the fitted map (noise-free attention) on a fresh batch, row-major:
    /// `loss[j·n_β + i]` is at (β̃_i, K̃_j). With `unbiased_loss` the fit part is the
    /// cross-chain estimate, unbiased
    /// for the squared mismatch of the expectations (it can dip slightly below zero).
    pub loss: Vec<f64>,
    /// The fit part of `loss` (without the penalty), same layout.
    pub fit_loss: Vec<f64>,
    /// Plain (1/13) Σ_m δ_m² + penalty on the fresh batch, same layout: never negative, but
    /// carries the Var/N noise floor of the point's samples.
    pub plain_loss: Vec<f64>,
    /// Fitted map slope w at every point, same layout.
    pub w: Vec<f64>,
    /// Fitted map offset b at every point, same layout.
    pub b: Vec<f64>,
    /// Fitted noise-free attention at every point, same layout.
    pub attention: Vec<Vec<f64>>,
    /// β̃ of the smallest loss.
    pub best_dual_beta: f64,
    /// K̃ of the smallest loss.
    pub best_dual_plaquette: f64,
    /// The smallest loss.
    pub best_loss: f64,
    /// The original model's correlators the maps were fitted to.
    pub target_correlators: [f64; CORRELATOR_COUNT],
}

/// One grid point's fit.
struct PointFit {
    loss: f64,
    fit_loss: f64,
    plain_loss: f64,
    map: MapParameters,
    tau: f64,
}

/// Fits the map at every (β̃, K̃) of the grid with θ fixed and reports the residual loss.
///
/// Uses `params` for the original model, the lattice, the sampler, the map's starting point,
/// `map_learning_rate`, `map_fit_steps`, τ and the penalty. Each grid point draws
/// `samples_per_step` dual samples to fit on and as many fresh ones to score; the targets come
/// from
/// [`TARGET_SAMPLE_FACTOR`]·`samples_per_step` original samples. Grid points run in parallel
/// and are independent, so the result depends only on the arguments. Progress advances per grid
/// point; cancellation is checked inside every fit.
pub fn residual_loss_map(
    params: &DualityParams,
    dual_betas: &[f64],
    dual_plaquettes: &[f64],
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<ResidualMap, ComputeError> {
    params.validate()?;
    check_grid("dual_betas", dual_betas, 0.0, MAX_DUAL_BETA)?;
    check_grid(
        "dual_plaquettes",
        dual_plaquettes,
        -MAX_DUAL_PLAQUETTE,
        MAX_DUAL_PLAQUETTE,
    )?;
    if params.map_fit_steps == 0 {
        return Err(ComputeError::invalid(
            "map_fit_steps",
            "the map needs at least one fit step per grid point",
        ));
    }
    progress.set(0.0, "sampling the original model");
    let original = sample_configs(
        params.size,
        params.original(),
        params.samples_per_step * TARGET_SAMPLE_FACTOR,
        params.warmup_per_site,
        params.thin_per_site,
        derive_seed(seed, 0),
        params.chains,
        cancel,
    )?;
    let target = mean_correlators(&original);
    let table = candidate_table(params.size);
    let points: Vec<(usize, Couplings)> = dual_plaquettes
        .iter()
        .flat_map(|&k| {
            dual_betas.iter().map(move |&b| Couplings {
                beta: b,
                plaquette: k,
            })
        })
        .enumerate()
        .collect();
    let total = points.len();
    let done = AtomicUsize::new(0);
    let fits: Vec<PointFit> = points
        .into_par_iter()
        .map(|(index, couplings)| {
            let fit = fit_point(
                params,
                couplings,
                target,
                &table,
                derive_seed(seed, 1 + index as u64),
                cancel,
            )?;
            let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
            progress.set(
                finished as f64 / total as f64,
                format!("fitted {finished} of {total} grid points"),
            );
            Ok(fit)
        })
        .collect::<Result<_, ComputeError>>()?;
    let (best_index, best) = fits
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.loss.total_cmp(&b.1.loss))
        .ok_or_else(|| ComputeError::invalid("dual_betas", "the grid is empty"))?;
    let n_beta = dual_betas.len();
    Ok(ResidualMap {
        best_dual_beta: dual_betas[best_index % n_beta],
        best_dual_plaquette: dual_plaquettes[best_index / n_beta],
        best_loss: best.loss,
        loss: fits.iter().map(|f| f.loss).collect(),
        fit_loss: fits.iter().map(|f| f.fit_loss).collect(),
        plain_loss: fits.iter().map(|f| f.plain_loss).collect(),
        w: fits.iter().map(|f| f.map.weight).collect(),
        b: fits.iter().map(|f| f.map.bias).collect(),
        attention: fits
            .iter()
            .map(|f| f.map.attention(f.tau).to_vec())
            .collect(),
        dual_betas: dual_betas.to_vec(),
        dual_plaquettes: dual_plaquettes.to_vec(),
        target_correlators: target,
    })
}

/// Fits ψ at fixed couplings to one batch of dual samples and evaluates the residual loss.
fn fit_point(
    params: &DualityParams,
    couplings: Couplings,
    target: [f64; CORRELATOR_COUNT],
    table: &[u32],
    seed: u64,
    cancel: &CancelToken,
) -> Result<PointFit, ComputeError> {
    let device = Device::Cpu;
    let dual = sample_configs(
        params.size,
        couplings,
        params.samples_per_step,
        params.warmup_per_site,
        params.thin_per_site,
        derive_seed(seed, 0),
        params.chains,
        cancel,
    )?;
    let groups = params.chain_sizes();
    let batch = DualBatch::new(&dual, params.size, table, &groups, &device)?;
    let objective = MapObjective::new(params.size, target, params.penalty, &device)?;
    let mut map = MapParameters::new(params.initial_weight, params.initial_bias);
    if params.calibrate_bias {
        let mean_link = 0.5 * (target[0] + target[1]);
        let uniform = map.attention(params.tau);
        map.bias = mean_link - map.weight * batch.mean_mixed_link(&uniform);
    }
    let mut adam = Adam::new(map.to_vec().len(), params.map_learning_rate);
    let mut rng = seeded(derive_seed(seed, 1));
    let mut tau = params.tau;
    for _ in 0..params.map_fit_steps {
        cancel.check()?;
        let noise = gumbel_noise(&mut rng)?;
        // Fixed samples: fit the plain loss (the unbiased cross-group form could be driven
        // below zero by a map that anti-correlates the groups of one batch).
        let evaluation = objective.evaluate(&batch, &map, &noise, tau, false, true)?;
        let gradient = evaluation.gradient.ok_or_else(|| {
            ComputeError::Numerical("the map loss returned no gradient".to_owned())
        })?;
        let mut psi = map.to_vec();
        adam.step(&mut psi, &gradient.to_vec());
        map = MapParameters::from_slice(&psi)?;
        tau = (tau * params.tau_decay).max(params.tau_min);
    }
    // The residual of the fitted map on fresh samples, unbiased (one group per chain) for the
    // squared mismatch of the expectations, so points with noisier duals are not penalised.
    let fresh = sample_configs(
        params.size,
        couplings,
        params.samples_per_step,
        params.warmup_per_site,
        params.thin_per_site,
        derive_seed(seed, 2),
        params.chains,
        cancel,
    )?;
    let fresh = DualBatch::new(&fresh, params.size, table, &groups, &device)?;
    let noise_free = [0.0; CANDIDATE_COUNT];
    let final_eval =
        objective.evaluate(&fresh, &map, &noise_free, tau, params.unbiased_loss, false)?;
    Ok(PointFit {
        loss: final_eval.loss,
        fit_loss: final_eval.fit,
        plain_loss: final_eval.plain_fit + final_eval.penalty_term,
        map,
        tau,
    })
}

fn check_grid(key: &str, values: &[f64], min: f64, max: f64) -> Result<(), ComputeError> {
    if values.is_empty() || values.len() > MAX_GRID_SIDE {
        return Err(ComputeError::invalid(
            key,
            format!(
                "the grid needs 1 to {MAX_GRID_SIDE} values (got {})",
                values.len()
            ),
        ));
    }
    if let Some(bad) = values
        .iter()
        .find(|v| !(v.is_finite() && **v >= min && **v <= max))
    {
        return Err(ComputeError::invalid(
            key,
            format!("{bad} is outside [{min}, {max}]"),
        ));
    }
    Ok(())
}
