//! The known answers on trained networks: under parameter noise every seed's RSM
//! reaches the closed form; under input noise the function is shared but the representation
//! is not; gradient flow from a small initialisation ends at the minimum weight-norm solution.

use benchtop_compute::{CancelToken, Progress};
use benchtop_linnet::data::DataSource;
use benchtop_linnet::experiment::{ExperimentParams, Training, solve, train_regimes};
use benchtop_linnet::train::{NoiseMode, TrainParams};

fn hierarchy() -> DataSource {
    DataSource::Hierarchy {
        depth: 3,
        branching: 2,
        input_mixing: 1.0,
    }
}

fn gaussian() -> DataSource {
    DataSource::Gaussian {
        n_in: 6,
        n_out: 5,
        items: 20,
        rank: 3,
        target_noise: 0.1,
    }
}

fn params(data: DataSource, seeds: usize, train: TrainParams) -> ExperimentParams {
    ExperimentParams {
        data,
        seeds,
        nonlinear: false,
        train,
        ..ExperimentParams::default()
    }
}

fn run(params: &ExperimentParams) -> Training {
    train_regimes(params, 3, &Progress::new(), &CancelToken::new(), |_| {}).expect("trains")
}

fn regime<'a>(training: &'a Training, key: &str) -> &'a benchtop_linnet::experiment::RegimeResult {
    training
        .regimes
        .iter()
        .find(|r| r.regime.key() == key)
        .expect("regime trained")
}

#[test]
fn linnet_expected_parameter_noise_reaches_the_exact_optimum_and_the_closed_form() {
    for data in [hierarchy(), gaussian()] {
        let p = params(
            data.clone(),
            4,
            TrainParams {
                noise_mode: NoiseMode::Expected,
                steps: 6000,
                ..TrainParams::default()
            },
        );
        let training = run(&p);
        let noisy = regime(&training, "parameter_noise");
        for seed in &noisy.seeds {
            let to_exact =
                benchtop_linnet::linalg::relative_frobenius(&seed.rsm, &training.exact_rsm);
            assert!(
                to_exact < 1e-3,
                "{data:?}: RSM vs the exact finite-σ optimum {to_exact}"
            );
        }
        // The first-order closed form is within 5 % at σ = 0.05 (the finite-σ shrinkage of the
        // map is the whole difference).
        assert!(
            noisy.max_rsm_error_to_closed_form < 0.05,
            "{data:?}: {}",
            noisy.max_rsm_error_to_closed_form
        );
        assert!(training.exact_vs_closed_form < 0.05);
        // Without noise the seeds stay where their initialisations put them.
        let plain = regime(&training, "no_noise");
        assert!(plain.max_rsm_error_to_closed_form > 0.2, "{data:?}");
        assert!(plain.mean_pairwise_function_distance < 1e-6);
    }
}

#[test]
fn linnet_sampled_parameter_noise_converges_to_the_closed_form_rsm() {
    // The stochastic version: noise drawn on W₁ and W₂ every step. Tolerance 5 % (relative
    // Frobenius) for every seed, on two data sets.
    for data in [hierarchy(), gaussian()] {
        let p = params(
            data.clone(),
            4,
            TrainParams {
                steps: 16_000,
                ..TrainParams::default()
            },
        );
        let training = run(&p);
        let noisy = regime(&training, "parameter_noise");
        assert!(
            noisy.max_rsm_error_to_closed_form < 0.05,
            "{data:?}: worst seed {}",
            noisy.max_rsm_error_to_closed_form
        );
        assert!(
            noisy.mean_pairwise_cka > 0.99,
            "{data:?}: {}",
            noisy.mean_pairwise_cka
        );
    }
}

#[test]
fn linnet_input_noise_shares_the_function_but_not_the_representation() {
    // Sampled noise (the default) and the expected loss, where the input-noise term depends
    // on W₂W₁ alone and exerts no pull along the solution manifold.
    let cases = [
        (hierarchy(), NoiseMode::Sampled),
        (gaussian(), NoiseMode::Sampled),
        (hierarchy(), NoiseMode::Expected),
    ];
    for (data, noise_mode) in cases {
        let train = TrainParams {
            noise_mode,
            ..TrainParams::default()
        };
        let p = params(data.clone(), 6, train);
        let training = run(&p);
        let input = regime(&training, "input_noise");
        let parameter = regime(&training, "parameter_noise");
        // Same function: the seeds' outputs agree to a few per cent of the targets' size …
        assert!(
            input.mean_pairwise_function_distance < 0.05,
            "{data:?}: {}",
            input.mean_pairwise_function_distance
        );
        // … while their representations spread far more than under parameter noise.
        let spread_input = 1.0 - input.mean_pairwise_cka;
        let spread_parameter = 1.0 - parameter.mean_pairwise_cka;
        assert!(
            spread_input > 10.0 * spread_parameter && spread_input > 0.02,
            "{data:?}: CKA spread input {spread_input}, parameter {spread_parameter}"
        );
    }
}

#[test]
fn linnet_gradient_flow_from_small_init_is_the_minimum_weight_norm_solution() {
    for data in [hierarchy(), gaussian()] {
        let p = params(data.clone(), 2, TrainParams::default());
        let solutions = solve(&p, 5, &CancelToken::new()).expect("solves");
        assert!(
            solutions.gradient_flow_error_to_minimum_weight_norm < 0.02,
            "{data:?}: {}",
            solutions.gradient_flow_error_to_minimum_weight_norm
        );
        let g = &solutions.g_transform;
        assert!(g.output_max_abs_change < 1e-10);
        assert!(g.rsm_change_orthogonal < 1e-10);
        assert!(g.rsm_change_general > 0.1);
        assert_eq!(solutions.families.len(), 4);
    }
}

#[test]
fn linnet_bad_settings_are_refused_by_name() {
    let mut p = params(hierarchy(), 1, TrainParams::default());
    let message = train_regimes(&p, 1, &Progress::new(), &CancelToken::new(), |_| {})
        .expect_err("one seed has no pairs")
        .to_string();
    assert!(message.contains("seeds"), "{message}");
    p.seeds = 2;
    p.train.learning_rate = 50.0;
    let message = train_regimes(&p, 1, &Progress::new(), &CancelToken::new(), |_| {})
        .expect_err("diverges")
        .to_string();
    assert!(message.contains("learning_rate"), "{message}");
}
