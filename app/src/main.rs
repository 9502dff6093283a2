//! Benchtop binary.
fn main() {}
