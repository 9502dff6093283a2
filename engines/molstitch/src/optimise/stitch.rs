//! The stitch operators (rule-based BRICS stitching or StitchNet decoding), the pretrained and
//! cached StitchNet, and priority-sampled stitching of parent fragments.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use benchtop_compute::ComputeError;
use benchtop_compute::rng::EngineRng;
use rand::Rng as _;
use serde::{Deserialize, Serialize};

use super::agent::{PriorSource, cache_hash};
use crate::crossover::{CrossoverPair, crossover_pairs};
use crate::pairing::{preference_scores, symmetric_dirichlet, weighted_sample_without_replacement};
use crate::prior::EpochReport;
use crate::stitchnet::{StitchConfig, StitchNet};
use crate::vocab::Vocabulary;
use benchtop_chem::brics::without_attachments;
use benchtop_chem::brics::{Fragment, brics_fragments, compatible};
use benchtop_chem::mol::Molecule;

/// How MolStitch's stitch rounds turn two parent fragments into one molecule (a config
/// choice, so the rule-based stitch stays comparable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum StitchOperator {
    /// StitchNet ([`crate::stitchnet`]), pretrained on BRICS crossover pairs of the offline
    /// set, decodes the child from the two dummy-free fragments (the paper's operator).
    #[default]
    StitchNet,
    /// Rule-based BRICS stitch ([`benchtop_chem::brics::stitch`]) at the first compatible pair of
    /// attachment points; the rest are capped with hydrogen.
    Brics,
}

/// The operator of one stitch round, with its model when it has one.
#[derive(Debug, Clone, Copy)]
pub enum Stitcher<'a> {
    /// Rule-based BRICS stitching ([`brics_stitch`]).
    Brics,
    /// StitchNet decoding at `temperature`.
    Net {
        /// The pretrained StitchNet.
        net: &'a StitchNet,
        /// Sampling temperature of the decoder.
        temperature: f64,
    },
}

