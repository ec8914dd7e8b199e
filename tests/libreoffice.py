"""A real spreadsheet in the tests: LibreOffice headless recalculates a workbook.

``recalculate(path)`` converts the workbook with ``soffice --headless
--convert-to xlsx`` in a private, throw-away profile whose
``registrymodifications.xcu`` sets
``/org.openoffice.Office.Calc/Formula/Load`` ``OOXMLRecalcMode`` (and
``ODFRecalcMode``) to 0, "always recalculate on load", so every formula is
computed by LibreOffice and not taken from the cached values (openpyxl writes
none). It returns ``{sheet: rows of values}`` read back with openpyxl
``data_only=True``; ``recalculated_workbook(path)`` returns the workbook
itself. Each call has its own profile, so tests run in parallel (xdist).

``render_png(path, out_png)`` renders the first page (PDF, then ``pdftoppm``)
for the README's pictures.

When ``soffice`` is missing, ``require_soffice()`` skips the test with the
reason, except in CI (``CI=true``), where a missing LibreOffice fails it:
``.ci/run`` installs it, so its absence there is a broken CI, not a skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.worksheet import Worksheet

__all__ = [
    "RECALC_TIMEOUT",
    "find_soffice",
    "page_texts",
    "recalculate",
    "recalculated_with_older_formulas",
    "recalculated_workbook",
    "render_png",
    "require_soffice",
    "resaved",
]

RECALC_TIMEOUT = 180  # seconds; a cold LibreOffice start takes a few on a CI runner


def _item(path: str, name: str, value: str) -> str:
    return (
        f'<item oor:path="{path}"><prop oor:name="{name}" oor:op="fuse">'
        f"<value>{value}</value></prop></item>"
    )


_LOAD = "/org.openoffice.Office.Calc/Formula/Load"
# 0 = always recalculate on load (1 = never, 2 = prompt).
_REGISTRY = "\n".join(
    [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
        'xmlns:xs="http://www.w3.org/2001/XMLSchema" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
        _item(_LOAD, "OOXMLRecalcMode", "0"),
        _item(_LOAD, "ODFRecalcMode", "0"),
        _item("/org.openoffice.Office.Common/Misc", "FirstRun", "false"),
        "</oor:items>",
        "",
    ]
)


def find_soffice() -> str | None:
    """The LibreOffice binary, or None."""
    return shutil.which("soffice") or shutil.which("libreoffice")


def require_soffice() -> str:
    """The LibreOffice binary; skip the test without it (fail it in CI)."""
    found = find_soffice()
    if found is None:
        reason = (
            "LibreOffice (soffice) is not installed: the tests that recalculate workbooks in a "
            "real spreadsheet need it (apt-get install libreoffice-calc; .ci/run does this)"
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason + " - in CI this is an error, not a skip", pytrace=False)
        pytest.skip(reason)
    return found


def _profile(root: Path) -> str:
    """A private LibreOffice profile under ``root`` that recalculates on load."""
    user = root / "profile" / "user"
    user.mkdir(parents=True)
    (user / "registrymodifications.xcu").write_text(_REGISTRY, encoding="utf-8")
    return (root / "profile").as_uri()


def _convert(path: Path, target: str, out_dir: Path, work: Path) -> Path:
    soffice = require_soffice()
    cmd = [
        soffice,
        f"-env:UserInstallation={_profile(work)}",
        "--headless",
        "--invisible",
        "--norestore",
        "--nolockcheck",
        "--convert-to",
        target,
        "--outdir",
        str(out_dir),
        str(path),
    ]
    try:
        done = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=RECALC_TIMEOUT,
            check=False,
            env=os.environ | {"HOME": str(work)},
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(
            f"LibreOffice did not convert {path.name} within {RECALC_TIMEOUT}s"
        ) from None
    extension = target.split(":", 1)[0]
    out = out_dir / f"{path.stem}.{extension}"
    if done.returncode != 0 or not out.exists():
        raise AssertionError(
            f"LibreOffice could not convert {path.name} (exit {done.returncode}): "
            f"{done.stderr.strip() or done.stdout.strip()}"
        )
    return out


def recalculated_workbook(path: Path | str) -> Workbook:
    """``path`` recalculated by LibreOffice, opened with ``data_only=True`` (computed values)."""
    with tempfile.TemporaryDirectory(prefix="bl-lo-") as tmp:
        saved = resaved(path, Path(tmp) / "recalculated.xlsx")
        return openpyxl.load_workbook(saved, data_only=True)


def recalculated_with_older_formulas(
    path: Path,
    sheet: str,
    older: Callable[[int], Mapping[str, str]],
    *,
    key_column: int | None,
    header_row: int = 3,
    cleared: Sequence[str] = (),
) -> tuple[Worksheet, Worksheet, list[Any]]:
    """A template's shorter rows against an older version's: ``sheet`` of ``path``
    recalculated by LibreOffice as written, and again with ``older(r)`` (the older
    template's formulas of sheet row ``r``) written over each row whose ``key_column``
    holds something (every row: None), the ``cleared`` headers emptied (nothing older
    reads them). Both worksheets (as written, older) and the header row's values."""
    long = path.with_name(f"{path.stem}-older.xlsx")
    wb = openpyxl.load_workbook(path)
    ws = wb[sheet]
    heads = [c.value for c in ws[header_row]]
    for r in range(header_row + 1, ws.max_row + 1):
        if key_column is not None and ws.cell(r, key_column).value in (None, ""):
            continue
        for header, formula in older(r).items():
            ws.cell(r, heads.index(header) + 1).value = formula
        for header in cleared:
            ws.cell(r, heads.index(header) + 1).value = None
    wb.save(long)
    return recalculated_workbook(path)[sheet], recalculated_workbook(long)[sheet], heads


def resaved(path: Path | str, out: Path | str) -> Path:
    """``path`` opened, recalculated and saved as .xlsx by LibreOffice, at ``out`` (a
    ledger as an umpire who keeps it in LibreOffice hands it back)."""
    with tempfile.TemporaryDirectory(prefix="bl-lo-") as tmp:
        work = Path(tmp)
        out_dir = work / "out"
        out_dir.mkdir()
        saved = _convert(Path(path), "xlsx:Calc MS Excel 2007 XML", out_dir, work)
        target = Path(out)
        shutil.move(str(saved), target)
    return target


def recalculate(path: Path | str) -> dict[str, list[list[Any]]]:
    """Every sheet of ``path`` as LibreOffice computes it: {sheet: rows of values}."""
    wb = recalculated_workbook(path)
    return {ws.title: [list(row) for row in ws.iter_rows(values_only=True)] for ws in wb.worksheets}


def render_pdf(path: Path | str, out_pdf: Path | str) -> Path:
    """``path`` printed to ``out_pdf`` by LibreOffice (every sheet, as it would print)."""
    with tempfile.TemporaryDirectory(prefix="bl-lo-") as tmp:
        work = Path(tmp)
        out_dir = work / "out"
        out_dir.mkdir()
        pdf = _convert(Path(path), "pdf", out_dir, work)
        target = Path(out_pdf)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(pdf), target)
    return target


