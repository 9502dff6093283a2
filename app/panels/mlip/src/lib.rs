//! PIWSL interatomic potentials: physics-informed weak supervision (Takamoto et al., ICML
//! 2025) on small systems with exact references.
//!
//! Four training variants (`supervised`, `+PITC`, `+PISC`, `+PITC+PISC`) share the data and
//! initial weights, beside the baselines a referee asks for (a conservative −∂E/∂R model on the
//! same labels; a force-labelled head) and the zero-force reference; the panel shows their
//! held-out errors, NVE MD traces, the error against the number of labels over seeds, the
//! verdict on the paper's claim, the A→B→C triangle on the reference energy and each learned
//! force field with its curl. The engine is `benchtop-mlip`.

/// The panel's engine, for tests and tools that drive it directly.
pub use benchtop_mlip as engine;

pub mod bench;
mod compute;
mod figures;
pub mod verdict;

use std::collections::BTreeMap;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::field;
use benchtop_kit::figure::{FigureViewState, show_figure};
use benchtop_kit::host::{Cx, DocOf, Host, PanelModel, SweepCx};
use benchtop_kit::panel::{DataTable, Field, PanelFigure, PanelKind, Paper, ParamIssue, Recipe};
use benchtop_kit::params::{Declare, Param};
use benchtop_kit::project::Sidecar;
use benchtop_kit::sweep::SweepOutput;
use benchtop_kit::task::Task;
use benchtop_kit::widgets::controls_and_view;
use benchtop_mlip::experiment::compare;
use benchtop_mlip::{CONSERVATIVE, ForceMode, MlipParams, SystemKind};
use serde::{Deserialize, Serialize};

pub use compute::{
    CompareResult, SeedErrors, SweepPoint, VariantSummary, mean_sd, run_compare, run_sweep,
    sweep_counts,
};

/// The panel.
pub type MlipPanel = Host<MlipModel>;

/// Everything the project file stores for this panel.
pub type MlipState = DocOf<MlipModel>;

/// The parameters a user edits (the unit of undo and of sweeps).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MlipPanelParams {
    /// The engine's parameters (system, labels, losses, training, MD).
    pub piwsl: MlipParams,
    /// Largest label count of the error-against-labels sweep (powers of two from 2).
    pub sweep_max_labels: usize,
    /// Seeds of the sweep (`seed`, `seed + 1`, …): the spread over them is shown.
    pub sweep_seeds: usize,
    /// Seed of data, initial weights, displacements and MD velocities.
    pub seed: u64,
}

impl Default for MlipPanelParams {
    fn default() -> Self {
        Self {
            piwsl: MlipParams::default(),
            sweep_max_labels: 32,
            sweep_seeds: 3,
            seed: 0,
        }
    }
}

type P = MlipPanelParams;

