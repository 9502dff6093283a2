//! The first hour in the window: Undo acts on the panel the user worked in last, an idle window
//! does not redraw, only the user's changes (and results that took long to compute) are
//! unsaved changes, the recovery file goes once the work is saved or given up, a pane reopens
//! showing its sweeps, MolStitch reads its saved scores instead of scoring again, and an export
//! says what it wrote and where.

use std::path::{Path, PathBuf};
use std::time::Duration;

use benchtop::commands::Command;
use benchtop::session::Session;
use benchtop::shell::{BenchtopApp, ExportDialog, PendingAction, Recovery};
use benchtop_kit::panel::PaneView;
use benchtop_kit::project::PaneId;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;

use crate::common;
use crate::common::click;

mod interaction;
mod open_with_results;
mod panel_figures;

type Window = Harness<'static, BenchtopApp>;

/// An Ising panel (first tab) and a weather spectra panel, both small enough for debug builds.
fn ising_and_spectra() -> Session {
    let text = r"(
        format_version: 1,
        panels: [
            (id: (1), state: Ising((params: (
                mc: (size: 32, thermalization_sweeps: 100, measurement_sweeps: 400),
                duality: (beta: 0.3, max_steps: 5, samples_per_step: 40),
            )))),
            (id: (2), state: Spectra((params: (analytic: (lmax: 47, steps: 40))))),
        ],
    )";
    common::session_from(text, "two.ron")
}

/// A window without the catalog (its entries repeat the panels' names).
fn window(session: Session) -> Window {
    let mut harness = common::harness(session);
    harness.state_mut().prefs.show_catalog = false;
    harness.step();
    harness
}

/// The value of declared parameter `key` of pane `pane`.
fn value(harness: &Window, pane: u64, key: &str) -> f64 {
    harness.state().session.panels[&PaneId(pane)]
        .declared_params()
        .into_iter()
        .find(|p| p.key == key)
        .unwrap_or_else(|| panic!("{key} is declared"))
        .value
}

/// Drags the slider labelled `label` from near its left end to its middle, as a user does
/// (one press, moves, one release).
fn drag_slider(harness: &mut Window, label: &str) {
    let rail = harness
        .get_by_role_and_label(egui::accesskit::Role::Slider, label)
        .rect();
    let from = egui::pos2(rail.left() + 0.1 * rail.width(), rail.center().y);
    let to = egui::pos2(rail.left() + 0.6 * rail.width(), rail.center().y);
    harness.hover_at(from);
    harness.step();
    harness.drag_at(from);
    harness.step();
    for step in 1..=5 {
        harness.hover_at(from + (to - from) * (step as f32 / 5.0));
        harness.step();
    }
    harness.drop_at(to);
    harness.step();
    harness.step();
}

/// Steps until no job runs, stopping every job first (the examples are not computed here).
fn stop_and_settle(harness: &mut Window) {
    harness.state().jobs.cancel_all();
    common::run_until_idle(harness, Duration::from_secs(120));
}

#[test]
fn undo_acts_on_the_panel_edited_or_focused_last_and_says_which() {
    // Side by side, so that both panels can be edited without switching tabs.
    let mut session = ising_and_spectra();
    session.layout = egui_tiles::Tree::new_horizontal(
        egui::Id::unique("side by side"),
        vec![PaneId(1), PaneId(2)],
    );
    let mut harness = window(session);
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    assert!(
        !harness.state().is_dirty(),
        "drawing gives each pane its tab: no change"
    );
    let (beta, k_c) = (
        value(&harness, 1, "mc.beta"),
        value(&harness, 2, "analytic.k_c"),
    );
    drag_slider(&mut harness, "Coupling β");
    let edited_beta = value(&harness, 1, "mc.beta");
    assert_ne!(edited_beta, beta, "the drag set β");
    drag_slider(&mut harness, "Decorrelation k_c");
    assert_ne!(value(&harness, 2, "analytic.k_c"), k_c, "the drag set k_c");
    stop_and_settle(&mut harness);

    // The Edit menu names the step and the panel edited last.
    click(&mut harness, "Edit");
    harness.get_by_label_contains("k_c change in Weather spectra (AMSE)");
    harness.key_press(egui::Key::Escape);
    harness.step();

    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.step();
    assert_eq!(value(&harness, 2, "analytic.k_c"), k_c, "k_c was undone");
    assert_eq!(
        value(&harness, 1, "mc.beta"),
        edited_beta,
        "the other panel is untouched"
    );
    let toast = harness
        .state()
        .toast()
        .expect("a message says what was undone");
    assert!(
        toast.starts_with("Undid") && toast.contains("Weather spectra"),
        "{toast}"
    );
    harness.get_by_label_contains("Undid");

    // Choosing the Ising tab focuses it: the next undo is there.
    click(&mut harness, "Ising duality explorer");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.step();
    assert_eq!(value(&harness, 1, "mc.beta"), beta, "β was undone");
    assert_eq!(value(&harness, 2, "analytic.k_c"), k_c);
    stop_and_settle(&mut harness);

    // With tabs, the hidden panel is never the one undone.
    let mut harness = window(ising_and_spectra());
    drag_slider(&mut harness, "Coupling β");
    let edited_beta = value(&harness, 1, "mc.beta");
    click(&mut harness, "Weather spectra (AMSE)");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.step();
    assert_eq!(
        value(&harness, 1, "mc.beta"),
        edited_beta,
        "hidden: untouched"
    );
    assert!(
        harness
            .state()
            .toast()
            .is_some_and(|t| t.starts_with("Nothing to undo in Weather spectra")),
        "{:?}",
        harness.state().toast()
    );
    stop_and_settle(&mut harness);
}

