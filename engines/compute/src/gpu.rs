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

#[cfg(test)]
mod tests {
    //! A real compute pass on whatever adapter exists (lavapipe in CI) gets the CPU's answer.
    use super::*;

    const DOUBLE_PLUS_ONE: &str = r"
    @group(0) @binding(0) var<storage, read_write> values: array<u32>;
    @compute @workgroup_size(64)
    fn main(@builtin(global_invocation_id) id: vec3<u32>) {
        if (id.x < arrayLength(&values)) {
            values[id.x] = values[id.x] * 2u + 1u;
        }
    }
    ";

    #[test]
    fn a_compute_pass_matches_the_cpu() {
        let Some(context) = context_or_skip("a_compute_pass_matches_the_cpu") else {
            return;
        };
        let input: Vec<u32> = (0..1000).map(|i| i * 7 + 3).collect();
        let expected: Vec<u32> = input.iter().map(|v| v * 2 + 1).collect();
        let device = &context.device;
        let bytes = (input.len() * 4) as u64;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("values"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        context
            .queue
            .write_buffer(&buffer, 0, bytemuck::cast_slice(&input));
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("double plus one"),
            source: wgpu::ShaderSource::Wgsl(DOUBLE_PLUS_ONE.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("double plus one"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            }],
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(1000_u32.div_ceil(64), 1, 1);
        }
        encoder.copy_buffer_to_buffer(&buffer, 0, &readback, 0, bytes);
        context.queue.submit([encoder.finish()]);
        readback
            .slice(..)
            .map_async(wgpu::MapMode::Read, |result| result.expect("mapped"));
        context.wait_idle().expect("device idle");
        let output: Vec<u32> =
            bytemuck::cast_slice(&readback.slice(..).get_mapped_range().expect("range")).to_vec();
        assert_eq!(output, expected);
        assert!(!context.describe().is_empty());
    }
}
