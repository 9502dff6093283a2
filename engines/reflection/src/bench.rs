//! The `benchtop bench reflection` workload: (1) the reversal scorer (the windowed Beta belief
//! and the reward part) over `sessions` sessions of `trials` trials whose choices and rewards
//! come from a 64-bit LCG the peer script (`scripts/bench_reflection_peer.py`) rebuilds, so both
//! score the same data and their checksums must agree; (2) the full default table (every
//! scripted agent on all seven tasks at the paper's session counts).

use std::time::Instant;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use serde::{Deserialize, Serialize};

use crate::run::{self, BenchParams as TableParams};
use crate::score;
use crate::session::{Detail, TrialRecord};
use crate::task::Settings;

/// What to time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchParams {
    /// Reversal sessions to score.
    pub sessions: usize,
    /// Trials per session (even).
    pub trials: usize,
    /// Timed repeats (the fastest is reported).
    pub repeats: usize,
}

/// What was measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// Always "reflection".
    pub engine: String,
    /// Sessions scored.
    pub sessions: usize,
    /// Trials per session.
    pub trials: usize,
    /// Scoring time, fastest repeat (ms).
    pub ms_score: f64,
    /// Scoring time per session (µs).
    pub us_per_session: f64,
    /// Sum of the session scores (compare with the peer).
    pub score_checksum: f64,
    /// Wall time of the default table: all scripted agents × seven tasks (ms).
    pub ms_table: f64,
    /// Sessions in that table.
    pub table_sessions: usize,
}

/// The LCG both sides use: x ← 6364136223846793005·x + 1442695040888963407 (mod 2⁶⁴); a bit is
/// bit 33 of the new state.
pub struct Lcg(pub u64);

impl Lcg {
    /// The next bit.
    pub fn bit(&mut self) -> u8 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) & 1) as u8
    }
}

/// The benchmark's sessions: per trial a choice bit (1 = right arm) then a reward bit, from
/// `Lcg(12345)`.
pub fn bench_records(sessions: usize, trials: usize, p: f64) -> Vec<Vec<TrialRecord>> {
    let mut lcg = Lcg(12345);
    (0..sessions)
        .map(|_| {
            (0..trials)
                .map(|t| {
                    let right = lcg.bit() == 1;
                    let reward = f64::from(lcg.bit());
                    let p_right = if t < trials / 2 { p } else { 1.0 - p };
                    TrialRecord {
                        trial: t,
                        choice: Some(if right { 0 } else { 1 }),
                        label: String::new(),
                        reward,
                        hidden: p_right,
                        hidden_label: String::new(),
                        belief: None,
                        detail: Detail::Reversal { p_right },
                    }
                })
                .collect()
        })
        .collect()
}

/// Runs the benchmark.
pub fn run(params: &BenchParams) -> Result<BenchReport, ComputeError> {
    if params.trials < 2 || !params.trials.is_multiple_of(2) || params.sessions == 0 {
        return Err(ComputeError::invalid(
            "trials",
            "an even number ≥ 2, and sessions ≥ 1",
        ));
    }
    let mut settings = Settings::default();
    settings.reversal.trials = params.trials;
    let data = bench_records(params.sessions, params.trials, settings.reversal.p);
    let mut best = f64::INFINITY;
    let mut checksum = 0.0;
    for _ in 0..params.repeats.max(1) {
        let t0 = Instant::now();
        checksum = data
            .iter()
            .map(|s| {
                let (r, b) = score::reversal_parts(&settings, s);
                0.5 * (r + b)
            })
            .sum();
        best = best.min(t0.elapsed().as_secs_f64() * 1e3);
    }
    let t0 = Instant::now();
    let table = run::run(
        &TableParams::default(),
        1,
        &Progress::new(),
        &CancelToken::new(),
    )?;
    let ms_table = t0.elapsed().as_secs_f64() * 1e3;
    Ok(BenchReport {
        engine: "reflection".into(),
        sessions: params.sessions,
        trials: params.trials,
        ms_score: best,
        us_per_session: best * 1e3 / params.sessions as f64,
        score_checksum: checksum,
        ms_table,
        table_sessions: table.sessions.len(),
    })
}
