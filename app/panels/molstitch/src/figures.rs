//! The viewer's figures (the same on screen and in files): the molecule set's Pareto scatter
//! with the parents and the child, and the stitch figure (both parents drawn by RDKit with the
//! chosen fragments highlighted, the child coloured by origin, and the objective values side
//! by side).

use super::library::MoleculeSet;
use super::mol_draw::{self, fragment_color, highlights};
use super::objectives_ui::objective_name;
use super::stitch::{ParentView, StitchView};
use super::stitch_tab::{CHILD_COLOR, PARENT_A_COLOR, PARENT_B_COLOR, child_highlights};
use benchtop_kit::figure::{Bars, Figure, Line, Marker, Rgba, Scatter, Subplot};
use benchtop_molstitch::ObjectiveSpec;

/// Size (px) of a molecule's depiction in the stitch figure (a cell of its 2 × 2 grid).
const MOLECULE_PX: mol_draw::PicturePx = (400, 320);

/// Orange of the Pareto front.
pub const FRONT_COLOR: Rgba = Rgba::rgb(255, 127, 14);

/// The points of `rows` on objectives (`ix`, `iy`).
pub fn xy(rows: &[Vec<f64>], ix: usize, iy: usize) -> (Vec<f64>, Vec<f64>) {
    rows.iter()
        .map(|v| {
            (
                v.get(ix).copied().unwrap_or(f64::NAN),
                v.get(iy).copied().unwrap_or(f64::NAN),
            )
        })
        .unzip()
}

/// The front of `rows` (indices) as a staircase-free line sorted by x.
pub fn front_line(
    name: &str,
    rows: &[Vec<f64>],
    front: &[usize],
    ix: usize,
    iy: usize,
    color: Rgba,
) -> Line {
    let mut points: Vec<Vec<f64>> = front.iter().map(|&i| rows[i].clone()).collect();
    points.sort_by(|a, b| {
        a.get(ix)
            .copied()
            .unwrap_or(0.0)
            .total_cmp(&b.get(ix).copied().unwrap_or(0.0))
    });
    let (xs, ys) = xy(&points, ix, iy);
    Line::new(name, xs, ys).color(color).width_pt(1.5)
}

/// The shown range of objective `i` over `rows`: from the minimum (rounded down to 0.1) to 1.
pub fn fitted_range<'a>(rows: impl IntoIterator<Item = &'a Vec<f64>>, i: usize) -> (f64, f64) {
    let lo = rows
        .into_iter()
        .filter_map(|v| v.get(i).copied())
        .fold(1.0_f64, f64::min);
    (((lo * 10.0).floor() / 10.0).clamp(0.0, 0.9), 1.0)
}

/// A molecule set's scatter on objectives (`ix`, `iy`; axes named by `names`) in grey with its Pareto front (indices
/// into the rows) in orange; `labels` name the points and the front in the legend.
pub fn set_subplot(
    title: &str,
    (rows, front): (&[Vec<f64>], &[usize]),
    names: &[String],
    (ix, iy): (usize, usize),
    labels: (&str, &str),
) -> Subplot {
    let name = |i: usize| names.get(i).cloned().unwrap_or_default();
    let (xs, ys) = xy(rows, ix, iy);
    let (x_range, y_range) = (fitted_range(rows, ix), fitted_range(rows, iy));
    Subplot::new(title)
        .x_label(name(ix))
        .y_label(name(iy))
        .x_range(x_range.0, x_range.1)
        .y_range(y_range.0, y_range.1)
        .legend(true)
        .with(
            Scatter::new(labels.0, xs, ys)
                .color(Rgba::rgb(160, 160, 160))
                .size_pt(1.5),
        )
        .with(front_line(labels.1, rows, front, ix, iy, FRONT_COLOR))
}

