"""The headless backend (sheets/engine/headless.py): openpyxl on a file, atomic saves."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from battle_ledger.sheets.engine.book import Formula, check_terms
from battle_ledger.sheets.engine.headless import HeadlessBook, save_workbook
from battle_ledger.sheets.errors import (
    CellValueError,
    ColumnNotFoundError,
    TableNotFoundError,
    WorkbookError,
    WorkbookLockedError,
    WorkbookSaveError,
    WrongKindError,
)
from tests.toybook import TOY_KIND, make_toy

# Every test here runs on both backends: openpyxl's and the fast one (sheets.engine.zipbook).
pytestmark = pytest.mark.usefixtures("backend")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _units_sheet(path: Path) -> openpyxl.worksheet.worksheet.Worksheet:
    return openpyxl.load_workbook(path)["Army"]


# -- reading ----------------------------------------------------------------------------


def test_read_table_by_name_wherever_it_sits(toy_book: Path) -> None:
    book = HeadlessBook(toy_book)
    units = book.read_table("TBL_units")  # names are case-blind, as in Excel
    assert list(units.columns) == ["Unit", "Type", "Stands", "Lost", "Left", "Half gone"]
    # The table starts at B3: body rows are sheet rows 4 and 5; the blank row 6 is left out.
    assert list(units.index) == [0, 1]
    assert units["Unit"].tolist() == ["1st Line", "Cuirassiers"]
    assert units.attrs["where"] == {
        "file": str(toy_book),
        "sheet": "Army",
        "table": "tbl_Units",
        "first_row": 4,
    }


def test_read_table_with_types_converts_and_names_columns_as_asked(toy_book: Path) -> None:
    units = HeadlessBook(toy_book).read_table("tbl_Units", {"unit": str, "STANDS": int})
    assert "unit" in units.columns and "STANDS" in units.columns
    assert str(units["STANDS"].dtype) == "Int64"
    assert units["STANDS"].tolist() == [6, 4]


def test_text_in_a_number_column_names_file_sheet_table_row_and_column(tmp_path: Path) -> None:
    path = make_toy(
        tmp_path / "t.xlsx", units=[("1st Line", "Infantry", 6, 1), ("2nd", "Infantry", "six", 0)]
    )
    with pytest.raises(CellValueError) as err:
        HeadlessBook(path).read_table("tbl_Units", {"Stands": int})
    text = str(err.value)
    assert err.value.row == 5 and err.value.column == "Stands" and err.value.value == "six"
    for part in (str(path), "sheet Army", "table tbl_Units", "row 5", "column Stands", "'six'"):
        assert part in text
    assert "a whole number" in text


def test_a_fraction_in_a_whole_number_column_is_refused(tmp_path: Path) -> None:
    path = make_toy(tmp_path / "t.xlsx", units=[("1st Line", "Infantry", 6.5, 1)])
    with pytest.raises(CellValueError, match="whole number"):
        HeadlessBook(path).read_table("tbl_Units", {"Stands": int})


def test_unknown_unit_type_names_the_row_and_the_words_that_would_do(tmp_path: Path) -> None:
    from battle_ledger.rulesets import registry

    path = make_toy(tmp_path / "t.xlsx", units=[("Smaug", "Dragons", 6, 0)])
    units = HeadlessBook(path).read_table("tbl_Units", {"Type": str})
    with pytest.raises(CellValueError) as err:
        check_terms(units, "Type", registry.get("etg"), "unit_types")
    assert err.value.row == 4 and err.value.column == "Type" and err.value.value == "Dragons"
    assert "Heavy cavalry" in str(err.value)  # what would do


def test_check_terms_gives_term_ids_for_the_texts_own_words(toy_book: Path) -> None:
    from battle_ledger.rulesets import registry

    units = HeadlessBook(toy_book).read_table("tbl_Units")
    ids = check_terms(units, "Type", registry.get("etg"), "unit_types")
    assert ids.tolist() == ["infantry", "heavy cavalry"]


def test_missing_column_and_missing_table(toy_book: Path) -> None:
    book = HeadlessBook(toy_book)
    with pytest.raises(ColumnNotFoundError) as err:
        book.read_table("tbl_Units", ["Unit", "Morale"])
    assert err.value.column == "Morale" and err.value.table == "tbl_Units"
    assert "'Stands'" in str(err.value)  # the headers there are
    with pytest.raises(TableNotFoundError) as missing:
        book.read_table("tbl_Nope")
    assert "tbl_Units" in str(missing.value)


def test_meta_and_kind(toy_book: Path, tmp_path: Path) -> None:
    meta = HeadlessBook(toy_book).meta()
    assert (meta.kind, meta.ruleset, meta.template_version) == (TOY_KIND, "eagles-to-glory", 1)
    HeadlessBook(toy_book, kind=TOY_KIND)
    with pytest.raises(WrongKindError, match="not a roster"):
        HeadlessBook(toy_book, kind="roster")
    plain = tmp_path / "plain.xlsx"
    openpyxl.Workbook().save(plain)
    with pytest.raises(WrongKindError, match="no _meta sheet"):
        HeadlessBook(plain).meta()


def test_defined_names(toy_book: Path) -> None:
    book = HeadlessBook(toy_book)
    assert book.read_name("currentturn") == 1
    book.write_name("CurrentTurn", 7)
    book.commit()
    assert openpyxl.load_workbook(toy_book)["Setup"]["B2"].value == 7
    with pytest.raises(TableNotFoundError, match="no defined name"):
        HeadlessBook(toy_book).read_name("Nope")


def test_a_defined_name_on_a_sheet_whose_name_has_an_apostrophe(tmp_path: Path) -> None:
    """Excel doubles the apostrophe in a quoted sheet name: 'O''Neil'!$B$3."""
    from openpyxl.workbook.defined_name import DefinedName

    path = make_toy(tmp_path / "oneil.xlsx")
    wb = openpyxl.load_workbook(path)
    ws = wb.create_sheet("O'Neil")
    ws["B3"] = 12
    wb.defined_names["Strength"] = DefinedName("Strength", attr_text="'O''Neil'!$B$3")
    wb.save(path)
    book = HeadlessBook(path)
    assert book.read_name("Strength") == 12
    book.write_name("Strength", 9)
    book.commit()
    assert openpyxl.load_workbook(path)["O'Neil"]["B3"].value == 9


# -- writing ----------------------------------------------------------------------------


def test_writes_wait_for_commit_which_keeps_the_versions_replaced(toy_book: Path) -> None:
    before = toy_book.read_bytes()
    book = HeadlessBook(toy_book)
    book.write_cells("tbl_Units", pd.DataFrame({"Lost": [3]}, index=[1]))
    assert toy_book.read_bytes() == before  # nothing on disk yet
    book.commit()
    assert _units_sheet(toy_book)["E5"].value == 3
    history = toy_book.with_name("toy history")
    assert (history / "0001 before a save.xlsx").read_bytes() == before
    second = toy_book.read_bytes()
    book = HeadlessBook(toy_book)
    book.write_cells("tbl_Units", pd.DataFrame({"Lost": [4]}, index=[1]))
    book.commit()
    assert (history / "0002 before a save.xlsx").read_bytes() == second
    assert sorted(p.name for p in toy_book.parent.iterdir()) == ["toy history", "toy.xlsx"]


def test_discard_writes_nothing(toy_book: Path) -> None:
    before = _digest(toy_book)
    book = HeadlessBook(toy_book)
    book.write_cells("tbl_Units", pd.DataFrame({"Lost": [3]}, index=[0]))
    book.discard()
    assert _digest(toy_book) == before
    with pytest.raises(WorkbookSaveError):
        book.commit()


def test_write_cells_refuses_rows_outside_the_table(toy_book: Path) -> None:
    book = HeadlessBook(toy_book)
    with pytest.raises(CellValueError, match="no such row"):
        book.write_cells("tbl_Units", pd.DataFrame({"Lost": [3]}, index=[9]))


def test_append_fills_the_blank_row_then_grows_the_table(toy_book: Path) -> None:
    book = HeadlessBook(toy_book)
    book.append_rows(
        "tbl_Units",
        pd.DataFrame(
            [
                {"Unit": "Hussars", "Type": "Light cavalry", "Stands": 4, "Lost": 0},
                {"Unit": "Guns", "Type": "Foot artillery", "Stands": 2, "Lost": 1},
            ]
        ),
    )
    book.commit()
    ws = _units_sheet(toy_book)
    table = ws.tables["tbl_Units"]
    assert table.ref == "B3:G7"  # the blank row 6 was used, row 7 added
    assert [ws.cell(r, 2).value for r in (6, 7)] == ["Hussars", "Guns"]
    # the A1 formula of the row above, translated to the new row
    assert ws["F7"].value == '=IF(B7="","",D7-E7)'
    # the calculated column's formula
    assert ws["G7"].value.startswith("=IF(tbl_Units[[#This Row],[Unit]]")
    # validation and conditional formatting now reach the new row
    assert [str(dv.sqref) for dv in ws.data_validations.dataValidation] == ["C4:C7"]
    assert [str(cf.sqref) for cf in ws.conditional_formatting] == ["F4:F7"]
    assert ws["D7"].font.i  # the column's style came along
    reread = HeadlessBook(toy_book).read_table("tbl_Units", {"Stands": int})
    assert reread["Unit"].tolist() == ["1st Line", "Cuirassiers", "Hussars", "Guns"]


def test_append_will_not_overwrite_cells_below_the_table(tmp_path: Path) -> None:
    path = make_toy(tmp_path / "t.xlsx", blank_rows=0)
    wb = openpyxl.load_workbook(path)
    wb["Army"]["C6"] = "a note below the table"
    wb.save(path)
    before = _digest(path)
    book = HeadlessBook(path)
    with pytest.raises(WorkbookError, match="below the table are not empty"):
        book.append_rows("tbl_Units", pd.DataFrame([{"Unit": "More"}]))
    book.discard()
    assert _digest(path) == before


@pytest.mark.parametrize(
    "name",
    ['=HYPERLINK("http://example.com","x")', "+1+1", "-2+3", "@SUM(1)", "=cmd|' /C calc'!A0"],
)
def test_user_text_is_written_as_text_never_as_a_formula(toy_book: Path, name: str) -> None:
    book = HeadlessBook(toy_book)
    book.append_rows("tbl_Units", pd.DataFrame([{"Unit": name, "Type": "Infantry"}]))
    book.commit()
    cell = _units_sheet(toy_book)["B6"]
    assert cell.value == name
    assert cell.data_type == "s"
    assert cell.quotePrefix  # Excel keeps it text even after F2+Enter
    assert HeadlessBook(toy_book).read_table("tbl_Units")["Unit"].tolist()[-1] == name


def test_formula_marks_a_formula_on_purpose(toy_book: Path) -> None:
    book = HeadlessBook(toy_book)
    book.write_cells("tbl_Units", pd.DataFrame({"Lost": [Formula("=1+1")]}, index=[0]))
    book.commit()
    cell = _units_sheet(toy_book)["E4"]
    assert cell.value == "=1+1" and cell.data_type == "f"


# -- saving -----------------------------------------------------------------------------


def test_excel_lock_file_refuses_writing_but_not_reading(toy_book: Path) -> None:
    lock = toy_book.with_name("~$toy.xlsx")
    lock.write_bytes(b"owner")
    before = _digest(toy_book)
    with pytest.raises(WorkbookLockedError, match="open in Excel") as err:
        HeadlessBook(toy_book)
    assert "~$toy.xlsx" in str(err.value)
    assert HeadlessBook(toy_book, writable=False).read_table("tbl_Units").shape[0] == 2
    assert _digest(toy_book) == before


def test_lock_file_appearing_before_commit_still_refuses(toy_book: Path) -> None:
    before = _digest(toy_book)
    book = HeadlessBook(toy_book)
    book.write_name("CurrentTurn", 5)
    toy_book.with_name(".~lock.toy.xlsx#").write_text("LibreOffice")
    with pytest.raises(WorkbookLockedError, match="LibreOffice"):
        book.commit()
    assert _digest(toy_book) == before


def test_file_changed_since_opened_is_not_overwritten(toy_book: Path) -> None:
    book = HeadlessBook(toy_book)
    book.write_name("CurrentTurn", 5)
    wb = openpyxl.load_workbook(toy_book)
    wb["Setup"]["B2"] = 42  # someone else saved meanwhile
    wb.save(toy_book)
    theirs = _digest(toy_book)
    with pytest.raises(WorkbookSaveError, match="changed on disk"):
        book.commit()
    assert _digest(toy_book) == theirs


def test_a_failing_save_leaves_the_file_and_folder_as_they_were(
    toy_book: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Simulated: the OS refuses the final rename (as a read-only folder would)."""
    before = _digest(toy_book)
    book = HeadlessBook(toy_book)
    book.write_name("CurrentTurn", 5)

    def refuse(src: str, dst: str) -> None:
        raise PermissionError(13, "Permission denied", dst)

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(WorkbookSaveError, match="Permission denied"):
        book.commit()
    monkeypatch.undo()
    assert _digest(toy_book) == before
    leftovers = [p.name for p in toy_book.parent.iterdir() if p.name != "toy.xlsx"]
    assert leftovers == []  # the temporary file was removed


