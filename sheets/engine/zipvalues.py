"""What openpyxl reads from a workbook's small parts, read without importing it, for the
fast backend (``sheets.engine.zipbook``): the shared strings, which cell styles hold dates,
a date's serial number, the defined names.

Each gives exactly what openpyxl gives on the spellings Excel, LibreOffice and
openpyxl write (``tests/test_zipvalues.py`` compares them); on any other spelling it
hands over to openpyxl's own reader (``None`` from the readers below, or openpyxl's
model where a name is not a plain reference). Importing any part of openpyxl imports
all of it (with numpy): a third of a report's time on a grand battle.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from xml.etree.ElementTree import Element

__all__ = [
    "MAC_EPOCH",
    "WINDOWS_EPOCH",
    "DefinedNameText",
    "from_serial",
    "is_date_format",
    "is_timedelta_format",
    "number_format",
    "plain_strings",
]

#: Day 0 of the 1900 date system (as openpyxl counts it: Excel's 1900-02-29 skipped)
#: and of the 1904 one.
WINDOWS_EPOCH = _dt.datetime(1899, 12, 30)
MAC_EPOCH = _dt.datetime(1904, 1, 1)
_SECONDS_A_DAY = 86_400


def from_serial(value: float, epoch: _dt.datetime, *, timedelta: bool = False) -> Any:
    """A date, time, date-time or duration cell's serial number as openpyxl reads it
    (``openpyxl.utils.datetime.from_excel``)."""
    if timedelta:
        span = _dt.timedelta(days=value)
        if span.microseconds:  # to the millisecond, as openpyxl
            span = _dt.timedelta(seconds=span.total_seconds() // 1,
                                 microseconds=round(span.microseconds, -3))  # fmt: skip
        return span
    day, fraction = divmod(value, 1)
    part = _dt.timedelta(milliseconds=round(fraction * _SECONDS_A_DAY * 1000))
    if 0 <= value < 1 and part.days == 0:
        minutes, seconds = divmod(part.seconds, 60)
        hours, minutes = divmod(minutes, 60)
        return _dt.time(hours, minutes, seconds, part.microseconds)
    if 0 < value < 60 and epoch == WINDOWS_EPOCH:
        day += 1  # the 1900 system's day 60 is the 29 February 1900 it never had
    return epoch + _dt.timedelta(days=day) + part


#: The built-in number formats that are dates or times (every other built-in one is
#: not: openpyxl's ``BUILTIN_FORMATS``).
_BUILTIN_DATES = {
    14: "mm-dd-yy", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy", 18: "h:mm AM/PM",
    19: "h:mm:ss AM/PM", 20: "h:mm", 21: "h:mm:ss", 22: "m/d/yy h:mm", 45: "mm:ss",
    46: "[h]:mm:ss", 47: "mmss.0",
}  # fmt: skip
# Quoted text and bracketed locales or colours, which say nothing of dates (openpyxl).
_STRIP = re.compile(r'".*?"|\[(?!hh?\]|mm?\]|ss?\])[^\]]*\]')
_DATE_LETTER = re.compile(r"(?<![_\\])[dmhysDMHYS]")
_TIMEDELTA = re.compile(r"\[hh?\](:mm(:ss(\.0*)?)?)?|\[mm?\](:ss(\.0*)?)?|\[ss?\](\.0*)?", re.I)


def number_format(format_id: int, custom: dict[int, str]) -> str:
    """The format code of ``format_id``: the workbook's own, else a built-in date's,
    else one that is no date ("General")."""
    if format_id in custom:
        return custom[format_id]
    return _BUILTIN_DATES.get(format_id, "General")


def is_date_format(code: str | None) -> bool:
    """Whether numbers in format ``code`` are dates or times (openpyxl's test)."""
    if code is None:
        return False
    return _DATE_LETTER.search(_STRIP.sub("", code.split(";")[0])) is not None


def is_timedelta_format(code: str | None) -> bool:
    """Whether format ``code`` shows a duration (``[h]:mm``; openpyxl's test)."""
    return code is not None and _TIMEDELTA.search(code.split(";")[0]) is not None


_SST_OPEN = re.compile(rb"<sst\b[^>]*>")
_PLAIN_ITEM = re.compile(rb'<si><t(?: xml:space="preserve")?>([^<]*)</t></si>')
_UTF8 = re.compile(rb"""encoding=["']utf-8["']""", re.IGNORECASE)


def plain_strings(data: bytes, unescape: Callable[[bytes], str]) -> list[str] | None:
    """The shared strings of a string table written plainly (UTF-8, no prefix, each item
    one ``<t>``), as openpyxl reads them; None for any other spelling (rich text,
    phonetic runs, a prefix, a DTD: openpyxl's reader then)."""
    head = data[:128]
    if b"<!" in data or (b"encoding=" in head and _UTF8.search(head) is None):
        return None
    opening = _SST_OPEN.search(data, 0, 1024)
    end = data.rfind(b"</sst>")
    if opening is None or end < 0 or data[end + 6 :].strip():
        return None
    body = data[opening.end() : end]
    items = _PLAIN_ITEM.findall(body)
    if _PLAIN_ITEM.sub(b"", body).strip():
        return None
    return [unescape(i).replace("x005F_", "") for i in items]


#: A defined name that is a plain reference: a sheet (quoted or not) and a cell or range.
_PLAIN_REFERENCE = re.compile(
    r"(?:'(?P<quoted>(?:[^']|'')+)'|(?P<plain>[A-Za-z_][A-Za-z0-9_.]*))!"
    r"(?P<cells>\$?[A-Z]{1,3}\$?[1-9][0-9]*(?::\$?[A-Z]{1,3}\$?[1-9][0-9]*)?)"
)
_RESERVED = re.compile(
    r"^_xlnm\.(?P<name>Print_Area|Print_Titles|Criteria|_FilterDatabase|Extract"
    r"|Consolidate_Area|Sheet_Title)"
)


@dataclass
class DefinedNameText:
    """A ``<definedName>`` as openpyxl's ``DefinedName`` shows it to the fast backend:
    ``name``, ``localSheetId``, ``attr_text``, ``is_reserved`` and ``destinations``
    (openpyxl's own model only for a name that is not a plain reference)."""

    name: str
    localSheetId: int | None  # noqa: N815 (openpyxl's attribute)
    attr_text: str
    _element: Element

    @classmethod
    def from_tree(cls, element: Element) -> DefinedNameText:
        local = element.get("localSheetId")  # not a number: ValueError (openpyxl's too)
        return cls(element.get("name") or "", None if local is None else int(local),
                   element.text or "", element)  # fmt: skip

    @property
    def is_reserved(self) -> str | None:
        m = _RESERVED.match(self.name)
        return m.group("name") if m else None

    @property
    def destinations(self) -> Iterator[tuple[str, str]]:
        m = _PLAIN_REFERENCE.fullmatch(self.attr_text)
        if m is not None:
            yield (m.group("quoted") or m.group("plain")), m.group("cells")
            return
        from openpyxl.workbook.defined_name import DefinedName

        # types-openpyxl: from_tree takes any element and gives None only for None
        yield from DefinedName.from_tree(self._element).destinations  # type: ignore[arg-type,union-attr]
