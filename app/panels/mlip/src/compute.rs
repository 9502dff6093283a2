//! The panel's computations (run in kit tasks): the four-variant comparison with its
//! force-field slices, and the error-against-labels sweep. Results are plain data so they
//! save with the project.

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_mlip::experiment::{Slice, compare, slice};
use benchtop_mlip::loss::displacements;
use benchtop_mlip::{MlipParams, SystemKind, VARIANTS};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::{Deserialize, Serialize};

/// One trained variant, as shown and saved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantSummary {
    /// `supervised`, `+PITC`, `+PISC` or `+PITC+PISC`.
    pub name: String,
    /// Held-out energy MAE.
    pub energy_mae: f64,
    /// Held-out force MAE (per component).
    pub force_mae: f64,
    /// Largest |ΔE_tot| per atom in NVE MD before failure.
    pub md_energy_drift: f64,
    /// NVE steps before failure.
    pub md_steps_stable: usize,
    /// Total energy along the MD run (at most 400 points, evenly thinned).
    pub md_trace: Vec<f64>,
    /// MD step of each trace point.
    pub md_steps: Vec<f64>,
    /// Total training loss per epoch (at most 200 points).
    pub loss: Vec<f64>,
}

/// A learned force field on the 2-D slice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LearnedField {
    /// Variant name.
    pub name: String,
    /// Force x components (row-major, y outer).
    pub u: Vec<f64>,
    /// Force y components.
    pub v: Vec<f64>,
    /// Curl ∂F_y/∂x − ∂F_x/∂y.
    pub curl: Vec<f64>,
    /// Mean |curl| over the slice.
    pub mean_abs_curl: f64,
}

/// The slice shown in the "Triangle and field" tab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldView {
    /// Grid x values.
    pub xs: Vec<f64>,
    /// Grid y values.
    pub ys: Vec<f64>,
    /// Reference energy on the grid.
    pub true_energy: Vec<f64>,
    /// The supervised and +PITC+PISC fields.
    pub learned: Vec<LearnedField>,
    /// A (the first training configuration), B = A + δ₂, C = A + δ₁ (moved atom's x, y).
    pub triangle: [[f64; 2]; 3],
}

/// The comparison's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompareResult {
    /// The four variants in order.
    pub variants: Vec<VariantSummary>,
    /// The force-field slice and the triangle.
    pub field: FieldView,
}

/// One point of the error-against-labels sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// Labelled configurations.
    pub labels: usize,
    /// Supervised force MAE.
    pub supervised_force: f64,
    /// +PITC+PISC force MAE.
    pub piwsl_force: f64,
    /// Supervised energy MAE.
    pub supervised_energy: f64,
    /// +PITC+PISC energy MAE.
    pub piwsl_energy: f64,
}

fn thin(values: &[f64], most: usize) -> (Vec<f64>, Vec<f64>) {
    let stride = values.len().div_ceil(most).max(1);
    values
        .iter()
        .enumerate()
        .filter(|(i, _)| i % stride == 0 || *i + 1 == values.len())
        .map(|(i, v)| (i as f64, *v))
        .unzip()
}

/// Trains the four variants and samples the slice (supervised and +PITC+PISC fields).
pub fn run_compare(
    params: &MlipParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<CompareResult, ComputeError> {
    let c = compare(params, &VARIANTS, seed, &progress.slice(0.0, 0.95), cancel)?;
    progress.set(0.96, "force-field slices");
    let variants = c
        .variants
        .iter()
        .map(|v| {
            let (md_steps, md_trace) = thin(&v.md.total_energy, 400);
            let totals: Vec<f64> = v.history.iter().map(|p| p.total()).collect();
            VariantSummary {
                name: v.name.clone(),
                energy_mae: v.errors.energy_mae,
                force_mae: v.errors.force_mae,
                md_energy_drift: v.md.energy_drift,
                md_steps_stable: v.md.steps_stable,
                md_trace,
                md_steps,
                loss: thin(&totals, 200).1,
            }
        })
        .collect();
    let base = &c.train[0].r;
    let n = 15;
    let half = 0.35;
    let reference = slice(c.system, &|r| c.system.energy_forces(r), base, 0, half, n);
    let learned = [0, 3]
        .iter()
        .map(|&k| {
            let v = &c.variants[k];
            let s: Slice = slice(c.system, &|r| v.model.energy_forces(r), base, 0, half, n);
            let mean_abs_curl = s.curl.iter().map(|c| c.abs()).sum::<f64>() / s.curl.len() as f64;
            LearnedField {
                name: v.name.clone(),
                u: s.force.iter().map(|f| f[0]).collect(),
                v: s.force.iter().map(|f| f[1]).collect(),
                curl: s.curl,
                mean_abs_curl,
            }
        })
        .collect();
    // The triangle drawn is one draw of the training displacements, enlarged ×4 on clusters'
    // atom slice so it is visible; its shape is what matters.
    let mut rng = StdRng::seed_from_u64(seed);
    let (d1, d2) = displacements(base.len(), params.delta, &mut rng);
    let a = [base[0], base[1]];
    let grow = if params.system == SystemKind::MullerBrown {
        1.0
    } else {
        4.0
    };
    let triangle = [
        a,
        [a[0] + grow * d2[0], a[1] + grow * d2[1]],
        [a[0] + grow * d1[0], a[1] + grow * d1[1]],
    ];
    progress.set(1.0, "done");
    Ok(CompareResult {
        variants,
        field: FieldView {
            xs: reference.xs,
            ys: reference.ys,
            true_energy: reference.energy,
            learned,
            triangle,
        },
    })
}

/// Label counts of the sweep: powers of two from 2 up to `max_labels`.
pub fn sweep_counts(max_labels: usize) -> Vec<usize> {
    let mut counts = vec![];
    let mut n = 2;
    while n <= max_labels.max(2) {
        counts.push(n);
        n *= 2;
    }
    counts
}

/// Supervised against +PITC+PISC at each label count.
pub fn run_sweep(
    params: &MlipParams,
    max_labels: usize,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<Vec<SweepPoint>, ComputeError> {
    let counts = sweep_counts(max_labels);
    let share = 1.0 / counts.len() as f64;
    let mut out = Vec::with_capacity(counts.len());
    for (k, &labels) in counts.iter().enumerate() {
        let p = MlipParams {
            labels,
            md_steps: 0,
            ..params.clone()
        };
        let sub = progress.slice(k as f64 * share, (k + 1) as f64 * share);
        sub.set_message(format!("{labels} labels"));
        let c = compare(&p, &["supervised", "+PITC+PISC"], seed, &sub, cancel)?;
        out.push(SweepPoint {
            labels,
            supervised_force: c.variants[0].errors.force_mae,
            piwsl_force: c.variants[1].errors.force_mae,
            supervised_energy: c.variants[0].errors.energy_mae,
            piwsl_energy: c.variants[1].errors.energy_mae,
        });
    }
    Ok(out)
}
