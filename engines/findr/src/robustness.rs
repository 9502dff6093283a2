//! FINDR on data it was not tuned for: scenarios from [`crate::generators`], each fitted with
//! the default one-click settings, and an assessment of what the fit recovered against what was
//! planted.
//!
//! A planted fixed point is recovered when the fit (in the frame aligned to the planted latents)
//! has a point of the same kind within [`MATCH_RADIUS`] ([`SADDLE_RADIUS`] for a saddle; a
//! stable point may be found as marginal) and no extra attracting points. A planted line
//! attractor is recovered when the learned flow's Jacobian eigenvalues, the median over the
//! sample zone's grid nodes, are one near zero (at most
//! [`crate::zone_shape::SLOW_DIRECTION_RATIO`] of the other in magnitude) and the other
//! negative: a slow line that attracts, with no saddle among the fixed points (a learned double well can have weak
//! attractors on a slow line, but it has a saddle between them). The outcome of a fit is one of
//! [`Outcome`]: a fit that says its latent is unsupported has said so plainly, which is the
//! honest answer when the data do not carry the flow.

use serde::{Deserialize, Serialize};

use benchtop_compute::rng::derive_seed;
use benchtop_compute::{CancelToken, ComputeError, Progress};

use crate::analysis::{FixedPoint, Stability};
use crate::generators::{Dynamics, GeneratorParams, Link, PlantedPoint, generate};
use crate::pipeline::{FindrParams, fit_aligned};
use crate::result::FindrResult;
use crate::zone_shape::ZoneShape;

/// Largest distance (latent units, planted frame) from a planted fixed point to the recovered
/// point that matches it.
pub const MATCH_RADIUS: f64 = 0.35;
/// Largest distance from a planted saddle to the recovered saddle that matches it: saddles sit
/// where trials pass quickly and rarely stay, so the data place them less precisely.
pub const SADDLE_RADIUS: f64 = 2.0 * MATCH_RADIUS;

/// One data set to fit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    /// A short name.
    pub name: String,
    /// The generator's settings.
    pub data: GeneratorParams,
}

impl Scenario {
    /// Whether the latent reaches the spikes at all.
    pub fn has_signal(&self) -> bool {
        self.data.readout_gain != 0.0
    }

    /// The data set in words.
    pub fn describe_data(&self) -> String {
        let d = &self.data;
        format!(
            "{} trials, {} neurons, {:.0} ms bins, {} gain {}{}",
            d.n_trials,
            d.n_neurons,
            d.bin_s * 1000.0,
            match d.link {
                Link::Softplus => "softplus",
                Link::Exponential => "exp",
            },
            d.readout_gain,
            if d.drift == 0.0 {
                ""
            } else {
                ", drifting baselines"
            }
        )
    }

    /// The planted structure in words.
    pub fn describe_planted(&self) -> String {
        if self.has_signal() {
            self.data.dynamics.describe(self.data.tau_s)
        } else {
            format!(
                "none reaches the spikes (readout gain 0; latent: {})",
                self.data.dynamics.describe(self.data.tau_s)
            )
        }
    }
}

