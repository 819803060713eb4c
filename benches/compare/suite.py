"""The side-by-side workloads: each is one program written three times,
`workloads/NAME.sns`, `NAME.lua` and `NAME.py`, doing the same work and
printing the same line. Each file sets its size on its first line
(`N = …`, Lua `local N = …`); `sized()` rewrites that line, so the
instruction-count guard (benches/icount/run.py) runs the same programs at
small sizes.

Shared by benches/compare/run.py and benches/icount/run.py.
"""
import os
import re
import tempfile
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS_DIR = os.path.join(HERE, "workloads")
ROOT = os.path.dirname(os.path.dirname(HERE))
SENSE = os.path.join(ROOT, "target", "release", "sense")

# Why the reference (PyPI sense-lang 0.20.0) is left out of a workload: it
# runs these about 100× slower than Sense (see BENCHMARKS.md, "Against the
# reference"), so 5 runs of one workload would take minutes.
TOO_SLOW = "reference ~100x slower: minutes per workload at this size"


@dataclass(frozen=True)
class Workload:
    """One workload of the suite."""

    name: str
    what: str
    # Size for the instruction-count guard: small, so valgrind is quick.
    icount_n: int
    # None: the reference runs it too; else why it does not.
    ref_skip: str | None = TOO_SLOW

    def path(self, ext):
        """The workload's program for one language (`sns`, `lua`, `py`)."""
        return os.path.join(WORKLOADS_DIR, f"{self.name}.{ext}")

    def size(self):
        """N as written in the Sense file."""
        with open(self.path("sns"), encoding="utf-8") as f:
            return int(SIZE_LINE.search(f.read()).group(2))


SUITE = [
    Workload("fib", "recursive `fib(N)`", 20),
    Workload("while_top", "`while` loop, N iterations of arithmetic, top level", 20000),
    Workload("while_fn", "the same `while` loop inside a function", 20000),
    Workload("for_range", "`for i in range(N)` with arithmetic, in a function", 20000),
    Workload("nested_loops", "`for` over two N-element arrays, nested (N² iterations)", 200),
    Workload("strings", "build N strings into an array, sum their lengths", 5000),
    Workload("closures", "closures from a factory, called through a higher-order function", 5000),
    Workload("members", "member reads on an agent (Lua: table fields; Python: attributes)", 10000),
    Workload("sort", "hand-written quicksort of N pseudo-random Ints", 2000),
    Workload("trees", "build and walk binary trees of depth N as nested arrays (4×)", 10),
    Workload("handoff", "N resume/pause round trips of an agent driven from Sense code", 5000),
    Workload("maps", "insert N string keys into a map, look each up (Lua: table; Python: dict)", 2000,
             ref_skip="the reference has no maps"),
    Workload("split_join", "split a 1,000-word line and join it again, N times", 20,
             ref_skip="the reference has no string methods"),
    Workload("tiny", "start an agent, resume it once (process start-up)", 42, ref_skip=None),
]
SMALLEST = "tiny"

# `N = 30` (Sense, Python) or `local N = 30` (Lua), the first such line.
SIZE_LINE = re.compile(r"^(local )?N = (\d+)$", re.M)


def by_name(name):
    """The workload called `name`, or None."""
    return next((w for w in SUITE if w.name == name), None)


def sized(path, n, tmpdir):
    """A copy of the program at `path` with its size line set to `n`, in
    `tmpdir` (same file name, so error messages still name the workload)."""
    with open(path, encoding="utf-8") as f:
        src = f.read()
    new, count = SIZE_LINE.subn(lambda m: f"{m.group(1) or ''}N = {n}", src, count=1)
    if count != 1:
        raise SystemExit(f"{path}: no `N = ...` size line")
    out = os.path.join(tmpdir, os.path.basename(path))
    with open(out, "w", encoding="utf-8") as f:
        f.write(new)
    return out


def tempdir():
    """A temporary directory for sized copies (removed by the caller)."""
    return tempfile.TemporaryDirectory(prefix="sense-bench-")
