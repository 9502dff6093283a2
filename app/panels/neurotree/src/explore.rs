//! What the tree explorer computes on the fly from the data (cheap: one correlation matrix, one
//! spanning tree and a trunk search): static and windowed |r| of a subject or a group mean, the
//! brain tree, FC-strength node scores, trunks, and which trunk level each node and edge is on.

use benchtop_compute::ComputeError;
use benchtop_neurotree::Matrix;
use benchtop_neurotree::cohort::Group;
use benchtop_neurotree::connectivity::{Windows, dynamic_fc, pearson, static_fc};
use benchtop_neurotree::dataset::Dataset;
use benchtop_neurotree::graph_tree::{SpanningTree, brain_tree};
use benchtop_neurotree::trunk::{TrunkParams, Trunks, extract_trunks};
use serde::{Deserialize, Serialize};

/// Whose connectivity and tree are shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pick {
    /// The mean over every subject.
    #[default]
    AllSubjects,
    /// The mean over one group.
    Group(Group),
    /// One subject, by index.
    Subject(usize),
}

impl Pick {
    /// The subjects it covers.
    pub fn members(self, dataset: &Dataset) -> Vec<usize> {
        let n = dataset.subjects.len();
        match self {
            Self::AllSubjects => (0..n).collect(),
            Self::Group(group) => (0..n)
                .filter(|&i| dataset.subjects[i].group == group)
                .collect(),
            Self::Subject(i) => vec![i.min(n.saturating_sub(1))],
        }
    }

    /// A short label: `all subjects`, `controls (mean)`, or the subject's id.
    pub fn label(self, dataset: &Dataset) -> String {
        match self {
            Self::AllSubjects => "all subjects (mean)".to_owned(),
            Self::Group(Group::Control) => "controls (mean)".to_owned(),
            Self::Group(Group::Patient) => "patients (mean)".to_owned(),
            Self::Subject(i) => dataset
                .subjects
                .get(i)
                .map_or_else(|| format!("subject {i}"), |s| s.id.clone()),
        }
    }

    /// The group of a group mean (`None` for all subjects); `None` also for one subject.
    pub fn group(self) -> Option<Option<Group>> {
        match self {
            Self::AllSubjects => Some(None),
            Self::Group(group) => Some(Some(group)),
            Self::Subject(_) => None,
        }
    }
}

/// The mean static |r| over `members` (series cut to the shortest member).
pub fn mean_static_fc(dataset: &Dataset, members: &[usize]) -> Result<Matrix, ComputeError> {
    mean_of(dataset, members, |series| {
        static_fc(series).map(|m| vec![m])
    })
    .and_then(|mut v| {
        v.pop()
            .ok_or_else(|| ComputeError::invalid("subjects", "none"))
    })
}

/// The mean signed Pearson r over `members` (series cut to the shortest member): what the engine
/// builds group trees from (the MST on 1 − r̄), so that trees computed here match a run's.
pub fn mean_pearson(dataset: &Dataset, members: &[usize]) -> Result<Matrix, ComputeError> {
    mean_of(dataset, members, |series| pearson(series).map(|m| vec![m])).and_then(|mut v| {
        v.pop()
            .ok_or_else(|| ComputeError::invalid("subjects", "none"))
    })
}

/// The mean windowed |r| over `members` in `windows` equal windows (one matrix per window).
pub fn mean_dynamic_fc(
    dataset: &Dataset,
    members: &[usize],
    windows: usize,
) -> Result<Vec<Matrix>, ComputeError> {
    mean_of(dataset, members, |series| {
        let split = Windows::equal_split(series.cols(), windows)?;
        Ok(dynamic_fc(series, split)?.iter().map(absolute).collect())
    })
}

fn absolute(m: &Matrix) -> Matrix {
    let mut out = m.clone();
    for i in 0..m.rows() {
        for v in out.row_mut(i) {
            *v = v.abs();
        }
    }
    out
}

