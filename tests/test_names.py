"""Names a spreadsheet's criteria would read as operators or wildcards compute alike in
the workbook's native formulas (recalculated by LibreOffice) and in ``report``.

Issue 33: a division named ``<>x`` or ``*`` made COUNTIF(S)/SUMIF(S)/MATCH count or find
other rows than its own. Every ledger kind is built from its playbook's order of battle
with every name (side, corps, division, brigade, unit, commander) replaced by one of the
nastiest, played, recalculated, and every outcome cell of its things table that the report gives
(a field of the same name, not null) compared with ``battle-ledger report --json`` run
as a separate process, every outcome cell of its periods table with the rules'
computation. About 10 s a kind: not marked slow.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.ledger import KINDS, Role
from battle_ledger.sheets.operations import load_operations
from tests.strategies import play_periods, renamed_ledger
from tests.tables import named_cell, retype_texts

load_operations()

#: Operators and wildcards of criteria, text that looks like a number, a boolean or a
#: cell, a leading space, and a name of 255 characters (Excel's criteria limit).
NASTY = ("=A1", "<>x", ">5", "*", "?x", "~*", "1e3", "TRUE", " lead", "*" + "x" * 254)


def _nasty_names(count: int) -> list[str]:
    """``count`` distinct names, the nasty ones first, then each again with a number."""
    return [NASTY[i] if i < len(NASTY) else f"{NASTY[i % len(NASTY)]} {i}" for i in range(count)]


def _plain(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "Y" if value else ""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _records(details: Any) -> list[dict[str, Any]]:
    """Every record (JSON object) within ``details`` (report --json)."""
    if isinstance(details, dict):
        return [details] + [r for v in details.values() for r in _records(v)]
    if isinstance(details, list):
        return [r for v in details for r in _records(v)]
    return []


def _record_of(records: list[dict[str, Any]], thing: str, field: str) -> dict[str, Any]:
    """The record of ``thing``: under its key's field, or else (a kind's report names it
    otherwise: a campaign's ``name``) the first that holds its name."""
    for record in records:
        if record.get(field) == thing:
            return record
    return next((r for r in records if thing in r.values()), {})


def _report(path: Path) -> Any:
    """The details of ``battle-ledger report --json`` on ``path``, run as its own process."""
    run = subprocess.run([sys.executable, "-m", "battle_ledger.xlfuncs.cli", "report", str(path),
                          "--json"], capture_output=True, text=True, check=True)  # fmt: skip
    return json.loads(run.stdout)["details"]


def _sheet_agrees_with_report(kind: Any, path: Path, tmp_path: Path) -> Any:
    """``path`` recalculated by LibreOffice: no cell of a period row is an error (#N/A,
    ...), every outcome of the periods table is the rules', and every outcome of the
    things table that ``report --json`` (its own process) gives is the report's. The
    things table as shown."""
    from tests.libreoffice import recalculated_workbook

    report = _report(path)
    if "on" in report and any(n.name == "StrengthOn" for n in kind.named_cells):
        # A campaign's formations are shown on the date typed; the report's is its own.
        wb = openpyxl.load_workbook(path)
        named_cell(wb, "StrengthOn").value = report["on"]
        wb.save(path)
        report = _report(path)
    recalculated = tmp_path / "recalculated.xlsx"
    recalculated_workbook(path).save(recalculated)
    shown = HeadlessBook(recalculated, writable=False)

    # The periods: every outcome cell as the rules compute it.
    expected = kind.compute(HeadlessBook(path, writable=False))
    periods = shown.read_table(kind.periods.name)
    assert len(periods) == len(expected) > 0
    errors = [(i, h, v) for i, row in periods.iterrows() for h, v in row.items()
              if isinstance(v, str) and v.startswith("#")]  # fmt: skip
    assert errors == [], "an error (#N/A, ...) in a period row"
    for index, row in expected.iterrows():
        for header, value in row.items():
            got, want = _plain(periods.at[index, header]), _plain(value)
            if isinstance(want, float):
                assert math.isclose(got, want, rel_tol=1e-13), (index, header, got, want)
            else:
                assert got == want, (index, header, got, want)

    # The things: every outcome cell the report gives, as a separate process gives it.
    key = kind.thing_key
    records = _records(report)
    things = shown.read_table(kind.things.name)
    compared = 0
    for _, row in things.iterrows():
        thing = row[key.header]
        if _plain(thing) == "":
            continue
        record = _record_of(records, str(thing).strip(), key.field)  # report names it as read
        assert record, (thing, "not in the report")
        for column in kind.things.having(Role.OUTCOME):
            if record.get(column.field) is None:  # not in the report, or not for this rule set
                continue
            got, want = _plain(row[column.header]), _plain(record[column.field])
            if isinstance(want, float) and isinstance(got, int | float):
                assert math.isclose(got, want, rel_tol=1e-9), (thing, column.header, got, want)
            elif isinstance(want, str) and isinstance(got, str):  # a term: its id or name
                assert got.casefold() == want.casefold(), (thing, column.header, got, want)
            else:
                assert got == want, (thing, column.header, got, want)
            compared += 1
    assert compared, f"no outcome of {kind.things.name} is in the report"
    return things


