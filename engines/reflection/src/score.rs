//! The seven scorers, after the authors' `scorer/*.py` formulas (one session at a time).

use crate::session::{Detail, TrialRecord};
use crate::task::{Settings, Task};

/// One session's score for `task` from its trace.
///
/// Scales: oddball is 100 × the mean (over trials) of the best sentence similarity (the authors
/// report the sum over trials and sessions; the mean puts it on the 0–100 scale of the others);
/// meta-bandit is the raw count of anticipated reversals (19 at most by default); the rest are
/// on 0–100 as in the paper.
pub fn score(task: Task, settings: &Settings, records: &[TrialRecord]) -> f64 {
    match task {
        Task::Oddball => oddball(records),
        Task::NBack | Task::Wcst => accuracy(records),
        Task::Reversal => {
            let (reward, belief) = reversal_parts(settings, records);
            0.5 * (reward + belief)
        }
        Task::Weather => weather(settings, records),
        Task::Iowa => {
            let (switch, money) = iowa_parts(settings, records);
            0.5 * (switch + money)
        }
        Task::MetaBandit => meta_bandit(records),
    }
}

/// The score on the 0–100 scale used for the radar and `overall` (meta-bandit: 100 × count /
/// its maximum).
pub fn normalized(task: Task, settings: &Settings, score: f64) -> f64 {
    100.0 * score / task.max_score(settings)
}

fn oddball(records: &[TrialRecord]) -> f64 {
    if records.is_empty() {
        return 0.0;
    }
    let sum: f64 = records
        .iter()
        .map(|r| match &r.detail {
            Detail::Oddball { similarity, .. } => *similarity,
            _ => 0.0,
        })
        .sum();
    100.0 * sum / records.len() as f64
}

fn accuracy(records: &[TrialRecord]) -> f64 {
    if records.is_empty() {
        return 0.0;
    }
    let right = records.iter().filter(|r| r.reward > 0.5).count();
    100.0 * right as f64 / records.len() as f64
}

/// Probabilistic reversal: (reward part, belief part), each on 0–100. Reward part: 100 × mean
/// reward. Belief part: 100 × [1 − Σ_t |θ̂_t − θ*_t| / (p·T)], θ̂ the windowed Beta estimate of
/// the choices (1 for the right arm) and θ* the same estimate of the true probabilities.
pub fn reversal_parts(settings: &Settings, records: &[TrialRecord]) -> (f64, f64) {
    if records.is_empty() {
        return (0.0, 0.0);
    }
    let t = records.len() as f64;
    let w = settings.reversal.window;
    let choice = |r: &TrialRecord| if r.choice == Some(0) { 1.0 } else { 0.0 };
    let truth = |r: &TrialRecord| match r.detail {
        Detail::Reversal { p_right } => p_right,
        _ => 0.0,
    };
    // One pass with running window sums: θ̂_t − θ*_t = (Σ choices − Σ truths) / (0.2 + |window|).
    let (mut rewards, mut sum_c, mut sum_t, mut err) = (0.0, 0.0, 0.0, 0.0);
    for (k, r) in records.iter().enumerate() {
        rewards += r.reward;
        sum_c += choice(r);
        sum_t += truth(r);
        if k >= w {
            sum_c -= choice(&records[k - w]);
            sum_t -= truth(&records[k - w]);
        }
        let n = (k + 1).min(w) as f64;
        err += (sum_c - sum_t).abs() / (0.2 + n);
    }
    let reward = 100.0 * rewards / t;
    let belief = 100.0 * (1.0 - err / (settings.reversal.p * t));
    (reward, belief)
}

/// Row-normalised 2×2 counts per device (index 0: device `[1, 0]`, 1: `[0, 1]`); rows without
/// counts stay zero, as in the authors' scorer.
type Transitions = [[[f64; 2]; 2]; 2];

