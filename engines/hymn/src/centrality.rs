//! Walk-based centrality: the centrality structural encoding (CSE) c_v = [(A^k)_vv / k!] for
//! k = 1..K, the full subgraph centrality SC(v) = [exp A]_vv (exactly, through the symmetric
//! eigendecomposition A = Φ Λ Φᵀ, so SC(v) = Σ_j Φ_vj² e^{λ_j}), and walk counts.

use nalgebra::{DMatrix, DVector, SymmetricEigen};

use crate::graph::Graph;

/// The CSE: row v holds (A^k)_vv / k! for k = 1..=k_max (the terms of SC(v) without k = 0).
pub fn cse(g: &Graph, k_max: usize) -> Vec<Vec<f64>> {
    let a = g.adjacency();
    let mut rows = vec![Vec::with_capacity(k_max); g.n];
    // term_k = A^k / k!, built as term_{k-1}·A / k so that no entry grows like A^k.
    let mut term = DMatrix::<f64>::identity(g.n, g.n);
    for k in 1..=k_max {
        term = &term * &a / k as f64;
        for (v, row) in rows.iter_mut().enumerate() {
            row.push(term[(v, v)]);
        }
    }
    rows
}

/// The centrality HyMN ranks by: Σ_k c_v,k over the CSE's K terms.
pub fn cse_score(g: &Graph, k_max: usize) -> Vec<f64> {
    cse(g, k_max).iter().map(|r| r.iter().sum()).collect()
}

/// The subgraph centrality SC(v) = [exp A]_vv, exactly.
pub fn subgraph_centrality(g: &Graph) -> Vec<f64> {
    if g.n == 0 {
        return Vec::new();
    }
    let eig = SymmetricEigen::new(g.adjacency());
    let weights = eig.eigenvalues.map(f64::exp);
    (0..g.n)
        .map(|v| {
            (0..g.n)
                .map(|j| eig.eigenvectors[(v, j)].powi(2) * weights[j])
                .sum()
        })
        .collect()
}

/// Walks of length 1..=length starting at each node: Σ_k (A^k 1)_v.
pub fn walks_from(g: &Graph, length: usize) -> Vec<f64> {
    let a = g.adjacency();
    let mut w = DVector::from_element(g.n, 1.0);
    let mut total = DVector::zeros(g.n);
    for _ in 0..length {
        w = &a * w;
        total += &w;
    }
    total.iter().copied().collect()
}

/// Node ids by decreasing `score`; ties keep the lower id first.
pub fn ranking(score: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..score.len()).collect();
    order.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
    order
}

#[cfg(test)]
mod hymn_centrality_tests {
    use super::*;

    /// The networkx `subgraph_centrality` doc example, nodes renumbered from 0.
    fn networkx_example() -> Graph {
        let e = [
            (1, 2),
            (1, 5),
            (1, 8),
            (2, 3),
            (2, 8),
            (3, 4),
            (3, 6),
            (4, 5),
            (4, 7),
            (5, 6),
            (6, 7),
            (7, 8),
        ];
        let edges: Vec<_> = e.iter().map(|&(a, b)| (a - 1, b - 1)).collect();
        Graph::new(8, &edges).unwrap()
    }

    #[test]
    fn networkx_example_values() {
        let g = networkx_example();
        let sc = subgraph_centrality(&g);
        let expected = [3.90, 3.90, 3.64, 3.71, 3.64, 3.71, 3.64, 3.90];
        for (v, (&got, &want)) in sc.iter().zip(&expected).enumerate() {
            assert!(
                (got - want).abs() < 0.005,
                "node {}: {got} vs {want}",
                v + 1
            );
        }
        // The truncated series plus the k = 0 term approaches the exact value: the tail after
        // K terms is below e^3·3^(K+1)/(K+1)! (the largest eigenvalue is 3).
        for (k, tol) in [(16, 1e-5), (24, 1e-9)] {
            for (s, row) in sc.iter().zip(cse(&g, k)) {
                assert!((1.0 + row.iter().sum::<f64>() - s).abs() < tol, "K = {k}");
            }
        }
    }

    #[test]
    fn closed_walks_separate_c6_from_two_triangles() {
        let c6 = Graph::cycle(6);
        let two_c3 = Graph::cycle(3).disjoint_union(&Graph::cycle(3));
        let (a, b) = (cse(&c6, 4), cse(&two_c3, 4));
        for v in 0..6 {
            // (A³)_vv / 3! is 0 in C6 and 2/6 in a triangle; (A²)_vv = degree = 2 in both.
            assert_eq!(a[v][2] * 6.0, 0.0);
            assert!((b[v][2] * 6.0 - 2.0).abs() < 1e-12);
            assert!((a[v][1] - b[v][1]).abs() < 1e-12);
        }
    }

    #[test]
    fn star_centre_ranks_first() {
        for (leaves, centre) in [(3, 0), (5, 2), (8, 8)] {
            let g = Graph::star(leaves, centre);
            for k in [2, 3, 16] {
                assert_eq!(ranking(&cse_score(&g, k))[0], centre, "K = {k}");
            }
            assert_eq!(ranking(&subgraph_centrality(&g))[0], centre);
            assert_eq!(ranking(&walks_from(&g, 2))[0], centre);
        }
    }
}
