//! Small multilayer perceptrons on benchtop-learn's `Mlp` (candle, f64, one hidden ReLU layer),
//! seeded, trained full batch with benchtop-learn's Adam, and optionally held to a Lipschitz
//! cap: after every step each weight matrix whose spectral norm exceeds `cap^(1/2)` is scaled
//! back to it, so the network (ReLU is 1-Lipschitz) is at most `cap`-Lipschitz.

use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError};
use benchtop_learn::adam::{AdamConfig, VarAdam};
use benchtop_learn::nn::{Activation, Mlp};
use candle_core::{DType, Device, Tensor, Var};
use candle_nn::{VarBuilder, VarMap};
use nalgebra::DMatrix;
use rand_distr::{Distribution as _, Uniform};
use serde::{Deserialize, Serialize};

/// Settings of one network and its training.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MlpSettings {
    /// Hidden units.
    pub hidden: usize,
    /// Full-batch Adam steps of the first fit.
    pub epochs: usize,
    /// Adam's step size.
    pub learning_rate: f64,
}

impl Default for MlpSettings {
    fn default() -> Self {
        Self {
            hidden: 32,
            epochs: 300,
            learning_rate: 0.01,
        }
    }
}

impl MlpSettings {
    /// Range checks under `prefix`.
    pub fn validate(&self, prefix: &str) -> Result<(), ComputeError> {
        benchtop_learn::settings::whole_in(&format!("{prefix}.hidden"), self.hidden, 1..=512)?;
        benchtop_learn::settings::whole_in(&format!("{prefix}.epochs"), self.epochs, 1..=100_000)?;
        benchtop_learn::settings::positive(&format!("{prefix}.learning_rate"), self.learning_rate)
    }
}

/// A network `inputs → hidden (ReLU) → outputs`.
pub struct Net {
    varmap: VarMap,
    mlp: Mlp,
    /// Weight variables of the two layers, input layer first.
    weights: [Var; 2],
    vars: Vec<Var>,
    inputs: usize,
}

/// The CPU device every network uses.
pub fn device() -> Device {
    Device::Cpu
}

/// A matrix (n × p) as a row-major candle tensor.
pub fn tensor(m: &DMatrix<f64>) -> Result<Tensor, ComputeError> {
    let (n, p) = m.shape();
    let data: Vec<f64> = (0..n)
        .flat_map(|i| (0..p).map(move |j| m[(i, j)]))
        .collect();
    Ok(Tensor::from_vec(data, (n, p), &device())?)
}

/// A (n × p) tensor back to a matrix.
pub fn matrix(t: &Tensor) -> Result<DMatrix<f64>, ComputeError> {
    let rows = t.to_dtype(DType::F64)?.to_vec2::<f64>()?;
    let n = rows.len();
    let p = rows.first().map_or(0, Vec::len);
    Ok(DMatrix::from_fn(n, p, |i, j| rows[i][j]))
}

/// Spectral norm of a (out × in) matrix by power iteration.
fn spectral_norm(w: &[Vec<f64>]) -> f64 {
    let cols = w.first().map_or(0, Vec::len);
    if cols == 0 {
        return 0.0;
    }
    let mut v = vec![1.0 / (cols as f64).sqrt(); cols];
    let mut sigma = 0.0;
    for _ in 0..50 {
        let u: Vec<f64> = w
            .iter()
            .map(|row| row.iter().zip(&v).map(|(a, b)| a * b).sum())
            .collect();
        let mut next = vec![0.0; cols];
        for (row, ui) in w.iter().zip(&u) {
            for (n, a) in next.iter_mut().zip(row) {
                *n += a * ui;
            }
        }
        let norm = next.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm == 0.0 {
            return 0.0;
        }
        let previous = sigma;
        sigma = norm.sqrt();
        v = next.iter().map(|x| x / norm).collect();
        if (sigma - previous).abs() <= 1e-10 * sigma {
            break;
        }
    }
    sigma
}

