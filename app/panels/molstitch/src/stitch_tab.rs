//! The stitching viewer: the molecule set's Pareto scatter (click to pick parents), the two
//! parents with their BRICS fragments highlighted, the child of the chosen fragments with its
//! objective values and the changes from its parents, and the gallery of every compatible pair.

use std::sync::Arc;

use benchtop_compute::ComputeError;
use benchtop_kit::figure::Rgba;
use benchtop_kit::host::Cx;
use benchtop_kit::task::Task;
use benchtop_kit::widgets::{file_field, job_progress};
use egui::{Color32, Pos2, Rect, Sense, Stroke, Vec2};

use super::figures::fitted_range;
use super::library::{self, MoleculeSet};
use super::mol_draw::{self, fragment_color, highlights};
use super::objectives_ui::{objective_name, objectives_ui};
use super::stitch::{ChildView, ParentView, StitchRequest, StitchView, analyse_choosing};
use super::{MolStitchModel, MolStitchParams, MolStitchView, ParentSlot};

/// Colour of parent A in the scatter and of its fragment in the child.
pub const PARENT_A_COLOR: Rgba = Rgba::rgb(31, 119, 180);
/// Colour of parent B.
pub const PARENT_B_COLOR: Rgba = Rgba::rgb(214, 39, 40);
/// Colour of the child marker.
pub const CHILD_COLOR: Rgba = Rgba::rgb(44, 160, 44);

/// What a library is computed for: the data file and the objectives.
type LibraryKey = (String, Vec<benchtop_molstitch::ObjectiveSpec>);

/// A stitching: its view and the request it answers (with the fragments it chose itself when
/// the parameters chose none).
#[derive(Clone)]
pub(super) struct Stitched {
    answers: StitchRequest,
    view: Arc<StitchView>,
}

/// The viewer's two computations, both run whenever their inputs change: scoring the molecule
/// set, and stitching the parents.
pub(super) struct StitchTab {
    /// Reading and scoring the molecule set.
    pub(super) score: Task<LibraryKey, (), Arc<MoleculeSet>>,
    /// Analysing the parents and stitching the chosen fragments.
    pub(super) stitch: Task<StitchRequest, (), Stitched>,
    /// Scores read back with the project, taken instead of scoring while their fingerprint
    /// holds.
    saved: Option<Arc<MoleculeSet>>,
}

impl Default for StitchTab {
    fn default() -> Self {
        Self {
            score: Task::new("molstitch: score molecules"),
            stitch: Task::new("molstitch: stitch"),
            saved: None,
        }
    }
}

fn library_key(params: &MolStitchParams) -> LibraryKey {
    (params.data.file.path.clone(), params.objectives.clone())
}

/// The request the current parameters ask for.
pub(super) fn stitch_request(params: &MolStitchParams) -> StitchRequest {
    StitchRequest {
        parent_a: params.stitch.parent_a.clone(),
        parent_b: params.stitch.parent_b.clone(),
        fragment_a: params.stitch.fragment_a,
        fragment_b: params.stitch.fragment_b,
        objectives: params.objectives.clone(),
    }
}

/// The name under which a failed stitching reaches the task (its message names the parent).
const STITCH_FAILURE: &str = "stitch";

impl StitchTab {
    /// The scored molecule set, once computed.
    pub(super) fn library(&self) -> Option<Arc<MoleculeSet>> {
        self.score.result().cloned()
    }

    /// The current stitching result.
    pub(super) fn stitched(&self) -> Option<Arc<StitchView>> {
        self.stitch.result().map(|s| Arc::clone(&s.view))
    }

    /// Takes in the scored set and the stitching as they arrive, and the fragments a finished
    /// stitching chose.
    pub(super) fn poll(&mut self, params: &mut MolStitchParams) {
        self.score.poll_result();
        if self.stitch.poll_result() {
            self.adopt_choice(params);
        }
    }

