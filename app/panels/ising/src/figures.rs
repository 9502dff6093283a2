//! The Ising panel's figures, the same on screen and in exported files.

use benchtop_ising::SpinConfig;
use benchtop_ising::observables::Measurement;
use benchtop_ising::simulation::{McParams, McResult};

use super::mc_tab::exact_values;
use benchtop_kit::figure::{Colormap, Figure, Heatmap, Line, Rgba, Subplot};

/// Most points drawn per trace (longer series are thinned evenly; CSV export keeps them all).
const MAX_TRACE_POINTS: usize = 4000;

fn thinned(
    measurements: &[(u64, Measurement)],
    value: impl Fn(&Measurement) -> f64,
) -> (Vec<f64>, Vec<f64>) {
    let stride = measurements.len().div_ceil(MAX_TRACE_POINTS).max(1);
    measurements
        .iter()
        .step_by(stride)
        .map(|(sweep, m)| (*sweep as f64, value(m)))
        .unzip()
}

/// Live traces of bond energy and |m| with the exact values, and G(r).
pub(super) fn live_figure(
    measurements: &[(u64, Measurement)],
    result: Option<&McResult>,
    mc: &McParams,
) -> Figure {
    let exact = exact_values(mc);
    let (sweeps, bond) = thinned(measurements, |m| m.bond_energy_per_site);
    let (_, magnetization) = thinned(measurements, |m| m.magnetization.abs());
    let mut energy = Subplot::new("Bond energy per site")
        .x_label("sweep")
        .y_label("Σ s_i s_j / L²")
        .with(Line::new("Monte Carlo", sweeps.clone(), bond).color(Rgba::cycle(0)));
    if let Some(value) = exact.bond {
        energy = energy.hline(value, "Onsager, L → ∞");
    }
    if let Some(value) = exact.bond_finite {
        energy = energy.hline(value, format!("exact, L = {}", mc.size));
    }
    let mut abs_m = Subplot::new("Magnetisation |m|")
        .x_label("sweep")
        .y_label("|m|")
        .y_range(0.0, 1.0)
        .with(Line::new("Monte Carlo", sweeps, magnetization).color(Rgba::cycle(1)));
    if let Some(value) = exact.magnetization {
        abs_m = abs_m.hline(value, "Onsager, L → ∞");
    }
    let mut correlation = Subplot::new("Spin correlation G(r)")
        .x_label("r (lattice spacings)")
        .y_label("G(r)");
    if let Some(result) = result.filter(|r| !r.correlation.is_empty()) {
        let rs: Vec<f64> = (0..result.correlation.len()).map(|r| r as f64).collect();
        let values: Vec<f64> = result.correlation.iter().map(|g| g.value).collect();
        let errors: Vec<f64> = result.correlation.iter().map(|g| g.error).collect();
        correlation = correlation.error_bars("G(r)", rs, values, errors);
    }
    Figure::new(format!(
        "Ising Monte Carlo, L = {}, β = {:.4}, K = {:.3}",
        mc.size, mc.beta, mc.plaquette
    ))
    .grid(1, 3)
    .size_in(10.0, 3.2)
    .subplot(energy)
    .subplot(abs_m)
    .subplot(correlation)
}

/// The lattice as an image (up spins light, down spins dark).
pub(super) fn lattice_figure(config: &SpinConfig, mc: &McParams) -> Figure {
    let size = config.size();
    // Row 0 of the heatmap is drawn at the bottom: flip rows so the picture matches the screen.
    let values: Vec<f64> = (0..size)
        .rev()
        .flat_map(|y| {
            config.spins()[y * size..(y + 1) * size]
                .iter()
                .map(|&s| f64::from(s))
        })
        .collect();
    let extent = (0.0, size as f64);
    let heatmap = Heatmap::new("spins", extent, extent, size, size, values)
        .colormap(Colormap::Cividis)
        .value_range(-1.0, 1.0)
        .show_colorbar(false);
    Figure::new(format!(
        "{size}×{size} lattice, β = {:.4}, K = {:.3}",
        mc.beta, mc.plaquette
    ))
    .size_in(5.0, 5.0)
    .subplot(
        Subplot::new("")
            .x_label("x")
            .y_label("y")
            .equal_aspect(true)
            .heatmap(heatmap),
    )
}
