//! The canonical checkerboard sampler as a wgpu compute shader.
//!
//! The lattice stays on the GPU in the packed layout of [`crate::checkerboard::packed`]; many
//! sweeps are encoded into one submission (one dispatch per phase, the per-phase keys in a
//! uniform buffer addressed by dynamic offsets). The live view draws straight from
//! [`GpuCheckerboard::spin_buffer`]. Same seed, same flips as the CPU sampler.

use std::sync::Arc;
use std::time::Instant;

use benchtop_compute::gpu::GpuContext;
use benchtop_compute::{CancelToken, ComputeError};
use bytemuck::{Pod, Zeroable};

use crate::checkerboard::PHASES;
use crate::checkerboard::counter_rng::phase_key;
use crate::checkerboard::packed::PackedLattice;
use crate::couplings::Couplings;
use crate::lattice::SpinConfig;

/// Most sweeps encoded in one submission.
pub const MAX_SWEEPS_PER_SUBMIT: u64 = 512;
/// Stride of one phase record in the phase uniform buffer (the dynamic-offset alignment).
const PHASE_STRIDE: u64 = 256;
const WORKGROUP_SIZE: u32 = 64;
const MAX_GROUPS_X: u32 = 32_768;

#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
struct ModelUniform {
    size: u32,
    half: u32,
    words_per_row: u32,
    plaquette: u32,
    class_count: u32,
    pad: [u32; 3],
    classes: [[u32; 4]; 25],
}

#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
struct PhaseUniform {
    k0: u32,
    k1: u32,
    colour: u32,
    parity: u32,
    all_rows: u32,
    pad: [u32; 3],
}

/// Checkerboard Metropolis on the shared wgpu device.
#[derive(Debug)]
pub struct GpuCheckerboard {
    context: Arc<GpuContext>,
    size: usize,
    couplings: Couplings,
    seed: u64,
    sweeps_done: u64,
    sweeps_per_submit: u64,
    spins: wgpu::Buffer,
    model: wgpu::Buffer,
    phases: wgpu::Buffer,
    readback: wgpu::Buffer,
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
}

