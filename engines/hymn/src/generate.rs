//! Seeded random graph sets: Erdős–Rényi G(n, p) and random d-regular graphs, with sizes as
//! parameters, labelled with one exact substructure count per graph.

use rand::Rng;
use rand::seq::SliceRandom as _;
use serde::{Deserialize, Serialize};

use benchtop_compute::ComputeError;
use benchtop_compute::rng::{EngineRng, seeded};

use crate::counts::Substructure;
use crate::graph::Graph;

/// G(n, p): each of the n(n−1)/2 pairs is an edge with probability p.
pub fn erdos_renyi(n: usize, p: f64, rng: &mut EngineRng) -> Graph {
    let mut edges = Vec::new();
    for u in 0..n {
        for v in u + 1..n {
            if rng.random::<f64>() < p {
                edges.push((u, v));
            }
        }
    }
    Graph::new(n, &edges).expect("G(n, p) is simple")
}

/// A uniformly random simple d-regular graph on n nodes by the pairing (configuration) model,
/// redrawn until simple. Needs n·d even and d < n.
pub fn random_regular(n: usize, d: usize, rng: &mut EngineRng) -> Result<Graph, String> {
    if d >= n || (n * d) % 2 == 1 {
        return Err(format!(
            "no simple {d}-regular graph on {n} nodes (need d < n and n·d even)"
        ));
    }
    let mut stubs: Vec<usize> = (0..n).flat_map(|v| std::iter::repeat_n(v, d)).collect();
    for _ in 0..10_000 {
        stubs.shuffle(rng);
        let pairs: Vec<(usize, usize)> = stubs.chunks(2).map(|c| (c[0], c[1])).collect();
        if let Ok(g) = Graph::new(n, &pairs) {
            return Ok(g);
        }
    }
    Err(format!(
        "no simple {d}-regular graph on {n} nodes after 10000 pairings"
    ))
}

/// Which random graph family a set is drawn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Family {
    /// G(n, p).
    ErdosRenyi,
    /// Random d-regular.
    RandomRegular,
    /// Half of each, alternating.
    Mixed,
}

/// What a generated set holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GraphSetParams {
    /// Number of graphs.
    pub graphs: usize,
    /// Smallest node count (each graph's size is uniform in `min_nodes..=max_nodes`).
    pub min_nodes: usize,
    /// Largest node count.
    pub max_nodes: usize,
    /// Graph family.
    pub family: Family,
    /// Edge probability of G(n, p).
    pub edge_probability: f64,
    /// Degree of the random regular graphs.
    pub degree: usize,
    /// The count each graph is labelled with.
    pub target: Substructure,
}

impl Default for GraphSetParams {
    fn default() -> Self {
        Self {
            graphs: 600,
            min_nodes: 10,
            max_nodes: 20,
            family: Family::Mixed,
            edge_probability: 0.25,
            degree: 4,
            target: Substructure::Triangle,
        }
    }
}

impl GraphSetParams {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !(10..=100_000).contains(&self.graphs) {
            return Err(ComputeError::invalid(
                "graphs",
                "choose 10 to 100000 graphs",
            ));
        }
        if !(3..=200).contains(&self.min_nodes) || self.max_nodes < self.min_nodes {
            return Err(ComputeError::invalid(
                "min_nodes",
                "choose 3 ≤ min_nodes ≤ max_nodes",
            ));
        }
        if self.max_nodes > 200 {
            return Err(ComputeError::invalid(
                "max_nodes",
                "choose at most 200 nodes",
            ));
        }
        if !(0.0..=1.0).contains(&self.edge_probability) {
            return Err(ComputeError::invalid(
                "edge_probability",
                "must lie in [0, 1]",
            ));
        }
        if self.family != Family::ErdosRenyi && (self.degree < 1 || self.degree >= self.min_nodes) {
            return Err(ComputeError::invalid(
                "degree",
                "choose 1 ≤ degree < min_nodes for random regular graphs",
            ));
        }
        Ok(())
    }
}

/// Graphs with one scalar target each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphSet {
    /// The graphs.
    pub graphs: Vec<Graph>,
    /// One target per graph.
    pub targets: Vec<f64>,
    /// What the target is ("triangles", or a loaded file's label name).
    pub target_name: String,
}

impl GraphSet {
    /// Mean node count.
    pub fn mean_nodes(&self) -> f64 {
        self.graphs.iter().map(|g| g.n as f64).sum::<f64>() / self.graphs.len().max(1) as f64
    }
}

/// Draws a seeded set. A random regular graph needs an even n·d: an odd size is raised by one.
pub fn generate(params: &GraphSetParams, seed: u64) -> Result<GraphSet, ComputeError> {
    params.validate()?;
    let mut rng = seeded(seed);
    let mut graphs = Vec::with_capacity(params.graphs);
    for i in 0..params.graphs {
        let mut n = rng.random_range(params.min_nodes..=params.max_nodes);
        let regular = match params.family {
            Family::ErdosRenyi => false,
            Family::RandomRegular => true,
            Family::Mixed => i % 2 == 1,
        };
        let g = if regular {
            if (n * params.degree) % 2 == 1 {
                n += 1;
            }
            random_regular(n, params.degree, &mut rng)
                .map_err(|e| ComputeError::invalid("degree", e))?
        } else {
            erdos_renyi(n, params.edge_probability, &mut rng)
        };
        graphs.push(g);
    }
    let targets = graphs
        .iter()
        .map(|g| params.target.count(g) as f64)
        .collect();
    Ok(GraphSet {
        graphs,
        targets,
        target_name: params.target.label().to_owned(),
    })
}

#[cfg(test)]
mod hymn_generate_tests {
    use super::*;

    #[test]
    fn regular_graphs_are_regular_and_sets_are_seeded() {
        let mut rng = seeded(3);
        let g = random_regular(12, 3, &mut rng).unwrap();
        assert!((0..12).all(|v| g.degree(v) == 3));
        assert!(random_regular(7, 3, &mut rng).is_err());
        let p = GraphSetParams {
            graphs: 20,
            ..GraphSetParams::default()
        };
        let a = generate(&p, 5).unwrap();
        assert_eq!(a, generate(&p, 5).unwrap());
        assert_ne!(a, generate(&p, 6).unwrap());
        assert!(a.graphs.iter().all(|g| (10..=21).contains(&g.n)));
        assert!(a.targets.iter().any(|&t| t > 0.0));
    }
}
