"""Every example any ``--help`` prints runs, as printed, and succeeds."""

from __future__ import annotations

import random
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from battle_ledger.rulesets import registry
from battle_ledger.sheets.engine.headless import save_workbook
from battle_ledger.sheets.ledger import KINDS
from battle_ledger.sheets.oob import read_oob
from battle_ledger.sheets.operations import OPERATIONS, load_operations, run_on_file
from battle_ledger.templates import build
from battle_ledger.templates.demo import example_path, mapped_example
from battle_ledger.xlfuncs.cli import cli
from tests.conftest import HOUSE_FIXTURES
from tests.strategies import PLAYBOOKS, play_periods, variant_ledger


def _helps() -> dict[str, tuple[str, str]]:
    """Every help text, and the kind of ledger its examples run on: the program's,
    each command's, and each operation's (as ``run OP BOOK --help`` prints it)."""
    runner = CliRunner()
    texts = {"battle-ledger": ("dep-ledger", runner.invoke(cli, ["--help"]).output)}
    for name, command in cli.commands.items():
        texts[name] = ("dep-ledger", runner.invoke(cli, [name, "--help"]).output)
        for sub in getattr(command, "commands", {}):
            shown = runner.invoke(cli, [name, sub, "--help"]).output
            texts[f"{name} {sub}"] = ("dep-ledger", shown)
    load_operations()
    for (kind, op), operation in sorted(OPERATIONS.items()):
        shown = runner.invoke(cli, ["run", op, "--help"]).output
        assert operation.doc.splitlines()[0] in shown  # the help prints the operation's doc
        texts[f"run {op} ({kind})"] = (kind, operation.doc)
    return texts


def _examples() -> list[tuple[str, str, str]]:
    found = []
    for where, (kind, text) in _helps().items():
        for line in text.splitlines():
            line = line.strip()
            if line.startswith("Example: battle-ledger "):
                found.append((where, kind, line.removeprefix("Example: battle-ledger ")))
    return found


EXAMPLES = _examples()
#: The command line as a user types it, in a process of its own.
BATTLE_LEDGER = (sys.executable, "-m", "battle_ledger.xlfuncs.cli")


def test_the_helps_have_examples() -> None:
    where = {w.split(" (")[0] for w, _, _ in EXAMPLES}
    assert {"new", "run", "udf", "rules show", "run record", "run end-turn"} <= where


@pytest.mark.parametrize(
    ("where", "kind", "example"), EXAMPLES, ids=[f"{k}: {e}" for _, k, e in EXAMPLES]
)
def test_example_runs(where: str, kind: str, example: str, tmp_path: Path) -> None:
    """In a folder with army.csv (the bundled Eagles to Glory order of battle), fleet.csv
    (the bundled Age of Sail one), walcheren.csv and maps.yaml (the bundled order of
    battle for every rule set and its map), turn.csv (two divisions' record of a turn),
    house.yaml (Eagles to Glory house rules, unless the example writes one) and,
    unless the example writes it, ledger.xlsx (a ledger of the example's kind, built
    from its rule set's bundled order of battle; a campaign with its first battle), and the
    campaign an example makes a battle ledger from (army.csv's)."""
    shutil.copy(example_path("etg"), tmp_path / "army.csv")
    shutil.copy(example_path("age-of-sail"), tmp_path / "fleet.csv")
    for name, bundled in zip(("walcheren.csv", "maps.yaml"), mapped_example(), strict=True):
        shutil.copy(bundled, tmp_path / name)  # one army, every rule set
    (tmp_path / "turn.csv").write_text(  # a turn of the bundled Quatre Bras DEP ledger
        "Division,Orders,Stands lost\n5e Division,Y,1\n9e Division,N,\n", encoding="utf-8"
    )
    args = shlex.split(example)
    if "init-house" not in args:
        shutil.copy(HOUSE_FIXTURES / "etg-club.yaml", tmp_path / "house.yaml")
    writes_ledger = "-o" in args and args[args.index("-o") + 1] == "ledger.xlsx"
    variant = next((op for op in PLAYBOOKS[kind].variants if op in args), None)
    if not writes_ledger and variant is not None:
        variant_ledger(kind, variant, tmp_path / "ledger.xlsx")
    elif not writes_ledger:
        ruleset = PLAYBOOKS[kind].ruleset
        oob = read_oob(example_path(ruleset), registry.get(ruleset))
        save_workbook(build(kind, ruleset, oob), tmp_path / "ledger.xlsx")
        records = PLAYBOOKS[kind].records(random.Random(1).randint, tmp_path / "ledger.xlsx")
        if not records:
            play_periods(kind, tmp_path / "ledger.xlsx", 1, seed=1)  # a campaign's first battle
        elif args[:2] == ["run", KINDS[kind].close]:  # a turn recorded, to close
            for operation, options in records:
                run_on_file(tmp_path / "ledger.xlsx", operation, **options)
    if "--campaign" in args:  # the campaign a battle ledger is made from: army.csv's
        oob = read_oob(example_path("etg"), registry.get("etg"))
        save_workbook(build("campaign", "etg", oob), tmp_path / args[args.index("--campaign") + 1])
    if args[0] == "undo":  # a ledger with an operation to take back
        play_periods(kind, tmp_path / "ledger.xlsx", 1, seed=2)
    # A process of its own, as a user runs it: this test's process has every ledger kind
    # and rule set loaded, a command loads only what it needs (and has crashed there).
    done = subprocess.run([*BATTLE_LEDGER, *args], cwd=tmp_path, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120, check=False)  # fmt: skip
    shown = done.stdout + done.stderr
    assert done.returncode == 0, f"{where}: battle-ledger {example}\n{shown}"
    assert "Traceback" not in shown, shown