/// Whether the last frame asked for another one (or sent the window a command).
fn wants_a_frame(harness: &Window) -> bool {
    let output = &harness.output().viewport_output[&egui::ViewportId::ROOT];
    output.repaint_delay != Duration::MAX || !output.commands.is_empty()
}

#[test]
fn an_idle_window_does_not_redraw() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("small.ron");
    let mut harness = window(common::small_ising_session());
    assert!(harness.state_mut().save_to(&path));
    harness.state_mut().open_path(&path);
    harness.step();
    let titled = harness.output().viewport_output[&egui::ViewportId::ROOT]
        .commands
        .iter()
        .any(|c| matches!(c, egui::ViewportCommand::Title(t) if t.contains("small.ron")));
    assert!(titled, "the window title names the project");
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    let mut settled = false;
    for _ in 0..20 {
        harness.step();
        if !wants_a_frame(&harness) {
            settled = true;
            break;
        }
    }
    assert!(
        settled,
        "the window keeps redrawing: {:?}",
        harness.ctx.repaint_causes()
    );
    for _ in 0..3 {
        harness.step();
        assert!(
            !wants_a_frame(&harness),
            "an idle frame asked for another: {:?}",
            harness.ctx.repaint_causes()
        );
    }
    assert!(!harness.state().is_dirty());
}

