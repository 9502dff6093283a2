//! The `benchtop` binary: the window, or one of the headless subcommands.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use benchtop::cli::{Cli, CliCommand, bench, doctor, run};
use clap::Parser as _;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let result = match cli.command {
        None => open_window(None),
        Some(CliCommand::Open { file }) => open_window(Some(file)),
        Some(CliCommand::Run {
            file,
            out,
            format,
            dpi,
            save,
        }) => run::run(&file, &out, &format, dpi, save).map(|_| ()),
        Some(CliCommand::Bench { engine, options }) => bench::bench(&engine, &options),
        Some(CliCommand::Doctor { json }) => doctor::doctor(json),
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