    /// Takes scores saved with the project (checked against the parameters when scoring
    /// would start).
    pub(super) fn restore_scores(&mut self, set: MoleculeSet) {
        self.saved = Some(Arc::new(set));
    }

    /// The scores to save: the set shown, else the saved one not checked yet.
    pub(super) fn scores_to_save(&self) -> Option<Arc<MoleculeSet>> {
        self.library().or_else(|| self.saved.clone())
    }

    /// Reads and scores the molecule set the parameters name, or takes the saved scores when
    /// they were computed from the same molecules and objectives.
    pub(super) fn start_scoring(&mut self, cx: &mut Cx<'_, MolStitchModel>) {
        let file = cx.params.data.resolved_file(cx.project_dir);
        let specs = cx.params.objectives.clone();
        let fingerprint = library::fingerprint(&cx.params.data.file.path, file.as_deref(), &specs);
        if let Some(saved) = self.saved.take()
            && saved.fingerprint == fingerprint
        {
            self.score.set_result(library_key(cx.params), saved);
            return;
        }
        self.score
            .start(&cx.runner, library_key(cx.params), move |job| {
                let mut set = library::load(file.as_deref(), &specs, &job.progress, &job.cancel)?;
                set.fingerprint = fingerprint;
                Ok(Arc::new(set))
            });
    }

    /// Stitches the parents the parameters name; when no fragment is chosen, the gallery's best
    /// pair is chosen (and written into the parameters once the stitching is done).
    pub(super) fn start_stitching(&mut self, cx: &mut Cx<'_, MolStitchModel>) {
        let request = stitch_request(cx.params);
        self.stitch.start(&cx.runner, request.clone(), move |job| {
            job.progress.set(0.0, "stitching");
            let (answers, view) = analyse_choosing(&request)
                .map_err(|message| ComputeError::invalid(STITCH_FAILURE, message))?;
            Ok(Stitched {
                answers,
                view: Arc::new(view),
            })
        });
    }

    /// Starts whatever the parameters need that is not computed or running yet.
    pub(super) fn react(&mut self, cx: &mut Cx<'_, MolStitchModel>) {
        if !self.score.is_current(&library_key(cx.params)) {
            self.start_scoring(cx);
        }
        if !self.stitch.is_current(&stitch_request(cx.params)) {
            self.start_stitching(cx);
        }
    }

    /// When the parameters choose no fragment and the finished stitching of their parents
    /// chose the gallery's best pair, writes that pair into the parameters (the stitching then
    /// answers them as they are).
    fn adopt_choice(&mut self, params: &mut MolStitchParams) {
        let request = stitch_request(params);
        if self.stitch.is_running()
            || self.stitch.error().is_some()
            || !self.stitch.is_current(&request)
            || request.fragment_a.is_some()
            || request.fragment_b.is_some()
        {
            return;
        }
        let Some(done) = self.stitch.result() else {
            return;
        };
        let chosen = StitchRequest {
            fragment_a: done.answers.fragment_a,
            fragment_b: done.answers.fragment_b,
            ..request
        };
        if done.answers != chosen || chosen.fragment_a.is_none() {
            // Made for other parents, or no pair to choose.
            return;
        }
        let done = done.clone();
        params.stitch.fragment_a = chosen.fragment_a;
        params.stitch.fragment_b = chosen.fragment_b;
        self.stitch.set_result(chosen, done);
    }

    /// The last stitching's failure as the analysis words it (`parent A: invalid SMILES …`).
    fn stitch_error(&self) -> Option<&str> {
        let error = self.stitch.error()?;
        let wrapped = format!("`{STITCH_FAILURE}`: ");
        Some(
            error
                .split_once(wrapped.as_str())
                .map_or(error, |(_, message)| message),
        )
    }

