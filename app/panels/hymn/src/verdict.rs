//! The verdict shown next to the comparison and written to `summary.json`: does marking the
//! most central nodes help beyond the CSE feature? HyMN (centrality+CSE) is judged at each T
//! against the baselines that have the same feature — MPNN+CSE (no marks) and random+CSE (T
//! random marks) — and, as the paper compares, against random marking without the CSE. The
//! rule is the claims script's (`scripts/claims/hymn.py`): over the paired ratios (HyMN's MAE
//! over the baseline's), "holds" when HyMN is lower in every pair and at least 10 % lower on
//! average, "holds partly" when it is lower in more than half, else "does not hold".

use benchtop_hymn::sampling::Method;
use benchtop_hymn::train::ExperimentResult;

/// The verdict over paired ratios method / baseline (lower is better), by the rule above.
pub fn words(ratios: &[f64]) -> &'static str {
    let n = ratios.len();
    let better = ratios.iter().filter(|r| **r < 1.0).count();
    let mean = ratios.iter().sum::<f64>() / n.max(1) as f64;
    if n > 0 && better == n && mean < 0.9 {
        "holds"
    } else if 2 * better > n {
        "holds partly"
    } else {
        "does not hold"
    }
}

/// HyMN's MAE against the baselines at one T.
#[derive(Clone, Debug, PartialEq)]
pub struct AtT {
    /// Marked copies.
    pub t: usize,
    /// centrality+CSE's test MAE.
    pub hymn: f64,
    /// random marking's (no CSE), if trained.
    pub random: Option<f64>,
    /// MPNN+CSE's, if trained.
    pub mpnn_cse: Option<f64>,
    /// random+CSE's at this T, if trained.
    pub random_cse: Option<f64>,
}

impl AtT {
    /// The better of the baselines that share HyMN's CSE feature (MPNN+CSE, random+CSE).
    pub fn fair(&self) -> Option<f64> {
        [self.mpnn_cse, self.random_cse]
            .into_iter()
            .flatten()
            .min_by(f64::total_cmp)
    }
}

/// HyMN against its baselines at every T it was trained at (empty without centrality+CSE).
pub fn comparisons(r: &ExperimentResult) -> Vec<AtT> {
    (1..=r.max_t())
        .filter_map(|t| {
            Some(AtT {
                t,
                hymn: r.mae(Method::CentralityCse, t)?,
                random: r.mae(Method::Random, t),
                mpnn_cse: r.mae(Method::MpnnCse, 0),
                random_cse: r.mae(Method::RandomCse, t),
            })
        })
        .collect()
}

/// The verdict line, or `None` when HyMN or both CSE baselines were not trained.
pub fn line(r: &ExperimentResult) -> Option<String> {
    let rows = comparisons(r);
    let ratios: Vec<f64> = rows
        .iter()
        .filter_map(|c| Some(c.hymn / c.fair()?))
        .collect();
    if ratios.is_empty() {
        return None;
    }
    let parts: Vec<String> = rows
        .iter()
        .map(|c| {
            let mut s = format!("T = {}: centrality+CSE {:.3}", c.t, c.hymn);
            for (name, v) in [
                ("MPNN+CSE", c.mpnn_cse),
                ("random+CSE", c.random_cse),
                ("random", c.random),
            ] {
                if let Some(v) = v {
                    s.push_str(&format!(", {name} {v:.3} ({:.2}×)", c.hymn / v));
                }
            }
            s
        })
        .collect();
    Some(format!(
        "Central marks help beyond the CSE feature: {} on this run. {}.",
        words(&ratios),
        parts.join("; ")
    ))
}
