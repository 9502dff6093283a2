//! The controls column every tab shares: the Run button, data, missingness, estimator f,
//! label model h, iterative rounds, and the run's numbers in words.

use benchtop_kit::host::Cx;
use benchtop_kit::widgets::file_field;
use benchtop_weakfeatures::data::Source;
use benchtop_weakfeatures::missing::Mechanism;
use benchtop_weakfeatures::models::{EstimatorKind, LabelKind};

use super::WeakfeaturesModel;

/// Draws the controls and starts a run when asked.
pub(super) fn controls(
    model: &mut WeakfeaturesModel,
    cx: &mut Cx<'_, WeakfeaturesModel>,
    ui: &mut egui::Ui,
) {
    // The Run button first, so that it stays in view however long the column grows.
    if model.run.controls(ui, &cx.params.clone(), "Run", "Stop") {
        model.start_run(cx);
    }
    ui.separator();
    ui.strong("Data");
    ui.horizontal_wrapped(|ui| {
        let source = &mut cx.params.data.source;
        ui.selectable_value(source, Source::Gaussian, "Gaussian generator")
            .on_hover_text(
                "Jointly Gaussian (x_o, x_w), y = βᵀx + σξ: every closed form is exact.",
            );
        ui.selectable_value(source, Source::BreastCancer, "Breast-cancer table")
            .on_hover_text(
                "The Wisconsin diagnostic table (569 rows, scikit-learn's copy); target: \
                 malignant (1) or benign (0), squared loss. Closed forms use moments estimated \
                 from every row.",
            );
        ui.selectable_value(source, Source::Csv, "CSV file")
            .on_hover_text("Your table: a header row, then one row per sample, all numbers.");
    });
    match cx.params.data.source {
        Source::Gaussian => cx.params(
            ui,
            &[
                "data.gaussian.d_observed",
                "data.gaussian.d_weak",
                "data.gaussian.corr_observed",
                "data.gaussian.r_squared",
                "data.gaussian.beta_observed",
                "data.gaussian.beta_weak",
                "data.gaussian.noise_sd",
                "data.n_test",
            ],
        ),
        Source::BreastCancer | Source::Csv => {
            if cx.params.data.source == Source::Csv {
                file_field(
                    ui,
                    "CSV file",
                    &mut cx.params.data.file.path,
                    "table.csv",
                    ("CSV", &["csv", "txt"]),
                );
            }
            let columns = &mut cx.params.data.columns;
            let name = ui.label("Observed columns x_o (comma-separated)");
            ui.text_edit_multiline(&mut columns.observed)
                .labelled_by(name.id)
                .on_hover_text("Header names of the clean features x_o, comma-separated.");
            let name = ui.label("Weak columns x_w (comma-separated)");
            ui.text_edit_singleline(&mut columns.weak)
                .labelled_by(name.id)
                .on_hover_text(
                    "Header names of the weak features x_w, comma-separated: the mechanism \
                     hides them on part of the rows.",
                );
            let name = ui.label("Target column y");
            ui.text_edit_singleline(&mut columns.target)
                .labelled_by(name.id)
                .on_hover_text("Header name of the target y (squared loss).");
            cx.param(ui, "data.test_fraction");
        }
    }
    cx.param(ui, "data.n_train");
    ui.separator();
    ui.strong("Missing weak features");
    ui.horizontal(|ui| {
        ui.label("Mechanism");
        let mechanism = &mut cx.params.missing.mechanism;
        for m in Mechanism::ALL {
            let tip = match m {
                Mechanism::Mcar => "Missing completely at random: every row alike.",
                Mechanism::Mar => "Missing at random: more likely where x_o is large.",
                Mechanism::Mnar => "Missing not at random: more likely where x_w itself is large.",
            };
            ui.selectable_value(mechanism, m, m.label())
                .on_hover_text(tip);
        }
    });
    cx.params(ui, &["missing.rate", "missing.strength"]);
    ui.separator();
    ui.strong("Feature estimator f: x_o → x̂_w");
    ui.horizontal_wrapped(|ui| {
        let kind = &mut cx.params.estimator.kind;
        for k in EstimatorKind::ALL {
            let text = match k {
                EstimatorKind::Linear => "Linear f",
                EstimatorKind::Mlp => "MLP f",
                EstimatorKind::OracleNoise => "Oracle + noise",
                EstimatorKind::ConditionalMean => "E[x_w | x_o]",
            };
            ui.selectable_value(kind, k, text);
        }
    });
    match cx.params.estimator.kind {
        EstimatorKind::Linear => cx.params(ui, &["estimator.ridge"]),
        EstimatorKind::Mlp => cx.params(
            ui,
            &[
                "estimator.mlp.hidden",
                "estimator.mlp.epochs",
                "estimator.mlp.learning_rate",
            ],
        ),
        EstimatorKind::OracleNoise => cx.params(ui, &["estimator.mse"]),
        EstimatorKind::ConditionalMean => {
            ui.small("The exact E[x_w | x_o] of the moments (the plug-in of the closed form).");
        }
    }
    ui.separator();
    ui.strong("Label model h(x_o, x̃_w)");
    ui.horizontal(|ui| {
        let kind = &mut cx.params.label.kind;
        ui.selectable_value(kind, LabelKind::Ridge, "Ridge h");
        ui.selectable_value(kind, LabelKind::Mlp, "MLP h");
    });
    match cx.params.label.kind {
        LabelKind::Ridge => cx.params(ui, &["label.ridge"]),
        LabelKind::Mlp => cx.params(
            ui,
            &[
                "label.lipschitz_cap",
                "label.mlp.hidden",
                "label.mlp.epochs",
                "label.mlp.learning_rate",
            ],
        ),
    }
    ui.separator();
    ui.strong("Iterative scheme");
    cx.params(
        ui,
        &[
            "iterative.rounds",
            "iterative.label_weight",
            "iterative.steps_per_round",
        ],
    );
    ui.separator();
    ui.strong("Curves");
    cx.params(
        ui,
        &[
            "curves.mse_max",
            "curves.mse_points",
            "curves.n_points",
            "seed",
        ],
    );
    let Some(output) = model.run.result() else {
        return;
    };
    ui.separator();
    ui.label(format!(
        "{}: {} training and {} test rows; {:.1} % and {:.1} % miss x_w.",
        output.source,
        output.n_train,
        output.n_test,
        100.0 * output.missing_train,
        100.0 * output.missing_test
    ));
    for m in &output.methods {
        ui.label(format!(
            "{}: excess risk {:.4} (test MSE {:.4})",
            m.label, m.excess_risk, m.test_mse
        ));
    }
    let cf = &output.closed_forms;
    ui.label(format!(
        "Closed forms{}: sequential {:.4}, iterative {:.4}, observed only {:.4}, mean {:.4}",
        if cf.exact_moments {
            ""
        } else {
            " (moments estimated from the table)"
        },
        cf.sequential,
        cf.iterative,
        cf.observed_only,
        cf.mean_predictor
    ));
    if !cf.valid_for_mechanism {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            "This mechanism breaks the closed forms' assumptions (MCAR; MAR for the plug-in).",
        );
    }
    if let Some(a) = &output.attenuation {
        ui.label(format!(
            "Ridge weight kept on x̂_w: {:.4} (closed form {:.4})",
            a.measured, a.closed_form
        ));
    }
    ui.label(format!(
        "f's MSE on rows missing x_w: {:.4}; Lipschitz constant of h in x_w: {:.3}",
        output.feature_mse, output.lipschitz
    ));
}
