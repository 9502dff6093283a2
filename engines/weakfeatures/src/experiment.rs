//! One run of the panel: the sequential and iterative schemes with the chosen estimator and
//! label model, the references a referee asks for first (the oracle-features model, the
//! observed-only model, the target's mean), the closed forms, the round-by-round errors of the
//! iterative scheme, and two curves: excess risk against the injected estimation MSE (oracle
//! plus noise) and against the number of training rows.
//!
//! Excess risk: on generated data, the mean of `(ŷ − βᵀx)²` over the test rows (the Bayes
//! predictor is known, so no label noise enters); on a table, the test MSE minus that of the
//! oracle-features model (which may then be slightly negative).

use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError, Progress};
use nalgebra::{DMatrix, DVector};
use rand_distr::{Distribution as _, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::closed_form;
use crate::data::{DataParams, Population, Problem, Rows};
use crate::linear::hstack;
use crate::missing::{self, Mechanism, MissingParams};
use crate::models::{
    EstimatorKind, EstimatorParams, FeatureModel, LabelKind, LabelModel, LabelParams, SplitView,
    feature_step, fit_feature, fit_label,
};

/// The iterative scheme's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct IterativeParams {
    /// Rounds R of (f-step, h-step) after the sequential start.
    pub rounds: usize,
    /// Weight γ of the label loss (rows missing x_w) in f's objective.
    pub label_weight: f64,
    /// Adam steps per round for models trained by gradient (MLPs; a linear f under an MLP h).
    pub steps_per_round: usize,
    /// Adam's step size in those steps.
    pub learning_rate: f64,
}

impl Default for IterativeParams {
    fn default() -> Self {
        Self {
            rounds: 10,
            label_weight: 1.0,
            steps_per_round: 100,
            learning_rate: 0.01,
        }
    }
}

impl IterativeParams {
    /// Range checks.
    pub fn validate(&self) -> Result<(), ComputeError> {
        benchtop_learn::settings::whole_in("iterative.rounds", self.rounds, 1..=200)?;
        if !(self.label_weight.is_finite() && (0.0..=1e4).contains(&self.label_weight)) {
            return Err(ComputeError::invalid(
                "iterative.label_weight",
                "choose 0 to 10000",
            ));
        }
        benchtop_learn::settings::whole_in(
            "iterative.steps_per_round",
            self.steps_per_round,
            1..=100_000,
        )?;
        benchtop_learn::settings::positive("iterative.learning_rate", self.learning_rate)
    }
}

/// The two curves' grids.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CurveParams {
    /// Largest injected estimation MSE ε of the first curve (the grid runs from 0).
    pub mse_max: f64,
    /// Points of the estimation-MSE curve (0: not computed).
    pub mse_points: usize,
    /// Points of the sample-size curve (0: not computed).
    pub n_points: usize,
    /// Smallest training size of the sample-size curve.
    pub n_min: usize,
}

impl Default for CurveParams {
    fn default() -> Self {
        Self {
            mse_max: 2.0,
            mse_points: 9,
            n_points: 6,
            n_min: 50,
        }
    }
}

impl CurveParams {
    /// Range checks.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !(self.mse_max.is_finite() && self.mse_max > 0.0 && self.mse_max <= 1e4) {
            return Err(ComputeError::invalid(
                "curves.mse_max",
                "choose above 0 to 10000",
            ));
        }
        benchtop_learn::settings::whole_in("curves.mse_points", self.mse_points, 0..=100)?;
        benchtop_learn::settings::whole_in("curves.n_points", self.n_points, 0..=50)?;
        benchtop_learn::settings::whole_in("curves.n_min", self.n_min, 10..=1_000_000)
    }
}

/// Everything a run depends on besides the seed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Params {
    /// The data.
    pub data: DataParams,
    /// The missingness.
    pub missing: MissingParams,
    /// The feature estimator f.
    pub estimator: EstimatorParams,
    /// The label model h.
    pub label: LabelParams,
    /// The iterative scheme.
    pub iterative: IterativeParams,
    /// The curves.
    pub curves: CurveParams,
}

impl Params {
    /// Every range check (a CSV file is checked when it is read).
    pub fn validate(&self) -> Result<(), ComputeError> {
        self.data.validate()?;
        self.missing.validate()?;
        self.estimator.validate()?;
        self.label.validate()?;
        self.iterative.validate()?;
        self.curves.validate()
    }
}

