//! Tests of the MolStitch optimisation pipeline (small and fast; the full default run is the
//! ignored `default_run_improves_on_the_offline_set`).

use std::path::PathBuf;

use benchtop_chem::offline::offline_smiles;
use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_molstitch::optimise::agent::{
    TbData, ipo_steps, rank_priority_weights, trajectory_balance,
};
use benchtop_molstitch::optimise::{
    OptimiseConfig, OptimiseEvent, OptimiseResult, StitchOperator, run,
};
use benchtop_molstitch::prior::{Prior, PriorConfig};
use benchtop_molstitch::stitchnet::StitchConfig;
use benchtop_molstitch::vocab::Vocabulary;

fn tiny_prior() -> PriorConfig {
    PriorConfig {
        embedding_dim: 8,
        hidden_units: 16,
        layers: 1,
        learning_rate: 1e-2,
        batch_size: 16,
        max_length_tokens: 60,
    }
}

fn tiny() -> OptimiseConfig {
    OptimiseConfig {
        offline_size: 40,
        prior: tiny_prior(),
        prior_epochs: 1,
        tb_epochs: 1,
        n_proxies: 3,
        proxy_rounds: 2,
        proxy_pairs_per_round: 20,
        proxy_hidden_units: 8,
        stitchnet: StitchConfig {
            embedding_dim: 8,
            hidden_units: 16,
            learning_rate: 1e-2,
            batch_size: 16,
            max_length_tokens: 60,
        },
        stitch_pairs: 32,
        stitch_epochs: 1,
        stitch_rounds: 2,
        stitched_per_round: 24,
        ipo_steps_per_round: 1,
        pool_size: 20,
        eval_budget: 16,
        seed: 3,
        ..OptimiseConfig::default()
    }
}

fn offline() -> Vec<String> {
    offline_smiles()
        .map(|s| s.into_iter().take(60).collect())
        .unwrap_or_default()
}

