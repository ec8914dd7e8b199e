"""The fast backend (sheets/engine/zipbook.py) against the openpyxl backend it stands in for.

Differential: every operation the playbooks make, on every kind, run on two copies of
the same ledger, one through ``ZipBook`` and one through ``HeadlessBook`` (same dice,
same clock): the files read back with openpyxl must be the same cell by cell (values,
formulas, styles, row heights, tables, validations, conditional formats, names, print
areas, chart series: ``tests/workbook_diff.py``), and on a ledger saved by LibreOffice
as well; LibreOffice must compute both to the same values. Where the fast path is not
sure of what it reads it hands the workbook to openpyxl, and the answer is the same.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from battle_ledger.sheets.engine import book as book_module
from battle_ledger.sheets.engine import xlsx_package
from battle_ledger.sheets.engine.book import Formula
from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.engine.history import versions
from battle_ledger.sheets.engine.zipbook import ENGINE_VARIABLE, ZipBook, open_book
from battle_ledger.sheets.errors import CellValueError, WorkbookError
from battle_ledger.sheets.ledger import KINDS
from battle_ledger.sheets.operations import OperationResult, run_on_book
from tests.libreoffice import recalculate, resaved
from tests.strategies import PLAYBOOKS, build_from_example, play_periods
from tests.workbook_diff import differences

_CLOCK = dt.datetime(1815, 6, 18, 11, 30)


@pytest.fixture(autouse=True)
def _still_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both backends write the same time into the Log."""
    monkeypatch.setattr(book_module, "now", lambda: _CLOCK)


def _steps(kind: str, path: Path, seed: int) -> list[tuple[str, dict[str, str]]]:
    """The operations of one period of the playbook on ``path``, its close last."""
    playbook = PLAYBOOKS[kind]
    planned = playbook.records(random.Random(seed).randint, path)
    closing = playbook.close_options(path, seed)
    if not planned and KINDS[kind].asks_if_empty:
        closing["allow_empty"] = "Y"
    return [*planned, (KINDS[kind].close, closing)]


def _both(
    fast_file: Path, slow_file: Path, operation: str, options: dict[str, str]
) -> tuple[OperationResult, OperationResult, str | None]:
    fast = ZipBook(fast_file)
    ours = run_on_book(fast, operation, rng=random.Random(5), **options)
    theirs = run_on_book(HeadlessBook(slow_file), operation, rng=random.Random(5), **options)
    return ours, theirs, fast.fell_back


def _check_period(kind: str, source: Path, work: Path, seed: int) -> list[str | None]:
    """Run a period on copies of ``source`` both ways, comparing after every operation;
    why the fast path handed over to openpyxl at each (None: it did not)."""
    fast_file, slow_file = work / "fast" / "ledger.xlsx", work / "slow" / "ledger.xlsx"
    for file in (fast_file, slow_file):
        file.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, file)
    fell: list[str | None] = []
    for operation, options in _steps(kind, source, seed):
        ours, theirs, why = _both(fast_file, slow_file, operation, options)
        fell.append(why)
        assert ours.summary == theirs.summary, operation
        assert differences(fast_file, slow_file) == [], (operation, options)
    return fell


def _kinds() -> list[object]:
    """Every kind; slow where its playbook says a period both ways takes over 5 s."""
    return [pytest.param(k, marks=pytest.mark.slow) if p.slow_both_ways else k
            for k, p in sorted(PLAYBOOKS.items())]  # fmt: skip


@pytest.mark.parametrize("kind", _kinds())
def test_every_operation_writes_what_the_openpyxl_path_writes(kind: str, tmp_path: Path) -> None:
    source = build_from_example(kind, tmp_path / "source.xlsx")
    play_periods(kind, source, 2, seed=7)
    fell = _check_period(kind, source, tmp_path, seed=11)
    assert fell == [None] * len(fell)  # our own files are read fast, never handed over


@pytest.mark.parametrize(("kind", "operation"), [(k, op) for k in sorted(PLAYBOOKS)
                                                 for op in PLAYBOOKS[k].variants])  # fmt: skip
def test_the_variant_operations_too(kind: str, operation: str, tmp_path: Path) -> None:
    from tests.strategies import variant_ledger

    source = variant_ledger(kind, operation, tmp_path / "source.xlsx")
    fell = _check_period(kind, source, tmp_path, seed=0)
    assert fell == [None] * len(fell)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(PLAYBOOKS))
