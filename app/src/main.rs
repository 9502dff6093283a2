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
    quiet_runtime_dir();
    // resvg and usvg warn about degenerate shapes (e.g. zero-height bars) they skip harmlessly.
    // wgpu's GL backend logs an error for every machine without a GL driver while adapters are
    // listed, although Vulkan (or the CPU) is then used; `doctor` says what was found.
    let logger =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(
            "warn,tiny_skia=error,usvg=error,resvg=error,wgpu_hal::gles::egl=off",
        ))
        .build();
    let level = logger.filter();
    // Watched, so that a system file dialog that cannot be shown hands over to Benchtop's own.
    if let Err(error) = benchtop_kit::file_dialog::native::install_logger(Box::new(logger), level) {
        benchtop_kit::note!("could not install the logger: {error}");
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
            check_figures,
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
                check_figures,
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
            benchtop_kit::note!("error: {error:#}");
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
        benchtop_kit::note!(
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
        benchtop_kit::note!("{files} figures and data files are in {}/", out.display());
        return Ok(());
    }
    if !has_display() {
        let out = PathBuf::from("benchtop-tour");
        benchtop_kit::note!(
            "No display (neither DISPLAY nor WAYLAND_DISPLAY is set): computing the tour project \
             headlessly instead."
        );
        let files = run::run_tour(&out)?;
        benchtop_kit::note!(
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

/// Sets `XDG_RUNTIME_DIR` to a private folder when the session has none (a machine without a
/// desktop session, CI): the graphics libraries print "XDG_RUNTIME_DIR is invalid or not set"
/// on stderr four times otherwise. The folder is `<temp>/benchtop-runtime-<user>`, made with
/// mode 0700 and used only when it is a real folder of this user that no one else can enter.
#[allow(unsafe_code)]
fn quiet_runtime_dir() {
    let set = std::env::var_os("XDG_RUNTIME_DIR")
        .filter(|dir| !dir.is_empty())
        .is_some_and(|dir| PathBuf::from(dir).is_dir());
    if set {
        return;
    }
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "user".to_owned());
    let user: String = user.chars().filter(char::is_ascii_alphanumeric).collect();
    let dir = std::env::temp_dir().join(format!("benchtop-runtime-{user}"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, PermissionsExt as _};
        let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
        let Ok(meta) = std::fs::symlink_metadata(&dir) else {
            return;
        };
        let mine = std::fs::metadata("/proc/self")
            .ok()
            .is_none_or(|me| me.uid() == meta.uid());
        if !(meta.is_dir() && mine && meta.permissions().mode() & 0o077 == 0) {
            return;
        }
        // SAFETY: this runs first thing in `main`, before any other thread exists, so nothing
        // can read the environment concurrently.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
    }
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
