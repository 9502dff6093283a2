//! The `benchtop` binary: the window, or one of the headless subcommands.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use benchtop::cli::{
    Cli, CliCommand, bench, doctor, panel_command, panel_help, params, run, sweep,
};
use clap::{CommandFactory as _, FromArgMatches as _};

/// mimalloc keeps freed pages for reuse. With the system allocator, every training step's
/// large tensors were mapped fresh from the kernel and zeroed page by page: half of a NeuroTree
/// step (40 → 21 ms, docs/benchmarks.md) went to page faults.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    pin_thread_count();
    // resvg and usvg warn about degenerate shapes (e.g. zero-height bars) they skip harmlessly.
    let logger = env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,tiny_skia=error,usvg=error,resvg=error"),
    )
    .build();
    let level = logger.filter();
    // Watched, so that a system file dialog that cannot be shown hands over to Benchtop's own.
    if let Err(error) = benchtop_kit::file_dialog::native::install_logger(Box::new(logger), level) {
        eprintln!("could not install the logger: {error}");
    }
    // The panels' own subcommands and benchmarks are listed at the end of `--help`.
    let matches = Cli::command().after_help(panel_help()).get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    let result = match cli.command {
        None => open_window(None),
        Some(CliCommand::Open { file }) => open_window(Some(file)),
        Some(CliCommand::Run {
            file,
            out,
            format,
            dpi,
            save,
            preset,
            set,
            slurm,
            collect,
            cluster,
        }) => sweep::run_command(
            &file,
            &out,
            &run::RunOptions {
                formats: format,
                dpi,
                save,
                preset,
                set,
                project_dir: None,
            },
            &sweep::RunCluster {
                submit: slurm,
                collect,
                slurm: cluster,
            },
        ),
        Some(CliCommand::Sweep { command }) => sweep::sweep(&command),
        Some(CliCommand::Params { kind, json }) => params::print(kind.as_deref(), json),
        Some(CliCommand::Bench { engine, options }) => bench::bench(&engine, &options),
        Some(CliCommand::Doctor { json }) => doctor::doctor(json),
        Some(CliCommand::Panel(words)) => panel_command(&words),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn has_display() -> bool {
    std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
}

fn open_window(file: Option<PathBuf>) -> anyhow::Result<()> {
    if !has_display()
        && let Some(file) = file
    {
        let stem = file
            .file_stem()
            .map_or_else(|| "project".into(), |s| s.to_string_lossy().into_owned());
        let out = PathBuf::from(format!("{stem}-results"));
        eprintln!(
            "No display (neither DISPLAY nor WAYLAND_DISPLAY is set): computing {} headlessly \
             instead (as `benchtop run {} --out {}`).",
            file.display(),
            file.display(),
            out.display()
        );
        let options = run::RunOptions {
            formats: vec!["svg".into(), "png".into(), "pdf".into()],
            dpi: 150,
            ..run::RunOptions::default()
        };
        let files = run::run(&file, &out, &options)?;
        eprintln!("{files} figures and data files are in {}/", out.display());
        return Ok(());
    }
    if !has_display() {
        let out = PathBuf::from("benchtop-tour");
        eprintln!(
            "No display (neither DISPLAY nor WAYLAND_DISPLAY is set): computing the tour project \
             headlessly instead."
        );
        let files = run::run_tour(&out)?;
        eprintln!(
            "The tour's {files} figures and data files are in {}/",
            out.display()
        );
        return Ok(());
    }
    let mut wgpu_setup = eframe::egui_wgpu::WgpuSetupCreateNew::without_display_handle();
    // Engines share the window's device, so ask for everything the adapter offers (large lattices).
    wgpu_setup.device_descriptor = Arc::new(|adapter| eframe::wgpu::DeviceDescriptor {
        label: Some("benchtop"),
        required_limits: adapter.limits(),
        ..Default::default()
    });
    let options = eframe::NativeOptions {
        viewport: eframe::egui::ViewportBuilder::default()
            .with_title("Benchtop")
            .with_inner_size([1400.0, 900.0])
            .with_min_inner_size([800.0, 500.0])
            .with_drag_and_drop(true)
            .with_app_id("benchtop"),
        wgpu_options: eframe::egui_wgpu::WgpuConfiguration {
            wgpu_setup: eframe::egui_wgpu::WgpuSetup::CreateNew(wgpu_setup),
            ..Default::default()
        },
        ..Default::default()
    };
    eframe::run_native(
        "benchtop",
        options,
        Box::new(move |cc| {
            Ok(Box::new(
                benchtop::shell::BenchtopApp::from_creation_context(cc, file),
            ))
        }),
    )
    .map_err(|error| anyhow::anyhow!("the window could not open: {error}"))
}

/// Sets `RAYON_NUM_THREADS` to the machine's parallelism when the user has not set it. That is
/// rayon's own default, so no pool changes; but candle asks for the thread count on every CPU
/// matrix product and, without the variable, re-reads the CPU topology from /proc each time,
/// which made FINDR training three times slower (most of it in system calls).
#[allow(unsafe_code)]
fn pin_thread_count() {
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        // SAFETY: this runs first thing in `main`, before any other thread exists, so nothing
        // can read the environment concurrently.
        unsafe { std::env::set_var("RAYON_NUM_THREADS", threads.to_string()) };
    }
}
