//! The nonlinear observation operator of the Tensor-Var paper: o = 5·arctan(0.1·x) on a chosen
//! set of components, plus Gaussian noise.

use rand::Rng;
use rand::seq::SliceRandom as _;
use rand_distr::StandardNormal;

/// Which components are observed and through what function.
#[derive(Clone, Debug, PartialEq)]
pub struct Observer {
    /// Observed component indices, increasing.
    pub indices: Vec<usize>,
    /// Use the paper's 5·arctan(0.1·x); otherwise observe x itself.
    pub arctan: bool,
}

impl Observer {
    /// Observes `round(fraction·dim)` components (at least one) chosen at random, increasing;
    /// `fraction` 1 observes every component.
    pub fn random<R: Rng + ?Sized>(dim: usize, fraction: f64, arctan: bool, rng: &mut R) -> Self {
        let count = ((fraction * dim as f64).round() as usize).clamp(1, dim);
        let mut all: Vec<usize> = (0..dim).collect();
        all.shuffle(rng);
        let mut indices = all[..count].to_vec();
        indices.sort_unstable();
        Self { indices, arctan }
    }

    /// Every component, observed through the arctan or the identity.
    pub fn full(dim: usize, arctan: bool) -> Self {
        Self {
            indices: (0..dim).collect(),
            arctan,
        }
    }

    /// Number of observed values per time.
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// Whether nothing is observed.
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// The scalar observation function.
    pub fn h(&self, x: f64) -> f64 {
        if self.arctan {
            5.0 * (0.1 * x).atan()
        } else {
            x
        }
    }

    /// The inverse of [`Observer::h`]: 10·tan(y/5) for the arctan (±∞ outside its range
    /// |y| < 5π/2, which noise can reach), y itself for the identity.
    pub fn h_inverse(&self, y: f64) -> f64 {
        if self.arctan {
            let a = 0.2 * y;
            if a.abs() >= std::f64::consts::FRAC_PI_2 {
                f64::INFINITY.copysign(y)
            } else {
                10.0 * a.tan()
            }
        } else {
            y
        }
    }

    /// Its derivative.
    pub fn dh(&self, x: f64) -> f64 {
        if self.arctan {
            0.5 / (1.0 + 0.01 * x * x)
        } else {
            1.0
        }
    }

    /// The noise-free observation of state `x`.
    pub fn observe(&self, x: &[f64]) -> Vec<f64> {
        self.indices.iter().map(|&i| self.h(x[i])).collect()
    }

    /// The observation of `x` with independent N(0, `noise`²) errors.
    pub fn observe_noisy<R: Rng + ?Sized>(&self, x: &[f64], noise: f64, rng: &mut R) -> Vec<f64> {
        self.indices
            .iter()
            .map(|&i| {
                let e: f64 = rng.sample(StandardNormal);
                self.h(x[i]) + noise * e
            })
            .collect()
    }
}
