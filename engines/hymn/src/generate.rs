//! Seeded random graph sets: Erdős–Rényi G(n, p), random d-regular, Watts–Strogatz small-world,
//! Barabási–Albert preferential-attachment and random geometric graphs, with sizes as
//! parameters, labelled with one exact substructure count per graph.

use std::collections::BTreeSet;

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

/// The Watts–Strogatz small-world graph (networkx's `watts_strogatz_graph`): a ring where each
/// node is joined to its k/2 nearest neighbours on each side (k = `k`, rounded down to even),
/// then each edge (u, u + j) is rewired with probability `beta` to (u, w), w uniform among the
/// nodes that are neither u nor its neighbours (kept when u is joined to every node).
pub fn watts_strogatz(n: usize, k: usize, beta: f64, rng: &mut EngineRng) -> Graph {
    let mut edges: BTreeSet<(usize, usize)> = BTreeSet::new();
    let half = (k / 2).min(n.saturating_sub(1) / 2);
    let key = |a: usize, b: usize| (a.min(b), a.max(b));
    for j in 1..=half {
        for u in 0..n {
            edges.insert(key(u, (u + j) % n));
        }
    }
    for j in 1..=half {
        for u in 0..n {
            if rng.random::<f64>() >= beta {
                continue;
            }
            let v = (u + j) % n;
            if !edges.contains(&key(u, v)) {
                continue;
            }
            let free: Vec<usize> = (0..n)
                .filter(|&w| w != u && !edges.contains(&key(u, w)))
                .collect();
            if free.is_empty() {
                continue;
            }
            let w = free[rng.random_range(0..free.len())];
            edges.remove(&key(u, v));
            edges.insert(key(u, w));
        }
    }
    let edges: Vec<_> = edges.into_iter().collect();
    Graph::new(n, &edges).expect("rewiring keeps the graph simple")
}

/// The Barabási–Albert graph: a star on the first m + 1 nodes, then each new node joins m
/// distinct earlier nodes drawn with probability proportional to their degree. Needs
/// 1 ≤ m < n.
pub fn barabasi_albert(n: usize, m: usize, rng: &mut EngineRng) -> Result<Graph, String> {
    if m < 1 || m >= n {
        return Err(format!(
            "no Barabási–Albert graph with m = {m} on {n} nodes (need 1 ≤ m < n)"
        ));
    }
    let mut edges: Vec<(usize, usize)> = (1..=m).map(|v| (0, v)).collect();
    // Each node once per edge end: drawing from it is drawing proportionally to degree.
    let mut ends: Vec<usize> = edges.iter().flat_map(|&(a, b)| [a, b]).collect();
    for v in m + 1..n {
        let mut targets = BTreeSet::new();
        while targets.len() < m {
            targets.insert(ends[rng.random_range(0..ends.len())]);
        }
        for t in targets {
            edges.push((t, v));
            ends.extend([t, v]);
        }
    }
    Graph::new(n, &edges).map_err(|e| format!("Barabási–Albert: {e}"))
}

/// The random geometric graph: n points uniform in the unit square, joined when their
/// distance is at most `radius`.
pub fn random_geometric(n: usize, radius: f64, rng: &mut EngineRng) -> Graph {
    let points: Vec<[f64; 2]> = (0..n)
        .map(|_| [rng.random::<f64>(), rng.random::<f64>()])
        .collect();
    let mut edges = Vec::new();
    for u in 0..n {
        for v in u + 1..n {
            let d2 = (points[u][0] - points[v][0]).powi(2) + (points[u][1] - points[v][1]).powi(2);
            if d2 <= radius * radius {
                edges.push((u, v));
            }
        }
    }
    Graph::new(n, &edges).expect("a geometric graph is simple")
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
    /// Watts–Strogatz small-world graphs (ring degree d, rewiring probability β).
    WattsStrogatz,
    /// Barabási–Albert preferential attachment (m edges per new node).
    BarabasiAlbert,
    /// Random geometric graphs in the unit square (radius r).
    RandomGeometric,
    /// Watts–Strogatz, Barabási–Albert and random geometric graphs in turn.
    Structured,
}

impl Family {
    /// The family of graph `i` of a set (the mixed families take their members in turn).
    fn member(self, i: usize) -> Family {
        match self {
            Family::Mixed if i % 2 == 1 => Family::RandomRegular,
            Family::Mixed => Family::ErdosRenyi,
            Family::Structured => [
                Family::WattsStrogatz,
                Family::BarabasiAlbert,
                Family::RandomGeometric,
            ][i % 3],
            f => f,
        }
    }