@pytest.mark.libreoffice
@pytest.mark.parametrize("name", sorted(KINDS))
def test_nasty_names_compute_alike_in_the_sheet_and_in_report(name: str, tmp_path: Path) -> None:
    kind = KINDS[name]
    # Ends stripped, as the order of battle reader gives them (a ledger reads a cell's text
    # so; a name typed " lead" into a things table is "lead" to report, not to the sheet).
    path = renamed_ledger(name, tmp_path / "ledger.xlsx",
                          lambda count: [n.strip() for n in _nasty_names(count)])  # fmt: skip
    play_periods(name, path, periods=3, seed=11)
    things = _sheet_agrees_with_report(kind, path, tmp_path)
    assert set(things[kind.thing_key.header]) & {n.strip() for n in NASTY}


# -- names with spaces at their ends: written as typed (issue 40) ---------------------------

#: The brief's hostile names: two with spaces at an end (the ledger reads them stripped, the
#: sheet's look-ups compare the exact text), three a criterion would read.
SPACED = ("  Spaced", "Trail  ", "=A", "*", "~*")


def _spaced_ledger(name: str, path: Path) -> dict[str, str]:
    """A ledger of kind ``name`` from its playbook's order of battle renamed with ``SPACED``
    (each again with a number), then its things and sides typed with the spaces again (the
    order of battle's reader strips them) wherever a cell names them, as a user would have
    typed them: their name read -> their name as typed."""
    from battle_ledger.sheets.ledger import KINDS

    kind = KINDS[name]
    renamed_ledger(name, path, lambda count: [n.strip() for n in _names_of(SPACED, count)])
    things = HeadlessBook(path, writable=False).read_table(kind.things.name)
    keys = list(things[kind.thing_key.header])
    sides = list(things["Side"]) if "Side" in things.columns else []
    typed = {str(k): ("  " + str(k) if str(k).startswith("Spaced") else str(k) + "  ")
             for k in keys + sides if str(k).startswith(("Spaced", "Trail"))}  # fmt: skip
    assert set(typed) & set(map(str, keys)), f"no {kind.thing} of {name} is named with spaces"
    retype_texts(path, typed)
    return typed


def _names_of(names: tuple[str, ...], count: int) -> list[str]:
    """``count`` distinct names: ``names`` first, then each again with a number."""
    return [names[i] if i < len(names) else f"{names[i % len(names)]} {i}" for i in range(count)]


def _stripped_anywhere(path: Path, typed: dict[str, str]) -> list[tuple[str, str, str]]:
    """The cells of ``path`` (sheet, cell, text) naming a thing of ``typed`` without the
    spaces the things table holds it with: a look-up of the sheet would not find it."""
    wb = openpyxl.load_workbook(path)
    return [(ws.title, cell.coordinate, cell.value) for ws in wb.worksheets
            for row in ws.iter_rows() for cell in row
            if cell.data_type == "s" and cell.value in typed]  # fmt: skip


@pytest.mark.parametrize("name", sorted(KINDS))
def test_names_with_spaces_at_their_ends_are_written_as_the_things_table_holds_them(
    name: str, tmp_path: Path
) -> None:
    """Every writer of a kind (its playbook's records, the close twice: new period rows,
    filler and carried rows, a battle's losses, units, wagons, a ship's target) writes a
    thing named with spaces at its ends as the things table holds it, never stripped (the
    sheet finds a row's thing by the exact text); check finds nothing."""
    from battle_ledger.sheets.operations import run_check

    path = tmp_path / "ledger.xlsx"
    typed = _spaced_ledger(name, path)
    assert _stripped_anywhere(path, typed) == []
    before = len(HeadlessBook(path, writable=False).read_table(KINDS[name].periods.name))
    play_periods(name, path, periods=2, seed=11)
    assert len(HeadlessBook(path, writable=False).read_table(KINDS[name].periods.name)) > before
    assert _stripped_anywhere(path, typed) == []
    assert run_check(HeadlessBook(path, writable=False)) == []


