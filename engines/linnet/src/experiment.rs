//! The comparison the panel shows: the named solution families and the G-transform of one
//! network ([`solve`]), and N seeds trained under each noise regime with their pairwise
//! similarities ([`train_regimes`]).

use benchtop_compute::rng::derive_seed;
use benchtop_compute::{CancelToken, ComputeError, Progress};
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use crate::data::{DataSource, Dataset};
use crate::linalg::{max_abs_difference, relative_frobenius};
use crate::similarity::{PairSimilarity, finite_mean, pairwise, rsm};
use crate::solutions::{
    Family, GParams, closed_form_rsm, family_factors, family_rsm, least_squares,
    parameter_noise_exact_rsm,
};
use crate::train::{Activation, Noise, TrainParams, Trained, train};

/// Everything the experiment depends on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ExperimentParams {
    /// The data set.
    pub data: DataSource,
    /// Training settings (hidden width, steps, learning rate, noise levels).
    pub train: TrainParams,
    /// Seeds trained per regime.
    pub seeds: usize,
    /// The G of the G-transform.
    pub g: GParams,
    /// Also train the tanh network under parameter noise.
    pub nonlinear: bool,
    /// Initial scale of the "gradient flow from small initialisation" solution.
    pub small_init_scale: f64,
}

impl Default for ExperimentParams {
    fn default() -> Self {
        Self {
            data: DataSource::default(),
            train: TrainParams::default(),
            seeds: 8,
            g: GParams::default(),
            nonlinear: true,
            small_init_scale: 1e-3,
        }
    }
}

impl ExperimentParams {
    /// Checks every range; errors name the parameter.
    pub fn validate(&self) -> Result<(), ComputeError> {
        self.data.validate("data")?;
        self.train.validate("train")?;
        self.g.validate()?;
        if !(2..=256).contains(&self.seeds) {
            return Err(ComputeError::invalid(
                "seeds",
                format!("must be 2 … 256, got {}", self.seeds),
            ));
        }
        if !(self.small_init_scale > 0.0 && self.small_init_scale <= 1.0) {
            return Err(ComputeError::invalid(
                "small_init_scale",
                format!("must be in (0, 1], got {}", self.small_init_scale),
            ));
        }
        Ok(())
    }

    /// The data set (`seed` draws its random parts).
    pub fn dataset(&self, seed: u64) -> Result<Dataset, ComputeError> {
        self.data.load(derive_seed(seed, 100))
    }
}

/// One RSM with its name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NamedRsm {
    /// Display name.
    pub name: String,
    /// The RSM (items × items).
    pub rsm: DMatrix<f64>,
}

/// What the G-transform does to one network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GTransformResult {
    /// RSM before.
    pub base_rsm: DMatrix<f64>,
    /// RSM after the full G.
    pub transformed_rsm: DMatrix<f64>,
    /// RSM after G's orthogonal factor alone.
    pub orthogonal_rsm: DMatrix<f64>,
    /// Outputs before (`n_out × P`).
    pub base_output: DMatrix<f64>,
    /// Outputs after the full G.
    pub transformed_output: DMatrix<f64>,
    /// `max |Ŷ_G − Ŷ|` over the full G and its orthogonal factor.
    pub output_max_abs_change: f64,
    /// `‖RSM_Q − RSM‖/‖RSM‖` for the orthogonal factor.
    pub rsm_change_orthogonal: f64,
    /// `‖RSM_G − RSM‖/‖RSM‖` for the full G.
    pub rsm_change_general: f64,
    /// `max |GᵀG − I|`.
    pub gtg_deviation: f64,
}

/// The data, the solution families and the G-transform.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Solutions {
    /// Item names (RSM axes).
    pub item_names: Vec<String>,
    /// Targets (`n_out × P`).
    pub y: DMatrix<f64>,
    /// The least-squares map `M*`.
    pub m_star: DMatrix<f64>,
    /// The families' RSMs: gradient flow from a small init (trained), then the closed forms.
    pub families: Vec<NamedRsm>,
    /// `‖RSM_gradient flow − RSM_min weight norm‖/‖RSM_min weight norm‖`.
    pub gradient_flow_error_to_minimum_weight_norm: f64,
    /// The G-transform of the gradient-flow network.
    pub g_transform: GTransformResult,
}

