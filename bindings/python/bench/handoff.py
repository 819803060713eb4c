"""The hand-off benchmark from Python: N resume/pause round trips with an
agent `x = 0; while true: x = pause(x + 1)` (send an int, read the int
pause value back), beside the same round trip with a Python generator's
`gen.send`. The C host's version is `cargo bench -p sense-ffi --bench
c_abi -- handoff_vs_lua` (BENCHMARKS.md).

    python bindings/python/bench/handoff.py [N]

Build the package in release mode for numbers that mean anything
(`pip install ./bindings/python`, maturin's default); prints the median
of 5 runs per row, in ns per round trip.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Callable, Generator

import sense

AGENT = "agent counter:\n    x = 0\n    while true:\n        x = pause(x + 1)\n"


def sense_round_trips(n: int) -> float:
    rt = sense.Runtime(output=lambda s: None)
    rt.run(AGENT)
    a = rt.agent("counter")
    rt.start(a)
    resume, reason = rt.resume, rt.pause_reason
    t0 = time.perf_counter_ns()
    for i in range(n):
        resume(a, i)
        if reason(a) != i + 1:
            raise AssertionError("wrong pause value")
    return (time.perf_counter_ns() - t0) / n


def sense_resume_only(n: int) -> float:
    rt = sense.Runtime(output=lambda s: None)
    rt.run(AGENT)
    a = rt.agent("counter")
    rt.start(a)
    resume = rt.resume
    t0 = time.perf_counter_ns()
    for i in range(n):
        resume(a, i)
    return (time.perf_counter_ns() - t0) / n


def counter() -> Generator[int, int, None]:
    x = 0
    while True:
        x = yield x + 1


def generator_round_trips(n: int) -> float:
    gen = counter()
    next(gen)
    send = gen.send
    t0 = time.perf_counter_ns()
    for i in range(n):
        if send(i) != i + 1:
            raise AssertionError("wrong value")
    return (time.perf_counter_ns() - t0) / n


def median(f: Callable[[int], float], n: int) -> float:
    return statistics.median(f(n) for _ in range(5))


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rows = [
        ("sense: rt.resume(a, i) + rt.pause_reason(a)", median(sense_round_trips, n)),
        ("sense: rt.resume(a, i) only", median(sense_resume_only, n)),
        ("Python generator: gen.send(i)", median(generator_round_trips, n)),
    ]
    base = rows[-1][1]
    print(f"{n} round trips, median of 5, Python {sys.version.split()[0]}")
    for name, ns in rows:
        print(f"| {name} | {ns:,.1f} ns | {ns / base:.1f}x |")


if __name__ == "__main__":
    main()
