//! The analytic tab: a "forecast" equal to the truth with scale-dependent decorrelation
//! ρ_k = exp(−k/k_c), and per-k gains fitted under MSE and under AMSE. The MSE optimum damps
//! every scale by ρ_k (the forecast blurs); the AMSE optimum keeps amplitude 1.

use benchtop_kit::figure::{
    Bars, Colormap, Figure, FigureViewState, Line, Scale, Subplot, show_figure,
};
use benchtop_kit::host::Cx;
use benchtop_kit::panel::{DataTable, PanelFigure, Recipe, from_saved, to_saved};
use benchtop_kit::project::Sidecar;
use benchtop_kit::task::{Latest, Task};
use benchtop_kit::widgets::controls_and_view;
use benchtop_spectra::experiments::{
    AnalyticMaps, AnalyticParams, AnalyticResult, run_analytic_with,
};
use benchtop_spectra::loss::MseTerms;

use super::figures::{
    AMSE, MSE, OTHER, TRUTH, describe_k, map_subplot, per_k_dashed, per_k_line, ratio_subplot,
    spectrum_subplot, symmetric_range, top_value, wavenumbers,
};
use super::{ENGINE, SavedResults, SpectraModel, SpectraParams};

/// Gradient-descent iterations between live updates.
const UPDATE_EVERY: usize = 10;

/// What a fit depends on: the experiment and its seed.
type FitKey = (AnalyticParams, u64);

fn key(params: &SpectraParams) -> FitKey {
    (params.analytic.clone(), params.analytic_seed)
}

/// The fit, with partial results streamed while it runs.
pub(super) struct AnalyticTab {
    pub(super) task: Task<FitKey, Latest<AnalyticResult>, AnalyticResult>,
    spectra_plot: FigureViewState,
    maps_plot: FigureViewState,
}

impl Default for AnalyticTab {
    fn default() -> Self {
        Self {
            task: Task::new("spectra: MSE vs AMSE optimum"),
            spectra_plot: FigureViewState::default(),
            maps_plot: FigureViewState::default(),
        }
    }
}

impl AnalyticTab {
    /// The result to show: the latest partial one while a fit runs, else the last fit.
    fn shown(&self) -> Option<&AnalyticResult> {
        if self.task.is_running() {
            self.task.live().0.as_ref().or(self.task.result())
        } else {
            self.task.result()
        }
    }

    pub(super) fn start(&mut self, cx: &mut Cx<'_, SpectraModel>) {
        let (analytic, seed) = key(cx.params);
        self.task.start(&cx.runner, key(cx.params), move |job| {
            run_analytic_with(
                &analytic,
                seed,
                &job.progress,
                &job.cancel,
                UPDATE_EVERY,
                |r| {
                    job.send(r);
                },
            )
        });
    }

    /// Fits again whenever the parameters differ from those of the last fit (the fit takes
    /// well under a second, so the figures follow the sliders).
    pub(super) fn react(&mut self, cx: &mut Cx<'_, SpectraModel>) {
        if !self.task.is_current(&key(cx.params)) {
            self.start(cx);
        }
    }

    pub(super) fn save(
        &self,
        results: &mut SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        let Some(result) = self.task.result() else {
            return Ok(());
        };
        let mut stored = result.clone();
        if let Some(maps) = stored.maps.as_mut() {
            // The grid stays in the JSON; the values live in the sidecar.
            let shape = [maps.grid.nlat, maps.grid.nlon];
            let mut layers = [
                &mut maps.truth,
                &mut maps.forecast,
                &mut maps.mse_fit,
                &mut maps.amse_fit,
            ];
            match sidecar {
                Some(sidecar) => {
                    results.analytic_maps_file =
                        Some(sidecar.write_layers("spectra-analytic-maps", &shape, &mut layers)?);
                }
                None => layers.iter_mut().for_each(|layer| layer.clear()),
            }
        }
        results.analytic = Some(to_saved(&stored)?);
        Ok(())
    }

