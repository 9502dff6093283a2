//! The candle device neural-network engines run on: the CPU, or CUDA when the crate is built
//! with the `cuda` feature and a CUDA device is present.

use candle_core::Device;

/// The device for candle tensors, and a sentence saying why it was chosen.
pub fn candle_device() -> (Device, String) {
    #[cfg(feature = "cuda")]
    {
        match Device::new_cuda(0) {
            Ok(device) => return (device, "candle on CUDA device 0".to_owned()),
            Err(error) => {
                return (
                    Device::Cpu,
                    format!("candle on the CPU (CUDA device 0 failed: {error})"),
                );
            }
        }
    }
    #[cfg(not(feature = "cuda"))]
    (
        Device::Cpu,
        "candle on the CPU (built without the `cuda` feature)".to_owned(),
    )
}