/// The scenarios of the robustness table in docs/benchmarks.md: three flows, two links, bin
/// widths of 10–20 ms, 200–800 trials, 30–200 neurons, with and without drifting baselines, and
/// one set whose latent never reaches the spikes.
pub fn default_scenarios() -> Vec<Scenario> {
    let well = Dynamics::DoubleWell {
        a: 1.0,
        k: 1.0,
        across: 1.0,
    };
    let line = Dynamics::LineAttractor { across: 1.0 };
    let focus = Dynamics::Focus {
        at: [0.3, -0.2],
        decay: 1.0,
        rotation: 2.0,
    };
    let scenario = |name: &str, data: GeneratorParams| Scenario {
        name: name.to_owned(),
        data,
    };
    vec![
        scenario("double well", GeneratorParams::new(well, 300, 60)),
        scenario(
            "double well, exp link, 20 ms",
            GeneratorParams {
                bin_s: 0.02,
                link: Link::Exponential,
                readout_gain: 0.4,
                drift: 0.0,
                ..GeneratorParams::new(well, 400, 120)
            },
        ),
        scenario(
            "weak double well with a slow line, 800 trials",
            GeneratorParams {
                duration_s: (1.0, 1.0),
                readout_gain: 6.0,
                ..GeneratorParams::new(
                    Dynamics::DoubleWell {
                        a: 1.0,
                        k: 0.3,
                        across: 1.0,
                    },
                    800,
                    60,
                )
            },
        ),
        scenario("line attractor", GeneratorParams::new(line, 400, 50)),
        scenario(
            "line attractor, exp link, 15 ms",
            GeneratorParams {
                bin_s: 0.015,
                link: Link::Exponential,
                readout_gain: 0.3,
                drift: 0.2,
                ..GeneratorParams::new(line, 200, 200)
            },
        ),
        scenario(
            "single focus, 20 ms",
            GeneratorParams {
                bin_s: 0.02,
                readout_gain: 25.0,
                drift: 0.0,
                ..GeneratorParams::new(focus, 300, 30)
            },
        ),
        scenario(
            "no signal (gain 0)",
            GeneratorParams {
                readout_gain: 0.0,
                ..GeneratorParams::new(well, 300, 80)
            },
        ),
    ]
}

/// What a fit made of a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// The planted structure was recovered, the fit says its latent is supported, and most of
    /// its restarts agree on the structure.
    Recovered,
    /// The fit says plainly that the data do not support a latent flow (and presents no fixed
    /// points as findings).
    Unsupported,
    /// The latent is supported but the fit says its restarts disagree on the structure (or it
    /// is a single fit), so it presents no fixed points as findings; the row says whether the
    /// kept fit's structure happened to be right.
    Unconfirmed,
    /// The fit claims a supported latent whose structure differs from the planted one, or
    /// claims one where none reaches the spikes: the failure this table is for.
    Wrong,
}

/// One row of the robustness table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Assessment {
    /// The planted structure in words.
    pub planted: String,
    /// The recovered structure in words.
    pub recovered: String,
    /// Whether the recovered structure matches the planted one (whatever the support).
    pub structure_matches: bool,
    /// The held-out predictive gain over the baseline alone, nats per bin, and its standard
    /// error.
    pub predictive_gain: (f64, f64),
    /// Whether the fit says its latent is supported.
    pub latent_supported: bool,
    /// The fit's notes.
    pub notes: Vec<String>,
    /// The verdict.
    pub outcome: Outcome,
}

fn kind(stability: Stability) -> &'static str {
    match stability {
        Stability::Stable => "stable",
        Stability::Unstable => "unstable",
        Stability::Saddle => "saddle",
        Stability::Marginal => "marginal",
    }
}

fn describe_point(p: &FixedPoint, support: Option<usize>, fits: usize) -> String {
    let eig = |(re, im): (f64, f64)| {
        if im.abs() > 1e-9 {
            format!("{re:.0}±{:.0}i", im.abs())
        } else {
            format!("{re:.0}")
        }
    };
    // A complex pair is one value with its conjugate.
    let eigenvalues = if p.eigenvalues[0].1.abs() > 1e-9 {
        eig(p.eigenvalues[0])
    } else {
        format!("{}, {}", eig(p.eigenvalues[1]), eig(p.eigenvalues[0]))
    };
    let mut text = format!(
        "{} ({:.2}, {:.2}) λ = {eigenvalues}",
        kind(p.stability),
        p.z[0],
        p.z[1],
    );
    if fits > 1
        && let Some(n) = support
    {
        text.push_str(&format!(" [{n}/{fits} fits]"));
    }
    text
}