    pub(super) fn restore(
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
        params: &SpectraParams,
    ) -> anyhow::Result<Self> {
        let mut tab = Self::default();
        let Some(value) = &results.analytic else {
            return Ok(tab);
        };
        let mut result: AnalyticResult = from_saved(value)?;
        match (result.maps.as_mut(), sidecar, &results.analytic_maps_file) {
            (Some(maps), Some(sidecar), Some(file)) => {
                let shape = [maps.grid.nlat, maps.grid.nlon];
                sidecar.read_layers(
                    file,
                    &shape,
                    &mut [
                        &mut maps.truth,
                        &mut maps.forecast,
                        &mut maps.mse_fit,
                        &mut maps.amse_fit,
                    ],
                )?;
            }
            (Some(_), _, _) => result.maps = None,
            _ => {}
        }
        tab.task.set_result(key(params), result);
        Ok(tab)
    }

    pub(super) fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, SpectraModel>) {
        controls_and_view(
            ui,
            "spectra analytic controls",
            300.0,
            &mut (self, cx),
            |(tab, cx), ui| tab.controls_ui(ui, cx),
            |(tab, cx), ui| tab.view_ui(ui, &cx.params.analytic),
        );
    }

    fn view_ui(&mut self, ui: &mut egui::Ui, params: &AnalyticParams) {
        let Some(result) = self.shown() else {
            ui.label("Fitting…");
            return;
        };
        let figure = spectra_figure(result, params);
        let maps = result.maps.as_ref().map(maps_figure);
        ui.allocate_ui(
            egui::vec2(
                ui.available_width(),
                (ui.available_height() * 0.6).max(300.0),
            ),
            |ui| show_figure(ui, &figure, &mut self.spectra_plot),
        );
        if let Some(maps) = &maps {
            show_figure(ui, maps, &mut self.maps_plot);
        }
    }

    fn controls_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, SpectraModel>) {
        ui.strong("Forecast error");
        let top = (cx.params.analytic.lmax as f64).max(2.0);
        if let Some(k_c) = cx.declared.get("analytic.k_c") {
            k_c.ui_within(ui, cx.params, 1.0, top);
        }
        ui.label("ρ_k = exp(−k/k_c): a smaller k_c is a longer lead time.");
        ui.separator();
        ui.strong("Truth");
        cx.param(ui, "analytic.lmax");
        if super::params::slope(cx.params).is_finite()
            && let Some(slope) = cx.declared.get("analytic.slope")
        {
            slope.ui_within(ui, cx.params, 0.0, 5.0);
        }
        cx.params(ui, &["analytic_seed"]);
        ui.separator();
        ui.strong("Fit");
        cx.params(
            ui,
            &[
                "analytic.steps",
                "analytic.learning_rate",
                "analytic.initial_gain",
            ],
        );
        if self
            .task
            .controls(ui, &key(cx.params), "Fit again", "Stop fitting")
        {
            self.start(cx);
        }
        if let Some(result) = self.shown() {
            ui.separator();
            ui.strong("Effective resolution (R_k² ≤ 0.75)");
            ui.label(format!(
                "MSE-optimal: {}",
                describe_k(result.resolution_mse_fit.dissipation_k)
            ));
            ui.label(format!(
                "AMSE-optimal: {}",
                describe_k(result.resolution_amse_fit.dissipation_k)
            ));
            ui.strong("Noise (R_k > 1)");
            ui.label(format!(
                "MSE-optimal: {}",
                describe_k(result.resolution_mse_fit.noise_k)
            ));
            ui.label(format!(
                "AMSE-optimal: {}",
                describe_k(result.resolution_amse_fit.noise_k)
            ));
            ui.label(format!(
                "MSE: MSE-optimal {:.4e}, AMSE-optimal {:.4e}",
                result.mse_terms_mse_fit.total, result.mse_terms_amse_fit.total
            ));
        }
    }

    pub(super) fn figures(&self, params: &SpectraParams) -> Vec<PanelFigure> {
        let Some(result) = self.task.result() else {
            return Vec::new();
        };
        let recipe = Recipe::new(ENGINE, &params.analytic, Some(params.analytic_seed));
        let mut out =
            vec![recipe.figure("spectra-analytic", spectra_figure(result, &params.analytic))];
        if let Some(maps) = &result.maps {
            out.push(recipe.figure("spectra-analytic-maps", maps_figure(maps)));
        }
        out
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        let Some(r) = self.task.result() else {
            return Vec::new();
        };
        let columns = [
            "k",
            "wavelength_km",
            "rho",
            "psd_truth",
            "gain_mse",
            "gain_amse",
            "ratio_mse_fit",
            "ratio_amse_fit",
            "mse_amplitude_mse_fit",
            "mse_decorrelation_mse_fit",
            "mse_amplitude_amse_fit",
            "mse_decorrelation_amse_fit",
        ];
        let rows = (0..r.k.len())
            .map(|i| {
                vec![
                    r.k[i] as f64,
                    r.wavelength_km[i],
                    r.rho[i],
                    r.psd_truth[i],
                    r.gain_mse[i],
                    r.gain_amse[i],
                    r.ratio_mse_fit[i],
                    r.ratio_amse_fit[i],
                    r.mse_terms_mse_fit.amplitude[i],
                    r.mse_terms_mse_fit.decorrelation[i],
                    r.mse_terms_amse_fit.amplitude[i],
                    r.mse_terms_amse_fit.decorrelation[i],
                ]
            })
            .collect();
        vec![DataTable::new("spectra-analytic", &columns, rows)]
    }

    pub(super) fn summary(&self, params: &SpectraParams) -> serde_json::Value {
        let Some(r) = self.task.result() else {
            return serde_json::Value::Null;
        };
        serde_json::json!({
            "k_c": params.analytic.k_c,
            "lmax": params.analytic.lmax,
            "resolution_mse_fit": r.resolution_mse_fit,
            "resolution_amse_fit": r.resolution_amse_fit,
            "mse_of_mse_fit": r.mse_terms_mse_fit.total,
            "mse_of_amse_fit": r.mse_terms_amse_fit.total,
            "mean_abs_gain_minus_rho_mse": r.history.last().map(|s| s.mse_gain_error),
            "mean_abs_gain_minus_one_amse": r.history.last().map(|s| s.amse_gain_error),
        })
    }
}

