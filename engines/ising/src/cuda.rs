//! The canonical checkerboard sampler as a CUDA kernel for NVIDIA GPUs.
//!
//! The kernel is CUDA C compiled at run time by NVRTC (through `benchtop_compute::cuda`), so the
//! binary needs no CUDA toolkit at build time and uses an NVIDIA GPU when one is present. It is
//! the WGSL kernel of `shaders/ising_checkerboard.wgsl` line for line: same packed layout, same
//! counter-based random numbers, same flips as the CPU sampler.
#![allow(unsafe_code)] // Kernel launches are `unsafe` in cudarc: argument types must match.

use std::sync::Arc;

use benchtop_compute::cuda::CudaDevice;
use benchtop_compute::{CancelToken, ComputeError};
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg as _};

use crate::checkerboard::PHASES;
use crate::checkerboard::counter_rng::phase_key;
use crate::checkerboard::packed::PackedLattice;
use crate::couplings::Couplings;
use crate::lattice::SpinConfig;

/// The kernel source (entry point `ising_update`).
pub const KERNEL_SOURCE: &str = r#"
__device__ __forceinline__ unsigned int lowbias32(unsigned int x) {
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}

__device__ __forceinline__ unsigned int shifted(const unsigned int* row, unsigned int w,
                                                unsigned int n, bool towards_next) {
    if (towards_next) return (row[w] >> 1) | (row[(w + 1) % n] << 31);
    return (row[w] << 1) | (row[(w + n - 1) % n] >> 31);
}

__device__ __forceinline__ void one_hot(unsigned int b0, unsigned int b1, unsigned int b2,
                                        unsigned int b3, unsigned int out[5]) {
    unsigned int x01 = b0 ^ b1, a01 = b0 & b1, x23 = b2 ^ b3, a23 = b2 & b3;
    unsigned int c0 = x01 ^ x23, carry = x01 & x23;
    unsigned int c1 = a01 ^ a23 ^ carry;
    unsigned int c2 = (a01 & a23) | (a01 & carry) | (a23 & carry);
    unsigned int low = ~c2;
    out[0] = ~c0 & ~c1 & low; out[1] = c0 & ~c1 & low; out[2] = ~c0 & c1 & low;
    out[3] = c0 & c1 & low; out[4] = c2;
}

// classes: class_count records of (aligned, positive plaquettes, threshold, unused).
extern "C" __global__ void ising_update(
    unsigned int* spins, const unsigned int* classes, unsigned int class_count,
    unsigned int size, unsigned int half, unsigned int n, unsigned int plaquette,
    unsigned int k0, unsigned int k1, unsigned int colour, unsigned int parity,
    unsigned int all_rows)
{
    unsigned long long index = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int rows = all_rows ? size : half;
    if (index >= (unsigned long long)rows * n) return;
    unsigned int w = (unsigned int)(index % n);
    unsigned int row_in_phase = (unsigned int)(index / n);
    unsigned int i = row_in_phase;
    if (all_rows) { parity = row_in_phase & 1u; i = row_in_phase >> 1; }
    unsigned int other = 1u - colour;
    bool towards_next = ((colour + parity) & 1u) == 1u;
    unsigned int up = i, down = i;
    if (parity == 0u) up = (i + half - 1u) % half; else down = (i + 1u) % half;
    unsigned int y = 2u * i + parity;
    unsigned long long block = (unsigned long long)half * n;

    unsigned int* target = spins + (2u * colour + parity) * block + (unsigned long long)i * n;
    const unsigned int* mid_row = spins + (2u * other + parity) * block + (unsigned long long)i * n;
    const unsigned int* other_rows = spins + (2u * other + (1u - parity)) * block;
    const unsigned int* same_rows = spins + (2u * colour + (1u - parity)) * block;

    unsigned int s = target[w];
    unsigned int mid = mid_row[w];
    unsigned int side = shifted(mid_row, w, n, towards_next);
    unsigned int right = towards_next ? side : mid;
    unsigned int left = towards_next ? mid : side;
    unsigned int vup = other_rows[(unsigned long long)up * n + w];
    unsigned int vdown = other_rows[(unsigned long long)down * n + w];
    unsigned int aligned[5];
    one_hot(~(s ^ vup), ~(s ^ vdown), ~(s ^ left), ~(s ^ right), aligned);
    unsigned int positive[5] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    if (plaquette) {
        const unsigned int* up_row = same_rows + (unsigned long long)up * n;
        const unsigned int* down_row = same_rows + (unsigned long long)down * n;
        unsigned int up_mid = up_row[w], up_side = shifted(up_row, w, n, towards_next);
        unsigned int down_mid = down_row[w], down_side = shifted(down_row, w, n, towards_next);
        unsigned int up_right = towards_next ? up_side : up_mid;
        unsigned int up_left = towards_next ? up_mid : up_side;
        unsigned int down_right = towards_next ? down_side : down_mid;
        unsigned int down_left = towards_next ? down_mid : down_side;
        one_hot(~(s ^ right ^ vup ^ up_right), ~(s ^ left ^ vup ^ up_left),
                ~(s ^ right ^ vdown ^ down_right), ~(s ^ left ^ vdown ^ down_left), positive);
    }
    unsigned int masks[25];
    unsigned int need = 0u;
    for (unsigned int k = 0; k < class_count; ++k) {
        masks[k] = aligned[classes[4 * k]] & positive[classes[4 * k + 1]];
        need |= masks[k];
    }
    unsigned int undecided = need, less = 0u;
    for (unsigned int level = 0; level < 32u && undecided != 0u; ++level) {
        unsigned int counter = ((y * n + w) << 5) | level;
        unsigned int random = lowbias32(lowbias32(counter + k0) ^ k1);
        unsigned int threshold_bits = 0u;
        for (unsigned int k = 0; k < class_count; ++k) {
            if ((classes[4 * k + 2] >> (31u - level)) & 1u) threshold_bits |= masks[k];
        }
        less |= undecided & ~random & threshold_bits;
        undecided &= ~(random ^ threshold_bits);
    }
    target[w] = s ^ (~need | less);
}
"#;

