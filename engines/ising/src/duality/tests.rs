//! Tests of the duality trainer (debug profile) and two hand-run release measurements:
//! `kw_table` (the learned β̃ against Kramers–Wannier) and `finite_size_scan`.

use super::*;
use crate::couplings::Couplings;
use crate::duality::map::{DualBatch, MapObjective, candidate_table};
use crate::single_spin::sample_configs;
use candle_core::Device;

/// Trains to the end; returns the result, the history and the wall time in seconds.
fn train(params: &DualityParams, seed: u64) -> (DualityResult, Vec<DualityStep>, f64) {
    let start = std::time::Instant::now();
    let mut trainer = DualityTrainer::new(params, seed).unwrap();
    let cancel = CancelToken::new();
    while !trainer.is_finished() {
        trainer.step(&cancel).unwrap();
    }
    (
        trainer.result(),
        trainer.history().to_vec(),
        start.elapsed().as_secs_f64(),
    )
}

/// Small, fast parameters for debug-profile tests.
fn small(beta: f64) -> DualityParams {
    DualityParams {
        size: 8,
        beta,
        samples_per_step: 40,
        max_steps: 80,
        map_steps_per_step: 2,
        coupling_warmup_steps: 20,
        ..DualityParams::default()
    }
}

#[test]
fn analytic_map_fits_at_the_dual_point_and_not_elsewhere() {
    // β = 0.3 on a 16² torus, where the finite-size correction is negligible.
    let (size, beta, n) = (16, 0.3, 200);
    let analytic = AnalyticDual::for_beta(beta);
    let cancel = CancelToken::new();
    let original = sample_configs(size, Couplings::ising(beta), n, 50, 10, 1, 4, &cancel).unwrap();
    let target = trainer::mean_correlators(&original);
    let device = Device::Cpu;
    let objective = MapObjective::new(size, target, 0.0, &device).unwrap();
    let table = candidate_table(size);
    let one_hot = |k: usize| {
        let mut map = MapParameters::new(analytic.w, analytic.b);
        map.logits[k] = 100.0;
        map
    };
    let loss_at = |dual_beta: f64, k: usize| {
        let dual =
            sample_configs(size, Couplings::ising(dual_beta), n, 50, 10, 2, 4, &cancel).unwrap();
        let batch = DualBatch::new(&dual, size, &table, &[], &device).unwrap();
        objective
            .evaluate(
                &batch,
                &one_hot(k),
                &[0.0; CANDIDATE_COUNT],
                0.5,
                false,
                false,
            )
            .unwrap()
            .plain_fit
    };
    let at_dual = loss_at(analytic.dual_beta, 2);
    // Candidate 5 is candidate 2 translated by (1, 1): identical correlators, identical loss.
    assert!((loss_at(analytic.dual_beta, 5) - at_dual).abs() < 1e-12);
    assert!(at_dual < 2e-4, "loss at the dual point {at_dual}");
    for wrong in [0.8 * analytic.dual_beta, 1.2 * analytic.dual_beta] {
        let loss = loss_at(wrong, 2);
        assert!(loss > 20.0 * at_dual, "β̃ = {wrong}: {loss} vs {at_dual}");
    }
    // The wrong perpendicular candidate is not a dual map.
    assert!(loss_at(analytic.dual_beta, 3) > 20.0 * at_dual);
}

#[test]
fn short_training_moves_toward_the_dual_coupling() {
    let params = DualityParams {
        max_steps: 150,
        averaging_window: 20,
        ..small(0.3)
    };
    let target = kramers_wannier_dual(0.3);
    let (result, history, _) = train(&params, 3);
    let start = (params.initial_dual_beta - target).abs();
    let end = (result.dual_beta - target).abs();
    // At least halfway to β* = 0.617 from 0.44 in 150 steps, the map on a dual candidate.
    assert!(
        end < 0.5 * start,
        "β̃ = {} (β* = {target})",
        result.dual_beta
    );
    let best = history.last().unwrap().attention.clone();
    let dual_weight: f64 = DUAL_CANDIDATES.iter().map(|&k| best[k]).sum();
    assert!(dual_weight > 0.9, "attention {best:?}");
    assert!(result.w < 0.0 && result.b > 0.0);
    assert_eq!(result.steps, history.len());
}