def test_check_names_a_period_row_whose_thing_differs_only_by_spaces(tmp_path: Path) -> None:
    """A name typed in a period row without the spaces the things table holds it with (or
    with spaces it does not): check, run as its own process, names the row (sheet, table,
    row, column, the value and what the things table holds) and fails; the same ledger
    typed alike passes."""
    from battle_ledger.sheets.kinds.dep_ledger import DIVISIONS, TURNS

    path = tmp_path / "ledger.xlsx"
    typed = _spaced_ledger("dep-ledger", path)
    checked = subprocess.run([sys.executable, "-m", "battle_ledger.xlfuncs.cli", "check",
                              str(path)], capture_output=True, text=True)  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    wb = openpyxl.load_workbook(path)
    ws = wb[TURNS.sheet]
    heads = [c.value for c in ws[3]]
    at = heads.index("Division") + 1
    spaced, trailing = (next(t for t in typed.values() if t.startswith(s)) for s in (" ", "T"))
    rows = {}
    for r in range(4, ws.max_row + 1):
        if ws.cell(r, at).value in (spaced, trailing) and ws.cell(r, at).value not in rows:
            rows[ws.cell(r, at).value] = r
    ws.cell(rows[spaced], at).value = spaced.strip()  # the user types it without its spaces
    ws.cell(rows[trailing], at).value = " " + trailing  # ... or with one more
    wb.save(path)
    checked = subprocess.run([sys.executable, "-m", "battle_ledger.xlfuncs.cli", "check",
                              str(path)], capture_output=True, text=True)  # fmt: skip
    assert checked.returncode == 1, checked.stdout + checked.stderr
    problems = [line for line in checked.stdout.splitlines() if "spaces at its ends" in line]
    assert len(problems) == 2, checked.stdout
    for text, holds in ((spaced.strip(), spaced), (" " + trailing, trailing)):
        line = next(p for p in problems if f"got {text!r}" in p)
        assert f"sheet {TURNS.sheet}, table {TURNS.name}, row {rows[holds]}" in line, line
        assert "column Division" in line and "the sheet will not find it" in line, line
        assert f"expected {holds!r}, as {DIVISIONS.name} has it" in line, line


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "battle_ledger.xlfuncs.cli", *args],
                          capture_output=True, text=True, check=True)  # fmt: skip


@pytest.mark.libreoffice
@pytest.mark.parametrize("name", sorted(KINDS))
def test_names_with_spaces_at_their_ends_are_found_by_the_sheet_as_by_report(
    name: str, tmp_path: Path
) -> None:
    """A ledger of each kind whose things are named with spaces at their ends and as a
    criterion would read them, played by ``battle-ledger run`` as separate processes (the
    playbook's records, the close twice), recalculated by LibreOffice: no cell of a period
    row is #N/A, every outcome of the periods table is the rules', and every outcome of the
    things table that ``report --json`` (its own process) gives is the report's."""
    import random

    from tests.strategies import PLAYBOOKS

    kind = KINDS[name]
    path = tmp_path / "ledger.xlsx"
    typed = _spaced_ledger(name, path)
    for period in range(2):
        pick = random.Random(period).randint
        planned = PLAYBOOKS[name].records(pick, path)
        for operation, options in planned:
            _cli("run", operation, str(path), *_flags(options))
        closing = PLAYBOOKS[name].closing(pick, path)
        if not planned and kind.asks_if_empty:
            closing["allow_empty"] = "Y"
        _cli("run", kind.close, str(path), *_flags(closing))
    assert _stripped_anywhere(path, typed) == []
    _sheet_agrees_with_report(kind, path, tmp_path)


def _flags(options: dict[str, str]) -> list[str]:
    """``options`` as a command line gives them."""
    return [a for k, v in options.items() for a in ("--" + k.replace("_", "-"), str(v))]
