//! Weather and climate panels.

pub mod spectra;
