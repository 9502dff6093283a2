//! Throughput for `benchtop bench molstitch`: property scoring (against the Python peer script
//! `scripts/bench_molstitch_peer.py`) and sampling from the SMILES prior.

use std::time::Instant;

use benchtop_compute::ComputeError;
use serde::Serialize;

use crate::prior::{Prior, PriorConfig};
use crate::vocab::Vocabulary;
use benchtop_chem::mol::Molecule;
use benchtop_chem::offline::{LoadError, offline_smiles};
use benchtop_chem::props::{Properties, score_all_parallel};

/// What [`bench_scoring`] measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoringBench {
    /// What one molecule's scoring includes.
    pub work: &'static str,
    /// Molecules scored (input length).
    pub molecules: usize,
    /// How many parsed and scored.
    pub valid: usize,
    /// Worker threads used.
    pub threads: usize,
    /// Wall-clock time of the scoring, seconds.
    pub seconds: f64,
    /// molecules / seconds.
    pub molecules_per_s: f64,
    /// Sum of QED + SA over the valid molecules (ties the timing to real results).
    pub checksum_qed_plus_sa: f64,
}

/// Scores `smiles` (parse, canonical SMILES, MW, logP, TPSA, QED, SA) on `threads` threads and
/// times it. The SA table and QED patterns are loaded before the clock starts.
pub fn bench_scoring(smiles: &[String], threads: usize) -> ScoringBench {
    let threads = threads.max(1);
    // Warm-up: loads the SA fragment table and compiles the QED SMARTS on this thread.
    let _ = Properties::from_smiles("CCO");
    let start = Instant::now();
    let scored = score_all_parallel(smiles, threads);
    let seconds = start.elapsed().as_secs_f64();
    let valid: Vec<&Properties> = scored.iter().filter_map(|r| r.as_ref().ok()).collect();
    ScoringBench {
        work: "parse + canonical SMILES, MW, Crippen logP, TPSA, QED, SA",
        molecules: smiles.len(),
        valid: valid.len(),
        threads,
        seconds,
        molecules_per_s: if seconds > 0.0 {
            smiles.len() as f64 / seconds
        } else {
            0.0
        },
        checksum_qed_plus_sa: valid.iter().map(|p| p.qed + p.sa).sum(),
    }
}

/// [`bench_scoring`] on the shipped offline set (5,000 MOSES SMILES, all valid): what
/// `benchtop bench molstitch` reports for property scoring.
pub fn bench_offline_scoring(threads: usize) -> Result<ScoringBench, LoadError> {
    Ok(bench_scoring(&offline_smiles()?, threads))
}

/// Settings of [`bench_sampling`].
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingParams {
    /// Offline molecules the prior is trained on before timing (untimed).
    pub train_molecules: usize,
    /// Training epochs before timing (untimed).
    pub train_epochs: usize,
    /// Molecules sampled in the timed part.
    pub samples: usize,
    /// Sampling temperature.
    pub temperature: f64,
    /// Prior size.
    pub prior: PriorConfig,
    /// Seed of the weights, the training order and the samples.
    pub seed: u64,
}

impl Default for SamplingParams {
    /// The optimisation's prior (its default size and learning rate) trained for 6 epochs on
    /// 2,000 offline molecules, then 500 samples.
    fn default() -> Self {
        Self {
            train_molecules: 2000,
            train_epochs: 6,
            samples: 500,
            temperature: 1.0,
            prior: crate::optimise::OptimiseConfig::default().prior,
            seed: 1,
        }
    }
}

/// What [`bench_sampling`] measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SamplingBench {
    /// What one sample includes.
    pub work: &'static str,
    /// Molecules sampled.
    pub samples: usize,
    /// Tokens generated in all (EOS included).
    pub tokens: usize,
    /// Wall-clock time of the sampling, seconds.
    pub seconds: f64,
    /// samples / seconds.
    pub molecules_per_s: f64,
    /// tokens / seconds.
    pub tokens_per_s: f64,
    /// Fraction of the samples RDKit parses (ties the timing to a trained model).
    pub valid_fraction: f64,
    /// Mean training NLL of the last untimed epoch, nats per molecule.
    pub final_train_nll_nats: f64,
}

