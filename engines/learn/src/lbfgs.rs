//! Limited-memory BFGS (Nocedal and Wright, algorithm 7.4) with a backtracking Armijo line
//! search, for objectives that may fail (an error stops the search and is returned: e.g. a
//! cancelled run) or be infinite at a trial point (the step is shortened), with an optional cap
//! on the step and [`multi_start`] from several starting points.

use std::collections::VecDeque;

/// Settings of [`minimize`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LbfgsOptions {
    /// Pairs (s, y) kept.
    pub memory: usize,
    /// Iteration limit.
    pub max_iterations: usize,
    /// Stop when ‖∇f‖∞ ≤ `gradient_tolerance`·max(1, |f|).
    pub gradient_tolerance: f64,
    /// Also stop when an iteration lowers f by less than this fraction of max(1, |f|)
    /// (`None`: never).
    pub value_change_tolerance: Option<f64>,
    /// The largest change of any coordinate in one step (`None`: no cap).
    pub max_step: Option<f64>,
    /// Whether the line search asks for the gradient at every trial point (cheap when value and
    /// gradient come together, as with an adjoint) or only at the accepted one.
    pub gradient_in_line_search: bool,
}

impl Default for LbfgsOptions {
    fn default() -> Self {
        Self {
            memory: 8,
            max_iterations: 200,
            gradient_tolerance: 1e-8,
            value_change_tolerance: None,
            max_step: None,
            gradient_in_line_search: true,
        }
    }
}

