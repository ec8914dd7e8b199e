"""Rosters in a real spreadsheet: LibreOffice recalculates every formula to the values
the Python side computes, and prints each side on one page width.

For every rule set: the roster of its bundled example, with losses typed into
the input cells (stands/figures/base units lost, hit boxes struck off), is
recalculated by LibreOffice; every unit's "left" and hit count, every
division, corps and side total, the Age of Glaube family's victory-table
marks (``rulesets.age_of_glaube.victory_marks``) and Glory of the Empire's
actions and casualty brackets (``rulesets.glory_of_the_empire``) must equal
what Python computes from the order of battle and the same losses.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from openpyxl.worksheet.worksheet import Worksheet

from battle_ledger import rulesets
from battle_ledger.rulesets import age_of_glaube, glory_of_the_empire, square_eagles
from battle_ledger.rulesets.oob import OrderOfBattle, Unit, strength_fields
from battle_ledger.sheets.oob import ROSTER_TABLE_PREFIX, TOTAL_LABELS, name_headers, total_labels
from battle_ledger.templates import build, save_atomic
from battle_ledger.templates.demo import load_example
from tests.libreoffice import page_texts

pytestmark = pytest.mark.libreoffice

RULESETS = rulesets.ruleset_ids()

# (count column, the inputs that take from it, the formula column left)
_COUNTS: dict[str, list[tuple[str, str, str]]] = {
    "eagles-to-glory": [("Stands", "Stands lost", "Stands left")],
    "age-of-eagles": [("Stands", "Stands lost", "Stands left")],
    "glory-of-the-empire": [
        ("Figures", "Figures lost", "Figures left"),
        ("Guns", "Guns lost", "Guns left"),
    ],
    "square-eagles": [("SP", "H", "SP left")],
    "age-of-sail": [
        ("Gun decks", "P", "Port left"),
        ("Gun decks", "S", "Starboard left"),
        ("Masts", "M", "Masts left"),
        ("Hull", "H", "Hull left"),
    ],
}
for _family in ("age-of-glaube", "age-of-gloire", "age-of-reason", "age-of-destiny"):
    _COUNTS[_family] = [("Base units", "Base units lost", "Base units left")]


def _tables(ws: Worksheet) -> list[str]:
    return sorted(n for n in ws.tables if n.startswith(ROSTER_TABLE_PREFIX))


def _rows(ws: Worksheet, name: str) -> list[dict[str, Any]]:
    rows = list(ws[ws.tables[name].ref])
    headers = [c.value for c in rows[0]]
    return [dict(zip(headers, row, strict=True)) for row in rows[1:]]


def _boxes(row: dict[str, Any], prefix: str) -> list[Any]:
    return [c for h, c in row.items() if h[: len(prefix)] == prefix and h[len(prefix) :].isdigit()]


def _fill_losses(path: Path, ruleset_id: str) -> dict[tuple[str, int], dict[str, int]]:
    """Type losses into the roster's inputs; returns them per (sheet, row)."""
    wb = openpyxl.load_workbook(path)
    rs = rulesets.get(ruleset_id)
    typed: dict[tuple[str, int], dict[str, int]] = {}
    k = 0
    for ws in wb.worksheets:
        for name in _tables(ws):
            for row in _rows(ws, name):
                if row["Row"].value is not None:
                    continue
                k += 1
                losses: dict[str, int] = {}
                for count, inputs, _left in _COUNTS[ruleset_id]:
                    start = row[count].value
                    if not isinstance(start, int):
                        continue
                    lost = min(start, k % 4 + (k % 2))
                    boxes = _boxes(row, inputs)
                    if boxes:
                        for cell in boxes[:lost]:
                            cell.value = "X"
                        losses[inputs] = lost
                    else:
                        row[inputs].value = lost
                        losses[inputs] = lost
                typed[(ws.title, row[name_headers(rs)["unit"]].row)] = losses
    wb.save(path)
    return typed


