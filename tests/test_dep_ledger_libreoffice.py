"""The DEP ledger's formulas, recalculated by LibreOffice, agree with ``report``.

Every cell of DEP start, Rest point, DEP end, CCP end and Status of tbl_Turns,
and DEP now / CCP now / Status of tbl_Divisions, on a worked scenario and on
Hypothesis-generated battles (many divisions, many turns, random legal
inputs). Each example is one ``soffice`` call.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battle_ledger.rulesets.dep import (
    DepRules,
    DivisionState,
    Status,
    TurnInputs,
    advance,
    dep_after_turn,
    initial_state,
)
from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.operations import run_operation, run_report
from battle_ledger.templates.dep_ledger import DivisionSpec
from tests.dep_ledgers import (
    ledger_outputs,
    make_ledger,
    play_to_the_end,
    record_turn,
    sheet_outputs,
)
from tests.libreoffice import recalculated_workbook, require_soffice
from tests.strategies import dep_turns
from tests.tables import named_cell

pytestmark = pytest.mark.libreoffice

_COUNTER = itertools.count(1)


def _play(path: Path, turns: list[dict[str, TurnInputs]]) -> None:
    """Record each turn's inputs and end the turn, headless, committing once."""
    book = HeadlessBook(path)
    for inputs in turns:
        record_turn(book, inputs)
        run_operation(book, "end-turn", allow_empty="Y")  # a drawn turn may leave all at N/0
    book.commit()


_SHOWN = ("DEP now", "CCP now", "Status", "Stands left", "Maneuver modifier")
_REPORTED = ("dep", "ccp", "status", "stands_left", "maneuver_modifier")
#: The Turns columns of template version 4, compared beside ``OUTPUTS``.
_LATER = ("Stands left", "DEP wasted")


def _blank(value: Any) -> Any:
    return None if value in (None, "") or value != value else int(value)  # NaN: blank


def _divisions_sheet(wb: Any) -> dict[str, tuple[Any, ...]]:
    ws = wb["Divisions"]
    header = [c.value for c in ws[3]]
    col = {h: header.index(h) for h in ("Division", *_SHOWN)}
    return {
        row[col["Division"]]: tuple(
            row[col[h]] if h == "Status" else _blank(row[col[h]]) for h in _SHOWN
        )
        for row in ws.iter_rows(min_row=4, values_only=True)
        if row[col["Division"]]
    }


def _later_columns(path: Path, wb: Any) -> None:
    """Stands left and DEP wasted of every turn row: LibreOffice's equal the Python's."""
    from battle_ledger.sheets.kinds.dep_ledger import compute_turns, read_ledger

    ledger = read_ledger(HeadlessBook(path, writable=False))
    computed = compute_turns(ledger)
    python = {
        (str(row["Division"]), int(row["Turn"])): tuple(_blank(computed.at[i, h]) for h in _LATER)
        for i, row in ledger.turns.iterrows()
    }
    ws = wb["Turns"]
    header = [c.value for c in ws[3]]
    col = {h: header.index(h) for h in ("Turn", "Division", *_LATER)}
    for row in ws.iter_rows(min_row=4, values_only=True):
        if row[col["Division"]] in (None, ""):
            continue
        key = (str(row[col["Division"]]), int(row[col["Turn"]]))
        assert tuple(_blank(row[col[h]]) for h in _LATER) == python[key], key


def _assert_agree(path: Path) -> dict[tuple[str, int], tuple[Any, ...]]:
    """LibreOffice's values equal the Python mechanics' on every computed cell."""
    python = ledger_outputs(path)
    wb = recalculated_workbook(path)
    sheet = sheet_outputs(wb)
    assert sheet.keys() == python.keys()
    for key, expected in python.items():
        assert sheet[key] == expected, (key, sheet[key], expected)
    report = run_report(HeadlessBook(path, writable=False)).details
    shown = _divisions_sheet(wb)
    for row in report["divisions"]:
        assert shown[row["division"]] == tuple(row[k] for k in _REPORTED), row
    _later_columns(path, wb)
    assert named_cell(wb, "CurrentTurn").value == report["current_turn"]
    assert named_cell(wb, "LastClosedTurn").value == report["last_closed_turn"]
    # The DEP-by-turn grid: DEP end of each closed turn, #N/A after.
    grid = wb["DEP by turn"]
    names = [c.value for c in grid[3]][1:]
    for i, name in enumerate(names):
        if not name:
            continue
        for turn in range(1, report["last_closed_turn"] + 1):
            value = grid.cell(row=4 + turn, column=2 + i).value
            if (name, turn) in python:
                assert value == python[(name, turn)][2], (name, turn)
            else:
                assert value == "#N/A"
    return python


