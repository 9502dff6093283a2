//! How far one of a paper's claims holds, as every panel's claims table and `summary.json`
//! write it, and one claim judged with its measurement.

use serde::{Deserialize, Serialize};

/// How far a claim holds; ordered from "does not hold" to "holds", so the weakest of several
/// verdicts is their minimum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Verdict {
    /// The measurement contradicts the claim.
    DoesNotHold,
    /// Part of the claim is supported (a weaker form, or not against every fair baseline).
    HoldsPartly,
    /// The measurement supports the claim.
    Holds,
}

impl Verdict {
    /// "holds", "holds partly" or "does not hold", as the claims tables write it.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::HoldsPartly => "holds partly",
            Verdict::DoesNotHold => "does not hold",
        }
    }
}

/// One of the paper's claims judged on a run or over seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// A stable key, e.g. `improves_offline` or `detection`.
    pub id: String,
    /// The claim in words.
    pub claim: String,
    /// What was measured, in words with its numbers.
    pub measured: String,
    /// The verdict by the engine's rule.
    pub verdict: Verdict,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_weakest_verdict_is_the_minimum() {
        let all = [Verdict::Holds, Verdict::DoesNotHold, Verdict::HoldsPartly];
        assert_eq!(all.iter().min(), Some(&Verdict::DoesNotHold));
        assert_eq!(Verdict::HoldsPartly.text(), "holds partly");
    }
}