/// Computes [`Solutions`] (a few milliseconds).
pub fn solve(
    params: &ExperimentParams,
    seed: u64,
    cancel: &CancelToken,
) -> Result<Solutions, ComputeError> {
    params.validate()?;
    let data = params.dataset(seed)?;
    let m = least_squares(&data);
    let small = TrainParams {
        init_scale: params.small_init_scale,
        anneal_fraction: 0.0,
        ..params.train.clone()
    };
    let flow = train(
        &data,
        &small,
        Noise::None,
        Activation::Linear,
        derive_seed(seed, 200),
        cancel,
    )?;
    let flow_rsm = rsm(&flow.hidden(&data.x));
    let mut families = vec![NamedRsm {
        name: "Gradient flow, small init".into(),
        rsm: flow_rsm.clone(),
    }];
    for family in Family::ALL {
        // The weights exist (hidden is wide enough) or this is an error the user must see.
        family_factors(family, &data, &m, params.train.hidden)?;
        families.push(NamedRsm {
            name: family.label().into(),
            rsm: family_rsm(family, &data, &m),
        });
    }
    let gradient_flow_error_to_minimum_weight_norm =
        relative_frobenius(&flow_rsm, &family_rsm(Family::MinimumWeightNorm, &data, &m));
    let base = crate::solutions::Factors {
        w1: flow.w1.clone(),
        w2: flow.w2.clone(),
    };
    let g = params.g.matrix(params.train.hidden);
    let q = params.g.orthogonal(params.train.hidden);
    let moved = base.transformed(&g);
    let rotated = base.transformed(&q);
    let base_output = base.output(&data.x);
    let transformed_output = moved.output(&data.x);
    let base_rsm = base.rsm(&data.x);
    let transformed_rsm = moved.rsm(&data.x);
    let orthogonal_rsm = rotated.rsm(&data.x);
    let hidden = params.train.hidden;
    let g_transform = GTransformResult {
        output_max_abs_change: max_abs_difference(&transformed_output, &base_output)
            .max(max_abs_difference(&rotated.output(&data.x), &base_output)),
        rsm_change_orthogonal: relative_frobenius(&orthogonal_rsm, &base_rsm),
        rsm_change_general: relative_frobenius(&transformed_rsm, &base_rsm),
        gtg_deviation: max_abs_difference(
            &(g.g.transpose() * &g.g),
            &DMatrix::identity(hidden, hidden),
        ),
        base_rsm,
        transformed_rsm,
        orthogonal_rsm,
        base_output,
        transformed_output,
    };
    Ok(Solutions {
        item_names: data.item_names.clone(),
        y: data.y.clone(),
        m_star: m,
        families,
        gradient_flow_error_to_minimum_weight_norm,
        g_transform,
    })
}

/// A training regime: a noise and an activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Regime {
    /// The noise.
    pub noise: Noise,
    /// The activation.
    pub activation: Activation,
}

impl Regime {
    /// The summary key: `no_noise`, `input_noise`, `parameter_noise`, or `tanh_…`.
    pub fn key(self) -> String {
        let noise = match self.noise {
            Noise::None => "no_noise",
            Noise::Input => "input_noise",
            Noise::Parameter => "parameter_noise",
        };
        match self.activation {
            Activation::Linear => noise.to_owned(),
            Activation::Tanh => format!("tanh_{noise}"),
        }
    }

    /// Display name.
    pub fn label(self) -> String {
        let noise = match self.noise {
            Noise::None => "no noise",
            Noise::Input => "input noise",
            Noise::Parameter => "parameter noise",
        };
        match self.activation {
            Activation::Linear => format!("Linear, {noise}"),
            Activation::Tanh => format!("tanh, {noise}"),
        }
    }
}

/// The regimes trained for `params`.
pub fn regimes(params: &ExperimentParams) -> Vec<Regime> {
    let mut out: Vec<Regime> = [Noise::None, Noise::Input, Noise::Parameter]
        .into_iter()
        .map(|noise| Regime {
            noise,
            activation: Activation::Linear,
        })
        .collect();
    if params.nonlinear {
        out.push(Regime {
            noise: Noise::Parameter,
            activation: Activation::Tanh,
        });
    }
    out
}

/// One trained seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeedRun {
    /// The seed.
    pub seed: u64,
    /// Its RSM.
    pub rsm: DMatrix<f64>,
    /// Its outputs on the items.
    pub output: DMatrix<f64>,
    /// Final noise-free loss.
    pub final_loss: f64,
    /// `‖W₂W₁ − M*‖/‖M*‖` (NaN for the tanh network).
    pub product_error: f64,
    /// Relative Frobenius error of its RSM to the first-order parameter-noise closed form.
    pub rsm_error_to_closed_form: f64,
    /// `(step, loss)` along the run.
    pub history: Vec<(usize, f64)>,
}

