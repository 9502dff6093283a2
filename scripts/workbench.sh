#!/usr/bin/env bash
# Installs what is missing (scripts/setup.sh), builds Benchtop in release mode and opens the
# workbench. With no display it computes the tour project headlessly and says where the
# figures went.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
. scripts/setup.sh
cargo build --release --locked --bin benchtop
exec target/release/benchtop "$@"