impl GpuCheckerboard {
    /// Uploads `config` to the GPU. L must be a multiple of 64 (whole 32-bit words per row).
    pub fn new(
        context: Arc<GpuContext>,
        config: &SpinConfig,
        couplings: Couplings,
        seed: u64,
    ) -> Result<Self, ComputeError> {
        couplings.validate()?;
        let size = config.size();
        let packed = PackedLattice::<u32>::pack(config).map_err(|_| {
            ComputeError::invalid(
                "size",
                format!("the GPU sampler needs L to be a multiple of 64 (got {size})"),
            )
        })?;
        let device = &context.device;
        let spin_bytes = std::mem::size_of_val(packed.words()) as u64;
        let limit = device.limits().max_storage_buffer_binding_size;
        if spin_bytes > limit {
            return Err(ComputeError::invalid(
                "size",
                format!(
                    "L = {size} needs a {spin_bytes}-byte buffer; this GPU allows {limit} bytes"
                ),
            ));
        }
        let spins = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ising spins"),
            size: spin_bytes,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        context
            .queue
            .write_buffer(&spins, 0, bytemuck::cast_slice(packed.words()));
        let model = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ising model"),
            size: std::mem::size_of::<ModelUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let phases = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ising phases"),
            size: MAX_SWEEPS_PER_SUBMIT * PHASES.len() as u64 * PHASE_STRIDE,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ising readback"),
            size: spin_bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("ising_checkerboard.wgsl"),
            source: wgpu::ShaderSource::Wgsl(benchtop_shaders::ISING_CHECKERBOARD.into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("ising layout"),
            entries: &[
                storage_entry(0),
                uniform_entry(1, false, std::mem::size_of::<ModelUniform>() as u64),
                uniform_entry(2, true, std::mem::size_of::<PhaseUniform>() as u64),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("ising pipeline layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("ising update"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("update"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("ising bind group"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: spins.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: model.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &phases,
                        offset: 0,
                        size: wgpu::BufferSize::new(std::mem::size_of::<PhaseUniform>() as u64),
                    }),
                },
            ],
        });
        let sampler = Self {
            context,
            size,
            couplings,
            seed,
            sweeps_done: 0,
            sweeps_per_submit: 16,
            spins,
            model,
            phases,
            readback,
            pipeline,
            bind_group,
        };
        sampler.write_model();
        Ok(sampler)
    }

    /// The adapter this sampler runs on.
    pub fn adapter(&self) -> String {
        self.context.describe()
    }

    /// The lattice buffer in the packed layout (read it in a render pass for the live view).
    pub fn spin_buffer(&self) -> &wgpu::Buffer {
        &self.spins
    }

    /// The shared context (device and queue) this sampler runs on.
    pub fn context(&self) -> &Arc<GpuContext> {
        &self.context
    }

    /// Side L.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Sweeps done since creation.
    pub fn sweeps_done(&self) -> u64 {
        self.sweeps_done
    }

    /// Changes the couplings for the following sweeps.
    pub fn set_couplings(&mut self, couplings: Couplings) -> Result<(), ComputeError> {
        couplings.validate()?;
        self.couplings = couplings;
        self.write_model();
        Ok(())
    }

    fn write_model(&self) {
        let table = self.couplings.flip_table();
        let plaquette = self.couplings.plaquette != 0.0;
        let mut classes = [[0_u32; 4]; 25];
        let mut count = 0;
        for aligned in 0..5_u32 {
            let positives: &[u32] = if plaquette { &[0, 1, 2, 3, 4] } else { &[0] };
            for &positive in positives {
                let threshold = table.threshold(aligned, positive);
                if threshold != u32::MAX {
                    classes[count] = [aligned, positive, threshold, 0];
                    count += 1;
                }
            }
        }
        let uniform = ModelUniform {
            size: self.size as u32,
            half: (self.size / 2) as u32,
            words_per_row: (self.size / 64) as u32,
            plaquette: u32::from(plaquette),
            class_count: count as u32,
            pad: [0; 3],
            classes,
        };
        self.context
            .queue
            .write_buffer(&self.model, 0, bytemuck::bytes_of(&uniform));
    }

    /// The phases one sweep dispatches: with K = 0 both row parities of a colour go together.
    fn phases_per_sweep(&self) -> Vec<(u32, u32, u32)> {
        if self.couplings.plaquette == 0.0 {
            vec![(0, 0, 1), (1, 0, 1)]
        } else {
            PHASES
                .iter()
                .map(|&(colour, parity)| (colour, parity, 0))
                .collect()
        }
    }

    /// Encodes and submits `count` sweeps (at most [`MAX_SWEEPS_PER_SUBMIT`]).
    fn submit(&mut self, count: u64) {
        let phases = self.phases_per_sweep();
        let mut records = vec![0_u8; (count as usize) * phases.len() * PHASE_STRIDE as usize];
        for sweep in 0..count {
            for (p, &(colour, parity, all_rows)) in phases.iter().enumerate() {
                let key = phase_key(self.seed, self.sweeps_done + sweep, colour);
                let record = PhaseUniform {
                    k0: key.k0,
                    k1: key.k1,
                    colour,
                    parity,
                    all_rows,
                    pad: [0; 3],
                };
                let offset = ((sweep as usize) * phases.len() + p) * PHASE_STRIDE as usize;
                records[offset..offset + std::mem::size_of::<PhaseUniform>()]
                    .copy_from_slice(bytemuck::bytes_of(&record));
            }
        }
        let queue = &self.context.queue;
        queue.write_buffer(&self.phases, 0, &records);
        let mut encoder =
            self.context
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("ising sweeps"),
                });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("ising sweeps"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            for index in 0..(count as usize * phases.len()) {
                let all_rows = phases[index % phases.len()].2 == 1;
                let offset = (index as u64 * PHASE_STRIDE) as u32;
                pass.set_bind_group(0, &self.bind_group, &[offset]);
                let (x, y) = self.dispatch_size(all_rows);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        queue.submit([encoder.finish()]);
        self.sweeps_done += count;
    }

    fn dispatch_size(&self, all_rows: bool) -> (u32, u32) {
        let rows = if all_rows { self.size } else { self.size / 2 };
        let words = (rows * (self.size / 64)) as u32;
        let groups = words.div_ceil(WORKGROUP_SIZE);
        let x = groups.min(MAX_GROUPS_X);
        (x, groups.div_ceil(x))
    }

    /// `count` sweeps, waiting for each submission so that `cancel` is honoured within about
    /// 50 ms (the batch size adapts to keep submissions that short).
    pub fn sweeps(&mut self, count: u64, cancel: &CancelToken) -> Result<(), ComputeError> {
        let mut left = count;
        while left > 0 {
            cancel.check()?;
            let batch = left.min(self.sweeps_per_submit);
            let started = Instant::now();
            self.submit(batch);
            self.context.wait_idle()?;
            let elapsed_s = started.elapsed().as_secs_f64();
            self.adapt_batch(batch, elapsed_s);
            left -= batch;
        }
        Ok(())
    }

    /// `count` sweeps submitted back to back with one wait at the end (for benchmarks).
    pub fn sweeps_unchecked(&mut self, count: u64) -> Result<(), ComputeError> {
        let mut left = count;
        while left > 0 {
            let batch = left.min(MAX_SWEEPS_PER_SUBMIT);
            self.submit(batch);
            left -= batch;
        }
        self.context.wait_idle()
    }

    fn adapt_batch(&mut self, batch: u64, elapsed_s: f64) {
        const TARGET_S: f64 = 0.05;
        if elapsed_s < TARGET_S / 2.0 && batch == self.sweeps_per_submit {
            self.sweeps_per_submit = (self.sweeps_per_submit * 2).min(MAX_SWEEPS_PER_SUBMIT);
        } else if elapsed_s > TARGET_S * 2.0 {
            self.sweeps_per_submit = (self.sweeps_per_submit / 2).max(1);
        }
    }

    /// Reads the lattice back from the GPU in the packed layout.
    pub fn read_packed(&self) -> Result<PackedLattice<u32>, ComputeError> {
        let device = &self.context.device;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("ising read"),
        });
        encoder.copy_buffer_to_buffer(&self.spins, 0, &self.readback, 0, self.spins.size());
        self.context.queue.submit([encoder.finish()]);
        let slice = self.readback.slice(..);
        let (sender, receiver) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |result| {
            // The receiver lives until this function returns, after the poll below.
            let _ = sender.send(result);
        });
        self.context.wait_idle()?;
        receiver
            .recv()
            .map_err(|_| ComputeError::Gpu("readback callback never ran".to_owned()))?
            .map_err(|error| ComputeError::Gpu(format!("readback failed: {error}")))?;
        let words: Vec<u32> = {
            let view = slice
                .get_mapped_range()
                .map_err(|error| ComputeError::Gpu(format!("readback mapping failed: {error}")))?;
            bytemuck::cast_slice(&view).to_vec()
        };
        self.readback.unmap();
        PackedLattice::from_words(self.size, words)
    }

    /// Reads the lattice back as one byte per spin.
    pub fn read_config(&self) -> Result<SpinConfig, ComputeError> {
        Ok(self.read_packed()?.unpack())
    }
}

