//! Figure pieces shared by the tabs: matrices (RSMs, outputs) as heatmaps with row i at
//! y = i and column j at x = j (1-based, so the axes' numbers are the indices), and one colour
//! per training regime.

use benchtop_kit::figure::{Colormap, Heatmap, Rgba, Subplot};
use benchtop_linnet::experiment::Regime;
use benchtop_linnet::train::{Activation, Noise};
use nalgebra::DMatrix;

/// Colour of a training regime in every figure.
pub fn regime_color(regime: Regime) -> Rgba {
    match (regime.noise, regime.activation) {
        (Noise::None, Activation::Linear) => Rgba::rgb(0x7f, 0x7f, 0x7f),
        (Noise::Input, Activation::Linear) => Rgba::rgb(0xd6, 0x27, 0x28),
        (Noise::Parameter, Activation::Linear) => Rgba::rgb(0x1f, 0x77, 0xb4),
        (_, Activation::Tanh) => Rgba::rgb(0x2c, 0xa0, 0x2c),
    }
}

/// The finite minimum and maximum over several matrices (a unit range if there is none).
pub fn common_range<'a>(matrices: impl IntoIterator<Item = &'a DMatrix<f64>>) -> (f64, f64) {
    benchtop_kit::figure::ValueStats::of(matrices.into_iter().flat_map(|m| m.iter().copied()))
        .padded_range()
}

/// A matrix as a heatmap: entry (i, j) (1-based) in the cell centred on x = j, y = i;
/// `colorbar` names the values.
pub fn matrix_subplot(
    title: &str,
    matrix: &DMatrix<f64>,
    range: (f64, f64),
    x_label: &str,
    y_label: &str,
    colorbar: &str,
) -> Subplot {
    let (rows, cols) = matrix.shape();
    // The heatmap takes its bottom row first: matrix row 1 at y = 1.
    let values: Vec<f64> = (0..rows)
        .flat_map(|i| (0..cols).map(move |j| matrix[(i, j)]))
        .collect();
    let (nx, ny) = (cols as f64, rows as f64);
    let heatmap = Heatmap::new(title, (0.5, nx + 0.5), (0.5, ny + 0.5), cols, rows, values)
        .colormap(Colormap::Viridis)
        .value_range(range.0, range.1)
        .colorbar_label(colorbar);
    Subplot::new(title)
        .x_label(x_label)
        .y_label(y_label)
        .x_range(0.5, nx + 0.5)
        .y_range(0.5, ny + 0.5)
        .heatmap(heatmap)
}

/// An RSM (items × items) as a heatmap, its axes labelled by the items' names when they
/// have real ones.
pub fn rsm_subplot(
    title: &str,
    rsm: &DMatrix<f64>,
    range: (f64, f64),
    items: &[String],
) -> Subplot {
    let subplot = matrix_subplot(title, rsm, range, "Item", "Item", "HᵀH");
    name_items(subplot, items, true, true)
}

/// Labels the item axes (`x`, `y`) of a matrix subplot with the items' names, when the data
/// set named them (a CSV's `item` column); generated items keep their numbers.
pub fn name_items(subplot: Subplot, items: &[String], x: bool, y: bool) -> Subplot {
    let generated = items
        .iter()
        .enumerate()
        .all(|(i, name)| *name == format!("item {}", i + 1));
    if generated || items.is_empty() {
        return subplot;
    }
    let subplot = if x {
        subplot.x_tick_names(1.0, items.to_vec())
    } else {
        subplot
    };
    if y {
        subplot.y_tick_names(1.0, items.to_vec())
    } else {
        subplot
    }
}
