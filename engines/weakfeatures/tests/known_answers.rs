//! Known answers of the weak-features engine, on several generator settings (dimensions,
//! correlations, predictability, coefficients, rates, mechanisms) and on the bundled table.
//!
//! Sampling tolerance (stated once, used by every large-n check): a measured excess risk at
//! n training rows is within `3 % of the closed form + 20·(d + 1)·(σ² + c_row)/n` of it, where
//! d = d_o + d_w and c_row the closed form's per-row excess; the second term is twenty times
//! the excess that fitting d + 1 least-squares coefficients adds on average.

use benchtop_compute::{CancelToken, Progress};
use benchtop_weakfeatures::data::{DataParams, GaussianParams, Source};
use benchtop_weakfeatures::experiment::{CurveParams, Output, Params};
use benchtop_weakfeatures::missing::{Mechanism, MissingParams};
use benchtop_weakfeatures::models::{EstimatorKind, EstimatorParams, LabelKind, LabelParams};
use benchtop_weakfeatures::run;
use nalgebra::{DMatrix, DVector};

const N: usize = 20_000;

/// Generator settings the checks run on (none was tuned for them).
fn settings() -> Vec<GaussianParams> {
    vec![
        GaussianParams::default(),
        GaussianParams {
            d_observed: 3,
            d_weak: 1,
            corr_observed: 0.5,
            r_squared: 0.8,
            beta_observed: -0.3,
            beta_weak: 2.0,
            noise_sd: 1.0,
        },
        GaussianParams {
            d_observed: 20,
            d_weak: 4,
            corr_observed: 0.0,
            r_squared: 0.2,
            beta_observed: 0.2,
            beta_weak: 0.7,
            noise_sd: 0.3,
        },
        GaussianParams {
            d_observed: 5,
            d_weak: 3,
            corr_observed: 0.6,
            r_squared: 0.9,
            beta_observed: 1.0,
            beta_weak: -1.5,
            noise_sd: 0.5,
        },
    ]
}

fn params(g: &GaussianParams, rate: f64, mechanism: Mechanism, kind: EstimatorKind) -> Params {
    Params {
        data: DataParams {
            gaussian: g.clone(),
            n_train: N,
            n_test: N,
            ..DataParams::default()
        },
        missing: MissingParams {
            mechanism,
            rate,
            strength: 2.0,
        },
        estimator: EstimatorParams {
            kind,
            ..EstimatorParams::default()
        },
        label: LabelParams {
            ridge: 1e-6,
            ..LabelParams::default()
        },
        curves: CurveParams {
            mse_points: 0,
            n_points: 0,
            ..CurveParams::default()
        },
        ..Params::default()
    }
}

fn go(p: &Params, seed: u64) -> Output {
    run(p, seed, &Progress::new(), &CancelToken::new()).expect("the run succeeds")
}

fn excess(o: &Output, key: &str) -> f64 {
    o.method(key).expect("method").excess_risk
}

/// `β_wᵀ Var(x_w | x_o) β_w` of the generator, computed here from its settings: every weak
/// feature has conditional variance 1 − R², independently, and coefficient β_w.
fn plugin_per_row(g: &GaussianParams) -> f64 {
    g.d_weak as f64 * g.beta_weak * g.beta_weak * (1.0 - g.r_squared)
}

fn tolerance(g: &GaussianParams, closed: f64, per_row: f64) -> f64 {
    let d = (g.d_observed + g.d_weak + 1) as f64;
    0.03 * closed + 20.0 * d * (g.noise_sd * g.noise_sd + per_row) / N as f64
}

