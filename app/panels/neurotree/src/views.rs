//! Interactive views drawn with egui's painter, where hovering must name ROIs: the FC matrix
//! (hover: the two ROIs, their networks and |r|) and the brain tree (hover: ROI, network, score,
//! trunk level). Exported figures are built from the same data in `figures`.

use benchtop_neurotree::Matrix;
use benchtop_neurotree::dataset::Dataset;
use egui::{Color32, Pos2, Rect, Sense, Stroke, TextureHandle, TextureOptions, pos2, vec2};

use super::explore::ExploredTree;
use super::figures::{PLAIN_EDGE, level_color, level_width_pt, network_boundaries, network_color};
use super::layout::Positions;
use benchtop_kit::figure::{Colormap, Rgba};

fn c32(c: Rgba) -> Color32 {
    Color32::from_rgba_unmultiplied(c.r, c.g, c.b, c.a)
}

/// A texture of a matrix, remade when the matrix changes.
#[derive(Default)]
pub(super) struct MatrixTexture {
    shown: Option<(Matrix, TextureHandle)>,
}

impl MatrixTexture {
    fn texture(&mut self, ctx: &egui::Context, name: &str, m: &Matrix) -> TextureHandle {
        if let Some((matrix, handle)) = &self.shown
            && matrix == m
        {
            return handle.clone();
        }
        let (rows, cols) = (m.rows(), m.cols());
        let pixels: Vec<Color32> = m
            .as_slice()
            .iter()
            .map(|&v| c32(Colormap::Viridis.color_at(v.clamp(0.0, 1.0))))
            .collect();
        let image = egui::ColorImage {
            size: [cols, rows],
            pixels,
            source_size: vec2(cols as f32, rows as f32),
        };
        let handle = ctx.load_texture(name, image, TextureOptions::NEAREST);
        self.shown = Some((m.clone(), handle.clone()));
        handle
    }
}

/// Draws `fc` (values in [0, 1], Viridis) as a square with network boundaries; hovering a cell
/// names both ROIs. `side` is the square's size in points.
pub(super) fn fc_view(
    ui: &mut egui::Ui,
    title: &str,
    fc: &Matrix,
    dataset: &Dataset,
    texture: &mut MatrixTexture,
    side: f32,
) {
    ui.vertical(|ui| {
        ui.strong(title);
        let (rect, response) = ui.allocate_exact_size(vec2(side, side), Sense::hover());
        let handle = texture.texture(ui.ctx(), title, fc);
        let painter = ui.painter_at(rect);
        painter.image(
            handle.id(),
            rect,
            Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)),
            Color32::WHITE,
        );
        let n = fc.rows().max(1);
        let cell = side / n as f32;
        for b in network_boundaries(&dataset.network_of_roi) {
            let at = b as f32 * cell;
            let stroke = Stroke::new(1.0, Color32::WHITE);
            painter.line_segment(
                [
                    pos2(rect.min.x + at, rect.min.y),
                    pos2(rect.min.x + at, rect.max.y),
                ],
                stroke,
            );
            painter.line_segment(
                [
                    pos2(rect.min.x, rect.min.y + at),
                    pos2(rect.max.x, rect.min.y + at),
                ],
                stroke,
            );
        }
        if let Some(pointer) = response.hover_pos() {
            let col = (((pointer.x - rect.min.x) / cell) as usize).min(n - 1);
            let row = (((pointer.y - rect.min.y) / cell) as usize).min(n - 1);
            let name = |i: usize| roi_label(dataset, i);
            let text = format!(
                "{}\n{}\n|r| = {:.3}",
                name(row),
                name(col),
                fc.get(row, col)
            );
            response.on_hover_text_at_pointer(text);
        }
    });
}

/// `ROI name (network)`.
pub(super) fn roi_label(dataset: &Dataset, i: usize) -> String {
    let roi = dataset
        .roi_names
        .get(i)
        .cloned()
        .unwrap_or_else(|| format!("ROI {i}"));
    let network = dataset
        .network_of_roi
        .get(i)
        .and_then(|&k| dataset.network_names.get(k))
        .map_or("", String::as_str);
    format!("{roi} ({network})")
}

/// Draws the tree at `positions` (unit disc) in the available space; hovering a node names it
/// with its network, score and trunk level. Returns the hovered node, if any.
pub(super) fn tree_view(
    ui: &mut egui::Ui,
    explored: &ExploredTree,
    positions: &Positions,
    dataset: &Dataset,
    hidden: &[usize],
) -> Option<usize> {
    let available = ui.available_size();
    let side = available.x.min(available.y).max(120.0);
    let (rect, response) = ui.allocate_exact_size(vec2(side, side), Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, Color32::WHITE);
    let centre = rect.center();
    let scale = 0.46 * side;
    let at = |i: usize| -> Pos2 {
        let p = positions.get(i).copied().unwrap_or([0.0, 0.0]);
        pos2(
            centre.x + (p[0] as f32) * scale,
            centre.y - (p[1] as f32) * scale,
        )
    };
    // Plain edges first, then trunks from the deepest level up, so level 1 is on top.
    let mut order: Vec<usize> = (0..explored.tree.edges.len()).collect();
    order.sort_by_key(|&e| std::cmp::Reverse(explored.edge_level[e].unwrap_or(usize::MAX)));
    for e in order {
        let level = explored.edge_level[e];
        if level.is_some_and(|l| hidden.contains(&l)) {
            continue;
        }
        let edge = &explored.tree.edges[e];
        let color = level.map_or(PLAIN_EDGE, level_color);
        painter.line_segment(
            [at(edge.a), at(edge.b)],
            Stroke::new(level_width_pt(level) as f32, c32(color)),
        );
    }
    let mut hovered = None;
    let pointer = response.hover_pos();
    let mut best = 8.0_f32;
    for i in 0..positions.len() {
        let p = at(i);
        let network = dataset.network_of_roi.get(i).copied().unwrap_or(0);
        let radius = if explored.node_level[i] == Some(1) {
            5.0
        } else {
            3.5
        };
        painter.circle(
            p,
            radius,
            c32(network_color(network)),
            Stroke::new(0.5, Color32::BLACK),
        );
        if let Some(q) = pointer {
            let d = p.distance(q);
            if d < best {
                best = d;
                hovered = Some(i);
            }
        }
    }
    if let Some(i) = hovered {
        painter.circle_stroke(at(i), 7.0, Stroke::new(1.5, Color32::BLACK));
        let level = explored.node_level[i].map_or_else(|| "none".to_owned(), |l| l.to_string());
        let text = format!(
            "{}\nscore {:.4}\nFC strength {:.4}\ntrunk level {level}",
            roi_label(dataset, i),
            explored.scores.get(i).copied().unwrap_or(f64::NAN),
            explored.strength.get(i).copied().unwrap_or(f64::NAN),
        );
        response.on_hover_text_at_pointer(text);
    }
    hovered
}
