#!/usr/bin/env bash
# Installs what is missing (scripts/setup.sh), then runs the whole test suite.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
. scripts/setup.sh
# candle re-reads the CPU topology on every matrix product unless this is set (the app's main
# sets it too); rayon's default is the same number.
export RAYON_NUM_THREADS="${RAYON_NUM_THREADS:-$(nproc)}"
cargo test --workspace --locked "$@"
