//! The paper's two headline claims judged on one run, by the rules `scripts/claims/assimilation.py`
//! applies to the means over seeds (the panel shows this run's verdict beside its comparison;
//! the docs page holds the one over seeds).
//!
//! - **Speed** ("Tensor-Var is 10–20× faster than 4D-Var"): s = 4D-Var's time per window over
//!   Tensor-Var's, and the break-even window count, Tensor-Var's training over the time it saves
//!   per window. Holds: s ≥ 10 and the training is paid back within the run's windows; holds
//!   partly: s > 1 otherwise; does not hold: s ≤ 1.
//! - **Accuracy** ("Tensor-Var is more accurate than 4D-Var"), by mean nRMSE: does not hold when
//!   4D-Var (B tuned on training windows) is at least as accurate; holds when Tensor-Var is also
//!   more accurate than the EnKF, 3D-Var and both trivial references (climatology, no
//!   dynamics); holds partly otherwise (beating a 4D-Var that a reference beats too says
//!   little).

use serde::{Deserialize, Serialize};

use crate::experiment::AssimResult;

/// The speed claim, as the paper states it.
pub const SPEED_CLAIM: &str = "Tensor-Var is 10–20× faster than 4D-Var";

/// The accuracy claim, as the paper states it.
pub const ACCURACY_CLAIM: &str = "Tensor-Var is more accurate than 4D-Var";

/// The methods Tensor-Var must also beat for the accuracy claim to hold in full.
pub const REFERENCES: [&str; 4] = ["EnKF", "3D-Var", "Climatology", "No dynamics"];

pub use benchtop_compute::verdict::Verdict;

/// One claim judged on one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// The paper's claim.
    pub claim: String,
    /// What this run measured, in a sentence.
    pub measured: String,
    /// How far the claim holds here.
    pub verdict: Verdict,
}

/// The speed figures of one run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Speed {
    /// 4D-Var's time per window over Tensor-Var's.
    pub per_window: f64,
    /// 4D-Var's cycling time over Tensor-Var's training plus cycling, at `windows` windows
    /// (4D-Var counted without its tuning: it could run with a fixed B).
    pub total: f64,
    /// Windows after which Tensor-Var's training is paid back (∞: never).
    pub break_even_windows: f64,
    /// The window count `total` is at.
    pub windows: usize,
}

/// The speed figures of `result` at `windows` windows (`None` without both methods).
pub fn speed(result: &AssimResult, windows: usize) -> Option<Speed> {
    let tv = result.method("Tensor-Var")?;
    let fd = result.method("4D-Var")?;
    if !(tv.ms_per_window > 0.0 && fd.ms_per_window > 0.0) {
        return None;
    }
    let saved_s = (fd.ms_per_window - tv.ms_per_window) * 1e-3;
    Some(Speed {
        per_window: fd.ms_per_window / tv.ms_per_window,
        total: fd.ms_per_window * windows as f64 * 1e-3 / tv.total_seconds(windows),
        break_even_windows: if saved_s > 0.0 {
            tv.training_seconds / saved_s
        } else {
            f64::INFINITY
        },
        windows,
    })
}

/// The speed claim judged on `result` at `windows` windows.
pub fn speed_claim(result: &AssimResult, windows: usize) -> Option<Claim> {
    let s = speed(result, windows)?;
    let verdict = if s.per_window <= 1.0 {
        Verdict::DoesNotHold
    } else if s.per_window >= 10.0 && s.break_even_windows <= windows as f64 {
        Verdict::Holds
    } else {
        Verdict::HoldsPartly
    };
    let paid = if s.break_even_windows.is_finite() {
        format!(
            "training paid back after {:.0} windows",
            s.break_even_windows.ceil()
        )
    } else {
        "training never paid back".to_owned()
    };
    Some(Claim {
        claim: SPEED_CLAIM.to_owned(),
        measured: format!(
            "{:.1}× per window; {paid}; {:.2}× in total at {} windows with training",
            s.per_window, s.total, s.windows
        ),
        verdict,
    })
}

/// The accuracy claim judged on `result` by mean nRMSE.
pub fn accuracy_claim(result: &AssimResult) -> Option<Claim> {
    let tv = result.method("Tensor-Var")?.rmse_mean;
    let fd = result.method("4D-Var")?.rmse_mean;
    let beaten_by: Vec<&str> = REFERENCES
        .iter()
        .filter(|name| result.method(name).is_some_and(|m| m.rmse_mean <= tv))
        .copied()
        .collect();
    let verdict = if tv >= fd {
        Verdict::DoesNotHold
    } else if beaten_by.is_empty() {
        Verdict::Holds
    } else {
        Verdict::HoldsPartly
    };
    let others: Vec<String> = REFERENCES
        .iter()
        .filter_map(|name| result.method(name))
        .map(|m| format!("{} {:.3}", m.name, m.rmse_mean))
        .collect();
    let mut measured = format!(
        "mean nRMSE Tensor-Var {tv:.3}, 4D-Var {fd:.3} (B = {:.2} × climatology); {}",
        result.tuning.fourdvar_scale,
        others.join(", ")
    );
    if !beaten_by.is_empty() {
        measured.push_str(&format!(
            "; as accurate or better: {}",
            beaten_by.join(", ")
        ));
    }
    Some(Claim {
        claim: ACCURACY_CLAIM.to_owned(),
        measured,
        verdict,
    })
}
