#!/usr/bin/env bash
# Scaffolds a new panel crate on the kit and registers it:
#   scripts/new-panel.sh NAME "Display name" FIELD
# NAME is the crate's short name (lowercase letters and digits, e.g. `rcgp`), FIELD one of
# Chemistry, Neuroscience, StatisticalPhysics, Climate, MachineLearning. It writes
# app/panels/NAME (a panel that compiles, runs, has a kittest test and a `benchtop bench NAME`
# entry), projects/NAME-example.ron, docs/panels/NAME.md (its page, with every section the docs
# test asks for), and the two lines that register it (app/Cargo.toml, app/src/catalog.rs). Then:
#   cargo test --workspace --test workbench NAME
# See ARCHITECTURE.md, "Adding a panel in an afternoon".
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -ne 3 ]; then
    sed -n '2,10p' "$0" >&2
    exit 2
fi
name=$1 title=$2 field=$3
[[ "$name" =~ ^[a-z][a-z0-9]*$ ]] || { echo "new-panel: NAME must be lowercase letters and digits: $name" >&2; exit 2; }
case "$field" in Chemistry|Neuroscience|StatisticalPhysics|Climate|MachineLearning) ;;
    *) echo "new-panel: unknown FIELD $field" >&2; exit 2 ;; esac
crate="$repo/app/panels/$name"
[ ! -e "$crate" ] || { echo "new-panel: $crate exists" >&2; exit 1; }
[ ! -e "$repo/docs/panels/$name.md" ] || { echo "new-panel: docs/panels/$name.md exists" >&2; exit 1; }
camel="$(tr '[:lower:]' '[:upper:]' <<< "${name:0:1}")${name:1}"
template="$repo/scripts/panel-template"
fill() {
    sed -e "s/{{name}}/$name/g" -e "s/{{Name}}/$camel/g" -e "s/{{title}}/$title/g" \
        -e "s/{{field}}/$field/g" "$1" > "$2"
}
mkdir -p "$crate/src" "$crate/tests"
fill "$template/Cargo.toml.tmpl" "$crate/Cargo.toml"
fill "$template/src/lib.rs.tmpl" "$crate/src/lib.rs"
fill "$template/src/bench.rs.tmpl" "$crate/src/bench.rs"
fill "$template/tests/panel.rs.tmpl" "$crate/tests/$name.rs"
fill "$template/project.ron.tmpl" "$repo/projects/$name-example.ron"
fill "$template/docs.md.tmpl" "$repo/docs/panels/$name.md"
# Register: the dependency of the app and one line of the catalog.
sed -i "s|^# The panels (the catalog in src/catalog.rs lists them).|&\nbenchtop-panel-$name = { path = \"panels/$name\" }|" "$repo/app/Cargo.toml"
sed -i "s|^    // New panels are registered above this line.|    /// $title.\n    $camel => benchtop_panel_$name::${camel}Panel,\n&|" "$repo/app/src/catalog.rs"
echo "new-panel: wrote app/panels/$name, projects/$name-example.ron and docs/panels/$name.md; registered $camel in app/src/catalog.rs"
echo "new-panel: next: cargo test --workspace --test workbench $name"
