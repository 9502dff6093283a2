//! The PIWSL comparison: the same data and initial weights trained as `supervised`,
//! `+PITC`, `+PISC` and `+PITC+PISC`, beside the baselines a referee asks for (a conservative
//! model, forces = −∂E/∂R, trained on the same labels; a direct head given the configurations'
//! force labels), then held-out errors and NVE MD for each, and the trivial references (zero
//! force, the constant training-mean energy).

use crate::loss::{Field, LossParts, LossSpec};
use crate::md::{MdRun, nve};
use crate::model::{ForceMode, Model, Rbf};
use crate::potential::{System, SystemKind};
use crate::sample::{Config, langevin, time_step};
use crate::train::{Errors, Schedule, TrainData, evaluate, train, trivial};
use benchtop_compute::{CancelToken, ComputeError, Progress};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::{Deserialize, Serialize};

/// Everything one comparison needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MlipParams {
    /// Reference system.
    pub system: SystemKind,
    /// Atoms in the cluster (ignored for Müller–Brown).
    pub atoms: usize,
    /// Sampling temperature as a fraction of the system's energy scale.
    pub temperature: f64,
    /// Labelled training configurations.
    pub labels: usize,
    /// Extra unlabelled configurations used only by PITC/PISC.
    pub unlabelled: usize,
    /// Held-out test configurations.
    pub test_configs: usize,
    /// Langevin steps between saved configurations.
    pub stride: usize,
    /// Whether labels include forces (else energies only).
    pub force_labels: bool,
    /// Forces from −∂E/∂R or a direct head.
    pub force_mode: ForceMode,
    /// Hidden width (two hidden layers).
    pub hidden: usize,
    /// Radial features per pair.
    pub rbf: usize,
    /// Displacement scale δ.
    pub delta: f64,
    /// PITC weight.
    pub coef_rob: f64,
    /// PISC weight.
    pub coef_cyc: f64,
    /// Force-loss weight λ_F.
    pub lambda_f: f64,
    /// Full-batch Adam steps.
    pub epochs: usize,
    /// Adam learning rate.
    pub learning_rate: f64,
    /// NVE steps per model.
    pub md_steps: usize,
}

impl Default for MlipParams {
    fn default() -> Self {
        Self {
            system: SystemKind::LennardJones,
            atoms: 5,
            temperature: 0.15,
            labels: 8,
            unlabelled: 0,
            test_configs: 40,
            stride: 40,
            force_labels: false,
            force_mode: ForceMode::DirectHead,
            hidden: 16,
            rbf: 8,
            delta: 0.05,
            coef_rob: 1.2,
            coef_cyc: 0.01,
            lambda_f: 100.0,
            epochs: 400,
            learning_rate: 0.005,
            md_steps: 1000,
        }
    }
}

/// The four training variants, in order.
pub const VARIANTS: [&str; 4] = ["supervised", "+PITC", "+PISC", "+PITC+PISC"];

/// Baseline: a conservative model (forces = −∂E/∂R, whatever the setting's force mode) trained
/// with the supervised loss on the same labels. With energy-only labels its forces are taught
/// by the energies, which a direct force head's are not.
pub const CONSERVATIVE: &str = "conservative";

/// Reference: the setting's model trained with the supervised loss on the same configurations
/// *with* their force labels (λ_F), what force labels would buy. Only run when the setting's
/// labels are energies only (otherwise `supervised` is exactly this).
pub const FORCE_LABELLED: &str = "force-labelled head";

/// One trained variant.
#[derive(Clone, Debug)]
pub struct VariantResult {
    /// Its name (one of [`VARIANTS`]).
    pub name: String,
    /// Held-out errors.
    pub errors: Errors,
    /// The NVE run.
    pub md: MdRun,
    /// Loss per epoch.
    pub history: Vec<LossParts>,
    /// The trained model.
    pub model: Model,
}

/// A full comparison.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The system.
    pub system: System,
    /// Training configurations (labelled).
    pub train: Vec<Config>,
    /// Held-out configurations.
    pub test: Vec<Config>,
    /// One entry per trained name, in the order asked for.
    pub variants: Vec<VariantResult>,
    /// The trivial references on the held-out set: `force_mae` of predicting zero force,
    /// `energy_mae` of predicting the training labels' mean energy.
    pub reference: Errors,
}

