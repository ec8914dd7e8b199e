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
from tests.tables import named_cell

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


@pytest.mark.libreoffice
@pytest.mark.parametrize("name", sorted(KINDS))
def test_nasty_names_compute_alike_in_the_sheet_and_in_report(name: str, tmp_path: Path) -> None:
    from tests.libreoffice import recalculated_workbook

    kind = KINDS[name]
    # Ends stripped, as the order of battle reader gives them (a ledger reads a cell's text
    # so; a name typed " lead" into a things table is "lead" to report, not to the sheet).
    path = renamed_ledger(name, tmp_path / "ledger.xlsx",
                          lambda count: [n.strip() for n in _nasty_names(count)])  # fmt: skip
    play_periods(name, path, periods=3, seed=11)
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
        record = _record_of(records, str(thing), key.field)
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
    assert set(things[key.header]) & {n.strip() for n in NASTY}
