//! The learners compared under one budget, on one input layout.
//!
//! Every learner sees the same training set: the Hamiltonian parameters of n chains (couplings,
//! then fields) and, when its inputs include measurements, shadow features of each state (the
//! shadow estimates of ⟨X_i⟩, ⟨Y_i⟩, ⟨Z_i⟩ per site and ⟨XX⟩, ⟨YY⟩, ⟨ZZ⟩ per bond from its M
//! snapshots); the targets are shadow estimates from the same M snapshots. Hyperparameters of
//! the classical learners are chosen by k-fold cross-validation on the training set, one
//! choice per group of targets (correlations, entropies, order parameter); the networks stop
//! early on a validation split of it.
//!
//! - [`linear`]: ridge and Lasso (coordinate descent on the Gram matrix).
//! - [`kernel`]: kernel ridge with the RBF and the Dirichlet kernel.
//! - [`neural`]: an MLP and a small 1-D CNN over the sites, in candle.

pub mod kernel;
pub mod linear;
pub mod neural;

use std::ops::Range;

use benchtop_compute::{CancelToken, ComputeError};
use nalgebra::DMatrix;
use rand::seq::SliceRandom as _;
use serde::{Deserialize, Serialize};

use crate::hamiltonian::{Boundary, Model, bonds};

/// A learner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Learner {
    /// Ridge regression, λ by cross-validation.
    Ridge,
    /// Lasso, λ by cross-validation.
    Lasso,
    /// Kernel ridge with the RBF kernel, bandwidth and λ by cross-validation.
    KernelRbf,
    /// Kernel ridge with the Dirichlet kernel, order, frequency and λ by cross-validation.
    KernelDirichlet,
    /// A multilayer perceptron, early stopping on a validation split.
    Mlp,
    /// A 1-D convolutional network over the sites, early stopping on a validation split.
    Cnn,
}

impl Learner {
    /// Every learner, classical first.
    pub const ALL: [Self; 6] = [
        Self::Ridge,
        Self::Lasso,
        Self::KernelRbf,
        Self::KernelDirichlet,
        Self::Mlp,
        Self::Cnn,
    ];

    /// The key in summary.json and sweeps.
    pub fn key(self) -> &'static str {
        match self {
            Self::Ridge => "ridge",
            Self::Lasso => "lasso",
            Self::KernelRbf => "kernel_rbf",
            Self::KernelDirichlet => "kernel_dirichlet",
            Self::Mlp => "mlp",
            Self::Cnn => "cnn",
        }
    }

    /// The name in figures.
    pub fn label(self) -> &'static str {
        match self {
            Self::Ridge => "Ridge",
            Self::Lasso => "Lasso",
            Self::KernelRbf => "Kernel (RBF)",
            Self::KernelDirichlet => "Kernel (Dirichlet)",
            Self::Mlp => "MLP",
            Self::Cnn => "CNN",
        }
    }

    /// Whether this is a deep model (the paper's DL side).
    pub fn is_deep(self) -> bool {
        matches!(self, Self::Mlp | Self::Cnn)
    }
}

/// What a learner is given about each chain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Inputs {
    /// The Hamiltonian's parameters only.
    Parameters,
    /// The parameters and the shadow features of the state's M snapshots.
    #[default]
    ParametersAndShadows,
}

impl Inputs {
    /// Whether the inputs include measurements.
    pub fn has_shadows(self) -> bool {
        self == Self::ParametersAndShadows
    }
}

/// Where each number sits in a chain's inputs, so the CNN can lay them out along the sites.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Sites L.
    pub sites: usize,
    /// Bonds, in the order of the couplings.
    pub bonds: Vec<(usize, usize)>,
    /// Whether the parameters include one field per site (TFIM).
    pub fields: bool,
}

impl Layout {
    /// The layout of a model's chains.
    pub fn new(model: Model, boundary: Boundary, sites: usize) -> Self {
        Self {
            sites,
            bonds: bonds(sites, boundary),
            fields: model == Model::Tfim,
        }
    }

