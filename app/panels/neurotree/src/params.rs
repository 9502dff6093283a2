//! The NeuroTree panel's numeric parameters, each declared once: its widget, range check,
//! sweeps, undo steps and `benchtop params` all come from here.
//!
//! Keys are the sweep keys saved projects already use (`khop.lambda`, `trunk.alpha`,
//! `trunk.max_path_order`, `train.learning_rate`, `model.hidden`, `train.epochs`, `run.seed`),
//! and otherwise the field's path in [`NeuroTreePanelParams`](super::NeuroTreePanelParams).
//! Ranges hold every value the engine accepts for a real study and every value the widgets and
//! sweeps offered before.

use benchtop_kit::field;
use benchtop_kit::params::{Declare, Param};

use super::NeuroTreePanelParams as P;

/// What the default-mode effect does, shown on hover.
const DMN_HINT: &str = "Fractional reduction of patients' within-default-mode coupling.";

/// What the shared drive does, shown on hover.
const SHARED_DRIVE_HINT: &str = "Fraction of each ROI's innovation variance shared by its network.";

/// The first λ of the k-hop curves (what a sweep of `khop.lambda` varies).
fn first_lambda(params: &P) -> f64 {
    params.run.khop.lambdas.first().copied().unwrap_or(0.5)
}

/// A sweep point's λ: the k-hop curves become the one curve of that λ.
fn set_single_lambda(params: &mut P, value: f64) -> Result<(), String> {
    params.run.khop.lambdas = vec![value];
    Ok(())
}

impl Declare for P {
    /// Every numeric parameter of the panel.
    fn declare() -> Vec<Param<P>> {
        vec![
            // Data tab: the synthetic cohort.
            Param::new(
                "data.cohort.subjects",
                "Subjects",
                field!(P, data.cohort.subjects),
            )
            .range(1.0, 100_000.0)
            .no_sweep(),
            Param::new("data.cohort.rois", "ROIs", field!(P, data.cohort.rois))
                .range(7.0, 10_000.0)
                .no_sweep(),
            Param::new(
                "data.cohort.time_points",
                "Time points",
                field!(P, data.cohort.time_points),
            )
            .range(2.0, 100_000.0)
            .no_sweep(),
            Param::new(
                "data.cohort.patient_fraction",
                "Patient fraction",
                field!(P, data.cohort.patient_fraction),
            )
            .range(0.0, 1.0)
            .no_sweep(),
            Param::new(
                "data.cohort.age_min_years",
                "Youngest age (years)",
                field!(P, data.cohort.age_min_years),
            )
            .range(0.0, 120.0)
            .speed(1.0)
            .no_sweep(),
            Param::new(
                "data.cohort.age_max_years",
                "Oldest age (years)",
                field!(P, data.cohort.age_max_years),
            )
            .range(0.0, 120.0)
            .speed(1.0)
            .no_sweep(),
            Param::new(
                "data.cohort.self_coupling",
                "Self coupling",
                field!(P, data.cohort.self_coupling),
            )
            .range(0.0, 1.0)
            .no_sweep(),
            Param::new(
                "data.cohort.within_coupling",
                "Within-network coupling",
                field!(P, data.cohort.within_coupling),
            )
            .range(0.0, 1.0)
            .no_sweep(),
            Param::new(
                "data.cohort.between_coupling",
                "Between-network coupling",
                field!(P, data.cohort.between_coupling),
            )
            .range(0.0, 1.0)
            .no_sweep(),
            Param::new(
                "data.cohort.jitter",
                "Coupling jitter",
                field!(P, data.cohort.jitter),
            )
            .range(0.0, 0.99)
            .no_sweep(),
            Param::new(
                "data.cohort.dmn_group_effect",
                "DMN group effect",
                field!(P, data.cohort.dmn_group_effect),
            )
            .range(0.0, 1.0)
            .tooltip(DMN_HINT)
            .no_sweep(),
            Param::new(
                "data.cohort.age_effect_per_year",
                "Age effect (per year)",
                field!(P, data.cohort.age_effect_per_year),
            )
            .range(0.0, 1.0)
            .speed(0.001)
            .no_sweep(),
            Param::new(
                "data.cohort.noise_std",
                "Noise σ",
                field!(P, data.cohort.noise_std),
            )
            .range(1e-6, 1e6)
            .no_sweep(),
            Param::new(
                "data.cohort.shared_drive",
                "Shared network drive",
                field!(P, data.cohort.shared_drive),
            )
            .range(0.0, 1.0)
            .tooltip(SHARED_DRIVE_HINT)
            .no_sweep(),
            Param::new(
                "data.cohort.seed",
                "Cohort seed",
                field!(P, data.cohort.seed),
            )
            .no_sweep(),
            // Tree tab: the trunk search.
            Param::new("run.trunk.levels", "Levels", field!(P, run.trunk.levels)).range(1.0, 10.0),
            Param::new(
                "trunk.alpha",
                "α (node score against GPC)",
                field!(P, run.trunk.alpha),
            )
            .range(0.0, 1.0),
            Param::new(
                "trunk.max_path_order",
                "S (longest path counted)",
                field!(P, run.trunk.max_path_order),
            )
            .range(1.0, 10.0),
            // Model tab: the model.
            Param::new("model.hidden", "Hidden size", field!(P, run.model.hidden))
                .range(1.0, 4096.0),
            Param::new(
                "run.model.head_hidden",
                "Head hidden size",
                field!(P, run.model.head_hidden),
            )
            .range(1.0, 4096.0),
            Param::new("run.model.dropout", "Dropout", field!(P, run.model.dropout))
                .range(0.0, 0.95),
            Param::new(
                "run.model.cmfc_weight",
                "CMFC weight",
                field!(P, run.model.cmfc_weight),
            )
            .range(0.0, 100.0),
            Param::new(
                "run.model.cmfc_temperature",
                "CMFC temperature",
                field!(P, run.model.cmfc_temperature),
            )
            .range(0.001, 10.0)
            .speed(0.001),
            // Model tab: training.
            Param::new("train.epochs", "Epochs", field!(P, run.train.epochs)).range(1.0, 100_000.0),
            Param::new(
                "run.train.batch_size",
                "Batch size",
                field!(P, run.train.batch_size),
            )
            .range(1.0, 100_000.0),
            Param::new(
                "train.learning_rate",
                "Learning rate",
                field!(P, run.train.learning_rate),
            )
            .range(1e-6, 1.0)
            .speed(1e-4),
            Param::new(
                "run.train.weight_decay",
                "Weight decay",
                field!(P, run.train.weight_decay),
            )
            .range(0.0, 1.0)
            .speed(1e-6),
            Param::new("run.folds", "Folds", field!(P, run.folds)).range(2.0, 20.0),
            Param::new(
                "run.features.windows",
                "Time windows",
                field!(P, run.features.windows),
            )
            .range(1.0, 16.0),
            Param::new("run.seed", "Run seed", field!(P, run.seed)).seed(),
            // Model tab: the k-hop norms.
            Param::computed(
                "khop.lambda",
                "k-hop mixing λ (one curve)",
                false,
                first_lambda,
                set_single_lambda,
            )
            .range(0.0, 1.0)
            .tooltip("Setting it leaves one ‖Φ_k‖₂ curve, at this λ."),
            Param::new("run.khop.k_max", "Largest k", field!(P, run.khop.k_max)).range(1.0, 500.0),
        ]
    }
}
