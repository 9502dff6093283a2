//! Known-answer tests of the assimilation engine (prefix `assim_` for test filters).

use benchtop_compute::{CancelToken, Progress, rng};
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use rand_distr::StandardNormal;

use crate::dynamics::{Dynamics, Lorenz96, integrate, rk4_adjoint, rk4_tangent, trajectory};
use crate::experiment::{AssimParams, run};
use crate::observe::Observer;
use crate::tensorvar::{TensorVarModel, TensorVarSettings};
use crate::variational::Variational;
use crate::window::{WindowSolver, linear_weights};
use benchtop_learn::lbfgs::LbfgsOptions;

fn normal_vec<R: Rng>(r: &mut R, n: usize, scale: f64) -> Vec<f64> {
    (0..n)
        .map(|_| scale * r.sample::<f64, _>(StandardNormal))
        .collect()
}

fn attractor_state(system: &Lorenz96, seed: u64) -> Vec<f64> {
    let mut r = rng::seeded(seed);
    let mut x: Vec<f64> = normal_vec(&mut r, system.dim, 1.0)
        .iter()
        .map(|v| v + system.forcing)
        .collect();
    integrate(system, &mut x, 0.01, 500);
    x
}

fn random_spd<R: Rng>(r: &mut R, n: usize) -> DMatrix<f64> {
    let a = DMatrix::from_fn(n, n, |_, _| r.sample::<f64, _>(StandardNormal));
    &a * a.transpose() + DMatrix::identity(n, n) * 0.5
}

#[test]
fn assim_jacobian_products_are_transposes_and_match_differences() {
    for dim in [5, 12] {
        let system = Lorenz96 { dim, forcing: 8.0 };
        let x = attractor_state(&system, 3);
        let mut r = rng::seeded(4);
        let v = normal_vec(&mut r, dim, 1.0);
        let w = normal_vec(&mut r, dim, 1.0);
        let mut jv = vec![0.0; dim];
        let mut jtw = vec![0.0; dim];
        system.jvp(&x, &v, &mut jv);
        system.vjp(&x, &w, &mut jtw);
        let lhs: f64 = jv.iter().zip(&w).map(|(a, b)| a * b).sum();
        let rhs: f64 = v.iter().zip(&jtw).map(|(a, b)| a * b).sum();
        assert!(
            (lhs - rhs).abs() < 1e-10 * lhs.abs().max(1.0),
            "{lhs} vs {rhs}"
        );
        // Tangent-linear RK4 against a central difference of the RK4 step.
        let eps = 1e-6;
        let step = |y: &[f64]| {
            let mut y = y.to_vec();
            crate::dynamics::rk4_step(&system, &mut y, 0.01);
            y
        };
        let xp: Vec<f64> = x.iter().zip(&v).map(|(a, b)| a + eps * b).collect();
        let xm: Vec<f64> = x.iter().zip(&v).map(|(a, b)| a - eps * b).collect();
        let fd: Vec<f64> = step(&xp)
            .iter()
            .zip(step(&xm))
            .map(|(a, b)| (a - b) / (2.0 * eps))
            .collect();
        let tl = rk4_tangent(&system, &x, &v, 0.01);
        for (a, b) in fd.iter().zip(&tl) {
            assert!((a - b).abs() < 1e-7, "tangent {b} vs difference {a}");
        }
        // ⟨M δx, λ⟩ = ⟨δx, Mᵀ λ⟩.
        let adj = rk4_adjoint(&system, &x, &w, 0.01);
        let lhs: f64 = tl.iter().zip(&w).map(|(a, b)| a * b).sum();
        let rhs: f64 = v.iter().zip(&adj).map(|(a, b)| a * b).sum();
        assert!(
            (lhs - rhs).abs() < 1e-12 * lhs.abs().max(1.0),
            "{lhs} vs {rhs}"
        );
    }
}

