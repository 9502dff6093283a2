//! The paper's claims judged on one experiment by fixed rules, so that the panel (beside its
//! comparison), `summary.json` (`claims`) and `scripts/claims/watermark.py` (over seeds) give the
//! same verdict for the same numbers.
//!
//! The rules (SE: standard error; "chance" is [`BIT_ACCURACY_CHANCE`]):
//! - `stealthy`, the watermark leaves the model's distribution unchanged: holds when the Monte
//!   Carlo check's largest deviation is within its tolerance and StealthInk's mean per-token NLL
//!   is within 3 SE of the plain texts'; holds partly when one of the two; else does not hold.
//! - `detection`, detection needs only the key: holds when the AUC at full length is at least
//!   0.99 and the TPR at 1 % FPR at least 0.9; does not hold when the AUC is below 0.9; else
//!   holds partly.
//! - `decoding`, the multi-bit message is decoded: holds when the bit accuracy at full length is
//!   at least 0.99; does not hold when it is within 3 SE of chance (SE = ½/√(texts × bits));
//!   else holds partly.
//! - `robustness`, the watermark survives moderate edits: the AUC at the project's attack rate
//!   (the chosen attack): holds at 0.95 or more, does not hold below 0.7, else holds partly.
//! - `gaussian_p`, the paper's Φ(z) is a p-value: holds when the KS test does not reject
//!   uniformity of the plain texts' Gaussian p-values at 5 %, else does not hold.
//! - `chance` (a reference, not the paper's): plain text decodes at chance: holds when the plain
//!   texts' bit accuracy is within 3 SE of ½ at every length, else does not hold.

use crate::experiment::{
    AtLength, BIT_ACCURACY_CHANCE, MethodResult, WatermarkParams, WatermarkResult,
};
use crate::scheme::Method;

pub use benchtop_compute::verdict::{Claim, Verdict};

fn claim(id: &str, text: &str, measured: String, verdict: Verdict) -> Claim {
    Claim {
        id: id.to_owned(),
        claim: text.to_owned(),
        measured,
        verdict,
    }
}

fn last(v: &[AtLength]) -> f64 {
    v.last().map_or(f64::NAN, |p| p.value)
}

/// "a / b / c at x / y / z tokens".
fn by_length(v: &[AtLength], digits: usize) -> String {
    let values: Vec<String> = v.iter().map(|p| format!("{:.digits$}", p.value)).collect();
    let lengths: Vec<String> = v.iter().map(|p| p.tokens.to_string()).collect();
    format!("{} at {} tokens", values.join(" / "), lengths.join(" / "))
}

/// The NLL difference of `m` from `plain` in nats and in standard errors of the difference.
fn nll_shift(m: &MethodResult, plain: &MethodResult) -> (f64, f64) {
    let diff = m.perplexity.ln() - plain.perplexity.ln();
    let se = (m.nll_se.powi(2) + plain.nll_se.powi(2)).sqrt();
    (diff, diff / se.max(f64::MIN_POSITIVE))
}

