#!/usr/bin/env python3
"""The deterministic speed guard: instruction counts (valgrind's callgrind,
event Ir) of every side-by-side workload at a small size (suite.py's
`icount_n`) run by `sense run`, and of one C-ABI hand-off round trip
(handoff.c: counts at two round-trip numbers, divided by the difference,
so start-up and set-up cancel). Lua 5.4's C-API round trip
(handoff_lua.c) is counted the same way and printed for comparison, not
checked. Checked against baseline.json: a count
more than 5% above its baseline fails; more than 5% below is reported as
an improvement to record.

Usage: python3 benches/icount/run.py            check against baseline.json
       SENSE_BLESS=1 python3 benches/icount/run.py   re-record baseline.json

Builds what it measures first (`cargo build --release` of the `sense`
binary and of libsense; no-ops when fresh). Needs valgrind and a C
compiler (and liblua5.4-dev for the Lua count); without them it says so
and skips, and fails under SENSE_TEST_ALL=1. Instruction counts depend on the compiler and the
libraries, so record the baseline on the machine that checks it (CI).
"""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "compare"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import suite  # noqa: E402

ROOT = suite.ROOT
RELEASE = os.path.join(ROOT, "target", "release")
BASELINE = os.path.join(HERE, "baseline.json")
TOLERANCE = 0.05
# Round trips of the two handoff.c runs; their difference divides the count.
HANDOFF_N1, HANDOFF_N2 = 1000, 3000
HANDOFF_KEY = "c_abi_round_trip"
# The same round trip with nothing allocated (`handoff N direct`).
DIRECT_KEY = "c_abi_round_trip_direct"
COLLECTED = re.compile(r"Collected : (\d+)")


def need(tool, package):
    if shutil.which(tool):
        return True
    print(f"SKIPPED icount guard: `{tool}` not found; install the Debian package {package}", file=sys.stderr)
    if os.environ.get("SENSE_TEST_ALL") == "1":
        sys.exit("SENSE_TEST_ALL=1: the instruction-count guard cannot be skipped")
    return False


def build():
    cargo = os.environ.get("CARGO", "cargo")
    for args in (["--bin", "sense"], ["-p", "sense-ffi", "--lib"]):
        subprocess.run([cargo, "build", "--release", "--quiet", *args], cwd=ROOT, check=True)
    # libsense's soname is libsense.so.0 (sense-ffi/build.rs) but cargo
    # leaves only libsense.so in the build tree: give the loader that name.
    so0 = os.path.join(RELEASE, "libsense.so.0")
    if not os.path.lexists(so0):
        os.symlink("libsense.so", so0)
    exe = os.path.join(ROOT, "target", "icount", "handoff")
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    cc = os.environ.get("CC", "cc")
    subprocess.run(
        [cc, "-O2", "-I", os.path.join(ROOT, "include"), os.path.join(HERE, "handoff.c"),
         "-L", RELEASE, "-lsense", f"-Wl,-rpath,{RELEASE}", "-o", exe],
        check=True,
    )
    return exe


def build_lua():
    """handoff_lua.c built against Lua 5.4 (pkg-config `lua5.4`), or None
    after a loud line (failing under SENSE_TEST_ALL=1)."""
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "lua5.4"], capture_output=True, text=True, check=False)
    if flags.returncode != 0:
        print("SKIPPED Lua round-trip count: no pkg-config entry lua5.4; install the Debian package liblua5.4-dev",
              file=sys.stderr)
        if os.environ.get("SENSE_TEST_ALL") == "1":
            sys.exit("SENSE_TEST_ALL=1: the Lua comparison count cannot be skipped")
        return None
    exe = os.path.join(ROOT, "target", "icount", "handoff_lua")
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-O2", os.path.join(HERE, "handoff_lua.c"), *flags.stdout.split(), "-o", exe], check=True)
    return exe


def per_round_trip(exe, tmp, *extra):
    """Instructions per round trip of a hand-off driver (start-up cancels)."""
    c1 = count([exe, str(HANDOFF_N1), *extra], tmp)
    c2 = count([exe, str(HANDOFF_N2), *extra], tmp)
    return round((c2 - c1) / (HANDOFF_N2 - HANDOFF_N1))


