#!/usr/bin/env bash
# docs/REFERENCE.md is what the option tables say now: it is generated, and a stale copy
# (an option added, renamed or re-described without regenerating) fails here.
set -uo pipefail
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$bin" describe --markdown >"$tmp" || { echo "FAIL describe --markdown exited $?"; exit 1; }
if ! diff -u "$src/docs/REFERENCE.md" "$tmp" >"$tmp.diff"; then
  echo "FAIL docs/REFERENCE.md is stale; run scripts/gen-reference.sh and commit it"
  head -30 "$tmp.diff"
  rm -f "$tmp.diff"
  exit 1
fi
rm -f "$tmp.diff"
# every connector and format has its section
for name in $("$bin" describe | awk '/^  [a-z]/ {print $1}'); do
  grep -q -- "-$name\$" "$src/docs/REFERENCE.md" || { echo "FAIL no section for $name"; exit 1; }
done
echo "reference: up to date"
