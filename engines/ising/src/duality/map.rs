//! The learned observable map G_ψ from dual link variables to original link variables.
//!
//! For every link ℓ of the lattice, the map reads n = 7 candidate dual link values v_{ℓ,k},
//! mixes them with an attention vector a = GumbelSoftmax(e, τ) (shared by all links) and applies
//! an affine function: x_ℓ = Σ_k a_k v_{ℓ,k}, ô_ℓ = w·x_ℓ + b. The parameters ψ = (e, w, b)
//! are trained by backpropagation through candle; the dual samples are held fixed.
//!
//! ## Candidate order
//! Let ℓ have tail t (its lower-left endpoint), head h = t + d (d = +x for a horizontal link,
//! +y for a vertical one) and "negative side" n (−y for a horizontal link, −x for a vertical one):
//!
//! | k | candidate | horizontal ℓ = (x, y) | vertical ℓ = (x, y) |
//! |---|---|---|---|
//! | 0 | collinear, before the tail | horizontal (x−1, y) | vertical (x, y−1) |
//! | 1 | collinear, after the head | horizontal (x+1, y) | vertical (x, y+1) |
//! | 2 | perpendicular at the tail, negative side | vertical (x, y−1) | horizontal (x−1, y) |
//! | 3 | perpendicular at the tail, positive side | vertical (x, y) | horizontal (x, y) |
//! | 4 | perpendicular at the head, negative side | vertical (x+1, y−1) | horizontal (x−1, y+1) |
//! | 5 | perpendicular at the head, positive side | vertical (x+1, y) | horizontal (x, y+1) |
//! | 6 | ℓ itself (the "original frame", penalised) | horizontal (x, y) | vertical (x, y) |
//!
//! ## Where the Kramers–Wannier dual sits
//! Put dual site (a, b) at the centre (a + ½, b + ½) of the original plaquette whose lower-left
//! corner is (a, b). The dual link crossing horizontal link (x, y) joins dual sites (x, y−1) and
//! (x, y): the vertical link (x, y−1), candidate **2**. The dual link crossing vertical link
//! (x, y) joins (x−1, y) and (x, y): the horizontal link (x−1, y), candidate **2** again. So the
//! exact K = 0 map is one-hot attention on k = 2 with w = −1/sinh 2β, b = coth 2β.
//! Placing dual site (a, b) at (a − ½, b − ½) instead (the same map followed by the translation
//! (1, 1) of the dual torus, an exact symmetry of the dual model) gives candidate **5** for both
//! orientations, so k = 2 and k = 5 are equally exact and the loss cannot tell them apart
//! ([`DUAL_CANDIDATES`]). Candidates 3 and 4 are the other two perpendicular links but select
//! inconsistent translations for horizontal and vertical links, so they are not a dual map.

use std::collections::BTreeMap;
use std::ops::Range;

use benchtop_compute::ComputeError;
use candle_core::{Device, Tensor, Var};
use rand::Rng;
use rand_distr::{Distribution as _, Gumbel};
use serde::{Deserialize, Serialize};

use crate::lattice::SpinConfig;
use crate::links::{
    CORRELATOR_COUNT, LinkField, MASKS, Orientation, PLAQUETTE_EDGES, link_count, link_index,
    mask_products, mask_products_f64,
};

/// Number of candidate links per link (n = 7).
pub const CANDIDATE_COUNT: usize = 7;

/// Index of the link itself among the candidates (the penalised "original frame").
pub const SELF_CANDIDATE: usize = 6;

/// Candidates on which one-hot attention reproduces the exact Kramers–Wannier map (K = 0).
pub const DUAL_CANDIDATES: [usize; 2] = [2, 5];

/// Short names of the 7 candidates, in order (see the module table).
pub const CANDIDATE_NAMES: [&str; CANDIDATE_COUNT] = [
    "collinear, before",
    "collinear, after",
    "perpendicular, tail −",
    "perpendicular, tail +",
    "perpendicular, head −",
    "perpendicular, head +",
    "self",
];

/// For every link ℓ (in link order) the indices of its 7 candidate links: `table[7ℓ + k]`.
pub fn candidate_table(size: usize) -> Vec<u32> {
    let mut table = Vec::with_capacity(link_count(size) * CANDIDATE_COUNT);
    let side = size as isize;
    for orientation in [Orientation::Horizontal, Orientation::Vertical] {
        let (perpendicular, (dx, dy), (nx, ny)) = match orientation {
            Orientation::Horizontal => (Orientation::Vertical, (1, 0), (0, -1)),
            Orientation::Vertical => (Orientation::Horizontal, (0, 1), (-1, 0)),
        };
        for y in 0..side {
            for x in 0..side {
                let (hx, hy) = (x + dx, y + dy);
                let candidates = [
                    link_index(size, orientation, x - dx, y - dy),
                    link_index(size, orientation, hx, hy),
                    link_index(size, perpendicular, x + nx, y + ny),
                    link_index(size, perpendicular, x, y),
                    link_index(size, perpendicular, hx + nx, hy + ny),
                    link_index(size, perpendicular, hx, hy),
                    link_index(size, orientation, x, y),
                ];
                // 2L² links fit in u32 for every size the duality parameters accept.
                table.extend(candidates.map(|c| c as u32));
            }
        }
    }
    table
}

/// The map parameters ψ = (e, w, b).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MapParameters {
    /// Attention logits e, one per candidate.
    pub logits: [f64; CANDIDATE_COUNT],
    /// Slope w of the affine output.
    pub weight: f64,
    /// Offset b of the affine output.
    pub bias: f64,
}

