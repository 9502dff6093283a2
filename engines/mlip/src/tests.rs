//! Known-answer tests of the PIWSL engine (module name `mlip_`-prefixed for filtering).

use crate::loss::{LossSpec, loss_and_grad, pisc_residual, pitc_residual};
use crate::md::nve;
use crate::model::{ForceMode, Model, Rbf};
use crate::potential::{System, SystemKind};
use crate::sample::{Config, langevin};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const RBF: Rbf = Rbf {
    k: 6,
    r_min: 0.8,
    r_max: 2.5,
};

fn systems() -> [System; 3] {
    [
        System::new(SystemKind::MullerBrown, 1),
        System::new(SystemKind::LennardJones, 4),
        System::new(SystemKind::Morse, 5),
    ]
}

fn configs(system: System, n: usize, seed: u64) -> Vec<Config> {
    langevin(system, n, 0.15, 20, &mut StdRng::seed_from_u64(seed))
}

/// Central-difference −∂E/∂R.
fn fd_forces(e: &dyn Fn(&[f64]) -> f64, r: &[f64], h: f64) -> Vec<f64> {
    (0..r.len())
        .map(|i| {
            let (mut p, mut m) = (r.to_vec(), r.to_vec());
            p[i] += h;
            m[i] -= h;
            -(e(&p) - e(&m)) / (2.0 * h)
        })
        .collect()
}

fn max_rel(a: &[f64], b: &[f64]) -> f64 {
    let scale = b.iter().fold(1e-12_f64, |m, v| m.max(v.abs()));
    a.iter()
        .zip(b)
        .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()))
        / scale
}

#[test]
fn mlip_reference_forces_match_finite_differences() {
    for system in systems() {
        for c in configs(system, 3, 1) {
            let (e, f) = system.energy_forces(&c.r);
            assert!(e.is_finite());
            let fd = fd_forces(&|r| system.energy(r), &c.r, 1e-6);
            assert!(max_rel(&f, &fd) < 1e-6, "{system:?}: {f:?} vs {fd:?}");
        }
    }
    // Known minima: Lennard-Jones dimer at 2^(1/6) with E = −1, Müller–Brown's deepest well.
    let lj = System::new(SystemKind::LennardJones, 2);
    let d = 2f64.powf(1.0 / 6.0);
    let (e, f) = lj.energy_forces(&[0.0, 0.0, 0.0, d, 0.0, 0.0]);
    assert!((e + 1.0).abs() < 1e-12 && f.iter().all(|v| v.abs() < 1e-10));
    let mb = System::new(SystemKind::MullerBrown, 1);
    let (e, f) = mb.energy_forces(&[-0.558_224, 1.441_726]);
    assert!((e + 146.699_5).abs() < 1e-3, "{e}");
    assert!(f.iter().all(|v| v.abs() < 1e-2), "{f:?}");
}

fn model(system: System, mode: ForceMode, seed: u64) -> Model {
    Model::new(
        system,
        mode,
        8,
        RBF,
        system.energy_scale(),
        0.0,
        &mut StdRng::seed_from_u64(seed),
    )
}

#[test]
fn mlip_model_gradient_forces_match_finite_differences() {
    for system in systems() {
        for mode in [ForceMode::Gradient, ForceMode::DirectHead] {
            let m = model(system, mode, 3);
            for c in configs(system, 2, 2) {
                let (_, f) = m.energy_gradient_forces(&c.r);
                let fd = fd_forces(&|r| m.energy(r), &c.r, 1e-6);
                assert!(max_rel(&f, &fd) < 1e-6, "{system:?} {mode:?}");
            }
        }
        let m = model(system, ForceMode::Gradient, 4);
        let c = &configs(system, 1, 5)[0];
        assert_eq!(m.energy_forces(&c.r), m.energy_gradient_forces(&c.r));
    }
}

/// The weight gradient of e_bar·E + f_bar·F, including the second derivative in F.
#[test]
fn mlip_weight_gradients_match_finite_differences() {
    let mut rng = StdRng::seed_from_u64(9);
    for system in systems() {
        for mode in [ForceMode::Gradient, ForceMode::DirectHead] {
            let m = model(system, mode, 6);
            let c = &configs(system, 1, 7)[0];
            let e_bar = 0.7;
            let f_bar: Vec<f64> = (0..c.r.len()).map(|_| rng.random::<f64>() - 0.5).collect();
            let objective = |m: &Model| {
                let (e, f) = m.energy_forces(&c.r);
                e_bar * e + f.iter().zip(&f_bar).map(|(a, b)| a * b).sum::<f64>()
            };
            let mut grad = vec![0.0; m.params.len()];
            m.accumulate(&c.r, e_bar, &f_bar, &mut grad);
            let fd: Vec<f64> = (0..m.params.len())
                .map(|i| {
                    let (mut p, mut q) = (m.clone(), m.clone());
                    p.params[i] += 1e-6;
                    q.params[i] -= 1e-6;
                    (objective(&p) - objective(&q)) / 2e-6
                })
                .collect();
            assert!(max_rel(&grad, &fd) < 1e-5, "{system:?} {mode:?}");
        }
    }
}

