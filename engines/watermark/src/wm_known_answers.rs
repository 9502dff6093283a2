//! The known answers: distribution preservation (Monte Carlo), uniform null p-values (with
//! the min-of-colours bias of the paper's Gaussian p), decoding → 100 %, AUC rising with length,
//! and KGW's perplexity cost against StealthInk's none.

use crate::detect;
use crate::experiment::{self, WatermarkParams, distribution_check};
use crate::lm::{self, ModelChoice, ModelSetup};
use crate::model::SyntheticModel;
use crate::scheme::{self, Method, Sampling, Scheme};
use crate::stats;
use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, Progress};
use rand::Rng as _;

const FULL: Sampling = Sampling {
    temperature: 1.0,
    top_k: 0,
};

/// A trigram or synthetic pair (nothing to train or cache).
fn build(choice: ModelChoice, vocab: usize) -> lm::ModelPair {
    lm::build(
        choice,
        vocab,
        &ModelSetup::default(),
        &Progress::new(),
        &CancelToken::new(),
    )
    .unwrap()
}

fn scheme(c: usize, symbols: Vec<usize>, key: u64) -> Scheme {
    Scheme {
        key,
        bits_per_symbol: c,
        context: 2,
        delta: 2.0,
        symbols,
    }
}

fn texts(
    model: &SyntheticModel,
    s: &Scheme,
    m: Method,
    n: usize,
    len: usize,
    seed: u64,
) -> Vec<Vec<u32>> {
    (0..n)
        .map(|i| {
            let mut rng = seeded(derive_seed(seed, i as u64));
            let prompt = [i as u32 % 7, (i as u32 * 3) % 11];
            scheme::generate(model, s, m, &prompt, len, FULL, &mut rng)
        })
        .collect()
}

/// 10⁵ random permutations: the mean reweighted distribution is the original within five standard
/// errors of the mean (the error of a Monte Carlo mean shrinks as 1/√draws), while the red list's
/// mass drops well below its prior share.
#[test]
fn averaged_over_permutations_the_reweighted_distribution_is_the_original() {
    for (c, seed) in [(1, 3_u64), (2, 11)] {
        let check = distribution_check(16, c, 100_000, seed);
        assert!(
            check.max_abs_deviation <= check.tolerance,
            "c = {c}: deviation {} above tolerance {}",
            check.max_abs_deviation,
            check.tolerance
        );
        assert!(check.tolerance < 5e-3, "tolerance {}", check.tolerance);
        assert!(
            check.red_mass_after < 0.5 * check.red_mass_before,
            "red mass {} → {}",
            check.red_mass_before,
            check.red_mass_after
        );
    }
}

/// Under the null (plain texts, or another key) the exact p-values are uniform: KS distance below
/// 1.95/√n (the 0.1 % critical value). The paper's Gaussian Φ(z) uses the MINIMUM colour count,
/// which sits below R·T_b without any watermark, so its p-values pile up near 0 and fail the same
/// test.
#[test]
fn null_p_values_are_uniform_once_the_min_of_colours_bias_is_accounted_for() {
    for (vocab, c, bits) in [(64_usize, 1_usize, 8_usize), (128, 2, 12)] {
        let model = SyntheticModel {
            vocab,
            concentration: 1.5,
            seed: 5,
        };
        let symbols = vec![1; bits / c];
        let s = scheme(c, symbols, 77);
        let n = 300;
        let plain = texts(&model, &s, Method::Plain, n, 120, 1);
        let mut rng = seeded(9);
        let (mut exact, mut gauss) = (Vec::new(), Vec::new());
        for t in &plain {
            let d = detect::detect(t, &s, Method::StealthInk, vocab);
            exact.push(d.p_below + rng.random::<f64>() * (d.p_exact - d.p_below));
            gauss.push(d.p_gauss);
        }
        let critical = 1.95 / (n as f64).sqrt();
        let ks = stats::ks_uniform(&exact);
        assert!(ks < critical, "vocab {vocab}, c {c}: KS {ks} ≥ {critical}");
        let ks_gauss = stats::ks_uniform(&gauss);
        assert!(
            ks_gauss > 3.0 * critical,
            "Gaussian p-values unexpectedly uniform: KS {ks_gauss}"
        );
    }
    // StealthInk texts tested with the wrong key are null too.
    let model = SyntheticModel {
        vocab: 64,
        concentration: 1.5,
        seed: 8,
    };
    let right = scheme(1, vec![0, 1, 1, 0], 1);
    let wrong = scheme(1, vec![0, 1, 1, 0], 2);
    let marked = texts(&model, &right, Method::StealthInk, 200, 100, 4);
    let p: Vec<f64> = marked
        .iter()
        .map(|t| detect::detect(t, &wrong, Method::StealthInk, 64).p_exact)
        .collect();
    let small = p.iter().filter(|&&x| x < 0.01).count();
    assert!(small <= 8, "{small} of 200 wrong-key texts at p < 0.01");
}

