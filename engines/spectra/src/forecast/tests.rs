use super::*;
use spectral::tensor_f32;

use benchtop_compute::rng::seeded;

use crate::grid::{Grid, GridKind};
use crate::loss::{amse, mse};
use crate::sht::Sht;
use crate::synthetic::{
    SpectrumSpec, decorrelated_forecast, exponential_decorrelation, random_coeffs,
};

#[test]
fn candle_losses_equal_the_f64_losses() {
    let lmax = 15;
    let grid = Grid::new(GridKind::GaussLegendre, 24, 48).unwrap();
    let sht = Sht::new(&grid, lmax).unwrap();
    let map = SpectralMap::new(&sht, &Device::Cpu).unwrap();
    let psd = SpectrumSpec::default().psd(lmax).unwrap();
    let mut rng = seeded(4);
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    let mut want_mse = Vec::new();
    let mut want_amse = Vec::new();
    for _ in 0..3 {
        let mut truth = random_coeffs(&psd, &mut rng).unwrap();
        truth.set(0, 0, num_complex::Complex64::new(0.3, 0.0));
        let rho = exponential_decorrelation(lmax, 5.0).unwrap();
        let forecast = decorrelated_forecast(&truth, &rho, &mut rng).unwrap();
        // Damp the forecast so that the two losses differ.
        let forecast = forecast.map_by_degree(|l, c| c * (1.0 - 0.03 * l as f64));
        want_mse.push(mse(&forecast, &truth));
        want_amse.push(amse(&forecast, &truth));
        xs.extend(sht.inverse(&forecast).unwrap());
        ys.extend(sht.inverse(&truth).unwrap());
    }
    let x = tensor_f32(&xs, &[3, 24, 48], &Device::Cpu).unwrap();
    let y = tensor_f32(&ys, &[3, 24, 48], &Device::Cpu).unwrap();
    let got_mse = values_f64(&map.mse(&x, &y).unwrap()).unwrap();
    let got_amse = values_f64(&map.amse(&x, &y).unwrap()).unwrap();
    for i in 0..3 {
        assert!(
            (got_mse[i] / want_mse[i] - 1.0).abs() < 1e-4,
            "MSE {} vs {}",
            got_mse[i],
            want_mse[i]
        );
        assert!(
            (got_amse[i] / want_amse[i] - 1.0).abs() < 1e-4,
            "AMSE {} vs {}",
            got_amse[i],
            want_amse[i]
        );
        assert!(want_amse[i] > want_mse[i]);
    }
}

#[test]
fn padding_wraps_longitudes_and_crosses_the_poles() {
    let values: Vec<f32> = (0..24).map(|v| v as f32).collect();
    let x = Tensor::from_vec(values, (1, 1, 4, 6), &Device::Cpu).unwrap();
    let padded = net::pad_sphere(&x).unwrap();
    assert_eq!(padded.dims(), &[1, 1, 6, 8]);
    let rows = padded
        .squeeze(0)
        .unwrap()
        .squeeze(0)
        .unwrap()
        .to_vec2::<f32>()
        .unwrap();
    // Interior row 1 (stored row 0): wrapped ends.
    assert_eq!(rows[1], vec![5.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.0]);
    // Above the north pole: stored row 0 turned by 180°.
    assert_eq!(rows[0], vec![2.0, 3.0, 4.0, 5.0, 0.0, 1.0, 2.0, 3.0]);
    // Below the south pole: stored row 3 (18..24) turned by 180°.
    assert_eq!(
        rows[5],
        vec![20.0, 21.0, 22.0, 23.0, 18.0, 19.0, 20.0, 21.0]
    );
}

fn tiny() -> ForecastParams {
    ForecastParams {
        model: BarotropicParams {
            lmax: 15,
            dt_minutes: 60.0,
            ..BarotropicParams::default()
        },
        lead_h: 6.0,
        train_trajectories: 4,
        test_trajectories: 1,
        spinup_days: 0.5,
        states_per_trajectory: 6,
        hidden_channels: 4,
        layers: 2,
        train_steps: 3,
        batch_size: 2,
        snapshot_every: 2,
        eval_leads: vec![1, 3],
        ..ForecastParams::default()
    }
}

