//! The panel's figures, built from results (shown on screen and exported the same way).

use benchtop_kit::figure::{
    Colormap, Dash, Figure, Heatmap, Line, Marker, Rgba, Scale, Scatter, Subplot,
};
use benchtop_rcgp::data::Dataset;
use benchtop_rcgp::experiment::location_moments;
use benchtop_rcgp::{MethodResult, RunResult, SweepPoint};

/// Colour of STGP.
const STGP: Rgba = Rgba::rgb(31, 119, 180);
/// Colour of ST-RCGP.
const RCGP: Rgba = Rgba::rgb(230, 120, 20);
/// Colour of outliers.
const OUTLIER: Rgba = Rgba::rgb(200, 30, 30);
/// Colour of the trivial references (no model).
const REFERENCE: Rgba = Rgba::rgb(120, 120, 120);

/// What the methods are scored against, for titles and legends: a clean truth, or the
/// observations themselves (before the injected outliers) — never called "truth" then.
pub fn reference_name(data: &Dataset) -> &'static str {
    if data.clean_is_latent {
        "truth"
    } else {
        "observations before injected outliers"
    }
}

/// Values of `values` (time-major) at location `i`.
fn at_location(values: &[f64], ns: usize, i: usize) -> Vec<f64> {
    values.iter().skip(i).step_by(ns).copied().collect()
}

fn band(method: &MethodResult, ns: usize, i: usize, times: &[f64], color: Rgba) -> [Line; 3] {
    let mean = at_location(&method.mean, ns, i);
    let sd: Vec<f64> = at_location(&method.var, ns, i)
        .iter()
        .map(|v| v.sqrt())
        .collect();
    let upper: Vec<f64> = mean.iter().zip(&sd).map(|(m, s)| m + 2.0 * s).collect();
    let lower: Vec<f64> = mean.iter().zip(&sd).map(|(m, s)| m - 2.0 * s).collect();
    [
        Line::new(format!("{} mean", method.name), times.to_vec(), mean)
            .color(color)
            .width_pt(1.8),
        Line::new(String::new(), times.to_vec(), upper)
            .color(color)
            .dash(Dash::Dashed)
            .width_pt(0.8),
        Line::new(String::new(), times.to_vec(), lower)
            .color(color)
            .dash(Dash::Dashed)
            .width_pt(0.8),
    ]
}

/// Observations, truth and both posteriors over time at location `i`, and ST-RCGP's weights.
pub fn series(result: &RunResult, i: usize) -> Figure {
    let d = &result.data;
    let ns = d.n_space();
    let i = i.min(ns.saturating_sub(1));
    let times = &d.times;
    let y = at_location(&d.y, ns, i);
    let outlier = at_location(
        &d.outlier
            .iter()
            .map(|&o| if o { 1.0 } else { 0.0 })
            .collect::<Vec<_>>(),
        ns,
        i,
    );
    let split = |values: &[f64], want: bool| -> (Vec<f64>, Vec<f64>) {
        times
            .iter()
            .zip(values)
            .zip(&outlier)
            .filter(|(_, o)| (**o > 0.5) == want)
            .map(|((t, v), _)| (*t, *v))
            .unzip()
    };
    let (t_in, y_in) = split(&y, false);
    let (t_out, y_out) = split(&y, true);
    // The axis spans the truth, both posteriors and the inliers; outliers beyond it are drawn
    // on its edge, so a few far outliers do not flatten the fits.
    let clean = at_location(&d.clean, ns, i);
    let (lo, hi) = clean
        .iter()
        .chain(&y_in)
        .chain(&at_location(&result.stgp.mean, ns, i))
        .chain(&at_location(&result.rcgp.mean, ns, i))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(*v), b.max(*v))
        });
    let pad = 0.25 * (hi - lo).max(1e-9);
    let (lo, hi) = (lo - pad, hi + pad);
    let clipped = y_out.iter().filter(|v| **v < lo || **v > hi).count();
    let y_out: Vec<f64> = y_out.iter().map(|v| v.clamp(lo, hi)).collect();
    let outlier_label = if clipped > 0 {
        format!("outliers ({clipped} off-axis, on the edge)")
    } else {
        "outliers".to_owned()
    };
    let truth_label = if d.clean_is_latent {
        "truth f (scored against)"
    } else {
        "observations before injected outliers (scored against)"
    };
    let place = if ns > 1 {
        format!(
            " at s = ({:.2}, {:.2})",
            d.locations[i][0], d.locations[i][1]
        )
    } else {
        String::new()
    };
    let mut fit = Subplot::new(format!("STGP vs ST-RCGP{place} (dashed: ±2 SD)"))
        .x_label(d.time_label.clone())
        .y_label("value")
        .y_range(lo, hi)
        .legend(true)
        .with(
            Scatter::new("observations", t_in, y_in)
                .color(Rgba::GREY)
                .size_pt(2.5),
        )
        .with(
            Scatter::new(outlier_label, t_out, y_out)
                .color(OUTLIER)
                .size_pt(4.0)
                .marker(Marker::Cross),
        )
        .with(
            Line::new(truth_label, times.clone(), clean)
                .color(Rgba::BLACK)
                .width_pt(1.2),
        );
    for line in band(&result.stgp, ns, i, times, STGP) {
        fit.push(line);
    }
    for line in band(&result.rcgp, ns, i, times, RCGP) {
        fit.push(line);
    }
    // The trivial reference: this location's mean observation, a constant predictor.
    if let Some(r) = result.references {
        let (means, _) = location_moments(d);
        fit = fit.hline(
            means[i],
            format!(
                "per-location mean (RMSE {:.3}; raw observations {:.3})",
                r.location_mean_rmse, r.observations_rmse
            ),
        );
    }
    let w = at_location(&result.rcgp.weight, ns, i);
    let (tw_in, w_in) = split(&w, false);
    let (tw_out, w_out) = split(&w, true);
    let weights = Subplot::new("ST-RCGP weight of each observation")
        .x_label(d.time_label.clone())
        .y_label("w / β")
        .y_range(0.0, 1.05)
        .with(
            Scatter::new("inliers", tw_in, w_in)
                .color(RCGP)
                .size_pt(2.5),
        )
        .with(
            Scatter::new("outliers", tw_out, w_out)
                .color(OUTLIER)
                .size_pt(4.0)
                .marker(Marker::Cross),
        );
    // Tall enough that the six-entry legend fits under the series when no corner is free.
    Figure::new(d.name.clone())
        .subplot(fit)
        .subplot(weights)
        .grid(2, 1)
        .size_in(6.4, 7.6)
}

