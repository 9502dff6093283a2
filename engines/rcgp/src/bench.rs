//! The `benchtop bench rcgp` workload: one filter + smoother pass over the Figure-1 field with
//! `space` locations and `times` time steps (Matérn-3/2 in time, RBF in space, fixed
//! hyperparameters, 5 % outliers, see [`bench_data`]), optionally with the robust update, and optionally the dense
//! O(n³) GP regression on the same data for the scaling comparison. The peer script
//! (`scripts/bench_rcgp_peer.py`) runs the same filter + smoother in NumPy.

use std::time::Instant;

use benchtop_compute::{CancelToken, ComputeError};
use serde::{Deserialize, Serialize};

use crate::data;
use crate::dense;
use crate::filter;
use crate::model::{Hyper, KernelChoice, Prior};
use crate::robust::{Observation, RobustSettings};

/// What to time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchParams {
    /// Time steps T.
    pub times: usize,
    /// Locations n_s (the first n_s points of the smallest square grid holding them).
    pub space: usize,
    /// Use the robust update.
    pub robust: bool,
    /// Also time dense GP regression on the same points.
    pub dense: bool,
    /// Timed repeats (the fastest is reported).
    pub repeats: usize,
}

/// What was measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// Always "rcgp".
    pub engine: String,
    /// Time steps T.
    pub times: usize,
    /// Locations n_s.
    pub space: usize,
    /// State dimension n_s · d.
    pub state_dim: usize,
    /// Robust update.
    pub robust: bool,
    /// Filter + smoother wall time, fastest repeat (ms).
    pub ms_total: f64,
    /// `ms_total` per time step (µs).
    pub us_per_step: f64,
    /// Dense GP regression wall time (ms), when asked for.
    pub dense_ms: Option<f64>,
    /// Largest |filter mean − dense mean| when both ran (Gaussian update only).
    pub dense_max_abs_diff: Option<f64>,
    /// Sum of the smoothed mean (a checksum to compare with the peer).
    pub mean_checksum: f64,
}

/// The fixed hyperparameters of the benchmark (the peer uses the same).
pub const HYPER: Hyper = Hyper {
    time_length: 0.2,
    space_length: 1.0,
    variance: 1.0,
    noise: 0.01,
};

/// The benchmark's data, reproducible without our random generator (the peer builds the same):
/// the first `space` points of the smallest square grid over [−1, 1]² holding them, `times`
/// equally spaced times in [0, 1], y = f(s, t) + 0.1·sin(12.9898·k) for observation k = t·n_s + i,
/// and every 20th observation (k mod 20 = 7) shifted by ±7 (alternating signs): 5 % outliers.
pub fn bench_data(times: usize, space: usize) -> (Vec<f64>, Vec<[f64; 2]>, Vec<f64>) {
    let grid = (space as f64).sqrt().ceil() as usize;
    let field = data::figure1(grid, times, 0.0, 1);
    let locations = field.locations[..space].to_vec();
    let y = (0..times * space)
        .map(|k| {
            let (t, i) = (k / space, k % space);
            let mut v = data::figure1_field(locations[i], field.times[t])
                + 0.1 * (12.9898 * k as f64).sin();
            if k % 20 == 7 {
                v += if (k / 20) % 2 == 0 { 7.0 } else { -7.0 };
            }
            v
        })
        .collect();
    (field.times, locations, y)
}

/// Runs the benchmark.
pub fn bench(params: &BenchParams) -> Result<BenchReport, ComputeError> {
    if params.times < 2 || params.space == 0 {
        return Err(ComputeError::invalid(
            "times",
            "need at least 2 times and 1 location",
        ));
    }
    let (times, locations, y) = bench_data(params.times, params.space);
    let prior = Prior {
        kernel: KernelChoice::default(),
        hyper: HYPER,
        times: &times,
        locations: &locations,
    };
    let observation = if params.robust {
        Observation::Robust(RobustSettings::default())
    } else {
        Observation::Gaussian
    };
    let cancel = CancelToken::new();
    let mut best = f64::INFINITY;
    let mut posterior = None;
    for _ in 0..params.repeats.max(1) {
        let start = Instant::now();
        let p = filter::run(&prior, &y, observation, true, &cancel)?;
        best = best.min(start.elapsed().as_secs_f64() * 1e3);
        posterior = Some(p);
    }
    let posterior = posterior.ok_or_else(|| ComputeError::Numerical("no repeat ran".to_owned()))?;
    let (dense_ms, dense_max_abs_diff) = if params.dense {
        let start = Instant::now();
        let fit = dense::regress(&prior, &y)?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let diff = (!params.robust).then(|| {
            fit.mean
                .iter()
                .zip(&posterior.mean)
                .fold(0.0f64, |a, (x, y)| a.max((x - y).abs()))
        });
        (Some(ms), diff)
    } else {
        (None, None)
    };
    Ok(BenchReport {
        engine: "rcgp".to_owned(),
        times: params.times,
        space: params.space,
        state_dim: params.space * prior.order(),
        robust: params.robust,
        ms_total: best,
        us_per_step: best * 1e3 / params.times as f64,
        dense_ms,
        dense_max_abs_diff,
        mean_checksum: posterior.mean.iter().sum(),
    })
}
