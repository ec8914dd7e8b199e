"""Nothing of the user's is dropped on a save (issue 33).

A ledger edited in Excel (``tests/excel_shaped.py``: shared strings and formulas, a
calculation chain, ``mc:Ignorable``, Excel 2010+ data bars, icon sets and drop-down
lists in a sheet's extension list, sparklines, a comment, a picture, custom formats,
colours, widths, a sheet of the umpire's own) keeps all of it, byte for byte in its
parts, through every operation of its kind on the fast path; where a save needs
openpyxl (``BATTLE_LEDGER_ENGINE=openpyxl``, or a hand-over) it is refused with one
line naming sheet and feature, the file byte for byte as it was, and openpyxl's own
warnings never reach the screen. And the ``calcPr`` the fast path adds goes where
CT_Workbook's sequence puts it.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import shutil
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import openpyxl
import pytest

from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine import book as book_module
from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.engine.workbook_file import openpyxl_losses
from battle_ledger.sheets.engine.xlsx_package import _full_calc_on_load, _print_area
from battle_ledger.sheets.engine.zipbook import ENGINE_VARIABLE, ZipBook
from battle_ledger.sheets.errors import WorkbookSaveError
from battle_ledger.sheets.ledger import KINDS
from battle_ledger.sheets.operations import operations_for, run_on_book
from tests.excel_shaped import (
    UMPIRE_SHEET,
    excel_shaped,
    kept_parts,
    sheet_part,
)
from tests.strategies import PLAYBOOKS, build_from_example, play_periods, variant_ledger

_CLOCK = dt.datetime(1815, 6, 18, 11, 30)


@pytest.fixture(autouse=True)
def _still_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both runs write the same time into the Log."""
    monkeypatch.setattr(book_module, "now", lambda: _CLOCK)


# -- calcPr where the schema puts it -----------------------------------------------------------

#: CT_Workbook's children in the order of its xsd:sequence (ECMA-376 Part 1, sml.xsd).
_CT_WORKBOOK = [
    "fileVersion", "fileSharing", "workbookPr", "workbookProtection", "bookViews", "sheets",
    "functionGroups", "externalReferences", "definedNames", "calcPr", "oleSize",
    "customWorkbookViews", "pivotCaches", "smartTagPr", "smartTagTypes", "webPublishing",
    "fileRecoveryPr", "webPublishObjects", "extLst",
]  # fmt: skip
_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_SHEETS = '<sheets><sheet name="Turns" sheetId="1" r:id="rId1"/></sheets>'
_EXT = '<extLst><ext uri="{140A7094-0E35-4892-8432-C4D2E57EDEB5}"><x15:workbookPr/></ext></extLst>'
_WORKBOOKS = {
    "extLst, no calcPr": f"<bookViews/>{_SHEETS}<definedNames/>{_EXT}",
    "neither": f"<bookViews/>{_SHEETS}",
    "extLst and fileRecoveryPr": f"{_SHEETS}<fileRecoveryPr/>{_EXT}",
    "no definedNames, extLst": f"<workbookPr/>{_SHEETS}{_EXT}",
}


def _children(xml: bytes) -> list[str]:
    root = ElementTree.fromstring(xml)
    return [child.tag.rsplit("}", 1)[-1] for child in root]


def _in_sequence(names: list[str]) -> bool:
    order = [_CT_WORKBOOK.index(n) for n in names]
    return order == sorted(order) and len(set(names)) == len(names)


