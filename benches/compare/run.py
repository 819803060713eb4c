#!/usr/bin/env python3
"""Runs the same Sense workloads through this project's `sense run` and
through the reference implementation (PyPI sense-lang 0.20.0, installed into
a private virtualenv on first use), checks both print the same output, and
prints each wall-time ratio.

Usage: benches/compare/run.py [--smallest] [--runs N] [WORKLOAD.sns ...]
       (build first: cargo build --release)
"""
import argparse
import os
import statistics
import subprocess
import sys
import time
import venv

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SENSE = os.path.join(ROOT, "target", "release", "sense")
VENV = os.environ.get("SENSE_REF_VENV", os.path.join(os.path.expanduser("~"), ".cache", "sense-ref-0.20.0"))
WORKLOADS = ["tiny.sns", "fib25.sns", "loop1m.sns", "handoff20k.sns"]


def reference():
    exe = os.path.join(VENV, "bin", "sense")
    if not os.path.exists(exe):
        print(f"installing sense-lang 0.20.0 into {VENV} ...", file=sys.stderr)
        venv.create(VENV, with_pip=True)
        subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "-q", "sense-lang==0.20.0"], check=True)
    return exe


def timed(cmd, runs):
    times, out = [], None
    for _ in range(runs):
        start = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - start)
        if res.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed:\n{res.stderr}")
        out = res.stdout
    return statistics.median(times), out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smallest", action="store_true", help="run only the smallest workload, once")
    ap.add_argument("--runs", type=int, default=5, help="runs per workload; the median counts")
    ap.add_argument("workloads", nargs="*", help="NAME.sns in benches/compare/, or a path (default: all of them)")
    args = ap.parse_args()
    if not os.path.exists(SENSE):
        sys.exit(f"{SENSE} is missing: run `cargo build --release` first")
    ref = reference()
    names = ["tiny.sns"] if args.smallest else (args.workloads or WORKLOADS)
    runs = 1 if args.smallest else args.runs
    print(f"{'workload':<16} {'sense (ours)':>14} {'sense-lang 0.20.0':>18} {'ratio':>10}")
    for name in names:
        # A bare name is one of ours; anything else is a path from the CWD.
        path = name if os.sep in name else os.path.join(HERE, name)
        path = os.path.abspath(path)
        ours, out1 = timed([SENSE, "run", path], runs)
        theirs, out2 = timed([ref, "run", path], runs)
        if out1 != out2:
            sys.exit(f"{name}: outputs differ\n--- ours\n{out1}--- reference\n{out2}")
        print(f"{name:<16} {ours * 1000:>11.1f} ms {theirs * 1000:>15.1f} ms {theirs / ours:>9.1f}x")


if __name__ == "__main__":
    main()
