#!/usr/bin/env bash
# Every `benchtop bench` entry against its peer script, side by side, in one table:
#   scripts/bench-all.sh [--repeats 3] [--threads N] [--only ising,hymn] [--markdown] [--json FILE]
# Benchtop and the peer run alternately (A, B, A, B, ...); each side's median is reported, with
# the ratio Benchtop / peer (below 1: Benchtop is faster) and the observable each side computed.
# Threads: RAYON_NUM_THREADS on Benchtop's side, torch / numba / BLAS threads on the peer's, both
# --threads (default: one per core). The peers' packages (PyPI: torch, numba, ducc0, rdkit,
# scipy, scikit-learn) go into .venv-bench/ at the repository root on first use; a peer that
# cannot be installed or fails gets a row that says so. BENCHTOP=path overrides the binary
# (default target/release/benchtop, built with `cargo build --release --workspace` when missing);
# BENCH_VENV=path the virtual environment. `--list` lists the engines. Progress goes to stderr.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
benchtop="${BENCHTOP:-$repo/target/release/benchtop}"
if [ ! -x "$benchtop" ]; then
    echo "bench-all: building the release binary" >&2
    cargo build --release --workspace --locked >&2
fi
venv="${BENCH_VENV:-$repo/.venv-bench}"
if [ ! -x "$venv/bin/python" ]; then
    echo "bench-all: making the peers' virtual environment $venv" >&2
    python3 -m venv "$venv"
fi
exec "$venv/bin/python" scripts/bench_all.py --benchtop "$benchtop" --python "$venv/bin/python" "$@"