/// Test error of one method.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MethodResult {
    /// Key in summary.json (`sequential`, `iterative`, `oracle_features`, `observed_only`,
    /// `mean_predictor`).
    pub key: String,
    /// Name on the figures.
    pub label: String,
    /// Mean squared error on the test rows.
    pub test_mse: f64,
    /// Excess risk (see the module's note).
    pub excess_risk: f64,
}

/// One round of the iterative scheme (round 0 is the sequential fit).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// Round number.
    pub round: usize,
    /// MSE of h on the completed training rows.
    pub train_mse: f64,
    /// Test MSE.
    pub test_mse: f64,
    /// Test excess risk.
    pub excess_risk: f64,
    /// f's per-feature MSE on the test rows that miss x_w (NaN: none).
    pub feature_mse: f64,
}

/// One point of the excess risk against the injected estimation MSE.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MsePoint {
    /// Injected per-feature MSE ε.
    pub estimation_mse: f64,
    /// Measured excess risk of the sequential scheme.
    pub sequential: f64,
    /// Measured excess risk of the iterative scheme (after its last round).
    pub iterative: f64,
    /// Closed form of one linear h on the completed rows (MCAR).
    pub closed_form: f64,
    /// Closed form of the best linear predictor from `(x_o, x̂_w)` on each estimated row.
    pub closed_form_per_row: f64,
    /// The panel's own bound on the sequential scheme (Lipschitz h, triangle inequality):
    /// `(√E_true + L·√Δ²)²`, E_true the same h's excess with the true features, Δ² the mean
    /// squared feature error per test row.
    pub bound_sequential: f64,
    /// The sequential h's Lipschitz constant in x_w.
    pub lipschitz: f64,
}

/// One point of the excess risk against the training size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SizePoint {
    /// Training rows n.
    pub n: usize,
    /// Sequential scheme (NaN: too few rows with x_w to fit f).
    pub sequential: f64,
    /// Iterative scheme (NaN: as above).
    pub iterative: f64,
    /// h on the true features.
    pub oracle_features: f64,
    /// h on x_o alone.
    pub observed_only: f64,
    /// The training target's mean.
    pub mean_predictor: f64,
}

/// Closed forms of the Gaussian-linear model for this run (see [`crate::closed_form`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClosedForms {
    /// Whether the moments are exact (the generator) or estimated from a table's rows.
    pub exact_moments: bool,
    /// Whether the mechanism keeps them valid (MCAR; MAR for the plug-in forms).
    pub valid_for_mechanism: bool,
    /// `β_wᵀ V β_w`: excess per row of the plug-in `E[x_w | x_o]`, and of the observed-only model.
    pub plugin_per_row: f64,
    /// The sequential scheme's closed form with this estimator.
    pub sequential: f64,
    /// The iterative scheme's closed form (its fixed point) with this estimator.
    pub iterative: f64,
    /// Observed-only model: `β_wᵀ V β_w`.
    pub observed_only: f64,
    /// The mean: `βᵀ Σ β`.
    pub mean_predictor: f64,
}

/// The ridge coefficient on a noisy estimate against its attenuation closed form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attenuation {
    /// `h_wᵀβ_w / ‖β_w‖²` of the sequential ridge h.
    pub measured: f64,
    /// The closed form (`Var(x_w)/(Var(x_w) + ε)` when every row is estimated and x_w is
    /// independent of x_o).
    pub closed_form: f64,
}

/// What a run produces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Output {
    /// Where the rows came from.
    pub source: String,
    /// Names of the observed features.
    pub observed_names: Vec<String>,
    /// Names of the weak features.
    pub weak_names: Vec<String>,
    /// Training and test rows.
    pub n_train: usize,
    /// Test rows.
    pub n_test: usize,
    /// Share of training rows missing x_w.
    pub missing_train: f64,
    /// Share of test rows missing x_w.
    pub missing_test: f64,
    /// Whether excess risk is measured against the known Bayes predictor (generator).
    pub exact_bayes: bool,
    /// Test MSE of the Bayes predictor (generator) or of the oracle-features model (table).
    pub reference_mse: f64,
    /// Sequential, iterative, oracle features, observed only, mean predictor.
    pub methods: Vec<MethodResult>,
    /// The closed forms.
    pub closed_forms: ClosedForms,
    /// f's per-feature MSE on the test rows missing x_w, sequential scheme (NaN: none).
    pub feature_mse: f64,
    /// The sequential h's Lipschitz constant in x_w.
    pub lipschitz: f64,
    /// Ridge coefficient against its attenuation (oracle plus noise under a ridge h).
    pub attenuation: Option<Attenuation>,
    /// Round-by-round errors of the iterative scheme (round 0: sequential).
    pub rounds: Vec<Round>,
    /// Excess risk against the injected estimation MSE.
    pub risk_vs_mse: Vec<MsePoint>,
    /// Excess risk against the training size.
    pub risk_vs_n: Vec<SizePoint>,
}

