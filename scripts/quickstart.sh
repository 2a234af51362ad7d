#!/usr/bin/env bash
# Quick start: installs what is missing, builds, and runs the demo pipeline on
# embedded defaults (no server to set up).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
echo "== cdcflow describe"
build/cdcflow describe
echo
echo "== cdcflow run schemas/demo.sql"
build/cdcflow run schemas/demo.sql