    pub(super) fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, MolStitchModel>) {
        data_ui(ui, cx.params);
        egui::CollapsingHeader::new("Objectives (each in [0, 1], higher is better)")
            .default_open(false)
            .show(ui, |ui| {
                objectives_ui(ui, &mut cx.params.objectives);
                ui.label(
                    "The paper's JNK3 and GSK3β activity oracles are trained models that are not \
                     available offline; these objectives are computed with RDKit.",
                );
            });
        self.status_ui(ui);
        ui.separator();
        let params = &mut *cx.params;
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| self.scatter_ui(ui, params, cx.view));
            ui.separator();
            let stitched = self.stitched();
            ui.vertical(|ui| {
                ui.horizontal_top(|ui| {
                    for slot in [ParentSlot::A, ParentSlot::B] {
                        ui.vertical(|ui| {
                            ui.set_width(230.0);
                            parent_ui(ui, params, slot, stitched.as_deref());
                        });
                        ui.add_space(16.0);
                    }
                });
                if let Some(stitched) = &stitched {
                    ui.add_space(8.0);
                    child_ui(ui, params, stitched);
                }
            });
        });
        if let Some(error) = self.stitch_error() {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        ui.separator();
        if let Some(stitched) = self.stitched() {
            gallery_ui(ui, params, &stitched);
        }
    }

    fn status_ui(&self, ui: &mut egui::Ui) {
        if let Some(info) = self.score.info() {
            if job_progress(ui, info, "Stop scoring") {
                self.score.stop();
            }
        } else if let Some(error) = self.score.error() {
            ui.colored_label(ui.visuals().error_fg_color, error);
        } else if let Some(set) = self.score.result() {
            ui.label(format!(
                "{}: {} molecules, {} on the Pareto front{}",
                set.source,
                set.smiles.len(),
                set.front.len(),
                if set.skipped.is_empty() {
                    String::new()
                } else {
                    format!(", {} rows skipped", set.skipped.len())
                }
            ));
            if !set.skipped.is_empty() {
                egui::CollapsingHeader::new("Skipped rows").show(ui, |ui| {
                    for line in set.skipped.iter().take(50) {
                        ui.label(line);
                    }
                });
            }
        }
    }

    /// The Pareto scatter of the set; a click picks the nearest molecule as a parent.
    fn scatter_ui(
        &self,
        ui: &mut egui::Ui,
        params: &mut MolStitchParams,
        view: &mut MolStitchView,
    ) {
        ui.strong("Molecules (click to pick a parent)");
        let names: Vec<String> = params.objectives.iter().map(objective_name).collect();
        view.x_objective = view.x_objective.min(names.len().saturating_sub(1));
        view.y_objective = view.y_objective.min(names.len().saturating_sub(1));
        ui.horizontal(|ui| {
            axis_combo(ui, "x", &names, &mut view.x_objective);
            axis_combo(ui, "y", &names, &mut view.y_objective);
        });
        ui.horizontal(|ui| {
            ui.label("Clicking picks");
            ui.selectable_value(&mut view.click_picks, ParentSlot::A, "parent A");
            ui.selectable_value(&mut view.click_picks, ParentSlot::B, "parent B");
        });
        let (rect, response) = ui.allocate_exact_size(Vec2::new(300.0, 270.0), Sense::click());
        let plot = rect.shrink2(Vec2::new(26.0, 14.0));
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
        painter.rect_stroke(
            plot,
            0.0,
            Stroke::new(1.0, ui.visuals().weak_text_color()),
            egui::StrokeKind::Inside,
        );
        let (ix, iy) = (view.x_objective, view.y_objective);
        let set = self.library();
        let (xr, yr) = set.as_deref().map_or(((0.0, 1.0), (0.0, 1.0)), |set| {
            (
                fitted_range(&set.objectives, ix),
                fitted_range(&set.objectives, iy),
            )
        });
        let to_screen = |v: &[f64]| {
            let x = ((v.get(ix).copied().unwrap_or(0.0) - xr.0) / (xr.1 - xr.0)) as f32;
            let y = ((v.get(iy).copied().unwrap_or(0.0) - yr.0) / (yr.1 - yr.0)) as f32;
            Pos2::new(
                plot.left() + x * plot.width(),
                plot.bottom() - y * plot.height(),
            )
        };
        for t in [0.0_f32, 0.5, 1.0] {
            let font = egui::FontId::proportional(10.0);
            let color = ui.visuals().weak_text_color();
            let at = |r: (f64, f64)| format!("{:.2}", r.0 + f64::from(t) * (r.1 - r.0));
            painter.text(
                Pos2::new(plot.left() + t * plot.width(), plot.bottom() + 2.0),
                egui::Align2::CENTER_TOP,
                at(xr),
                font.clone(),
                color,
            );
            painter.text(
                Pos2::new(plot.left() - 3.0, plot.bottom() - t * plot.height()),
                egui::Align2::RIGHT_CENTER,
                at(yr),
                font,
                color,
            );
        }
        let Some(set) = set else {
            return;
        };
        let grey = ui.visuals().weak_text_color().gamma_multiply(0.6);
        for v in &set.objectives {
            painter.circle_filled(to_screen(v), 1.6, grey);
        }
        let mut front: Vec<Pos2> = set
            .front
            .iter()
            .map(|&i| to_screen(&set.objectives[i]))
            .collect();
        front.sort_by(|a, b| a.x.total_cmp(&b.x));
        for p in &front {
            painter.circle_filled(*p, 3.0, Color32::from_rgb(255, 127, 14));
        }
        if let Some(stitched) = self.stitched() {
            for (parent, color) in [(&stitched.a, PARENT_A_COLOR), (&stitched.b, PARENT_B_COLOR)] {
                painter.circle_stroke(
                    to_screen(&parent.objectives),
                    6.0,
                    Stroke::new(2.5, color.to_color32()),
                );
            }
            if let Some(Ok(child)) = &stitched.child {
                let p = to_screen(&child.objectives);
                painter.rect_filled(
                    Rect::from_center_size(p, Vec2::splat(9.0)),
                    1.0,
                    CHILD_COLOR.to_color32(),
                );
            }
        }
        let hovered = response
            .hover_pos()
            .filter(|p| plot.contains(*p))
            .and_then(|p| {
                let x = xr.0 + (xr.1 - xr.0) * f64::from((p.x - plot.left()) / plot.width());
                let y = yr.0 + (yr.1 - yr.0) * f64::from((plot.bottom() - p.y) / plot.height());
                let scale = (
                    (xr.1 - xr.0) / f64::from(plot.width()),
                    (yr.1 - yr.0) / f64::from(plot.height()),
                );
                set.nearest(ix, iy, (x, y), scale)
            });
        if let Some(i) = hovered {
            painter.circle_stroke(
                to_screen(&set.objectives[i]),
                5.0,
                Stroke::new(1.5, ui.visuals().text_color()),
            );
            let values: Vec<String> = set.objectives[i]
                .iter()
                .map(|v| format!("{v:.3}"))
                .collect();
            response
                .clone()
                .on_hover_text(format!("{}\n{}", set.smiles[i], values.join(", ")));
            if response.clicked() {
                let smiles = set.smiles[i].clone();
                match view.click_picks {
                    ParentSlot::A => {
                        params.stitch.parent_a = smiles;
                        params.stitch.fragment_a = None;
                        view.click_picks = ParentSlot::B;
                    }
                    ParentSlot::B => {
                        params.stitch.parent_b = smiles;
                        params.stitch.fragment_b = None;
                        view.click_picks = ParentSlot::A;
                    }
                }
            }
        }
        ui.label(format!(
            "x: {}   y: {}   orange: Pareto front",
            names.get(ix).map_or("", String::as_str),
            names.get(iy).map_or("", String::as_str)
        ));
    }
}

