#!/usr/bin/env bash
# `sense serve` figures for BENCHMARKS.md: answers/s with 1, 2 and 4
# processes on SQLite and PostgreSQL, answer latency (one client, and
# under load), stored bytes per paused instance, and a store holding
# 1,000,000 paused instances. Needs SENSE_TEST_POSTGRES_URL (source
# .ci/setup.d/10-postgres.sh).
#
# Usage: benches/serve_bench.sh [SECONDS] [COUNT] [BASELINE]
#
# BASELINE (optional) is a git revision or a `sense` binary: every
# throughput configuration is then measured twice, back to back — the
# baseline, then this build — so that the two sets of figures come from
# one run on the same machine under the same load. A revision is built in
# release mode from `git archive` into target/serve-baseline/ (sharing
# this target directory's dependencies). COUNT 0 skips the million.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-8}"
count="${2:-1000000}"
baseline="${3:-}"
: "${SENSE_TEST_POSTGRES_URL:?source .ci/setup.d/10-postgres.sh first}"
target="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
base_bin=""
if [ -n "$baseline" ]; then
  if [ -x "$baseline" ] && [ -f "$baseline" ]; then
    base_bin="$baseline"
  else
    rev="$(git rev-parse --verify "$baseline^{commit}")"
    src="$target/serve-baseline/$rev"
    base_bin="$target/serve-baseline/sense-$rev"
    if [ ! -x "$base_bin" ]; then
      rm -rf "$src" && mkdir -p "$src"
      git archive "$rev" | tar -x -C "$src"
      # Built as this build's is (same profile and features), so the two
      # share every dependency; the baseline's binary is copied away
      # before this build's takes its place.
      (cd "$src" && CARGO_TARGET_DIR="$target" nice -n 10 cargo bench --bench serve_load --no-run)
      cp "$target/release/sense" "$base_bin"
      rm -rf "$src"
    fi
  fi
fi
nice -n 10 cargo bench --bench serve_load --no-run
run() { cargo bench -q --bench serve_load -- "$@"; }
# Each configuration: the baseline (when given), then this build.
both() {
  if [ -n "$base_bin" ]; then
    SENSE_SERVE_BIN="$base_bin" SENSE_SERVE_LABEL="baseline ${baseline}" run "$@"
  fi
  run "$@"
}
for store in sqlite postgres; do
  both throughput "$store" 1 "$seconds" 1 200
  for processes in 1 2 4; do
    both throughput "$store" "$processes" "$seconds" 32 2000
  done
done
if [ "$count" != 0 ]; then
  for store in sqlite postgres; do
    run million "$store" "$count"
  done
fi
