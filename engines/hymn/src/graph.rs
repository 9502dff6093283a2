//! A small undirected simple graph: nodes `0..n`, an edge list and adjacency lists, and an
//! optional scalar label per node (zero when a graph has none).

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// An undirected simple graph (no self-loops, no repeated edges).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    /// Number of nodes.
    pub n: usize,
    /// Each edge once, as `(u, v)` with `u < v`, sorted.
    pub edges: Vec<(usize, usize)>,
    /// Sorted neighbour lists.
    pub adj: Vec<Vec<usize>>,
    /// One scalar label per node (a model input channel); zeros for generated graphs.
    pub node_labels: Vec<f64>,
}

impl Graph {
    /// Builds a graph on `n` nodes; self-loops and repeated edges are refused with the offending
    /// pair named, as are node ids `>= n`.
    pub fn new(n: usize, edges: &[(usize, usize)]) -> Result<Self, String> {
        let mut list = Vec::with_capacity(edges.len());
        for &(a, b) in edges {
            if a >= n || b >= n {
                return Err(format!("edge ({a}, {b}) names a node ≥ {n}"));
            }
            if a == b {
                return Err(format!("self-loop on node {a}"));
            }
            list.push((a.min(b), a.max(b)));
        }
        list.sort_unstable();
        if let Some(w) = list.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("edge ({}, {}) appears twice", w[0].0, w[0].1));
        }
        let mut adj = vec![Vec::new(); n];
        for &(a, b) in &list {
            adj[a].push(b);
            adj[b].push(a);
        }
        adj.iter_mut().for_each(|l| l.sort_unstable());
        Ok(Self {
            n,
            edges: list,
            adj,
            node_labels: vec![0.0; n],
        })
    }

    /// The cycle C_n.
    pub fn cycle(n: usize) -> Self {
        let edges: Vec<_> = (0..n).map(|i| (i, (i + 1) % n)).collect();
        Self::new(n, &edges).expect("a cycle on n ≥ 3 nodes is simple")
    }

    /// The star K_{1,leaves} with the centre at `centre` (the leaves take the other ids).
    pub fn star(leaves: usize, centre: usize) -> Self {
        let n = leaves + 1;
        let edges: Vec<_> = (0..n)
            .filter(|&v| v != centre)
            .map(|v| (centre, v))
            .collect();
        Self::new(n, &edges).expect("a star is simple")
    }

    /// The disjoint union of `self` and `other` (other's nodes follow self's).
    pub fn disjoint_union(&self, other: &Graph) -> Self {
        let mut edges = self.edges.clone();
        edges.extend(other.edges.iter().map(|&(a, b)| (a + self.n, b + self.n)));
        let mut g = Self::new(self.n + other.n, &edges).expect("a union of simple graphs");
        g.node_labels = self
            .node_labels
            .iter()
            .chain(&other.node_labels)
            .copied()
            .collect();
        g
    }

    /// Number of edges.
    pub fn m(&self) -> usize {
        self.edges.len()
    }

    /// Degree of node `v`.
    pub fn degree(&self, v: usize) -> usize {
        self.adj[v].len()
    }

    /// Whether `u` and `v` are adjacent.
    pub fn has_edge(&self, u: usize, v: usize) -> bool {
        self.adj[u].binary_search(&v).is_ok()
    }

    /// The dense 0/1 adjacency matrix.
    pub fn adjacency(&self) -> DMatrix<f64> {
        let mut a = DMatrix::zeros(self.n, self.n);
        for &(u, v) in &self.edges {
            a[(u, v)] = 1.0;
            a[(v, u)] = 1.0;
        }
        a
    }
}
