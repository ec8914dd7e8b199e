"""House rules: an umpire's own tables beside the text's, marked as theirs, carried by
the workbook (``rulesets.house``, ``sheets.house_rules``, ``--rules FILE``)."""

from __future__ import annotations

import copy
import io
import itertools
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import openpyxl
import pytest
import yaml
from click.testing import CliRunner

from battle_ledger.rulesets import eagles_to_glory as etg
from battle_ledger.rulesets import registry
from battle_ledger.rulesets.errors import MissingTableError, RulesetDataError
from battle_ledger.rulesets.house import (
    GAP,
    HOUSE_RULE,
    parse_house,
    read_house_file,
    starter_file,
)
from battle_ledger.rulesets.model import CellType, Kind, Ruleset, Status, is_house_rule
from battle_ledger.rulesets.recovery import stands_returning
from battle_ledger.sheets.engine.book import LOG_TABLE
from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.house_rules import book_house_rules
from battle_ledger.sheets.ledger import KINDS
from battle_ledger.sheets.operations import load_operations
from battle_ledger.xlfuncs.cli import cli
from tests.conftest import HOUSE_FIXTURES
from tests.strategies import PLAYBOOKS, build_from_example, play_periods
from tests.tables import find_row, plain, table_cell

CLUB = HOUSE_FIXTURES / "etg-club.yaml"
OOB = Path(__file__).resolve().parent.parent / "examples" / "eagles-to-glory.csv"
TYPES = [t.id for t in registry.packaged("etg").vocabulary("unit_types").terms]


def _cli(*args: Any, cwd: Path | None = None) -> Any:
    runner = CliRunner()
    if cwd is None:
        return runner.invoke(cli, [str(a) for a in args])
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(cli, [str(a) for a in args])
    finally:
        os.chdir(old)


def _house(text: str, origin: str = "house.yaml") -> Any:
    return parse_house(text, origin)


# -- the file and what it changes --------------------------------------------------------


def test_the_club_file_fills_the_maneuver_table_and_every_combat_match_up() -> None:
    house = read_house_file(CLUB)
    with registry.using_house_rules([house]):
        assert etg.maneuver_result(6) == "Half Move"
        assert etg.maneuver_result(6, grade="A") == "Full Move"  # a modified 7 (the example)
        assert etg.maneuver_result(1, "out of command") == "Retreat"
        for attacker, defender in itertools.product(TYPES, TYPES):
            numbers = etg.combat_numbers(attacker, defender, "C", "C", "")
            assert numbers.eliminate >= 0, (attacker, defender)
        # What the text prints is untouched.
        assert etg.combat_numbers("infantry", "infantry", "C", "C", "")[:2] == (20, 35)
        table = registry.get("etg").table("maneuver_table")
        assert all(r["source"]["section"] == HOUSE_RULE for r in table.rows)
    # Without it, as before: the table is missing and says how to fill it in.
    with pytest.raises(MissingTableError, match="init-house"):
        etg.maneuver_result(6)
    with pytest.raises(MissingTableError):
        etg.combat_numbers("light cavalry", "foot artillery", "C", "C", "")


def test_udf_and_rules_show_with_rules_mark_house_rows() -> None:
    crt = _cli("udf", "ETG_CRT", "Light cavalry", "Foot artillery", "C", "C", "--rules", CLUB)
    assert crt.exit_code == 0 and crt.output.split() == ["30", "50"]
    assert _cli("udf", "ETG_CRT", "Light cavalry", "Foot artillery", "C", "C").exit_code == 1
    shown = _cli("rules", "show", "etg", "combat_results", "--rules", CLUB)
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    printed = next(line for line in lines if line.startswith("infantry          infantry"))
    assert printed.rstrip().endswith("Combat Example 1")
    ours = next(line for line in lines if line.startswith("light cavalry     foot artillery"))
    assert ours.rstrip().endswith("house rule (test club charts)")
    assert "rows: 36" in shown.output


def test_readings_are_settings_a_house_file_changes_without_override() -> None:
    """Recovery rounding is a house default (the text gives none): a house file sets it."""
    down = _house("id: etg\ntables:\n  recovery_rounding:\n    values:\n"
                  "      method: cumulative-down\n")  # fmt: skip
    assert tuple(stands_returning(7, "loser")) == (3, 1, 1, 2)  # 2.8, 4.2, 4.9 half up
    with registry.using_house_rules([down]):
        assert tuple(stands_returning(7, "loser")) == (2, 2, 0, 3)  # 2.8, 4.2, 4.9 down
        method = registry.get("etg").table("recovery_rounding").values["method"]
        assert method.source is not None and method.source.section == HOUSE_RULE


def test_a_house_rule_set_derives_its_own_recovery_shares() -> None:
    """What the rules derive once per rule set (the recovery shares) is the house rule
    set's own: the packaged shares, derived first, are not carried over, nor back."""
    assert tuple(stands_returning(10, "winner")) == (5, 2, 1, 2)
    house = _house(
        "id: etg\ntables:\n  campaign_recovery:\n    override: true\n    rows:\n"
        "      - {side: winner, next_day_pct: 60, week_pct: 30, month_pct: 10}\n"
    )
    with registry.using_house_rules([house]):
        assert tuple(stands_returning(10, "winner")) == (6, 3, 1, 0)
    assert tuple(stands_returning(10, "winner")) == (5, 2, 1, 2)


def test_override_changes_a_printed_row_and_fills_a_blank_without() -> None:
    house = _house(
        "id: etg\nnote: ours\ntables:\n"
        "  combat_results:\n    override: true\n    rows:\n"
        "      - {attacker: infantry, defender: infantry, E: 25, D: 40}\n"
        "  victory_points_per_grade:\n    rows:\n      - {grade: B, points: 10}\n"
    )
    with registry.using_house_rules([house]):
        assert etg.combat_numbers("infantry", "infantry", "C", "C", "")[:2] == (25, 40)
        row = registry.get("etg").lookup("victory_points_per_grade", grade="B")
        assert row["points"] == 10