impl MlipParams {
    /// Checks the parameters; the error names the offending key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        let bad = |name: &str, reason: &str| {
            Err(ComputeError::InvalidParameter {
                name: name.to_owned(),
                reason: reason.to_owned(),
            })
        };
        if self.system != SystemKind::MullerBrown && !(2..=13).contains(&self.atoms) {
            return bad("atoms", "clusters need 2 to 13 atoms");
        }
        if self.labels == 0 || self.test_configs == 0 {
            return bad(
                "labels",
                "need at least one labelled and one test configuration",
            );
        }
        if !(self.delta > 0.0 && self.delta < 1.0) {
            return bad("delta", "δ must lie in (0, 1)");
        }
        if self.temperature.is_nan() || self.temperature <= 0.0 {
            return bad("temperature", "must be positive");
        }
        for (key, value) in [
            ("coef_rob", self.coef_rob),
            ("coef_cyc", self.coef_cyc),
            ("lambda_f", self.lambda_f),
        ] {
            if !(value >= 0.0 && value.is_finite()) {
                return bad(key, "loss weights must be finite and non-negative");
            }
        }
        if self.hidden == 0 {
            return bad("hidden", "at least 1");
        }
        if self.rbf < 2 {
            return bad("rbf", "at least 2 radial basis functions");
        }
        if self.stride == 0 {
            return bad("stride", "at least 1");
        }
        Ok(())
    }

    /// The system these parameters describe.
    pub fn system(&self) -> System {
        System::new(self.system, self.atoms)
    }

    /// The baselines run beside [`VARIANTS`] in this setting: [`CONSERVATIVE`], and
    /// [`FORCE_LABELLED`] when the labels are energies only.
    pub fn baselines(&self) -> Vec<&'static str> {
        if self.force_labels {
            vec![CONSERVATIVE]
        } else {
            vec![CONSERVATIVE, FORCE_LABELLED]
        }
    }

    /// How `variant` (one of [`VARIANTS`], [`CONSERVATIVE`] or [`FORCE_LABELLED`]) produces
    /// forces.
    pub fn mode(&self, variant: &str) -> ForceMode {
        if variant == CONSERVATIVE {
            ForceMode::Gradient
        } else {
            self.force_mode
        }
    }

    /// The loss of one variant.
    pub fn spec(&self, variant: &str) -> LossSpec {
        LossSpec {
            lambda_f: if self.force_labels || variant == FORCE_LABELLED {
                self.lambda_f
            } else {
                0.0
            },
            coef_rob: if variant.contains("PITC") {
                self.coef_rob
            } else {
                0.0
            },
            coef_cyc: if variant.contains("PISC") {
                self.coef_cyc
            } else {
                0.0
            },
            delta: self.delta,
        }
    }
}

/// Samples the data: labelled, unlabelled and test sets from independent Langevin chains.
pub fn data(params: &MlipParams, seed: u64) -> (Vec<Config>, Vec<Config>, Vec<Config>) {
    let system = params.system();
    let mut rng = StdRng::seed_from_u64(seed);
    let train = langevin(
        system,
        params.labels,
        params.temperature,
        params.stride,
        &mut rng,
    );
    let unl = langevin(
        system,
        params.unlabelled,
        params.temperature,
        params.stride,
        &mut rng,
    );
    let test = langevin(
        system,
        params.test_configs,
        params.temperature,
        params.stride,
        &mut rng,
    );
    (train, unl, test)
}