/// Trains a prior on the first `train_molecules` offline SMILES (untimed), then times sampling
/// `samples` SMILES from it (token ids → text; validity is checked after the clock stops).
pub fn bench_sampling(params: &SamplingParams) -> Result<SamplingBench, ComputeError> {
    if params.samples == 0 {
        return Err(ComputeError::invalid("samples", "must be at least 1"));
    }
    let corpus: Vec<String> = offline_smiles()
        .map_err(|e| ComputeError::invalid("offline set", e.to_string()))?
        .into_iter()
        .take(params.train_molecules.max(1))
        .collect();
    let vocab = Vocabulary::from_corpus(&corpus)?;
    let seqs = corpus
        .iter()
        .map(|s| vocab.encode(s))
        .collect::<Result<Vec<_>, _>>()?;
    let mut prior = Prior::new(vocab, params.prior.clone(), params.seed)?;
    let nll = prior.train(&seqs, params.train_epochs, params.seed, |_| Ok(()))?;
    let start = Instant::now();
    let ids = prior.sample(params.samples, params.temperature, params.seed)?;
    let seconds = start.elapsed().as_secs_f64();
    let tokens: usize = ids.iter().map(Vec::len).sum();
    let vocab = prior.vocabulary();
    let valid = ids
        .iter()
        .filter(|s| {
            vocab
                .decode(s)
                .is_ok_and(|text| Molecule::from_smiles(&text).is_ok())
        })
        .count();
    let per_s = |n: usize| {
        if seconds > 0.0 {
            n as f64 / seconds
        } else {
            0.0
        }
    };
    Ok(SamplingBench {
        work: "GRU prior: token-by-token sampling on one thread, ids to SMILES text",
        samples: params.samples,
        tokens,
        seconds,
        molecules_per_s: per_s(params.samples),
        tokens_per_s: per_s(tokens),
        valid_fraction: valid as f64 / params.samples as f64,
        final_train_nll_nats: nll.last().copied().unwrap_or(f64::NAN),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_counts_and_checksum_match_serial_scoring() {
        let mut smiles: Vec<String> = offline_smiles().unwrap().into_iter().take(40).collect();
        smiles.push("C1CC(".to_owned());
        let serial: f64 = smiles
            .iter()
            .filter_map(|s| Properties::from_smiles(s).ok())
            .map(|p| p.qed + p.sa)
            .sum();
        for threads in [1, 2] {
            let b = bench_scoring(&smiles, threads);
            assert_eq!((b.molecules, b.valid, b.threads), (41, 40, threads));
            assert!((b.checksum_qed_plus_sa - serial).abs() < 1e-9);
            assert!(b.molecules_per_s > 0.0);
        }
        let json = serde_json::to_value(bench_scoring(&smiles[..2], 1)).unwrap();
        assert_eq!(json["molecules"], 2);
    }

    #[test]
    fn sampling_bench_counts_what_it_sampled() {
        let params = SamplingParams {
            train_molecules: 32,
            train_epochs: 1,
            samples: 8,
            prior: PriorConfig {
                embedding_dim: 8,
                hidden_units: 16,
                layers: 1,
                max_length_tokens: 20,
                ..PriorConfig::default()
            },
            ..SamplingParams::default()
        };
        let b = bench_sampling(&params).unwrap();
        assert_eq!(b.samples, 8);
        // Every sample has at least one token (EOS) and at most the cap.
        assert!((8..=8 * 20).contains(&b.tokens), "{} tokens", b.tokens);
        assert!((0.0..=1.0).contains(&b.valid_fraction));
        assert!(b.final_train_nll_nats.is_finite() && b.final_train_nll_nats > 0.0);
        assert!(
            bench_sampling(&SamplingParams {
                samples: 0,
                ..params
            })
            .is_err()
        );
    }
}
