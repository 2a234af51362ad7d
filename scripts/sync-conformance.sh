#!/usr/bin/env bash
# Refreshes tests/conformance/ from the shared conformance set beside the
# repository (conformance/ in ../shared, or the folder given), keeping this
# folder's README. Usage: scripts/sync-conformance.sh [SHARED_CONFORMANCE_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-${CDC_SHARED_DIR:-../shared}/conformance}
if [[ ! -d $src ]]; then
  echo "sync-conformance: no shared conformance set at \"$src\"" >&2
  exit 1
fi
dst=tests/conformance
find "$dst" -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +
cp -R "$src"/. "$dst"/
chmod -R u+w "$dst"
git -C . status --short -- "$dst"
