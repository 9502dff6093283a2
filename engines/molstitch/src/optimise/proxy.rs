//! Rank proxies: an ensemble of M small scorers, each trained to rank molecules by its own
//! fixed preference p_m ~ Dirichlet(3·1) over the objectives.
//!
//! Deviation from the paper (documented in the module docs too): each proxy is an MLP on Morgan
//! (r = 2, 2048-bit) fingerprints, 2048 → hidden → ReLU → 1, instead of a GRU language model
//! whose likelihood is the score. The loss is the paper's pairwise BCE:
//! BCE(σ(s(x_a) − s(x_b)), 1[p_m·f(x_a) > p_m·f(x_b)]).

use benchtop_compute::ComputeError;
use benchtop_compute::rng::{EngineRng, derive_seed, seeded};
use candle_core::{DType, Device, Tensor, Var};
use candle_nn::{AdamW, Linear, Module as _, Optimizer as _, ParamsAdamW, VarBuilder, VarMap};
use rand_distr::{Distribution as _, Uniform};

use crate::objectives::MORGAN_BITS;
use crate::pairing::{derangement_pairs, preference_scores, symmetric_dirichlet};
use benchtop_chem::mol::Fingerprint;

/// Concentration of the proxies' preference draws Dir(3·1) (paper).
pub const PROXY_DIRICHLET_ALPHA: f64 = 3.0;
/// Adam steps on each round's pairs.
pub const PROXY_STEPS_PER_ROUND: usize = 5;
/// Weight decay of the proxies' Adam (paper: 1e-4).
pub const PROXY_WEIGHT_DECAY: f64 = 1e-4;

/// A batch of fingerprints as an (N, bits) f32 tensor of 0/1.
pub fn fingerprint_matrix(fps: &[Fingerprint]) -> Result<Tensor, ComputeError> {
    let bits = MORGAN_BITS as usize;
    let mut data = vec![0.0f32; fps.len() * bits];
    for (row, fp) in fps.iter().enumerate() {
        for i in 0..MORGAN_BITS {
            if fp.get(i) {
                data[row * bits + i as usize] = 1.0;
            }
        }
    }
    Ok(Tensor::from_vec(data, (fps.len(), bits), &Device::Cpu)?)
}

/// One rank proxy: its preference and its MLP.
struct Proxy {
    preference: Vec<f64>,
    hidden: Linear,
    out: Linear,
    optimiser: AdamW,
}

impl Proxy {
    fn scores(&self, x: &Tensor) -> Result<Tensor, ComputeError> {
        let h = self.hidden.forward(x)?.relu()?;
        Ok(self.out.forward(&h)?.squeeze(1)?)
    }
}

/// The ensemble of rank proxies.
pub struct RankProxies {
    proxies: Vec<Proxy>,
}

impl std::fmt::Debug for RankProxies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RankProxies")
            .field("preferences", &self.preferences())
            .finish_non_exhaustive()
    }
}

/// Labels 1[p·f_a > p·f_b] of pairs, skipping ties; returns (a, b, label) triples.
fn labelled_pairs(
    pairs: &[(usize, usize)],
    values: &[Vec<f64>],
    preference: &[f64],
) -> Vec<(usize, usize, f32)> {
    let score = |i: usize| preference_scores(&values[i..=i], preference)[0];
    pairs
        .iter()
        .filter_map(|&(a, b)| {
            let (sa, sb) = (score(a), score(b));
            (sa != sb).then_some((a, b, if sa > sb { 1.0 } else { 0.0 }))
        })
        .collect()
}

impl RankProxies {
    /// `n` proxies over `n_objectives` objectives with `hidden` units, initialised from `seed`
    /// (weights ~ U(±1/√fan_in)); preferences drawn from Dir(3·1).
    pub fn new(
        n: usize,
        n_objectives: usize,
        hidden: usize,
        learning_rate: f64,
        seed: u64,
    ) -> Result<Self, ComputeError> {
        let device = Device::Cpu;
        let mut proxies = Vec::with_capacity(n);
        for m in 0..n {
            let mut rng = seeded(derive_seed(seed, m as u64));
            let preference = symmetric_dirichlet(n_objectives, PROXY_DIRICHLET_ALPHA, &mut rng)?;
            let varmap = VarMap::new();
            let vb = VarBuilder::from_varmap(&varmap, DType::F32, &device);
            let hidden_layer = candle_nn::linear(MORGAN_BITS as usize, hidden, vb.pp("hidden"))?;
            let out = candle_nn::linear(hidden, 1, vb.pp("out"))?;
            let mut named: Vec<(String, Var)> = varmap
                .data()
                .lock()
                .map_err(|_| ComputeError::Numerical("proxy weights lock poisoned".into()))?
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            named.sort_by(|a, b| a.0.cmp(&b.0));
            for (name, var) in &named {
                let fan_in = if name.starts_with("hidden") {
                    MORGAN_BITS as f32
                } else {
                    hidden as f32
                };
                let bound = 1.0 / fan_in.sqrt();
                let uniform = Uniform::new_inclusive(-bound, bound)
                    .map_err(|e| ComputeError::Numerical(format!("initialiser: {e}")))?;
                let values: Vec<f32> = (0..var.elem_count())
                    .map(|_| uniform.sample(&mut rng))
                    .collect();
                var.set(&Tensor::from_vec(values, var.shape(), &device)?)?;
            }
            let params = ParamsAdamW {
                lr: learning_rate,
                weight_decay: PROXY_WEIGHT_DECAY,
                ..ParamsAdamW::default()
            };
            let optimiser = AdamW::new(named.into_iter().map(|(_, v)| v).collect(), params)?;
            proxies.push(Proxy {
                preference,
                hidden: hidden_layer,
                out,
                optimiser,
            });
        }
        Ok(Self { proxies })
    }