    /// Parameters per chain.
    pub fn parameter_count(&self) -> usize {
        self.bonds.len() + if self.fields { self.sites } else { 0 }
    }

    /// Shadow features per chain: 3 per site, 3 per bond.
    pub fn shadow_count(&self) -> usize {
        3 * self.sites + 3 * self.bonds.len()
    }

    /// The bond starting at `site` (to its right), if any.
    fn right_bond(&self, site: usize) -> Option<usize> {
        self.bonds.iter().position(|&(i, _)| i == site)
    }

    /// The bond ending at `site` (to its left), if any.
    fn left_bond(&self, site: usize) -> Option<usize> {
        self.bonds.iter().position(|&(_, j)| j == site)
    }
}

/// The inputs of a set of chains: one row per chain.
#[derive(Clone, Debug, PartialEq)]
pub struct InputSet {
    /// Couplings then fields (n × parameters).
    pub parameters: DMatrix<f64>,
    /// Shadow features (n × shadows): ⟨X_i⟩, ⟨Y_i⟩, ⟨Z_i⟩ per site, then ⟨XX⟩, ⟨YY⟩, ⟨ZZ⟩
    /// per bond.
    pub shadows: DMatrix<f64>,
}

impl InputSet {
    /// Chains in the set.
    pub fn len(&self) -> usize {
        self.parameters.nrows()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first `n` chains.
    pub fn head(&self, n: usize) -> Self {
        Self {
            parameters: self.parameters.rows(0, n).into_owned(),
            shadows: self.shadows.rows(0, n).into_owned(),
        }
    }

    /// The same parameters with the shadow rows permuted by `order` (the randomisation test).
    pub fn with_shadows_permuted(&self, order: &[usize]) -> Self {
        let shadows = DMatrix::from_fn(self.shadows.nrows(), self.shadows.ncols(), |r, c| {
            self.shadows[(order[r], c)]
        });
        Self {
            parameters: self.parameters.clone(),
            shadows,
        }
    }

    /// The flat design matrix a learner with `inputs` sees.
    pub fn flat(&self, inputs: Inputs) -> DMatrix<f64> {
        if inputs.has_shadows() {
            let (n, p, s) = (self.len(), self.parameters.ncols(), self.shadows.ncols());
            DMatrix::from_fn(n, p + s, |r, c| {
                if c < p {
                    self.parameters[(r, c)]
                } else {
                    self.shadows[(r, c - p)]
                }
            })
        } else {
            self.parameters.clone()
        }
    }
}

/// Column means and standard deviations of a training matrix (a constant column keeps sd 1).
#[derive(Clone, Debug, PartialEq)]
pub struct Standardiser {
    mean: Vec<f64>,
    sd: Vec<f64>,
}

impl Standardiser {
    /// Fitted on the columns of `x`.
    pub fn fit(x: &DMatrix<f64>) -> Self {
        let n = x.nrows().max(1) as f64;
        let (mut mean, mut sd) = (Vec::new(), Vec::new());
        for column in x.column_iter() {
            let m = column.sum() / n;
            let v = column.iter().map(|v| (v - m).powi(2)).sum::<f64>() / n;
            mean.push(m);
            sd.push(if v > 1e-24 { v.sqrt() } else { 1.0 });
        }
        Self { mean, sd }
    }

    /// `x` with the fitted columns standardised.
    pub fn apply(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        DMatrix::from_fn(x.nrows(), x.ncols(), |r, c| {
            (x[(r, c)] - self.mean[c]) / self.sd[c]
        })
    }

    /// Standardised values back in the original units.
    pub fn invert(&self, z: &DMatrix<f64>) -> DMatrix<f64> {
        DMatrix::from_fn(z.nrows(), z.ncols(), |r, c| {
            z[(r, c)] * self.sd[c] + self.mean[c]
        })
    }