def count(cmd, tmp):
    """Instructions executed by `cmd` (whole process, under callgrind)."""
    out = os.path.join(tmp, "callgrind.out")
    res = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd],
        capture_output=True, text=True, check=False,
    )
    m = COLLECTED.search(res.stderr)
    if res.returncode != 0 or m is None:
        sys.exit(f"{' '.join(cmd)} under callgrind failed (exit {res.returncode}):\n{res.stderr}")
    return int(m.group(1))


def measure(handoff, tmp):
    """{key: {"n": size, "instructions": count}}, printing each as it comes."""
    got = {}
    for w in suite.SUITE:
        src = suite.sized(w.path("sns"), w.icount_n, tmp)
        got[w.name] = {"n": w.icount_n, "instructions": count([suite.SENSE, "run", src], tmp)}
        print(f"  {w.name:<14} N={w.icount_n:<6} {got[w.name]['instructions']:>14,}", flush=True)
    per = per_round_trip(handoff, tmp)
    got[HANDOFF_KEY] = {"n": f"{HANDOFF_N1}..{HANDOFF_N2}", "instructions": per}
    print(f"  {HANDOFF_KEY:<14} per round trip {per:>9,}", flush=True)
    direct = per_round_trip(handoff, tmp, "direct")
    got[DIRECT_KEY] = {"n": f"{HANDOFF_N1}..{HANDOFF_N2}", "instructions": direct}
    print(f"  {DIRECT_KEY:<14} per round trip {direct:>9,}", flush=True)
    return got


def check(got):
    if not os.path.exists(BASELINE):
        sys.exit(f"{BASELINE} is missing: record it with SENSE_BLESS=1 python3 benches/icount/run.py")
    with open(BASELINE, encoding="utf-8") as f:
        base = json.load(f)["counts"]
    worse, better = [], []
    print(f"{'key':<18} {'baseline':>14} {'now':>14} {'change':>8}")
    for key, now in got.items():
        old = base.get(key)
        if old is None or old["n"] != now["n"]:
            worse.append(f"{key}: no baseline at this size (re-record: SENSE_BLESS=1 python3 benches/icount/run.py)")
            continue
        change = now["instructions"] / old["instructions"] - 1
        print(f"{key:<18} {old['instructions']:>14,} {now['instructions']:>14,} {change:>+7.1%}")
        if change > TOLERANCE:
            worse.append(f"{key}: {change:+.1%} instructions ({old['instructions']:,} -> {now['instructions']:,})")
        elif change < -TOLERANCE:
            better.append(f"{key}: {change:+.1%}")
    for key in base.keys() - got.keys():
        worse.append(f"{key}: in baseline.json but no longer measured (re-record)")
    if better:
        print("improved beyond 5% (record it: SENSE_BLESS=1 python3 benches/icount/run.py, and commit "
              "benches/icount/baseline.json): " + "; ".join(better))
    if worse:
        sys.exit("instruction-count regression (more than 5% over benches/icount/baseline.json):\n  "
                 + "\n  ".join(worse)
                 + "\nIf intended, re-record: SENSE_BLESS=1 python3 benches/icount/run.py")
    print("icount: no count more than 5% above its baseline")


def main():
    if not (need("valgrind", "valgrind") and need(os.environ.get("CC", "cc"), "gcc")):
        return
    handoff = build()
    vg = subprocess.run(["valgrind", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    print(f"instruction counts (callgrind Ir, {vg}); release build")
    lua = build_lua()
    with suite.tempdir() as tmp:
        got = measure(handoff, tmp)
        if lua:
            lua_per = per_round_trip(lua, tmp)
            print(f"  for comparison (not checked): Lua 5.4 C-API round trip {lua_per:,} instructions; "
                  f"Sense C ABI / Lua = {got[HANDOFF_KEY]['instructions'] / lua_per:.2f}x "
                  f"(allocation-free: {got[DIRECT_KEY]['instructions'] / lua_per:.2f}x)", flush=True)
    if os.environ.get("SENSE_BLESS") == "1":
        with open(BASELINE, "w", encoding="utf-8") as f:
            json.dump({"tool": f"{vg} --tool=callgrind (Ir)", "tolerance": TOLERANCE, "counts": got}, f, indent=2)
            f.write("\n")
        print(f"recorded {os.path.relpath(BASELINE, ROOT)}")
        return
    check(got)


if __name__ == "__main__":
    main()