impl Declare for MlipPanelParams {
    fn declare() -> Vec<Param<Self>> {
        vec![
            Param::new("piwsl.labels", "Labels n", field!(P, piwsl.labels))
                .range(1.0, 4096.0)
                .log()
                .slider()
                .tooltip("Labelled training configurations (energies, and forces when ticked)."),
            Param::new("piwsl.delta", "Displacement δ", field!(P, piwsl.delta))
                .range(0.001, 0.5)
                .log()
                .slider()
                .tooltip("Scale of the displacements δ₁, δ₂ ~ δ·U[0,1) per coordinate (paper: 0.05 Å)."),
            Param::new("piwsl.coef_rob", "PITC weight coef_rob", field!(P, piwsl.coef_rob))
                .range(0.0, 100.0)
                .slider()
                .tooltip("Weight of the Taylor-consistency loss (E(C) against E(A) − δ₁·F(A)); paper 1.2."),
            Param::new("piwsl.coef_cyc", "PISC weight coef_cyc", field!(P, piwsl.coef_cyc))
                .range(0.0, 100.0)
                .slider()
                .tooltip("Weight of the conservative-force loss (E(C) against E(B) − δ₃·F(B)); paper 0.01."),
            Param::new("piwsl.lambda_f", "Force weight λ_F", field!(P, piwsl.lambda_f))
                .range(0.0, 10000.0)
                .tooltip("Weight of the force MSE when forces are labelled (paper 100)."),
            Param::new("piwsl.atoms", "Atoms", field!(P, piwsl.atoms))
                .range(2.0, 13.0)
                .tooltip("Atoms in the Lennard-Jones or Morse cluster (ignored for Müller–Brown)."),
            Param::new("piwsl.temperature", "Temperature kT", field!(P, piwsl.temperature))
                .range(0.01, 2.0)
                .tooltip("Langevin sampling temperature as a fraction of the energy scale (ε; 100 for Müller–Brown)."),
            Param::new("piwsl.unlabelled", "Unlabelled configurations", field!(P, piwsl.unlabelled))
                .range(0.0, 4096.0)
                .tooltip("Extra configurations without labels, used only by PITC and PISC."),
            Param::new("piwsl.test_configs", "Test configurations", field!(P, piwsl.test_configs))
                .range(1.0, 10000.0)
                .tooltip("Held-out configurations for the energy and force errors."),
            Param::new("piwsl.stride", "Sampling stride", field!(P, piwsl.stride))
                .range(1.0, 10000.0)
                .tooltip("Langevin steps between saved configurations."),
            Param::new("piwsl.epochs", "Epochs", field!(P, piwsl.epochs))
                .range(1.0, 1e6)
                .tooltip("Full-batch Adam steps per variant."),
            Param::new("piwsl.learning_rate", "Learning rate", field!(P, piwsl.learning_rate))
                .range(1e-6, 1.0)
                .log()
                .tooltip("Adam's initial learning rate (cosine decay to a tenth)."),
            Param::new("piwsl.hidden", "Hidden width", field!(P, piwsl.hidden))
                .range(1.0, 512.0)
                .tooltip("Units in each of the two tanh hidden layers."),
            Param::new("piwsl.rbf", "Radial features", field!(P, piwsl.rbf))
                .range(2.0, 128.0)
                .tooltip("Gaussian radial features of each pair distance (0.8 to 2.5)."),
            Param::new("piwsl.md_steps", "MD steps", field!(P, piwsl.md_steps))
                .range(0.0, 1e7)
                .tooltip("NVE velocity-Verlet steps with each learned model."),
            Param::new("sweep_max_labels", "Sweep up to n labels", field!(P, sweep_max_labels))
                .range(2.0, 4096.0)
                .tooltip("The error-against-labels sweep trains at 2, 4, 8, … up to this count."),
            Param::new("sweep_seeds", "Sweep seeds", field!(P, sweep_seeds))
                .range(1.0, 64.0)
                .tooltip("The sweep runs every label count with seeds seed, seed + 1, …; the figure shows the mean ± sd over them."),
            Param::new("seed", "Seed", field!(P, seed))
                .seed()
                .tooltip("Seed of the data, initial weights, displacements and MD velocities."),
        ]
    }
}

/// The tabs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum MlipTab {
    /// The four variants side by side.
    #[default]
    Compare,
    /// Error against the number of labels.
    Sweep,
    /// The triangle and the learned fields.
    Field,
}

/// View settings that are saved but are not parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MlipView {
    /// The tab shown.
    pub tab: MlipTab,
}

/// Results kept with the project.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The last comparison.
    pub compare: Option<CompareResult>,
    /// The last sweep.
    pub sweep: Option<Vec<SweepPoint>>,
}

benchtop_kit::panel_tasks! {
    /// The panel's computations.
    pub enum MlipTask for MlipModel;
    /// What `benchtop run` computes for this panel.
    pub struct HeadlessTasks;
    /// Train the four variants and the baselines.
    Compare(compare = true): compare => |m, cx| m.start_compare(cx);
    /// Run the error-against-labels sweep.
    Sweep(sweep = false): sweep => |m, cx| m.start_sweep(cx);
}

type CompareKey = (MlipParams, u64);
type SweepKey = (MlipParams, usize, usize, u64);

/// The panel's tabs and results.
pub struct MlipModel {
    compare: Task<CompareKey, (), CompareResult>,
    sweep: Task<SweepKey, (), Vec<SweepPoint>>,
    compare_plot: FigureViewState,
    sweep_plot: FigureViewState,
    field_plot: FigureViewState,
}

