//! The CUDA context: NVIDIA GPUs used when present, with no CUDA needed at build time.
//!
//! The driver (`libcuda`) and NVRTC (`libnvrtc`) are loaded at run time through cudarc's
//! dynamic loading. Kernels are CUDA C strings compiled to PTX by NVRTC, which needs no GPU:
//! the test suite compiles every kernel so that one which does not compile fails CI.
#![allow(unsafe_code)] // cudarc's presence checks are `unsafe fn`s that only try to dlopen.

use std::sync::{Arc, OnceLock};

use cudarc::driver::CudaContext as DriverContext;
use cudarc::nvrtc::{CompileOptions, Ptx};

use crate::ComputeError;

/// Environment variable that makes a missing NVRTC library a test failure instead of a skip.
pub const REQUIRE_NVRTC_ENV: &str = "BENCHTOP_REQUIRE_NVRTC";

/// A CUDA device ready for kernels.
#[derive(Debug)]
pub struct CudaDevice {
    /// The driver context of device 0.
    pub context: Arc<DriverContext>,
    /// The device's name, e.g. `NVIDIA H200`.
    pub name: String,
}

static DEVICE: OnceLock<Result<Arc<CudaDevice>, String>> = OnceLock::new();

/// CUDA device 0, opened on first call. `Err` says why CUDA is not used.
pub fn device() -> Result<Arc<CudaDevice>, ComputeError> {
    DEVICE
        .get_or_init(open_device)
        .clone()
        .map_err(|reason| ComputeError::BackendUnavailable {
            backend: "CUDA",
            reason,
        })
}

fn open_device() -> Result<Arc<CudaDevice>, String> {
    // SAFETY: only tries to dlopen the driver library by its usual names.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no CUDA driver library (libcuda) on this machine".to_owned());
    }
    let count = DriverContext::device_count()
        .map_err(|error| format!("the CUDA driver failed to count devices: {error}"))?;
    if count < 1 {
        return Err("the CUDA driver reports no devices".to_owned());
    }
    let context =
        DriverContext::new(0).map_err(|error| format!("CUDA device 0 did not open: {error}"))?;
    let name = context
        .name()
        .map_err(|error| format!("CUDA device 0 has no name: {error}"))?;
    log::info!("CUDA device 0: {name}");
    Ok(Arc::new(CudaDevice { context, name }))
}

/// Where `scripts/setup.sh` unpacks NVRTC, relative to the build folder (`target/`).
const FETCHED_NVRTC: &str = "nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12";

/// The NVRTC library that `scripts/setup.sh` fetched beside this build, if there is one.
///
/// The set-up unpacks NVRTC under `target/nvrtc`; a binary in `target/debug`,
/// `target/release` or `target/debug/deps` (tests) finds it two or three folders up.
pub fn fetched_nvrtc() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .skip(1)
        .take(3)
        .map(|dir| dir.join(FETCHED_NVRTC))
        .find(|path| path.is_file())
}

/// Loads the fetched NVRTC once, so that cudarc's later `dlopen("libnvrtc.so.12")` finds it
/// by its soname even when `LD_LIBRARY_PATH` does not name its folder. `true` when loaded.
fn preload_fetched_nvrtc() -> bool {
    static LOADED: OnceLock<bool> = OnceLock::new();
    *LOADED.get_or_init(|| {
        let Some(path) = fetched_nvrtc() else {
            return false;
        };
        let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) else {
            return false;
        };
        // SAFETY: dlopen of a regular file the set-up placed in the build folder; the handle
        // is kept for the life of the process (never closed), as cudarc keeps its own.
        let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
        if handle.is_null() {
            log::warn!("the fetched NVRTC at {} did not load", path.display());
        }
        !handle.is_null()
    })
}

/// Whether the NVRTC runtime compiler library can be loaded: from the library path, or the
/// copy `scripts/setup.sh` fetched into the build folder.
pub fn nvrtc_present() -> bool {
    preload_fetched_nvrtc();
    // SAFETY: only tries to dlopen the NVRTC library by its usual names.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// Compiles a CUDA C source to PTX with NVRTC (no GPU needed).
///
/// `name` labels the program in error messages; `arch` is an optional virtual architecture
/// such as `compute_90` (NVRTC's default when `None`).
pub fn compile(source: &str, name: &str, arch: Option<&'static str>) -> Result<Ptx, ComputeError> {
    if !nvrtc_present() {
        return Err(ComputeError::BackendUnavailable {
            backend: "NVRTC",
            reason: "libnvrtc is not on the library path (pip package nvidia-cuda-nvrtc-cu12)"
                .to_owned(),
        });
    }
    let options = CompileOptions {
        name: Some(name.to_owned()),
        arch,
        options: vec!["--std=c++14".to_owned()],
        ..CompileOptions::default()
    };
    cudarc::nvrtc::compile_ptx_with_opts(source, options)
        .map_err(|error| ComputeError::Cuda(format!("{name} did not compile: {error:?}")))
}

/// For tests: `true` when NVRTC is usable; `false` (with a note) when it is not.
///
/// Panics instead of skipping when [`REQUIRE_NVRTC_ENV`] is set, so CI fails loudly.
pub fn nvrtc_or_skip(test: &str) -> bool {
    if nvrtc_present() {
        return true;
    }
    assert!(
        std::env::var_os(REQUIRE_NVRTC_ENV).is_none(),
        "{test}: {REQUIRE_NVRTC_ENV} is set but libnvrtc cannot be loaded (check LD_LIBRARY_PATH)"
    );
    eprintln!("{test}: skipped, libnvrtc not found");
    false
}