#[test]
fn same_seed_same_bits_and_a_stepper_with_snapshots() {
    let params = tiny();
    let a = run(&params, 9, &Progress::new(), &CancelToken::new()).unwrap();
    let b = run(&params, 9, &Progress::new(), &CancelToken::new()).unwrap();
    assert_eq!(a, b);
    let json = serde_json::to_string(&a).unwrap();
    // Finite everywhere (no JSON nulls), and it reads back.
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(
        !crate::experiments::tests::has_stray_null(&value, ""),
        "non-finite numbers in the result"
    );
    let back: ForecastResult = serde_json::from_str(&json).unwrap();
    assert_eq!(back.k, a.k);
    assert_eq!(a.history.len(), 3);
    assert!(a.history[1].snapshot.is_some() && a.history[0].snapshot.is_none());
    assert!(
        a.history[2].snapshot.is_some(),
        "the last step has a snapshot"
    );
    assert_eq!(a.leads.len(), 2);
    assert_eq!(a.leads[1].lead_h, 18.0);
    assert_eq!(a.k.len(), 16);
    assert_eq!(a.maps.truth_per_s.len(), a.maps.grid.len());
    // Persistence loses coherence as the lead grows (the flow moves on).
    let mean_coherence = |s: &Skill| s.coherence[2..].iter().sum::<f64>() / 14.0;
    assert!(mean_coherence(&a.leads[1].persistence) < mean_coherence(&a.leads[0].persistence));
    assert!(a.leads[1].persistence.rmse > a.leads[0].persistence.rmse);
    let error = run(
        &ForecastParams {
            lead_h: 1.5,
            ..tiny()
        },
        9,
        &Progress::new(),
        &CancelToken::new(),
    )
    .unwrap_err();
    assert!(error.to_string().contains("lead_h"));
}

/// Timing and numbers of the default experiment (release: `cargo test --release -p
/// benchtop-spectra --lib forecast::tests::default_experiment -- --ignored --nocapture`).
#[test]
#[ignore = "minutes; a measurement, run by hand"]
fn default_experiment() {
    let params = ForecastParams::default();
    let started = std::time::Instant::now();
    let progress = Progress::new();
    let mut trainer = ForecastTrainer::new(&params, 1, &progress, &CancelToken::new()).unwrap();
    eprintln!("data: {:.1} s", started.elapsed().as_secs_f64());
    let t = std::time::Instant::now();
    while !trainer.is_finished() {
        let s = trainer.step().unwrap();
        if s.step.is_multiple_of(50) || s.step == 1 {
            eprintln!(
                "step {} lr {:.2e}: MSE net mse {:.4} amse {:.4} | AMSE net mse {:.4} amse {:.4} ({:.1} s)",
                s.step,
                s.learning_rate,
                s.mse_net_mse,
                s.mse_net_amse,
                s.amse_net_mse,
                s.amse_net_amse,
                t.elapsed().as_secs_f64()
            );
        }
    }
    eprintln!("training: {:.1} s", t.elapsed().as_secs_f64());
    let t = std::time::Instant::now();
    let result = trainer.evaluate(&CancelToken::new()).unwrap();
    eprintln!(
        "evaluation: {:.1} s ({} cases)",
        t.elapsed().as_secs_f64(),
        result.test_cases
    );
    for lead in &result.leads {
        eprintln!(
            "lead {:>3} h: rmse MSE {:.3} AMSE {:.3} pers {:.3} | dissipation k MSE {:?} AMSE {:?} | noise k MSE {:?} AMSE {:?}",
            lead.lead_h,
            lead.mse.rmse,
            lead.amse.rmse,
            lead.persistence.rmse,
            lead.mse.resolution.dissipation_k,
            lead.amse.resolution.dissipation_k,
            lead.mse.resolution.noise_k,
            lead.amse.resolution.noise_k
        );
        let show = |v: &[f64]| {
            v.iter()
                .step_by(1)
                .map(|x| format!("{x:.2}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        eprintln!(
            "   dissipation km MSE {:?} AMSE {:?}",
            lead.mse.resolution.dissipation_km.map(f64::round),
            lead.amse.resolution.dissipation_km.map(f64::round)
        );
        eprintln!("   R_k MSE : {}", show(&lead.mse.ratio));
        eprintln!("   R_k AMSE: {}", show(&lead.amse.ratio));
        eprintln!("   Coh MSE : {}", show(&lead.mse.coherence));
        eprintln!("   Coh AMSE: {}", show(&lead.amse.coherence));
    }
    eprintln!("total: {:.1} s", started.elapsed().as_secs_f64());
}