/// Decoded bits approach 100 % as texts grow, on the synthetic model and the KJV trigram model.
#[test]
fn decoded_bits_reach_all_correct_as_length_grows() {
    let model = SyntheticModel {
        vocab: 64,
        concentration: 1.5,
        seed: 21,
    };
    let bits = crate::message::message_bits("grace", 1_700_000_000, 8);
    let symbols = crate::message::to_symbols(&bits, 1);
    let s = scheme(1, symbols.clone(), 31);
    let long = texts(&model, &s, Method::StealthInk, 20, 600, 2);
    let accuracy = |len: usize| -> f64 {
        long.iter()
            .map(|t| {
                let d = detect::detect(&t[..len], &s, Method::StealthInk, 64);
                detect::bit_accuracy(&d.decoded, &symbols, 1, 8)
            })
            .sum::<f64>()
            / long.len() as f64
    };
    let (a30, a150, a600) = (accuracy(30), accuracy(150), accuracy(600));
    assert!(a30 < a600 && a150 <= a600, "{a30} {a150} {a600}");
    assert!(a600 >= 0.99, "accuracy at 600 tokens {a600}");
    // The real model, c = 2: a 12-bit message from 800 tokens. Its text has far less entropy per
    // token than the synthetic model's, so it needs more tokens for the same evidence.
    let pair = build(ModelChoice::Kjv, 512);
    let bits = crate::message::message_bits("hopper", 1_600_000_000, 12);
    let symbols = crate::message::to_symbols(&bits, 2);
    let s = scheme(2, symbols.clone(), 5);
    let (mut right, mut p_max) = (0.0, 0.0_f64);
    for i in 0..4 {
        let mut rng = seeded(i);
        let prompt = &pair.prompts[i as usize];
        let t = scheme::generate(
            pair.a.as_ref(),
            &s,
            Method::StealthInk,
            prompt,
            800,
            FULL,
            &mut rng,
        );
        let d = detect::detect(&t, &s, Method::StealthInk, 512);
        p_max = p_max.max(d.p_exact);
        right += detect::bit_accuracy(&d.decoded, &symbols, 2, 12);
    }
    assert!(p_max < 0.05, "KJV: largest p-value {p_max}");
    assert!(right / 4.0 >= 0.9, "KJV bit accuracy {}", right / 4.0);
}

