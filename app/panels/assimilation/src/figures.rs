//! The panel's figures: Hovmöller diagrams, RMSE over time with the time per window, and the
//! training fit.

use benchtop_assimilation::{AssimResult, SystemKind};
use benchtop_kit::figure::{Bars, Colormap, Dash, Figure, Heatmap, Line, Scale, Subplot};

/// Model time between observations (RK4 steps × step).
fn obs_spacing(dt: f64, steps: usize) -> f64 {
    let s = steps as f64;
    dt * s
}

/// The vertical axis and the value of a Hovmöller diagram of `system`.
fn axis_labels(system: SystemKind) -> (&'static str, &'static str) {
    match system {
        SystemKind::Lorenz96 => ("Component i", "x"),
        SystemKind::KuramotoSivashinsky => ("Grid point j", "u"),
    }
}

/// One Hovmöller panel: time across, component up.
fn hovmoller(
    title: &str,
    states: &[Vec<f64>],
    spacing: f64,
    range: (f64, f64),
    colormap: Colormap,
    labels: (&str, &str),
) -> Subplot {
    let (y_label, label) = labels;
    let nx = states.len();
    let ny = states.first().map_or(0, Vec::len);
    let mut values = Vec::with_capacity(nx * ny);
    for j in 0..ny {
        for s in states {
            values.push(s[j]);
        }
    }
    let (tx, dy) = (nx as f64 * spacing, ny as f64);
    Subplot::new(title)
        .x_label("Time")
        .y_label(y_label)
        .heatmap(
            Heatmap::new(title, (0.0, tx), (-0.5, dy - 0.5), nx, ny, values)
                .colormap(colormap)
                .value_range(range.0, range.1)
                .colorbar_label(label),
        )
}

fn errors(estimate: &[Vec<f64>], truth: &[Vec<f64>]) -> Vec<Vec<f64>> {
    estimate
        .iter()
        .zip(truth)
        .map(|(e, t)| e.iter().zip(t).map(|(a, b)| a - b).collect())
        .collect()
}

/// Truth, Tensor-Var, 4D-Var and 3D-Var, and the two main methods' errors (on one symmetric
/// colour range, the largest error of the two).
pub fn hovmoller_figure(result: &AssimResult, system: SystemKind, dt: f64, steps: usize) -> Figure {
    let spacing = obs_spacing(dt, steps);
    let (y_label, value) = axis_labels(system);
    let lo = result
        .truth
        .iter()
        .flatten()
        .copied()
        .fold(f64::MAX, f64::min);
    let hi = result
        .truth
        .iter()
        .flatten()
        .copied()
        .fold(f64::MIN, f64::max);
    let err_max = ["Tensor-Var", "4D-Var"]
        .iter()
        .filter_map(|name| result.method(name))
        .flat_map(|m| {
            m.estimates
                .iter()
                .zip(&result.truth)
                .flat_map(|(e, t)| e.iter().zip(t).map(|(a, b)| (a - b).abs()))
        })
        .fold(1e-12, f64::max);
    let mut figure = Figure::new(format!("{}: truth and analyses", system.label()))
        .grid(2, 3)
        .size_in(12.0, 6.5);
    figure = figure.subplot(hovmoller(
        "Truth",
        &result.truth,
        spacing,
        (lo, hi),
        Colormap::Viridis,
        (y_label, value),
    ));
    for name in ["Tensor-Var", "4D-Var"] {
        if let Some(m) = result.method(name) {
            figure = figure.subplot(hovmoller(
                name,
                &m.estimates,
                spacing,
                (lo, hi),
                Colormap::Viridis,
                (y_label, value),
            ));
        }
    }
    if let Some(m) = result.method("3D-Var") {
        figure = figure.subplot(hovmoller(
            "3D-Var",
            &m.estimates,
            spacing,
            (lo, hi),
            Colormap::Viridis,
            (y_label, value),
        ));
    }
    for name in ["Tensor-Var", "4D-Var"] {
        if let Some(m) = result.method(name) {
            figure = figure.subplot(hovmoller(
                &format!("{name} − truth"),
                &errors(&m.estimates, &result.truth),
                spacing,
                (-err_max, err_max),
                Colormap::RdBu,
                (y_label, "error"),
            ));
        }
    }
    figure
}