#[test]
fn same_seed_gives_the_same_history() {
    let params = DualityParams {
        max_steps: 6,
        samples_per_step: 12,
        coupling_warmup_steps: 2,
        ..small(0.35)
    };
    let (a, history_a, _) = train(&params, 9);
    let (b, history_b, _) = train(&params, 9);
    assert_eq!(history_a, history_b);
    assert_eq!(a, b);
    let (_, history_c, _) = train(&params, 10);
    assert_ne!(history_a, history_c);
}

#[test]
fn bad_parameters_are_named() {
    let cases: Vec<(DualityParams, &str)> = vec![
        (
            DualityParams {
                size: 7,
                ..DualityParams::default()
            },
            "size",
        ),
        (
            DualityParams {
                size: 64,
                ..DualityParams::default()
            },
            "size",
        ),
        (
            DualityParams {
                beta: 0.0,
                ..DualityParams::default()
            },
            "beta",
        ),
        (
            DualityParams {
                plaquette: f64::NAN,
                ..DualityParams::default()
            },
            "plaquette",
        ),
        (
            DualityParams {
                samples_per_step: 1,
                ..DualityParams::default()
            },
            "samples_per_step",
        ),
        (
            DualityParams {
                max_steps: 0,
                ..DualityParams::default()
            },
            "max_steps",
        ),
        (
            DualityParams {
                learning_rate: -0.1,
                ..DualityParams::default()
            },
            "learning_rate",
        ),
        (
            DualityParams {
                penalty: -1.0,
                ..DualityParams::default()
            },
            "penalty",
        ),
        (
            DualityParams {
                tau_min: 0.9,
                ..DualityParams::default()
            },
            "tau_min",
        ),
        (
            DualityParams {
                chains: 0,
                ..DualityParams::default()
            },
            "chains",
        ),
        (
            DualityParams {
                damping: 1.0,
                ..DualityParams::default()
            },
            "damping",
        ),
        (
            DualityParams {
                initial_dual_beta: -1.0,
                ..DualityParams::default()
            },
            "initial_dual_beta",
        ),
        (
            DualityParams {
                averaging_window: 0,
                ..DualityParams::default()
            },
            "averaging_window",
        ),
    ];
    for (params, key) in cases {
        let message = params.validate().unwrap_err().to_string();
        assert!(message.contains(key), "{key}: {message}");
        assert!(DualityTrainer::new(&params, 0).is_err());
    }
    assert!(DualityParams::default().validate().is_ok());
    // Serde fills missing keys from the defaults.
    let parsed: DualityParams = serde_json::from_str(r#"{"beta": 0.6}"#).unwrap();
    assert_eq!(
        parsed,
        DualityParams {
            beta: 0.6,
            ..DualityParams::default()
        }
    );
}

#[test]
fn run_reports_progress_and_the_analytic_answer() {
    let params = DualityParams {
        max_steps: 3,
        samples_per_step: 8,
        ..small(0.2)
    };
    let progress = Progress::new();
    let result = run(&params, 1, &progress, &CancelToken::new()).unwrap();
    assert_eq!(result.steps, 3);
    assert!(!result.stopped_early);
    assert!((progress.fraction() - 1.0).abs() < 1e-6);
    let analytic = result.analytic.unwrap();
    assert!((analytic.dual_beta - 0.811_324).abs() < 1e-6);
    assert!((analytic.w + 2.434_56).abs() < 1e-5 && (analytic.b - 2.631_93).abs() < 1e-5);
    let cancel = CancelToken::new();
    cancel.cancel();
    assert!(matches!(
        run(&params, 1, &progress, &cancel),
        Err(ComputeError::Cancelled)
    ));
    let with_plaquette = DualityParams {
        plaquette: 0.1,
        ..params
    };
    assert!(with_plaquette.analytic().is_none());
}

#[test]
fn plaquette_coupling_is_learned_only_when_asked() {
    let base = DualityParams {
        plaquette: 0.2,
        max_steps: 4,
        samples_per_step: 12,
        coupling_warmup_steps: 0,
        ..small(0.3)
    };
    let (fixed, _, _) = train(&base, 5);
    assert_eq!(fixed.dual_plaquette, 0.0);
    let learned = DualityParams {
        learn_plaquette: true,
        ..base
    };
    let mut trainer = DualityTrainer::new(&learned, 5).unwrap();
    for _ in 0..4 {
        trainer.step(&CancelToken::new()).unwrap();
    }
    let k = trainer.dual_couplings().plaquette;
    assert!(k != 0.0 && k.is_finite(), "K̃ = {k}");
}

#[test]
fn residual_map_puts_the_minimum_at_the_dual_coupling_for_k0() {
    let params = DualityParams {
        size: 8,
        beta: 0.3,
        samples_per_step: 100,
        map_fit_steps: 300,
        ..DualityParams::default()
    };
    let betas = [0.45, 0.62, 0.8];
    let progress = Progress::new();
    let map =
        residual_loss_map(&params, &betas, &[0.0], 4, &progress, &CancelToken::new()).unwrap();
    assert_eq!(map.loss.len(), 3);
    assert_eq!(map.best_dual_beta, 0.62, "losses {:?}", map.loss);
    assert_eq!(map.best_dual_plaquette, 0.0);
    assert!(
        map.loss[1] < 0.2 * map.loss[0].min(map.loss[2]),
        "{:?}",
        map.loss
    );
    assert!((progress.fraction() - 1.0).abs() < 1e-6);
    assert!(residual_loss_map(&params, &[], &[0.0], 4, &progress, &CancelToken::new()).is_err());
    let bad = residual_loss_map(&params, &[0.3], &[11.0], 4, &progress, &CancelToken::new());
    assert!(bad.unwrap_err().to_string().contains("dual_plaquettes"));
    let cancel = CancelToken::new();
    cancel.cancel();
    assert!(matches!(
        residual_loss_map(&params, &betas, &[0.0], 4, &progress, &cancel),
        Err(ComputeError::Cancelled)
    ));
}

/// The acceptance measurement: learned β̃ against Kramers–Wannier with the default parameters.
/// Release mode:
/// `cargo test --release -p benchtop-ising --lib duality::tests::kw_table -- --ignored --nocapture`
#[test]
#[ignore = "release-mode measurement (about a minute)"]
fn kw_table() {
    let betas: Vec<f64> = std::env::var("BETAS")
        .map(|f| f.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or_else(|_| vec![0.1, 0.2, 0.3, 0.4407, 0.6, 0.8]);
    let seed: u64 = std::env::var("SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    eprintln!(
        "| β | β* | learned β̃ ± spread | deviation | w (analytic) | b (analytic) | dual attention | steps | early stop | seconds |"
    );
    eprintln!("|---|---|---|---|---|---|---|---|---|---|");
    // PAPER=1: the paper's recipe at its lattice size, with every addition of this crate off.
    let paper = std::env::var("PAPER").is_ok();
    for beta in betas {
        let params = if paper {
            DualityParams {
                beta,
                size: 8,
                samples_per_step: 200,
                chains: 2,
                warmup_per_site: 50,
                precondition_with_map: false,
                unbiased_loss: false,
                hessian_smoothing_steps: 1,
                max_coupling_step: 10.0,
                calibrate_bias: false,
                coupling_warmup_steps: 0,
                tau_decay: 1.0,
                loss_smoothing_steps: 1,
                averaging_window: 100,
                ..DualityParams::default()
            }
        } else {
            DualityParams {
                beta,
                ..DualityParams::default()
            }
        };
        let (result, _, seconds) = train(&params, seed);
        let analytic = AnalyticDual::for_beta(beta);
        let dual_weight: f64 = DUAL_CANDIDATES.iter().map(|&k| result.attention[k]).sum();
        eprintln!(
            "| {beta} | {:.4} | {:.4} ± {:.4} | {:+.2} % | {:.3} ({:.3}) | {:.3} ({:.3}) | {:.2} | {} | {} | {:.1} |",
            analytic.dual_beta,
            result.dual_beta,
            result.dual_beta_error,
            100.0 * (result.dual_beta / analytic.dual_beta - 1.0),
            result.w,
            analytic.w,
            result.b,
            analytic.b,
            dual_weight,
            result.steps,
            result.stopped_early,
            seconds
        );
    }
}

/// Finite-size analysis helpers: the loss profile of the exact-form map (one-hot attention on
/// candidate 2, free w and b) as a function of β̃, from high-statistics samples.
mod profile {
    use crate::couplings::Couplings;
    use crate::duality::map::{apply_map, candidate_table};
    use crate::lattice::SpinConfig;
    use crate::links::{CORRELATOR_COUNT, LinkField, MASKS, link_index};
    use crate::single_spin::sample_configs;
    use benchtop_compute::CancelToken;

    /// Subset moments M[m][S] = ⟨Π_{ℓ∈S} v_ℓ⟩ of the crossing dual links of every mask.
    pub type Moments = Vec<Vec<f64>>;

    pub fn moments(configs: &[SpinConfig]) -> Moments {
        let size = configs[0].size();
        let table = candidate_table(size);
        let mut one_hot = [0.0; 7];
        one_hot[2] = 1.0;
        let mut sums: Vec<Vec<f64>> = MASKS.iter().map(|m| vec![0.0; 1 << m.len()]).collect();
        let side = size as isize;
        for config in configs {
            let v = apply_map(&LinkField::from_spins(config), &table, &one_hot, 1.0, 0.0).unwrap();
            for y in 0..side {
                for x in 0..side {
                    for (m, mask) in MASKS.iter().enumerate() {
                        let values: Vec<f64> = mask
                            .iter()
                            .map(|o| {
                                v.values()[link_index(size, o.orientation, x + o.dx, y + o.dy)]
                            })
                            .collect();
                        for (subset, sum) in sums[m].iter_mut().enumerate() {
                            let mut p = 1.0;
                            for (j, value) in values.iter().enumerate() {
                                if subset >> j & 1 == 1 {
                                    p *= value;
                                }
                            }
                            *sum += p;
                        }
                    }
                }
            }
        }
        let count = (configs.len() * size * size) as f64;
        sums.into_iter()
            .map(|row| row.into_iter().map(|s| s / count).collect())
            .collect()
    }

    /// Mapped correlators for slope w and offset b, and their derivatives in (w, b).
    pub fn mapped(moments: &Moments, w: f64, b: f64) -> Vec<(f64, f64, f64)> {
        MASKS
            .iter()
            .enumerate()
            .map(|(m, mask)| {
                let n = mask.len() as i32;
                let (mut f, mut dw, mut db) = (0.0, 0.0, 0.0);
                for (subset, &moment) in moments[m].iter().enumerate() {
                    let k = (subset as u32).count_ones() as i32;
                    f += w.powi(k) * b.powi(n - k) * moment;
                    if k > 0 {
                        dw += f64::from(k) * w.powi(k - 1) * b.powi(n - k) * moment;
                    }
                    if n - k > 0 {
                        db += f64::from(n - k) * w.powi(k) * b.powi(n - k - 1) * moment;
                    }
                }
                (f, dw, db)
            })
            .collect()
    }

    /// min over (w, b) of (1/13) Σ (F_m(w, b) − target_m)², by damped Gauss–Newton.
    pub fn best_fit(
        moments: &Moments,
        target: &[f64; CORRELATOR_COUNT],
        w0: f64,
        b0: f64,
    ) -> (f64, f64, f64) {
        let loss = |w: f64, b: f64| {
            mapped(moments, w, b)
                .iter()
                .zip(target)
                .map(|(f, t)| (f.0 - t).powi(2))
                .sum::<f64>()
                / 13.0
        };
        let (mut w, mut b) = (w0, b0);
        let mut lambda = 1e-3;
        let mut current = loss(w, b);
        for _ in 0..200 {
            let rows = mapped(moments, w, b);
            let (mut a11, mut a12, mut a22, mut g1, mut g2) = (0.0, 0.0, 0.0, 0.0, 0.0);
            for (row, t) in rows.iter().zip(target) {
                let r = row.0 - t;
                a11 += row.1 * row.1;
                a12 += row.1 * row.2;
                a22 += row.2 * row.2;
                g1 += row.1 * r;
                g2 += row.2 * r;
            }
            loop {
                let (d11, d22) = (a11 * (1.0 + lambda), a22 * (1.0 + lambda));
                let det = d11 * d22 - a12 * a12;
                let dw = -(d22 * g1 - a12 * g2) / det;
                let db = -(d11 * g2 - a12 * g1) / det;
                let trial = loss(w + dw, b + db);
                if trial < current {
                    w += dw;
                    b += db;
                    current = trial;
                    lambda = (lambda * 0.3).max(1e-9);
                    break;
                }
                lambda *= 10.0;
                if lambda > 1e9 {
                    return (current, w, b);
                }
            }
        }
        (current, w, b)
    }

    /// Target correlators from `n` original samples.
    pub fn target(size: usize, beta: f64, n: usize, seed: u64) -> [f64; CORRELATOR_COUNT] {
        let configs = sample_configs(
            size,
            Couplings::ising(beta),
            n,
            50,
            10,
            seed,
            8,
            &CancelToken::new(),
        )
        .unwrap();
        crate::duality::trainer::mean_correlators(&configs)
    }

    pub fn dual_samples(size: usize, dual_beta: f64, n: usize, seed: u64) -> Vec<SpinConfig> {
        sample_configs(
            size,
            Couplings::ising(dual_beta),
            n,
            50,
            10,
            seed,
            8,
            &CancelToken::new(),
        )
        .unwrap()
    }
}

/// The finite-size shift of the dual coupling: at each L and β, the β̃ that minimises the
/// loss of the exact-form map (one-hot attention, best w and b), from a parabola through the
/// profile on a fine grid with common random numbers. Release mode:
/// `cargo test --release -p benchtop-ising --lib duality::tests::finite_size_scan -- --ignored --nocapture`
#[test]
#[ignore = "release-mode measurement (minutes)"]
fn finite_size_scan() {
    let sizes: Vec<usize> = std::env::var("SIZES")
        .map(|f| f.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or_else(|_| vec![8, 12, 16, 20, 24]);
    let betas: Vec<f64> = std::env::var("BETAS")
        .map(|f| f.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or_else(|_| vec![0.3, crate::couplings::BETA_CRITICAL, 0.6]);
    let anchor_samples: f64 = std::env::var("ANCHORS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0e7);
    eprintln!(
        "| L | β | β* | β̃_L (profile minimum) | shift % | residual loss | samples | seconds |"
    );
    eprintln!("|---|---|---|---|---|---|---|---|");
    for &beta in &betas {
        for &size in &sizes {
            let start = std::time::Instant::now();
            let n = ((anchor_samples / (size * size) as f64) as usize).max(500);
            let analytic = AnalyticDual::for_beta(beta);
            let target = profile::target(size, beta, n, 11);
            let factors: Vec<f64> = (0..13).map(|i| 0.88 + 0.02 * f64::from(i)).collect();
            let mut points = Vec::new();
            for &factor in &factors {
                let dual_beta = analytic.dual_beta * factor;
                let configs = profile::dual_samples(size, dual_beta, n, 12);
                let moments = profile::moments(&configs);
                let (loss, _, _) = profile::best_fit(&moments, &target, analytic.w, analytic.b);
                points.push((dual_beta, loss));
            }
            let (i, _) = points
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.1.total_cmp(&b.1.1))
                .unwrap();
            let i = i.clamp(1, points.len() - 2);
            let (x0, y0) = points[i - 1];
            let (_, y1) = points[i];
            let (x2, y2) = points[i + 1];
            let h = (x2 - x0) / 2.0;
            let vertex = points[i].0 + h * (y0 - y2) / (2.0 * (y0 - 2.0 * y1 + y2));
            eprintln!(
                "| {size} | {beta:.4} | {:.4} | {vertex:.4} | {:+.2} | {:.2e} | {n} | {:.0} |",
                analytic.dual_beta,
                100.0 * (vertex / analytic.dual_beta - 1.0),
                y1,
                start.elapsed().as_secs_f64()
            );
        }
    }
}
