//! The crossover baseline: random BRICS crossover of the offline pool.

use benchtop_compute::rng::EngineRng;
use rand::Rng as _;

use super::stitch::{Child, FragmentCache, cross};

/// `budget` children of uniformly random parent pairs of `pool` (each a random fragment of one
/// parent stitched to a compatible fragment of the other); failed crossovers are retried, up
/// to 50 attempts per child. Duplicates are kept (each child is one oracle call).
pub fn random_crossover(
    pool: &[String],
    budget: usize,
    cache: &mut FragmentCache,
    rng: &mut EngineRng,
) -> Vec<Child> {
    let mut out = Vec::with_capacity(budget);
    if pool.len() < 2 {
        return out;
    }
    let mut attempts = 0;
    while out.len() < budget && attempts < 50 * budget {
        attempts += 1;
        let a = rng.random_range(0..pool.len());
        let b = rng.random_range(0..pool.len());
        if a == b {
            continue;
        }
        if let Some(child) = cross(&pool[a], &pool[b], cache, rng) {
            out.push(child);
        }
    }
    out
}
