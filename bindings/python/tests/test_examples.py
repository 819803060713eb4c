"""The book's Python example runs and prints what the chapter says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "quickstart.py"


def test_quickstart_prints_what_the_book_shows() -> None:
    r = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        "paused ask_human What is your name?\n"
        "HELLO ADA!\n"
        "completed\n"
        "SenseRuntimeError [line 10] division by zero\n"
        "stack traceback (most recent call last):\n"
        "  greeter.sns:10: in broken\n"
    )