#[test]
fn mlip_full_loss_gradient_matches_finite_differences() {
    for (system, mode) in [
        (
            System::new(SystemKind::LennardJones, 4),
            ForceMode::Gradient,
        ),
        (
            System::new(SystemKind::MullerBrown, 1),
            ForceMode::DirectHead,
        ),
    ] {
        let m = model(system, mode, 11);
        let data = configs(system, 3, 12);
        let unl = configs(system, 2, 13);
        let spec = LossSpec {
            lambda_f: 100.0,
            coef_rob: 1.2,
            coef_cyc: 0.5,
            delta: 0.05,
        };
        let loss = |m: &Model| loss_and_grad(m, &data, &unl, spec, &mut StdRng::seed_from_u64(1));
        let (parts, grad) = loss(&m);
        assert!(parts.pitc > 0.0 && parts.pisc > 0.0 && parts.force > 0.0);
        let fd: Vec<f64> = (0..m.params.len())
            .map(|i| {
                let (mut p, mut q) = (m.clone(), m.clone());
                p.params[i] += 1e-6;
                q.params[i] -= 1e-6;
                (loss(&p).0.total() - loss(&q).0.total()) / 2e-6
            })
            .collect();
        assert!(max_rel(&grad, &fd) < 1e-5, "{system:?}");
    }
}

/// With the true potential as the model, both residuals are O(δ²): halving δ cuts them ≈4×.
#[test]
fn mlip_true_potential_residuals_are_second_order() {
    let mut rng = StdRng::seed_from_u64(21);
    for system in systems() {
        let ff = |r: &[f64]| system.energy_forces(r);
        for c in configs(system, 3, 22) {
            let u1: Vec<f64> = (0..c.r.len()).map(|_| rng.random::<f64>()).collect();
            let u2: Vec<f64> = (0..c.r.len()).map(|_| rng.random::<f64>()).collect();
            let scaled = |u: &[f64], d: f64| u.iter().map(|v| v * d).collect::<Vec<_>>();
            let delta = if system.kind == SystemKind::MullerBrown {
                0.01
            } else {
                0.02
            };
            let pitc = |d: f64| pitc_residual(&ff, &c.r, &scaled(&u1, d));
            let pisc = |d: f64| pisc_residual(&ff, &c.r, &scaled(&u1, d), &scaled(&u2, d));
            let r1 = pitc(delta) / pitc(delta / 2.0);
            let r2 = pisc(delta) / pisc(delta / 2.0);
            assert!((3.5..4.5).contains(&r1), "{system:?} PITC ratio {r1}");
            assert!((3.5..4.5).contains(&r2), "{system:?} PISC ratio {r2}");
        }
    }
}

/// A direct-force field with a rotational term κ·(−(y−y₀), x−x₀) on Müller–Brown, paired
/// with the energy that makes Taylor consistency along every ray from A exact to first
/// order (Ê(X) = E(A) − ∫₀¹ F(A + t(X−A))·(X−A) dt): the PITC residual is unchanged by the
/// rotational term, while the PISC residual shifts by exactly κ·(δ₂ × δ₁) = curl · signed
/// area of the triangle A→B→C (curl = 2κ, area = ½ δ₂ × δ₁).
#[test]
fn mlip_rotational_term_shows_in_pisc_not_pitc() {
    let mb = System::new(SystemKind::MullerBrown, 1);
    let (x0, y0) = (-0.3, 0.6);
    let field = |kappa: f64, r: &[f64]| {
        let (_, mut f) = mb.energy_forces(r);
        f[0] += kappa * -(r[1] - y0);
        f[1] += kappa * (r[0] - x0);
        f
    };
    // 8-point Gauss–Legendre on [0, 1].
    let nodes = [
        (0.0198550717512318, 0.0506142681451881),
        (0.1016667612931866, 0.1111905172266872),
        (0.2372337950418355, 0.1568533229389436),
        (0.4082826787521751, 0.181341891689181),
        (0.591717321247825, 0.181341891689181),
        (0.7627662049581645, 0.1568533229389436),
        (0.8983332387068134, 0.1111905172266872),
        (0.9801449282487682, 0.0506142681451881),
    ];
    let mut rng = StdRng::seed_from_u64(31);
    for c in configs(mb, 4, 32) {
        let a = c.r.clone();
        let ff = |kappa: f64| {
            let a = a.clone();
            move |x: &[f64]| {
                let d = [x[0] - a[0], x[1] - a[1]];
                let work: f64 = nodes
                    .iter()
                    .map(|(t, w)| {
                        let f = field(kappa, &[a[0] + t * d[0], a[1] + t * d[1]]);
                        w * (f[0] * d[0] + f[1] * d[1])
                    })
                    .sum();
                (mb.energy(&a) - work, field(kappa, x))
            }
        };
        let d1: Vec<f64> = (0..2).map(|_| 0.05 * rng.random::<f64>()).collect();
        let d2: Vec<f64> = (0..2).map(|_| 0.05 * rng.random::<f64>()).collect();
        let kappa = 40.0;
        let (plain, rot) = (ff(0.0), ff(kappa));
        let pitc_shift = pitc_residual(&rot, &a, &d1) - pitc_residual(&plain, &a, &d1);
        let pisc_shift = pisc_residual(&rot, &a, &d1, &d2) - pisc_residual(&plain, &a, &d1, &d2);
        let expected = kappa * (d2[0] * d1[1] - d2[1] * d1[0]);
        assert!(pitc_shift.abs() < 1e-9, "PITC moved by {pitc_shift}");
        assert!(
            (pisc_shift - expected).abs() < 1e-9 * (1.0 + expected.abs()),
            "{pisc_shift} vs {expected}"
        );
        assert!(expected.abs() > 1e-4, "a degenerate triangle tests nothing");
    }
}

