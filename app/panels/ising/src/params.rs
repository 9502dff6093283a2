//! The Ising panel's numeric parameters, each declared once: its widget, range check, sweeps,
//! undo steps and `benchtop params` all come from here.
//!
//! Keys are the sweep keys saved projects already use (`mc.beta`, `duality.size`, …) or the
//! field's path. Ranges are never narrower than what the engines accept for realistic values,
//! than the old widgets, or than the old sweep ranges, so every saved project still opens.

use benchtop_kit::field;
use benchtop_kit::params::{Declare, Param, grouped};

use super::IsingParams as P;

impl Declare for P {
    /// Every numeric parameter of the panel.
    fn declare() -> Vec<Param<P>> {
        // The Monte Carlo tab. The coupling comes first: a new sweep varies it by default.
        let mut params = grouped(
            "Monte Carlo",
            vec![
                Param::new("mc.beta", "Coupling β", field!(P, mc.beta))
                    .range(0.0, 100.0)
                    .slider(),
                Param::new("mc.plaquette", "Plaquette K", field!(P, mc.plaquette))
                    .range(-10.0, 10.0)
                    .slider(),
                Param::new("mc.size", "Lattice size L", field!(P, mc.size)).range(4.0, 32_768.0),
                Param::new(
                    "mc.thermalization_sweeps",
                    "Thermalisation sweeps",
                    field!(P, mc.thermalization_sweeps),
                )
                .range(0.0, 1e8),
                Param::new(
                    "mc.measurement_sweeps",
                    "Measurement sweeps",
                    field!(P, mc.measurement_sweeps),
                )
                .range(1.0, 1e8),
                Param::new(
                    "mc.measure_every",
                    "Measure every",
                    field!(P, mc.measure_every),
                )
                .range(1.0, 1e8)
                .unit(" sweeps")
                .no_sweep(),
                Param::new("mc_seed", "Seed", field!(P, mc_seed)).no_sweep(),
            ],
        );
        params.extend(grouped(
            "Duality",
            vec![
                Param::new("duality.beta", "Original β", field!(P, duality.beta))
                    .range(0.001, 10.0)
                    .slider(),
                Param::new(
                    "duality.plaquette",
                    "Original K",
                    field!(P, duality.plaquette),
                )
                .range(-10.0, 10.0)
                .slider(),
                Param::new("duality.size", "Lattice size L", field!(P, duality.size))
                    .range(4.0, 32.0),
                Param::new(
                    "duality.samples_per_step",
                    "Samples per step",
                    field!(P, duality.samples_per_step),
                )
                .range(1.0, 100_000.0),
                Param::new(
                    "duality.max_steps",
                    "Steps at most",
                    field!(P, duality.max_steps),
                )
                .range(1.0, 1e6),
                Param::new(
                    "duality.learning_rate",
                    "Learning rate",
                    field!(P, duality.learning_rate),
                )
                .range(1e-6, 1.0)
                .speed(0.001),
                Param::new(
                    "duality.penalty",
                    "Penalty on the identity",
                    field!(P, duality.penalty),
                )
                .range(0.0, 100.0),
                Param::new(
                    "duality.initial_dual_beta",
                    "Initial β̃",
                    field!(P, duality.initial_dual_beta),
                )
                .range(0.0, 10.0),
                Param::new("duality_seed", "Seed", field!(P, duality_seed)).no_sweep(),
            ],
        ));
        // The approximate-dual map's grid: a setting of the map, which sweeps do not compute.
        params.extend(grouped(
            "Approximate duals",
            vec![
                Param::new(
                    "residual_grid.dual_beta_min",
                    "β̃ from",
                    field!(P, residual_grid.dual_beta_min),
                )
                .range(0.0, 100.0)
                .no_sweep(),
                Param::new(
                    "residual_grid.dual_beta_max",
                    "β̃ to",
                    field!(P, residual_grid.dual_beta_max),
                )
                .range(0.0, 100.0)
                .no_sweep(),
                Param::new(
                    "residual_grid.dual_beta_count",
                    "β̃ points",
                    field!(P, residual_grid.dual_beta_count),
                )
                .range(1.0, 64.0)
                .no_sweep(),
                Param::new(
                    "residual_grid.dual_plaquette_min",
                    "K̃ from",
                    field!(P, residual_grid.dual_plaquette_min),
                )
                .range(-100.0, 100.0)
                .no_sweep(),
                Param::new(
                    "residual_grid.dual_plaquette_max",
                    "K̃ to",
                    field!(P, residual_grid.dual_plaquette_max),
                )
                .range(-100.0, 100.0)
                .no_sweep(),
                Param::new(
                    "residual_grid.dual_plaquette_count",
                    "K̃ points",
                    field!(P, residual_grid.dual_plaquette_count),
                )
                .range(1.0, 64.0)
                .no_sweep(),
            ],
        ));
        params
    }
}
