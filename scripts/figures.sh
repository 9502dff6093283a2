#!/usr/bin/env bash
# Exports every example project's figures at its `test` preset and writes one contact sheet per
# project (every figure of it on one page), so that a person sees all of a panel's figures in a
# minute. Usage: scripts/figures.sh [OUT_DIR] [NAME_FILTER]
# Needs imagemagick's `montage` (apt-get install imagemagick); uses target/release/benchtop
# (BENCHTOP_BIN to choose another).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$repo/target/figures}"
filter="${2:-}"
binary="${BENCHTOP_BIN:-$repo/target/release/benchtop}"
command -v montage >/dev/null || { echo "figures.sh: needs imagemagick (montage)" >&2; exit 1; }
[ -x "$binary" ] || { echo "figures.sh: no $binary (cargo build --release --workspace)" >&2; exit 1; }
mkdir -p "$out"
for project in "$repo"/projects/*.ron; do
    name="$(basename "$project" .ron)"
    case "$name" in *"$filter"*) ;; *) continue ;; esac
    dir="$out/$name"
    rm -rf "$dir"
    preset=()
    if grep -q '"test"' "$project"; then preset=(--preset test); fi
    echo "== $name"
    if ! "$binary" run "$project" --out "$dir" --format png --dpi 100 "${preset[@]}" \
        --check-figures >"$dir.log" 2>&1; then
        echo "   failed or figure problems: see $dir.log" >&2
    fi
    mapfile -t pngs < <(find "$dir" -name '*.png' | sort)
    if [ "${#pngs[@]}" -eq 0 ]; then
        echo "   no figures" >&2
        continue
    fi
    montage -label '%t' -pointsize 14 -tile 3x -geometry '640x480>+8+8' -title "$name" \
        "${pngs[@]}" "$out/$name-sheet.png"
    echo "   ${#pngs[@]} figures -> $out/$name-sheet.png"
done