def page_texts(pdf: Path, *options: str) -> list[str]:
    """The text of every page of ``pdf`` (``pdftotext`` with ``options``: ``-layout``,
    ``-bbox``), one string a page."""
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    pages = next(int(line.split()[1]) for line in info.stdout.splitlines()
                 if line.startswith("Pages:"))  # fmt: skip
    return [subprocess.run(["pdftotext", *options, "-f", str(p), "-l", str(p), str(pdf), "-"],
                           capture_output=True, text=True, check=True).stdout
            for p in range(1, pages + 1)]  # fmt: skip


def render_png(path: Path | str, out_png: Path | str, *, dpi: int = 80) -> Path:
    """Render the first page of ``path`` to ``out_png`` (LibreOffice PDF, then pdftoppm)."""
    pdftoppm = shutil.which("pdftoppm")
    if pdftoppm is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    source, target = Path(path), Path(out_png)
    with tempfile.TemporaryDirectory(prefix="bl-lo-") as tmp:
        work = Path(tmp)
        out_dir = work / "out"
        out_dir.mkdir()
        pdf = _convert(source, "pdf", out_dir, work)
        stem = work / "page"
        subprocess.run(
            [
                pdftoppm,
                "-png",
                "-r",
                str(dpi),
                "-singlefile",
                "-f",
                "1",
                "-l",
                "1",
                str(pdf),
                str(stem),
            ],
            check=True,
            capture_output=True,
            timeout=RECALC_TIMEOUT,
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(stem.with_suffix(".png")), target)
    return target
