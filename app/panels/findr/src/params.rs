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
            .no_sweep(),
            Param::new(
                "data.synthetic.n_neurons",
                "Neurons",
                field!(P, data.synthetic.n_neurons),
            )
            .range(1.0, 10_000.0)
            .no_sweep(),
            Param::new(
                "data.synthetic.min_bins",
                "Shortest trial (bins)",
                field!(P, data.synthetic.min_bins),
            )
            .range(1.0, 10_000.0)
            .no_sweep(),
            Param::new(
                "data.synthetic.max_bins",
                "Longest trial (bins)",
                field!(P, data.synthetic.max_bins),
            )
            .range(1.0, 10_000.0)
            .no_sweep(),
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
            .no_sweep(),
            Param::new(
                "data.synthetic.flow.across_decay",
                "Decay across the line (1/τ)",
                field!(P, data.synthetic.flow.across_decay),
            )
            .range(0.01, 100.0)
            .no_sweep(),
            Param::new(
                "data.synthetic.flow.bump_strength",
                "Bump strength (1/τ)",
                field!(P, data.synthetic.flow.bump_strength),
            )
            .range(0.0, 100.0)
            .no_sweep(),
            Param::new(
                "data.synthetic.flow.bump_width",
                "Bump width (latent units²)",
                field!(P, data.synthetic.flow.bump_width),
            )
            .range(0.001, 0.2)
            .speed(0.001)
            .no_sweep(),
            Param::new(
                "data.synthetic.flow.attractor_position",
                "Attractor position f",
                field!(P, data.synthetic.flow.attractor_position),
            )
            .range(0.0, 10.0)
            .no_sweep(),
            Param::new(
                "data.synthetic.flow.input_gain",
                "Input gain (per click)",
                field!(P, data.synthetic.flow.input_gain),
            )
            .range(-10.0, 10.0)
            .no_sweep(),
            Param::new(
                "data.synthetic.latent_noise",
                "Latent noise σ",
                field!(P, data.synthetic.latent_noise),
            )
            .range(0.0, 10.0)
            .speed(0.001)
            .no_sweep(),
            Param::new(
                "data.synthetic_seed",
                "Data seed",
                field!(P, data.synthetic_seed),
            )
            .no_sweep(),
            // Data tab: trials from a file.
            Param::new(
                "data.file_bin_s",
                "Bin width (s)",
                field!(P, data.file_bin_s),
            )
            .range(0.0001, 1.0)
            .speed(0.001)
            .no_sweep(),
            // Fit tab: the model.
            Param::new(
                "model.flow_width",
                "Flow width H",
                field!(P, fit.model.flow_width),
            )
            .range(1.0, 4096.0),
            Param::new(
                "model.encoder_hidden",
                "Encoder size (per direction)",
                field!(P, fit.model.encoder_hidden),
            )
            .range(1.0, 4096.0),
            Param::new(
                "fit.model.tau_s",
                "Time constant τ (s)",
                field!(P, fit.model.tau_s),
            )
            .range(0.001, 10.0)
            .speed(0.001),
            Param::new(
                "fit.model.noise_level",
                "Noise level",
                field!(P, fit.model.noise_level),
            )
            .range(0.001, 10.0),
            // Fit tab: training.
            Param::new(
                "train.max_epochs",
                "Largest number of epochs",
                field!(P, fit.train.max_epochs),
            )
            .range(1.0, 100_000.0),
            Param::new(
                "fit.train.batch_trials",
                "Trials per batch",
                field!(P, fit.train.batch_trials),
            )
            .range(1.0, 10_000.0),
            Param::new(
                "train.learning_rate",
                "Learning rate",
                field!(P, fit.train.learning_rate),
            )
            .range(1e-6, 10.0)
            .speed(1e-3),
            Param::new(
                "fit.train.momentum",
                "Momentum",
                field!(P, fit.train.momentum),
            )
            .range(0.0, 0.999),
            Param::new(
                "fit.train.clip_norm",
                "Gradient clip (norm)",
                field!(P, fit.train.clip_norm),
            )
            .range(0.001, 1e6)
            .speed(0.1),
            Param::new(
                "fit.train.beta_kl",
                "KL weight β",
                field!(P, fit.train.beta_kl),
            )
            .range(0.0, 100.0)
            .speed(0.1),
            Param::new(
                "fit.train.warmup_epochs",
                "Warm-up (epochs)",
                field!(P, fit.train.warmup_epochs),
            )
            .range(0.0, 100_000.0),
            Param::new(
                "fit.train.first_cycle_epochs",
                "First cosine cycle (epochs)",
                field!(P, fit.train.first_cycle_epochs),
            )
            .range(1.0, 100_000.0),
            Param::new(
                "fit.train.patience_epochs",
                "Early-stopping patience (epochs)",
                field!(P, fit.train.patience_epochs),
            )
            .range(1.0, 100_000.0),
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
            Param::new("fit.train.folds", "Folds", field!(P, fit.train.folds)).range(2.0, 100.0),
            Param::new("train.fold", "Test fold", field!(P, fit.train.fold)).range(0.0, 99.0),
            Param::new("fit.seed", "Fit seed", field!(P, fit_seed)).seed(),
            Param::new("fit.restarts", "Restarts (fits)", field!(P, fit.restarts))
                .range(1.0, 100.0)
                .tooltip(
                    "Fits with different seeds on the same trials and folds: the best \
                     validation score is shown, and each fixed point counts the fits that \
                     found it.",
                ),
        ]
    }
}