#[test]
fn assim_adjoint_gradient_matches_finite_differences() {
    for (dim, fraction, window, arctan) in
        [(10, 0.3, 3, true), (40, 0.2, 5, true), (8, 1.0, 4, false)]
    {
        let system = Lorenz96 { dim, forcing: 8.0 };
        let x = attractor_state(&system, 11);
        let mut r = rng::seeded(12);
        let observer = Observer::random(dim, fraction, arctan, &mut r);
        let truth = trajectory(&system, &x, 0.01, 10, window);
        let obs: Vec<Vec<f64>> = truth
            .iter()
            .map(|s| observer.observe_noisy(s, 0.1, &mut r))
            .collect();
        let b_inv = random_spd(&mut r, dim) * 0.1;
        let var = Variational {
            system: &system,
            dt: 0.01,
            steps_per_obs: 10,
            observer: &observer,
            b_inv: &b_inv,
            obs_sigma: 0.1,
        };
        let xb: Vec<f64> = x.iter().map(|v| v + 0.7).collect();
        let x0: Vec<f64> = x
            .iter()
            .zip(normal_vec(&mut r, dim, 0.5))
            .map(|(a, b)| a + b)
            .collect();
        let mut grad = vec![0.0; dim];
        var.cost_4dvar(&x0, &xb, &obs, &mut grad);
        let mut scratch = vec![0.0; dim];
        let eps = 1e-5;
        let fd: Vec<f64> = (0..dim)
            .map(|i| {
                let mut p = x0.clone();
                let mut m = x0.clone();
                p[i] += eps;
                m[i] -= eps;
                (var.cost_4dvar(&p, &xb, &obs, &mut scratch)
                    - var.cost_4dvar(&m, &xb, &obs, &mut scratch))
                    / (2.0 * eps)
            })
            .collect();
        let diff: f64 = fd
            .iter()
            .zip(&grad)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
            .sqrt();
        let norm: f64 = grad.iter().map(|v| v * v).sum::<f64>().sqrt();
        assert!(
            diff <= 1e-6 * norm,
            "D = {dim}: |adjoint − FD| = {diff:e}, |g| = {norm:e}"
        );
    }
}

#[test]
fn assim_4dvar_recovers_truth_from_perfect_full_observations() {
    for (dim, arctan) in [(12, true), (40, true), (10, false)] {
        let system = Lorenz96 { dim, forcing: 8.0 };
        let x = attractor_state(&system, 21);
        let observer = Observer::full(dim, arctan);
        let truth = trajectory(&system, &x, 0.01, 10, 4);
        let obs: Vec<Vec<f64>> = truth.iter().map(|s| observer.observe(s)).collect();
        let b_inv = DMatrix::identity(dim, dim) * 1e-4;
        let var = Variational {
            system: &system,
            dt: 0.01,
            steps_per_obs: 10,
            observer: &observer,
            b_inv: &b_inv,
            obs_sigma: 0.01,
        };
        let mut r = rng::seeded(22);
        let xb: Vec<f64> = x
            .iter()
            .zip(normal_vec(&mut r, dim, 1.0))
            .map(|(a, b)| a + b)
            .collect();
        let options = LbfgsOptions {
            max_iterations: 500,
            gradient_tolerance: 1e-10,
            ..LbfgsOptions::default()
        };
        let result = var.solve_4dvar(&xb, &obs, &options);
        let err = result
            .x
            .iter()
            .zip(&x)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(
            err < 1e-4,
            "D = {dim}: max |x₀ − truth| = {err:e} after {} iterations",
            result.iterations
        );
    }
}