    /// The column means.
    pub fn means(&self) -> &[f64] {
        &self.mean
    }
}

/// Settings of the learners.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LearnerSettings {
    /// Cross-validation folds for the classical learners.
    pub folds: usize,
    /// Hidden units of the MLP's two layers and of the CNN's dense layer.
    pub hidden: usize,
    /// Channels of the CNN's two convolutions.
    pub channels: usize,
    /// Most training epochs of the networks.
    pub max_epochs: usize,
    /// Epochs without a better validation loss before the networks stop.
    pub patience: usize,
    /// Adam's step size.
    pub learning_rate: f64,
    /// L2 weight decay of the networks.
    pub weight_decay: f64,
    /// Share of the training chains held out to stop the networks.
    pub validation_fraction: f64,
}

impl Default for LearnerSettings {
    fn default() -> Self {
        Self {
            folds: 5,
            hidden: 64,
            channels: 16,
            max_epochs: 2000,
            patience: 100,
            learning_rate: 3e-3,
            weight_decay: 1e-4,
            validation_fraction: 0.2,
        }
    }
}

impl LearnerSettings {
    /// Checks every field, errors naming `prefix.key`.
    pub fn validate(&self, prefix: &str) -> Result<(), ComputeError> {
        use benchtop_learn::settings::{non_negative, positive, whole_in};
        let key = |k: &str| format!("{prefix}.{k}");
        whole_in(&key("folds"), self.folds, 2..=20)?;
        whole_in(&key("hidden"), self.hidden, 1..=4096)?;
        whole_in(&key("channels"), self.channels, 1..=512)?;
        whole_in(&key("max_epochs"), self.max_epochs, 1..=100_000)?;
        whole_in(&key("patience"), self.patience, 1..=100_000)?;
        positive(&key("learning_rate"), self.learning_rate)?;
        non_negative(&key("weight_decay"), self.weight_decay)?;
        if !(self.validation_fraction > 0.0 && self.validation_fraction < 0.9) {
            return Err(ComputeError::invalid(
                key("validation_fraction"),
                "choose a share between 0 and 0.9",
            ));
        }
        Ok(())
    }
}

/// One learning problem: training inputs and targets (n × T, split into groups of columns that
/// share hyperparameters) and the inputs to predict.
pub struct Problem<'a> {
    /// The chains' layout.
    pub layout: &'a Layout,
    /// Training inputs.
    pub train: &'a InputSet,
    /// Training targets (shadow estimates).
    pub targets: &'a DMatrix<f64>,
    /// Column groups of the targets.
    pub groups: &'a [Range<usize>],
    /// Inputs to predict.
    pub test: &'a InputSet,
    /// What the learner sees.
    pub inputs: Inputs,
}

/// Trains `learner` on `problem` and predicts its test inputs (n_test × T).
pub fn fit_predict(
    learner: Learner,
    problem: &Problem<'_>,
    settings: &LearnerSettings,
    seed: u64,
    cancel: &CancelToken,
) -> Result<DMatrix<f64>, ComputeError> {
    if problem.train.len() < 4 {
        return Err(ComputeError::invalid(
            "budget.train_samples",
            "the learners need at least 4 training chains",
        ));
    }
    let x_train = problem.train.flat(problem.inputs);
    let x_test = problem.test.flat(problem.inputs);
    let scaler = Standardiser::fit(&x_train);
    let (x_train, x_test) = (scaler.apply(&x_train), scaler.apply(&x_test));
    let folds = fold_of(x_train.nrows(), settings.folds, seed);
    match learner {
        Learner::Ridge => linear::ridge(&x_train, problem.targets, problem.groups, &x_test, &folds),
        Learner::Lasso => linear::lasso(
            &x_train,
            problem.targets,
            problem.groups,
            &x_test,
            &folds,
            cancel,
        ),
        Learner::KernelRbf | Learner::KernelDirichlet => kernel::kernel_ridge(
            learner,
            &x_train,
            problem.targets,
            problem.groups,
            &x_test,
            &folds,
            cancel,
        ),
        Learner::Mlp | Learner::Cnn => neural::fit_predict(
            learner,
            &neural::Scaled {
                layout: problem.layout,
                inputs: problem.inputs,
                x: &x_train,
                y: problem.targets,
                x_test: &x_test,
            },
            settings,
            seed,
            cancel,
        ),
    }
}

