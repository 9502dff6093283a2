//! What a NeuroTree run produces: cross-validated evaluations per method, brain age, group brain
//! trees with trunks, node scores and the ‖Φ_k‖₂ curves.

use crate::cohort::Group;
use crate::evaluate::{Metrics, RocCurve};
use crate::graph_tree::SpanningTree;
use crate::khop::KhopCurve;
use crate::matrix::Matrix;
use crate::train::EpochStats;
use crate::trunk::Trunks;
use serde::{Deserialize, Serialize};

/// The method name of the AGE-GCN model.
pub const METHOD_AGE_GCN: &str = "AGE-GCN";
/// The method name of the plain GCN baseline.
pub const METHOD_GCN: &str = "GCN";
/// The method name of the logistic-regression baseline on FC edges.
pub const METHOD_LOGISTIC: &str = "Logistic regression (FC edges)";

/// The k-fold cross-validated evaluation of one classifier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodEvaluation {
    /// The method ([`METHOD_AGE_GCN`], [`METHOD_GCN`] or [`METHOD_LOGISTIC`]).
    pub method: String,
    /// Metrics of each held-out fold.
    pub folds: Vec<Metrics>,
    /// Mean over folds.
    pub mean: Metrics,
    /// Sample standard deviation over folds.
    pub std: Metrics,
    /// The ROC curve of the pooled out-of-fold scores.
    pub roc: RocCurve,
    /// P(patient) of every subject from the model that did not see it.
    pub out_of_fold_scores: Vec<f64>,
}

/// Brain age: a regressor trained on controls, controls predicted out of fold, patients by
/// the mean of the fold models.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BrainAge {
    /// Chronological age of every subject, years.
    pub chronological_years: Vec<f64>,
    /// Predicted age of every subject, years.
    pub predicted_years: Vec<f64>,
    /// The group of every subject.
    pub group: Vec<Group>,
    /// Slope of predicted against chronological age over controls.
    pub slope_control: f64,
    /// Intercept of that line, years.
    pub intercept_control: f64,
    /// Slope over patients.
    pub slope_patient: f64,
    /// Intercept over patients, years.
    pub intercept_patient: f64,
}

/// The brain tree of a group's mean FC with its trunks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupTree {
    /// The group, or `None` for all subjects.
    pub group: Option<Group>,
    /// Mean Pearson r over the group's subjects.
    pub mean_fc: Matrix,
    /// The minimum spanning tree on 1 − mean r.
    pub tree: SpanningTree,
    /// The node score used for the trunks (mean out-of-fold AGE-GCN node score, or the FC
    /// strength when no model was trained).
    pub node_scores: Vec<f64>,
    /// FC strength per node: mean |r| to the other nodes.
    pub fc_strength: Vec<f64>,
    /// The trunks over levels.
    pub trunks: Trunks,
    /// Trunk-node counts `[level − 1][network]`.
    pub membership: Vec<Vec<usize>>,
}

/// Everything one run computes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NeuroTreeResult {
    /// Cross-validated classifiers (empty when classification was skipped; see `notes`).
    pub evaluations: Vec<MethodEvaluation>,
    /// AGE-GCN training curves, one per fold.
    pub training_curves: Vec<Vec<EpochStats>>,
    /// Brain age, when it ran.
    pub brain_age: Option<BrainAge>,
    /// Group trees: all subjects first, then each group present.
    pub group_trees: Vec<GroupTree>,
    /// Per subject, the node scores (out-of-fold AGE-GCN, or FC strength).
    pub subject_node_scores: Vec<Vec<f64>>,
    /// Whether `subject_node_scores` and the group trees' scores come from the model.
    pub scores_from_model: bool,
    /// The learned mixing λ of each AGE-GCN fold model.
    pub learned_lambdas: Vec<f64>,
    /// ‖Φ_k‖₂ curves, one per λ.
    pub khop: Vec<KhopCurve>,
    /// What was skipped and why, and other remarks for the reader.
    pub notes: Vec<String>,
}

impl NeuroTreeResult {
    /// The evaluation of `method`, if it ran.
    pub fn evaluation(&self, method: &str) -> Option<&MethodEvaluation> {
        self.evaluations.iter().find(|e| e.method == method)
    }
}
