//! Single-spin Metropolis with the plaquette term (the duality paper's sampler).
