//! The panel's figures: errors per learner at one budget, errors against n at fixed n·M, one
//! held-out chain's correlation matrix, the TFIM phase diagram, the randomisation test and the
//! shadow histograms. One colour per learner everywhere; the trivial reference is grey and
//! dashed.

use benchtop_kit::figure::{
    Bars, Colormap, Dash, ErrorBars, Figure, Heatmap, Line, Marker, Rgba, Scale, Scatter, Subplot,
};
use benchtop_quantum::experiment::{Comparison, Curve, ScoreStats, Scores, Stat};
use benchtop_quantum::learners::Learner;
use benchtop_quantum::study::{Study, pauli_bound};
use nalgebra::DMatrix;

/// Colour of a learner in every figure (classical: blues and greens; deep: reds).
pub fn learner_color(learner: Learner) -> Rgba {
    match learner {
        Learner::Ridge => Rgba::rgb(0x1f, 0x77, 0xb4),
        Learner::Lasso => Rgba::rgb(0x17, 0xbe, 0xcf),
        Learner::KernelRbf => Rgba::rgb(0x2c, 0xa0, 0x2c),
        Learner::KernelDirichlet => Rgba::rgb(0x8c, 0xb4, 0x2c),
        Learner::Mlp => Rgba::rgb(0xd6, 0x27, 0x28),
        Learner::Cnn => Rgba::rgb(0xff, 0x7f, 0x0e),
    }
}

/// Colour of the trivial reference.
const TRIVIAL: Rgba = Rgba::rgb(0x7f, 0x7f, 0x7f);

/// The three metrics: (label, axis label, accessor).
type Metric = (&'static str, &'static str, fn(&ScoreStats) -> Stat);

/// The metrics drawn side by side.
pub const METRICS: [Metric; 3] = [
    ("Correlations C_{ij}", "RMSE of C_{ij} (held-out)", |s| {
        s.rmse_correlation
    }),
    ("Rényi-2 entropies", "RMSE of S₂ (bits, held-out)", |s| {
        s.rmse_entropy
    }),
    ("TFIM phases", "Phase accuracy (held-out)", |s| {
        s.phase_accuracy
    }),
];

/// Each metric's bars per learner (mean ± sd over repeats) with the trivial reference.
pub fn budget_figure(comparison: &Comparison) -> Figure {
    let names: Vec<String> = comparison
        .methods
        .iter()
        .map(|m| m.learner.label().to_owned())
        .collect();
    let colors: Vec<Rgba> = comparison
        .methods
        .iter()
        .map(|m| learner_color(m.learner))
        .collect();
    let stats: Vec<ScoreStats> = comparison
        .methods
        .iter()
        .map(|m| ScoreStats::of(&m.scores))
        .collect();
    let trivial = ScoreStats::of(&comparison.trivial);
    let repeats = comparison.trivial.len();
    let mut figure = Figure::new(format!(
        "Every learner at n = {} chains × M = {} snapshots (mean ± sd over {repeats} repeats)",
        comparison.train_samples, comparison.snapshots
    ))
    .grid(1, 3)
    .size_in(15.0, 4.8);
    for (title, axis, get) in METRICS {
        let means: Vec<f64> = stats.iter().map(|s| get(s).mean).collect();
        let sds: Vec<f64> = stats.iter().map(|s| get(s).sd).collect();
        let xs: Vec<f64> = (0..means.len()).map(|i| i as f64).collect();
        let reference = get(&trivial).mean;
        figure = figure.subplot(
            Subplot::new(title)
                .y_label(axis)
                .legend(true)
                .with(Bars::categories("", names.clone(), means.clone()).colors(colors.clone()))
                .with(ErrorBars::new("± sd over repeats", xs, means, sds).color(Rgba::BLACK))
                .hline(reference, format!("trivial reference {reference:.3}")),
        );
    }
    figure
}

