//! Molecule drawings from RDKit 2D coordinates: painted on screen with egui, and as a figure
//! subplot (atoms as labelled nodes, bonds as edges) for SVG, PNG and PDF export. Atoms may be
//! highlighted with a colour each (the fragment they belong to).

use benchtop_molstitch::{BondKind, DrawAtom, Drawing};
use egui::{Color32, Pos2, Rect, Sense, Stroke, Vec2};

use benchtop_kit::figure::{Graph, GraphEdge, GraphNode, Rgba, Subplot};

/// Element symbols by atomic number (index 0 is the attachment point `*`).
const SYMBOLS: [&str; 54] = [
    "*", "H", "He", "Li", "Be", "B", "C", "N", "O", "F", "Ne", "Na", "Mg", "Al", "Si", "P", "S",
    "Cl", "Ar", "K", "Ca", "Sc", "Ti", "V", "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge",
    "As", "Se", "Br", "Kr", "Rb", "Sr", "Y", "Zr", "Nb", "Mo", "Tc", "Ru", "Rh", "Pd", "Ag", "Cd",
    "In", "Sn", "Sb", "Te", "I",
];

/// The element symbol of atomic number `z`.
pub fn symbol(z: u32) -> String {
    SYMBOLS
        .get(z as usize)
        .map_or_else(|| format!("#{z}"), |s| (*s).to_owned())
}

/// The text drawn at an atom: nothing for a neutral carbon, else the symbol with its hydrogens
/// and charge (`NH`, `O-`, `N+`), attachment points as `[16*]`.
pub fn atom_label(atom: &DrawAtom) -> String {
    if atom.atomic_num == 6 && atom.formal_charge == 0 {
        return String::new();
    }
    if atom.atomic_num == 0 {
        return if atom.isotope > 0 {
            format!("{}*", atom.isotope)
        } else {
            "*".to_owned()
        };
    }
    let mut text = symbol(atom.atomic_num);
    match atom.total_hs {
        0 => {}
        1 => text.push('H'),
        n => text.push_str(&format!("H{n}")),
    }
    match atom.formal_charge {
        0 => {}
        1 => text.push('+'),
        -1 => text.push('-'),
        c if c > 0 => text.push_str(&format!("{c}+")),
        c => text.push_str(&format!("{}-", -c)),
    }
    text
}

/// Conventional (CPK-like) colour of an element's label.
pub fn element_color(z: u32) -> Rgba {
    match z {
        7 => Rgba::rgb(48, 80, 248),
        8 => Rgba::rgb(230, 30, 30),
        9 | 17 => Rgba::rgb(30, 160, 30),
        16 => Rgba::rgb(190, 160, 0),
        15 => Rgba::rgb(230, 120, 0),
        35 => Rgba::rgb(150, 40, 40),
        53 => Rgba::rgb(120, 0, 160),
        0 => Rgba::rgb(150, 150, 150),
        _ => Rgba::rgb(40, 40, 40),
    }
}

/// Colour of fragment `index` (highlights and fragment labels).
pub fn fragment_color(index: usize) -> Rgba {
    Rgba::cycle(index)
}

/// Per-atom highlight colours from atom-index groups: atoms in `groups[k]` get `colors[k]`.
pub fn highlights(atoms: usize, groups: &[(&[usize], Rgba)]) -> Vec<Option<Rgba>> {
    let mut out = vec![None; atoms];
    for (group, color) in groups {
        for &i in *group {
            if let Some(slot) = out.get_mut(i) {
                *slot = Some(*color);
            }
        }
    }
    out
}

fn bounds(drawing: &Drawing) -> (f64, f64, f64, f64) {
    let mut b = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for a in &drawing.atoms {
        b = (b.0.min(a.x), b.1.max(a.x), b.2.min(a.y), b.3.max(a.y));
    }
    if b.0 > b.1 { (0.0, 0.0, 0.0, 0.0) } else { b }
}