def test_a_ledger_saved_by_libreoffice_and_what_libreoffice_computes(
    kind: str, tmp_path: Path
) -> None:
    played = build_from_example(kind, tmp_path / "played.xlsx")
    play_periods(kind, played, 1, seed=3)
    source = resaved(played, tmp_path / "source.xlsx")
    fell = _check_period(kind, source, tmp_path, seed=5)
    assert fell == [None] * len(fell), fell  # LibreOffice's spelling is read fast too
    fast, slow = (
        recalculate(tmp_path / "fast" / "ledger.xlsx"),
        recalculate(tmp_path / "slow" / "ledger.xlsx"),
    )
    assert fast == slow


# -- handing over to openpyxl ---------------------------------------------------------------


def _rezip(path: Path, change: Callable[[str, bytes], bytes]) -> None:
    with zipfile.ZipFile(path) as src:
        items = [(i, change(i.filename, src.read(i))) for i in src.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info, data in items:
            dst.writestr(info, data)


def _turns_part(path: Path) -> str:
    wb = openpyxl.load_workbook(path)
    index = wb.sheetnames.index("Turns") + 1
    return f"xl/worksheets/sheet{index}.xml"


_SPELLINGS: dict[str, Callable[[bytes], bytes]] = {
    "an XML comment": lambda xml: xml.replace(b"<sheetData>", b"<!-- ok --><sheetData>", 1),
    "a namespace prefix": lambda xml: re.sub(
        rb"<(/?)([A-Za-z][\w.-]*)(?=[\s/>])", rb"<\1x:\2", xml
    ).replace(b"xmlns=", b"xmlns:x=", 1),
    "a cell attribute after its type": lambda xml: xml.replace(b' t="n">', b' t="n" cm="1">', 1),
}


@pytest.mark.parametrize("spelling", sorted(_SPELLINGS))
def test_what_the_fast_path_does_not_read_goes_to_openpyxl(spelling: str, tmp_path: Path) -> None:
    source = build_from_example("dep-ledger", tmp_path / "source.xlsx")
    play_periods("dep-ledger", source, 1, seed=2)
    part = _turns_part(source)
    _rezip(source, lambda name, data: _SPELLINGS[spelling](data) if name == part else data)
    openpyxl.load_workbook(source)  # still a workbook openpyxl reads
    fell = _check_period("dep-ledger", source, tmp_path, seed=4)
    # The first operation hands over; openpyxl's save of it is read fast after.
    assert fell[0] is not None and fell[1:] == [None] * (len(fell) - 1), fell


_MAIN = b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
_COLUMNS = b'<tableColumns count="2"><tableColumn id="1" name="A"/><tableColumn id="2" name="B"/>'
_TABLE_TAGS = {
    "as openpyxl writes it": b'<table id="1" name="T1" displayName="tbl_Turns" ref="A1:B3" '
    b'headerRowCount="1" ' + _MAIN + b">" + _COLUMNS + b"</tableColumns></table>",
    "as Excel writes it": b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n<table '
    + _MAIN
    + b' id="1" name="T1" displayName="tbl_Turns" ref="A1:B3">'
    + _COLUMNS
    + b"</tableColumns></table>",
    "with a namespace prefix": b"<x:table "
    + _MAIN.replace(b"xmlns=", b"xmlns:x=")
    + b' id="1" name="T1" displayName="tbl_Turns" ref="A1:B3"><x:tableColumns count="2">'
    b'<x:tableColumn id="1" name="A"/><x:tableColumn id="2" name="B"/></x:tableColumns>'
    b"</x:table>",
    "its name a character reference": b"<table " + _MAIN + b' id="1" name="T&#49;" '
    b'displayName="tbl_Turns" ref="A1:B3">' + _COLUMNS + b"</tableColumns></table>",
}


@pytest.mark.parametrize("spelling", sorted(_TABLE_TAGS))
def test_a_table_is_named_as_openpyxl_reads_it_however_its_tag_is_written(spelling: str) -> None:
    """The fast path finds tables by the names on their tag without parsing the part
    (where they are written plainly); otherwise it reads them from openpyxl's model."""
    from openpyxl.worksheet.table import Table

    xml = _TABLE_TAGS[spelling]
    table = xlsx_package.TablePart(xml, "xl/tables/table1.xml", "Turns")
    names = (table.name, table.display_name)
    read_plainly = table._model is None
    model = Table.from_tree(xlsx_package.parse_part(xml))
    assert names == (model.name, model.displayName) == ("T1", "tbl_Turns")
    assert read_plainly == spelling.startswith("as ")


_CALCULATED_COLUMNS = (
    b'<tableColumns count="3"><tableColumn id="1" name="A"/>'
    b'<tableColumn id="2" name="B"><calculatedColumnFormula>{F}</calculatedColumnFormula>'
    b'</tableColumn><tableColumn id="3" name="C"><calculatedColumnFormula/></tableColumn>'
    b"</tableColumns>"
)
_CALCULATED_TABLES = {
    "as openpyxl writes it": b'<table id="1" name="T1" displayName="tbl_Turns" ref="C4:E9" '
    b'headerRowCount="1" ' + _MAIN + b'><autoFilter ref="C4:E9"/>' + _CALCULATED_COLUMNS
    + b"</table>",
    "a formula with a reference": b'<table id="1" name="T1" displayName="tbl_Turns" '
    b'ref="C4:E9" ' + _MAIN + b">" + _CALCULATED_COLUMNS.replace(b"{F}", b"C5&amp;{F}")
    + b"</table>",
    "an array formula": b'<table id="1" name="T1" displayName="tbl_Turns" ref="C4:E9" '
    + _MAIN + b">" + _CALCULATED_COLUMNS.replace(
        b"<calculatedColumnFormula>", b'<calculatedColumnFormula array="1">'
    )
    + b"</table>",
    "a namespace prefix": b"<x:table " + _MAIN.replace(b"xmlns=", b"xmlns:x=")
    + b' id="1" name="T1" displayName="tbl_Turns" ref="C4:E9"><x:autoFilter ref="C4:E9"/>'
    + _CALCULATED_COLUMNS.replace(b"<", b"<x:").replace(b"<x:/", b"</x:") + b"</x:table>",
    "a filter only in an extension": b'<table id="1" name="T1" displayName="tbl_Turns" '
    b'ref="C4:E9" ' + _MAIN + b">" + _CALCULATED_COLUMNS + b'<extLst><ext uri="{x}" '
    b'xmlns:y="urn:y"><y:autoFilter ref="C4:E9"/></ext></extLst></table>',
}  # fmt: skip


@pytest.mark.parametrize("spelling", sorted(_CALCULATED_TABLES))
def test_a_tables_calculated_formulas_and_grown_range_are_as_openpyxls_model_has_them(
    spelling: str,
) -> None:
    """Appending reads a table's calculated formulas and writes its grown range off the
    part's XML where it is plainly written; they are what openpyxl's model reads and
    what writing the range into the model gives."""
    from openpyxl.worksheet.table import Table

    from battle_ledger.sheets.engine.rows import calculated_formulas

    xml = _CALCULATED_TABLES[spelling].replace(b"{F}", b'IF([@A]="","",[@A]*2)')
    table = xlsx_package.TablePart(xml, "xl/tables/table1.xml", "Turns")
    model = Table.from_tree(xlsx_package.parse_part(xml))
    assert table.calculated_formulas() == calculated_formulas(3, model.tableColumns)
    assert table.calculated_formulas()  # the formula of column B is there to read
    plainly = table._model is None
    assert plainly == (spelling in ("as openpyxl writes it", "a filter only in an extension"))
    by_model = xlsx_package.TablePart(xml, "xl/tables/table1.xml", "Turns")
    by_model.model.ref = "C4:E12"  # what the append did before: the model, then its XML
    if by_model.model.autoFilter is not None and by_model.model.autoFilter.ref:
        by_model.model.autoFilter.ref = "C4:E12"
    table.grow_to("C4:E12")
    assert table.changed and table.bounds == (3, 4, 5, 12)
    assert table.serialised() == by_model.serialised()
    assert (table._model is None) == (spelling == "as openpyxl writes it")
    grown = Table.from_tree(xlsx_package.parse_part(table.serialised()))
    assert grown.ref == "C4:E12"
    assert grown.autoFilter is None or grown.autoFilter.ref in ("", "C4:E12")


_RELS_NS = b'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"'
_REL = (b'<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        b'relationships/table" Target="/xl/tables/table1.xml"/>')  # fmt: skip
_RELS_SPELLINGS = {
    "as openpyxl writes it": (b"<Relationships " + _RELS_NS + b">" + _REL + b"</Relationships>"),
    "as Excel writes it": b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
    b"<Relationships " + _RELS_NS + b">" + _REL + _REL.replace(b"rId1", b"rId2")
    + b"</Relationships>",
    "as LibreOffice writes it": b'<?xml version="1.0" encoding="UTF-8"?>\n<Relationships '
    + _RELS_NS + b"><Relationship Id=\"rId3\" Type=\"x\" Target=\"a.xml\" "
    b'TargetMode="External"/>\n</Relationships>',
    "empty": b"<Relationships " + _RELS_NS + b"/>",
    "a reference in a target": b"<Relationships " + _RELS_NS + b">"
    + _REL.replace(b"table1", b"t&amp;1") + b"</Relationships>",
    "a comment": b"<Relationships " + _RELS_NS + b"><!-- x -->" + _REL + b"</Relationships>",
    "a prefix": b"<r:Relationships " + _RELS_NS.replace(b"xmlns=", b"xmlns:r=") + b">"
    + _REL.replace(b"<Relationship", b"<r:Relationship") + b"</r:Relationships>",
    "single quotes": b"<Relationships " + _RELS_NS + b">" + _REL.replace(b'"rId1"', b"'rId1'")
    + b"</Relationships>",
    "another encoding": b'<?xml version="1.0" encoding="ISO-8859-1"?><Relationships '
    + _RELS_NS + b">" + _REL + b"</Relationships>",
    "an attribute twice": b"<Relationships " + _RELS_NS + b">"
    + _REL.replace(b"/>", b' Id="rId9"/>') + b"</Relationships>",
    "a vertical tab for a space": b"<Relationships " + _RELS_NS + b">"
    + _REL.replace(b' Type="', b'\x0bType="') + b"</Relationships>",
    "a declaration of another version": b'<?xml version="1.1"?><Relationships '
    + _RELS_NS + b">" + _REL + b"</Relationships>",
    "an entity declared": b'<!DOCTYPE r [<!ENTITY e "x">]><Relationships ' + _RELS_NS + b">"
    + _REL.replace(b"table1", b"&e;") + b"</Relationships>",
}  # fmt: skip


@pytest.mark.parametrize("spelling", sorted(_RELS_SPELLINGS))
def test_relationships_are_read_as_the_parser_reads_them_or_left_to_it(spelling: str) -> None:
    """A relationships part plainly written is read without a parser, to the same
    attributes; any other is left to defusedxml (which refuses a DTD, a duplicate)."""
    data = _RELS_SPELLINGS[spelling]
    plain = xlsx_package._plain_relationships(data)
    assert (plain is not None) == spelling.startswith("as ")
    try:
        root = xlsx_package.parse_part(data)
    except xlsx_package.UnsureError:
        assert spelling in ("an attribute twice", "an entity declared",
                            "a vertical tab for a space")  # fmt: skip
        return
    parsed = [dict(r.attrib) for r in root.iter(f"{{{xlsx_package._PKG_REL_NS}}}Relationship")]
    assert plain is None or plain == parsed


@pytest.mark.parametrize("turn", [7, None])
def test_a_log_line_appended_as_a_record_writes_what_its_frame_writes(
    turn: int | None, tmp_path: Path
) -> None:
    """``append_records`` (the Log line, without a DataFrame) saves the same parts as
    ``append_rows`` of the one-row frame the Log line was before."""
    from battle_ledger.sheets.engine.book import LOG_COLUMNS, LOG_TABLE
    from tests.toybook import make_toy

    row = {"When": "2026-11-27 05:00:00", "Action": "end-turn", "Turn": turn,
           "Detail": "turn 3 <closed> & \"done\" =A1", "Dice": ""}  # fmt: skip
    saved = []
    for how in ("records", "frame"):
        path = make_toy(tmp_path / f"{how}.xlsx", blank_rows=0)
        book = ZipBook(path, history=False)
        if how == "records":
            book.append_records(LOG_TABLE, [row, row], LOG_COLUMNS)
        else:
            book.append_rows(LOG_TABLE, pd.DataFrame([row, row], columns=list(LOG_COLUMNS)))
        assert book.fell_back is None
        book.commit()
        with zipfile.ZipFile(path) as z:
            # the two saves' clock may fall in different seconds: the time they say masked
            saved.append({i.filename: re.sub(rb"<dcterms:(created|modified)([^>]*)>[^<]*<",
                                             rb"<dcterms:\1\2><", z.read(i))
                          for i in z.infolist()})  # fmt: skip
    assert saved[0] == saved[1]
    read = ZipBook(tmp_path / "records.xlsx", writable=False).read_rows(LOG_TABLE)
    assert list(read.records())[-1]["Detail"] == row["Detail"]


def test_a_shared_formula_is_read_as_openpyxl_reads_it(tmp_path: Path) -> None:
    source = build_from_example("dep-ledger", tmp_path / "source.xlsx")
    play_periods("dep-ledger", source, 1, seed=2)
    part = _turns_part(source)

    def share(name: str, data: bytes) -> bytes:
        if name != part:
            return data
        # Excel's spelling of the same formula down a column: the first cell says it,
        # the next ones refer to it.
        found = list(re.finditer(rb'<c r="Q(\d+)"([^>]*)><f>([^<]*)</f>', data))
        first, second = found[0], found[1]
        master = (b'<c r="Q' + first.group(1) + b'"' + first.group(2) + b'><f t="shared" ref="Q'
                  + first.group(1) + b":Q" + second.group(1) + b'" si="0">' + first.group(3)
                  + b"</f>")  # fmt: skip
        follower = (
            b'<c r="Q' + second.group(1) + b'"' + second.group(2) + b'><f t="shared" si="0"/>'
        )
        return (data[: first.start()] + master + data[first.end() : second.start()] + follower
                + data[second.end() :])  # fmt: skip

    _rezip(source, share)
    book = ZipBook(source, writable=False)
    turns = book.read_table("tbl_Turns", cached=False)  # the light read needs no formula text
    assert book.fell_back is None and len(turns)
    refusals = []
    for reader in (book, HeadlessBook(source, writable=False)):
        with pytest.raises(CellValueError, match="holds a formula") as refused:
            reader.read_table("tbl_Turns", {"Key": str})
        refusals.append(str(refused.value))
    # The fast path translates the shared formula itself, to the text openpyxl reads.
    assert book.fell_back is None and refusals[0] == refusals[1]


def test_the_engine_variable_picks_openpyxl(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = build_from_example("dep-ledger", tmp_path / "source.xlsx")
    assert isinstance(open_book(source, writable=False), ZipBook)
    monkeypatch.setenv(ENGINE_VARIABLE, "openpyxl")
    assert isinstance(open_book(source, writable=False), HeadlessBook)


def test_reads_see_the_writes_before_the_commit(tmp_path: Path) -> None:
    """A batch (record --from-csv) reads what its earlier rows wrote."""
    source = build_from_example("dep-ledger", tmp_path / "source.xlsx")
    book = ZipBook(source)
    turns = book.read_table("tbl_Turns", {"Turn": int, "Charges": int})
    first = turns.index[0]
    book.write_cells("tbl_Turns", pd.DataFrame({"Charges": [2]}, index=[first]))
    assert book.read_table("tbl_Turns", {"Charges": int}).loc[first, "Charges"] == 2
    book.discard()
    assert (
        ZipBook(source, writable=False)
        .read_table("tbl_Turns", {"Charges": int})
        .loc[first, "Charges"]
        != 2
        or turns.loc[first, "Charges"] == 2
    )


def test_a_table_asked_twice_is_parsed_once_and_a_write_reads_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A close asks for the Log twice (the last close, then whether anything was
    recorded): the second is the first's rows, a copy the caller may change; a write
    between them is read."""
    from battle_ledger.sheets.engine.book import LOG_COLUMNS, LOG_TABLE
    from tests.toybook import make_toy

    book = ZipBook(make_toy(tmp_path / "toy.xlsx", blank_rows=0), history=False)
    parsed: list[str] = []
    real = xlsx_package.SheetPart.table_cells
    monkeypatch.setattr(
        xlsx_package.SheetPart,
        "table_cells",
        lambda self, *a, **k: parsed.append(self.part) or real(self, *a, **k),
    )
    asked = ["Action", "Turn"]
    first = book.read_rows(LOG_TABLE, asked, cached=False)
    first.rows.append(["changed by its reader", 1])
    second = book.read_rows(LOG_TABLE, asked, cached=False)
    assert len(parsed) == 1 and len(second.rows) == len(first.rows) - 1
    row = {"When": "2026-11-27 05:00:00", "Action": "end-turn", "Turn": 9, "Detail": "",
           "Dice": ""}  # fmt: skip
    book.append_records(LOG_TABLE, [row], LOG_COLUMNS)
    third = book.read_rows(LOG_TABLE, asked, cached=False)
    assert len(parsed) == 2 and third.records(asked)[-1] == {"Action": "end-turn", "Turn": 9}
    assert book.read_rows(LOG_TABLE, asked, cached=True) is not None and len(parsed) == 3


def test_parts_not_changed_are_copied_as_they_were(tmp_path: Path) -> None:
    source = build_from_example("dep-ledger", tmp_path / "source.xlsx")
    play_periods("dep-ledger", source, 1, seed=1)
    with zipfile.ZipFile(source) as z:
        before = {i.filename: z.read(i) for i in z.infolist()}
    run_on_book(ZipBook(source), "end-turn", allow_empty="Y")
    with zipfile.ZipFile(source) as z:
        after = {i.filename: z.read(i) for i in z.infolist()}
    changed = {name for name in before if before[name] != after.get(name)}
    wb = openpyxl.load_workbook(source)
    turns, log = (f"xl/worksheets/sheet{wb.sheetnames.index(n) + 1}.xml" for n in ("Turns", "Log"))
    assert {turns, log, "xl/workbook.xml"} <= changed
    assert all(name.startswith(("xl/worksheets/sheet", "xl/tables/", "xl/charts/",
                                "xl/workbook.xml")) for name in changed), changed  # fmt: skip
    assert set(after) == set(before)  # nothing lost, nothing added


def test_writes_made_before_a_hand_over_are_replayed_on_openpyxl(tmp_path: Path) -> None:
    """An operation that wrote, then met something the fast path does not read: the
    openpyxl book it goes on with has every write, and its Log lines for the history."""
    source = build_from_example("dep-ledger", tmp_path / "source.xlsx")
    play_periods("dep-ledger", source, 1, seed=2)
    handed, fast = tmp_path / "handed.xlsx", tmp_path / "fast.xlsx"
    for file in (handed, fast):
        shutil.copyfile(source, file)
    for file, hand_over in ((handed, True), (fast, False)):
        book = ZipBook(file)
        turns = book.read_table("tbl_Turns", {"Turn": int})
        book.write_cells("tbl_Turns", pd.DataFrame({"Charges": [1]}, index=[turns.index[-1]]))
        book.log("note", "a line before the hand-over")
        if hand_over:
            book._fall_back("a test")  # what meeting an unreadable part does
            assert book.fell_back == "a test"
        book.append_rows("tbl_Log", pd.DataFrame([{"Action": "note", "Detail": "after"}]))
        book.commit()
    assert differences(handed, fast) == []
    kept = versions(handed)[0]  # the newest: what the history says the save changed
    assert kept.before == "note" and "a line before the hand-over" in kept.then


def _macro_enabled(source: Path, target: Path, project: bytes) -> Path:
    """``source`` as Excel saves it once Import Functions put VBA into it (.xlsm): the
    workbook part's macro-enabled type, a VBA project and its relationship."""
    with zipfile.ZipFile(source) as z, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for info in z.infolist():
            data = z.read(info)
            if info.filename == "[Content_Types].xml":
                data = (
                    data.decode()
                    .replace(
                        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
                        "application/vnd.ms-excel.sheet.macroEnabled.main+xml",
                    )
                    .replace(
                        '<Default Extension="xml"',
                        '<Default Extension="bin" ContentType="application/vnd.ms-office.'
                        'vbaProject"/><Default Extension="xml"',
                    )
                    .encode()
                )
            if info.filename == "xl/_rels/workbook.xml.rels":
                data = data.replace(
                    b"</Relationships>",
                    b'<Relationship Id="rIdVBA" Type="http://schemas.microsoft.com/office/2006/'
                    b'relationships/vbaProject" Target="vbaProject.bin"/></Relationships>',
                )
            out.writestr(info, data)
        out.writestr("xl/vbaProject.bin", project)
    return target


@pytest.mark.parametrize("engine", ["fast", "openpyxl"])
def test_a_macro_enabled_ledger_keeps_its_vba_through_an_operation(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The desktop ledger (.xlsm, functions and buttons imported): the commands read it and
    leave its VBA project, its type and its relationship as they were."""
    if engine == "openpyxl":
        monkeypatch.setenv(ENGINE_VARIABLE, "openpyxl")
    source = build_from_example("dep-ledger", tmp_path / "source.xlsx")
    project = b"\xd0\xcf\x11\xe0 the VBA Import Functions wrote" * 40
    ledger = _macro_enabled(source, tmp_path / "battle.xlsm", project)
    play_periods("dep-ledger", ledger, 1, seed=3)
    with zipfile.ZipFile(ledger) as z:
        assert z.read("xl/vbaProject.bin") == project
        assert b"macroEnabled.main+xml" in z.read("[Content_Types].xml")
        assert b"vbaProject.bin" in z.read("xl/_rels/workbook.xml.rels")
    assert versions(ledger)  # the operations did write it (the version replaced is kept)


def _table_sheet(tmp_path: Path, rows: list[bytes]) -> Path:
    """A workbook whose sheet "Data" holds table tbl_T (A1:D5; a date style and a
    plain one) with ``rows`` (body rows 2..5, as XML) written in place of its rows."""
    from openpyxl.worksheet.table import Table

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.append(["Name", "Count", "Day", "Note"])
    for r in range(2, 6):
        ws.cell(r, 1, "x")
    ws.cell(2, 3).number_format = "yyyy-mm-dd"
    ws.add_table(Table(displayName="tbl_T", ref="A1:D5"))
    path = tmp_path / "spelled.xlsx"
    wb.save(path)
    with zipfile.ZipFile(path) as z:
        xml = z.read("xl/worksheets/sheet1.xml")
    date_style = re.search(rb'<c r="C2" s="(\d+)"', xml).group(1)  # type: ignore[union-attr]
    head = re.search(rb'<row r="1".*?</row>', xml).group(0)  # type: ignore[union-attr]
    body = b"".join(rows).replace(b"DATE", date_style)
    xml = re.sub(rb"<sheetData>.*</sheetData>", lambda _: b"<sheetData>" + head + body
                 + b"</sheetData>", xml, flags=re.S)  # fmt: skip
    _rezip(path, lambda name, data: xml if name == "xl/worksheets/sheet1.xml" else data)
    return path


def _row(r: int, *cells: bytes) -> bytes:
    return f'<row r="{r}">'.encode() + b"".join(cells) + b"</row>"


# Cell spellings the table reader takes at once, and the openpyxl reading of them must
# be its reading too.
_READ_FAST: dict[str, list[bytes]] = {
    "numbers, inline and empty": [
        _row(2, b'<c r="A2" t="inlineStr"><is><t>Ney</t></is></c>', b'<c r="B2"><v>3</v></c>'),
        _row(
            3,
            b'<c r="A3" t="inlineStr"><is><t/></is></c>',
            b'<c r="B3" t="n"><v>2.5</v></c>',
            b'<c r="D3"></c>',
        ),
        _row(
            4,
            b'<c r="A4" t="inlineStr"><is><t></t></is></c>',
            b'<c r="B4"><v></v></c>',
            b'<c r="D4" t="inlineStr"><is><t xml:space="preserve"> a </t></is></c>',
        ),
        _row(
            5,
            b'<c r="A5" t="inlineStr"><is><t>&lt;b&gt; &#233;</t></is></c>',
            b'<c r="B5"><v>1E3</v></c>',
            b'<c r="D5" t="b"><v>1</v></c>',
        ),
    ],
    "dates, errors, spaces and gaps": [
        _row(
            2,
            b'<c r="A2" t="inlineStr"><is><t>Soult</t></is></c>',
            b'<c r="C2" s="DATE"><v>45000.5</v></c>',
            b'<c r="D2" t="e"><v>#N/A</v></c>',
        ),
        _row(3, b'<c r="A3" t="inlineStr"><is><t>a\r\nb</t></is></c>', b'<c r="B3"><v> 7 </v></c>'),
        _row(5, b'<c r="A5" t="str"><v>typed &amp; cached</v></c>', b'<c r="B5"/>'),
    ],
    "a cell in another row of the same run": [
        _row(2, b'<c r="A2" t="inlineStr"><is><t>Ney</t></is></c>', b'<c r="B3"><v>9</v></c>'),
        _row(3, b'<c r="A3" t="inlineStr"><is><t>Soult</t></is></c>'),
    ],
}

# Spellings it hands to openpyxl: the answer is still openpyxl's.
_READ_BY_OPENPYXL: dict[str, list[bytes]] = {
    "attributes in another order": [_row(2, b'<c s="0" r="A2"><v>1</v></c>')],
    "an attribute it does not know": [_row(2, b'<c r="A2" cm="1"><v>1</v></c>')],
    "a cell without its reference": [_row(2, b"<c><v>1</v></c>")],
    "a cell in a row outside the table": [
        _row(5, b'<c r="A5" t="inlineStr"><is><t>Ney</t></is></c>', b'<c r="B6"><v>9</v></c>')
    ],
    "a number as a character reference": [_row(2, b'<c r="B2"><v>&#49;</v></c>')],
    "rich text": [_row(2, b'<c r="A2" t="inlineStr"><is><r><t>rich</t></r></is></c>')],
    "a NaN (openpyxl refuses it)": [_row(2, b'<c r="B2"><v>NaN</v></c>')],
    "a processing instruction": [_row(2, b'<c r="A2"><v>1</v></c><?pi x?>')],
    "white space and text between rows": [_row(2, b'<c r="A2"><v>1</v></c>') + b"\n x"],
}


@pytest.mark.parametrize("spelling", sorted(_READ_FAST) + sorted(_READ_BY_OPENPYXL))
def test_a_tables_rows_are_read_as_openpyxl_reads_them(spelling: str, tmp_path: Path) -> None:
    fast = spelling in _READ_FAST
    path = _table_sheet(tmp_path, (_READ_FAST if fast else _READ_BY_OPENPYXL)[spelling])
    if "refuses" in spelling:
        with pytest.raises(WorkbookError) as refused:
            HeadlessBook(path, writable=False)
        with pytest.raises(type(refused.value), match=re.escape(str(refused.value))):
            ZipBook(path, writable=False).read_rows("tbl_T", cached=False)
        return
    theirs = HeadlessBook(path, writable=False).read_rows("tbl_T", cached=False)
    book = ZipBook(path, writable=False)
    ours = book.read_rows("tbl_T", cached=False)
    assert (ours.headers, ours.rows, ours.index) == (theirs.headers, theirs.rows, theirs.index)
    assert (book.fell_back is None) == fast, book.fell_back


def test_a_tables_rows_read_after_a_write_are_the_rows_as_written_now(tmp_path: Path) -> None:
    """Rows as written are read at once, a changed row from its cells now: both in order."""
    rows = [_row(r, f'<c r="A{r}" t="inlineStr"><is><t>D{r}</t></is></c>'.encode(),
                 f'<c r="B{r}"><v>{r}</v></c>'.encode()) for r in range(2, 6)]  # fmt: skip
    book = ZipBook(_table_sheet(tmp_path, rows))
    book.write_cells("tbl_T", pd.DataFrame({"Count": [40], "Note": ["new"]}, index=[2]))
    read = book.read_rows("tbl_T", {"Count": int})
    assert [row[:2] for row in read.rows] == [["D2", 2], ["D3", 3], ["D4", 40], ["D5", 5]]
    assert read.column("Note") == [None, None, "new", None]
    assert book.fell_back is None


def test_a_formula_written_in_another_rows_element_is_refused_as_openpyxl_refuses_it(
    tmp_path: Path,
) -> None:
    rows = [
        _row(2, b'<c r="A2" t="inlineStr"><is><t>Ney</t></is></c>', b'<c r="B3"><f>1+1</f></c>'),
        _row(3, b'<c r="A3" t="inlineStr"><is><t>Soult</t></is></c>'),
    ]
    path = _table_sheet(tmp_path, rows)
    with pytest.raises(CellValueError) as theirs:
        HeadlessBook(path, writable=False).read_rows("tbl_T", {"Count": int})
    book = ZipBook(path, writable=False)
    with pytest.raises(CellValueError, match=re.escape(str(theirs.value))):
        book.read_rows("tbl_T", {"Count": int})
    assert book.fell_back == "a cell outside its row"


_CELL_VALUES = (
    st.none()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.text(alphabet="=+-@ \t\n\x00\x08\x0b\x1f&<>\"'aé", max_size=6)
    | st.sampled_from(["#N/A", "=", " x ", "x" * 32_767, "x" * 32_768, "1e5", "TRUE"])
    | st.builds(Formula, st.text(alphabet="=+-@ \t\x00\x1f&<>\"'A1[]é", max_size=8))
    | st.sampled_from(["=", "=[@Lost]*2", "A1", "==A1", "=" + "1" * 32_766, "1" * 32_767]).map(
        Formula
    )
)


def _toy(factory: pytest.TempPathFactory) -> Path:
    """One toy ledger for every example."""
    from tests.toybook import make_toy

    if not _TOY:
        _TOY.append(make_toy(factory.mktemp("cell") / "toy.xlsx"))
    return _TOY[0]


_TOY: list[Path] = []


@settings(deadline=None)
@given(value=_CELL_VALUES, shared=st.booleans())
@example(value=Formula("1" * 32_767), shared=True)  # one over a cell's length with its =
@example(value="x" * 32_768, shared=False)
@example(value="-1", shared=True)
def test_a_cell_written_without_the_openpyxl_cell_is_what_the_writer_makes(
    value: object, shared: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """``cell_xml``'s numbers, plain text and formulas, written without the scratch openpyxl cell,
    are the cell (and the shared strings) the one safe-text writer makes; anything else
    goes to the writer, with its refusal."""
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    assert xlsx_package._ILLEGAL_TEXT.pattern == ILLEGAL_CHARACTERS_RE.pattern
    path = _toy(tmp_path_factory)
    made: list[object] = []
    for how in ("cell_xml", "_by_writer"):
        package = ZipBook(path, writable=False).package
        if not shared:
            package.strings_part = None
        try:
            if how == "cell_xml":
                cell = package.cell_xml(7, 3, 5, value, {"row": 7})
            else:
                cell = package._by_writer(b"C7", b' s="5"', 5, value, {"row": 7})
        except (CellValueError, xlsx_package.UnsureError) as exc:
            made.append((type(exc), str(exc)))
        else:
            made.append((cell, list(package._new_strings)))
    assert made[0] == made[1]
