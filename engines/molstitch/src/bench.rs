//! Throughput of property scoring, for `benchtop bench molstitch` and the Python peer script
//! (`scripts/bench_molstitch_peer.py`). Sampling throughput comes with the generator.

use std::time::Instant;

use serde::Serialize;

use crate::offline::{LoadError, offline_smiles};
use crate::props::{Properties, score_all_parallel};

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
}
