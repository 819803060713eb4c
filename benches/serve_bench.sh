#!/usr/bin/env bash
# `sense serve` figures for BENCHMARKS.md: answers/s with 1, 2 and 4
# processes on SQLite and PostgreSQL, answer latency (one client, and
# under load), stored bytes per paused instance, and a store holding
# 1,000,000 paused instances. Needs SENSE_TEST_POSTGRES_URL (source
# .ci/setup.d/10-postgres.sh). Usage: benches/serve_bench.sh [SECONDS] [COUNT]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-8}"
count="${2:-1000000}"
: "${SENSE_TEST_POSTGRES_URL:?source .ci/setup.d/10-postgres.sh first}"
cargo bench --bench serve_load --no-run
run() { cargo bench -q --bench serve_load -- "$@"; }
for store in sqlite postgres; do
  run throughput "$store" 1 "$seconds" 1 200
  for processes in 1 2 4; do
    run throughput "$store" "$processes" "$seconds" 32 2000
  done
done
for store in sqlite postgres; do
  run million "$store" "$count"
done
