//! The methods compared and which nodes each marks: none (the MPNN, with or without the CSE as
//! input), T uniformly at random (with or without the CSE), the T of highest walk-based
//! centrality (with or without the CSE), or every node (the full bag). The CSE baselines
//! separate what the marks add from what the CSE feature carries: (A³)_vv/3! sums to the
//! triangle count, so a network fed the CSE can count triangles without any mark.

use rand::seq::index::sample;
use serde::{Deserialize, Serialize};

use benchtop_compute::rng::EngineRng;

use crate::centrality::ranking;

/// A model/sampling method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Method {
    /// The plain GIN on the unmarked graph.
    Mpnn,
    /// T marked copies at nodes drawn uniformly without replacement.
    Random,
    /// T marked copies at the nodes of highest CSE score.
    Centrality,
    /// As `Centrality`, with the CSE as extra node features.
    CentralityCse,
    /// One marked copy per node.
    FullBag,
    /// The plain GIN with the CSE as node features and no marked copy.
    MpnnCse,
    /// As `Random`, with the CSE as node features.
    RandomCse,
}

impl Method {
    /// All methods, in the order summaries list them (the CSE baselines last, so the
    /// earlier methods keep their numbers in the comparison table).
    pub const ALL: [Method; 7] = [
        Method::Mpnn,
        Method::Random,
        Method::Centrality,
        Method::CentralityCse,
        Method::FullBag,
        Method::MpnnCse,
        Method::RandomCse,
    ];

    /// The name used in `summary.json` and legends.
    pub fn label(self) -> &'static str {
        match self {
            Method::Mpnn => "MPNN",
            Method::Random => "random",
            Method::Centrality => "centrality",
            Method::CentralityCse => "centrality+CSE",
            Method::FullBag => "full bag",
            Method::MpnnCse => "MPNN+CSE",
            Method::RandomCse => "random+CSE",
        }
    }

    /// Whether the number of marked copies T applies (false for the MPNN and the full bag).
    pub fn uses_t(self) -> bool {
        matches!(
            self,
            Method::Random | Method::Centrality | Method::CentralityCse | Method::RandomCse
        )
    }

    /// Whether the CSE is a node input.
    pub fn uses_cse(self) -> bool {
        matches!(
            self,
            Method::CentralityCse | Method::MpnnCse | Method::RandomCse
        )
    }

    /// The same marking without the CSE input (the method itself when it has none).
    pub fn without_cse(self) -> Method {
        match self {
            Method::CentralityCse => Method::Centrality,
            Method::MpnnCse => Method::Mpnn,
            Method::RandomCse => Method::Random,
            m => m,
        }
    }

    /// The marked nodes of one graph of `n` nodes whose centrality scores are `score`.
    pub fn marks(self, t: usize, score: &[f64], rng: &mut EngineRng) -> Vec<usize> {
        let n = score.len();
        match self {
            Method::Mpnn | Method::MpnnCse => Vec::new(),
            Method::FullBag => (0..n).collect(),
            Method::Random | Method::RandomCse => sample(rng, n, t.min(n)).into_vec(),
            Method::Centrality | Method::CentralityCse => {
                ranking(score).into_iter().take(t).collect()
            }
        }
    }
}

#[cfg(test)]
mod hymn_sampling_tests {
    use super::*;
    use crate::centrality::cse_score;
    use crate::graph::Graph;
    use benchtop_compute::rng::seeded;

    #[test]
    fn star_centre_is_marked_first_and_random_marks_are_distinct() {
        let g = Graph::star(6, 3);
        let score = cse_score(&g, 16);
        let mut rng = seeded(1);
        assert_eq!(Method::Centrality.marks(1, &score, &mut rng), vec![3]);
        assert_eq!(Method::FullBag.marks(1, &score, &mut rng).len(), 7);
        assert!(Method::Mpnn.marks(3, &score, &mut rng).is_empty());
        let mut r = Method::Random.marks(5, &score, &mut rng);
        r.sort_unstable();
        r.dedup();
        assert_eq!(r.len(), 5);
        assert_eq!(Method::Random.marks(50, &score, &mut rng).len(), 7);
        // The CSE baselines mark as their plain twins do.
        assert!(Method::MpnnCse.marks(3, &score, &mut rng).is_empty());
        assert_eq!(Method::RandomCse.marks(50, &score, &mut rng).len(), 7);
        for m in Method::ALL {
            assert_eq!(m.without_cse().uses_t(), m.uses_t(), "{m:?}");
            assert!(!m.without_cse().uses_cse());
        }
        let (mut a, mut b) = (seeded(5), seeded(5));
        assert_eq!(
            Method::RandomCse.marks(2, &score, &mut a),
            Method::Random.marks(2, &score, &mut b)
        );
    }
}