def test_record_help_lists_every_input_option(tmp_path: Path) -> None:
    """``run record BOOK --help`` shows the operation's own options, from the declaration."""
    book = tmp_path / "ledger.xlsx"
    save_workbook(build("dep-ledger", "etg"), book)
    shown = CliRunner().invoke(cli, ["run", "record", str(book), "--help"])
    assert shown.exit_code == 0
    for flag in ("--division", "--orders", "--rest-eligible", "--charges", "--counter-charges",
                 "--stands-lost", "--ccp-bought", "--dep-markers", "--note"):  # fmt: skip
        assert flag in shown.output, flag
    assert "--orders Y|N" in shown.output and "--stands-lost N" in shown.output
    listed = CliRunner().invoke(cli, ["run", "--help"])
    assert "end-turn (dep-ledger)" in listed.output and "record (dep-ledger)" in listed.output


def test_a_mistake_in_the_command_exits_2_with_did_you_mean(tmp_path: Path) -> None:
    book = tmp_path / "ledger.xlsx"
    save_workbook(build("dep-ledger", "etg", read_oob(example_path("etg"), registry.get("etg"))),
                  book)  # fmt: skip
    before = book.read_bytes()
    for args, words in [
        (["run", "end-trun", str(book)], "did you mean 'end-turn'"),
        (["run", "record", str(book), "--division", "5e Divison", "--orders", "Y"],
         "did you mean '5e Division'"),
        (["run", "record", str(book), "--division", "5e Division", "--order", "Y"],
         "did you mean '--orders'"),
        (["run", "record", str(book), "--division", "5e Division", "--orders", "perhaps"],
         "not a yes/no answer"),
        (["new", "dep-ledger", "--ruleset", "etg", "-o", str(tmp_path / "x.xlsx"),
          "--blank-rows", "-1"], "-1"),
    ]:  # fmt: skip
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2, (args, result.output)
        assert words in result.output, (args, result.output)
    assert book.read_bytes() == before


def test_new_refuses_an_option_its_kind_does_not_take(tmp_path: Path) -> None:
    """Never ignored: a roster has no start time, a DEP ledger no reach/exceed setting."""
    for args, flag in [
        (["new", "roster", "--ruleset", "etg", "--start", "10:00"], "--start"),
        (["new", "dep-ledger", "--ruleset", "etg", "--mark-crossed-when", "exceeded"],
         "--mark-crossed-when"),
    ]:  # fmt: skip
        out = tmp_path / "x.xlsx"
        result = CliRunner().invoke(cli, [*args, "-o", str(out)])
        assert result.exit_code == 2 and f"has no option {flag}" in result.output
        assert not out.exists()
