//! The known answers: the constant-weight robust filter is the Kalman filter, the
//! state-space smoother is dense GP regression, and ST-RCGP beats STGP under outliers.

use benchtop_compute::{CancelToken, Progress};

use crate::data;
use crate::dense;
use crate::experiment::{self, RcgpParams, Source};
use crate::filter;
use crate::fit;
use crate::kernel::{SpatialKernel, TemporalKernel};
use crate::model::{Hyper, KernelChoice, Prior};
use crate::robust::{Observation, RobustSettings};

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

/// Irregular, strictly increasing times.
fn irregular_times(n: usize) -> Vec<f64> {
    let mut t = 0.0;
    (0..n)
        .map(|k| {
            t += 0.03 + 0.05 * ((k * 7 % 5) as f64) / 4.0;
            t
        })
        .collect()
}

fn synthetic(grid: usize, times: &[f64], seed: u64) -> (Vec<[f64; 2]>, Vec<f64>) {
    let d = data::figure1(grid, times.len(), 0.1, seed);
    let y = times
        .iter()
        .enumerate()
        .flat_map(|(k, &t)| {
            d.locations.iter().enumerate().map(move |(i, &s)| {
                data::figure1_field(s, t) + 0.1 * ((k * 31 + i * 17) % 13) as f64 / 13.0
            })
        })
        .collect();
    (d.locations, y)
}

/// Known answer 1: w = √(σ²/2) with ∂w = 0 gives R_eff = σ², ỹ = y: the robust filter is the
/// Kalman filter (to round-off in σ⁴/(2w²)).
#[test]
fn rcgp_constant_weight_is_exactly_the_kalman_filter() {
    let times = irregular_times(25);
    let (locations, mut y) = synthetic(3, &times, 2);
    y[40] += 7.0; // the weight ignores y, so an outlier changes nothing in the comparison
    for temporal in TemporalKernel::ALL {
        let hyper = Hyper {
            time_length: 0.3,
            space_length: 0.8,
            variance: 1.3,
            noise: 0.05,
        };
        let prior = Prior {
            kernel: KernelChoice {
                temporal,
                spatial: SpatialKernel::Matern32,
            },
            hyper,
            times: &times,
            locations: &locations,
        };
        let cancel = CancelToken::new();
        let kf = filter::run(&prior, &y, Observation::Gaussian, true, &cancel).expect("kf");
        let w = (hyper.noise / 2.0).sqrt();
        let rc =
            filter::run(&prior, &y, Observation::ConstantWeight(w), true, &cancel).expect("rcgp");
        assert!(max_abs_diff(&kf.mean, &rc.mean) < 1e-12, "{temporal:?}");
        assert!(max_abs_diff(&kf.var, &rc.var) < 1e-12, "{temporal:?}");
        assert!((kf.log_likelihood - rc.log_likelihood).abs() < 1e-10);
        // And the IMQ weight with an enormous fixed c and a fixed centre tends to it too.
        let wide = RobustSettings {
            adaptive_centre: false,
            adaptive_scale: false,
            c: 1e7,
            ..RobustSettings::default()
        };
        let imq = filter::run(&prior, &y, Observation::Robust(wide), true, &cancel).expect("imq");
        assert!(max_abs_diff(&kf.mean, &imq.mean) < 1e-9, "{temporal:?}");
    }
}

