//! What the NeuroTree panel offers to sweeps: the k-hop λ, the trunk weight α and path order S,
//! the learning rate, hidden size, epochs and seed, against the AGE-GCN AUC, the best baseline
//! AUC, the brain-age slopes, ‖Φ_k‖₂ at the largest k, and trunk sizes. The model is trained only
//! when a model output is recorded or a model setting is swept; trunk outputs alone are cheap.

use std::collections::BTreeMap;
use std::sync::Arc;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_neurotree::cohort::DEFAULT_MODE;
use benchtop_neurotree::pipeline::{NeuroTreeParams, run};

use super::explore::Pick;
use super::model_tab::AGE_GCN;
use super::tree_tab::tree_base;
use super::{LoadedData, NeuroTreePanelParams};
use benchtop_kit::sweep::{SweepEvaluator, SweepOutput, SweepParam, SweepSupport, as_count};

/// Outputs that need a trained model.
const MODEL_OUTPUTS: [&str; 5] = [
    "model.auc_age_gcn",
    "model.auc_best_baseline",
    "model.brain_age_slope_control",
    "model.brain_age_slope_patient",
    "khop.norm_at_k_max",
];

/// The sweep support for the current parameters and data.
pub(super) fn support(
    params: &NeuroTreePanelParams,
    data: Option<Arc<LoadedData>>,
) -> SweepSupport {
    let r = &params.run;
    #[allow(clippy::cast_precision_loss)]
    let params_list = vec![
        SweepParam::new(
            "khop.lambda",
            "k-hop mixing λ (one curve)",
            r.khop.lambdas.first().copied().unwrap_or(0.5),
            0.0,
            1.0,
            false,
        ),
        SweepParam::new(
            "trunk.alpha",
            "Trunk weight α",
            r.trunk.alpha,
            0.0,
            1.0,
            false,
        ),
        SweepParam::new(
            "trunk.max_path_order",
            "S (longest path counted)",
            r.trunk.max_path_order as f64,
            1.0,
            10.0,
            true,
        ),
        SweepParam::new(
            "train.learning_rate",
            "Learning rate",
            r.train.learning_rate,
            1e-6,
            1.0,
            false,
        ),
        SweepParam::new(
            "model.hidden",
            "Hidden size",
            r.model.hidden as f64,
            1.0,
            1024.0,
            true,
        ),
        SweepParam::new(
            "train.epochs",
            "Epochs",
            r.train.epochs as f64,
            1.0,
            1e4,
            true,
        ),
        SweepParam::new("run.seed", "Run seed", r.seed as f64, 0.0, 1e15, true),
    ];
    let outputs = vec![
        SweepOutput::new("model.auc_age_gcn", "AGE-GCN AUC (mean over folds)"),
        SweepOutput::new("model.auc_best_baseline", "Best baseline AUC"),
        SweepOutput::new("model.brain_age_slope_control", "Brain-age slope, controls"),
        SweepOutput::new("model.brain_age_slope_patient", "Brain-age slope, patients"),
        SweepOutput::new("khop.norm_at_k_max", "‖Φ_k‖₂ at the largest k (first λ)"),
        SweepOutput::new("trunk.level1_nodes", "Level-1 trunk nodes (all subjects)"),
        SweepOutput::new(
            "trunk.level1_dmn_fraction",
            "Default-mode share of level-1 trunk nodes",
        ),
    ];
    let fingerprint = format!("{:?}", (&params.data, r));
    SweepSupport {
        params: params_list,
        outputs,
        evaluator: Arc::new(NeuroTreeEvaluator {
            run: r.clone(),
            data,
        }),
        fingerprint,
        references: Arc::new(|_, _, _, _| None),
    }
}

/// Re-runs the trunk search (and the model when asked) for one sweep point.
struct NeuroTreeEvaluator {
    run: NeuroTreeParams,
    data: Option<Arc<LoadedData>>,
}

