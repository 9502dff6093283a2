//! Trunk extraction on a brain tree (the paper's `find_trunk_gnn_batch_with_fc_strength`).
//!
//! Each level, for every connected component with at least 2 nodes:
//! - the start is the node with the highest score;
//! - the end maximises the path score α·Σ_{u∈path} score_u + (1 − α)·GPC(path) over the shortest
//!   path from the start;
//! - GPC(path) sums, over consecutive pairs (i, j) of the path, the fc-sums of every simple path
//!   between i and j with at most S edges, where an edge (u, w) weighs fc_u + fc_w. On a tree
//!   only the direct edge exists, so a pair contributes fc_i + fc_j.
//!
//! The path start → end is the level's trunk for that component; after every component is
//! done, the trunk edges are deleted (isolated nodes then drop out) and the next level repeats.
//! Ties go to the smallest node index, so the result is deterministic.

use crate::graph_tree::SpanningTree;
use benchtop_compute::ComputeError;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, VecDeque};

/// Settings of the trunk search; the paper uses 3 levels, α = 0.1, S = 2.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrunkParams {
    /// Number of levels to extract (≥ 1).
    pub levels: usize,
    /// Weight α ∈ [0, 1] of the node-score sum against the GPC term.
    pub alpha: f64,
    /// S, the largest number of edges of a connecting path counted by GPC (≥ 1).
    pub max_path_order: usize,
}

impl Default for TrunkParams {
    fn default() -> Self {
        Self {
            levels: 3,
            alpha: 0.1,
            max_path_order: 2,
        }
    }
}

/// One trunk: a path of nodes found at `level`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trunk {
    /// The level, starting at 1.
    pub level: usize,
    /// The nodes from start to end.
    pub nodes: Vec<usize>,
    /// The path score α·Σ score + (1 − α)·GPC of this path.
    pub score: f64,
}

/// Every trunk over all levels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trunks {
    /// Number of nodes of the graph.
    pub n_nodes: usize,
    /// The trunks, by level, then by the component's smallest node.
    pub trunks: Vec<Trunk>,
}

impl Trunks {
    /// The distinct nodes on the trunks of `level`, ascending.
    pub fn level_nodes(&self, level: usize) -> Vec<usize> {
        let set: BTreeSet<usize> = self
            .trunks
            .iter()
            .filter(|t| t.level == level)
            .flat_map(|t| t.nodes.iter().copied())
            .collect();
        set.into_iter().collect()
    }

    /// Trunk-node counts `[level − 1][network]` for levels `1..=levels`, where
    /// `network_of_node[i] < n_networks` is node i's network.
    pub fn membership_by_network(
        &self,
        network_of_node: &[usize],
        n_networks: usize,
        levels: usize,
    ) -> Result<Vec<Vec<usize>>, ComputeError> {
        if network_of_node.len() != self.n_nodes {
            return Err(ComputeError::invalid(
                "network_of_node",
                format!(
                    "{} labels for {} nodes",
                    network_of_node.len(),
                    self.n_nodes
                ),
            ));
        }
        if let Some(bad) = network_of_node.iter().find(|&&k| k >= n_networks) {
            return Err(ComputeError::invalid(
                "network_of_node",
                format!("network {bad} ≥ {n_networks}"),
            ));
        }
        Ok((1..=levels)
            .map(|level| {
                let mut counts = vec![0; n_networks];
                for node in self.level_nodes(level) {
                    counts[network_of_node[node]] += 1;
                }
                counts
            })
            .collect())
    }
}

/// Trunks of a spanning tree (see the module docs).
pub fn extract_trunks(
    tree: &SpanningTree,
    node_score: &[f64],
    fc_strength: &[f64],
    params: TrunkParams,
) -> Result<Trunks, ComputeError> {
    let edges: Vec<(usize, usize)> = tree.edges.iter().map(|e| (e.a, e.b)).collect();
    extract_trunks_on_graph(tree.n_nodes, &edges, node_score, fc_strength, params)
}

/// Trunks of any undirected graph on `n_nodes` nodes given by `edges` (see the module docs).
pub fn extract_trunks_on_graph(
    n_nodes: usize,
    edges: &[(usize, usize)],
    node_score: &[f64],
    fc_strength: &[f64],
    params: TrunkParams,
) -> Result<Trunks, ComputeError> {
    validate(n_nodes, edges, node_score, fc_strength, params)?;
    let mut live: BTreeSet<(usize, usize)> = edges
        .iter()
        .filter(|(a, b)| a != b)
        .map(|&(a, b)| (a.min(b), a.max(b)))
        .collect();
    let mut trunks = Vec::new();
    for level in 1..=params.levels {
        let adj = adjacency(n_nodes, &live);
        let mut seen = vec![false; n_nodes];
        let mut used = Vec::new();
        for root in 0..n_nodes {
            if seen[root] {
                continue;
            }
            let component = bfs(&adj, root).order;
            for &v in &component {
                seen[v] = true;
            }
            if component.len() < 2 {
                continue;
            }
            let trunk = component_trunk(&adj, &component, node_score, fc_strength, params, level);
            used.extend(
                trunk
                    .nodes
                    .windows(2)
                    .map(|w| (w[0].min(w[1]), w[0].max(w[1]))),
            );
            trunks.push(trunk);
        }
        if used.is_empty() {
            break;
        }
        for e in used {
            live.remove(&e);
        }
    }
    Ok(Trunks { n_nodes, trunks })
}