/// The whole experiment on the synthetic pair: AUC rises with length to ≈1, plain texts give
/// AUC ≈ ½ and chance bit accuracy, KGW's perplexity rises beyond sampling noise while
/// StealthInk's stays within it, and substitution lowers detection.
#[test]
fn experiment_shows_auc_rising_and_kgw_paying_in_perplexity() {
    let params = WatermarkParams {
        model: ModelChoice::Synthetic,
        vocab: 64,
        tokens: 160,
        texts: 80,
        message_bits: 8,
        context: 2,
        check_draws: 2_000,
        ..WatermarkParams::default()
    };
    let pair = build(ModelChoice::Synthetic, 64);
    let r = experiment::run_with(&pair, &params, 3, &Progress::new(), &CancelToken::new()).unwrap();
    let get = |m: Method| r.methods.iter().find(|x| x.method == m).unwrap();
    let (plain, stealth, kgw) = (
        get(Method::Plain),
        get(Method::StealthInk),
        get(Method::Kgw),
    );
    let auc = &stealth.auc_by_tokens;
    assert!(
        auc.first().unwrap().value < auc.last().unwrap().value,
        "{auc:?}"
    );
    assert!(auc.last().unwrap().value > 0.97, "{auc:?}");
    assert!(
        (plain.auc_by_tokens.last().unwrap().value - 0.5).abs() < 0.2,
        "{:?}",
        plain.auc_by_tokens
    );
    let plain_acc = plain.bit_accuracy_by_tokens.last().unwrap().value;
    assert!(
        (plain_acc - 0.5).abs() < 0.15,
        "plain bit accuracy {plain_acc}"
    );
    let noise = 3.0 * (plain.nll_se.powi(2) + stealth.nll_se.powi(2)).sqrt();
    let (lp, ls, lk) = (
        plain.perplexity.ln(),
        stealth.perplexity.ln(),
        kgw.perplexity.ln(),
    );
    assert!(
        (ls - lp).abs() < noise,
        "StealthInk NLL {ls} vs plain {lp} (noise {noise})"
    );
    assert!(
        lk - lp > noise,
        "KGW NLL {lk} vs plain {lp} (noise {noise})"
    );
    let curve = &r.attack_curve;
    assert!(
        curve.first().unwrap().auc > curve.last().unwrap().auc,
        "{curve:?}"
    );
    assert_eq!(
        r.example.watermarked.len(),
        160,
        "substitution keeps the length"
    );
}

/// The known answers with a real neural model: a tiny GRU (256 words, 32 hidden units, two
/// epochs) trained on the KJV text. Its held-out perplexity beats the unigram's; averaged over
/// the permutation, StealthInk's reweighting of its next-token distribution is the distribution
/// itself (Monte Carlo, 2·10⁴ draws, five standard errors); 100-token StealthInk texts are
/// detected at p < 10⁻³ and their plain twins are not (p > 0.01).
#[test]
fn a_tiny_gru_keeps_the_known_answers() {
    let setup = ModelSetup {
        gru: crate::gru::GruConfig {
            embedding: 16,
            hidden: 32,
            window: 8,
            seq_len: 16,
            batch: 64,
            epochs: 2,
            learning_rate: 1e-2,
            weight_decay: 0.0,
            seed: 4,
        },
        ..ModelSetup::default()
    };
    let pair = lm::build(
        ModelChoice::Gru,
        256,
        &setup,
        &Progress::new(),
        &CancelToken::new(),
    )
    .unwrap();
    let report = pair.report.as_ref().unwrap();
    assert!(
        report.heldout_perplexity_a < report.unigram_perplexity,
        "{report:?}"
    );
    // Distribution preservation on the GRU's distribution after a real prompt.
    let mut p = vec![0.0; 256];
    pair.a.next_probs(&pair.prompts[0], &mut p);
    let s = scheme(1, vec![0, 1, 1, 0], 21);
    let draws = 20_000;
    let (mut sum, mut sum_sq) = (vec![0.0; 256], vec![0.0; 256]);
    for d in 0..draws {
        let q = scheme::stealthink_distribution(&s, derive_seed(21, d), &p);
        for v in 0..256 {
            sum[v] += q[v];
            sum_sq[v] += q[v] * q[v];
        }
    }
    let n = draws as f64;
    for v in 0..256 {
        let mean = sum[v] / n;
        let se = ((sum_sq[v] / n - mean * mean).max(0.0) / n).sqrt();
        assert!(
            (mean - p[v]).abs() <= 5.0 * se + 1e-12,
            "token {v}: mean {mean} vs p {}",
            p[v]
        );
    }
    // Detection of 100-token texts.
    let symbols = crate::message::to_symbols(&crate::message::message_bits("turing", 1, 8), 1);
    let s = scheme(1, symbols, 31);
    for i in 0..4 {
        let make = |m: Method| {
            let mut rng = seeded(derive_seed(5, i));
            scheme::generate(
                pair.a.as_ref(),
                &s,
                m,
                &pair.prompts[i as usize],
                100,
                FULL,
                &mut rng,
            )
        };
        let marked = detect::detect(&make(Method::StealthInk), &s, Method::StealthInk, 256);
        let plain = detect::detect(&make(Method::Plain), &s, Method::StealthInk, 256);
        assert!(marked.p_exact < 1e-3, "text {i}: p = {}", marked.p_exact);
        assert!(
            plain.p_exact > 0.01,
            "plain text {i}: p = {}",
            plain.p_exact
        );
    }
}

