//! The timing behind `benchtop bench mlip`: full-batch PITC+PISC training steps on a
//! Lennard-Jones cluster (the same model and losses as the panel).

use crate::loss::{LossSpec, loss_and_grad};
use crate::model::{ForceMode, Model, Rbf};
use crate::potential::{System, SystemKind};
use crate::sample::langevin;
use crate::train::decayed_step;
use benchtop_learn::adam::Adam;
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::Serialize;
use std::time::Instant;

/// What one benchmark run measured.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Atoms per configuration.
    pub atoms: usize,
    /// Labelled configurations per step.
    pub configs: usize,
    /// Training steps timed.
    pub steps: usize,
    /// Hidden width.
    pub hidden: usize,
    /// Radial features.
    pub rbf: usize,
    /// Weights.
    pub params: usize,
    /// Loss after the last step.
    pub final_loss: f64,
    /// Milliseconds per training step (loss, gradient and Adam update).
    pub ms_per_step: f64,
}

/// Times `steps` training steps of the gradient-force model with λ_F = 100, PITC and PISC
/// on `configs` Lennard-Jones configurations of `atoms` atoms (hidden 16, 8 radial features).
pub fn run(atoms: usize, configs: usize, steps: usize, seed: u64) -> BenchReport {
    let system = System::new(SystemKind::LennardJones, atoms);
    let mut rng = StdRng::seed_from_u64(seed);
    let data = langevin(system, configs, 0.15, 40, &mut rng);
    let rbf = Rbf {
        k: 8,
        r_min: 0.8,
        r_max: 2.5,
    };
    let mut model = Model::new(
        system,
        ForceMode::Gradient,
        16,
        rbf,
        1.0,
        data[0].energy,
        &mut rng,
    );
    let spec = LossSpec {
        lambda_f: 100.0,
        coef_rob: 1.2,
        coef_cyc: 0.01,
        delta: 0.05,
    };
    let mut adam = Adam::new(model.params.len(), 1e-3);
    let mut last = 0.0;
    let start = Instant::now();
    for _ in 0..steps {
        let (parts, grad) = loss_and_grad(&model, &data, &[], spec, &mut rng);
        decayed_step(&mut adam, 1e-3, steps, &mut model.params, &grad);
        last = parts.total();
    }
    let ms = start.elapsed().as_secs_f64() * 1e3 / steps.max(1) as f64;
    BenchReport {
        atoms,
        configs,
        steps,
        hidden: 16,
        rbf: 8,
        params: model.params.len(),
        final_loss: last,
        ms_per_step: ms,
    }
}