fn axis_combo(ui: &mut egui::Ui, axis: &str, names: &[String], selected: &mut usize) {
    let label = ui.label(axis);
    egui::ComboBox::from_id_salt(format!("molstitch axis {axis}"))
        .selected_text(names.get(*selected).cloned().unwrap_or_default())
        .show_ui(ui, |ui| {
            for (i, name) in names.iter().enumerate() {
                ui.selectable_value(selected, i, name);
            }
        })
        .response
        .labelled_by(label.id);
}

fn data_ui(ui: &mut egui::Ui, params: &mut MolStitchParams) {
    ui.horizontal(|ui| {
        file_field(
            ui,
            "Molecules",
            &mut params.data.file.path,
            "shipped offline set (5,000 MOSES molecules)",
            (
                "Molecules",
                &["csv", "smi", "smiles", "txt", "sdf", "sd", "gz"],
            ),
        );
        if ui.button("Use the offline set").clicked() {
            params.data.file.path.clear();
        }
    });
}

fn parent_ui(
    ui: &mut egui::Ui,
    params: &mut MolStitchParams,
    slot: ParentSlot,
    stitched: Option<&StitchView>,
) {
    let (name, color) = match slot {
        ParentSlot::A => ("Parent A", PARENT_A_COLOR),
        ParentSlot::B => ("Parent B", PARENT_B_COLOR),
    };
    ui.colored_label(color.to_color32(), egui::RichText::new(name).strong());
    let (smiles, fragment) = match slot {
        ParentSlot::A => (&mut params.stitch.parent_a, &mut params.stitch.fragment_a),
        ParentSlot::B => (&mut params.stitch.parent_b, &mut params.stitch.fragment_b),
    };
    let edit = ui
        .horizontal(|ui| {
            let label = ui.label(format!("SMILES {}", name_letter(slot)));
            ui.add(
                egui::TextEdit::singleline(smiles)
                    .hint_text("type a SMILES")
                    .desired_width(200.0),
            )
            .labelled_by(label.id)
        })
        .inner;
    if edit.changed() {
        *fragment = None;
    }
    // The last parent that parsed stays on show while a new SMILES is typed.
    let parent: Option<&ParentView> = stitched.map(|s| match slot {
        ParentSlot::A => &s.a,
        ParentSlot::B => &s.b,
    });
    let Some(parent) = parent else {
        return;
    };
    // Every fragment in its own colour until one is chosen; then the chosen one in the
    // parent's colour, as its atoms appear in the child.
    let groups: Vec<(&[usize], Rgba)> = parent
        .fragment_atoms
        .iter()
        .enumerate()
        .filter_map(|(k, atoms)| match *fragment {
            None => Some((atoms.as_slice(), fragment_color(k))),
            Some(c) if c == k => Some((atoms.as_slice(), color)),
            Some(_) => None,
        })
        .collect();
    let h = highlights(parent.drawing.atoms.len(), &groups);
    mol_draw::paint(ui, &parent.drawing, &h, Vec2::new(220.0, 170.0)).on_hover_text(&parent.smiles);
    ui.label(values_text(&parent.objectives));
    ui.label("Fragments (click to choose):");
    for (k, f) in parent.fragments.iter().enumerate() {
        let text = egui::RichText::new(format!("{}{} {}", name_letter(slot), k + 1, f.smiles))
            .color(fragment_color(k).to_color32());
        if ui.selectable_label(*fragment == Some(k), text).clicked() {
            *fragment = if *fragment == Some(k) { None } else { Some(k) };
        }
    }
}