/// The fold (0..k) of each of `n` rows, balanced and shuffled by `seed`.
pub fn fold_of(n: usize, k: usize, seed: u64) -> Vec<usize> {
    let k = k.clamp(2, n.max(2));
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut benchtop_compute::rng::seeded(seed ^ 0xf01d));
    let mut fold = vec![0; n];
    for (position, &row) in order.iter().enumerate() {
        fold[row] = position % k;
    }
    fold
}

/// The rows of `m` whose `keep` is true.
pub fn select_rows(m: &DMatrix<f64>, keep: &[bool]) -> DMatrix<f64> {
    let rows: Vec<usize> = (0..m.nrows()).filter(|&r| keep[r]).collect();
    DMatrix::from_fn(rows.len(), m.ncols(), |r, c| m[(rows[r], c)])
}

/// The columns `range` of `m`.
pub fn columns(m: &DMatrix<f64>, range: &Range<usize>) -> DMatrix<f64> {
    m.columns(range.start, range.len()).into_owned()
}

/// Sum of squared differences.
pub fn squared_error(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    a.iter().zip(b.iter()).map(|(x, y)| (x - y).powi(2)).sum()
}

/// Chooses, for one group of targets `y`, the hyperparameter (by index) whose k-fold
/// cross-validation error is lowest. `predict(train_rows, x_train, y_train, x_val)` returns one
/// prediction matrix per candidate.
pub fn cross_validate(
    x: &DMatrix<f64>,
    y: &DMatrix<f64>,
    folds: &[usize],
    candidates: usize,
    mut predict: impl FnMut(
        &DMatrix<f64>,
        &DMatrix<f64>,
        &DMatrix<f64>,
    ) -> Result<Vec<DMatrix<f64>>, ComputeError>,
) -> Result<usize, ComputeError> {
    let k = folds.iter().copied().max().map_or(0, |m| m + 1);
    let mut errors = vec![0.0; candidates];
    for fold in 0..k {
        let train: Vec<bool> = folds.iter().map(|&f| f != fold).collect();
        let val: Vec<bool> = train.iter().map(|t| !t).collect();
        let (x_train, y_train) = (select_rows(x, &train), select_rows(y, &train));
        let (x_val, y_val) = (select_rows(x, &val), select_rows(y, &val));
        if x_val.nrows() == 0 || x_train.nrows() < 2 {
            continue;
        }
        let predictions = predict(&x_train, &y_train, &x_val)?;
        for (e, p) in errors.iter_mut().zip(&predictions) {
            *e += squared_error(p, &y_val);
        }
    }
    Ok(errors
        .iter()
        .enumerate()
        .fold(
            (0, f64::INFINITY),
            |best, (i, &e)| {
                if e < best.1 { (i, e) } else { best }
            },
        )
        .0)
}

/// The column means of `y` and `y` centred on them.
pub fn centre(y: &DMatrix<f64>) -> (Vec<f64>, DMatrix<f64>) {
    let n = y.nrows().max(1) as f64;
    let means: Vec<f64> = y.column_iter().map(|c| c.sum() / n).collect();
    let centred = DMatrix::from_fn(y.nrows(), y.ncols(), |r, c| y[(r, c)] - means[c]);
    (means, centred)
}

/// `p` with `means` added to its columns.
pub fn uncentre(p: &DMatrix<f64>, means: &[f64]) -> DMatrix<f64> {
    DMatrix::from_fn(p.nrows(), p.ncols(), |r, c| p[(r, c)] + means[c])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantum_folds_are_balanced_and_standardising_inverts() {
        let folds = fold_of(23, 5, 1);
        for f in 0..5 {
            let count = folds.iter().filter(|&&x| x == f).count();
            assert!((4..=5).contains(&count));
        }
        let x = DMatrix::from_fn(6, 3, |r, c| {
            (r * 3 + c) as f64 * 0.7 + if c == 2 { 0.0 } else { 1.0 }
        });
        let s = Standardiser::fit(&x);
        let z = s.apply(&x);
        assert!(z.column(0).sum().abs() < 1e-12);
        assert!((s.invert(&z) - &x).amax() < 1e-12);
    }
}
