//! Model selection as the paper does it: a small grid over the hyperparameters that matter
//! (β_KL, the learning rate, the flow width H and the time constant τ), several restarts per
//! point, and k-fold scores by the held-out predictive likelihood.
//!
//! Each grid point is fitted once per fold (fold f is the test fold, the next one validates),
//! each fit with `restarts` seeds of which the one the others agree with is kept; the point's
//! score is the mean over folds of the held-out predictive gain over the baseline alone (nats
//! per predicted bin, higher is better). Points already scored are passed back in and skipped,
//! so a stopped selection resumes where it stopped.

use serde::{Deserialize, Serialize};

use benchtop_compute::{CancelToken, ComputeError, Progress};

use crate::pipeline::{FindrParams, fit};
use crate::trials::TrialSet;

/// The grid and how each point is scored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SelectionGrid {
    /// KL weights β_KL.
    pub beta_kl: Vec<f64>,
    /// Peak learning rates.
    pub learning_rate: Vec<f64>,
    /// Flow widths H.
    pub flow_width: Vec<usize>,
    /// Time constants τ, s.
    pub tau_s: Vec<f64>,
    /// Fits per point and fold (different seeds; the one the others agree with is kept).
    pub restarts: usize,
    /// Folds scored per point (test folds 0, 1, …; at most the fit's number of folds).
    pub folds: usize,
}

impl Default for SelectionGrid {
    /// Six points (β_KL 0.5, 1, 2 × learning rate 0.05, 0.1 at H = 30, τ = 0.1 s), two restarts,
    /// three folds: 36 fits of the one-click settings.
    fn default() -> Self {
        Self {
            beta_kl: vec![0.5, 1.0, 2.0],
            learning_rate: vec![0.05, 0.1],
            flow_width: vec![30],
            tau_s: vec![0.1],
            restarts: 2,
            folds: 3,
        }
    }
}

/// One grid point.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// β_KL.
    pub beta_kl: f64,
    /// Peak learning rate.
    pub learning_rate: f64,
    /// Flow width H.
    pub flow_width: usize,
    /// Time constant τ, s.
    pub tau_s: f64,
}

impl Candidate {
    /// `base` with this point's settings.
    pub fn apply(&self, base: &FindrParams) -> FindrParams {
        let mut params = base.clone();
        params.train.beta_kl = self.beta_kl;
        params.train.learning_rate = self.learning_rate;
        params.model.flow_width = self.flow_width;
        params.model.tau_s = self.tau_s;
        params
    }

    /// The point in words.
    pub fn describe(&self) -> String {
        format!(
            "β_KL {}, learning rate {}, H {}, τ {} s",
            self.beta_kl, self.learning_rate, self.flow_width, self.tau_s
        )
    }
}

impl SelectionGrid {
    /// Every grid point, β_KL varying slowest.
    pub fn candidates(&self) -> Vec<Candidate> {
        let mut out = Vec::new();
        for &beta_kl in &self.beta_kl {
            for &learning_rate in &self.learning_rate {
                for &flow_width in &self.flow_width {
                    for &tau_s in &self.tau_s {
                        out.push(Candidate {
                            beta_kl,
                            learning_rate,
                            flow_width,
                            tau_s,
                        });
                    }
                }
            }
        }
        out
    }

    /// Checks the grid against the fit settings it varies; errors name the key.
    pub fn validate(&self, base: &FindrParams, bin_s: f64) -> Result<(), ComputeError> {
        let candidates = self.candidates();
        if candidates.is_empty() {
            return Err(ComputeError::invalid(
                "selection",
                "every axis of the grid needs a value",
            ));
        }
        if candidates.len() > 1000 {
            return Err(ComputeError::invalid(
                "selection",
                "choose at most 1000 grid points",
            ));
        }
        if !(1..=100).contains(&self.restarts) {
            return Err(ComputeError::invalid("restarts", "choose 1 to 100 fits"));
        }
        if !(1..=base.train.folds).contains(&self.folds) {
            return Err(ComputeError::invalid(
                "folds",
                format!("choose 1 to {} folds (the fit's folds)", base.train.folds),
            ));
        }
        for candidate in &candidates {
            candidate.apply(base).validate(bin_s)?;
        }
        Ok(())
    }
}

