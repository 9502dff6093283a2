//! The trivial references every comparison carries, the first things a referee asks for:
//!
//! - **Climatology**: the mean of the training states, the same estimate at every time (no
//!   observations, no dynamics);
//! - **No dynamics**: at each time the observed components inverted through the observation
//!   operator (x = 10·tan(y/5) for the paper's 5·arctan(0.1x)), clamped to the range the
//!   training states span in that component, and every other component at its climatological
//!   mean. It uses the observations of that time only, and no model.
//!
//! A method that does not beat both has learned nothing a table lookup does not know.

/// Per-component statistics of the training states.
#[derive(Clone, Debug, PartialEq)]
pub struct Climatology {
    /// Mean of each component.
    pub mean: Vec<f64>,
    /// Smallest value of each component.
    pub min: Vec<f64>,
    /// Largest value of each component.
    pub max: Vec<f64>,
}

impl Climatology {
    /// The statistics of `states` (one state per row; at least one).
    pub fn of(states: &[Vec<f64>]) -> Self {
        let d = states.first().map_or(0, Vec::len);
        let n = states.len().max(1) as f64;
        let mut mean = vec![0.0; d];
        let mut min = vec![f64::INFINITY; d];
        let mut max = vec![f64::NEG_INFINITY; d];
        for s in states {
            for j in 0..d {
                mean[j] += s[j];
                min[j] = min[j].min(s[j]);
                max[j] = max[j].max(s[j]);
            }
        }
        mean.iter_mut().for_each(|m| *m /= n);
        Self { mean, min, max }
    }

    /// The no-dynamics estimate from the observations `y` of `observer` at one time.
    pub fn no_dynamics(&self, observer: &crate::observe::Observer, y: &[f64]) -> Vec<f64> {
        let mut x = self.mean.clone();
        for (&i, &yi) in observer.indices.iter().zip(y) {
            let v = observer.h_inverse(yi);
            x[i] = if v.is_nan() {
                self.mean[i]
            } else {
                v.clamp(self.min[i], self.max[i])
            };
        }
        x
    }
}
