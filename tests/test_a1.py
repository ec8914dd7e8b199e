"""``sheets.engine.a1``: A1 references read as openpyxl reads them, without importing it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from openpyxl.utils import get_column_letter, quote_sheetname, range_boundaries
from openpyxl.utils.cell import coordinate_to_tuple

from battle_ledger.sheets.engine.a1 import (
    boundaries,
    column_letter,
    column_number,
    coordinates,
    quote_sheet,
)

_COLUMNS = st.integers(1, 18_278)
_ROWS = st.integers(1, 1_048_576)


def test_every_column_is_lettered_as_openpyxl_letters_it() -> None:
    for number in range(1, 18_279):
        letters = column_letter(number)
        assert letters == get_column_letter(number)
        assert column_number(letters) == number
    for wrong in (0, 18_279):
        with pytest.raises(ValueError):
            column_letter(wrong)


@given(_COLUMNS, _ROWS, _COLUMNS, _ROWS, st.booleans(), st.booleans())
def test_a_range_has_the_bounds_openpyxl_gives(
    c1: int, r1: int, c2: int, r2: int, whole: bool, dollars: bool
) -> None:
    d = "$" if dollars else ""
    ref = f"{d}{get_column_letter(c1)}{d}{r1}"
    if whole:
        ref += f":{d}{get_column_letter(c2)}{d}{r2}"
    assert boundaries(ref) == range_boundaries(ref)
    if not whole:
        plain = ref.replace("$", "")
        assert coordinates(plain) == coordinate_to_tuple(plain)


@pytest.mark.parametrize("ref", ["A:C", "2:5", "$B:$B", "A1:XFD1048576"])
def test_other_spellings_of_a_range_are_openpyxls_reading(ref: str) -> None:
    assert boundaries(ref) == range_boundaries(ref)


@pytest.mark.parametrize("name", ["Battle", "Turns by DEP", "O'Neil", "''", "Ф 1"])
def test_a_sheet_name_is_quoted_as_openpyxl_quotes_it(name: str) -> None:
    assert quote_sheet(name) == quote_sheetname(name)
