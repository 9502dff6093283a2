//! The data tab: load one field from a NetCDF or NPY file, map it and show its spectrum.

use std::path::{Path, PathBuf};

use benchtop_compute::{CancelToken, ComputeError};
use benchtop_spectra::data::{Field, GridChoice, VariableInfo, describe, list_variables};
use serde::{Deserialize, Serialize};

use benchtop_spectra::FieldSpectrum;

use super::field_spectrum::{file_spectrum, mean_square, wavelengths_km};
use super::figures::{
    TRUTH, map_subplot, per_k_dashed, per_k_line, spectrum_subplot, top_value, value_range,
};
use super::{ENGINE, SavedResults, SpectraParams};
use crate::figure::{Colormap, Figure, FigureViewState, show_figure};
use crate::jobs::Job;
use crate::panels::{DataTable, PanelContext, PanelFigure, from_json, to_json};
use crate::project::Sidecar;
use crate::widgets::{job_progress, labelled};

/// What is saved of a loaded field besides its values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct SavedField {
    source: benchtop_spectra::data::FieldSource,
    grid: benchtop_spectra::Grid,
    spectrum: FieldSpectrum,
}

#[derive(Default)]
pub(super) struct DataTab {
    job: Option<Job<(), (Field, FieldSpectrum)>>,
    loaded: Option<(Field, FieldSpectrum)>,
    /// The parameters the loaded field was read with.
    current: Option<super::DataParams>,
    /// Variables of the chosen NetCDF file, for the picker (file, list).
    variables: Option<(PathBuf, Vec<VariableInfo>)>,
    error: Option<String>,
    plots: FigureViewState,
}

impl DataTab {
    pub(super) fn is_busy(&self) -> bool {
        self.job.is_some()
    }

    pub(super) fn mark_current(&mut self, params: &SpectraParams) {
        if self.loaded.is_some() {
            self.current = Some(params.data.clone());
        }
    }

    fn start(
        &mut self,
        params: &SpectraParams,
        project_dir: Option<&Path>,
        context: &PanelContext<'_>,
        ctx: &egui::Context,
    ) {
        if let Err(error) = params.data.validate() {
            self.error = Some(error.to_string());
            return;
        }
        self.error = None;
        self.current = Some(params.data.clone());
        let file = params.data.resolved_file(project_dir);
        let options = params.data.options.clone();
        let lmax = (params.data.lmax > 0).then_some(params.data.lmax);
        let spawned = Job::spawn(
            "spectra: load field",
            context.jobs,
            Some(ctx.clone()),
            move |job| {
                job.progress.set(0.1, format!("reading {}", file.display()));
                let loaded = file_spectrum(&file, &options, lmax)?;
                job.cancel.check()?;
                Ok(loaded)
            },
        );
        match spawned {
            Ok(job) => self.job = Some(job),
            Err(error) => self.error = Some(error.to_string()),
        }
    }

    pub(super) fn poll(&mut self) {
        if let Some(job) = &mut self.job
            && let Some(outcome) = job.try_finish()
        {
            self.job = None;
            if let Some(loaded) = outcome.result_or_record(&mut self.error) {
                self.loaded = Some(loaded);
            }
        }
    }

    /// Loads the field on the calling thread (headless runs).
    pub(super) fn load_blocking(
        &mut self,
        params: &SpectraParams,
        project_dir: Option<&Path>,
        cancel: &CancelToken,
    ) -> Result<(), ComputeError> {
        params.data.validate()?;
        let file = params.data.resolved_file(project_dir);
        let lmax = (params.data.lmax > 0).then_some(params.data.lmax);
        let loaded = file_spectrum(&file, &params.data.options, lmax)?;
        cancel.check()?;
        self.loaded = Some(loaded);
        self.current = Some(params.data.clone());
        Ok(())
    }

    pub(super) fn save(
        &self,
        results: &mut SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        let Some((field, spectrum)) = &self.loaded else {
            return Ok(());
        };
        results.data = Some(to_json(&SavedField {
            source: field.source.clone(),
            grid: field.grid.clone(),
            spectrum: spectrum.clone(),
        })?);
        if let Some(sidecar) = sidecar {
            results.field_file = Some(sidecar.write_f64(
                "spectra-field",
                &[field.grid.nlat, field.grid.nlon],
                &field.values,
            )?);
        }
        Ok(())
    }

