"""The tests' one OOXML validator: ``validate(path)`` lists what is wrong with a workbook.

It runs openxml-audit (a pure-Python port of the Open XML SDK's validator: package,
relationships, schema and semantic checks), then the structural checks that validator
does not make (tried with planted faults in ``tests/test_ooxml.py``):

- a table whose ``ref`` is not as wide as its ``tableColumns`` (count and children),
  whose ``autoFilter`` covers other cells, or whose header cells are not its columns'
  names (Excel repairs such a table on opening);
- a cell reference repeated, out of order or outside its row, a row number repeated or
  out of order (the SDK checks neither).

Known noise of the validator itself, excused here and nowhere else, is ``NOISE``.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from openpyxl.utils.cell import (
    column_index_from_string,
    coordinate_from_string,
    get_column_letter,
    range_boundaries,
)

__all__ = ["NOISE", "validate"]

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"

#: ECMA-376 Part 1, sml.xsd: CT_Font is ``<xsd:choice maxOccurs="unbounded">`` of these,
#: in any order. The Open XML SDK (and so its port) models it as a sequence in this order
#: and flags openpyxl's ``<name>`` first; Excel, LibreOffice and the XSD accept any order.
_FONT_CHILDREN = (
    "b", "i", "strike", "condense", "extend", "outline", "shadow", "u", "vertAlign", "sz",
    "color", "name", "family", "charset", "scheme",
)  # fmt: skip

#: What the validator reports that is not a fault, each with why (nothing else excused).
NOISE = {
    "font children in any order": "sml.xsd's CT_Font is a choice, not the SDK's sequence",
    "Excel_InlineStrCells": "a warning, not a fault: openpyxl 3.1 writes text as inline "
    "strings (<c t='inlineStr'>, ECMA-376 18.3.1.4), which Excel moves into a shared-strings "
    "table when it next saves",
}


@cache
def _validator() -> Any:
    from openxml_audit import OpenXmlValidator

    return OpenXmlValidator(max_errors=0)  # its schemas load once per process


def validate(path: Path | str) -> list[str]:
    """Every problem of the workbook at ``path``, one line each (``part: where: what``),
    sorted; [] for a valid workbook."""
    path = Path(path)
    problems = []
    with zipfile.ZipFile(path) as package:
        for finding in _validator().validate(path).errors:
            if finding.id in NOISE or _font_order(package, finding):
                continue
            problems.append(f"{finding.part_uri}: {finding.path}: {finding.description}")
        problems += _structure(package)
    return sorted(problems)


def _font_order(package: zipfile.ZipFile, finding: Any) -> bool:
    """Whether ``finding`` is the SDK's sequence for a font that sml.xsd's choice allows:
    every child of the font a font property, none twice."""
    if finding.part_uri != "/xl/styles.xml" or not re.search(r"/font\[\d+\]$", finding.path):
        return False
    font = _at(_parsed(package, "xl/styles.xml"), finding.path)
    names = [child.tag.removeprefix(_MAIN) for child in font]
    return set(names) <= set(_FONT_CHILDREN) and len(names) == len(set(names))


def _at(root: ElementTree.Element, path: str) -> ElementTree.Element:
    """The element at the validator's ``/styleSheet[1]/fonts[1]/font[2]`` path."""
    steps = [re.fullmatch(r"(\w+)\[(\d+)\]", step) for step in path.strip("/").split("/")]
    node = root
    for step in steps[1:]:
        assert step is not None, path
        node = node.findall(_MAIN + step[1])[int(step[2]) - 1]
    return node


def _parsed(package: zipfile.ZipFile, name: str) -> ElementTree.Element:
    return ElementTree.fromstring(package.read(name))


_RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def _structure(package: zipfile.ZipFile) -> list[str]:
    """Each worksheet's rows and cells, and each of its tables against its cells."""
    found: list[str] = []
    strings = _shared_strings(package)
    for name in package.namelist():
        if not re.fullmatch(r"xl/worksheets/[^/]+\.xml", name):
            continue
        sheet = _parsed(package, name)
        found += [f"/{name}: {problem}" for problem in _sheet_problems(sheet)]
        cells = _cell_texts(sheet, strings)
        for table in _tables_of(package, name):
            found += [f"/{table}: {p}" for p in _table_problems(_parsed(package, table), cells)]
    return found