impl Output {
    /// The result of the method `key`.
    pub fn method(&self, key: &str) -> Option<&MethodResult> {
        self.methods.iter().find(|m| m.key == key)
    }
}

/// A test-set evaluation of (f, h).
pub(crate) struct Eval {
    test_mse: f64,
    /// Mean (ŷ − βᵀx)² when the Bayes predictor is known.
    gap: Option<f64>,
    /// Test MSE and gap of the same h given the true x_w.
    true_mse: f64,
    true_gap: Option<f64>,
    /// Mean ‖x̃_w − x_w‖² per test row (zero on rows with x_w).
    delta_sq: f64,
    /// Per-feature MSE on the rows missing x_w.
    feature_mse: f64,
}

impl Eval {
    pub(crate) fn excess(&self, reference: f64) -> f64 {
        self.gap.unwrap_or(self.test_mse - reference)
    }

    /// The panel's own bound: ‖ŷ(x̃) − f*‖ ≤ ‖ŷ(x) − f*‖ + L·‖x̃_w − x_w‖ (root mean squares
    /// over the test rows), squared.
    fn bound(&self, lipschitz: f64, reference: f64) -> f64 {
        let root = |v: f64| v.max(0.0).sqrt();
        match self.true_gap {
            Some(gap) => (root(gap) + lipschitz * root(self.delta_sq)).powi(2),
            None => (root(self.true_mse) + lipschitz * root(self.delta_sq)).powi(2) - reference,
        }
    }
}

fn mse(a: &DVector<f64>, b: &DVector<f64>) -> f64 {
    (a - b).norm_squared() / a.len().max(1) as f64
}

fn evaluate(
    h: &LabelModel,
    f: &FeatureModel,
    test: &SplitView<'_>,
    bayes: Option<&DVector<f64>>,
) -> Result<Eval, ComputeError> {
    let completed = test.completed(f)?;
    let prediction = h.predict(&hstack(test.x_o, &completed))?;
    let truth = h.predict(&hstack(test.x_o, test.x_w))?;
    let diff = &completed - test.x_w;
    let n = test.y.len().max(1) as f64;
    let (_, missing) = test.partition();
    let d_w = test.x_w.ncols().max(1) as f64;
    let feature_mse = if missing.is_empty() {
        f64::NAN
    } else {
        diff.norm_squared() / (missing.len() as f64 * d_w)
    };
    Ok(Eval {
        test_mse: mse(&prediction, test.y),
        gap: bayes.map(|b| mse(&prediction, b)),
        true_mse: mse(&truth, test.y),
        true_gap: bayes.map(|b| mse(&truth, b)),
        delta_sq: diff.norm_squared() / n,
        feature_mse,
    })
}

/// The sequential fit and the iterative rounds for one estimator.
pub(crate) struct SchemeRun {
    pub(crate) sequential: Eval,
    pub(crate) sequential_lipschitz: f64,
    pub(crate) sequential_coefficients: Option<DVector<f64>>,
    pub(crate) rounds: Vec<(f64, Eval)>,
}

pub(crate) struct Context<'a> {
    pub(crate) params: &'a Params,
    pub(crate) conditional_mean: Option<DMatrix<f64>>,
    pub(crate) seed: u64,
    pub(crate) cancel: &'a CancelToken,
}

