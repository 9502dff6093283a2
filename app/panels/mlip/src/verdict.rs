//! The verdict shown next to each comparison and written to `summary.json`: the paper's claim,
//! a lower force error with physics-informed weak supervision, judged against the strongest
//! baseline trained on the same labels (the better of `supervised` and `conservative`), with
//! the zero-force reference beside it. The rule is the claims script's
//! (`scripts/claims/mlip.py`): over the runs compared, "holds" when +PITC+PISC is lower on every
//! one and at least 10 % lower on average, "holds partly" when it is lower on more than half,
//! else "does not hold".

use crate::compute::{CompareResult, SweepPoint, mean_sd};

/// The verdict over paired ratios method / baseline (lower is better), by the rule above.
pub fn words(ratios: &[f64]) -> &'static str {
    let n = ratios.len();
    let better = ratios.iter().filter(|r| **r < 1.0).count();
    let (mean, _) = mean_sd(ratios);
    if n > 0 && better == n && mean < 0.9 {
        "holds"
    } else if 2 * better > n {
        "holds partly"
    } else {
        "does not hold"
    }
}

/// The comparison's verdict line, or `None` for a result saved before the baselines existed.
pub fn compare_line(r: &CompareResult) -> Option<String> {
    let fair = r.fair_baseline()?;
    let piwsl = r.get("+PITC+PISC")?;
    r.get(benchtop_mlip::CONSERVATIVE)?;
    let ratio = piwsl.force_mae / fair.force_mae;
    Some(format!(
        "Lower force error with PITC+PISC: {} on this run. +PITC+PISC {:.3} against the best \
         baseline on the same labels ({}) {:.3}: ratio {:.2}; zero force {:.3}. MD stable {} \
         against {} steps.",
        words(&[ratio]),
        piwsl.force_mae,
        fair.name,
        fair.force_mae,
        ratio,
        r.zero_force_mae,
        piwsl.md_steps_stable,
        fair.md_steps_stable,
    ))
}

/// +PITC+PISC's force MAE over the better of supervised and conservative, for each seed of a
/// sweep point.
pub fn sweep_ratios(p: &SweepPoint) -> Vec<f64> {
    p.per_seed
        .iter()
        .map(|s| s.piwsl_force / s.supervised_force.min(s.conservative_force))
        .collect()
}

/// The sweep's verdict line, or `None` for a result saved before the sweep ran over seeds.
pub fn sweep_line(points: &[SweepPoint]) -> Option<String> {
    if points.is_empty() || points.iter().any(|p| p.per_seed.is_empty()) {
        return None;
    }
    let all: Vec<f64> = points.iter().flat_map(sweep_ratios).collect();
    let better = all.iter().filter(|r| **r < 1.0).count();
    let seeds = points[0].per_seed.len();
    let per_count: Vec<String> = points
        .iter()
        .map(|p| {
            let (m, sd) = mean_sd(&sweep_ratios(p));
            format!("{}: {m:.2} ± {sd:.2}", p.labels)
        })
        .collect();
    Some(format!(
        "Lower force error with PITC+PISC: {} over {seeds} seeds. +PITC+PISC / best baseline \
         (mean ± sd by label count) {}; lower on {better} of {} runs.",
        words(&all),
        per_count.join(", "),
        all.len()
    ))
}
