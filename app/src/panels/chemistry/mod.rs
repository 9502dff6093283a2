//! Chemistry panels.

pub mod molstitch;
