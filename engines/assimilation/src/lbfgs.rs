//! A small limited-memory BFGS minimiser with a backtracking Armijo line search.

/// Settings of [`minimize`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LbfgsOptions {
    /// Pairs (s, y) kept.
    pub memory: usize,
    /// Iteration limit.
    pub max_iterations: usize,
    /// Stop when ‖∇J‖∞ ≤ `gradient_tolerance`·max(1, |J|).
    pub gradient_tolerance: f64,
}

impl Default for LbfgsOptions {
    fn default() -> Self {
        Self {
            memory: 8,
            max_iterations: 200,
            gradient_tolerance: 1e-8,
        }
    }
}

/// What [`minimize`] ended with.
#[derive(Clone, Debug, PartialEq)]
pub struct LbfgsResult {
    /// The minimiser found.
    pub x: Vec<f64>,
    /// J at `x`.
    pub value: f64,
    /// Iterations taken.
    pub iterations: usize,
    /// Cost-and-gradient evaluations.
    pub evaluations: usize,
    /// Whether the gradient tolerance was met.
    pub converged: bool,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Minimises J from `x0`; `cost` returns J(x) and writes ∇J(x) into its second argument.
pub fn minimize<F>(mut cost: F, x0: &[f64], options: &LbfgsOptions) -> LbfgsResult
where
    F: FnMut(&[f64], &mut [f64]) -> f64,
{
    let n = x0.len();
    let mut x = x0.to_vec();
    let mut g = vec![0.0; n];
    let mut value = cost(&x, &mut g);
    let mut evaluations = 1;
    let mut pairs: std::collections::VecDeque<(Vec<f64>, Vec<f64>, f64)> =
        std::collections::VecDeque::new();
    let mut x_new = vec![0.0; n];
    let mut g_new = vec![0.0; n];
    let mut converged = false;
    let mut iterations = 0;
    while iterations < options.max_iterations {
        let gmax = g.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        if gmax <= options.gradient_tolerance * value.abs().max(1.0) {
            converged = true;
            break;
        }
        // Two-loop recursion: d = −H·g.
        let mut q = g.clone();
        let mut alphas = Vec::with_capacity(pairs.len());
        for (s, y, rho) in pairs.iter().rev() {
            let a = rho * dot(s, &q);
            for (qi, yi) in q.iter_mut().zip(y) {
                *qi -= a * yi;
            }
            alphas.push(a);
        }
        let gamma = pairs.back().map_or_else(
            || 1.0 / g.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-300),
            |(s, y, _)| dot(s, y) / dot(y, y),
        );
        for qi in &mut q {
            *qi *= gamma;
        }
        for ((s, y, rho), a) in pairs.iter().zip(alphas.iter().rev()) {
            let b = rho * dot(y, &q);
            for (qi, si) in q.iter_mut().zip(s) {
                *qi += (a - b) * si;
            }
        }
        let mut d: Vec<f64> = q.iter().map(|v| -v).collect();
        let mut slope = dot(&g, &d);
        if slope >= 0.0 {
            // Not a descent direction: restart from steepest descent.
            pairs.clear();
            d = g.iter().map(|v| -v).collect();
            slope = -dot(&g, &g);
        }
        let mut step = 1.0;
        let mut accepted = false;
        for _ in 0..40 {
            for i in 0..n {
                x_new[i] = x[i] + step * d[i];
            }
            let v = cost(&x_new, &mut g_new);
            evaluations += 1;
            if v.is_finite() && v <= value + 1e-4 * step * slope {
                accepted = true;
                let s: Vec<f64> = (0..n).map(|i| x_new[i] - x[i]).collect();
                let y: Vec<f64> = (0..n).map(|i| g_new[i] - g[i]).collect();
                let sy = dot(&s, &y);
                if sy > 1e-12 * dot(&y, &y).sqrt() * dot(&s, &s).sqrt() {
                    if pairs.len() == options.memory {
                        pairs.pop_front();
                    }
                    pairs.push_back((s, y, 1.0 / sy));
                }
                std::mem::swap(&mut x, &mut x_new);
                std::mem::swap(&mut g, &mut g_new);
                value = v;
                break;
            }
            step *= 0.5;
        }
        iterations += 1;
        if !accepted {
            break;
        }
    }
    LbfgsResult {
        x,
        value,
        iterations,
        evaluations,
        converged,
    }
}
