"""A by-period sheet prints and charts the periods played (``sheets.engine.printout``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import openpyxl
import pytest
from openpyxl.utils import range_boundaries

from battle_ledger.rulesets import registry
from battle_ledger.sheets.engine.book import Grid
from battle_ledger.sheets.engine.headless import save_workbook
from battle_ledger.sheets.kinds.campaign import TIMELINE
from battle_ledger.sheets.kinds.dep_ledger import BY_TURN as DEP_BY_TURN
from battle_ledger.sheets.kinds.victory_table import BY_TURN as VICTORY_BY_TURN
from battle_ledger.sheets.oob import read_oob
from battle_ledger.sheets.operations import run_on_file
from battle_ledger.templates import build
from battle_ledger.templates.demo import example_path
from tests.libreoffice import page_texts, render_pdf


def _ledger(tmp_path: Path, kind: str, ruleset: str, example: str | None = None) -> Path:
    rs = registry.get(ruleset)
    path = tmp_path / f"{kind}.xlsx"
    save_workbook(build(kind, rs, read_oob(example_path(example or ruleset), rs)), path)
    return path


def _printed(path: Path, grid: Grid) -> tuple[int, int]:
    """The last column and row of the grid sheet's print area."""
    ws = openpyxl.load_workbook(path)[grid.sheet]
    area = ws.print_area.split("!")[1].replace("$", "")
    _, _, right, bottom = range_boundaries(area)
    return right, bottom


def _charted(path: Path, grid: Grid) -> set[tuple[int, int]]:
    """The first and last row of every chart series reading the grid's chart data."""
    wb = openpyxl.load_workbook(path)
    sheet = grid.chart_data or grid.sheet
    spans = set()
    for ws in wb.worksheets:
        for chart in ws._charts:
            for series in chart.series:
                for ref in (series.val.numRef, series.cat.numRef or series.cat.strRef):
                    where, cells = ref.f.rsplit("!", 1)
                    assert where.strip("'") == sheet
                    _, top, _, bottom = range_boundaries(cells.replace("$", ""))
                    spans.add((top, bottom))
    return spans


@pytest.mark.parametrize(
    ("kind", "ruleset", "grid"),
    [("dep-ledger", "etg", DEP_BY_TURN), ("victory-table", "age-of-reason", VICTORY_BY_TURN)],
)
def test_a_new_ledger_prints_and_charts_turn_0_and_each_end_turn_one_more(
    tmp_path: Path, kind: str, ruleset: str, grid: Grid
) -> None:
    path = _ledger(tmp_path, kind, ruleset)
    width = openpyxl.load_workbook(path)[grid.sheet].max_column
    assert _printed(path, grid) == (width, grid.first)  # the header, then turn 0
    assert _charted(path, grid) == {(grid.first, grid.first)}
    for closed in (1, 2):
        run_on_file(path, "end-turn", allow_empty=True)
        assert _printed(path, grid) == (width, grid.first + closed)
        assert _charted(path, grid) == {(grid.first, grid.first + closed)}


def test_a_campaign_timeline_prints_and_charts_its_dates_only(tmp_path: Path) -> None:
    path = _ledger(tmp_path, "campaign", "etg")
    ws = openpyxl.load_workbook(path)[TIMELINE.sheet]
    assert ws.max_column > 20  # room for 24 dates
    empty_right, _ = _printed(path, TIMELINE)
    run_on_file(path, "add-battle", name="Ligny", date="1815-06-16", winner="French")
    # The battle's day, the next day, a week and a month after: four dates.
    assert _charted(path, TIMELINE) == {(2, 5)}
    run_on_file(path, "add-battle", name="Wavre", date="1815-06-18", winner="French")
    assert _charted(path, TIMELINE) == {(2, 9)}  # 06-16, 17, 18, 19, 23, 25, 07-16, 07-18
    right, _ = _printed(path, TIMELINE)
    assert TIMELINE.first + 8 - 1 <= right < ws.max_column
    assert right >= empty_right  # the chart below prints whole, however few the dates


@pytest.mark.libreoffice
def test_libreoffice_prints_the_closed_turns_and_no_page_of_na(tmp_path: Path) -> None:
    if shutil.which("pdftotext") is None or shutil.which("pdfinfo") is None:
        pytest.skip("poppler-utils (pdftotext, pdfinfo) are not installed")
    path = _ledger(tmp_path, "dep-ledger", "etg")
    for _ in range(2):
        run_on_file(path, "end-turn", allow_empty=True)
    pages = page_texts(render_pdf(path, tmp_path / "ledger.pdf"), "-layout")
    grid = [p for p in pages if p.lstrip().startswith("DEP by turn")]
    assert len(grid) == 1  # 30 turns of #N/A printed two pages before
    lines = [line.split() for line in grid[0].splitlines()]
    turns = [int(words[0]) for words in lines if words and words[0].isdigit()]
    assert turns == [0, 1, 2]
    assert sum(p.count("#N/A") for p in pages) == 1  # the sheet's note says what #N/A means
