//! Figures, tables and the summary of an experiment.

use benchtop_kit::figure::{Figure, Line, Subplot};
use benchtop_kit::panel::DataTable;
use benchtop_watermark::experiment::{AtLength, BIT_ACCURACY_CHANCE, WatermarkResult};
use benchtop_watermark::message::bit_string;
use benchtop_watermark::scheme::Method;
use serde_json::{Value, json};

/// z and −log₁₀ p of the example texts against their length.
pub fn detection_curve(r: &WatermarkResult) -> Figure {
    let unzip = |c: &[(usize, f64, f64)]| -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        (
            c.iter().map(|x| x.0 as f64).collect(),
            c.iter().map(|x| x.1).collect(),
            c.iter().map(|x| -x.2.max(1e-300).log10()).collect(),
        )
    };
    let (wx, wz, wp) = unzip(&r.example.watermarked_curve);
    let (px, pz, pp) = unzip(&r.example.plain_curve);
    Figure::new("Detection against length (example texts)")
        .grid(1, 2)
        .size_in(9.0, 3.6)
        .subplot(
            Subplot::new("Paper's z (min-of-colours)")
                .legend(true)
                .x_label("Tokens")
                .y_label("z")
                .with(Line::new("StealthInk", wx.clone(), wz))
                .with(Line::new("plain", px.clone(), pz)),
        )
        .subplot(
            Subplot::new("Exact p-value")
                .legend(true)
                .x_label("Tokens")
                .y_label("−log₁₀ p")
                .with(Line::new("StealthInk", wx, wp))
                .with(Line::new("plain", px, pp)),
        )
}

/// ROC at full length for every method.
pub fn roc(r: &WatermarkResult) -> Figure {
    let mut s = Subplot::new("ROC at full length")
        .legend(true)
        .x_label("False positive rate")
        .y_label("True positive rate")
        .x_range(0.0, 1.0)
        .y_range(0.0, 1.0);
    for m in &r.methods {
        let name = if m.method == Method::Plain {
            "plain vs plain".to_owned()
        } else {
            m.method.name().to_owned()
        };
        s = s.with(Line::new(
            name,
            m.roc.iter().map(|p| p.0).collect::<Vec<_>>(),
            m.roc.iter().map(|p| p.1).collect::<Vec<_>>(),
        ));
    }
    Figure::new("ROC").subplot(s)
}

fn at_length_line(name: &str, points: &[AtLength]) -> Line {
    Line::new(
        name,
        points.iter().map(|p| p.tokens as f64).collect::<Vec<_>>(),
        points.iter().map(|p| p.value).collect::<Vec<_>>(),
    )
}

/// AUC and bit accuracy against length, each with its chance level (½: a detector or decoder
/// that knows nothing), and the attack curve.
pub fn accuracy(r: &WatermarkResult, attack: &str) -> Figure {
    let mut auc = Subplot::new("AUC against length")
        .legend(true)
        .x_label("Tokens")
        .y_label("AUC")
        .y_range(0.4, 1.02);
    let mut bits = Subplot::new("Bit accuracy against length")
        .legend(true)
        .x_label("Tokens")
        .y_label("Bit accuracy")
        .y_range(0.4, 1.02);
    auc = auc.hline(0.5, "chance (½)");
    bits = bits.hline(BIT_ACCURACY_CHANCE, "chance (½)");
    for m in &r.methods {
        auc = auc.with(at_length_line(m.method.name(), &m.auc_by_tokens));
        if !m.bit_accuracy_by_tokens.is_empty() {
            bits = bits.with(at_length_line(m.method.name(), &m.bit_accuracy_by_tokens));
        }
    }
    let rates: Vec<f64> = r.attack_curve.iter().map(|p| p.rate).collect();
    let attacked = Subplot::new(format!("StealthInk under {attack}"))
        .legend(true)
        .x_label("Attack rate")
        .y_label("Value")
        .y_range(0.0, 1.02)
        .hline(0.5, "chance (½)")
        .with(Line::new(
            "AUC",
            rates.clone(),
            r.attack_curve.iter().map(|p| p.auc).collect::<Vec<_>>(),
        ))
        .with(Line::new(
            "TPR at 1 % FPR",
            rates.clone(),
            r.attack_curve
                .iter()
                .map(|p| p.tpr_at_1pct_fpr)
                .collect::<Vec<_>>(),
        ))
        .with(Line::new(
            "bit accuracy",
            rates,
            r.attack_curve
                .iter()
                .map(|p| p.bit_accuracy)
                .collect::<Vec<_>>(),
        ));
    Figure::new("Detection and decoding")
        .grid(1, 3)
        .size_in(12.0, 3.8)
        .subplot(auc)
        .subplot(bits)
        .subplot(attacked)
}