def test_save_workbook_is_atomic_and_refuses_to_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "new.xlsx"
    save_workbook(openpyxl.Workbook(), target)
    assert openpyxl.load_workbook(target).sheetnames == ["Sheet"]
    before = _digest(target)
    with pytest.raises(WorkbookSaveError, match="exists already"):
        save_workbook(openpyxl.Workbook(), target)
    assert _digest(target) == before
    with pytest.raises(WorkbookSaveError, match="folder does not exist"):
        save_workbook(openpyxl.Workbook(), tmp_path / "no" / "such.xlsx")
    assert not list(Path(tempfile.gettempdir()).glob(".~bl-*new*"))


# -- a real spreadsheet ---------------------------------------------------------------


@pytest.mark.libreoffice
def test_appended_rows_compute_in_libreoffice(toy_book: Path, recalc) -> None:  # type: ignore[no-untyped-def]
    book = HeadlessBook(toy_book)
    book.append_rows(
        "tbl_Units",
        pd.DataFrame(
            [
                {"Unit": "Hussars", "Type": "Light cavalry", "Stands": 4, "Lost": 2},
                {"Unit": "=1+1", "Type": "Foot artillery", "Stands": 3, "Lost": 1},
            ]
        ),
    )
    book.commit()
    rows = recalc(toy_book)["Army"]
    body = {r[1]: r[2:] for r in rows[3:] if r[1] is not None}
    # Left = Stands - Lost, Half gone = lost at least half (the formulas, computed by LibreOffice)
    assert body["Hussars"] == ["Light cavalry", 4, 2, 2, "yes"]
    assert body["1st Line"] == ["Infantry", 6, 1, 5, "no"]
    # the text "=1+1" stayed text: LibreOffice did not compute 2
    assert body["=1+1"] == ["Foot artillery", 3, 1, 2, "no"]