impl MapParameters {
    /// Uniform attention (e = 0) with slope `weight` and offset `bias`.
    pub fn new(weight: f64, bias: f64) -> Self {
        Self {
            logits: [0.0; CANDIDATE_COUNT],
            weight,
            bias,
        }
    }

    /// The noise-free attention softmax(e/τ) at temperature `tau`.
    pub fn attention(&self, tau: f64) -> [f64; CANDIDATE_COUNT] {
        softmax(&self.logits.map(|e| e / tau))
    }

    /// The Gumbel-softmax attention softmax((e + noise)/τ) of one step.
    pub fn attention_with_noise(
        &self,
        noise: &[f64; CANDIDATE_COUNT],
        tau: f64,
    ) -> [f64; CANDIDATE_COUNT] {
        softmax(&std::array::from_fn(|k| (self.logits[k] + noise[k]) / tau))
    }

    /// The attention softmax(e) that the penalty reads (τ = 1).
    pub fn penalty_attention(&self) -> [f64; CANDIDATE_COUNT] {
        softmax(&self.logits)
    }

    /// ψ as a flat vector (e₀..e₆, w, b) for the optimiser.
    pub fn to_vec(&self) -> Vec<f64> {
        let mut v = self.logits.to_vec();
        v.push(self.weight);
        v.push(self.bias);
        v
    }

    /// The inverse of [`MapParameters::to_vec`]; `values` must hold 9 numbers.
    pub fn from_slice(values: &[f64]) -> Result<Self, ComputeError> {
        if values.len() != CANDIDATE_COUNT + 2 {
            return Err(ComputeError::Numerical(format!(
                "map parameters need {} values, got {}",
                CANDIDATE_COUNT + 2,
                values.len()
            )));
        }
        let mut logits = [0.0; CANDIDATE_COUNT];
        logits.copy_from_slice(&values[..CANDIDATE_COUNT]);
        Ok(Self {
            logits,
            weight: values[CANDIDATE_COUNT],
            bias: values[CANDIDATE_COUNT + 1],
        })
    }
}

/// Numerically stable softmax of a short vector.
pub fn softmax<const N: usize>(values: &[f64; N]) -> [f64; N] {
    let top = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exp = values.map(|v| (v - top).exp());
    let total: f64 = exp.iter().sum();
    exp.map(|v| v / total)
}

/// One draw of 7 independent standard Gumbel variables (the Gumbel-softmax noise).
pub fn gumbel_noise(rng: &mut impl Rng) -> Result<[f64; CANDIDATE_COUNT], ComputeError> {
    let gumbel = Gumbel::new(0.0, 1.0)
        .map_err(|error| ComputeError::Numerical(format!("Gumbel distribution: {error}")))?;
    let mut noise = [0.0; CANDIDATE_COUNT];
    for slot in &mut noise {
        *slot = gumbel.sample(rng);
    }
    Ok(noise)
}

/// The map applied in plain f64 to one field of dual link values with a fixed attention.
pub fn apply_map(
    dual_links: &LinkField,
    table: &[u32],
    attention: &[f64; CANDIDATE_COUNT],
    weight: f64,
    bias: f64,
) -> Result<LinkField, ComputeError> {
    let values = dual_links.values();
    if table.len() != values.len() * CANDIDATE_COUNT {
        return Err(ComputeError::invalid(
            "links",
            "the candidate table was built for another lattice size",
        ));
    }
    let mapped = table
        .chunks_exact(CANDIDATE_COUNT)
        .map(|candidates| {
            let x: f64 = candidates
                .iter()
                .zip(attention)
                .map(|(&c, a)| a * values[c as usize])
                .sum();
            weight * x + bias
        })
        .collect();
    LinkField::from_values(dual_links.size(), mapped)
}

/// Number of sign patterns of the 7 candidates, 2⁷.
pub const PATTERN_COUNT: usize = 1 << CANDIDATE_COUNT;

/// The ±1 value of candidate k in sign pattern p (bit k set = +1).
fn pattern_sign(pattern: usize, k: usize) -> f64 {
    if pattern >> k & 1 == 1 { 1.0 } else { -1.0 }
}

/// The four sign patterns (edges B, T, W, E) of one plaquette, packed 7 bits each.
type Quad = u32;

fn unpack(quad: Quad) -> [usize; 4] {
    [0, 1, 2, 3].map(|edge| (quad >> (7 * edge) & 0x7f) as usize)
}

/// A fixed batch of dual samples prepared for the map.
///
/// On spin samples the 7 candidates of a link are ±1, so a link's mapped value depends only
/// on its 7-bit sign pattern p: ô(p) = w·Σ_k a_k s_k(p) + b, a 128-entry table. A mask
/// product on the plaquette at one anchor then depends only on the four patterns of the
/// plaquette's edges B, T, W, E. The batch keeps the distinct pattern quadruples with their
/// frequencies, so the batch mean ⟨F_m(ô)⟩ (all the loss needs) is a weighted sum over
/// distinct quadruples; backpropagation flows through the gathers into the table and on to
/// (e, w, b). The function is exactly the map of the module docs; only the bookkeeping is
/// compressed. Per-sample correlators (for the coupling gradient) are summed on the host.
#[derive(Clone, Debug)]
pub struct DualBatch {
    /// Pattern of edge B, T, W, E of every distinct quadruple, u32 tensors of length U.
    unique_patterns: [Tensor; 4],
    /// Frequency of every distinct quadruple over all samples and anchors (sums to 1).
    unique_weights: Tensor,
    /// Frequencies within each sample group (rows sum to 1), shape (G, U); `None` for G < 2.
    group_weights: Option<Tensor>,
    /// Each group's share n_g/N of the samples.
    group_fractions: Vec<f64>,
    /// The samples of each group.
    groups: Vec<Range<usize>>,
    /// The distinct quadruples on the host, ascending.
    host_unique: Vec<Quad>,
    /// Their frequencies on the host.
    host_weights: Vec<f64>,
    /// For every (sample, anchor), the index of its quadruple in `host_unique`.
    anchor_quads: Vec<u32>,
    samples: usize,
    size: usize,
}

