//! MolStitch against its references over several seeds: each seed is a whole run ([`run`]: its
//! own prior, StitchNet, proxies, stitching and evaluation samples), and the study reports every
//! method's metrics per seed with their mean and sample standard deviation, the paired
//! comparison of MolStitch with the offline set and each baseline (wins over seeds, the exact
//! two-sided sign-test p-value with ties dropped, the mean paired difference ± its SD, as
//! `scripts/claims/common.py`'s `paired`), and the verdict of the paper's two claims.
//!
//! The verdict of one comparison (on hypervolume, the paper's headline metric): **holds** when
//! MolStitch is better on the mean and the sign test rejects "no difference" at 5 %; **holds
//! partly** when it is better on the mean and on more seeds than not, without that; else **does
//! not hold**. "Beats the baselines" takes the weaker of its two comparisons. With 5 seeds the
//! two-sided sign test cannot go below p = 2/2⁵ = 0.0625, so "holds" needs at least 6 seeds.

use std::path::Path;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use serde::{Deserialize, Serialize};

use super::config::OptimiseConfig;
use super::events::OptimiseEvent;
use super::result::{MethodMetrics, OptimiseResult};
use super::run::{METHOD_CROSSOVER, METHOD_FINE_TUNED, METHOD_MOLSTITCH, run};

/// Name of the offline set among the compared methods.
pub const OFFLINE: &str = "Offline set";

/// The metrics the paired tests compare, with whether higher is better.
pub const PAIRED_METRICS: [(&str, bool); 3] =
    [("hypervolume", true), ("r2", false), ("top10", true)];

/// A metric over seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Mean over seeds.
    pub mean: f64,
    /// Sample standard deviation (0 for one seed).
    pub sd: f64,
    /// The value of each seed, in [`SeedStudy::seeds`]' order.
    pub values: Vec<f64>,
}

impl Spread {
    /// Mean and sample SD of `values` (NaN mean for none).
    pub fn of(values: Vec<f64>) -> Self {
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let sd = if values.len() > 1 {
            (values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        Self { mean, sd, values }
    }
}

/// One method's metrics over seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodSpread {
    /// [`OFFLINE`], "MolStitch", "Prior fine-tuned" or "BRICS crossover".
    pub name: String,
    /// (metric key as in [`MethodMetrics::named`], its spread over seeds).
    pub metrics: Vec<(String, Spread)>,
}

/// MolStitch against one reference on one metric, paired by seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Paired {
    /// The reference ([`OFFLINE`] or a baseline).
    pub reference: String,
    /// The metric key.
    pub metric: String,
    /// Whether a higher value is better (R2: lower).
    pub higher_is_better: bool,
    /// Seeds on which MolStitch is better.
    pub wins: usize,
    /// Seeds on which it is worse.
    pub losses: usize,
    /// Seeds with equal values (dropped by the sign test).
    pub ties: usize,
    /// The exact two-sided sign-test p-value (1 when every seed ties).
    pub sign_test_p: f64,
    /// Mean of MolStitch − reference over seeds (in the metric's units, whatever its direction).
    pub mean_difference: f64,
    /// Sample SD of the paired differences.
    pub sd_difference: f64,
}

impl Paired {
    /// The verdict of "MolStitch is better than the reference" by the module's rule.
    pub fn verdict(&self) -> Verdict {
        let sign = if self.higher_is_better { 1.0 } else { -1.0 };
        let better = sign * self.mean_difference > 0.0;
        if better && self.wins > self.losses && self.sign_test_p < 0.05 {
            Verdict::Holds
        } else if better && self.wins > self.losses {
            Verdict::HoldsPartly
        } else {
            Verdict::DoesNotHold
        }
    }

    /// "difference +0.0031 ± 0.012, better on 3/5 seeds (sign test p = 1)".
    pub fn text(&self) -> String {
        format!(
            "difference {:+.3e} ± {:.2e}, better on {}/{} seeds (sign test p = {:.2})",
            self.mean_difference,
            self.sd_difference,
            self.wins,
            self.wins + self.losses + self.ties,
            self.sign_test_p
        )
    }
}

pub use benchtop_compute::verdict::{Claim, Verdict};

/// The comparison over seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedStudy {
    /// The seeds run (the configured seed, then the next ones).
    pub seeds: Vec<u64>,
    /// Every method's metrics over the seeds, the offline set first.
    pub methods: Vec<MethodSpread>,
    /// MolStitch against each reference on each of [`PAIRED_METRICS`].
    pub paired: Vec<Paired>,
    /// The paper's claims judged on the hypervolume comparisons.
    pub claims: Vec<Claim>,
}

