#!/usr/bin/env bash
# Installs what is missing (scripts/setup.sh), then runs the whole test suite.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
. scripts/setup.sh
cargo test --workspace --locked "$@"