impl DualBatch {
    /// The candidate patterns of every link of every configuration (all of side `size`).
    ///
    /// `group_sizes` splits the samples, in order, into independent groups (the trainer uses
    /// one group per Markov chain) for the unbiased loss; an empty slice means one group.
    pub fn new(
        configs: &[SpinConfig],
        size: usize,
        table: &[u32],
        group_sizes: &[usize],
        device: &Device,
    ) -> Result<Self, ComputeError> {
        let links = link_count(size);
        if configs.is_empty() {
            return Err(ComputeError::invalid(
                "samples_per_step",
                "at least one dual sample is needed",
            ));
        }
        if table.len() != links * CANDIDATE_COUNT {
            return Err(ComputeError::invalid(
                "size",
                "the candidate table was built for another lattice size",
            ));
        }
        let n = configs.len();
        let quads = plaquette_quads(configs, size, table)?;
        let mut host_unique = quads.clone();
        host_unique.sort_unstable();
        host_unique.dedup();
        let group_sizes: Vec<usize> = if group_sizes.is_empty() {
            vec![n]
        } else {
            group_sizes.to_vec()
        };
        if group_sizes.iter().sum::<usize>() != n || group_sizes.contains(&0) {
            return Err(ComputeError::invalid(
                "chains",
                format!("sample groups {group_sizes:?} do not partition {n} samples"),
            ));
        }
        let mut groups = Vec::with_capacity(group_sizes.len());
        let mut start = 0;
        for &len in &group_sizes {
            groups.push(start..start + len);
            start += len;
        }
        let anchors_per_sample = size * size;
        let mut counts = vec![0_u64; host_unique.len()];
        let mut group_counts = vec![vec![0_u64; host_unique.len()]; groups.len()];
        let mut anchor_quads = Vec::with_capacity(quads.len());
        let mut group = 0;
        for (position, quad) in quads.iter().enumerate() {
            while position / anchors_per_sample >= groups[group].end {
                group += 1;
            }
            // Always found: the list holds every quadruple, sorted and deduplicated.
            let index = host_unique.binary_search(quad).unwrap_or(0);
            counts[index] += 1;
            group_counts[group][index] += 1;
            anchor_quads.push(index as u32);
        }
        Self::from_parts(
            host_unique,
            &counts,
            &group_counts,
            groups,
            anchor_quads,
            size,
            device,
        )
    }

    /// A batch from the distinct quadruples (ascending), their counts over all samples and
    /// within every group, the groups, and the per-anchor indices (empty for a pooled batch).
    fn from_parts(
        host_unique: Vec<Quad>,
        counts: &[u64],
        group_counts: &[Vec<u64>],
        groups: Vec<Range<usize>>,
        anchor_quads: Vec<u32>,
        size: usize,
        device: &Device,
    ) -> Result<Self, ComputeError> {
        let n = groups.last().map_or(0, |g| g.end);
        let normalise = |counts: &[u64]| -> Vec<f64> {
            let total: u64 = counts.iter().sum();
            let scale = 1.0 / total.max(1) as f64;
            counts.iter().map(|&c| c as f64 * scale).collect()
        };
        let host_weights = normalise(counts);
        let group_weights = if groups.len() >= 2 {
            let rows: Vec<f64> = group_counts.iter().flat_map(|c| normalise(c)).collect();
            Some(Tensor::from_vec(
                rows,
                (groups.len(), host_unique.len()),
                device,
            )?)
        } else {
            None
        };
        let group_fractions: Vec<f64> = groups.iter().map(|g| g.len() as f64 / n as f64).collect();
        let mut tensors = Vec::with_capacity(4);
        for edge in 0..4 {
            let patterns: Vec<u32> = host_unique
                .iter()
                .map(|&q| q >> (7 * edge) & 0x7f)
                .collect();
            tensors.push(Tensor::from_vec(patterns, host_unique.len(), device)?);
        }
        let unique_patterns: [Tensor; 4] = tensors
            .try_into()
            .map_err(|_| ComputeError::Numerical("expected four edge tensors".to_owned()))?;
        let unique_weights = Tensor::from_slice(&host_weights, host_weights.len(), device)?;
        Ok(Self {
            unique_patterns,
            unique_weights,
            group_weights,
            group_fractions,
            groups,
            host_unique,
            host_weights,
            anchor_quads,
            samples: n,
            size,
        })
    }

    /// Number of samples N.
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Lattice side L.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The sample groups of the unbiased estimator.
    pub fn groups(&self) -> &[Range<usize>] {
        &self.groups
    }

    /// Number of distinct pattern quadruples in the batch.
    pub fn distinct_plaquettes(&self) -> usize {
        self.host_unique.len()
    }