/// A regular grid of locations: columns, rows, and the x and y extents of its cells.
pub type Grid = (usize, usize, (f64, f64), (f64, f64));

/// The grid (nx, ny, x extent, y extent) when the locations are a full row-major grid with x
/// fastest and increasing, as the Figure-1 generator and a sorted long CSV make them.
pub fn regular_grid(locations: &[[f64; 2]]) -> Option<Grid> {
    let ns = locations.len();
    let nx = locations
        .iter()
        .take_while(|p| p[1] == locations[0][1])
        .count();
    if ns < 4 || nx < 2 || !ns.is_multiple_of(nx) {
        return None;
    }
    let ny = ns / nx;
    if ny < 2 {
        return None;
    }
    for (k, p) in locations.iter().enumerate() {
        if p[0] != locations[k % nx][0] || p[1] != locations[(k / nx) * nx][1] {
            return None;
        }
    }
    let (x0, x1) = (locations[0][0], locations[nx - 1][0]);
    let (y0, y1) = (locations[0][1], locations[ns - 1][1]);
    if !(x1 > x0 && y1 > y0) {
        return None;
    }
    let (hx, hy) = (
        (x1 - x0) / (nx - 1) as f64 / 2.0,
        (y1 - y0) / (ny - 1) as f64 / 2.0,
    );
    Some((nx, ny, (x0 - hx, x1 + hx), (y0 - hy, y1 + hy)))
}