/// The per-method table (perplexities, TPR, AUC and bit accuracy at full length).
pub fn methods_table(r: &WatermarkResult) -> DataTable {
    let last = |v: &[AtLength]| v.last().map_or(f64::NAN, |p| p.value);
    let rows = r
        .methods
        .iter()
        .enumerate()
        .map(|(i, m)| {
            vec![
                i as f64,
                m.perplexity,
                m.perplexity_second,
                last(&m.auc_by_tokens),
                m.tpr_at_1pct_fpr,
                last(&m.bit_accuracy_by_tokens),
            ]
        })
        .collect();
    DataTable::new(
        "watermark-methods",
        &[
            "method (0 plain, 1 StealthInk, 2 KGW, 3 KGW multi-bit)",
            "perplexity",
            "perplexity_second_model",
            "auc",
            "tpr_at_1pct_fpr",
            "bit_accuracy",
        ],
        rows,
    )
}

/// The attack curve table.
pub fn attack_table(r: &WatermarkResult) -> DataTable {
    DataTable::new(
        "watermark-attack",
        &["rate", "auc", "tpr_at_1pct_fpr", "bit_accuracy"],
        r.attack_curve
            .iter()
            .map(|p| vec![p.rate, p.auc, p.tpr_at_1pct_fpr, p.bit_accuracy])
            .collect(),
    )
}

/// summary.json: `methods` (plain, StealthInk, KGW, KGW multi-bit), `distribution_check`, the
/// attack curve, the message, the chance level of bit accuracy, the null calibration (KS
/// distances and their p-values) and the claims judged on this run.
pub fn summary(r: &WatermarkResult, attack: &str) -> Value {
    let curve = |v: &[AtLength], key: &str| -> Value {
        v.iter()
            .map(|p| json!({"tokens": p.tokens, key: p.value}))
            .collect()
    };
    // Bit accuracy with the share of positions the decoder's keyed coin settled.
    let bit_curve = |v: &[AtLength], coin: &[AtLength]| -> Value {
        v.iter()
            .map(|p| {
                let by_coin = coin
                    .iter()
                    .find(|c| c.tokens == p.tokens)
                    .map_or(Value::Null, |c| c.value.into());
                json!({"tokens": p.tokens, "bit_accuracy": p.value, "decided_by_coin": by_coin})
            })
            .collect()
    };
    let methods: serde_json::Map<String, Value> = r
        .methods
        .iter()
        .map(|m| {
            (
                m.method.name().to_owned(),
                json!({
                    "perplexity": m.perplexity,
                    "perplexity_second_model": m.perplexity_second,
                    "nll_standard_error": m.nll_se,
                    "auc_by_tokens": curve(&m.auc_by_tokens, "auc"),
                    "tpr_at_1pct_fpr": m.tpr_at_1pct_fpr,
                    "bit_accuracy_by_tokens":
                        bit_curve(&m.bit_accuracy_by_tokens, &m.coin_fraction_by_tokens),
                }),
            )
        })
        .collect();
    let d = &r.distribution_check;
    json!({
        "methods": methods,
        "distribution_check": {
            "bits_per_symbol": d.bits_per_symbol,
            "max_abs_deviation": d.max_abs_deviation,
            "tolerance": d.tolerance,
            "draws": d.draws,
            "vocab": d.vocab,
            "red_mass_before": d.red_mass_before,
            "red_mass_after": d.red_mass_after,
        },
        "attack_curve": {
            "attack": attack,
            "points": r.attack_curve.iter().map(|p| json!({
                "rate": p.rate, "auc": p.auc, "tpr_at_1pct_fpr": p.tpr_at_1pct_fpr,
                "bit_accuracy": p.bit_accuracy,
            })).collect::<Vec<_>>(),
        },
        "message_bits": bit_string(&r.bits),
        "example_decoded_bits": bit_string(&r.example.decoded_bits),
        "bit_accuracy_chance": BIT_ACCURACY_CHANCE,
        "null_texts": r.null_texts,
        "null_ks_distance_exact": r.null_ks_distance_exact,
        "null_ks_distance_gaussian": r.null_ks_distance_gauss,
        "null_ks_p_exact": r.null_ks_p_exact,
        "null_ks_p_gaussian": r.null_ks_p_gauss,
        "claims": r.claims.iter().map(|c| json!({
            "id": c.id, "claim": c.claim, "measured": c.measured, "verdict": c.verdict.text(),
        })).collect::<Vec<_>>(),
        "language_model": r.model.as_ref().map(|m| json!({
            "name": m.name,
            "heldout_tokens": m.heldout_tokens,
            "heldout_perplexity": m.heldout_perplexity_a,
            "heldout_perplexity_second_model": m.heldout_perplexity_b,
            "unigram_heldout_perplexity": m.unigram_perplexity,
            "training_loss_by_epoch": m.loss_history_a,
            "training_loss_by_epoch_second_model": m.loss_history_b,
        })),
    })
}