/// Known answer 2, temporal: the smoothed mean and variance equal dense GP regression with the
/// same Matérn kernel to 1e-8, on irregular times, for every ν; so do the log likelihoods.
#[test]
fn rcgp_temporal_smoother_equals_dense_gp() {
    let times = irregular_times(60);
    let locations = [[0.0, 0.0]];
    let y: Vec<f64> = times
        .iter()
        .map(|t| (6.0 * t).sin() + 0.3 * (17.0 * t).cos())
        .collect();
    for temporal in TemporalKernel::ALL {
        for hyper in [
            Hyper {
                time_length: 0.4,
                space_length: 1.0,
                variance: 1.0,
                noise: 0.02,
            },
            Hyper {
                time_length: 0.08,
                space_length: 1.0,
                variance: 2.5,
                noise: 0.3,
            },
        ] {
            let prior = Prior {
                kernel: KernelChoice {
                    temporal,
                    spatial: SpatialKernel::Rbf,
                },
                hyper,
                times: &times,
                locations: &locations,
            };
            let kf = filter::run(&prior, &y, Observation::Gaussian, true, &CancelToken::new())
                .expect("kf");
            let gp = dense::regress(&prior, &y).expect("dense");
            assert!(
                max_abs_diff(&kf.mean, &gp.mean) < 1e-8,
                "{temporal:?} {hyper:?} mean"
            );
            assert!(
                max_abs_diff(&kf.var, &gp.var) < 1e-8,
                "{temporal:?} {hyper:?} var"
            );
            assert!((kf.log_likelihood - gp.log_likelihood).abs() < 1e-8);
            let dec = filter::decoupled_log_likelihood(&prior, &y).expect("decoupled");
            assert!((dec - gp.log_likelihood).abs() < 1e-8);
        }
    }
}

/// Known answer 2, separable space × time: the stacked-state smoother equals dense GP
/// regression on the (n_s·T)×(n_s·T) covariance to 1e-8 (4×4 grid × 30 irregular times, two
/// kernel pairs); the decoupled likelihood equals the dense one.
#[test]
fn rcgp_spatiotemporal_smoother_equals_dense_gp() {
    let times = irregular_times(30);
    let (locations, y) = synthetic(4, &times, 5);
    for (temporal, spatial) in [
        (TemporalKernel::Matern32, SpatialKernel::Rbf),
        (TemporalKernel::Matern52, SpatialKernel::Matern12),
    ] {
        let prior = Prior {
            kernel: KernelChoice { temporal, spatial },
            hyper: Hyper {
                time_length: 0.25,
                space_length: 0.7,
                variance: 1.5,
                noise: 0.04,
            },
            times: &times,
            locations: &locations,
        };
        let kf =
            filter::run(&prior, &y, Observation::Gaussian, true, &CancelToken::new()).expect("kf");
        let gp = dense::regress(&prior, &y).expect("dense");
        assert!(
            max_abs_diff(&kf.mean, &gp.mean) < 1e-8,
            "{temporal:?}/{spatial:?}"
        );
        assert!(
            max_abs_diff(&kf.var, &gp.var) < 1e-8,
            "{temporal:?}/{spatial:?}"
        );
        assert!((kf.log_likelihood - gp.log_likelihood).abs() < 1e-7);
        let dec = filter::decoupled_log_likelihood(&prior, &y).expect("decoupled");
        assert!(
            (dec - gp.log_likelihood).abs() < 1e-7,
            "{dec} {}",
            gp.log_likelihood
        );
    }
}

fn figure1_params(grid: usize, n_times: usize, rate: f64, seed: u64) -> RcgpParams {
    let mut p = RcgpParams::default();
    p.data.grid = grid;
    p.data.n_times = n_times;
    p.data.outlier_rate = rate;
    p.seed = seed;
    p
}

