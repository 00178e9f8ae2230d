#!/usr/bin/env bash
# pg_server.sh - a private PostgreSQL server for the tests (issue 21).
#
#   pg_server.sh start [--durable] DIR
#                            make a cluster in DIR (initdb; DIR must not exist
#                            or be empty), start it, print its URI on stdout:
#                            postgresql:///mfprio_test?host=DIR/sock&user=mfprio_test
#                            (the MFPRIO_TEST_PG of the tests; with --durable,
#                            the MFPRIO_BENCH_PG of ./dev bench)
#   pg_server.sh stop DIR    stop it (fast shutdown) and remove DIR
#   pg_server.sh uri DIR     print the URI of a running server again
#
# The server listens on no TCP address (listen_addresses=''), only on a Unix
# socket in DIR/sock (mode 0700 directory, owned by the server's user), with
# local "trust" authentication: only processes that may enter DIR connect.
# For test speed it runs with fsync=off, synchronous_commit=off and
# full_page_writes=off: a crash of the machine loses the test cluster, which
# nobody keeps (a test that kills a client or a backend still sees the
# server's normal transactional behaviour).  --durable (the benchmarks) keeps
# PostgreSQL's defaults instead: fsync=on, synchronous_commit=on,
# full_page_writes=on (every COMMIT waits for its WAL flush), as a site runs it.
#
# initdb refuses root: run as root, the cluster belongs to the user
# MFPRIO_PG_USER (default: nobody) and every server command runs as that user
# (runuser); DIR is made and owned by it.  The test role mfprio_test is a
# superuser of that cluster (it creates a database per test and drops
# connections with pg_terminate_backend); the database mfprio_test is the one
# the URI names.  Binaries: PG_BINDIR, else /usr/lib/postgresql/<newest>/bin,
# else PATH.
set -euo pipefail

die() { echo "pg_server.sh: $*" >&2; exit 1; }

bindir() {
  if [ -n "${PG_BINDIR:-}" ]; then echo "$PG_BINDIR"; return; fi
  local d best
  # The glob's order is lexical: the highest major version numerically.
  best=$(for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && echo "$d"; done |
         sort -t/ -k5,5n | tail -n 1)
  if [ -n "$best" ]; then echo "$best"; return; fi
  local p
  p=$(command -v initdb 2>/dev/null) || die "no PostgreSQL server binaries (initdb) in /usr/lib/postgresql/*/bin or PATH; install the postgresql package"
  dirname "$p"
}

# as_owner CMD...: runs CMD as the cluster's user (itself when not root).
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u "${MFPRIO_PG_USER:-nobody}" -- "$@"
  else
    "$@"
  fi
}

uri_of() {
  local dir
  dir=$(cd "$1" && pwd)
  echo "postgresql:///mfprio_test?host=$dir/sock&user=mfprio_test"
}

start() {
  local dir=$1 durable=$2 bin sync=off
  [ "$durable" = 1 ] && sync=on
  bin=$(bindir)
  [ -x "$bin/pg_ctl" ] || die "no pg_ctl in $bin"
  if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
    die "$dir exists and is not empty (stop the server there first: pg_server.sh stop $dir)"
  fi
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" = 0 ]; then
    local u=${MFPRIO_PG_USER:-nobody}
    chown "$u:" "$dir"
    # The parent must be enterable by the user (mktemp -d under /tmp is).
    as_owner test -x "$dir" || die "$dir is not reachable by the user $u (its parent's mode?)"
  fi
  chmod 700 "$dir"
  as_owner mkdir -m 700 "$dir/sock"
  if ! as_owner "$bin/initdb" -D "$dir/data" -U mfprio_test --auth=trust -E UTF8 --locale=C.UTF-8 \
        --no-sync >"$dir/initdb.log" 2>&1; then
    cat "$dir/initdb.log" >&2
    die "initdb failed in $dir/data"
  fi
  cat >> "$dir/data/postgresql.conf" <<EOF
# pg_server.sh: a private test server (no TCP, a socket in $dir/sock only)
listen_addresses = ''
unix_socket_directories = '$dir/sock'
unix_socket_permissions = 0700
fsync = $sync
synchronous_commit = $sync
full_page_writes = $sync
max_connections = 200
shared_buffers = 64MB
log_min_messages = warning
logging_collector = off
EOF
  if ! as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null 2>&1; then
    cat "$dir/server.log" >&2 || true
    die "the server in $dir/data did not start (log above)"
  fi
  as_owner "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir/sock" -U mfprio_test -d postgres \
    -c "CREATE DATABASE mfprio_test" >/dev/null || die "CREATE DATABASE mfprio_test failed"
  # Let the test processes (root, or the user itself) reach the socket: as
  # root they may anyway; a non-root caller is the owner.
  uri_of "$dir"
}

stop() {
  local dir=$1 bin
  [ -d "$dir/data" ] || die "no cluster in $dir"
  bin=$(bindir)
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null 2>&1 ||
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}

case "${1:-}" in
  start)
    if [ "${2:-}" = --durable ]; then
      [ $# = 3 ] || die "usage: pg_server.sh start [--durable] DIR"; start "$3" 1
    else
      [ $# = 2 ] || die "usage: pg_server.sh start [--durable] DIR"; start "$2" 0
    fi ;;
  stop) [ $# = 2 ] || die "usage: pg_server.sh stop DIR"; stop "$2" ;;
  uri) [ $# = 2 ] || die "usage: pg_server.sh uri DIR"; [ -d "$2/data" ] || die "no cluster in $2"; uri_of "$2" ;;
  *) die "usage: pg_server.sh start [--durable] DIR | stop DIR | uri DIR" ;;
esac
