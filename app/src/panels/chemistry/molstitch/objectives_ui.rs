//! The objective list editor: each objective in [0, 1] with its parameters, add and remove.

use benchtop_molstitch::ObjectiveSpec;

/// Celecoxib, the default reference of a similarity objective.
pub const DEFAULT_REFERENCE: &str = "Cc1ccc(-c2cc(C(F)(F)F)nn2-c2ccc(S(N)(=O)=O)cc2)cc1";

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
            reference: DEFAULT_REFERENCE.to_owned(),
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
                    ui.label("Similarity to");
                    ui.add(egui::TextEdit::singleline(reference).desired_width(220.0));
                }
                ObjectiveSpec::LogpWindow { lo, hi, width } => {
                    ui.label("logP window");
                    ui.add(egui::DragValue::new(lo).speed(0.1).prefix("from "));
                    ui.add(egui::DragValue::new(hi).speed(0.1).prefix("to "));
                    ui.add(egui::DragValue::new(width).speed(0.05).prefix("fall-off "));
                }
                ObjectiveSpec::TpsaWindow {
                    lo_a2,
                    hi_a2,
                    width_a2,
                } => {
                    ui.label("TPSA window (Å²)");
                    ui.add(egui::DragValue::new(lo_a2).speed(1.0).prefix("from "));
                    ui.add(egui::DragValue::new(hi_a2).speed(1.0).prefix("to "));
                    ui.add(
                        egui::DragValue::new(width_a2)
                            .speed(0.5)
                            .prefix("fall-off "),
                    );
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