fn run_tiny(
    config: &OptimiseConfig,
    cache: Option<&std::path::Path>,
) -> Result<(OptimiseResult, Vec<OptimiseEvent>), ComputeError> {
    let mut events = Vec::new();
    let result = run(
        &offline(),
        config,
        cache,
        &Progress::new(),
        &CancelToken::new(),
        &mut |e: &OptimiseEvent| events.push(e.clone()),
    )?;
    Ok((result, events))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("molstitch-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn key_of(e: ComputeError) -> String {
    match e {
        ComputeError::InvalidParameter { name, .. } => name,
        other => panic!("expected an invalid parameter, got {other}"),
    }
}

#[test]
fn config_validation_names_the_key() {
    assert!(OptimiseConfig::default().validate().is_ok());
    let cases: Vec<(OptimiseConfig, &str)> = vec![
        (
            OptimiseConfig {
                weights: vec![1.0],
                ..OptimiseConfig::default()
            },
            "weights",
        ),
        (
            OptimiseConfig {
                beta: 0.0,
                ..OptimiseConfig::default()
            },
            "beta",
        ),
        (
            OptimiseConfig {
                n_proxies: 0,
                ..OptimiseConfig::default()
            },
            "n_proxies",
        ),
        (
            OptimiseConfig {
                dirichlet_alpha: f64::NAN,
                ..OptimiseConfig::default()
            },
            "dirichlet_alpha",
        ),
        (
            OptimiseConfig {
                eval_budget: 0,
                ..OptimiseConfig::default()
            },
            "eval_budget",
        ),
        (
            OptimiseConfig {
                prior: PriorConfig {
                    layers: 5,
                    ..tiny_prior()
                },
                ..OptimiseConfig::default()
            },
            "prior.layers",
        ),
        (
            OptimiseConfig {
                objectives: Vec::new(),
                weights: Vec::new(),
                ..OptimiseConfig::default()
            },
            "objectives",
        ),
    ];
    for (config, key) in cases {
        assert_eq!(key_of(config.validate().unwrap_err()), key);
    }
    // A bad config is refused by run before any work.
    let bad = OptimiseConfig {
        sigma: -1.0,
        ..tiny()
    };
    let err = run(
        &offline(),
        &bad,
        None,
        &Progress::new(),
        &CancelToken::new(),
        &mut |_: &OptimiseEvent| {},
    )
    .unwrap_err();
    assert_eq!(key_of(err), "sigma");
    // The config round-trips through serde with defaults filled in.
    let json = serde_json::to_string(&tiny()).unwrap();
    assert_eq!(
        serde_json::from_str::<OptimiseConfig>(&json).unwrap(),
        tiny()
    );
    assert_eq!(
        serde_json::from_str::<OptimiseConfig>("{\"seed\": 9}").unwrap(),
        OptimiseConfig {
            seed: 9,
            ..OptimiseConfig::default()
        }
    );
}

#[test]
fn tiny_run_is_complete_deterministic_and_cached() {
    let dir = temp_dir("cache");
    let config = tiny();
    let (a, events) = run_tiny(&config, Some(&dir)).unwrap();
    // Shape of the result.
    assert_eq!(a.objective_labels, ["qed", "sa", "sim"]);
    let names: Vec<&str> = a.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["MolStitch", "Prior fine-tuned", "BRICS crossover"]);
    assert_eq!(a.proxy_accuracy.len(), 2);
    assert_eq!(a.ipo_loss.len(), 2);
    assert!(a.offline.len() >= 38 && a.offline.len() <= 40);
    // Adding molecules never lowers the hypervolume of the offline front.
    let offline_hv = a.offline_metrics.hypervolume;
    assert!(offline_hv > 0.0);
    for m in &a.methods {
        assert!(m.metrics.hypervolume >= offline_hv, "{}", m.name);
        assert_eq!(m.hypervolume_by_budget.last().unwrap().0, 16);
        for w in m.hypervolume_by_budget.windows(2) {
            assert!(w[1].1 >= w[0].1);
        }
        assert!((0.0..=1.0).contains(&m.metrics.validity));
        for mol in &m.molecules {
            assert_eq!(mol.objectives.len(), 3);
        }
    }
    let crossover = &a.methods[2];
    assert_eq!(crossover.metrics.validity, 1.0);
    assert!(crossover.molecules.iter().all(|m| m.parents.is_some()));
    // Events: stages in order, one per round.
    let stages: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            OptimiseEvent::Stage { name } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        stages,
        [
            "score offline",
            "prior",
            "stitchnet",
            "fine-tune",
            "proxies",
            "stitch",
            "evaluate",
            "done"
        ]
    );
    let count = |f: fn(&OptimiseEvent) -> bool| events.iter().filter(|e| f(e)).count();
    assert_eq!(count(|e| matches!(e, OptimiseEvent::PriorEpoch { .. })), 1);
    assert_eq!(count(|e| matches!(e, OptimiseEvent::ProxyRound { .. })), 2);
    assert_eq!(count(|e| matches!(e, OptimiseEvent::StitchRound { .. })), 2);
    assert_eq!(count(|e| matches!(e, OptimiseEvent::PriorLoaded { .. })), 0);
    assert_eq!(
        count(|e| matches!(e, OptimiseEvent::StitchNetEpoch { .. })),
        1
    );
    assert_eq!(
        count(|e| matches!(e, OptimiseEvent::StitchNetLoaded { .. })),
        0
    );
    assert!(
        a.notes
            .iter()
            .any(|n| n.starts_with("prior trained and cached at"))
    );
    assert!(
        a.notes
            .iter()
            .any(|n| n.starts_with("StitchNet trained and cached at"))
    );

    // Second run: the prior comes from the cache, and the result is the same bits.
    let (b, events_b) = run_tiny(&config, Some(&dir)).unwrap();
    assert_eq!(count_loaded(&events_b), 1);
    assert_eq!(
        events_b
            .iter()
            .filter(|e| matches!(e, OptimiseEvent::PriorEpoch { .. }))
            .count(),
        0
    );
    assert_eq!(
        events_b
            .iter()
            .filter(|e| matches!(e, OptimiseEvent::StitchNetLoaded { .. }))
            .count(),
        1
    );
    assert_eq!(
        events_b
            .iter()
            .filter(|e| matches!(e, OptimiseEvent::StitchNetEpoch { .. }))
            .count(),
        0
    );
    assert!(
        b.notes
            .iter()
            .any(|n| n.starts_with("prior loaded from cache"))
    );
    assert!(
        b.notes
            .iter()
            .any(|n| n.starts_with("StitchNet loaded from cache"))
    );
    assert_eq!(json(&a.methods), json(&b.methods));
    assert_eq!(a.proxy_accuracy, b.proxy_accuracy);
    // Without the cache: the same bits again (training is deterministic).
    let (c, _) = run_tiny(&config, None).unwrap();
    assert_eq!(json(&a.methods), json(&c.methods));
    assert_eq!(json(&a.ipo_loss), json(&c.ipo_loss));
    // Another seed gives another run.
    let (d, _) = run_tiny(
        &OptimiseConfig {
            seed: 4,
            ..config.clone()
        },
        None,
    )
    .unwrap();
    assert_ne!(json(&a.methods), json(&d.methods));
    let _ = std::fs::remove_dir_all(&dir);
}

