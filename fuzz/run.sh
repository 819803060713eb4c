#!/usr/bin/env bash
# Fuzz the Sense runtime with cargo-fuzz (libFuzzer + AddressSanitizer).
#
#   fuzz/run.sh [SECONDS]          run every target for SECONDS (default 30)
#   fuzz/run.sh SECONDS TARGET...  run only the named targets
#   fuzz/run.sh seeds              regenerate the seed corpus from the golden
#                                  tests and minimise it into corpus/<target>/
#
# Targets: source (program text), snapshot (snapshot bytes), host_api
# (sequences of host API calls), value_graphs (cyclic arrays and arrays held twice
# through every renderer and serialiser), heap_ceiling (host calls under a
# small heap ceiling, resident memory bounded). Each runs as one job on one core; new
# inputs go to fuzz/found/<target>/ (not committed), the committed seeds in
# fuzz/corpus/<target>/ are read only. Exits non-zero if any target found a
# crash, a timeout or an out-of-memory; the reproducer is in
# fuzz/artifacts/<target>/ and `cargo fuzz run TARGET FILE` replays it.
#
# Needs only rustup's stable toolchain, a C++ compiler (libFuzzer is
# compiled from source) and network access to crates.io the first time:
# cargo-fuzz is installed when missing, and RUSTC_BOOTSTRAP=1 lets its
# `-Z` flags work on stable.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

export RUSTC_BOOTSTRAP=1
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-1}"

targets_all=(source snapshot host_api value_graphs)
# heap_ceiling (host calls under a 4 MiB heap ceiling, resident memory
# checked) starts from no seeds: its inputs are short operation lists.
targets_run=("${targets_all[@]}" heap_ceiling)

ensure_tools() {
    if ! command -v c++ >/dev/null 2>&1 && ! command -v clang++ >/dev/null 2>&1; then
        if command -v apt-get >/dev/null 2>&1; then
            apt-get update -qq && apt-get install -y -qq g++ >/dev/null
        fi
    fi
    if ! cargo fuzz --version >/dev/null 2>&1; then
        echo "run.sh: installing cargo-fuzz" >&2
        cargo install cargo-fuzz --locked
    fi
}

# libFuzzer options common to every run: one job, no input may take more
# than 10 s or grow the process beyond 2 GiB (a single allocation beyond
# 1 GiB is reported too).
libfuzzer_opts=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1)

# Extra options per target: the source target gets a dictionary of Sense
# keywords, builtins and snippets.
target_opts() {
    case "$1" in
        source) echo "-dict=$here/sense.dict" ;;
        # Real snapshots are kilobytes: mutate them whole from the start.
        snapshot) echo "-len_control=0" ;;
        *) echo "" ;;
    esac
}

max_len() {
    case "$1" in
        source) echo 16384 ;;
        snapshot) echo 262144 ;;
        *) echo 4096 ;;
    esac
}

if [[ "${1:-}" == "seeds" ]]; then
    ensure_tools
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    cargo run --quiet --example seeds -- "$tmp"
    cargo fuzz build
    for t in "${targets_all[@]}"; do
        mkdir -p "corpus/$t"
        # Merge the fresh candidates with the committed seeds, keeping only
        # inputs that add coverage.
        mkdir -p "$tmp/merged-$t"
        cargo fuzz run "$t" "$tmp/merged-$t" "corpus/$t" "$tmp/$t" -- \
            -merge=1 -merge_control_file="$tmp/control-$t" \
            -max_len="$(max_len "$t")" "${libfuzzer_opts[@]}" >"$tmp/merge-$t.log" 2>&1 ||
            { tail -20 "$tmp/merge-$t.log"; exit 1; }
        # libFuzzer keeps every input with a new feature (hit counts too);
        # keep a set cover by edges instead, so the corpus stays small.
        cargo run --quiet --example seeds -- cover "$tmp/control-$t" "$tmp/min-$t"
        rm -rf "corpus/$t"
        mv "$tmp/min-$t" "corpus/$t"
        echo "corpus/$t: $(ls "corpus/$t" | wc -l) files"
    done
    exit 0
fi

seconds="${1:-30}"
shift || true
if [[ $# -gt 0 ]]; then
    targets=("$@")
else
    targets=("${targets_run[@]}")
fi
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
    echo "usage: fuzz/run.sh [SECONDS] [TARGET...] | fuzz/run.sh seeds" >&2
    exit 2
fi

ensure_tools
cargo fuzz build
mkdir -p logs
failed=()
for t in "${targets[@]}"; do
    mkdir -p "found/$t" "corpus/$t"
    log="logs/$t-$(date -u +%Y%m%dT%H%M%SZ).log"
    echo "== $t: ${seconds}s (log: fuzz/$log)"
    start=$(date +%s)
    if cargo fuzz run "$t" "found/$t" "corpus/$t" -- \
        -max_total_time="$seconds" -max_len="$(max_len "$t")" "${libfuzzer_opts[@]}" $(target_opts "$t") \
        >"$log" 2>&1; then
        status=ok
    else
        status=FAILED
        failed+=("$t")
    fi
    took=$(($(date +%s) - start))
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    echo "$(date -u +%FT%TZ) target=$t seconds=$seconds wall=${took}s execs=${execs:-?} result=$status" |
        tee -a logs/runs.txt
    if [[ $status == FAILED ]]; then
        grep -E 'ERROR|panicked|SUMMARY|Test unit written|artifact' "$log" | head -20 || true
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "run.sh: findings in: ${failed[*]} (see fuzz/artifacts/)" >&2
    exit 1
fi
echo "run.sh: no findings"
