#!/usr/bin/env bash
# Sourced by integration tests: a throwaway MariaDB 10.11 server.
#   my_start [DBNAME]   mariadb-install-db in a temporary directory, start mariadbd on a
#                       free loopback port with its socket in that directory, create
#                       DBNAME (default "cdcflow") and the user "writer" with password
#                       MY_PASSWORD (default "hunter2"); sets MY_DIR, MY_PORT, MY_SOCK,
#                       MY_DB, MY_URL (jdbc url) and installs an EXIT trap that calls
#                       my_stop.
#   my_stop             shuts the server down and removes the directory (idempotent).
#   my_sql ARGS...      the mariadb client as root over the socket, on MY_DB.
#   my_restart          shutdown and start again on the same port and directory.
# MY_EXTRA_ARGS (optional, word-split) adds server options after the defaults, e.g.
#   MY_EXTRA_ARGS="--log-bin=bin --binlog-format=ROW --binlog-row-metadata=FULL --server-id=1"
# A missing server binary or a server that does not come up is an error (return 1), never
# a skip: callers count it as a failure.
MY_BIN=${MY_BIN:-/usr/sbin}
MY_PASSWORD=${MY_PASSWORD:-hunter2}

# Starts mariadbd on MY_PORT in the background and waits (bounded) until it answers.
my_launch() {
  "$MY_BIN/mariadbd" --no-defaults --datadir="$MY_DIR/data" --socket="$MY_SOCK" \
    --port="$MY_PORT" --bind-address=127.0.0.1 --user=root --log-error="$MY_DIR/err.log" \
    --pid-file="$MY_DIR/mariadbd.pid" --character-set-server=utf8mb4 \
    --collation-server=utf8mb4_bin --innodb-buffer-pool-size=64M --innodb-log-file-size=16M \
    --innodb-flush-log-at-trx-commit=2 --tmpdir="$MY_DIR" --skip-log-bin ${MY_EXTRA_ARGS:-} \
    >/dev/null 2>&1 &
  MY_PID=$!
  local i
  for i in $(seq 1 300); do
    if mariadb-admin --no-defaults --socket="$MY_SOCK" -u root ping >/dev/null 2>&1; then
      return 0
    fi
    if ! kill -0 "$MY_PID" 2>/dev/null; then
      return 1
    fi
    sleep 0.1
  done
  return 1
}

my_start() {
  local db=${1:-cdcflow}
  if [[ ! -x $MY_BIN/mariadbd ]] || ! command -v mariadb-install-db >/dev/null ||
    ! command -v mariadb-admin >/dev/null || ! command -v mariadb >/dev/null; then
    echo "my_start: no MariaDB server or client (install mariadb-server and mariadb-client)" >&2
    return 1
  fi
  MY_DIR=$(mktemp -d /tmp/cdcflow-my.XXXXXX) || return 1
  trap my_stop EXIT
  MY_SOCK=$MY_DIR/sock
  # TMPDIR: parallel installs would collide on temporary table names in a shared /tmp
  if ! TMPDIR=$MY_DIR mariadb-install-db --no-defaults --datadir="$MY_DIR/data" --user=root \
    --auth-root-authentication-method=normal --skip-test-db >"$MY_DIR/install.log" 2>&1; then
    echo "my_start: mariadb-install-db failed" >&2
    cat "$MY_DIR/install.log" >&2
    return 1
  fi
  local port
  MY_PORT=
  for port in $(seq 53306 53405); do
    # a port someone listens on is taken; a server that fails to bind moves us on too
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
    MY_PORT=$port
    if my_launch; then break; fi
    kill "$MY_PID" 2>/dev/null
    wait "$MY_PID" 2>/dev/null
    MY_PORT=
  done
  if [[ -z $MY_PORT ]]; then
    echo "my_start: the server did not start" >&2
    cat "$MY_DIR/err.log" >&2 2>/dev/null
    return 1
  fi
  MY_DB=$db
  if ! mariadb --no-defaults --socket="$MY_SOCK" -u root -e \
    "CREATE DATABASE \`$MY_DB\`; CREATE USER 'writer'@'%' IDENTIFIED BY '$MY_PASSWORD';
     GRANT ALL ON \`$MY_DB\`.* TO 'writer'@'%';"; then
    echo "my_start: could not create the database and user" >&2
    return 1
  fi
  MY_URL="jdbc:mysql://127.0.0.1:$MY_PORT/$MY_DB"
  export MY_DIR MY_PORT MY_SOCK MY_DB MY_URL MY_PASSWORD
}

my_sql() {
  mariadb --no-defaults --default-character-set=utf8mb4 --socket="$MY_SOCK" -u root "$MY_DB" "$@"
}

my_restart() {
  mariadb-admin --no-defaults --socket="$MY_SOCK" -u root shutdown >/dev/null 2>&1 || return 1
  wait "$MY_PID" 2>/dev/null
  my_launch
}

my_stop() {
  if [[ -n ${MY_DIR:-} && -d $MY_DIR ]]; then
    if [[ -n ${MY_PID:-} ]] && kill -0 "$MY_PID" 2>/dev/null; then
      mariadb-admin --no-defaults --socket="$MY_SOCK" -u root shutdown >/dev/null 2>&1 ||
        kill "$MY_PID" 2>/dev/null
      wait "$MY_PID" 2>/dev/null
    fi
    rm -rf "$MY_DIR"
  fi
  MY_DIR=
}
