//! The panel's figures, built on the kit's figure model (shown in the tabs and exported).

use crate::compute::{CompareResult, SweepPoint};
use benchtop_kit::figure::{
    Bars, Colormap, Figure, Heatmap, Line, Rgba, Scale, Scatter, Subplot, VectorField,
};

/// Held-out errors per variant and the MD total-energy traces.
pub fn comparison(result: &CompareResult) -> Figure {
    let names: Vec<String> = result.variants.iter().map(|v| v.name.clone()).collect();
    let force: Vec<f64> = result.variants.iter().map(|v| v.force_mae).collect();
    let energy: Vec<f64> = result.variants.iter().map(|v| v.energy_mae).collect();
    let mut md = Subplot::new("NVE MD with each model")
        .x_label("Step")
        .y_label("E_θ + kinetic (total energy)")
        .legend(true);
    let mut loss = Subplot::new("Training loss")
        .x_label("Epoch (thinned)")
        .y_label("Loss")
        .y_scale(Scale::Log10)
        .legend(true);
    for (k, v) in result.variants.iter().enumerate() {
        md.push(
            Line::new(v.name.clone(), v.md_steps.clone(), v.md_trace.clone()).color(Rgba::cycle(k)),
        );
        let xs: Vec<f64> = (0..v.loss.len()).map(|i| i as f64).collect();
        loss.push(Line::new(v.name.clone(), xs, v.loss.clone()).color(Rgba::cycle(k)));
    }
    Figure::new("PIWSL: supervised against physics-informed weak supervision")
        .grid(2, 2)
        .subplot(
            Subplot::new("Force MAE (held out)")
                .y_label("|F − F*| mean")
                .legend(false)
                .with(Bars::categories("force MAE", names.clone(), force)),
        )
        .subplot(
            Subplot::new("Energy MAE (held out)")
                .y_label("|E − E*| mean")
                .legend(false)
                .with(Bars::categories("energy MAE", names, energy)),
        )
        .subplot(md)
        .subplot(loss)
}

/// Force and energy errors against the number of labels.
pub fn sweep(points: &[SweepPoint]) -> Figure {
    let xs: Vec<f64> = points.iter().map(|p| p.labels as f64).collect();
    let col = |f: fn(&SweepPoint) -> f64| points.iter().map(f).collect::<Vec<f64>>();
    let panel = |title: &str, y: &str, sup: Vec<f64>, pi: Vec<f64>| {
        Subplot::new(title)
            .x_label("Labelled configurations")
            .y_label(y)
            .x_scale(Scale::Log10)
            .y_scale(Scale::Log10)
            .legend(true)
            .with(Line::new("supervised", xs.clone(), sup.clone()).color(Rgba::cycle(0)))
            .with(Scatter::new("", xs.clone(), sup).color(Rgba::cycle(0)))
            .with(Line::new("+PITC+PISC", xs.clone(), pi.clone()).color(Rgba::cycle(3)))
            .with(Scatter::new("", xs.clone(), pi).color(Rgba::cycle(3)))
    };
    Figure::new("Error against the number of labels")
        .grid(1, 2)
        .subplot(panel(
            "Force MAE",
            "|F − F*| mean",
            col(|p| p.supervised_force),
            col(|p| p.piwsl_force),
        ))
        .subplot(panel(
            "Energy MAE",
            "|E − E*| mean",
            col(|p| p.supervised_energy),
            col(|p| p.piwsl_energy),
        ))
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
    let mut fig =
        Figure::new("Reference energy with the A→B→C triangle; learned forces and their curl")
            .grid(1, 1 + f.learned.len())
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
