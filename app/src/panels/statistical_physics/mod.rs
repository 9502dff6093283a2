//! Statistical physics panels.

pub mod ising;