/// Plain text decodes at chance whatever the message. 600 plain texts of 12 and 40 tokens (at 12
/// tokens most of the 12 positions are unscored or tied) are decoded against messages with
/// unequal numbers of 0s and 1s: all zeros, two-thirds zeros (the default user's first bits
/// are like it) and all ones, with c = 1 and c = 2. The mean bit accuracy is within 0.03 of ½
/// each time (4 standard errors of a mean over 7,200 bits). Before the keyed coin, ties and
/// unscored positions decoded as symbol 0: all zeros then scored about 0.8 at 12 tokens and
/// all ones about 0.2.
#[test]
fn plain_text_decodes_at_chance_whatever_the_message() {
    let model = SyntheticModel {
        vocab: 64,
        concentration: 1.5,
        seed: 17,
    };
    let bits = 12;
    let messages: [Vec<u8>; 3] = [
        vec![0; bits],
        (0..bits).map(|i| u8::from(i % 3 == 2)).collect(),
        vec![1; bits],
    ];
    for c in [1_usize, 2] {
        let generator = scheme(c, vec![0; bits / c], 41);
        let plain = texts(&model, &generator, Method::Plain, 600, 40, 12);
        for message in &messages {
            let symbols = crate::message::to_symbols(message, c);
            let s = scheme(c, symbols.clone(), 41);
            for len in [12_usize, 40] {
                let (mut acc, mut coins) = (0.0, 0.0);
                for t in &plain {
                    let d = detect::detect(&t[..len], &s, Method::StealthInk, 64);
                    acc += detect::bit_accuracy(&d.decoded, &symbols, c, bits);
                    coins += d.by_coin as f64 / symbols.len() as f64;
                }
                let n = plain.len() as f64;
                let (acc, coins) = (acc / n, coins / n);
                assert!(
                    (acc - 0.5).abs() < 0.03,
                    "c = {c}, message {message:?}, {len} tokens: bit accuracy {acc} \
                     ({coins} of the positions settled by the coin)"
                );
                if len == 12 && c == 1 {
                    assert!(coins > 0.3, "at 12 tokens the coin settles {coins}");
                }
            }
        }
    }
}

/// Decoding is deterministic given the key and the text, a text too short to score anything is
/// decoded by the coin alone, and a watermarked text's clear counts are not touched by it.
#[test]
fn the_keyed_coin_settles_only_ties_and_unscored_positions() {
    let model = SyntheticModel {
        vocab: 64,
        concentration: 1.5,
        seed: 2,
    };
    let symbols = vec![1, 0, 1, 1, 0, 0, 1, 0];
    let s = scheme(1, symbols.clone(), 5);
    let short = [3_u32, 9];
    let d = detect::detect(&short, &s, Method::StealthInk, 64);
    assert_eq!(d.scored, 0);
    assert_eq!(d.by_coin, symbols.len());
    assert_eq!(d, detect::detect(&short, &s, Method::StealthInk, 64));
    let long = texts(&model, &s, Method::StealthInk, 1, 600, 3).remove(0);
    let d = detect::detect(&long, &s, Method::StealthInk, 64);
    assert_eq!(d.by_coin, 0, "600 tokens leave no tie: {d:?}");
    assert_eq!(d.decoded, symbols);
}

