"""Threads and asyncio: the GIL is released while Sense runs, so another
Python thread runs meanwhile and can pause the agent through its
PauseHandle; a second call while one runs is refused, not blocked; the
async methods keep an event loop turning."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

import sense

SPINNER = "agent spinner:\n    n = 0\n    while true:\n        n = n + 1\n"


def test_another_thread_pauses_a_running_agent(rt: sense.Runtime) -> None:
    rt.run(SPINNER)
    a = rt.agent("spinner")
    handle = rt.pause_handle(a)
    result: list[str] = []
    runner = threading.Thread(target=lambda: result.append(rt.start(a)))
    runner.start()
    # Python code runs while the agent spins: the GIL is released.
    ticks = 0
    deadline = time.monotonic() + 0.2
    while time.monotonic() < deadline:
        ticks += 1
    assert runner.is_alive(), "the endless agent stopped by itself"
    assert ticks > 1000
    assert handle.request() is True
    runner.join(timeout=30)
    assert not runner.is_alive()
    assert result == ["paused"]
    assert rt.pause_kind(a) == "host"
    assert handle.is_requested() is False
    assert handle.runtime_alive() is True


def test_a_call_while_another_thread_runs_is_refused(rt: sense.Runtime) -> None:
    rt.run(SPINNER)
    a = rt.agent("spinner")
    handle = rt.pause_handle(a)

    def start_when_free() -> None:
        # The main thread's polling may hold the runtime for a moment.
        while True:
            try:
                rt.start(a)
                return
            except sense.SenseError as e:
                if "busy" not in str(e):
                    raise
                time.sleep(0.001)

    runner = threading.Thread(target=start_when_free)
    runner.start()
    try:
        deadline = time.monotonic() + 10
        while rt_is_free(rt):
            assert time.monotonic() < deadline, "the runner never took the runtime"
            time.sleep(0.01)
        with pytest.raises(sense.SenseError, match="busy"):
            rt.get_global("x")
    finally:
        handle.request()
        runner.join(timeout=30)
    assert rt.status(a) == "paused"


def rt_is_free(rt: sense.Runtime) -> bool:
    try:
        rt.global_names()
        return True
    except sense.SenseError:
        return False


def test_pause_handle_outlives_its_runtime() -> None:
    rt = sense.Runtime(output=lambda s: None)
    rt.run(SPINNER)
    handle = rt.pause_handle(rt.agent("spinner"))
    del rt
    import gc

    gc.collect()
    assert handle.runtime_alive() is False
    assert handle.request() is False


def test_asyncio_methods_keep_the_loop_running(rt: sense.Runtime, printed: list[str]) -> None:
    rt.run(SPINNER + "agent asker:\n    x = pause(\"q\")\n    print(x)\n")

    async def main() -> tuple[str, int, str]:
        spinner = rt.agent("spinner")
        handle = rt.pause_handle(spinner)
        task = asyncio.ensure_future(rt.start_async(spinner))
        beats = 0
        while beats < 5:
            await asyncio.sleep(0.01)
            beats += 1
        assert not task.done()
        handle.request()
        status = await task
        asker = rt.agent("asker")
        assert await rt.start_async(asker) == "paused"
        return status, beats, await rt.resume_async(asker, "answer")

    assert asyncio.run(main()) == ("paused", 5, "completed")
    assert printed == ["answer\n"]
