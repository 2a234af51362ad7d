#!/usr/bin/env bash
# Sourced by integration tests: a throwaway PostgreSQL 15 server.
#   pg_start [DBNAME]   initdb in a temporary directory owned by postgres, start the
#                       server on a free loopback port with its socket in that
#                       directory, create DBNAME (default "cdcflow"); sets PG_DIR,
#                       PG_PORT, PG_SOCK, PG_DB, PG_URL (jdbc url) and installs an
#                       EXIT trap that calls pg_stop.
#   pg_stop             stops the server and removes the directory (idempotent).
#   pg_psql ARGS...     psql -X -v ON_ERROR_STOP=1 against PG_DB as postgres.
#   pg_restart          pg_ctl restart -m fast, on the same port.
#   pg_server_ticks     clock ticks of CPU the server used so far (benchmarks).
# PG_INITDB_ARGS, when set, adds initdb options (e.g. --wal-segsize=1 for small WAL segments).
# A missing server binary or a server that does not come up is an error (return 1), never
# a skip: callers count it as a failure.
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

pg_as() { (cd / && runuser -u postgres -- "$@"); }

pg_start() {
  local db=${1:-cdcflow}
  if [[ ! -x $PG_BIN/initdb || ! -x $PG_BIN/pg_ctl || ! -x $PG_BIN/postgres ]]; then
    echo "pg_start: no PostgreSQL 15 server in $PG_BIN (install the postgresql package)" >&2
    return 1
  fi
  if ! id postgres >/dev/null 2>&1; then
    echo "pg_start: no postgres user" >&2
    return 1
  fi
  PG_DIR=$(mktemp -d /tmp/cdcflow-pg.XXXXXX) || return 1
  chown postgres: "$PG_DIR"
  chmod 700 "$PG_DIR"
  trap pg_stop EXIT
  PG_SOCK=$PG_DIR
  # shellcheck disable=SC2086 # PG_INITDB_ARGS is a list of words
  if ! pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U postgres ${PG_INITDB_ARGS:-} >"$PG_DIR/initdb.log" 2>&1; then
    echo "pg_start: initdb failed" >&2
    cat "$PG_DIR/initdb.log" >&2
    return 1
  fi
  local port
  for port in $(seq 55432 55531); do
    # a port someone listens on is taken; a server that fails to bind moves us on too
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
    if pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
      -o "-p $port -k $PG_SOCK -c listen_addresses=127.0.0.1 -c fsync=off -c log_connections=on -c wal_level=logical" start >/dev/null 2>&1; then
      PG_PORT=$port
      break
    fi
  done
  if [[ -z ${PG_PORT:-} ]]; then
    echo "pg_start: the server did not start" >&2
    cat "$PG_DIR/server.log" >&2 2>/dev/null
    return 1
  fi
  PG_DB=$db
  if ! pg_as "$PG_BIN/createdb" -h "$PG_SOCK" -p "$PG_PORT" -U postgres "$PG_DB"; then
    echo "pg_start: createdb failed" >&2
    return 1
  fi
  PG_URL="jdbc:postgresql://127.0.0.1:$PG_PORT/$PG_DB"
  export PG_DIR PG_PORT PG_SOCK PG_DB PG_URL
}

pg_psql() {
  PGTZ=UTC psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d "$PG_DB" "$@"
}

pg_restart() {
  pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 -m fast restart \
    >/dev/null 2>&1
}

pg_stop() {
  if [[ -n ${PG_DIR:-} && -d $PG_DIR ]]; then
    if [[ -f $PG_DIR/data/postmaster.pid ]]; then
      pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -w -t 60 -m immediate stop >/dev/null 2>&1
    fi
    rm -rf "$PG_DIR"
  fi
  PG_DIR=
}

# Clock ticks the server used so far: the postmaster, its live children and reaped ones.
pg_server_ticks() {
  local pid t c
  pid=$(head -1 "$PG_DIR/data/postmaster.pid")
  sleep 0.2 # let the postmaster reap a backend that just ended
  t=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$pid/stat")
  for c in $(cat "/proc/$pid/task/$pid/children" 2>/dev/null); do
    t=$((t + $(awk '{print $14 + $15}' "/proc/$c/stat" 2>/dev/null || echo 0)))
  done
  echo "$t"
}