def _unit_expected(rs: rulesets.Ruleset, unit: Unit, losses: dict[str, int]) -> dict[str, Any]:
    """What each computed cell of a unit row must show, from the rules in Python."""
    titles = {f.name: f.title for f in strength_fields(rs) if not f.division}
    out: dict[str, Any] = {titles[k]: v for k, v in unit.strengths.items() if k in titles}
    for count, inputs, left in _COUNTS[rs.id]:
        start = out.get(count)
        if start is None:
            continue
        lost = losses.get(inputs, 0)
        if rs.id == "square-eagles":
            out["Hits"] = lost
            out[left] = start - lost
            assert square_eagles.is_removed(lost, start) == (start - lost <= 0)
        elif rs.id == "age-of-sail":
            out[left] = max(0, start - lost)
        else:
            out[inputs] = lost
            out[left] = start - lost
    if rs.id == "glory-of-the-empire":
        grade = rs.term("grades", unit.grade).name if unit.grade else None
        out["Actions"] = glory_of_the_empire.actions_allowed(grade) if grade else None
        figures = unit.strengths.get("figures")
        for p in (25, 50, 75):
            due: int | None = None
            if grade and figures and p in glory_of_the_empire.casualty_brackets(grade):
                # the fewest figures lost that exceed the bracket
                due = next(
                    lost
                    for lost in range(figures + 1)
                    if p in glory_of_the_empire.brackets_crossed(grade, figures, 0, lost)
                )
            out[f"Check at {p}% lost"] = due
    return out


def _group_of(rs: rulesets.Ruleset, kind: str, unit: Unit) -> tuple[str, ...]:
    if kind == total_labels(rs)["division"]:
        return (unit.corps, unit.division)
    if kind == total_labels(rs)["corps"]:
        return (unit.corps,)
    return ()


def _blank(value: Any) -> bool:
    return value is None or value == ""


