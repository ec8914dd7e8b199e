"""Eagles to Glory's victory points (``sheets/kinds/victory_points.py``): how its close
reads. The kind's rules and operations are tested with the victory table's
(``tests/test_victory_table.py``: ``new victory-table --ruleset etg`` builds it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from battle_ledger.rulesets import eagles_to_glory as etg
from battle_ledger.sheets.engine.book import TableRows
from battle_ledger.sheets.engine.headless import save_workbook
from battle_ledger.sheets.engine.zipbook import open_book
from battle_ledger.sheets.kinds.victory_points import compute_eliminated, read_points
from battle_ledger.sheets.operations import run_on_file
from battle_ledger.templates import build


def _played(tmp_path: Path) -> Path:
    path = tmp_path / "points.xlsx"
    save_workbook(build("victory-table", "etg", sides=["French", "Allied"]), path)
    run_on_file(path, "eliminate", side="Allied", type="infantry", grade="Guard", count="2")
    run_on_file(path, "eliminate", side="French", type="cuirassiers", grade="C")
    run_on_file(path, "eliminate", side="French", type="infantry", grade="C", at_zero_dep="Y")
    run_on_file(path, "objective", name="the town", points="150", held_by="French")
    run_on_file(path, "objective", name="the bridge", points="50")
    run_on_file(path, "wagon", side="French", captured_by="Allied")
    return path


def test_end_turn_totals_the_sides_from_records_without_a_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The close adds each side's points up from the rows as read, making no DataFrame
    (pandas' frames were a quarter of its time); the totals are those of the frames."""
    path = _played(tmp_path)
    ledger = read_points(open_book(path, writable=False))
    points = compute_eliminated(ledger)
    expected = {}
    for side in ledger.sides:
        stands = int(points.loc[ledger.tables.periods["Side"] != side, "Points to the enemy"].sum())
        held = ledger.objectives[ledger.objectives["Held by"] == side]["Points"].sum()
        wagons = etg.wagon_victory_points(int((ledger.wagons["Captured by"] == side).sum()))
        expected[side] = (stands, int(held), wagons)

    def no_frame(self: TableRows) -> None:
        raise AssertionError(f"a frame of {self.attrs['where']['table']}")

    monkeypatch.setattr(TableRows, "frame", no_frame)
    sides = run_on_file(path, "end-turn").details["sides"]
    got = {s["side"]: (s["stand_points"], s["objective_points"], s["wagon_points"])
           for s in sides}  # fmt: skip
    assert got == expected
    assert any(stands for stands, _, _ in got.values())  # something was scored


def test_eliminate_makes_no_frame_of_the_stands_eliminated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recording stands eliminated appends its row after the rows read, without making
    them a DataFrame (the sheet row it takes is found from the rows as read)."""
    path = _played(tmp_path)
    frames: list[str] = []
    frame = TableRows.frame
    monkeypatch.setattr(TableRows, "frame", lambda rows: (
        frames.append(rows.attrs["where"]["table"]), frame(rows))[1])  # fmt: skip
    run_on_file(path, "eliminate", side="French", type="infantry", grade="C", count="3")
    assert "tbl_Eliminated" not in frames
    monkeypatch.undo()
    rows = read_points(open_book(path, writable=False)).tables.period_records(["Stands"])
    assert [r["Stands"] for _, r in rows][-1] == 3
