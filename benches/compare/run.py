#!/usr/bin/env python3
"""Runs each workload of the suite (benches/compare/workloads/, see
suite.py) through this project's `sense run` (release build), Lua 5.4,
CPython 3.11 and, where it is not too slow, the reference implementation
(PyPI sense-lang 0.20.0, installed into a private virtualenv on first
use); checks that every peer prints exactly what Sense prints; and prints
the median wall time of each with the ratios Sense ÷ Lua and
CPython ÷ Sense. Runs are interleaved (run 1 of every peer, then run 2,
…), so all peers of a workload see the same machine load.

Usage: benches/compare/run.py [--smallest] [--runs N] [--reference]
                              [WORKLOAD | FILE.sns ...]
       (build first: cargo build --release --bin sense)

A WORKLOAD is a suite name (`fib`, `sort`, …); a FILE.sns path runs that
program on Sense and the reference (and on Lua/CPython if FILE.lua /
FILE.py sit beside it). A peer missing from the machine is skipped with a
loud line; with `--smallest` under SENSE_TEST_ALL=1 (CI) a missing Lua
fails the run. Peers: $SENSE_LUA (default lua5.4), $SENSE_CPYTHON
(default python3.11).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
import venv

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import suite  # noqa: E402

VENV = os.environ.get("SENSE_REF_VENV", os.path.join(os.path.expanduser("~"), ".cache", "sense-ref-0.20.0"))
LUA_HINT = "Debian package lua5.4 (.ci/setup.d/40-lua.sh installs it)"
PY_HINT = "Debian package python3.11"


def reference():
    exe = os.path.join(VENV, "bin", "sense")
    if not os.path.exists(exe):
        print(f"installing sense-lang 0.20.0 into {VENV} ...", file=sys.stderr)
        venv.create(VENV, with_pip=True)
        subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "-q", "sense-lang==0.20.0"], check=True)
    return exe


def find_peer(env, default, hint):
    """The peer's executable, or None after one loud line."""
    exe = shutil.which(os.environ.get(env, default))
    if exe is None:
        print(f"SKIPPED peer {os.environ.get(env, default)}: not on PATH; install the {hint}", file=sys.stderr)
    return exe


def real_python(exe):
    """The interpreter itself, not a wrapper script (pyenv's shims add
    ~100 ms of shell to every start)."""
    res = subprocess.run([exe, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True, check=True)
    return res.stdout.strip() or exe


def version(cmd):
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return (res.stdout or res.stderr).strip().splitlines()[0]


def run_once(cmd):
    """(seconds, stdout) of one run; exits on failure."""
    start = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    if res.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed (exit {res.returncode}):\n{res.stderr}")
    return took, res.stdout


def fmt_time(t):
    return "—" if t is None else f"{t * 1000:,.1f} ms"


def fmt_ratio(a, b):
    return "—" if a is None or b is None else f"{a / b:.2f}×"


def plan(args, lua, py, ref):
    """[(label, {peer: command})] for the requested workloads."""
    out, skipped = [], {}
    names = [suite.SMALLEST] if args.smallest else (args.workloads or [w.name for w in suite.SUITE])
    for name in names:
        w = suite.by_name(name)
        if w is not None:
            base, label = w.path("sns")[: -len(".sns")], name
            use_ref = w.ref_skip is None or args.reference
            if not use_ref:
                skipped.setdefault(w.ref_skip, []).append(name)
        elif name.endswith(".sns") and os.path.exists(name):
            base, label, use_ref = os.path.abspath(name)[: -len(".sns")], os.path.basename(name), True
        else:
            sys.exit(f"{name}: neither a workload of the suite ({', '.join(w.name for w in suite.SUITE)}) nor a .sns file")
        cmds = {"sense": [suite.SENSE, "run", base + ".sns"]}
        if lua and os.path.exists(base + ".lua"):
            cmds["lua"] = [lua, base + ".lua"]
        if py and os.path.exists(base + ".py"):
            cmds["cpython"] = [py, base + ".py"]
        if use_ref:
            cmds["reference"] = [ref, "run", base + ".sns"]
        out.append((label, cmds))
    for why, names in skipped.items():
        print(f"reference skipped for {', '.join(names)}: {why} (--reference runs it)")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smallest", action="store_true", help=f"run only `{suite.SMALLEST}`, once, on every peer")
    ap.add_argument("--runs", type=int, default=5, help="runs per workload and peer; the median counts")
    ap.add_argument("--reference", action="store_true", help="run the reference on every workload (slow)")
    ap.add_argument("workloads", nargs="*", help="suite names or .sns paths (default: the whole suite)")
    args = ap.parse_args()
    if not os.path.exists(suite.SENSE):
        sys.exit(f"{suite.SENSE} is missing: run `cargo build --release --bin sense` first")
    lua = find_peer("SENSE_LUA", "lua5.4", LUA_HINT)
    if lua is None and args.smallest and os.environ.get("SENSE_TEST_ALL") == "1":
        sys.exit("SENSE_TEST_ALL=1: Lua 5.4 is required for the comparison")
    py = find_peer("SENSE_CPYTHON", "python3.11", PY_HINT)
    py = py and real_python(py)
    ref = reference()
    runs = 1 if args.smallest else args.runs
    work = plan(args, lua, py, ref)

    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; median of {runs} run(s)")
    for peer, exe in (("lua", lua), ("cpython", py)):
        if exe:
            print(f"{peer}: {version([exe, '-v'] if peer == 'lua' else [exe, '--version'])}")
    head = f"{'workload':<14} {'Sense':>12} {'Lua 5.4':>12} {'CPython':>12} {'reference':>12} {'Sense÷Lua':>10} {'CPy÷Sense':>10} {'ref÷Sense':>10}"
    print(head)
    for label, cmds in work:
        times = {peer: [] for peer in cmds}
        outs = {}
        for _ in range(runs):
            for peer, cmd in cmds.items():
                took, outs[peer] = run_once(cmd)
                times[peer].append(took)
        for peer, out in outs.items():
            if out != outs["sense"]:
                sys.exit(f"{label}: {peer} prints something else\n--- sense\n{outs['sense']}--- {peer}\n{out}")
        med = {peer: statistics.median(ts) for peer, ts in times.items()}
        s, lu, cp, rf = med["sense"], med.get("lua"), med.get("cpython"), med.get("reference")
        print(
            f"{label:<14} {fmt_time(s):>12} {fmt_time(lu):>12} {fmt_time(cp):>12} {fmt_time(rf):>12}"
            f" {fmt_ratio(s, lu):>10} {fmt_ratio(cp, s):>10} {fmt_ratio(rf, s):>10}",
            flush=True,
        )


if __name__ == "__main__":
    main()
