//! What a run returns: scored molecules, per-method metrics and the training traces.

use serde::{Deserialize, Serialize};

/// One molecule with its objective values.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScoredMolecule {
    /// RDKit canonical SMILES.
    pub smiles: String,
    /// Objective values in [0, 1], in the order of the run's objectives.
    pub objectives: Vec<f64>,
    /// The two parents (canonical SMILES) for a crossover child; `None` for sampled molecules.
    pub parents: Option<(String, String)>,
}

/// Evaluation metrics of one method (paper appendix L.1).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MethodMetrics {
    /// Hypervolume (reference point 0) of the Pareto front of offline ∪ the method's molecules.
    pub hypervolume: f64,
    /// R2 indicator (lower is better) of offline ∪ the method's molecules.
    pub r2: f64,
    /// Best weighted score r(x) among the method's valid molecules.
    pub top1: f64,
    /// Mean of the 10 best weighted scores.
    pub top10: f64,
    /// Mean of the 100 best weighted scores.
    pub top100: f64,
    /// Mean pairwise Tanimoto distance of the method's valid molecules.
    pub diversity: f64,
    /// Fraction of the oracle budget's strings RDKit parses.
    pub validity: f64,
    /// Distinct fraction of the valid molecules.
    pub uniqueness: f64,
    /// Fraction of the distinct molecules not in the offline set.
    pub novelty: f64,
}

impl MethodMetrics {
    /// The metric keys in [`Self::named`]'s order (as `summary.json` and the CSV name them).
    pub const KEYS: [&'static str; 9] = [
        "hypervolume",
        "r2",
        "top1",
        "top10",
        "top100",
        "diversity",
        "validity",
        "uniqueness",
        "novelty",
    ];

    /// Every metric with its key.
    pub fn named(&self) -> [(&'static str, f64); 9] {
        let values = [
            self.hypervolume,
            self.r2,
            self.top1,
            self.top10,
            self.top100,
            self.diversity,
            self.validity,
            self.uniqueness,
            self.novelty,
        ];
        let mut out = [("", 0.0); 9];
        for (slot, (key, value)) in out.iter_mut().zip(Self::KEYS.into_iter().zip(values)) {
            *slot = (key, value);
        }
        out
    }
}

/// One method's evaluation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MethodResult {
    /// "MolStitch", "Prior fine-tuned" or "BRICS crossover".
    pub name: String,
    /// The distinct valid molecules it produced within the budget, scored by the oracle.
    pub molecules: Vec<ScoredMolecule>,
    /// Its metrics.
    pub metrics: MethodMetrics,
    /// (oracle calls spent, hypervolume of offline ∪ the molecules found within them).
    pub hypervolume_by_budget: Vec<(usize, f64)>,
}

/// The outcome of [`crate::optimise::run`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OptimiseResult {
    /// Objective labels (`qed`, `sa`, `sim`, …), in order.
    pub objective_labels: Vec<String>,
    /// The offline set, scored.
    pub offline: Vec<ScoredMolecule>,
    /// Metrics of the offline set alone (validity etc. of the offline strings).
    pub offline_metrics: MethodMetrics,
    /// "MolStitch", "Prior fine-tuned", "BRICS crossover", in that order.
    pub methods: Vec<MethodResult>,
    /// Held-out pair accuracy of the proxy ensemble (mean over proxies) after each round.
    pub proxy_accuracy: Vec<f64>,
    /// Mean IPO loss of each stitch round.
    pub ipo_loss: Vec<f64>,
    /// Remarks on the run (cache use, skipped rounds, …).
    pub notes: Vec<String>,
    /// The cached weight files the run read or wrote (prior, StitchNet), so a caller can keep
    /// exactly these with its project.
    #[serde(default)]
    pub weight_files: Vec<std::path::PathBuf>,
    /// The comparison over seeds when the run covered several
    /// ([`crate::optimise::seeds::run_seeds`]); the rest of the result is its first seed's.
    #[serde(default)]
    pub seed_study: Option<super::seeds::SeedStudy>,
}
