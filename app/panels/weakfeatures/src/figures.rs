//! The panel's figures (what the window shows is what the export writes) and its CSV tables.
//! Every closed form and bound drawn is labelled as the panel's own.

use benchtop_kit::figure::{Bars, Dash, Figure, Line, Marker, Rgba, Scale, Scatter, Subplot};
use benchtop_kit::panel::DataTable;
use benchtop_weakfeatures::experiment::{MsePoint, Output, SizePoint};
use benchtop_weakfeatures::models::EstimatorKind;

use super::{SchemeShown, WeakfeaturesParams};

const SEQUENTIAL: Rgba = Rgba::rgb(0x1f, 0x77, 0xb4);
const ITERATIVE: Rgba = Rgba::rgb(0xff, 0x7f, 0x0e);
const ORACLE: Rgba = Rgba::rgb(0x2c, 0xa0, 0x2c);
const OBSERVED: Rgba = Rgba::rgb(0xd6, 0x27, 0x28);
const MEAN: Rgba = Rgba::rgb(0x7f, 0x7f, 0x7f);
const CLOSED: Rgba = Rgba::rgb(0x20, 0x20, 0x20);
const BOUND: Rgba = Rgba::rgb(0x94, 0x67, 0xbd);

/// The y axis label of every excess-risk plot.
fn risk_label(output: &Output) -> &'static str {
    if output.exact_bayes {
        "Excess risk E(ŷ − βᵀx)² (target units²)"
    } else {
        "Excess test MSE over oracle features (target units²)"
    }
}

fn colour(key: &str) -> Rgba {
    match key {
        "sequential" => SEQUENTIAL,
        "iterative" => ITERATIVE,
        "oracle_features" => ORACLE,
        "observed_only" => OBSERVED,
        _ => MEAN,
    }
}

/// A line with markers at its points (the markers not in the legend).
fn measured(subplot: Subplot, name: &str, xs: &[f64], ys: &[f64], color: Rgba) -> Subplot {
    subplot
        .with(Line::new(name, xs.to_vec(), ys.to_vec()).color(color))
        .with(
            Scatter::new("", xs.to_vec(), ys.to_vec())
                .color(color)
                .size_pt(4.0),
        )
}

fn describe(params: &WeakfeaturesParams, output: &Output) -> String {
    format!(
        "{}, ρ = {:.2} ({:.0} % of test rows), f: {}, h: {}",
        params.missing.mechanism.label(),
        params.missing.rate,
        100.0 * output.missing_test,
        params.estimator.kind.label(),
        params.label.kind.label()
    )
}

/// Every method's excess risk with the closed forms, and the iterative scheme by round.
pub(super) fn schemes(output: &Output, params: &WeakfeaturesParams, shown: SchemeShown) -> Figure {
    let cf = &output.closed_forms;
    let names: Vec<String> = output.methods.iter().map(|m| m.label.clone()).collect();
    let heights: Vec<f64> = output.methods.iter().map(|m| m.excess_risk).collect();
    let colors: Vec<Rgba> = output.methods.iter().map(|m| colour(&m.key)).collect();
    let closed: Vec<f64> = output
        .methods
        .iter()
        .map(|m| match m.key.as_str() {
            "sequential" => cf.sequential,
            "iterative" => cf.iterative,
            "oracle_features" => 0.0,
            "observed_only" => cf.observed_only,
            _ => cf.mean_predictor,
        })
        .collect();
    let xs: Vec<f64> = (0..closed.len()).map(|i| i as f64).collect();
    let closed_name = if cf.exact_moments {
        "closed form (panel's own)"
    } else {
        "closed form, moments from the table (panel's own)"
    };
    let bars = Subplot::new("Excess risk by method")
        .y_label(risk_label(output))
        .legend(true)
        .with(Bars::categories("measured", names, heights).colors(colors))
        .with(
            Scatter::new(closed_name, xs, closed)
                .color(CLOSED)
                .marker(Marker::Diamond)
                .size_pt(7.0),
        );
    let rounds: Vec<f64> = output.rounds.iter().map(|r| r.round as f64).collect();
    let excess: Vec<f64> = output.rounds.iter().map(|r| r.excess_risk).collect();
    let feature: Vec<f64> = output.rounds.iter().map(|r| r.feature_mse).collect();
    let mut by_round = Subplot::new("Iterative scheme, round by round (0: sequential fit)")
        .x_label("Round r")
        .y_label(risk_label(output))
        .legend(true);
    if shown.iterative() {
        by_round = measured(by_round, "iterative, test", &rounds, &excess, ITERATIVE);
    }
    if shown.sequential()
        && let Some(seq) = output.method("sequential")
    {
        by_round = by_round.with(
            Line::new(
                "sequential",
                vec![0.0, rounds.len().saturating_sub(1) as f64],
                vec![seq.excess_risk; 2],
            )
            .color(SEQUENTIAL)
            .dash(Dash::Dashed),
        );
    }
    by_round = by_round
        .with(
            Line::new(
                "closed form, iterative (panel's own)",
                vec![0.0, rounds.len().saturating_sub(1) as f64],
                vec![cf.iterative; 2],
            )
            .color(CLOSED)
            .dash(Dash::Dotted),
        )
        .with(
            Line::new(
                "observed only",
                vec![0.0, rounds.len().saturating_sub(1) as f64],
                vec![
                    output
                        .method("observed_only")
                        .map_or(f64::NAN, |m| m.excess_risk);
                    2
                ],
            )
            .color(OBSERVED)
            .dash(Dash::Dashed),
        );
    let feature_plot = measured(
        Subplot::new("f's error by round")
            .x_label("Round r")
            .y_label("Feature MSE on rows missing x_w (feature SD²)")
            .legend(true),
        "f, test rows missing x_w",
        &rounds,
        &feature,
        ITERATIVE,
    );
    Figure::new(format!(
        "Sequential and iterative weak-features learning: {}",
        describe(params, output)
    ))
    .grid(1, 3)
    .size_in(16.0, 4.8)
    .subplot(bars)
    .subplot(by_round)
    .subplot(feature_plot)
}

