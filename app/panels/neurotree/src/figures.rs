//! Figure pieces of the NeuroTree panel (the same on screen and in exported files): FC heatmaps
//! with network boundaries, the brain tree with trunk levels and network colours, and trunk
//! membership bars by network.

use benchtop_neurotree::Matrix;
use benchtop_neurotree::dataset::Dataset;

use super::explore::ExploredTree;
use super::layout::Positions;
use benchtop_kit::figure::{
    Bars, Colormap, Dash, Graph, GraphEdge, GraphNode, Heatmap, Line, Marker, Rgba, Scatter,
    Subplot,
};

/// Colour of tree edges on no trunk.
pub const PLAIN_EDGE: Rgba = Rgba::rgb(0xd8, 0xd8, 0xd8);

/// Colour of the control group in group comparisons (brain age).
pub const CONTROL_COLOR: Rgba = Rgba::rgb(0x1f, 0x77, 0xb4);

/// Colour of the patient group in group comparisons (brain age).
pub const PATIENT_COLOR: Rgba = Rgba::rgb(0xd6, 0x27, 0x28);

/// Colour of trunk level `level` (1 = the main trunk).
pub fn level_color(level: usize) -> Rgba {
    // Greys from near-black (the main trunk) to light: ordinal, and never one of the
    // networks' colours, which the nodes carry in the same figures.
    match level {
        1 => Rgba::rgb(0x10, 0x10, 0x10),
        2 => Rgba::rgb(0x45, 0x45, 0x45),
        3 => Rgba::rgb(0x70, 0x70, 0x70),
        4 => Rgba::rgb(0x98, 0x98, 0x98),
        _ => Rgba::rgb(0xb0, 0xb0, 0xb0),
    }
}

/// Stroke width of an edge on trunk level `level` (points).
pub fn level_width_pt(level: Option<usize>) -> f64 {
    match level {
        Some(1) => 3.5,
        Some(2) => 2.5,
        Some(_) => 1.8,
        None => 0.8,
    }
}

/// Colour of network `k` (a fixed qualitative palette, repeated past ten).
pub fn network_color(k: usize) -> Rgba {
    const PALETTE: [Rgba; 10] = [
        Rgba::rgb(0x78, 0x12, 0x86),
        Rgba::rgb(0x46, 0x82, 0xb4),
        Rgba::rgb(0x00, 0x76, 0x0e),
        Rgba::rgb(0xc4, 0x3a, 0xfa),
        Rgba::rgb(0xdc, 0xb4, 0x00),
        Rgba::rgb(0xe6, 0x94, 0x22),
        Rgba::rgb(0xcd, 0x3e, 0x4e),
        Rgba::rgb(0x55, 0x55, 0x55),
        Rgba::rgb(0x17, 0xbe, 0xcf),
        Rgba::rgb(0x8c, 0x56, 0x4b),
    ];
    PALETTE[k % PALETTE.len()]
}

/// Indices where the network changes between consecutive ROIs (boundaries at i − ½).
pub fn network_boundaries(network_of_roi: &[usize]) -> Vec<usize> {
    (1..network_of_roi.len())
        .filter(|&i| network_of_roi[i] != network_of_roi[i - 1])
        .collect()
}

/// The y tick names of an `n × n` matrix drawn with row 0 at the top: the name at height k
/// is the ROI of row n − 1 − k, given only at multiples of a whole step (1, 2, 5, 10, …) so
/// that about eight rows are labelled.
pub fn roi_row_names(n: usize) -> Vec<String> {
    let step = [1, 2, 5, 10, 20, 50, 100, 200, 500]
        .into_iter()
        .find(|step| n / step <= 8)
        .unwrap_or(1000);
    (0..n)
        .rev()
        .map(|roi| {
            if roi % step == 0 {
                roi.to_string()
            } else {
                String::new()
            }
        })
        .collect()
}

/// An |r| heatmap of `fc` (ROI index on both axes, row 0 at the top) with the network
/// boundaries drawn as thin lines.
pub fn fc_subplot(title: &str, fc: &Matrix, network_of_roi: &[usize]) -> Subplot {
    let n = fc.rows();
    // Heatmap rows run bottom-up; put ROI 0 at the top like a matrix.
    let values: Vec<f64> = (0..n).rev().flat_map(|i| fc.row(i).to_vec()).collect();
    let size = n as f64;
    let heatmap = Heatmap::new("|r|", (-0.5, size - 0.5), (-0.5, size - 0.5), n, n, values)
        .colormap(Colormap::Viridis)
        .value_range(0.0, 1.0)
        .colorbar_label("|r|");
    let mut subplot = Subplot::new(title)
        .x_label("ROI")
        .y_label("ROI (0 at the top)")
        .y_tick_names(0.0, roi_row_names(n))
        .x_range(-0.5, size - 0.5)
        .y_range(-0.5, size - 0.5)
        .equal_aspect(true)
        .heatmap(heatmap);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for b in network_boundaries(network_of_roi) {
        let at = b as f64 - 0.5;
        let flipped = size - 1.0 - at;
        xs.extend([at, at, f64::NAN, -0.5, size - 0.5, f64::NAN]);
        ys.extend([-0.5, size - 0.5, f64::NAN, flipped, flipped, f64::NAN]);
    }
    if !xs.is_empty() {
        subplot.push(
            Line::new("network boundaries", xs, ys)
                .color(Rgba::WHITE)
                .width_pt(0.6),
        );
    }
    subplot
}

