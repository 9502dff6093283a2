//! The panel's figures: one graph coloured by subgraph centrality with its marked nodes,
//! test MAE and seconds per epoch against the number of subgraphs per method, and the
//! perturbation scatter.

use benchtop_hymn::sampling::Method;
use benchtop_hymn::train::ExperimentResult;
use benchtop_kit::figure::{
    Bars, Colormap, Figure, Graph, GraphEdge, GraphNode, Line, Marker, Rgba, Scatter, Subplot,
};

use crate::graph_tab::ExploreResult;

/// The highlight colour of marked nodes.
const MARK: Rgba = Rgba::rgb(220, 40, 40);

/// The graph coloured by SC (viridis, low to high) with red halos on the marked nodes, and SC
/// per node as bars (marked ones red).
pub fn graph_figure(r: &ExploreResult) -> Figure {
    let g = &r.graph;
    let (lo, hi) = r
        .centrality
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    let span = if hi > lo { hi - lo } else { 1.0 };
    let nodes: Vec<GraphNode> = (0..g.n)
        .map(|v| {
            let t = (r.centrality[v] - lo) / span;
            GraphNode::new(r.positions[v][0], r.positions[v][1], v.to_string())
                .color(Colormap::Viridis.color_at(t))
                .radius_pt(5.0)
        })
        .collect();
    let edges = g.edges.iter().map(|&(a, b)| GraphEdge::new(a, b)).collect();
    let (mx, my): (Vec<f64>, Vec<f64>) = r
        .marks
        .iter()
        .map(|&v| (r.positions[v][0], r.positions[v][1]))
        .unzip();
    let picture = Subplot::new(format!(
        "Graph {}: {} nodes, {} edges; {} marked ({})",
        r.index,
        g.n,
        g.m(),
        r.marks.len(),
        r.strategy.label()
    ))
    .equal_aspect(true)
    .axes(false)
    .legend(true)
    .with(Scatter::new("marked", mx, my).color(MARK).size_pt(9.0))
    .with(Graph::new("graph", nodes, edges));
    let colors = (0..g.n)
        .map(|v| {
            if r.marks.contains(&v) {
                MARK
            } else {
                Rgba::cycle(0)
            }
        })
        .collect();
    let bars = Subplot::new("SC(v) = [exp A]_{vv} (marked in red)")
        .x_label("node")
        .y_label("SC(v)")
        .legend(false)
        .with(
            Bars::categories(
                "SC",
                (0..g.n).map(|v| v.to_string()).collect(),
                r.centrality.clone(),
            )
            .colors(colors),
        );
    Figure::new("HyMN: walk-based centrality")
        .grid(1, 2)
        .subplot(picture)
        .subplot(bars)
}

/// Test MAE and seconds per epoch against subgraphs per graph, one series per method.
pub fn comparison_figure(r: &ExperimentResult) -> Figure {
    let mut mae = Subplot::new(format!(
        "Test MAE ({} per graph, in units of its std {:.3})",
        r.target_name, r.target_std
    ))
    .x_label("subgraphs per graph (marked copies)")
    .y_label("test MAE / std")
    .legend(true);
    let mut cost = Subplot::new("Training cost")
        .x_label("subgraphs per graph (marked copies)")
        .y_label("seconds per epoch");
    for (i, method) in Method::ALL.iter().enumerate() {
        let runs: Vec<_> = r.runs.iter().filter(|x| x.method == *method).collect();
        if runs.is_empty() {
            continue;
        }
        let xs: Vec<f64> = runs.iter().map(|x| x.subgraphs).collect();
        let maes: Vec<f64> = runs.iter().map(|x| x.test_mae).collect();
        let secs: Vec<f64> = runs.iter().map(|x| x.seconds_per_epoch).collect();
        let color = Rgba::cycle(i);
        if method.uses_t() {
            mae.push(Line::new(method.label(), xs.clone(), maes.clone()).color(color));
            mae.push(Scatter::new("", xs.clone(), maes).color(color));
            cost.push(Line::new(method.label(), xs.clone(), secs.clone()).color(color));
            cost.push(Scatter::new("", xs, secs).color(color));
        } else {
            mae.push(
                Scatter::new(method.label(), xs.clone(), maes)
                    .color(color)
                    .size_pt(5.0)
                    .marker(Marker::Square),
            );
            cost.push(
                Scatter::new(method.label(), xs, secs)
                    .color(color)
                    .size_pt(5.0)
                    .marker(Marker::Square),
            );
        }
    }
    if r.constant_test_mae.is_finite() {
        mae = mae.hline(r.constant_test_mae, "constant (training median)");
    }
    Figure::new("HyMN: accuracy against cost")
        .grid(1, 2)
        .subplot(mae)
        .subplot(cost)
}

/// Output change when each node is marked against its walk count.
pub fn perturbation_figure(r: &ExperimentResult) -> Option<Figure> {
    let p = r.perturbation.as_ref()?;
    let xs: Vec<f64> = p.points.iter().map(|q| q.walks).collect();
    let ys: Vec<f64> = p.points.iter().map(|q| q.change).collect();
    Some(
        Figure::new("HyMN: perturbation against walks").subplot(
            Subplot::new(format!(
                "Marking one node: mean within-graph Spearman ρ = {:.2} over {} graphs",
                p.spearman, p.graphs_used
            ))
            .x_label("walks of length 1..L from the node")
            .y_label("|f(G, G_v) − f(G)|")
            .legend(false)
            .with(Scatter::new("nodes", xs, ys).size_pt(2.5)),
        ),
    )
}