/// Each metric against n (log axis) at fixed n·M, one line per learner, the trivial
/// reference dashed.
pub fn curve_figure(curve: &Curve) -> Figure {
    let ns: Vec<f64> = curve
        .points
        .iter()
        .map(|p| p.train_samples as f64)
        .collect();
    let mut figure = Figure::new(format!(
        "Error against n at fixed n·M = {} (M = n·M/n; mean ± sd over repeats)",
        curve.total
    ))
    .grid(1, 3)
    .size_in(15.0, 4.8);
    for (title, axis, get) in METRICS {
        let mut subplot = Subplot::new(title)
            .x_label("Training chains n")
            .y_label(axis)
            .x_scale(Scale::Log10)
            .legend(true);
        for (index, learner) in Learner::ALL.iter().enumerate() {
            let stats: Vec<Stat> = curve
                .points
                .iter()
                .map(|p| {
                    p.methods
                        .get(index)
                        .map_or(Stat::default(), |m| get(&ScoreStats::of(&m.scores)))
                })
                .collect();
            let means: Vec<f64> = stats.iter().map(|s| s.mean).collect();
            let sds: Vec<f64> = stats.iter().map(|s| s.sd).collect();
            let color = learner_color(*learner);
            subplot = subplot
                .with(Line::new(learner.label(), ns.clone(), means.clone()).color(color))
                .with(ErrorBars::new("", ns.clone(), means, sds).color(color));
        }
        let trivial: Vec<f64> = curve
            .points
            .iter()
            .map(|p| get(&ScoreStats::of(&p.trivial)).mean)
            .collect();
        subplot = subplot.with(
            Line::new("Trivial (training mean)", ns.clone(), trivial)
                .color(TRIVIAL)
                .dash(Dash::Dashed),
        );
        figure = figure.subplot(subplot);
    }
    figure
}

/// A symmetric matrix as a heatmap on [−1, 1], entry (i, j) at x = j, y = i (0-based sites).
fn matrix_subplot(title: &str, m: &DMatrix<f64>) -> Subplot {
    let l = m.nrows();
    let values: Vec<f64> = (0..l)
        .flat_map(|i| (0..l).map(move |j| m[(i, j)]))
        .collect();
    let extent = (-0.5, l as f64 - 0.5);
    Subplot::new(title)
        .x_label("Site j")
        .y_label("Site i")
        .x_range(extent.0, extent.1)
        .y_range(extent.0, extent.1)
        .equal_aspect(true)
        .heatmap(
            Heatmap::new(title, extent, extent, l, l, values)
                .colormap(Colormap::RdBu)
                .value_range(-1.0, 1.0)
                .colorbar_label("C_{ij}"),
        )
}

/// The held-out chain's C_ij: exact, from its own M snapshots, and as `learner` predicts it.
pub fn correlation_figure(comparison: &Comparison, learner: Learner) -> Figure {
    let held = &comparison.held_out;
    let predicted = held
        .predicted
        .iter()
        .find(|(l, _)| *l == learner)
        .map_or_else(|| held.exact.clone(), |(_, m)| m.clone());
    let rmse = |m: &DMatrix<f64>| {
        let l = m.nrows();
        let pairs = (l * (l - 1) / 2).max(1) as f64;
        ((m - &held.exact).norm_squared() / (2.0 * pairs)).sqrt()
    };
    Figure::new("One held-out chain: C_{ij} = ⅓⟨XX + YY + ZZ⟩")
        .grid(1, 3)
        .size_in(15.0, 4.6)
        .subplot(matrix_subplot("Exact (Lanczos)", &held.exact))
        .subplot(matrix_subplot(
            &format!("{} (RMSE {:.3})", learner.label(), rmse(&predicted)),
            &predicted,
        ))
        .subplot(matrix_subplot(
            &format!(
                "Its own {} snapshots (RMSE {:.3})",
                comparison.snapshots,
                rmse(&held.shadow)
            ),
            &held.shadow,
        ))
}