#[test]
fn wf_plugin_excess_is_beta_w_squared_times_the_conditional_variance() {
    for (i, g) in settings().iter().enumerate() {
        let per_row = plugin_per_row(g);
        // Every row estimated by the exact E[x_w | x_o]: the best linear h pays β_w²·Var(x_w|x_o).
        let o = go(
            &params(g, 1.0, Mechanism::Mcar, EstimatorKind::ConditionalMean),
            3 + i as u64,
        );
        assert!((o.closed_forms.plugin_per_row - per_row).abs() < 1e-9 * per_row.max(1.0));
        let measured = excess(&o, "sequential");
        assert!(
            (measured - per_row).abs() < tolerance(g, per_row, per_row),
            "setting {i}: plug-in excess {measured} against β_w²·Var(x_w|x_o) = {per_row}"
        );
        // The observed-only model pays the same on every row.
        let observed = excess(&o, "observed_only");
        assert!(
            (observed - per_row).abs() < tolerance(g, per_row, per_row),
            "setting {i}: observed only {observed} against {per_row}"
        );
        // Half the rows missing, f learned (linear) under MCAR and MAR: ρ_test·β_wᵀVβ_w.
        for mechanism in [Mechanism::Mcar, Mechanism::Mar] {
            let o = go(
                &params(g, 0.5, mechanism, EstimatorKind::Linear),
                10 + i as u64,
            );
            let closed = o.missing_test * per_row;
            assert!((o.closed_forms.sequential - closed).abs() < 1e-9 * closed.max(1.0));
            for key in ["sequential", "iterative"] {
                let measured = excess(&o, key);
                assert!(
                    (measured - closed).abs() < tolerance(g, closed, per_row),
                    "setting {i}, {mechanism:?}, {key}: {measured} against ρ·β_wᵀVβ_w = {closed}"
                );
            }
            // Using x_w where present beats never using it.
            assert!(excess(&o, "sequential") < 0.75 * excess(&o, "observed_only"));
        }
    }
}

#[test]
fn wf_oracle_plus_noise_attenuates_the_ridge_coefficient() {
    for (r_squared, seed) in [(0.0, 1), (0.6, 2)] {
        let g = GaussianParams {
            d_observed: 4,
            d_weak: 1,
            r_squared,
            ..GaussianParams::default()
        };
        let v = 1.0 - r_squared;
        for eps in [0.25, 1.0, 3.0] {
            let mut p = params(&g, 1.0, Mechanism::Mcar, EstimatorKind::OracleNoise);
            p.estimator.mse = eps;
            let o = go(&p, seed);
            let a = o.attenuation.clone().expect("ridge on an oracle estimate");
            // With x_w independent of x_o this is Var(x_w)/(Var(x_w) + ε); in general the
            // weight on x̂_w given x_o is Var(x_w|x_o)/(Var(x_w|x_o) + ε).
            let exact = v / (v + eps);
            assert!(
                (a.closed_form - exact).abs() < 1e-9,
                "R² {r_squared}, ε {eps}: closed form {} against {exact}",
                a.closed_form
            );
            // Standard error of the coefficient ≈ √((σ² + β_w²vε/(v+ε))/(n·(v + ε))).
            let se = ((0.25 + v * eps / (v + eps)) / (N as f64 * (v + eps))).sqrt();
            assert!(
                (a.measured - exact).abs() < 6.0 * se + 1e-3,
                "R² {r_squared}, ε {eps}: measured {} against {exact}",
                a.measured
            );
            // Its excess is then β_w²·vε/(v + ε).
            let closed = v * eps / (v + eps);
            assert!(
                (excess(&o, "sequential") - closed).abs() < tolerance(&g, closed, closed),
                "{} against {closed}",
                excess(&o, "sequential")
            );
        }
    }
}

/// Ordinary least squares of y on (1, x_o, x_w) over the training rows, test MSE.
fn ols_test_mse(p: &Params, seed: u64) -> f64 {
    let problem = benchtop_weakfeatures::data::problem(&p.data, seed).expect("data");
    let design = |x_o: &DMatrix<f64>, x_w: &DMatrix<f64>| {
        let n = x_o.nrows();
        let mut d = DMatrix::from_element(n, 1 + x_o.ncols() + x_w.ncols(), 1.0);
        d.view_mut((0, 1), (n, x_o.ncols())).copy_from(x_o);
        d.view_mut((0, 1 + x_o.ncols()), (n, x_w.ncols()))
            .copy_from(x_w);
        d
    };
    let train = design(&problem.train.x_o, &problem.train.x_w);
    // Least squares through the QR decomposition of the design: R β = Qᵀ y.
    let qr = train.qr();
    let beta = qr
        .r()
        .solve_upper_triangular(&(qr.q().transpose() * &problem.train.y))
        .expect("full rank");
    let test = design(&problem.test.x_o, &problem.test.x_w);
    let residual: DVector<f64> = &problem.test.y - test * beta;
    residual.norm_squared() / residual.len() as f64
}