@pytest.fixture(scope="module")
def pdfs(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """Every example roster printed to PDF by LibreOffice (one start for all)."""
    from tests.libreoffice import require_soffice

    soffice = require_soffice()
    if shutil.which("pdftotext") is None or shutil.which("pdfinfo") is None:
        pytest.skip("poppler-utils (pdftotext, pdfinfo) are not installed")
    work = tmp_path_factory.mktemp("pdf")
    books = [
        save_atomic(build("roster", rid, load_example(rid)), work / f"{rid}.xlsx")
        for rid in RULESETS
    ]
    profile = work / "profile"
    subprocess.run(
        [
            soffice,
            f"-env:UserInstallation={profile.as_uri()}",
            "--headless",
            "--norestore",
            "--convert-to",
            "pdf",
            "--outdir",
            str(work / "out"),
            *map(str, books),
        ],
        check=True,
        capture_output=True,
        timeout=600,
        env=os.environ | {"HOME": str(work)},
    )
    return lambda rid: work / "out" / f"{rid}.pdf"


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_formulas_recalculate_to_the_python_values(
    ruleset_id: str, tmp_path: Path, recalc: Callable[[Path], dict[str, list[list[Any]]]]
) -> None:
    rs = rulesets.get(ruleset_id)
    oob: OrderOfBattle = load_example(ruleset_id)
    path = save_atomic(build("roster", rs, oob), tmp_path / "roster.xlsx")
    typed = _fill_losses(path, ruleset_id)
    values = recalc(path)
    wb = openpyxl.load_workbook(path)
    checked = 0
    any_reached = False
    for n, side in enumerate(oob.sides(), start=1):
        ws = wb[side]
        got = values[side]
        rows = _rows(ws, f"{ROSTER_TABLE_PREFIX}{n}")
        units = oob.units_of(side)
        unit_rows = [r for r in rows if r["Row"].value is None]
        assert len(unit_rows) == len(units)
        expected_by_unit = [
            _unit_expected(rs, u, typed[(side, r[name_headers(rs)["unit"]].row)])
            for u, r in zip(units, unit_rows, strict=True)
        ]
        for row, expected in zip(unit_rows, expected_by_unit, strict=True):
            for header, want in expected.items():
                cell = row[header]
                value = got[cell.row - 1][cell.column - 1]
                if want is None:
                    assert _blank(value), (side, cell.coordinate, header, value)
                else:
                    assert value == want, (side, cell.coordinate, header, value, want)
                checked += 1
        # totals: the sum over the units of the group, for every SUBTOTAL cell
        for row in rows:
            kind = row["Row"].value
            if kind is None:
                continue
            if kind == total_labels(rs)["side"]:
                members = list(range(len(units)))
            else:
                names = name_headers(rs)
                key = (row[names["corps"]].value or "", row[names["division"]].value or "")
                key = key[:1] if kind == total_labels(rs)["corps"] else key
                members = [i for i, u in enumerate(units) if _group_of(rs, kind, u) == key]
            assert members, (side, kind)
            for header, cell in row.items():
                if not (isinstance(cell.value, str) and cell.value.startswith("=SUBTOTAL(9,")):
                    continue
                want = sum(expected_by_unit[i].get(header) or 0 for i in members)
                assert got[cell.row - 1][cell.column - 1] == want, (side, cell.coordinate)
                checked += 1
        if rs.family == "age-of-glaube":
            total = oob.total("base_units", side)
            lost = sum(e.get("Base units lost") or 0 for e in expected_by_unit)
            reached = set(age_of_glaube.marks_crossed(total, 0, lost, rs.id))
            marks = _rows(ws, f"tbl_Marks_{n}")
            wanted = age_of_glaube.victory_marks(total, rs.id)
            assert len(marks) == len(wanted)
            for row, (pct, needed) in zip(marks, wanted, strict=True):
                shown = [got[c.row - 1][c.column - 1] for c in row.values()]
                flag = "reached" if (pct, needed) in reached else None
                assert shown[:2] == [pct, needed], (side, pct)
                assert (shown[2] or None) == flag, (side, pct, lost)
                checked += 1
            any_reached = any_reached or bool(reached)
    assert checked > len(oob.units)
    if rs.family == "age-of-glaube":
        assert any_reached  # the losses typed in reach a mark somewhere


def _printed_whole(name: list[str], words: list[str], within: int = 60) -> bool:
    """Whether ``name``'s words are printed in order, each whole, close together."""
    for start, word in enumerate(words):
        if word != name[0]:
            continue
        rest = name[1:]
        for later in words[start + 1 : start + within]:
            if rest and later == rest[0]:
                rest = rest[1:]
        if not rest:
            return True
    return False


@pytest.mark.slow
@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_each_side_prints_on_one_page_width(ruleset_id: str, pdfs: Callable[[str], Path]) -> None:
    pdf = pdfs(ruleset_id)
    oob = load_example(ruleset_id)
    rs = rulesets.get(ruleset_id)
    info = subprocess.run(
        ["pdfinfo", "-f", "1", "-l", "999", str(pdf)], capture_output=True, text=True, check=True
    ).stdout
    sizes = [line for line in info.splitlines() if line.startswith("Page") and "size:" in line]
    for line in sizes:
        width, height = (float(x) for x in line.split("size:")[1].split("pts")[0].split(" x "))
        assert width > height  # landscape
    texts = page_texts(pdf, "-layout")
    plain = page_texts(pdf)
    for side in oob.sides():
        title = f"{side}: {rs.name} roster"
        on = [i for i, text in enumerate(texts) if title in text]
        assert len(on) == 1, (side, on)
        page = texts[on[0]]
        # the whole table on that one page: the last column and the last row
        assert "Notes" in page and TOTAL_LABELS["side"] in page
        # every unit's name whole: wrapped within its column, never cut off (the text of a
        # wrapped cell comes out in lines among its neighbours': its words in order)
        words = plain[on[0]].split()
        for unit in oob.units_of(side):
            assert _printed_whole(unit.unit.split(), words), (side, unit.unit)
        for header in name_headers(rs).values():  # a fleet's in naval words
            assert header in words, header
        first_unit = oob.units_of(side)[0].unit
        assert first_unit[:12] in page
        # and no other page carries the side's units (nothing spilled right or down)
        for i, text in enumerate(texts):
            if i != on[0]:
                assert not (first_unit[:12] in text and TOTAL_LABELS["side"] in text)