/// Excess risk against the injected estimation MSE, the closed forms and the panel's bound.
pub(super) fn risk_vs_mse(
    output: &Output,
    params: &WeakfeaturesParams,
    shown: SchemeShown,
) -> Figure {
    let points = &output.risk_vs_mse;
    let eps: Vec<f64> = points.iter().map(|p| p.estimation_mse).collect();
    let pick = |f: fn(&MsePoint) -> f64| -> Vec<f64> { points.iter().map(f).collect() };
    let mut plot = Subplot::new(format!(
        "Oracle + noise estimator: {}",
        describe(params, output).replace("f: Oracle + noise, ", "")
    ))
    .x_label("Injected estimation MSE ε (feature SD²)")
    .y_label(risk_label(output))
    .legend(true);
    if shown.sequential() {
        plot = measured(
            plot,
            "sequential",
            &eps,
            &pick(|p| p.sequential),
            SEQUENTIAL,
        );
    }
    if shown.iterative() {
        plot = measured(plot, "iterative", &eps, &pick(|p| p.iterative), ITERATIVE);
    }
    let cf_suffix = if output.closed_forms.exact_moments {
        "panel's own"
    } else {
        "panel's own, moments from the table"
    };
    plot = plot
        .with(
            Line::new(
                format!("closed form, one linear h, MCAR ({cf_suffix})"),
                eps.clone(),
                pick(|p| p.closed_form),
            )
            .color(CLOSED)
            .dash(Dash::Dashed),
        )
        .with(
            Line::new(
                format!("closed form, best per row ({cf_suffix})"),
                eps.clone(),
                pick(|p| p.closed_form_per_row),
            )
            .color(CLOSED)
            .dash(Dash::Dotted),
        );
    if shown.sequential() {
        plot = plot.with(
            Line::new(
                "Lipschitz bound on sequential (panel's own, not the paper's)",
                eps.clone(),
                pick(|p| p.bound_sequential),
            )
            .color(BOUND)
            .dash(Dash::Dashed),
        );
    }
    let span = (
        eps.first().copied().unwrap_or(0.0),
        eps.last().copied().unwrap_or(1.0),
    );
    if let Some(obs) = output.method("observed_only") {
        plot = plot.with(
            Line::new(
                "observed only",
                vec![span.0, span.1],
                vec![obs.excess_risk; 2],
            )
            .color(OBSERVED)
            .dash(Dash::Dashed),
        );
    }
    if let Some(mean) = output.method("mean_predictor") {
        plot = plot.with(
            Line::new(
                "mean predictor",
                vec![span.0, span.1],
                vec![mean.excess_risk; 2],
            )
            .color(MEAN)
            .dash(Dash::Dashed),
        );
    }
    if params.estimator.kind == EstimatorKind::OracleNoise {
        plot = plot.vline(params.estimator.mse, "ε of the Schemes tab");
    }
    Figure::new("Downstream excess risk against the feature estimator's error")
        .size_in(9.0, 5.5)
        .subplot(plot)
}