/// The element-wise mean of `per_subject` over `members`, every series cut to the shortest.
fn mean_of(
    dataset: &Dataset,
    members: &[usize],
    per_subject: impl Fn(&Matrix) -> Result<Vec<Matrix>, ComputeError>,
) -> Result<Vec<Matrix>, ComputeError> {
    if members.is_empty() {
        return Err(ComputeError::invalid(
            "subjects",
            "no subject in this selection",
        ));
    }
    let shortest = members
        .iter()
        .filter_map(|&i| dataset.subjects.get(i))
        .map(|s| s.series.cols())
        .min()
        .unwrap_or(0);
    let mut sum: Option<Vec<Matrix>> = None;
    for &i in members {
        let subject = dataset
            .subjects
            .get(i)
            .ok_or_else(|| ComputeError::invalid("subject", format!("no subject {i}")))?;
        let series = subject.series.column_range(0, shortest)?;
        let mats = per_subject(&series)?;
        match &mut sum {
            None => sum = Some(mats),
            Some(total) => {
                for (t, m) in total.iter_mut().zip(&mats) {
                    for r in 0..m.rows() {
                        for (a, b) in t.row_mut(r).iter_mut().zip(m.row(r)) {
                            *a += b;
                        }
                    }
                }
            }
        }
    }
    let scale = 1.0 / members.len() as f64;
    let mut total = sum.unwrap_or_default();
    for m in &mut total {
        for r in 0..m.rows() {
            for v in m.row_mut(r) {
                *v *= scale;
            }
        }
    }
    Ok(total)
}

/// FC strength of each node: its mean |r| to the other nodes.
pub fn fc_strength(fc: &Matrix) -> Vec<f64> {
    let n = fc.rows();
    let others = n.saturating_sub(1).max(1) as f64;
    (0..n)
        .map(|i| {
            fc.row(i)
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, v)| v.abs())
                .sum::<f64>()
                / others
        })
        .collect()
}

/// A brain tree with its trunks, ready to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct ExploredTree {
    /// The tree.
    pub tree: SpanningTree,
    /// Node scores used for the trunks (model scores or FC strength).
    pub scores: Vec<f64>,
    /// FC strength of each node.
    pub strength: Vec<f64>,
    /// The trunks.
    pub trunks: Trunks,
    /// The lowest trunk level each node is on (`None`: on no trunk).
    pub node_level: Vec<Option<usize>>,
    /// The trunk level of each tree edge (`None`: on no trunk).
    pub edge_level: Vec<Option<usize>>,
    /// The root for layouts: the first node of the first level-1 trunk, else node 0.
    pub root: usize,
}

/// Trunks of `tree` with `scores` and the FC strength of `fc`, and the level of every node
/// and edge.
pub fn explore(
    tree: SpanningTree,
    fc: &Matrix,
    scores: Option<&[f64]>,
    params: TrunkParams,
) -> Result<ExploredTree, ComputeError> {
    let strength = fc_strength(fc);
    let scores = scores.map_or_else(|| strength.clone(), <[f64]>::to_vec);
    let trunks = extract_trunks(&tree, &scores, &strength, params)?;
    Ok(annotate(tree, scores, strength, trunks))
}

/// The brain tree of `fc` (MST on 1 − |r|) and its trunks with FC-strength scores.
pub fn explore_fc(fc: &Matrix, params: TrunkParams) -> Result<ExploredTree, ComputeError> {
    explore(brain_tree(fc)?, fc, None, params)
}

/// Levels of nodes and edges from `trunks`.
pub fn annotate(
    tree: SpanningTree,
    scores: Vec<f64>,
    strength: Vec<f64>,
    trunks: Trunks,
) -> ExploredTree {
    let n = tree.n_nodes;
    let mut node_level: Vec<Option<usize>> = vec![None; n];
    let mut edge_level: Vec<Option<usize>> = vec![None; tree.edges.len()];
    for trunk in &trunks.trunks {
        for &node in &trunk.nodes {
            if let Some(level) = node_level.get_mut(node) {
                *level = Some(level.map_or(trunk.level, |l| l.min(trunk.level)));
            }
        }
        for pair in trunk.nodes.windows(2) {
            let (a, b) = (pair[0].min(pair[1]), pair[0].max(pair[1]));
            for (edge, level) in tree.edges.iter().zip(edge_level.iter_mut()) {
                if edge.a.min(edge.b) == a && edge.a.max(edge.b) == b {
                    *level = Some(trunk.level);
                }
            }
        }
    }
    let root = trunks
        .trunks
        .iter()
        .find(|t| t.level == 1)
        .and_then(|t| t.nodes.first().copied())
        .unwrap_or(0);
    ExploredTree {
        tree,
        scores,
        strength,
        trunks,
        node_level,
        edge_level,
        root,
    }
}
