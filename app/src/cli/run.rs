//! `benchtop run FILE --out DIR`: compute a project without a window and export everything.

use std::path::Path;
use std::time::Duration;

use anyhow::Context as _;
use benchtop_kit::compute::{CancelToken, Progress};
use indicatif::{ProgressBar, ProgressStyle};

use benchtop_kit::figure::ExportFormat;
use benchtop_kit::project::PaneId;

use crate::session::Session;

/// Parses the `--format` list.
pub fn parse_formats(names: &[String]) -> anyhow::Result<Vec<ExportFormat>> {
    names
        .iter()
        .map(|name| match name.trim().to_lowercase().as_str() {
            "svg" => Ok(ExportFormat::Svg),
            "png" => Ok(ExportFormat::Png),
            "pdf" => Ok(ExportFormat::Pdf),
            other => anyhow::bail!("unknown figure format `{other}` (use svg, png or pdf)"),
        })
        .collect()
}

/// Runs `work` on this thread while a progress bar on stderr follows `progress`.
fn with_progress_bar<T>(label: &str, work: impl FnOnce(&Progress) -> T) -> T {
    let progress = Progress::new();
    let bar = ProgressBar::new(1000);
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix:.bold} [{bar:30}] {percent:>3}% {elapsed_precise} eta {eta} {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_prefix(label.to_owned());
    let done = std::sync::atomic::AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                bar.set_position((progress.fraction() * 1000.0) as u64);
                bar.set_message(progress.message());
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let result = work(&progress);
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        result
    });
    bar.set_position(1000);
    bar.finish();
    result
}

/// How `benchtop run` computes and exports.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Figure formats (`svg`, `png`, `pdf`).
    pub formats: Vec<String>,
    /// Resolution of PNG figures.
    pub dpi: u32,
    /// Whether to save the results back into the project file.
    pub save: bool,
    /// A preset of the project to apply first.
    pub preset: Option<String>,
    /// `PANE:KEY=VALUE` settings to apply first (after the preset).
    pub set: Vec<String>,
    /// The folder the panels read relative data paths from, when not the project file's
    /// (a cluster job runs a frozen copy of the project kept in its job folder).
    pub project_dir: Option<std::path::PathBuf>,
    /// Whether to check every figure's layout ([`benchtop_kit::figure::check_figure`]) and
    /// fail listing the problems.
    pub check_figures: bool,
}

/// Parses `PANE:KEY=VALUE`.
pub fn parse_setting(text: &str) -> anyhow::Result<(PaneId, String, f64)> {
    let usage = || format!("--set {text}: expected PANE:KEY=VALUE, e.g. 1:mc.beta=0.3");
    let (pane, rest) = text.split_once(':').with_context(usage)?;
    let (key, value) = rest.split_once('=').with_context(usage)?;
    let pane: u64 = pane.trim().parse().with_context(usage)?;
    let value: f64 = value.trim().parse().with_context(usage)?;
    Ok((PaneId(pane), key.trim().to_owned(), value))
}

/// Loads, applies the preset and settings, computes, exports; returns the number of files
/// written.
pub fn run(file: &Path, out: &Path, options: &RunOptions) -> anyhow::Result<usize> {
    let formats = parse_formats(&options.formats)?;
    let dpi = options.dpi;
    if !(36..=2400).contains(&dpi) {
        anyhow::bail!("--dpi {dpi} is outside 36..=2400");
    }
    let settings = options
        .set
        .iter()
        .map(|text| parse_setting(text))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut session = Session::open(file)?;
    if let Some(dir) = &options.project_dir {
        for panel in session.panels.values_mut() {
            panel.set_project_dir(Some(dir));
        }
    }
    for warning in session.restore_warnings() {
        benchtop_kit::note!(
            "warning: {}: {warning}; the saved results stay in the file unless this run \
             recomputes them",
            file.display()
        );
    }
    if let Some(preset) = &options.preset {
        session
            .apply_preset(preset)
            .with_context(|| format!("{}", file.display()))?;
    }
    for (pane, key, value) in settings {
        session
            .set_param(pane, &key, value)
            .with_context(|| format!("{}: --set", file.display()))?;
    }
    let written = compute_and_export(&mut session, file, out, &formats, dpi)?;
    if options.check_figures {
        check_figures(&session)?;
    }
    if options.save {
        session
            .save_as(file)
            .with_context(|| format!("saving results into {}", file.display()))?;
    }
    Ok(written)
}

