//! The panel's numeric parameters, each declared once: widget, range check, sweeps, undo
//! steps and `benchtop params` come from here.

use benchtop_kit::field;
use benchtop_kit::params::{Declare, Param, grouped};

use super::QuantumParams as P;

impl Declare for P {
    /// Every numeric parameter of the panel.
    fn declare() -> Vec<Param<P>> {
        let mut params = grouped(
            "Chains",
            vec![
                Param::new("system.sites", "Sites L", field!(P, system.sites))
                    .range(2.0, 14.0)
                    .tooltip("Spins in each chain. The ground state is found by Lanczos on all 2^L amplitudes; 14 sites (16 384 amplitudes) is the most Benchtop diagonalises."),
                Param::new("system.j_max", "Coupling range J_max", field!(P, system.j_max))
                    .range(0.01, 100.0)
                    .log()
                    .tooltip("Every bond's coupling is drawn from U[0, J_max] (the paper: U[0, 2]); dimensionless, in the units of the Hamiltonian."),
                Param::new("system.h_max", "Field range h_max", field!(P, system.h_max))
                    .range(0.01, 100.0)
                    .log()
                    .tooltip("TFIM transverse fields are drawn from U[0, h_max] (one draw per chain when the field is uniform); the ordered phase is h ≲ J."),
                Param::new("system.block", "Entropy block |A|", field!(P, system.block))
                    .range(1.0, 3.0)
                    .tooltip("Sites per contiguous block whose Rényi-2 entropy S₂ = −log₂ tr ρ_A² (bits) is learned; every such block of the chain is a target."),
                Param::new("seed", "Seed", field!(P, seed))
                    .seed()
                    .tooltip("Seed of the chains, the snapshots, the folds and the networks (a whole number)."),
            ],
        );
        params.extend(grouped(
            "Budget",
            vec![
                Param::new("budget.total", "Budget n·M", field!(P, budget.total))
                    .range(10.0, 1e7)
                    .log()
                    .tooltip("Snapshots of all training chains together, N = n·M: the paper's unified budget. Fix it and move n to trade chains against snapshots per chain."),
                Param::new("budget.train_samples", "Training chains n", field!(P, budget.train_samples))
                    .range(4.0, 4000.0)
                    .log()
                    .slider()
                    .tooltip("Training Hamiltonians n; each is measured with M = ⌊N/n⌋ random-Pauli snapshots, which give both its labels (shadow estimates) and its measurement inputs."),
                Param::new("budget.test_samples", "Held-out chains", field!(P, budget.test_samples))
                    .range(2.0, 4000.0)
                    .tooltip("Chains the learners are scored on against their exact values (each measured with M snapshots for the learners' measurement inputs)."),
                Param::new("repeats", "Repeats", field!(P, repeats))
                    .range(1.0, 20.0)
                    .tooltip("Independent repeats (new chains, snapshots, folds and initialisations) over which every error is averaged; the spread is their standard deviation."),
            ],
        ));
        params.extend(grouped(
            "Curve",
            vec![
                Param::new("curve.n_min", "Smallest n", field!(P, curve.n_min))
                    .range(4.0, 4000.0)
                    .log()
                    .tooltip("The error-against-n curve starts at this many training chains (M = N/n snapshots each)."),
                Param::new("curve.n_max", "Largest n", field!(P, curve.n_max))
                    .range(4.0, 4000.0)
                    .log()
                    .tooltip("The curve ends at this many training chains."),
                Param::new("curve.points", "Points", field!(P, curve.points))
                    .range(1.0, 12.0)
                    .tooltip("Values of n on the curve, evenly spaced in log n."),
            ],
        ));
        params.extend(grouped(
            "Learners",
            vec![
                Param::new("learners.folds", "Cross-validation folds", field!(P, learners.folds))
                    .range(2.0, 20.0)
                    .tooltip("Folds of the training chains over which ridge, Lasso and kernel penalties, bandwidths and orders are chosen (one choice per group of targets)."),
                Param::new("learners.hidden", "Hidden units", field!(P, learners.hidden))
                    .range(1.0, 4096.0)
                    .log()
                    .tooltip("Width of the MLP's two hidden layers and of the CNN's dense layer."),
                Param::new("learners.channels", "CNN channels", field!(P, learners.channels))
                    .range(1.0, 512.0)
                    .log()
                    .tooltip("Channels of the CNN's two convolutions (kernel 3) along the chain."),
                Param::new("learners.max_epochs", "Most epochs", field!(P, learners.max_epochs))
                    .range(1.0, 100_000.0)
                    .log()
                    .tooltip("The networks train until the validation loss stops improving or this many epochs have passed."),
                Param::new("learners.patience", "Patience", field!(P, learners.patience))
                    .range(1.0, 100_000.0)
                    .log()
                    .tooltip("Epochs without a better validation loss before a network stops (its best weights are kept)."),
                Param::new("learners.learning_rate", "Learning rate η", field!(P, learners.learning_rate))
                    .range(1e-6, 1.0)
                    .log()
                    .tooltip("Adam's step size for both networks."),
                Param::new("learners.weight_decay", "Weight decay", field!(P, learners.weight_decay))
                    .range(0.0, 1.0)
                    .tooltip("L2 penalty added to the networks' gradients."),
                Param::new("learners.validation_fraction", "Validation share", field!(P, learners.validation_fraction))
                    .range(0.05, 0.5)
                    .tooltip("Share of the training chains held out to stop the networks early."),
            ],
        ));
        params.extend(grouped(
            "Shadows",
            vec![
                Param::new("shadows.max_snapshots", "Largest M", field!(P, shadows.max_snapshots))
                    .range(2.0, 1e6)
                    .log()
                    .tooltip("The Shadows tab draws sets of M/100, M/10 and M snapshots of one chain and histograms their estimates."),
                Param::new("shadows.repeats", "Sets per M", field!(P, shadows.repeats))
                    .range(2.0, 10_000.0)
                    .log()
                    .tooltip("Independent sets of snapshots per M; their estimates' variance is compared with the bound 3^k/M."),
            ],
        ));
        params
    }
}