/// Every c the panel accepts is checked as it is: the experiment at c = 4 runs its distribution
/// check at c = 4 (16 one-token colour lists, so the red list holds 1/16 of the mass on
/// average), which preserves the distribution; before, it silently ran at c = 3 (red mass 1/8).
#[test]
fn the_distribution_check_runs_at_the_chosen_c_even_c_4() {
    let check = distribution_check(16, 4, 100_000, 5);
    assert_eq!(check.bits_per_symbol, 4);
    assert!(
        check.max_abs_deviation <= check.tolerance,
        "c = 4: deviation {} above tolerance {}",
        check.max_abs_deviation,
        check.tolerance
    );
    assert!(check.red_mass_after < check.red_mass_before);
    let params = WatermarkParams {
        model: ModelChoice::Synthetic,
        vocab: 64,
        tokens: 40,
        texts: 8,
        message_bits: 8,
        bits_per_symbol: 4,
        context: 2,
        check_draws: 4_000,
        ..WatermarkParams::default()
    };
    let pair = build(ModelChoice::Synthetic, 64);
    let r = experiment::run_with(&pair, &params, 3, &Progress::new(), &CancelToken::new()).unwrap();
    let d = &r.distribution_check;
    assert_eq!(d.bits_per_symbol, 4);
    assert!(
        (d.red_mass_before - 1.0 / 16.0).abs() < 0.01,
        "red mass {} is not 1/16",
        d.red_mass_before
    );
}

/// The summary's null calibration: KS distances with their p-values for the number of plain
/// texts; the exact p-values are uniform (KS test p above 1 %), the Gaussian ones are not, and
/// the claims say so.
#[test]
fn the_null_calibration_carries_ks_p_values_and_the_claims_follow() {
    let params = WatermarkParams {
        model: ModelChoice::Synthetic,
        vocab: 64,
        tokens: 120,
        texts: 200,
        message_bits: 8,
        context: 2,
        check_draws: 2_000,
        ..WatermarkParams::default()
    };
    let pair = build(ModelChoice::Synthetic, 64);
    let r = experiment::run_with(&pair, &params, 5, &Progress::new(), &CancelToken::new()).unwrap();
    assert_eq!(r.null_texts, 200);
    assert!((r.null_ks_p_exact - stats::ks_p_value(r.null_ks_distance_exact, 200)).abs() < 1e-15);
    assert!(
        r.null_ks_p_exact > 0.01,
        "exact p-values: KS p {}",
        r.null_ks_p_exact
    );
    assert!(
        r.null_ks_p_gauss < 1e-6,
        "Gaussian p-values: KS p {}",
        r.null_ks_p_gauss
    );
    let verdict = |id: &str| {
        r.claims
            .iter()
            .find(|c| c.id == id)
            .map(|c| c.verdict)
            .unwrap()
    };
    use crate::claims::Verdict;
    assert_eq!(verdict("gaussian_p"), Verdict::DoesNotHold);
    assert_eq!(verdict("chance"), Verdict::Holds, "{:?}", r.claims);
    assert_ne!(verdict("detection"), Verdict::DoesNotHold, "{:?}", r.claims);
    let plain = r
        .methods
        .iter()
        .find(|m| m.method == Method::Plain)
        .unwrap();
    for p in &plain.bit_accuracy_by_tokens {
        assert!(
            (p.value - 0.5).abs() < 0.06,
            "{:?}",
            plain.bit_accuracy_by_tokens
        );
    }
}
