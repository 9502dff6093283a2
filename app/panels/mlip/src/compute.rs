//! The panel's computations (run in kit tasks): the four-variant comparison with its baselines,
//! trivial references and force-field slices, and the error-against-labels sweep over seeds.
//! Results are plain data so they save with the project.

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_mlip::experiment::{Slice, compare, slice};
use benchtop_mlip::loss::displacements;
use benchtop_mlip::{CONSERVATIVE, MlipParams, SystemKind, VARIANTS};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::{Deserialize, Serialize};

/// A number missing from a result saved before it was computed.
fn not_computed() -> f64 {
    f64::NAN
}

/// One trained variant, as shown and saved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantSummary {
    /// `supervised`, `+PITC`, `+PISC` or `+PITC+PISC`; for a baseline `conservative` or
    /// `force-labelled head`.
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
    /// The epoch (from 1) of each loss point; empty in projects saved before it was kept.
    #[serde(default)]
    pub loss_epochs: Vec<f64>,
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
    /// The baselines trained beside them (`conservative`, and `force-labelled head` when the
    /// labels are energies only); empty in results saved before they existed.
    #[serde(default)]
    pub baselines: Vec<VariantSummary>,
    /// Held-out force MAE of predicting zero force (NaN in results saved before it existed).
    #[serde(default = "not_computed")]
    pub zero_force_mae: f64,
    /// Held-out energy MAE of predicting the training labels' mean energy (NaN likewise).
    #[serde(default = "not_computed")]
    pub constant_energy_mae: f64,
}

impl CompareResult {
    /// A variant or baseline by name.
    pub fn get(&self, name: &str) -> Option<&VariantSummary> {
        self.variants
            .iter()
            .chain(&self.baselines)
            .find(|v| v.name == name)
    }

    /// The strongest baseline trained on the same labels (the lower force MAE of `supervised`
    /// and `conservative`; the force-labelled head sees more labels and is not one).
    pub fn fair_baseline(&self) -> Option<&VariantSummary> {
        [self.get("supervised"), self.get(CONSERVATIVE)]
            .into_iter()
            .flatten()
            .min_by(|a, b| a.force_mae.total_cmp(&b.force_mae))
    }
}

/// One point of the error-against-labels sweep: means over the seeds, and each seed's errors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// Labelled configurations.
    pub labels: usize,
    /// Supervised force MAE (mean over seeds).
    pub supervised_force: f64,
    /// +PITC+PISC force MAE (mean over seeds).
    pub piwsl_force: f64,
    /// Supervised energy MAE (mean over seeds).
    pub supervised_energy: f64,
    /// +PITC+PISC energy MAE (mean over seeds).
    pub piwsl_energy: f64,
    /// Conservative baseline's force MAE (mean over seeds; NaN in results saved before it).
    #[serde(default = "not_computed")]
    pub conservative_force: f64,
    /// Conservative baseline's energy MAE (mean over seeds; NaN likewise).
    #[serde(default = "not_computed")]
    pub conservative_energy: f64,
    /// Force MAE of predicting zero force (mean over seeds; NaN likewise).
    #[serde(default = "not_computed")]
    pub zero_force: f64,
    /// Each seed's errors (empty in results saved before the sweep ran over seeds).
    #[serde(default)]
    pub per_seed: Vec<SeedErrors>,
}

/// One seed's errors at one label count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeedErrors {
    /// The seed.
    pub seed: u64,
    /// Supervised force MAE.
    pub supervised_force: f64,
    /// +PITC+PISC force MAE.
    pub piwsl_force: f64,
    /// Conservative force MAE.
    pub conservative_force: f64,
    /// Supervised energy MAE.
    pub supervised_energy: f64,
    /// +PITC+PISC energy MAE.
    pub piwsl_energy: f64,
    /// Conservative energy MAE.
    pub conservative_energy: f64,
    /// Zero-force MAE.
    pub zero_force: f64,
}

/// Mean and sample standard deviation (0 for one value; NaN for none).
pub fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    if values.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, 0.0);
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