def test_the_workbook_agrees_when_the_battle_is_over(tmp_path: Path) -> None:
    """Every division removed: the workbook's current turn moves past the last closed one
    (its Log says it was closed), as report's does, and every value agrees."""
    require_soffice()
    path = tmp_path / "ledger.xlsx"
    play_to_the_end(path)
    _assert_agree(path)


def test_worked_scenario(tmp_path: Path) -> None:
    """A short battle through every rule: rest pairs, orders cancelling a rest point,
    charges and counter-charges, cavalry blown (CCP spent, DEP below 28) and
    staying blown after buying a CCP, a division removed at 0, the scenario's
    maximum DEP (40) capping DEP markers."""
    require_soffice()
    divisions = [
        DivisionSpec("French", "Resting", start_dep=38),
        DivisionSpec("French", "Cuirassiers", cavalry=True, start_dep=40),
        DivisionSpec("Allied", "Hussars", cavalry=True, start_dep=29, start_ccp=1),
        DivisionSpec("Allied", "Doomed", start_dep=5),
    ]
    path = make_ledger(tmp_path / "worked.xlsx", divisions, max_dep=40)
    turns = [
        {
            "Resting": TurnInputs(1, rest_eligible=True),
            "Cuirassiers": TurnInputs(1, orders=True, charges=2),
            "Hussars": TurnInputs(1, counter_charges=1),
            "Doomed": TurnInputs(1, orders=True, stands_lost=1),
        },
        {
            "Resting": TurnInputs(2, rest_eligible=True),
            "Cuirassiers": TurnInputs(2, orders=True, charges=1, stands_lost=1),
            "Hussars": TurnInputs(2, ccp_bought=1),
            "Doomed": TurnInputs(2, stands_lost=1),
        },
        {
            "Resting": TurnInputs(3, rest_eligible=True),
            "Cuirassiers": TurnInputs(3, dep_markers=2),
            "Hussars": TurnInputs(3, rest_eligible=True),
        },
        {
            "Resting": TurnInputs(4, orders=True, rest_eligible=True),
            "Cuirassiers": TurnInputs(4, ccp_bought=1),
            "Hussars": TurnInputs(4, rest_eligible=True),
        },
    ]
    _play(path, turns)
    python = _assert_agree(path)
    # Worked by hand from the rules (not from the code):
    assert python[("Resting", 2)] == (38, 0, 39, 0, "active")  # two rest points: +1
    assert python[("Resting", 3)] == (39, 1, 39, 0, "active")
    assert python[("Resting", 4)] == (39, 0, 38, 0, "active")  # orders: -1, rest point lost
    assert python[("Cuirassiers", 2)] == (39, 0, 36, 0, "blown")  # last CCP spent
    assert python[("Cuirassiers", 3)] == (36, 0, 38, 0, "blown")
    assert python[("Cuirassiers", 4)] == (38, 0, 28, 1, "blown")  # still blown with a CCP
    assert python[("Hussars", 1)] == (29, 0, 28, 0, "blown")  # no CCP left
    assert python[("Hussars", 2)] == (28, 0, 18, 1, "blown")
    assert python[("Hussars", 4)] == (18, 0, 19, 1, "blown")
    assert python[("Doomed", 2)] == (2, 0, 0, 0, "removed")
    assert ("Doomed", 3) not in python


