//! The panel's figures, built on the kit's figure model (shown in the tabs and exported).

use crate::compute::{CompareResult, SeedErrors, SweepPoint};
use benchtop_kit::figure::{
    Bars, Colormap, Dash, ErrorBars, Figure, Heatmap, Line, Rgba, Scale, Scatter, Subplot,
    VectorField,
};

/// The colour of a run: the four variants take the first four cycle colours, the baselines
/// the next ones.
fn colour(k: usize) -> Rgba {
    Rgba::cycle(k)
}

/// Held-out errors per variant and baseline with the trivial references, and the MD
/// total-energy traces.
pub fn comparison(result: &CompareResult) -> Figure {
    let runs: Vec<_> = result.variants.iter().chain(&result.baselines).collect();
    let names: Vec<String> = runs.iter().map(|v| v.name.clone()).collect();
    let force: Vec<f64> = runs.iter().map(|v| v.force_mae).collect();
    let energy: Vec<f64> = runs.iter().map(|v| v.energy_mae).collect();
    let colours: Vec<Rgba> = (0..runs.len()).map(colour).collect();
    let mut md = Subplot::new("NVE MD with each model")
        .x_label("Step")
        .y_label("E_θ + kinetic (total energy)")
        .legend(true);
    let mut loss = Subplot::new("Training loss")
        .x_label("Epoch")
        .y_label("Loss")
        .y_scale(Scale::Log10)
        .legend(true);
    for (k, v) in runs.iter().enumerate() {
        md.push(Line::new(v.name.clone(), v.md_steps.clone(), v.md_trace.clone()).color(colour(k)));
        // Projects saved before the epochs were kept show the points' indices from 1.
        let xs: Vec<f64> = if v.loss_epochs.len() == v.loss.len() {
            v.loss_epochs.clone()
        } else {
            (1..=v.loss.len()).map(|i| i as f64).collect()
        };
        loss.push(Line::new(v.name.clone(), xs, v.loss.clone()).color(colour(k)));
    }
    let mut force_plot = Subplot::new("Force MAE (held out)")
        .y_label("|F − F*| mean")
        .legend(false)
        .with(Bars::categories("force MAE", names.clone(), force).colors(colours.clone()));
    if result.zero_force_mae.is_finite() {
        force_plot = force_plot.hline(result.zero_force_mae, "zero force");
    }
    let mut energy_plot = Subplot::new("Energy MAE (held out)")
        .y_label("|E − E*| mean")
        .legend(false)
        .with(Bars::categories("energy MAE", names, energy).colors(colours));
    if result.constant_energy_mae.is_finite() {
        energy_plot = energy_plot.hline(result.constant_energy_mae, "training mean");
    }
    // Tall enough for the upright method names under the bars.
    Figure::new("PIWSL: supervised against physics-informed weak supervision, with baselines")
        .grid(2, 2)
        .size_in(9.0, 8.0)
        .subplot(force_plot)
        .subplot(energy_plot)
        .subplot(md)
        .subplot(loss)
}

/// One series of the sweep: its name, colour, and how to read its error from a point (mean)
/// and from a seed.
type Series = (
    &'static str,
    Rgba,
    fn(&SweepPoint) -> f64,
    fn(&SeedErrors) -> f64,
);