/// Clicks every dock tab, every panel's own tabs and its Sweeps and Panel views.
fn look_at_everything(harness: &mut Window) {
    let panes: Vec<(PaneId, String, Vec<&'static str>)> = harness
        .state()
        .session
        .panels
        .iter()
        .map(|(id, p)| (*id, p.title(), p.tab_labels()))
        .collect();
    for (k, (_, title, tabs)) in panes.iter().enumerate() {
        if panes.len() > 1 {
            // Panes of one kind share a title: the k-th of them is this pane's tab.
            let same_before = panes[..k].iter().filter(|(_, t, _)| t == title).count();
            harness
                .get_all_by_label(title)
                .nth(same_before)
                .unwrap_or_else(|| panic!("the tab of pane {k}, {title}"))
                .click();
            harness.step();
            harness.step();
        }
        for tab in tabs {
            harness
                .get_all_by_label(tab)
                .next()
                .unwrap_or_else(|| panic!("{title}: tab {tab}"))
                .click();
            harness.step();
            harness.step();
            harness.state().jobs.cancel_all();
        }
        harness.get_by_label_contains("Sweeps (").click();
        harness.step();
        harness.step();
        harness
            .get_all_by_label("Panel")
            .next()
            .expect("Panel")
            .click();
        harness.step();
        harness.step();
        harness.state().jobs.cancel_all();
    }
}

#[test]
fn opening_projects_and_switching_tabs_is_no_change_but_an_edit_is() {
    let projects = common::repo_root().join("projects");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&projects)
        .expect("projects folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .collect();
    paths.sort();
    assert!(paths.len() > 5, "{paths:?}");
    let mut harness = window(Session::new());
    for path in &paths {
        harness.state_mut().open_path(path);
        assert!(
            harness.state().notices.is_empty(),
            "{path:?}: {:?}",
            harness.state().notices
        );
        for _ in 0..5 {
            harness.step();
        }
        look_at_everything(&mut harness);
        stop_and_settle(&mut harness);
        assert!(
            !harness.state().is_dirty(),
            "{}: looking is no change",
            path.display()
        );

        // Changing a parameter is a change; changing it back is none.
        let (id, param) = {
            let (id, panel) = harness.state().session.panels.iter().next().expect("panel");
            let param = panel
                .declared_params()
                .into_iter()
                .find(|p| p.max > p.min && p.max < f64::MAX)
                .expect("a bounded parameter");
            (*id, param)
        };
        let other = if param.value == param.max {
            param.min
        } else {
            param.max
        };
        let session = &mut harness.state_mut().session;
        session.set_param(id, param.key, other).expect("in range");
        harness.step();
        stop_and_settle(&mut harness);
        assert!(
            harness.state().is_dirty(),
            "{}: {}",
            path.display(),
            param.key
        );
        let session = &mut harness.state_mut().session;
        session.set_param(id, param.key, param.value).expect("back");
        harness.step();
        stop_and_settle(&mut harness);
        assert!(
            !harness.state().is_dirty(),
            "{}: changed back",
            path.display()
        );
    }
}

#[test]
fn a_run_the_user_starts_is_a_change_and_a_stopped_one_says_cancelled() {
    let session =
        common::small_findr_session("(max_epochs: 5000, batch_trials: 10)", "", "findr.ron");
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut harness = window(session);
    click(&mut harness, "Generate synthetic data");
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    assert!(harness.state().is_dirty(), "new data is a new result");
    assert!(harness.state_mut().save_to(&dir.path().join("findr.ron")));
    harness.step();
    assert!(!harness.state().is_dirty());

    click(&mut harness, "Fit");
    click(&mut harness, "Train");
    click(&mut harness, "Stop training");
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    harness.get_by_label(benchtop_kit::widgets::CANCELLED_NOTE);
    assert!(
        !harness.state().is_dirty(),
        "a stopped run delivers nothing"
    );
}

#[test]
fn the_recovery_file_goes_on_save_discard_and_a_clean_quit() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let file = dir.path().join("recovery.ron");
    let mut harness = window(common::small_ising_session());
    harness.state_mut().recovery = Recovery::at(&file, Duration::ZERO);
    let ctx = harness.ctx.clone();
    let change = |harness: &mut Window, beta: f64| {
        let session = &mut harness.state_mut().session;
        session.set_param(PaneId(1), "mc.beta", beta).expect("β");
        harness.step();
        harness.step();
    };

    change(&mut harness, 0.35);
    assert!(file.exists(), "unsaved work is autosaved");
    assert!(harness.state_mut().save_to(&dir.path().join("p.ron")));
    assert!(!file.exists(), "saving removes it");

    change(&mut harness, 0.36);
    assert!(file.exists());
    harness.state_mut().run_command(&ctx, Command::Quit);
    harness.step();
    harness.step();
    click(&mut harness, "Discard changes");
    assert!(!file.exists(), "discarding removes it");

    // Changed and changed back: quitting leaves nothing to recover.
    let mut harness = window(common::small_ising_session());
    harness.state_mut().recovery = Recovery::at(&file, Duration::ZERO);
    let beta = value(&harness, 1, "mc.beta");
    change(&mut harness, 0.35);
    assert!(file.exists());
    change(&mut harness, beta);
    assert!(!harness.state().is_dirty());
    harness.state_mut().run_command(&ctx, Command::Quit);
    harness.step();
    assert!(!file.exists(), "a clean quit removes it");
    stop_and_settle(&mut harness);

    // A file an earlier session left is moved aside (never overwritten by this session's
    // autosaves) and offered: opened, it is unsaved work; discarded, it is gone.
    std::fs::write(
        &file,
        common::small_ising_session().to_text().expect("text"),
    )
    .expect("write");
    let mut harness = window(Session::new());
    harness.state_mut().recovery = Recovery::at(&file, Duration::ZERO);
    harness.state_mut().offer_previous_recovery();
    harness.step();
    assert!(!file.exists(), "moved aside");
    let kept = harness.state().notices[0]
        .recovered
        .clone()
        .expect("offered");
    assert!(kept.exists());
    click(&mut harness, "Open it");
    assert_eq!(harness.state().session.panels.len(), 1);
    assert!(harness.state().is_dirty(), "recovered work is unsaved");
    harness.state_mut().perform(&ctx, PendingAction::New);
    harness.step();
    assert!(kept.exists(), "opening another project keeps it offered");
    harness.state_mut().open_recovered(&kept);
    harness.state_mut().request(&ctx, PendingAction::New);
    harness.step();
    harness.step();
    click(&mut harness, "Discard changes");
    assert!(!kept.exists(), "discarded with the work");
    stop_and_settle(&mut harness);
}