    pub(super) fn restore(
        &mut self,
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        let (Some(value), Some(sidecar), Some(file)) =
            (&results.data, sidecar, &results.field_file)
        else {
            return Ok(());
        };
        let saved: SavedField = from_json(value)?;
        let (shape, values) = sidecar.read_f64(file)?;
        anyhow::ensure!(
            shape == [saved.grid.nlat, saved.grid.nlon],
            "{file}: expected a {}×{} array, found {shape:?}",
            saved.grid.nlat,
            saved.grid.nlon
        );
        self.loaded = Some((
            Field {
                grid: saved.grid,
                values,
                source: saved.source,
            },
            saved.spectrum,
        ));
        Ok(())
    }

    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &mut SpectraParams,
        project_dir: Option<&Path>,
        context: &PanelContext<'_>,
    ) {
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                ui.set_width(300.0);
                egui::ScrollArea::vertical()
                    .id_salt("spectra data controls")
                    .show(ui, |ui| self.controls_ui(ui, params, project_dir, context));
            });
            ui.separator();
            ui.vertical(|ui| {
                if let Some(figure) = self.figure() {
                    show_figure(ui, &figure, &mut self.plots);
                } else {
                    ui.label("Load a field to see its map and spectrum.");
                }
            });
        });
    }

    fn controls_ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &mut SpectraParams,
        project_dir: Option<&Path>,
        context: &PanelContext<'_>,
    ) {
        let data = &mut params.data;
        ui.strong("Field");
        labelled(
            ui,
            "File",
            egui::TextEdit::singleline(&mut data.file.path)
                .hint_text("bundled NCEP/NCAR 200 hPa wind"),
        );
        ui.horizontal(|ui| {
            if ui.button("Choose file…").clicked()
                && let Some(path) = rfd::FileDialog::new()
                    .add_filter("NetCDF or NumPy", &["nc", "nc4", "npy"])
                    .pick_file()
            {
                data.file.path = path.display().to_string();
            }
            if ui.button("Use the bundled sample").clicked() {
                data.file.path.clear();
                data.options.variable = "uwnd".to_owned();
            }
        });
        let file = data.resolved_file(project_dir);
        self.refresh_variables(&file);
        if let Some((_, variables)) = &self.variables {
            let fields: Vec<&VariableInfo> = variables.iter().filter(|v| v.is_field).collect();
            let shown = if data.options.variable.is_empty() {
                "(the only field)".to_owned()
            } else {
                data.options.variable.clone()
            };
            ui.horizontal(|ui| {
                let name = ui.label("Variable");
                egui::ComboBox::from_id_salt("spectra variable")
                    .selected_text(shown)
                    .show_ui(ui, |ui| {
                        for info in fields {
                            let text = if info.long_name.is_empty() {
                                info.name.clone()
                            } else {
                                format!("{} — {}", info.name, info.long_name)
                            };
                            ui.selectable_value(
                                &mut data.options.variable,
                                info.name.clone(),
                                text,
                            );
                        }
                    })
                    .response
                    .labelled_by(name.id);
            });
        }
        labelled(
            ui,
            "Time index",
            egui::DragValue::new(&mut data.options.time_index),
        );
        labelled(
            ui,
            "Level index",
            egui::DragValue::new(&mut data.options.level_index),
        );
        ui.horizontal(|ui| {
            let name = ui.label("Grid");
            egui::ComboBox::from_id_salt("spectra grid")
                .selected_text(grid_label(data.options.grid))
                .show_ui(ui, |ui| {
                    for choice in [
                        GridChoice::Auto,
                        GridChoice::Equiangular,
                        GridChoice::GaussLegendre,
                    ] {
                        ui.selectable_value(&mut data.options.grid, choice, grid_label(choice));
                    }
                })
                .response
                .labelled_by(name.id);
        });
        labelled(
            ui,
            "Largest wavenumber (0: grid's own)",
            egui::DragValue::new(&mut data.lmax).range(0..=4095),
        );
        if let Some(job) = &self.job {
            if job_progress(ui, job.info(), "Stop loading") {
                job.cancel();
            }
        } else if ui.button("Load field").clicked() {
            self.start(params, project_dir, context, ui.ctx());
        }
        if self.loaded.is_some() && self.current.as_ref() != Some(&params.data) {
            ui.label("The settings changed since this field was loaded.");
        }
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        if let Some((field, spectrum)) = &self.loaded {
            ui.separator();
            ui.label(describe(field));
            if !field.source.units.is_empty() {
                ui.label(format!("Units: {}", field.source.units));
            }
            let total: f64 = spectrum.psd.iter().sum();
            let square = mean_square(field).unwrap_or(f64::NAN);
            ui.label(format!(
                "Σ_k PSD_k = {total:.6e}; area mean of x² = {square:.6e} (Parseval)"
            ));
        }
    }

    /// Lists the variables of `file` once per file (NetCDF only; errors show on loading).
    fn refresh_variables(&mut self, file: &Path) {
        if self.variables.as_ref().is_some_and(|(f, _)| f == file) {
            return;
        }
        let list = if file.is_file() {
            list_variables(file).unwrap_or_default()
        } else {
            Vec::new()
        };
        self.variables = Some((file.to_path_buf(), list));
    }

    fn figure(&self) -> Option<Figure> {
        let (field, spectrum) = self.loaded.as_ref()?;
        let units = if field.source.units.is_empty() {
            String::new()
        } else {
            format!(" ({})", field.source.units)
        };
        let name = if field.source.long_name.is_empty() {
            field.source.variable.clone()
        } else {
            field.source.long_name.clone()
        };
        let map = map_subplot(
            &name,
            &field.grid,
            &field.values,
            value_range(&field.values),
            Colormap::Viridis,
            &format!("{}{units}", field.source.variable),
        );
        let psd = spectrum_subplot(
            "Power spectrum",
            &format!(
                "PSD_k{}",
                if units.is_empty() {
                    String::new()
                } else {
                    format!(" ({}²)", field.source.units)
                }
            ),
            spectrum.k.len().saturating_sub(1),
            top_value([spectrum.psd.as_slice()]),
        )
        .with(per_k_line("PSD_k", &spectrum.psd, TRUTH))
        .with(per_k_dashed(
            "k⁻³ (through k = 10)",
            &k_minus_three(&spectrum.psd),
            TRUTH,
        ));
        Some(
            Figure::new(short_description(field))
                .grid(1, 2)
                .size_in(11.0, 4.2)
                .subplot(map)
                .subplot(psd),
        )
    }

    pub(super) fn figures(&self, params: &SpectraParams) -> Vec<PanelFigure> {
        self.figure()
            .map(|figure| PanelFigure {
                name: "spectra-field".into(),
                figure,
                params: serde_json::to_value(&params.data).unwrap_or_default(),
                seed: None,
                engine: ENGINE,
            })
            .into_iter()
            .collect()
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        let Some((_, spectrum)) = &self.loaded else {
            return Vec::new();
        };
        #[allow(clippy::cast_precision_loss)]
        let rows = wavelengths_km(spectrum)
            .iter()
            .zip(&spectrum.psd)
            .enumerate()
            .map(|(k, (wavelength, psd))| vec![k as f64, *wavelength, *psd])
            .collect();
        vec![DataTable {
            name: "spectra-field-psd".into(),
            columns: vec!["k".into(), "wavelength_km".into(), "psd".into()],
            rows,
        }]
    }

    pub(super) fn summary(&self) -> serde_json::Value {
        let Some((field, spectrum)) = &self.loaded else {
            return serde_json::Value::Null;
        };
        serde_json::json!({
            "file": field.source.file,
            "variable": field.source.variable,
            "grid": format!("{}×{} {:?}", field.grid.nlat, field.grid.nlon, field.grid.kind),
            "lmax": spectrum.k.len().saturating_sub(1),
            "psd_sum": spectrum.psd.iter().sum::<f64>(),
            "mean_square": mean_square(field).ok(),
        })
    }
}