/// The exact two-sided sign-test p-value of `wins` against `losses` (ties already dropped).
pub fn sign_test_p(wins: usize, losses: usize) -> f64 {
    let n = wins + losses;
    if n == 0 {
        return 1.0;
    }
    let k = wins.min(losses);
    // Σ_{i ≤ k} C(n, i) / 2ⁿ, with the binomial coefficients in floating point (n is a number of
    // seeds: small).
    let mut coefficient = 1.0;
    let mut tail = 0.0;
    for i in 0..=k {
        if i > 0 {
            coefficient *= (n - i + 1) as f64 / i as f64;
        }
        tail += coefficient;
    }
    (2.0 * tail / 2_f64.powi(n as i32)).min(1.0)
}

/// MolStitch's `ours` against a reference's `theirs`, paired by seed.
pub fn paired(
    reference: &str,
    metric: &str,
    higher_is_better: bool,
    ours: &[f64],
    theirs: &[f64],
) -> Paired {
    let sign = if higher_is_better { 1.0 } else { -1.0 };
    let (mut wins, mut losses, mut ties) = (0, 0, 0);
    for (a, b) in ours.iter().zip(theirs) {
        match (sign * (a - b)).partial_cmp(&0.0) {
            Some(std::cmp::Ordering::Greater) => wins += 1,
            Some(std::cmp::Ordering::Less) => losses += 1,
            _ => ties += 1,
        }
    }
    let differences = Spread::of(ours.iter().zip(theirs).map(|(a, b)| a - b).collect());
    Paired {
        reference: reference.to_owned(),
        metric: metric.to_owned(),
        higher_is_better,
        wins,
        losses,
        ties,
        sign_test_p: sign_test_p(wins, losses),
        mean_difference: differences.mean,
        sd_difference: differences.sd,
    }
}

/// The study of per-seed results (`runs[i]` made with `seeds[i]`).
pub fn study(seeds: &[u64], runs: &[OptimiseResult]) -> SeedStudy {
    let per_method = |name: &str| -> Vec<&MethodMetrics> {
        runs.iter()
            .filter_map(|r| {
                if name == OFFLINE {
                    Some(&r.offline_metrics)
                } else {
                    r.methods
                        .iter()
                        .find(|m| m.name == name)
                        .map(|m| &m.metrics)
                }
            })
            .collect()
    };
    let names = [
        OFFLINE,
        METHOD_MOLSTITCH,
        METHOD_FINE_TUNED,
        METHOD_CROSSOVER,
    ];
    let values = |name: &str, metric: &str| -> Vec<f64> {
        per_method(name)
            .iter()
            .map(|m| {
                m.named()
                    .iter()
                    .find(|(k, _)| *k == metric)
                    .map_or(f64::NAN, |(_, v)| *v)
            })
            .collect()
    };
    let methods = names
        .iter()
        .map(|name| MethodSpread {
            name: (*name).to_owned(),
            metrics: MethodMetrics::KEYS
                .iter()
                .map(|k| ((*k).to_owned(), Spread::of(values(name, k))))
                .collect(),
        })
        .collect();
    let mut paired_tests = Vec::new();
    for reference in [OFFLINE, METHOD_FINE_TUNED, METHOD_CROSSOVER] {
        for (metric, higher) in PAIRED_METRICS {
            paired_tests.push(paired(
                reference,
                metric,
                higher,
                &values(METHOD_MOLSTITCH, metric),
                &values(reference, metric),
            ));
        }
    }
    let on_hv = |reference: &str| {
        paired_tests
            .iter()
            .find(|p| p.reference == reference && p.metric == "hypervolume")
    };
    let mut claims = Vec::new();
    let n = seeds.len();
    if let Some(p) = on_hv(OFFLINE) {
        claims.push(Claim {
            id: "improves_offline".to_owned(),
            claim: "MolStitch's molecules improve on the offline set (hypervolume)".to_owned(),
            measured: format!("{n} seeds: {}", p.text()),
            verdict: p.verdict(),
        });
    }
    let baselines: Vec<&Paired> = [METHOD_FINE_TUNED, METHOD_CROSSOVER]
        .into_iter()
        .filter_map(on_hv)
        .collect();
    if let Some(weakest) = baselines.iter().map(|p| p.verdict()).min() {
        let measured = baselines
            .iter()
            .map(|p| format!("against {}: {}", p.reference, p.text()))
            .collect::<Vec<_>>()
            .join("; ");
        claims.push(Claim {
            id: "beats_baselines".to_owned(),
            claim: "MolStitch beats the baselines (a fine-tuned prior, random crossover) on \
                    the same oracle budget (hypervolume)"
                .to_owned(),
            measured: format!("{n} seeds: {measured}"),
            verdict: weakest,
        });
    }
    SeedStudy {
        seeds: seeds.to_vec(),
        methods,
        paired: paired_tests,
        claims,
    }
}