impl Default for MlipModel {
    fn default() -> Self {
        Self {
            compare: Task::new("PIWSL: train four variants and baselines"),
            sweep: Task::new("PIWSL: error against labels"),
            compare_plot: FigureViewState::default(),
            sweep_plot: FigureViewState::default(),
            field_plot: FigureViewState::default(),
        }
    }
}

/// The engine name and version recorded in figure provenance.
const ENGINE: (&str, &str) = ("benchtop-mlip", env!("CARGO_PKG_VERSION"));

fn compare_key(p: &P) -> CompareKey {
    (p.piwsl.clone(), p.seed)
}

fn sweep_key(p: &P) -> SweepKey {
    (p.piwsl.clone(), p.sweep_max_labels, p.sweep_seeds, p.seed)
}

/// System, force mode and label kind: the three choices that are not numbers.
fn choices(ui: &mut egui::Ui, p: &mut MlipParams) {
    ui.horizontal(|ui| {
        ui.label("System");
        for (kind, name) in [
            (SystemKind::LennardJones, "Lennard-Jones"),
            (SystemKind::Morse, "Morse"),
            (SystemKind::MullerBrown, "Müller–Brown"),
        ] {
            ui.selectable_value(&mut p.system, kind, name);
        }
    });
    ui.horizontal(|ui| {
        ui.label("Forces");
        ui.selectable_value(&mut p.force_mode, ForceMode::DirectHead, "Force head")
            .on_hover_text("A separate network predicts forces (may be non-conservative).");
        ui.selectable_value(&mut p.force_mode, ForceMode::Gradient, "Gradient −∂E/∂R")
            .on_hover_text("Forces are the exact negative gradient of the learned energy.");
    });
    ui.checkbox(&mut p.force_labels, "Labels include forces")
        .on_hover_text("Unticked: only energies are labelled (weak supervision of the forces).");
}

impl MlipModel {
    fn start_compare(&mut self, cx: &mut Cx<'_, Self>) {
        let key = compare_key(cx.params);
        let (params, seed) = key.clone();
        self.compare.start(&cx.runner, key, move |job| {
            run_compare(&params, seed, &job.progress, &job.cancel)
        });
    }

    fn start_sweep(&mut self, cx: &mut Cx<'_, Self>) {
        let key = sweep_key(cx.params);
        let (params, max, seeds, seed) = key.clone();
        self.sweep.start(&cx.runner, key, move |job| {
            run_sweep(&params, max, seeds, seed, &job.progress, &job.cancel)
        });
    }