impl Net {
    /// A network with weights drawn from `seed`: U(−1/√fan_in, 1/√fan_in), as PyTorch's
    /// default.
    pub fn new(
        inputs: usize,
        hidden: usize,
        outputs: usize,
        seed: u64,
    ) -> Result<Self, ComputeError> {
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F64, &device());
        let mlp = Mlp::new(&vb, &[inputs, hidden, outputs], Activation::Relu)?;
        let named: Vec<(String, Var)> = {
            let data = varmap
                .data()
                .lock()
                .map_err(|_| ComputeError::Numerical("network weights lock poisoned".into()))?;
            let mut named: Vec<(String, Var)> =
                data.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            named.sort_by(|a, b| a.0.cmp(&b.0));
            named
        };
        for (stream, (name, var)) in named.iter().enumerate() {
            let fan_in = if name.starts_with("layer0") {
                inputs
            } else {
                hidden
            };
            let bound = 1.0 / (fan_in as f64).sqrt();
            let uniform = Uniform::new_inclusive(-bound, bound)
                .map_err(|e| ComputeError::Numerical(format!("initialiser: {e}")))?;
            let mut rng = seeded(derive_seed(seed, stream as u64));
            let values: Vec<f64> = (0..var.elem_count())
                .map(|_| uniform.sample(&mut rng))
                .collect();
            var.set(&Tensor::from_vec(values, var.shape(), &device())?)?;
        }
        let find = |wanted: &str| {
            named
                .iter()
                .find(|(n, _)| n == wanted)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| ComputeError::Numerical(format!("no variable {wanted}")))
        };
        let weights = [find("layer0.weight")?, find("layer1.weight")?];
        let vars = named.into_iter().map(|(_, v)| v).collect();
        Ok(Self {
            varmap,
            mlp,
            weights,
            vars,
            inputs,
        })
    }

    /// The network's variables (weights and biases).
    pub fn vars(&self) -> &[Var] {
        &self.vars
    }

    /// The number of inputs.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// The output for `x` (n × inputs), differentiable.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor, ComputeError> {
        self.mlp.forward(x)
    }

    /// The output for the rows of `x`.
    pub fn predict(&self, x: &DMatrix<f64>) -> Result<DMatrix<f64>, ComputeError> {
        matrix(&self.forward(&tensor(x)?)?)
    }

    /// Scales any layer whose spectral norm exceeds `cap^(1/2)` back to it.
    pub fn project(&self, cap: f64) -> Result<(), ComputeError> {
        let per_layer = cap.sqrt();
        for w in &self.weights {
            let rows = w.as_tensor().to_vec2::<f64>()?;
            let norm = spectral_norm(&rows);
            if norm > per_layer {
                let scaled = w.as_tensor().affine(per_layer / norm, 0.0)?;
                w.set(&scaled)?;
            }
        }
        Ok(())
    }

    /// An upper bound of the Lipschitz constant in the inputs `columns` (indices into the
    /// input): ‖W₂‖·‖W₁[:, columns]‖ (spectral norms; ReLU is 1-Lipschitz).
    pub fn lipschitz_in(&self, columns: std::ops::Range<usize>) -> Result<f64, ComputeError> {
        let first = self.weights[0].as_tensor().to_vec2::<f64>()?;
        let restricted: Vec<Vec<f64>> = first
            .iter()
            .map(|row| row[columns.clone()].to_vec())
            .collect();
        let second = self.weights[1].as_tensor().to_vec2::<f64>()?;
        Ok(spectral_norm(&second) * spectral_norm(&restricted))
    }

    /// Trains on mean squared error for `steps` full-batch Adam steps, keeping the Lipschitz
    /// `cap` when given; returns the last loss.
    pub fn train(
        &self,
        x: &Tensor,
        y: &Tensor,
        steps: usize,
        learning_rate: f64,
        cap: Option<f64>,
        cancel: &CancelToken,
    ) -> Result<f64, ComputeError> {
        let mut adam = VarAdam::new(self.vars.clone(), AdamConfig::new(learning_rate))?;
        let mut last = f64::NAN;
        if let Some(cap) = cap {
            self.project(cap)?;
        }
        for step in 0..steps {
            if step % 32 == 0 {
                cancel.check()?;
            }
            let loss = (self.forward(x)? - y)?.sqr()?.mean_all()?;
            last = loss.to_scalar::<f64>()?;
            if !last.is_finite() {
                return Err(ComputeError::Numerical(
                    "the network's loss diverged (lower the learning rate)".into(),
                ));
            }
            adam.step(&loss)?;
            if let Some(cap) = cap {
                self.project(cap)?;
            }
        }
        Ok(last)
    }

    /// The variable map (kept alive with the network).
    pub fn varmap(&self) -> &VarMap {
        &self.varmap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wf_mlp_fits_a_smooth_map_and_keeps_its_cap() {
        let x = DMatrix::from_fn(200, 2, |i, j| ((i * 13 + j * 7) % 41) as f64 / 20.0 - 1.0);
        let y = DMatrix::from_fn(200, 1, |i, _| (2.0 * x[(i, 0)]).sin() + x[(i, 1)]);
        let net = Net::new(2, 32, 1, 5).unwrap();
        let (xt, yt) = (tensor(&x).unwrap(), tensor(&y).unwrap());
        let loss = net
            .train(&xt, &yt, 800, 0.01, None, &CancelToken::new())
            .unwrap();
        assert!(loss < 0.01, "free fit loss {loss}");
        // The same seed gives the same bits.
        let again = Net::new(2, 32, 1, 5).unwrap();
        let loss2 = again
            .train(&xt, &yt, 800, 0.01, None, &CancelToken::new())
            .unwrap();
        assert_eq!(loss.to_bits(), loss2.to_bits());
        // A cap of 0.5 cannot follow a slope-2 function: worse fit, Lipschitz bound held.
        let capped = Net::new(2, 32, 1, 5).unwrap();
        let capped_loss = capped
            .train(&xt, &yt, 800, 0.01, Some(0.5), &CancelToken::new())
            .unwrap();
        assert!(capped_loss > 5.0 * loss, "{capped_loss} vs {loss}");
        assert!(capped.lipschitz_in(0..2).unwrap() <= 0.5 + 1e-9);
        let w = vec![vec![3.0, 0.0], vec![0.0, 1.0]];
        assert!((spectral_norm(&w) - 3.0).abs() < 1e-9);
    }
}
