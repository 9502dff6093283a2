#!/usr/bin/env bash
# Opens the workbench in a virtual X display (Xvfb), waits, and saves a screenshot.
# Usage: scripts/screenshot.sh OUT.png [PROJECT.ron] [SECONDS]
# Needs: xvfb and imagemagick (apt-get install xvfb imagemagick).
set -euo pipefail
out=${1:?usage: scripts/screenshot.sh OUT.png [PROJECT.ron] [SECONDS]}
project=${2:-}
wait_s=${3:-20}
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binary="${BENCHTOP_BIN:-$repo/target/release/benchtop}"
display=":$((90 + RANDOM % 9))"
Xvfb "$display" -screen 0 1600x1000x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $app $xvfb 2>/dev/null || true' EXIT
sleep 1
if [ -n "$project" ]; then
    DISPLAY="$display" "$binary" open "$project" &
else
    DISPLAY="$display" "$binary" &
fi
app=$!
sleep "$wait_s"
DISPLAY="$display" import -window root "$out"
echo "screenshot: $out"
