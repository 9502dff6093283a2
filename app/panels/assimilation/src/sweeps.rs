//! The panel's sweep outputs and their values for one run.

use std::collections::BTreeMap;

use benchtop_assimilation::AssimResult;
use benchtop_assimilation::claims;
use benchtop_kit::sweep::SweepOutput;

/// (key, label, method) of the RMSE outputs.
const RMSE_OUTPUTS: [(&str, &str, &str); 6] = [
    ("tensor_var_rmse", "Tensor-Var mean nRMSE", "Tensor-Var"),
    ("fourdvar_rmse", "4D-Var mean nRMSE", "4D-Var"),
    ("threedvar_rmse", "3D-Var mean nRMSE", "3D-Var"),
    ("enkf_rmse", "EnKF mean nRMSE", "EnKF"),
    ("climatology_rmse", "Climatology mean nRMSE", "Climatology"),
    ("no_dynamics_rmse", "No-dynamics mean nRMSE", "No dynamics"),
];

/// The outputs a sweep can record.
pub fn outputs() -> Vec<SweepOutput> {
    let mut out: Vec<SweepOutput> = RMSE_OUTPUTS
        .iter()
        .map(|(key, label, _)| SweepOutput::new(key, label))
        .collect();
    out.push(SweepOutput::new("speedup", "Speed-up over 4D-Var"));
    out.push(SweepOutput::new(
        "speedup_total",
        "Speed-up over 4D-Var with training",
    ));
    out
}

/// Every output's value for `result` run over `windows` windows.
pub fn values(result: &AssimResult, windows: usize) -> BTreeMap<String, f64> {
    let mut values: BTreeMap<String, f64> = RMSE_OUTPUTS
        .iter()
        .map(|(key, _, name)| {
            (
                (*key).to_owned(),
                result.method(name).map_or(f64::NAN, |m| m.rmse_mean),
            )
        })
        .collect();
    let speed = claims::speed(result, windows);
    values.insert(
        "speedup".to_owned(),
        speed.map_or(f64::NAN, |s| s.per_window),
    );
    values.insert(
        "speedup_total".to_owned(),
        speed.map_or(f64::NAN, |s| s.total),
    );
    values
}