fn grid_label(choice: GridChoice) -> &'static str {
    match choice {
        GridChoice::Auto => "Detect",
        GridChoice::Equiangular => "Equiangular (with poles)",
        GridChoice::GaussLegendre => "Gauss–Legendre",
    }
}

/// A k⁻³ line through the spectrum's value at k = 10 (or its last k), for reference.
fn k_minus_three(psd: &[f64]) -> Vec<f64> {
    let anchor = 10.min(psd.len().saturating_sub(1)).max(1);
    let Some(&at) = psd.get(anchor) else {
        return Vec::new();
    };
    #[allow(clippy::cast_precision_loss)]
    (0..psd.len())
        .map(|k| {
            if k == 0 {
                f64::NAN
            } else {
                at * (anchor as f64 / k as f64).powi(3)
            }
        })
        .collect()
}

/// "uwnd_mean.nc: uwnd, 73×144 equiangular grid" (the file name without its folder).
fn short_description(field: &Field) -> String {
    let file = Path::new(&field.source.file).file_name().map_or_else(
        || field.source.file.clone(),
        |n| n.to_string_lossy().into_owned(),
    );
    let grid = match field.grid.kind {
        benchtop_spectra::GridKind::Equiangular => "equiangular",
        benchtop_spectra::GridKind::GaussLegendre => "Gauss–Legendre",
    };
    format!(
        "{file}: {}, {}×{} {grid} grid",
        field.source.variable, field.grid.nlat, field.grid.nlon
    )
}