/// Force and energy errors against the number of labels: the mean over seeds with ± one
/// standard deviation as error bars, and the zero-force reference.
pub fn sweep(points: &[SweepPoint]) -> Figure {
    let xs: Vec<f64> = points.iter().map(|p| p.labels as f64).collect();
    let seeds = points.first().map_or(0, |p| p.per_seed.len());
    let panel = |title: &str, y: &str, series: &[Series]| {
        let mut plot = Subplot::new(title)
            .x_label("Labelled configurations")
            .y_label(y)
            .x_scale(Scale::Log10)
            .y_scale(Scale::Log10)
            .legend(true);
        for &(name, c, mean, per_seed) in series {
            let ys: Vec<f64> = points.iter().map(mean).collect();
            if ys.iter().any(|v| !v.is_finite()) {
                continue;
            }
            plot.push(Line::new(name, xs.clone(), ys.clone()).color(c));
            if seeds > 1 {
                let sd: Vec<f64> = points.iter().map(|p| p.spread(per_seed).1).collect();
                plot.push(ErrorBars::new("", xs.clone(), ys, sd).color(c));
            } else {
                plot.push(Scatter::new("", xs.clone(), ys).color(c));
            }
        }
        plot
    };
    let mut force = panel(
        "Force MAE",
        "|F − F*| mean",
        &[
            (
                "supervised",
                colour(0),
                |p| p.supervised_force,
                |s| s.supervised_force,
            ),
            (
                "+PITC+PISC",
                colour(3),
                |p| p.piwsl_force,
                |s| s.piwsl_force,
            ),
            (
                "conservative",
                colour(4),
                |p| p.conservative_force,
                |s| s.conservative_force,
            ),
        ],
    );
    let zero: Vec<f64> = points.iter().map(|p| p.zero_force).collect();
    if zero.iter().all(|v| v.is_finite()) {
        force.push(
            Line::new("zero force", xs.clone(), zero)
                .color(Rgba::GREY)
                .dash(Dash::Dashed),
        );
    }
    let energy = panel(
        "Energy MAE",
        "|E − E*| mean",
        &[
            (
                "supervised",
                colour(0),
                |p| p.supervised_energy,
                |s| s.supervised_energy,
            ),
            (
                "+PITC+PISC",
                colour(3),
                |p| p.piwsl_energy,
                |s| s.piwsl_energy,
            ),
            (
                "conservative",
                colour(4),
                |p| p.conservative_energy,
                |s| s.conservative_energy,
            ),
        ],
    );
    let title = if seeds > 1 {
        format!("Error against the number of labels (mean ± sd over {seeds} seeds)")
    } else {
        "Error against the number of labels".to_owned()
    };
    Figure::new(title).grid(1, 2).subplot(force).subplot(energy)
}

/// The A→B→C triangle on the reference energy, and each learned force field with its curl.
pub fn field(result: &CompareResult) -> Figure {
    let f = &result.field;
    let (nx, ny) = (f.xs.len(), f.ys.len());
    let ext = |v: &[f64]| {
        let h = (v[v.len() - 1] - v[0]) / (v.len() - 1) as f64 / 2.0;
        (v[0] - h, v[v.len() - 1] + h)
    };
    let (xe, ye) = (ext(&f.xs), ext(&f.ys));
    // Clip the reference energy so the wells, not the walls, fill the colour range.
    let mut sorted: Vec<f64> = f
        .true_energy
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    sorted.sort_by(f64::total_cmp);
    let lo = sorted.first().copied().unwrap_or(0.0);
    let hi = sorted
        .get(sorted.len() * 3 / 4)
        .copied()
        .unwrap_or(1.0)
        .max(lo + 1e-9);
    let t = f.triangle;
    let tri = Line::new(
        "A→B→C",
        vec![t[0][0], t[1][0], t[2][0], t[0][0]],
        vec![t[0][1], t[1][1], t[2][1], t[0][1]],
    )
    .color(Rgba::rgb(0xff, 0xff, 0xff))
    .width_pt(2.0);
    // Two maps a row, each with its colour bar, so that equal aspect leaves them legible.
    let rows = (1 + f.learned.len()).div_ceil(2);
    let mut fig =
        Figure::new("Reference energy with the A→B→C triangle; learned forces and their curl")
            .grid(rows, 2)
            .size_in(9.0, 3.8 * rows as f64 + 0.5)
            .subplot(
                Subplot::new("Reference energy, A→B→C")
                    .x_label("x")
                    .y_label("y")
                    .equal_aspect(true)
                    .with(
                        Heatmap::new("E", xe, ye, nx, ny, f.true_energy.clone())
                            .value_range(lo, hi)
                            .colorbar_label("E (clipped)"),
                    )
                    .with(tri)
                    .with(Scatter::new(
                        "A, B, C",
                        t.iter().map(|p| p[0]).collect::<Vec<_>>(),
                        t.iter().map(|p| p[1]).collect::<Vec<_>>(),
                    )),
            );
    let bound = f
        .learned
        .iter()
        .flat_map(|l| l.curl.iter().map(|c| c.abs()))
        .fold(1e-12_f64, f64::max);
    for l in &f.learned {
        fig = fig.subplot(
            Subplot::new(format!(
                "{}: forces, curl (mean |curl| {:.3})",
                l.name, l.mean_abs_curl
            ))
            .x_label("x")
            .y_label("y")
            .equal_aspect(true)
            .with(
                Heatmap::new("curl", xe, ye, nx, ny, l.curl.clone())
                    .colormap(Colormap::RdBu)
                    .value_range(-bound, bound)
                    .colorbar_label("∂F_y/∂x − ∂F_x/∂y"),
            )
            .with(
                VectorField::new("", f.xs.clone(), f.ys.clone(), l.u.clone(), l.v.clone())
                    .color(Rgba::rgb(0, 0, 0)),
            ),
        );
    }
    fig
}