    /// Mean over all links of the batch of the mixed value x = Σ_k a_k v_k.
    pub fn mean_mixed_link(&self, attention: &[f64; CANDIDATE_COUNT]) -> f64 {
        let mixed: [f64; PATTERN_COUNT] = std::array::from_fn(|p| {
            (0..CANDIDATE_COUNT)
                .map(|k| attention[k] * pattern_sign(p, k))
                .sum()
        });
        // Every link is the bottom (horizontal) or left (vertical) edge of exactly one anchor.
        let total: f64 = self
            .host_unique
            .iter()
            .zip(&self.host_weights)
            .map(|(&q, &f)| {
                let [b, _, w, _] = unpack(q);
                f * (mixed[b] + mixed[w])
            })
            .sum();
        0.5 * total
    }

    /// Per-sample correlators F_m(ô) for the mapped value `mapped[p]` of every pattern.
    pub fn per_sample_correlators(
        &self,
        mapped: &[f64; PATTERN_COUNT],
    ) -> Vec<[f64; CORRELATOR_COUNT]> {
        let unique_products: Vec<[f64; CORRELATOR_COUNT]> = self
            .host_unique
            .iter()
            .map(|&q| {
                let [b, t, w, e] = unpack(q).map(|p| mapped[p]);
                mask_products_f64(b, t, w, e)
            })
            .collect();
        let anchors = self.size * self.size;
        let scale = 1.0 / anchors as f64;
        self.anchor_quads
            .chunks_exact(anchors)
            .map(|sample| {
                let mut sums = [0.0; CORRELATOR_COUNT];
                for &index in sample {
                    for (sum, product) in sums.iter_mut().zip(&unique_products[index as usize]) {
                        *sum += product;
                    }
                }
                sums.map(|s| s * scale)
            })
            .collect()
    }

    /// ∂⟨F_m(ô)⟩/∂w and ∂⟨F_m(ô)⟩/∂b for the mixed values `mixed[p]` = Σ_k a_k s_k(p) of
    /// every pattern, at slope `weight` and offset `bias`. With ô = w·x + b, for a mask with
    /// links j: ∂Π_j ô_j/∂w = Σ_j x_j Π_{i≠j} ô_i and ∂Π_j ô_j/∂b = Σ_j Π_{i≠j} ô_i.
    pub fn affine_jacobian(
        &self,
        mixed: &[f64; PATTERN_COUNT],
        weight: f64,
        bias: f64,
    ) -> [[f64; 2]; CORRELATOR_COUNT] {
        let mask_edges: Vec<Vec<usize>> = MASKS
            .iter()
            .map(|mask| {
                mask.iter()
                    .map(|offset| {
                        PLAQUETTE_EDGES
                            .iter()
                            .position(|edge| edge == offset)
                            .unwrap_or(0)
                    })
                    .collect()
            })
            .collect();
        let mapped = mixed.map(|x| weight * x + bias);
        let mut sums = [[0.0_f64; 2]; CORRELATOR_COUNT];
        for (&quad, &frequency) in self.host_unique.iter().zip(&self.host_weights) {
            let patterns = unpack(quad);
            let x = patterns.map(|p| mixed[p]);
            let o = patterns.map(|p| mapped[p]);
            for (sum, edges) in sums.iter_mut().zip(&mask_edges) {
                for (j, &edge) in edges.iter().enumerate() {
                    let mut others = frequency;
                    for (i, &other) in edges.iter().enumerate() {
                        if i != j {
                            others *= o[other];
                        }
                    }
                    sum[0] += x[edge] * others;
                    sum[1] += others;
                }
            }
        }
        sums
    }
}

/// The pattern quadruple of every anchor of every configuration, sample by sample (anchors
/// row-major). `table` must be the candidate table of side `size`.
fn plaquette_quads(
    configs: &[SpinConfig],
    size: usize,
    table: &[u32],
) -> Result<Vec<Quad>, ComputeError> {
    let links = link_count(size);
    if table.len() != links * CANDIDATE_COUNT {
        return Err(ComputeError::invalid(
            "size",
            "the candidate table was built for another lattice size",
        ));
    }
    let anchors = anchor_edges(size);
    let mut quads: Vec<Quad> = Vec::with_capacity(configs.len() * anchors.len());
    let mut link_patterns = vec![0_u32; links];
    for config in configs {
        if config.size() != size {
            return Err(ComputeError::invalid(
                "size",
                format!("a sample has L = {}, expected {size}", config.size()),
            ));
        }
        let field = LinkField::from_spins(config);
        let values = field.values();
        for (pattern, candidates) in link_patterns
            .iter_mut()
            .zip(table.chunks_exact(CANDIDATE_COUNT))
        {
            *pattern = candidates
                .iter()
                .enumerate()
                .map(|(k, &c)| u32::from(values[c as usize] > 0.0) << k)
                .sum();
        }
        for anchor in &anchors {
            let quad = anchor
                .iter()
                .enumerate()
                .map(|(edge, &link)| link_patterns[link] << (7 * edge))
                .sum();
            quads.push(quad);
        }
    }
    Ok(quads)
}

/// A growing histogram of the pattern quadruples of samples of one fixed model, for the
/// reverse direction: the given model never changes, so its samples from every step are pooled
/// and mapped together.
///
/// Every quadruple is a function of the 12 spins around one plaquette up to a global flip, so
/// the pool holds at most 2¹¹ distinct entries however many samples it has seen.
#[derive(Clone, Debug)]
pub struct PatternPool {
    size: usize,
    table: Vec<u32>,
    counts: BTreeMap<Quad, u64>,
    samples: usize,
}

