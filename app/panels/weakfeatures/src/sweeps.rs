//! Scalar outputs for sweeps (each method's excess risk and test MSE, the closed forms, f's
//! error) and the panel's part of summary.json.

use std::collections::BTreeMap;
use std::path::Path;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::sweep::SweepOutput;
use benchtop_weakfeatures::experiment::{CurveParams, Output};

use super::WeakfeaturesParams;

/// The methods' keys, in the order of the figures.
pub const METHODS: [&str; 5] = [
    "sequential",
    "iterative",
    "oracle_features",
    "observed_only",
    "mean_predictor",
];

/// Every output a sweep may record.
pub fn outputs() -> Vec<SweepOutput> {
    let mut out = Vec::new();
    for method in METHODS {
        let label = method.replace('_', " ");
        out.push(SweepOutput::new(
            &format!("{method}.excess_risk"),
            &format!("Excess risk, {label}"),
        ));
        out.push(SweepOutput::new(
            &format!("{method}.test_mse"),
            &format!("Test MSE, {label}"),
        ));
    }
    out.push(SweepOutput::new(
        "closed_form.sequential",
        "Closed form, sequential (panel's own)",
    ));
    out.push(SweepOutput::new(
        "closed_form.iterative",
        "Closed form, iterative (panel's own)",
    ));
    out.push(SweepOutput::new(
        "feature_mse",
        "f's MSE on rows missing x_w",
    ));
    out
}

/// Runs one sweep point (without the two curves) and reports the wanted `outputs`.
pub fn evaluate(
    params: &WeakfeaturesParams,
    outputs: &[String],
    seed: u64,
    project_dir: Option<&Path>,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<BTreeMap<String, f64>, ComputeError> {
    let mut engine = params.engine(project_dir);
    engine.curves = CurveParams {
        mse_points: 0,
        n_points: 0,
        ..engine.curves
    };
    let output = benchtop_weakfeatures::run(&engine, seed, progress, cancel)?;
    let mut all = BTreeMap::new();
    for m in &output.methods {
        all.insert(format!("{}.excess_risk", m.key), m.excess_risk);
        all.insert(format!("{}.test_mse", m.key), m.test_mse);
    }
    all.insert(
        "closed_form.sequential".to_owned(),
        output.closed_forms.sequential,
    );
    all.insert(
        "closed_form.iterative".to_owned(),
        output.closed_forms.iterative,
    );
    all.insert("feature_mse".to_owned(), output.feature_mse);
    Ok(all
        .into_iter()
        .filter(|(key, _)| outputs.iter().any(|o| o == key))
        .collect())
}

/// The panel's summary.json entry (keys listed on docs/panels/weakfeatures.md).
pub fn summary(output: &Output, params: &WeakfeaturesParams) -> serde_json::Value {
    let methods: serde_json::Map<String, serde_json::Value> = output
        .methods
        .iter()
        .map(|m| {
            (
                m.key.clone(),
                serde_json::json!({"test_mse": m.test_mse, "excess_risk": m.excess_risk}),
            )
        })
        .collect();
    let cf = &output.closed_forms;
    serde_json::json!({
        "source": output.source,
        "mechanism": params.missing.mechanism.label(),
        "missing_rate": params.missing.rate,
        "missing_train": output.missing_train,
        "missing_test": output.missing_test,
        "estimator": params.estimator.kind.label(),
        "label_model": params.label.kind.label(),
        "estimation_mse": params.estimator.mse,
        "n_train": output.n_train,
        "n_test": output.n_test,
        "excess_against": if output.exact_bayes { "bayes_predictor" } else { "oracle_features" },
        "reference_mse": output.reference_mse,
        "methods": methods,
        "closed_forms": {
            "sequential": cf.sequential,
            "iterative": cf.iterative,
            "observed_only": cf.observed_only,
            "mean_predictor": cf.mean_predictor,
            "plugin_per_row": cf.plugin_per_row,
            "exact_moments": cf.exact_moments,
            "valid_for_mechanism": cf.valid_for_mechanism,
        },
        "attenuation": output.attenuation.as_ref().map(|a| serde_json::json!({
            "measured": a.measured,
            "closed_form": a.closed_form,
        })),
        "feature_mse": output.feature_mse,
        "lipschitz": output.lipschitz,
        "rounds": output.rounds.iter().map(|r| serde_json::json!({
            "round": r.round,
            "train_mse": r.train_mse,
            "test_mse": r.test_mse,
            "excess_risk": r.excess_risk,
            "feature_mse": r.feature_mse,
        })).collect::<Vec<_>>(),
        "risk_vs_estimation_mse": output.risk_vs_mse.iter().map(|p| serde_json::json!({
            "estimation_mse": p.estimation_mse,
            "sequential": p.sequential,
            "iterative": p.iterative,
            "closed_form": p.closed_form,
            "closed_form_per_row": p.closed_form_per_row,
            "bound_sequential": p.bound_sequential,
        })).collect::<Vec<_>>(),
        "risk_vs_n": output.risk_vs_n.iter().map(|p| serde_json::json!({
            "n": p.n,
            "sequential": p.sequential,
            "iterative": p.iterative,
            "oracle_features": p.oracle_features,
            "observed_only": p.observed_only,
            "mean_predictor": p.mean_predictor,
        })).collect::<Vec<_>>(),
    })
}