def test_the_readings_of_template_version_4(tmp_path: Path) -> None:
    """The maneuver's +1 judged after the orders DEP (36 with orders: none; 37: +1),
    stands lost counted down from the division's stands, a removed division's CCP gone
    from its side's total, DEP markers past the maximum lost and said so in the Log."""
    require_soffice()
    from battle_ledger.sheets.operations import run_on_file

    path = make_ledger(tmp_path / "v4.xlsx", [
        DivisionSpec("French", "At 36", stands=8, start_dep=36),
        DivisionSpec("French", "At 37", stands=8, start_dep=37),
        DivisionSpec("Allied", "Lancers", cavalry=True, stands=3, start_dep=4),
        DivisionSpec("Allied", "Fresh", start_dep=47),
    ])  # fmt: skip
    before = {r["division"]: r for r in run_report(HeadlessBook(path, writable=False))
              .details["divisions"]}  # fmt: skip
    # What the next roll gets, once its orders DEP is paid.
    assert (before["At 36"]["maneuver_modifier"], before["At 37"]["maneuver_modifier"]) == (0, 1)
    run_on_file(path, "record", division="At 36", orders="Y", stands_lost="3")
    run_on_file(path, "record", division="At 37", orders="Y")
    run_on_file(path, "record", division="Lancers", stands_lost="2")
    run_on_file(path, "record", division="Fresh", dep_markers="3")
    with pytest.raises(BattleLedgerError, match="the division has 8 stands left"):
        run_on_file(path, "record", division="At 37", stands_lost="9")
    closed = run_on_file(path, "end-turn")
    assert "DEP lost to the maximum 48: Fresh 2" in closed.summary
    report = run_report(HeadlessBook(path, writable=False)).details
    rows = {r["division"]: r for r in report["divisions"]}
    assert (rows["At 36"]["stands_left"], rows["At 36"]["dep"]) == (5, 29)
    assert rows["Fresh"]["dep"] == 48 and rows["Fresh"]["dep_wasted"] == 2
    assert (rows["Lancers"]["status"], rows["Lancers"]["ccp"]) == ("removed", 0)
    assert next(s for s in report["sides"] if s["side"] == "Allied")["ccp"] == 0
    _assert_agree(path)


@st.composite
def _battle(draw: st.DrawFn) -> tuple[list[DivisionSpec], int, list[dict[str, TurnInputs]]]:
    """Divisions, a scenario maximum and turns of random inputs the rules allow."""
    max_dep = draw(st.sampled_from([48, 48, 40, 30]))
    rules = DepRules.from_ruleset(max_dep=max_dep)
    count = draw(st.integers(2, 9))
    specs: list[DivisionSpec] = []
    states: dict[str, DivisionState] = {}
    for i in range(count):
        cavalry = draw(st.booleans())
        start_dep = draw(st.integers(1, max_dep))
        start_ccp = draw(st.integers(0, rules.max_ccp)) if cavalry else 0
        name = f"Div {i + 1}" if i % 3 else f"{i + 1}e Division d'Infanterie"
        specs.append(
            DivisionSpec(
                side="French" if i % 2 else "Allied",
                division=name,
                cavalry=cavalry,
                start_dep=start_dep,
                start_ccp=start_ccp,
            )
        )
        states[name] = initial_state(name, start_dep, start_ccp, cavalry, rules)
    turns: list[dict[str, TurnInputs]] = []
    for turn in range(1, draw(st.integers(1, 14)) + 1):
        inputs: dict[str, TurnInputs] = {}
        for name, state in states.items():
            if state.status is Status.REMOVED:
                continue
            inputs[name] = draw(dep_turns(state, turn, rules))
            states[name] = advance(state, dep_after_turn(state, inputs[name], rules))
        turns.append(inputs)
    return specs, max_dep, turns


@settings(
    max_examples=5,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(battle=_battle())
@pytest.mark.slow
def test_random_battles_agree(tmp_path: Path, battle: Any) -> None:
    require_soffice()
    specs, max_dep, turns = battle
    path = make_ledger(tmp_path / f"random-{next(_COUNTER)}.xlsx", specs, max_dep=max_dep)
    _play(path, turns)
    _assert_agree(path)
