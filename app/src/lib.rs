//! Benchtop: a desktop science workbench of small, real reproductions of ICML 2025 methods.
//!
//! This crate is the window ([`shell`]) and its headless twin ([`cli`]), over the panel kit
//! (`benchtop-kit`) and the panels registered in the [`catalog`]. A [`session`] is the open
//! project: its panels, sweeps and layout.

pub mod build_info;
pub mod catalog;
pub mod cli;
pub mod cluster;
pub mod commands;
pub mod session;
pub mod shell;