    fn compare_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        controls_and_view(
            ui,
            "mlip compare controls",
            320.0,
            &mut (self, cx),
            |(model, cx), ui| {
                choices(ui, &mut cx.params.piwsl);
                cx.params(
                    ui,
                    &[
                        "piwsl.labels",
                        "piwsl.delta",
                        "piwsl.coef_rob",
                        "piwsl.coef_cyc",
                        "piwsl.lambda_f",
                        "piwsl.atoms",
                        "piwsl.temperature",
                        "piwsl.unlabelled",
                        "piwsl.epochs",
                        "piwsl.learning_rate",
                    ],
                );
                ui.collapsing("More", |ui| {
                    cx.params(
                        ui,
                        &[
                            "piwsl.test_configs",
                            "piwsl.stride",
                            "piwsl.hidden",
                            "piwsl.rbf",
                            "piwsl.md_steps",
                            "seed",
                        ],
                    );
                });
                let key = compare_key(cx.params);
                if model
                    .compare
                    .controls(ui, &key, "Train the four variants", "Stop training")
                {
                    model.start_compare(cx);
                }
                if let Some(r) = model.compare.result() {
                    summary_grid(ui, r);
                    if let Some(line) = verdict::compare_line(r) {
                        ui.label(line);
                    }
                }
            },
            |(model, _), ui| match model.compare.result().map(figures::comparison) {
                Some(figure) => show_figure(ui, &figure, &mut model.compare_plot),
                None => {
                    ui.label("Train the four variants to compare supervised and physics-informed training.");
                }
            },
        );
    }

    fn sweep_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        controls_and_view(
            ui,
            "mlip sweep controls",
            320.0,
            &mut (self, cx),
            |(model, cx), ui| {
                cx.params(
                    ui,
                    &[
                        "sweep_max_labels",
                        "sweep_seeds",
                        "piwsl.delta",
                        "piwsl.coef_rob",
                        "piwsl.coef_cyc",
                    ],
                );
                ui.label(format!(
                    "Label counts: {:?}",
                    sweep_counts(cx.params.sweep_max_labels)
                ));
                let key = sweep_key(cx.params);
                if model
                    .sweep
                    .controls(ui, &key, "Sweep the labels", "Stop the sweep")
                {
                    model.start_sweep(cx);
                }
                if let Some(points) = model.sweep.result() {
                    sweep_grid(ui, points);
                    if let Some(line) = verdict::sweep_line(points) {
                        ui.label(line);
                    }
                }
            },
            |(model, _), ui| match model.sweep.result() {
                Some(points) => show_figure(ui, &figures::sweep(points), &mut model.sweep_plot),
                None => {
                    ui.label("Sweep the labels to see the error against the number of labels.");
                }
            },
        );
    }

    fn field_ui(&mut self, ui: &mut egui::Ui) {
        match self.compare.result().map(figures::field) {
            Some(figure) => {
                ui.label(
                    "Left: the reference energy (atom 1 moved in the x–y plane for clusters) with A, \
                     B = A + δ₂, C = A + δ₁ (enlarged 4× on clusters). Right: the learned forces on \
                     that slice and their curl; a conservative field has zero curl.",
                );
                show_figure(ui, &figure, &mut self.field_plot);
            }
            None => {
                ui.label("Train the four variants (first tab) to see the triangle and the learned fields.");
            }
        }
    }
}

fn summary_grid(ui: &mut egui::Ui, r: &CompareResult) {
    egui::Grid::new("mlip summary")
        .striped(true)
        .show(ui, |ui| {
            for h in ["variant", "E MAE", "F MAE", "MD drift", "MD steps"] {
                ui.label(h);
            }
            ui.end_row();
            for v in r.variants.iter().chain(&r.baselines) {
                ui.label(&v.name);
                ui.label(format!("{:.4}", v.energy_mae));
                ui.label(format!("{:.4}", v.force_mae));
                ui.label(format!("{:.2e}", v.md_energy_drift));
                ui.label(v.md_steps_stable.to_string());
                ui.end_row();
            }
            if r.zero_force_mae.is_finite() {
                ui.label("zero force, mean energy");
                ui.label(format!("{:.4}", r.constant_energy_mae));
                ui.label(format!("{:.4}", r.zero_force_mae));
                ui.end_row();
            }
        });
}

/// Force MAE per label count, mean ± sd over the sweep's seeds.
fn sweep_grid(ui: &mut egui::Ui, points: &[SweepPoint]) {
    let cell = |ui: &mut egui::Ui, p: &SweepPoint, f: fn(&SeedErrors) -> f64, mean: f64| {
        if p.per_seed.len() > 1 {
            let (m, sd) = p.spread(f);
            ui.label(format!("{m:.3} ± {sd:.3}"));
        } else {
            ui.label(format!("{mean:.4}"));
        }
    };
    egui::Grid::new("mlip sweep table")
        .striped(true)
        .show(ui, |ui| {
            ui.label("labels");
            ui.label("F MAE sup.");
            ui.label("F MAE +PITC+PISC");
            ui.label("F MAE conservative");
            ui.label("zero force");
            ui.end_row();
            for p in points {
                ui.label(p.labels.to_string());
                cell(ui, p, |s| s.supervised_force, p.supervised_force);
                cell(ui, p, |s| s.piwsl_force, p.piwsl_force);
                cell(ui, p, |s| s.conservative_force, p.conservative_force);
                ui.label(format!("{:.3}", p.zero_force));
                ui.end_row();
            }
        });
}