/// The held-out TFIM chains in the (J̄, h̄) plane coloured by their exact phase and by the
/// phase `learner` predicts, and predicted against exact m².
pub fn phase_figure(comparison: &Comparison, learner: Learner) -> Figure {
    let index = comparison
        .methods
        .iter()
        .position(|m| m.learner == learner)
        .unwrap_or(0);
    let critical = comparison.critical_order;
    let ordered = Rgba::rgb(0x1f, 0x77, 0xb4);
    let disordered = Rgba::rgb(0xff, 0x7f, 0x0e);
    let points = &comparison.phases;
    let plane = |title: &str, label: &dyn Fn(usize) -> bool| {
        let (mut xo, mut yo, mut xd, mut yd) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (k, p) in points.iter().enumerate() {
            if label(k) {
                xo.push(p.coupling);
                yo.push(p.field);
            } else {
                xd.push(p.coupling);
                yd.push(p.field);
            }
        }
        Subplot::new(title)
            .x_label("Mean coupling J̄")
            .y_label("Field h")
            .legend(true)
            .with(Scatter::new("Ordered (m² > m²_c)", xo, yo).color(ordered))
            .with(Scatter::new("Disordered", xd, yd).color(disordered))
    };
    let exact = |k: usize| points[k].exact_order > critical;
    let predicted =
        |k: usize| points[k].predicted_order.get(index).copied().unwrap_or(0.0) > critical;
    let wrong: Vec<usize> = (0..points.len())
        .filter(|&k| exact(k) != predicted(k))
        .collect();
    let accuracy = 1.0 - wrong.len() as f64 / points.len().max(1) as f64;
    let mistakes = Scatter::new(
        "Misclassified",
        wrong
            .iter()
            .map(|&k| points[k].coupling)
            .collect::<Vec<_>>(),
        wrong.iter().map(|&k| points[k].field).collect::<Vec<_>>(),
    )
    .color(Rgba::BLACK)
    .marker(Marker::Cross)
    .size_pt(6.0);
    let exact_m2: Vec<f64> = points.iter().map(|p| p.exact_order).collect();
    let predicted_m2: Vec<f64> = points
        .iter()
        .map(|p| p.predicted_order.get(index).copied().unwrap_or(f64::NAN))
        .collect();
    let low = exact_m2
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .min(0.0);
    let high = exact_m2.iter().copied().fold(0.0_f64, f64::max).max(1.0);
    Figure::new(format!(
        "TFIM phases of {} held-out chains (m²_c = {critical:.3}, the uniform chain's m² at J = h = 1)",
        points.len()
    ))
    .grid(1, 3)
    .size_in(15.0, 4.8)
    .subplot(plane("True phase (exact m²)", &exact))
    .subplot(
        plane(
            &format!("{} (accuracy {:.0} %)", learner.label(), 100.0 * accuracy),
            &predicted,
        )
        .with(mistakes),
    )
    .subplot(
        Subplot::new("Order parameter")
            .x_label("Exact m²")
            .y_label("Predicted m²")
            .legend(true)
            .with(Scatter::new(learner.label(), exact_m2, predicted_m2).color(learner_color(learner)))
            .with(
                Line::new("y = x", vec![low, high], vec![low, high])
                    .color(TRIVIAL)
                    .dash(Dash::Dotted),
            )
            .hline(critical, "m²_c")
            .vline(critical, ""),
    )
}

/// Before and after the measurement inputs are shuffled across chains: each metric per
/// learner, mean ± sd over repeats.
pub fn randomisation_figure(comparison: &Comparison) -> Figure {
    let learners: Vec<Learner> = comparison.randomisation.iter().map(|r| r.learner).collect();
    let names: Vec<String> = learners.iter().map(|l| l.label().to_owned()).collect();
    let mut figure = Figure::new(
        "Randomisation test: each chain's measurement inputs moved to another chain, every \
         learner retrained",
    )
    .grid(1, 3)
    .size_in(15.0, 4.8);
    let positions =
        |offset: f64| -> Vec<f64> { (0..learners.len()).map(|i| i as f64 + offset).collect() };
    for (title, axis, get) in METRICS {
        let side = |pick: fn(&benchtop_quantum::experiment::Randomised) -> &Vec<Scores>| {
            let stats: Vec<Stat> = comparison
                .randomisation
                .iter()
                .map(|r| get(&ScoreStats::of(pick(r))))
                .collect();
            (
                stats.iter().map(|s| s.mean).collect::<Vec<_>>(),
                stats.iter().map(|s| s.sd).collect::<Vec<_>>(),
            )
        };
        let (before, before_sd) = side(|r| &r.before);
        let (after, after_sd) = side(|r| &r.after);
        // Zero-height bars over the learners' names put the names under the pairs.
        let subplot = Subplot::new(title)
            .y_label(axis)
            .legend(true)
            .with(Bars::categories("", names.clone(), vec![0.0; names.len()]))
            .with(
                Bars::at("Own measurements", positions(-0.2), before.clone(), 0.38)
                    .color(Rgba::rgb(0x1f, 0x77, 0xb4)),
            )
            .with(
                Bars::at("Shuffled measurements", positions(0.2), after.clone(), 0.38)
                    .color(Rgba::rgb(0xd6, 0x27, 0x28)),
            )
            .with(ErrorBars::new("", positions(-0.2), before, before_sd).color(Rgba::BLACK))
            .with(ErrorBars::new("", positions(0.2), after, after_sd).color(Rgba::BLACK));
        figure = figure.subplot(subplot.x_range(-0.6, learners.len() as f64 - 0.4));
    }
    figure
}

