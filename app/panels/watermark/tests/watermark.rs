//! The StealthInk panel, clicked through by its labels, and the known answer of its example
//! project.

use std::path::Path;
use std::time::Duration;

use egui_kittest::kittest::Queryable as _;

use crate::common;
use crate::examples::Example;

/// The example projects and their known answers.
pub const EXAMPLES: &[Example] = &[Example {
    project: "stealthink",
    check: check_example,
}];

/// A small experiment on the KJV trigram model: 16 texts of 100 tokens, 8-bit message.
const SMALL: &str = r#"(
    format_version: 1,
    panels: [(id: (1), state: Watermark((params: (
        run: (user_id: "grace", message_bits: 8, tokens: 100, texts: 16, vocab: 256, check_draws: 2000,
              model: Kjv),
        seed: 3,
    ))))],
)"#;

fn method<'a>(summary: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    &summary["methods"][name]
}

fn last(v: &serde_json::Value, key: &str) -> f64 {
    v.as_array()
        .and_then(|a| a.last())
        .and_then(|p| p[key].as_f64())
        .expect("a curve point")
}

#[test]
fn watermark_panel_embeds_a_user_detects_attacks_saves_and_reopens() {
    let mut harness = common::harness(common::session_from(SMALL, "small-watermark.ron"));
    harness.step();
    // A new user types their ID and sees their bits.
    let bits = |user: &str| {
        let b = benchtop_panel_watermark::engine::message::message_bits(user, 1_733_097_600, 8);
        format!(
            "bits {}",
            benchtop_panel_watermark::engine::message::bit_string(&b)
        )
    };
    assert!(
        harness
            .query_all_by_label_contains(&bits("grace"))
            .next()
            .is_some()
    );
    common::type_into(&mut harness, "User ID", "new.user@example.org");
    let shown = bits("new.user@example.org");
    assert_ne!(shown, bits("grace"));
    assert!(
        harness.query_all_by_label_contains(&shown).next().is_some(),
        "the message follows the user ID"
    );
    common::click(&mut harness, "Generate and detect");
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    let summary = common::first_summary(&harness.state().session);
    for m in ["plain", "StealthInk", "KGW"] {
        let s = method(&summary, m);
        assert!(
            s["perplexity"].as_f64().expect("perplexity") > 1.0,
            "{summary}"
        );
        assert!(s["tpr_at_1pct_fpr"].is_number(), "{m}: {summary}");
        assert!(s["auc_by_tokens"].is_array() && s["bit_accuracy_by_tokens"].is_array());
    }
    assert!(summary["distribution_check"]["max_abs_deviation"].is_number());
    assert!(
        last(&method(&summary, "StealthInk")["auc_by_tokens"], "auc") > 0.8,
        "{summary}"
    );
    assert!(
        harness
            .query_all_by_label_contains("Watermarked example")
            .next()
            .is_some()
    );
    // The null calibration: KS distances under names that say so, with their p-values; the
    // chance level of bit accuracy; the claims judged on this run.
    assert!(
        summary.get("null_ks_exact_p").is_none() && summary.get("null_ks_gaussian_p").is_none()
    );
    for key in ["null_ks_distance_exact", "null_ks_distance_gaussian"] {
        let d = summary[key].as_f64().expect(key);
        assert!((0.0..=1.0).contains(&d), "{key}: {summary}");
    }
    for key in ["null_ks_p_exact", "null_ks_p_gaussian"] {
        let p = summary[key].as_f64().expect(key);
        assert!((0.0..=1.0).contains(&p), "{key}: {summary}");
    }
    assert_eq!(summary["null_texts"], 16);
    assert_eq!(summary["bit_accuracy_chance"], 0.5);
    assert_eq!(summary["distribution_check"]["bits_per_symbol"], 1);
    let claims = summary["claims"].as_array().expect("claims");
    assert!(claims.iter().any(|c| c["id"] == "chance"), "{summary}");
    for c in claims {
        let verdict = c["verdict"].as_str().expect("verdict");
        assert!(
            ["holds", "holds partly", "does not hold"].contains(&verdict),
            "{c}"
        );
    }
    common::click(&mut harness, "Evaluation");
    assert!(
        harness
            .query_all_by_label_contains("Distribution check")
            .next()
            .is_some()
    );
    assert!(
        harness
            .query_all_by_label_contains("The paper's claims, this run")
            .next()
            .is_some()
    );

    let dir = tempfile::tempdir().expect("temporary folder");
    let reopened = common::save_and_reopen(&mut harness, &dir.path().join("watermark.ron"));
    assert_eq!(common::first_summary(&reopened), summary);
}