/// The set's scatter on objectives (`ix`, `iy`) with its front, the parents and the child.
pub fn molecules_figure(
    set: &MoleculeSet,
    stitched: Option<&StitchView>,
    specs: &[ObjectiveSpec],
    (ix, iy): (usize, usize),
) -> Figure {
    let mut subplot = set_subplot(
        &format!("{} ({} molecules)", set.source, set.smiles.len()),
        (&set.objectives, &set.front),
        &specs.iter().map(objective_name).collect::<Vec<_>>(),
        (ix, iy),
        ("molecules", "Pareto front"),
    );
    if let Some(s) = stitched {
        for (label, parent, color) in [
            ("parent A", &s.a, PARENT_A_COLOR),
            ("parent B", &s.b, PARENT_B_COLOR),
        ] {
            let (x, y) = xy(std::slice::from_ref(&parent.objectives), ix, iy);
            subplot.push(Scatter::new(label, x, y).color(color).size_pt(6.0));
        }
        if let Some(Ok(child)) = &s.child {
            let (x, y) = xy(std::slice::from_ref(&child.objectives), ix, iy);
            subplot.push(
                Scatter::new("child", x, y)
                    .color(CHILD_COLOR)
                    .marker(Marker::Square)
                    .size_pt(6.0),
            );
        }
    }
    Figure::new("MolStitch: molecules and their Pareto front").subplot(subplot)
}

fn parent_subplot(title: &str, parent: &ParentView, chosen: Option<usize>, color: Rgba) -> Subplot {
    let groups: Vec<(&[usize], Rgba)> = parent
        .fragment_atoms
        .iter()
        .enumerate()
        .filter_map(|(k, atoms)| match chosen {
            None => Some((atoms.as_slice(), fragment_color(k))),
            Some(c) if c == k => Some((atoms.as_slice(), color)),
            Some(_) => None,
        })
        .collect();
    mol_draw::subplot(
        title,
        &parent.drawing,
        &highlights(parent.drawing.atoms.len(), &groups),
        MOLECULE_PX,
    )
}

/// Parents with the chosen fragments, the child by origin, and the three molecules' objective
/// values as grouped bars. `None` until a child is made.
pub fn stitch_figure(
    s: &StitchView,
    specs: &[ObjectiveSpec],
    chosen: (Option<usize>, Option<usize>),
) -> Option<Figure> {
    let Some(Ok(child)) = &s.child else {
        return None;
    };
    let n = specs.len();
    let names: Vec<String> = specs
        .iter()
        .enumerate()
        .map(|(i, spec)| format!("{} {}", i + 1, spec.label()))
        .collect();
    let mut values = Subplot::new("Objective values")
        .x_label(format!("objective ({})", names.join(", ")))
        .y_label("value")
        .x_range(0.4, n as f64 + 0.6)
        .y_range(0.0, 1.05)
        .legend(true);
    for (k, (label, v, color)) in [
        ("parent A", &s.a.objectives, PARENT_A_COLOR),
        ("parent B", &s.b.objectives, PARENT_B_COLOR),
        ("child", &child.objectives, CHILD_COLOR),
    ]
    .into_iter()
    .enumerate()
    {
        let xs: Vec<f64> = (0..n)
            .map(|i| i as f64 + 1.0 + (k as f64 - 1.0) * 0.27)
            .collect();
        values.push(Bars::at(label, xs, v.clone(), 0.25).color(color));
    }
    Some(
        Figure::new(format!("Stitched child {}", child.smiles))
            .grid(2, 2)
            .size_in(8.0, 7.0)
            .subplot(parent_subplot(
                &format!("Parent A (fragment A{})", chosen.0.map_or(0, |c| c + 1)),
                &s.a,
                chosen.0,
                PARENT_A_COLOR,
            ))
            .subplot(parent_subplot(
                &format!("Parent B (fragment B{})", chosen.1.map_or(0, |c| c + 1)),
                &s.b,
                chosen.1,
                PARENT_B_COLOR,
            ))
            .subplot(mol_draw::subplot(
                "Child (blue from A, red from B)",
                &child.drawing,
                &child_highlights(child),
                MOLECULE_PX,
            ))
            .subplot(values),
    )
}
