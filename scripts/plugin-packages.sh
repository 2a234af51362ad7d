#!/usr/bin/env bash
# Prints the Debian build packages the plugins declare, one per line: the
# PACKAGES lines of the cdc_plugin() calls in formats/*/CMakeLists.txt and
# connectors/*/CMakeLists.txt (the convention of cmake/CdcPlugin.cmake: the
# keyword PACKAGES and its packages on one line). Used by install-deps.sh and
# the Dockerfile, so a plugin's dependencies are declared only in its folder.
set -euo pipefail
cd "$(dirname "$0")/.."
sed -n 's/^[[:space:]]*PACKAGES[[:space:]]\+\([^)]*\).*$/\1/p' \
  formats/*/CMakeLists.txt connectors/*/CMakeLists.txt | tr ' \t' '\n\n' | sed '/^$/d' | sort -u
