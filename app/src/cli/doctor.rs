//! `benchtop doctor`: what this machine offers Benchtop.

use benchtop_kit::compute::backends::BackendReport;
use serde::Serialize;

/// One wgpu adapter as enumerated.
#[derive(Debug, Serialize)]
struct AdapterLine {
    name: String,
    backend: String,
    device_type: String,
    driver: String,
}

/// Everything `doctor` reports.
#[derive(Debug, Serialize)]
struct DoctorReport {
    version: String,
    backends: BackendReport,
    adapters: Vec<AdapterLine>,
    libraries: Vec<(String, bool)>,
    /// The NVRTC that `scripts/setup.sh` fetched into the build folder, when there is one.
    fetched_nvrtc: Option<String>,
}

/// Prints the report as text (or JSON) on stdout.
pub fn doctor(json: bool) -> anyhow::Result<()> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
        .into_iter()
        .map(|adapter| {
            let info = adapter.get_info();
            AdapterLine {
                name: info.name,
                backend: format!("{:?}", info.backend),
                device_type: format!("{:?}", info.device_type),
                driver: format!("{} {}", info.driver, info.driver_info),
            }
        })
        .collect();
    let libraries = [
        "libvulkan.so.1",
        "libEGL.so.1",
        "libcuda.so.1",
        "libnvrtc.so.12",
    ]
    .iter()
    .map(|name| {
        let fetched =
            *name == "libnvrtc.so.12" && benchtop_kit::compute::cuda::fetched_nvrtc().is_some();
        ((*name).to_owned(), fetched || library_loads(name))
    })
    .collect();
    let report = DoctorReport {
        version: crate::build_info::version_line(),
        backends: BackendReport::probe(),
        adapters,
        libraries,
        fetched_nvrtc: benchtop_kit::compute::cuda::fetched_nvrtc()
            .map(|path| path.display().to_string()),
    };
    let mut out = std::io::stdout().lock();
    use std::io::Write as _;
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(());
    }
    writeln!(out, "{}", report.version)?;
    writeln!(out, "compute: {}", report.backends.headline())?;
    let show = |r: &Result<String, String>| r.clone().unwrap_or_else(|e| format!("none ({e})"));
    writeln!(out, "  wgpu:  {}", show(&report.backends.wgpu))?;
    writeln!(out, "  CUDA:  {}", show(&report.backends.cuda))?;
    let nvrtc = match (report.backends.nvrtc, &report.fetched_nvrtc) {
        (true, Some(path)) => format!("found (fetched by the set-up: {path})"),
        (true, None) => "found".to_owned(),
        (false, _) => "not found (scripts/setup.sh fetches it into target/nvrtc)".to_owned(),
    };
    writeln!(out, "  NVRTC: {nvrtc}")?;
    writeln!(out, "  candle: {}", report.backends.candle)?;
    writeln!(out, "  CPU threads: {}", report.backends.cpu_threads)?;
    writeln!(out, "wgpu adapters:")?;
    for adapter in &report.adapters {
        writeln!(
            out,
            "  {} ({}, {}; {})",
            adapter.name,
            adapter.backend,
            adapter.device_type,
            adapter.driver.trim()
        )?;
    }
    writeln!(out, "system libraries:")?;
    for (name, found) in &report.libraries {
        writeln!(
            out,
            "  {name}: {}",
            if *found { "found" } else { "not found" }
        )?;
    }
    Ok(())
}

fn library_loads(name: &str) -> bool {
    // Ask the dynamic loader the way the engines will (through `ldconfig`'s cache or
    // LD_LIBRARY_PATH), without loading anything into this process.
    let in_cache = std::process::Command::new("ldconfig")
        .arg("-p")
        .output()
        .ok()
        .is_some_and(|output| String::from_utf8_lossy(&output.stdout).contains(name));
    in_cache
        || std::env::var_os("LD_LIBRARY_PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(name).exists()))
}
