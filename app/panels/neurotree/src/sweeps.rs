//! What the NeuroTree panel's sweeps record (the parameters they vary, among them the k-hop λ,
//! the trunk weight α and path order S, the learning rate, hidden size, epochs and run seed, are
//! declared in [`crate::params`]): the AGE-GCN AUC, the best baseline AUC, the brain-age slopes,
//! ‖Φ_k‖₂ at the largest k, and trunk sizes. The model is trained only when a model output is
//! recorded; trunk outputs alone are cheap.

use std::collections::BTreeMap;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::host::SweepCx;
use benchtop_kit::sweep::SweepOutput;
use benchtop_neurotree::cohort::DEFAULT_MODE;
use benchtop_neurotree::pipeline::run;

use super::explore::Pick;
use super::model_tab::AGE_GCN;
use super::tree_tab::tree_base;
use super::{DataParams, LoadedData, NeuroTreePanelParams, data_tab};

/// Outputs that need a trained model.
const MODEL_OUTPUTS: [&str; 5] = [
    "model.auc_age_gcn",
    "model.auc_best_baseline",
    "model.brain_age_slope_control",
    "model.brain_age_slope_patient",
    "khop.norm_at_k_max",
];

/// The outputs sweeps may record.
pub fn outputs() -> Vec<SweepOutput> {
    vec![
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
    ]
}

/// The digest of what a sweep's results depend on besides its axes and seeds: the subjects'
/// parameters and the run settings.
pub fn fingerprint(params: &NeuroTreePanelParams) -> String {
    format!("{:?}", (&params.data, &params.run))
}

/// The subjects of one sweep, made (or read) once and shared by its points, with the
/// parameters they were made from.
struct SweepData {
    params: DataParams,
    data: LoadedData,
}

/// Re-runs the trunk search (and the model when a model output is asked for) for one sweep
/// point. The subjects are generated or read once per sweep.
pub fn evaluate(
    params: &NeuroTreePanelParams,
    outputs: &[String],
    seed: u64,
    cx: &SweepCx<'_>,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<BTreeMap<String, f64>, ComputeError> {
    let mut r = params.run.clone();
    r.seed = seed;
    let load = || {
        let data = data_tab::load(&params.data, cx.project_dir, &Progress::new(), cancel)?;
        Ok(SweepData {
            params: params.data.clone(),
            data,
        })
    };
    let shared = cx.cached(load)?;
    // The subjects' parameters are not swept, so every point shares them; made afresh if not.
    let fresh;
    let data = if shared.params == params.data {
        &shared.data
    } else {
        fresh = load()?;
        &fresh.data
    };
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
    values.insert("trunk.level1_nodes".to_owned(), nodes.len() as f64);
    values.insert(
        "trunk.level1_dmn_fraction".to_owned(),
        in_dmn as f64 / nodes.len().max(1) as f64,
    );
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
