//! Benchtop: a desktop science workbench of small, real reproductions of ICML 2025 methods.
//!
//! The crate is both the window ([`shell`]) and its headless twin ([`cli`]). Panels
//! ([`panels`]) drive engines from `engines/` on background [`jobs`]; their figures
//! ([`figure`]) render on screen and to SVG, PNG and PDF; projects ([`project`]) save
//! everything, sweeps ([`sweep`]) vary any numeric parameter.

pub mod build_info;
pub mod cli;
pub mod commands;
pub mod export;
pub mod figure;
pub mod jobs;
pub mod panels;
pub mod project;
pub mod session;
pub mod shell;
pub mod sweep;
pub mod undo;
pub mod widgets;
