"""Every example any ``--help`` prints runs, as printed, and succeeds."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from battle_ledger.sheets.operations import OPERATIONS, load_operations
from battle_ledger.templates import build
from battle_ledger.templates.demo import example_path
from battle_ledger.xlfuncs.cli import cli


def _helps() -> dict[str, str]:
    """Every help text: the program's, each command's, each operation's."""
    runner = CliRunner()
    texts = {"battle-ledger": runner.invoke(cli, ["--help"]).output}
    for name, command in cli.commands.items():
        texts[name] = runner.invoke(cli, [name, "--help"]).output
        for sub in getattr(command, "commands", {}):
            texts[f"{name} {sub}"] = runner.invoke(cli, [name, sub, "--help"]).output
    load_operations()
    for _, op in sorted(OPERATIONS):
        texts[f"run {op}"] = runner.invoke(cli, ["run", op, "--help"]).output
    return texts


def _examples() -> list[tuple[str, str]]:
    found = []
    for where, text in _helps().items():
        for line in text.splitlines():
            line = line.strip()
            if line.startswith("Example: battle-ledger "):
                found.append((where, line.removeprefix("Example: battle-ledger ")))
    return found


EXAMPLES = _examples()


def test_the_helps_have_examples() -> None:
    where = {w for w, _ in EXAMPLES}
    assert {"new", "run", "udf", "rules show", "run record", "run end-turn"} <= where


@pytest.mark.parametrize(("where", "example"), EXAMPLES, ids=[e for _, e in EXAMPLES])
def test_example_runs(
    where: str, example: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a folder with army.csv (the bundled Eagles to Glory order of battle) and,
    unless the example writes it, ledger.xlsx (a DEP ledger built from it)."""
    shutil.copy(example_path("etg"), tmp_path / "army.csv")
    args = shlex.split(example)
    if "ledger.xlsx" not in args[args.index("-o") + 1 :] if "-o" in args else True:
        from battle_ledger.rulesets import registry
        from battle_ledger.sheets.headless import save_workbook
        from battle_ledger.sheets.oob import read_oob

        oob = read_oob(tmp_path / "army.csv", registry.get("etg"))
        save_workbook(build("dep-ledger", "etg", oob), tmp_path / "ledger.xlsx")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, f"{where}: battle-ledger {example}\n{result.output}"
