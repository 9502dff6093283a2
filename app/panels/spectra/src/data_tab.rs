//! The data tab: load one field from a NetCDF or NPY file, map it and show its spectrum.

use std::path::{Path, PathBuf};

use benchtop_kit::figure::{Colormap, Figure, FigureViewState, show_figure};
use benchtop_kit::host::Cx;
use benchtop_kit::panel::{DataTable, PanelFigure, Recipe, from_saved, to_saved};
use benchtop_kit::project::Sidecar;
use benchtop_kit::task::Task;
use benchtop_kit::widgets::{controls_and_view, file_field};
use benchtop_spectra::FieldSpectrum;
use benchtop_spectra::data::{Field, GridChoice, VariableInfo, describe, list_variables};
use serde::{Deserialize, Serialize};

use super::field_spectrum::{file_spectrum, mean_square, wavelengths_km};
use super::figures::{
    TRUTH, map_subplot, per_k_dashed, per_k_line, spectrum_subplot, top_value, value_range,
};
use super::{DataParams, ENGINE, SavedResults, SpectraModel, SpectraParams};

/// What is saved of a loaded field besides its values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct SavedField {
    source: benchtop_spectra::data::FieldSource,
    grid: benchtop_spectra::Grid,
    spectrum: FieldSpectrum,
}

/// Loading the field: keyed by the data parameters.
pub(super) struct DataTab {
    pub(super) task: Task<DataParams, (), (Field, FieldSpectrum)>,
    /// Variables of the chosen NetCDF file, for the picker (file, list).
    variables: Option<(PathBuf, Vec<VariableInfo>)>,
    plots: FigureViewState,
}

impl Default for DataTab {
    fn default() -> Self {
        Self {
            task: Task::new("spectra: load field"),
            variables: None,
            plots: FigureViewState::default(),
        }
    }
}

impl DataTab {
    /// Loads the field the parameters name.
    pub(super) fn start(&mut self, cx: &mut Cx<'_, SpectraModel>) {
        self.task.start_from(
            &cx.runner,
            cx.params.data.clone(),
            cx.project_dir,
            |data, dir, job| {
                let file = data.resolved_file(dir);
                job.progress.set(0.1, format!("reading {}", file.display()));
                let lmax = (data.lmax > 0).then_some(data.lmax);
                let loaded = file_spectrum(&file, &data.options, lmax)?;
                job.cancel.check()?;
                Ok(loaded)
            },
        );
    }

    pub(super) fn save(
        &self,
        results: &mut SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        let Some((field, spectrum)) = self.task.result() else {
            return Ok(());
        };
        results.data = Some(to_saved(&SavedField {
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
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
        params: &SpectraParams,
    ) -> anyhow::Result<Self> {
        let mut tab = Self::default();
        let (Some(value), Some(sidecar), Some(file)) =
            (&results.data, sidecar, &results.field_file)
        else {
            return Ok(tab);
        };
        let saved: SavedField = from_saved(value)?;
        let (shape, values) = sidecar.read_f64(file)?;
        anyhow::ensure!(
            shape == [saved.grid.nlat, saved.grid.nlon],
            "{file}: expected a {}×{} array, found {shape:?}",
            saved.grid.nlat,
            saved.grid.nlon
        );
        let field = Field {
            grid: saved.grid,
            values,
            source: saved.source,
        };
        tab.task
            .set_result(params.data.clone(), (field, saved.spectrum));
        Ok(tab)
    }

    pub(super) fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, SpectraModel>) {
        controls_and_view(
            ui,
            "spectra data controls",
            300.0,
            &mut (self, cx),
            |(tab, cx), ui| tab.controls_ui(ui, cx),
            |(tab, _), ui| match tab.figure() {
                Some(figure) => show_figure(ui, &figure, &mut tab.plots),
                None => {
                    ui.label("Load a field to see its map and spectrum.");
                }
            },
        );
    }

    fn controls_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, SpectraModel>) {
        ui.strong("Field");
        let data = &mut cx.params.data;
        file_field(
            ui,
            "File",
            &mut data.file.path,
            "bundled NCEP/NCAR 200 hPa wind",
            ("NetCDF or NumPy", &["nc", "nc4", "npy"]),
        );
        if ui.button("Use the bundled sample").clicked() {
            data.file.path.clear();
            data.options.variable = "uwnd".to_owned();
        }
        let file = data.resolved_file(cx.project_dir);
        self.refresh_variables(&file);
        if let Some((_, variables)) = &self.variables {
            variable_picker(ui, variables, &mut data.options.variable);
        }
        cx.params(ui, &["data.time_index", "data.level_index"]);
        let options = &mut cx.params.data.options;
        ui.horizontal(|ui| {
            let name = ui.label("Grid");
            egui::ComboBox::from_id_salt("spectra grid")
                .selected_text(grid_label(options.grid))
                .show_ui(ui, |ui| {
                    for choice in [
                        GridChoice::Auto,
                        GridChoice::Equiangular,
                        GridChoice::GaussLegendre,
                    ] {
                        ui.selectable_value(&mut options.grid, choice, grid_label(choice));
                    }
                })
                .response
                .labelled_by(name.id);
        });
        cx.param(ui, "data.lmax");
        if self
            .task
            .controls(ui, &cx.params.data, "Load field", "Stop loading")
        {
            self.start(cx);
        }
        if let Some((field, spectrum)) = self.task.result() {
            ui.separator();
            let description = ui.label(describe(field));
            if let Some((value, units)) = &field.source.time {
                let calendar = match field.source.time_calendar.as_deref() {
                    Some("") => "none given: standard".to_owned(),
                    Some(calendar) => calendar.to_owned(),
                    None => "not recorded".to_owned(),
                };
                description.on_hover_text(format!(
                    "Time coordinate as stored: {value} {units} (calendar: {calendar})"
                ));
            }
            if let Some(warning) = field.source.time_warning() {
                ui.colored_label(ui.visuals().warn_fg_color, warning);
            }
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
        let (field, spectrum) = self.task.result()?;
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
        let recipe = Recipe::new(ENGINE, &params.data, None);
        self.figure()
            .map(|figure| recipe.figure("spectra-field", figure))
            .into_iter()
            .collect()
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        let Some((_, spectrum)) = self.task.result() else {
            return Vec::new();
        };
        let rows = wavelengths_km(spectrum)
            .iter()
            .zip(&spectrum.psd)
            .enumerate()
            .map(|(k, (wavelength, psd))| vec![k as f64, *wavelength, *psd])
            .collect();
        vec![DataTable::new(
            "spectra-field-psd",
            &["k", "wavelength_km", "psd"],
            rows,
        )]
    }

    pub(super) fn summary(&self) -> serde_json::Value {
        let Some((field, spectrum)) = self.task.result() else {
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

/// The variable picker of a NetCDF file: its fields (variables on latitude and longitude).
fn variable_picker(ui: &mut egui::Ui, variables: &[VariableInfo], chosen: &mut String) {
    let shown = if chosen.is_empty() {
        "(the only field)".to_owned()
    } else {
        chosen.clone()
    };
    ui.horizontal(|ui| {
        let name = ui.label("Variable");
        egui::ComboBox::from_id_salt("spectra variable")
            .selected_text(shown)
            .show_ui(ui, |ui| {
                for info in variables.iter().filter(|v| v.is_field) {
                    let text = if info.long_name.is_empty() {
                        info.name.clone()
                    } else {
                        format!("{} — {}", info.name, info.long_name)
                    };
                    ui.selectable_value(chosen, info.name.clone(), text);
                }
            })
            .response
            .labelled_by(name.id);
    });
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