/// What [`minimize`] ended with.
#[derive(Clone, Debug, PartialEq)]
pub struct LbfgsResult {
    /// The minimiser found.
    pub x: Vec<f64>,
    /// f at `x`.
    pub value: f64,
    /// Iterations taken.
    pub iterations: usize,
    /// Objective evaluations (with or without the gradient).
    pub evaluations: usize,
    /// Whether the gradient tolerance was met.
    pub converged: bool,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Minimises f from `x0`. `objective(x, Some(g))` returns f(x) and writes ∇f(x) into `g`;
/// `objective(x, None)` returns f(x) alone (asked only when
/// [`LbfgsOptions::gradient_in_line_search`] is false). A non-finite f at a trial point
/// shortens the step; an error stops the search and is returned. `on_iteration(k, f)` is
/// called after each iteration (progress).
pub fn minimize<E>(
    mut objective: impl FnMut(&[f64], Option<&mut [f64]>) -> Result<f64, E>,
    x0: &[f64],
    options: &LbfgsOptions,
    mut on_iteration: impl FnMut(usize, f64),
) -> Result<LbfgsResult, E> {
    let n = x0.len();
    let mut x = x0.to_vec();
    let mut g = vec![0.0; n];
    let mut value = objective(&x, Some(&mut g))?;
    let mut evaluations = 1;
    let mut pairs: VecDeque<(Vec<f64>, Vec<f64>, f64)> = VecDeque::new();
    let mut x_new = vec![0.0; n];
    let mut g_new = vec![0.0; n];
    let mut converged = false;
    let mut iterations = 0;
    while iterations < options.max_iterations && value.is_finite() {
        let gmax = g.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        if gmax <= options.gradient_tolerance * value.abs().max(1.0) {
            converged = true;
            break;
        }
        let mut d = direction(&g, &pairs);
        let mut slope = dot(&g, &d);
        if slope >= 0.0 {
            // Not a descent direction: restart from steepest descent.
            pairs.clear();
            d = g.iter().map(|v| -v).collect();
            slope = -dot(&g, &g);
        }
        if let Some(cap) = options.max_step {
            let longest = d.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
            if longest > cap {
                let scale = cap / longest;
                d.iter_mut().for_each(|v| *v *= scale);
                slope *= scale;
            }
        }
        let mut step = 1.0;
        let mut accepted = None;
        for _ in 0..40 {
            for i in 0..n {
                x_new[i] = x[i] + step * d[i];
            }
            let trial = if options.gradient_in_line_search {
                objective(&x_new, Some(&mut g_new))?
            } else {
                objective(&x_new, None)?
            };
            evaluations += 1;
            if trial.is_finite() && trial <= value + 1e-4 * step * slope {
                accepted = Some(trial);
                break;
            }
            step *= 0.5;
        }
        iterations += 1;
        let Some(trial) = accepted else {
            break;
        };
        if !options.gradient_in_line_search {
            objective(&x_new, Some(&mut g_new))?;
            evaluations += 1;
        }
        let s: Vec<f64> = (0..n).map(|i| x_new[i] - x[i]).collect();
        let y: Vec<f64> = (0..n).map(|i| g_new[i] - g[i]).collect();
        let sy = dot(&s, &y);
        if sy > 1e-12 * dot(&y, &y).sqrt() * dot(&s, &s).sqrt() {
            if pairs.len() == options.memory.max(1) {
                pairs.pop_front();
            }
            pairs.push_back((s, y, 1.0 / sy));
        }
        std::mem::swap(&mut x, &mut x_new);
        std::mem::swap(&mut g, &mut g_new);
        let change = value - trial;
        value = trial;
        on_iteration(iterations, value);
        if let Some(tolerance) = options.value_change_tolerance
            && change < tolerance * value.abs().max(1.0)
        {
            break;
        }
    }
    Ok(LbfgsResult {
        x,
        value,
        iterations,
        evaluations,
        converged,
    })
}

/// [`minimize`] for an objective that cannot fail and always computes its gradient with its
/// value: `cost(x, g)` returns f(x) and writes ∇f(x) into `g`.
pub fn minimize_smooth(
    mut cost: impl FnMut(&[f64], &mut [f64]) -> f64,
    x0: &[f64],
    options: &LbfgsOptions,
) -> LbfgsResult {
    let mut scratch = vec![0.0; x0.len()];
    let options = LbfgsOptions {
        gradient_in_line_search: true,
        ..*options
    };
    let result = minimize(
        |x: &[f64], g: Option<&mut [f64]>| {
            Ok::<f64, std::convert::Infallible>(match g {
                Some(g) => cost(x, g),
                None => cost(x, &mut scratch),
            })
        },
        x0,
        &options,
        |_, _| {},
    );
    match result {
        Ok(result) => result,
        Err(never) => match never {},
    }
}

/// The two-loop recursion: −H·g with the inverse Hessian H of the stored pairs (scaled
/// steepest descent when there are none).
fn direction(g: &[f64], pairs: &VecDeque<(Vec<f64>, Vec<f64>, f64)>) -> Vec<f64> {
    let mut q = g.to_vec();
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
    q.iter().map(|v| -v).collect()
}

/// Every start's result, in the order of `starts`, and the index of the lowest value (`None`
/// when no start ended finite). A maximum-likelihood fit run from one start can stop at a poor
/// local optimum or a bound; a referee refits from several.
pub fn multi_start<E>(
    mut objective: impl FnMut(&[f64], Option<&mut [f64]>) -> Result<f64, E>,
    starts: &[Vec<f64>],
    options: &LbfgsOptions,
    mut on_iteration: impl FnMut(usize, usize, f64),
) -> Result<(Vec<LbfgsResult>, Option<usize>), E> {
    let mut results = Vec::with_capacity(starts.len());
    for (k, x0) in starts.iter().enumerate() {
        results.push(minimize(&mut objective, x0, options, |i, v| {
            on_iteration(k, i, v);
        })?);
    }
    let best = results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.value.is_finite())
        .min_by(|a, b| a.1.value.total_cmp(&b.1.value))
        .map(|(k, _)| k);
    Ok((results, best))
}