/// The BRICS stitch of two labelled fragments as canonical SMILES, or `None` when they cannot
/// be joined.
pub fn brics_stitch(a: &Fragment, b: &Fragment) -> Option<String> {
    let ma = Molecule::from_smiles(&a.smiles).ok()?;
    let mb = Molecule::from_smiles(&b.smiles).ok()?;
    benchtop_chem::brics::stitch(&ma, &mb)
        .and_then(|m| m.canonical_smiles())
        .ok()
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
/// attachment point are kept. Also remembers each fragment's dummy-free form.
#[derive(Debug, Default)]
pub struct FragmentCache {
    map: HashMap<String, Vec<Fragment>>,
    plain: HashMap<String, Option<String>>,
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

    /// The fragment with its attachment points replaced by hydrogen, canonical (what StitchNet
    /// reads, [`without_attachments`]); `None` when RDKit rejects it.
    pub fn plain(&mut self, fragment: &Fragment) -> Option<String> {
        self.plain
            .entry(fragment.smiles.clone())
            .or_insert_with(|| {
                Molecule::from_smiles(&fragment.smiles)
                    .and_then(|m| without_attachments(&m))
                    .ok()
            })
            .clone()
    }
}

/// A random fragment of `a` and a random BRICS-compatible fragment of `b`, or `None` when
/// either has no attachable fragment or no compatible pair exists.
pub fn pick_fragments(
    a: &str,
    b: &str,
    cache: &mut FragmentCache,
    rng: &mut EngineRng,
) -> Option<(Fragment, Fragment)> {
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
    Some((x.clone(), y.clone()))
}

/// Tries to BRICS-stitch a random fragment of `a` with a random compatible fragment of `b`.
pub fn cross(a: &str, b: &str, cache: &mut FragmentCache, rng: &mut EngineRng) -> Option<Child> {
    let (x, y) = pick_fragments(a, b, cache, rng)?;
    brics_stitch(&x, &y).map(|smiles| Child {
        smiles,
        parent_a: a.to_owned(),
        parent_b: b.to_owned(),
    })
}

/// One round of priority-sampled stitching: two preferences pref₁, pref₂ ~ Dir(α·1); from
/// `pool` (SMILES with objective `values`) up to `n` parents per preference without
/// replacement with p ∝ prefᵢ·f; parent k of set 1 is crossed with parent k of set 2 (cycling
/// when the sets are shorter than `n`): a random fragment of the first and a compatible one
/// of the second are stitched by `stitcher` (StitchNet reads them without dummies and decodes
/// all `n` children in one call; its undecodable or RDKit-invalid outputs are dropped).
/// Returns the distinct canonical children that pass `keep`, out of `n` attempts.
#[allow(clippy::too_many_arguments)]
pub fn priority_stitch(
    pool: &[String],
    values: &[Vec<f64>],
    n: usize,
    alpha: f64,
    stitcher: Stitcher<'_>,
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
    let parents = (0..n).map(|k| {
        (
            &pool[sets[0][k % sets[0].len()]],
            &pool[sets[1][k % sets[1].len()]],
        )
    });
    // Candidate children (canonical or raw SMILES) with their parents, in attempt order.
    let mut raw: Vec<(String, &String, &String)> = Vec::with_capacity(n);
    match stitcher {
        Stitcher::Brics => {
            for (a, b) in parents {
                if let Some(child) = cross(a, b, cache, rng) {
                    raw.push((child.smiles, a, b));
                }
            }
        }
        Stitcher::Net { net, temperature } => {
            let mut fragments = Vec::with_capacity(n);
            let mut owners = Vec::with_capacity(n);
            for (a, b) in parents {
                let Some((x, y)) = pick_fragments(a, b, cache, rng) else {
                    continue;
                };
                if let (Some(px), Some(py)) = (cache.plain(&x), cache.plain(&y))
                    && net.can_encode(&px)
                    && net.can_encode(&py)
                {
                    fragments.push((px, py));
                    owners.push((a, b));
                }
            }
            if !fragments.is_empty() {
                let seed = rng.random::<u64>();
                let decoded = net.decode(&fragments, temperature, seed)?;
                for (smiles, (a, b)) in decoded.into_iter().zip(owners) {
                    // RDKit-valid: parses, and its canonical form parses again (a few
                    // decoded strings parse but canonicalise to an invalid valence).
                    if let Ok(canonical) =
                        Molecule::from_smiles(&smiles).and_then(|m| m.canonical_smiles())
                        && Molecule::from_smiles(&canonical).is_ok()
                    {
                        raw.push((canonical, a, b));
                    }
                }
            }
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (smiles, a, b) in raw {
        if keep(&smiles) && seen.insert(smiles.clone()) {
            out.push(Child {
                smiles,
                parent_a: a.clone(),
                parent_b: b.clone(),
            });
        }
    }
    Ok(out)
}

/// The cache file of a StitchNet pretrained on `n_pairs` crossover pairs of `corpus` with
/// `config`, `epochs` and `seed`: `stitchnet-<FNV-1a hash, hex>.safetensors` in `dir`.
pub fn stitchnet_cache_path(
    dir: &Path,
    corpus: &[String],
    config: &StitchConfig,
    n_pairs: usize,
    epochs: usize,
    seed: u64,
) -> PathBuf {
    let h = cache_hash(corpus, &format!("{config:?}|{n_pairs}|{epochs}|{seed}"));
    dir.join(format!("stitchnet-{h:016x}.safetensors"))
}

/// The crossover pairs StitchNet is pretrained on: `n_pairs` seeded BRICS crossovers of
/// `corpus` ([`crossover_pairs`]), keeping those whose fragments and child `vocab` encodes and
/// whose child fits `max_length_tokens` (so every decoded child is in the prior's vocabulary).
pub fn training_pairs(
    corpus: &[String],
    vocab: &Vocabulary,
    n_pairs: usize,
    max_length_tokens: usize,
    seed: u64,
) -> Vec<CrossoverPair> {
    crossover_pairs(corpus, n_pairs, seed)
        .into_iter()
        .filter(|p| {
            vocab.encode(&p.fragment_a).is_ok()
                && vocab.encode(&p.fragment_b).is_ok()
                && vocab
                    .encode(&p.child)
                    .is_ok_and(|ids| ids.len() <= max_length_tokens + 1)
        })
        .collect()
}

/// StitchNet over `vocab` (the prior's, so its children can be scored by the prior): loaded
/// from `cache_dir` when a file for the same corpus, configuration, pair count, epochs and
/// seed holds a model with this vocabulary and configuration, otherwise pretrained on
/// [`training_pairs`] and saved there. `on_epoch` sees each epoch and returns false to stop
/// (cancel; a stopped model is not saved). A cache file that cannot be written is not an
/// error (`saved: None`). No usable crossover pair is an error naming `stitch_pairs`.
#[allow(clippy::too_many_arguments)]
pub fn pretrained_stitchnet(
    vocab: &Vocabulary,
    corpus: &[String],
    config: &StitchConfig,
    n_pairs: usize,
    epochs: usize,
    seed: u64,
    cache_dir: Option<&Path>,
    on_epoch: &mut dyn FnMut(&EpochReport) -> bool,
) -> Result<(StitchNet, PriorSource), ComputeError> {
    let path = cache_dir.map(|d| stitchnet_cache_path(d, corpus, config, n_pairs, epochs, seed));
    if let Some(p) = path.as_ref().filter(|p| p.is_file())
        && let Ok(net) = StitchNet::load(p)
        && net.vocabulary() == vocab
        && net.config() == config
    {
        return Ok((net, PriorSource::Loaded(p.clone())));
    }
    let pairs = training_pairs(corpus, vocab, n_pairs, config.max_length_tokens, seed);
    if pairs.is_empty() {
        return Err(ComputeError::invalid(
            "stitch_pairs",
            "no BRICS crossover pair of the offline set could be encoded",
        ));
    }
    let mut net = StitchNet::new(vocab.clone(), config.clone(), seed)?;
    let reports = if epochs > 0 {
        net.pretrain(&pairs, epochs, seed ^ 0x5eed, on_epoch)?
    } else {
        Vec::new()
    };
    let complete = reports.len() == epochs;
    let saved = path.filter(|p| {
        complete
            && p.parent()
                .is_some_and(|d| std::fs::create_dir_all(d).is_ok())
            && net.save(p).is_ok()
    });
    let history = reports.iter().map(|r| r.mean_nll_nats).collect();
    Ok((net, PriorSource::Trained { history, saved }))
}
