//! Figure pieces of the FINDR panel: rasters and PSTHs, training curves, flow fields over speed
//! maps, fixed points by stability, trajectories coloured cool-to-warm by evidence, and the
//! sample-zone outline.

use benchtop_findr::analysis::{FixedPoint, Stability};
use benchtop_findr::field::FlowGrid;
use benchtop_findr::trials::TrialSet;

use benchtop_kit::figure::{
    Colormap, Dash, Heatmap, Line, Marker, Rgba, Scatter, StreamlineOptions, Subplot, VectorField,
};

/// Colour of data curves (training set, data PSTHs).
pub const DATA: Rgba = Rgba::rgb(0x22, 0x22, 0x22);
/// Colour of training curves.
pub const TRAIN: Rgba = Rgba::rgb(0x1f, 0x77, 0xb4);
/// Colour of validation curves.
pub const VALIDATION: Rgba = Rgba::rgb(0xd6, 0x27, 0x28);
/// Colour of reference marks (best epoch, baseline-only NLL).
pub const REFERENCE: Rgba = Rgba::rgb(0x7f, 0x7f, 0x7f);
/// Colour of left clicks.
pub const LEFT: Rgba = Rgba::rgb(0x1f, 0x77, 0xb4);
/// Colour of right clicks.
pub const RIGHT: Rgba = Rgba::rgb(0xd6, 0x27, 0x28);
/// Colour of the quiver arrows over a speed map.
const ARROWS: Rgba = Rgba::rgb(0x20, 0x20, 0x20);
/// Colour of the sample-zone outline.
const ZONE: Rgba = Rgba::rgb(0x2c, 0xa0, 0x2c);
/// Colour of planted fixed points drawn over a flow.
const PLANTED: Rgba = Rgba::rgb(0xff, 0x7f, 0x0e);

/// Colour, marker and label of a stability class.
pub fn stability_style(stability: Stability) -> (Rgba, Marker, &'static str) {
    match stability {
        Stability::Stable => (Rgba::rgb(0x00, 0x00, 0x00), Marker::Circle, "stable"),
        Stability::Unstable => (Rgba::rgb(0xd6, 0x27, 0x28), Marker::Diamond, "unstable"),
        Stability::Saddle => (Rgba::rgb(0x94, 0x67, 0xbd), Marker::Triangle, "saddle"),
        Stability::Marginal => (Rgba::rgb(0x8c, 0x56, 0x4b), Marker::Square, "marginal"),
    }
}

/// The cool-to-warm colour of group value `value` among values up to `largest` in magnitude:
/// negative (leftward evidence) blue, positive red, skipping the pale middle of the map so that
/// weak evidence stays visible on white paper.
pub fn cool_warm(value: f64, largest: f64) -> Rgba {
    let signed = if largest > 0.0 {
        (value / largest).clamp(-1.0, 1.0)
    } else {
        0.0
    };
    let t = if signed == 0.0 {
        0.5
    } else {
        0.5 + signed.signum() * (0.15 + 0.35 * signed.abs())
    };
    // RdBu runs red (low) to blue (high): turn it around.
    Colormap::RdBu.color_at(1.0 - t)
}

/// Whether a group's line is named in a legend: only the two extreme groups are, so that the
/// legend stays small (the colours run between them).
pub fn legend_group(index: usize, count: usize) -> bool {
    index == 0 || index + 1 == count
}

/// The largest magnitude among `values` (for [`cool_warm`]).
pub fn largest_magnitude(values: impl IntoIterator<Item = f64>) -> f64 {
    values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(0.0, |m, v| m.max(v.abs()))
}

/// `γ = 1.5` for synthetic groups, `net 12.0 clicks/s` for user-data groups.
pub fn group_label(value: f64, synthetic: bool) -> String {
    if synthetic {
        format!("γ = {value}")
    } else {
        format!("net {value:.1} clicks/s")
    }
}