    /// Whether the set draws graphs that use `degree`.
    fn uses_degree(self) -> bool {
        matches!(
            self,
            Family::RandomRegular | Family::Mixed | Family::WattsStrogatz | Family::Structured
        )
    }

    /// Whether the set draws Barabási–Albert graphs.
    fn uses_attach(self) -> bool {
        matches!(self, Family::BarabasiAlbert | Family::Structured)
    }
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
    /// Degree of the random regular graphs, and the ring degree k of Watts–Strogatz.
    pub degree: usize,
    /// Watts–Strogatz rewiring probability β.
    pub rewire_probability: f64,
    /// Barabási–Albert edges per new node m.
    pub attach: usize,
    /// Random geometric connection radius r (unit square).
    pub radius: f64,
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
            rewire_probability: 0.2,
            attach: 2,
            radius: 0.35,
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
        if self.family.uses_degree() && (self.degree < 1 || self.degree >= self.min_nodes) {
            return Err(ComputeError::invalid(
                "degree",
                "choose 1 ≤ degree < min_nodes for random regular and Watts–Strogatz graphs",
            ));
        }
        if !(0.0..=1.0).contains(&self.rewire_probability) {
            return Err(ComputeError::invalid(
                "rewire_probability",
                "must lie in [0, 1]",
            ));
        }
        if self.family.uses_attach() && (self.attach < 1 || self.attach >= self.min_nodes) {
            return Err(ComputeError::invalid(
                "attach",
                "choose 1 ≤ m < min_nodes for Barabási–Albert graphs",
            ));
        }
        if !(self.radius > 0.0 && self.radius <= 1.5) {
            return Err(ComputeError::invalid("radius", "choose 0 < r ≤ 1.5"));
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
        let g = match params.family.member(i) {
            Family::RandomRegular => {
                if (n * params.degree) % 2 == 1 {
                    n += 1;
                }
                random_regular(n, params.degree, &mut rng)
                    .map_err(|e| ComputeError::invalid("degree", e))?
            }
            Family::WattsStrogatz => {
                watts_strogatz(n, params.degree, params.rewire_probability, &mut rng)
            }
            Family::BarabasiAlbert => barabasi_albert(n, params.attach, &mut rng)
                .map_err(|e| ComputeError::invalid("attach", e))?,
            Family::RandomGeometric => random_geometric(n, params.radius, &mut rng),
            _ => erdos_renyi(n, params.edge_probability, &mut rng),
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

    #[test]
    fn structured_families_have_their_shapes() {
        let mut rng = seeded(8);
        // β = 0: the ring lattice, every node of degree k, n·k/2 edges.
        let ring = watts_strogatz(12, 4, 0.0, &mut rng);
        assert!((0..12).all(|v| ring.degree(v) == 4));
        assert_eq!(ring.m(), 24);
        // Rewiring keeps the edge count.
        let ws = watts_strogatz(15, 4, 0.5, &mut rng);
        assert_eq!(ws.m(), 30);
        assert_ne!(ws.edges, watts_strogatz(15, 4, 0.0, &mut rng).edges);
        // Barabási–Albert: m edges for the star, then m per new node; connected from node 0.
        let ba = barabasi_albert(14, 2, &mut rng).unwrap();
        assert_eq!(ba.m(), 2 + 2 * (14 - 3));
        assert!((0..14).all(|v| ba.degree(v) >= 1));
        assert!(barabasi_albert(5, 5, &mut rng).is_err());
        // Random geometric: radius 0 joins nothing, √2 joins everything.
        assert_eq!(random_geometric(9, 1e-9, &mut rng).m(), 0);
        assert_eq!(random_geometric(9, 1.42, &mut rng).m(), 36);
        // A structured set takes the three in turn, seeded.
        let p = GraphSetParams {
            graphs: 12,
            family: Family::Structured,
            ..GraphSetParams::default()
        };
        let a = generate(&p, 3).unwrap();
        assert_eq!(a, generate(&p, 3).unwrap());
        assert!(a.graphs.iter().all(|g| (10..=20).contains(&g.n)));
        let bad = GraphSetParams {
            attach: 0,
            ..p.clone()
        };
        assert!(
            generate(&bad, 3)
                .unwrap_err()
                .to_string()
                .contains("attach")
        );
    }
}
