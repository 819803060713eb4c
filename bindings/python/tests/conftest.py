"""Shared fixtures: a runtime whose printed text is collected in a list."""

from __future__ import annotations

import pytest

import sense


@pytest.fixture
def printed() -> list[str]:
    return []


@pytest.fixture
def rt(printed: list[str]) -> sense.Runtime:
    return sense.Runtime(output=printed.append)
