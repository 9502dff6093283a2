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
                    .tooltip(
                        "Nearest-neighbour coupling β (dimensionless, J/k_BT) in H = −β Σ⟨ij⟩ \
                         sᵢsⱼ − K Σ□ s₁s₂s₃s₄. At K = 0 the lattice orders above β_c = ½ ln(1 \
                         + √2) ≈ 0.4407.",
                    )
                    .range(0.0, 100.0)
                    .slider(),
                Param::new("mc.plaquette", "Plaquette K", field!(P, mc.plaquette))
                    .tooltip(
                        "Plaquette coupling K (dimensionless): the weight of the four-spin \
                         term −K Σ□ s₁s₂s₃s₄. K = 0 is the plain Ising model, which Onsager \
                         solved exactly.",
                    )
                    .range(-10.0, 10.0)
                    .slider(),
                Param::new("mc.size", "Lattice size L", field!(P, mc.size))
                    .tooltip(
                        "Lattice side L (spins): an L × L torus of L² spins with periodic \
                         boundaries.",
                    )
                    .range(4.0, 32_768.0),
                Param::new(
                    "mc.thermalization_sweeps",
                    "Thermalisation sweeps",
                    field!(P, mc.thermalization_sweeps),
                )
                .tooltip(
                    "Sweeps run and discarded before measuring, so that the chain forgets its \
                     start (unit: sweeps; one sweep offers every one of the L² spins a flip).",
                )
                .range(0.0, 1e8),
                Param::new(
                    "mc.measurement_sweeps",
                    "Measurement sweeps",
                    field!(P, mc.measurement_sweeps),
                )
                .tooltip(
                    "Sweeps after thermalisation over which energy, plaquette, magnetisation \
                     and G(r) are averaged (unit: sweeps of L² spin updates).",
                )
                .range(1.0, 1e8),
                Param::new(
                    "mc.measure_every",
                    "Measure every",
                    field!(P, mc.measure_every),
                )
                .tooltip(
                    "Thinning: measure once every this many sweeps (unit: sweeps); a larger \
                     value gives fewer, less correlated measurements.",
                )
                .range(1.0, 1e8)
                .unit(" sweeps")
                .no_sweep(),
                Param::new("mc_seed", "Seed", field!(P, mc_seed))
                    .tooltip(
                        "Seed of the Monte Carlo random numbers (a whole number): the same \
                         seed gives the same lattice on the CPU, wgpu and CUDA backends.",
                    )
                    .no_sweep(),
            ],
        );
        params.extend(grouped(
            "Duality",
            vec![
                Param::new("duality.beta", "Original β", field!(P, duality.beta))
                    .tooltip(
                        "Coupling β of the original model whose dual is learned \
                         (dimensionless). At K = 0 the exact Kramers–Wannier dual is β* = ½ \
                         asinh(1/sinh 2β).",
                    )
                    .range(0.001, 10.0)
                    .slider(),
                Param::new(
                    "duality.plaquette",
                    "Original K",
                    field!(P, duality.plaquette),
                )
                .tooltip(
                    "Plaquette coupling K of the original model (dimensionless). For K ≠ 0 no \
                     exact local dual exists; the search finds approximate duals.",
                )
                .range(-10.0, 10.0)
                .slider(),
                Param::new("duality.size", "Lattice size L", field!(P, duality.size))
                    .tooltip(
                        "Lattice side L (spins) of the torus both models are sampled on (the \
                         paper: L = 8).",
                    )
                    .range(4.0, 32.0),
                Param::new(
                    "duality.samples_per_step",
                    "Samples per step",
                    field!(P, duality.samples_per_step),
                )
                .tooltip(
                    "Monte Carlo samples of the original and of the dual model per \
                     optimisation step (the paper: 1,000 per epoch); more samples give less \
                     noisy gradients.",
                )
                .range(1.0, 100_000.0),
                Param::new(
                    "duality.max_steps",
                    "Steps at most",
                    field!(P, duality.max_steps),
                )
                .tooltip(
                    "Most optimisation steps (the paper's epochs, up to 25,000); the run \
                     stops earlier once the loss has not improved for 200 steps.",
                )
                .range(1.0, 1e6),
                Param::new(
                    "duality.learning_rate",
                    "Learning rate",
                    field!(P, duality.learning_rate),
                )
                .tooltip(
                    "Adam learning rate η of the observable map G_ψ and the dual couplings θ \
                     = (β̃, K̃) (the paper: 0.01).",
                )
                .range(1e-6, 1.0)
                .speed(0.001),
                Param::new(
                    "duality.penalty",
                    "Penalty on the identity",
                    field!(P, duality.penalty),
                )
                .tooltip(
                    "Weight of the penalty on the attention a₆ to the link itself (the paper: \
                     0.1). It rules out the trivial answer: the identity map with θ equal to \
                     the original couplings.",
                )
                .range(0.0, 100.0),
                Param::new(
                    "duality.initial_dual_beta",
                    "Initial β̃",
                    field!(P, duality.initial_dual_beta),
                )
                .tooltip("Dual coupling β̃ the search starts from (dimensionless).")
                .range(0.0, 10.0),
                Param::new("duality_seed", "Seed", field!(P, duality_seed))
                    .tooltip(
                        "Seed of the duality run's random numbers (sampling, Gumbel noise, \
                         initial map), a whole number.",
                    )
                    .no_sweep(),
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
                .tooltip(
                    "Smallest dual coupling β̃ of the approximate-dual map (dimensionless): \
                     at each (β̃, K̃) of this grid the observable map is fitted with θ fixed \
                     and its residual loss drawn.",
                )
                .range(0.0, 100.0)
                .no_sweep(),
                Param::new(
                    "residual_grid.dual_beta_max",
                    "β̃ to",
                    field!(P, residual_grid.dual_beta_max),
                )
                .tooltip(
                    "Largest dual coupling β̃ of the approximate-dual map's grid \
                     (dimensionless).",
                )
                .range(0.0, 100.0)
                .no_sweep(),
                Param::new(
                    "residual_grid.dual_beta_count",
                    "β̃ points",
                    field!(P, residual_grid.dual_beta_count),
                )
                .tooltip(
                    "Number of β̃ values on the approximate-dual map's grid, spaced evenly \
                     from β̃ from to β̃ to.",
                )
                .range(1.0, 64.0)
                .no_sweep(),
                Param::new(
                    "residual_grid.dual_plaquette_min",
                    "K̃ from",
                    field!(P, residual_grid.dual_plaquette_min),
                )
                .tooltip(
                    "Smallest dual plaquette coupling K̃ of the approximate-dual map's grid \
                     (dimensionless).",
                )
                .range(-100.0, 100.0)
                .no_sweep(),
                Param::new(
                    "residual_grid.dual_plaquette_max",
                    "K̃ to",
                    field!(P, residual_grid.dual_plaquette_max),
                )
                .tooltip(
                    "Largest dual plaquette coupling K̃ of the approximate-dual map's grid \
                     (dimensionless).",
                )
                .range(-100.0, 100.0)
                .no_sweep(),
                Param::new(
                    "residual_grid.dual_plaquette_count",
                    "K̃ points",
                    field!(P, residual_grid.dual_plaquette_count),
                )
                .tooltip(
                    "Number of K̃ values on the approximate-dual map's grid, spaced evenly \
                     from K̃ from to K̃ to.",
                )
                .range(1.0, 64.0)
                .no_sweep(),
            ],
        ));
        params
    }
}
