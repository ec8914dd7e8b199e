"""Operations on the DEP ledger (Eagles to Glory): the bodies of its macros.

``end-turn``
    Checks every turn's inputs (the errors of ``rulesets.dep``, naming the
    turn, division, column and the sheet row), closes the current turn in the
    Log, and appends the next turn's rows for every division still on the
    table, pre-filled Orders N, Rest eligible N and zeros (the formula columns
    are filled by the backend).
``record``
    Fills the current turn's inputs of one division (``--division NAME``
    and any of ``--orders Y|N --rest-eligible Y|N --charges N
    --counter-charges N --stands-lost N --ccp-bought N --dep-markers N
    --note TEXT``), checked before anything is written.
report
    Each division's DEP, CCP, rest point and status as of the last closed
    turn, computed by ``rulesets.dep`` from the inputs alone (never from cached
    formula values), and the side totals.
check
    Every problem: unknown divisions, repeated or missing turns, inputs the
    rules do not allow, a maximum DEP out of range.

The current turn is the highest Turn in ``tbl_Turns``; every turn before it
is closed.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
from dataclasses import dataclass
from typing import Any

import pandas as pd

from battle_ledger.rulesets import registry
from battle_ledger.rulesets.dep import (
    COUNT_COLUMNS,
    INPUT_COLUMNS,
    OUTCOME_COLUMNS,
    DepInputError,
    DepRules,
    Status,
    initial_status,
    maneuver_modifier,
    parse_yes_no,
    run_division,
)
from battle_ledger.rulesets.errors import BattleLedgerError, InvalidArgumentError
from battle_ledger.sheets.book import Book, Formula
from battle_ledger.sheets.errors import CellValueError
from battle_ledger.sheets.operations import OperationResult, checker, operation, report

__all__ = [
    "KIND",
    "Ledger",
    "check_ledger",
    "compute_turns",
    "end_turn",
    "read_ledger",
    "record",
    "standing",
    "where_we_stand",
]

KIND = "dep-ledger"
DIVISIONS = "tbl_Divisions"
TURNS = "tbl_Turns"

_DIVISION_TYPES: dict[str, type | None] = {
    "Side": str,
    "Corps": None,
    "Division": str,
    "Commander": None,
    "Cavalry": None,
    "Start DEP": int,
    "Start CCP": int,
}
_TURN_TYPES: dict[str, type | None] = {
    "Turn": int,
    "Side": None,
    "Division": str,
    **dict.fromkeys(INPUT_COLUMNS),
    "Note": None,
}


@dataclass
class Ledger:
    """Everything an operation needs, read at once."""

    divisions: pd.DataFrame
    turns: pd.DataFrame
    rules: DepRules
    where_divisions: dict[str, Any]
    where_turns: dict[str, Any]

    @property
    def current_turn(self) -> int:
        """The highest turn in tbl_Turns (1 for a ledger without rows yet)."""
        if self.turns.empty:
            return 1
        return int(self.turns["Turn"].max())

    def division_names(self) -> list[str]:
        return [str(d) for d in self.divisions["Division"]]

    def sheet_row(self, index: Any) -> int | None:
        first = self.where_turns.get("first_row")
        return None if first is None else int(first) + int(index)


def _rules(book: Book) -> DepRules:
    ruleset = registry.get(book.meta().ruleset)
    try:
        max_dep = book.read_name("MaxDEP")
    except BattleLedgerError:
        max_dep = None  # a ledger without the name: the rules' maximum
    if max_dep is None or max_dep == "":
        return DepRules.from_ruleset(ruleset)
    try:
        number = float(max_dep)
    except (TypeError, ValueError):
        number = float("nan")
    if not number.is_integer():
        raise CellValueError(
            "the maximum DEP on the Battle sheet is not a whole number",
            file=book.name,
            sheet="Battle",
            column="Maximum DEP",
            value=max_dep,
            expected="a whole number, 48 unless the scenario says less",
        )
    return DepRules.from_ruleset(ruleset, max_dep=int(number))


def read_ledger(book: Book) -> Ledger:
    """Read tbl_Divisions, tbl_Turns and the maximum DEP (checked types)."""
    book.require_kind(KIND)
    # Every formula column is recomputed from the inputs: no cached results needed.
    divisions = book.read_table(DIVISIONS, _DIVISION_TYPES, cached=False)
    turns = book.read_table(TURNS, _TURN_TYPES, cached=False)
    turns = turns[turns["Division"].notna()]
    missing_turn = turns[turns["Turn"].isna()]
    if not missing_turn.empty:
        index = missing_turn.index[0]
        raise CellValueError(
            "a row of tbl_Turns has no turn number",
            column="Turn",
            expected="1, 2, 3, ...",
            **_where(turns, index),
        )
    divisions = divisions[divisions["Division"].notna()]
    return Ledger(
        divisions=divisions,
        turns=turns,
        rules=_rules(book),
        where_divisions=dict(divisions.attrs.get("where", {})),
        where_turns=dict(turns.attrs.get("where", {})),
    )


def _where(frame: pd.DataFrame, index: Any) -> dict[str, Any]:
    where = dict(frame.attrs.get("where", {}))
    first = where.pop("first_row", None)
    if first is not None:
        where["row"] = int(first) + int(index)
    return where


def _starts(ledger: Ledger) -> dict[str, tuple[int, int, bool, str]]:
    """Division -> (Start DEP, Start CCP, cavalry, side), checked."""
    found: dict[str, tuple[int, int, bool, str]] = {}
    for index, row in ledger.divisions.iterrows():
        name = str(row["Division"])
        where = _where(ledger.divisions, index)
        if name.casefold() in {n.casefold() for n in found}:
            raise CellValueError(
                "two divisions have the same name: the ledger finds divisions by name",
                column="Division",
                value=name,
                expected="unique division names",
                **where,
            )
        try:
            cavalry = parse_yes_no(row["Cavalry"], column="Cavalry", division=name)
        except DepInputError as exc:
            raise CellValueError(
                exc.reason, column="Cavalry", value=exc.value, expected="Y or N", **where
            ) from None
        start_dep = 0 if pd.isna(row["Start DEP"]) else int(row["Start DEP"])
        start_ccp = 0 if pd.isna(row["Start CCP"]) else int(row["Start CCP"])
        for column, value, ceiling in (
            ("Start DEP", start_dep, ledger.rules.max_dep),
            ("Start CCP", start_ccp, ledger.rules.max_ccp if cavalry else 0),
        ):
            if not 0 <= value <= ceiling:
                raise CellValueError(
                    f"division {name!r}: {column} is out of range"
                    + (
                        ""
                        if cavalry or column == "Start DEP"
                        else " for a division without cavalry"
                    ),
                    column=column,
                    value=value,
                    expected=f"a whole number from 0 to {ceiling}",
                    **where,
                )
        found[name] = (
            start_dep,
            start_ccp,
            cavalry,
            "" if pd.isna(row["Side"]) else str(row["Side"]),
        )
    return found


def _located(ledger: Ledger, frame: pd.DataFrame, exc: BattleLedgerError) -> CellValueError:
    """``exc`` (from rulesets.dep) with the file, sheet, table and row added."""
    where = {k: v for k, v in ledger.where_turns.items() if k != "first_row"}
    if isinstance(exc, DepInputError):
        hit = frame[(frame["Division"] == exc.division) & (frame["Turn"] == exc.turn)]
        if not hit.empty:
            row = ledger.sheet_row(hit.index[0])
            if row is not None:
                where["row"] = row
    return CellValueError(
        exc.message,
        column=exc.column,
        value=exc.value,
        expected=exc.expected,
        **where,
    )


def compute_turns(ledger: Ledger) -> pd.DataFrame:
    """DEP start, Rest point, DEP end, CCP end and Status of every row of tbl_Turns,
    computed from the inputs by ``rulesets.dep`` (indexed like ``ledger.turns``)."""
    starts = _starts(ledger)
    parts: list[pd.DataFrame] = []
    for name, group in ledger.turns.groupby("Division", sort=False):
        division = str(name)
        if division not in starts:
            index = group.index[0]
            raise CellValueError(
                f"tbl_Turns names a division that tbl_Divisions does not list: {division!r}",
                column="Division",
                value=division,
                expected="one of " + ", ".join(repr(d) for d in starts),
                **_where(ledger.turns, index),
            )
        start_dep, start_ccp, cavalry, _ = starts[division]
        ordered = group.sort_values("Turn", kind="stable")
        try:
            result = run_division(
                start_dep, start_ccp, cavalry, ordered, ledger.rules, division=division
            )
        except DepInputError as exc:
            raise _located(ledger, ordered, exc) from None
        except InvalidArgumentError as exc:  # turns out of sequence
            raise CellValueError(
                exc.message,
                column=exc.column,
                value=exc.value,
                expected=exc.expected,
                **_where(ledger.turns, ordered.index[0]),
            ) from None
        parts.append(result)
    if not parts:
        return pd.DataFrame(index=ledger.turns.index, columns=list(OUTCOME_COLUMNS), dtype=object)
    return pd.concat(parts).reindex(ledger.turns.index)


def standing(ledger: Ledger, computed: pd.DataFrame, as_of: int) -> list[dict[str, Any]]:
    """Each division as of the end of turn ``as_of`` (0: the start)."""
    starts = _starts(ledger)
    rows: list[dict[str, Any]] = []
    for _, division in ledger.divisions.iterrows():
        name = str(division["Division"])
        start_dep, start_ccp, cavalry, side = starts[name]
        mine = ledger.turns[(ledger.turns["Division"] == name) & (ledger.turns["Turn"] <= as_of)]
        if mine.empty:
            dep, ccp, rest = start_dep, start_ccp, 0
            status = initial_status(start_dep, start_ccp, cavalry, ledger.rules)
            last_turn = 0
        else:
            last = mine["Turn"].astype(int).idxmax()
            values: dict[str, Any] = computed.loc[last].to_dict()
            dep, ccp = int(values["DEP end"]), int(values["CCP end"])
            rest = int(values["Rest point"])
            status = Status(str(values["Status"]))
            last_turn = int(mine.loc[last, "Turn"])
        rows.append(
            {
                "side": side,
                "corps": "" if pd.isna(division["Corps"]) else str(division["Corps"]),
                "division": name,
                "cavalry": cavalry,
                "dep": dep,
                "ccp": ccp,
                "rest_point": rest,
                "status": str(status),
                "maneuver_modifier": maneuver_modifier(dep, status, ledger.rules),
                "last_turn": last_turn,
            }
        )
    return rows


def _side_totals(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    totals: dict[str, dict[str, Any]] = {}
    for row in rows:
        side = totals.setdefault(
            row["side"],
            {"side": row["side"], "divisions": 0, "active": 0, "blown": 0, "removed": 0,
             "dep": 0, "ccp": 0},
        )  # fmt: skip
        side["divisions"] += 1
        side[row["status"]] += 1
        side["dep"] += row["dep"]
        side["ccp"] += row["ccp"]
    return list(totals.values())


def _time_of_day(book: Book, turn: int, rules: DepRules) -> str:
    """The time turn ``turn`` starts, from the Battle sheet's start time ('' if unknown)."""
    try:
        start = book.read_name("StartTime")
    except BattleLedgerError:
        return ""
    if isinstance(start, _dt.time | _dt.datetime):
        minutes = start.hour * 60 + start.minute
    elif isinstance(start, int | float):
        minutes = round(float(start) * 1440)
    elif isinstance(start, str):
        try:
            moment = _dt.time.fromisoformat(start.strip())
        except ValueError:
            return ""
        minutes = moment.hour * 60 + moment.minute
    else:
        return ""
    minutes = (minutes + (turn - 1) * rules.turn_minutes) % 1440
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