/// Trains `variants` (names from [`VARIANTS`], [`CONSERVATIVE`], [`FORCE_LABELLED`]) on the
/// same data and initial weights (a conservative model starts from the same energy network as
/// the direct head's).
pub fn compare(
    params: &MlipParams,
    variants: &[&str],
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<Comparison, ComputeError> {
    params.validate()?;
    let system = params.system();
    progress.set(0.0, "sampling configurations");
    let (train_set, unl, test) = data(params, seed);
    let offset = train_set.iter().map(|c| c.energy).sum::<f64>() / train_set.len() as f64;
    let rbf = Rbf {
        k: params.rbf,
        r_min: 0.8,
        r_max: 2.5,
    };
    // The energy network's weights are drawn first, so every force mode starts from the same
    // energy network.
    let init = |mode: ForceMode| {
        Model::new(
            system,
            mode,
            params.hidden,
            rbf,
            system.energy_scale(),
            offset,
            &mut StdRng::seed_from_u64(seed ^ 0x5eed),
        )
    };
    let mut out = Vec::with_capacity(variants.len());
    let share = 1.0 / variants.len().max(1) as f64;
    for (k, name) in variants.iter().enumerate() {
        let sub = progress.slice(k as f64 * share, (k as f64 + 0.9) * share);
        sub.set_message(format!("training {name}"));
        let mut model = init(params.mode(name));
        let mut rng = StdRng::seed_from_u64(seed.wrapping_add(17));
        let history = train(
            &mut model,
            TrainData {
                labelled: &train_set,
                unlabelled: &unl,
            },
            params.spec(name),
            Schedule {
                epochs: params.epochs,
                learning_rate: params.learning_rate,
            },
            &mut rng,
            &sub,
            cancel,
        )?;
        cancel.check()?;
        let errors = evaluate(&model, &test);
        let mut md_rng = StdRng::seed_from_u64(seed.wrapping_add(99));
        let md = nve(
            &model,
            &test[0].r,
            params.temperature,
            params.md_steps,
            time_step(system),
            &mut md_rng,
        );
        out.push(VariantResult {
            name: (*name).to_owned(),
            errors,
            md,
            history,
            model,
        });
    }
    progress.set(1.0, "done");
    let reference = trivial(&test, offset);
    Ok(Comparison {
        system,
        train: train_set,
        test,
        variants: out,
        reference,
    })
}

/// A 2-D slice of a force field: atom `atom` moved over a square in the x–y plane around
/// its position in `base`, everything else fixed.
#[derive(Clone, Debug, PartialEq)]
pub struct Slice {
    /// Grid x values.
    pub xs: Vec<f64>,
    /// Grid y values.
    pub ys: Vec<f64>,
    /// Energy at each node, row-major (y outer).
    pub energy: Vec<f64>,
    /// Force (x, y) on the moved atom at each node.
    pub force: Vec<[f64; 2]>,
    /// Curl ∂F_y/∂x − ∂F_x/∂y (central differences, h = `half_width`·1e-3).
    pub curl: Vec<f64>,
}

/// Samples `ff` on an `n × n` slice (see [`Slice`]); for Müller–Brown, `base` is ignored
/// and the slice is the standard window [−1.5, 1.2] × [−0.5, 2.0].
pub fn slice(
    system: System,
    ff: &Field<'_>,
    base: &[f64],
    atom: usize,
    half_width: f64,
    n: usize,
) -> Slice {
    let dim = system.dim();
    let (x0, x1, y0, y1) = if system.kind == SystemKind::MullerBrown {
        (-1.5, 1.2, -0.5, 2.0)
    } else {
        let (cx, cy) = (base[dim * atom], base[dim * atom + 1]);
        (
            cx - half_width,
            cx + half_width,
            cy - half_width,
            cy + half_width,
        )
    };
    let axis = |a: f64, b: f64| {
        (0..n)
            .map(|i| a + (b - a) * i as f64 / (n - 1) as f64)
            .collect::<Vec<_>>()
    };
    let (xs, ys) = (axis(x0, x1), axis(y0, y1));
    let h = 1e-3 * (x1 - x0);
    let at = |x: f64, y: f64| {
        let mut r = if system.kind == SystemKind::MullerBrown {
            vec![0.0; 2]
        } else {
            base.to_vec()
        };
        r[dim * atom] = x;
        r[dim * atom + 1] = y;
        let (e, f) = ff(&r);
        (e, [f[dim * atom], f[dim * atom + 1]])
    };
    let mut energy = Vec::with_capacity(n * n);
    let mut force = Vec::with_capacity(n * n);
    let mut curl = Vec::with_capacity(n * n);
    for &y in &ys {
        for &x in &xs {
            let (e, f) = at(x, y);
            energy.push(e);
            force.push(f);
            let dfy_dx = (at(x + h, y).1[1] - at(x - h, y).1[1]) / (2.0 * h);
            let dfx_dy = (at(x, y + h).1[0] - at(x, y - h).1[0]) / (2.0 * h);
            curl.push(dfy_dx - dfx_dy);
        }
    }
    Slice {
        xs,
        ys,
        energy,
        force,
        curl,
    }
}