impl PatternPool {
    /// An empty pool for side `size`.
    pub fn new(size: usize) -> Result<Self, ComputeError> {
        crate::lattice::validate_size(size)?;
        Ok(Self {
            size,
            table: candidate_table(size),
            counts: BTreeMap::new(),
            samples: 0,
        })
    }

    /// Adds the quadruples of every anchor of `configs` (all of side `size`).
    pub fn add(&mut self, configs: &[SpinConfig]) -> Result<(), ComputeError> {
        for quad in plaquette_quads(configs, self.size, &self.table)? {
            *self.counts.entry(quad).or_insert(0) += 1;
        }
        self.samples += configs.len();
        Ok(())
    }

    /// Number of samples pooled so far.
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Number of distinct quadruples seen so far.
    pub fn distinct_plaquettes(&self) -> usize {
        self.counts.len()
    }

    /// The pool as one batch (one group, no per-sample rows: its
    /// [`DualBatch::per_sample_correlators`] is empty).
    pub fn batch(&self, device: &Device) -> Result<DualBatch, ComputeError> {
        if self.samples == 0 {
            return Err(ComputeError::invalid(
                "samples_per_step",
                "the pool holds no samples yet",
            ));
        }
        let host_unique: Vec<Quad> = self.counts.keys().copied().collect();
        let counts: Vec<u64> = self.counts.values().copied().collect();
        DualBatch::from_parts(
            host_unique,
            &counts,
            std::slice::from_ref(&counts),
            std::iter::once(0..self.samples).collect(),
            Vec::new(),
            self.size,
            device,
        )
    }
}

/// Link indices of the plaquette edges B, T, W, E at every anchor (row-major anchors).
fn anchor_edges(size: usize) -> Vec<[usize; 4]> {
    let side = size as isize;
    let mut anchors = Vec::with_capacity(size * size);
    for y in 0..side {
        for x in 0..side {
            anchors.push(
                PLAQUETTE_EDGES
                    .map(|edge| link_index(size, edge.orientation, x + edge.dx, y + edge.dy)),
            );
        }
    }
    anchors
}

/// Gradient of the loss with respect to ψ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MapGradient {
    /// ∂L/∂e.
    pub logits: [f64; CANDIDATE_COUNT],
    /// ∂L/∂w.
    pub weight: f64,
    /// ∂L/∂b.
    pub bias: f64,
}

impl MapGradient {
    /// The gradient as a flat vector in the order of [`MapParameters::to_vec`].
    pub fn to_vec(&self) -> Vec<f64> {
        let mut v = self.logits.to_vec();
        v.push(self.weight);
        v.push(self.bias);
        v
    }
}

/// What one evaluation of the loss on a batch of dual samples gives.
#[derive(Clone, Debug)]
pub struct MapEvaluation {
    /// L = fit + penalty term.
    pub loss: f64,
    /// The fit term that was optimised (unbiased or plain, see [`MapObjective::evaluate`]).
    pub fit: f64,
    /// (1/13) Σ_m (⟨F_m(ô)⟩ − F̄_m)² on the whole batch (for display; biased by Var/N).
    pub plain_fit: f64,
    /// penalty·softmax(e)₆.
    pub penalty_term: f64,
    /// ⟨F_m(ô)⟩ over the batch.
    pub mapped: [f64; CORRELATOR_COUNT],
    /// F_m(ô) of every sample (for the score-function gradient of the couplings).
    pub per_sample: Vec<[f64; CORRELATOR_COUNT]>,
    /// ∂L/∂ψ when requested.
    pub gradient: Option<MapGradient>,
    /// The mixed value x = Σ_k a_k s_k(p) of every sign pattern p, with this evaluation's
    /// attention.
    pub mixed: [f64; PATTERN_COUNT],
}

/// The loss of the map against fixed target correlators.
#[derive(Clone, Debug)]
pub struct MapObjective {
    /// The ±1 sign of candidate k in pattern p, shape (128, 7).
    signs: Tensor,
    /// The original model's correlators F̄.
    pub target: [f64; CORRELATOR_COUNT],
    /// Weight of the original-frame penalty softmax(e)₆.
    pub penalty: f64,
}

impl MapObjective {
    /// An objective for side `size` on `device`.
    pub fn new(
        size: usize,
        target: [f64; CORRELATOR_COUNT],
        penalty: f64,
        device: &Device,
    ) -> Result<Self, ComputeError> {
        crate::lattice::validate_size(size)?;
        let signs: Vec<f64> = (0..PATTERN_COUNT)
            .flat_map(|p| (0..CANDIDATE_COUNT).map(move |k| pattern_sign(p, k)))
            .collect();
        Ok(Self {
            signs: Tensor::from_vec(signs, (PATTERN_COUNT, CANDIDATE_COUNT), device)?,
            target,
            penalty,
        })
    }