fn storage_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: false },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn uniform_entry(binding: u32, dynamic: bool, size: u64) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: dynamic,
            min_binding_size: wgpu::BufferSize::new(size),
        },
        count: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkerboard::CpuCheckerboard;
    use crate::lattice::Start;

    #[test]
    fn gpu_and_cpu_accept_the_same_flips() {
        let Some(context) =
            benchtop_compute::gpu::context_or_skip("gpu_and_cpu_accept_the_same_flips")
        else {
            return;
        };
        // β_c-ish (plain Metropolis), K ≠ 0, and the heat-bath blend of small couplings (β = 0
        // flips every spin with probability ½; small β and K need all 25 classes).
        for couplings in [
            Couplings::ising(0.43),
            Couplings {
                beta: 0.35,
                plaquette: 0.2,
            },
            Couplings::ising(0.0),
            Couplings {
                beta: 0.02,
                plaquette: -0.03,
            },
        ] {
            let config = SpinConfig::new(128, Start::Hot, 21).unwrap();
            let mut cpu = CpuCheckerboard::new(&config, couplings, 8, 2).unwrap();
            let mut gpu =
                GpuCheckerboard::new(Arc::clone(&context), &config, couplings, 8).unwrap();
            let cancel = CancelToken::new();
            cpu.sweeps(7, &cancel).unwrap();
            gpu.sweeps(7, &cancel).unwrap();
            assert_eq!(gpu.read_config().unwrap(), cpu.config(), "{couplings:?}");
            // A second batch continues the same stream.
            cpu.sweeps(40, &cancel).unwrap();
            gpu.sweeps_unchecked(40).unwrap();
            assert_eq!(gpu.read_config().unwrap(), cpu.config(), "{couplings:?}");
        }
    }

    #[test]
    fn gpu_rejects_sizes_that_do_not_pack() {
        let Some(context) =
            benchtop_compute::gpu::context_or_skip("gpu_rejects_sizes_that_do_not_pack")
        else {
            return;
        };
        let config = SpinConfig::new(96, Start::Cold, 0).unwrap();
        let error = GpuCheckerboard::new(context, &config, Couplings::ising(0.4), 1).unwrap_err();
        assert!(error.to_string().contains("multiple of 64"), "{error}");
    }
}