/// Spike raster of one trial (neurons × time) with its left and right clicks marked above.
pub fn raster_subplot(trials: &TrialSet, trial: usize) -> Subplot {
    let trial = trial.min(trials.n_trials.saturating_sub(1));
    let length = trials.lengths.get(trial).copied().unwrap_or(0);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    let (mut left, mut right) = (Vec::new(), Vec::new());
    let neurons = trials.n_neurons as f64;
    for bin in 0..length {
        let t = (bin as f64 + 0.5) * trials.bin_s;
        for neuron in 0..trials.n_neurons {
            if trials.spike(trial, bin, neuron) > 0.0 {
                xs.push(t);
                ys.push(neuron as f64);
            }
        }
        let [l, r] = trials.input(trial, bin);
        if l > 0.0 {
            left.push(t);
        }
        if r > 0.0 {
            right.push(t);
        }
    }
    let duration = length.max(1) as f64 * trials.bin_s;
    let (n_left, n_right) = (left.len(), right.len());
    Subplot::new(format!(
        "Trial {}: spikes and clicks ({n_left} left, {n_right} right)",
        trial + 1
    ))
    .x_label("Time in trial (s)")
    .y_label("Neuron")
    .x_range(0.0, duration)
    .y_range(-1.0, neurons + 3.0)
    .legend(true)
    .with(
        Scatter::new("Spikes", xs, ys)
            .color(DATA)
            .marker(Marker::Square)
            .size_pt(1.2),
    )
    .with(
        Scatter::new("Left clicks", left.clone(), vec![neurons + 0.5; n_left])
            .color(LEFT)
            .marker(Marker::Triangle)
            .size_pt(3.0),
    )
    .with(
        Scatter::new("Right clicks", right.clone(), vec![neurons + 2.0; n_right])
            .color(RIGHT)
            .marker(Marker::Triangle)
            .size_pt(3.0),
    )
}

/// Quantile groups of user trials without γ (as the engine's analysis uses).
const FALLBACK_GROUPS: usize = 6;

/// Trials grouped for PSTHs: (group value, trial indices), sorted by value. Synthetic trials
/// group by their γ; user trials by quantiles of their net click rate (the engine's grouping).
pub fn trial_groups(trials: &TrialSet, gammas: Option<&[f64]>) -> Vec<(f64, Vec<usize>)> {
    let (values, group) =
        benchtop_findr::trajectories::trial_groups(trials, gammas, FALLBACK_GROUPS);
    values
        .iter()
        .enumerate()
        .map(|(g, &value)| {
            let members = (0..trials.n_trials).filter(|&i| group[i] == g).collect();
            (value, members)
        })
        .collect()
}

/// The PSTH of `neuron` over `members` (Hz per bin; NaN where no trial covers the bin),
/// smoothed with a centred box of `smooth_bins` bins.
pub fn psth_hz(
    trials: &TrialSet,
    members: &[usize],
    neuron: usize,
    smooth_bins: usize,
) -> Vec<f64> {
    let raw: Vec<f64> = (0..trials.max_bins)
        .map(|bin| {
            let (sum, count) = members
                .iter()
                .filter(|&&i| bin < trials.lengths[i])
                .fold((0.0, 0usize), |(s, c), &i| {
                    (s + f64::from(trials.spike(i, bin, neuron)), c + 1)
                });
            if count == 0 {
                f64::NAN
            } else {
                sum / count as f64 / trials.bin_s
            }
        })
        .collect();
    smooth(&raw, smooth_bins)
}

/// A centred moving average over `width` bins, ignoring NaN (NaN stays where the input is NaN).
pub fn smooth(values: &[f64], width: usize) -> Vec<f64> {
    let half = width / 2;
    (0..values.len())
        .map(|i| {
            if values[i].is_nan() {
                return f64::NAN;
            }
            let window = &values[i.saturating_sub(half)..(i + half + 1).min(values.len())];
            let finite: Vec<f64> = window.iter().copied().filter(|v| v.is_finite()).collect();

            finite.iter().sum::<f64>() / finite.len().max(1) as f64
        })
        .collect()
}

/// Bin centres in seconds.
pub fn bin_times(bins: usize, bin_s: f64) -> Vec<f64> {
    (0..bins).map(|b| (b as f64 + 0.5) * bin_s).collect()
}

/// Heatmap of log₁₀ speed under a quiver of `grid`'s vectors (cells centred on the grid points).
pub fn flow_items(grid: &FlowGrid, streamlines: bool) -> (Heatmap, VectorField) {
    let (nx, ny) = (grid.xs.len(), grid.ys.len());
    let half = |axis: &[f64]| {
        if axis.len() > 1 {
            0.5 * (axis[1] - axis[0])
        } else {
            0.5
        }
    };
    let (hx, hy) = (half(&grid.xs), half(&grid.ys));
    let first_last = |axis: &[f64]| {
        (
            axis.first().copied().unwrap_or(0.0),
            axis.last().copied().unwrap_or(1.0),
        )
    };
    let ((x0, x1), (y0, y1)) = (first_last(&grid.xs), first_last(&grid.ys));
    let log_speed: Vec<f64> = grid
        .speed
        .iter()
        .map(|&s| if s > 0.0 { s.log10() } else { f64::NAN })
        .collect();
    let heatmap = Heatmap::new(
        "",
        (x0 - hx, x1 + hx),
        (y0 - hy, y1 + hy),
        nx,
        ny,
        log_speed,
    )
    .colormap(Colormap::Viridis)
    .colorbar_label("log₁₀ speed (latent units/s)");
    let u: Vec<f64> = grid.vectors.iter().map(|v| v[0]).collect();
    let v: Vec<f64> = grid.vectors.iter().map(|v| v[1]).collect();
    let mut field = VectorField::new("", grid.xs.clone(), grid.ys.clone(), u, v).color(ARROWS);
    if streamlines {
        field = field.with_streamlines(&StreamlineOptions::default());
    }
    (heatmap, field)
}

