//! What a run reports: the results table with the paper's claims judged on the run (shown in
//! the controls beside the figures) and the panel's summary.json.

use benchtop_assimilation::claims::{self, Claim};
use benchtop_assimilation::{AssimParams, AssimResult, SystemKind};

/// The methods summary.json reports, in order.
pub const REPORTED: [&str; 6] = [
    "Tensor-Var",
    "4D-Var",
    "3D-Var",
    "EnKF",
    "Climatology",
    "No dynamics",
];

/// The system's name in summary.json.
fn summary_system(system: SystemKind) -> &'static str {
    match system {
        SystemKind::Lorenz96 => "lorenz96",
        SystemKind::KuramotoSivashinsky => "ks",
    }
}

/// The paper's claims judged on `result` at `windows` windows.
pub fn judged(result: &AssimResult, windows: usize) -> Vec<Claim> {
    [
        claims::speed_claim(result, windows),
        claims::accuracy_claim(result),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// summary.json of `result` run with `run`.
pub fn summary(result: &AssimResult, run: &AssimParams) -> serde_json::Value {
    let windows = run.windows;
    let methods: serde_json::Map<String, serde_json::Value> = REPORTED
        .iter()
        .filter_map(|name| result.method(name))
        .map(|m| {
            (
                m.name.clone(),
                serde_json::json!({
                    "rmse_mean": m.rmse_mean,
                    "rmse_final": m.rmse_final,
                    "ms_per_window": m.ms_per_window,
                    "training_seconds": m.training_seconds,
                    "total_seconds": m.total_seconds(windows),
                }),
            )
        })
        .collect();
    let speed = claims::speed(result, windows);
    let t = &result.tuning;
    serde_json::json!({
        "methods": methods,
        "system": summary_system(run.system),
        "dim": run.dim,
        "obs_fraction": run.obs_fraction,
        "window": run.window,
        "windows": windows,
        "speedup": speed.map(|s| s.per_window),
        "speedup_total": speed.map(|s| s.total),
        "break_even_windows": speed.map(|s| s.break_even_windows),
        "tuning": {
            "windows": t.windows,
            "fourdvar_background_scale": t.fourdvar_scale,
            "threedvar_background_scale": t.threedvar_scale,
            "enkf_localisation": t.enkf_localisation,
            "enkf_inflation": t.enkf_inflation,
            "enkf_members": run.enkf.members,
        },
        "claims": judged(result, windows)
            .iter()
            .map(|c| serde_json::json!({
                "claim": c.claim,
                "measured": c.measured,
                "verdict": c.verdict.text(),
            }))
            .collect::<Vec<_>>(),
    })
}

/// Seconds as text: "–" for none.
fn seconds(s: f64) -> String {
    if s > 0.0 {
        format!("{s:.2}")
    } else {
        "–".to_owned()
    }
}

/// The results table, the time and tuning lines, and the claims judged on this run.
pub fn results(ui: &mut egui::Ui, result: &AssimResult, run: &AssimParams) {
    let windows = run.windows;
    egui::Grid::new("assimilation-table")
        .striped(true)
        .show(ui, |ui| {
            ui.strong("Method");
            ui.strong("nRMSE mean");
            ui.strong("nRMSE final");
            ui.strong("ms / window");
            ui.strong("offline s");
            ui.strong(format!("s for {windows} windows"));
            ui.end_row();
            for m in &result.methods {
                ui.label(&m.name);
                ui.label(format!("{:.4}", m.rmse_mean));
                ui.label(format!("{:.4}", m.rmse_final));
                ui.label(if m.ms_per_window > 0.0 {
                    format!("{:.3}", m.ms_per_window)
                } else {
                    "–".to_owned()
                });
                ui.label(seconds(m.training_seconds));
                ui.label(seconds(m.total_seconds(windows)));
                ui.end_row();
            }
        });
    if let Some(s) = claims::speed(result, windows) {
        let tv = result
            .method("Tensor-Var")
            .map_or(0.0, |m| m.training_seconds);
        ui.label(format!(
            "Tensor-Var is {:.1}× faster per window than 4D-Var; its training ({tv:.2} s) \
             is paid back after {} windows; {:.2}× in total at {windows} windows.",
            s.per_window,
            if s.break_even_windows.is_finite() {
                format!("{:.0}", s.break_even_windows.ceil())
            } else {
                "no number of".to_owned()
            },
            s.total
        ));
    }
    let t = &result.tuning;
    ui.label(if t.windows > 0 {
        format!(
            "Baselines tuned on {} training windows: 4D-Var B = {} × climatology, 3D-Var {} ×, \
             EnKF c = {:.1} grid points, λ = {} ({} members).",
            t.windows,
            t.fourdvar_scale,
            t.threedvar_scale,
            t.enkf_localisation,
            t.enkf_inflation,
            run.enkf.members
        )
    } else {
        format!(
            "Baselines as set (not tuned): B = {} × climatology, EnKF c = {:.1}, λ = {} ({} \
             members).",
            t.fourdvar_scale, t.enkf_localisation, t.enkf_inflation, run.enkf.members
        )
    });
    ui.label(format!(
        "Observed components: {} of {}.",
        result.observed.len(),
        result.truth.first().map_or(0, Vec::len)
    ));
    ui.separator();
    ui.strong("The paper's claims, this run");
    for c in judged(result, windows) {
        ui.label(format!(
            "{}: {}. ({})",
            c.claim,
            c.verdict.text(),
            c.measured
        ));
    }
    ui.small(
        "One seed. The verdicts over seeds (scripts/claims.sh assimilation) are on the panel's \
         docs page.",
    );
}
