#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for the shared-store tests: socket-only (no TCP port, so
# parallel CI jobs on one machine cannot collide), trust authentication over that socket, data
# and socket under one directory owned by the `postgres` user (initdb refuses root).
#
#   source .ci/start-postgres.sh          # starts it, exports MAITOOL_TEST_POSTGRES_URL
#   bash .ci/start-postgres.sh stop       # stops it and removes the directory
#
# MAITOOL_PG_DIR (default /tmp/maitool-pg) picks the directory. Run as root (CI) or as postgres.
# Sourced, it leaves the caller's shell options alone.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
fi

pg_bin="${MAITOOL_PG_BIN:-/usr/lib/postgresql/15/bin}"
pg_dir="${MAITOOL_PG_DIR:-/tmp/maitool-pg}"

as_postgres() {
    if [[ "$(id -un)" == postgres ]]; then
        "$@"
    else
        runuser -u postgres -- "$@"
    fi
}

if [[ "${1:-start}" == stop ]]; then
    if [[ -f "$pg_dir/data/postmaster.pid" ]]; then
        as_postgres "$pg_bin/pg_ctl" -D "$pg_dir/data" -m fast -w stop >/dev/null
    fi
    rm -rf "$pg_dir"
    echo "PostgreSQL under $pg_dir stopped and removed"
    return 0 2>/dev/null || exit 0
fi

if [[ ! -x "$pg_bin/initdb" ]]; then
    echo "start-postgres: no PostgreSQL at $pg_bin (apt-get install postgresql-15)" >&2
    return 1 2>/dev/null || exit 1
fi

if [[ ! -f "$pg_dir/data/PG_VERSION" ]]; then
    rm -rf "$pg_dir"
    mkdir -p "$pg_dir/data" "$pg_dir/socket"
    chown -R postgres:postgres "$pg_dir" 2>/dev/null || true
    chmod 700 "$pg_dir/data"
    as_postgres "$pg_bin/initdb" -D "$pg_dir/data" -U postgres -A trust -E UTF8 \
        --locale=C.UTF-8 >"$pg_dir/initdb.log" 2>&1 \
        || { cat "$pg_dir/initdb.log" >&2; return 1 2>/dev/null || exit 1; }
fi

if ! as_postgres "$pg_bin/pg_ctl" -D "$pg_dir/data" status >/dev/null 2>&1; then
    # listen_addresses='' : the Unix socket only. max_connections covers tests run in
    # parallel, each with its own database and a small pool.
    as_postgres "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" -w \
        -o "-c listen_addresses='' -c unix_socket_directories='$pg_dir/socket' -c max_connections=300 -c fsync=off" \
        start >/dev/null \
        || { cat "$pg_dir/server.log" >&2; return 1 2>/dev/null || exit 1; }
fi

export MAITOOL_TEST_POSTGRES_URL="host=$pg_dir/socket user=postgres dbname=postgres"
echo "PostgreSQL running: MAITOOL_TEST_POSTGRES_URL='$MAITOOL_TEST_POSTGRES_URL'"
