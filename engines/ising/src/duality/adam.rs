//! Adam on a short f64 parameter vector (the couplings θ and the map parameters ψ).

use serde::{Deserialize, Serialize};

/// Adam with bias correction (β₁ = 0.9, β₂ = 0.999, ε = 10⁻⁸) and no weight decay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Adam {
    /// Current learning rate.
    pub learning_rate: f64,
    first: Vec<f64>,
    second: Vec<f64>,
    steps: i32,
}

const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPSILON: f64 = 1e-8;

impl Adam {
    /// An optimiser for `len` parameters.
    pub fn new(len: usize, learning_rate: f64) -> Self {
        Self {
            learning_rate,
            first: vec![0.0; len],
            second: vec![0.0; len],
            steps: 0,
        }
    }

    /// Updates `params` in place with `gradient` (same length as at construction).
    pub fn step(&mut self, params: &mut [f64], gradient: &[f64]) {
        self.steps = self.steps.saturating_add(1);
        let correction1 = 1.0 - BETA1.powi(self.steps);
        let correction2 = 1.0 - BETA2.powi(self.steps);
        for (((p, g), m), v) in params
            .iter_mut()
            .zip(gradient)
            .zip(&mut self.first)
            .zip(&mut self.second)
        {
            *m = BETA1 * *m + (1.0 - BETA1) * g;
            *v = BETA2 * *v + (1.0 - BETA2) * g * g;
            let m_hat = *m / correction1;
            let v_hat = *v / correction2;
            *p -= self.learning_rate * m_hat / (v_hat.sqrt() + EPSILON);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