/// All seeds of one regime and their pairwise similarities.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegimeResult {
    /// Which regime.
    pub regime: Regime,
    /// The seeds trained so far.
    pub seeds: Vec<SeedRun>,
    /// Every pair of seeds.
    pub pairs: Vec<PairSimilarity>,
    /// Mean pairwise linear CKA.
    pub mean_pairwise_cka: f64,
    /// Mean pairwise RSA.
    pub mean_pairwise_rsa: f64,
    /// Mean pairwise functional distance.
    pub mean_pairwise_function_distance: f64,
    /// Mean over seeds of the RSM's relative error to the parameter-noise closed form.
    pub mean_rsm_error_to_closed_form: f64,
    /// The largest of those errors.
    pub max_rsm_error_to_closed_form: f64,
}

impl RegimeResult {
    fn new(regime: Regime, seeds: Vec<SeedRun>, y: &DMatrix<f64>) -> Self {
        let rsms: Vec<&DMatrix<f64>> = seeds.iter().map(|s| &s.rsm).collect();
        let outputs: Vec<&DMatrix<f64>> = seeds.iter().map(|s| &s.output).collect();
        let pairs = pairwise(&rsms, &outputs, y);
        let errors = seeds.iter().map(|s| s.rsm_error_to_closed_form);
        Self {
            regime,
            mean_pairwise_cka: finite_mean(pairs.iter().map(|p| p.cka)),
            mean_pairwise_rsa: finite_mean(pairs.iter().map(|p| p.rsa)),
            mean_pairwise_function_distance: finite_mean(pairs.iter().map(|p| p.function_distance)),
            mean_rsm_error_to_closed_form: finite_mean(errors.clone()),
            max_rsm_error_to_closed_form: errors.fold(f64::NAN, f64::max),
            pairs,
            seeds,
        }
    }
}

/// Every regime's seeds, and the parameter-noise RSM in closed form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Training {
    /// Item names (RSM axes).
    pub item_names: Vec<String>,
    /// The regimes (complete ones first; the last may be partial while training runs).
    pub regimes: Vec<RegimeResult>,
    /// The first-order (σ² → 0) closed-form parameter-noise RSM at `M*`.
    pub closed_form_rsm: DMatrix<f64>,
    /// The exact optimum's RSM of the expected loss at the panel's σ (singular values of the
    /// whitened map soft-thresholded).
    pub exact_rsm: DMatrix<f64>,
    /// `‖exact − closed form‖/‖closed form‖`: how far finite σ moves the target.
    pub exact_vs_closed_form: f64,
}

/// Trains `params.seeds` seeds under every regime, calling `update` after each seed.
pub fn train_regimes(
    params: &ExperimentParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
    mut update: impl FnMut(&Training),
) -> Result<Training, ComputeError> {
    params.validate()?;
    let data = params.dataset(seed)?;
    let m = least_squares(&data);
    let (a, b, sigma) = Family::ParameterNoise.objective(&data);
    let closed_form = closed_form_rsm(&m, &sigma, a, b, &data.x);
    let exact_rsm = parameter_noise_exact_rsm(&data, params.train.parameter_noise);
    let mut training = Training {
        item_names: data.item_names.clone(),
        regimes: Vec::new(),
        exact_vs_closed_form: relative_frobenius(&exact_rsm, &closed_form),
        closed_form_rsm: closed_form.clone(),
        exact_rsm,
    };
    let all = regimes(params);
    let total = all.len() * params.seeds;
    for (r, regime) in all.into_iter().enumerate() {
        let mut runs = Vec::with_capacity(params.seeds);
        for s in 0..params.seeds {
            let run_seed = derive_seed(seed, 1000 + s as u64);
            let trained = train(
                &data,
                &params.train,
                regime.noise,
                regime.activation,
                run_seed,
                cancel,
            )?;
            runs.push(seed_run(&trained, run_seed, &data, &m, &closed_form));
            let done = r * params.seeds + s + 1;
            progress.set_count(done as u64, total as u64);
            training.regimes.truncate(r);
            training
                .regimes
                .push(RegimeResult::new(regime, runs.clone(), &data.y));
            update(&training);
        }
    }
    Ok(training)
}

fn seed_run(
    trained: &Trained,
    seed: u64,
    data: &Dataset,
    m: &DMatrix<f64>,
    closed_form: &DMatrix<f64>,
) -> SeedRun {
    let hidden = trained.hidden(&data.x);
    let rsm = rsm(&hidden);
    let product_error = match trained.activation {
        Activation::Linear => relative_frobenius(&(&trained.w2 * &trained.w1), m),
        Activation::Tanh => f64::NAN,
    };
    SeedRun {
        seed,
        rsm_error_to_closed_form: relative_frobenius(&rsm, closed_form),
        output: &trained.w2 * hidden,
        final_loss: trained.history.last().map_or(f64::NAN, |h| h.1),
        product_error,
        history: trained.history.clone(),
        rsm,
    }
}
