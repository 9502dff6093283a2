//! `benchtop bench linnet`: the training loop the panel runs (full-batch gradient descent of
//! the linear network under no noise, sampled input noise and sampled parameter noise, S seeds
//! each), timed on the item-tree data.

use std::time::Instant;

use benchtop_compute::rng::derive_seed;
use benchtop_compute::{CancelToken, ComputeError};
use serde::Serialize;

use crate::data::DataSource;
use crate::experiment::{Regime, regimes};
use crate::similarity::{finite_mean, linear_cka, rsm};
use crate::train::{Activation, TrainParams, train};

/// What to time.
#[derive(Clone, Debug)]
pub struct BenchParams {
    /// Seeds per regime.
    pub seeds: usize,
    /// Gradient-descent steps per seed.
    pub steps: usize,
    /// Hidden width.
    pub width: usize,
    /// Tree depth of the data (items = 2^depth, features = 2^(depth+1) − 1).
    pub depth: usize,
    /// Timed repeats (the fastest is reported).
    pub repeats: usize,
}

/// One regime's observables (so a fast but wrong run shows).
#[derive(Clone, Debug, Serialize)]
pub struct RegimeReport {
    /// `no_noise`, `input_noise` or `parameter_noise`.
    pub regime: String,
    /// Mean final noise-free loss over seeds.
    pub final_loss_mean: f64,
    /// Mean pairwise linear CKA of the seeds' RSMs.
    pub mean_pairwise_cka: f64,
}

/// The benchmark's result.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Seeds per regime.
    pub seeds: usize,
    /// Steps per seed.
    pub steps: usize,
    /// Hidden width.
    pub width: usize,
    /// Items P.
    pub items: usize,
    /// Input dimension.
    pub n_in: usize,
    /// Output dimension.
    pub n_out: usize,
    /// Regimes trained (3 × seeds networks in all).
    pub regimes: Vec<RegimeReport>,
    /// Wall time of all regimes and seeds (fastest repeat), milliseconds.
    pub ms_total: f64,
    /// `ms_total` per network per step, microseconds.
    pub us_per_step: f64,
}

/// Trains 3 × `seeds` networks of `steps` steps each, `repeats` times, and reports the fastest.
pub fn bench(params: &BenchParams) -> Result<BenchReport, ComputeError> {
    let source = DataSource::Hierarchy {
        depth: params.depth,
        branching: 2,
        input_mixing: 1.0,
    };
    let data = source.load(1)?;
    let train_params = TrainParams {
        hidden: params.width,
        steps: params.steps,
        ..TrainParams::default()
    };
    train_params.validate("train")?;
    if params.seeds < 1 || params.repeats < 1 {
        return Err(ComputeError::invalid(
            "seeds",
            "seeds and repeats must be at least 1",
        ));
    }
    let linear: Vec<Regime> = regimes(&crate::experiment::ExperimentParams {
        nonlinear: false,
        ..Default::default()
    });
    let cancel = CancelToken::new();
    let mut best = f64::INFINITY;
    let mut reports = Vec::new();
    for _ in 0..params.repeats {
        let start = Instant::now();
        let mut trained = Vec::with_capacity(linear.len());
        for regime in &linear {
            let nets = (0..params.seeds)
                .map(|s| {
                    train(
                        &data,
                        &train_params,
                        regime.noise,
                        Activation::Linear,
                        derive_seed(1, s as u64),
                        &cancel,
                    )
                })
                .collect::<Result<Vec<_>, _>>()?;
            trained.push((regime, nets));
        }
        best = best.min(start.elapsed().as_secs_f64() * 1e3);
        reports = trained
            .iter()
            .map(|(regime, nets)| {
                let rsms: Vec<_> = nets.iter().map(|n| rsm(&n.hidden(&data.x))).collect();
                let ckas = (0..rsms.len())
                    .flat_map(|a| ((a + 1)..rsms.len()).map(move |b| (a, b)))
                    .map(|(a, b)| linear_cka(&rsms[a], &rsms[b]));
                RegimeReport {
                    regime: regime.key(),
                    final_loss_mean: finite_mean(
                        nets.iter()
                            .map(|n| n.history.last().map_or(f64::NAN, |h| h.1)),
                    ),
                    mean_pairwise_cka: finite_mean(ckas),
                }
            })
            .collect();
    }
    let networks_steps = (linear.len() * params.seeds * params.steps) as f64;
    Ok(BenchReport {
        seeds: params.seeds,
        steps: params.steps,
        width: params.width,
        items: data.items(),
        n_in: data.n_in(),
        n_out: data.n_out(),
        regimes: reports,
        ms_total: best,
        us_per_step: best * 1e3 / networks_steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linnet_bench_reports_every_regime() {
        let report = bench(&BenchParams {
            seeds: 2,
            steps: 50,
            width: 8,
            depth: 2,
            repeats: 1,
        })
        .expect("runs");
        assert_eq!(report.regimes.len(), 3);
        assert_eq!((report.items, report.n_out), (4, 7));
        assert!(report.regimes.iter().all(|r| r.final_loss_mean.is_finite()));
        assert!(report.ms_total > 0.0);
    }
}