/// One fold's held-out predictive NLLs, nats per predicted bin.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FoldScore {
    /// The test fold.
    pub fold: usize,
    /// The kept fit's held-out predictive NLL.
    pub predictive_nll: f64,
    /// The baseline alone on the same bins.
    pub baseline_nll: f64,
    /// Whether the fit says its latent is supported.
    pub latent_supported: bool,
}

/// A scored grid point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CandidateScore {
    /// The point.
    pub candidate: Candidate,
    /// Its folds.
    pub folds: Vec<FoldScore>,
    /// Why it could not be fitted, if it could not (a numerical failure at these settings).
    pub error: Option<String>,
}

impl CandidateScore {
    /// The mean predictive gain over the baseline across folds, nats per bin (NaN when the
    /// point failed).
    pub fn mean_gain(&self) -> f64 {
        if self.error.is_some() || self.folds.is_empty() {
            return f64::NAN;
        }
        let n = self.folds.len() as f64;
        self.folds
            .iter()
            .map(|f| f.baseline_nll - f.predictive_nll)
            .sum::<f64>()
            / n
    }
}

/// The best scored point: the highest mean predictive gain (failed points never win).
pub fn best(scores: &[CandidateScore]) -> Option<&CandidateScore> {
    scores
        .iter()
        .filter(|s| s.mean_gain().is_finite())
        .max_by(|a, b| a.mean_gain().total_cmp(&b.mean_gain()))
}