/// StealthInk is detected (AUC → 1 at full length), decodes most bits, keeps the plain
/// perplexity, and the Monte Carlo check holds; plain-vs-plain AUC stays near ½; plain text
/// decodes at chance at every length (within 0.1 of ½, about 4.8 standard errors over the test
/// preset's 24 texts × 24 bits; before the keyed coin it scored 0.66 at 15 tokens).
fn check_example(_out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    let stealth = method(s, "StealthInk");
    assert!(last(&stealth["auc_by_tokens"], "auc") > 0.9, "{s}");
    assert!(
        last(&stealth["bit_accuracy_by_tokens"], "bit_accuracy") > 0.7,
        "{s}"
    );
    let plain = last(&method(s, "plain")["auc_by_tokens"], "auc");
    assert!((plain - 0.5).abs() < 0.35, "{s}");
    let d = &s["distribution_check"];
    assert!(
        d["max_abs_deviation"].as_f64().expect("deviation")
            <= d["tolerance"].as_f64().expect("tolerance")
    );
    let chance = s["bit_accuracy_chance"].as_f64().expect("chance level");
    let plain_bits = method(s, "plain")["bit_accuracy_by_tokens"]
        .as_array()
        .expect("plain bit accuracy");
    assert!(!plain_bits.is_empty());
    for p in plain_bits {
        let acc = p["bit_accuracy"].as_f64().expect("bit accuracy");
        assert!(
            (acc - chance).abs() < 0.1,
            "plain text decodes at {acc}: {s}"
        );
    }
}

/// The bit-accuracy figure (and the AUC and attack panels) draw the chance level ½.
#[test]
fn watermark_accuracy_figure_draws_the_chance_level() {
    use benchtop_kit::compute::{CancelToken, Progress};
    use benchtop_kit::figure::Item;
    use benchtop_panel_watermark::engine::experiment::{self, WatermarkParams};
    use benchtop_panel_watermark::engine::lm::{self, ModelChoice, ModelSetup};
    let params = WatermarkParams {
        model: ModelChoice::Synthetic,
        vocab: 64,
        tokens: 40,
        texts: 8,
        message_bits: 8,
        context: 2,
        check_draws: 200,
        ..WatermarkParams::default()
    };
    let pair = lm::build(
        ModelChoice::Synthetic,
        64,
        &ModelSetup::default(),
        &Progress::new(),
        &CancelToken::new(),
    )
    .expect("the synthetic pair");
    let r = experiment::run_with(&pair, &params, 1, &Progress::new(), &CancelToken::new())
        .expect("a small experiment");
    let figure = benchtop_panel_watermark::figures::accuracy(&r, "substitution");
    let chance = |title: &str| {
        figure
            .subplots
            .iter()
            .filter(|s| s.title.contains(title))
            .flat_map(|s| &s.items)
            .any(|i| matches!(i, Item::HLine(l) if l.value == 0.5 && l.label.contains("chance")))
    };
    assert!(chance("Bit accuracy"), "{figure:?}");
    assert!(chance("AUC"));
}

/// A tiny GRU (64 words, 16 hidden units, two epochs) and a small experiment on it.
const TINY_GRU: &str = r#"(
    format_version: 1,
    panels: [(id: (1), state: Watermark((params: (
        run: (user_id: "grace", message_bits: 8, tokens: 40, texts: 8, vocab: 64, check_draws: 500,
              model: Kjv, gru: (embedding: 8, hidden: 16, window: 8, seq_len: 16, batch: 64, epochs: 2,
                    learning_rate: 0.01, seed: 11)),
        seed: 3,
    ))))],
)"#;

#[test]
fn watermark_panel_switches_to_a_gru_trains_it_and_shows_its_perplexity() {
    let mut harness = common::harness(common::session_from(TINY_GRU, "tiny-gru-watermark.ron"));
    harness.step();
    assert!(
        harness
            .query_all_by_label_contains("GRU hidden units")
            .next()
            .is_none(),
        "the trigram needs no GRU settings"
    );
    common::click(&mut harness, "KJV GRU");
    assert!(
        harness
            .query_all_by_label_contains("GRU hidden units")
            .next()
            .is_some()
    );
    common::click(&mut harness, "Generate and detect");
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    let summary = common::first_summary(&harness.state().session);
    let lm = &summary["language_model"];
    assert_eq!(lm["name"], "KJV GRU", "{summary}");
    let heldout = lm["heldout_perplexity"].as_f64().expect("perplexity");
    let unigram = lm["unigram_heldout_perplexity"].as_f64().expect("unigram");
    assert!(heldout > 1.0 && heldout < unigram, "{lm}");
    assert_eq!(
        lm["training_loss_by_epoch"].as_array().map(Vec::len),
        Some(2)
    );
    assert!(
        harness
            .query_all_by_label_contains("KJV GRU: held-out perplexity")
            .next()
            .is_some()
    );
    let dir = tempfile::tempdir().expect("temporary folder");
    let reopened = common::save_and_reopen(&mut harness, &dir.path().join("gru.ron"));
    assert_eq!(common::first_summary(&reopened), summary);
}