#[test]
fn a_pane_reopens_showing_its_sweeps() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("sweeps.ron");
    let mut harness = window(ising_and_spectra());
    click(&mut harness, "Sweeps (0)");
    assert!(!harness.state().is_dirty(), "a view is no change");
    stop_and_settle(&mut harness);
    assert!(harness.state_mut().save_to(&path));
    let reopened = Session::open(&path).expect("reopens");
    let views: Vec<PaneView> = reopened.panels.values().map(|p| p.pane_view()).collect();
    assert_eq!(views, [PaneView::Sweeps, PaneView::Panel]);
    let mut harness = window(reopened);
    harness.get_by_label("Add sweep");
    stop_and_settle(&mut harness);
}

/// A MolStitch project on a small molecule file in `dir`.
fn molstitch_project(dir: &Path) -> Session {
    let file = dir.join("mols.smi");
    std::fs::write(
        &file,
        "O=C(Nc1nccs1)c1cc(F)c(F)cc1Cl\nClc1ccc(Cn2nnc(N3CCCCC3)n2)cc1\nCCN(CC)C(=O)c1ccccc1\n",
    )
    .expect("write molecules");
    let text = r#"(
        format_version: 1,
        panels: [(id: (1), state: MolStitch((params: (data: (file: (path: "mols.smi")))))) ],
    )"#;
    let doc = benchtop::catalog::ProjectDoc::parse(text, Path::new("m.ron")).expect("parses");
    Session::from_doc(doc, Some(&dir.join("m.ron"))).expect("opens")
}

/// Whether the molecule set is being scored.
fn scoring(harness: &Window) -> bool {
    harness
        .state()
        .jobs
        .running()
        .iter()
        .any(|job| job.name.contains("score molecules"))
}

#[test]
fn molstitch_reads_its_saved_scores_and_rescores_a_changed_file() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("m.ron");
    let mut harness = window(molstitch_project(dir.path()));
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    let scored = common::first_summary(&harness.state().session);
    assert_eq!(scored["molecules"], 3, "{scored}");
    assert!(harness.state_mut().save_to(&path));
    let text = std::fs::read_to_string(&path).expect("saved");
    assert!(text.contains("molstitch-scores"), "{text}");

    // Reopened: the scores are read, not computed.
    let mut harness = window(Session::open(&path).expect("reopens"));
    assert!(!scoring(&harness), "no scoring job");
    let summary = common::first_summary(&harness.state().session);
    assert_eq!(summary["molecules"], 3, "{summary}");
    assert_eq!(summary["pareto_front_size"], scored["pareto_front_size"]);
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    assert!(!harness.state().is_dirty());

    // Another file under the same name: scored again.
    std::fs::write(
        dir.path().join("mols.smi"),
        "CCO\nCCN\nc1ccccc1O\nCC(=O)O\n",
    )
    .expect("rewrite");
    let mut harness = window(Session::open(&path).expect("reopens"));
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    let rescored = common::first_summary(&harness.state().session);
    assert_eq!(rescored["molecules"], 4, "{rescored}");
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// The process's umask (Linux), from `/proc/self/status`.
fn umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
        .unwrap_or(0o022)
}

#[test]
fn an_export_counts_the_files_it_wrote_and_names_its_folder() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().expect("temporary folder");
    let out = dir.path().join("export");
    let mut harness = window(common::small_ising_session());
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    let ctx = harness.ctx.clone();
    let dialog = ExportDialog {
        pdf: false,
        dpi: 72,
        ..ExportDialog::default()
    };
    harness.state_mut().export_to(&ctx, out.clone(), &dialog);
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    for _ in 0..200 {
        if !harness.state().notices.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        harness.step();
    }
    let message = &harness
        .state()
        .notices
        .last()
        .expect("the export reports")
        .text;
    let written = files_under(&out);
    assert!(written.len() > 3, "{written:?}");
    assert!(
        message.starts_with(&format!(
            "Exported {} files to {}",
            written.len(),
            out.display()
        )),
        "{message} ({} files)",
        written.len()
    );
    let wanted = 0o666 & !umask();
    for file in &written {
        let mode = std::fs::metadata(file)
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, wanted, "{}: {mode:o}", file.display());
    }
}
