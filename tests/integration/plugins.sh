#!/usr/bin/env bash
# The plugin build: every folder under formats/ and connectors/ is one
# cdc_add_plugin() line and one cdc_plugin() call; each has its on/off switch,
# the registry list is generated from the enabled ones, and a plugin whose
# dependency is switched off is refused at configure time. Configures only
# (a few seconds): nothing is compiled.
set -uo pipefail
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$(dirname "$0")/lib/checks.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for kind in formats connectors; do
  for d in "$src/$kind"/*/; do
    name=$(basename "$d")
    grep -qx "cdc_add_plugin($name)" "$src/$kind/CMakeLists.txt" && ok ||
      bad "$kind/$name has no cdc_add_plugin($name) line in $kind/CMakeLists.txt"
    grep -q '^cdc_plugin(' "$d/CMakeLists.txt" 2>/dev/null && ok ||
      bad "$kind/$name/CMakeLists.txt has no cdc_plugin() call"
  done
done

configure() { cmake -S "$src" -B "$tmp/b" -DCDC_TESTS=OFF "$@" >"$tmp/log" 2>&1; }
list=$tmp/b/generated/cdc_registry_list.h

configure && ok || bad "the default configure failed: $(tail -5 "$tmp/log")"
for sym in $(grep -ho 'cdc_\(format\|connector\)_[a-z_]* = {' "$src"/formats/*/*.c "$src"/connectors/*/*.c | cut -d' ' -f1); do
  grep -q "($sym)" "$list" && ok || bad "factory $sym is not in the generated registry"
done

configure -DCDC_PLUGIN_OGG_JSON=OFF -DCDC_PLUGIN_KAFKA=OFF && ok || bad "configure with plugins off failed"
grep -q 'cdc_format_ogg_json\|cdc_connector_kafka\|cdc_connector_upsert_kafka' "$list" &&
  bad "switched-off plugins are still in the registry" || ok
grep -q '(cdc_format_json)' "$list" && ok || bad "the other plugins left the registry"

rm -rf "$tmp/b"
if configure -DCDC_PLUGIN_JSON=OFF; then bad "json off with its dependents on was accepted"; else
  grep -q 'plugin csv needs plugin json' "$tmp/log" && ok || bad "no dependency error: $(tail -5 "$tmp/log")"
fi
echo "plugins: $pass passed, $fail failed"
((fail == 0))
