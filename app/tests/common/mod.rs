//! The one place that builds test harnesses and snapshot options for the window.

use std::time::{Duration, Instant};

use benchtop::session::Session;
use benchtop::shell::BenchtopApp;
use egui_kittest::kittest::Queryable as _;
use egui_kittest::{Harness, SnapshotOptions};

/// Window size used by every UI test.
pub const WINDOW: egui::Vec2 = egui::vec2(1400.0, 900.0);

/// A harness driving the whole window over `session`, without rendering.
pub fn harness(session: Session) -> Harness<'static, BenchtopApp> {
    Harness::builder()
        .with_size(WINDOW)
        .with_max_steps(50_000)
        .with_context_setup(benchtop_kit::figure::install_figure_font)
        .build_ui_state(|ui, app: &mut BenchtopApp| app.show(ui), test_app(session))
}

/// A harness that renders with wgpu (for image snapshots), or `None` (with a note) when no
/// adapter exists and `BENCHTOP_REQUIRE_GPU` is unset.
pub fn rendering_harness(session: Session) -> Option<Harness<'static, BenchtopApp>> {
    benchtop_kit::compute::gpu::context_or_skip("rendering harness")?;
    Some(
        Harness::builder()
            .with_size(WINDOW)
            .with_max_steps(50_000)
            .with_context_setup(benchtop_kit::figure::install_figure_font)
            .wgpu()
            .build_ui_state(|ui, app: &mut BenchtopApp| app.show(ui), test_app(session)),
    )
}

/// The window over `session` without computing on open: tests that open example projects
/// look at other things and must not start their full-size runs (a test that looks at the
/// results sets `compute_on_open` back).
fn test_app(session: Session) -> BenchtopApp {
    let mut app = BenchtopApp::new(session);
    app.compute_on_open = false;
    app
}

/// The snapshot tolerance every image snapshot uses: lavapipe and llvmpipe differ by a few
/// anti-aliased pixels.
pub fn snapshot_options() -> SnapshotOptions {
    SnapshotOptions::new().threshold(1.0).max_failed_pixels(40)
}

/// Opens a panel named `name` from the catalog as a user does: scrolls its "Open" button into
/// view (the catalog grows past the window) and clicks it.
pub fn open_panel(harness: &mut Harness<'static, BenchtopApp>, name: &str) {
    let label = format!("Open {name}");
    harness.get_by_label(&label).scroll_to_me();
    // Scrolling is animated over a few frames.
    for _ in 0..20 {
        harness.step();
    }
    harness.get_by_label(&label).click();
    harness.step();
}

/// Steps the window until no job runs (panics after `limit`).
pub fn run_until_idle(harness: &mut Harness<'_, BenchtopApp>, limit: Duration) {
    let started = Instant::now();
    loop {
        harness.step();
        if !harness.state().session.is_busy() {
            harness.step();
            return;
        }
        assert!(
            started.elapsed() < limit,
            "jobs still running after {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The repository's root folder.
pub fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `benchtop` binary, run in the repository root.
pub fn benchtop() -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_benchtop"));
    command.current_dir(repo_root());
    command
}

/// Runs `benchtop ARGS`, which must succeed and print exactly one JSON value (one line, or
/// pretty-printed when `one_line` is false); returns it.
pub fn json_output(args: &[&str], one_line: bool) -> serde_json::Value {
    let output = benchtop().args(args).output().expect("benchtop runs");
    assert!(
        output.status.success(),
        "benchtop {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("utf-8");
    if one_line {
        assert_eq!(stdout.trim().lines().count(), 1, "one line: {stdout}");
    }
    serde_json::from_str(&stdout).expect("JSON")
}

/// The rows of a CSV file as maps from column name to text.
pub fn csv_rows(path: &std::path::Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).expect("csv opens");
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_owned)
        .collect();
    reader
        .records()
        .map(|row| {
            header
                .iter()
                .cloned()
                .zip(row.expect("row").iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

/// A session opened from project `text` (named `name` in errors).
pub fn session_from(text: &str, name: impl AsRef<std::path::Path>) -> Session {
    let doc =
        benchtop::catalog::ProjectDoc::parse(text, name.as_ref()).expect("test project parses");
    Session::from_doc(doc, None).expect("test project opens")
}

/// The key results of the first panel of `session`.
pub fn first_summary(session: &Session) -> serde_json::Value {
    session.panels.values().next().expect("panel").summary()
}

/// Saves the window's project to `path` and reopens it, checking that the document and every
/// panel's results come back unchanged; returns the reopened session.
pub fn save_and_reopen(
    harness: &mut Harness<'static, BenchtopApp>,
    path: &std::path::Path,
) -> Session {
    assert!(
        harness.state_mut().save_to(path),
        "{:?}",
        harness.state().notices
    );
    let session = &harness.state().session;
    let reopened = Session::open(path).expect("the saved project reopens");
    assert_eq!(
        reopened.to_doc(None).expect("document"),
        session.to_doc(None).expect("document"),
        "reopening restores every panel"
    );
    for (id, panel) in &session.panels {
        assert_eq!(
            reopened.panels[id].summary(),
            panel.summary(),
            "results survive save and reopen"
        );
    }
    reopened
}

/// A session with one Ising panel whose Monte Carlo is small (fast in debug builds), to drive
/// the shell with.
pub fn small_ising_session() -> Session {
    let text = r"(
        format_version: 1,
        panels: [(id: (1), state: Ising((params: (
            mc: (size: 32, thermalization_sweeps: 100, measurement_sweeps: 400),
            duality: (beta: 0.3, max_steps: 5, samples_per_step: 40),
        ))))],
    )";
    session_from(text, "small.ron")
}

/// A session named `name` with one FINDR panel on a tiny synthetic set (40 trials of 12
/// neurons) and a tiny model, with `train` as its training settings and `extra` (e.g. a
/// `selection: (…)`) added to its parameters.
pub fn small_findr_session(train: &str, extra: &str, name: &str) -> Session {
    let text = format!(
        r"(
        format_version: 1,
        panels: [(id: (1), state: Findr((params: (
            data: (synthetic: (n_trials: 40, n_neurons: 12, min_bins: 20, max_bins: 30)),
            fit: (
                baseline: (within_trial_bases: [4], ridges: [1e-2]),
                model: (flow_width: 8, encoder_hidden: 8),
                train: {train},
                analysis: (grid_size: 7, fixed_points: (starts_per_axis: 4)),
            ),
            {extra}
        ))))],
    )"
    );
    session_from(&text, name)
}

/// The folder holding the arrays of the saved project at `path` (the sidecar folder it names).
pub fn sidecar_folder(path: &std::path::Path) -> std::path::PathBuf {
    benchtop_kit::project::saved_sidecar(path)
        .expect("the project names its sidecar")
        .dir()
        .to_path_buf()
}

/// Clicks the widget labelled `label` and steps twice: the click counts in the first frame, what
/// it changed shows in the second.
pub fn click(harness: &mut Harness<'static, BenchtopApp>, label: &str) {
    harness.get_by_label(label).click();
    harness.step();
    harness.step();
}

/// Replaces the text of the field labelled `label` with `text` (empty: clears it) and presses
/// Enter.
pub fn type_into(harness: &mut Harness<'static, BenchtopApp>, label: &str, text: &str) {
    harness.get_by_label(label).click();
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    if text.is_empty() {
        harness.key_press(egui::Key::Backspace);
    } else {
        harness.get_by_label(label).type_text(text);
    }
    harness.step();
    harness.key_press(egui::Key::Enter);
    harness.step();
    harness.step();
}
