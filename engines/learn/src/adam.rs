//! Adam (Kingma and Ba) with bias correction, as PyTorch's `torch.optim.Adam`: L2 weight decay
//! is added to the gradient. [`Adam`] updates an `f64` slice; [`VarAdam`] updates candle
//! variables with the same rule.

use benchtop_compute::ComputeError;
use candle_core::{Tensor, Var};
use serde::{Deserialize, Serialize};

/// Adam's constants.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdamConfig {
    /// Step size η.
    pub learning_rate: f64,
    /// Decay of the first moment β₁.
    pub beta1: f64,
    /// Decay of the second moment β₂.
    pub beta2: f64,
    /// ε added to the root of the second moment.
    pub epsilon: f64,
    /// L2 weight decay λ: λ·θ is added to the gradient (0: none).
    pub weight_decay: f64,
}

impl AdamConfig {
    /// The usual constants (β₁ = 0.9, β₂ = 0.999, ε = 10⁻⁸) at `learning_rate`, no decay.
    pub fn new(learning_rate: f64) -> Self {
        Self {
            learning_rate,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            weight_decay: 0.0,
        }
    }

    /// The same with L2 weight decay `weight_decay`.
    pub fn with_weight_decay(self, weight_decay: f64) -> Self {
        Self {
            weight_decay,
            ..self
        }
    }

    /// The bias corrections 1 − β₁ᵗ and 1 − β₂ᵗ after `steps` steps.
    fn corrections(&self, steps: i32) -> (f64, f64) {
        (1.0 - self.beta1.powi(steps), 1.0 - self.beta2.powi(steps))
    }
}

/// Adam on a vector of `f64` parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Adam {
    /// The constants; the learning rate may be changed between steps (schedules).
    pub config: AdamConfig,
    first: Vec<f64>,
    second: Vec<f64>,
    steps: i32,
}

impl Adam {
    /// An optimiser for `len` parameters at `learning_rate` (β₁ = 0.9, β₂ = 0.999, ε = 10⁻⁸).
    pub fn new(len: usize, learning_rate: f64) -> Self {
        Self::with_config(len, AdamConfig::new(learning_rate))
    }

    /// An optimiser for `len` parameters with `config`.
    pub fn with_config(len: usize, config: AdamConfig) -> Self {
        Self {
            config,
            first: vec![0.0; len],
            second: vec![0.0; len],
            steps: 0,
        }
    }

    /// Steps taken so far.
    pub fn steps(&self) -> i32 {
        self.steps
    }

    /// Updates `params` in place with `gradient` (both of the length given at construction).
    pub fn step(&mut self, params: &mut [f64], gradient: &[f64]) {
        self.steps = self.steps.saturating_add(1);
        let c = self.config;
        let (correction1, correction2) = c.corrections(self.steps);
        for (((p, g), m), v) in params
            .iter_mut()
            .zip(gradient)
            .zip(&mut self.first)
            .zip(&mut self.second)
        {
            let g = g + c.weight_decay * *p;
            *m = c.beta1 * *m + (1.0 - c.beta1) * g;
            *v = c.beta2 * *v + (1.0 - c.beta2) * g * g;
            let m_hat = *m / correction1;
            let v_hat = *v / correction2;
            *p -= c.learning_rate * m_hat / (v_hat.sqrt() + c.epsilon);
        }
    }
}

/// Adam on candle variables; the moments are detached, so no step's graph survives.
pub struct VarAdam {
    /// The constants; the learning rate may be changed between steps (schedules).
    pub config: AdamConfig,
    vars: Vec<Var>,
    first: Vec<Tensor>,
    second: Vec<Tensor>,
    steps: i32,
}