fn normalise(counts: &Transitions) -> Transitions {
    let mut out = [[[0.0; 2]; 2]; 2];
    for d in 0..2 {
        for i in 0..2 {
            let s = counts[d][i][0] + counts[d][i][1];
            if s > 0.0 {
                for j in 0..2 {
                    out[d][i][j] = counts[d][i][j] / s;
                }
            }
        }
    }
    out
}

/// Weather: the agent's implied transition matrices (prediction counts given today and device,
/// from trial `estimate_from` on) against the empirical true ones. Score = 100 × (1 − Σ_devices
/// ‖P̂ − P‖_F / max-diff), where max-diff = Σ_ij max(P_ij, 1 − P_ij) of the last device's true
/// matrix (the authors' scorer keeps only the last device's value). Trials whose prediction was
/// not understood are left out.
pub fn weather_matrices(
    settings: &Settings,
    records: &[TrialRecord],
) -> (Transitions, Transitions) {
    let mut pred = [[[0.0; 2]; 2]; 2];
    let mut real = [[[0.0; 2]; 2]; 2];
    for r in records.iter().skip(settings.weather.estimate_from) {
        if let Detail::Weather {
            today,
            device1,
            prediction: Some(p),
            tomorrow,
        } = r.detail
        {
            let d = usize::from(!device1);
            pred[d][today][p] += 1.0;
            real[d][today][tomorrow] += 1.0;
        }
    }
    (normalise(&pred), normalise(&real))
}

fn weather(settings: &Settings, records: &[TrialRecord]) -> f64 {
    if records.len() <= settings.weather.estimate_from {
        return 0.0;
    }
    let (p_hat, p) = weather_matrices(settings, records);
    let mut diff = 0.0;
    for d in 0..2 {
        let mut fro = 0.0;
        for i in 0..2 {
            for j in 0..2 {
                fro += (p_hat[d][i][j] - p[d][i][j]).powi(2);
            }
        }
        diff += f64::sqrt(fro);
    }
    let mut max_diff = 0.0;
    for row in &p[1] {
        for &m in row {
            max_diff += f64::max(m, 1.0 - m);
        }
    }
    100.0 * (1.0 - diff / max_diff)
}

/// Double-choice Iowa: (switch part, money part), each on 0–100. Per trial: stay without a loss
/// +1, stay after a loss −(loss/500 + 1), switch without a loss −0.5, switch after a loss +1;
/// switch part = 100 × sum / scored trials. Money part = 100 × final money / (start + 100·T).
/// Trials whose picks were not understood are left out of the switch part.
pub fn iowa_parts(settings: &Settings, records: &[TrialRecord]) -> (f64, f64) {
    let mut sum = 0.0;
    let mut count = 0usize;
    let mut money = settings.iowa.start_money;
    for r in records {
        if let Detail::Iowa {
            first,
            loss1,
            second,
            money: m,
            ..
        } = r.detail
        {
            money = m;
            let (Some(a), Some(b)) = (first, second) else {
                continue;
            };
            let lost = loss1 > 0;
            sum += match (a == b, lost) {
                (true, false) => 1.0,
                (true, true) => -(loss1 as f64 / 500.0 + 1.0),
                (false, false) => -0.5,
                (false, true) => 1.0,
            };
            count += 1;
        }
    }
    let switch = if count == 0 {
        0.0
    } else {
        100.0 * sum / count as f64
    };
    let max_money = settings.iowa.start_money as f64 + 100.0 * settings.iowa.trials as f64;
    (switch, 100.0 * money as f64 / max_money)
}

/// Meta-bandit: the number of reversal trials i (with a trial after it) where the rewards at
/// i − 1, i and i + 1 are all nonzero, i.e. the agent switched arms in anticipation.
pub fn meta_bandit(records: &[TrialRecord]) -> f64 {
    let mut n = 0usize;
    for i in 1..records.len().saturating_sub(1) {
        if let Detail::Meta { reverse: true } = records[i].detail
            && (i - 1..=i + 1).all(|k| records[k].reward > 0.0)
        {
            n += 1;
        }
    }
    n as f64
}
