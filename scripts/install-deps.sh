#!/usr/bin/env bash
# Installs every Debian 12 package cdcflow needs to build, test and benchmark.
# Idempotent: installs only what is missing. Run as root (or through sudo).
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  librdkafka-dev kafkacat # the core's embedded broker (kafka-mock); kcat proves interoperability
  librocksdb-dev         # the core's keyed state of the stateful operators (src/exec/cdc_state.c)
  sqlite3                # the sqlite3 shell the jdbc tests read their tables with
  postgresql             # PostgreSQL 15 server for the jdbc_postgres tests
  mariadb-server mariadb-client # MariaDB 10.11 server and client for the jdbc_mysql tests
  libcriterion-dev       # unit tests
  clang libclang-rt-14-dev # libFuzzer targets and sanitizer runtimes
  python3 time           # benchmark peers and the tests' Schema Registry; GNU time: peak RSS
  python3-psycopg2       # the Python peer of bench/pg_sink.sh and bench/kafka_pg.sh
  curl tmux              # tests: the metrics endpoint; the live status line on a terminal
  docker-compose         # tests: `docker-compose config` validates docker-compose.yml (no engine)
  python3-mysqldb        # the Python peer of bench/mysql_sink.sh and bench/kafka_mysql.sh
  python3-confluent-kafka # the Kafka consumer of the Python peer of bench/kafka_pg.sh, kafka_mysql.sh
)

# each plugin's own build packages, declared in its folder (PACKAGES in its cdc_plugin() call)
mapfile -t plugin_packages < <("$(dirname "$0")/plugin-packages.sh")
packages+=("${plugin_packages[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