/// Central finite-difference gradient of `f` at `x` with step `h` (2·len(x) evaluations), for
/// objectives without an analytic gradient.
pub fn central_gradient<E>(
    mut f: impl FnMut(&[f64]) -> Result<f64, E>,
    x: &[f64],
    h: f64,
    g: &mut [f64],
) -> Result<(), E> {
    let mut probe = x.to_vec();
    for i in 0..x.len() {
        probe[i] = x[i] + h;
        let plus = f(&probe)?;
        probe[i] = x[i] - h;
        let minus = f(&probe)?;
        probe[i] = x[i];
        g[i] = (plus - minus) / (2.0 * h);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Rosenbrock function and its gradient.
    fn rosenbrock(x: &[f64], g: Option<&mut [f64]>) -> Result<f64, ()> {
        let (a, b) = (x[0], x[1]);
        if let Some(g) = g {
            g[0] = -2.0 * (1.0 - a) - 400.0 * a * (b - a * a);
            g[1] = 200.0 * (b - a * a);
        }
        Ok((1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2))
    }

    #[test]
    fn rosenbrock_is_minimised_with_and_without_line_search_gradients() {
        for gradient_in_line_search in [true, false] {
            let options = LbfgsOptions {
                max_iterations: 500,
                gradient_in_line_search,
                ..LbfgsOptions::default()
            };
            let r = minimize(rosenbrock, &[-1.2, 1.0], &options, |_, _| {}).unwrap();
            assert!(r.converged, "{r:?}");
            assert!(
                (r.x[0] - 1.0).abs() < 1e-6 && (r.x[1] - 1.0).abs() < 1e-6,
                "{r:?}"
            );
        }
    }

    #[test]
    fn an_infinite_region_shortens_the_step_and_the_cap_limits_it() {
        // f = (x − 3)² but infinite beyond x = 4: a unit step from 0 overshoots into it.
        let f = |x: &[f64], g: Option<&mut [f64]>| -> Result<f64, ()> {
            if let Some(g) = g {
                g[0] = 2.0 * (x[0] - 3.0);
            }
            Ok(if x[0] > 4.0 {
                f64::INFINITY
            } else {
                (x[0] - 3.0).powi(2)
            })
        };
        let mut path = Vec::new();
        let options = LbfgsOptions {
            max_step: Some(0.5),
            ..LbfgsOptions::default()
        };
        let r = minimize(
            |x: &[f64], g: Option<&mut [f64]>| {
                path.push(x[0]);
                f(x, g)
            },
            &[0.0],
            &options,
            |_, _| {},
        )
        .unwrap();
        assert!((r.x[0] - 3.0).abs() < 1e-6, "{r:?}");
        // With the cap, no trial point jumps by more than 0.5 from the first.
        assert!(path[1] <= 0.5 + 1e-12, "{path:?}");
    }

    #[test]
    fn errors_stop_the_search_and_multi_start_keeps_the_lowest() {
        let failing =
            |_: &[f64], _: Option<&mut [f64]>| -> Result<f64, &'static str> { Err("cancelled") };
        assert_eq!(
            minimize(failing, &[0.0], &LbfgsOptions::default(), |_, _| {}).unwrap_err(),
            "cancelled"
        );
        // Two wells: (x² − 1)² + 0.3x has its lower minimum near x = −1.
        let wells = |x: &[f64], g: Option<&mut [f64]>| -> Result<f64, ()> {
            let v = x[0];
            if let Some(g) = g {
                g[0] = 4.0 * v * (v * v - 1.0) + 0.3;
            }
            Ok((v * v - 1.0).powi(2) + 0.3 * v)
        };
        let (results, best) = multi_start(
            wells,
            &[vec![2.0], vec![-2.0]],
            &LbfgsOptions::default(),
            |_, _, _| {},
        )
        .unwrap();
        assert!(results[0].x[0] > 0.5 && results[1].x[0] < -0.5);
        assert_eq!(best, Some(1));
    }

    #[test]
    fn the_finite_difference_gradient_matches_the_analytic_one() {
        let x = [0.3, -0.7];
        let mut numeric = [0.0; 2];
        central_gradient(|x| rosenbrock(x, None), &x, 1e-6, &mut numeric).unwrap();
        let mut exact = [0.0; 2];
        rosenbrock(&x, Some(&mut exact)).unwrap();
        for (a, b) in numeric.iter().zip(&exact) {
            assert!(
                (a - b).abs() < 1e-5 * b.abs().max(1.0),
                "{numeric:?} {exact:?}"
            );
        }
    }
}
