//! The NeuroTree run: features, k-fold cross-validation of AGE-GCN and the baselines, brain age,
//! group brain trees with trunks, and the ‖Φ_k‖₂ curves.

use crate::cohort::Group;
use crate::connectivity::pearson;
use crate::dataset::Dataset;
use crate::evaluate::{
    LogisticRegression, linear_fit, mean_and_std, metrics, roc_curve, stratified_folds,
};
use crate::features::{FeatureParams, SubjectGraph, subject_graphs};
use crate::graph_tree::brain_tree;
use crate::khop::{KhopCurve, KhopParams, khop_norms};
use crate::matrix::Matrix;
use crate::model::{Architecture, ModelConfig, Task};
use crate::result::{
    BrainAge, GroupTree, METHOD_AGE_GCN, METHOD_GCN, METHOD_LOGISTIC, MethodEvaluation,
    NeuroTreeResult,
};
use crate::train::{EpochStats, TrainParams, TrainedModel, train};
use crate::trunk::{TrunkParams, extract_trunks};
use benchtop_compute::rng::derive_seed;
use benchtop_compute::threads::single_threaded;
use benchtop_compute::{CancelToken, ComputeError, Progress};
use serde::{Deserialize, Serialize};

/// Every setting of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NeuroTreeParams {
    /// Feature preparation.
    pub features: FeatureParams,
    /// The AGE-GCN model (the GCN baseline uses the same sizes).
    pub model: ModelConfig,
    /// Training of every neural model.
    pub train: TrainParams,
    /// Number of cross-validation folds (≥ 2).
    pub folds: usize,
    /// Trunk extraction.
    pub trunk: TrunkParams,
    /// The ‖Φ_k‖₂ curves.
    pub khop: KhopParams,
    /// Whether to run the GCN and logistic-regression baselines in the same folds.
    pub baselines: bool,
    /// Whether to run brain age (needs ages and at least `folds` controls).
    pub brain_age: bool,
    /// Seed of folds and model initialisation.
    pub seed: u64,
}

impl Default for NeuroTreeParams {
    fn default() -> Self {
        Self {
            features: FeatureParams::default(),
            model: ModelConfig::default(),
            train: TrainParams::default(),
            folds: 5,
            trunk: TrunkParams::default(),
            khop: KhopParams::default(),
            baselines: true,
            brain_age: true,
            seed: 0,
        }
    }
}

impl NeuroTreeParams {
    /// Checks every setting; errors name the key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        self.features.validate()?;
        self.model.validate()?;
        self.train.validate()?;
        self.khop.validate()?;
        if !(2..=20).contains(&self.folds) {
            return Err(ComputeError::invalid("folds", "must lie in 2..=20"));
        }
        if self.trunk.levels == 0 || self.trunk.levels > 10 {
            return Err(ComputeError::invalid("trunk.levels", "must lie in 1..=10"));
        }
        if !(0.0..=1.0).contains(&self.trunk.alpha) {
            return Err(ComputeError::invalid("trunk.alpha", "must lie in [0, 1]"));
        }
        if !(1..=6).contains(&self.trunk.max_path_order) {
            return Err(ComputeError::invalid(
                "trunk.max_path_order",
                "must lie in 1..=6",
            ));
        }
        Ok(())
    }
}

/// Something a UI can show while a run goes on.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEvent {
    /// A new stage began.
    Stage(String),
    /// A neural model finished an epoch.
    Epoch {
        /// The method being trained.
        method: String,
        /// The fold being held out.
        fold: usize,
        /// The epoch's losses.
        stats: EpochStats,
    },
}

