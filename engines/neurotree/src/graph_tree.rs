//! The brain tree: a minimum spanning tree (Kruskal, via petgraph) on a symmetric distance
//! matrix, usually the distance 1 − r of a correlation matrix.

use crate::matrix::Matrix;
use benchtop_compute::ComputeError;
use petgraph::algo::min_spanning_tree;
use petgraph::data::Element;
use petgraph::graph::UnGraph;
use serde::{Deserialize, Serialize};

/// One undirected tree edge `a < b` with its weight (distance).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TreeEdge {
    /// The smaller node index.
    pub a: usize,
    /// The larger node index.
    pub b: usize,
    /// The edge's distance.
    pub weight: f64,
}

/// A spanning tree (or forest) over `n_nodes` nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpanningTree {
    /// Number of nodes.
    pub n_nodes: usize,
    /// The edges, sorted by (a, b).
    pub edges: Vec<TreeEdge>,
    /// The sum of the edge weights.
    pub total_weight: f64,
}

impl SpanningTree {
    /// Neighbour lists, each sorted ascending.
    pub fn adjacency(&self) -> Vec<Vec<usize>> {
        let mut adj = vec![Vec::new(); self.n_nodes];
        for e in &self.edges {
            adj[e.a].push(e.b);
            adj[e.b].push(e.a);
        }
        for l in &mut adj {
            l.sort_unstable();
        }
        adj
    }
}

/// The minimum spanning tree of the complete graph whose edge (i, j) has distance
/// ½(d_ij + d_ji) (the matrix is symmetrised as in the paper's code).
///
/// Errors when `distance` is not square or has a non-finite off-diagonal entry.
pub fn minimum_spanning_tree(distance: &Matrix) -> Result<SpanningTree, ComputeError> {
    if !distance.is_square() {
        return Err(ComputeError::invalid("distance", "must be square"));
    }
    let n = distance.rows();
    let mut graph: UnGraph<(), f64> = UnGraph::with_capacity(n, n * n.saturating_sub(1) / 2);
    let nodes: Vec<_> = (0..n).map(|_| graph.add_node(())).collect();
    for i in 0..n {
        for j in (i + 1)..n {
            let d = 0.5 * (distance.get(i, j) + distance.get(j, i));
            if !d.is_finite() {
                return Err(ComputeError::invalid(
                    "distance",
                    format!("entry ({i}, {j}) is not finite"),
                ));
            }
            graph.add_edge(nodes[i], nodes[j], d);
        }
    }
    let mut edges: Vec<TreeEdge> = min_spanning_tree(&graph)
        .filter_map(|el| match el {
            Element::Edge {
                source,
                target,
                weight,
                ..
            } => Some(TreeEdge {
                a: source.min(target),
                b: source.max(target),
                weight,
            }),
            Element::Node { .. } => None,
        })
        .collect();
    edges.sort_by_key(|e| (e.a, e.b));
    let total_weight = edges.iter().map(|e| e.weight).sum();
    Ok(SpanningTree {
        n_nodes: n,
        edges,
        total_weight,
    })
}

/// The paper's brain tree: the minimum spanning tree of the distance 1 − r, where `correlation`
/// is a (signed) Pearson correlation matrix.
pub fn brain_tree(correlation: &Matrix) -> Result<SpanningTree, ComputeError> {
    if !correlation.is_square() {
        return Err(ComputeError::invalid("correlation", "must be square"));
    }
    let n = correlation.rows();
    let data = correlation.as_slice().iter().map(|r| 1.0 - r).collect();
    minimum_spanning_tree(&Matrix::from_row_major(n, n, data)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    /// The smallest total weight over every (n − 1)-edge subset that spans the complete graph.
    fn brute_force(d: &Matrix) -> (f64, usize) {
        let n = d.rows();
        let all: Vec<(usize, usize)> = (0..n)
            .flat_map(|i| ((i + 1)..n).map(move |j| (i, j)))
            .collect();
        let mut best = f64::INFINITY;
        let mut count = 0;
        for mask in 0u32..(1 << all.len()) {
            if mask.count_ones() as usize != n - 1 {
                continue;
            }
            let mut parent: Vec<usize> = (0..n).collect();
            fn find(p: &mut [usize], x: usize) -> usize {
                let mut x = x;
                while p[x] != x {
                    x = p[x];
                }
                x
            }
            let mut acyclic = true;
            let mut w = 0.0;
            for (k, &(i, j)) in all.iter().enumerate() {
                if mask & (1 << k) == 0 {
                    continue;
                }
                let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
                if ri == rj {
                    acyclic = false;
                    break;
                }
                parent[ri] = rj;
                w += 0.5 * (d.get(i, j) + d.get(j, i));
            }
            if acyclic {
                count += 1;
                best = best.min(w);
            }
        }
        (best, count)
    }

    #[test]
    fn mst_matches_brute_force_on_small_random_graphs() {
        let mut rng = benchtop_compute::rng::seeded(11);
        for n in 2..=6 {
            for _ in 0..5 {
                let data = (0..n * n).map(|_| rng.random_range(0.0..2.0)).collect();
                let d = Matrix::from_row_major(n, n, data).unwrap();
                let tree = minimum_spanning_tree(&d).unwrap();
                let (best, count) = brute_force(&d);
                // Cayley: the complete graph K_n has n^(n−2) spanning trees.
                assert_eq!(count, n.pow(n as u32 - 2));
                assert_eq!(tree.edges.len(), n - 1);
                assert!((tree.total_weight - best).abs() < 1e-12, "n = {n}");
                // Spanning: every node is reached from node 0.
                let adj = tree.adjacency();
                let mut seen = vec![false; n];
                let mut stack = vec![0];
                seen[0] = true;
                while let Some(u) = stack.pop() {
                    for &v in &adj[u] {
                        if !seen[v] {
                            seen[v] = true;
                            stack.push(v);
                        }
                    }
                }
                assert!(seen.iter().all(|&s| s));
            }
        }
    }

    #[test]
    fn brain_tree_of_a_chain_correlation_is_the_chain() {
        // r_ij = 0.9^|i−j|: the nearest neighbours are the closest in 1 − r.
        let n = 5;
        let mut r = Matrix::identity(n);
        for i in 0..n {
            for j in 0..n {
                r.set(i, j, 0.9_f64.powi((i as i32 - j as i32).abs()));
            }
        }
        let t = brain_tree(&r).unwrap();
        let pairs: Vec<(usize, usize)> = t.edges.iter().map(|e| (e.a, e.b)).collect();
        assert_eq!(pairs, vec![(0, 1), (1, 2), (2, 3), (3, 4)]);
        assert!((t.total_weight - 4.0 * 0.1).abs() < 1e-12);
        assert!(minimum_spanning_tree(&Matrix::zeros(2, 3)).is_err());
    }
}
