"""The type stubs match the extension module (mypy's stubtest), and the
package and these tests type-check against them (mypy --strict).

Needs mypy (`pip install mypy`, or the package's `test` extra); without it
the test is skipped, unless SENSE_TEST_ALL=1 (as CI sets) makes that a
failure."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def need_mypy() -> None:
    if importlib.util.find_spec("mypy") is None:
        if os.environ.get("SENSE_TEST_ALL") == "1":
            pytest.fail("mypy is not installed: pip install mypy (SENSE_TEST_ALL=1 forbids skipping)")
        pytest.skip("mypy is not installed: pip install mypy")


def run(*args: str) -> None:
    r = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=TESTS)
    assert r.returncode == 0, r.stdout + r.stderr


def test_stubtest_finds_no_difference() -> None:
    need_mypy()
    run("mypy.stubtest", "sense._sense")


def test_package_and_tests_type_check() -> None:
    need_mypy()
    # The tests import `sense`: mypy follows it into the installed package.
    run("mypy", "--strict", str(TESTS))