/// Per-k amplitude and decorrelation terms of an MSE split, relative to the truth's PSD_k.
fn terms_subplot(title: &str, terms: &MseTerms, psd_truth: &[f64]) -> Subplot {
    let relative = |values: &[f64]| -> Vec<f64> {
        values
            .iter()
            .zip(psd_truth)
            .skip(1)
            .map(|(v, p)| if *p > 0.0 { v / p } else { f64::NAN })
            .collect()
    };
    let ks = wavenumbers(psd_truth.len().saturating_sub(1));
    let shifted = |offset: f64| ks.iter().map(|k| k + offset).collect::<Vec<f64>>();
    Subplot::new(title)
        .x_label("Total wavenumber k")
        .y_label("Term / PSD_k(truth)")
        .legend(true)
        .with(Bars::at("Amplitude", shifted(-0.2), relative(&terms.amplitude), 0.4).color(OTHER))
        .with(
            Bars::at(
                "Decorrelation",
                shifted(0.2),
                relative(&terms.decorrelation),
                0.4,
            )
            .color(AMSE),
        )
}

/// Spectra, gains, amplitude ratio and coherence, the fit's history and the per-k MSE terms.
fn spectra_figure(r: &AnalyticResult, params: &AnalyticParams) -> Figure {
    let lmax = r.k.len().saturating_sub(1);
    let top = top_value([r.psd_truth.as_slice(), r.psd_mse_fit.as_slice()]);
    let psd = spectrum_subplot("Power spectra", "PSD_k", lmax, top)
        .with(per_k_line("Truth (= forecast)", &r.psd_truth, TRUTH))
        .with(per_k_line("MSE-optimal", &r.psd_mse_fit, MSE))
        .with(per_k_dashed("AMSE-optimal", &r.psd_amse_fit, AMSE));
    let gains = Subplot::new("Fitted gains g_k")
        .x_label("Total wavenumber k")
        .y_label("g_k")
        .x_scale(Scale::Log10)
        .legend(true)
        .with(per_k_dashed("ρ_k (MSE optimum)", &r.rho, OTHER))
        .with(per_k_line("MSE fit", &r.gain_mse, MSE))
        .with(per_k_line("AMSE fit", &r.gain_amse, AMSE));
    let ratio = ratio_subplot("Amplitude ratio and coherence", "R_k, Coh_k")
        .with(per_k_line("R_k, MSE-optimal", &r.ratio_mse_fit, MSE))
        .with(per_k_line("R_k, AMSE-optimal", &r.ratio_amse_fit, AMSE))
        .with(per_k_dashed("Coh_k (both)", &r.coherence, OTHER));
    let steps: Vec<f64> = r.history.iter().map(|s| s.step as f64).collect();
    let history = Subplot::new("Fit")
        .x_label("Iteration")
        .y_label("Mean gain error")
        .y_scale(Scale::Log10)
        .legend(true)
        .with(
            Line::new(
                "MSE: mean |g − ρ|",
                steps.clone(),
                r.history
                    .iter()
                    .map(|s| s.mse_gain_error)
                    .collect::<Vec<_>>(),
            )
            .color(MSE),
        )
        .with(
            Line::new(
                "AMSE: mean |g − 1|",
                steps,
                r.history
                    .iter()
                    .map(|s| s.amse_gain_error)
                    .collect::<Vec<_>>(),
            )
            .color(AMSE),
        );
    Figure::new(format!(
        "MSE vs AMSE optimum, ρ_k = exp(−k/{:.3}), lmax {}",
        params.k_c, params.lmax
    ))
    .grid(3, 2)
    .size_in(11.0, 11.0)
    .subplot(psd)
    .subplot(gains)
    .subplot(ratio)
    .subplot(history)
    .subplot(terms_subplot(
        "MSE of the MSE-optimal forecast per k",
        &r.mse_terms_mse_fit,
        &r.psd_truth,
    ))
    .subplot(terms_subplot(
        "MSE of the AMSE-optimal forecast per k",
        &r.mse_terms_amse_fit,
        &r.psd_truth,
    ))
}

