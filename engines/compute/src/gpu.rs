//! The shared wgpu compute context: one device and queue for the whole process.
//!
//! Created lazily on first use, or installed from the window's renderer (eframe) so that
//! engines and the UI share one device and a lattice computed on the GPU can be drawn without
//! leaving it. When no adapter exists the reason is kept and every caller falls back to the CPU.

use std::sync::{Arc, OnceLock};

use crate::ComputeError;

/// Environment variable that turns a missing GPU adapter into a test failure instead of a skip.
pub const REQUIRE_GPU_ENV: &str = "BENCHTOP_REQUIRE_GPU";

/// A wgpu device and queue with a description of the adapter they came from.
#[derive(Debug)]
pub struct GpuContext {
    /// The device every engine allocates on.
    pub device: wgpu::Device,
    /// The queue every engine submits to.
    pub queue: wgpu::Queue,
    /// The adapter's name, backend, type and driver.
    pub info: wgpu::AdapterInfo,
}

impl GpuContext {
    /// One line naming the adapter, e.g. `NVIDIA H200 (Vulkan, discrete GPU)`.
    pub fn describe(&self) -> String {
        describe_adapter(&self.info)
    }

    /// Whether the adapter is a software rasteriser (lavapipe, llvmpipe, WARP).
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// Waits until all submitted work is done.
    pub fn wait_idle(&self) -> Result<(), ComputeError> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|error| ComputeError::Gpu(format!("device poll failed: {error}")))
    }
}

/// One line naming an adapter and its backend.
pub fn describe_adapter(info: &wgpu::AdapterInfo) -> String {
    let kind = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => "discrete GPU",
        wgpu::DeviceType::IntegratedGpu => "integrated GPU",
        wgpu::DeviceType::VirtualGpu => "virtual GPU",
        wgpu::DeviceType::Cpu => "software",
        wgpu::DeviceType::Other => "other",
    };
    format!("{} ({:?}, {kind})", info.name, info.backend)
}

static CONTEXT: OnceLock<Result<Arc<GpuContext>, String>> = OnceLock::new();

/// The shared context, created on first call. `Err` carries the reason no GPU is used.
pub fn context() -> Result<Arc<GpuContext>, ComputeError> {
    CONTEXT
        .get_or_init(create)
        .clone()
        .map_err(|reason| ComputeError::BackendUnavailable {
            backend: "wgpu",
            reason,
        })
}

/// Installs an existing device (the window renderer's) as the shared context.
///
/// Returns `false`, and changes nothing, when a context already exists.
pub fn install(device: wgpu::Device, queue: wgpu::Queue, info: wgpu::AdapterInfo) -> bool {
    CONTEXT
        .set(Ok(Arc::new(GpuContext {
            device,
            queue,
            info,
        })))
        .is_ok()
}

/// For tests: the shared context, or `None` (with a note on stderr) when no adapter exists.
///
/// Panics instead of skipping when [`REQUIRE_GPU_ENV`] is set, so CI fails loudly.
pub fn context_or_skip(test: &str) -> Option<Arc<GpuContext>> {
    match context() {
        Ok(context) => Some(context),
        Err(error) => {
            assert!(
                std::env::var_os(REQUIRE_GPU_ENV).is_none(),
                "{test}: {REQUIRE_GPU_ENV} is set but no GPU adapter is usable: {error}"
            );
            eprintln!("{test}: skipped, {error}");
            None
        }
    }
}

fn create() -> Result<Arc<GpuContext>, String> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: None,
        apply_limit_buckets: false,
    }))
    .map_err(|error| format!("no wgpu adapter found ({error})"))?;
    let info = adapter.get_info();
    let descriptor = wgpu::DeviceDescriptor {
        label: Some("benchtop compute"),
        required_features: wgpu::Features::empty(),
        required_limits: adapter.limits(),
        experimental_features: wgpu::ExperimentalFeatures::default(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    };
    let (device, queue) =
        pollster::block_on(adapter.request_device(&descriptor)).map_err(|error| {
            format!(
                "{}: device request failed ({error})",
                describe_adapter(&info)
            )
        })?;
    log::info!("wgpu compute on {}", describe_adapter(&info));
    Ok(Arc::new(GpuContext {
        device,
        queue,
        info,
    }))
}
