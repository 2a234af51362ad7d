#!/usr/bin/env bash
# Rewrites docs/REFERENCE.md from the option tables (cdcflow describe --markdown).
# Usage: scripts/gen-reference.sh [CDCFLOW_BINARY]   (default build/cdcflow)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/cdcflow}
"$bin" describe --markdown >docs/REFERENCE.md
echo "wrote docs/REFERENCE.md"
