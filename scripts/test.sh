#!/usr/bin/env bash
# Installs what is missing (scripts/setup.sh), then runs the whole test suite and prints the
# slowest tests at the end. `scripts/test.sh FILTER` runs the tests whose names contain FILTER.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
. scripts/setup.sh
# candle re-reads the CPU topology on every matrix product unless this is set (the app's main
# sets it too); rayon's default is the same number.
export RAYON_NUM_THREADS="${RAYON_NUM_THREADS:-$(nproc)}"
# Each test's time (libtest's --report-time), for the list of the slowest at the end. The option
# is unstable, so the test processes alone get RUSTC_BOOTSTRAP through a runner; compilation
# does not see it (nothing is rebuilt for it).
host=$(rustc -vV | sed -n 's/^host: //p' | tr 'a-z-' 'A-Z_')
export "CARGO_TARGET_${host}_RUNNER=env RUSTC_BOOTSTRAP=1"
# BENCHTOP_LINT=1 (CI) lints the workspace's crates with clippy while they are built for the
# tests (clippy-driver compiles as rustc does, so nothing is compiled twice), every warning an
# error: the same as `cargo clippy --workspace --all-targets -- -D warnings` without its second
# compilation of every dependency.
if [ "${BENCHTOP_LINT:-0}" = 1 ]; then
    RUSTC_WORKSPACE_WRAPPER="$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver)"
    export RUSTC_WORKSPACE_WRAPPER
    export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
fi
log="$repo/target/test-times.log"
mkdir -p "$repo/target"
set +e
cargo test --workspace --locked "$@" -- -Z unstable-options --report-time 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
echo
echo "Slowest tests (seconds; the budget per panel is in docs/benchmarks.md):"
# awk takes the first 15 and still reads to the end: `head` would close the pipe early and, under
# pipefail, sort's SIGPIPE (exit 141) would become the script's status.
sed -n 's/^test \(.*\) \.\.\. ok <\([0-9.]*\)s>$/\2 \1/p' "$log" | sort -rn |
    awk 'NR <= 15 { printf "  %8.1f  %s\n", $1, $2 }'
exit "$status"
