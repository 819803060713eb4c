"""Sense for Python: run Sense programs and drive their agents.

Built with PyO3 over the Rust runtime (not over libsense's C ABI). The
classes come from the extension module ``sense._sense``; this package adds
the asyncio-friendly methods of :class:`Runtime` (``run_async``,
``start_async``, ``resume_async``), which run the blocking call on a worker
thread with the GIL released so the event loop keeps going.

The import name is ``sense``; the distribution is ``sense-agents-runtime``
(an unrelated ``sense`` package exists on PyPI: do not install both in one
environment).
"""

from __future__ import annotations

import asyncio
from typing import Any, Optional

from ._sense import (
    Agent,
    Opaque,
    PauseHandle,
    SenseError,
    Suspend,
    __version__,
)
from ._sense import Runtime as _Runtime

__all__ = [
    "Agent",
    "Opaque",
    "PauseHandle",
    "Runtime",
    "SenseError",
    "Suspend",
    "__version__",
]


class Runtime(_Runtime):
    """The Sense agent runtime: one shared top-level scope, its agents,
    host functions and snapshots. One call at a time: a call made while
    another thread (or a host function it is running) uses the runtime
    raises :class:`SenseError` instead of blocking."""

    async def run_async(self, source: str, name: str = "<string>") -> None:
        """:meth:`run` on a worker thread: awaitable from an event loop."""
        await asyncio.to_thread(self.run, source, name)

    async def start_async(self, agent: Agent) -> str:
        """:meth:`start` on a worker thread; the agent's status after it."""
        return await asyncio.to_thread(self.start, agent)

    async def resume_async(self, agent: Agent, value: Optional[Any] = None) -> str:
        """:meth:`resume` on a worker thread; the agent's status after it."""
        return await asyncio.to_thread(self.resume, agent, value)