impl VarAdam {
    /// An optimiser over `vars` with zero moments.
    pub fn new(vars: Vec<Var>, config: AdamConfig) -> Result<Self, ComputeError> {
        let zeros = vars
            .iter()
            .map(|v| v.as_tensor().zeros_like())
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            config,
            vars,
            first: zeros.clone(),
            second: zeros,
            steps: 0,
        })
    }

    /// Backpropagates `loss` and updates every variable (a variable without a gradient is left
    /// as it is).
    pub fn step(&mut self, loss: &Tensor) -> Result<(), ComputeError> {
        let grads = loss.backward()?;
        self.steps = self.steps.saturating_add(1);
        let c = self.config;
        let (correction1, correction2) = c.corrections(self.steps);
        let step_size = c.learning_rate / correction1;
        for ((var, m), v) in self.vars.iter().zip(&mut self.first).zip(&mut self.second) {
            let theta = var.as_tensor().detach();
            let Some(g) = grads.get(var.as_tensor()) else {
                continue;
            };
            let mut g = g.detach();
            if c.weight_decay > 0.0 {
                g = (g + theta.affine(c.weight_decay, 0.0)?)?;
            }
            *m = m
                .affine(c.beta1, 0.0)?
                .add(&g.affine(1.0 - c.beta1, 0.0)?)?
                .detach();
            *v = v
                .affine(c.beta2, 0.0)?
                .add(&g.sqr()?.affine(1.0 - c.beta2, 0.0)?)?
                .detach();
            let denominator = (v.affine(1.0 / correction2, 0.0)?.sqrt()? + c.epsilon)?;
            let update = m.div(&denominator)?.affine(step_size, 0.0)?;
            var.set(&theta.sub(&update)?)?;
        }
        Ok(())
    }
}

/// The cosine decay from `base` at `fraction` = 0 to `floor`·`base` at `fraction` ≥ 1.
pub fn cosine_decay(base: f64, fraction: f64, floor: f64) -> f64 {
    let fraction = fraction.clamp(0.0, 1.0);
    base * (floor + (1.0 - floor) * 0.5 * (1.0 + (std::f64::consts::PI * fraction).cos()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device};

    #[test]
    fn first_step_moves_by_the_learning_rate_and_minimises_a_quadratic() {
        let mut adam = Adam::new(2, 0.1);
        let mut p = vec![1.0, -2.0];
        adam.step(&mut p, &[3.0, -0.5]);
        assert!((p[0] - 0.9).abs() < 1e-6 && (p[1] + 1.9).abs() < 1e-6);
        for _ in 0..2000 {
            let g = vec![2.0 * (p[0] - 0.3), 2.0 * (p[1] + 0.7)];
            adam.step(&mut p, &g);
        }
        assert!(
            (p[0] - 0.3).abs() < 1e-3 && (p[1] + 0.7).abs() < 1e-3,
            "{p:?}"
        );
    }

    #[test]
    fn weight_decay_pulls_the_minimum_toward_zero() {
        // f = (p − 1)² with L2 λ = 1 in the gradient: 2(p − 1) + λp = 0 at p = 2/(2 + λ).
        let mut adam = Adam::with_config(1, AdamConfig::new(0.05).with_weight_decay(1.0));
        let mut p = vec![0.0];
        for _ in 0..5000 {
            let g = vec![2.0 * (p[0] - 1.0)];
            adam.step(&mut p, &g);
        }
        assert!((p[0] - 2.0 / 3.0).abs() < 1e-3, "{p:?}");
    }

    #[test]
    fn variables_follow_the_same_rule_as_slices() {
        let device = Device::Cpu;
        let start = [1.0f64, -2.0, 0.5];
        let var = Var::from_slice(&start, 3, &device).unwrap();
        let target = Tensor::from_slice(&[0.3f64, 0.1, -0.4], 3, &device).unwrap();
        let config = AdamConfig::new(0.05).with_weight_decay(0.01);
        let mut tensor_adam = VarAdam::new(vec![var.clone()], config).unwrap();
        let mut slice_adam = Adam::with_config(3, config);
        let mut p = start.to_vec();
        for _ in 0..50 {
            let loss = (var.as_tensor() - &target)
                .unwrap()
                .sqr()
                .unwrap()
                .sum_all()
                .unwrap();
            tensor_adam.step(&loss).unwrap();
            let g: Vec<f64> = p
                .iter()
                .zip([0.3, 0.1, -0.4])
                .map(|(x, t)| 2.0 * (x - t))
                .collect();
            slice_adam.step(&mut p, &g);
        }
        let got = var
            .as_tensor()
            .to_dtype(DType::F64)
            .unwrap()
            .to_vec1::<f64>()
            .unwrap();
        for (a, b) in got.iter().zip(&p) {
            assert!((a - b).abs() < 1e-12, "{got:?} vs {p:?}");
        }
    }

    #[test]
    fn cosine_decay_runs_from_base_to_floor() {
        assert!((cosine_decay(2.0, 0.0, 0.1) - 2.0).abs() < 1e-12);
        assert!((cosine_decay(2.0, 1.0, 0.1) - 0.2).abs() < 1e-12);
        assert!((cosine_decay(2.0, 0.5, 0.1) - 1.1).abs() < 1e-12);
        assert!((cosine_decay(2.0, 7.0, 0.1) - 0.2).abs() < 1e-12);
    }
}