/// Maps at time index `t`: observations, truth, both posterior means and their errors.
pub fn maps(result: &RunResult, t: usize) -> Option<Figure> {
    let d = &result.data;
    let (nx, ny, xe, ye) = regular_grid(&d.locations)?;
    let ns = d.n_space();
    let t = t.min(d.n_times().saturating_sub(1));
    let slice = |v: &[f64]| v[t * ns..(t + 1) * ns].to_vec();
    let truth = slice(&d.clean);
    let (truth_title, truth_short) = if d.clean_is_latent {
        ("Truth".to_owned(), "truth")
    } else {
        (
            "Observations before injected outliers (scored against)".to_owned(),
            "observations",
        )
    };
    let (lo, hi) = truth
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(*v), b.max(*v))
        });
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 1.0, hi + 1.0)
    };
    let err = |m: &MethodResult| -> Vec<f64> {
        slice(&m.mean)
            .iter()
            .zip(&truth)
            .map(|(a, b)| (a - b).abs())
            .collect()
    };
    let (e1, e2) = (err(&result.stgp), err(&result.rcgp));
    let emax = e1.iter().chain(&e2).fold(1e-12f64, |a, v| a.max(*v));
    let map = |title: &str, values: Vec<f64>, range: (f64, f64), cmap: Colormap, label: &str| {
        Subplot::new(title)
            .x_label("s₁")
            .y_label("s₂")
            .equal_aspect(true)
            .heatmap(
                Heatmap::new(title, xe, ye, nx, ny, values)
                    .colormap(cmap)
                    .value_range(range.0, range.1)
                    .colorbar_label(label),
            )
    };
    let outliers_now = d.outlier[t * ns..(t + 1) * ns]
        .iter()
        .filter(|o| **o)
        .count();
    Some(
        Figure::new(format!(
            "{} at {} = {:.3}",
            d.name, d.time_label, d.times[t]
        ))
        .subplot(map(
            &format!("Observed ({outliers_now} outliers)"),
            slice(&d.y),
            (lo, hi),
            Colormap::Viridis,
            "y",
        ))
        .subplot(map(
            &truth_title,
            truth.clone(),
            (lo, hi),
            Colormap::Viridis,
            if d.clean_is_latent { "f" } else { "y" },
        ))
        .subplot(map(
            "STGP mean",
            slice(&result.stgp.mean),
            (lo, hi),
            Colormap::Viridis,
            "mean",
        ))
        .subplot(map(
            "ST-RCGP mean",
            slice(&result.rcgp.mean),
            (lo, hi),
            Colormap::Viridis,
            "mean",
        ))
        .subplot(map(
            &format!("|STGP − {truth_short}|"),
            e1,
            (0.0, emax),
            Colormap::Magma,
            "abs. error",
        ))
        .subplot(map(
            &format!("|ST-RCGP − {truth_short}|"),
            e2,
            (0.0, emax),
            Colormap::Magma,
            "abs. error",
        ))
        .grid(3, 2)
        .size_in(8.0, 10.0),
    )
}

/// RMSE over the outlier rate, with the trivial references (the raw observations and the
/// per-location mean) as dashed grey lines.
pub fn sweep(points: &[SweepPoint]) -> Figure {
    let rates: Vec<f64> = points.iter().map(|p| p.rate).collect();
    let against = match points.first().and_then(|p| p.against_truth) {
        Some(true) => "the truth",
        Some(false) => "the observations before injected outliers",
        None => "the reference values",
    };
    // RMSEs span decades (a robust fit against raw observations): a log axis when all are
    // positive.
    let positive = points.iter().all(|p| {
        [p.stgp_rmse, p.rcgp_rmse]
            .into_iter()
            .chain(p.observations_rmse)
            .chain(p.location_mean_rmse)
            .all(|v| v > 0.0)
    });
    let mut sp = Subplot::new("Outlier-rate sweep")
        .x_label("outlier rate")
        .y_label("RMSE")
        .legend(true);
    if positive {
        sp = sp.y_scale(Scale::Log10);
    }
    let reference = |name: &str, values: Vec<Option<f64>>, dash: Dash| -> Option<Line> {
        let ys: Option<Vec<f64>> = values.into_iter().collect();
        ys.map(|ys| {
            Line::new(name, rates.clone(), ys)
                .color(REFERENCE)
                .dash(dash)
                .width_pt(1.2)
        })
    };
    if let Some(line) = reference(
        "raw observations (no model)",
        points.iter().map(|p| p.observations_rmse).collect(),
        Dash::Dotted,
    ) {
        sp.push(line);
    }
    if let Some(line) = reference(
        "per-location mean",
        points.iter().map(|p| p.location_mean_rmse).collect(),
        Dash::Dashed,
    ) {
        sp.push(line);
    }
    Figure::new(format!("RMSE against {against} over the outlier rate")).subplot(
        sp.with(
            Line::new(
                "STGP",
                rates.clone(),
                points.iter().map(|p| p.stgp_rmse).collect::<Vec<_>>(),
            )
            .color(STGP)
            .width_pt(1.8),
        )
        .with(
            Scatter::new(
                "",
                rates.clone(),
                points.iter().map(|p| p.stgp_rmse).collect::<Vec<_>>(),
            )
            .color(STGP),
        )
        .with(
            Line::new(
                "ST-RCGP",
                rates.clone(),
                points.iter().map(|p| p.rcgp_rmse).collect::<Vec<_>>(),
            )
            .color(RCGP)
            .width_pt(1.8),
        )
        .with(
            Scatter::new(
                "",
                rates,
                points.iter().map(|p| p.rcgp_rmse).collect::<Vec<_>>(),
            )
            .color(RCGP),
        ),
    )
}