/// Known answer 3: with 5 % outliers of size 6–8 on the Figure-1 field (5×5 grid × 40 times,
/// hyperparameters fitted), ST-RCGP's RMSE against the clean truth is well below STGP's. Measured
/// (seeds 1, 2) with both fits multi-start (issue 34: STGP at its maximum likelihood, which
/// explains the outliers as noise, σ² ≈ 5.2): STGP/ST-RCGP RMSE ratio 4.77 (0.3136 / 0.0658)
/// and 8.34 (0.3252 / 0.0390); asserted: ≥ 3. Before issue 34 STGP was fitted from one start,
/// which chased the outliers with a tiny time length scale (ℓ_t 0.013, log likelihood −2323
/// against −2295 at the optimum), and the ratios were 23.9 and 40.5 (asserted ≥ 5). With both
/// methods at the same fixed hyperparameters (no fit) the ratio is 13.9 (0.722 / 0.052);
/// asserted ≥ 5. Outliers get small weights.
#[test]
fn rcgp_robust_beats_standard_under_outliers_on_figure1() {
    for seed in [1, 2] {
        let r = experiment::run(
            &figure1_params(5, 40, 0.05, seed),
            None,
            &Progress::new(),
            &CancelToken::new(),
        )
        .expect("run");
        let ratio = r.stgp.rmse / r.rcgp.rmse;
        eprintln!(
            "seed {seed}: STGP {:.4} ST-RCGP {:.4} ratio {ratio:.2}; nlpd {:.3} {:.3}; hyper {:?} / {:?}",
            r.stgp.rmse, r.rcgp.rmse, r.stgp.nlpd, r.rcgp.nlpd, r.stgp.hyper, r.rcgp.hyper
        );
        assert!(ratio > 3.0, "seed {seed}: ratio {ratio}");
        assert!(r.rcgp.nlpd < r.stgp.nlpd);
        let (mut w_out, mut w_in) = (0.0f64, 1.0f64);
        for (k, &o) in r.data.outlier.iter().enumerate() {
            if o {
                w_out = w_out.max(r.rcgp.weight[k]);
            } else {
                w_in = w_in.min(r.rcgp.weight[k]);
            }
        }
        assert!(
            w_out < 0.2 && w_in > 0.3,
            "outlier weights ≤ {w_out}, inlier ≥ {w_in}"
        );
    }
    let mut fixed = figure1_params(5, 40, 0.05, 1);
    fixed.fit = false;
    let r = experiment::run(&fixed, None, &Progress::new(), &CancelToken::new()).expect("run");
    eprintln!(
        "fixed hyperparameters: STGP {:.4} ST-RCGP {:.4}",
        r.stgp.rmse, r.rcgp.rmse
    );
    assert!(
        r.stgp.rmse > 5.0 * r.rcgp.rmse,
        "{} vs {}",
        r.stgp.rmse,
        r.rcgp.rmse
    );
}

/// Without outliers the robust method loses little: RMSEs within 25 % of each other.
#[test]
fn rcgp_robust_costs_little_without_outliers() {
    let r = experiment::run(
        &figure1_params(4, 30, 0.0, 3),
        None,
        &Progress::new(),
        &CancelToken::new(),
    )
    .expect("run");
    eprintln!("clean: STGP {:.4} ST-RCGP {:.4}", r.stgp.rmse, r.rcgp.rmse);
    assert!(
        r.rcgp.rmse < 1.25 * r.stgp.rmse,
        "{} vs {}",
        r.rcgp.rmse,
        r.stgp.rmse
    );
}

/// A real series (IBM monthly price, 5 % outliers of 6–8 robust SDs): ST-RCGP is closer to the
/// clean series than STGP, and its NLPD is lower. Measured RMSE ratio 2.03 (10.78 / 5.32 US$);
/// asserted ≥ 1.4.
#[test]
fn rcgp_robust_beats_standard_on_a_real_series() {
    let mut p = RcgpParams::default();
    p.data.source = Source::Stocks;
    p.data.symbol = "IBM".to_owned();
    let r = experiment::run(&p, None, &Progress::new(), &CancelToken::new()).expect("run");
    let ratio = r.stgp.rmse / r.rcgp.rmse;
    eprintln!(
        "IBM: STGP {:.3} ST-RCGP {:.3} ratio {ratio:.2}",
        r.stgp.rmse, r.rcgp.rmse
    );
    assert!(ratio > 1.4, "{ratio}");
    assert!(
        r.rcgp.nlpd < r.stgp.nlpd,
        "{} vs {}",
        r.rcgp.nlpd,
        r.stgp.nlpd
    );
}

