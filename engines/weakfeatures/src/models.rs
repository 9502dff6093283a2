//! The two models of weak-features learning: the feature estimator f (x_o → x̂_w: linear,
//! a small MLP, the exact conditional mean, or "oracle plus noise" `x_w + e` with a set MSE,
//! plus a learned linear correction in the iterative scheme) and the label model h (ridge, or
//! a small MLP with a Lipschitz cap) on `(x_o, x̃_w)`, where `x̃_w` is the true value on rows
//! that have it and f's estimate on rows that miss it.

use std::ops::AddAssign as _;

use benchtop_compute::{CancelToken, ComputeError};
use candle_core::{Tensor, Var};
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::linear::{Ridge, hstack, select_entries, select_rows};
use crate::mlp::{MlpSettings, Net, matrix, tensor};

/// Which feature estimator f.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum EstimatorKind {
    /// Ridge regression of x_w on x_o (rows that have x_w).
    #[default]
    Linear,
    /// A small MLP x_o → x_w (rows that have x_w).
    Mlp,
    /// The true value plus Gaussian noise of a set MSE ε per feature (the paper's
    /// `est_error_mse`); it reads the hidden truth, so it is a device for experiments.
    OracleNoise,
    /// The exact `E[x_w | x_o]` from the population moments (the generator's; a table's are
    /// estimated from every row).
    ConditionalMean,
}

impl EstimatorKind {
    /// Every estimator, in the panel's order.
    pub const ALL: [EstimatorKind; 4] = [
        EstimatorKind::Linear,
        EstimatorKind::Mlp,
        EstimatorKind::OracleNoise,
        EstimatorKind::ConditionalMean,
    ];

    /// Short label.
    pub fn label(self) -> &'static str {
        match self {
            EstimatorKind::Linear => "Linear",
            EstimatorKind::Mlp => "MLP",
            EstimatorKind::OracleNoise => "Oracle + noise",
            EstimatorKind::ConditionalMean => "E[x_w | x_o]",
        }
    }

    /// Whether f is learned from the rows that have x_w.
    pub fn is_learned(self) -> bool {
        matches!(self, EstimatorKind::Linear | EstimatorKind::Mlp)
    }
}

/// The feature estimator's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EstimatorParams {
    /// Which estimator.
    pub kind: EstimatorKind,
    /// Per-feature MSE ε of the oracle-plus-noise estimator.
    pub mse: f64,
    /// Ridge penalty λ_f of the linear estimator (and of the linear correction).
    pub ridge: f64,
    /// The MLP estimator.
    pub mlp: MlpSettings,
}

impl Default for EstimatorParams {
    fn default() -> Self {
        Self {
            kind: EstimatorKind::Linear,
            mse: 0.5,
            ridge: 1e-4,
            mlp: MlpSettings::default(),
        }
    }
}

impl EstimatorParams {
    /// Range checks.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !(self.mse.is_finite() && (0.0..=1e4).contains(&self.mse)) {
            return Err(ComputeError::invalid("estimator.mse", "choose 0 to 10000"));
        }
        benchtop_learn::settings::non_negative("estimator.ridge", self.ridge)?;
        self.mlp.validate("estimator.mlp")
    }
}

/// Which label model h.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum LabelKind {
    /// Ridge regression (closed form).
    #[default]
    Ridge,
    /// A small MLP, optionally Lipschitz-capped.
    Mlp,
}

impl LabelKind {
    /// Short label.
    pub fn label(self) -> &'static str {
        match self {
            LabelKind::Ridge => "Ridge",
            LabelKind::Mlp => "MLP",
        }
    }
}

/// The label model's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LabelParams {
    /// Which model.
    pub kind: LabelKind,
    /// Ridge penalty λ_h.
    pub ridge: f64,
    /// The MLP.
    pub mlp: MlpSettings,
    /// Lipschitz cap L of the MLP (0: none).
    pub lipschitz_cap: f64,
}

impl Default for LabelParams {
    fn default() -> Self {
        Self {
            kind: LabelKind::Ridge,
            ridge: 1e-4,
            mlp: MlpSettings::default(),
            lipschitz_cap: 0.0,
        }
    }
}