fn count_loaded(events: &[OptimiseEvent]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, OptimiseEvent::PriorLoaded { .. }))
        .count()
}

fn json<T: serde::Serialize>(x: &T) -> String {
    serde_json::to_string(x).unwrap_or_else(|e| format!("not serialisable: {e}"))
}

#[test]
fn cancel_returns_cancelled() {
    let cancel = CancelToken::new();
    let trigger = cancel.clone();
    let progress = Progress::new();
    let mut stages = 0;
    let result = run(
        &offline(),
        &tiny(),
        None,
        &progress,
        &cancel,
        &mut |e: &OptimiseEvent| {
            if let OptimiseEvent::Stage { name } = e {
                stages += 1;
                if name == "proxies" {
                    trigger.cancel();
                }
            }
        },
    );
    assert!(matches!(result, Err(ComputeError::Cancelled)));
    assert_eq!(stages, 5);
    assert!(progress.fraction() < 0.62);
}

#[test]
fn brics_operator_run_works_without_stitchnet() {
    let config = OptimiseConfig {
        stitch_operator: StitchOperator::Brics,
        ..tiny()
    };
    let (a, events) = run_tiny(&config, None).unwrap();
    let names: Vec<&str> = a.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["MolStitch", "Prior fine-tuned", "BRICS crossover"]);
    assert!(!events.iter().any(|e| matches!(
        e,
        OptimiseEvent::StitchNetEpoch { .. } | OptimiseEvent::StitchNetLoaded { .. }
    )));
    assert!(a.notes.iter().any(|n| n.contains("rule-based BRICS")));
    // Rule-based stitching of BRICS-compatible fragments always gives valid children.
    let rounds: Vec<f64> = events
        .iter()
        .filter_map(|e| match e {
            OptimiseEvent::StitchRound { valid_fraction, .. } => Some(*valid_fraction),
            _ => None,
        })
        .collect();
    assert_eq!(rounds.len(), 2);
    assert!(rounds.iter().all(|f| *f > 0.0), "{rounds:?}");
    // The TB-only baseline does not depend on the stitch operator.
    let (b, _) = run_tiny(&tiny(), None).unwrap();
    assert_eq!(json(&a.methods[1]), json(&b.methods[1]));
    assert_eq!(json(&a.methods[2]), json(&b.methods[2]));
}

fn corpus(n: usize) -> Result<(Vocabulary, Vec<Vec<u32>>), ComputeError> {
    let smiles: Vec<String> = offline().into_iter().take(n).collect();
    let vocab = Vocabulary::from_corpus(&smiles)?;
    let seqs = smiles
        .iter()
        .map(|s| vocab.encode(s))
        .collect::<Result<_, _>>()?;
    Ok((vocab, seqs))
}

