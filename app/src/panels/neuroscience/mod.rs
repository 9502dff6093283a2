//! Neuroscience panels.

pub mod findr;