/// Fitting increases each method's objective and recovers a sensible noise level on clean data.
#[test]
fn rcgp_fit_increases_the_likelihood() {
    let r = experiment::run(
        &figure1_params(3, 40, 0.0, 4),
        None,
        &Progress::new(),
        &CancelToken::new(),
    )
    .expect("run");
    for m in [&r.stgp, &r.rcgp] {
        let fit = m.fit.expect("fitted");
        assert!(fit.objective > fit.start_objective, "{}: {fit:?}", m.name);
    }
    // The noise SD is 0.1 in data units.
    let noise_sd = r.stgp.hyper.noise.sqrt() * r.scale;
    assert!((0.05..0.2).contains(&noise_sd), "{noise_sd}");
}

/// Bad input to the filter gets a named error.
#[test]
fn rcgp_filter_rejects_bad_input_by_name() {
    let locations = [[0.0, 0.0]];
    let check = |times: &[f64], y: &[f64], expected: &str| {
        let prior = Prior {
            kernel: KernelChoice::default(),
            hyper: Hyper::default(),
            times,
            locations: &locations,
        };
        let err = filter::run(&prior, y, Observation::Gaussian, true, &CancelToken::new())
            .expect_err(expected)
            .to_string();
        assert!(err.contains(expected), "{err}");
    };
    check(
        &[0.0, 1.0],
        &[1.0, f64::NAN],
        "value at time 1 location 0 is NaN",
    );
    check(
        &[0.0, 1.0, 0.5],
        &[1.0, 2.0, 3.0],
        "times must increase strictly: time 2",
    );
    check(&[], &[], "no times");
    check(&[0.0, 1.0], &[1.0], "1 values for 2 times");
    let mut p = RcgpParams::default();
    p.data.source = Source::Csv;
    p.data.csv_path = "missing.csv".to_owned();
    let err = experiment::run(
        &p,
        Some(std::path::Path::new("/nowhere")),
        &Progress::new(),
        &CancelToken::new(),
    )
    .expect_err("missing")
    .to_string();
    assert!(err.contains("/nowhere/missing.csv: cannot open"), "{err}");
    p.hyper.noise = -1.0;
    p.data.source = Source::Figure1;
    let err = experiment::run(&p, None, &Progress::new(), &CancelToken::new())
        .expect_err("noise")
        .to_string();
    assert!(err.contains("noise must be finite and positive"), "{err}");
}

/// Issue 34: a maximum-likelihood fit from one start can stop far from the maximum. On the
/// Figure-1 field with outliers (5×5 grid × 40 times, 5 % outliers, seed 1, standardised units)
/// STGP's fit from the default start chases the outliers with a tiny time length scale and stops
/// at a local optimum: ℓ_t 0.0129, σ² 0.388, log likelihood −2323.14 (not at the e^±12 bound:
/// with L-BFGS none of these starts reaches it). The multi-start fit, from the same start plus
/// seven spread ones at the same iterations per start, explains the outliers as noise instead
/// and reaches −2294.92 (ℓ_t 0.211, σ² 5.24, from the eighth start); STGP's RMSE against the
/// truth drops from 1.56 to 0.314.
#[test]
fn rcgp_multi_start_fit_escapes_the_optimum_a_single_start_stops_at() {
    let params = figure1_params(5, 40, 0.05, 1);
    let data = experiment::load_data(&params.data, params.seed, None).expect("data");
    let (offset, scale) = experiment::robust_scale(&data.y);
    let ys: Vec<f64> = data.y.iter().map(|v| (v - offset) / scale).collect();
    let prior = Prior {
        kernel: params.kernel,
        hyper: params.hyper,
        times: &data.times,
        locations: &data.locations,
    };
    let fit = |starts| {
        fit::fit(
            &prior,
            &ys,
            fit::Objective::Marginal,
            fit::Budget {
                max_iterations: params.fit_iterations,
                starts,
            },
            &[],
            &Progress::new(),
            &CancelToken::new(),
        )
        .expect("fit")
    };
    let single = fit(1);
    let multi = fit(experiment::DEFAULT_FIT_STARTS);
    eprintln!("single: {single:?}\nmulti: {multi:?}");
    // One start is the multi-start fit's first.
    assert_eq!(single.objective, single.single_start_objective);
    assert_eq!(single.objective, multi.single_start_objective);
    assert_eq!((single.starts, multi.starts), (1, 8));
    assert!((single.objective + 2323.14).abs() < 0.01, "{single:?}");
    assert!(
        single.hyper.time_length < 0.02,
        "chases the outliers: {single:?}"
    );
    assert!((multi.objective + 2294.92).abs() < 0.01, "{multi:?}");
    assert!(multi.objective > single.objective + 25.0);
    assert!(multi.best_start > 0 && multi.hyper.noise > 4.0, "{multi:?}");
}