/// The upper triangle (above the diagonal) of the static |r|: the baseline's features.
fn fc_edges(graph: &SubjectGraph) -> Vec<f64> {
    let n = graph.static_fc.rows();
    (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .map(|(i, j)| graph.static_fc.get(i, j))
        .collect()
}

/// Per node, the mean |r| to the other nodes.
fn fc_strength(fc: &Matrix) -> Vec<f64> {
    let n = fc.rows();
    (0..n)
        .map(|i| {
            let off: f64 = (0..n).filter(|&j| j != i).map(|j| fc.get(i, j).abs()).sum();
            off / (n.max(2) - 1) as f64
        })
        .collect()
}

fn mean_of(matrices: &[&Matrix]) -> Result<Matrix, ComputeError> {
    let first = matrices
        .first()
        .ok_or_else(|| ComputeError::invalid("subjects", "no subjects to average"))?;
    let mut sum = Matrix::zeros(first.rows(), first.cols());
    for m in matrices {
        for i in 0..sum.rows() {
            for (s, v) in sum.row_mut(i).iter_mut().zip(m.row(i)) {
                *s += v;
            }
        }
    }
    let k = matrices.len() as f64;
    for i in 0..sum.rows() {
        for s in sum.row_mut(i) {
            *s /= k;
        }
    }
    Ok(sum)
}

/// The folds of one cross-validation: (training, held-out) subject indices.
fn fold_splits(assignment: &[usize], folds: usize) -> Vec<(Vec<usize>, Vec<usize>)> {
    (0..folds)
        .map(|f| {
            let (test, train): (Vec<usize>, Vec<usize>) =
                (0..assignment.len()).partition(|&i| assignment[i] == f);
            (train, test)
        })
        .collect()
}

/// One neural method over every fold: out-of-fold scores, the fold models' node scores for
/// their held-out subjects, curves and λ.
struct NeuralFolds {
    scores: Vec<f64>,
    node_scores: Vec<Vec<f64>>,
    curves: Vec<Vec<EpochStats>>,
    models: Vec<TrainedModel>,
}

#[allow(clippy::too_many_arguments)]
fn cross_validate_neural(
    method: &str,
    graphs: &[SubjectGraph],
    splits: &[(Vec<usize>, Vec<usize>)],
    config: &ModelConfig,
    params: &NeuroTreeParams,
    progress: &Progress,
    cancel: &CancelToken,
    on_event: &mut dyn FnMut(&RunEvent),
) -> Result<NeuralFolds, ComputeError> {
    let mut out = NeuralFolds {
        scores: vec![0.0; graphs.len()],
        node_scores: vec![Vec::new(); graphs.len()],
        curves: Vec::new(),
        models: Vec::new(),
    };
    for (fold, (train_idx, test_idx)) in splits.iter().enumerate() {
        on_event(&RunEvent::Stage(format!(
            "{method}: fold {} of {}",
            fold + 1,
            splits.len()
        )));
        let slice = progress.slice(
            fold as f64 / splits.len() as f64,
            (fold + 1) as f64 / splits.len() as f64,
        );
        let train_graphs: Vec<&SubjectGraph> = train_idx.iter().map(|&i| &graphs[i]).collect();
        let mut curve = Vec::new();
        let model = train(
            &train_graphs,
            Task::Classify,
            config,
            &params.train,
            derive_seed(params.seed, 100 + fold as u64),
            &slice,
            cancel,
            &mut |stats| {
                curve.push(stats.clone());
                on_event(&RunEvent::Epoch {
                    method: method.to_owned(),
                    fold,
                    stats: stats.clone(),
                });
            },
        )?;
        let test_graphs: Vec<&SubjectGraph> = test_idx.iter().map(|&i| &graphs[i]).collect();
        let predicted = model.predict(&test_graphs)?;
        for (&i, p) in test_idx.iter().zip(predicted) {
            out.scores[i] = p;
            if config.architecture == Architecture::AgeGcn {
                out.node_scores[i] = model.node_scores(&graphs[i])?;
            }
        }
        out.curves.push(curve);
        out.models.push(model);
    }
    Ok(out)
}

fn evaluation_from_scores(
    method: &str,
    scores: Vec<f64>,
    labels: &[usize],
    splits: &[(Vec<usize>, Vec<usize>)],
) -> Result<MethodEvaluation, ComputeError> {
    let folds = splits
        .iter()
        .map(|(_, test)| {
            let s: Vec<f64> = test.iter().map(|&i| scores[i]).collect();
            let l: Vec<usize> = test.iter().map(|&i| labels[i]).collect();
            metrics(&s, &l)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (mean, std) = mean_and_std(&folds);
    Ok(MethodEvaluation {
        method: method.to_owned(),
        folds,
        mean,
        std,
        roc: roc_curve(&scores, labels)?,
        out_of_fold_scores: scores,
    })
}

fn logistic_baseline(
    graphs: &[SubjectGraph],
    labels: &[usize],
    splits: &[(Vec<usize>, Vec<usize>)],
    cancel: &CancelToken,
) -> Result<Vec<f64>, ComputeError> {
    let edges: Vec<Vec<f64>> = graphs.iter().map(fc_edges).collect();
    let mut scores = vec![0.0; graphs.len()];
    for (train_idx, test_idx) in splits {
        cancel.check()?;
        let x: Vec<Vec<f64>> = train_idx.iter().map(|&i| edges[i].clone()).collect();
        let y: Vec<usize> = train_idx.iter().map(|&i| labels[i]).collect();
        let model = LogisticRegression::fit(&x, &y, 1.0 / x.len() as f64, 300)?;
        let test: Vec<Vec<f64>> = test_idx.iter().map(|&i| edges[i].clone()).collect();
        for (&i, p) in test_idx.iter().zip(model.predict(&test)?) {
            scores[i] = p;
        }
    }
    Ok(scores)
}

fn brain_age(
    graphs: &[SubjectGraph],
    params: &NeuroTreeParams,
    progress: &Progress,
    cancel: &CancelToken,
    on_event: &mut dyn FnMut(&RunEvent),
) -> Result<BrainAge, ComputeError> {
    let controls: Vec<usize> = (0..graphs.len())
        .filter(|&i| graphs[i].label == 0)
        .collect();
    let patients: Vec<usize> = (0..graphs.len())
        .filter(|&i| graphs[i].label == 1)
        .collect();
    let assignment = stratified_folds(
        &vec![0; controls.len()],
        params.folds,
        derive_seed(params.seed, 2),
    )?;
    let mut predicted = vec![0.0; graphs.len()];
    let patient_graphs: Vec<&SubjectGraph> = patients.iter().map(|&i| &graphs[i]).collect();
    for (fold, (train_local, test_local)) in fold_splits(&assignment, params.folds)
        .into_iter()
        .enumerate()
    {
        on_event(&RunEvent::Stage(format!(
            "brain age: fold {} of {}",
            fold + 1,
            params.folds
        )));
        let train_graphs: Vec<&SubjectGraph> =
            train_local.iter().map(|&k| &graphs[controls[k]]).collect();
        let model = train(
            &train_graphs,
            Task::BrainAge,
            &params.model,
            &params.train,
            derive_seed(params.seed, 200 + fold as u64),
            &progress.slice(
                fold as f64 / params.folds as f64,
                (fold + 1) as f64 / params.folds as f64,
            ),
            cancel,
            &mut |stats| {
                on_event(&RunEvent::Epoch {
                    method: "Brain age".to_owned(),
                    fold,
                    stats: stats.clone(),
                });
            },
        )?;
        let test_graphs: Vec<&SubjectGraph> =
            test_local.iter().map(|&k| &graphs[controls[k]]).collect();
        for (&k, p) in test_local.iter().zip(model.predict(&test_graphs)?) {
            predicted[controls[k]] = p;
        }
        if !patient_graphs.is_empty() {
            for (&i, p) in patients.iter().zip(model.predict(&patient_graphs)?) {
                predicted[i] += p / params.folds as f64;
            }
        }
    }
    let ages: Vec<f64> = graphs.iter().map(|g| g.age_years).collect();
    let line = |idx: &[usize]| {
        let x: Vec<f64> = idx.iter().map(|&i| ages[i]).collect();
        let y: Vec<f64> = idx.iter().map(|&i| predicted[i]).collect();
        linear_fit(&x, &y)
    };
    let (slope_control, intercept_control) = line(&controls)?;
    let (slope_patient, intercept_patient) = line(&patients)?;
    Ok(BrainAge {
        chronological_years: ages,
        predicted_years: predicted,
        group: graphs
            .iter()
            .map(|g| {
                if g.label == 1 {
                    Group::Patient
                } else {
                    Group::Control
                }
            })
            .collect(),
        slope_control,
        intercept_control,
        slope_patient,
        intercept_patient,
    })
}

fn group_tree(
    dataset: &Dataset,
    group: Option<Group>,
    node_scores: Option<&[Vec<f64>]>,
    trunk: TrunkParams,
) -> Result<GroupTree, ComputeError> {
    let members: Vec<usize> = (0..dataset.subjects.len())
        .filter(|&i| group.is_none_or(|g| dataset.subjects[i].group == g))
        .collect();
    let t = dataset.min_time_points();
    let correlations = members
        .iter()
        .map(|&i| pearson(&dataset.subjects[i].series.column_range(0, t)?))
        .collect::<Result<Vec<_>, _>>()?;
    let mean_fc = mean_of(&correlations.iter().collect::<Vec<_>>())?;
    let tree = brain_tree(&mean_fc)?;
    let strength = fc_strength(&mean_fc);
    let scores = match node_scores {
        Some(all) => {
            let n = dataset.rois();
            let mut mean = vec![0.0; n];
            for &i in &members {
                for (m, s) in mean.iter_mut().zip(&all[i]) {
                    *m += s / members.len() as f64;
                }
            }
            mean
        }
        None => strength.clone(),
    };
    let trunks = extract_trunks(&tree, &scores, &strength, trunk)?;
    let membership = trunks.membership_by_network(
        &dataset.network_of_roi,
        dataset.network_names.len(),
        trunk.levels,
    )?;
    Ok(GroupTree {
        group,
        mean_fc,
        tree,
        node_scores: scores,
        fc_strength: strength,
        trunks,
        membership,
    })
}

/// Runs everything (see the module docs) on one thread
/// ([`benchtop_compute::threads::single_threaded`]). Classification and brain age are skipped,
/// with a note, when a group has fewer than `folds` subjects; brain age also needs distinct
/// ages.
pub fn run(
    dataset: &Dataset,
    params: &NeuroTreeParams,
    progress: &Progress,
    cancel: &CancelToken,
    on_event: &mut (dyn FnMut(&RunEvent) + Send),
) -> Result<NeuroTreeResult, ComputeError> {
    single_threaded("neurotree-model", || {
        run_here(dataset, params, progress, cancel, on_event)
    })
}

fn run_here(
    dataset: &Dataset,
    params: &NeuroTreeParams,
    progress: &Progress,
    cancel: &CancelToken,
    on_event: &mut dyn FnMut(&RunEvent),
) -> Result<NeuroTreeResult, ComputeError> {
    params.validate()?;
    on_event(&RunEvent::Stage("features".into()));
    progress.set(0.0, "preparing features");
    let graphs = subject_graphs(dataset, &params.features)?;
    let labels: Vec<usize> = graphs.iter().map(|g| g.label).collect();
    let (controls, patients) = (dataset.count(Group::Control), dataset.count(Group::Patient));
    let mut notes = Vec::new();
    let mut evaluations = Vec::new();
    let mut training_curves = Vec::new();
    let mut learned_lambdas = Vec::new();
    let mut model_node_scores = None;
    let mut gamma = None;
    let classify = controls >= params.folds && patients >= params.folds;
    if !classify {
        notes.push(format!(
            "Classification skipped: {controls} controls and {patients} patients; each group needs at least {} (the number of folds).",
            params.folds
        ));
    }
    let ages_spread = dataset
        .subjects
        .iter()
        .any(|s| (s.age_years - dataset.subjects[0].age_years).abs() > 0.0);
    let run_age = params.brain_age && classify && ages_spread;
    if params.brain_age && classify && !ages_spread {
        notes.push("Brain age skipped: every subject has the same age (no demographics?).".into());
    }
    let neural_methods = 1 + usize::from(params.baselines);
    let stages = (neural_methods + usize::from(run_age)) as f64 * f64::from(u8::from(classify));
    let span = |k: f64| {
        if stages == 0.0 {
            progress.slice(0.0, 0.0)
        } else {
            progress.slice(0.9 * k / stages, 0.9 * (k + 1.0) / stages)
        }
    };
    if classify {
        let assignment = stratified_folds(&labels, params.folds, derive_seed(params.seed, 1))?;
        let splits = fold_splits(&assignment, params.folds);
        let age_gcn = ModelConfig {
            architecture: Architecture::AgeGcn,
            ..params.model.clone()
        };
        let neural = cross_validate_neural(
            METHOD_AGE_GCN,
            &graphs,
            &splits,
            &age_gcn,
            params,
            &span(0.0),
            cancel,
            on_event,
        )?;
        evaluations.push(evaluation_from_scores(
            METHOD_AGE_GCN,
            neural.scores,
            &labels,
            &splits,
        )?);
        learned_lambdas = neural.models.iter().map(TrainedModel::lambda).collect();
        gamma = Some(neural.models[0].gamma()?);
        training_curves = neural.curves;
        model_node_scores = Some(neural.node_scores);
        if params.baselines {
            let gcn = ModelConfig {
                architecture: Architecture::PlainGcn,
                ..params.model.clone()
            };
            let plain = cross_validate_neural(
                METHOD_GCN,
                &graphs,
                &splits,
                &gcn,
                params,
                &span(1.0),
                cancel,
                on_event,
            )?;
            evaluations.push(evaluation_from_scores(
                METHOD_GCN,
                plain.scores,
                &labels,
                &splits,
            )?);
            on_event(&RunEvent::Stage(METHOD_LOGISTIC.into()));
            let scores = logistic_baseline(&graphs, &labels, &splits, cancel)?;
            evaluations.push(evaluation_from_scores(
                METHOD_LOGISTIC,
                scores,
                &labels,
                &splits,
            )?);
        }
    }
    let brain_age = if run_age {
        Some(brain_age(
            &graphs,
            params,
            &span(neural_methods as f64),
            cancel,
            on_event,
        )?)
    } else {
        None
    };
    cancel.check()?;
    on_event(&RunEvent::Stage("brain trees".into()));
    progress.set(0.9, "brain trees and trunks");
    let mut groups = vec![None];
    groups.extend(
        [Group::Control, Group::Patient]
            .into_iter()
            .filter(|&g| dataset.count(g) > 0 && dataset.count(g) < dataset.subjects.len())
            .map(Some),
    );
    let group_trees = groups
        .into_iter()
        .map(|g| group_tree(dataset, g, model_node_scores.as_deref(), params.trunk))
        .collect::<Result<Vec<_>, _>>()?;
    let scores_from_model = model_node_scores.is_some();
    let subject_node_scores = match model_node_scores {
        Some(s) => s,
        None => graphs.iter().map(|g| fc_strength(&g.static_fc)).collect(),
    };
    progress.set(0.95, "k-hop operator norms");
    let static_mean = mean_of(&graphs.iter().map(|g| &g.static_fc).collect::<Vec<_>>())?;
    let dynamic_mean = mean_of(
        &graphs
            .iter()
            .flat_map(|g| g.dynamic_norm.iter())
            .collect::<Vec<_>>(),
    )?;
    let gamma = gamma.unwrap_or_else(|| Matrix::zeros(dataset.rois(), dataset.rois()));
    if !classify {
        notes.push("‖Φ_k‖₂ uses Γ = 0 (σ(Γ) = ½): no model was trained.".into());
    }
    let khop = params
        .khop
        .lambdas
        .iter()
        .map(|&lambda| {
            Ok(KhopCurve {
                lambda,
                norms: khop_norms(
                    &gamma,
                    &static_mean,
                    &dynamic_mean,
                    lambda,
                    params.khop.k_max,
                )?,
            })
        })
        .collect::<Result<Vec<_>, ComputeError>>()?;
    progress.set(1.0, "done");
    Ok(NeuroTreeResult {
        evaluations,
        training_curves,
        brain_age,
        group_trees,
        subject_node_scores,
        scores_from_model,
        learned_lambdas,
        khop,
        notes,
    })
}
