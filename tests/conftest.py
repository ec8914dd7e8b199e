"""Shared fixtures: one seeded RNG so dice repeat, paths to the rule texts."""

from __future__ import annotations

import os
import random
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# Hypothesis profiles: "ci" (the default) keeps each property's own modest example
# count; "deep" (pytest --hypothesis-profile=deep, docs/DEVELOPING.md) runs 10,000
# generated examples where a property asks for ``tests.strategies.examples(n)``.
settings.register_profile("ci", deadline=None)
settings.register_profile("deep", max_examples=10_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parent.parent
RULES_DIR = REPO.parent / "shared" / "rules"
HOUSE_FIXTURES = REPO / "tests" / "fixtures" / "house"

# The per-user house-rules folder: none, so a tester's own house rules never change a
# result (subprocesses inherit it). Tests that use one point it at a folder of theirs.
os.environ["BATTLE_LEDGER_RULES_DIR"] = str(REPO / "tests" / "fixtures" / "house" / "none")
# openxml-audit (the test extra's OOXML validator) brings lxml, which openpyxl would then
# write with: the tests keep openpyxl's own writer, as a plain install has it.
os.environ.setdefault("OPENPYXL_LXML", "False")
# The parsed rule-set data: kept for the tests' processes, not in the tester's own cache.
os.environ["BATTLE_LEDGER_CACHE_DIR"] = str(
    Path(tempfile.gettempdir()) / "battle-ledger-tests-cache"
)


@pytest.fixture(params=["openpyxl", "fast"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test module's tests on both headless backends (``pytestmark =
    pytest.mark.usefixtures("backend")``): in the fast run the module's ``HeadlessBook`` is
    ``ZipBook``; in the other, commands open workbooks with openpyxl too
    (``BATTLE_LEDGER_ENGINE``)."""
    from battle_ledger.sheets.engine.zipbook import ENGINE_VARIABLE, ZipBook

    if request.param == "fast":
        monkeypatch.setattr(request.module, "HeadlessBook", ZipBook)
    else:
        monkeypatch.setenv(ENGINE_VARIABLE, "openpyxl")
    return str(request.param)


@pytest.fixture(scope="session")
def xlwings_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The real xlwings Server (``battle-ledger serve``) on a free loopback port, one per
    test process (``tests/served.py``): skipped without xlwings Server, failed in CI."""
    from tests.served import server_missing, start_server, stop_server

    missing = server_missing()
    if missing:
        if os.environ.get("CI", "").strip().casefold() in ("1", "true", "yes"):
            pytest.fail(missing + " (CI=true: the test extra installs it)")
        pytest.skip(missing)
    served = start_server(tmp_path_factory.mktemp("xlwings-server"))
    yield served
    stop_server(served)


@pytest.fixture
def rng() -> random.Random:
    """The one seeded RNG every dice-rolling test uses."""
    return random.Random(1815)


@pytest.fixture(scope="session")
def rules_dir() -> Path:
    """The published rule texts: skipped without them, failed in CI (``CI=true``)."""
    if not RULES_DIR.is_dir():
        message = f"the published rule texts are not at {RULES_DIR}"
        if os.environ.get("CI", "").strip().casefold() in ("1", "true", "yes"):
            pytest.fail(message + " (CI=true: the texts must be there)")
        pytest.skip(message)
    return RULES_DIR


# -- workbooks and a real spreadsheet (LibreOffice) ------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    # "libreoffice" is declared in pyproject.toml; "soffice" is its alias.
    config.addinivalue_line("markers", "soffice: needs LibreOffice (soffice); alias of libreoffice")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tests marked libreoffice/soffice: skipped without LibreOffice, failed in CI."""
    if item.get_closest_marker("libreoffice") or item.get_closest_marker("soffice"):
        from tests.libreoffice import require_soffice

        require_soffice()


@pytest.fixture
def recalc() -> Callable[[Path | str], dict[str, list[list[Any]]]]:
    """``recalc(path)`` -> {sheet: rows of values} as LibreOffice computes them.

    Skips without LibreOffice (fails in CI, where .ci/run installs it).
    """
    from tests.libreoffice import recalculate, require_soffice

    require_soffice()
    return recalculate


@pytest.fixture
def toy_book(tmp_path: Path) -> Path:
    """A fresh tiny workbook of ours (tests/toybook.py), its toy operations registered."""
    from tests.toybook import make_toy, register_toy_operations

    register_toy_operations()
    return make_toy(tmp_path / "toy.xlsx")
