"""Two workbook files compared as openpyxl reads them back: every cell's value (formulas
as text) and style, row heights, tables, data validations, conditional formats, defined
names, print areas and chart series. The fast backend's file must equal the openpyxl
backend's (``tests/test_zipbook.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openpyxl
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.worksheet import Worksheet

__all__ = ["differences"]


def _plain(part: Any) -> str:
    # An attribute off is off whether the file says false or nothing (openpyxl's save
    # leaves false out of what LibreOffice wrote).
    return repr(part).replace("=False", "=None")


def _style(cell: Any) -> tuple[Any, ...]:
    return (
        _plain(cell.font),
        _plain(cell.fill),
        _plain(cell.border),
        cell.number_format,
        _plain(cell.protection),
        _plain(cell.alignment),
        bool(cell.quotePrefix),
    )


def _cells(ws: Worksheet) -> dict[str, tuple[Any, ...]]:
    found: dict[str, tuple[Any, ...]] = {}
    for row in ws.iter_rows():
        for cell in row:
            if cell.value is None and not cell.has_style:
                continue
            value = cell.value
            found[cell.coordinate] = (type(value).__name__, str(value), _style(cell))
    return found


def _sheet_facts(ws: Worksheet) -> dict[str, Any]:
    return {
        "tables": sorted(
            (
                t.displayName,
                t.ref,
                t.autoFilter.ref if t.autoFilter else None,
                tuple(c.name for c in t.tableColumns),
            )
            for t in ws.tables.values()
        ),
        "validations": sorted(
            (str(sorted(str(r) for r in dv.sqref.ranges)), dv.type, dv.formula1, dv.formula2)
            for dv in ws.data_validations.dataValidation
        ),
        "formats": sorted(
            (str(sorted(str(r) for r in cf.sqref.ranges)), repr([r.formula for r in cf.rules]))
            for cf in ws.conditional_formatting
        ),
        "heights": {r: d.height for r, d in ws.row_dimensions.items() if d.height is not None},
        "print area": ws.print_area,
        "print titles": (ws.print_title_rows, ws.print_title_cols),
        "freeze": ws.freeze_panes,
        "protection": (ws.protection.sheet, ws.protection.password),
        "charts": [
            [
                (
                    s.val.numRef.f if s.val and s.val.numRef else None,
                    (s.cat.numRef or s.cat.strRef).f if s.cat else None,
                )
                for s in chart.series
            ]
            for chart in ws._charts
        ],
    }


def _book_facts(wb: Workbook) -> dict[str, Any]:
    return {
        "sheets": wb.sheetnames,
        "states": [ws.sheet_state for ws in wb.worksheets],
        "names": sorted((n, d.attr_text) for n, d in wb.defined_names.items()),
        "local names": sorted(
            (ws.title, n, d.attr_text) for ws in wb.worksheets for n, d in ws.defined_names.items()
        ),
    }


def differences(a: Path, b: Path, *, limit: int = 20) -> list[str]:
    """What differs between the workbooks ``a`` and ``b`` (empty when they are the same)."""
    wa, wb = openpyxl.load_workbook(a), openpyxl.load_workbook(b)
    found: list[str] = []
    fa, fb = _book_facts(wa), _book_facts(wb)
    found += [f"{k}: {fa[k]!r} != {fb[k]!r}" for k in fa if fa[k] != fb[k]]
    for name in wa.sheetnames:
        if name not in wb.sheetnames:
            continue
        sa, sb = wa[name], wb[name]
        if not isinstance(sa, Worksheet) or not isinstance(sb, Worksheet):
            continue
        ca, cb = _cells(sa), _cells(sb)
        for ref in sorted(set(ca) | set(cb)):
            if ca.get(ref) != cb.get(ref):
                found.append(f"{name}!{ref}: {ca.get(ref)!r} != {cb.get(ref)!r}")
        xa, xb = _sheet_facts(sa), _sheet_facts(sb)
        found += [f"{name} {k}: {xa[k]!r} != {xb[k]!r}" for k in xa if xa[k] != xb[k]]
    return found[:limit]
