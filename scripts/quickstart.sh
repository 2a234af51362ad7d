#!/usr/bin/env bash
# Quick start: installs what is missing, builds, and runs the demo pipeline on
# embedded defaults (no server to set up): a datagen table printed, then the inventory
# example's Debezium events on the embedded Kafka broker (kafka-mock) applied to SQLite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
echo "== cdcflow describe"
build/cdcflow describe
echo
echo "== cdcflow run schemas/demo.sql"
build/cdcflow run schemas/demo.sql
echo
# the embedded Kafka broker filled with the inventory example's Debezium events, materialised
# into SQLite by schemas/inventory_demo.sql
scripts/demo.sh build/cdcflow
