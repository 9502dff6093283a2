//! The whole pipeline: score the offline set, pretrain (or load) the prior and StitchNet,
//! fine-tune the agent by trajectory balance and experience replay, train the rank proxies,
//! stitch + IPO rounds, and evaluate the three methods under the same oracle budget.

use std::collections::HashSet;
use std::path::Path;

use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError, Progress};
use rand::seq::SliceRandom as _;

use super::agent::{
    PriorSource, TbData, ipo_steps, pretrained_prior, tb_replay, trajectory_balance,
};
use super::baselines::random_crossover;
use super::config::OptimiseConfig;
use super::evaluate::{Candidate, evaluate_method, metrics, score_candidates};
use super::events::OptimiseEvent;
use super::proxy::{RankProxies, fingerprint_matrix};
use super::result::OptimiseResult;
use super::stitch::{
    FragmentCache, StitchOperator, Stitcher, pretrained_stitchnet, priority_stitch,
};
use crate::objectives::{MORGAN_BITS, MORGAN_RADIUS, Objectives, weighted_sum};
use crate::pairing::derangement_pairs;
use crate::vocab::Vocabulary;
use benchtop_chem::mol::Molecule;

/// Name of the MolStitch method in [`OptimiseResult::methods`].
pub const METHOD_MOLSTITCH: &str = "MolStitch";
/// Name of the TB-only agent baseline.
pub const METHOD_FINE_TUNED: &str = "Prior fine-tuned";
/// Name of the random-crossover baseline.
pub const METHOD_CROSSOVER: &str = "BRICS crossover";

/// Seed streams of the run.
mod stream {
    pub const PRIOR: u64 = 1;
    pub const TB: u64 = 2;
    pub const PROXY_INIT: u64 = 3;
    pub const PROXY_SPLIT: u64 = 4;
    pub const PROXY_ROUNDS: u64 = 5;
    pub const STITCH: u64 = 6;
    pub const SAMPLE: u64 = 7;
    pub const CROSSOVER: u64 = 8;
    pub const STITCHNET: u64 = 9;
    pub const REPLAY: u64 = 10;
}

/// Progress fractions at the start of each stage.
const STAGE_START: [(&str, f64); 8] = [
    ("score offline", 0.0),
    ("prior", 0.05),
    ("stitchnet", 0.30),
    ("fine-tune", 0.45),
    ("proxies", 0.55),
    ("stitch", 0.62),
    ("evaluate", 0.85),
    ("done", 1.0),
];

fn chem(e: impl std::fmt::Display) -> ComputeError {
    ComputeError::Numerical(format!("chemistry: {e}"))
}

/// Starts stage `i`: progress at its start fraction and a [`OptimiseEvent::Stage`] event.
fn stage(
    i: usize,
    progress: &Progress,
    on_event: &mut (dyn FnMut(&OptimiseEvent) + Send),
) -> (f64, f64) {
    let (name, start) = STAGE_START[i];
    let end = STAGE_START.get(i + 1).map_or(1.0, |s| s.1);
    progress.set(start, name);
    on_event(&OptimiseEvent::Stage {
        name: name.to_owned(),
    });
    (start, end)
}