@pytest.mark.parametrize("prefix", ["", "x:"])
@pytest.mark.parametrize("shape", sorted(_WORKBOOKS))
def test_calc_pr_goes_where_ct_workbook_puts_it(shape: str, prefix: str) -> None:
    body = _WORKBOOKS[shape]
    body = re.sub(r"<(/?)(?=(?:\w+)[\s/>])(?!x15:)", rf"<\1{prefix}", body)
    declare = f'xmlns{":" + prefix[:-1] if prefix else ""}="{_NS}"'
    xml = (f'<?xml version="1.0"?><{prefix}workbook {declare} xmlns:r="r" xmlns:x15="x15">'
           f"{body}</{prefix}workbook>").encode()  # fmt: skip
    assert _in_sequence(_children(xml))
    calc = _full_calc_on_load(xml)
    assert "calcPr" in _children(calc) and _in_sequence(_children(calc)), calc
    assert re.search(rb"<" + prefix.encode() + rb'calcPr fullCalcOnLoad="1"/>', calc)
    printed = _print_area(calc, 0, "'Turns'!$A$1:$C$4")
    assert "definedNames" in _children(printed) and _in_sequence(_children(printed)), printed
    assert _full_calc_on_load(calc) == calc  # asked once


# -- an Excel-shaped ledger through every operation of its kind ---------------------------------


def _options(kind: str, operation: str, path: Path) -> dict[str, str]:
    """The options of the first playbook draw that does ``operation`` on ``path``."""
    close = KINDS[kind].close
    for seed in range(100):
        if operation == close:
            options = PLAYBOOKS[kind].close_options(path, seed)
            allows = "allow_empty" in next(o for o in operations_for(kind)
                                           if o.name == operation).options  # fmt: skip
            if allows:
                options["allow_empty"] = "Y"
            return options
        planned = PLAYBOOKS[kind].records(random.Random(seed).randint, path)
        options = next((o for op, o in planned if op == operation), {})
        if options:
            return options
    raise AssertionError(f"the {kind} playbook never does {operation}")


def _cases() -> list[tuple[str, str]]:
    return [(kind, op.name) for kind in sorted(PLAYBOOKS) for op in operations_for(kind)]


_PLAIN: dict[tuple[str, str], Path] = {}


def _plain_ledger(kind: str, operation: str, folder: Path) -> Path:
    """A played ledger of ``kind`` on which the playbook does ``operation`` (built once
    per kind, or per variant)."""
    key = (kind, operation if operation in PLAYBOOKS[kind].variants else "")
    if key not in _PLAIN or not _PLAIN[key].exists():
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{kind}-{key[1] or 'played'}.xlsx"
        if key[1]:
            variant_ledger(kind, operation, path)
        else:
            build_from_example(kind, path)
            play_periods(kind, path, 1, seed=7)
        _PLAIN[key] = path
    return _PLAIN[key]


def _state(path: Path, kind: str) -> dict[str, Any]:
    """What an operation leaves, read by openpyxl: every table's cells (formulas as their
    text, shared ones translated), the defined names' cells, the Log."""
    wb = _read(path)
    found: dict[str, Any] = {}
    for ws in wb.worksheets:
        for table in ws.tables.values():
            cells = [[c.value for c in row] for row in ws[table.ref]]
            found[table.displayName] = (table.ref, cells)
    return found


