//! The Shadows tab: sets of M snapshots of one chain, their estimates of ⟨Z₀Z₁⟩, C₀₁ and the
//! block's Rényi-2 entropy converging on the exact values within the variance bound 3^k/M,
//! and the known answers (singlet, four-site ring, two-site TFIM, Lanczos against dense).

use benchtop_kit::figure::{FigureViewState, show_figure};
use benchtop_kit::host::Cx;
use benchtop_kit::panel::{DataTable, PanelFigure, Recipe, from_saved, to_saved};
use benchtop_kit::task::Task;
use benchtop_kit::widgets::controls_and_view;
use benchtop_quantum::dataset::SystemParams;
use benchtop_quantum::lanczos::LanczosSettings;
use benchtop_quantum::shadows::mean;
use benchtop_quantum::study::{
    KnownAnswers, Study, StudyParams, known_answers, pauli_bound, study,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::figures::shadows_figure;
use super::{ENGINE, QuantumModel, QuantumParams, SavedResults};

/// What the study depends on.
type ShadowKey = (SystemParams, StudyParams, u64);

fn key(params: &QuantumParams) -> ShadowKey {
    (params.system.clone(), params.shadows.clone(), params.seed)
}

/// The study and the known answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct ShadowsResult {
    study: Study,
    known: KnownAnswers,
}

/// The shadow task.
pub(super) struct ShadowsTab {
    pub(super) task: Task<ShadowKey, (), ShadowsResult>,
    plot: FigureViewState,
}

impl Default for ShadowsTab {
    fn default() -> Self {
        Self {
            task: Task::new("quantum: shadow estimates converging"),
            plot: FigureViewState::default(),
        }
    }
}

impl ShadowsTab {
    pub(super) fn start(&mut self, cx: &mut Cx<'_, QuantumModel>) {
        let (system, params, seed) = key(cx.params);
        self.task.start(
            &cx.runner,
            (system.clone(), params.clone(), seed),
            move |job| {
                let lanczos = LanczosSettings::default();
                let known = known_answers(&lanczos, &job.cancel)?;
                let study = study(&system, &params, &lanczos, seed, &job.progress, &job.cancel)?;
                Ok(ShadowsResult { study, known })
            },
        );
    }

    pub(super) fn save(&self, results: &mut SavedResults) -> anyhow::Result<()> {
        results.shadows = self.task.result().map(to_saved).transpose()?;
        Ok(())
    }

    pub(super) fn restore(results: &SavedResults, params: &QuantumParams) -> anyhow::Result<Self> {
        let mut tab = Self::default();
        if let Some(value) = &results.shadows {
            tab.task.set_result(key(params), from_saved(value)?);
        }
        Ok(tab)
    }

    pub(super) fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, QuantumModel>) {
        controls_and_view(
            ui,
            "quantum shadow controls",
            320.0,
            &mut (self, cx),
            |(tab, cx), ui| {
                ui.strong("Shadows of one chain");
                cx.params(
                    ui,
                    &[
                        "shadows.max_snapshots",
                        "shadows.repeats",
                        "system.sites",
                        "seed",
                    ],
                );
                if tab
                    .task
                    .controls(ui, &key(cx.params), "Draw shadows", "Stop drawing")
                {
                    tab.start(cx);
                }
                if let Some(result) = tab.task.result() {
                    ui.separator();
                    ui.strong("M · Var against the bound");
                    for p in &result.study.points {
                        ui.label(format!(
                            "M = {}: ⟨Z₀Z₁⟩ {:.2} (bound {}), C₀₁ {:.2} (bound 3)",
                            p.snapshots,
                            p.zz_scaled_variance(),
                            pauli_bound(2),
                            p.correlation_scaled_variance()
                        ));
                    }
                    ui.separator();
                    ui.strong("Known answers");
                    let k = &result.known;
                    ui.label(format!(
                        "Singlet C₀₁ = {:.12} (exact −1)",
                        k.singlet_correlation
                    ));
                    ui.label(format!(
                        "Four-site ring E₀ = {:.12} J (exact −2J)",
                        k.ring_energy
                    ));
                    ui.label(format!(
                        "Two-site TFIM E₀ = {:.12} (exact −√(J² + 4h²) = {:.12})",
                        k.tfim_pair_energy,
                        -2.44_f64.sqrt()
                    ));
                    ui.label(format!(
                        "Lanczos − dense, L ≤ 8: {:.1e} (≤ 1e-10)",
                        k.lanczos_vs_dense
                    ));
                }
            },
            |(tab, _), ui| match tab.task.result() {
                Some(result) => show_figure(ui, &shadows_figure(&result.study), &mut tab.plot),
                None => {
                    ui.label("Draw shadows to see their estimates converge.");
                }
            },
        );
    }

    pub(super) fn figures(&self, params: &QuantumParams) -> Vec<PanelFigure> {
        let recipe = Recipe::new(ENGINE, params, Some(params.seed));
        self.task
            .result()
            .map(|r| recipe.figure("quantum-shadows", shadows_figure(&r.study)))
            .into_iter()
            .collect()
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        let Some(result) = self.task.result() else {
            return Vec::new();
        };
        let rows = result
            .study
            .points
            .iter()
            .flat_map(|p| {
                (0..p.zz.len()).map(move |r| {
                    vec![
                        p.snapshots as f64,
                        r as f64,
                        p.zz[r],
                        p.correlation[r],
                        p.entropy[r],
                    ]
                })
            })
            .collect();
        vec![DataTable::new(
            "quantum-shadow-estimates",
            &["M", "set", "zz", "c01", "renyi2_bits"],
            rows,
        )]
    }

    /// `shadows` (exact values, and per M the estimates' mean and M·Var) and `known_answers`.
    pub(super) fn summary(&self) -> Option<serde_json::Value> {
        let result = self.task.result()?;
        let s = &result.study;
        let points: Vec<serde_json::Value> = s
            .points
            .iter()
            .map(|p| {
                json!({
                    "M": p.snapshots,
                    "zz_mean": mean(&p.zz),
                    "zz_scaled_variance": p.zz_scaled_variance(),
                    "correlation_mean": mean(&p.correlation),
                    "correlation_scaled_variance": p.correlation_scaled_variance(),
                    "entropy_mean": mean(&p.entropy),
                })
            })
            .collect();
        let k = &result.known;
        Some(json!({
            "shadows": {
                "exact_zz": s.exact_zz,
                "exact_correlation": s.exact_correlation,
                "exact_entropy": s.exact_entropy,
                "zz_bound": pauli_bound(2),
                "correlation_bound": 3.0,
                "sets": s.points.first().map_or(0, |p| p.zz.len()),
                "points": points,
            },
            "known_answers": {
                "singlet_correlation": k.singlet_correlation,
                "ring_energy": k.ring_energy,
                "tfim_pair_energy": k.tfim_pair_energy,
                "tfim_pair_exact": -2.44_f64.sqrt(),
                "lanczos_vs_dense": k.lanczos_vs_dense,
            },
        }))
    }
}