/// The methods whose time is drawn (the trivial references cost next to nothing).
const TIMED: [&str; 4] = ["Tensor-Var", "4D-Var", "3D-Var", "EnKF"];

/// Normalised RMSE over time for every method (the trivial references dashed), the time per
/// window on a linear axis, and the time for `windows` windows with the offline part
/// (Tensor-Var's training, the baselines' tuning) drawn over it.
pub fn rmse_figure(result: &AssimResult, dt: f64, steps: usize, windows: usize) -> Figure {
    let spacing = obs_spacing(dt, steps);
    let mut rmse = Subplot::new("Normalised RMSE over time")
        .x_label("Time")
        .y_label("RMSE / (max − min)")
        .legend(true);
    for m in &result.methods {
        let xs: Vec<f64> = (0..m.nrmse.len()).map(|k| k as f64 * spacing).collect();
        let line = Line::new(m.name.clone(), xs, m.nrmse.clone());
        rmse = rmse.with(match m.name.as_str() {
            "Climatology" | "No dynamics" => line.dash(Dash::Dashed),
            "Free run" => line.dash(Dash::Dotted),
            _ => line,
        });
    }
    let timed: Vec<_> = TIMED
        .iter()
        .filter_map(|name| result.method(name))
        .filter(|m| m.ms_per_window > 0.0)
        .collect();
    let names: Vec<String> = timed.iter().map(|m| m.name.clone()).collect();
    let per_window = Subplot::new("Wall-clock per window")
        .y_label("ms per window")
        .bars(
            "ms per window",
            names.clone(),
            timed.iter().map(|m| m.ms_per_window).collect::<Vec<f64>>(),
        );
    let total = Subplot::new(format!("Time for {windows} windows"))
        .y_label("s")
        .legend(true)
        .with(Bars::categories(
            "windows + offline",
            names.clone(),
            timed
                .iter()
                .map(|m| m.total_seconds(windows))
                .collect::<Vec<f64>>(),
        ))
        .with(Bars::categories(
            "offline (training, tuning)",
            names,
            timed
                .iter()
                .map(|m| m.training_seconds)
                .collect::<Vec<f64>>(),
        ));
    Figure::new("Assimilation accuracy and cost")
        .grid(1, 3)
        .size_in(15.0, 4.0)
        .subplot(rmse)
        .subplot(per_window)
        .subplot(total)
}

/// Tensor-Var's training fit: pre-image error by component and the forward operator's spectrum.
pub fn training_figure(result: &AssimResult) -> Figure {
    let fit = &result.fit;
    let comps: Vec<f64> = (0..fit.preimage_rmse_by_component.len())
        .map(|k| k as f64)
        .collect();
    let idx: Vec<f64> = (1..=fit.forward_singular_values.len())
        .map(|k| k as f64)
        .collect();
    Figure::new("Tensor-Var training fit")
        .grid(1, 2)
        .size_in(11.0, 4.0)
        .subplot(
            Subplot::new("Pre-image round trip φ⁻¹(φ(x)) − x")
                .x_label("Component i")
                .y_label("RMSE")
                .with(Line::new(
                    "pre-image RMSE",
                    comps,
                    fit.preimage_rmse_by_component.clone(),
                )),
        )
        .subplot(
            Subplot::new("Forward CME operator A")
                .x_label("Index")
                .y_label("Singular value")
                .y_scale(Scale::Log10)
                .with(Line::new("σ(A)", idx, fit.forward_singular_values.clone())),
        )
}
