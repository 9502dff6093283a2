//! The comparison the panel shows: every learner trained under one budget of n chains × M
//! snapshots on shadow-estimated labels, scored against the exact values of held-out chains;
//! the trivial reference (the training labels' mean, the majority phase); the randomisation
//! test (the measurement inputs shuffled across chains, every learner retrained); and the
//! error against n at fixed n·M.
//!
//! Properties (C_ij for every pair and the Rényi-2 entropy of every block) are learned on
//! chains of the property model; phases on TFIM chains, by regressing the shadow estimate of
//! m² and calling a chain ordered when the prediction exceeds m²_c, the exact m² of the
//! uniform chain at its critical point J = h = 1 at the same size and boundary.

use std::time::Instant;

use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError, Progress};
use nalgebra::DMatrix;
use rand::seq::SliceRandom as _;
use serde::{Deserialize, Serialize};

use crate::dataset::{Pool, ShadowData, SystemParams, make_pool, shadow_data};
use crate::hamiltonian::{Chain, Model};
use crate::lanczos::{LanczosSettings, ground_state};
use crate::learners::{Inputs, Layout, Learner, LearnerSettings, Problem, fit_predict};
use crate::observables::{self, from_upper_triangle, pairs};
use crate::shadows::check_snapshots;

/// The measurement budget.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BudgetParams {
    /// n·M, the snapshots of all training chains together.
    pub total: usize,
    /// n, the training chains (M = total / n snapshots each).
    pub train_samples: usize,
    /// Held-out chains the learners are scored on (each measured with M snapshots too).
    pub test_samples: usize,
}

impl Default for BudgetParams {
    fn default() -> Self {
        Self {
            total: 20_000,
            train_samples: 100,
            test_samples: 100,
        }
    }
}

impl BudgetParams {
    /// M = ⌊total / n⌋.
    pub fn snapshots(&self) -> usize {
        self.total / self.train_samples.max(1)
    }

    /// Checks every field, errors naming `prefix.key`.
    pub fn validate(&self, prefix: &str) -> Result<(), ComputeError> {
        let key = |k: &str| format!("{prefix}.{k}");
        benchtop_learn::settings::whole_in(&key("train_samples"), self.train_samples, 4..=4000)?;
        benchtop_learn::settings::whole_in(&key("test_samples"), self.test_samples, 2..=4000)?;
        if self.snapshots() == 0 {
            return Err(ComputeError::invalid(
                key("total"),
                format!(
                    "n·M = {} for n = {} chains leaves M = 0 snapshots per chain",
                    self.total, self.train_samples
                ),
            ));
        }
        check_snapshots(&key("total"), self.snapshots())
    }
}

/// The n values of the error-against-n curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CurveParams {
    /// The smallest n.
    pub n_min: usize,
    /// The largest n.
    pub n_max: usize,
    /// Points, spaced evenly in log n.
    pub points: usize,
}

impl Default for CurveParams {
    fn default() -> Self {
        Self {
            n_min: 10,
            n_max: 200,
            points: 5,
        }
    }
}

impl CurveParams {
    /// The distinct n values, each at least 4 and leaving M ≥ 1 of `total`.
    pub fn values(&self, total: usize) -> Vec<usize> {
        let (lo, hi) = (self.n_min.max(4) as f64, self.n_max.max(4) as f64);
        let mut ns: Vec<usize> = (0..self.points)
            .map(|k| {
                let t = if self.points > 1 {
                    k as f64 / (self.points - 1) as f64
                } else {
                    0.0
                };
                (lo * (hi / lo).powf(t)).round() as usize
            })
            .filter(|&n| n <= total)
            .collect();
        ns.dedup();
        ns
    }

    /// Checks every field, errors naming `prefix.key`.
    pub fn validate(&self, prefix: &str, total: usize) -> Result<(), ComputeError> {
        let key = |k: &str| format!("{prefix}.{k}");
        benchtop_learn::settings::whole_in(&key("n_min"), self.n_min, 4..=4000)?;
        benchtop_learn::settings::whole_in(&key("n_max"), self.n_max, self.n_min..=4000)?;
        benchtop_learn::settings::whole_in(&key("points"), self.points, 1..=12)?;
        if self.values(total).is_empty() {
            return Err(ComputeError::invalid(
                key("n_min"),
                format!("every n leaves M = 0 of n·M = {total}"),
            ));
        }
        Ok(())
    }
}