/// Velocity Verlet conserves a conservative model's own energy to O(dt²); an untrained
/// direct force head, unrelated to the energy, does not.
#[test]
fn mlip_nve_conserves_energy_only_for_conservative_forces() {
    let system = System::new(SystemKind::LennardJones, 5);
    let c = &configs(system, 1, 41)[0];
    let grad = model(system, ForceMode::Gradient, 42);
    let direct = model(system, ForceMode::DirectHead, 42);
    let a = nve(
        &grad,
        &c.r,
        0.15,
        300,
        0.005,
        &mut StdRng::seed_from_u64(43),
    );
    let b = nve(
        &direct,
        &c.r,
        0.15,
        300,
        0.005,
        &mut StdRng::seed_from_u64(43),
    );
    eprintln!(
        "gradient {} steps drift {}; direct {} steps drift {}",
        a.steps_stable, a.energy_drift, b.steps_stable, b.energy_drift
    );
    assert!(a.steps_stable >= 50 && b.steps_stable >= 50);
    assert!(a.energy_drift < 1e-3, "{}", a.energy_drift);
    assert!(
        b.energy_drift > 10.0 * a.energy_drift,
        "{} vs {}",
        b.energy_drift,
        a.energy_drift
    );
}

#[test]
fn mlip_langevin_labels_are_exact_and_clusters_stay_bound() {
    for system in systems() {
        let data = configs(system, 20, 51);
        assert_eq!(data.len(), 20);
        for c in &data {
            let (e, f) = system.energy_forces(&c.r);
            assert!(e == c.energy && f == c.forces);
        }
        let mean: f64 = data.iter().map(|c| c.energy).sum::<f64>() / 20.0;
        match system.kind {
            SystemKind::MullerBrown => assert!(mean < -80.0, "{mean}"),
            _ => assert!(mean < -2.0, "bound cluster, mean energy {mean}"),
        }
    }
}

/// The few-labels comparison (Lennard-Jones, 5 atoms, 8 energy-only labels, direct force
/// head): the physics terms are the force head's only training signal. Measured over seeds
/// 0, 1, 2: force MAE supervised 2.43 / 2.24 / 2.36 against +PITC+PISC 1.66 / 1.63 / 1.61
/// (ratios 0.68 / 0.73 / 0.68); MD stable for 84 / 134 / 46 steps against all 1000. The test
/// asserts a ratio below 0.85 and a longer stable MD run on seed 0.
#[test]
fn mlip_physics_losses_lower_force_error_with_few_energy_labels() {
    use crate::experiment::{MlipParams, compare};
    use benchtop_compute::{CancelToken, Progress};
    let params = MlipParams {
        force_labels: false,
        ..MlipParams::default()
    };
    let c = compare(
        &params,
        &["supervised", "+PITC+PISC", crate::CONSERVATIVE],
        0,
        &Progress::new(),
        &CancelToken::new(),
    )
    .unwrap();
    let (sup, pi) = (&c.variants[0], &c.variants[1]);
    let ratio = pi.errors.force_mae / sup.errors.force_mae;
    assert!(
        ratio < 0.85,
        "force MAE {} vs {}",
        pi.errors.force_mae,
        sup.errors.force_mae
    );
    assert!(
        pi.md.steps_stable > sup.md.steps_stable,
        "{} vs {}",
        pi.md.steps_stable,
        sup.md.steps_stable
    );
    // Issue 34: the supervised direct head gets no force teacher from energy labels, so its
    // force error is that of predicting zero force (measured 2.43 against 2.29); the
    // conservative model trained on the same energies learns forces (1.62) and PITC+PISC does
    // not beat it (ratio 1.02).
    let cons = &c.variants[2];
    let zero = c.reference.force_mae;
    assert!(
        (sup.errors.force_mae / zero - 1.0).abs() < 0.15,
        "supervised {} against zero force {zero}",
        sup.errors.force_mae
    );
    assert!(
        cons.errors.force_mae < 0.85 * zero,
        "conservative {} against zero force {zero}",
        cons.errors.force_mae
    );
    assert!(
        pi.errors.force_mae > 0.9 * cons.errors.force_mae,
        "+PITC+PISC {} against conservative {}",
        pi.errors.force_mae,
        cons.errors.force_mae
    );
}