/// Paints `drawing` into a new `size` area, highlighted atoms on coloured discs; returns the
/// response of the area (hover shows `hover_text`).
pub fn paint(
    ui: &mut egui::Ui,
    drawing: &Drawing,
    highlight: &[Option<Rgba>],
    size: Vec2,
) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(size, Sense::click());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
    if drawing.atoms.is_empty() {
        return response;
    }
    let (x0, x1, y0, y1) = bounds(drawing);
    let span = (x1 - x0).max(y1 - y0).max(1.5);
    let inner = rect.shrink(14.0);
    #[allow(clippy::cast_possible_truncation)]
    let scale = (f64::from(inner.width().min(inner.height())) / span) as f32;
    let centre = inner.center();
    #[allow(clippy::cast_possible_truncation)]
    let to_screen = |a: &DrawAtom| {
        Pos2::new(
            centre.x + ((a.x - 0.5 * (x0 + x1)) as f32) * scale,
            centre.y - ((a.y - 0.5 * (y0 + y1)) as f32) * scale,
        )
    };
    let ink = ui.visuals().text_color();
    let width = (scale * 0.06).clamp(1.0, 2.2);
    for (i, atom) in drawing.atoms.iter().enumerate() {
        if let Some(Some(color)) = highlight.get(i) {
            painter.circle_filled(
                to_screen(atom),
                scale * 0.42,
                color.with_alpha(110).to_color32(),
            );
        }
    }
    for bond in &drawing.bonds {
        let (Some(a), Some(b)) = (drawing.atoms.get(bond.begin), drawing.atoms.get(bond.end))
        else {
            continue;
        };
        let (p, q) = (to_screen(a), to_screen(b));
        let normal = (q - p).normalized().rot90() * (scale * 0.09);
        let stroke = Stroke::new(width, ink);
        match bond.kind {
            BondKind::Double => {
                painter.line_segment([p + normal, q + normal], stroke);
                painter.line_segment([p - normal, q - normal], stroke);
            }
            BondKind::Triple => {
                painter.line_segment([p, q], stroke);
                painter.line_segment([p + normal * 1.6, q + normal * 1.6], stroke);
                painter.line_segment([p - normal * 1.6, q - normal * 1.6], stroke);
            }
            BondKind::Aromatic => {
                painter.line_segment([p, q], stroke);
                let (p2, q2) = (
                    p.lerp(q, 0.15) + normal * 1.6,
                    p.lerp(q, 0.85) + normal * 1.6,
                );
                painter.extend(egui::Shape::dashed_line(
                    &[p2, q2],
                    Stroke::new(width * 0.8, ink),
                    3.0,
                    2.0,
                ));
            }
            BondKind::Single | BondKind::Other => {
                painter.line_segment([p, q], stroke);
            }
        }
    }
    let font = egui::FontId::proportional((scale * 0.45).clamp(9.0, 16.0));
    for atom in &drawing.atoms {
        let label = atom_label(atom);
        if label.is_empty() {
            continue;
        }
        let at = to_screen(atom);
        let galley = painter.layout_no_wrap(
            label,
            font.clone(),
            element_color(atom.atomic_num).to_color32(),
        );
        let text_rect = Rect::from_center_size(at, galley.size() + Vec2::splat(2.0));
        painter.rect_filled(text_rect, 2.0, ui.visuals().extreme_bg_color);
        painter.galley(text_rect.min + Vec2::splat(1.0), galley, Color32::WHITE);
    }
    response
}

/// `drawing` as a figure subplot titled `title`: bonds as edges (thicker for higher orders),
/// atoms as nodes labelled like [`atom_label`], highlighted atoms filled with their colour.
pub fn subplot(title: &str, drawing: &Drawing, highlight: &[Option<Rgba>]) -> Subplot {
    let nodes = drawing
        .atoms
        .iter()
        .enumerate()
        .map(|(i, atom)| {
            let label = atom_label(atom);
            let color = highlight
                .get(i)
                .copied()
                .flatten()
                .unwrap_or_else(|| element_color(atom.atomic_num));
            let radius = if highlight.get(i).copied().flatten().is_some() {
                4.5
            } else if label.is_empty() {
                1.0
            } else {
                3.0
            };
            GraphNode::new(atom.x, atom.y, label)
                .color(color)
                .radius_pt(radius)
        })
        .collect();
    let edges = drawing
        .bonds
        .iter()
        .map(|bond| {
            let width = match bond.kind {
                BondKind::Double => 2.6,
                BondKind::Triple => 3.6,
                BondKind::Aromatic => 1.8,
                BondKind::Single | BondKind::Other => 1.1,
            };
            GraphEdge::new(bond.begin, bond.end)
                .color(Rgba::rgb(50, 50, 50))
                .width_pt(width)
        })
        .collect();
    let (x0, x1, y0, y1) = bounds(drawing);
    Subplot::new(title)
        .x_label("")
        .y_label("")
        .x_range(x0 - 1.0, x1 + 1.0)
        .y_range(y0 - 1.0, y1 + 1.0)
        .equal_aspect(true)
        .with(Graph::new(title, nodes, edges))
}
