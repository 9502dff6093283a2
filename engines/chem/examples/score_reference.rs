//! Times property scoring (parse + canonical SMILES, MW, logP, TPSA, QED, SA) of the valid
//! SMILES of `tests/data/reference.csv`, repeated N times (default 20), and prints molecules
//! per second. Compare with `python3 scripts/make_molstitch_reference.py --bench 20`.
//!
//! `cargo run --release -p benchtop-chem --example score_reference -- 20`
#![allow(clippy::print_stdout)]

use std::time::Instant;

use benchtop_chem::props::{Properties, score_all_parallel};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let repeats: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(20);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/reference.csv");
    let mut smiles = Vec::new();
    for record in csv::Reader::from_path(path)?.records() {
        let record = record?;
        if record[7].is_empty() {
            smiles.push(record[0].to_owned());
        }
    }
    // Warm-up: loads the SA table and compiles the QED patterns.
    Properties::from_smiles("CCO")?;
    let start = Instant::now();
    let mut checksum = 0.0;
    for _ in 0..repeats {
        for s in &smiles {
            let p = Properties::from_smiles(s)?;
            checksum += p.qed + p.sa;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let n = repeats * smiles.len();
    println!(
        "rust benchtop-chem, 1 thread: {n} molecules (parse + canonical, MW, logP, TPSA, QED, SA) in {seconds:.3} s = {:.0} molecules/s (checksum {checksum:.4})",
        n as f64 / seconds
    );
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let all: Vec<&str> = (0..repeats)
        .flat_map(|_| smiles.iter().map(String::as_str))
        .collect();
    let start = Instant::now();
    let scored = score_all_parallel(&all, threads);
    let seconds = start.elapsed().as_secs_f64();
    let ok = scored.iter().filter(|r| r.is_ok()).count();
    println!(
        "rust benchtop-chem, {threads} threads: {ok}/{n} molecules in {seconds:.3} s = {:.0} molecules/s",
        n as f64 / seconds
    );
    Ok(())
}