impl SweepPoint {
    /// Mean and standard deviation over seeds of one error (`f` picks it from a seed's).
    pub fn spread(&self, f: fn(&SeedErrors) -> f64) -> (f64, f64) {
        mean_sd(&self.per_seed.iter().map(f).collect::<Vec<_>>())
    }
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

/// Trains the four variants and the baselines, and samples the slice (supervised and
/// +PITC+PISC fields).
pub fn run_compare(
    params: &MlipParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<CompareResult, ComputeError> {
    let mut names: Vec<&str> = VARIANTS.to_vec();
    names.extend(params.baselines());
    let c = compare(params, &names, seed, &progress.slice(0.0, 0.95), cancel)?;
    progress.set(0.96, "force-field slices");
    let mut variants: Vec<VariantSummary> = c
        .variants
        .iter()
        .map(|v| {
            let (md_steps, md_trace) = thin(&v.md.total_energy, 400);
            let totals: Vec<f64> = v.history.iter().map(|p| p.total()).collect();
            let thinned_loss = thin(&totals, 200);
            VariantSummary {
                name: v.name.clone(),
                energy_mae: v.errors.energy_mae,
                force_mae: v.errors.force_mae,
                md_energy_drift: v.md.energy_drift,
                md_steps_stable: v.md.steps_stable,
                md_trace,
                md_steps,
                loss: thinned_loss.1,
                loss_epochs: thinned_loss.0.iter().map(|i| i + 1.0).collect(),
            }
        })
        .collect();
    let baselines = variants.split_off(VARIANTS.len());
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
        baselines,
        zero_force_mae: c.reference.force_mae,
        constant_energy_mae: c.reference.energy_mae,
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

/// Supervised, +PITC+PISC and the conservative baseline at each label count, for seeds
/// `seed`, `seed + 1`, … (`seeds` of them), with the zero-force reference.
pub fn run_sweep(
    params: &MlipParams,
    max_labels: usize,
    seeds: usize,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<Vec<SweepPoint>, ComputeError> {
    let counts = sweep_counts(max_labels);
    let seeds = seeds.max(1);
    let share = 1.0 / (counts.len() * seeds) as f64;
    let mut out = Vec::with_capacity(counts.len());
    for (k, &labels) in counts.iter().enumerate() {
        let p = MlipParams {
            labels,
            md_steps: 0,
            ..params.clone()
        };
        let mut per_seed = Vec::with_capacity(seeds);
        for s in 0..seeds {
            let step = (k * seeds + s) as f64;
            let sub = progress.slice(step * share, (step + 1.0) * share);
            let run_seed = seed.wrapping_add(s as u64);
            sub.set_message(format!("{labels} labels, seed {run_seed}"));
            let c = compare(
                &p,
                &["supervised", "+PITC+PISC", CONSERVATIVE],
                run_seed,
                &sub,
                cancel,
            )?;
            let e = |i: usize| c.variants[i].errors;
            per_seed.push(SeedErrors {
                seed: run_seed,
                supervised_force: e(0).force_mae,
                piwsl_force: e(1).force_mae,
                conservative_force: e(2).force_mae,
                supervised_energy: e(0).energy_mae,
                piwsl_energy: e(1).energy_mae,
                conservative_energy: e(2).energy_mae,
                zero_force: c.reference.force_mae,
            });
        }
        let mean =
            |f: fn(&SeedErrors) -> f64| mean_sd(&per_seed.iter().map(f).collect::<Vec<_>>()).0;
        out.push(SweepPoint {
            labels,
            supervised_force: mean(|s| s.supervised_force),
            piwsl_force: mean(|s| s.piwsl_force),
            supervised_energy: mean(|s| s.supervised_energy),
            piwsl_energy: mean(|s| s.piwsl_energy),
            conservative_force: mean(|s| s.conservative_force),
            conservative_energy: mean(|s| s.conservative_energy),
            zero_force: mean(|s| s.zero_force),
            per_seed,
        });
    }
    Ok(out)
}