# -- operations ---------------------------------------------------------------------------


@operation(KIND, "end-turn")
def end_turn(book: Book) -> OperationResult:
    """Close the current turn: check its inputs, log it, add the next turn's rows.

    Every division still on the table (not removed) gets a row for the next
    turn, pre-filled Orders N, Rest eligible N and zeros.
    """
    ledger = read_ledger(book)
    if ledger.divisions.empty:
        raise InvalidArgumentError(
            "the ledger lists no divisions",
            table=DIVISIONS,
            file=book.name,
            expected="one row per division in tbl_Divisions",
        )
    turn = ledger.current_turn
    starts = _starts(ledger)
    # A division on the table without a row for this turn gets one (all N / 0).
    have = set(ledger.turns.loc[ledger.turns["Turn"] == turn, "Division"].astype(str))
    computed = compute_turns(ledger)
    before = {r["division"]: r for r in standing(ledger, computed, turn - 1)}
    filler = [
        name
        for name in ledger.division_names()
        if name not in have and before[name]["status"] != Status.REMOVED
    ]
    if filler:
        extra = _blank_rows(turn, filler, starts)
        extra.index = pd.RangeIndex(-len(filler), 0)
        ledger.turns = pd.concat([ledger.turns, extra])
        computed = compute_turns(ledger)
    after = standing(ledger, computed, turn)
    on_table = [r["division"] for r in after if r["status"] != Status.REMOVED]
    rows = _blank_rows(turn, filler, starts)
    rows = pd.concat([rows, _blank_rows(turn + 1, on_table, starts)], ignore_index=True)
    if not rows.empty:
        book.append_rows(TURNS, _with_formulas(ledger, rows))
    changed = {
        status: [
            r["division"]
            for r in after
            if r["status"] == status and before[r["division"]]["status"] != status
        ]
        for status in (Status.BLOWN, Status.REMOVED)
    }
    counts = {s: sum(r["status"] == s for r in after) for s in Status}
    clock = _time_of_day(book, turn, ledger.rules)
    detail = (
        f"turn {turn}{f' ({clock})' if clock else ''} closed: "
        f"{counts[Status.ACTIVE]} active, {counts[Status.BLOWN]} blown, "
        f"{counts[Status.REMOVED]} removed"
    )
    if changed[Status.BLOWN]:
        detail += "; blown: " + ", ".join(changed[Status.BLOWN])
    if changed[Status.REMOVED]:
        detail += "; removed: " + ", ".join(changed[Status.REMOVED])
    detail += f"; {len(on_table)} divisions go on to turn {turn + 1}"
    book.log("end-turn", detail, turn=turn)
    return OperationResult(
        detail,
        {
            "closed_turn": turn,
            "next_turn": turn + 1,
            "divisions": after,
            "blown": changed[Status.BLOWN],
            "removed": changed[Status.REMOVED],
        },
    )