#[test]
fn ipo_raises_the_winners_log_likelihood_over_the_losers() {
    let (vocab, seqs) = corpus(8).unwrap();
    let prior = Prior::new(vocab, tiny_prior(), 5).unwrap();
    let agent = prior.frozen_copy().unwrap();
    // Planted preference: the first four sequences beat the last four.
    let (winners, losers) = (seqs[..4].to_vec(), seqs[4..].to_vec());
    let lw0 = prior.log_likelihoods(&winners).unwrap();
    let ll0 = prior.log_likelihoods(&losers).unwrap();
    let ref_margin: Vec<f64> = lw0.iter().zip(&ll0).map(|(w, l)| w - l).collect();
    let mut adam = agent.adam(1e-2, Vec::new()).unwrap();
    let beta = 0.2;
    let losses = ipo_steps(&agent, &mut adam, &winners, &losers, &ref_margin, beta, 40).unwrap();
    // At the start the agent equals π₀: h = 0 and the loss is ½ (1/(2β))² = 3.125.
    assert!((losses[0] - 3.125).abs() < 1e-3, "{}", losses[0]);
    assert!(losses[39] < 0.3 * losses[0], "{losses:?}");
    let lw = agent.log_likelihoods(&winners).unwrap();
    let ll = agent.log_likelihoods(&losers).unwrap();
    for i in 0..4 {
        let h = (lw[i] - ll[i]) - ref_margin[i];
        assert!(h > 1.0, "pair {i}: margin gain {h}");
    }
    // π₀ is frozen: its likelihoods did not move.
    assert_eq!(prior.log_likelihoods(&winners).unwrap(), lw0);
}

#[test]
fn replay_priority_is_one_over_one_percent_of_n_plus_rank() {
    let w = rank_priority_weights(200);
    assert_eq!(w.len(), 200);
    // 0.01 · 200 = 2: the best gets 1/2, rank 1 gets 1/3, the last 1/201.
    assert_eq!(w[0], 0.5);
    assert_eq!(w[1], 1.0 / 3.0);
    assert_eq!(w[199], 1.0 / 201.0);
    assert!(w.windows(2).all(|p| p[1] < p[0]));
}

#[test]
fn trajectory_balance_reaches_its_fixed_point() {
    let (vocab, seqs) = corpus(4).unwrap();
    let prior = Prior::new(vocab, tiny_prior(), 2).unwrap();
    let agent = prior.frozen_copy().unwrap();
    let prior_logp = prior.log_likelihoods(&seqs).unwrap();
    let reward = [0.1, 0.4, 0.7, 1.0];
    let sigma = 4.0;
    let data = TbData {
        seqs: &seqs,
        prior_logp: &prior_logp,
        reward: &reward,
        sigma,
    };
    let (epochs, log_z) =
        trajectory_balance(&agent, data, 1e-2, 200, 1, || Ok(()), |_| {}).unwrap();
    assert_eq!(epochs.len(), 200);
    assert!(
        epochs[199].loss < 0.01 * epochs[0].loss,
        "{:?}",
        epochs[199]
    );
    // The fixed point: log π_θ(x) + log Z − log π₀(x) − σ r(x) = 0 for every x.
    let logp = agent.log_likelihoods(&seqs).unwrap();
    for i in 0..4 {
        let residual = logp[i] + log_z - prior_logp[i] - sigma * reward[i];
        assert!(residual.abs() < 0.1, "sequence {i}: residual {residual}");
    }
    // So the agent's log-ratio ordering follows the rewards.
    let ratio: Vec<f64> = (0..4).map(|i| logp[i] - prior_logp[i]).collect();
    assert!(ratio.windows(2).all(|w| w[1] > w[0]), "{ratio:?}");
}