#[test]
fn wf_no_missing_features_makes_both_schemes_ordinary_least_squares() {
    for (i, g) in settings().iter().enumerate() {
        for kind in [
            EstimatorKind::Linear,
            EstimatorKind::Mlp,
            EstimatorKind::OracleNoise,
        ] {
            let mut p = params(g, 0.0, Mechanism::Mnar, kind);
            p.label.ridge = 0.0;
            p.data.n_train = 2_000;
            p.data.n_test = 2_000;
            p.estimator.mlp.epochs = 5;
            p.iterative.rounds = 3;
            let o = go(&p, 20 + i as u64);
            let ols = ols_test_mse(&p, 20 + i as u64);
            for key in ["sequential", "iterative", "oracle_features"] {
                let mse = o.method(key).expect("method").test_mse;
                assert!(
                    (mse - ols).abs() < 1e-9 * ols,
                    "setting {i}, {kind:?}, {key}: {mse} against OLS {ols}"
                );
            }
        }
    }
    // The same on the bundled table.
    let mut p = params(
        &GaussianParams::default(),
        0.0,
        Mechanism::Mcar,
        EstimatorKind::Linear,
    );
    p.data.source = Source::BreastCancer;
    p.label.ridge = 0.0;
    let o = go(&p, 5);
    let ols = ols_test_mse(&p, 5);
    for key in ["sequential", "iterative"] {
        let mse = o.method(key).expect("method").test_mse;
        assert!(
            (mse - ols).abs() < 1e-9 * ols,
            "table, {key}: {mse} against {ols}"
        );
    }
}

#[test]
fn wf_excess_grows_with_the_estimation_mse_as_the_closed_forms_say() {
    for (i, g) in settings().iter().take(3).enumerate() {
        let mut p = params(g, 0.5, Mechanism::Mcar, EstimatorKind::OracleNoise);
        p.curves = CurveParams {
            mse_max: 2.0,
            mse_points: 5,
            n_points: 0,
            n_min: 50,
        };
        let o = go(&p, 30 + i as u64);
        let per_row = plugin_per_row(g);
        let mut previous = -1.0;
        for point in &o.risk_vs_mse {
            let tol = tolerance(g, point.closed_form, per_row);
            assert!(
                (point.sequential - point.closed_form).abs() < tol,
                "setting {i}, ε {}: sequential {} against {}",
                point.estimation_mse,
                point.sequential,
                point.closed_form
            );
            let tol = tolerance(g, point.closed_form_per_row, per_row);
            assert!(
                (point.iterative - point.closed_form_per_row).abs() < tol,
                "setting {i}, ε {}: iterative {} against {}",
                point.estimation_mse,
                point.iterative,
                point.closed_form_per_row
            );
            assert!(point.sequential > previous, "grows with ε");
            previous = point.sequential;
            // The panel's own bound holds (it is an inequality on the test rows themselves).
            assert!(point.bound_sequential >= point.sequential * (1.0 - 1e-12));
        }
        // Both limits: ε = 0 is the oracle, and the largest ε stays below observed only.
        let first = &o.risk_vs_mse[0];
        assert!(first.closed_form.abs() < 1e-12 && first.sequential < 0.01 * per_row + 0.01);
        let last = o.risk_vs_mse.last().expect("points");
        assert!(last.sequential < excess(&o, "observed_only"));
    }
}

#[test]
fn wf_the_lipschitz_bound_holds_for_capped_networks() {
    let g = GaussianParams::default();
    let mut p = params(&g, 0.5, Mechanism::Mcar, EstimatorKind::OracleNoise);
    p.data.n_train = 1_000;
    p.data.n_test = 2_000;
    p.label = LabelParams {
        kind: LabelKind::Mlp,
        lipschitz_cap: 1.0,
        ..LabelParams::default()
    };
    p.label.mlp.epochs = 150;
    p.iterative.rounds = 2;
    p.iterative.steps_per_round = 30;
    p.curves = CurveParams {
        mse_max: 1.0,
        mse_points: 3,
        n_points: 0,
        n_min: 50,
    };
    let o = go(&p, 4);
    for point in &o.risk_vs_mse {
        assert!(point.lipschitz <= 1.0 + 1e-9, "{}", point.lipschitz);
        assert!(
            point.bound_sequential >= point.sequential * (1.0 - 1e-12),
            "{point:?}"
        );
    }
    // A tighter cap cannot fit β_w = 1 on two weak features: the excess with true features
    // rises, so the capped network is worse than the uncapped one at ε = 0.
    let mut loose = p.clone();
    loose.label.lipschitz_cap = 0.0;
    let free = go(&loose, 4);
    assert!(free.risk_vs_mse[0].sequential < o.risk_vs_mse[0].sequential);
}

