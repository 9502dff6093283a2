//! A batched f32 transform on the shared wgpu device, for many fields at once.
//!
//! Every stage is one batched matrix product (`shaders/sht_gemm.wgsl`):
//! - forward: ring DFT `fields × twiddles` (with ring weights), then for equiangular grids above
//!   lmax (nlat − 1)/2 the meridional resampling as a per-parity nlat × nlat matrix, then per m
//!   `P̄_m (lmax+1−m × nlat) × ring data (nlat × 2·batch)`;
//! - inverse: per m `P̄_mᵀ × coefficients`, then the inverse DFT `× twiddles`.
//!
//! The Legendre table `P̄_lm(x_i)` for every ring is computed once on the CPU in f64 (scaled
//! recurrence, so nothing underflows before it is rounded to f32) and kept on the GPU:
//! `(lmax+1)(lmax+2)/2 × nlat` floats (750 MB at 721 rings, lmax 719), so large grids need an
//! adapter whose storage-buffer binding limit allows it. The DFTs are dense products
//! (`O(nlon·lmax)` per ring), which suits batches on a real GPU and keeps the code short;
//! there is no FFT on the GPU. Results agree with the f64 CPU transform to f32 accuracy
//! (see the tests for the tolerance).

use std::sync::Arc;

use benchtop_compute::ComputeError;
use benchtop_compute::gpu::GpuContext;
use bytemuck::{Pod, Zeroable};
use num_complex::Complex64;
use rayon::prelude::*;

use crate::grid::{Grid, GridKind, clenshaw_curtis_weights, gauss_legendre};
use crate::legendre::{legendre_column, triangle_index, triangle_len};
use crate::sht::{Coeffs, meridian_matrices};

#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
#[repr(C)]
struct Operand {
    off: u32,
    b_stride: u32,
    tri_mul: u32,
    p_stride: u32,
    rs: u32,
    cs_hi: u32,
    cs_lo: u32,
    cdiv: u32,
}

impl Operand {
    fn dense(rs: u32, cs: u32) -> Self {
        Self {
            rs,
            cs_hi: cs,
            cdiv: 1,
            ..Self::default()
        }
    }
}

#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
#[repr(C)]
struct Params {
    a: Operand,
    b: Operand,
    c: Operand,
    m_base: u32,
    m_dec: u32,
    k_base: u32,
    k_dec: u32,
    n: u32,
    lmax: u32,
    scale_period: u32,
    use_scale: u32,
}

struct Stage {
    bind_group: wgpu::BindGroup,
    groups: [u32; 3],
}

/// The GPU transform for one grid, degree and batch capacity.
pub struct GpuSht {
    context: Arc<GpuContext>,
    grid: Grid,
    lmax: usize,
    capacity: usize,
    pipeline: wgpu::ComputePipeline,
    fields: wgpu::Buffer,
    coeffs: wgpu::Buffer,
    fields_readback: wgpu::Buffer,
    coeffs_readback: wgpu::Buffer,
    forward_stages: Vec<Stage>,
    inverse_stages: Vec<Stage>,
}

impl std::fmt::Debug for GpuSht {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuSht")
            .field("grid", &self.grid)
            .field("lmax", &self.lmax)
            .field("capacity", &self.capacity)
            .field("adapter", &self.context.describe())
            .finish_non_exhaustive()
    }
}

const TILE: usize = 64;

fn to_u32(value: usize, what: &str) -> Result<u32, ComputeError> {
    u32::try_from(value)
        .map_err(|_| ComputeError::invalid(what, format!("{value} is too large for the GPU path")))
}