/// Whether the fixed points match the planted ones (see the module notes).
fn points_match(found: &[FixedPoint], planted: &[PlantedPoint]) -> bool {
    let attracting = |s: Stability| matches!(s, Stability::Stable | Stability::Marginal);
    let each = planted.iter().all(|p| {
        found.iter().any(|q| {
            let same = match p.stability {
                Stability::Stable => attracting(q.stability),
                other => q.stability == other,
            };
            let radius = if p.stability == Stability::Saddle {
                SADDLE_RADIUS
            } else {
                MATCH_RADIUS
            };
            same && (q.z[0] - p.z[0]).hypot(q.z[1] - p.z[1]) <= radius
        })
    });
    let extra = found.iter().filter(|q| attracting(q.stability)).count()
        > planted
            .iter()
            .filter(|p| p.stability == Stability::Stable)
            .count();
    each && !extra
}

/// Assesses `result`, a fit of `scenario` in the frame aligned to its planted latents.
pub fn assess(scenario: &Scenario, result: &FindrResult) -> Assessment {
    let mut notes = result.unsupported_reasons();
    let latent_supported = notes.is_empty();
    let unconfirmed = result.unconfirmed_reasons();
    let confirmed = unconfirmed.is_empty();
    if latent_supported {
        notes = unconfirmed;
    }
    let mut points: Vec<(&FixedPoint, Option<usize>)> = result
        .fixed_points
        .iter()
        .zip(
            result
                .fixed_point_support
                .iter()
                .map(|&n| Some(n))
                .chain(std::iter::repeat(None)),
        )
        .collect();
    points.sort_by(|a, b| a.0.z[0].total_cmp(&b.0.z[0]));
    let mut recovered: Vec<String> = points
        .iter()
        .map(|(p, n)| describe_point(p, *n, result.fits))
        .collect();
    if recovered.is_empty() {
        recovered.push("no fixed points in the sample zone".to_owned());
    }
    if result.fixed_points_outside_sample_zone > 0 {
        recovered.push(format!(
            "{} more outside the sample zone",
            result.fixed_points_outside_sample_zone
        ));
    }
    let structure_matches = match scenario.data.dynamics {
        Dynamics::LineAttractor { .. } => match result.sample_zone_eigenvalues() {
            Some(zone) => {
                recovered.push(format!(
                    "in the sample zone λ ≈ {:.1}, {:.1}/s",
                    zone.slow, zone.fast
                ));
                let bistable = result
                    .fixed_points
                    .iter()
                    .any(|p| p.stability == Stability::Saddle);
                zone.shape() == ZoneShape::SlowDirection && !bistable
            }
            None => false,
        },
        dynamics => points_match(
            &result.fixed_points,
            &dynamics.fixed_points(scenario.data.tau_s),
        ),
    };
    let outcome = if !latent_supported {
        Outcome::Unsupported
    } else if !confirmed {
        Outcome::Unconfirmed
    } else if scenario.has_signal() && structure_matches {
        Outcome::Recovered
    } else {
        Outcome::Wrong
    };
    Assessment {
        planted: scenario.describe_planted(),
        recovered: recovered.join("; "),
        structure_matches,
        predictive_gain: (
            result.heldout_predictive_nll_baseline_only - result.heldout_predictive_nll,
            result.heldout_predictive_gain_se,
        ),
        latent_supported,
        notes,
        outcome,
    }
}

