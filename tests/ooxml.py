"""The tests' one OOXML validator: ``validate(path)`` lists what is wrong with a workbook.

It runs openxml-audit (a pure-Python port of the Open XML SDK's validator: package,
relationships, schema and semantic checks), then the structural checks that validator
does not make (tried with planted faults in ``tests/test_ooxml.py``):

- a table whose ``ref`` is not as wide as its ``tableColumns`` (count and children);
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

from openpyxl.utils.cell import column_index_from_string, coordinate_from_string, range_boundaries

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
}


@cache
def _validator() -> Any:
    from openxml_audit import OpenXmlValidator

    return OpenXmlValidator(max_errors=0)  # its schemas load once per process


def validate(path: Path | str) -> list[str]:
    """Every problem of the workbook at ``path``, one line each (``part: where: what``),
    sorted; [] for a valid workbook."""
    from openxml_audit import ValidationSeverity

    path = Path(path)
    problems = []
    with zipfile.ZipFile(path) as package:
        for finding in _validator().validate(path).errors:
            if finding.severity is not ValidationSeverity.ERROR:
                continue  # predictions that Excel rewrites a valid part on its next save
            if _font_order(package, finding):
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


def _parts(package: zipfile.ZipFile, folder: str) -> Iterator[str]:
    return (n for n in package.namelist() if re.fullmatch(rf"xl/{folder}/[^/]+\.xml", n))


def _structure(package: zipfile.ZipFile) -> list[str]:
    found: list[str] = []
    for check, folder in ((_table_problems, "tables"), (_sheet_problems, "worksheets")):
        for name in _parts(package, folder):
            found += [f"/{name}: {problem}" for problem in check(_parsed(package, name))]
    return found


def _table_problems(table: ElementTree.Element) -> Iterator[str]:
    low, _, high, _ = range_boundaries(table.get("ref", ""))
    columns = table.find(_MAIN + "tableColumns")
    declared = None if columns is None else columns.get("count")
    listed = 0 if columns is None else len(columns.findall(_MAIN + "tableColumn"))
    width = (high or 0) - (low or 0) + 1
    if declared != str(width) or listed != width:
        yield (f"table {table.get('name')}: ref {table.get('ref')} is {width} columns wide, "
               f"tableColumns count {declared} with {listed} tableColumn")  # fmt: skip


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