/// Kalman filter + RTS smoother for z₀ ~ N(z_b, B⁻¹), z_t = A z_{t−1} + N(0, (p_t Q)⁻¹),
/// ẑ_t = z_t + N(0, R⁻¹): the smoothed means.
fn rts_smoother(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
    p: &[f64],
    zb: &DVector<f64>,
    zhat: &[DVector<f64>],
) -> Vec<DVector<f64>> {
    let inv = |m: &DMatrix<f64>| m.clone().try_inverse().expect("invertible");
    let r_cov = inv(r);
    let n = zb.len();
    let (mut means, mut covs, mut pred_means, mut pred_covs) = (vec![], vec![], vec![], vec![]);
    for t in 0..zhat.len() {
        let (m_pred, c_pred) = if t == 0 {
            (zb.clone(), inv(b))
        } else {
            (
                a * &means[t - 1],
                a * &covs[t - 1] * a.transpose() + inv(&(q * p[t])),
            )
        };
        let gain = &c_pred * inv(&(&c_pred + &r_cov));
        let m = &m_pred + &gain * (&zhat[t] - &m_pred);
        let c = (DMatrix::identity(n, n) - &gain) * &c_pred;
        pred_means.push(m_pred);
        pred_covs.push(c_pred);
        means.push(m);
        covs.push(c);
    }
    let mut smooth = means.clone();
    for t in (0..zhat.len().saturating_sub(1)).rev() {
        let g = &covs[t] * a.transpose() * inv(&pred_covs[t + 1]);
        smooth[t] = &means[t] + &g * (&smooth[t + 1] - &pred_means[t + 1]);
    }
    smooth
}

#[test]
fn assim_window_solution_equals_rts_smoother() {
    for (k, len, seed) in [(4, 5, 1), (6, 3, 2), (3, 1, 3), (5, 8, 4)] {
        let mut r = rng::seeded(seed);
        let a = DMatrix::from_fn(k, k, |_, _| 0.4 * r.sample::<f64, _>(StandardNormal));
        let (b, q, rr) = (
            random_spd(&mut r, k),
            random_spd(&mut r, k),
            random_spd(&mut r, k),
        );
        let p = linear_weights(len, 0.1);
        let zb = DVector::from_vec(normal_vec(&mut r, k, 1.0));
        let zhat: Vec<DVector<f64>> = (0..len)
            .map(|_| DVector::from_vec(normal_vec(&mut r, k, 1.0)))
            .collect();
        let solver = WindowSolver::new(&a, &b, &q, &rr, &p).expect("factor");
        let z = solver.solve(&zb, &zhat);
        let s = rts_smoother(&a, &b, &q, &rr, &p, &zb, &zhat);
        for (zt, st) in z.iter().zip(&s) {
            let err = (zt - st).amax();
            assert!(err < 1e-8, "k = {k}, T = {len}: |QP − RTS| = {err:e}");
        }
    }
}

#[test]
fn assim_forward_cme_recovers_linear_dynamics() {
    // x⁺ = M x with M two rotations (a trajectory on a torus spans ℝ⁴), identity features.
    let (c1, s1, c2, s2) = (0.3_f64.cos(), 0.3_f64.sin(), 0.7_f64.cos(), 0.7_f64.sin());
    let m = DMatrix::from_row_slice(
        4,
        4,
        &[
            c1, -s1, 0.0, 0.0, s1, c1, 0.0, 0.0, 0.0, 0.0, c2, -s2, 0.0, 0.0, s2, c2,
        ],
    );
    let mut x = DVector::from_vec(vec![1.0, 0.5, -0.7, 2.0]);
    let mut states = vec![];
    for _ in 0..400 {
        states.push(x.iter().copied().collect::<Vec<f64>>());
        x = &m * x;
    }
    let obs: Vec<Vec<f64>> = states.iter().map(|s| vec![s[0], s[2]]).collect();
    let settings = TensorVarSettings {
        identity_features: true,
        ridge: 1e-12,
        history: 1,
        ..TensorVarSettings::default()
    };
    let model =
        TensorVarModel::train(&states, &obs, &settings, &mut rng::seeded(1)).expect("train");
    let err = (&model.forward - &m).amax();
    assert!(err < 1e-8, "|A − M| = {err:e}");
    assert!(model.fit.forward_residual < 1e-8);
}

fn l96_training(dim: usize, n: usize, seed: u64) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let system = Lorenz96 { dim, forcing: 8.0 };
    let x = attractor_state(&system, seed);
    let states = trajectory(&system, &x, 0.01, 10, n);
    let mut r = rng::seeded(seed + 1);
    let observer = Observer::random(dim, 0.5, true, &mut r);
    let obs = states
        .iter()
        .map(|s| observer.observe_noisy(s, 0.1, &mut r))
        .collect();
    (states, obs)
}