impl NeuroTreeEvaluator {
    /// The run settings for `assignment` (`seed` unless `run.seed` is swept).
    fn assign(
        &self,
        assignment: &BTreeMap<String, f64>,
        seed: u64,
    ) -> Result<NeuroTreeParams, ComputeError> {
        let mut r = self.run.clone();
        r.seed = seed;
        for (key, &value) in assignment {
            match key.as_str() {
                "khop.lambda" => r.khop.lambdas = vec![value],
                "trunk.alpha" => r.trunk.alpha = value,
                "trunk.max_path_order" => r.trunk.max_path_order = as_count(value),
                "train.learning_rate" => r.train.learning_rate = value,
                "model.hidden" => r.model.hidden = as_count(value),
                "train.epochs" => r.train.epochs = as_count(value),
                "run.seed" => r.seed = as_count(value) as u64,
                other => {
                    return Err(ComputeError::invalid(
                        other,
                        "not a parameter of the NeuroTree panel",
                    ));
                }
            }
        }
        Ok(r)
    }
}

impl SweepEvaluator for NeuroTreeEvaluator {
    fn evaluate(
        &self,
        assignment: &BTreeMap<String, f64>,
        outputs: &[String],
        seed: u64,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        let r = self.assign(assignment, seed)?;
        let data = self.data.as_ref().ok_or_else(|| {
            ComputeError::invalid("data", "generate or load subjects before sweeping")
        })?;
        cancel.check()?;
        let d = &data.dataset;
        let mut values = BTreeMap::new();
        let explored = tree_base(d, Pick::AllSubjects)?.explore(r.trunk)?;
        let nodes = explored.trunks.level_nodes(1);
        let dmn = d
            .network_names
            .iter()
            .position(|n| n.to_lowercase().contains("default"))
            .unwrap_or(DEFAULT_MODE);
        let in_dmn = nodes
            .iter()
            .filter(|&&i| d.network_of_roi.get(i) == Some(&dmn))
            .count();
        #[allow(clippy::cast_precision_loss)]
        {
            values.insert("trunk.level1_nodes".to_owned(), nodes.len() as f64);
            values.insert(
                "trunk.level1_dmn_fraction".to_owned(),
                in_dmn as f64 / nodes.len().max(1) as f64,
            );
        }
        if !outputs.iter().any(|o| MODEL_OUTPUTS.contains(&o.as_str())) {
            return Ok(values);
        }
        let result = run(d, &r, progress, cancel, &mut |_| {})?;
        let auc = |name: &str| {
            result
                .evaluations
                .iter()
                .find(|e| e.method == name)
                .map(|e| e.mean.auc)
        };
        if let Some(a) = auc(AGE_GCN) {
            values.insert("model.auc_age_gcn".to_owned(), a);
        }
        let best = result
            .evaluations
            .iter()
            .filter(|e| e.method != AGE_GCN)
            .map(|e| e.mean.auc)
            .fold(f64::NAN, f64::max);
        if best.is_finite() {
            values.insert("model.auc_best_baseline".to_owned(), best);
        }
        if let Some(age) = &result.brain_age {
            values.insert(
                "model.brain_age_slope_control".to_owned(),
                age.slope_control,
            );
            values.insert(
                "model.brain_age_slope_patient".to_owned(),
                age.slope_patient,
            );
        }
        if let Some(norm) = result.khop.first().and_then(|c| c.norms.last()) {
            values.insert("khop.norm_at_k_max".to_owned(), *norm);
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignments_set_the_run_and_the_seed() {
        let params = NeuroTreePanelParams::default();
        let evaluator = NeuroTreeEvaluator {
            run: params.run.clone(),
            data: None,
        };
        let assignment = BTreeMap::from([
            ("khop.lambda".to_owned(), 0.3),
            ("model.hidden".to_owned(), 16.0),
            ("run.seed".to_owned(), 7.0),
        ]);
        let r = evaluator.assign(&assignment, 3).unwrap();
        assert_eq!(r.khop.lambdas, vec![0.3]);
        assert_eq!(r.model.hidden, 16);
        assert_eq!(r.seed, 7);
        assert_eq!(evaluator.assign(&BTreeMap::new(), 3).unwrap().seed, 3);
        assert!(
            evaluator
                .assign(&BTreeMap::from([("model.depth".to_owned(), 2.0)]), 3)
                .is_err()
        );
        for p in support(&params, None).params {
            let one = BTreeMap::from([(p.key.clone(), 1.0)]);
            assert!(evaluator.assign(&one, 1).is_ok(), "{}", p.key);
        }
    }
}