/// One trained run's numbers in `summary.json`.
fn run_json(v: &VariantSummary) -> serde_json::Value {
    serde_json::json!({
        "energy_mae": v.energy_mae,
        "force_mae": v.force_mae,
        "md_energy_drift": v.md_energy_drift,
        "md_steps_stable": v.md_steps_stable,
    })
}

/// The sweep in `summary.json`: per label count, each error's per-seed values, mean and sd.
fn sweep_json(points: &[SweepPoint]) -> serde_json::Value {
    let stat = |p: &SweepPoint, f: fn(&SeedErrors) -> f64| {
        let values: Vec<f64> = p.per_seed.iter().map(f).collect();
        let (mean, sd) = mean_sd(&values);
        serde_json::json!({ "mean": mean, "sd": sd, "per_seed": values })
    };
    let rows: Vec<serde_json::Value> = points
        .iter()
        .map(|p| {
            serde_json::json!({
                "labels": p.labels,
                "seeds": p.per_seed.iter().map(|s| s.seed).collect::<Vec<_>>(),
                "force_mae": {
                    "supervised": stat(p, |s| s.supervised_force),
                    "+PITC+PISC": stat(p, |s| s.piwsl_force),
                    "conservative": stat(p, |s| s.conservative_force),
                    "zero_force": stat(p, |s| s.zero_force),
                },
                "energy_mae": {
                    "supervised": stat(p, |s| s.supervised_energy),
                    "+PITC+PISC": stat(p, |s| s.piwsl_energy),
                    "conservative": stat(p, |s| s.conservative_energy),
                },
            })
        })
        .collect();
    serde_json::Value::Array(rows)
}

impl PanelModel for MlipModel {
    type Params = MlipPanelParams;
    type View = MlipView;
    type Results = SavedResults;
    type Tab = MlipTab;

    const KIND: PanelKind = PanelKind {
        id: "mlip",
        name: "PIWSL interatomic potentials",
        description: "Train a small interatomic potential with and without the physics-informed PITC/PISC losses on few labels, and compare held-out errors, MD stability and force-field curl.",
        field: Field::Chemistry,
        paper: Paper {
            title: "Physics-Informed Weakly Supervised Learning for Interatomic Potentials",
            authors: "Takamoto, Morita, Alesiani, Niepert et al.",
            venue: "ICML 2025",
            link: "https://proceedings.mlr.press/v267/takamoto25a.html",
        },
    };

    benchtop_kit::tabs!(MlipTab {
        Compare => "Compare",
        Sweep => "Error vs labels",
        Field => "Triangle and field",
    });

    const BENCHES: &'static [benchtop_kit::cli::BenchEntry] = bench::BENCHES;

    fn restore(
        results: &SavedResults,
        _sidecar: Option<&Sidecar>,
        params: &P,
    ) -> anyhow::Result<Self> {
        let mut model = Self::default();
        if let Some(r) = &results.compare {
            model.compare.set_result(compare_key(params), r.clone());
        }
        if let Some(r) = &results.sweep {
            model.sweep.set_result(sweep_key(params), r.clone());
        }
        Ok(model)
    }

    fn save(&self, results: &mut SavedResults, _sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        results.compare = self.compare.result().cloned();
        results.sweep = self.sweep.result().cloned();
        Ok(())
    }

    fn tab_ui(&mut self, tab: MlipTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        match tab {
            MlipTab::Compare => self.compare_ui(ui, cx),
            MlipTab::Sweep => self.sweep_ui(ui, cx),
            MlipTab::Field => self.field_ui(ui),
        }
    }

    fn validate(params: &P) -> Vec<ParamIssue> {
        ParamIssue::from_result("piwsl", params.piwsl.validate())
            .into_iter()
            .collect()
    }

    fn figures(&self, params: &P, _view: &MlipView) -> Vec<PanelFigure> {
        let recipe = Recipe::new(ENGINE, params, Some(params.seed));
        let mut out = Vec::new();
        if let Some(r) = self.compare.result() {
            out.push(recipe.figure("mlip-compare", figures::comparison(r)));
            out.push(recipe.figure("mlip-field", figures::field(r)));
        }
        if let Some(points) = self.sweep.result() {
            out.push(recipe.figure("mlip-error-vs-labels", figures::sweep(points)));
        }
        out
    }