#[test]
fn assim_preimage_round_trip_on_training_states() {
    // Stated tolerance: normalised RMSE of φ⁻¹(φ(x)) − x below 2 % of the range.
    for (dim, features, components) in [(10, 150, 30), (20, 200, 40)] {
        let (states, obs) = l96_training(dim, 600, 31);
        let settings = TensorVarSettings {
            features,
            components,
            preimage_centres: 300,
            ..TensorVarSettings::default()
        };
        let model =
            TensorVarModel::train(&states, &obs, &settings, &mut rng::seeded(2)).expect("train");
        assert!(
            model.fit.preimage_nrmse < 0.02,
            "D = {dim}: pre-image nRMSE {}",
            model.fit.preimage_nrmse
        );
        assert!(model.fit.explained_variance > 0.5 && model.fit.explained_variance <= 1.0);
    }
}

fn small_params(dim: usize, fraction: f64) -> AssimParams {
    AssimParams {
        dim,
        obs_fraction: fraction,
        windows: 10,
        train_steps: 800,
        tensor_var: TensorVarSettings {
            features: 200,
            components: 40,
            preimage_centres: 300,
            ..TensorVarSettings::default()
        },
        ..AssimParams::default()
    }
}

#[test]
fn assim_tensor_var_beats_free_run_on_held_out_windows() {
    for (dim, fraction, seed) in [(40, 0.2, 5), (20, 0.5, 6)] {
        let params = small_params(dim, fraction);
        let result = run(&params, seed, &Progress::new(), &CancelToken::new()).expect("run");
        let tv = result.method("Tensor-Var").expect("tv");
        let free = result.method("Free run").expect("free");
        let fourd = result.method("4D-Var").expect("4dvar");
        eprintln!(
            "D={dim} f={fraction}: TV {:.4}/{:.4} 4D {:.4}/{:.4} 3D {:.4} free {:.4}/{:.4} fit {:?}",
            tv.rmse_mean,
            tv.rmse_final,
            fourd.rmse_mean,
            fourd.rmse_final,
            result.method("3D-Var").expect("3d").rmse_mean,
            free.rmse_mean,
            free.rmse_final,
            (
                result.fit.preimage_nrmse,
                result.fit.forward_residual,
                result.fit.observation_residual
            )
        );
        // The second half of the windows: the free run has lost the truth by then.
        let half = tv.nrmse.len() / 2;
        let late = |v: &[f64]| v[half..].iter().sum::<f64>();
        assert!(
            late(&tv.nrmse) < 0.8 * late(&free.nrmse),
            "D = {dim}: Tensor-Var does not beat the free run"
        );
        assert_eq!(tv.estimates.len(), params.windows * params.window);
    }
}

#[test]
fn assim_live_windows_are_prefixes_of_the_final_result() {
    let params = AssimParams {
        dim: 12,
        windows: 4,
        window: 3,
        train_steps: 200,
        tensor_var: TensorVarSettings {
            features: 60,
            components: 20,
            preimage_centres: 100,
            ..TensorVarSettings::default()
        },
        ..AssimParams::default()
    };
    let mut partials = Vec::new();
    let result =
        crate::experiment::run_live(&params, 9, &Progress::new(), &CancelToken::new(), |p| {
            partials.push(p.clone());
        })
        .expect("run");
    assert_eq!(partials.len(), params.windows - 1);
    for (w, p) in partials.iter().enumerate() {
        let len = (w + 1) * params.window;
        assert_eq!(p.truth.len(), len);
        for (pm, fm) in p.methods.iter().zip(&result.methods) {
            assert_eq!(pm.name, fm.name);
            assert_eq!(
                pm.estimates[..],
                fm.estimates[..len],
                "{} after window {}",
                pm.name,
                w + 1
            );
            assert_eq!(pm.nrmse[..], fm.nrmse[..len]);
        }
    }
}
