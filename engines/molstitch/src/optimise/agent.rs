//! The generator side: the prior π₀ (pretrained on the offline SMILES, cached on disk), the
//! trajectory-balance fine-tuning of the agent with a learnable log Z, and IPO steps.

use std::path::{Path, PathBuf};

use benchtop_compute::ComputeError;
use benchtop_compute::rng::seeded;
use candle_core::{Device, Tensor, Var};
use candle_nn::Optimizer as _;
use rand::seq::SliceRandom as _;

use crate::pairing::weighted_sample_with_replacement;
use crate::prior::{EpochReport, Prior, PriorConfig};
use crate::vocab::Vocabulary;

/// FNV-1a over bytes, continuing from `hash`.
fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// FNV-1a hash of every string of `corpus` (newline-terminated) followed by `extra`: the key
/// of the weight caches.
pub fn cache_hash(corpus: &[String], extra: &str) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325_u64;
    for s in corpus {
        h = fnv1a(h, s.as_bytes());
        h = fnv1a(h, b"\n");
    }
    fnv1a(h, extra.as_bytes())
}

/// The cache file of a prior pretrained on `corpus` with `config`, `epochs` and `seed`:
/// `prior-<FNV-1a hash of all four, hex>.safetensors` in `dir`.
pub fn prior_cache_path(
    dir: &Path,
    corpus: &[String],
    config: &PriorConfig,
    epochs: usize,
    seed: u64,
) -> PathBuf {
    let h = cache_hash(corpus, &format!("{config:?}|{epochs}|{seed}"));
    dir.join(format!("prior-{h:016x}.safetensors"))
}

/// How the prior (or StitchNet) was obtained.
#[derive(Debug, Clone, PartialEq)]
pub enum PriorSource {
    /// Trained now (per-epoch NLL); `saved` is the cache file written, if any.
    Trained {
        /// Mean NLL of each epoch (nats).
        history: Vec<f64>,
        /// Cache file written.
        saved: Option<PathBuf>,
    },
    /// Read from this cache file.
    Loaded(PathBuf),
}

/// The prior for `corpus` (encoded with `vocab`): loaded from `cache_dir` when a file for the
/// same corpus, configuration, epochs and seed is there, otherwise trained by maximum
/// likelihood and saved there. `on_epoch` sees each training epoch and may stop it with an
/// error. A cache file that cannot be written is not an error (the source says `saved: None`).
pub fn pretrained_prior(
    vocab: &Vocabulary,
    corpus: &[String],
    config: &PriorConfig,
    epochs: usize,
    seed: u64,
    cache_dir: Option<&Path>,
    on_epoch: impl FnMut(&EpochReport) -> Result<(), ComputeError> + Send,
) -> Result<(Prior, PriorSource), ComputeError> {
    let path = cache_dir.map(|d| prior_cache_path(d, corpus, config, epochs, seed));
    if let Some(p) = path.as_ref().filter(|p| p.is_file())
        && let Ok(prior) = Prior::load(vocab.clone(), config.clone(), p)
    {
        return Ok((prior, PriorSource::Loaded(p.clone())));
    }
    let seqs = corpus
        .iter()
        .map(|s| vocab.encode(s).map_err(ComputeError::from))
        .collect::<Result<Vec<_>, _>>()?;
    let mut prior = Prior::new(vocab.clone(), config.clone(), seed)?;
    let history = if epochs > 0 {
        prior.train(&seqs, epochs, seed ^ 0x5eed, on_epoch)?
    } else {
        Vec::new()
    };
    let saved = path.filter(|p| {
        p.parent()
            .is_some_and(|d| std::fs::create_dir_all(d).is_ok())
            && prior.save(p).is_ok()
    });
    Ok((prior, PriorSource::Trained { history, saved }))
}

/// One epoch's trajectory-balance summary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TbEpoch {
    /// Epoch, from 1.
    pub epoch: usize,
    /// Mean TB loss over the epoch's batches (before each update).
    pub loss: f64,
    /// log Z after the epoch.
    pub log_z: f64,
}

/// What trajectory balance fine-tunes on: the sequences, their log-likelihoods log π₀(x) under
/// the frozen prior, their rewards r(x) and the reward scale σ.
#[derive(Clone, Copy, Debug)]
pub struct TbData<'a> {
    /// Token sequences.
    pub seqs: &'a [Vec<u32>],
    /// log π₀(x) of each sequence.
    pub prior_logp: &'a [f64],
    /// Reward r(x) of each sequence.
    pub reward: &'a [f64],
    /// Reward scale σ.
    pub sigma: f64,
}

