//! The spectra panel's numeric parameters, each declared once: its widget, range check,
//! sweeps, undo steps and `benchtop params` all come from here.

use benchtop_kit::field;
use benchtop_kit::params::{Declare, Param, grouped};
use benchtop_spectra::synthetic::SpectrumShape;

use super::SpectraParams as P;

/// The slope of the truth's power-law spectrum (NaN for a table).
pub fn slope(params: &P) -> f64 {
    match params.analytic.spectrum.shape {
        SpectrumShape::PowerLaw { exponent }
        | SpectrumShape::PowerLawWithCutoff { exponent, .. } => exponent,
        SpectrumShape::Table { .. } => f64::NAN,
    }
}

fn set_slope(params: &mut P, value: f64) -> Result<(), String> {
    match &mut params.analytic.spectrum.shape {
        SpectrumShape::PowerLaw { exponent }
        | SpectrumShape::PowerLawWithCutoff { exponent, .. } => {
            *exponent = value;
            Ok(())
        }
        SpectrumShape::Table { .. } => {
            Err("the truth's spectrum is a table, not a power law".into())
        }
    }
}

impl Declare for P {
    /// Every numeric parameter of the panel.
    fn declare() -> Vec<Param<P>> {
        let mut params = grouped(
            "Data",
            vec![
                Param::new(
                    "data.time_index",
                    "Time index",
                    field!(P, data.options.time_index),
                )
                .tooltip("Which time step of the file's variable is read (0: the first).")
                .range(0.0, 1e9)
                .no_sweep(),
                Param::new(
                    "data.level_index",
                    "Level index",
                    field!(P, data.options.level_index),
                )
                .tooltip(
                    "Which vertical level of the file's variable is read (0: the first); \
                     ignored for a variable without levels.",
                )
                .range(0.0, 1e9)
                .no_sweep(),
                Param::new(
                    "data.lmax",
                    "Largest wavenumber (0: grid's own)",
                    field!(P, data.lmax),
                )
                .range(0.0, 4095.0)
                .tooltip("Truncation of the spectrum; 0 takes the most the field's grid resolves.")
                .no_sweep(),
            ],
        );
        params.extend(grouped(
            "Analytic",
            vec![
            Param::new("analytic.k_c", "Decorrelation k_c", field!(P, analytic.k_c))
                .range(0.01, 1e6)
                .log()
                .slider()
                .tooltip(
                    "ρ_k = exp(−k/k_c): the forecast's correlation with the truth at wavenumber k. \
                 A smaller k_c is a longer lead time.",
                ),
            Param::new(
                "analytic.lmax",
                "Largest wavenumber",
                field!(P, analytic.lmax),
            )
            .tooltip(
                "Truncation: the largest total wavenumber k of the synthetic truth and \
                 forecast (the grid is sized to resolve it). Wavelength λ = 2πR_E/k.",
            )
            .range(2.0, 1023.0),
            Param::computed(
                "analytic.slope",
                "Spectral slope (PSD ∝ k^−slope)",
                false,
                slope,
                set_slope,
            )
            .tooltip(
                "Slope s of the truth's power spectrum PSD_k ∝ k^−s (dimensionless): 3 for \
                 the synoptic range, 5/3 for the mesoscale.",
            )
            .range(0.0, 10.0)
            .slider(),
            Param::new("analytic.steps", "Iterations", field!(P, analytic.steps))
                .tooltip(
                    "Iterations of the gradient descent that fits one gain g_k per wavenumber \
                     under MSE and under AMSE (paper eq. 6).",
                )
                .range(1.0, 100_000.0)
                .no_sweep(),
            Param::new(
                "analytic.learning_rate",
                "Step size",
                field!(P, analytic.learning_rate),
            )
            .tooltip(
                "Step size η of the preconditioned gradient descent on the gains g_k (0 < η ≤ \
                 1).",
            )
            .range(0.001, 1.0)
            .no_sweep(),
            Param::new(
                "analytic.initial_gain",
                "Initial gain",
                field!(P, analytic.initial_gain),
            )
            .tooltip(
                "Gain g_k every wavenumber starts from (1: the forecast as it is). The MSE \
                 optimum shrinks mode k to ρ_k; the AMSE optimum keeps amplitude 1.",
            )
            .range(0.01, 2.0)
            .no_sweep(),
            Param::new("analytic_seed", "Seed", field!(P, analytic_seed))
                .tooltip("Seed of the random truth and forecast fields (a whole number).").no_sweep(),
        ],
        ));
        params.extend(grouped(
            "Learned",
            vec![
                Param::new(
                    "learned.lmax",
                    "Truncation (largest k)",
                    field!(P, learned.model.lmax),
                )
                .tooltip(
                    "Truncation: the largest total wavenumber k of the barotropic model, the \
                     forecasters' grid and the spectra.",
                )
                .range(7.0, 85.0),
                Param::new(
                    "learned.lead_h",
                    "Lead time per step",
                    field!(P, learned.lead_h),
                )
                .tooltip(
                    "Lead time of one forecaster step, in hours (a whole number of model \
                     steps): each CNN learns to predict the state this far ahead.",
                )
                .range(0.25, 240.0)
                .unit(" h")
                .speed(1.0),
                Param::new(
                    "learned.train_trajectories",
                    "Training trajectories",
                    field!(P, learned.train_trajectories),
                )
                .tooltip("Barotropic-model runs the training pairs are drawn from.")
                .range(1.0, 1000.0),
                Param::new(
                    "learned.states_per_trajectory",
                    "States per trajectory",
                    field!(P, learned.states_per_trajectory),
                )
                .tooltip("States recorded along each run, one lead time apart.")
                .range(2.0, 1000.0),
                Param::new(
                    "learned.hidden_channels",
                    "Hidden channels",
                    field!(P, learned.hidden_channels),
                )
                .tooltip(
                    "Hidden channels of each CNN forecaster (the MSE one and the AMSE one \
                     alike).",
                )
                .range(1.0, 256.0),
                Param::new(
                    "learned.layers",
                    "Convolution layers",
                    field!(P, learned.layers),
                )
                .tooltip("3×3 convolution layers of each CNN forecaster.")
                .range(2.0, 32.0),
                Param::new(
                    "learned.train_steps",
                    "Training steps",
                    field!(P, learned.train_steps),
                )
                .tooltip(
                    "Optimiser steps; each trains both forecasters (MSE and AMSE) on the same \
                     batch.",
                )
                .range(1.0, 1e7),
                Param::new(
                    "learned.batch_size",
                    "Batch size",
                    field!(P, learned.batch_size),
                )
                .tooltip("State pairs (now, one lead later) per training step.")
                .range(1.0, 1024.0),
                Param::new(
                    "learned.learning_rate",
                    "Learning rate",
                    field!(P, learned.learning_rate),
                )
                .tooltip("Peak Adam learning rate η (cosine decay to 5 % of it).")
                .range(1e-6, 1.0)
                .speed(1e-4),
                Param::new(
                    "learned.resolution_min_k",
                    "Resolution searched from k ≥",
                    field!(P, learned.resolution_min_k),
                )
                .tooltip(
                    "Smallest total wavenumber k searched for the effective resolution (R_k² \
                     first below 0.75, or R_k first above 1). The small CNN's planetary \
                     scales (k < 10, λ > 4000 km) wander on their own.",
                )
                .range(1.0, 85.0)
                .no_sweep(),
                Param::new("learned_seed", "Seed", field!(P, learned_seed))
                    .tooltip(
                        "Seed of the model runs, the initial weights and the batches (a whole \
                         number).",
                    )
                    .no_sweep(),
            ],
        ));
        params
    }
}
