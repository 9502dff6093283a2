//! The workload of `benchtop bench weakfeatures`: on generated rows with weak features missing
//! completely at random, the sequential fit (f on the rows with x_w, completion, h, test
//! evaluation) and R iterative rounds (f-step, completion, h refit, test evaluation), timed on
//! the engine's own code path, with the run's excess risks and closed form so that a fast but
//! wrong result shows. `scripts/bench_weakfeatures_peer.py` runs the same fits in NumPy and
//! scikit-learn.

use std::time::Instant;

use benchtop_compute::rng::derive_seed;
use benchtop_compute::{CancelToken, ComputeError};
use serde::{Deserialize, Serialize};

use crate::closed_form;
use crate::data::{DataParams, GaussianParams, gaussian_problem};
use crate::experiment::{Context, IterativeParams, Params, run_schemes, split_view};
use crate::missing::{self, MissingParams};
use crate::mlp::MlpSettings;
use crate::models::{EstimatorParams, LabelKind, LabelParams};

/// The benchmark's sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchParams {
    /// Training rows.
    pub n: usize,
    /// Test rows.
    pub n_test: usize,
    /// Observed features.
    pub d_observed: usize,
    /// Weak features.
    pub d_weak: usize,
    /// Missing rate (MCAR).
    pub rate: f64,
    /// Iterative rounds.
    pub rounds: usize,
    /// Label model.
    pub label: LabelKind,
    /// MLP epochs (label model MLP) and Adam steps per iterative round.
    pub epochs: usize,
    /// Timed repeats.
    pub repeats: usize,
    /// Seed of the data.
    pub seed: u64,
}

/// What the benchmark measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// The sizes.
    pub params: BenchParams,
    /// Median time of the sequential fit and its test evaluation.
    pub sequential_ms: f64,
    /// Median time of the R iterative rounds with their evaluations.
    pub iterative_ms: f64,
    /// Median total.
    pub total_ms: f64,
    /// Fastest total.
    pub min_total_ms: f64,
    /// Test excess risk of the sequential scheme.
    pub sequential_excess: f64,
    /// Test excess risk of the iterative scheme.
    pub iterative_excess: f64,
    /// Closed form `ρ_test·β_wᵀVβ_w` (plug-in limit of both).
    pub closed_form: f64,
    /// Share of training rows missing x_w.
    pub missing_train: f64,
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        values[n / 2]
    } else {
        0.5 * (values[n / 2 - 1] + values[n / 2])
    }
}

/// Runs the benchmark (sizes are the caller's to bound).
pub fn bench(p: &BenchParams) -> Result<BenchReport, ComputeError> {
    let g = GaussianParams {
        d_observed: p.d_observed,
        d_weak: p.d_weak,
        ..GaussianParams::default()
    };
    let problem = gaussian_problem(&g, p.n, p.n_test, p.seed);
    let miss = MissingParams {
        rate: p.rate,
        ..MissingParams::default()
    };
    let mask_train = missing::draw(
        &missing::probabilities(&miss, &problem.train.x_o, &problem.train.x_w),
        derive_seed(p.seed, 20),
    );
    let mask_test = missing::draw(
        &missing::probabilities(&miss, &problem.test.x_o, &problem.test.x_w),
        derive_seed(p.seed, 21),
    );
    let params = Params {
        data: DataParams {
            n_train: p.n,
            n_test: p.n_test,
            gaussian: g,
            ..DataParams::default()
        },
        missing: miss,
        estimator: EstimatorParams::default(),
        label: LabelParams {
            kind: p.label,
            mlp: MlpSettings {
                epochs: p.epochs,
                ..MlpSettings::default()
            },
            ..LabelParams::default()
        },
        iterative: IterativeParams {
            rounds: p.rounds,
            steps_per_round: p.epochs,
            ..IterativeParams::default()
        },
        ..Params::default()
    };
    let cancel = CancelToken::new();
    let cx = Context {
        params: &params,
        conditional_mean: None,
        seed: p.seed,
        cancel: &cancel,
    };
    let train = split_view(&problem.train, &mask_train, None);
    let test = split_view(&problem.test, &mask_test, None);
    let (mut seq, mut iter, mut total) = (Vec::new(), Vec::new(), Vec::new());
    let mut excess = (f64::NAN, f64::NAN);
    for _ in 0..p.repeats.max(1) {
        let start = Instant::now();
        let mut after_sequential = None;
        let run = benchtop_compute::threads::single_threaded("weakfeatures-bench", || {
            run_schemes(
                &cx,
                &params.estimator,
                &train,
                &test,
                problem.test.bayes.as_ref(),
                |r| {
                    if r == 0 {
                        after_sequential = Some(Instant::now());
                    }
                },
            )
        })?;
        let end = Instant::now();
        let split = after_sequential.unwrap_or(end);
        seq.push((split - start).as_secs_f64() * 1e3);
        iter.push((end - split).as_secs_f64() * 1e3);
        total.push((end - start).as_secs_f64() * 1e3);
        let last = run.rounds.last().map_or(&run.sequential, |(_, e)| e);
        excess = (run.sequential.excess(0.0), last.excess(0.0));
    }
    let rate_test = missing::fraction(&mask_test);
    let min_total_ms = total.iter().copied().fold(f64::INFINITY, f64::min);
    Ok(BenchReport {
        params: p.clone(),
        sequential_ms: median(&mut seq),
        iterative_ms: median(&mut iter),
        total_ms: median(&mut total),
        min_total_ms,
        sequential_excess: excess.0,
        iterative_excess: excess.1,
        closed_form: rate_test * closed_form::plugin_excess(&problem.population)?,
        missing_train: missing::fraction(&mask_train),
    })
}