/// Everything the comparison depends on besides the seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ExperimentParams {
    /// The chains.
    pub system: SystemParams,
    /// n, M and the held-out chains.
    pub budget: BudgetParams,
    /// What the classical learners see.
    pub ml_inputs: Inputs,
    /// What the networks see.
    pub dl_inputs: Inputs,
    /// Cross-validation and network settings.
    pub learners: LearnerSettings,
    /// Independent repeats (pools, snapshots and initialisations).
    pub repeats: usize,
    /// Run the randomisation test.
    pub randomisation: bool,
    /// The error-against-n curve.
    pub curve: CurveParams,
    /// Lanczos.
    pub lanczos: LanczosSettings,
}

impl Default for ExperimentParams {
    fn default() -> Self {
        Self {
            system: SystemParams::default(),
            budget: BudgetParams::default(),
            ml_inputs: Inputs::ParametersAndShadows,
            dl_inputs: Inputs::ParametersAndShadows,
            learners: LearnerSettings::default(),
            repeats: 3,
            randomisation: true,
            curve: CurveParams::default(),
            lanczos: LanczosSettings::default(),
        }
    }
}

impl ExperimentParams {
    /// Checks every field, errors naming the key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        self.system.validate("system")?;
        self.budget.validate("budget")?;
        self.learners.validate("learners")?;
        self.curve.validate("curve", self.budget.total)?;
        benchtop_learn::settings::whole_in("repeats", self.repeats, 1..=20)
    }

    /// What `learner` sees.
    pub fn inputs_of(&self, learner: Learner) -> Inputs {
        if learner.is_deep() {
            self.dl_inputs
        } else {
            self.ml_inputs
        }
    }
}

/// One learner's scores on one repeat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// RMSE of C_ij over held-out chains and pairs.
    pub rmse_correlation: f64,
    /// RMSE of the block entropies (bits) over held-out chains and blocks.
    pub rmse_entropy: f64,
    /// Share of held-out TFIM chains whose phase is right.
    pub phase_accuracy: f64,
    /// Seconds to train both problems and predict.
    pub seconds: f64,
}

/// Mean and sample standard deviation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (0 for one value).
    pub sd: f64,
}

impl Stat {
    /// Of `values`.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Self {
        let v: Vec<f64> = values.into_iter().collect();
        let n = v.len() as f64;
        if v.is_empty() {
            return Self {
                mean: f64::NAN,
                sd: f64::NAN,
            };
        }
        let mean = v.iter().sum::<f64>() / n;
        let sd = if v.len() > 1 {
            (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        Self { mean, sd }
    }
}

/// The four numbers of a learner, summarised over repeats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScoreStats {
    /// RMSE of C_ij.
    pub rmse_correlation: Stat,
    /// RMSE of the entropies.
    pub rmse_entropy: Stat,
    /// Phase accuracy.
    pub phase_accuracy: Stat,
    /// Seconds.
    pub seconds: Stat,
}

impl ScoreStats {
    /// Over `scores`.
    pub fn of(scores: &[Scores]) -> Self {
        Self {
            rmse_correlation: Stat::of(scores.iter().map(|s| s.rmse_correlation)),
            rmse_entropy: Stat::of(scores.iter().map(|s| s.rmse_entropy)),
            phase_accuracy: Stat::of(scores.iter().map(|s| s.phase_accuracy)),
            seconds: Stat::of(scores.iter().map(|s| s.seconds)),
        }
    }
}

/// A learner's scores, one per repeat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MethodScores {
    /// The learner.
    pub learner: Learner,
    /// One per repeat.
    pub scores: Vec<Scores>,
}

/// The randomisation test of one learner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Randomised {
    /// The learner.
    pub learner: Learner,
    /// With each chain's own measurements (one per repeat).
    pub before: Vec<Scores>,
    /// With the measurement inputs shuffled across chains, retrained (one per repeat).
    pub after: Vec<Scores>,
}

