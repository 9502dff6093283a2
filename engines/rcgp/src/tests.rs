//! The known answers: the constant-weight robust filter is the Kalman filter, the
//! state-space smoother is dense GP regression, and ST-RCGP beats STGP under outliers.

use benchtop_compute::{CancelToken, Progress};

use crate::data;
use crate::dense;
use crate::experiment::{self, RcgpParams, Source};
use crate::filter;
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
/// (seeds 1, 2): STGP/ST-RCGP RMSE ratio 23.9 and 40.5 (STGP's likelihood fit chases the
/// outliers with a tiny time length scale); asserted: ≥ 5. With both methods at the same fixed
/// hyperparameters (no fit) the ratio is 13.9 (0.722 / 0.052); asserted ≥ 5. Outliers get small
/// weights.
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
        assert!(ratio > 5.0, "seed {seed}: ratio {ratio}");
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
    assert!(err.contains("/nowhere/missing.csv: cannot read"), "{err}");
    p.hyper.noise = -1.0;
    p.data.source = Source::Figure1;
    let err = experiment::run(&p, None, &Progress::new(), &CancelToken::new())
        .expect_err("noise")
        .to_string();
    assert!(err.contains("noise must be finite and positive"), "{err}");
}
