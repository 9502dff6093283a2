//! A report of the compute backends this process can use, for the status bar and `doctor`.

use serde::Serialize;

/// Which backends exist, each with a name or the reason it is missing.
#[derive(Clone, Debug, Serialize)]
pub struct BackendReport {
    /// The wgpu adapter (`Ok(name)`) or why there is none.
    pub wgpu: Result<String, String>,
    /// The CUDA device (`Ok(name)`) or why there is none.
    pub cuda: Result<String, String>,
    /// Whether NVRTC (runtime CUDA compilation) can be loaded.
    pub nvrtc: bool,
    /// The candle device and why it was chosen.
    pub candle: String,
    /// Worker threads available to CPU engines.
    pub cpu_threads: usize,
}

impl BackendReport {
    /// Probes every backend (creates the wgpu context and opens CUDA if present).
    pub fn probe() -> Self {
        Self {
            wgpu: crate::gpu::context()
                .map(|c| c.describe())
                .map_err(|e| e.to_string()),
            cuda: crate::cuda::device()
                .map(|d| d.name.clone())
                .map_err(|e| e.to_string()),
            nvrtc: crate::cuda::nvrtc_present(),
            candle: crate::candle_device::candle_device().1,
            cpu_threads: std::thread::available_parallelism().map_or(1, usize::from),
        }
    }

    /// The fastest backend in one short phrase: the CUDA device, else the wgpu adapter, else CPU.
    pub fn headline(&self) -> String {
        match (&self.cuda, &self.wgpu) {
            (Ok(cuda), _) => format!("CUDA: {cuda}"),
            (Err(_), Ok(wgpu)) => format!("wgpu: {wgpu}"),
            (Err(_), Err(_)) => format!("CPU ({} threads)", self.cpu_threads),
        }
    }
}