BAD = {
    "unknown top key": ("id: etg\ncolour: red\n", "colour", "unknown key"),
    "unknown table": ("id: etg\ntables:\n  manuever_table:\n    rows: []\n",
                      "tables.manuever_table", "has no such table"),
    "unknown table key": ("id: etg\ntables:\n  maneuver_table:\n    rowz: []\n",
                          "rowz", "unknown key"),
    "unknown column": ("id: etg\ntables:\n  maneuver_table:\n    rows:\n"
                       "      - {low: 1, high: 10, result: Full Move, colour: red}\n",
                       "tables.maneuver_table.rows[0].colour", "unknown column"),
    "wrong type": ("id: etg\ntables:\n  maneuver_table:\n    rows:\n"
                   "      - {low: one, high: 10, result: Full Move}\n",
                   "tables.maneuver_table.rows[0].low", "wrong type"),
    "gap": ("id: etg\ntables:\n  maneuver_table:\n    rows:\n"
            "      - {low: null, high: 3, result: Retreat}\n"
            "      - {low: 5, high: null, result: Full Move}\n",
            "tables.maneuver_table", "gap between 3 and 5"),
    "overlap": ("id: etg\ntables:\n  maneuver_table:\n    rows:\n"
                "      - {low: null, high: 5, result: Retreat}\n"
                "      - {low: 5, high: null, result: Full Move}\n",
                "tables.maneuver_table", "overlap"),
    "printed row without override": (
        "id: etg\ntables:\n  combat_results:\n    rows:\n"
        "      - {attacker: infantry, defender: infantry, E: 25, D: 40}\n",
        "tables.combat_results.rows[0]", "override: true"),
    "printed table without override": (
        "id: etg\ntables:\n  wind_strength:\n    rows:\n"
        "      - {low: 1, high: 10, strength: calm}\n",
        "tables.wind_strength", "override: true"),
    "printed value without override": (
        "id: etg\ntables:\n  dep_economy:\n    values:\n      max_dep: 60\n",
        "tables.dep_economy.values.max_dep", "override: true"),
    "value of the wrong type": (
        "id: etg\ntables:\n  dep_economy:\n    override: true\n    values:\n"
        "      max_dep: lots\n", "tables.dep_economy.values.max_dep", "wrong type"),
    "not a rule set": ("id: chess\n", "key id", "not a rule set"),
    "alias bomb": ("id: etg\nnote: &a [x, x]\ntables:\n  x: *a\n", "", "alias"),
    "not YAML": ("id: etg\ntables: [\n", "", "not valid YAML"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_house_file_is_refused_at_load_naming_file_key_and_value(
    case: str, tmp_path: Path
) -> None:
    text, key, problem = BAD[case]
    path = tmp_path / "bad house.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesetDataError) as err:
        read_house_file(path)
    message = str(err.value)
    assert err.value.file == str(path) and key in message and problem in message, message
    shown = _cli("rules", "show", "etg", "--rules", path)
    assert shown.exit_code == 1 and str(path) in shown.output and "Traceback" not in shown.output


def _gaps(ruleset: Ruleset) -> list[tuple[str, Any]]:
    """What the text leaves out, from the data alone: (table, None) for a table it does
    not print, (table, NAME) for a constant, (table, {KEY: ...}) for a row's blank cell."""
    found: list[tuple[str, Any]] = []
    for name, table in ruleset.tables.items():
        if table.kind is Kind.CONSTANTS:
            found += [(name, c) for c, const in table.values.items() if const.value is None]
            if table.is_missing and not table.values:
                found.append((name, None))
        elif table.is_missing:
            found.append((name, None))
        elif table.status is Status.PARTIAL:
            for row in table.rows:
                if any(row.get(c.name) is None and not c.optional and not c.reference
                       and c.name not in table.key and c.name not in (table.range or ())
                       for c in table.columns):  # fmt: skip
                    found.append((name, {k: row[k] for k in table.key}))
    return found


_FILLED = {CellType.INT: 7, CellType.FLOAT: 7.5, CellType.STR: "ours", CellType.BOOL: True,
           CellType.ANY: 7}  # fmt: skip


def _filled(text: str, ruleset: Ruleset) -> dict[str, Any]:
    """The starter file ``text`` with every gap filled by a value of its column's type."""
    doc = yaml.safe_load(text)
    for name, spec in (doc.get("tables") or {}).items():
        columns = {c.name: c.type for c in ruleset.table(name).columns}
        for row in spec.get("rows") or []:
            row.update({k: _FILLED[columns[k]] for k, v in row.items() if v == GAP})
        values = spec.get("values") or {}
        values.update({k: _FILLED[CellType.ANY] for k, v in values.items() if v == GAP})
    return dict(doc)


@pytest.mark.parametrize("ruleset_id", registry.ruleset_ids())
def test_the_starter_file_is_refused_until_each_gap_is_filled(ruleset_id: str) -> None:
    """Every value the text leaves out is a gap of the starter file, named when the file
    is read unfilled; filled, the file loads and the values are in force as house rules."""
    ruleset = registry.packaged(ruleset_id)
    text = starter_file(ruleset)
    gaps = _gaps(ruleset)
    for name, _ in gaps:
        assert f"\n  {name}:\n" in text, (ruleset_id, name)  # there to fill, not commented
    if not gaps:  # nothing left out (Square Eagles): loads as it is, every table commented
        assert _house(text).ruleset == ruleset.id
        assert not any(GAP in ln for ln in text.splitlines() if not ln.lstrip().startswith("#"))
        return
    with pytest.raises(RulesetDataError, match="a gap of the starter file, not filled in") as err:
        _house(text)
    assert f"tables.{gaps[0][0]}" in str(err.value) and err.value.file == "house.yaml"
    filled = _filled(text, ruleset)
    house = _house(yaml.safe_dump(filled, allow_unicode=True))
    with registry.using_house_rules([house]):
        ours = registry.get(ruleset_id)
    for name, where in gaps:
        table = ours.table(name)
        if isinstance(where, str):
            assert ours.constant(name, where) == _FILLED[CellType.ANY]
            assert is_house_rule(table.values[where].source)
        else:
            rows = [r for r in table.rows
                    if where is None or all(r.get(k) == v for k, v in where.items())]  # fmt: skip
            assert rows and all(is_house_rule(r.get("source")) for r in rows), (name, where)
            assert all(r.get(c.name) is not None for r in rows for c in table.columns
                       if not c.optional and not c.reference
                       and c.name not in (table.range or ()))  # fmt: skip
    # Each gap in turn left unfilled (the rest filled) is refused by name.
    for name, spec in filled["tables"].items():
        for i, row in enumerate(spec.get("rows") or []):
            column = next(k for k, v in row.items() if v == _FILLED[_column_type(ruleset, name, k)]
                          and k not in ruleset.table(name).key)  # fmt: skip
            one = copy.deepcopy(filled)
            one["tables"][name]["rows"][i][column] = GAP
            with pytest.raises(RulesetDataError) as err:
                _house(yaml.safe_dump(one, allow_unicode=True))
            assert f"tables.{name}.rows[{i}].{column}: a gap" in str(err.value)


def _column_type(ruleset: Ruleset, table: str, column: str) -> CellType:
    return next(c.type for c in ruleset.table(table).columns if c.name == column)


def test_a_suggestion_is_another_texts_value_quoted_never_the_rules() -> None:
    """Where another text prints a value the rule set leaves out, the starter quotes it
    with its source, commented out: accepted by hand, it is a house rule like any other."""
    gote, etg = registry.packaged("gote"), registry.packaged("etg")
    text = starter_file(gote)
    recovery = etg.table("campaign_recovery").rows
    for row in recovery:
        quote = " ".join(str(row["source"]["quote"]).split())
        assert f'#       # Campaign Casualties: "{quote}"' in text
    assert "from Eagles to Glory (eagles-to-glory.txt), not Glory of the Empire's rules" in text
    days = etg.table("campaign_recovery_days").values
    for name, const in days.items():
        assert f"not Glory of the Empire's rules: {name}: {const.value}\n" in text
    # No suggestion is in force unaccepted: the file's YAML holds only the gaps.
    doc = yaml.safe_load(text)
    assert doc["tables"]["campaign_recovery_days"]["values"] == dict.fromkeys(days, GAP)
    # Accepted: the rows uncommented in place of the skeleton, the days filled, the army
    # lists deleted (left missing, as the text leaves them).
    doc["tables"]["campaign_recovery"]["rows"] = [
        {k: r[k] for k in ("side", "next_day_pct", "week_pct", "month_pct")} for r in recovery
    ]
    doc["tables"]["campaign_recovery_days"]["values"] = {n: c.value for n, c in days.items()}
    del doc["tables"]["army_lists"]
    house = _house(yaml.safe_dump(doc))
    with registry.using_house_rules([house]):
        ours = registry.get("gote")
    [winner] = [r for r in ours.table("campaign_recovery").rows if r["side"] == "winner"]
    assert winner["next_day_pct"] == recovery[0]["next_day_pct"]
    assert is_house_rule(winner["source"])
    assert ours.table("army_lists").is_missing
    # Eagles to Glory: the horse artillery's move from Age of Eagles, under its own name;
    # the classes' victory points printed nowhere.
    etg_text = starter_file(etg)
    basic = registry.packaged("aoe").lookup("movement_rates", unit="horse artillery")["basic"]
    assert f"not Eagles to Glory's rules: inches: {basic} (its basic)" in etg_text
    assert '- {grade: "B", points: FILL IN}\n        #   points: no value for it in' in etg_text


def test_init_house_writes_the_starter_once(tmp_path: Path) -> None:
    out = tmp_path / "house.yaml"
    assert _cli("rules", "init-house", "etg", "-o", out).exit_code == 0
    assert out.read_text(encoding="utf-8") == starter_file(registry.packaged("etg"))
    again = _cli("rules", "init-house", "etg", "-o", out)
    assert again.exit_code == 2 and "exists" in again.output


def test_a_table_still_missing_names_the_house_rules_file_in_force(tmp_path: Path) -> None:
    """The starter file, unfilled: refused, its first gap named in it, never in the
    installed package's data file (a separate process, as the umpire runs it). Filled
    but for the maneuver table, deleted to leave it missing: a function that needs it
    names it and the house-rules file to fill it in."""
    house = tmp_path / "house.yaml"
    assert _cli("rules", "init-house", "etg", "-o", house).exit_code == 0
    ask = [sys.executable, "-m", "battle_ledger.xlfuncs.cli", "udf", "ETG_MANEUVER", "6", "", "B",
           "--rules", str(house)]  # fmt: skip
    unfilled = subprocess.run(ask, capture_output=True, text=True, check=False)
    assert unfilled.returncode == 1 and unfilled.stderr.count("\n") == 1, unfilled.stderr
    assert "tables.command_markers.rows[0].die: a gap of the starter file" in unfilled.stderr
    assert f"file {house}" in unfilled.stderr
    filled = _filled(house.read_text(encoding="utf-8"), registry.packaged("etg"))
    del filled["tables"]["maneuver_table"]
    house.write_text(yaml.safe_dump(filled), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "battle_ledger.xlfuncs.cli", "udf", "ETG_MANEUVER", "6", "",
         "B", "--rules", str(house)], capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "tables.maneuver_table" in done.stderr and f"file {house}" in done.stderr
    assert registry.packaged("etg").path not in done.stderr


def test_an_answer_kept_is_never_given_under_other_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Answers kept for a column of calls (``model.remembered``) are the rule set's own:
    house rules put in force, in a context or in the per-user folder between two calls,
    answer by their own tables, and the packaged answer comes back after."""
    attack = ("infantry", "infantry", "C", "C", "")
    packaged = etg.combat_numbers(*attack)
    assert etg.combat_numbers(*attack) == packaged == (20, 35)  # kept, the same
    changed = ("id: etg\ntables:\n  combat_results:\n    override: true\n    rows:\n"
               "      - {attacker: infantry, defender: infantry, E: 25, D: 40}\n")  # fmt: skip
    with registry.using_house_rules([_house(changed)]):
        assert etg.combat_numbers(*attack) == (25, 40)
    assert etg.combat_numbers(*attack) == packaged
    folder = tmp_path / "house-rules"
    folder.mkdir()
    monkeypatch.setenv("BATTLE_LEDGER_RULES_DIR", str(folder))
    monkeypatch.setattr("battle_ledger.rulesets.house._SCAN_SECONDS", 0.0)
    from battle_ledger.xlfuncs.etg import ETG_CRT

    column = [[a] for a in attack[:4]] + [[""]]
    assert ETG_CRT(*[[c, c] for c in column]) == [list(packaged)] * 2
    (folder / "etg.yaml").write_text(changed, encoding="utf-8")
    assert ETG_CRT(*[[c, c] for c in column]) == [[25, 40]] * 2  # the next recalculation
    (folder / "etg.yaml").unlink()
    assert ETG_CRT(*[[c, c] for c in column]) == [list(packaged)] * 2


def test_the_per_user_folder_is_what_excel_functions_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "house-rules"
    folder.mkdir()
    shutil.copy(CLUB, folder / "etg.yaml")
    monkeypatch.setenv("BATTLE_LEDGER_RULES_DIR", str(folder))
    where = _cli("rules", "where")
    assert str(folder) in where.output and "eagles-to-glory: " in where.output
    from battle_ledger.xlfuncs.etg import ETG_MANEUVER

    assert ETG_MANEUVER(6.0) == "Half Move"  # what Excel would show
    assert _cli("udf", "ETG_MANEUVER", "9").output.strip() == "Move & Half"


# -- the workbook carries its rules --------------------------------------------------------


def _report(book: Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "battle_ledger.xlfuncs.cli", "report", str(book), "--json"],
        capture_output=True, text=True, cwd=cwd, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _turn_cell(book: Path, division: str, turn: int, header: str) -> Any:
    wb = openpyxl.load_workbook(book)
    index = find_row(wb, "tbl_Turns", Division=division, Turn=turn)
    return table_cell(wb, "tbl_Turns", header, index).value


def test_a_ledger_built_with_house_rules_gives_the_same_report_elsewhere(tmp_path: Path) -> None:
    here = tmp_path / "umpire"
    here.mkdir()
    shutil.copy(CLUB, here / "house.yaml")
    book = here / "ledger.xlsx"
    built = _cli("new", "dep-ledger", "--ruleset", "etg", "--oob", OOB, "--rules",
                 "house.yaml", "-o", book, cwd=here)  # fmt: skip
    assert built.exit_code == 0, built.output
    assert "house rules from house.yaml" in built.output
    recorded = _cli("run", "record", book, "--division", "5e Division", "--orders", "Y",
                    "--maneuver-roll", "6")  # fmt: skip
    assert recorded.exit_code == 0 and "maneuver: Full Move" in recorded.output  # 6 + 1 (DEP)
    assert _cli("run", "end-turn", book).exit_code == 0
    first = _report(book)
    # Another machine: no house file, another folder, and per-user house rules of its own
    # that must not change this ledger's numbers.
    there = tmp_path / "elsewhere"
    (there / "house-rules").mkdir(parents=True)
    (there / "house-rules" / "etg.yaml").write_text(
        "id: etg\ntables:\n  maneuver_table:\n    rows:\n"
        "      - {low: null, high: null, result: Retreat}\n",
        encoding="utf-8",
    )
    copy = there / "ledger.xlsx"
    shutil.copy(book, copy)
    env = dict(os.environ, BATTLE_LEDGER_RULES_DIR=str(there / "house-rules"))
    assert _report(copy, cwd=there, env=env) == first
    again = subprocess.run(
        [sys.executable, "-m", "battle_ledger.xlfuncs.cli", "run", "record", str(copy),
         "--division", "9e Division", "--maneuver-roll", "2"],
        capture_output=True, text=True, cwd=there, env=env, check=False,
    )  # fmt: skip
    assert again.returncode == 0 and "maneuver: Disengage" in again.stdout, again.stderr
    wb = openpyxl.load_workbook(copy)
    assert wb["_house"].sheet_state == "hidden"
    rules = [c.value for c in wb["Rules"]["A"] if isinstance(c.value, str)]
    assert any("house rules" in v.casefold() for v in rules)


def test_a_table_typed_on_the_rules_sheet_is_checked_and_used(tmp_path: Path) -> None:
    book = tmp_path / "ledger.xlsx"
    assert _cli("new", "dep-ledger", "--ruleset", "etg", "--oob", OOB, "-o", book).exit_code == 0
    none = _cli("run", "record", book, "--division", "5e Division", "--maneuver-roll", "6")
    assert "maneuver: no Maneuver Table" in none.output
    wb = openpyxl.load_workbook(book)
    rows = [(None, 4, "Hold Ground"), (5, 7, "Half Move"), (8, None, "Full Move")]
    headers = ("Modified roll from", "Modified roll to", "Result")
    for i, row in enumerate(rows):
        for header, value in zip(headers, row, strict=True):
            table_cell(wb, "tbl_R_maneuver_table", header, i).value = value
    wb.save(book)
    used = _cli("run", "record", book, "--division", "5e Division", "--maneuver-roll", "7")
    assert used.exit_code == 0 and "maneuver: Full Move" in used.output, used.output
    house = book_house_rules(HeadlessBook(book, writable=False))
    assert house is not None and "typed on the Rules sheet" in house.text
    # A mistake on the sheet is refused with its row and column; nothing changes.
    wb = openpyxl.load_workbook(book)
    table_cell(wb, "tbl_R_maneuver_table", "Modified roll from", 1).value = "five"
    wb.save(book)
    before = book.read_bytes()
    bad = _cli("run", "record", book, "--division", "5e Division", "--maneuver-roll", "3")
    assert bad.exit_code == 1
    assert "sheet Rules" in bad.output and "column Modified roll from" in bad.output
    assert "'five'" in bad.output and book.read_bytes() == before
    checked = _cli("check", book)
    assert checked.exit_code == 1 and "house rules" in checked.output
    # A house-rules file replaces the wrong table, typed rows and all.
    fixed = _cli("rules", "apply", book, CLUB)
    assert fixed.exit_code == 0, fixed.output
    assert "the Rules sheet's house rules, refused" in _log(book)[-1][1]
    assert _cli("check", book).exit_code == 0
    used = _cli("run", "record", book, "--division", "5e Division", "--maneuver-roll", "9")
    assert used.exit_code == 0 and "maneuver: Move & Half" in used.output, used.output  # 9 + 1


def test_run_rules_gives_a_ledger_its_rules_once(tmp_path: Path) -> None:
    book = tmp_path / "ledger.xlsx"
    assert _cli("new", "dep-ledger", "--ruleset", "etg", "--oob", OOB, "-o", book).exit_code == 0
    given = _cli("run", "record", book, "--division", "5e Division", "--maneuver-roll", "2",
                 "--rules", CLUB)  # fmt: skip
    assert given.exit_code == 0 and "maneuver: Disengage" in given.output, given.output  # 2 + 1
    kept = _cli("run", "record", book, "--division", "9e Division", "--maneuver-roll", "9")
    assert "maneuver: Move & Half" in kept.output  # 9 + 1: the rules stayed with the ledger
    assert _turn_cell(book, "5e Division", 1, "Maneuver roll") == 2
    other = tmp_path / "other.yaml"
    retreat = "      - {low: null, high: null, result: Retreat}\n"
    other.write_text(f"id: etg\ntables:\n  maneuver_table:\n    rows:\n{retreat}", encoding="utf-8")
    again = _cli("run", "end-turn", book, "--rules", CLUB)  # the same rules: no change
    assert again.exit_code == 0, again.output
    assert [r for r in _log(book) if r[0] == "house rules"] == [
        ("house rules", f"house rules from {CLUB}: maneuver_table: 8 rows added; "
                        "combat_results: 34 rows added")]  # fmt: skip
    # Other rules replace the ledger's own: logged with what changed, kept from then on.
    replaced = _cli("run", "end-turn", book, "--rules", other, "--allow-empty")
    assert replaced.exit_code == 0, replaced.output
    assert _log(book)[-2] == (
        "house rules",
        f"house rules from {other}: maneuver_table: 1 row added, "
        "8 rows removed; combat_results: 34 rows removed",
    )
    moved = _cli("run", "record", book, "--division", "9e Division", "--maneuver-roll", "9")
    assert "maneuver: Retreat" in moved.output
    removed = _cli("rules", "remove", book)
    assert removed.exit_code == 0 and "maneuver_table: 1 row removed" in removed.output
    assert _log(book)[-1] == ("house rules", "house rules removed: maneuver_table: 1 row removed")
    assert book_house_rules(HeadlessBook(book, writable=False)) is None
    unchanged = book.read_bytes()
    again = _cli("rules", "remove", book)
    assert again.exit_code == 0 and "nothing changed" in again.output
    assert book.read_bytes() == unchanged


def _log(book: Path) -> list[tuple[str, str]]:
    """The Log's (Action, Detail) rows."""
    log = HeadlessBook(book, writable=False).read_table(LOG_TABLE)
    return list(zip(log["Action"], log["Detail"], strict=True))


@pytest.mark.libreoffice
def test_the_maneuver_column_agrees_with_libreoffice(tmp_path: Path) -> None:
    from tests.libreoffice import recalculated_workbook, require_soffice

    require_soffice()
    book = tmp_path / "ledger.xlsx"
    assert _cli("new", "dep-ledger", "--ruleset", "etg", "--oob", OOB, "--rules", CLUB, "-o",
                book).exit_code == 0  # fmt: skip
    wanted: dict[tuple[str, int], str] = {}
    cases = [("5e Division", 1, 0), ("9e Division", 10, 2), ("5th Division", 3, -3),
             ("2e Division de cavalerie", 1, -5), ("Brunswick Division", 7, 0)]  # fmt: skip
    for division, roll, modifiers in cases:
        done = _cli("run", "record", book, "--division", division, "--maneuver-roll", roll,
                    "--maneuver-modifiers", modifiers, "--json")  # fmt: skip
        assert done.exit_code == 0, done.output
        wanted[(division, 1)] = json.loads(done.output)["details"]["maneuver"]
    # d10 + modifiers + 1 for 36 DEP or more, on the club's table (open at both ends).
    assert list(wanted.values()) == ["Fall Back", "Double", "Retreat", "Retreat", "Full Move"]
    wb = recalculated_workbook(book)
    for (division, turn), result in wanted.items():
        index = find_row(wb, "tbl_Turns", Division=division, Turn=turn)
        assert table_cell(wb, "tbl_Turns", "Maneuver", index).value == result, division
    no_roll = find_row(wb, "tbl_Turns", Division="11e Division de cavalerie", Turn=1)
    assert table_cell(wb, "tbl_Turns", "Maneuver", no_roll).value in (None, "")


def test_the_docs_list_every_reading_a_house_file_may_change() -> None:
    """docs/house-rules.md: one list of the readings the texts leave open, each a setting."""
    docs = (Path(__file__).resolve().parent.parent / "docs" / "house-rules.md").read_text()
    for ruleset in registry.all_rulesets():
        for name, table in ruleset.tables.items():
            for value, const in table.values.items():
                if const.house_default:
                    assert f"`{name}.{value}`" in docs, (ruleset.id, name, value)


#: Sections of docs/house-rules.md whose rows their rule sets' developers are rewriting
#: with the text's words (issue 38): held to it once they have.
_QUOTES_TO_COME: set[str] = set()


@pytest.mark.parametrize("ruleset_id", registry.ruleset_ids())
def test_every_reading_in_the_docs_gives_the_texts_words(ruleset_id: str, rules_dir: Path) -> None:
    """docs/house-rules.md: each reading's row quotes the words of the text that leave it
    open ("...", found verbatim in the rule set's text)."""
    from tests.test_provenance import _fold

    if ruleset_id in _QUOTES_TO_COME:
        pytest.skip("its section is being rewritten by its rule set's developer")
    ruleset = registry.packaged(ruleset_id)
    docs = (Path(__file__).resolve().parent.parent / "docs" / "house-rules.md").read_text()
    text = _fold((rules_dir / ruleset.text).read_text(encoding="utf-8"))
    start = docs.find(f"(`{ruleset.id}`)")
    section = docs[start : docs.find("\n### ", start + 1)] if start >= 0 else ""
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    readings = [f"{t}.{n}" for t, table in ruleset.tables.items()
                for n, c in table.values.items() if c.house_default]  # fmt: skip
    assert len(rows) == len(readings), (ruleset.id, len(rows), readings)
    for row in rows:
        quoted = re.findall(r'"([^"]+)"', row)
        assert any(_fold(q) in text for q in quoted), row


@pytest.mark.libreoffice
def test_the_maneuver_bonus_is_judged_after_the_orders_dep(tmp_path: Path) -> None:
    """36 DEP with orders rolls at 35 (no +1), 37 at 36 (+1): a 36 rolling 4 reads the
    table where a 37 rolling 3 does; LibreOffice's Maneuver column agrees."""
    from tests.libreoffice import recalculated_workbook, require_soffice

    require_soffice()
    oob = tmp_path / "oob.csv"
    oob.write_text(
        "side,corps,division,brigade,unit,type,grade,stands,dep\n"
        "French,I,At 36,A,1er Ligne,infantry,Veteran,4,36\n"
        "French,I,At 37,B,2e Ligne,infantry,Veteran,4,37\n",
        encoding="utf-8",
    )
    book = tmp_path / "ledger.xlsx"
    assert _cli("new", "dep-ledger", "--ruleset", "etg", "--oob", oob, "--rules", CLUB, "-o",
                book).exit_code == 0  # fmt: skip
    wanted: dict[str, str] = {}
    for division, roll in (("At 36", 4), ("At 37", 3)):
        done = _cli("run", "record", book, "--division", division, "--orders", "Y",
                    "--maneuver-roll", roll, "--json")  # fmt: skip
        assert done.exit_code == 0, done.output
        wanted[division] = json.loads(done.output)["details"]["maneuver"]
    assert wanted["At 36"] == wanted["At 37"] == "Hold Ground"  # the club's 4 (5: Half Move)
    wb = recalculated_workbook(book)
    for division, result in wanted.items():
        index = find_row(wb, "tbl_Turns", Division=division, Turn=1)
        assert table_cell(wb, "tbl_Turns", "Maneuver", index).value == result, division


# -- house rules given, changed and taken off after the ledger was built ------------------

#: Two editions of house rules per rule set (tests/fixtures/house/later/<prefix>-1.yaml
#: and -2.yaml), each changing what the kinds' formulas read from the rules.
LATER = HOUSE_FIXTURES / "later"
_EDITIONS = {"eagles-to-glory": "etg", "square-eagles": "se", "glory-of-the-empire": "gote",
             "age-of-glaube": "glaube", "age-of-sail": "sail", "age-of-eagles": "aoe"}  # fmt: skip

_COMPUTED = """
import json, sys
from battle_ledger.sheets.house_rules import using_book_rules
from battle_ledger.sheets.ledger import KINDS
from battle_ledger.sheets.operations import load_operations
from battle_ledger.sheets.engine.zipbook import open_book
load_operations()
book = open_book(sys.argv[1], writable=False)
with using_book_rules(book):
    frame = KINDS[book.meta().kind].compute(book)
print(frame.to_json(orient="split", default_handler=str, double_precision=15))
"""


def _reads_rules(kind: str) -> bool:
    """Whether the formulas of ``kind``'s template read a name of the rules: one on the
    Rules sheet, or a look-up block (a name that is neither a setting of its declaration
    nor a drop-down's list)."""
    from battle_ledger import templates
    from battle_ledger.sheets.ledger import KINDS

    wb = templates.build(kind, PLAYBOOKS[kind].ruleset)
    settings = {n.name for n in KINDS[kind].named_cells}
    names = [n for n, d in wb.defined_names.items()
             if n not in settings and not n.startswith("list_")
             and re.search(r"\b(Rules|_lists)'?!", d.attr_text)]  # fmt: skip
    formulas = [str(c.value) for ws in wb.worksheets for row in ws.iter_rows() for c in row
                if c.data_type == "f"]  # fmt: skip
    formulas += list(KINDS[kind].period_formulas(10).values())
    return any(re.search(rf"\b{n}\b", f) for n in names for f in formulas)


def _edition(kind: str, number: int) -> Path:
    return LATER / f"{_EDITIONS[registry.packaged(PLAYBOOKS[kind].ruleset).id]}-{number}.yaml"


def _command(*args: Any) -> subprocess.CompletedProcess[str]:
    """A battle-ledger command as a separate process."""
    return subprocess.run([sys.executable, "-m", "battle_ledger.xlfuncs.cli", *map(str, args)],
                          capture_output=True, text=True, check=False)  # fmt: skip


def _computed(book: Path) -> Any:
    """What the rules compute for ``book``'s period rows with its own house rules (what
    ``report`` computes), from a separate process."""
    import pandas as pd

    done = subprocess.run([sys.executable, "-c", _COMPUTED, str(book)], capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return pd.read_json(io.StringIO(done.stdout), orient="split")


def _sheet_agrees(kind: str, book: Path) -> Any:
    """Every outcome cell of ``book``'s period rows, recalculated by LibreOffice, is what
    the rules compute with its own house rules, and so is every number ``report --json``
    gives of a thing (a side, a division); returns the computed outcomes and the
    report's details."""
    from battle_ledger.sheets.ledger import Role
    from tests.libreoffice import recalculated_workbook

    expected = _computed(book)
    report = _command("report", book, "--json")
    assert report.returncode == 0, report.stderr
    recalculated = book.with_name("recalculated.xlsx")
    recalculated_workbook(book).save(recalculated)
    shown = HeadlessBook(recalculated, writable=False)
    periods = shown.read_table(KINDS[kind].periods.name)
    assert len(expected) > 0
    for index, row in expected.iterrows():
        for header, value in row.items():
            _same(periods.at[index, header], value, (index, header))
    things = KINDS[kind].things
    key = next(c for c in things.columns if c.role is Role.KEY)
    rows = shown.read_table(things.name).set_index(key.header)
    details = json.loads(report.stdout)["details"]
    # A unit's entry names its division too (the DEP ledger's units): not the division's.
    told = [d for d in _dicts(details) if d.get(key.field) in rows.index
            and (key.field == "unit" or "unit" not in d)]  # fmt: skip
    for entry in told:
        for column in things.having(Role.OUTCOME):
            value = entry.get(column.field)
            if isinstance(value, int | float) and not isinstance(value, bool):
                shown_value = rows.at[entry[key.field], column.header]
                if plain(shown_value) != "":  # blank: a view shown only when asked (a date)
                    _same(shown_value, value, (entry[key.field], column.header))
    return expected.to_dict(), details


def _same(shown: Any, computed: Any, where: Any) -> None:
    got, want = plain(shown), plain(computed)
    if isinstance(want, float) and isinstance(got, float | int):
        # A spreadsheet keeps 15 significant digits.
        assert math.isclose(got, want, rel_tol=1e-13), (where, got, want)
    else:
        assert got == want, (where, got, want)


def _dicts(value: Any) -> list[dict[str, Any]]:
    """Every mapping in a report's details, however deep."""
    if isinstance(value, dict):
        return [value, *(d for v in value.values() for d in _dicts(v))]
    if isinstance(value, list):
        return [d for v in value for d in _dicts(v)]
    return []


load_operations()
READING_KINDS = [k for k in sorted(KINDS) if _reads_rules(k)]


#: A playbook seed of a kind whose plays at the default seed (5) meet no row that an edition
#: changes (the last assert below tells): the Hits ledger's play at 5 fires no 4 Hits nor
#: rallies since it removes units at once now and then.
_SEEDS = {"unit-hits": 7}


@pytest.mark.slow
@pytest.mark.libreoffice
@pytest.mark.parametrize("kind", READING_KINDS)
def test_house_rules_given_changed_and_removed_later_reach_the_sheet(
    kind: str, tmp_path: Path
) -> None:
    """A ledger built without house rules and played, then given house rules by an
    operation's --rules, given others by ``rules apply`` and left with none by ``rules
    remove``: each time its own formulas (LibreOffice) show what the rules compute."""
    from tests.libreoffice import require_soffice

    require_soffice()
    playbook = PLAYBOOKS[kind]
    book = build_from_example(kind, tmp_path / "ledger.xlsx")
    seed = _SEEDS.get(kind, 5)
    play_periods(kind, book, 2, seed=seed)
    close = KINDS[kind].close
    options = playbook.close_options(book) | ({"allow_empty": "Y"} if KINDS[kind].asks_if_empty
                                              else {})  # fmt: skip
    flags = [a for k, v in options.items() for a in (f"--{k.replace('_', '-')}", v)]
    given = _command("run", close, book, *flags, "--rules", _edition(kind, 1))
    assert given.returncode == 0, given.stderr
    _sheet_agrees(kind, book)
    play_periods(kind, book, 1, seed=seed + 1)  # the fast backend goes on on the laid-out ledger
    first = _sheet_agrees(kind, book)
    changed = _command("rules", "apply", book, _edition(kind, 2))
    assert changed.returncode == 0, changed.stderr
    second = _sheet_agrees(kind, book)
    removed = _command("rules", "remove", book)
    assert removed.returncode == 0, removed.stderr
    published = _sheet_agrees(kind, book)
    # The same rows under each edition and under the published rules: the editions
    # change what this ledger computes (so the comparisons above tell something).
    assert first != published and second != published


def _sheets(path: Path) -> dict[str, Any]:
    """Every cell value of every sheet but the Log and _meta, and the workbook's names."""
    wb = openpyxl.load_workbook(path)
    cells = {ws.title: {c.coordinate: c.value for row in ws.iter_rows() for c in row
                        if c.value is not None}
             for ws in wb.worksheets if ws.title not in ("Log", "_meta")}  # fmt: skip
    names = {n: d.attr_text for n, d in wb.defined_names.items()}
    tables = {
        t.name: t.ref for ws in wb.worksheets if ws.title != "Log" for t in ws.tables.values()
    }
    return {"cells": cells, "names": names, "tables": tables, "order": wb.sheetnames}


@pytest.mark.parametrize("engine", ["zip", "openpyxl"])
@pytest.mark.parametrize("kind", READING_KINDS)
def test_a_ledger_given_house_rules_later_is_the_ledger_built_with_them(
    kind: str, engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``rules apply`` on a new ledger leaves it, sheet by sheet, cell by cell, name by
    name, as ``new --rules`` builds it (the Log aside); ``rules remove`` as ``new``
    without; on either backend."""
    if engine == "openpyxl":
        monkeypatch.setenv("BATTLE_LEDGER_ENGINE", "openpyxl")
    edition = read_house_file(_edition(kind, 2))
    plain = build_from_example(kind, tmp_path / "plain.xlsx")
    with registry.using_house_rules([edition]):
        built = build_from_example(kind, tmp_path / "built.xlsx")
    book = build_from_example(kind, tmp_path / "ledger.xlsx")
    for file in (1, 2):
        given = _cli("rules", "apply", book, _edition(kind, file))
        assert given.exit_code == 0, given.output
    assert _sheets(book) == _sheets(built)
    removed = _cli("rules", "remove", book)
    assert removed.exit_code == 0, removed.output
    assert _sheets(book) == _sheets(plain)


@pytest.mark.libreoffice
def test_a_maneuver_table_longer_than_its_open_rows_is_read_to_its_end(tmp_path: Path) -> None:
    """House rules given later with a Maneuver Table longer than the rows the Rules sheet
    left open: the table grows, its names with it, and the Maneuver column (LibreOffice)
    reads its last rows as the rules do."""
    from battle_ledger.templates.rules_sheet import OPEN_ROWS
    from tests.libreoffice import require_soffice

    require_soffice()
    edition = read_house_file(_edition("dep-ledger", 2))
    rows = registry.house_ruleset(edition).rows("maneuver_table")
    assert len(rows) > OPEN_ROWS
    book = tmp_path / "ledger.xlsx"
    assert _cli("new", "dep-ledger", "--ruleset", "etg", "--oob", OOB, "-o", book).exit_code == 0
    for division, roll in (("5e Division", 9), ("9e Division", 10), ("5th Division", 1)):
        done = _cli("run", "record", book, "--division", division, "--maneuver-roll", roll)
        assert done.exit_code == 0, done.output
    given = _command("rules", "apply", book, _edition("dep-ledger", 2))
    assert given.returncode == 0, given.stderr
    expected, _ = _sheet_agrees("dep-ledger", book)
    # 9 and 10 (+1 for 36 DEP or more) read the table's last two rows.
    assert {rows[-2]["result"], rows[-1]["result"]} <= set(expected["Maneuver"].values())


@pytest.mark.libreoffice
def test_brackets_open_at_either_end_build_and_compute(tmp_path: Path) -> None:
    """A house brackets row open below (``roll_low: null``) or above: the template lays out
    its look-ups (it refused such a file with a traceback), and the sheet's Rally reads
    them as the rules do."""
    from tests.libreoffice import recalculated_workbook, require_soffice

    require_soffice()
    house = tmp_path / "house.yaml"
    house.write_text(
        "id: square-eagles\nnote: open ends\ntables:\n  rally_results:\n    override: true\n"
        "    rows:\n      - {roll_low: null, roll_high: 3, hits_regained: 0}\n"
        "      - {roll_low: 4, roll_high: 4, hits_regained: 1}\n"
        "      - {roll_low: 5, roll_high: null, hits_regained: 2}\n",
        encoding="utf-8",
    )
    book = tmp_path / "hits.xlsx"
    oob = OOB.with_name("square-eagles.yaml")
    assert _cli("new", "unit-hits", "--ruleset", "se", "--oob", oob, "--rules", house, "-o",
                book).exit_code == 0  # fmt: skip
    first, second = (u["unit"] for u in _details(book)["units"][:2])
    for unit in (first, second):
        assert _cli("run", "record", book, "--unit", unit, "--fire-hits", 3).exit_code == 0
    assert _cli("run", "end-turn", book).exit_code == 0
    for unit, roll in ((first, 1), (second, 5)):
        done = _cli("run", "record", book, "--unit", unit, "--rally-roll", roll)
        assert done.exit_code == 0, done.output
    hits = {u["unit"]: u["hits"] for u in _details(book)["units"]}
    assert (hits[first], hits[second]) == (3, 1)  # 1: nothing back (open below); 5: two
    wb = recalculated_workbook(book)
    for unit, regained in ((first, 0), (second, 2)):
        index = find_row(wb, "tbl_Turns", Unit=unit, Turn=2)
        assert table_cell(wb, "tbl_Turns", "Regained", index).value == regained, unit


def _details(book: Path) -> dict[str, Any]:
    done = _cli("report", book, "--json")
    assert done.exit_code == 0, done.output
    return dict(json.loads(done.output)["details"])