    /// Evaluates L(ψ) on `batch` with attention softmax((e + noise)/τ), and ∂L/∂ψ if
    /// `with_gradient`.
    ///
    /// With `unbiased` and at least two sample groups g (shares w_g, residuals r_g = ⟨F⟩_g − F̄),
    /// the fit term is the U-statistic (1/13) Σ_m Σ_{g≠h} w_g w_h r_{g,m} r_{h,m} / Σ_{g≠h} w_g w_h
    /// = (1/13) Σ_m (r̄_m² − Σ_g w_g² r_{g,m}²)/(1 − Σ_g w_g²): with independent groups it is an
    /// unbiased estimate of (⟨F_m⟩_θ − F̄_m)², whose expectation and gradient carry no Var/N
    /// term (it can dip slightly below zero). Otherwise it is the plain (1/13) Σ_m r̄_m².
    pub fn evaluate(
        &self,
        batch: &DualBatch,
        map: &MapParameters,
        noise: &[f64; CANDIDATE_COUNT],
        tau: f64,
        unbiased: bool,
        with_gradient: bool,
    ) -> Result<MapEvaluation, ComputeError> {
        let device = self.signs.device();
        let logits = Var::from_slice(&map.logits, CANDIDATE_COUNT, device)?;
        let weight = Var::from_slice(&[map.weight], 1, device)?;
        let bias = Var::from_slice(&[map.bias], 1, device)?;
        let noise = Tensor::from_slice(noise, CANDIDATE_COUNT, device)?;
        let attention = softmax_tensor(&logits.as_tensor().add(&noise)?.affine(1.0 / tau, 0.0)?)?;
        // x(p) = Σ_k a_k s_k(p) and ô(p) = w·x(p) + b for all 128 sign patterns.
        let mixed = self
            .signs
            .broadcast_mul(&attention.reshape((1, CANDIDATE_COUNT))?)?
            .sum(1)?;
        let table = mixed
            .broadcast_mul(weight.as_tensor())?
            .broadcast_add(bias.as_tensor())?;
        // ⟨F_m(ô)⟩ = Σ_q frequency(q)·Π_{ℓ∈m} ô(p_ℓ(q)) over the distinct quadruples q.
        let [pb, pt, pw, pe] = &batch.unique_patterns;
        let edges = [
            table.index_select(pb, 0)?,
            table.index_select(pt, 0)?,
            table.index_select(pw, 0)?,
            table.index_select(pe, 0)?,
        ];
        let products = mask_products(&edges)?;
        let weighted_mean = |weights: &Tensor| -> Result<Tensor, ComputeError> {
            let means = products
                .iter()
                .map(|p| p.mul(weights)?.sum_keepdim(0))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Tensor::cat(&means, 0)?)
        };
        let mean = weighted_mean(&batch.unique_weights)?;
        let target = Tensor::from_slice(&self.target, CORRELATOR_COUNT, device)?;
        let fit = match (&batch.group_weights, unbiased) {
            (Some(group_weights), true) => {
                // (G, U)·(U, 13): the mean correlators of every group.
                let stacked = Tensor::stack(&products, 1)?;
                let residuals = group_weights
                    .matmul(&stacked)?
                    .broadcast_sub(&target.reshape((1, CORRELATOR_COUNT))?)?;
                let groups = batch.group_fractions.len();
                let fractions = Tensor::from_slice(&batch.group_fractions, (groups, 1), device)?;
                let squares: Vec<f64> = batch.group_fractions.iter().map(|w| w * w).collect();
                let sum_squares: f64 = squares.iter().sum();
                let squares = Tensor::from_vec(squares, (groups, 1), device)?;
                let mean_residual = residuals.broadcast_mul(&fractions)?.sum(0)?;
                let within = residuals.sqr()?.broadcast_mul(&squares)?.sum(0)?;
                mean_residual
                    .sqr()?
                    .sub(&within)?
                    .affine(1.0 / (1.0 - sum_squares), 0.0)?
                    .mean_all()?
            }
            _ => mean.sub(&target)?.sqr()?.mean_all()?,
        };
        let penalty_term = softmax_tensor(logits.as_tensor())?
            .narrow(0, SELF_CANDIDATE, 1)?
            .sum_all()?
            .affine(self.penalty, 0.0)?;
        let loss = fit.add(&penalty_term)?;
        let gradient = if with_gradient {
            let grads = loss.backward()?;
            let read = |var: &Var| -> Result<Vec<f64>, ComputeError> {
                match grads.get(var.as_tensor()) {
                    Some(g) => Ok(g.flatten_all()?.to_vec1::<f64>()?),
                    None => Err(ComputeError::Numerical(
                        "the map loss has no gradient for a parameter".to_owned(),
                    )),
                }
            };
            let logits_grad = read(&logits)?;
            let mut logits_array = [0.0; CANDIDATE_COUNT];
            logits_array.copy_from_slice(&logits_grad);
            Some(MapGradient {
                logits: logits_array,
                weight: read(&weight)?[0],
                bias: read(&bias)?[0],
            })
        } else {
            None
        };
        let mut mixed_values = [0.0; PATTERN_COUNT];
        mixed_values.copy_from_slice(&mixed.to_vec1::<f64>()?);
        let mut table_values = [0.0; PATTERN_COUNT];
        table_values.copy_from_slice(&table.to_vec1::<f64>()?);
        let per_sample = batch.per_sample_correlators(&table_values);
        let mut mapped_mean = [0.0; CORRELATOR_COUNT];
        mapped_mean.copy_from_slice(&mean.to_vec1::<f64>()?);
        let loss_value = loss.to_scalar::<f64>()?;
        if !loss_value.is_finite() {
            return Err(ComputeError::Numerical(format!(
                "the duality loss is {loss_value} (w = {}, b = {})",
                map.weight, map.bias
            )));
        }
        let plain_fit = mapped_mean
            .iter()
            .zip(&self.target)
            .map(|(f, t)| (f - t).powi(2))
            .sum::<f64>()
            / CORRELATOR_COUNT as f64;
        Ok(MapEvaluation {
            loss: loss_value,
            fit: fit.to_scalar::<f64>()?,
            plain_fit,
            penalty_term: penalty_term.to_scalar::<f64>()?,
            mapped: mapped_mean,
            per_sample,
            gradient,
            mixed: mixed_values,
        })
    }
}