/// Histogram counts of `values` over `bins` equal bins of [low, high]: (centres, counts).
pub fn histogram(values: &[f64], low: f64, high: f64, bins: usize) -> (Vec<f64>, Vec<f64>) {
    let width = (high - low) / bins as f64;
    let mut counts = vec![0.0; bins];
    for v in values {
        if v.is_finite() && width > 0.0 {
            let b = (((v - low) / width).floor().max(0.0) as usize).min(bins - 1);
            counts[b] += 1.0;
        }
    }
    let centres = (0..bins).map(|b| low + (b as f64 + 0.5) * width).collect();
    (centres, counts)
}

/// One estimated quantity of the shadow figure: its name, its exact value and where a study
/// point keeps its estimates.
type EstimateRow = (
    &'static str,
    f64,
    fn(&benchtop_quantum::study::StudyPoint) -> &Vec<f64>,
);

/// Shadow estimates of C₀₁ and S₂ at each M as histograms around the exact value, and M·Var
/// against M with the bounds.
pub fn shadows_figure(study: &Study) -> Figure {
    let columns = study.points.len() + 1;
    let mut figure = Figure::new(format!(
        "Shadow estimates of one {}-site chain converging (sets of M snapshots)",
        study.chain.sites
    ))
    .grid(2, columns)
    .size_in(4.2 * columns as f64, 8.0);
    let rows: [EstimateRow; 2] = [
        ("C₀₁", study.exact_correlation, |p| &p.correlation),
        ("S₂ (bits)", study.exact_entropy, |p| &p.entropy),
    ];
    for (row, (name, exact, values)) in rows.iter().enumerate() {
        let all: Vec<f64> = study
            .points
            .iter()
            .flat_map(|p| values(p).iter().copied())
            .collect();
        let low = all.iter().copied().fold(*exact, f64::min);
        let high = all.iter().copied().fold(*exact, f64::max);
        let pad = 0.05 * (high - low).max(1e-3);
        for point in &study.points {
            let (centres, counts) = histogram(values(point), low - pad, high + pad, 30);
            let width = centres.get(1).map_or(1.0, |c| c - centres[0]);
            figure = figure.subplot(
                Subplot::new(format!("{name}, M = {}", point.snapshots))
                    .x_label(format!("Shadow estimate of {name}"))
                    .y_label("Sets of snapshots")
                    .legend(row == 0)
                    .with(
                        Bars::at("Estimates", centres, counts, width)
                            .color(Rgba::rgb(0x1f, 0x77, 0xb4)),
                    )
                    .vline(*exact, "exact"),
            );
        }
        if row == 0 {
            let ms: Vec<f64> = study.points.iter().map(|p| p.snapshots as f64).collect();
            let zz: Vec<f64> = study
                .points
                .iter()
                .map(|p| p.zz_scaled_variance())
                .collect();
            let c: Vec<f64> = study
                .points
                .iter()
                .map(|p| p.correlation_scaled_variance())
                .collect();
            figure = figure.subplot(
                Subplot::new("Variance × M against its bound")
                    .x_label("Snapshots M")
                    .y_label("M · Var(estimate)")
                    .x_scale(Scale::Log10)
                    .legend(true)
                    .with(Line::new("⟨Z₀Z₁⟩", ms.clone(), zz).color(Rgba::rgb(0x2c, 0xa0, 0x2c)))
                    .with(Line::new("C₀₁", ms, c).color(Rgba::rgb(0x94, 0x67, 0xbd)))
                    .hline(pauli_bound(2), "bound 3² (2-local string)")
                    .hline(3.0, "bound 3 (C_{ij})"),
            );
        } else {
            let ms: Vec<f64> = study.points.iter().map(|p| p.snapshots as f64).collect();
            let errors: Vec<f64> = study
                .points
                .iter()
                .map(|p| {
                    let mean = benchtop_quantum::shadows::mean(&p.entropy);
                    (mean - study.exact_entropy).abs()
                })
                .collect();
            figure = figure.subplot(
                Subplot::new("Bias of the entropy estimate")
                    .x_label("Snapshots M")
                    .y_label("|mean S₂ estimate − exact| (bits)")
                    .x_scale(Scale::Log10)
                    .y_scale(Scale::Log10)
                    .with(
                        Line::new(
                            "S₂",
                            ms,
                            errors.iter().map(|e| e.max(1e-6)).collect::<Vec<_>>(),
                        )
                        .color(Rgba::rgb(0x94, 0x67, 0xbd)),
                    ),
            );
        }
    }
    figure
}