impl GpuSht {
    /// Builds the tables and buffers for up to `batch` fields per call.
    pub fn new(
        context: Arc<GpuContext>,
        grid: &Grid,
        lmax: usize,
        batch: usize,
    ) -> Result<Self, ComputeError> {
        let grid = Grid::new(grid.kind, grid.nlat, grid.nlon)?;
        if lmax > grid.max_lmax() {
            return Err(ComputeError::invalid(
                "lmax",
                format!(
                    "lmax {lmax} is too large for this grid (at most {})",
                    grid.max_lmax()
                ),
            ));
        }
        if batch == 0 {
            return Err(ComputeError::invalid("batch", "at least one field"));
        }
        let (nlat, nlon) = (grid.nlat, grid.nlon);
        let nm = lmax + 1;
        let tri = triangle_len(lmax);
        let width = 2 * batch;
        let resample = grid.kind == GridKind::Equiangular && 2 * lmax > nlat - 1;
        if resample && nlon % 2 != 0 {
            return Err(ComputeError::invalid(
                "nlon",
                "resampled equiangular analysis needs an even nlon",
            ));
        }
        // Host tables (f64, rounded to f32 at upload).
        let (x, quadrature) = match grid.kind {
            GridKind::Equiangular => {
                let step = std::f64::consts::PI / (nlat - 1) as f64;
                (
                    (0..nlat)
                        .map(|i| (i as f64 * step).cos())
                        .collect::<Vec<_>>(),
                    clenshaw_curtis_weights(nlat),
                )
            }
            GridKind::GaussLegendre => gauss_legendre(nlat),
        };
        let mut legendre = vec![0.0_f32; tri * nlat];
        {
            // Fill column m: rows l − m, each row one value per ring.
            let mut columns: Vec<&mut [f32]> = Vec::with_capacity(nm);
            let mut rest = legendre.as_mut_slice();
            for m in 0..=lmax {
                let (column, tail) = rest.split_at_mut((lmax + 1 - m) * nlat);
                columns.push(column);
                rest = tail;
            }
            columns.into_par_iter().enumerate().for_each(|(m, column)| {
                for (i, xi) in x.iter().enumerate() {
                    for (k, v) in legendre_column(lmax, m, *xi).iter().enumerate() {
                        column[k * nlat + i] = *v as f32;
                    }
                }
            });
        }
        let ring_weights: Vec<f32> = if resample {
            vec![1.0; nlat]
        } else {
            quadrature.iter().map(|w| (w / 2.0) as f32).collect()
        };
        let mut forward_twiddle = vec![0.0_f32; nlon * 2 * nm];
        let mut inverse_twiddle = vec![0.0_f32; 2 * nm * nlon];
        for j in 0..nlon {
            for m in 0..nm {
                let angle = 2.0 * std::f64::consts::PI * ((m * j) % nlon) as f64 / nlon as f64;
                let (s, c) = angle.sin_cos();
                let weight = if m == 0 { 1.0 } else { 2.0 };
                forward_twiddle[j * 2 * nm + m] = (c / nlon as f64) as f32;
                forward_twiddle[j * 2 * nm + nm + m] = (-s / nlon as f64) as f32;
                inverse_twiddle[m * nlon + j] = (weight * c) as f32;
                inverse_twiddle[(nm + m) * nlon + j] =
                    if m == 0 { 0.0 } else { (-weight * s) as f32 };
            }
        }
        let resampling: Vec<f32> = if resample {
            meridian_matrices(nlat, lmax)?
                .iter()
                .map(|v| *v as f32)
                .collect()
        } else {
            vec![0.0; 1]
        };

        let device = &context.device;
        let limit = device.limits().max_storage_buffer_binding_size;
        let make = |label: &str, data: &[f32]| -> Result<wgpu::Buffer, ComputeError> {
            let bytes = (data.len().max(1) * 4) as u64;
            if bytes > limit {
                return Err(ComputeError::invalid(
                    "lmax",
                    format!(
                        "the GPU {label} needs {bytes} bytes; this adapter binds at most {limit}"
                    ),
                ));
            }
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            if !data.is_empty() {
                context
                    .queue
                    .write_buffer(&buffer, 0, bytemuck::cast_slice(data));
            }
            Ok(buffer)
        };
        let zeros = |n: usize| vec![0.0_f32; n];
        let legendre_buffer = make("sht legendre table", &legendre)?;
        let forward_twiddle_buffer = make("sht forward twiddles", &forward_twiddle)?;
        let inverse_twiddle_buffer = make("sht inverse twiddles", &inverse_twiddle)?;
        let resampling_buffer = make("sht resampling", &resampling)?;
        let weights_buffer = make("sht ring weights", &ring_weights)?;
        let ones_buffer = make("sht unit weights", &[1.0])?;
        let fields = make("sht fields", &zeros(batch * nlat * nlon))?;
        let coeffs = make("sht coefficients", &zeros(tri * width))?;
        let spectra = make("sht ring spectra", &zeros(batch * nlat * 2 * nm))?;
        let resampled = make(
            "sht resampled spectra",
            &zeros(if resample { nm * nlat * width } else { 1 }),
        )?;
        let readback = |label: &str, len: usize| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: (len * 4) as u64,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let fields_readback = readback("sht fields readback", batch * nlat * nlon);
        let coeffs_readback = readback("sht coefficients readback", tri * width);

        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("sht_gemm.wgsl"),
            source: wgpu::ShaderSource::Wgsl(benchtop_shaders::SHT_GEMM.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("sht gemm"),
            layout: None,
            module: &module,
            entry_point: Some("gemm"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
        let layout = pipeline.get_bind_group_layout(0);
        let u = |v: usize| to_u32(v, "grid");
        let (nlat32, nm32, w32, lmax32) = (u(nlat)?, u(nm)?, u(width)?, u(lmax)?);
        let spectra_row = u(2 * nm)?;
        // Ring spectra S: row (field·nlat + ring), column (re/im)·nm + m.
        // As the B operand of the Legendre stage for one m: row = ring, column = 2·field + re/im.
        let spectra_by_m = Operand {
            off: 0,
            b_stride: 1,
            tri_mul: 0,
            p_stride: 0,
            rs: spectra_row,
            cs_hi: nlat32 * spectra_row,
            cs_lo: nm32,
            cdiv: 2,
        };
        let coefficient_operand = Operand {
            tri_mul: w32,
            ..Operand::dense(w32, 1)
        };
        let stage = |label: &str,
                     a: &wgpu::Buffer,
                     b: &wgpu::Buffer,
                     c: &wgpu::Buffer,
                     scale: &wgpu::Buffer,
                     params: Params,
                     max_rows: usize,
                     batches: usize|
         -> Result<Stage, ComputeError> {
            let uniform = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: std::mem::size_of::<Params>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            context
                .queue
                .write_buffer(&uniform, 0, bytemuck::bytes_of(&params));
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(label),
                layout: &layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: a.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: b.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: c.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: scale.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 4,
                        resource: uniform.as_entire_binding(),
                    },
                ],
            });
            let groups = [
                to_u32((params.n as usize).div_ceil(TILE), "batch")?,
                to_u32(max_rows.div_ceil(TILE), "grid")?,
                to_u32(batches, "lmax")?,
            ];
            let max = device.limits().max_compute_workgroups_per_dimension;
            if groups.iter().any(|g| *g > max) {
                return Err(ComputeError::invalid(
                    "batch",
                    format!("dispatch {groups:?} exceeds the adapter limit {max}"),
                ));
            }
            Ok(Stage { bind_group, groups })
        };

        let mut forward_stages = Vec::new();
        // 1. Ring DFT: (batch·nlat × nlon) × (nlon × 2nm), rows scaled by the ring weights.
        forward_stages.push(stage(
            "sht forward dft",
            &fields,
            &forward_twiddle_buffer,
            &spectra,
            &weights_buffer,
            Params {
                a: Operand::dense(u(nlon)?, 1),
                b: Operand::dense(spectra_row, 1),
                c: Operand::dense(spectra_row, 1),
                m_base: u(batch * nlat)?,
                k_base: u(nlon)?,
                n: spectra_row,
                lmax: lmax32,
                scale_period: nlat32,
                use_scale: 1,
                ..Params::default()
            },
            batch * nlat,
            1,
        )?);
        let legendre_input = if resample {
            // 2. Resampling per m: R_{m mod 2} (nlat × nlat) × S_m (nlat × 2·batch).
            forward_stages.push(stage(
                "sht forward resampling",
                &resampling_buffer,
                &spectra,
                &resampled,
                &ones_buffer,
                Params {
                    a: Operand {
                        p_stride: nlat32 * nlat32,
                        ..Operand::dense(nlat32, 1)
                    },
                    b: spectra_by_m,
                    c: Operand {
                        b_stride: nlat32 * w32,
                        ..Operand::dense(w32, 1)
                    },
                    m_base: nlat32,
                    k_base: nlat32,
                    n: w32,
                    lmax: lmax32,
                    scale_period: 1,
                    ..Params::default()
                },
                nlat,
                nm,
            )?);
            (
                &resampled,
                Operand {
                    b_stride: nlat32 * w32,
                    ..Operand::dense(w32, 1)
                },
            )
        } else {
            (&spectra, spectra_by_m)
        };
        // 3. Legendre analysis per m: P̄_m (lmax+1−m × nlat) × (nlat × 2·batch).
        forward_stages.push(stage(
            "sht forward legendre",
            &legendre_buffer,
            legendre_input.0,
            &coeffs,
            &ones_buffer,
            Params {
                a: Operand {
                    tri_mul: nlat32,
                    ..Operand::dense(nlat32, 1)
                },
                b: legendre_input.1,
                c: coefficient_operand,
                m_base: nm32,
                m_dec: 1,
                k_base: nlat32,
                n: w32,
                lmax: lmax32,
                scale_period: 1,
                ..Params::default()
            },
            nm,
            nm,
        )?);
        // 1. Legendre synthesis per m: P̄_mᵀ (nlat × lmax+1−m) × coefficients (lmax+1−m × 2·batch),
        // 2. inverse DFT: (batch·nlat × 2nm) × (2nm × nlon).
        let inverse_stages = vec![
            stage(
                "sht inverse legendre",
                &legendre_buffer,
                &coeffs,
                &spectra,
                &ones_buffer,
                Params {
                    a: Operand {
                        tri_mul: nlat32,
                        ..Operand::dense(1, nlat32)
                    },
                    b: coefficient_operand,
                    c: spectra_by_m,
                    m_base: nlat32,
                    k_base: nm32,
                    k_dec: 1,
                    n: w32,
                    lmax: lmax32,
                    scale_period: 1,
                    ..Params::default()
                },
                nlat,
                nm,
            )?,
            stage(
                "sht inverse dft",
                &spectra,
                &inverse_twiddle_buffer,
                &fields,
                &ones_buffer,
                Params {
                    a: Operand::dense(spectra_row, 1),
                    b: Operand::dense(u(nlon)?, 1),
                    c: Operand::dense(u(nlon)?, 1),
                    m_base: u(batch * nlat)?,
                    k_base: spectra_row,
                    n: u(nlon)?,
                    lmax: lmax32,
                    scale_period: 1,
                    ..Params::default()
                },
                batch * nlat,
                1,
            )?,
        ];
        Ok(Self {
            context,
            grid,
            lmax,
            capacity: batch,
            pipeline,
            fields,
            coeffs,
            fields_readback,
            coeffs_readback,
            forward_stages,
            inverse_stages,
        })
    }

    /// The adapter in words.
    pub fn adapter(&self) -> String {
        self.context.describe()
    }

    /// Fields per call this plan holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    fn run(
        &self,
        stages: &[Stage],
        source: &wgpu::Buffer,
        readback: &wgpu::Buffer,
    ) -> Result<Vec<f32>, ComputeError> {
        let device = &self.context.device;
        let mut encoder =
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("sht") });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&self.pipeline);
            for stage in stages {
                pass.set_bind_group(0, &stage.bind_group, &[]);
                let [x, y, z] = stage.groups;
                pass.dispatch_workgroups(x, y, z);
            }
        }
        encoder.copy_buffer_to_buffer(source, 0, readback, 0, readback.size());
        self.context.queue.submit([encoder.finish()]);
        let (sender, receiver) = std::sync::mpsc::channel();
        readback
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |result| {
                let _ = sender.send(result);
            });
        self.context.wait_idle()?;
        receiver
            .recv()
            .map_err(|e| ComputeError::Gpu(format!("readback lost: {e}")))?
            .map_err(|e| ComputeError::Gpu(format!("readback failed: {e}")))?;
        let data = {
            let view = readback
                .slice(..)
                .get_mapped_range()
                .map_err(|e| ComputeError::Gpu(format!("readback range: {e}")))?;
            bytemuck::cast_slice::<u8, f32>(&view).to_vec()
        };
        readback.unmap();
        Ok(data)
    }

    /// Analysis of up to [`GpuSht::capacity`] fields (row-major nlat × nlon each).
    pub fn forward(&self, fields: &[&[f64]]) -> Result<Vec<Coeffs>, ComputeError> {
        self.check_batch(fields.len())?;
        let len = self.grid.len();
        let mut host = vec![0.0_f32; self.capacity * len];
        for (f, field) in fields.iter().enumerate() {
            self.grid.check_field(field)?;
            for (d, v) in host[f * len..(f + 1) * len].iter_mut().zip(field.iter()) {
                *d = *v as f32;
            }
        }
        self.context
            .queue
            .write_buffer(&self.fields, 0, bytemuck::cast_slice(&host));
        let data = self.run(&self.forward_stages, &self.coeffs, &self.coeffs_readback)?;
        let width = 2 * self.capacity;
        Ok((0..fields.len())
            .map(|f| {
                let mut c = Coeffs::zeros(self.lmax);
                for (t, value) in c.data_mut().iter_mut().enumerate() {
                    *value = Complex64::new(
                        f64::from(data[t * width + 2 * f]),
                        f64::from(data[t * width + 2 * f + 1]),
                    );
                }
                for l in 0..=self.lmax {
                    let index = triangle_index(self.lmax, l, 0);
                    c.data_mut()[index].im = 0.0;
                }
                c
            })
            .collect())
    }

    /// Synthesis of up to [`GpuSht::capacity`] coefficient sets.
    pub fn inverse(&self, coeffs: &[&Coeffs]) -> Result<Vec<Vec<f64>>, ComputeError> {
        self.check_batch(coeffs.len())?;
        let width = 2 * self.capacity;
        let mut host = vec![0.0_f32; triangle_len(self.lmax) * width];
        for (f, c) in coeffs.iter().enumerate() {
            if c.lmax() > self.lmax {
                return Err(ComputeError::invalid(
                    "coeffs",
                    format!("lmax {} exceeds the plan's {}", c.lmax(), self.lmax),
                ));
            }
            let padded = c.with_lmax(self.lmax);
            for m in 0..=self.lmax {
                for l in m..=self.lmax {
                    let t = triangle_index(self.lmax, l, m);
                    let v = padded.data()[t];
                    host[t * width + 2 * f] = v.re as f32;
                    host[t * width + 2 * f + 1] = if m == 0 { 0.0 } else { v.im as f32 };
                }
            }
        }
        self.context
            .queue
            .write_buffer(&self.coeffs, 0, bytemuck::cast_slice(&host));
        let data = self.run(&self.inverse_stages, &self.fields, &self.fields_readback)?;
        let len = self.grid.len();
        Ok((0..coeffs.len())
            .map(|f| {
                data[f * len..(f + 1) * len]
                    .iter()
                    .map(|v| f64::from(*v))
                    .collect()
            })
            .collect())
    }

    fn check_batch(&self, n: usize) -> Result<(), ComputeError> {
        if n == 0 || n > self.capacity {
            return Err(ComputeError::invalid(
                "batch",
                format!(
                    "this plan takes 1..={} fields per call, got {n}",
                    self.capacity
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::random_coeffs;
    use crate::sht::Sht;

    /// f32 on the GPU against f64 on the CPU: max error ≤ 2e-4 × the largest value.
    const TOLERANCE: f64 = 2e-4;

    fn check(kind: GridKind, nlat: usize, nlon: usize, lmax: usize, name: &str) {
        let Some(context) = benchtop_compute::gpu::context_or_skip(name) else {
            return;
        };
        let grid = Grid::new(kind, nlat, nlon).unwrap();
        let cpu = Sht::new(&grid, lmax).unwrap();
        let gpu = GpuSht::new(context, &grid, lmax, 3).unwrap();
        let coeffs: Vec<Coeffs> = (0..3).map(|s| random_coeffs(lmax, 40 + s)).collect();
        let refs: Vec<&Coeffs> = coeffs.iter().collect();
        let fields = gpu.inverse(&refs).unwrap();
        for (c, field) in coeffs.iter().zip(&fields) {
            let expected = cpu.inverse(c).unwrap();
            let scale = expected.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
            let err = expected
                .iter()
                .zip(field)
                .fold(0.0_f64, |a, (x, y)| a.max((x - y).abs()));
            assert!(
                err < TOLERANCE * scale,
                "{name} inverse: {err} vs scale {scale}"
            );
        }
        let exact: Vec<Vec<f64>> = coeffs.iter().map(|c| cpu.inverse(c).unwrap()).collect();
        let views: Vec<&[f64]> = exact.iter().map(Vec::as_slice).collect();
        let back = gpu.forward(&views[..2]).unwrap();
        assert_eq!(back.len(), 2);
        for (c, b) in coeffs.iter().zip(&back) {
            let err = c
                .data()
                .iter()
                .zip(b.data())
                .fold(0.0_f64, |a, (x, y)| a.max((x - y).norm()));
            assert!(err < TOLERANCE, "{name} forward: {err}");
        }
        assert!(gpu.forward(&[]).is_err());
    }

    #[test]
    fn gpu_matches_cpu_on_an_equiangular_grid_with_resampling() {
        check(
            GridKind::Equiangular,
            19,
            36,
            17,
            "gpu_matches_cpu_on_an_equiangular_grid_with_resampling",
        );
    }

    #[test]
    fn gpu_matches_cpu_on_a_gauss_grid() {
        check(
            GridKind::GaussLegendre,
            16,
            34,
            15,
            "gpu_matches_cpu_on_a_gauss_grid",
        );
    }
}