/// The default CPU run (release: `cargo test --release -p benchtop-molstitch --test optimise
/// -- --ignored --nocapture`): prints every method's metrics and asserts that MolStitch's
/// hypervolume is above the offline set's. `MOLSTITCH_CONFIG` may hold a JSON
/// [`OptimiseConfig`] (missing keys take the defaults) to try other settings.
///
/// Measured on the defaults (release, about 65–70 s on 2 cores): hypervolume offline 0.3212;
/// seeds 0, 1, 2 (`{"seed": n}`): MolStitch 0.3305 / 0.3441 / 0.3279, Prior fine-tuned
/// 0.3263 / 0.3295 / 0.3299, BRICS crossover 0.3291 / 0.3302 / 0.3873. MolStitch always beats
/// the offline set, and both baselines on seeds 0 and 1 but not on seed 2.
#[test]
#[ignore = "the default run takes minutes"]
fn default_run_improves_on_the_offline_set() {
    let start = std::time::Instant::now();
    let smiles = offline_smiles().unwrap();
    let config: OptimiseConfig = std::env::var("MOLSTITCH_CONFIG")
        .map(|j| serde_json::from_str(&j).unwrap())
        .unwrap_or_default();
    eprintln!("{config:?}");
    let mut events = Vec::new();
    let result = run(
        &smiles,
        &config,
        None,
        &Progress::new(),
        &CancelToken::new(),
        &mut |e: &OptimiseEvent| {
            eprintln!("{e:?}");
            events.push(e.clone());
        },
    )
    .unwrap();
    eprintln!("offline {:?}", result.offline_metrics);
    for m in &result.methods {
        eprintln!("{} {:?} {:?}", m.name, m.metrics, m.hypervolume_by_budget);
    }
    eprintln!("notes {:?}", result.notes);
    eprintln!("wall {:.1} s", start.elapsed().as_secs_f64());
    assert!(result.methods[0].metrics.hypervolume > result.offline_metrics.hypervolume);
}

/// Over seeds: the study's first seed is the returned result, its second seed's numbers are the
/// single run at that seed, and the paired comparison counts them.
#[test]
fn seeds_are_whole_runs_compared_pairwise() {
    let config = OptimiseConfig { seeds: 2, ..tiny() };
    let mut stages = Vec::new();
    let result = benchtop_molstitch::optimise::run_seeds(
        &offline(),
        &config,
        None,
        &Progress::new(),
        &CancelToken::new(),
        &mut |e: &OptimiseEvent| {
            if let OptimiseEvent::Stage { name } = e {
                stages.push(name.clone());
            }
        },
    )
    .unwrap();
    let (first, _) = run_tiny(&tiny(), None).unwrap();
    let (second, _) = run_tiny(&OptimiseConfig { seed: 4, ..tiny() }, None).unwrap();
    assert_eq!(json(&result.methods), json(&first.methods));
    let study = result.seed_study.as_ref().expect("two seeds make a study");
    assert_eq!(study.seeds, [3, 4]);
    assert!(stages.iter().any(|s| s == "seed 4 (2 of 2)"), "{stages:?}");
    let spread = |name: &str| {
        study
            .methods
            .iter()
            .find(|m| m.name == name)
            .and_then(|m| m.metrics.iter().find(|(k, _)| k == "hypervolume"))
            .map(|(_, s)| s.clone())
            .unwrap()
    };
    let ours = spread("MolStitch");
    assert_eq!(
        ours.values,
        [
            first.methods[0].metrics.hypervolume,
            second.methods[0].metrics.hypervolume
        ]
    );
    assert!((ours.mean - (ours.values[0] + ours.values[1]) / 2.0).abs() < 1e-15);
    let crossover = spread("BRICS crossover");
    let p = study
        .paired
        .iter()
        .find(|p| p.reference == "BRICS crossover" && p.metric == "hypervolume")
        .unwrap();
    let wins = (0..2)
        .filter(|&j| ours.values[j] > crossover.values[j])
        .count();
    assert_eq!(p.wins, wins);
    assert_eq!(p.wins + p.losses + p.ties, 2);
    assert!(
        (p.mean_difference - (ours.mean - crossover.mean)).abs() < 1e-12,
        "{p:?}"
    );
    assert!(
        p.sign_test_p >= 0.5,
        "two seeds are never significant: {p:?}"
    );
    assert_eq!(study.claims.len(), 2);
    // One seed: no study.
    let one = benchtop_molstitch::optimise::run_seeds(
        &offline(),
        &OptimiseConfig { seeds: 1, ..tiny() },
        None,
        &Progress::new(),
        &CancelToken::new(),
        &mut |_: &OptimiseEvent| {},
    )
    .unwrap();
    assert!(one.seed_study.is_none());
    assert_eq!(
        key_of(
            OptimiseConfig { seeds: 0, ..tiny() }
                .validate()
                .unwrap_err()
        ),
        "seeds"
    );
}
