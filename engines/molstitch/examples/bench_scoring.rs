//! Times property scoring of the shipped offline set (5,000 MOSES SMILES), repeated N times
//! (default 1), on 1 thread and on every available thread, and prints one JSON object per line.
//! `scripts/bench_molstitch_peer.py` runs it next to Python RDKit.
//!
//! `cargo run --release -p benchtop-molstitch --example bench_scoring -- 1`
#![allow(clippy::print_stdout)]

use benchtop_molstitch::bench::bench_scoring;
use benchtop_molstitch::offline::offline_smiles;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let repeats: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(1);
    let base = offline_smiles()?;
    let smiles: Vec<String> = (0..repeats).flat_map(|_| base.iter().cloned()).collect();
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let mut counts = vec![1];
    if threads > 1 {
        counts.push(threads);
    }
    for t in counts {
        println!("{}", serde_json::to_string(&bench_scoring(&smiles, t))?);
    }
    Ok(())
}
