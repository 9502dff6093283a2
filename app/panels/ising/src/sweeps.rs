//! What the Ising panel's sweeps record (the parameters they vary are declared in
//! [`super::params`]): the outputs, one point's evaluation, and the exact curves.

use std::collections::BTreeMap;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_ising::duality;
use benchtop_ising::exact::{
    onsager_nn_correlation, onsager_specific_heat, spontaneous_magnetization,
};
use benchtop_ising::kramers_wannier_dual;
use benchtop_ising::simulation;
use benchtop_kit::sweep::{ERROR_SUFFIX, ReferenceCurve, SweepOutput};

use super::IsingParams;

/// The outputs sweeps may record.
pub fn outputs() -> Vec<SweepOutput> {
    vec![
        SweepOutput::new("mc.bond_energy_per_site", "Bond energy per site"),
        SweepOutput::new("mc.plaquette_per_site", "Plaquette per site"),
        SweepOutput::new("mc.abs_magnetization", "|m|"),
        SweepOutput::new("mc.magnetization_squared", "m²"),
        SweepOutput::new("mc.susceptibility", "Susceptibility χ"),
        SweepOutput::new("mc.specific_heat", "Specific heat C"),
        SweepOutput::new("mc.binder_cumulant", "Binder cumulant U"),
        SweepOutput::new("mc.correlation_length", "Correlation length ξ"),
        SweepOutput::new("duality.dual_beta", "Learned dual β̃"),
        SweepOutput::new("duality.dual_beta_exact", "Exact dual β*"),
        SweepOutput::new("duality.relative_error", "Relative error of β̃"),
        SweepOutput::new("duality.dual_plaquette", "Learned dual K̃"),
        SweepOutput::new("duality.w", "Map slope w"),
        SweepOutput::new("duality.b", "Map offset b"),
        SweepOutput::new("duality.loss", "Final loss"),
    ]
}

/// The digest of the parameters a sweep's results depend on besides its axes and seeds: every
/// Monte Carlo and duality parameter (the seeds are kept apart, in `mc_seed` and
/// `duality_seed`).
pub fn fingerprint(params: &IsingParams) -> String {
    format!("{:?}", (&params.mc, &params.duality))
}

/// Exact curves: Onsager's solution for K = 0 (`plaquette` is the Monte Carlo K) and the
/// Kramers–Wannier dual coupling.
pub fn reference(
    param: &str,
    output: &str,
    low: f64,
    high: f64,
    plaquette: f64,
) -> Option<ReferenceCurve> {
    let curve = |label: &str, f: &dyn Fn(f64) -> f64| {
        Some(ReferenceCurve::sample(param, output, label, low, high, f))
    };
    match (param, output) {
        ("duality.beta", "duality.dual_beta" | "duality.dual_beta_exact") => {
            curve("Kramers–Wannier β*(β)", &kramers_wannier_dual)
        }
        ("mc.beta", "mc.bond_energy_per_site") if plaquette == 0.0 => {
            curve("Onsager, L → ∞", &|b| 2.0 * onsager_nn_correlation(b))
        }
        ("mc.beta", "mc.abs_magnetization") if plaquette == 0.0 => {
            curve("Onsager, L → ∞", &spontaneous_magnetization)
        }
        ("mc.beta", "mc.specific_heat") if plaquette == 0.0 => {
            curve("Onsager, L → ∞", &onsager_specific_heat)
        }
        _ => None,
    }
}

/// Computes the Monte Carlo and duality outputs for one sweep point (`params` carry the
/// point's values).
pub fn evaluate(
    params: &IsingParams,
    outputs: &[String],
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<BTreeMap<String, f64>, ComputeError> {
    let (mc, duality_params) = (&params.mc, &params.duality);
    let wants = |prefix: &str| outputs.iter().any(|o| o.starts_with(prefix));
    let mut values = BTreeMap::new();
    let (want_mc, want_duality) = (wants("mc."), wants("duality."));
    let mc_share = if want_duality { 0.5 } else { 1.0 };
    if want_mc {
        let result = simulation::run(mc, seed, &progress.slice(0.0, mc_share), cancel)?;
        let s = &result.summary;
        for (key, value) in [
            ("mc.bond_energy_per_site", s.bond_energy_per_site.value),
            ("mc.plaquette_per_site", s.plaquette_per_site.value),
            ("mc.abs_magnetization", s.abs_magnetization.value),
            ("mc.magnetization_squared", s.magnetization_squared.value),
            ("mc.susceptibility", s.susceptibility.value),
            ("mc.specific_heat", s.specific_heat.value),
            ("mc.binder_cumulant", s.binder_cumulant.value),
            (
                "mc.correlation_length",
                result.correlation_length.unwrap_or(f64::NAN),
            ),
        ] {
            values.insert(key.to_owned(), value);
        }
    }
    if want_duality {
        let start = if want_mc { mc_share } else { 0.0 };
        let result = duality::run(duality_params, seed, &progress.slice(start, 1.0), cancel)?;
        let exact = kramers_wannier_dual(duality_params.beta);
        values.insert(
            format!("duality.dual_beta{ERROR_SUFFIX}"),
            result.dual_beta_error,
        );
        values.insert(
            format!("duality.relative_error{ERROR_SUFFIX}"),
            result.dual_beta_error / exact,
        );
        values.insert(
            format!("duality.dual_plaquette{ERROR_SUFFIX}"),
            result.dual_plaquette_error,
        );
        for (key, value) in [
            ("duality.dual_beta", result.dual_beta),
            ("duality.dual_beta_exact", exact),
            ("duality.relative_error", (result.dual_beta - exact) / exact),
            ("duality.dual_plaquette", result.dual_plaquette),
            ("duality.w", result.w),
            ("duality.b", result.b),
            ("duality.loss", result.final_loss),
        ] {
            values.insert(key.to_owned(), value);
        }
    }
    Ok(values)
}
