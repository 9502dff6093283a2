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
const DMN_HINT: &str = "Fractional reduction of patients' within-default-mode (DMN) coupling, in [0, 1]: the group effect the classifiers look for.";

/// What the shared drive does, shown on hover.
const SHARED_DRIVE_HINT: &str =
    "Fraction of each ROI's innovation variance (of ε) shared by its network, in [0, 1].";

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
            .tooltip("Subjects in the synthetic cohort (patients and controls together).")
            .range(1.0, 100_000.0)
            .no_sweep(),
            Param::new("data.cohort.rois", "ROIs", field!(P, data.cohort.rois))
                .tooltip(
                    "Regions of interest N per subject (nodes of the brain graph), spread \
                     over the 7 Yeo networks (at least one each).",
                )
                .range(7.0, 10_000.0)
                .no_sweep(),
            Param::new(
                "data.cohort.time_points",
                "Time points",
                field!(P, data.cohort.time_points),
            )
            .tooltip(
                "Recorded time points T per subject (samples of the VAR(1) series x_{t+1} = A \
                 x_t + ε).",
            )
            .range(2.0, 100_000.0)
            .no_sweep(),
            Param::new(
                "data.cohort.patient_fraction",
                "Patient fraction",
                field!(P, data.cohort.patient_fraction),
            )
            .tooltip("Fraction of subjects who are patients, in [0, 1]; the count is rounded.")
            .range(0.0, 1.0)
            .no_sweep(),
            Param::new(
                "data.cohort.age_min_years",
                "Youngest age (years)",
                field!(P, data.cohort.age_min_years),
            )
            .tooltip(
                "Youngest age, in years; ages are uniform between the youngest and the \
                 oldest.",
            )
            .range(0.0, 120.0)
            .speed(1.0)
            .no_sweep(),
            Param::new(
                "data.cohort.age_max_years",
                "Oldest age (years)",
                field!(P, data.cohort.age_max_years),
            )
            .tooltip("Oldest age, in years; ages are uniform between the youngest and the oldest.")
            .range(0.0, 120.0)
            .speed(1.0)
            .no_sweep(),
            Param::new(
                "data.cohort.self_coupling",
                "Self coupling",
                field!(P, data.cohort.self_coupling),
            )
            .tooltip(
                "Self coupling a_ii of the VAR(1) matrix A (dimensionless, ≥ 0): how much of \
                 each ROI's value carries to the next time point.",
            )
            .range(0.0, 1.0)
            .no_sweep(),
            Param::new(
                "data.cohort.within_coupling",
                "Within-network coupling",
                field!(P, data.cohort.within_coupling),
            )
            .tooltip(
                "Total coupling per row of A to ROIs of the same network (dimensionless, ≥ \
                 0).",
            )
            .range(0.0, 1.0)
            .no_sweep(),
            Param::new(
                "data.cohort.between_coupling",
                "Between-network coupling",
                field!(P, data.cohort.between_coupling),
            )
            .tooltip("Total coupling per row of A to ROIs of other networks (dimensionless, ≥ 0).")
            .range(0.0, 1.0)
            .no_sweep(),
            Param::new(
                "data.cohort.jitter",
                "Coupling jitter",
                field!(P, data.cohort.jitter),
            )
            .tooltip("Relative random jitter of each coupling of A, in [0, 1).")
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
            .tooltip(
                "Fractional decay of all off-diagonal coupling per year above the youngest \
                 age (per year, ≥ 0): the age effect the brain-age model learns.",
            )
            .range(0.0, 1.0)
            .speed(0.001)
            .no_sweep(),
            Param::new(
                "data.cohort.noise_std",
                "Noise σ",
                field!(P, data.cohort.noise_std),
            )
            .tooltip("Standard deviation σ of the innovation noise ε (> 0, in the series' units).")
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
            .tooltip("Seed of every random stream of the cohort (a whole number).")
            .no_sweep(),
            // Tree tab: the trunk search.
            Param::new("run.trunk.levels", "Levels", field!(P, run.trunk.levels))
                .tooltip(
                    "Trunk levels extracted from each brain tree (the paper: 3); each level \
                     removes the previous trunks' edges.",
                ).range(1.0, 10.0),
            Param::new(
                "trunk.alpha",
                "α (node score against GPC)",
                field!(P, run.trunk.alpha),
            )
            .tooltip(
                "Weight α ∈ [0, 1] of the summed node scores against the GPC term when \
                 choosing a trunk's end (the paper: 0.1).",
            )
            .range(0.0, 1.0),
            Param::new(
                "trunk.max_path_order",
                "S (longest path counted)",
                field!(P, run.trunk.max_path_order),
            )
            .tooltip("S: the most edges of a connecting path that GPC counts (the paper: 2).")
            .range(1.0, 10.0),
            // Model tab: the model.
            Param::new("model.hidden", "Hidden size", field!(P, run.model.hidden))
                .tooltip("Width of the node embeddings Z of the AGE-GCN (the paper: 64).")
                .range(1.0, 4096.0),
            Param::new(
                "run.model.head_hidden",
                "Head hidden size",
                field!(P, run.model.head_hidden),
            )
            .tooltip("Width of the hidden layer of the class and age heads (the paper: 32).")
            .range(1.0, 4096.0),
            Param::new("run.model.dropout", "Dropout", field!(P, run.model.dropout))
                .tooltip("Dropout probability in the class head, in [0, 1) (the paper: 0.5).")
                .range(0.0, 0.95),
            Param::new(
                "run.model.cmfc_weight",
                "CMFC weight",
                field!(P, run.model.cmfc_weight),
            )
            .tooltip(
                "Weight of the contrastive masked-FC loss L_CMFC added to the cross-entropy \
                 (≥ 0; AGE-GCN only).",
            )
            .range(0.0, 100.0),
            Param::new(
                "run.model.cmfc_temperature",
                "CMFC temperature",
                field!(P, run.model.cmfc_temperature),
            )
            .tooltip("Temperature τ of the CMFC similarities (> 0; the paper: 0.07).")
            .range(0.001, 10.0)
            .speed(0.001),
            // Model tab: training.
            Param::new("train.epochs", "Epochs", field!(P, run.train.epochs))
                .tooltip("Passes over the training subjects (the paper: 300).").range(1.0, 100_000.0),
            Param::new(
                "run.train.batch_size",
                "Batch size",
                field!(P, run.train.batch_size),
            )
            .tooltip("Subjects per mini-batch (the paper: 4).")
            .range(1.0, 100_000.0),
            Param::new(
                "train.learning_rate",
                "Learning rate",
                field!(P, run.train.learning_rate),
            )
            .tooltip("Adam step size η (the paper: 10⁻³).")
            .range(1e-6, 1.0)
            .speed(1e-4),
            Param::new(
                "run.train.weight_decay",
                "Weight decay",
                field!(P, run.train.weight_decay),
            )
            .tooltip("L2 weight decay added to the gradients (the paper: 10⁻⁵).")
            .range(0.0, 1.0)
            .speed(1e-6),
            Param::new("run.folds", "Folds", field!(P, run.folds))
                .tooltip(
                    "Cross-validation folds (stratified by group; the paper reports five-fold \
                     AUC).",
                ).range(2.0, 20.0),
            Param::new(
                "run.features.windows",
                "Time windows",
                field!(P, run.features.windows),
            )
            .tooltip("Equal time windows the series is cut into for the dynamic FC (the paper: 2).")
            .range(1.0, 16.0),
            Param::new("run.seed", "Run seed", field!(P, run.seed))
                .tooltip("Seed of folds, initial weights and batches (a whole number).").seed(),
            // Model tab: the k-hop norms.
            Param::computed(
                "khop.lambda",
                "k-hop mixing λ (one curve)",
                false,
                first_lambda,
                set_single_lambda,
            )
            .range(0.0, 1.0)
            .tooltip(
                "Mixing weight λ ∈ [0, 1] of the k-hop operator Φ_k = sigmoid(Γ) ⊙ Â_s ⊙ (λÂ_d + (1 − λ)Â_dᵀ)^k (paper eq. 7). Setting it leaves one ‖Φ_k‖₂ curve, at this λ.",
            ),
            Param::new("run.khop.k_max", "Largest k", field!(P, run.khop.k_max))
                .tooltip("Largest hop count k of the ‖Φ_k‖₂ curves (the paper: 50).").range(1.0, 500.0),
        ]
    }
}
