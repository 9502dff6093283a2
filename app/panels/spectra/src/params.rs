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
                .range(0.0, 1e9)
                .no_sweep(),
                Param::new(
                    "data.level_index",
                    "Level index",
                    field!(P, data.options.level_index),
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
            .range(2.0, 1023.0),
            Param::computed(
                "analytic.slope",
                "Spectral slope (PSD ∝ k^−slope)",
                false,
                slope,
                set_slope,
            )
            .range(0.0, 10.0)
            .slider(),
            Param::new("analytic.steps", "Iterations", field!(P, analytic.steps))
                .range(1.0, 100_000.0)
                .no_sweep(),
            Param::new(
                "analytic.learning_rate",
                "Step size",
                field!(P, analytic.learning_rate),
            )
            .range(0.001, 1.0)
            .no_sweep(),
            Param::new(
                "analytic.initial_gain",
                "Initial gain",
                field!(P, analytic.initial_gain),
            )
            .range(0.01, 2.0)
            .no_sweep(),
            Param::new("analytic_seed", "Seed", field!(P, analytic_seed)).no_sweep(),
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
                .range(7.0, 85.0),
                Param::new(
                    "learned.lead_h",
                    "Lead time per step",
                    field!(P, learned.lead_h),
                )
                .range(0.25, 240.0)
                .unit(" h")
                .speed(1.0),
                Param::new(
                    "learned.train_trajectories",
                    "Training trajectories",
                    field!(P, learned.train_trajectories),
                )
                .range(1.0, 1000.0),
                Param::new(
                    "learned.states_per_trajectory",
                    "States per trajectory",
                    field!(P, learned.states_per_trajectory),
                )
                .range(2.0, 1000.0),
                Param::new(
                    "learned.hidden_channels",
                    "Hidden channels",
                    field!(P, learned.hidden_channels),
                )
                .range(1.0, 256.0),
                Param::new(
                    "learned.layers",
                    "Convolution layers",
                    field!(P, learned.layers),
                )
                .range(2.0, 32.0),
                Param::new(
                    "learned.train_steps",
                    "Training steps",
                    field!(P, learned.train_steps),
                )
                .range(1.0, 1e7),
                Param::new(
                    "learned.batch_size",
                    "Batch size",
                    field!(P, learned.batch_size),
                )
                .range(1.0, 1024.0),
                Param::new(
                    "learned.learning_rate",
                    "Learning rate",
                    field!(P, learned.learning_rate),
                )
                .range(1e-6, 1.0)
                .speed(1e-4),
                Param::new(
                    "learned.resolution_min_k",
                    "Resolution searched from k ≥",
                    field!(P, learned.resolution_min_k),
                )
                .range(1.0, 85.0)
                .no_sweep(),
                Param::new("learned_seed", "Seed", field!(P, learned_seed)).no_sweep(),
            ],
        ));
        params
    }
}