/// The claims of the paper (and the chance reference) judged on `r`, made with `p`. Claims
/// whose method is missing from `r` are left out.
pub fn judge(r: &WatermarkResult, p: &WatermarkParams) -> Vec<Claim> {
    let get = |m: Method| r.methods.iter().find(|x| x.method == m);
    let (Some(plain), Some(stealth)) = (get(Method::Plain), get(Method::StealthInk)) else {
        return Vec::new();
    };
    let bits_se = 0.5 / ((p.texts * p.message_bits) as f64).sqrt();
    let mut out = Vec::new();

    let d = &r.distribution_check;
    let check_ok = d.max_abs_deviation <= d.tolerance;
    let (diff, in_se) = nll_shift(stealth, plain);
    let kgw = get(Method::Kgw).map_or(String::new(), |k| {
        let (kd, ks) = nll_shift(k, plain);
        format!("; KGW {kd:+.3} nats ({ks:+.1} SE)")
    });
    let nll_ok = in_se.abs() < 3.0;
    out.push(claim(
        "stealthy",
        "The watermark leaves the model's distribution unchanged",
        format!(
            "over {} permutations (c = {}, V = {}) the mean reweighted distribution is within \
             {:.1e} of the original (tolerance {:.1e}); StealthInk's mean NLL {diff:+.3} nats \
             from plain ({in_se:+.1} SE){kgw}",
            d.draws, d.bits_per_symbol, d.vocab, d.max_abs_deviation, d.tolerance
        ),
        match (check_ok, nll_ok) {
            (true, true) => Verdict::Holds,
            (false, false) => Verdict::DoesNotHold,
            _ => Verdict::HoldsPartly,
        },
    ));

    let auc = last(&stealth.auc_by_tokens);
    out.push(claim(
        "detection",
        "Detection needs only the key (no model, no prompt)",
        format!(
            "AUC {}; TPR {:.2} at 1 % FPR at full length",
            by_length(&stealth.auc_by_tokens, 3),
            stealth.tpr_at_1pct_fpr
        ),
        if auc >= 0.99 && stealth.tpr_at_1pct_fpr >= 0.9 {
            Verdict::Holds
        } else if auc < 0.9 {
            Verdict::DoesNotHold
        } else {
            Verdict::HoldsPartly
        },
    ));

    let acc = last(&stealth.bit_accuracy_by_tokens);
    out.push(claim(
        "decoding",
        "The multi-bit message is decoded from the text",
        format!(
            "bit accuracy of the {} bits {} (plain text: {}; chance {BIT_ACCURACY_CHANCE})",
            p.message_bits,
            by_length(&stealth.bit_accuracy_by_tokens, 3),
            by_length(&plain.bit_accuracy_by_tokens, 3)
        ),
        if acc >= 0.99 {
            Verdict::Holds
        } else if acc - BIT_ACCURACY_CHANCE < 3.0 * bits_se {
            Verdict::DoesNotHold
        } else {
            Verdict::HoldsPartly
        },
    ));

    if let Some(point) = r
        .attack_curve
        .iter()
        .find(|x| (x.rate - p.attack_rate).abs() < 1e-9)
    {
        out.push(claim(
            "robustness",
            "The watermark survives moderate edits",
            format!(
                "{} at rate {:.2}: AUC {:.3}, TPR {:.2} at 1 % FPR, bit accuracy {:.3}",
                p.attack.name(),
                point.rate,
                point.auc,
                point.tpr_at_1pct_fpr,
                point.bit_accuracy
            ),
            if point.auc >= 0.95 {
                Verdict::Holds
            } else if point.auc < 0.7 {
                Verdict::DoesNotHold
            } else {
                Verdict::HoldsPartly
            },
        ));
    }

    out.push(claim(
        "gaussian_p",
        "The paper's Φ(z) of the min-of-colours z is a p-value",
        format!(
            "over {} plain texts the Gaussian p-values are at KS distance {:.3} from uniform \
             (KS test p = {:.2e}); the exact null law's at {:.3} (p = {:.2})",
            r.null_texts,
            r.null_ks_distance_gauss,
            r.null_ks_p_gauss,
            r.null_ks_distance_exact,
            r.null_ks_p_exact
        ),
        if r.null_ks_p_gauss >= 0.05 {
            Verdict::Holds
        } else {
            Verdict::DoesNotHold
        },
    ));

    let at_chance = !plain.bit_accuracy_by_tokens.is_empty()
        && plain
            .bit_accuracy_by_tokens
            .iter()
            .all(|x| (x.value - BIT_ACCURACY_CHANCE).abs() < 3.0 * bits_se);
    out.push(claim(
        "chance",
        "[reference] Plain text decodes at chance (½)",
        format!(
            "plain texts' bit accuracy {} (3 SE = {:.3})",
            by_length(&plain.bit_accuracy_by_tokens, 3),
            3.0 * bits_se
        ),
        if at_chance {
            Verdict::Holds
        } else {
            Verdict::DoesNotHold
        },
    ));
    out
}