def _tables_of(package: zipfile.ZipFile, sheet: str) -> list[str]:
    """The table parts the worksheet part ``sheet`` relates to."""
    folder, file = sheet.rsplit("/", 1)
    rels = f"{folder}/_rels/{file}.rels"
    if rels not in package.namelist():
        return []
    found = []
    for rel in _parsed(package, rels).iter(_RELS + "Relationship"):
        if rel.get("Type", "").endswith("/table"):
            target = rel.get("Target", "")
            found.append(target[1:] if target.startswith("/") else _joined(folder, target))
    return found


def _joined(folder: str, target: str) -> str:
    parts = folder.split("/")
    for step in target.split("/"):
        if step == "..":
            parts.pop()
        elif step != ".":
            parts.append(step)
    return "/".join(parts)


def _shared_strings(package: zipfile.ZipFile) -> list[str]:
    if "xl/sharedStrings.xml" not in package.namelist():
        return []
    root = _parsed(package, "xl/sharedStrings.xml")
    return ["".join(t.text or "" for t in si.iter(_MAIN + "t")) for si in root]


def _cell_texts(sheet: ElementTree.Element, strings: list[str]) -> dict[str, str]:
    """Each cell's value as text, by reference (strings inline or shared, and numbers)."""
    texts = {}
    for cell in sheet.iter(_MAIN + "c"):
        kind, value = cell.get("t", "n"), cell.find(_MAIN + "v")
        if kind == "inlineStr":
            texts[cell.get("r", "")] = "".join(t.text or "" for t in cell.iter(_MAIN + "t"))
        elif value is not None and value.text is not None:
            texts[cell.get("r", "")] = strings[int(value.text)] if kind == "s" else value.text
    return texts


def _table_problems(table: ElementTree.Element, cells: dict[str, str]) -> Iterator[str]:
    """A table's ``ref`` as wide as its columns, its filter over the same cells, its header
    cells its columns' names (Excel repairs a table that breaks any of these)."""
    ref = table.get("ref", "")
    low, top, high, bottom = range_boundaries(ref)
    named = [c.get("name") for c in table.iter(_MAIN + "tableColumn")]
    columns = table.find(_MAIN + "tableColumns")
    declared = None if columns is None else columns.get("count")
    width = (high or 0) - (low or 0) + 1
    if declared != str(width) or len(named) != width:
        yield (f"table {table.get('name')}: ref {ref} is {width} columns wide, "
               f"tableColumns count {declared} with {len(named)} tableColumn")  # fmt: skip
    totals = int(table.get("totalsRowCount", "0"))
    filtered = table.find(_MAIN + "autoFilter")
    if filtered is not None:
        expected = f"{get_column_letter(low or 1)}{top}:{get_column_letter(high or 1)}"
        expected += str((bottom or 0) - totals)
        if filtered.get("ref") != expected:
            yield f"table {table.get('name')}: autoFilter ref {filtered.get('ref')} for {expected}"
    if table.get("headerRowCount", "1") != "0":
        header = [
            cells.get(f"{get_column_letter(c)}{top}") for c in range(low or 1, (high or 0) + 1)
        ]
        if header != named:
            yield f"table {table.get('name')}: header cells {header} for columns {named}"


def _sheet_problems(sheet: ElementTree.Element) -> Iterator[str]:
    data = sheet.find(_MAIN + "sheetData")
    last_row = 0
    for row in [] if data is None else data.iter(_MAIN + "row"):
        spelled = row.get("r", str(last_row + 1))
        if not spelled.isdigit():
            continue  # not a row number: the schema check reports it
        number = int(spelled)
        if number <= last_row:
            yield f"row {number} after row {last_row}"
        last_row, last_column = number, 0
        for cell in row.iter(_MAIN + "c"):
            ref = cell.get("r")
            if ref is None:
                last_column += 1
                continue
            try:
                letters, in_row = coordinate_from_string(ref)
            except ValueError:
                continue  # not a cell reference: the schema check reports it
            column = column_index_from_string(letters)
            if in_row != number or column <= last_column:
                yield f"cell {ref} in row {number} after column {last_column}"
            last_column = column