/// The brain tree at `positions`: edges coloured and widened by trunk level (levels in
/// `hidden` left out), nodes coloured by network, one legend entry per network and per level.
pub fn tree_subplot(
    title: &str,
    explored: &ExploredTree,
    positions: &Positions,
    dataset: &Dataset,
    hidden: &[usize],
    label_trunks: bool,
) -> Subplot {
    // A layout, not a measurement: no axes.
    let mut subplot = Subplot::new(title)
        .x_range(-1.15, 1.15)
        .y_range(-1.15, 1.15)
        .equal_aspect(true)
        .axes(false)
        .legend(true);
    let nodes: Vec<GraphNode> = positions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let network = dataset.network_of_roi.get(i).copied().unwrap_or(0);
            let label = if label_trunks && explored.node_level[i].is_some() {
                dataset.roi_names.get(i).cloned().unwrap_or_default()
            } else {
                String::new()
            };
            GraphNode::new(p[0], p[1], label)
                .color(network_color(network))
                .radius_pt(if explored.node_level[i] == Some(1) {
                    4.0
                } else {
                    3.0
                })
        })
        .collect();
    let edges: Vec<GraphEdge> = explored
        .tree
        .edges
        .iter()
        .zip(&explored.edge_level)
        .filter(|(_, level)| level.is_none_or(|l| !hidden.contains(&l)))
        .map(|(e, level)| {
            GraphEdge::new(e.a, e.b)
                .color(level.map_or(PLAIN_EDGE, level_color))
                .width_pt(level_width_pt(*level))
        })
        .collect();
    subplot.push(Graph::new("brain tree", nodes, edges));
    // Legend entries: a line per shown level, a marker per network present.
    let levels = explored
        .trunks
        .trunks
        .iter()
        .map(|t| t.level)
        .max()
        .unwrap_or(0);
    for level in (1..=levels).filter(|l| !hidden.contains(l)) {
        subplot.push(
            Line::new(
                format!("trunk level {level}"),
                vec![f64::NAN],
                vec![f64::NAN],
            )
            .color(level_color(level))
            .width_pt(level_width_pt(Some(level))),
        );
    }
    for (k, name) in dataset.network_names.iter().enumerate() {
        let members: Vec<usize> = (0..positions.len())
            .filter(|&i| dataset.network_of_roi.get(i) == Some(&k))
            .collect();
        if members.is_empty() {
            continue;
        }
        subplot.push(
            Scatter::new(
                name.clone(),
                members
                    .iter()
                    .map(|&i| positions[i][0])
                    .collect::<Vec<f64>>(),
                members
                    .iter()
                    .map(|&i| positions[i][1])
                    .collect::<Vec<f64>>(),
            )
            .color(network_color(k))
            .marker(Marker::Circle)
            .size_pt(3.0),
        );
    }
    subplot
}

/// A short tick label of a network name: initials of a multi-word name (`DM`), else its first
/// three letters (`Vis`).
pub fn network_abbreviation(name: &str) -> String {
    let words: Vec<&str> = name.split_whitespace().collect();
    if words.len() > 1 {
        words
            .iter()
            .filter_map(|w| w.chars().find(|c| c.is_alphabetic()))
            .flat_map(char::to_uppercase)
            .collect()
    } else {
        name.chars().take(3).collect()
    }
}

/// Trunk-node counts per network, stacked by level (level 1 at the bottom).
pub fn membership_subplot(
    title: &str,
    membership: &[Vec<usize>],
    network_names: &[String],
) -> Subplot {
    let mut subplot = Subplot::new(title)
        .x_label("Network")
        .y_label("Trunk nodes (stacked by level)")
        .legend(true);
    let networks = network_names.len();
    // Cumulative heights; the tallest (all levels) first so lower levels are drawn over it.
    let mut cumulative = vec![vec![0.0; networks]; membership.len()];
    let mut running = vec![0.0; networks];
    for (counts, row) in membership.iter().zip(cumulative.iter_mut()) {
        for (k, total) in running.iter_mut().enumerate() {
            let here = counts.get(k).copied().unwrap_or(0) as f64;
            *total += here;
        }
        row.clone_from(&running);
    }
    for (l, heights) in cumulative.iter().enumerate().rev() {
        subplot.push(
            Bars::categories(
                format!("level {}", l + 1),
                network_names
                    .iter()
                    .map(|n| network_abbreviation(n))
                    .collect(),
                heights.clone(),
            )
            .color(level_color(l + 1)),
        );
    }
    subplot
}

/// A dashed diagonal from (0, 0) to (1, 1) (chance on a ROC plot).
pub fn chance_line() -> Line {
    Line::new("chance", vec![0.0, 1.0], vec![0.0, 1.0])
        .color(Rgba::GREY)
        .dash(Dash::Dashed)
}