fn validate(
    n_nodes: usize,
    edges: &[(usize, usize)],
    node_score: &[f64],
    fc_strength: &[f64],
    params: TrunkParams,
) -> Result<(), ComputeError> {
    if params.levels == 0 {
        return Err(ComputeError::invalid("levels", "must be at least 1"));
    }
    if !(0.0..=1.0).contains(&params.alpha) {
        return Err(ComputeError::invalid("alpha", "must lie in [0, 1]"));
    }
    if params.max_path_order == 0 {
        return Err(ComputeError::invalid(
            "max_path_order",
            "S must be at least 1",
        ));
    }
    for (name, v) in [("node_score", node_score), ("fc_strength", fc_strength)] {
        if v.len() != n_nodes {
            return Err(ComputeError::invalid(
                name,
                format!("{} values for {n_nodes} nodes", v.len()),
            ));
        }
        if v.iter().any(|x| !x.is_finite()) {
            return Err(ComputeError::invalid(name, "values must be finite"));
        }
    }
    if let Some(&(a, b)) = edges.iter().find(|&&(a, b)| a >= n_nodes || b >= n_nodes) {
        return Err(ComputeError::invalid(
            "edges",
            format!("edge ({a}, {b}) outside {n_nodes} nodes"),
        ));
    }
    Ok(())
}

fn adjacency(n: usize, edges: &BTreeSet<(usize, usize)>) -> Vec<Vec<usize>> {
    let mut adj = vec![Vec::new(); n];
    for &(a, b) in edges {
        adj[a].push(b);
        adj[b].push(a);
    }
    for l in &mut adj {
        l.sort_unstable();
    }
    adj
}

struct Bfs {
    order: Vec<usize>,
    parent: Vec<Option<usize>>,
}

/// Breadth-first search from `root`, neighbours in ascending order: the visit order and the
/// shortest-path (in hops) parent of every reached node.
fn bfs(adj: &[Vec<usize>], root: usize) -> Bfs {
    let mut parent = vec![None; adj.len()];
    let mut seen = vec![false; adj.len()];
    let mut order = vec![root];
    let mut queue = VecDeque::from([root]);
    seen[root] = true;
    while let Some(u) = queue.pop_front() {
        for &v in &adj[u] {
            if !seen[v] {
                seen[v] = true;
                parent[v] = Some(u);
                order.push(v);
                queue.push_back(v);
            }
        }
    }
    Bfs { order, parent }
}

/// The GPC contribution of the consecutive pair (i, j): the fc-sums of every simple path from
/// i to j with at most `max_edges` edges.
fn pair_gpc(adj: &[Vec<usize>], fc: &[f64], i: usize, j: usize, max_edges: usize) -> f64 {
    fn walk(
        adj: &[Vec<usize>],
        fc: &[f64],
        u: usize,
        target: usize,
        left: usize,
        on_path: &mut Vec<bool>,
        acc: f64,
    ) -> f64 {
        let mut total = 0.0;
        for &v in &adj[u] {
            if on_path[v] {
                continue;
            }
            let w = acc + fc[u] + fc[v];
            if v == target {
                total += w;
            } else if left > 1 {
                on_path[v] = true;
                total += walk(adj, fc, v, target, left - 1, on_path, w);
                on_path[v] = false;
            }
        }
        total
    }
    let mut on_path = vec![false; adj.len()];
    on_path[i] = true;
    walk(adj, fc, i, j, max_edges, &mut on_path, 0.0)
}