/// Runs [`run`] for `config.seeds` seeds (`config.seed`, `config.seed + 1`, …) and returns the
/// first seed's result with the study of all of them in [`OptimiseResult::seed_study`] (none
/// for one seed). `on_event` sees the first seed's events (the live curves follow one run) and
/// a [`OptimiseEvent::Stage`] naming each further seed; progress is split evenly over the seeds.
pub fn run_seeds(
    offline: &[String],
    config: &OptimiseConfig,
    cache_dir: Option<&Path>,
    progress: &Progress,
    cancel: &CancelToken,
    on_event: &mut (dyn FnMut(&OptimiseEvent) + Send),
) -> Result<OptimiseResult, ComputeError> {
    config.validate()?;
    let count = config.seeds.max(1);
    let seeds: Vec<u64> = (0..count as u64)
        .map(|i| config.seed.wrapping_add(i))
        .collect();
    let mut runs = Vec::with_capacity(count);
    for (i, &seed) in seeds.iter().enumerate() {
        let slice = progress.slice(i as f64 / count as f64, (i + 1) as f64 / count as f64);
        let seed_config = OptimiseConfig {
            seed,
            ..config.clone()
        };
        let result = if i == 0 {
            run(offline, &seed_config, cache_dir, &slice, cancel, on_event)?
        } else {
            on_event(&OptimiseEvent::Stage {
                name: format!("seed {seed} ({} of {count})", i + 1),
            });
            run(
                offline,
                &seed_config,
                cache_dir,
                &slice,
                cancel,
                &mut |_| {},
            )?
        };
        runs.push(result);
    }
    let study = (count > 1).then(|| study(&seeds, &runs));
    let mut first = runs.swap_remove(0);
    first.seed_study = study;
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sign_test_matches_the_binomial_law() {
        // 5 of 5: 2 · (1/32); 4 of 5: 2 · 6/32; 3 of 5: 1; 6 of 6: 2/64; 7 of 8: 2 · 9/256.
        assert!((sign_test_p(5, 0) - 0.0625).abs() < 1e-15);
        assert!((sign_test_p(4, 1) - 0.375).abs() < 1e-15);
        assert_eq!(sign_test_p(3, 2), 1.0);
        assert!((sign_test_p(0, 6) - 0.031_25).abs() < 1e-15);
        assert!((sign_test_p(7, 1) - 18.0 / 256.0).abs() < 1e-15);
        assert_eq!(sign_test_p(0, 0), 1.0);
    }

    #[test]
    fn paired_comparisons_count_wins_in_the_metrics_direction() {
        let ours = [0.33, 0.34, 0.33, 0.35, 0.36, 0.37];
        let theirs = [0.32, 0.33, 0.33, 0.34, 0.35, 0.29];
        let p = paired("x", "hypervolume", true, &ours, &theirs);
        assert_eq!((p.wins, p.losses, p.ties), (5, 0, 1));
        assert!((p.sign_test_p - 0.0625).abs() < 1e-15);
        assert!((p.mean_difference - 0.02).abs() < 1e-12);
        assert_eq!(p.verdict(), Verdict::HoldsPartly);
        // R2: lower is better, so the same numbers are five losses.
        let r2 = paired("x", "r2", false, &ours, &theirs);
        assert_eq!((r2.wins, r2.losses), (0, 5));
        assert_eq!(r2.verdict(), Verdict::DoesNotHold);
        // Six wins of six: significant.
        let all = paired("x", "hypervolume", true, &[2.0; 6], &[1.0; 6]);
        assert_eq!(all.verdict(), Verdict::Holds);
        // Better on most seeds but worse on the mean (one large loss): does not hold.
        let outlier = paired(
            "x",
            "hypervolume",
            true,
            &[0.33, 0.34, 0.33, 0.33],
            &[0.32, 0.33, 0.32, 0.39],
        );
        assert_eq!((outlier.wins, outlier.losses), (3, 1));
        assert_eq!(outlier.verdict(), Verdict::DoesNotHold);
        let spread = Spread::of(vec![1.0, 2.0, 3.0]);
        assert_eq!((spread.mean, spread.sd), (2.0, 1.0));
    }
}