impl LabelParams {
    /// Range checks.
    pub fn validate(&self) -> Result<(), ComputeError> {
        benchtop_learn::settings::non_negative("label.ridge", self.ridge)?;
        if !(self.lipschitz_cap.is_finite() && (0.0..=1e4).contains(&self.lipschitz_cap)) {
            return Err(ComputeError::invalid(
                "label.lipschitz_cap",
                "choose 0 (no cap) to 10000",
            ));
        }
        self.mlp.validate("label.mlp")
    }

    /// The cap, when there is one.
    pub fn cap(&self) -> Option<f64> {
        (self.lipschitz_cap > 0.0).then_some(self.lipschitz_cap)
    }
}

/// A fitted feature estimator.
pub enum FeatureModel {
    /// `x̂_w = base + G·u` with u = (x_o, 1) (linear, conditional mean) or
    /// u = (x_o, x_inj, 1) and base = x_inj (oracle plus noise with its correction).
    Linear {
        /// d_w × p.
        g: DMatrix<f64>,
        /// Whether the injected estimate is the base and an input (oracle plus noise).
        injected: bool,
    },
    /// An MLP x_o → x̂_w.
    Mlp(Net),
}

/// The inputs u of the linear feature model for the rows of `x_o` (and `inj`).
pub fn linear_inputs(x_o: &DMatrix<f64>, inj: Option<&DMatrix<f64>>) -> DMatrix<f64> {
    let ones = DMatrix::from_element(x_o.nrows(), 1, 1.0);
    match inj {
        Some(inj) => hstack(&hstack(x_o, inj), &ones),
        None => hstack(x_o, &ones),
    }
}

impl FeatureModel {
    /// The estimates for the rows of `x_o` (`inj`: the injected estimate of the same rows).
    pub fn estimate(
        &self,
        x_o: &DMatrix<f64>,
        inj: Option<&DMatrix<f64>>,
    ) -> Result<DMatrix<f64>, ComputeError> {
        match self {
            FeatureModel::Linear { g, injected } => {
                let base_inj = if *injected { inj } else { None };
                let u = linear_inputs(x_o, base_inj);
                let mut out = u * g.transpose();
                if let Some(inj) = base_inj {
                    out += inj;
                }
                Ok(out)
            }
            FeatureModel::Mlp(net) => net.predict(x_o),
        }
    }
}

/// A fitted label model on `(x_o, x̃_w)` (or on x_o alone for the observed-only baseline).
pub enum LabelModel {
    /// Ridge.
    Ridge(Ridge),
    /// An MLP.
    Mlp(Net),
    /// The training target's mean.
    Constant(f64),
}

impl LabelModel {
    /// Predictions for the rows of `z`.
    pub fn predict(&self, z: &DMatrix<f64>) -> Result<DVector<f64>, ComputeError> {
        match self {
            LabelModel::Ridge(r) => Ok(r.predict_vector(z)),
            LabelModel::Mlp(net) => Ok(net.predict(z)?.column(0).into_owned()),
            LabelModel::Constant(c) => Ok(DVector::from_element(z.nrows(), *c)),
        }
    }

    /// The model's output as a differentiable tensor of `z` (n × inputs) → (n × 1).
    fn forward(&self, z: &Tensor) -> Result<Tensor, ComputeError> {
        match self {
            LabelModel::Ridge(r) => {
                let w = tensor(&r.weights)?;
                Ok(z.matmul(&w)?.affine(1.0, r.intercept[0])?)
            }
            LabelModel::Mlp(net) => net.forward(z),
            LabelModel::Constant(c) => Ok(z.narrow(1, 0, 1)?.zeros_like()?.affine(1.0, *c)?),
        }
    }

    /// The Lipschitz constant in the inputs `columns` (exact for ridge: the norm of those
    /// coefficients; an upper bound for the MLP).
    pub fn lipschitz_in(&self, columns: std::ops::Range<usize>) -> Result<f64, ComputeError> {
        match self {
            LabelModel::Ridge(r) => Ok(r.weights.rows(columns.start, columns.len()).norm()),
            LabelModel::Mlp(net) => net.lipschitz_in(columns),
            LabelModel::Constant(_) => Ok(0.0),
        }
    }

    /// Ridge coefficients (inputs), when the model is ridge.
    pub fn coefficients(&self) -> Option<DVector<f64>> {
        match self {
            LabelModel::Ridge(r) => Some(r.weights.column(0).into_owned()),
            _ => None,
        }
    }
}

