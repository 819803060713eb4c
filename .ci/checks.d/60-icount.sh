#!/usr/bin/env bash
# The deterministic speed guard (issue 15): instruction counts under
# valgrind's callgrind of every side-by-side workload (small sizes) and of
# one C-ABI hand-off round trip, against benches/icount/baseline.json;
# fails on a regression of more than 5%. Builds the release `sense` binary
# and libsense first (shared with the later `cargo bench --no-run` and
# compare steps, which use the same target/release). Re-record after an
# intended change: SENSE_BLESS=1 python3 benches/icount/run.py
echo "== 60-icount: instruction counts (callgrind) against benches/icount/baseline.json"
python3 benches/icount/run.py
