//! What the FINDR panel offers to sweeps: the learning rate, flow width, encoder size, test
//! fold, training length and fit seed, against the test NLL, the best epoch, the attractor
//! error (synthetic data) and the number of stable fixed points.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_findr::analysis::Stability;

use super::{DataParams, FindrPanelParams, FindrParams, LoadedData, data_tab, engine};
use benchtop_kit::sweep::{SweepEvaluator, SweepOutput, SweepParam, SweepSupport};

fn param(key: &str, label: &str, current: f64, min: f64, max: f64, integer: bool) -> SweepParam {
    SweepParam {
        key: key.into(),
        label: label.into(),
        current,
        min,
        max,
        integer,
    }
}

fn output(key: &str, label: &str) -> SweepOutput {
    SweepOutput {
        key: key.into(),
        label: label.into(),
    }
}

/// The sweep support for the current parameters; file paths resolve against `project_dir`.
pub(super) fn support(params: &FindrPanelParams, project_dir: Option<PathBuf>) -> SweepSupport {
    let fit = &params.fit;
    #[allow(clippy::cast_precision_loss)]
    let params_list = vec![
        param(
            "train.learning_rate",
            "Learning rate",
            fit.train.learning_rate,
            1e-6,
            10.0,
            false,
        ),
        param(
            "model.flow_width",
            "Flow width H",
            fit.model.flow_width as f64,
            1.0,
            1024.0,
            true,
        ),
        param(
            "model.encoder_hidden",
            "Encoder size (per direction)",
            fit.model.encoder_hidden as f64,
            1.0,
            1024.0,
            true,
        ),
        param(
            "train.fold",
            "Test fold",
            fit.train.fold as f64,
            0.0,
            fit.train.folds.saturating_sub(1) as f64,
            true,
        ),
        param(
            "train.max_epochs",
            "Largest number of epochs",
            fit.train.max_epochs as f64,
            1.0,
            1e5,
            true,
        ),
        param(
            "fit.seed",
            "Fit seed",
            params.fit_seed as f64,
            0.0,
            1e15,
            true,
        ),
    ];
    let outputs = vec![
        output("fit.test_nll", "Test NLL (nats per bin)"),
        output(
            "fit.test_nll_gain",
            "Baseline-only minus model test NLL (nats per bin)",
        ),
        output("fit.best_epoch", "Best epoch"),
        output(
            "fit.attractor_error",
            "Largest planted-attractor error (latent units)",
        ),
        output("fit.stable_fixed_points", "Stable fixed points"),
    ];
    let fingerprint = format!("{:?}", (&params.data, &params.fit, params.fit_seed));
    SweepSupport {
        params: params_list,
        outputs,
        evaluator: Arc::new(FindrEvaluator {
            data: params.data.clone(),
            project_dir,
            fit: params.fit.clone(),
            cached: Mutex::new(None),
        }),
        fingerprint,
        references: Arc::new(|_, _, _, _| None),
    }
}

/// Trains and analyses FINDR for one sweep point (the trials are made once and shared).
struct FindrEvaluator {
    data: DataParams,
    project_dir: Option<PathBuf>,
    fit: FindrParams,
    cached: Mutex<Option<Arc<LoadedData>>>,
}

#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn as_count(value: f64) -> usize {
    value.round().max(0.0) as usize
}

impl FindrEvaluator {
    fn trials(
        &self,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<Arc<LoadedData>, ComputeError> {
        let mut cached = self.cached.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(data) = cached.as_ref() {
            return Ok(Arc::clone(data));
        }
        let data = Arc::new(data_tab::load(
            &self.data,
            self.project_dir.as_deref(),
            progress,
            cancel,
        )?);
        *cached = Some(Arc::clone(&data));
        Ok(data)
    }

    /// The fit settings and seed for `assignment` (`seed` unless `fit.seed` is swept).
    fn assign(
        &self,
        assignment: &BTreeMap<String, f64>,
        seed: u64,
    ) -> Result<(FindrParams, u64), ComputeError> {
        let (mut fit, mut seed) = (self.fit.clone(), seed);
        for (key, &value) in assignment {
            match key.as_str() {
                "train.learning_rate" => fit.train.learning_rate = value,
                "model.flow_width" => fit.model.flow_width = as_count(value),
                "model.encoder_hidden" => fit.model.encoder_hidden = as_count(value),
                "train.fold" => fit.train.fold = as_count(value),
                "train.max_epochs" => fit.train.max_epochs = as_count(value),
                "fit.seed" => seed = as_count(value) as u64,
                other => {
                    return Err(ComputeError::invalid(
                        other,
                        "not a parameter of the FINDR panel",
                    ));
                }
            }
        }
        Ok((fit, seed))
    }
}

impl SweepEvaluator for FindrEvaluator {
    fn evaluate(
        &self,
        assignment: &BTreeMap<String, f64>,
        _outputs: &[String],
        seed: u64,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        let (fit, seed) = self.assign(assignment, seed)?;
        let data = self.trials(&progress.slice(0.0, 0.05), cancel)?;
        let result = engine::fit(
            &data.trials,
            data.truth.as_ref(),
            &fit,
            seed,
            &progress.slice(0.05, 1.0),
            cancel,
            &mut |_| {},
        )?;
        let stable = result
            .fixed_points
            .iter()
            .filter(|p| p.stability == Stability::Stable)
            .count();
        let mut values = BTreeMap::new();
        #[allow(clippy::cast_precision_loss)]
        for (key, value) in [
            ("fit.test_nll", result.test_nll),
            (
                "fit.test_nll_gain",
                result.test_nll_baseline_only - result.test_nll,
            ),
            ("fit.best_epoch", result.best_epoch as f64),
            ("fit.stable_fixed_points", stable as f64),
        ] {
            values.insert(key.to_owned(), value);
        }
        if let Some(planted) = &result.planted {
            let worst = planted.attractor_errors[0].max(planted.attractor_errors[1]);
            values.insert("fit.attractor_error".to_owned(), worst);
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignments_set_the_fit_and_the_seed() {
        let support_params = FindrPanelParams::default();
        let evaluator = FindrEvaluator {
            data: support_params.data.clone(),
            project_dir: None,
            fit: support_params.fit.clone(),
            cached: Mutex::new(None),
        };
        let assignment = BTreeMap::from([
            ("model.flow_width".to_owned(), 50.0),
            ("train.learning_rate".to_owned(), 0.01),
            ("fit.seed".to_owned(), 7.0),
        ]);
        let (fit, seed) = evaluator.assign(&assignment, 3).unwrap();
        assert_eq!(fit.model.flow_width, 50);
        assert_eq!(fit.train.learning_rate, 0.01);
        assert_eq!(seed, 7);
        let (_, seed) = evaluator.assign(&BTreeMap::new(), 3).unwrap();
        assert_eq!(seed, 3);
        let bad = BTreeMap::from([("model.depth".to_owned(), 2.0)]);
        assert!(evaluator.assign(&bad, 3).is_err());
        let keys: Vec<String> = support(&support_params, None)
            .params
            .into_iter()
            .map(|p| p.key)
            .collect();
        for key in keys {
            let one = BTreeMap::from([(key.clone(), 1.0)]);
            assert!(evaluator.assign(&one, 1).is_ok(), "{key}");
        }
    }
}
