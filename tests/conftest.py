"""Shared fixtures: one seeded RNG so dice repeat, paths to the rule texts."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RULES_DIR = REPO.parent / "shared" / "rules"


@pytest.fixture
def rng() -> random.Random:
    """The one seeded RNG every dice-rolling test uses."""
    return random.Random(1815)


@pytest.fixture(scope="session")
def rules_dir() -> Path:
    if not RULES_DIR.is_dir():
        pytest.skip(f"the published rule texts are not at {RULES_DIR}")
    return RULES_DIR