def _with_formulas(ledger: Ledger, rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with the formula columns of the sheet rows they will take.

    Both backends fill trailing blank rows first, then grow the table, so the
    first new row is the one after the last row holding data. Writing the
    formulas explicitly keeps Excel (which only fills *calculated* columns)
    and the headless backend alike.
    """
    from battle_ledger.templates.dep_ledger import turn_row_formulas

    first = ledger.where_turns.get("first_row")
    if first is None or rows.empty:
        return rows
    used = [int(i) for i in ledger.turns.index if int(i) >= 0]
    start = int(first) + (max(used) + 1 if used else 0)
    formulas = [turn_row_formulas(start + i) for i in range(len(rows))]
    extra = pd.DataFrame(
        [{k: Formula(v) for k, v in f.items()} for f in formulas], index=rows.index
    )
    return pd.concat([rows, extra], axis=1)


def _blank_rows(
    turn: int, names: list[str], starts: dict[str, tuple[int, int, bool, str]]
) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "Turn": turn,
                "Side": starts[name][3],
                "Division": name,
                "Orders": "N",
                "Rest eligible": "N",
                **dict.fromkeys(COUNT_COLUMNS, 0),
            }
            for name in names
        ],
        columns=["Turn", "Side", "Division", *INPUT_COLUMNS],
    )


def _find_division(ledger: Ledger, division: str, book: Book) -> str:
    wanted = division.strip().casefold()
    for name in ledger.division_names():
        if name.strip().casefold() == wanted:
            return name
    raise InvalidArgumentError(
        f"no division {division!r} in the ledger",
        file=book.name,
        table=DIVISIONS,
        column="--division",
        value=division,
        expected="one of " + ", ".join(repr(n) for n in ledger.division_names()),
    )


def _yes_no_option(value: str | None, option: str) -> str | None:
    if value is None:
        return None
    folded = value.strip().casefold()
    if folded in ("y", "yes"):
        return "Y"
    if folded in ("n", "no"):
        return "N"
    raise InvalidArgumentError(
        f"{option} takes Y or N", column=option, value=value, expected="Y or N"
    )


def _count_option(value: int | None, option: str) -> int | None:
    if value is not None and value < 0:
        raise InvalidArgumentError(
            f"{option} must be 0 or more",
            column=option,
            value=value,
            expected="a whole number >= 0",
        )
    return value


@operation(KIND, "record")
def record(
    book: Book,
    *,
    division: str,
    orders: str | None = None,
    rest_eligible: str | None = None,
    charges: int | None = None,
    counter_charges: int | None = None,
    stands_lost: int | None = None,
    ccp_bought: int | None = None,
    dep_markers: int | None = None,
    note: str | None = None,
) -> OperationResult:
    """Record the current turn's inputs for one division (only the options given change).

    --division NAME (as in tbl_Divisions, case-blind); --orders Y|N;
    --rest-eligible Y|N (did not move, 36" or more from the enemy);
    --charges N; --counter-charges N; --stands-lost N; --ccp-bought N;
    --dep-markers N; --note TEXT.
    """
    ledger = read_ledger(book)
    name = _find_division(ledger, division, book)
    given: dict[str, Any] = {
        "Orders": _yes_no_option(orders, "--orders"),
        "Rest eligible": _yes_no_option(rest_eligible, "--rest-eligible"),
        "Charges": _count_option(charges, "--charges"),
        "Counter-charges": _count_option(counter_charges, "--counter-charges"),
        "Stands lost": _count_option(stands_lost, "--stands-lost"),
        "CCP bought": _count_option(ccp_bought, "--ccp-bought"),
        "DEP markers": _count_option(dep_markers, "--dep-markers"),
        "Note": note,
    }
    given = {k: v for k, v in given.items() if v is not None}
    if not given:
        raise InvalidArgumentError(
            "record needs at least one input to record",
            expected="--orders, --rest-eligible, --charges, --counter-charges, --stands-lost, "
            "--ccp-bought, --dep-markers or --note",
        )
    turn = ledger.current_turn
    starts = _starts(ledger)
    mine = ledger.turns[(ledger.turns["Division"] == name) & (ledger.turns["Turn"] == turn)]
    if mine.empty:
        # No row yet for this turn (a ledger started without an order of battle).
        computed = compute_turns(ledger)
        status = {r["division"]: r["status"] for r in standing(ledger, computed, turn - 1)}
        if status[name] == Status.REMOVED:
            raise InvalidArgumentError(
                f"turn {turn}, division {name!r}: the division has been removed from play "
                "(DEP 0) and takes no more inputs",
                file=book.name,
                table=TURNS,
                column="--division",
                value=name,
                expected="a division still on the table",
            )
        new = _blank_rows(turn, [name], starts)
        for column, value in given.items():
            new.loc[0, column] = value
        trial = pd.concat([ledger.turns, new.set_axis([-1])])
        compute_turns(_with_turns(ledger, trial))  # raises on inputs the rules forbid
        book.append_rows(TURNS, _with_formulas(ledger, new))
    else:
        index = mine.index[0]
        trial = ledger.turns.copy()
        for column, value in given.items():
            trial[column] = trial[column].astype(object)
            trial.at[index, column] = value
        compute_turns(_with_turns(ledger, trial))
        update = pd.DataFrame([given], index=[index])
        book.write_cells(TURNS, update)
    shown = ", ".join(f"{k} {v}" for k, v in given.items())
    detail = f"{name}: {shown}"
    book.log("record", detail, turn=turn)
    return OperationResult(f"turn {turn}, {detail}", {"turn": turn, "division": name, **given})


def _with_turns(ledger: Ledger, turns: pd.DataFrame) -> Ledger:
    turns.attrs = dict(ledger.turns.attrs)
    return Ledger(ledger.divisions, turns, ledger.rules, ledger.where_divisions, ledger.where_turns)


@report(KIND)
def where_we_stand(book: Book) -> OperationResult:
    """Each division's DEP, CCP, rest point and status as of the last closed turn,
    computed from the inputs (not cached values), with the side totals."""
    ledger = read_ledger(book)
    computed = compute_turns(ledger)
    closed = ledger.current_turn - 1
    rows = standing(ledger, computed, closed)
    sides = _side_totals(rows)
    battle = _name_or_blank(book, "BattleName")
    clock = _time_of_day(book, closed + 1, ledger.rules)
    head = (
        f"{battle or 'DEP ledger'}: as of the end of turn {closed}"
        if closed
        else (f"{battle or 'DEP ledger'}: before turn 1")
    )
    if clock:
        head += f" (turn {closed + 1} starts {clock})"
    width = max([len("Division"), *(len(r["division"]) for r in rows)])
    side_width = max([len("Side"), *(len(r["side"]) for r in rows)])
    lines = [
        head,
        f"{'Side':<{side_width}} {'Division':<{width}} {'DEP':>4} {'CCP':>4} {'Rest':>4}  Status",
    ]
    for r in rows:
        lines.append(
            f"{r['side']:<{side_width}} {r['division']:<{width}} {r['dep']:>4} {r['ccp']:>4} "
            f"{r['rest_point']:>4}  {r['status']}"
        )
    for s in sides:
        lines.append(
            f"{s['side'] or '(no side)'}: {s['divisions']} division"
            f"{'' if s['divisions'] == 1 else 's'}, {s['active']} active, "
            f"{s['blown']} blown, {s['removed']} removed; DEP {s['dep']}, CCP {s['ccp']}"
        )
    return OperationResult(
        "\n".join(lines),
        {
            "battle": battle,
            "current_turn": ledger.current_turn,
            "last_closed_turn": closed,
            "time_of_day": clock,
            "max_dep": ledger.rules.max_dep,
            "divisions": rows,
            "sides": sides,
        },
    )


def _name_or_blank(book: Book, name: str) -> str:
    try:
        value = book.read_name(name)
    except BattleLedgerError:
        return ""
    return "" if value is None else str(value)


@checker(KIND)
def check_ledger(book: Book) -> list[BattleLedgerError | str]:
    """Problems of a DEP ledger: unknown or repeated divisions, missing or repeated
    turns, inputs the rules forbid, a maximum DEP out of range."""
    problems: list[BattleLedgerError | str] = []
    try:
        ledger = read_ledger(book)
        starts = _starts(ledger)
    except BattleLedgerError as exc:
        return [exc]
    for name, group in ledger.turns.groupby("Division", sort=False):
        one = _with_turns(ledger, group.copy())
        one.divisions = ledger.divisions[ledger.divisions["Division"] == name]
        if str(name) not in starts:
            one.divisions = ledger.divisions
        try:
            compute_turns(one)
        except BattleLedgerError as exc:
            problems.append(exc)
    current = ledger.current_turn
    if not ledger.turns.empty:
        computed = None
        with contextlib.suppress(BattleLedgerError):  # already reported above
            computed = compute_turns(ledger)
        if computed is not None:
            before = standing(ledger, computed, current - 1)
            have = set(ledger.turns.loc[ledger.turns["Turn"] == current, "Division"].astype(str))
            for r in before:
                if r["status"] != Status.REMOVED and r["division"] not in have:
                    problems.append(
                        f"division {r['division']!r} has no row for the current turn {current} "
                        f"(table {TURNS}); end-turn or record adds it"
                    )
    return problems
