//! The objective list editor: each objective in [0, 1] with its parameters, add and remove.

use benchtop_molstitch::ObjectiveSpec;
use benchtop_molstitch::optimise::config::DEFAULT_REFERENCE_SMILES;

/// A readable name of an objective (plot axes and tables).
pub fn objective_name(spec: &ObjectiveSpec) -> String {
    match spec {
        ObjectiveSpec::Qed => "QED".to_owned(),
        ObjectiveSpec::Sa => "SA' = (10 − SA)/9".to_owned(),
        ObjectiveSpec::Similarity { .. } => "Similarity to reference".to_owned(),
        ObjectiveSpec::LogpWindow { lo, hi, .. } => format!("logP in [{lo}, {hi}]"),
        ObjectiveSpec::TpsaWindow { lo_a2, hi_a2, .. } => format!("TPSA in [{lo_a2}, {hi_a2}] Å²"),
    }
}

/// The objectives offered by "Add objective", with default parameters.
fn templates() -> [ObjectiveSpec; 5] {
    [
        ObjectiveSpec::Qed,
        ObjectiveSpec::Sa,
        ObjectiveSpec::Similarity {
            reference: DEFAULT_REFERENCE_SMILES.to_owned(),
        },
        ObjectiveSpec::LogpWindow {
            lo: 1.0,
            hi: 3.0,
            width: 1.0,
        },
        ObjectiveSpec::TpsaWindow {
            lo_a2: 40.0,
            hi_a2: 90.0,
            width_a2: 20.0,
        },
    ]
}

/// The three numbers of a window objective, each after its own label.
fn window_ui(ui: &mut egui::Ui, values: [&mut f64; 3], speed: f64) {
    for (label, value) in ["from", "to", "fall-off"].into_iter().zip(values) {
        let name = ui.label(label);
        ui.add(egui::DragValue::new(value).speed(speed))
            .labelled_by(name.id);
    }
}

/// Edits `specs` in place (at least one objective is kept).
pub fn objectives_ui(ui: &mut egui::Ui, specs: &mut Vec<ObjectiveSpec>) {
    let mut remove = None;
    for (i, spec) in specs.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            ui.label(format!("{}.", i + 1));
            match spec {
                ObjectiveSpec::Qed | ObjectiveSpec::Sa => {
                    ui.label(objective_name(spec));
                }
                ObjectiveSpec::Similarity { reference } => {
                    let name = ui.label("Similarity to");
                    ui.add(egui::TextEdit::singleline(reference).desired_width(220.0))
                        .labelled_by(name.id);
                }
                ObjectiveSpec::LogpWindow { lo, hi, width } => {
                    ui.label("logP window");
                    window_ui(ui, [lo, hi, width], 0.1);
                }
                ObjectiveSpec::TpsaWindow {
                    lo_a2,
                    hi_a2,
                    width_a2,
                } => {
                    ui.label("TPSA window (Å²)");
                    window_ui(ui, [lo_a2, hi_a2, width_a2], 1.0);
                }
            }
            if ui.small_button("Remove").clicked() {
                remove = Some(i);
            }
        });
    }
    if let Some(i) = remove
        && specs.len() > 1
    {
        specs.remove(i);
    }
    ui.menu_button("Add objective", |ui| {
        for template in templates() {
            if ui.button(objective_name(&template)).clicked() {
                specs.push(template);
                ui.close();
            }
        }
    });
}
