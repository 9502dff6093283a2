//! What the MolStitch panel offers to sweeps: the optimisation's β, Dirichlet α, number of
//! proxies, stitch rounds, σ and seed, against MolStitch's hypervolume, its gain over the offline
//! set and over the better baseline, and its R2.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_molstitch::optimise::{self, OptimiseConfig};

use super::MolStitchParams;
use super::library::MoleculeSet;
use super::optimise_tab::{best_baseline_hypervolume, molstitch_metrics, run_config};
use benchtop_kit::sweep::{SweepEvaluator, SweepOutput, SweepParam, SweepSupport, as_count};

/// The sweep support for the current parameters and molecule set.
pub(super) fn support(
    params: &MolStitchParams,
    set: Option<Arc<MoleculeSet>>,
    cache_dir: Option<PathBuf>,
) -> SweepSupport {
    let config = run_config(params);
    #[allow(clippy::cast_precision_loss)]
    let params_list = vec![
        SweepParam::new("optimise.beta", "IPO β", config.beta, 1e-3, 100.0, false),
        SweepParam::new(
            "optimise.dirichlet_alpha",
            "Dirichlet α",
            config.dirichlet_alpha,
            1e-3,
            100.0,
            false,
        ),
        SweepParam::new(
            "optimise.n_proxies",
            "Proxies M",
            config.n_proxies as f64,
            1.0,
            32.0,
            true,
        ),
        SweepParam::new(
            "optimise.stitch_rounds",
            "Stitch rounds",
            config.stitch_rounds as f64,
            1.0,
            1000.0,
            true,
        ),
        SweepParam::new(
            "optimise.sigma",
            "TB reward scale σ",
            config.sigma,
            1e-3,
            1e4,
            false,
        ),
        SweepParam::new(
            "optimise.seed",
            "Run seed",
            config.seed as f64,
            0.0,
            1e15,
            true,
        ),
    ];
    let outputs = vec![
        SweepOutput::new(
            "hv.molstitch",
            "MolStitch hypervolume (offline ∪ generated)",
        ),
        SweepOutput::new(
            "hv.gain_over_offline",
            "MolStitch hypervolume − offline hypervolume",
        ),
        SweepOutput::new(
            "hv.gain_over_best_baseline",
            "MolStitch hypervolume − best baseline's",
        ),
        SweepOutput::new("r2.molstitch", "MolStitch R2 (lower is better)"),
    ];
    SweepSupport {
        params: params_list,
        outputs,
        fingerprint: format!("{:?}", (&params.data, &config)),
        evaluator: Arc::new(MolStitchEvaluator {
            config,
            set,
            cache_dir,
        }),
        references: Arc::new(|_, _, _, _| None),
    }
}

/// Runs the whole optimisation for one sweep point.
struct MolStitchEvaluator {
    config: OptimiseConfig,
    set: Option<Arc<MoleculeSet>>,
    cache_dir: Option<PathBuf>,
}

impl MolStitchEvaluator {
    fn assign(
        &self,
        assignment: &BTreeMap<String, f64>,
        seed: u64,
    ) -> Result<OptimiseConfig, ComputeError> {
        let mut c = self.config.clone();
        c.seed = seed;
        for (key, &value) in assignment {
            match key.as_str() {
                "optimise.beta" => c.beta = value,
                "optimise.dirichlet_alpha" => c.dirichlet_alpha = value,
                "optimise.n_proxies" => c.n_proxies = as_count(value),
                "optimise.stitch_rounds" => c.stitch_rounds = as_count(value),
                "optimise.sigma" => c.sigma = value,
                "optimise.seed" => c.seed = as_count(value) as u64,
                other => {
                    return Err(ComputeError::invalid(
                        other,
                        "not a parameter of the MolStitch panel",
                    ));
                }
            }
        }
        Ok(c)
    }
}

impl SweepEvaluator for MolStitchEvaluator {
    fn evaluate(
        &self,
        assignment: &BTreeMap<String, f64>,
        _outputs: &[String],
        seed: u64,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        let config = self.assign(assignment, seed)?;
        let set = self.set.as_ref().ok_or_else(|| {
            ComputeError::invalid(
                "data",
                "wait for the molecule set to be scored before sweeping",
            )
        })?;
        let result = optimise::run(
            &set.smiles,
            &config,
            self.cache_dir.as_deref(),
            progress,
            cancel,
            &mut |_| {},
        )?;
        let mut values = BTreeMap::new();
        if let Some(m) = molstitch_metrics(&result) {
            values.insert("hv.molstitch".to_owned(), m.hypervolume);
            values.insert(
                "hv.gain_over_offline".to_owned(),
                m.hypervolume - result.offline_metrics.hypervolume,
            );
            let best = best_baseline_hypervolume(&result);
            if best.is_finite() {
                values.insert(
                    "hv.gain_over_best_baseline".to_owned(),
                    m.hypervolume - best,
                );
            }
            values.insert("r2.molstitch".to_owned(), m.r2);
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sweep_parameter_is_assignable_and_unknown_keys_are_refused() {
        let params = MolStitchParams::default();
        let evaluator = MolStitchEvaluator {
            config: run_config(&params),
            set: None,
            cache_dir: None,
        };
        for p in support(&params, None, None).params {
            let one = BTreeMap::from([(p.key.clone(), 2.0)]);
            assert!(evaluator.assign(&one, 1).is_ok(), "{}", p.key);
        }
        let c = evaluator
            .assign(
                &BTreeMap::from([
                    ("optimise.beta".to_owned(), 0.5),
                    ("optimise.seed".to_owned(), 9.0),
                ]),
                3,
            )
            .unwrap();
        assert_eq!((c.beta, c.seed), (0.5, 9));
        assert_eq!(evaluator.assign(&BTreeMap::new(), 3).unwrap().seed, 3);
        assert!(
            evaluator
                .assign(&BTreeMap::from([("optimise.depth".to_owned(), 1.0)]), 1)
                .is_err()
        );
        let err = evaluator
            .evaluate(
                &BTreeMap::new(),
                &[],
                1,
                &Progress::new(),
                &CancelToken::new(),
            )
            .unwrap_err();
        assert!(err.to_string().contains("molecule set"), "{err}");
    }
}
