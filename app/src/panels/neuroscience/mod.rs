//! Neuroscience panels.

pub mod findr;
pub mod neurotree;
