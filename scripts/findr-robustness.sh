#!/usr/bin/env bash
# FINDR on data it was not tuned for: fits every scenario of
# engines/findr/src/robustness.rs (double well, line attractor and single focus from a pulse task;
# softplus and exponential links; 10–20 ms bins; 200–800 trials; 30–200 neurons; with and without
# drifting baselines; one set whose latent never reaches the spikes) with the default one-click
# settings (data seed 1, fit seed 1) and prints the markdown table of docs/benchmarks.md.
#
#   scripts/findr-robustness.sh                      # every row
#   FINDR_ROWS=0,3 scripts/findr-robustness.sh       # some rows (0-based)
#   FINDR_RESTARTS=1 scripts/findr-robustness.sh     # one fit per row (the default is three)
#
# Builds the engine's tests in release (the engine alone, as docs/benchmarks.md's other engine
# runs); one thread for candle's small matrices, as `benchtop` sets it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export RAYON_NUM_THREADS="${RAYON_NUM_THREADS:-1}"
exec cargo test --release -p benchtop-findr --lib findr_robustness_table -- --ignored --nocapture