/// Computes and exports the embedded tour project into `out` (used when there is no display).
pub fn run_tour(out: &Path) -> anyhow::Result<usize> {
    let name = Path::new("tour.ron");
    let doc = crate::catalog::ProjectDoc::parse(crate::shell::TOUR_PROJECT, name)?;
    let mut session = Session::from_doc(doc, None)?;
    compute_and_export(
        &mut session,
        name,
        out,
        &[ExportFormat::Svg, ExportFormat::Png, ExportFormat::Pdf],
        150,
    )
}

/// Runs the figure check on every panel and sweep figure of the session; an error lists every
/// problem by figure.
fn check_figures(session: &Session) -> anyhow::Result<()> {
    let bundle = session.export_bundle(None);
    let named = bundle
        .panels
        .iter()
        .flat_map(|panel| {
            panel
                .figures
                .iter()
                .map(move |f| (format!("{}/{}", panel.folder, f.name), &f.figure))
        })
        .chain(
            bundle
                .sweeps
                .iter()
                .map(|(doc, figure)| (format!("sweep {}", doc.name), figure)),
        );
    let mut problems = Vec::new();
    let mut on_screen = Vec::new();
    let mut checked = 0usize;
    for (name, figure) in named {
        checked += 1;
        let options = benchtop_kit::figure::ExportOptions::default();
        for problem in benchtop_kit::figure::check_figure(figure, &options)? {
            problems.push(format!("{name}: {problem}"));
        }
        for problem in benchtop_kit::figure::check_figure_on_screen(figure) {
            on_screen.push(format!("{name}: {problem}"));
        }
    }
    // The screen's axes are egui_plot's own layout: its problems are reported, not failed on.
    for problem in &on_screen {
        benchtop_kit::note!("figure check (screen, reported only): {problem}");
    }
    if problems.is_empty() {
        benchtop_kit::note!(
            "figure check: {checked} figures, no problems in the export ({} reported on screen)",
            on_screen.len()
        );
        Ok(())
    } else {
        anyhow::bail!(
            "figure check: {} problems in {checked} figures:\n  {}",
            problems.len(),
            problems.join("\n  ")
        )
    }
}

fn compute_and_export(
    session: &mut Session,
    file: &Path,
    out: &Path,
    formats: &[ExportFormat],
    dpi: u32,
) -> anyhow::Result<usize> {
    let cancel = CancelToken::new();
    let count = session.panels.len();
    for (index, panel) in session.panels.values_mut().enumerate() {
        let label = format!("[{}/{count}] {}", index + 1, panel.title());
        with_progress_bar(&label, |progress| panel.run_headless(progress, &cancel))
            .with_context(|| format!("{}: panel {}", file.display(), panel.title()))?;
    }
    for index in 0..session.sweeps.len() {
        let label = format!("sweep {}", session.sweeps[index].doc.name);
        with_progress_bar(&label, |progress| {
            session.run_sweep_blocking(index, progress, &cancel)
        })
        .with_context(|| {
            format!(
                "{}: sweep {}",
                file.display(),
                session.sweeps[index].doc.name
            )
        })?;
    }
    let bundle = session.export_bundle(None);
    let report = with_progress_bar("export", |progress| {
        bundle.write(out, formats, dpi, progress, &cancel)
    })?;
    benchtop_kit::note!("wrote {} files to {}", report.files.len(), out.display());
    Ok(report.files.len())
}
