//! WGSL shaders used by Benchtop, embedded at compile time.
//!
//! One file per kernel family; each is parsed and validated with naga in this crate's tests,
//! so a shader that does not compile fails the test suite without needing a GPU.

/// Checkerboard Metropolis for the Ising model with plaquette coupling (compute, entry `update`).
pub const ISING_CHECKERBOARD: &str = include_str!("../ising_checkerboard.wgsl");

/// Draws a packed Ising lattice from its GPU buffer (render, entries `vs_main` / `fs_main`).
pub const ISING_VIEW: &str = include_str!("../ising_view.wgsl");

/// Every shader with its file name, for validation and diagnostics.
pub const ALL: &[(&str, &str)] = &[
    ("ising_checkerboard.wgsl", ISING_CHECKERBOARD),
    ("ising_view.wgsl", ISING_VIEW),
];

#[cfg(test)]
mod tests {
    use super::ALL;

    #[test]
    fn every_shader_parses_and_validates() {
        for (name, source) in ALL {
            let module = naga::front::wgsl::parse_str(source)
                .unwrap_or_else(|error| panic!("{name}: {}", error.emit_to_string(source)));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::empty(),
            )
            .validate(&module)
            .unwrap_or_else(|error| panic!("{name}: {}", error.emit_to_string(source)));
        }
    }
}