/// One held-out chain's correlation matrix: exact, from its own M snapshots, and predicted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldOut {
    /// Its couplings (and fields).
    pub parameters: Vec<f64>,
    /// Exact C_ij.
    pub exact: DMatrix<f64>,
    /// The shadow estimate from its M snapshots.
    pub shadow: DMatrix<f64>,
    /// Each learner's prediction.
    pub predicted: Vec<(Learner, DMatrix<f64>)>,
}

/// One held-out TFIM chain of the phase diagram.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhasePoint {
    /// Mean coupling J̄.
    pub coupling: f64,
    /// Mean field h̄.
    pub field: f64,
    /// Exact m².
    pub exact_order: f64,
    /// Each learner's predicted m² (in the order of the comparison's methods).
    pub predicted_order: Vec<f64>,
}

/// The comparison at one budget.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// n.
    pub train_samples: usize,
    /// M.
    pub snapshots: usize,
    /// Every learner's scores.
    pub methods: Vec<MethodScores>,
    /// The trivial reference's scores (training mean; majority phase).
    pub trivial: Vec<Scores>,
    /// The randomisation test, for the learners whose inputs include measurements.
    pub randomisation: Vec<Randomised>,
    /// The first held-out chain of the first repeat.
    pub held_out: HeldOut,
    /// The held-out TFIM chains of the first repeat.
    pub phases: Vec<PhasePoint>,
    /// m²_c.
    pub critical_order: f64,
}

/// The scores at one n of the curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// n.
    pub train_samples: usize,
    /// M.
    pub snapshots: usize,
    /// Every learner's scores.
    pub methods: Vec<MethodScores>,
    /// The trivial reference's scores.
    pub trivial: Vec<Scores>,
}

/// The error against n at fixed n·M.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// n·M.
    pub total: usize,
    /// One per n.
    pub points: Vec<CurvePoint>,
}

/// m²_c: the exact m² of the uniform TFIM chain at J = h = 1 with `system`'s size and boundary.
pub fn critical_order(
    system: &SystemParams,
    lanczos: &LanczosSettings,
    cancel: &CancelToken,
) -> Result<f64, ComputeError> {
    let bonds = crate::hamiltonian::bonds(system.sites, system.boundary).len();
    let chain = Chain::tfim(system.boundary, vec![1.0; bonds], vec![1.0; system.sites])?;
    let gs = ground_state(&chain, 1, lanczos, cancel)?;
    Ok(observables::order_parameter(&gs.vector, system.sites))
}

/// The two pools of one repeat: test chains first, then up to `train` training chains.
struct Pools {
    property: Pool,
    phase: Pool,
}

fn make_pools(
    params: &ExperimentParams,
    train: usize,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<Pools, ComputeError> {
    let count = params.budget.test_samples + train;
    let property = make_pool(
        &params.system,
        params.system.property_model,
        count,
        derive_seed(seed, 1),
        &params.lanczos,
        &progress.slice(0.0, 0.5),
        cancel,
    )?;
    let phase = make_pool(
        &params.system,
        Model::Tfim,
        count,
        derive_seed(seed, 2),
        &params.lanczos,
        &progress.slice(0.5, 1.0),
        cancel,
    )?;
    Ok(Pools { property, phase })
}

/// The shadow data of one budget.
struct Draw {
    property_train: ShadowData,
    property_test: ShadowData,
    phase_train: ShadowData,
    phase_test: ShadowData,
}

fn draw(
    params: &ExperimentParams,
    pools: &Pools,
    n: usize,
    m: usize,
    seed: u64,
    cancel: &CancelToken,
) -> Result<Draw, ComputeError> {
    let t = params.budget.test_samples;
    let s = derive_seed(seed, 1000 + n as u64);
    let system = &params.system;
    let stream = 1_u64 << 32;
    Ok(Draw {
        property_train: shadow_data(&pools.property, t..t + n, m, system, s, 0, cancel)?,
        property_test: shadow_data(&pools.property, 0..t, m, system, s, stream, cancel)?,
        phase_train: shadow_data(&pools.phase, t..t + n, m, system, s, 2 * stream, cancel)?,
        phase_test: shadow_data(&pools.phase, 0..t, m, system, s, 3 * stream, cancel)?,
    })
}

/// RMSE between `a` and `b`.
fn rmse(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    (crate::learners::squared_error(a, b) / a.len().max(1) as f64).sqrt()
}

/// The exact property targets of the test chains: correlations and entropies.
fn exact_test(pool: &Pool, t: usize) -> (DMatrix<f64>, DMatrix<f64>) {
    (
        pool.correlations.rows(0, t).into_owned(),
        pool.entropies.rows(0, t).into_owned(),
    )
}

/// One draw with what scoring it needs.
#[derive(Clone, Copy)]
struct Setup<'a> {
    params: &'a ExperimentParams,
    pools: &'a Pools,
    data: &'a Draw,
    critical: f64,
}

