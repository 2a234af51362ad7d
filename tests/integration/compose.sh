#!/usr/bin/env bash
# The container deliverables, checked without a container engine: docker-compose.yml is
# valid (`docker-compose config`) and refuses to start without its credentials; every
# pipeline in schemas/ plans (`cdcflow explain`, which opens no connection) with the
# environment docker-compose.yml gives it; the Dockerfile's runtime packages exist in
# Debian 12 and its healthcheck command works.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. docker-compose.yml
if ! command -v docker-compose >/dev/null; then
  bad "docker-compose is not installed (scripts/install-deps.sh installs it)"
else
  (cd "$src" && MYSQL_ROOT_PASSWORD=r CDC_MYSQL_PASSWORD=c POSTGRES_PASSWORD=p \
    docker-compose -f docker-compose.yml config >"$tmp/config.yml" 2>"$tmp/config.err") &&
    ok || bad "docker-compose config: $(cat "$tmp/config.err")"
  for svc in kafka mysql postgres capture apply apply-2; do
    grep -q "^  $svc:" "$tmp/config.yml" && ok || bad "service $svc missing"
  done
  # the cdcflow services mount the pipelines read-only and wait for healthy dependencies
  python3 - "$tmp/config.yml" <<'PY' && ok || bad "compose structure"
import sys, re
text = open(sys.argv[1]).read()
for svc in ("capture", "apply", "apply-2"):
    block = re.search(r"^  %s:\n((?:    .*\n|\n)*)" % re.escape(svc), text, re.M).group(1)
    assert "/etc/cdcflow" in block and "read_only: true" in block or ":ro" in block, svc
    assert "condition: service_healthy" in block, svc
    assert "healthcheck" in block, svc
PY
  (cd "$src" && env -u MYSQL_ROOT_PASSWORD -u CDC_MYSQL_PASSWORD -u POSTGRES_PASSWORD \
    docker-compose -f docker-compose.yml config >/dev/null 2>"$tmp/nocreds.err") &&
    bad "docker-compose config passed without credentials" ||
    { grep -q "set MYSQL_ROOT_PASSWORD\|set CDC_MYSQL_PASSWORD\|set POSTGRES_PASSWORD" "$tmp/nocreds.err" && ok || bad "missing credential message: $(cat "$tmp/nocreds.err")"; }
  grep -Eiq 'password: +[^$ ]' "$src/docker-compose.yml" && bad "a password is written into docker-compose.yml" || ok
fi

# 2. every pipeline plans with the services' environment
export MYSQL_HOST=mysql CDC_MYSQL_PASSWORD=c KAFKA_BOOTSTRAP=kafka:9092 PG_HOST=postgres \
  PG_PASSWORD=p APPLY_GROUP=cdcflow-apply
for f in "$src"/schemas/*.sql; do
  if "$bin" explain "$f" >"$tmp/explain.out" 2>&1; then ok; else
    bad "cdcflow explain $(basename "$f"): $(head -8 "$tmp/explain.out")"
  fi
  grep -q '=c\b\|=p\b' "$tmp/explain.out" && bad "a password shows in EXPLAIN of $(basename "$f")" || true
done

# 3. the Dockerfile
grep -q '^USER cdcflow' "$src/Dockerfile" && ok || bad "the image does not run as a non-root user"
grep -A1 HEALTHCHECK "$src/Dockerfile" | grep -q '"cdcflow", "health"' && ok || bad "no healthcheck in the Dockerfile"
# the runtime image installs what scripts/runtime-packages.sh derives from the binary:
# every library the binary needs, each owned by a Debian 12 package
grep -q 'scripts/runtime-packages.sh /build/cdcflow' "$src/Dockerfile" && ok ||
  bad "the Dockerfile does not derive its runtime packages from the binary"
if runtime=$("$src/scripts/runtime-packages.sh" "$bin" 2>"$tmp/rt.err"); then ok; else
  bad "runtime-packages.sh: $(cat "$tmp/rt.err")"
fi
for lib in $(ldd "$bin" | grep -Eo 'lib(rdkafka|pq|mariadb|sqlite3)[^ ]*' | sort -u); do
  case $lib in
  librdkafka*) p=librdkafka1 ;; libpq*) p=libpq5 ;; libmariadb*) p=libmariadb3 ;; libsqlite3*) p=libsqlite3-0 ;;
  esac
  grep -qx "$p" <<<"$runtime" && ok || bad "the binary links $lib but the runtime packages lack $p"
done
for pkg in $runtime; do
  apt-cache show "$pkg" >/dev/null 2>&1 && ok || bad "runtime package $pkg is not in Debian 12"
done
# the build stage installs what the plugins declare
grep -q 'scripts/plugin-packages.sh' "$src/Dockerfile" && ok || bad "the Dockerfile does not install the plugins' packages"
for pkg in $("$src/scripts/plugin-packages.sh"); do
  apt-cache show "$pkg" >/dev/null 2>&1 && ok || bad "plugin build package $pkg is not in Debian 12"
done

echo "compose: $pass passed, $fail failed"
((fail == 0))