/// Name of the kernel program in NVRTC messages.
pub const KERNEL_NAME: &str = "ising_checkerboard.cu";

const BLOCK_THREADS: u32 = 256;

/// Checkerboard Metropolis on CUDA device 0.
#[derive(Debug)]
pub struct CudaCheckerboard {
    device: Arc<CudaDevice>,
    stream: Arc<CudaStream>,
    function: CudaFunction,
    size: usize,
    couplings: Couplings,
    seed: u64,
    sweeps_done: u64,
    spins: CudaSlice<u32>,
    classes: CudaSlice<u32>,
    class_count: u32,
}

fn cuda_error(what: &str) -> impl Fn(cudarc::driver::DriverError) -> ComputeError + '_ {
    move |error| ComputeError::Cuda(format!("{what}: {error}"))
}

impl CudaCheckerboard {
    /// Compiles the kernel, uploads `config` (L a multiple of 64) and prepares the couplings.
    pub fn new(
        device: Arc<CudaDevice>,
        config: &SpinConfig,
        couplings: Couplings,
        seed: u64,
    ) -> Result<Self, ComputeError> {
        couplings.validate()?;
        let size = config.size();
        let packed = PackedLattice::<u32>::pack(config).map_err(|_| {
            ComputeError::invalid(
                "size",
                format!("the CUDA sampler needs L to be a multiple of 64 (got {size})"),
            )
        })?;
        let ptx = benchtop_compute::cuda::compile(KERNEL_SOURCE, KERNEL_NAME, None)?;
        let module = device
            .context
            .load_module(ptx)
            .map_err(cuda_error("loading the kernel"))?;
        let function = module
            .load_function("ising_update")
            .map_err(cuda_error("finding ising_update"))?;
        let stream = device.context.default_stream();
        let spins = stream
            .clone_htod(packed.words())
            .map_err(cuda_error("uploading spins"))?;
        let classes = stream
            .alloc_zeros::<u32>(100)
            .map_err(cuda_error("allocating"))?;
        let mut sampler = Self {
            device,
            stream,
            function,
            size,
            couplings,
            seed,
            sweeps_done: 0,
            spins,
            classes,
            class_count: 0,
        };
        sampler.write_classes()?;
        Ok(sampler)
    }

    /// The device's name.
    pub fn device_name(&self) -> &str {
        &self.device.name
    }

    /// Sweeps done since creation.
    pub fn sweeps_done(&self) -> u64 {
        self.sweeps_done
    }

    /// Changes the couplings for the following sweeps.
    pub fn set_couplings(&mut self, couplings: Couplings) -> Result<(), ComputeError> {
        couplings.validate()?;
        self.couplings = couplings;
        self.write_classes()
    }