/// What one learner predicted on one draw.
struct Outcome {
    scores: Scores,
    properties: DMatrix<f64>,
    order: Vec<f64>,
}

fn run_learner(
    learner: Learner,
    setup: Setup<'_>,
    seed: u64,
    cancel: &CancelToken,
) -> Result<Outcome, ComputeError> {
    let Setup {
        params,
        pools,
        data,
        critical,
    } = setup;
    let start = Instant::now();
    let system = &params.system;
    let t = params.budget.test_samples;
    let inputs = params.inputs_of(learner);
    let pair_count = pairs(system.sites).len();
    let block_count = system.blocks().len();
    let train = &data.property_train;
    let targets = DMatrix::from_fn(train.inputs.len(), pair_count + block_count, |r, c| {
        if c < pair_count {
            train.correlations[(r, c)]
        } else {
            train.entropies[(r, c - pair_count)]
        }
    });
    let layout = Layout::new(system.property_model, system.boundary, system.sites);
    let groups = [0..pair_count, pair_count..pair_count + block_count];
    let properties = fit_predict(
        learner,
        &Problem {
            layout: &layout,
            train: &train.inputs,
            targets: &targets,
            groups: &groups,
            test: &data.property_test.inputs,
            inputs,
        },
        &params.learners,
        derive_seed(seed, 7),
        cancel,
    )?;
    let (exact_c, exact_s) = exact_test(&pools.property, t);
    let rmse_correlation = rmse(&properties.columns(0, pair_count).into_owned(), &exact_c);
    let rmse_entropy = rmse(
        &properties.columns(pair_count, block_count).into_owned(),
        &exact_s,
    );
    let phase_layout = Layout::new(Model::Tfim, system.boundary, system.sites);
    let order_targets = DMatrix::from_fn(data.phase_train.inputs.len(), 1, |r, _| {
        data.phase_train.order[r]
    });
    let order = fit_predict(
        learner,
        &Problem {
            layout: &phase_layout,
            train: &data.phase_train.inputs,
            targets: &order_targets,
            groups: std::slice::from_ref(&(0..1)),
            test: &data.phase_test.inputs,
            inputs,
        },
        &params.learners,
        derive_seed(seed, 8),
        cancel,
    )?;
    let order: Vec<f64> = order.iter().copied().collect();
    let phase_accuracy = accuracy(&order, &pools.phase.order[..t], critical);
    Ok(Outcome {
        scores: Scores {
            rmse_correlation,
            rmse_entropy,
            phase_accuracy,
            seconds: start.elapsed().as_secs_f64(),
        },
        properties,
        order,
    })
}

/// Share of chains whose predicted phase (m² > m²_c) is the exact one.
fn accuracy(predicted: &[f64], exact: &[f64], critical: f64) -> f64 {
    let right = predicted
        .iter()
        .zip(exact)
        .filter(|(p, e)| (**p > critical) == (**e > critical))
        .count();
    right as f64 / exact.len().max(1) as f64
}