/// Scores every point of `grid` not already in `done` (see the module notes), fitting `data`
/// with `base` changed at each point and fit seed `seed`; `on_point` sees each point as it is
/// scored. Returns the scores of every point, `done` ones first.
#[allow(clippy::too_many_arguments)]
pub fn select(
    data: &TrialSet,
    base: &FindrParams,
    grid: &SelectionGrid,
    seed: u64,
    done: &[CandidateScore],
    progress: &Progress,
    cancel: &CancelToken,
    on_point: &mut dyn FnMut(&CandidateScore),
) -> Result<Vec<CandidateScore>, ComputeError> {
    grid.validate(base, data.bin_s)?;
    let todo: Vec<Candidate> = grid
        .candidates()
        .into_iter()
        .filter(|c| !done.iter().any(|d| d.candidate == *c))
        .collect();
    let mut scores: Vec<CandidateScore> = done.to_vec();
    let fits = todo.len() * grid.folds;
    for (k, candidate) in todo.iter().enumerate() {
        let mut params = candidate.apply(base);
        params.restarts = grid.restarts;
        let mut score = CandidateScore {
            candidate: *candidate,
            folds: Vec::with_capacity(grid.folds),
            error: None,
        };
        for fold in 0..grid.folds {
            cancel.check()?;
            params.train.fold = fold;
            let index = k * grid.folds + fold;
            let share = |i: usize| i as f64 / fits.max(1) as f64;
            let slice = progress.slice(share(index), share(index + 1));
            slice.set(
                0.0,
                format!(
                    "point {} of {}, fold {}: {}",
                    k + 1,
                    todo.len(),
                    fold + 1,
                    candidate.describe()
                ),
            );
            match fit(data, None, &params, seed, &slice, cancel, &mut |_| {}) {
                Ok(result) => score.folds.push(FoldScore {
                    fold,
                    predictive_nll: result.heldout_predictive_nll,
                    baseline_nll: result.heldout_predictive_nll_baseline_only,
                    latent_supported: result.unsupported_reasons().is_empty(),
                }),
                Err(ComputeError::Cancelled) => return Err(ComputeError::Cancelled),
                Err(error) => {
                    score.error = Some(error.to_string());
                    break;
                }
            }
        }
        on_point(&score);
        scores.push(score);
    }
    progress.set(1.0, "model selection done");
    Ok(scores)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelConfig;
    use crate::synthetic::{SyntheticParams, generate};
    use crate::train::TrainParams;

    #[test]
    fn the_grid_lists_every_point_and_checks_its_settings() {
        let grid = SelectionGrid::default();
        let candidates = grid.candidates();
        assert_eq!(candidates.len(), 6);
        assert_eq!(candidates[0].beta_kl, 0.5);
        assert_eq!(candidates[1].learning_rate, 0.1);
        let base = FindrParams::default();
        grid.validate(&base, 0.01).unwrap();
        let applied = candidates[5].apply(&base);
        assert_eq!(
            (applied.train.beta_kl, applied.train.learning_rate),
            (2.0, 0.1)
        );
        let bad_tau = SelectionGrid {
            tau_s: vec![0.001],
            ..grid.clone()
        };
        assert!(bad_tau.validate(&base, 0.01).is_err());
        let too_many_folds = SelectionGrid {
            folds: 6,
            ..grid.clone()
        };
        assert!(too_many_folds.validate(&base, 0.01).is_err());
        let failed = CandidateScore {
            candidate: candidates[0],
            folds: Vec::new(),
            error: Some("diverged".into()),
        };
        assert!(failed.mean_gain().is_nan());
        assert!(best(&[failed]).is_none());
    }

    /// Two β_KL on the planted flow at test size: both points are scored over two folds, the
    /// best is the one with the highest mean gain, and a resumed run skips the done point.
    #[test]
    fn findr_selection_scores_points_by_folds_and_resumes() {
        let data = generate(
            &SyntheticParams {
                n_trials: 60,
                n_neurons: 20,
                min_bins: 30,
                max_bins: 40,
                ..SyntheticParams::default()
            },
            2,
            &Progress::new(),
            &CancelToken::new(),
        )
        .unwrap()
        .trials;
        let base = FindrParams {
            model: ModelConfig {
                flow_width: 8,
                encoder_hidden: 8,
                ..ModelConfig::default()
            },
            train: TrainParams {
                max_epochs: 3,
                ..TrainParams::default()
            },
            ..FindrParams::default()
        };
        let grid = SelectionGrid {
            beta_kl: vec![0.5, 2.0],
            learning_rate: vec![0.1],
            flow_width: vec![8],
            tau_s: vec![0.1],
            restarts: 1,
            folds: 2,
        };
        let mut seen = Vec::new();
        let scores = select(
            &data,
            &base,
            &grid,
            1,
            &[],
            &Progress::new(),
            &CancelToken::new(),
            &mut |s| seen.push(s.candidate.beta_kl),
        )
        .unwrap();
        assert_eq!(seen, vec![0.5, 2.0]);
        assert!(
            scores
                .iter()
                .all(|s| s.folds.len() == 2 && s.error.is_none())
        );
        let winner = best(&scores).unwrap();
        assert!(scores.iter().all(|s| s.mean_gain() <= winner.mean_gain()));
        // Resuming with the first point done scores only the second, the same way.
        let mut again = Vec::new();
        let resumed = select(
            &data,
            &base,
            &grid,
            1,
            &scores[..1],
            &Progress::new(),
            &CancelToken::new(),
            &mut |s| again.push(s.candidate.beta_kl),
        )
        .unwrap();
        assert_eq!(again, vec![2.0]);
        assert_eq!(resumed, scores);
        let cancel = CancelToken::new();
        cancel.cancel();
        assert!(matches!(
            select(
                &data,
                &base,
                &grid,
                1,
                &[],
                &Progress::new(),
                &cancel,
                &mut |_| {}
            ),
            Err(ComputeError::Cancelled)
        ));
    }
}
