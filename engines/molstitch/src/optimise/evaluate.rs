//! Oracle scoring and the evaluation metrics of a method under a fixed oracle budget.

use std::collections::{HashMap, HashSet};

use benchtop_compute::ComputeError;

use super::result::{MethodMetrics, MethodResult, ScoredMolecule};
use crate::metrics::{
    diversity, fingerprints, generation_stats, hypervolume, r2_indicator, top_k_mean,
};
use crate::objectives::{Objectives, weighted_sum};
use benchtop_chem::mol::Molecule;

/// Threads the oracle scores on.
pub const SCORING_THREADS: usize = 2;

/// A candidate submitted to the oracle: a string and, for crossover children, its parents.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The generated string (maybe invalid).
    pub smiles: String,
    /// Parents of a crossover child.
    pub parents: Option<(String, String)>,
}

/// Canonical SMILES of `s`, or `None` when RDKit rejects it.
pub fn canonical(s: &str) -> Option<String> {
    Molecule::from_smiles(s)
        .and_then(|m| m.canonical_smiles())
        .ok()
}

/// Scores the distinct valid candidates with the oracle. Returns them (first-occurrence order)
/// and, per candidate, the index of its scored molecule (`None` when invalid or unscorable).
pub fn score_candidates(
    candidates: &[Candidate],
    objectives: &Objectives,
) -> (Vec<ScoredMolecule>, Vec<Option<usize>>) {
    let canon: Vec<Option<String>> = candidates.iter().map(|c| canonical(&c.smiles)).collect();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut distinct: Vec<(String, Option<(String, String)>)> = Vec::new();
    for (c, can) in candidates.iter().zip(&canon) {
        if let Some(s) = can
            && !index.contains_key(s)
        {
            index.insert(s.clone(), distinct.len());
            distinct.push((s.clone(), c.parents.clone()));
        }
    }
    let strings: Vec<&str> = distinct.iter().map(|d| d.0.as_str()).collect();
    let scores = objectives.score_all_parallel(&strings, SCORING_THREADS);
    let mut remap = vec![None; distinct.len()];
    let mut molecules = Vec::new();
    for (i, ((s, parents), score)) in distinct.into_iter().zip(scores).enumerate() {
        if let Ok(values) = score {
            remap[i] = Some(molecules.len());
            molecules.push(ScoredMolecule {
                smiles: s,
                objectives: values,
                parents,
            });
        }
    }
    let per_call = canon
        .iter()
        .map(|c| {
            c.as_ref()
                .and_then(|s| index.get(s))
                .and_then(|&i| remap[i])
        })
        .collect();
    (molecules, per_call)
}

/// Hypervolume (reference 0) of the front of `offline` ∪ `extra` points.
pub fn union_hypervolume(offline: &[Vec<f64>], extra: &[Vec<f64>]) -> Result<f64, ComputeError> {
    let mut all = offline.to_vec();
    all.extend_from_slice(extra);
    hypervolume(&all)
}

/// The metrics of a set of molecules generated from `generated` strings, against the offline
/// points and canonical set.
pub fn metrics(
    generated: &[String],
    molecules: &[ScoredMolecule],
    offline_points: &[Vec<f64>],
    offline_set: &HashSet<String>,
    weights: &[f64],
) -> Result<MethodMetrics, ComputeError> {
    let points: Vec<Vec<f64>> = molecules.iter().map(|m| m.objectives.clone()).collect();
    let mut all = offline_points.to_vec();
    all.extend_from_slice(&points);
    let scores: Vec<f64> = points.iter().map(|p| weighted_sum(p, weights)).collect();
    let smiles: Vec<&str> = molecules.iter().map(|m| m.smiles.as_str()).collect();
    let stats = generation_stats(generated, offline_set);
    Ok(MethodMetrics {
        hypervolume: hypervolume(&all)?,
        r2: if all.is_empty() {
            f64::NAN
        } else {
            r2_indicator(&all)?
        },
        top1: top_k_mean(&scores, 1),
        top10: top_k_mean(&scores, 10),
        top100: top_k_mean(&scores, 100),
        diversity: diversity(&fingerprints(&smiles)),
        validity: stats.validity,
        uniqueness: stats.uniqueness,
        novelty: stats.novelty,
    })
}

/// Scores a method's candidates (one oracle call each) and evaluates it: metrics and the
/// hypervolume after 1/4, 1/2, 3/4 and all of the calls.
pub fn evaluate_method(
    name: &str,
    candidates: &[Candidate],
    objectives: &Objectives,
    offline_points: &[Vec<f64>],
    offline_set: &HashSet<String>,
    weights: &[f64],
) -> Result<MethodResult, ComputeError> {
    let (molecules, per_call) = score_candidates(candidates, objectives);
    let generated: Vec<String> = candidates.iter().map(|c| c.smiles.clone()).collect();
    let metrics = metrics(&generated, &molecules, offline_points, offline_set, weights)?;
    let n = candidates.len();
    let mut budgets: Vec<usize> = (1..=4).map(|q| n * q / 4).filter(|&b| b > 0).collect();
    budgets.dedup();
    let mut hypervolume_by_budget = Vec::with_capacity(budgets.len());
    for b in budgets {
        let mut seen = HashSet::new();
        let pts: Vec<Vec<f64>> = per_call[..b]
            .iter()
            .flatten()
            .filter(|&&i| seen.insert(i))
            .map(|&i| molecules[i].objectives.clone())
            .collect();
        hypervolume_by_budget.push((b, union_hypervolume(offline_points, &pts)?));
    }
    Ok(MethodResult {
        name: name.to_owned(),
        molecules,
        metrics,
        hypervolume_by_budget,
    })
}