impl TbData<'_> {
    /// The per-sequence targets log π₀(x) + σ r(x), or an error when the lengths disagree or
    /// there are no sequences.
    fn targets(&self) -> Result<Vec<f64>, ComputeError> {
        let n = self.seqs.len();
        if n == 0 || n != self.prior_logp.len() || n != self.reward.len() {
            return Err(ComputeError::invalid(
                "sequences",
                "need one log π₀ and one reward per sequence, and at least one sequence",
            ));
        }
        Ok(self
            .prior_logp
            .iter()
            .zip(self.reward)
            .map(|(p, r)| p + self.sigma * r)
            .collect())
    }
}

/// Fine-tunes `agent` on `data` by the trajectory-balance loss
/// L = mean (log π_θ(x) + log Z − log π₀(x) − σ r(x))², with a learnable log Z. log Z starts
/// at mean(σ r) (its optimum while π_θ = π₀; the paper starts it at 0.001 with its own
/// learning rate). Mini-batches of the prior's batch size, shuffled from `seed`; `each_batch`
/// runs before every batch (cancel check). Returns the epochs' summaries and the final log Z.
pub fn trajectory_balance(
    agent: &Prior,
    data: TbData<'_>,
    learning_rate: f64,
    epochs: usize,
    seed: u64,
    mut each_batch: impl FnMut() -> Result<(), ComputeError> + Send,
    mut on_epoch: impl FnMut(&TbEpoch) + Send,
) -> Result<(Vec<TbEpoch>, f64), ComputeError> {
    let target = data.targets()?;
    let seqs = data.seqs;
    let init = data.sigma * data.reward.iter().sum::<f64>() / data.reward.len() as f64;
    let log_z = Var::from_tensor(&Tensor::new(&[init as f32], &Device::Cpu)?)?;
    let batch_size = agent.config().batch_size;
    Prior::on_thread(move || {
        let mut adam = agent.adam(learning_rate, vec![log_z.clone()])?;
        let mut rng = seeded(seed);
        let mut order: Vec<usize> = (0..seqs.len()).collect();
        let mut out = Vec::with_capacity(epochs);
        for epoch in 1..=epochs {
            order.shuffle(&mut rng);
            let mut total = 0.0;
            for chunk in order.chunks(batch_size) {
                each_batch()?;
                total +=
                    tb_step(agent, &mut adam, &log_z, chunk, seqs, &target)? * chunk.len() as f64;
            }
            let summary = TbEpoch {
                epoch,
                loss: total / seqs.len() as f64,
                log_z: f64::from(log_z.as_tensor().to_vec1::<f32>()?[0]),
            };
            on_epoch(&summary);
            out.push(summary);
        }
        let z = f64::from(log_z.as_tensor().to_vec1::<f32>()?[0]);
        Ok((out, z))
    })
}

/// One Adam step of the trajectory-balance loss on the sequences `batch` indexes, with
/// `target[i]` = log π₀(xᵢ) + σ r(xᵢ); returns the loss before the step. Runs on the caller's
/// thread (call it inside [`Prior::on_thread`]).
fn tb_step(
    agent: &Prior,
    adam: &mut candle_nn::AdamW,
    log_z: &Var,
    batch: &[usize],
    seqs: &[Vec<u32>],
    target: &[f64],
) -> Result<f64, ComputeError> {
    let inputs: Vec<&[u32]> = batch.iter().map(|&i| seqs[i].as_slice()).collect();
    let goal: Vec<f32> = batch.iter().map(|&i| target[i] as f32).collect();
    let goal = Tensor::from_vec(goal, batch.len(), &Device::Cpu)?;
    let logp = agent.batch_log_likelihoods(&inputs)?;
    let residual = logp.broadcast_add(log_z.as_tensor())?.sub(&goal)?;
    let loss = residual.sqr()?.mean(0)?;
    let value = f64::from(loss.to_scalar::<f32>()?);
    if !value.is_finite() {
        return Err(ComputeError::Numerical(format!(
            "trajectory-balance loss is {value}"
        )));
    }
    adam.backward_step(&loss)?;
    Ok(value)
}