/// The trivial references: with outliers of known size the raw observations' RMSE is exactly
/// what they add, and a per-location constant is scored like any predictor.
#[test]
fn rcgp_references_are_what_no_model_gives() {
    let mut d = data::figure1(2, 3, 0.0, 1);
    // No noise: the observations equal the truth, so their RMSE is 0 before outliers.
    assert_eq!(experiment::References::of(&d).observations_rmse, 0.0);
    d.y[0] += 4.0;
    let r = experiment::References::of(&d);
    assert!(
        (r.observations_rmse - (16.0_f64 / 12.0).sqrt()).abs() < 1e-12,
        "{r:?}"
    );
    let (means, _) = experiment::location_moments(&d);
    let constant: Vec<f64> = (0..12).map(|k| means[k % 4]).collect();
    assert!((r.location_mean_rmse - crate::metrics::rmse(&constant, &d.clean)).abs() < 1e-15);
    assert!(r.location_mean_nlpd.is_finite());
}

/// A CSV with a truth column is scored against it; without one, against the observations, and
/// the result says which.
#[test]
fn rcgp_csv_scores_say_what_they_are_against() {
    let dir = std::env::temp_dir().join(format!("benchtop-rcgp-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    let mut with_truth = String::from("t,a,a_truth\n");
    let mut plain = String::from("t,a\n");
    for k in 0..40 {
        let t = f64::from(k) / 39.0;
        let truth = (6.0 * t).sin();
        let noise = 0.05 * f64::from((k * 7) % 5) - 0.1;
        let outlier = if k % 10 == 3 { 8.0 } else { 0.0 };
        with_truth.push_str(&format!("{t},{},{truth}\n", truth + noise + outlier));
        plain.push_str(&format!("{t},{}\n", truth + noise + outlier));
    }
    std::fs::write(dir.join("truth.csv"), with_truth).expect("write");
    std::fs::write(dir.join("plain.csv"), plain).expect("write");
    let mut p = RcgpParams::default();
    p.data.source = Source::Csv;
    p.data.outlier_rate = 0.0;
    p.fit_starts = 3;
    p.data.csv_path = "truth.csv".to_owned();
    let r =
        experiment::run(&p, Some(&dir), &Progress::new(), &CancelToken::new()).expect("with truth");
    assert_eq!(r.data.scored_against(), "truth");
    // Against the truth the raw observations carry their 4 outliers of 8.
    let refs = r.references.expect("references");
    assert!(
        refs.observations_rmse > 8.0 * (4.0_f64 / 40.0).sqrt() - 0.1,
        "{refs:?}"
    );
    assert!(
        r.rcgp.rmse < r.stgp.rmse,
        "{} vs {}",
        r.rcgp.rmse,
        r.stgp.rmse
    );
    assert!(
        r.verdict().ends_with("against the truth"),
        "{}",
        r.verdict()
    );
    p.data.csv_path = "plain.csv".to_owned();
    let r = experiment::run(&p, Some(&dir), &Progress::new(), &CancelToken::new()).expect("plain");
    assert_eq!(r.data.scored_against(), "observations");
    assert_eq!(r.references.expect("references").observations_rmse, 0.0);
    assert!(
        r.verdict().ends_with("against the observations"),
        "{}",
        r.verdict()
    );
    std::fs::remove_dir_all(&dir).expect("remove the temporary folder");
}