/// The baselines and the trivial references are what they say: the conservative baseline is a
/// gradient model starting from the direct head's energy network (so, untrained, both predict
/// the same energies), the force-labelled head is trained with λ_F whatever the setting, and
/// the references are the zero force's and the training mean's errors.
#[test]
fn mlip_baselines_and_trivial_references_are_what_they_say() {
    use crate::experiment::{CONSERVATIVE, FORCE_LABELLED, MlipParams, compare};
    use benchtop_compute::{CancelToken, Progress};
    let params = MlipParams {
        atoms: 4,
        labels: 3,
        test_configs: 6,
        stride: 10,
        epochs: 0,
        md_steps: 0,
        hidden: 6,
        rbf: 5,
        ..MlipParams::default()
    };
    assert_eq!(params.baselines(), [CONSERVATIVE, FORCE_LABELLED]);
    let with_forces = MlipParams {
        force_labels: true,
        ..params.clone()
    };
    assert_eq!(with_forces.baselines(), [CONSERVATIVE]);
    assert_eq!(params.mode(CONSERVATIVE), ForceMode::Gradient);
    assert_eq!(params.mode("supervised"), ForceMode::DirectHead);
    assert_eq!(params.spec("supervised").lambda_f, 0.0);
    assert_eq!(params.spec(FORCE_LABELLED).lambda_f, params.lambda_f);
    assert_eq!(
        params.spec(CONSERVATIVE).coef_rob + params.spec(CONSERVATIVE).coef_cyc,
        0.0
    );
    let c = compare(
        &params,
        &["supervised", CONSERVATIVE, FORCE_LABELLED],
        3,
        &Progress::new(),
        &CancelToken::new(),
    )
    .unwrap();
    let names: Vec<&str> = c.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["supervised", CONSERVATIVE, FORCE_LABELLED]);
    assert!(c.variants[1].model.force_net.is_none());
    assert!(c.variants[2].model.force_net.is_some());
    for t in &c.test {
        assert_eq!(
            c.variants[0].model.energy(&t.r),
            c.variants[1].model.energy(&t.r)
        );
    }
    let offset = c.train.iter().map(|t| t.energy).sum::<f64>() / c.train.len() as f64;
    let e_ref = c
        .test
        .iter()
        .map(|t| (t.energy - offset).abs())
        .sum::<f64>()
        / 6.0;
    let forces: Vec<f64> = c.test.iter().flat_map(|t| t.forces.clone()).collect();
    let f_ref = forces.iter().map(|f| f.abs()).sum::<f64>() / forces.len() as f64;
    assert!((c.reference.energy_mae - e_ref).abs() < 1e-12);
    assert!((c.reference.force_mae - f_ref).abs() < 1e-12);
    assert_eq!(forces.len(), 6 * 12);
}

#[test]
fn mlip_bad_loss_weights_name_their_own_key() {
    use crate::experiment::MlipParams;
    for (key, set) in [
        (
            "coef_rob",
            (|p: &mut MlipParams| p.coef_rob = -1.0) as fn(&mut MlipParams),
        ),
        ("coef_cyc", |p: &mut MlipParams| p.coef_cyc = f64::NAN),
        ("lambda_f", |p: &mut MlipParams| p.lambda_f = f64::INFINITY),
        ("rbf", |p: &mut MlipParams| p.rbf = 1),
    ] {
        let mut p = MlipParams::default();
        set(&mut p);
        let err = p.validate().expect_err(key).to_string();
        assert!(err.contains(&format!("`{key}`")), "{key}: {err}");
    }
    assert!(MlipParams::default().validate().is_ok());
}