fn component_trunk(
    adj: &[Vec<usize>],
    component: &[usize],
    score: &[f64],
    fc: &[f64],
    params: TrunkParams,
    level: usize,
) -> Trunk {
    let alpha = params.alpha;
    let mut start = component[0];
    for &v in component {
        if score[v] > score[start] || (score[v] == score[start] && v < start) {
            start = v;
        }
    }
    let tree = bfs(adj, start);
    // Path scores accumulate along the BFS order: every parent precedes its children.
    let mut path_score = vec![0.0; adj.len()];
    path_score[start] = alpha * score[start];
    for &v in tree.order.iter().skip(1) {
        if let Some(p) = tree.parent[v] {
            path_score[v] = path_score[p]
                + alpha * score[v]
                + (1.0 - alpha) * pair_gpc(adj, fc, p, v, params.max_path_order);
        }
    }
    let mut end: Option<usize> = None;
    let mut sorted: Vec<usize> = tree.order.iter().copied().filter(|&v| v != start).collect();
    sorted.sort_unstable();
    for v in sorted {
        if end.is_none_or(|e| path_score[v] > path_score[e]) {
            end = Some(v);
        }
    }
    let end = end.unwrap_or(start);
    let mut nodes = vec![end];
    let mut cur = end;
    while let Some(p) = tree.parent[cur] {
        nodes.push(p);
        cur = p;
    }
    nodes.reverse();
    Trunk {
        level,
        nodes,
        score: path_score[end],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(alpha: f64, s: usize) -> TrunkParams {
        TrunkParams {
            levels: 3,
            alpha,
            max_path_order: s,
        }
    }

    #[test]
    fn path_graph_is_one_level_one_trunk() {
        let n = 7;
        let edges: Vec<(usize, usize)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        // Highest score at node 0; any positive fc.
        let score: Vec<f64> = (0..n).map(|i| 1.0 - 0.1 * i as f64).collect();
        let fc: Vec<f64> = (0..n).map(|i| 0.2 + 0.05 * i as f64).collect();
        let t = extract_trunks_on_graph(n, &edges, &score, &fc, TrunkParams::default()).unwrap();
        assert_eq!(t.trunks.len(), 1);
        assert_eq!(t.trunks[0].level, 1);
        assert_eq!(t.trunks[0].nodes, (0..n).collect::<Vec<_>>());
        assert!(t.level_nodes(2).is_empty());
        // Uniform scores: ties start at node 0 and still take the whole path.
        let flat = vec![0.5; n];
        let t = extract_trunks_on_graph(n, &edges, &flat, &flat, TrunkParams::default()).unwrap();
        assert_eq!(t.trunks[0].nodes, (0..n).collect::<Vec<_>>());
    }

    #[test]
    fn branching_tree_gives_hand_computed_levels() {
        // Spine 0-1-2-3 with a branch 1-4-5.
        let edges = [(0, 1), (1, 2), (2, 3), (1, 4), (4, 5)];
        let s = [1.0, 0.5, 0.4, 0.3, 0.2, 0.9];
        let t = extract_trunks_on_graph(6, &edges, &s, &s, params(0.1, 2)).unwrap();
        // To 3: 0.1·2.2 + 0.9·3.1 = 3.01; to 5: 0.1·2.6 + 0.9·3.3 = 3.23.
        assert_eq!(t.trunks[0].nodes, vec![0, 1, 4, 5]);
        assert!((t.trunks[0].score - 3.23).abs() < 1e-12);
        assert_eq!(t.trunks[1].level, 2);
        assert_eq!(t.trunks[1].nodes, vec![1, 2, 3]);
        assert_eq!(t.trunks.len(), 2);
        let counts = t.membership_by_network(&[0, 0, 1, 1, 2, 2], 3, 3).unwrap();
        assert_eq!(counts, vec![vec![2, 0, 2], vec![1, 2, 0], vec![0, 0, 0]]);
    }

    #[test]
    fn gpc_counts_paths_up_to_order_s() {
        // Triangle, fc = (1, 2, 3), scores (3, 1, 2); start = 0.
        let edges = [(0, 1), (1, 2), (0, 2)];
        let score = [3.0, 1.0, 2.0];
        let fc = [1.0, 2.0, 3.0];
        // S = 1: to 1: 0.1·4 + 0.9·3 = 3.1; to 2: 0.1·5 + 0.9·4 = 4.1.
        let t = extract_trunks_on_graph(3, &edges, &score, &fc, params(0.1, 1)).unwrap();
        assert_eq!(t.trunks[0].nodes, vec![0, 2]);
        assert!((t.trunks[0].score - 4.1).abs() < 1e-12);
        // S = 2: pair (0, 2) adds 0→1→2 = 3 + 5: 0.1·5 + 0.9·12 = 11.3 (to 1: 11.2).
        let t = extract_trunks_on_graph(3, &edges, &score, &fc, params(0.1, 2)).unwrap();
        assert_eq!(t.trunks[0].nodes, vec![0, 2]);
        assert!((t.trunks[0].score - 11.3).abs() < 1e-12);
        // Level 2 runs on the path 0-1-2 left after deleting (0, 2).
        assert_eq!(t.trunks[1].nodes, vec![0, 1, 2]);
    }

    #[test]
    fn bad_inputs_are_errors() {
        let e = [(0, 1)];
        assert!(extract_trunks_on_graph(2, &e, &[1.0], &[1.0, 1.0], params(0.1, 2)).is_err());
        assert!(extract_trunks_on_graph(2, &e, &[1.0; 2], &[1.0; 2], params(1.5, 2)).is_err());
        assert!(extract_trunks_on_graph(2, &e, &[1.0; 2], &[1.0; 2], params(0.1, 0)).is_err());
        assert!(
            extract_trunks_on_graph(2, &[(0, 2)], &[1.0; 2], &[1.0; 2], params(0.1, 2)).is_err()
        );
    }
}