pub(crate) fn run_schemes(
    cx: &Context<'_>,
    estimator: &EstimatorParams,
    train: &SplitView<'_>,
    test: &SplitView<'_>,
    bayes: Option<&DVector<f64>>,
    mut on_round: impl FnMut(usize),
) -> Result<SchemeRun, ComputeError> {
    let label = &cx.params.label;
    let it = &cx.params.iterative;
    let d_o = train.x_o.ncols();
    let d_w = train.x_w.ncols();
    let seed_h = derive_seed(cx.seed, 11);
    let mut f = fit_feature(
        estimator,
        train,
        cx.conditional_mean.as_ref(),
        derive_seed(cx.seed, 10),
        cx.cancel,
    )?;
    let completed = train.completed(&f)?;
    let z = hstack(train.x_o, &completed);
    let mut h = fit_label(label, &z, train.y, seed_h, None, cx.cancel)?;
    let train_mse = mse(&h.predict(&z)?, train.y);
    let sequential = evaluate(&h, &f, test, bayes)?;
    let sequential_lipschitz = h.lipschitz_in(d_o..d_o + d_w)?;
    let sequential_coefficients = h.coefficients();
    let mut rounds = vec![(train_mse, evaluate(&h, &f, test, bayes)?)];
    on_round(0);
    for round in 1..=it.rounds {
        f = feature_step(
            f,
            &h,
            train,
            it.label_weight,
            estimator.ridge,
            it.steps_per_round,
            it.learning_rate,
            cx.cancel,
        )?;
        let completed = train.completed(&f)?;
        let z = hstack(train.x_o, &completed);
        h = fit_label(
            label,
            &z,
            train.y,
            seed_h,
            Some((h, it.steps_per_round)),
            cx.cancel,
        )?;
        let train_mse = mse(&h.predict(&z)?, train.y);
        rounds.push((train_mse, evaluate(&h, &f, test, bayes)?));
        on_round(round);
    }
    Ok(SchemeRun {
        sequential,
        sequential_lipschitz,
        sequential_coefficients,
        rounds,
    })
}

/// One split's rows seen through `mask` (true: the weak features are missing), with the
/// injected estimates where the estimator uses them.
pub(crate) fn split_view<'a>(
    rows: &'a Rows,
    mask: &'a [bool],
    injected: Option<&'a DMatrix<f64>>,
) -> SplitView<'a> {
    SplitView {
        x_o: &rows.x_o,
        x_w: &rows.x_w,
        y: &rows.y,
        mask,
        injected,
    }
}

/// The baselines: h on the true features, h on x_o alone, the training mean.
fn baselines(
    cx: &Context<'_>,
    train: &Rows,
    test: &Rows,
) -> Result<(Eval, Eval, Eval), ComputeError> {
    let label = &cx.params.label;
    let none_test = vec![false; test.len()];
    let test_view = split_view(test, &none_test, None);
    let identity = FeatureModel::Linear {
        g: DMatrix::zeros(train.x_w.ncols(), train.x_o.ncols() + 1),
        injected: false,
    };
    let z = hstack(&train.x_o, &train.x_w);
    let oracle_h = fit_label(
        label,
        &z,
        &train.y,
        derive_seed(cx.seed, 13),
        None,
        cx.cancel,
    )?;
    let oracle = evaluate(&oracle_h, &identity, &test_view, test.bayes.as_ref())?;
    let observed_h = fit_label(
        label,
        &train.x_o,
        &train.y,
        derive_seed(cx.seed, 12),
        None,
        cx.cancel,
    )?;
    let observed_prediction = observed_h.predict(&test.x_o)?;
    let plain = |prediction: &DVector<f64>| Eval {
        test_mse: mse(prediction, &test.y),
        gap: test.bayes.as_ref().map(|b| mse(prediction, b)),
        true_mse: f64::NAN,
        true_gap: None,
        delta_sq: 0.0,
        feature_mse: f64::NAN,
    };
    let observed = plain(&observed_prediction);
    let mean = DVector::from_element(test.len(), train.y.mean());
    let constant = plain(&mean);
    Ok((oracle, observed, constant))
}

/// Seeded standard normal noise (rows × cols).
fn noise(rows: usize, cols: usize, seed: u64) -> DMatrix<f64> {
    let mut rng = seeded(seed);
    DMatrix::from_fn(rows, cols, |_, _| StandardNormal.sample(&mut rng))
}

/// The geometric grid of training sizes from `lo` to `hi` with `points` sizes.
pub fn size_grid(lo: usize, hi: usize, points: usize) -> Vec<usize> {
    if points == 0 {
        return Vec::new();
    }
    if lo >= hi || points == 1 {
        return vec![hi];
    }
    let (a, b) = ((lo as f64).ln(), (hi as f64).ln());
    let mut out: Vec<usize> = (0..points)
        .map(|k| (a + (b - a) * k as f64 / (points - 1) as f64).exp().round() as usize)
        .collect();
    out.dedup();
    out
}