/// Softmax over a 1-D tensor; the shift by the maximum is detached (softmax is shift-invariant).
fn softmax_tensor(values: &Tensor) -> Result<Tensor, ComputeError> {
    let top = values.max_keepdim(0)?.detach();
    let exp = values.broadcast_sub(&top)?.exp()?;
    let total = exp.sum_keepdim(0)?;
    Ok(exp.broadcast_div(&total)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::couplings::Couplings;
    use crate::links::link_correlators;
    use crate::single_spin::sample_configs;
    use benchtop_compute::CancelToken;

    #[test]
    fn candidates_touch_the_link_and_follow_the_table() {
        let size = 8;
        let table = candidate_table(size);
        assert_eq!(table.len(), 128 * 7);
        let h = link_index(size, Orientation::Horizontal, 3, 0);
        let expected_h = [
            link_index(size, Orientation::Horizontal, 2, 0),
            link_index(size, Orientation::Horizontal, 4, 0),
            link_index(size, Orientation::Vertical, 3, -1),
            link_index(size, Orientation::Vertical, 3, 0),
            link_index(size, Orientation::Vertical, 4, -1),
            link_index(size, Orientation::Vertical, 4, 0),
            h,
        ];
        let got: Vec<usize> = table[7 * h..7 * h + 7]
            .iter()
            .map(|&c| c as usize)
            .collect();
        assert_eq!(got, expected_h);
        let v = link_index(size, Orientation::Vertical, 0, 5);
        let expected_v = [
            link_index(size, Orientation::Vertical, 0, 4),
            link_index(size, Orientation::Vertical, 0, 6),
            link_index(size, Orientation::Horizontal, -1, 5),
            link_index(size, Orientation::Horizontal, 0, 5),
            link_index(size, Orientation::Horizontal, -1, 6),
            link_index(size, Orientation::Horizontal, 0, 6),
            v,
        ];
        let got: Vec<usize> = table[7 * v..7 * v + 7]
            .iter()
            .map(|&c| c as usize)
            .collect();
        assert_eq!(got, expected_v);
    }

    #[test]
    fn pooled_batch_equals_a_batch_of_all_samples() {
        let device = Device::Cpu;
        let size = 6;
        let table = candidate_table(size);
        let cancel = CancelToken::new();
        let first = sample_configs(size, Couplings::ising(0.6), 5, 20, 2, 7, 2, &cancel).unwrap();
        let second = sample_configs(size, Couplings::ising(0.6), 4, 20, 2, 8, 2, &cancel).unwrap();
        let mut pool = PatternPool::new(size).unwrap();
        pool.add(&first).unwrap();
        pool.add(&second).unwrap();
        assert_eq!(pool.samples(), 9);
        assert!(pool.distinct_plaquettes() <= 1 << 11);
        let pooled = pool.batch(&device).unwrap();
        let all: Vec<SpinConfig> = first.iter().chain(&second).cloned().collect();
        let direct = DualBatch::new(&all, size, &table, &[], &device).unwrap();
        assert_eq!(pooled.distinct_plaquettes(), direct.distinct_plaquettes());
        let objective = MapObjective::new(size, [0.2; CORRELATOR_COUNT], 0.1, &device).unwrap();
        let map = MapParameters {
            logits: [0.2, -0.1, 0.9, 0.0, 0.1, 0.4, -0.3],
            weight: -1.7,
            bias: 2.1,
        };
        let noise = [0.0; CANDIDATE_COUNT];
        let a = objective
            .evaluate(&pooled, &map, &noise, 0.5, false, true)
            .unwrap();
        let b = objective
            .evaluate(&direct, &map, &noise, 0.5, false, true)
            .unwrap();
        for m in 0..CORRELATOR_COUNT {
            assert!((a.mapped[m] - b.mapped[m]).abs() < 1e-12);
        }
        assert!((a.loss - b.loss).abs() < 1e-12);
        let (ga, gb) = (a.gradient.unwrap().to_vec(), b.gradient.unwrap().to_vec());
        for (x, y) in ga.iter().zip(&gb) {
            assert!((x - y).abs() < 1e-10);
        }
        assert!(a.per_sample.is_empty() && b.per_sample.len() == 9);
        assert!(PatternPool::new(size).unwrap().batch(&device).is_err());
    }

    #[test]
    fn dual_candidates_are_translations_of_each_other() {
        // Candidate 5 of every link is candidate 2 of the link one step up and right.
        let size = 6;
        let table = candidate_table(size);
        for orientation in [Orientation::Horizontal, Orientation::Vertical] {
            for y in 0..6 {
                for x in 0..6 {
                    let here = link_index(size, orientation, x, y);
                    let there = link_index(size, orientation, x + 1, y + 1);
                    let c5 = table[7 * here + 5] as usize;
                    let c2 = table[7 * there + 2] as usize;
                    assert_eq!(c5, c2);
                }
            }
        }
    }

    #[test]
    fn affine_jacobian_matches_finite_differences() {
        let device = Device::Cpu;
        let size = 6;
        let table = candidate_table(size);
        let configs = sample_configs(
            size,
            Couplings::ising(0.4),
            4,
            20,
            2,
            3,
            2,
            &CancelToken::new(),
        )
        .unwrap();
        let batch = DualBatch::new(&configs, size, &table, &[], &device).unwrap();
        let objective = MapObjective::new(size, [0.0; CORRELATOR_COUNT], 0.1, &device).unwrap();
        let map = MapParameters {
            logits: [0.3, 0.0, 1.2, -0.5, 0.2, 0.7, 0.1],
            weight: -1.1,
            bias: 1.3,
        };
        let noise = [0.0; CANDIDATE_COUNT];
        let evaluation = objective
            .evaluate(&batch, &map, &noise, 0.5, false, false)
            .unwrap();
        let jacobian = batch.affine_jacobian(&evaluation.mixed, map.weight, map.bias);
        let h = 1e-6;
        for (column, (dw, db)) in [(0, (h, 0.0)), (1, (0.0, h))] {
            let shifted = |sign: f64| {
                let mut m = map;
                m.weight += sign * dw;
                m.bias += sign * db;
                objective
                    .evaluate(&batch, &m, &noise, 0.5, false, false)
                    .unwrap()
                    .mapped
            };
            let (plus, minus) = (shifted(1.0), shifted(-1.0));
            for m in 0..CORRELATOR_COUNT {
                let numeric = (plus[m] - minus[m]) / (2.0 * h);
                assert!(
                    (numeric - jacobian[m][column]).abs() < 1e-6 * (1.0 + numeric.abs()),
                    "mask {m}, column {column}: {numeric} vs {}",
                    jacobian[m][column]
                );
            }
        }
        // The plaquette mask has four links: its b-derivative is not trivially zero.
        assert!(jacobian[12][1].abs() > 0.1);
    }

    #[test]
    fn candle_map_equals_f64_map_and_gradient_matches_finite_differences() {
        let device = Device::Cpu;
        let size = 8;
        let table = candidate_table(size);
        let configs = sample_configs(
            size,
            Couplings::ising(0.5),
            5,
            20,
            2,
            1,
            2,
            &CancelToken::new(),
        )
        .unwrap();
        // Two groups (the chains): samples 0..3 and 3..5.
        let batch = DualBatch::new(&configs, size, &table, &[3, 2], &device).unwrap();
        let target = [0.3; CORRELATOR_COUNT];
        let objective = MapObjective::new(size, target, 0.1, &device).unwrap();
        let map = MapParameters {
            logits: [0.1, -0.2, 0.5, 0.0, 0.3, -0.1, 0.2],
            weight: -0.7,
            bias: 0.9,
        };
        let noise = [0.05, -0.3, 0.2, 0.0, 0.1, 0.4, -0.2];
        let tau = 0.5;
        let penalty = 0.1 * map.penalty_attention()[SELF_CANDIDATE];
        // f64 reference: per-sample correlators of the mapped links.
        let attention = softmax(&std::array::from_fn(|k| (map.logits[k] + noise[k]) / tau));
        let rows: Vec<[f64; CORRELATOR_COUNT]> = configs
            .iter()
            .map(|config| {
                let mapped = apply_map(
                    &LinkField::from_spins(config),
                    &table,
                    &attention,
                    map.weight,
                    map.bias,
                )
                .unwrap();
                link_correlators(&mapped)
            })
            .collect();
        let group_mean = |range: std::ops::Range<usize>| -> [f64; CORRELATOR_COUNT] {
            let n = range.len() as f64;
            std::array::from_fn(|m| rows[range.clone()].iter().map(|r| r[m]).sum::<f64>() / n)
        };
        let (all, a, b) = (group_mean(0..5), group_mean(0..3), group_mean(3..5));
        let plain: f64 = all.iter().map(|f| (f - 0.3).powi(2)).sum::<f64>() / 13.0;
        // Two groups: the U-statistic is the cross product of the group residuals.
        let cross: f64 = (0..CORRELATOR_COUNT)
            .map(|m| (a[m] - 0.3) * (b[m] - 0.3))
            .sum::<f64>()
            / 13.0;
        for (unbiased, expected) in [(false, plain), (true, cross)] {
            let evaluation = objective
                .evaluate(&batch, &map, &noise, tau, unbiased, true)
                .unwrap();
            for (row, reference) in evaluation.per_sample.iter().zip(&rows) {
                for m in 0..CORRELATOR_COUNT {
                    assert!((row[m] - reference[m]).abs() < 1e-12);
                }
            }
            assert!((evaluation.loss - expected - penalty).abs() < 1e-12);
            assert!((evaluation.plain_fit - plain).abs() < 1e-12);
            // Central finite differences of the loss in every parameter.
            let gradient = evaluation.gradient.unwrap().to_vec();
            let base = map.to_vec();
            for (i, analytic) in gradient.iter().enumerate() {
                let h = 1e-5;
                let loss = |shift: f64| {
                    let mut v = base.clone();
                    v[i] += shift;
                    let m = MapParameters::from_slice(&v).unwrap();
                    objective
                        .evaluate(&batch, &m, &noise, tau, unbiased, false)
                        .unwrap()
                        .loss
                };
                let numeric = (loss(h) - loss(-h)) / (2.0 * h);
                assert!(
                    (numeric - analytic).abs() < 1e-6 * (1.0 + analytic.abs()),
                    "unbiased {unbiased}, parameter {i}: {numeric} vs {analytic}"
                );
            }
        }
        assert!(DualBatch::new(&configs, size, &table, &[3, 3], &device).is_err());
    }
}