/// MNAR (missingness logistic in x_w itself, slope 2): f, fitted on the rows that keep x_w,
/// is biased on the rows that miss it, so its error there exceeds the plug-in's 1 − R², and
/// the sequential excess rises above the (MAR) closed form ρ·β_wᵀVβ_w by more than the
/// sampling tolerance. How far above depends on the setting: over seeds 40–44 at n = 20 000
/// it is 15–28 % in setting 0 and 9–14 % in setting 1 (and 0–19 % in setting 3, whose
/// well-predicted x_w leaves little room; not asserted here). The iterative f-step fits f to
/// the labels of the rows missing x_w, which carry what the selection hid: the rounds lower
/// the excess monotonically and end below the sequential scheme and at or below the MAR closed
/// form, i.e. iterating removes the MNAR excess here rather than only part of it.
#[test]
fn wf_mnar_biases_the_sequential_scheme_and_iterating_removes_the_excess() {
    for (i, g) in settings().iter().take(2).enumerate() {
        let o = go(
            &params(g, 0.5, Mechanism::Mnar, EstimatorKind::Linear),
            40 + i as u64,
        );
        assert!(!o.closed_forms.valid_for_mechanism);
        let closed = o.closed_forms.sequential;
        let tol = tolerance(g, closed, plugin_per_row(g));
        let plugin_feature_mse = 1.0 - g.r_squared;
        assert!(
            o.feature_mse > 1.2 * plugin_feature_mse,
            "setting {i}: f's MSE on the missing rows {} against 1 − R² = {plugin_feature_mse}",
            o.feature_mse
        );
        let sequential = excess(&o, "sequential");
        let iterative = excess(&o, "iterative");
        assert!(
            sequential > closed + tol,
            "setting {i}: MNAR sequential {sequential} against the MAR closed form {closed} \
             (tolerance {tol})"
        );
        for pair in o.rounds.windows(2) {
            assert!(
                pair[1].excess_risk <= pair[0].excess_risk * (1.0 + 1e-9),
                "setting {i}: round {} rises: {:?}",
                pair[1].round,
                o.rounds
            );
        }
        assert!(
            iterative < sequential - tol,
            "setting {i}: iterative {iterative} against sequential {sequential}"
        );
        assert!(
            iterative < closed + tol,
            "setting {i}: iterative {iterative} against the MAR closed form {closed}"
        );
    }
}

#[test]
fn wf_the_real_table_ranks_the_methods_as_the_synthetic_data_do() {
    let mut wins = 0;
    for seed in 1..=5 {
        let mut p = params(
            &GaussianParams::default(),
            0.5,
            Mechanism::Mcar,
            EstimatorKind::Linear,
        );
        p.data.source = Source::BreastCancer;
        p.label.ridge = 1e-3;
        let o = go(&p, seed);
        let e = |k: &str| o.method(k).expect("method").test_mse;
        assert!(
            e("sequential") < e("observed_only"),
            "seed {seed}: {:?}",
            o.methods
        );
        assert!(e("observed_only") < e("mean_predictor"), "seed {seed}");
        assert!(e("oracle_features") < e("sequential") + 0.01, "seed {seed}");
        if e("iterative") <= e("sequential") + 1e-3 {
            wins += 1;
        }
    }
    assert!(
        wins >= 4,
        "iterative no worse than sequential on {wins} of 5 splits"
    );
}

#[test]
fn wf_runs_repeat_bit_for_bit_and_csv_errors_name_the_place() {
    let mut p = params(
        &GaussianParams::default(),
        0.3,
        Mechanism::Mar,
        EstimatorKind::Linear,
    );
    p.data.n_train = 500;
    p.data.n_test = 500;
    p.curves = CurveParams::default();
    let a = format!("{:?}", go(&p, 9));
    let b = format!("{:?}", go(&p, 9));
    assert_eq!(a, b);

    let dir = tempfile::tempdir().expect("folder");
    let path = dir.path().join("rows.csv");
    std::fs::write(&path, "a,b,w,y\n1,2,3,4\n5,six,7,8\n").expect("write");
    let mut p = params(
        &GaussianParams::default(),
        0.3,
        Mechanism::Mcar,
        EstimatorKind::Linear,
    );
    p.data.source = Source::Csv;
    p.data.path = path;
    p.data.columns.observed = "a, b".into();
    p.data.columns.weak = "w".into();
    p.data.columns.target = "y".into();
    let error = run(&p, 1, &Progress::new(), &CancelToken::new())
        .expect_err("refused")
        .to_string();
    assert!(
        error.contains("rows.csv") && error.contains("line 3, column 2") && error.contains("`b`"),
        "{error}"
    );
}
