#!/usr/bin/env bash
# PostgreSQL for the sense-store and `sense serve` tests: installs Debian's
# `postgresql` when missing, starts a throw-away cluster on 127.0.0.1 (its
# own data directory and port, so a system cluster is left alone) with
# trust authentication for local connections, and exports
# SENSE_TEST_POSTGRES_URL. Each test creates and drops its own database.
# Sourced by .ci/run; idempotent (a running cluster is reused). By hand,
# source it too (`source .ci/setup.d/10-postgres.sh`): run as a program,
# its export dies with it. Stop the cluster with `pg_ctl -D DIR stop`
# (DIR: $SENSE_PG_DIR, default /tmp/sense-ci-postgres; pg_ctl is in
# /usr/lib/postgresql/VERSION/bin on Debian; as user postgres when root).

sense_pg_setup() {
  local port="${SENSE_PG_PORT:-54329}"
  local dir="${SENSE_PG_DIR:-/tmp/sense-ci-postgres}"
  local bin
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "postgres: installing Debian's postgresql"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq postgresql
    bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
  fi
  # The server refuses to run as root: the cluster belongs to `postgres`.
  local as_pg=(runuser -u postgres --)
  [ "$(id -u)" -eq 0 ] || as_pg=()
  if [ ! -f "$dir/PG_VERSION" ]; then
    echo "postgres: initialising a cluster in $dir"
    mkdir -p "$dir"
    [ "$(id -u)" -ne 0 ] || chown postgres:postgres "$dir"
    "${as_pg[@]}" "$bin/initdb" -D "$dir" -U postgres -A trust -E UTF8 --no-locale >/dev/null
  fi
  if "${as_pg[@]}" "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
    echo "postgres: cluster in $dir already running"
  else
    echo "postgres: starting on 127.0.0.1:$port"
    "${as_pg[@]}" "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=300 -c shared_buffers=128MB" start >/dev/null
  fi
  export SENSE_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres"
  echo "postgres: SENSE_TEST_POSTGRES_URL=$SENSE_TEST_POSTGRES_URL"
}
sense_pg_setup