def _read(path: Path) -> openpyxl.Workbook:
    """The file as openpyxl reads it (what it would drop does not matter to a reading)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return openpyxl.load_workbook(path)


def _parts(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


def _grown(extensions: bytes, kind: str, before: dict[str, Any], after: dict[str, Any]) -> bytes:
    """``extensions`` (of the periods sheet) with each range that ended at its table's last
    row ending at its new last row (what the validations and formats of a grown table do)."""
    for name in [KINDS[kind].periods.name]:
        ref, new = before[name][0], after[name][0]
        old_last, new_last = (int(re.findall(r"\d+", r)[-1]) for r in (ref, new))
        if new_last != old_last:
            extensions = re.sub(
                rb"(<xm:sqref>[A-Z]+\d+:[A-Z]+)" + str(old_last).encode() + rb"(</xm:sqref>)",
                rb"\g<1>" + str(new_last).encode() + rb"\2",
                extensions,
            )
    return extensions


@pytest.mark.parametrize(("kind", "operation"), _cases())
def test_an_excel_shaped_ledger_keeps_what_excel_added_through_every_operation(
    kind: str, operation: str, tmp_path: Path
) -> None:
    plain = _plain_ledger(kind, operation, tmp_path.parent / "plain-ledgers")
    options = _options(kind, operation, plain)
    ours = shutil.copyfile(plain, tmp_path / "ours.xlsx")
    excel = excel_shaped(plain, tmp_path / "excel.xlsx", kind)
    before, kept = _parts(excel), kept_parts(excel, kind)
    tables_before = _state(excel, kind)
    run_on_book(ZipBook(ours), operation, rng=random.Random(5), **options)
    book = ZipBook(excel)
    try:
        run_on_book(book, operation, rng=random.Random(5), **options)
    except BattleLedgerError as exc:  # refused: one line, the file as it was
        assert "\n" not in str(exc) and _parts(excel) == before, str(exc)
        pytest.fail(f"refused on the fast path ({book.fell_back}): {exc}")
    assert book.fell_back is None  # Excel's spelling is read and written fast
    # The operation did its job: every table as the same operation leaves our own file.
    after = _state(excel, kind)
    assert after == _state(ours, kind)
    # And what Excel added is there, byte for byte (the Excel 2010+ ranges grown with
    # their table as the others grow).
    now = kept_parts(excel, kind)
    periods = next(k for k in kept if k.endswith("#extLst"))
    assert now.pop(periods) == _grown(kept.pop(periods), kind, tables_before, after)
    assert now == kept
    parts = _parts(excel)
    gone = set(before) - set(parts)
    assert gone <= {"xl/calcChain.xml"}, gone  # Excel rebuilds the chain; nothing else goes
    assert b"<extLst>" in parts["xl/workbook.xml"] and b"mc:Ignorable" in parts["xl/workbook.xml"]
    wb = _read(excel)
    assert wb[UMPIRE_SHEET]["A2"].value == "Ney arrives at turn 6"


# -- where openpyxl would save: refused, in one line --------------------------------------------


def _excel_ledger(tmp_path: Path) -> Path:
    plain = _plain_ledger("dep-ledger", "", tmp_path.parent / "plain-ledgers")
    return excel_shaped(plain, tmp_path / "excel.xlsx", "dep-ledger")


def test_openpyxl_names_every_feature_it_would_drop_by_sheet(tmp_path: Path) -> None:
    excel = _excel_ledger(tmp_path)
    periods = KINDS["dep-ledger"].periods.sheet
    losses = openpyxl_losses(excel.read_bytes())
    for feature, sheet in [("data bars, icon sets", periods), ("drop-down lists", periods),
                           ("sparklines", UMPIRE_SHEET), ("pictures", UMPIRE_SHEET),
                           ("comments", UMPIRE_SHEET)]:  # fmt: skip
        assert any(feature in loss and f"'{sheet}'" in loss for loss in losses), (feature, losses)
    plain = _plain_ledger("dep-ledger", "", tmp_path.parent / "plain-ledgers")
    assert openpyxl_losses(plain.read_bytes()) == []  # our own ledger: openpyxl keeps it


def _cli(*args: str, engine: str | None = None) -> subprocess.CompletedProcess[str]:
    import os

    env = dict(os.environ)
    env.pop(ENGINE_VARIABLE, None)
    if engine:
        env[ENGINE_VARIABLE] = engine
    env["PYTHONWARNINGS"] = "default"  # every warning shown, as a user's Python may
    return subprocess.run(
        [sys.executable, "-m", "battle_ledger.xlfuncs.cli", *args],
        capture_output=True, text=True, env=env, check=False, timeout=300,
    )  # fmt: skip


def test_the_openpyxl_engine_refuses_in_one_line_and_leaves_the_file(tmp_path: Path) -> None:
    excel = _excel_ledger(tmp_path)
    before = excel.read_bytes()
    run = _cli("run", "end-turn", str(excel), "--allow-empty", "Y", engine="openpyxl")
    assert run.returncode == 1, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: nothing saved"), run.stderr
    for word in ("data bars", "sparklines", "pictures", "comments", UMPIRE_SHEET):
        assert word in lines[0], word
    assert "site-packages" not in run.stderr and "Warning" not in run.stderr
    assert excel.read_bytes() == before
    assert not list(tmp_path.glob("* history")) and sorted(tmp_path.iterdir()) == [excel]
    # Reading is no loss: a report with openpyxl shows no warning either.
    report = _cli("report", str(excel), engine="openpyxl")
    assert report.returncode == 0 and report.stderr == "", report.stderr
    fast = _cli("run", "end-turn", str(excel), "--allow-empty", "Y")
    assert fast.returncode == 0 and fast.stderr == "", fast.stderr  # the fast path keeps it all


def test_a_hand_over_to_openpyxl_refuses_instead_of_dropping(tmp_path: Path) -> None:
    """What the fast path does not read (here an XML comment in the periods sheet) goes
    to openpyxl: on an Excel-shaped ledger its save would drop what Excel added."""
    excel = _excel_ledger(tmp_path)
    parts = _parts(excel)
    part = sheet_part(parts, KINDS["dep-ledger"].periods.sheet)
    parts[part] = parts[part].replace(b"<sheetData>", b"<!-- kept --><sheetData>", 1)
    with zipfile.ZipFile(excel, "w", zipfile.ZIP_DEFLATED) as out:
        for name, data in parts.items():
            out.writestr(name, data)
    before = excel.read_bytes()
    book = ZipBook(excel)
    with pytest.raises(WorkbookSaveError) as refused:
        run_on_book(book, "end-turn", allow_empty="Y")
    message = str(refused.value)
    assert book.fell_back is not None and book.fell_back in message
    assert "data bars" in message and "\n" not in message
    assert excel.read_bytes() == before


def test_openpyxl_warnings_about_what_it_drops_refuse_a_save(tmp_path: Path) -> None:
    """A loss openpyxl warns of that the package scan does not name (a conditional
    format openpyxl fails to read) is refused too, in its words, never printed."""
    plain = _plain_ledger("dep-ledger", "", tmp_path.parent / "plain-ledgers")
    ledger = shutil.copyfile(plain, tmp_path / "ledger.xlsx")
    parts = _parts(ledger)
    part = sheet_part(parts, KINDS["dep-ledger"].periods.sheet)
    # An attribute openpyxl's model of a rule does not take: it leaves the rule out.
    parts[part] = re.sub(rb'<cfRule type="expression"', b'<cfRule later="1" '
                         b'type="expression"', parts[part], count=1)  # fmt: skip
    with zipfile.ZipFile(ledger, "w", zipfile.ZIP_DEFLATED) as out:
        for name, data in parts.items():
            out.writestr(name, data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning shown would fail the test
        book = HeadlessBook(ledger)
        assert book._dropped  # openpyxl said it discards the rule
        before = ledger.read_bytes()
        with pytest.raises(WorkbookSaveError, match="what openpyxl warns of"):
            run_on_book(book, "end-turn", allow_empty="Y")
    assert ledger.read_bytes() == before


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*extension is not supported")  # the test's own reading
@pytest.mark.parametrize("kind", sorted(PLAYBOOKS))
def test_libreoffice_computes_an_excel_shaped_ledger_as_our_own_after_a_period(
    kind: str, tmp_path: Path
) -> None:
    """A period played on the Excel-shaped ledger (shared formulas read and extended by
    the fast path): LibreOffice opens it and computes every sheet of ours as on the same
    period played on our own file."""
    from tests.libreoffice import recalculate

    plain = _plain_ledger(kind, "", tmp_path.parent / "plain-ledgers")
    ours = shutil.copyfile(plain, tmp_path / "ours.xlsx")
    excel = excel_shaped(plain, tmp_path / "excel.xlsx", kind)
    for path in (ours, excel):
        play_periods(kind, path, 1, seed=11)
    computed, theirs = recalculate(excel), recalculate(ours)
    assert computed.pop(UMPIRE_SHEET)[1] == ["Ney arrives at turn 6", 12.5]
    assert computed == theirs