fn name_letter(slot: ParentSlot) -> &'static str {
    match slot {
        ParentSlot::A => "A",
        ParentSlot::B => "B",
    }
}

fn values_text(values: &[f64]) -> String {
    values
        .iter()
        .map(|v| format!("{v:.3}"))
        .collect::<Vec<_>>()
        .join("  ")
}

/// Per-atom colours of a child: atoms from A's fragment in A's colour, from B's in B's.
pub(super) fn child_highlights(child: &ChildView) -> Vec<Option<Rgba>> {
    highlights(
        child.drawing.atoms.len(),
        &[
            (&child.atoms_from.0, PARENT_A_COLOR),
            (&child.atoms_from.1, PARENT_B_COLOR),
        ],
    )
}

fn child_ui(ui: &mut egui::Ui, params: &MolStitchParams, stitched: &StitchView) {
    ui.strong("Stitched child");
    let child = match &stitched.child {
        None => {
            ui.label("Choose one fragment of each parent, or click a child in the gallery below.");
            return;
        }
        Some(Err(message)) => {
            ui.colored_label(ui.visuals().error_fg_color, message);
            return;
        }
        Some(Ok(child)) => child,
    };
    ui.horizontal_top(|ui| {
        mol_draw::paint(
            ui,
            &child.drawing,
            &child_highlights(child),
            Vec2::new(240.0, 180.0),
        )
        .on_hover_text(&child.smiles);
        ui.vertical(|ui| {
            ui.label(egui::RichText::new(&child.smiles).monospace());
            ui.label(format!(
                "Fragments A{} + B{} (blue atoms from A, red from B)",
                child.fragments.0 + 1,
                child.fragments.1 + 1
            ));
            egui::Grid::new("molstitch child values")
                .striped(true)
                .show(ui, |ui| {
                    ui.strong("Objective");
                    ui.strong("Child");
                    ui.strong("Δ vs A");
                    ui.strong("Δ vs B");
                    ui.end_row();
                    for (k, spec) in params.objectives.iter().enumerate() {
                        let v = child.objectives.get(k).copied().unwrap_or(f64::NAN);
                        let da = v - stitched.a.objectives.get(k).copied().unwrap_or(f64::NAN);
                        let db = v - stitched.b.objectives.get(k).copied().unwrap_or(f64::NAN);
                        ui.label(objective_name(spec));
                        ui.label(format!("{v:.3}"));
                        delta_label(ui, da);
                        delta_label(ui, db);
                        ui.end_row();
                    }
                });
        });
    });
}

