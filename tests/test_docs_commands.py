"""Every ``battle-ledger`` command the README and ``docs/`` print runs as printed, each in
a process of its own (as a user runs them: a command loads only the ledger kinds and
rule sets it needs, where this test's process has them all), and ``check`` passes on
every workbook they leave."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from battle_ledger.templates.demo import example_path
from tests.conftest import HOUSE_FIXTURES, REPO

#: The command line as a user types it, in a process of its own.
BATTLE_LEDGER = (sys.executable, "-m", "battle_ledger.xlfuncs.cli")
_DOCS = (REPO / "README.md", *sorted((REPO / "docs").glob("*.md")))
_FIXTURES = REPO / "tests" / "fixtures" / "docs"

#: Commands printed but not run here (by their first words), each with why.
_NOT_RUN = {
    "serve": "runs until stopped: tests/test_serve.py starts it on a loopback port",
    "excel-setup --write": "desktop Excel's settings, refused off Windows and macOS "
    "(tests/test_cli.py writes them on a stand-in for Windows)",
}
#: What a page's commands take as given: files a reader has (named as the page names
#: them), then commands of their own to make the rest (as a reader would have played
#: a battle first).
_GIVEN: dict[str, tuple[dict[str, Path], tuple[str, ...]]] = {
    "README.md": ({"army.csv": example_path("etg")}, ()),
    "campaign.md": (
        {"coast.yaml": _FIXTURES / "coast.yaml"},
        (
            "new dep-ledger --ruleset etg --oob examples/eagles-to-glory.csv -o quatre-bras.xlsx",
            'run record quatre-bras.xlsx --division "5e Division" --stands-lost 2',
            'run record quatre-bras.xlsx --division "5th Division" --stands-lost 1',
            "run end-turn quatre-bras.xlsx",
            "new casualty-brackets --ruleset gote --oob coast.yaml -o day1.xlsx",
            'run record day1.xlsx --unit "1st Battalion Royal Marines" --fire 1',
            'run record day1.xlsx --unit "2nd Battalion 14th Foot" --fire 2 --melee 1',
            "run end-turn day1.xlsx --seed 1",
        ),
    ),
    "dep-ledger.md": ({"army.csv": example_path("etg")}, ()),
    "house-rules.md": (
        {"army.csv": example_path("etg"), "house.yaml": HOUSE_FIXTURES / "etg-club.yaml"},
        (
            "new dep-ledger --ruleset etg --oob army.csv -o ledger.xlsx",
            'run record ledger.xlsx --division "5e Division" --orders Y',
        ),
    ),
    "orders-of-battle.md": ({"quatre-bras.csv": example_path("etg")}, ()),
    "roster.md": ({"army.csv": example_path("etg")}, ()),
    "ship-records.md": ({"fleet.csv": example_path("age-of-sail")}, ()),
}

#: The pages' steps a reader does by hand after a command ("fill in ..."): the file the
#: command wrote, as the reader leaves it.
_FILLED_IN = {
    "rules init-house etg -o house.yaml": ("house.yaml", HOUSE_FIXTURES / "etg-club.yaml")
}


def _commands(page: Path) -> list[str]:
    """The ``battle-ledger`` commands of a page's sh/bash blocks, in order, continued
    lines joined, comments dropped, without the program's name."""
    found = []
    for block in re.findall(r"```(?:sh|bash)\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            for part in line.split("&&"):
                words = shlex.split(part, comments=True)
                if words[:1] == ["battle-ledger"]:
                    found.append(shlex.join(words[1:]))
    return found


_PAGES = [(page, _commands(page)) for page in _DOCS]
_RUN = [(page, commands) for page, commands in _PAGES if commands]


def test_the_pages_print_commands() -> None:
    """The collection itself: the pages that teach the commands are read."""
    names = {page.name for page, _ in _RUN}
    assert {"README.md", "campaign.md", "dep-ledger.md", "ship-records.md"} <= names
    assert sum(len(c) for _, c in _RUN) >= 40


def _run(args: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*BATTLE_LEDGER, *args], cwd=folder, capture_output=True, text=True,
        stdin=subprocess.DEVNULL, timeout=300, check=False,
        env=os.environ | {"HOME": str(folder)},  # excel-setup --write writes under ~
    )  # fmt: skip
    shown = f"battle-ledger {shlex.join(args)}\n{done.stdout}{done.stderr}"
    assert done.returncode == 0, shown
    assert "Traceback" not in shown, shown
    return done


@pytest.mark.parametrize(("page", "commands"), _RUN, ids=[p.name for p, _ in _RUN])
def test_a_pages_commands_run_as_printed(page: Path, commands: list[str], tmp_path: Path) -> None:
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    files, prelude = _GIVEN.get(page.name, ({}, ()))
    for name, source in files.items():
        shutil.copy(source, tmp_path / name)
    for command in prelude:
        _run(shlex.split(command), tmp_path)
    ran = 0
    for command in commands:
        args = shlex.split(command)
        if any(args[: len(k.split())] == k.split() for k in _NOT_RUN):
            continue
        _run(args, tmp_path)
        ran += 1
        if command in _FILLED_IN:
            name, filled = _FILLED_IN[command]
            shutil.copy(filled, tmp_path / name)
    assert ran, f"{page.name}: no command ran"
    books = sorted(p for p in tmp_path.rglob("*.xlsx") if "history" not in str(p.parent))
    if books:
        _run(["check", *map(str, books)], tmp_path)
