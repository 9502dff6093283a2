//! The panel's numeric parameters, each declared once: widget, range check, sweeps, undo
//! steps and `benchtop params` come from here.

use benchtop_kit::field;
use benchtop_kit::params::{Declare, Param, grouped};

use super::LinnetParams as P;

impl Declare for P {
    /// Every numeric parameter of the panel.
    fn declare() -> Vec<Param<P>> {
        let mut params = grouped(
            "Data",
            vec![
                Param::new("data.depth", "Tree depth", field!(P, data.depth))
                    .range(1.0, 8.0)
                    .tooltip("Levels of the item tree below its root; items = branching^depth, one target feature per tree node."),
                Param::new("data.branching", "Branching", field!(P, data.branching))
                    .range(2.0, 8.0)
                    .tooltip("Children of every tree node."),
                Param::new("data.input_mixing", "Input correlation m", field!(P, data.input_mixing))
                    .range(0.0, 10.0)
                    .slider()
                    .tooltip("Inputs X = I + m·ZZᵀ/P (Z standard normal). m = 0: one-hot (whitened) inputs, for which the solution families share one RSM; m > 0 separates them."),
                Param::new("data.n_in", "Input dimension", field!(P, data.n_in))
                    .range(1.0, 4096.0)
                    .tooltip("Gaussian task: dimension of the standard-normal inputs x."),
                Param::new("data.n_out", "Output dimension", field!(P, data.n_out))
                    .range(1.0, 4096.0)
                    .tooltip("Gaussian task: dimension of the targets y."),
                Param::new("data.items", "Items P", field!(P, data.items))
                    .range(2.0, 4096.0)
                    .tooltip("Gaussian task: number of input–target pairs (the RSM is P × P)."),
                Param::new("data.rank", "Teacher rank", field!(P, data.rank))
                    .range(1.0, 4096.0)
                    .tooltip("Gaussian task: rank of the random linear teacher y = T x (at most min(n_in, n_out))."),
                Param::new("data.target_noise", "Target noise", field!(P, data.target_noise))
                    .range(0.0, 100.0)
                    .tooltip("Gaussian task: standard deviation of the noise added to the teacher's targets."),
            ],
        );
        params.extend(grouped(
            "Training",
            vec![
                Param::new("train.hidden", "Hidden width", field!(P, train.hidden))
                    .range(1.0, 4096.0)
                    .tooltip("Units in the hidden layer H = W₁X; at least the rank of the least-squares map."),
                Param::new("train.steps", "Steps", field!(P, train.steps))
                    .range(1.0, 1e7)
                    .tooltip("Full-batch gradient-descent steps per seed."),
                Param::new("train.learning_rate", "Learning rate η", field!(P, train.learning_rate))
                    .range(1e-6, 10.0)
                    .log()
                    .tooltip("Gradient-descent step size on ‖Y − W₂W₁X‖²/(2P)."),
                Param::new("train.init_scale", "Init scale", field!(P, train.init_scale))
                    .range(1e-6, 10.0)
                    .log()
                    .tooltip("Initial weights are N(0, scale²/fan-in): large scales leave seed-specific structure in W₁ that no noise-free loss removes."),
                Param::new("train.input_noise", "Input noise σ_x", field!(P, train.input_noise))
                    .range(0.0, 10.0)
                    .tooltip("Standard deviation of the Gaussian noise added to every input entry each step (input-noise regime)."),
                Param::new("train.parameter_noise", "Parameter noise σ_w", field!(P, train.parameter_noise))
                    .range(0.0, 10.0)
                    .tooltip("Standard deviation of the i.i.d. noise on every weight of W₁ and W₂ each step (parameter-noise regime). The closed form is first order in σ_w²."),
                Param::new("train.anneal_fraction", "Annealed fraction", field!(P, train.anneal_fraction))
                    .range(0.0, 0.99)
                    .tooltip("Over this last fraction of the steps the learning rate falls to 0 (cosine), so the sampled noise's jitter dies out."),
                Param::new("seeds", "Seeds per regime N", field!(P, seeds))
                    .range(2.0, 256.0)
                    .tooltip("Networks trained from different random initialisations under each noise regime; every pair is compared."),
                Param::new("seed", "Seed", field!(P, seed))
                    .seed()
                    .tooltip("Seed of the data's random parts and of the seeds' initialisations and noise (a whole number)."),
            ],
        ));
        params.extend(grouped(
            "G",
            vec![
                Param::new("g.stretch", "Stretch s", field!(P, g.stretch))
                    .range(-3.0, 3.0)
                    .slider()
                    .tooltip("G = Q·exp(s·S) with S random symmetric: s ≠ 0 makes GᵀG ≠ I, so the RSM changes while W₂G⁻¹·GW₁ stays the same map."),
                Param::new("g.rotation", "Rotation r", field!(P, g.rotation))
                    .range(-10.0, 10.0)
                    .slider()
                    .tooltip("Q is the Cayley transform of r·Ω with Ω random antisymmetric: an orthogonal matrix, which leaves the RSM unchanged."),
                Param::new("g.seed", "G seed", field!(P, g.seed))
                    .no_sweep()
                    .tooltip("Seed of the random directions S and Ω (\"Random G\" steps it)."),
            ],
        ));
        params
    }
}
