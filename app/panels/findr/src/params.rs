//! The FINDR panel's numeric parameters, each declared once: its widget, range check, sweeps,
//! undo steps and `benchtop params` all come from here.
//!
//! Keys: the sweep keys of earlier versions where a parameter was sweepable (`model.flow_width`,
//! `train.learning_rate`, `fit.seed`, …; saved sweeps name them), otherwise the field's path in
//! the project file. The data settings are not offered to sweeps: a sweep makes its trials once
//! and fits every point to them.

use benchtop_kit::field;
use benchtop_kit::params::{Declare, Param};

use super::FindrPanelParams as P;

/// What the delay checkbox does, shown on hover.
pub(crate) const DELAY_HINT: &str = "The rest of each trial is a delay without clicks, where \
                                     the autonomous flow alone moves the latent.";

/// The clicks' window in seconds, 0 when clicks come throughout the trial.
fn stimulus_s(params: &P) -> f64 {
    params.data.synthetic.stimulus_s.unwrap_or(0.0)
}

fn set_stimulus_s(params: &mut P, value: f64) -> Result<(), String> {
    params.data.synthetic.stimulus_s = (value > 0.0).then_some(value);
    Ok(())
}

impl Declare for P {
    /// Every numeric parameter of the panel.
    fn declare() -> Vec<Param<P>> {
        vec![
            // Data tab: synthetic trials.
            Param::new(
                "data.synthetic.n_trials",
                "Trials",
                field!(P, data.synthetic.n_trials),
            )
            .range(1.0, 100_000.0)
            .no_sweep()
            .tooltip(
                "Number of synthetic Poisson-clicks trials (the paper's simulations use 500–5,000).",
            ),
            Param::new(
                "data.synthetic.n_neurons",
                "Neurons",
                field!(P, data.synthetic.n_neurons),
            )
            .range(1.0, 10_000.0)
            .no_sweep()
            .tooltip(
                "Number of simulated neurons N reading the 2-D latent out through softplus rates.",
            ),
            Param::new(
                "data.synthetic.min_bins",
                "Shortest trial (bins)",
                field!(P, data.synthetic.min_bins),
            )
            .range(1.0, 10_000.0)
            .no_sweep()
            .tooltip("Length of the shortest trial, in time bins Δt (10 ms in the paper)."),
            Param::new(
                "data.synthetic.max_bins",
                "Longest trial (bins)",
                field!(P, data.synthetic.max_bins),
            )
            .range(1.0, 10_000.0)
            .no_sweep()
            .tooltip(
                "Length of the longest trial, in time bins Δt (the paper's trials are up to 100 bins, \
                  1 s).",
            ),
            Param::computed(
                "data.synthetic.stimulus_s",
                "Clicks only in the first",
                false,
                stimulus_s,
                set_stimulus_s,
            )
            .range(0.0, 100.0)
            .unit(" s")
            .speed(0.01)
            .tooltip(
                "The rest of each trial is a delay without clicks, where the autonomous flow alone \
             moves the latent. 0: clicks throughout the trial.",
            )
            .no_sweep(),
            // Data tab: the planted flow.
            Param::new(
                "data.synthetic.flow.non_normal_angle_rad",
                "Non-normal angle θ (rad)",
                field!(P, data.synthetic.flow.non_normal_angle_rad),
            )
            .range(-1.49, 1.49)
            .no_sweep()
            .tooltip(
                "θ of the planted flow's M = V diag(0, −softplus(r)) V⁻¹ with V = [[1, sin θ], [0, \
                 cos θ]]; θ ≠ 0 makes the line attractor non-normal. Radians.",
            ),
            Param::new(
                "data.synthetic.flow.across_decay",
                "Decay across the line (1/τ)",
                field!(P, data.synthetic.flow.across_decay),
            )
            .range(0.01, 100.0)
            .no_sweep()
            .tooltip(
                "How fast the planted flow returns to the line attractor across it (softplus(r)), in \
                 units of 1/τ.",
            ),
            Param::new(
                "data.synthetic.flow.bump_strength",
                "Bump strength (1/τ)",
                field!(P, data.synthetic.flow.bump_strength),
            )
            .range(0.0, 100.0)
            .no_sweep()
            .tooltip(
                "Strength softplus(s) of the two planted point attractors at ±f on the line, in units \
                  of 1/τ; 0 leaves a pure line attractor.",
            ),
            Param::new(
                "data.synthetic.flow.bump_width",
                "Bump width (latent units²)",
                field!(P, data.synthetic.flow.bump_width),
            )
            .range(0.001, 0.2)
            .speed(0.001)
            .no_sweep()
            .tooltip(
                "Width of the planted attractors' basins (0.2·sigmoid(q) in the paper's family), in \
                 latent units squared.",
            ),
            Param::new(
                "data.synthetic.flow.attractor_position",
                "Attractor position f",
                field!(P, data.synthetic.flow.attractor_position),
            )
            .range(0.0, 10.0)
            .no_sweep()
            .tooltip("Position f of the planted point attractors at (±f, 0), in latent units."),
            Param::new(
                "data.synthetic.flow.input_gain",
                "Input gain (per click)",
                field!(P, data.synthetic.flow.input_gain),
            )
            .range(-10.0, 10.0)
            .no_sweep()
            .tooltip(
                "How far one click pushes the planted latent along the line (B u), in latent units \
                 per click; left clicks push the other way.",
            ),
            Param::new(
                "data.synthetic.latent_noise",
                "Latent noise σ",
                field!(P, data.synthetic.latent_noise),
            )
            .range(0.0, 10.0)
            .speed(0.001)
            .no_sweep()
            .tooltip(
                "Standard deviation σ of the planted latent's diffusion (Euler–Maruyama noise √α σ ε \
                 per bin).",
            ),
            Param::new(
                "data.synthetic_seed",
                "Data seed",
                field!(P, data.synthetic_seed),
            )
            .no_sweep()
            .tooltip(
                "Seed of the synthetic trials (clicks, latent noise, spikes): the same seed gives the \
                  same data.",
            ),
            // Data tab: trials from a file.
            Param::new(
                "data.file_bin_s",
                "Bin width (s)",
                field!(P, data.file_bin_s),
            )
            .range(0.0001, 1.0)
            .speed(0.001)
            .no_sweep()
            .tooltip(
                "Width Δt of the time bins of the loaded spike counts, in seconds (0.01 for FINDR's \
                 own data).",
            ),
            // Fit tab: the model.
            Param::new(
                "model.flow_width",
                "Flow width H",
                field!(P, fit.model.flow_width),
            )
            .range(1.0, 4096.0)
            .tooltip(
                "Width H of the hidden layer of the gated neural SDE prior F_θ(z, u) (the paper's \
                 grid: 30, 50, 100).",
            ),
            Param::new(
                "model.encoder_hidden",
                "Encoder size (per direction)",
                field!(P, fit.model.encoder_hidden),
            )
            .range(1.0, 4096.0)
            .tooltip(
                "Hidden size N_enc of each direction of the bidirectional GRU encoder (the paper's \
                 grid: 50, 100, 200).",
            ),
            Param::new(
                "fit.model.tau_s",
                "Time constant τ (s)",
                field!(P, fit.model.tau_s),
            )
            .range(0.001, 10.0)
            .speed(0.001)
            .tooltip(
                "Time constant τ of the latent dynamics in seconds; α = Δt/τ (0.1 s in the paper, α = \
                  0.1 at 10 ms bins).",
            ),
            Param::new(
                "fit.model.noise_level",
                "Noise level",
                field!(P, fit.model.noise_level),
            )
            .range(0.001, 10.0)
            .tooltip(
                "Scale of the learned latent noise σ = noise_level · sigmoid(ℓ), shared by prior and \
                 posterior (1 in the paper).",
            ),
            // Fit tab: training.
            Param::new(
                "train.max_epochs",
                "Largest number of epochs",
                field!(P, fit.train.max_epochs),
            )
            .range(1.0, 100_000.0)
            .tooltip(
                "Most passes over the training trials; the kept state is the epoch with the best \
                 validation score (the paper trains 3,000).",
            ),
            Param::new(
                "fit.train.batch_trials",
                "Trials per batch",
                field!(P, fit.train.batch_trials),
            )
            .range(1.0, 10_000.0)
            .tooltip("Trials per stochastic-gradient batch (25 in the paper)."),
            Param::new(
                "train.learning_rate",
                "Learning rate",
                field!(P, fit.train.learning_rate),
            )
            .range(1e-6, 10.0)
            .speed(1e-3)
            .tooltip(
                "Peak learning rate of SGD with momentum under the cosine (SGDR) schedule (the \
                 paper's grid: 10^−2 to 10^−0.5).",
            ),
            Param::new(
                "fit.train.momentum",
                "Momentum",
                field!(P, fit.train.momentum),
            )
            .range(0.0, 0.999)
            .tooltip("SGD momentum (0.9 in the paper)."),
            Param::new(
                "fit.train.clip_norm",
                "Gradient clip (norm)",
                field!(P, fit.train.clip_norm),
            )
            .range(0.001, 1e6)
            .speed(0.1)
            .tooltip("Gradients are scaled down to this global norm when larger (5 in the paper)."),
            Param::new(
                "fit.train.beta_kl",
                "KL weight β",
                field!(P, fit.train.beta_kl),
            )
            .range(0.0, 100.0)
            .speed(0.1)
            .tooltip(
                "β_KL, the weight of the transition KL in the loss NLL + β_KL·(1 − decay^epoch)·KL (2 \
                  in the paper); smaller values keep a weak latent from collapsing.",
            ),
            Param::new(
                "fit.train.warmup_epochs",
                "Warm-up (epochs)",
                field!(P, fit.train.warmup_epochs),
            )
            .range(0.0, 100_000.0)
            .tooltip(
                "Epochs of linear learning-rate warm-up before the first cosine cycle (10 in the \
                 paper).",
            ),
            Param::new(
                "fit.train.first_cycle_epochs",
                "First cosine cycle (epochs)",
                field!(P, fit.train.first_cycle_epochs),
            )
            .range(1.0, 100_000.0)
            .tooltip(
                "Length of the first SGDR cosine cycle in epochs; each later cycle is twice as long \
                 (190 in the paper).",
            ),
            Param::new(
                "fit.train.patience_epochs",
                "Early-stopping patience (epochs)",
                field!(P, fit.train.patience_epochs),
            )
            .range(1.0, 100_000.0)
            .tooltip(
                "Training stops when the validation score has not improved for this many epochs.",
            ),
            Param::new(
                "fit.train.predictive.observed_fraction",
                "Predictive: fraction seen",
                field!(P, fit.train.predictive.observed_fraction),
            )
            .range(0.01, 0.99)
            .speed(0.01)
            .tooltip(
                "The held-out predictive likelihood shows the encoder this fraction of each \
                 validation or test trial and scores the learned flow's prediction of the rest.",
            ),
            Param::new("fit.train.folds", "Folds", field!(P, fit.train.folds)).range(2.0, 100.0)
            .tooltip(
                "Number of cross-validation folds the trials are split into (5 in the paper): one for \
                  validation, one for testing, the rest for training.",
            ),
            Param::new("train.fold", "Test fold", field!(P, fit.train.fold)).range(0.0, 99.0)
            .tooltip("Which fold is held out as the test set (0-based)."),
            Param::new("fit.seed", "Fit seed", field!(P, fit_seed)).seed()
            .tooltip("Seed of the fit: initial weights, batch order and the SDE noise."),
            Param::new("fit.restarts", "Restarts (fits)", field!(P, fit.restarts))
                .range(1.0, 100.0)
                .tooltip(
                    "Fits with different seeds on the same trials and folds (3 by default, run \
                     side by side on the machine's cores): the fit the others agree with is shown, \
                     each fixed point counts the fits that found it, and only points most fits \
                     agree on are reported as findings.",
                ),
        ]
    }
}
