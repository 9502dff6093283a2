//! The stitch operator and priority-sampled stitching of parent fragments.

use std::collections::{HashMap, HashSet};

use benchtop_compute::ComputeError;
use benchtop_compute::rng::EngineRng;
use rand::Rng as _;

use crate::brics::{Fragment, brics_fragments, compatible};
use crate::mol::Molecule;
use crate::pairing::{preference_scores, symmetric_dirichlet, weighted_sample_without_replacement};

/// How two fragments become one molecule. A one-line switch point: StitchNet decoding joins
/// this enum once it is merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StitchOperator {
    /// Rule-based BRICS stitch ([`crate::brics::stitch`]) at the first compatible pair of
    /// attachment points; the rest are capped with hydrogen.
    #[default]
    Brics,
}

impl StitchOperator {
    /// The stitched child's canonical SMILES, or `None` when the fragments cannot be joined.
    pub fn stitch(&self, a: &Fragment, b: &Fragment) -> Option<String> {
        match self {
            Self::Brics => {
                let ma = Molecule::from_smiles(&a.smiles).ok()?;
                let mb = Molecule::from_smiles(&b.smiles).ok()?;
                crate::brics::stitch(&ma, &mb)
                    .and_then(|m| m.canonical_smiles())
                    .ok()
            }
        }
    }
}

/// A stitched child with its parents.
#[derive(Debug, Clone, PartialEq)]
pub struct Child {
    /// Canonical SMILES of the child.
    pub smiles: String,
    /// Parent A (the one fragment 1 came from).
    pub parent_a: String,
    /// Parent B.
    pub parent_b: String,
}

/// BRICS fragments of molecules, computed once per SMILES; only fragments with at least one
/// attachment point are kept.
#[derive(Debug, Default)]
pub struct FragmentCache {
    map: HashMap<String, Vec<Fragment>>,
}

impl FragmentCache {
    /// The attachable fragments of `smiles` (empty when it has no BRICS bond or fails to parse).
    pub fn get(&mut self, smiles: &str) -> &[Fragment] {
        self.map.entry(smiles.to_owned()).or_insert_with(|| {
            Molecule::from_smiles(smiles)
                .and_then(|m| brics_fragments(&m))
                .map(|f| f.into_iter().filter(|x| !x.labels.is_empty()).collect())
                .unwrap_or_default()
        })
    }
}

/// Tries to stitch a random fragment of `a` with a random compatible fragment of `b`.
pub fn cross(
    a: &str,
    b: &str,
    operator: StitchOperator,
    cache: &mut FragmentCache,
    rng: &mut EngineRng,
) -> Option<Child> {
    let fa = cache.get(a).to_vec();
    let fb = cache.get(b);
    if fa.is_empty() || fb.is_empty() {
        return None;
    }
    let x = &fa[rng.random_range(0..fa.len())];
    let options: Vec<&Fragment> = fb
        .iter()
        .filter(|y| {
            x.labels
                .iter()
                .any(|&l| y.labels.iter().any(|&m| compatible(l, m)))
        })
        .collect();
    if options.is_empty() {
        return None;
    }
    let y = options[rng.random_range(0..options.len())];
    operator.stitch(x, y).map(|smiles| Child {
        smiles,
        parent_a: a.to_owned(),
        parent_b: b.to_owned(),
    })
}

/// One round of priority-sampled stitching: two preferences pref₁, pref₂ ~ Dir(α·1); from
/// `pool` (SMILES with objective `values`) up to `n` parents per preference without
/// replacement with p ∝ prefᵢ·f; parent k of set 1 is crossed with parent k of set 2 (cycling
/// when the sets are shorter than `n`). Returns the distinct children that pass `keep` and the
/// number of attempts (`n`).
#[allow(clippy::too_many_arguments)]
pub fn priority_stitch(
    pool: &[String],
    values: &[Vec<f64>],
    n: usize,
    alpha: f64,
    operator: StitchOperator,
    cache: &mut FragmentCache,
    rng: &mut EngineRng,
    mut keep: impl FnMut(&str) -> bool,
) -> Result<Vec<Child>, ComputeError> {
    let d = values.first().map_or(0, Vec::len);
    let mut sets = Vec::with_capacity(2);
    for _ in 0..2 {
        let pref = symmetric_dirichlet(d, alpha, rng)?;
        let w = preference_scores(values, &pref);
        let positive = w.iter().filter(|x| **x > 0.0).count();
        let chosen = weighted_sample_without_replacement(&w, n.min(positive), rng)?;
        if chosen.is_empty() {
            return Ok(Vec::new());
        }
        sets.push(chosen);
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for k in 0..n {
        let a = &pool[sets[0][k % sets[0].len()]];
        let b = &pool[sets[1][k % sets[1].len()]];
        if let Some(child) = cross(a, b, operator, cache, rng)
            && keep(&child.smiles)
            && seen.insert(child.smiles.clone())
        {
            out.push(child);
        }
    }
    Ok(out)
}