/// Runs everything the panel shows.
pub fn run(
    params: &Params,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<Output, ComputeError> {
    params.validate()?;
    benchtop_compute::threads::single_threaded("weakfeatures", || {
        run_inner(params, seed, progress, cancel)
    })
}

fn run_inner(
    params: &Params,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<Output, ComputeError> {
    progress.set(0.0, "preparing the data");
    let problem: Problem = crate::data::problem(&params.data, seed)?;
    let population: &Population = &problem.population;
    let (train, test) = (&problem.train, &problem.test);
    let d_w = train.x_w.ncols();
    // Missingness: probabilities over all rows together, then one draw per split.
    let mask_train = missing::draw(
        &missing::probabilities(&params.missing, &train.x_o, &train.x_w),
        derive_seed(seed, 20),
    );
    let mask_test = missing::draw(
        &missing::probabilities(&params.missing, &test.x_o, &test.x_w),
        derive_seed(seed, 21),
    );
    let (rate_train, rate_test) = (
        missing::fraction(&mask_train),
        missing::fraction(&mask_test),
    );
    let z_train = noise(train.len(), d_w, derive_seed(seed, 30));
    let z_test = noise(test.len(), d_w, derive_seed(seed, 31));
    let injected = |rows: &Rows, z: &DMatrix<f64>, eps: f64| &rows.x_w + z * eps.sqrt();
    let cx = Context {
        params,
        conditional_mean: population.conditional_mean_map().ok(),
        seed,
        cancel,
    };
    let uses_injected = params.estimator.kind == EstimatorKind::OracleNoise;
    let inj_train = uses_injected.then(|| injected(train, &z_train, params.estimator.mse));
    let inj_test = uses_injected.then(|| injected(test, &z_test, params.estimator.mse));

    // Main run: 30 % of the progress.
    let rounds_total = params.iterative.rounds as f64 + 1.0;
    let main = run_schemes(
        &cx,
        &params.estimator,
        &split_view(train, &mask_train, inj_train.as_ref()),
        &split_view(test, &mask_test, inj_test.as_ref()),
        test.bayes.as_ref(),
        |r| progress.set(0.25 * (r as f64 + 1.0) / rounds_total, format!("round {r}")),
    )?;
    let (oracle, observed, constant) = baselines(&cx, train, test)?;
    let reference = match &test.bayes {
        Some(b) => mse(b, &test.y),
        None => oracle.test_mse,
    };
    progress.set(0.3, "closed forms");
    let last = main
        .rounds
        .last()
        .map_or(&main.sequential, |(_, eval)| eval);
    let methods = vec![
        method("sequential", "Sequential", &main.sequential, reference),
        method("iterative", "Iterative", last, reference),
        method("oracle_features", "Oracle features", &oracle, reference),
        method("observed_only", "Observed only", &observed, reference),
        method("mean_predictor", "Mean predictor", &constant, reference),
    ];
    let plugin = closed_form::plugin_excess(population)?;
    let eps = params.estimator.mse;
    let (sequential_cf, iterative_cf) = match params.estimator.kind {
        EstimatorKind::OracleNoise => (
            closed_form::single_h_excess(population, eps, rate_train, rate_test)?,
            rate_test * closed_form::per_row_noise_excess(population, eps)?,
        ),
        _ => (rate_test * plugin, rate_test * plugin),
    };
    let valid_for_mechanism = match (params.missing.mechanism, params.estimator.kind) {
        (Mechanism::Mcar, _) => true,
        (Mechanism::Mar, EstimatorKind::OracleNoise) => false,
        (Mechanism::Mar, _) => true,
        (Mechanism::Mnar, _) => false,
    };
    let closed_forms = ClosedForms {
        exact_moments: population.exact,
        valid_for_mechanism,
        plugin_per_row: plugin,
        sequential: sequential_cf,
        iterative: iterative_cf,
        observed_only: plugin,
        mean_predictor: closed_form::mean_excess(population),
    };
    let attenuation = match (
        params.estimator.kind,
        params.label.kind,
        &main.sequential_coefficients,
    ) {
        (EstimatorKind::OracleNoise, LabelKind::Ridge, Some(coefficients)) => {
            let b = population.beta_weak();
            let h_w = coefficients.rows(population.d_observed, d_w);
            Some(Attenuation {
                measured: h_w.dot(&b) / b.norm_squared().max(1e-300),
                closed_form: closed_form::attenuation(population, eps, rate_train)?,
            })
        }
        _ => None,
    };
    let rounds = main
        .rounds
        .iter()
        .enumerate()
        .map(|(round, (train_mse, eval))| Round {
            round,
            train_mse: *train_mse,
            test_mse: eval.test_mse,
            excess_risk: eval.excess(reference),
            feature_mse: eval.feature_mse,
        })
        .collect();

    // Excess risk against the injected MSE: 35 %.
    let mut risk_vs_mse = Vec::new();
    let k = params.curves.mse_points;
    for i in 0..k {
        let eps_i = if k == 1 {
            params.curves.mse_max
        } else {
            params.curves.mse_max * i as f64 / (k - 1) as f64
        };
        progress.set(
            0.3 + 0.35 * i as f64 / k as f64,
            format!("estimation MSE {eps_i:.3}"),
        );
        let oracle_params = EstimatorParams {
            kind: EstimatorKind::OracleNoise,
            mse: eps_i,
            ..params.estimator.clone()
        };
        let inj_tr = injected(train, &z_train, eps_i);
        let inj_te = injected(test, &z_test, eps_i);
        let run = run_schemes(
            &cx,
            &oracle_params,
            &split_view(train, &mask_train, Some(&inj_tr)),
            &split_view(test, &mask_test, Some(&inj_te)),
            test.bayes.as_ref(),
            |_| {},
        )?;
        let last = run.rounds.last().map_or(&run.sequential, |(_, e)| e);
        risk_vs_mse.push(MsePoint {
            estimation_mse: eps_i,
            sequential: run.sequential.excess(reference),
            iterative: last.excess(reference),
            closed_form: closed_form::single_h_excess(population, eps_i, rate_train, rate_test)?,
            closed_form_per_row: rate_test * closed_form::per_row_noise_excess(population, eps_i)?,
            bound_sequential: run.sequential.bound(run.sequential_lipschitz, reference),
            lipschitz: run.sequential_lipschitz,
        });
    }

    // Excess risk against n: 35 %.
    let d = train.x_o.ncols() + d_w;
    let lo = params.curves.n_min.max(2 * (d + 2));
    let sizes = size_grid(lo, train.len(), params.curves.n_points);
    let mut risk_vs_n = Vec::new();
    for (i, &n) in sizes.iter().enumerate() {
        progress.set(
            0.65 + 0.35 * i as f64 / sizes.len().max(1) as f64,
            format!("n = {n}"),
        );
        let sub = train.head(n);
        let sub_mask = &mask_train[..n];
        let sub_inj = inj_train.as_ref().map(|m| m.rows(0, n).into_owned());
        let schemes = run_schemes(
            &cx,
            &params.estimator,
            &split_view(&sub, sub_mask, sub_inj.as_ref()),
            &split_view(test, &mask_test, inj_test.as_ref()),
            test.bayes.as_ref(),
            |_| {},
        );
        let (sequential, iterative) = match schemes {
            Ok(run) => {
                let last = run.rounds.last().map_or(&run.sequential, |(_, e)| e);
                (run.sequential.excess(reference), last.excess(reference))
            }
            Err(ComputeError::Cancelled) => return Err(ComputeError::Cancelled),
            // Too few rows with x_w to fit f at this size.
            Err(_) => (f64::NAN, f64::NAN),
        };
        let (o, obs, c) = baselines(&cx, &sub, test)?;
        risk_vs_n.push(SizePoint {
            n,
            sequential,
            iterative,
            oracle_features: o.excess(reference),
            observed_only: obs.excess(reference),
            mean_predictor: c.excess(reference),
        });
    }
    progress.set(1.0, "done");
    Ok(Output {
        source: problem.source_label.clone(),
        observed_names: problem.observed_names.clone(),
        weak_names: problem.weak_names.clone(),
        n_train: train.len(),
        n_test: test.len(),
        missing_train: rate_train,
        missing_test: rate_test,
        exact_bayes: test.bayes.is_some(),
        reference_mse: reference,
        methods,
        closed_forms,
        feature_mse: main.sequential.feature_mse,
        lipschitz: main.sequential_lipschitz,
        attenuation,
        rounds,
        risk_vs_mse,
        risk_vs_n,
    })
}

fn method(key: &str, label: &str, eval: &Eval, reference: f64) -> MethodResult {
    MethodResult {
        key: key.to_owned(),
        label: label.to_owned(),
        test_mse: eval.test_mse,
        excess_risk: eval.excess(reference),
    }
}