    fn tables(&self, _params: &P, _view: &MlipView) -> Vec<DataTable> {
        let mut out = Vec::new();
        if let Some(points) = self.sweep.result() {
            let rows = points
                .iter()
                .map(|p| {
                    vec![
                        p.labels as f64,
                        p.supervised_force,
                        p.piwsl_force,
                        p.supervised_energy,
                        p.piwsl_energy,
                        p.conservative_force,
                        p.conservative_energy,
                        p.zero_force,
                        p.spread(|s| s.supervised_force).1,
                        p.spread(|s| s.piwsl_force).1,
                        p.spread(|s| s.conservative_force).1,
                        p.per_seed.len() as f64,
                    ]
                })
                .collect();
            out.push(DataTable::new(
                "mlip-error-vs-labels",
                &[
                    "labels",
                    "force_mae_supervised",
                    "force_mae_piwsl",
                    "energy_mae_supervised",
                    "energy_mae_piwsl",
                    "force_mae_conservative",
                    "energy_mae_conservative",
                    "force_mae_zero",
                    "force_mae_supervised_sd",
                    "force_mae_piwsl_sd",
                    "force_mae_conservative_sd",
                    "seeds",
                ],
                rows,
            ));
        }
        out
    }

    fn summary(&self, params: &P) -> serde_json::Value {
        // The comparison's keys when it ran, the sweep's when it ran: either may run alone.
        let mut out = match self.compare.result() {
            Some(r) => {
                let methods: serde_json::Map<String, serde_json::Value> = r
                    .variants
                    .iter()
                    .map(|v| (v.name.clone(), run_json(v)))
                    .collect();
                let baselines: serde_json::Map<String, serde_json::Value> = r
                    .baselines
                    .iter()
                    .map(|v| (v.name.clone(), run_json(v)))
                    .collect();
                serde_json::json!({
                    "methods": methods,
                    "labels": params.piwsl.labels,
                    "baselines": baselines,
                    "zero_force_mae": r.zero_force_mae,
                    "constant_energy_mae": r.constant_energy_mae,
                    "fair_baseline": r.fair_baseline().map(|v| v.name.clone()),
                    "verdict": verdict::compare_line(r),
                })
            }
            None => serde_json::json!({ "labels": params.piwsl.labels }),
        };
        match self.sweep.result() {
            Some(points) => {
                out["error_vs_labels"] = sweep_json(points);
                out["error_vs_labels_verdict"] = verdict::sweep_line(points).into();
            }
            None if self.compare.result().is_none() => return serde_json::Value::Null,
            None => {}
        }
        out
    }

    fn sweep_outputs() -> Vec<SweepOutput> {
        vec![
            SweepOutput::new("force_mae_supervised", "Force MAE, supervised"),
            SweepOutput::new("force_mae_piwsl", "Force MAE, +PITC+PISC"),
            SweepOutput::new("force_mae_conservative", "Force MAE, conservative −∂E/∂R"),
            SweepOutput::new("force_mae_zero", "Force MAE of zero force"),
        ]
    }

    fn evaluate(
        params: &P,
        outputs: &[String],
        seed: u64,
        _cx: &SweepCx<'_>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        let p = MlipParams {
            md_steps: 0,
            ..params.piwsl.clone()
        };
        // The conservative baseline costs a third more; train it only when it is recorded.
        let conservative =
            outputs.is_empty() || outputs.iter().any(|o| o == "force_mae_conservative");
        let mut names = vec!["supervised", "+PITC+PISC"];
        if conservative {
            names.push(CONSERVATIVE);
        }
        let c = compare(&p, &names, seed, progress, cancel)?;
        let mut out = BTreeMap::from([
            (
                "force_mae_supervised".to_owned(),
                c.variants[0].errors.force_mae,
            ),
            ("force_mae_piwsl".to_owned(), c.variants[1].errors.force_mae),
            ("force_mae_zero".to_owned(), c.reference.force_mae),
        ]);
        if conservative {
            out.insert(
                "force_mae_conservative".to_owned(),
                c.variants[2].errors.force_mae,
            );
        }
        Ok(out)
    }
}
