#!/usr/bin/env bash
# docs/ARCHITECTURE.md stays true: every path it names exists, every function
# or type it names is defined in the sources, and every folder under src/
# and every plugin folder is mentioned.
set -uo pipefail
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$(dirname "$0")/lib/checks.sh"
doc=$src/docs/ARCHITECTURE.md
[[ -s $doc ]] || { echo "FAIL docs/ARCHITECTURE.md is missing"; exit 1; }

# `things in backticks`, one per line
words=$(grep -o '`[^`]*`' "$doc" | tr -d '`' | sort -u)

# paths: anything with a slash that is not a placeholder (<name>) or an expression (->)
while IFS= read -r w; do
  [[ $w == */* && $w != *'<'* && $w != *'->'* && $w != *' '* ]] || continue
  # a path from the repository root, or a layer folder under src/; globs must match something
  if compgen -G "$src/$w" >/dev/null || [[ -e $src/src/$w ]]; then ok; else
    bad "ARCHITECTURE.md names $w, which does not exist"
  fi
done <<<"$words"

# identifiers: lower-case C names with an underscore (functions, types, ops, tables)
code_dirs=("$src/src" "$src/formats" "$src/connectors")
while IFS= read -r w; do
  [[ $w =~ ^[a-z][a-z0-9_]*_[a-z0-9_]+$ ]] || continue
  if grep -rqE "(^|[^a-z0-9_])$w *(\(|\)|=| \*|;|$|,|\[)" --include='*.[ch]' "${code_dirs[@]}"; then
    ok
  else
    bad "ARCHITECTURE.md names $w, which no source defines"
  fi
done <<<"$words"
# and the ops named as reader->ops->poll / writer->ops->flush are members of cdc_plugin.h
for op in $(grep -o 'ops->[a-z_]*' "$doc" | sort -u | cut -d'>' -f2); do
  grep -qE "\(\*$op\)" "$src/src/cdc_plugin.h" && ok || bad "ARCHITECTURE.md names ops->$op, not in cdc_plugin.h"
done

# every layer folder is on the map
for d in "$src"/src/*/; do
  rel=${d#"$src"/}
  grep -q "$rel" "$doc" && ok || bad "ARCHITECTURE.md does not mention $rel"
done

# the layers include only headers of their own layer, of the layers before them, or the
# top-level ones; the planner's two known uses of exec/ are the exceptions the page names
order=(core sql expr plan exec cli)
for ((i = 0; i < ${#order[@]}; i++)); do
  layer=${order[i]}
  allowed=" ${order[*]:0:i+1} top "
  for h in $(grep -ho '#include "cdc_[a-z_]*\.h"' "$src/src/$layer"/* | sort -u | sed 's/#include "//; s/"//'); do
    home=top
    for l in "${order[@]}"; do [[ -e $src/src/$l/$h ]] && home=$l; done
    [[ $h == cdc_registry_list.h ]] && home=top # generated
    if [[ $allowed == *" $home "* || ($layer == plan && $h == cdc_lookup.h) ]]; then ok; else
      bad "src/$layer includes $h of the later layer $home"
    fi
  done
done
# plugins include no core header but cdc_plugin.h and cdc.h
for f in "$src"/formats/*/*.[ch] "$src"/connectors/*/*.[ch]; do
  for h in $(grep -ho '#include "cdc_[a-z_]*\.h"' "$f" | sed 's/#include "//; s/"//'); do
    [[ $h == cdc_plugin.h || $h == cdc.h || ! -e $(ls "$src"/src/*/"$h" 2>/dev/null | head -1) ]] && ok ||
      bad "${f#"$src"/} includes the core header $h (plugins include cdc_plugin.h)"
  done
done
echo "architecture: $pass passed, $fail failed"
((fail == 0))
