//! The perturbation analysis: how much a model's output moves when one node is marked,
//! Δ_v = |f({G, G_v}) − f({G})|, against the number of walks of length 1..=L from v (L = the
//! number of GIN layers), which bounds that change in the paper's theory. The correlation is
//! Spearman's ρ within each graph, averaged over graphs whose Δ and walk counts both vary
//! (in a regular graph every node has the same walk counts and is skipped).

use serde::{Deserialize, Serialize};

use benchtop_compute::ComputeError;

use crate::centrality::{subgraph_centrality, walks_from};
use crate::generate::GraphSet;
use crate::model::{Batch, Gin, GraphInput};

/// Graphs of the test split the analysis looks at, at most.
pub const MAX_GRAPHS: usize = 60;

/// One node of one graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerturbationPoint {
    /// Graph index in the set.
    pub graph: usize,
    /// Node.
    pub node: usize,
    /// Walks of length 1..=L from the node.
    pub walks: f64,
    /// Subgraph centrality [exp A]_vv.
    pub centrality: f64,
    /// |f({G, G_v}) − f({G})|.
    pub change: f64,
}

/// The analysis over several graphs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Perturbation {
    /// Every node looked at.
    pub points: Vec<PerturbationPoint>,
    /// Mean within-graph Spearman ρ of change against walks (NaN if no graph qualified).
    pub spearman: f64,
    /// Graphs that entered the mean.
    pub graphs_used: usize,
}

/// Ranks with ties given their mean rank.
pub fn ranks(x: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut r = vec![0.0; x.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && x[order[j + 1]] == x[order[i]] {
            j += 1;
        }
        let mean = (i + j) as f64 / 2.0;
        for &o in &order[i..=j] {
            r[o] = mean;
        }
        i = j + 1;
    }
    r
}

/// Spearman's ρ (Pearson correlation of the ranks); `None` when either side is constant.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    let (rx, ry) = (ranks(x), ranks(y));
    let n = rx.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx).powi(2);
        syy += (b - my).powi(2);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// Runs the analysis for `model` (which must take no CSE input) on graphs `ids` of `set`.
pub fn perturbation(
    model: &Gin,
    set: &GraphSet,
    ids: &[usize],
    walk_length: usize,
) -> Result<Perturbation, ComputeError> {
    if model.cse_dims() != 0 {
        return Err(ComputeError::invalid(
            "model",
            "the perturbation model takes no CSE",
        ));
    }
    let (mut points, mut rhos) = (Vec::new(), Vec::new());
    for &gi in ids.iter().take(MAX_GRAPHS) {
        let g = &set.graphs[gi];
        if g.n == 0 {
            continue;
        }
        let marks: Vec<[usize; 1]> = (0..g.n).map(|v| [v]).collect();
        let mut inputs = vec![GraphInput {
            graph: g,
            cse: &[],
            marks: &[],
        }];
        inputs.extend(marks.iter().map(|m| GraphInput {
            graph: g,
            cse: &[],
            marks: m,
        }));
        let out = model.predict(&Batch::new(&inputs, 0)?)?;
        let change: Vec<f64> = out[1..].iter().map(|y| (y - out[0]).abs()).collect();
        let walks = walks_from(g, walk_length);
        let sc = subgraph_centrality(g);
        if let Some(rho) = spearman(&change, &walks) {
            rhos.push(rho);
        }
        for v in 0..g.n {
            points.push(PerturbationPoint {
                graph: gi,
                node: v,
                walks: walks[v],
                centrality: sc[v],
                change: change[v],
            });
        }
    }
    let spearman = if rhos.is_empty() {
        f64::NAN
    } else {
        rhos.iter().sum::<f64>() / rhos.len() as f64
    };
    Ok(Perturbation {
        points,
        spearman,
        graphs_used: rhos.len(),
    })
}

#[cfg(test)]
mod hymn_perturbation_tests {
    use super::*;

    #[test]
    fn spearman_known_values() {
        assert_eq!(ranks(&[3.0, 1.0, 3.0, 2.0]), vec![2.5, 0.0, 2.5, 1.0]);
        assert!((spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 90.0]).unwrap() - 1.0).abs() < 1e-12);
        assert!((spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]).unwrap() + 1.0).abs() < 1e-12);
        assert!(spearman(&[1.0, 1.0], &[1.0, 2.0]).is_none());
    }
}