/// Fits h on `z` → `y`: ridge in closed form; an MLP from `seed` for its epochs, or, given
/// `warm`, that network trained on for `steps` more.
pub fn fit_label(
    params: &LabelParams,
    z: &DMatrix<f64>,
    y: &DVector<f64>,
    seed: u64,
    warm: Option<(LabelModel, usize)>,
    cancel: &CancelToken,
) -> Result<LabelModel, ComputeError> {
    cancel.check()?;
    match params.kind {
        LabelKind::Ridge => Ok(LabelModel::Ridge(Ridge::fit_vector(z, y, params.ridge)?)),
        LabelKind::Mlp => {
            let (net, steps) = match warm {
                Some((LabelModel::Mlp(net), steps)) => (net, steps),
                _ => (
                    Net::new(z.ncols(), params.mlp.hidden, 1, seed)?,
                    params.mlp.epochs,
                ),
            };
            let yt = tensor(&DMatrix::from_column_slice(y.len(), 1, y.as_slice()))?;
            net.train(
                &tensor(z)?,
                &yt,
                steps,
                params.mlp.learning_rate,
                params.cap(),
                cancel,
            )?;
            Ok(LabelModel::Mlp(net))
        }
    }
}

/// Everything a fit needs about one split's rows.
pub struct SplitView<'a> {
    /// Observed features.
    pub x_o: &'a DMatrix<f64>,
    /// True weak features (read only where the mask says present, or by the oracle).
    pub x_w: &'a DMatrix<f64>,
    /// Target.
    pub y: &'a DVector<f64>,
    /// True: the row misses its weak features.
    pub mask: &'a [bool],
    /// The injected estimate `x_w + e` of every row (oracle plus noise only).
    pub injected: Option<&'a DMatrix<f64>>,
}

impl SplitView<'_> {
    /// Indices of rows that have, and that miss, their weak features.
    pub fn partition(&self) -> (Vec<usize>, Vec<usize>) {
        let (missing, present): (Vec<usize>, Vec<usize>) =
            (0..self.mask.len()).partition(|&i| self.mask[i]);
        (present, missing)
    }

    /// `x̃_w`: the true value where present, f's estimate where missing.
    pub fn completed(&self, f: &FeatureModel) -> Result<DMatrix<f64>, ComputeError> {
        let (_, missing) = self.partition();
        let mut out = self.x_w.clone();
        if missing.is_empty() {
            return Ok(out);
        }
        let x_o = select_rows(self.x_o, &missing);
        let inj = self.injected.map(|m| select_rows(m, &missing));
        let estimate = f.estimate(&x_o, inj.as_ref())?;
        for (r, &i) in missing.iter().enumerate() {
            for k in 0..out.ncols() {
                out[(i, k)] = estimate[(r, k)];
            }
        }
        Ok(out)
    }
}

/// The sequential feature estimator: fitted on the rows that have x_w (linear, MLP), fixed
/// (conditional mean: `map`, d_w × d_o), or the injected estimate with no correction.
pub fn fit_feature(
    params: &EstimatorParams,
    split: &SplitView<'_>,
    conditional_mean: Option<&DMatrix<f64>>,
    seed: u64,
    cancel: &CancelToken,
) -> Result<FeatureModel, ComputeError> {
    cancel.check()?;
    let (d_o, d_w) = (split.x_o.ncols(), split.x_w.ncols());
    match params.kind {
        EstimatorKind::OracleNoise => Ok(FeatureModel::Linear {
            g: DMatrix::zeros(d_w, d_o + d_w + 1),
            injected: true,
        }),
        EstimatorKind::ConditionalMean => {
            let map = conditional_mean.ok_or_else(|| {
                ComputeError::Numerical("no population moments for E[x_w | x_o]".into())
            })?;
            Ok(FeatureModel::Linear {
                g: hstack(map, &DMatrix::zeros(d_w, 1)),
                injected: false,
            })
        }
        EstimatorKind::Linear | EstimatorKind::Mlp => {
            let (present, _) = split.partition();
            if present.len() < 2 {
                return Err(ComputeError::invalid(
                    "missing.rate",
                    format!(
                        "{} training rows have their weak features; f needs at least 2 (lower \
                         the missing rate, or choose the oracle or E[x_w | x_o] estimator)",
                        present.len()
                    ),
                ));
            }
            let x_o = select_rows(split.x_o, &present);
            let x_w = select_rows(split.x_w, &present);
            if params.kind == EstimatorKind::Linear {
                let fit = Ridge::fit(&x_o, &x_w, params.ridge)?;
                let g = hstack(
                    &fit.weights.transpose(),
                    &DMatrix::from_column_slice(d_w, 1, fit.intercept.as_slice()),
                );
                Ok(FeatureModel::Linear { g, injected: false })
            } else {
                let net = Net::new(d_o, params.mlp.hidden, d_w, seed)?;
                net.train(
                    &tensor(&x_o)?,
                    &tensor(&x_w)?,
                    params.mlp.epochs,
                    params.mlp.learning_rate,
                    None,
                    cancel,
                )?;
                Ok(FeatureModel::Mlp(net))
            }
        }
    }
}