/// Generates `scenario` from `data_seed`, fits it with `params` and fit seed `fit_seed` (frame
/// aligned to the planted latents) and assesses the fit.
pub fn run_scenario(
    scenario: &Scenario,
    params: &FindrParams,
    data_seed: u64,
    fit_seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<(FindrResult, Assessment), ComputeError> {
    let data = generate(&scenario.data, derive_seed(data_seed, 0), cancel)?;
    let result = fit_aligned(
        &data.trials,
        &data.latents,
        params,
        fit_seed,
        progress,
        cancel,
        &mut |_| {},
    )?;
    let assessment = assess(scenario, &result);
    Ok((result, assessment))
}

/// The table's header (markdown).
pub const TABLE_HEADER: &str = "| data set | data | planted | recovered (planted frame; λ in 1/s) | \
predictive gain (nats/bin) | latent supported | outcome | notes |\n|---|---|---|---|---|---|---|---|";

/// A note without its explanation: the text before a colon, and without a parenthesis that
/// explains (one that starts with a letter; coordinates such as "(0.99, 0.00)" stay).
fn short_note(note: &str) -> String {
    let head = note.split(": ").next().unwrap_or(note);
    let mut out = String::new();
    let mut rest = head;
    while let Some(at) = rest.find(" (") {
        let explains = rest[at + 2..].starts_with(|c: char| c.is_alphabetic());
        if explains {
            out.push_str(&rest[..at]);
            return out;
        }
        out.push_str(&rest[..at + 2]);
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    out
}

/// One markdown row.
pub fn table_row(scenario: &Scenario, assessment: &Assessment) -> String {
    let outcome = match assessment.outcome {
        Outcome::Recovered => "**recovered**",
        Outcome::Unsupported => "says unsupported",
        Outcome::Unconfirmed if assessment.structure_matches => {
            "says unconfirmed (the kept fit is right)"
        }
        Outcome::Unconfirmed => "says unconfirmed (the kept fit is wrong)",
        Outcome::Wrong => "**wrong**",
    };
    let notes = if assessment.notes.is_empty() {
        "—".to_owned()
    } else {
        assessment
            .notes
            .iter()
            .map(|n| short_note(n))
            .collect::<Vec<_>>()
            .join("; ")
    };
    format!(
        "| {} | {} | {} | {} | {:.4} ± {:.4} | {} | {} | {} |",
        scenario.name,
        scenario.describe_data(),
        assessment.planted,
        assessment.recovered,
        assessment.predictive_gain.0,
        assessment.predictive_gain.1,
        assessment.latent_supported,
        outcome,
        notes
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelConfig;
    use crate::train::TrainParams;

    /// The one-click settings cut down for a debug test: a smaller model, fewer epochs.
    fn quick(epochs: usize) -> FindrParams {
        FindrParams {
            model: ModelConfig {
                flow_width: 16,
                encoder_hidden: 16,
                ..ModelConfig::default()
            },
            train: TrainParams {
                max_epochs: epochs,
                ..TrainParams::default()
            },
            ..FindrParams::default()
        }
    }

    fn run(scenario: &Scenario, epochs: usize) -> Assessment {
        let (result, assessment) = run_scenario(
            scenario,
            &quick(epochs),
            1,
            1,
            &Progress::new(),
            &CancelToken::new(),
        )
        .unwrap();
        if std::env::var("FINDR_TEST_VERBOSE").is_ok() {
            println!(
                "{}\nbest epoch {}, R² {:.3}, kept fit {} of {}, agreement per fit {:?}",
                table_row(scenario, &assessment),
                result.best_epoch,
                result.alignment_r2,
                result.kept_fit + 1,
                result.fits,
                result.restart_agreement
            );
        }
        assessment
    }

    #[test]
    fn findr_table_notes_keep_coordinates_and_drop_explanations() {
        assert_eq!(
            short_note("the stable point at (0.99, 0.00) is found by only 1 of 3 fits"),
            "the stable point at (0.99, 0.00) is found by only 1 of 3 fits"
        );
        assert_eq!(
            short_note("the latent does not predict (test NLL 1 against 2)"),
            "the latent does not predict"
        );
        assert_eq!(short_note("one fit: not checked"), "one fit");
    }

    #[test]
    fn findr_matching_needs_every_planted_point_and_no_extra_attractor() {
        let point = crate::analysis::test_point;
        let planted = Dynamics::DoubleWell {
            a: 1.0,
            k: 1.0,
            across: 1.0,
        }
        .fixed_points(0.1);
        let good = [
            point(-1.1, Stability::Stable),
            point(0.1, Stability::Saddle),
            point(0.9, Stability::Marginal),
        ];
        assert!(points_match(&good, &planted));
        assert!(!points_match(&good[..2], &planted));
        let extra = [good.to_vec(), vec![point(2.0, Stability::Stable)]].concat();
        assert!(!points_match(&extra, &planted));
        let far = [
            point(-1.5, Stability::Stable),
            point(0.1, Stability::Saddle),
            point(0.9, Stability::Stable),
        ];
        assert!(!points_match(&far, &planted));
    }

    /// A gradient double well driven by pulses, read out through an exponential link in 20 ms
    /// bins with no baseline drift: two attractors and the saddle between them.
    #[test]
    fn findr_recovers_a_double_well_through_an_exponential_link() {
        let scenario = Scenario {
            name: "double well, exp, 20 ms (test size)".to_owned(),
            data: GeneratorParams {
                bin_s: 0.02,
                link: Link::Exponential,
                readout_gain: 0.5,
                drift: 0.0,
                ..GeneratorParams::new(
                    Dynamics::DoubleWell {
                        a: 1.0,
                        k: 1.0,
                        across: 1.0,
                    },
                    200,
                    60,
                )
            },
        };
        let assessment = run(&scenario, 30);
        assert_eq!(assessment.outcome, Outcome::Recovered, "{assessment:?}");
    }

    /// A pure line attractor in 15 ms bins with drifting baselines: one slow direction along
    /// the line, attraction across it.
    #[test]
    fn findr_recovers_a_line_attractor() {
        let scenario = Scenario {
            name: "line attractor, 15 ms (test size)".to_owned(),
            data: GeneratorParams {
                bin_s: 0.015,
                ..GeneratorParams::new(Dynamics::LineAttractor { across: 1.0 }, 200, 50)
            },
        };
        let assessment = run(&scenario, 30);
        assert_eq!(assessment.outcome, Outcome::Recovered, "{assessment:?}");
    }

    /// Drifting baselines and a latent that never reaches the spikes: the fit must say its
    /// latent is unsupported.
    #[test]
    fn findr_says_a_set_without_signal_is_unsupported() {
        let scenario = Scenario {
            name: "no signal (test size)".to_owned(),
            data: GeneratorParams {
                readout_gain: 0.0,
                bin_s: 0.02,
                ..GeneratorParams::new(Dynamics::LineAttractor { across: 1.0 }, 200, 40)
            },
        };
        let assessment = run(&scenario, 30);
        assert_eq!(assessment.outcome, Outcome::Unsupported, "{assessment:?}");
        assert!(!assessment.latent_supported);
    }

    /// The robustness table of docs/benchmarks.md: every default scenario with the default
    /// one-click settings (data seed 1, fit seed 1). Run in release:
    /// `scripts/findr-robustness.sh` (or `cargo test --release -p benchtop-findr --lib
    /// findr_robustness_table -- --ignored --nocapture`; `FINDR_ROWS=0,3` picks rows,
    /// `FINDR_RESTARTS` sets the restarts).
    #[test]
    #[ignore = "minutes of training; run in release"]
    fn findr_robustness_table() {
        let rows: Option<Vec<usize>> = std::env::var("FINDR_ROWS")
            .ok()
            .map(|v| v.split(',').filter_map(|k| k.trim().parse().ok()).collect());
        let defaults = FindrParams::default();
        let params = FindrParams {
            restarts: std::env::var("FINDR_RESTARTS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(defaults.restarts),
            ..defaults
        };
        println!("{TABLE_HEADER}");
        for (k, scenario) in default_scenarios().iter().enumerate() {
            if rows.as_ref().is_some_and(|r| !r.contains(&k)) {
                continue;
            }
            let start = std::time::Instant::now();
            let (result, assessment) = run_scenario(
                scenario,
                &params,
                1,
                1,
                &Progress::new(),
                &CancelToken::new(),
            )
            .unwrap();
            println!("{}", table_row(scenario, &assessment));
            eprintln!(
                "  ({:.0} s; best epoch {} of {}; alignment R² {:.3}; kept fit {} of {}, \
                 agreement per fit {:?})",
                start.elapsed().as_secs_f64(),
                result.best_epoch,
                result.history.len(),
                result.alignment_r2,
                result.kept_fit + 1,
                result.fits,
                result.restart_agreement
            );
        }
    }
}