/// Markers of fixed points, one scatter per stability class present (named for the legend,
/// prefixed with `prefix`).
pub fn fixed_point_scatters(points: &[FixedPoint], prefix: &str) -> Vec<Scatter> {
    [
        Stability::Stable,
        Stability::Marginal,
        Stability::Saddle,
        Stability::Unstable,
    ]
    .into_iter()
    .filter_map(|stability| {
        let chosen: Vec<&FixedPoint> = points.iter().filter(|p| p.stability == stability).collect();
        if chosen.is_empty() {
            return None;
        }
        let (color, marker, label) = stability_style(stability);
        Some(
            Scatter::new(
                format!("{prefix}{label}"),
                chosen.iter().map(|p| p.z[0]).collect::<Vec<f64>>(),
                chosen.iter().map(|p| p.z[1]).collect::<Vec<f64>>(),
            )
            .color(color)
            .marker(marker)
            .size_pt(4.5),
        )
    })
    .collect()
}

/// Planted fixed points as crosses over another flow.
pub fn planted_markers(points: &[[f64; 2]]) -> Scatter {
    Scatter::new(
        "planted attractors",
        points.iter().map(|p| p[0]).collect::<Vec<f64>>(),
        points.iter().map(|p| p[1]).collect::<Vec<f64>>(),
    )
    .color(PLANTED)
    .marker(Marker::Cross)
    .size_pt(6.0)
}

/// The outline of the cells (centred on grid points) for which `inside` holds, as one line
/// broken by NaN between edges.
pub fn zone_outline(grid: &FlowGrid, inside: impl Fn(usize) -> bool) -> Line {
    let (nx, ny) = (grid.xs.len(), grid.ys.len());
    let step = |axis: &[f64]| {
        if axis.len() > 1 {
            axis[1] - axis[0]
        } else {
            1.0
        }
    };
    let (dx, dy) = (step(&grid.xs), step(&grid.ys));
    let cell_in = |i: isize, j: isize| -> bool {
        i >= 0
            && j >= 0
            && (i as usize) < nx
            && (j as usize) < ny
            && inside(j as usize * nx + i as usize)
    };
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    let mut edge = |a: (f64, f64), b: (f64, f64)| {
        xs.extend([a.0, b.0, f64::NAN]);
        ys.extend([a.1, b.1, f64::NAN]);
    };
    for j in 0..ny {
        for i in 0..nx {
            let (ii, jj) = (i as isize, j as isize);
            if !cell_in(ii, jj) {
                continue;
            }
            let (x, y) = (grid.xs[i], grid.ys[j]);
            let (l, r, b, t) = (x - dx / 2.0, x + dx / 2.0, y - dy / 2.0, y + dy / 2.0);
            if !cell_in(ii - 1, jj) {
                edge((l, b), (l, t));
            }
            if !cell_in(ii + 1, jj) {
                edge((r, b), (r, t));
            }
            if !cell_in(ii, jj - 1) {
                edge((l, b), (r, b));
            }
            if !cell_in(ii, jj + 1) {
                edge((l, t), (r, t));
            }
        }
    }
    Line::new("sample zone", xs, ys)
        .color(ZONE)
        .width_pt(1.5)
        .dash(Dash::Dashed)
}

/// An empty flow subplot over `grid`'s extent with equal axes.
pub fn flow_subplot(title: &str, grid: &FlowGrid, x_label: &str, y_label: &str) -> Subplot {
    let extent = |axis: &[f64]| {
        let step = if axis.len() > 1 {
            axis[1] - axis[0]
        } else {
            1.0
        };
        (
            axis.first().copied().unwrap_or(0.0) - step / 2.0,
            axis.last().copied().unwrap_or(1.0) + step / 2.0,
        )
    };
    let ((x0, x1), (y0, y1)) = (extent(&grid.xs), extent(&grid.ys));
    Subplot::new(title)
        .x_label(x_label)
        .y_label(y_label)
        .x_range(x0, x1)
        .y_range(y0, y1)
        .equal_aspect(true)
        .legend(true)
}
