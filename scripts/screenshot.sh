#!/usr/bin/env bash
# Opens the workbench in a virtual X display (Xvfb), waits, and saves a screenshot.
# Usage: scripts/screenshot.sh OUT.png [PROJECT.ron] [SECONDS]
# Needs: xvfb and imagemagick (apt-get install xvfb imagemagick); xdotool, when present, parks
# the pointer in a corner so that no tooltip or crosshair shows. The app starts with a fresh
# home folder, so it opens as a new user sees it (the tour, or PROJECT) with no earlier session
# or recovery file.
set -euo pipefail
out=${1:?usage: scripts/screenshot.sh OUT.png [PROJECT.ron] [SECONDS]}
project=${2:-}
wait_s=${3:-20}
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binary="${BENCHTOP_BIN:-$repo/target/release/benchtop}"
display=":$((90 + RANDOM % 9))"
Xvfb "$display" -screen 0 1600x1000x24 >/dev/null 2>&1 &
xvfb=$!
home="$(mktemp -d)"
trap 'kill $app $xvfb 2>/dev/null || true; rm -rf "$home"' EXIT
sleep 1
fresh=(env HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share"
    XDG_CACHE_HOME="$home/.cache" XDG_STATE_HOME="$home/.local/state" DISPLAY="$display")
if [ -n "$project" ]; then
    "${fresh[@]}" "$binary" open "$project" &
else
    "${fresh[@]}" "$binary" &
fi
app=$!
sleep 2
if command -v xdotool >/dev/null; then
    DISPLAY="$display" xdotool mousemove 1599 999
fi
sleep "$wait_s"
# The app's window alone when xdotool can find it, else the whole screen.
window=root
if command -v xdotool >/dev/null; then
    window=$(DISPLAY="$display" xdotool search --name Benchtop 2>/dev/null | tail -1)
    window=${window:-root}
fi
DISPLAY="$display" import -window "$window" "$out"
echo "screenshot: $out"