/// Maps of truth, forecast, both optima and their errors.
fn maps_figure(maps: &AnalyticMaps) -> Figure {
    let range = symmetric_range([
        maps.truth.as_slice(),
        maps.forecast.as_slice(),
        maps.mse_fit.as_slice(),
        maps.amse_fit.as_slice(),
    ]);
    let difference =
        |fit: &[f64]| -> Vec<f64> { fit.iter().zip(&maps.truth).map(|(f, t)| f - t).collect() };
    let mse_error = difference(&maps.mse_fit);
    let amse_error = difference(&maps.amse_fit);
    let error_range = symmetric_range([mse_error.as_slice(), amse_error.as_slice()]);
    let map = |title: &str, values: &[f64], range: (f64, f64)| {
        map_subplot(title, &maps.grid, values, range, Colormap::RdBu, "value")
    };
    Figure::new("Truth, forecast and the two optima")
        .grid(2, 3)
        .size_in(13.0, 6.0)
        .subplot(map("Truth", &maps.truth, range))
        .subplot(map("MSE-optimal forecast", &maps.mse_fit, range))
        .subplot(map("AMSE-optimal forecast", &maps.amse_fit, range))
        .subplot(map("Decorrelated forecast", &maps.forecast, range))
        .subplot(map("MSE-optimal − truth", &mse_error, error_range))
        .subplot(map("AMSE-optimal − truth", &amse_error, error_range))
}
