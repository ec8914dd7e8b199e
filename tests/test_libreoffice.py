"""The real-spreadsheet helper (tests/libreoffice.py): LibreOffice really recalculates."""

from __future__ import annotations

import zipfile
from pathlib import Path

import openpyxl
import pytest

from tests.libreoffice import recalculated_workbook, render_png
from tests.toybook import make_toy


def _with_stale_cache(path: Path, out: Path) -> Path:
    """``path`` with a wrong cached value (999) in the formula cell F4 (Left = 6 - 1)."""
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                text = data.decode()
                stale = text.replace(
                    '<c r="F4"><f>IF(B4="","",D4-E4)</f><v /></c>',
                    '<c r="F4"><f>IF(B4="","",D4-E4)</f><v>999</v></c>',
                )
                assert stale != text, "the toy's formula cell changed shape"
                data = stale.encode()
            dst.writestr(item, data)
    return out


@pytest.mark.libreoffice
def test_formulas_are_recalculated_not_read_from_the_cache(tmp_path: Path) -> None:
    stale = _with_stale_cache(make_toy(tmp_path / "toy.xlsx"), tmp_path / "stale.xlsx")
    assert openpyxl.load_workbook(stale, data_only=True)["Army"]["F4"].value == 999
    army = recalculated_workbook(stale)["Army"]
    assert army["F4"].value == 5  # 6 stands - 1 lost, computed by LibreOffice
    assert army["G4"].value == "no"  # the structured-reference formula too


@pytest.mark.libreoffice
def test_recalc_fixture_gives_every_sheet(toy_book: Path, recalc) -> None:  # type: ignore[no-untyped-def]
    sheets = recalc(toy_book)
    assert {"Army", "Setup", "Log", "_meta"} <= set(sheets)
    assert sheets["Army"][3][1:7] == ["1st Line", "Infantry", 6, 1, 5, "no"]


@pytest.mark.libreoffice
def test_render_png(toy_book: Path, tmp_path: Path) -> None:
    out = render_png(toy_book, tmp_path / "toy.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_without_libreoffice_skip_with_a_reason_but_fail_in_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil

    from tests import libreoffice

    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="LibreOffice \\(soffice\\) is not installed"):
        libreoffice.require_soffice()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="in CI this is an error"):
        libreoffice.require_soffice()
