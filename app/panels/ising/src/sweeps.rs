//! What the Ising panel offers to sweeps: parameters, outputs, the evaluator and exact curves.

use std::collections::BTreeMap;
use std::sync::Arc;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_ising::duality::{self, DualityParams};
use benchtop_ising::exact::{
    onsager_nn_correlation, onsager_specific_heat, spontaneous_magnetization,
};
use benchtop_ising::kramers_wannier_dual;
use benchtop_ising::simulation::{self, McParams};

use super::IsingParams;
use benchtop_kit::sweep::{
    ERROR_SUFFIX, ReferenceCurve, SweepEvaluator, SweepOutput, SweepParam, SweepSupport, as_count,
};

/// The sweep support for the current parameters.
pub(super) fn support(params: &IsingParams) -> SweepSupport {
    #[allow(clippy::cast_precision_loss)]
    let params_list = vec![
        SweepParam::new(
            "mc.beta",
            "Monte Carlo: coupling β",
            params.mc.beta,
            0.0,
            100.0,
            false,
        ),
        SweepParam::new(
            "mc.plaquette",
            "Monte Carlo: plaquette K",
            params.mc.plaquette,
            -10.0,
            10.0,
            false,
        ),
        SweepParam::new(
            "mc.size",
            "Monte Carlo: lattice size L",
            params.mc.size as f64,
            4.0,
            32_768.0,
            true,
        ),
        SweepParam::new(
            "mc.measurement_sweeps",
            "Monte Carlo: measurement sweeps",
            params.mc.measurement_sweeps as f64,
            1.0,
            1e8,
            true,
        ),
        SweepParam::new(
            "duality.beta",
            "Duality: original β",
            params.duality.beta,
            0.01,
            10.0,
            false,
        ),
        SweepParam::new(
            "duality.plaquette",
            "Duality: original K",
            params.duality.plaquette,
            -10.0,
            10.0,
            false,
        ),
        SweepParam::new(
            "duality.size",
            "Duality: lattice size L",
            params.duality.size as f64,
            4.0,
            32.0,
            true,
        ),
        SweepParam::new(
            "duality.samples_per_step",
            "Duality: samples per step",
            params.duality.samples_per_step as f64,
            1.0,
            100_000.0,
            true,
        ),
        SweepParam::new(
            "duality.learning_rate",
            "Duality: learning rate",
            params.duality.learning_rate,
            1e-6,
            1.0,
            false,
        ),
    ];
    let outputs = vec![
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
    ];
    let mut base = params.clone();
    base.mc_seed = 0;
    base.duality_seed = 0;
    let fingerprint = format!("{:?}", (&base.mc, &base.duality));
    let evaluator = IsingEvaluator {
        mc: params.mc.clone(),
        duality: params.duality.clone(),
    };
    let plaquette_mc = params.mc.plaquette;
    SweepSupport {
        params: params_list,
        outputs,
        evaluator: Arc::new(evaluator),
        fingerprint,
        references: Arc::new(move |param, output, low, high| {
            reference(param, output, low, high, plaquette_mc)
        }),
    }
}

/// Exact curves: Onsager's solution for K = 0 and the Kramers–Wannier dual coupling.
fn reference(
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

/// Computes Monte Carlo and duality outputs for one sweep point.
struct IsingEvaluator {
    mc: McParams,
    duality: DualityParams,
}

impl IsingEvaluator {
    fn assign(
        &self,
        assignment: &BTreeMap<String, f64>,
    ) -> Result<(McParams, DualityParams), ComputeError> {
        let (mut mc, mut duality) = (self.mc.clone(), self.duality.clone());
        for (key, &value) in assignment {
            match key.as_str() {
                "mc.beta" => mc.beta = value,
                "mc.plaquette" => mc.plaquette = value,
                "mc.size" => mc.size = as_count(value),
                "mc.measurement_sweeps" => mc.measurement_sweeps = as_count(value) as u64,
                "duality.beta" => duality.beta = value,
                "duality.plaquette" => duality.plaquette = value,
                "duality.size" => duality.size = as_count(value),
                "duality.samples_per_step" => duality.samples_per_step = as_count(value),
                "duality.learning_rate" => duality.learning_rate = value,
                other => {
                    return Err(ComputeError::invalid(
                        other,
                        "not a parameter of the Ising panel",
                    ));
                }
            }
        }
        // Sweeping the coupling in the original model starts the dual search from its own value.
        Ok((mc, duality))
    }
}

impl SweepEvaluator for IsingEvaluator {
    fn evaluate(
        &self,
        assignment: &BTreeMap<String, f64>,
        outputs: &[String],
        seed: u64,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        let (mc, duality_params) = self.assign(assignment)?;
        let wants = |prefix: &str| outputs.iter().any(|o| o.starts_with(prefix));
        let mut values = BTreeMap::new();
        let (want_mc, want_duality) = (wants("mc."), wants("duality."));
        let mc_share = if want_duality { 0.5 } else { 1.0 };
        if want_mc {
            let result = simulation::run(&mc, seed, &progress.slice(0.0, mc_share), cancel)?;
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
            let result = duality::run(&duality_params, seed, &progress.slice(start, 1.0), cancel)?;
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
}