/// Rank-priority weights of a buffer of `n` items sorted best first: 1/(0.01·n + rank), rank
/// from 0 (the replay priority of the paper's experience buffer).
pub fn rank_priority_weights(n: usize) -> Vec<f64> {
    (0..n)
        .map(|rank| 1.0 / (0.01 * n as f64 + rank as f64))
        .collect()
}

/// Experience replay after the trajectory-balance passes: the buffer is the top `buffer`
/// sequences of `data` by reward; each of `rounds` rounds draws `batch` of them with replacement
/// with p ∝ 1/(0.01·N + rank) ([`rank_priority_weights`]) and takes one TB step on them, from
/// log Z = `log_z` (a fresh Adam state; the paper keeps one optimiser). `each_batch` runs
/// before every step (cancel check). Returns each round's loss and the final log Z.
#[allow(clippy::too_many_arguments)]
pub fn tb_replay(
    agent: &Prior,
    data: TbData<'_>,
    learning_rate: f64,
    log_z: f64,
    buffer: usize,
    rounds: usize,
    batch: usize,
    seed: u64,
    mut each_batch: impl FnMut() -> Result<(), ComputeError> + Send,
) -> Result<(Vec<f64>, f64), ComputeError> {
    let target = data.targets()?;
    let (seqs, reward) = (data.seqs, data.reward);
    let mut ranked: Vec<usize> = (0..seqs.len()).collect();
    ranked.sort_by(|&a, &b| reward[b].total_cmp(&reward[a]).then(a.cmp(&b)));
    ranked.truncate(buffer.max(1));
    let weights = rank_priority_weights(ranked.len());
    let log_z = Var::from_tensor(&Tensor::new(&[log_z as f32], &Device::Cpu)?)?;
    Prior::on_thread(move || {
        let mut adam = agent.adam(learning_rate, vec![log_z.clone()])?;
        let mut rng = seeded(seed);
        let mut losses = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            each_batch()?;
            let picks = weighted_sample_with_replacement(&weights, batch.max(1), &mut rng)?;
            let chunk: Vec<usize> = picks.into_iter().map(|k| ranked[k]).collect();
            losses.push(tb_step(agent, &mut adam, &log_z, &chunk, seqs, &target)?);
        }
        let z = f64::from(log_z.as_tensor().to_vec1::<f32>()?[0]);
        Ok((losses, z))
    })
}

/// IPO on `agent` for preference pairs (winner, loser): `steps` Adam steps on
/// L = ½ mean (h − 1/(2β))², h = [log π_θ(x_w) − log π_θ(x_l)] − [log π₀(x_w) − log π₀(x_l)],
/// with the reference margins `ref_margin` = log π₀(x_w) − log π₀(x_l) precomputed. Returns
/// the loss before each step.
pub fn ipo_steps(
    agent: &Prior,
    adam: &mut candle_nn::AdamW,
    winners: &[Vec<u32>],
    losers: &[Vec<u32>],
    ref_margin: &[f64],
    beta: f64,
    steps: usize,
) -> Result<Vec<f64>, ComputeError> {
    if winners.is_empty() || winners.len() != losers.len() || winners.len() != ref_margin.len() {
        return Err(ComputeError::invalid(
            "pairs",
            "need as many winners, losers and reference margins, at least one",
        ));
    }
    if !(beta.is_finite() && beta > 0.0) {
        return Err(ComputeError::invalid("beta", format!("{beta} must be > 0")));
    }
    let target: Vec<f32> = ref_margin
        .iter()
        .map(|m| (m + 1.0 / (2.0 * beta)) as f32)
        .collect();
    Prior::on_thread(|| {
        let target = Tensor::from_vec(target, winners.len(), &Device::Cpu)?;
        let w: Vec<&[u32]> = winners.iter().map(Vec::as_slice).collect();
        let l: Vec<&[u32]> = losers.iter().map(Vec::as_slice).collect();
        let mut losses = Vec::with_capacity(steps);
        for _ in 0..steps {
            let margin = (agent.batch_log_likelihoods(&w)? - agent.batch_log_likelihoods(&l)?)?;
            let loss = ((margin - &target)?.sqr()?.mean(0)? * 0.5)?;
            let value = f64::from(loss.to_scalar::<f32>()?);
            if !value.is_finite() {
                return Err(ComputeError::Numerical(format!("IPO loss is {value}")));
            }
            losses.push(value);
            adam.backward_step(&loss)?;
        }
        Ok(losses)
    })
}
