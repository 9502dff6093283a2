#!/usr/bin/env bash
# Scaffolds a new panel crate on the kit and registers it:
#   scripts/new-panel.sh NAME "Display name" FIELD
# NAME is the crate's short name (lowercase letters and digits, e.g. `rcgp`), FIELD one of
# Chemistry, Neuroscience, StatisticalPhysics, Climate, MachineLearning. It writes
# app/panels/NAME (a panel that compiles, runs and has a kittest test), projects/NAME-example.ron,
# and the two lines that register it (app/Cargo.toml, app/src/catalog.rs). Then:
#   cargo test --workspace --test workbench NAME
# See ARCHITECTURE.md, "Adding a panel in an afternoon".
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -ne 3 ]; then
    sed -n '2,9p' "$0" >&2
    exit 2
fi
name=$1 title=$2 field=$3
[[ "$name" =~ ^[a-z][a-z0-9]*$ ]] || { echo "new-panel: NAME must be lowercase letters and digits: $name" >&2; exit 2; }
case "$field" in Chemistry|Neuroscience|StatisticalPhysics|Climate|MachineLearning) ;;
    *) echo "new-panel: unknown FIELD $field" >&2; exit 2 ;; esac
crate="$repo/app/panels/$name"
[ ! -e "$crate" ] || { echo "new-panel: $crate exists" >&2; exit 1; }
camel="$(tr '[:lower:]' '[:upper:]' <<< "${name:0:1}")${name:1}"
template="$repo/scripts/panel-template"
fill() {
    sed -e "s/{{name}}/$name/g" -e "s/{{Name}}/$camel/g" -e "s/{{title}}/$title/g" \
        -e "s/{{field}}/$field/g" "$1" > "$2"
}
mkdir -p "$crate/src" "$crate/tests"
fill "$template/Cargo.toml.tmpl" "$crate/Cargo.toml"
fill "$template/src/lib.rs.tmpl" "$crate/src/lib.rs"
fill "$template/tests/panel.rs.tmpl" "$crate/tests/$name.rs"
fill "$template/project.ron.tmpl" "$repo/projects/$name-example.ron"
# Register: the dependency of the app and one line of the catalog.
sed -i "s|^# The panels (the catalog in src/catalog.rs lists them).|&\nbenchtop-panel-$name = { path = \"panels/$name\" }|" "$repo/app/Cargo.toml"
sed -i "s|^    // New panels are registered above this line.|    /// $title.\n    $camel => benchtop_panel_$name::${camel}Panel,\n&|" "$repo/app/src/catalog.rs"
echo "new-panel: wrote app/panels/$name and projects/$name-example.ron; registered $camel in app/src/catalog.rs"
echo "new-panel: next: cargo test --workspace --test workbench $name"