/// The trivial reference: every held-out chain predicted with the training labels' mean, and
/// the training labels' majority phase.
fn trivial(setup: Setup<'_>) -> Scores {
    let Setup {
        params,
        pools,
        data,
        critical,
    } = setup;
    let t = params.budget.test_samples;
    let (exact_c, exact_s) = exact_test(&pools.property, t);
    let mean_rows = |m: &DMatrix<f64>| {
        let means = m.row_mean();
        DMatrix::from_fn(t, m.ncols(), |_, c| means[c])
    };
    let ordered = data
        .phase_train
        .order
        .iter()
        .filter(|&&o| o > critical)
        .count();
    let majority = if 2 * ordered > data.phase_train.order.len() {
        critical + 1.0
    } else {
        critical - 1.0
    };
    Scores {
        rmse_correlation: rmse(&mean_rows(&data.property_train.correlations), &exact_c),
        rmse_entropy: rmse(&mean_rows(&data.property_train.entropies), &exact_s),
        phase_accuracy: accuracy(&vec![majority; t], &pools.phase.order[..t], critical),
        seconds: 0.0,
    }
}

/// The same draw with every chain's measurement inputs moved to another chain (a seeded
/// permutation within the training set and within the test set).
fn shuffled(data: &Draw, seed: u64) -> Draw {
    let permute = |d: &ShadowData, stream: u64| {
        let mut order: Vec<usize> = (0..d.inputs.len()).collect();
        order.shuffle(&mut seeded(derive_seed(seed, stream)));
        ShadowData {
            inputs: d.inputs.with_shadows_permuted(&order),
            ..d.clone()
        }
    };
    Draw {
        property_train: permute(&data.property_train, 1),
        property_test: permute(&data.property_test, 2),
        phase_train: permute(&data.phase_train, 3),
        phase_test: permute(&data.phase_test, 4),
    }
}

/// One repeat at one budget: every learner's outcome, the trivial reference and, when asked,
/// each learner's scores after the randomisation.
struct Trial {
    methods: Vec<(Learner, Outcome)>,
    trivial: Scores,
    randomised: Vec<(Learner, Scores)>,
}