    fn write_classes(&mut self) -> Result<(), ComputeError> {
        let table = self.couplings.flip_table();
        let plaquette = self.couplings.plaquette != 0.0;
        let mut records = vec![0_u32; 100];
        let mut count = 0_usize;
        for aligned in 0..5_u32 {
            let positives: &[u32] = if plaquette { &[0, 1, 2, 3, 4] } else { &[0] };
            for &positive in positives {
                let threshold = table.threshold(aligned, positive);
                if threshold != u32::MAX {
                    records[4 * count..4 * count + 3]
                        .copy_from_slice(&[aligned, positive, threshold]);
                    count += 1;
                }
            }
        }
        self.stream
            .memcpy_htod(&records, &mut self.classes)
            .map_err(cuda_error("uploading the acceptance table"))?;
        self.class_count = count as u32;
        Ok(())
    }

    fn launch_sweep(&mut self) -> Result<(), ComputeError> {
        let phases: Vec<(u32, u32, u32)> = if self.couplings.plaquette == 0.0 {
            vec![(0, 0, 1), (1, 0, 1)]
        } else {
            PHASES
                .iter()
                .map(|&(colour, parity)| (colour, parity, 0))
                .collect()
        };
        let (size, half, n, plaquette) = (
            self.size as u32,
            (self.size / 2) as u32,
            (self.size / 64) as u32,
            u32::from(self.couplings.plaquette != 0.0),
        );
        for (colour, parity, all_rows) in phases {
            let key = phase_key(self.seed, self.sweeps_done, colour);
            let rows = if all_rows == 1 { size } else { half };
            let threads = u64::from(rows) * u64::from(n);
            let blocks = threads.div_ceil(u64::from(BLOCK_THREADS)) as u32;
            let config = LaunchConfig {
                grid_dim: (blocks, 1, 1),
                block_dim: (BLOCK_THREADS, 1, 1),
                shared_mem_bytes: 0,
            };
            let mut launch = self.stream.launch_builder(&self.function);
            launch
                .arg(&mut self.spins)
                .arg(&self.classes)
                .arg(&self.class_count)
                .arg(&size)
                .arg(&half)
                .arg(&n)
                .arg(&plaquette)
                .arg(&key.k0)
                .arg(&key.k1)
                .arg(&colour)
                .arg(&parity)
                .arg(&all_rows);
            // SAFETY: the arguments match the kernel's parameter list one for one (a u32 pointer,
            // a const u32 pointer and ten u32 values), and every index the kernel computes stays
            // inside the spin buffer of L²/32 words and the 100-word class table.
            unsafe { launch.launch(config) }.map_err(cuda_error("launching ising_update"))?;
        }
        self.sweeps_done += 1;
        Ok(())
    }

    /// `count` sweeps, synchronising every 64 so that `cancel` is honoured promptly.
    pub fn sweeps(&mut self, count: u64, cancel: &CancelToken) -> Result<(), ComputeError> {
        for done in 0..count {
            if done % 64 == 0 {
                cancel.check()?;
                self.stream
                    .synchronize()
                    .map_err(cuda_error("synchronising"))?;
            }
            self.launch_sweep()?;
        }
        self.stream
            .synchronize()
            .map_err(cuda_error("synchronising"))
    }

    /// Reads the lattice back as one byte per spin.
    pub fn read_config(&self) -> Result<SpinConfig, ComputeError> {
        let words = self
            .stream
            .clone_dtoh(&self.spins)
            .map_err(cuda_error("reading spins"))?;
        Ok(PackedLattice::from_words(self.size, words)?.unpack())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkerboard::CpuCheckerboard;
    use crate::lattice::Start;

    #[test]
    fn kernel_compiles_to_ptx() {
        if !benchtop_compute::cuda::nvrtc_or_skip("kernel_compiles_to_ptx") {
            return;
        }
        let ptx = benchtop_compute::cuda::compile(KERNEL_SOURCE, KERNEL_NAME, Some("compute_70"))
            .unwrap();
        assert!(ptx.to_src().contains(".entry ising_update"));
    }

    #[test]
    fn cuda_and_cpu_accept_the_same_flips() {
        let Ok(device) = benchtop_compute::cuda::device() else {
            eprintln!("cuda_and_cpu_accept_the_same_flips: skipped, no CUDA device");
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
            let config = SpinConfig::new(256, Start::Hot, 21).unwrap();
            let mut cpu = CpuCheckerboard::new(&config, couplings, 8, 2).unwrap();
            let mut gpu =
                CudaCheckerboard::new(Arc::clone(&device), &config, couplings, 8).unwrap();
            let cancel = CancelToken::new();
            cpu.sweeps(33, &cancel).unwrap();
            gpu.sweeps(33, &cancel).unwrap();
            assert_eq!(gpu.read_config().unwrap(), cpu.config(), "{couplings:?}");
        }
    }
}
