"""``sheets.engine.zipvalues``: what openpyxl reads from a workbook's small parts, read without
it: each reading compared with openpyxl's own on the same input."""

from __future__ import annotations

import datetime as dt
import io
from xml.etree.ElementTree import fromstring

import pytest
from hypothesis import given
from hypothesis import strategies as st
from openpyxl.reader.strings import read_string_table
from openpyxl.styles import numbers
from openpyxl.utils.datetime import CALENDAR_MAC_1904, CALENDAR_WINDOWS_1900, from_excel
from openpyxl.workbook.defined_name import DefinedName

from battle_ledger.sheets.engine.cell_scanner import escape, unescape
from battle_ledger.sheets.engine.zipvalues import (
    MAC_EPOCH,
    WINDOWS_EPOCH,
    DefinedNameText,
    from_serial,
    is_date_format,
    is_timedelta_format,
    number_format,
    plain_strings,
)

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def test_the_epochs_are_openpyxls() -> None:
    assert (WINDOWS_EPOCH, MAC_EPOCH) == (CALENDAR_WINDOWS_1900, CALENDAR_MAC_1904)


@given(st.floats(0, 2_958_465.999, allow_nan=False), st.booleans(), st.booleans())
def test_a_serial_number_is_the_date_openpyxl_reads(
    serial: float, mac: bool, duration: bool
) -> None:
    epoch = MAC_EPOCH if mac else WINDOWS_EPOCH
    try:
        theirs = from_excel(serial, epoch, timedelta=duration)
    except (OverflowError, ValueError) as exc:
        with pytest.raises(type(exc)):
            from_serial(serial, epoch, timedelta=duration)
        return
    assert from_serial(serial, epoch, timedelta=duration) == theirs


@pytest.mark.parametrize("serial", [0, 0.5, 1, 59, 60, 61, 0.999999999, 45000.25, 1e-9])
def test_the_edges_of_the_1900_system_are_openpyxls(serial: float) -> None:
    assert from_serial(serial, WINDOWS_EPOCH) == from_excel(serial, WINDOWS_EPOCH)


_CODES = [
    "General", "0", "0.00", "hh:mm", "h:mm AM/PM", "[h]:mm:ss", "[mm]:ss", "[ss].00",
    "yyyy-mm-dd", 'dd/mm/yyyy;@', '"day" 0', '[Red]0.00', '[$-409]h:mm', "#,##0_);(#,##0)",
    "@", "0;-0;;@", "mm:ss.0", "[$€-2] #,##0.00", '"h"0', r"\d0", "_d0", "[hh]:mm",
]  # fmt: skip


@pytest.mark.parametrize("code", _CODES)
def test_a_format_is_a_date_or_a_duration_as_openpyxl_says(code: str) -> None:
    assert is_date_format(code) == numbers.is_date_format(code)
    assert is_timedelta_format(code) == numbers.is_timedelta_format(code)


@given(st.text(alphabet='0#.,;@"[]$-_\\/: hmsdyHMSDYAPaprRed', max_size=16))
def test_any_format_is_judged_as_openpyxl_judges_it(code: str) -> None:
    assert is_date_format(code) == numbers.is_date_format(code)
    assert is_timedelta_format(code) == numbers.is_timedelta_format(code)


def test_the_built_in_formats_are_dates_where_openpyxls_are() -> None:
    for format_id in range(200):
        theirs = numbers.BUILTIN_FORMATS.get(format_id, "General")
        assert is_date_format(number_format(format_id, {})) == numbers.is_date_format(theirs)
        assert is_timedelta_format(number_format(format_id, {})) == (
            numbers.is_timedelta_format(theirs)
        )
    assert number_format(14, {14: "0.0"}) == "0.0"  # the workbook's own first


# Text an XML file can hold (no control characters but tab and line ends).
_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=(
    [chr(c) for c in range(32) if c not in (9, 10, 13)] + ["\ufffe", "\uffff"])))  # fmt: skip


def _table(items: list[bytes]) -> bytes:
    return (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="'
            + _MAIN.encode() + f'" count="{len(items)}" uniqueCount="{len(items)}">'.encode()
            + b"".join(items) + b"</sst>")  # fmt: skip


@given(st.lists(st.tuples(_TEXT, st.booleans(), st.booleans()), max_size=8))
def test_a_plain_string_table_reads_as_openpyxl_reads_it(
    strings: list[tuple[str, bool, bool]],
) -> None:
    items = []
    for text, preserve, by_number in strings:
        body = escape(text)
        if by_number:  # every character as a numeric reference, as some writers do
            body = "".join(f"&#{ord(c)};" for c in text).encode()
        tag = b'<t xml:space="preserve">' if preserve else b"<t>"
        items.append(b"<si>" + tag + body + b"</t></si>")
    data = _table(items)
    assert plain_strings(data, unescape) == read_string_table(io.BytesIO(data))


@pytest.mark.parametrize(
    "item",
    [
        b"<si><r><t>rich</t></r><r><rPr><b/></rPr><t> text</t></r></si>",
        b'<si><t>kana</t><rPh sb="0" eb="1"><t>k</t></rPh></si>',
        b"<si><t/></si>",
        b"<x:si><x:t>prefixed</x:t></x:si>",
    ],
)
def test_another_spelling_is_left_to_openpyxl(item: bytes) -> None:
    assert plain_strings(_table([b"<si><t>plain</t></si>", item]), unescape) is None


_NAMES = [
    ("BattleName", None, "Battle!$B$2"),
    ("StartTime", None, "'Battle sheet'!$C$4"),
    ("MaxDEP", None, "'O''Neil''s'!$B$3"),
    ("Area", 0, "Turns!$A$1:$W$2305"),
    ("_xlnm.Print_Area", 2, "'DEP by turn'!$A$1:$X$50"),
    ("_xlnm._FilterDatabase", 1, "Turns!$A$1:$W$9"),
    ("Formula", None, "SUM(Turns!$A$1:$A$9)"),
    ("Two", None, "Turns!$A$1,Turns!$B$2"),
    ("Gone", None, "#REF!"),
    ("Constant", None, "48"),
    ("Whole", None, "Turns!$A:$A"),
]


@pytest.mark.parametrize(("name", "local", "text"), _NAMES)
def test_a_defined_name_reads_as_openpyxls(name: str, local: int | None, text: str) -> None:
    where = "" if local is None else f' localSheetId="{local}"'
    element = fromstring(f'<definedName xmlns="{_MAIN}" name="{name}"{where}>'
                         f"{text.replace('&', '&amp;')}</definedName>")  # fmt: skip
    ours, theirs = DefinedNameText.from_tree(element), DefinedName.from_tree(element)
    assert (ours.name, ours.localSheetId, ours.attr_text, ours.is_reserved) == (
        theirs.name, theirs.localSheetId, theirs.attr_text, theirs.is_reserved)  # fmt: skip
    assert list(ours.destinations) == list(theirs.destinations)


def test_a_date_read_by_the_fast_backend_is_the_date_openpyxl_reads() -> None:
    assert from_serial(45000.75, WINDOWS_EPOCH) == dt.datetime(2023, 3, 15, 18, 0)