/// Every learner and the trivial reference on one draw; with `randomise`, the randomisation
/// test of the learners that see measurements too.
fn trial(
    setup: Setup<'_>,
    seed: u64,
    randomise: bool,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<Trial, ComputeError> {
    let params = setup.params;
    let learners = Learner::ALL;
    let randomised_learners: Vec<Learner> = if randomise {
        learners
            .iter()
            .copied()
            .filter(|l| params.inputs_of(*l).has_shadows())
            .collect()
    } else {
        Vec::new()
    };
    let steps = (learners.len() + randomised_learners.len()) as f64;
    let mut methods = Vec::new();
    for (k, &learner) in learners.iter().enumerate() {
        progress.set(k as f64 / steps, format!("training {}", learner.label()));
        methods.push((learner, run_learner(learner, setup, seed, cancel)?));
    }
    let mut randomised = Vec::new();
    if !randomised_learners.is_empty() {
        let permuted = shuffled(setup.data, derive_seed(seed, 99));
        let randomised_setup = Setup {
            data: &permuted,
            ..setup
        };
        for (k, &learner) in randomised_learners.iter().enumerate() {
            progress.set(
                (learners.len() + k) as f64 / steps,
                format!("randomisation test: retraining {}", learner.label()),
            );
            let outcome = run_learner(learner, randomised_setup, seed, cancel)?;
            randomised.push((learner, outcome.scores));
        }
    }
    Ok(Trial {
        methods,
        trivial: trivial(setup),
        randomised,
    })
}

/// The comparison at the budget of `params`, over `params.repeats` repeats.
pub fn compare(
    params: &ExperimentParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<Comparison, ComputeError> {
    params.validate()?;
    let critical = critical_order(&params.system, &params.lanczos, cancel)?;
    let n = params.budget.train_samples;
    let m = params.budget.snapshots();
    let repeats = params.repeats;
    let mut methods: Vec<MethodScores> = Learner::ALL
        .iter()
        .map(|&learner| MethodScores {
            learner,
            scores: Vec::new(),
        })
        .collect();
    let mut trivial_scores = Vec::new();
    let mut randomisation: Vec<Randomised> = Vec::new();
    let mut figures: Option<(HeldOut, Vec<PhasePoint>)> = None;
    for r in 0..repeats {
        let share = |a: f64, b: f64| {
            progress.slice(
                (r as f64 + a) / repeats as f64,
                (r as f64 + b) / repeats as f64,
            )
        };
        let s = derive_seed(seed, r as u64);
        let pools = make_pools(params, n, s, &share(0.0, 0.25), cancel)?;
        progress.set_message(format!("repeat {}: drawing {n} × {m} snapshots", r + 1));
        let data = draw(params, &pools, n, m, s, cancel)?;
        let setup = Setup {
            params,
            pools: &pools,
            data: &data,
            critical,
        };
        let result = trial(setup, s, params.randomisation, &share(0.3, 1.0), cancel)?;
        if figures.is_none() {
            figures = Some(held_out_figures(params, &pools, &data, &result));
        }
        for ((_, outcome), method) in result.methods.iter().zip(methods.iter_mut()) {
            method.scores.push(outcome.scores);
        }
        trivial_scores.push(result.trivial);
        for (learner, after) in result.randomised {
            let before = result
                .methods
                .iter()
                .find(|(l, _)| *l == learner)
                .map(|(_, o)| o.scores)
                .unwrap_or_default();
            match randomisation.iter_mut().find(|x| x.learner == learner) {
                Some(entry) => {
                    entry.before.push(before);
                    entry.after.push(after);
                }
                None => randomisation.push(Randomised {
                    learner,
                    before: vec![before],
                    after: vec![after],
                }),
            }
        }
    }
    let (held_out, phases) =
        figures.ok_or_else(|| ComputeError::Numerical("no repeat ran".into()))?;
    Ok(Comparison {
        train_samples: n,
        snapshots: m,
        methods,
        trivial: trivial_scores,
        randomisation,
        held_out,
        phases,
        critical_order: critical,
    })
}

fn held_out_figures(
    params: &ExperimentParams,
    pools: &Pools,
    data: &Draw,
    result: &Trial,
) -> (HeldOut, Vec<PhasePoint>) {
    let sites = params.system.sites;
    let pair_count = pairs(sites).len();
    let row = |m: &DMatrix<f64>| -> Vec<f64> { (0..pair_count).map(|c| m[(0, c)]).collect() };
    let held_out = HeldOut {
        parameters: pools.property.chains[0].parameters(),
        exact: from_upper_triangle(sites, &row(&pools.property.correlations)),
        shadow: from_upper_triangle(sites, &row(&data.property_test.correlations)),
        predicted: result
            .methods
            .iter()
            .map(|(l, o)| (*l, from_upper_triangle(sites, &row(&o.properties))))
            .collect(),
    };
    let phases = (0..params.budget.test_samples)
        .map(|k| {
            let chain = &pools.phase.chains[k];
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
            PhasePoint {
                coupling: mean(&chain.couplings),
                field: mean(&chain.fields),
                exact_order: pools.phase.order[k],
                predicted_order: result.methods.iter().map(|(_, o)| o.order[k]).collect(),
            }
        })
        .collect();
    (held_out, phases)
}

/// Every learner's scores (and the trivial reference's) on one repeat at the budget of
/// `params` (no randomisation test): what a sweep point records.
pub fn single(
    params: &ExperimentParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<(Vec<(Learner, Scores)>, Scores), ComputeError> {
    params.validate()?;
    let critical = critical_order(&params.system, &params.lanczos, cancel)?;
    let n = params.budget.train_samples;
    let pools = make_pools(params, n, seed, &progress.slice(0.0, 0.3), cancel)?;
    let data = draw(params, &pools, n, params.budget.snapshots(), seed, cancel)?;
    let setup = Setup {
        params,
        pools: &pools,
        data: &data,
        critical,
    };
    let result = trial(setup, seed, false, &progress.slice(0.35, 1.0), cancel)?;
    Ok((
        result
            .methods
            .into_iter()
            .map(|(l, o)| (l, o.scores))
            .collect(),
        result.trivial,
    ))
}

/// The error of every learner against n at fixed n·M (the curve's n values), over
/// `params.repeats` repeats; each repeat's pool is shared by its n values.
pub fn curve(
    params: &ExperimentParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<Curve, ComputeError> {
    params.validate()?;
    let critical = critical_order(&params.system, &params.lanczos, cancel)?;
    let total = params.budget.total;
    let ns = params.curve.values(total);
    let n_max = ns.iter().copied().max().unwrap_or(4);
    let mut points: Vec<CurvePoint> = ns
        .iter()
        .map(|&n| CurvePoint {
            train_samples: n,
            snapshots: total / n,
            methods: Learner::ALL
                .iter()
                .map(|&learner| MethodScores {
                    learner,
                    scores: Vec::new(),
                })
                .collect(),
            trivial: Vec::new(),
        })
        .collect();
    let repeats = params.repeats;
    let steps = repeats as f64 * (ns.len() as f64 + 1.0);
    for r in 0..repeats {
        let s = derive_seed(seed, r as u64);
        let base = r as f64 * (ns.len() as f64 + 1.0);
        let pools = make_pools(
            params,
            n_max,
            s,
            &progress.slice(base / steps, (base + 1.0) / steps),
            cancel,
        )?;
        for (k, point) in points.iter_mut().enumerate() {
            let (n, m) = (point.train_samples, point.snapshots);
            let slice = progress.slice(
                (base + 1.0 + k as f64) / steps,
                (base + 2.0 + k as f64) / steps,
            );
            slice.set_message(format!("repeat {}: n = {n}, M = {m}", r + 1));
            let data = draw(params, &pools, n, m, s, cancel)?;
            let setup = Setup {
                params,
                pools: &pools,
                data: &data,
                critical,
            };
            let result = trial(setup, s, false, &slice, cancel)?;
            for ((_, outcome), method) in result.methods.iter().zip(point.methods.iter_mut()) {
                method.scores.push(outcome.scores);
            }
            point.trivial.push(result.trivial);
        }
    }
    Ok(Curve { total, points })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> ExperimentParams {
        ExperimentParams {
            system: SystemParams {
                sites: 6,
                ..SystemParams::default()
            },
            budget: BudgetParams {
                total: 4000,
                train_samples: 40,
                test_samples: 30,
            },
            learners: LearnerSettings {
                max_epochs: 300,
                patience: 40,
                ..LearnerSettings::default()
            },
            repeats: 1,
            ..ExperimentParams::default()
        }
    }

    #[test]
    fn quantum_learners_beat_the_trivial_reference_and_the_randomisation_test_runs() {
        let params = small();
        let result = compare(&params, 3, &Progress::new(), &CancelToken::new()).unwrap();
        assert_eq!(result.snapshots, 100);
        let trivial = result.trivial[0];
        for method in &result.methods {
            let s = method.scores[0];
            assert!(
                s.rmse_correlation < trivial.rmse_correlation,
                "{:?}: {} vs trivial {}",
                method.learner,
                s.rmse_correlation,
                trivial.rmse_correlation
            );
            assert!(
                s.phase_accuracy >= 0.5,
                "{:?}: {}",
                method.learner,
                s.phase_accuracy
            );
        }
        assert_eq!(result.randomisation.len(), 6);
        assert_eq!(result.phases.len(), 30);
        assert_eq!(result.held_out.predicted.len(), 6);
        assert!(result.critical_order > 0.1 && result.critical_order < 1.0);
    }

    #[test]
    fn quantum_bad_budgets_name_their_key() {
        let mut params = small();
        params.budget.total = 10;
        let error = params.validate().unwrap_err().to_string();
        assert!(
            error.contains("`budget.total`") && error.contains("M = 0"),
            "{error}"
        );
        let mut params = small();
        params.system.sites = 15;
        let error = params.validate().unwrap_err().to_string();
        assert!(
            error.contains("`system.sites`") && error.contains("32768"),
            "{error}"
        );
        let mut params = small();
        params.system.j_max = -1.0;
        let error = params.validate().unwrap_err().to_string();
        assert!(error.contains("`system.j_max`"), "{error}");
        assert_eq!(
            CurveParams::default().values(20_000),
            vec![10, 21, 45, 95, 200]
        );
    }
}