/// Excess risk against the training size.
pub(super) fn risk_vs_n(
    output: &Output,
    params: &WeakfeaturesParams,
    shown: SchemeShown,
) -> Figure {
    let points = &output.risk_vs_n;
    let ns: Vec<f64> = points.iter().map(|p| p.n as f64).collect();
    let positive = output.exact_bayes;
    let floor = |v: f64| if positive { v.max(1e-6) } else { v };
    let pick =
        |f: fn(&SizePoint) -> f64| -> Vec<f64> { points.iter().map(|p| floor(f(p))).collect() };
    let mut plot = Subplot::new(format!("Learning curves: {}", describe(params, output)))
        .x_label("Training rows n")
        .y_label(risk_label(output))
        .x_scale(Scale::Log10)
        .legend(true);
    if positive {
        plot = plot.y_scale(Scale::Log10);
    }
    if shown.sequential() {
        plot = measured(plot, "sequential", &ns, &pick(|p| p.sequential), SEQUENTIAL);
    }
    if shown.iterative() {
        plot = measured(plot, "iterative", &ns, &pick(|p| p.iterative), ITERATIVE);
    }
    for (name, values, colour) in [
        ("oracle features", pick(|p| p.oracle_features), ORACLE),
        ("observed only", pick(|p| p.observed_only), OBSERVED),
        ("mean predictor", pick(|p| p.mean_predictor), MEAN),
    ] {
        plot = measured(plot, name, &ns, &values, colour);
    }
    let span = (
        ns.first().copied().unwrap_or(1.0),
        ns.last().copied().unwrap_or(10.0),
    );
    plot = plot.with(
        Line::new(
            "closed form, sequential, n → ∞ (panel's own)",
            vec![span.0, span.1],
            vec![floor(output.closed_forms.sequential); 2],
        )
        .color(CLOSED)
        .dash(Dash::Dashed),
    );
    Figure::new("Excess risk against the number of training rows")
        .size_in(9.0, 5.5)
        .subplot(plot)
}

/// The CSV tables: methods, rounds and both curves.
pub(super) fn tables(output: &Output) -> Vec<DataTable> {
    let cf = &output.closed_forms;
    let methods = output
        .methods
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let closed = match m.key.as_str() {
                "sequential" => cf.sequential,
                "iterative" => cf.iterative,
                "oracle_features" => 0.0,
                "observed_only" => cf.observed_only,
                _ => cf.mean_predictor,
            };
            vec![i as f64, m.test_mse, m.excess_risk, closed]
        })
        .collect();
    let rounds = output
        .rounds
        .iter()
        .map(|r| {
            vec![
                r.round as f64,
                r.train_mse,
                r.test_mse,
                r.excess_risk,
                r.feature_mse,
            ]
        })
        .collect();
    let mse = output
        .risk_vs_mse
        .iter()
        .map(|p| {
            vec![
                p.estimation_mse,
                p.sequential,
                p.iterative,
                p.closed_form,
                p.closed_form_per_row,
                p.bound_sequential,
                p.lipschitz,
            ]
        })
        .collect();
    let sizes = output
        .risk_vs_n
        .iter()
        .map(|p| {
            vec![
                p.n as f64,
                p.sequential,
                p.iterative,
                p.oracle_features,
                p.observed_only,
                p.mean_predictor,
            ]
        })
        .collect();
    vec![
        DataTable::new(
            "weakfeatures-methods",
            &["method", "test_mse", "excess_risk", "closed_form"],
            methods,
        ),
        DataTable::new(
            "weakfeatures-rounds",
            &[
                "round",
                "train_mse",
                "test_mse",
                "excess_risk",
                "feature_mse",
            ],
            rounds,
        ),
        DataTable::new(
            "weakfeatures-risk-vs-estimation-mse",
            &[
                "estimation_mse",
                "sequential",
                "iterative",
                "closed_form",
                "closed_form_per_row",
                "bound_sequential",
                "lipschitz",
            ],
            mse,
        ),
        DataTable::new(
            "weakfeatures-risk-vs-n",
            &[
                "n",
                "sequential",
                "iterative",
                "oracle_features",
                "observed_only",
                "mean_predictor",
            ],
            sizes,
        ),
    ]
}
