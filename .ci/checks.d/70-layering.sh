#!/usr/bin/env bash
# Layering (issue 14): the language core builds without a database. Persistent
# memories reach SQLite only through sense-eval's `memory_log` seam, whose
# store sense-agents registers. Fails if rusqlite (or any crate of the agent
# layer or above) becomes a normal dependency of sense-syntax or sense-eval.
echo "== 70-layering: sense-syntax and sense-eval depend on no database and no higher crate"
layering_fail=0
for core in sense-syntax sense-eval; do
  deps=$(cargo tree -p "$core" -e normal --prefix none --format '{p}' | awk '{print $1}' | sort -u)
  for banned in rusqlite libsqlite3-sys postgres sense-agents sense-providers sense-store sense-ffi; do
    if grep -qx "$banned" <<<"$deps"; then
      echo "layering: $core depends on $banned (cargo tree -p $core -e normal -i $banned)"
      layering_fail=1
    fi
  done
done
if [ "$layering_fail" -ne 0 ]; then
  exit 1
fi
echo "layering ok"