    /// Number of proxies M.
    pub fn len(&self) -> usize {
        self.proxies.len()
    }

    /// Whether the ensemble is empty.
    pub fn is_empty(&self) -> bool {
        self.proxies.is_empty()
    }

    /// Each proxy's preference vector.
    pub fn preferences(&self) -> Vec<Vec<f64>> {
        self.proxies.iter().map(|p| p.preference.clone()).collect()
    }

    /// One training round: `n_molecules` of `train` (indices into `x` and `values`) drawn
    /// uniformly without replacement, paired by a derangement, and [`PROXY_STEPS_PER_ROUND`]
    /// Adam steps of the pairwise BCE per proxy. Returns the mean loss of the last step.
    pub fn train_round(
        &mut self,
        x: &Tensor,
        values: &[Vec<f64>],
        train: &[usize],
        n_molecules: usize,
        rng: &mut EngineRng,
    ) -> Result<f64, ComputeError> {
        use rand::seq::SliceRandom as _;
        let mut chosen = train.to_vec();
        chosen.shuffle(rng);
        chosen.truncate(n_molecules.min(train.len()));
        if chosen.len() < 2 {
            return Err(ComputeError::invalid(
                "proxy_pairs_per_round",
                "need at least two training molecules",
            ));
        }
        let pairs: Vec<(usize, usize)> = derangement_pairs(chosen.len(), rng)?
            .into_iter()
            .map(|(a, b)| (chosen[a], chosen[b]))
            .collect();
        let mut total = 0.0;
        for proxy in &mut self.proxies {
            let labelled = labelled_pairs(&pairs, values, &proxy.preference);
            if labelled.is_empty() {
                continue;
            }
            let ia: Vec<u32> = labelled.iter().map(|p| p.0 as u32).collect();
            let ib: Vec<u32> = labelled.iter().map(|p| p.1 as u32).collect();
            let labels: Vec<f32> = labelled.iter().map(|p| p.2).collect();
            let n = labels.len();
            let xa = x.index_select(&Tensor::from_vec(ia, n, &Device::Cpu)?, 0)?;
            let xb = x.index_select(&Tensor::from_vec(ib, n, &Device::Cpu)?, 0)?;
            let y = Tensor::from_vec(labels, n, &Device::Cpu)?;
            let mut last = 0.0;
            for _ in 0..PROXY_STEPS_PER_ROUND {
                let d = (proxy.scores(&xa)? - proxy.scores(&xb)?)?;
                let loss = candle_nn::loss::binary_cross_entropy_with_logit(&d, &y)?;
                last = f64::from(loss.to_scalar::<f32>()?);
                proxy.optimiser.backward_step(&loss)?;
            }
            total += last;
        }
        Ok(total / self.proxies.len() as f64)
    }

    /// Every proxy's scores of the rows of `x`: one Vec per proxy.
    pub fn scores(&self, x: &Tensor) -> Result<Vec<Vec<f32>>, ComputeError> {
        self.proxies
            .iter()
            .map(|p| Ok(p.scores(x)?.to_vec1::<f32>()?))
            .collect()
    }

    /// Mean over proxies of the fraction of `pairs` (non-tied under the proxy's preference)
    /// whose order the proxy's scores get right.
    pub fn pair_accuracy(
        &self,
        x: &Tensor,
        values: &[Vec<f64>],
        pairs: &[(usize, usize)],
    ) -> Result<f64, ComputeError> {
        let scores = self.scores(x)?;
        let mut total = 0.0;
        for (proxy, s) in self.proxies.iter().zip(&scores) {
            let labelled = labelled_pairs(pairs, values, &proxy.preference);
            if labelled.is_empty() {
                continue;
            }
            let right = labelled
                .iter()
                .filter(|&&(a, b, y)| (s[a] > s[b]) == (y > 0.5))
                .count();
            total += right as f64 / labelled.len() as f64;
        }
        Ok(total / self.proxies.len() as f64)
    }

    /// Majority vote on pairs (a, b) of rows of `x`: `Some(true)` when more than M/2 proxies
    /// score a above b, `Some(false)` when more than M/2 score b above a, `None` otherwise.
    pub fn vote(
        &self,
        x: &Tensor,
        pairs: &[(usize, usize)],
    ) -> Result<Vec<Option<bool>>, ComputeError> {
        let scores = self.scores(x)?;
        let m = self.proxies.len();
        Ok(pairs
            .iter()
            .map(|&(a, b)| {
                let a_wins = scores.iter().filter(|s| s[a] > s[b]).count();
                let b_wins = scores.iter().filter(|s| s[b] > s[a]).count();
                if 2 * a_wins > m {
                    Some(true)
                } else if 2 * b_wins > m {
                    Some(false)
                } else {
                    None
                }
            })
            .collect())
    }
}
