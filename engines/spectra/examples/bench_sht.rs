//! Prints one JSON line with SHT timings, like `benchtop bench sht` (used by
//! `scripts/bench_sht_peer.py` when the CLI binary is not built).
//!
//! `cargo run --release -p benchtop-spectra --example bench_sht -- --nlat 181 --nlon 360 --lmax 179
//! [--batch B] [--backend cpu|wgpu] [--grid equiangular|gauss] [--repeats R]`
//! (threads: `RAYON_NUM_THREADS`).

use std::io::Write as _;

use benchtop_spectra::GridKind;
use benchtop_spectra::bench::{BenchParams, bench_sht_with};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut params = BenchParams::default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).ok_or("every flag needs a value")?;
        match pair[0].as_str() {
            "--nlat" => params.nlat = value.parse()?,
            "--nlon" => params.nlon = value.parse()?,
            "--lmax" => params.lmax = value.parse()?,
            "--batch" => params.batch = value.parse()?,
            "--repeats" => params.repeats = value.parse()?,
            "--backend" => params.backend.clone_from(value),
            "--grid" => {
                params.grid = match value.as_str() {
                    "gauss" => GridKind::GaussLegendre,
                    "equiangular" => GridKind::Equiangular,
                    other => return Err(format!("unknown grid {other}").into()),
                }
            }
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    let report = bench_sht_with(&params)?;
    writeln!(std::io::stdout(), "{report}")?;
    Ok(())
}