/// One f-step of the iterative scheme: f minimises
/// `mean_present ‖x_w − f‖²/d_w + γ·mean_missing (y − h(x_o, f))²` with h fixed. A linear f
/// under a ridge h is solved exactly (with f's ridge penalty); otherwise `steps` Adam steps.
#[allow(clippy::too_many_arguments)] // the step's inputs are all distinct
pub fn feature_step(
    f: FeatureModel,
    h: &LabelModel,
    split: &SplitView<'_>,
    label_weight: f64,
    ridge: f64,
    steps: usize,
    learning_rate: f64,
    cancel: &CancelToken,
) -> Result<FeatureModel, ComputeError> {
    cancel.check()?;
    let (present, missing) = split.partition();
    let d_o = split.x_o.ncols();
    let d_w = split.x_w.ncols();
    match (f, h) {
        (FeatureModel::Linear { g, injected }, LabelModel::Ridge(r)) => {
            let inj = |rows: &[usize]| split.injected.map(|m| select_rows(m, rows));
            let base = |rows: &[usize]| -> DMatrix<f64> {
                match (injected, split.injected) {
                    (true, Some(m)) => select_rows(m, rows),
                    _ => DMatrix::zeros(rows.len(), d_w),
                }
            };
            let inputs = |rows: &[usize]| {
                let x_o = select_rows(split.x_o, rows);
                let inj_rows = if injected { inj(rows) } else { None };
                linear_inputs(&x_o, inj_rows.as_ref())
            };
            let p = g.ncols();
            let dim = d_w * p;
            let mut normal = DMatrix::<f64>::identity(dim, dim) * ridge;
            let mut rhs = DVector::<f64>::zeros(dim);
            if !present.is_empty() {
                let u = inputs(&present);
                let target = select_rows(split.x_w, &present) - base(&present);
                let scale = 1.0 / (present.len() * d_w) as f64;
                let gram = u.transpose() * &u * scale;
                let cross = u.transpose() * target * scale;
                for k in 0..d_w {
                    normal.view_mut((k * p, k * p), (p, p)).add_assign(&gram);
                    rhs.rows_mut(k * p, p).add_assign(&cross.column(k));
                }
            }
            if !missing.is_empty() && label_weight > 0.0 {
                let u = inputs(&missing);
                let w_o = r.weights.rows(0, d_o).column(0).into_owned();
                let w_w = r.weights.rows(d_o, d_w).column(0).into_owned();
                let x_o = select_rows(split.x_o, &missing);
                let y = select_entries(split.y, &missing);
                // s = y − c − w_oᵀx_o − w_wᵀ·base
                let s = y - (&x_o * &w_o).add_scalar(r.intercept[0]) - base(&missing) * &w_w;
                let scale = label_weight / missing.len() as f64;
                let gram = u.transpose() * &u * scale;
                let cross = u.transpose() * s * scale;
                for a in 0..d_w {
                    for b in 0..d_w {
                        let weight = w_w[a] * w_w[b];
                        normal
                            .view_mut((a * p, b * p), (p, p))
                            .add_assign(&(&gram * weight));
                    }
                    rhs.rows_mut(a * p, p).add_assign(&(&cross * w_w[a]));
                }
            }
            let solution = crate::linear::solve_spd(
                normal,
                &DMatrix::from_column_slice(dim, 1, rhs.as_slice()),
            )?;
            let g = DMatrix::from_fn(d_w, p, |k, j| solution[(k * p + j, 0)]);
            Ok(FeatureModel::Linear { g, injected })
        }
        (f, h) => gradient_feature_step(
            f,
            h,
            split,
            (&present, &missing),
            label_weight,
            steps,
            learning_rate,
            cancel,
        ),
    }
}