/// Runs MolStitch on `offline` (the first `config.offline_size` SMILES are used) and evaluates
/// it against the TB-only agent and random BRICS crossover, for the one seed `config.seed`
/// (`config.seeds` is [`super::seeds::run_seeds`]' business). The prior's and StitchNet's weights
/// are cached in `cache_dir` (keyed by the corpus, their configuration, epochs and seed). `progress` gets
/// fractions per stage; `cancel` is checked between batches and rounds
/// ([`ComputeError::Cancelled`]); `on_event` sees every [`OptimiseEvent`]. Same inputs and
/// seed give the same result.
pub fn run(
    offline: &[String],
    config: &OptimiseConfig,
    cache_dir: Option<&Path>,
    progress: &Progress,
    cancel: &CancelToken,
    on_event: &mut (dyn FnMut(&OptimiseEvent) + Send),
) -> Result<OptimiseResult, ComputeError> {
    config.validate()?;
    let objectives = Objectives::new(&config.objectives).map_err(chem)?;
    let weights = config.normalised_weights();
    let mut notes = Vec::new();
    let mut weight_files = Vec::new();

    // Score the offline set (these are its oracle calls).
    stage(0, progress, on_event);
    let raw: Vec<Candidate> = offline
        .iter()
        .take(config.offline_size)
        .map(|s| Candidate {
            smiles: s.clone(),
            parents: None,
        })
        .collect();
    let (offline_mols, _) = score_candidates(&raw, &objectives);
    if offline_mols.len() < 8 {
        return Err(ComputeError::invalid(
            "offline",
            format!(
                "only {} distinct valid molecules among the first {} SMILES; need at least 8",
                offline_mols.len(),
                raw.len()
            ),
        ));
    }
    if offline_mols.len() < raw.len() {
        notes.push(format!(
            "{} of {} offline SMILES were invalid or duplicates and were dropped",
            raw.len() - offline_mols.len(),
            raw.len()
        ));
    }
    let corpus: Vec<String> = offline_mols.iter().map(|m| m.smiles.clone()).collect();
    let offline_points: Vec<Vec<f64>> = offline_mols.iter().map(|m| m.objectives.clone()).collect();
    let offline_set: HashSet<String> = corpus.iter().cloned().collect();
    let rewards: Vec<f64> = offline_points
        .iter()
        .map(|p| weighted_sum(p, &weights))
        .collect();
    let raw_strings: Vec<String> = raw.iter().map(|c| c.smiles.clone()).collect();
    let offline_metrics = metrics(
        &raw_strings,
        &offline_mols,
        &offline_points,
        &offline_set,
        &weights,
    )?;
    cancel.check()?;

    // The prior π₀.
    let (start, end) = stage(1, progress, on_event);
    let vocab = Vocabulary::from_corpus(&corpus)?;
    let epochs = config.prior_epochs;
    let (prior, source) = {
        let on_event = &mut *on_event;
        pretrained_prior(
            &vocab,
            &corpus,
            &config.prior,
            epochs,
            derive_seed(config.seed, stream::PRIOR),
            cache_dir,
            |r| {
                on_event(&OptimiseEvent::PriorEpoch {
                    epoch: r.epoch,
                    epochs: r.epochs,
                    nll: r.mean_nll_nats,
                });
                progress.set(
                    start + (end - start) * r.epoch as f64 / r.epochs.max(1) as f64,
                    format!("prior epoch {}/{}", r.epoch, r.epochs),
                );
                cancel.check()
            },
        )?
    };
    match &source {
        PriorSource::Loaded(path) => {
            weight_files.push(path.clone());
            on_event(&OptimiseEvent::PriorLoaded {
                path: path.display().to_string(),
            });
            notes.push(format!("prior loaded from cache {}", path.display()));
        }
        PriorSource::Trained { saved, .. } => match saved {
            Some(p) => {
                weight_files.push(p.clone());
                notes.push(format!("prior trained and cached at {}", p.display()));
            }
            None if cache_dir.is_some() => {
                notes.push("prior trained; the cache file could not be written".into());
            }
            None => notes.push("prior trained (no cache directory)".into()),
        },
    }
    cancel.check()?;

    // StitchNet, pretrained on BRICS crossover pairs of the offline set (or cached).
    let (start, end) = stage(2, progress, on_event);
    let stitchnet = match config.stitch_operator {
        StitchOperator::Brics => {
            notes.push("stitch operator: rule-based BRICS (StitchNet not used)".into());
            None
        }
        StitchOperator::StitchNet => {
            let (net, source) = {
                let on_event = &mut *on_event;
                pretrained_stitchnet(
                    &vocab,
                    &corpus,
                    &config.stitchnet,
                    config.stitch_pairs,
                    config.stitch_epochs,
                    derive_seed(config.seed, stream::STITCHNET),
                    cache_dir,
                    &mut |r| {
                        on_event(&OptimiseEvent::StitchNetEpoch {
                            epoch: r.epoch,
                            epochs: r.epochs,
                            nll: r.mean_nll_nats,
                        });
                        progress.set(
                            start + (end - start) * r.epoch as f64 / r.epochs.max(1) as f64,
                            format!("StitchNet epoch {}/{}", r.epoch, r.epochs),
                        );
                        !cancel.is_cancelled()
                    },
                )?
            };
            cancel.check()?;
            match &source {
                PriorSource::Loaded(path) => {
                    weight_files.push(path.clone());
                    on_event(&OptimiseEvent::StitchNetLoaded {
                        path: path.display().to_string(),
                    });
                    notes.push(format!("StitchNet loaded from cache {}", path.display()));
                }
                PriorSource::Trained { saved, .. } => match saved {
                    Some(p) => {
                        weight_files.push(p.clone());
                        notes.push(format!("StitchNet trained and cached at {}", p.display()));
                    }
                    None if cache_dir.is_some() => {
                        notes.push("StitchNet trained; the cache file could not be written".into());
                    }
                    None => notes.push("StitchNet trained (no cache directory)".into()),
                },
            }
            Some(net)
        }
    };
    let stitcher = match &stitchnet {
        Some(net) => Stitcher::Net {
            net,
            temperature: config.stitch_temperature,
        },
        None => Stitcher::Brics,
    };
    cancel.check()?;

    // Trajectory-balance fine-tuning of the agent: the "Prior fine-tuned" baseline.
    let (start, end) = stage(3, progress, on_event);
    let seqs: Vec<Vec<u32>> = corpus
        .iter()
        .map(|s| vocab.encode(s))
        .collect::<Result<_, _>>()?;
    let prior_logp = prior.log_likelihoods(&seqs)?;
    let agent = prior.frozen_copy()?;
    let tb_data = TbData {
        seqs: &seqs,
        prior_logp: &prior_logp,
        reward: &rewards,
        sigma: config.sigma,
    };
    let log_z = {
        let on_event = &mut *on_event;
        let tb_epochs = config.tb_epochs;
        let (_, log_z) = trajectory_balance(
            &agent,
            tb_data,
            config.agent_learning_rate,
            tb_epochs,
            derive_seed(config.seed, stream::TB),
            || cancel.check(),
            |e| {
                on_event(&OptimiseEvent::TbEpoch {
                    epoch: e.epoch,
                    loss: e.loss,
                    log_z: e.log_z,
                });
                progress.set(
                    start + (end - start) * e.epoch as f64 / tb_epochs.max(1) as f64,
                    format!("trajectory balance epoch {}/{}", e.epoch, tb_epochs),
                );
            },
        )?;
        log_z
    };
    if config.replay_rounds > 0 {
        let (losses, _) = tb_replay(
            &agent,
            tb_data,
            config.agent_learning_rate,
            log_z,
            config.replay_buffer,
            config.replay_rounds,
            config.replay_batch,
            derive_seed(config.seed, stream::REPLAY),
            || cancel.check(),
        )?;
        let mean = losses.iter().sum::<f64>() / losses.len().max(1) as f64;
        notes.push(format!(
            "{} experience-replay rounds of {} from the top {}: mean TB loss {mean:.3}",
            config.replay_rounds, config.replay_batch, config.replay_buffer
        ));
    }
    let tb_agent = agent.frozen_copy()?;
    cancel.check()?;

    // Rank proxies on the offline set.
    let (start, end) = stage(4, progress, on_event);
    let fps = corpus
        .iter()
        .map(|s| {
            Molecule::from_smiles(s).and_then(|m| m.morgan_fingerprint(MORGAN_RADIUS, MORGAN_BITS))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(chem)?;
    let x = fingerprint_matrix(&fps)?;
    let mut order: Vec<usize> = (0..corpus.len()).collect();
    order.shuffle(&mut seeded(derive_seed(config.seed, stream::PROXY_SPLIT)));
    let held_n = (corpus.len() / 5).max(2);
    let (held, train) = order.split_at(held_n);
    let mut split_rng = seeded(derive_seed(config.seed, stream::PROXY_SPLIT) ^ 1);
    let held_pairs: Vec<(usize, usize)> = derangement_pairs(held.len(), &mut split_rng)?
        .into_iter()
        .map(|(a, b)| (held[a], held[b]))
        .collect();
    let mut proxies = RankProxies::new(
        config.n_proxies,
        objectives.len(),
        config.proxy_hidden_units,
        config.proxy_learning_rate,
        derive_seed(config.seed, stream::PROXY_INIT),
    )?;
    let mut proxy_rng = seeded(derive_seed(config.seed, stream::PROXY_ROUNDS));
    let mut proxy_accuracy = Vec::with_capacity(config.proxy_rounds);
    for round in 1..=config.proxy_rounds {
        cancel.check()?;
        let x_ref = &x;
        let proxies_ref = &mut proxies;
        let rng = &mut proxy_rng;
        let accuracy = crate::prior::Prior::on_thread(|| {
            proxies_ref.train_round(
                x_ref,
                &offline_points,
                train,
                config.proxy_pairs_per_round,
                rng,
            )?;
            proxies_ref.pair_accuracy(x_ref, &offline_points, &held_pairs)
        })?;
        proxy_accuracy.push(accuracy);
        on_event(&OptimiseEvent::ProxyRound {
            round,
            pair_accuracy: accuracy,
        });
        progress.set(
            start + (end - start) * round as f64 / config.proxy_rounds as f64,
            format!("proxy round {round}/{}", config.proxy_rounds),
        );
    }

    // Stitch + IPO rounds on the agent.
    let (start, end) = stage(5, progress, on_event);
    let mut ranked: Vec<usize> = (0..corpus.len()).collect();
    ranked.sort_by(|&a, &b| rewards[b].total_cmp(&rewards[a]).then(a.cmp(&b)));
    ranked.truncate(config.pool_size);
    let pool: Vec<String> = ranked.iter().map(|&i| corpus[i].clone()).collect();
    let pool_values: Vec<Vec<f64>> = ranked.iter().map(|&i| offline_points[i].clone()).collect();
    let mut cache = FragmentCache::default();
    let mut stitch_rng = seeded(derive_seed(config.seed, stream::STITCH));
    let mut adam = agent.adam(config.agent_learning_rate, Vec::new())?;
    let max_tokens = config.prior.max_length_tokens;
    let mut ipo_loss = Vec::with_capacity(config.stitch_rounds);
    let mut skipped = 0;
    for round in 1..=config.stitch_rounds {
        cancel.check()?;
        let children = priority_stitch(
            &pool,
            &pool_values,
            config.stitched_per_round,
            config.dirichlet_alpha,
            stitcher,
            &mut cache,
            &mut stitch_rng,
            |s| vocab.encode(s).is_ok_and(|ids| ids.len() <= max_tokens + 1),
        )?;
        let valid_fraction = children.len() as f64 / config.stitched_per_round as f64;
        let mut loss = f64::NAN;
        if children.len() >= 2 {
            let child_fps = children
                .iter()
                .map(|c| {
                    Molecule::from_smiles(&c.smiles)
                        .and_then(|m| m.morgan_fingerprint(MORGAN_RADIUS, MORGAN_BITS))
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(chem)?;
            let cx = fingerprint_matrix(&child_fps)?;
            let pairs = derangement_pairs(children.len(), &mut stitch_rng)?;
            let votes = crate::prior::Prior::on_thread(|| proxies.vote(&cx, &pairs))?;
            let mut winners = Vec::new();
            let mut losers = Vec::new();
            for (&(a, b), vote) in pairs.iter().zip(votes) {
                let (w, l) = match vote {
                    Some(true) => (a, b),
                    Some(false) => (b, a),
                    None => continue,
                };
                winners.push(vocab.encode(&children[w].smiles)?);
                losers.push(vocab.encode(&children[l].smiles)?);
            }
            if !winners.is_empty() {
                let lw = prior.log_likelihoods(&winners)?;
                let ll = prior.log_likelihoods(&losers)?;
                let margin: Vec<f64> = lw.iter().zip(&ll).map(|(w, l)| w - l).collect();
                let losses = ipo_steps(
                    &agent,
                    &mut adam,
                    &winners,
                    &losers,
                    &margin,
                    config.beta,
                    config.ipo_steps_per_round,
                )?;
                if !losses.is_empty() {
                    loss = losses.iter().sum::<f64>() / losses.len() as f64;
                }
            }
        }
        if loss.is_nan() {
            skipped += 1;
        }
        ipo_loss.push(loss);
        on_event(&OptimiseEvent::StitchRound {
            round,
            valid_fraction,
            ipo_loss: loss,
        });
        progress.set(
            start + (end - start) * round as f64 / config.stitch_rounds.max(1) as f64,
            format!("stitch round {round}/{}", config.stitch_rounds),
        );
    }
    if skipped > 0 {
        notes.push(format!(
            "{skipped} of {} stitch rounds had no decided preference pair and took no IPO step",
            config.stitch_rounds
        ));
    }

    // Evaluation: the same oracle budget for each method.
    let (start, end) = stage(6, progress, on_event);
    let sample_seed = derive_seed(config.seed, stream::SAMPLE);
    let sampled = |agent: &crate::prior::Prior| -> Result<Vec<Candidate>, ComputeError> {
        Ok(agent
            .sample_smiles(config.eval_budget, config.temperature, sample_seed)?
            .into_iter()
            .map(|smiles| Candidate {
                smiles,
                parents: None,
            })
            .collect())
    };
    let mut methods = Vec::with_capacity(3);
    for (i, name) in [METHOD_MOLSTITCH, METHOD_FINE_TUNED, METHOD_CROSSOVER]
        .into_iter()
        .enumerate()
    {
        cancel.check()?;
        let candidates = match i {
            0 => sampled(&agent)?,
            1 => sampled(&tb_agent)?,
            _ => {
                let mut rng = seeded(derive_seed(config.seed, stream::CROSSOVER));
                random_crossover(&corpus, config.eval_budget, &mut cache, &mut rng)
                    .into_iter()
                    .map(|c| Candidate {
                        smiles: c.smiles,
                        parents: Some((c.parent_a, c.parent_b)),
                    })
                    .collect()
            }
        };
        let result = evaluate_method(
            name,
            &candidates,
            &objectives,
            &offline_points,
            &offline_set,
            &weights,
        )?;
        on_event(&OptimiseEvent::Evaluated {
            method: name.to_owned(),
            hypervolume: result.metrics.hypervolume,
        });
        methods.push(result);
        progress.set(
            start + (end - start) * (i + 1) as f64 / 3.0,
            format!("evaluated {name}"),
        );
    }
    stage(7, progress, on_event);

    Ok(OptimiseResult {
        objective_labels: config
            .objectives
            .iter()
            .map(|o| o.label().to_owned())
            .collect(),
        offline: offline_mols,
        offline_metrics,
        methods,
        proxy_accuracy,
        ipo_loss,
        notes,
        weight_files,
        seed_study: None,
    })
}