fn delta_label(ui: &mut egui::Ui, delta: f64) {
    let color = if delta > 0.0 {
        Color32::from_rgb(30, 140, 30)
    } else if delta < 0.0 {
        Color32::from_rgb(190, 40, 40)
    } else {
        ui.visuals().text_color()
    };
    ui.colored_label(color, format!("{delta:+.3}"));
}

fn gallery_ui(ui: &mut egui::Ui, params: &mut MolStitchParams, stitched: &StitchView) {
    ui.strong(format!(
        "Gallery: every BRICS-compatible fragment pair ({} pairs, {} distinct children, best mean objective first; click one to choose it)",
        stitched.compatible_pairs,
        stitched.gallery.len()
    ));
    if stitched.gallery.is_empty() {
        ui.label("No fragment of A can be joined to a fragment of B by a BRICS rule.");
        return;
    }
    ui.horizontal_wrapped(|ui| {
        for (n, child) in stitched.gallery.iter().enumerate() {
            ui.vertical(|ui| {
                ui.set_width(150.0);
                let chosen = (params.stitch.fragment_a, params.stitch.fragment_b)
                    == (Some(child.fragments.0), Some(child.fragments.1));
                let response = mol_draw::paint(
                    ui,
                    &child.drawing,
                    &child_highlights(child),
                    Vec2::new(150.0, 110.0),
                );
                let label = format!(
                    "#{} A{}+B{}  mean {:.3}{}",
                    n + 1,
                    child.fragments.0 + 1,
                    child.fragments.1 + 1,
                    child.mean_objective(),
                    if chosen { " ✔" } else { "" }
                );
                let button = ui.small_button(label);
                if response.on_hover_text(&child.smiles).clicked() || button.clicked() {
                    params.stitch.fragment_a = Some(child.fragments.0);
                    params.stitch.fragment_b = Some(child.fragments.1);
                }
            });
        }
    });
}