/// The f-step by Adam through h (candle), for an MLP f or an MLP h.
#[allow(clippy::too_many_arguments)] // the step's inputs are all distinct
fn gradient_feature_step(
    f: FeatureModel,
    h: &LabelModel,
    split: &SplitView<'_>,
    (present, missing): (&[usize], &[usize]),
    label_weight: f64,
    steps: usize,
    learning_rate: f64,
    cancel: &CancelToken,
) -> Result<FeatureModel, ComputeError> {
    // f's trainable part and how it maps rows' inputs to estimates.
    enum Trainable {
        Linear { g: Var, injected: bool },
        Mlp(Net),
    }
    let trainable = match f {
        FeatureModel::Linear { g, injected } => Trainable::Linear {
            g: Var::from_tensor(&tensor(&g)?)?,
            injected,
        },
        FeatureModel::Mlp(net) => Trainable::Mlp(net),
    };
    struct Rows {
        x_o: Tensor,
        u: Option<Tensor>,
        base: Option<Tensor>,
    }
    let rows_of = |rows: &[usize], injected: bool| -> Result<Rows, ComputeError> {
        let x_o = select_rows(split.x_o, rows);
        let inj = split.injected.map(|m| select_rows(m, rows));
        let inj_used = if injected { inj.as_ref() } else { None };
        Ok(Rows {
            x_o: tensor(&x_o)?,
            u: Some(tensor(&linear_inputs(&x_o, inj_used))?),
            base: inj_used.map(tensor).transpose()?,
        })
    };
    let injected_flag = matches!(trainable, Trainable::Linear { injected: true, .. });
    let estimate = |rows: &Rows| -> Result<Tensor, ComputeError> {
        match &trainable {
            Trainable::Linear { g, .. } => {
                let u = rows
                    .u
                    .as_ref()
                    .ok_or_else(|| ComputeError::Numerical("no inputs".into()))?;
                let out = u.matmul(&g.as_tensor().t()?)?;
                Ok(match &rows.base {
                    Some(b) => (out + b)?,
                    None => out,
                })
            }
            Trainable::Mlp(net) => net.forward(&rows.x_o),
        }
    };
    let present_rows = (!present.is_empty())
        .then(|| rows_of(present, injected_flag))
        .transpose()?;
    let present_target = (!present.is_empty())
        .then(|| tensor(&select_rows(split.x_w, present)))
        .transpose()?;
    let missing_rows = (!missing.is_empty() && label_weight > 0.0)
        .then(|| rows_of(missing, injected_flag))
        .transpose()?;
    let missing_y = (!missing.is_empty())
        .then(|| {
            let y = select_entries(split.y, missing);
            tensor(&DMatrix::from_column_slice(y.len(), 1, y.as_slice()))
        })
        .transpose()?;
    let vars: Vec<Var> = match &trainable {
        Trainable::Linear { g, .. } => vec![g.clone()],
        Trainable::Mlp(net) => net.vars().to_vec(),
    };
    let mut adam = benchtop_learn::adam::VarAdam::new(
        vars,
        benchtop_learn::adam::AdamConfig::new(learning_rate),
    )?;
    for step in 0..steps {
        if step % 32 == 0 {
            cancel.check()?;
        }
        let mut loss: Option<Tensor> = None;
        if let (Some(rows), Some(target)) = (&present_rows, &present_target) {
            let l = (estimate(rows)? - target)?.sqr()?.mean_all()?;
            loss = Some(l);
        }
        if let (Some(rows), Some(y)) = (&missing_rows, &missing_y) {
            let z = Tensor::cat(&[&rows.x_o, &estimate(rows)?], 1)?;
            let l = (h.forward(&z)? - y)?
                .sqr()?
                .mean_all()?
                .affine(label_weight, 0.0)?;
            loss = Some(match loss {
                Some(prev) => (prev + l)?,
                None => l,
            });
        }
        let Some(loss) = loss else { break };
        adam.step(&loss)?;
    }
    Ok(match trainable {
        Trainable::Linear { g, injected } => FeatureModel::Linear {
            g: matrix(g.as_tensor())?,
            injected,
        },
        Trainable::Mlp(net) => FeatureModel::Mlp(net),
    })
}
