"""Render the documentation's pictures again from a fresh demo.

    python docs/img/render.py [--only NAME,NAME]

Builds ``battle-ledger demo`` into a temporary folder (the installed tool: run it from the
environment of the tree whose pictures you want), then, for each picture below, prints
one sheet of one demo workbook with LibreOffice (the other sheets hidden in a copy, so
the first page is that sheet's) and keeps the top of its first page as ``docs/img/NAME``
(``pdftoppm``'s own crop: no imaging library). Look at every picture before committing it.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import NamedTuple

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE.parent.parent))  # the checkout: tests.libreoffice

from tests.libreoffice import render_pdf  # noqa: E402

__all__ = ["PICTURES", "Picture", "main"]


class Picture(NamedTuple):
    name: str  # the file in docs/img
    workbook: str  # the demo's file name, without .xlsx
    sheet: str
    height: float  # the share of the page's height kept, from its top
    width: float = 1.0  # the share of its width kept, from the left
    dpi: int = 110


PICTURES = (
    Picture("dep-ledger-chart.png", "eagles-to-glory-dep-ledger", "Battle", 0.75),
    Picture("dep-ledger.png", "eagles-to-glory-dep-ledger", "Turns", 0.3, width=0.66, dpi=160),
    Picture("dep-ledger-divisions.png", "eagles-to-glory-dep-ledger", "Divisions", 0.45),
    Picture("dep-ledger-units.png", "eagles-to-glory-dep-ledger", "Units", 0.45),
    Picture("victory-table.png", "age-of-glaube-victory-table", "Battle", 0.6),
    Picture(
        "casualty-brackets.png",
        "glory-of-the-empire-casualty-brackets",
        "Turns",
        0.3,
        dpi=150,
    ),
    Picture("stand-losses.png", "age-of-eagles-stand-losses", "Turns", 0.45),
    Picture("unit-hits.png", "square-eagles-unit-hits", "Turns", 0.45),
    Picture("campaign-timeline.png", "eagles-to-glory-campaign", "Timeline", 0.7),
    Picture("ship-records-cards.png", "age-of-sail-ship-records", "Record cards", 0.6),
    Picture("roster-eagles-to-glory.png", "eagles-to-glory-roster", "French", 0.6),
    Picture("roster-age-of-glaube.png", "age-of-glaube-roster", "Swedish", 0.6),
    Picture("roster-age-of-sail.png", "age-of-sail-roster", "British", 0.6),
)

_SHEET = re.compile(rb'<sheet\b[^>]*?name="([^"]*)"[^>]*?/>')


def _only_sheet(source: Path, sheet: str, target: Path) -> None:
    """A copy of ``source`` in which every sheet but ``sheet`` is hidden and ``sheet`` is
    the active one (LibreOffice prints no hidden sheet)."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "xl/workbook.xml":
                names = [m.group(1).decode() for m in _SHEET.finditer(data)]
                if sheet not in names:
                    raise SystemExit(f"{source.name} has no sheet {sheet!r}: {names}")

                def shown(m: re.Match[bytes]) -> bytes:
                    tag = re.sub(rb'\sstate="[^"]*"', b"", m.group(0))
                    if m.group(1).decode() == sheet:
                        return tag
                    return tag.replace(b"<sheet ", b'<sheet state="hidden" ', 1)

                data = _SHEET.sub(shown, data)
                data = re.sub(
                    rb'activeTab="\d+"', f'activeTab="{names.index(sheet)}"'.encode(), data
                )
                data = re.sub(
                    rb'firstSheet="\d+"', f'firstSheet="{names.index(sheet)}"'.encode(), data
                )
            zout.writestr(item, data)


def _page_size(pdf: Path) -> tuple[float, float]:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    line = next(x for x in info.stdout.splitlines() if x.startswith("Page size:"))
    width, height = re.findall(r"[\d.]+", line)[:2]
    return float(width), float(height)  # points


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="pictures to render (names, comma-separated)")
    args = parser.parse_args(argv)
    wanted = [p for p in PICTURES if not args.only or p.name in args.only.split(",")]
    tool = shutil.which("battle-ledger")
    if tool is None:
        raise SystemExit("battle-ledger is not on PATH: install the tree first (pip install -e .)")
    with tempfile.TemporaryDirectory(prefix="bl-pictures-") as tmp:
        work = Path(tmp)
        subprocess.run([tool, "demo", "-o", str(work / "demo")], check=True, capture_output=True)
        for picture in wanted:
            only = work / f"{picture.name}.xlsx"
            _only_sheet(work / "demo" / f"{picture.workbook}.xlsx", picture.sheet, only)
            pdf = render_pdf(only, work / f"{picture.name}.pdf")
            width, height = _page_size(pdf)
            scale = picture.dpi / 72
            crop = ["-x", "0", "-y", "0", "-W", str(int(width * scale * picture.width)),
                    "-H", str(int(height * scale * picture.height))]  # fmt: skip
            stem = work / picture.name.removesuffix(".png")
            subprocess.run(["pdftoppm", "-png", "-r", str(picture.dpi), "-f", "1", "-l", "1",
                            "-singlefile", *crop, str(pdf), str(stem)], check=True)  # fmt: skip
            shutil.copyfile(stem.with_suffix(".png"), _HERE / picture.name)
            print(_HERE / picture.name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
