"""The roster: a printable order of battle with the columns each rule set needs.

``battle-ledger new roster --ruleset ID [--oob FILE] [--blank-rows N]``
builds it through ``templates.build(ROSTER.name, ruleset, oob, blank_rows=N)``.

One sheet per side, one Excel Table per side (``tbl_Roster_<n>``, the side's
name in the cell named ``roster_side_<n>``). With an order of battle the rows
are grouped by corps and division: each division ends with a
``Division total`` row, each corps with a ``Corps total`` row, and the side
with a ``Side total`` row, all ``SUBTOTAL(9, ...)`` formulas (so a corps total
skips the division totals inside it, and a filtered table totals what it
shows). Without one, ``blank_rows`` empty validated rows per side (two sides,
``Side A`` and ``Side B``, names to type in), then the side total, labelled in the
first name column (a blank roster has no Row column: it would stay empty); a
division's values (Start DEP, CCP) may be typed on one of its rows.

A fleet's roster (Age of Sail) speaks naval words: Fleet, Squadron, Division
(of a squadron), Ship, and Squadron / Fleet total rows. Where the order of battle
calls a type in its own words ("cuirassiers" for Heavy cavalry), a ``Called``
column keeps them beside the rules' type. Rows are tall enough to write in by hand
(blank ones taller), every name wraps whole within its column, headers break only
between words, and a total of 0 prints as nothing.

Common columns: Row, Corps, Division, Brigade, Unit, Type, Grade (Quality in
the Age of Glaube family), Commander (the division's, on its total row), the
rule set's own columns, Notes. The rule set's columns, numbers from its data:

- Eagles to Glory: Stands, Stands lost, Stands left per unit; Start DEP and
  CCP per division (on the division total row; drop-downs 0..max_dep and
  0..max_ccp from ``dep_economy``).
- Square Eagles: SP (strength points; default by type from ``strength_points``),
  a row of hit boxes (as many as the largest SP, greyed past the unit's SP),
  Hits (marked boxes) and SP left.
- Age of Eagles: Stands, Spent point, Stands lost, Stands left.
- Glory of the Empire: Figures (foot and horse) or Guns (batteries); Actions
  per turn by grade (``actions_per_turn``); for each casualty bracket of
  ``morale_check_brackets`` the figures lost at which the unit has *exceeded*
  it (``floor(figures x p / 100) + 1``) where its grade checks at that bracket;
  Figures lost/left, Guns lost/left.
- Age of Glaube / Gloire / Reason / Destiny: Base units, lost, left; below the
  table the marks of the victory table (``tbl_Marks_<n>``): the base units lost
  that reach 15% of the side's total and every 5% after (``victory_table``:
  ``ceil(total x p / 100)``), and which the side's losses have reached.
- Age of Sail: per ship Gun decks (per side: port and starboard boxes), Masts
  and Hull, each as boxes to strike off, and what is left of each.

Type and grade cells have drop-downs of the rule set's vocabularies; counts
accept whole numbers >= 0. Inputs are unlocked, formulas locked, the sheet
protected without a password; landscape, one page wide, header row repeated.
A Rules sheet, a Log and the hidden ``_meta`` complete the workbook.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openpyxl import Workbook
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.worksheet.worksheet import Worksheet

from battle_ledger.rulesets.model import Ruleset, Term
from battle_ledger.rulesets.oob import (
    OrderOfBattle,
    StrengthField,
    Unit,
    grade_vocabularies,
    grade_vocabulary,
    strength_fields,
    type_vocabulary,
)
from battle_ledger.sheets.errors import SetupError
from battle_ledger.sheets.kinds.roster import ROSTER
from battle_ledger.sheets.oob import (
    CALLED_HEADER,
    COMMANDER_HEADER,
    GRADE_HEADER,
    QUALITY_HEADER,
    ROSTER_TABLE_PREFIX,
    ROW_HEADER,
    SIDE_NAME,
    TYPE_HEADER,
    name_headers,
    total_labels,
)
from battle_ledger.templates import register_template
from battle_ledger.templates._build import (
    MAX_BLANK_ROWS,
    Formula,
    TableRef,
    add_list_validation,
    add_table,
    add_whole_validation,
    check_blank_rows,
    define_name,
    fit_headers,
    freeze,
    highlight_when,
    list_source,
    lookup_block,
    new_workbook,
    print_setup,
    protect,
    set_widths,
    wrap_within_columns,
    write,
)
from battle_ledger.templates.rules_sheet import add_rules_sheet
from battle_ledger.templates.style import (
    FILL_ALERT,
    FILL_SUBTOTAL,
    FMT_INT,
    FMT_INT_NO_ZERO,
    style_formula,
    style_input,
    style_note,
    style_subtotal,
    style_title,
)

__all__ = [
    "BLANK_ROWS",
    "MARK_HEADER",
    "MARK_REACHED_HEADER",
    "MARK_UNITS_HEADER",
    "MAX_BLANK_ROWS",
    "build_roster",
    "grade_header",
    "side_sheet_title",
]

BLANK_ROWS = 20
_BLANK_SIDES = ("Side A", "Side B")
_NOTES = "Notes"
_PENCIL_ROW = 24  # points: a blank row tall enough to write in by hand
#: The victory-table marks below an Age of Glaube family roster (``tbl_Marks_<n>``).
MARK_HEADER = "Mark %"
MARK_UNITS_HEADER = "Base units lost"
MARK_REACHED_HEADER = "Reached"
# Our own sheets, and "History", which Excel reserves.
_RESERVED_SHEETS = {"rules", "log", "_lists", "_meta", "history"}


def grade_header(ruleset: Ruleset) -> str | None:
    """``Grade``; ``Quality`` where the rules grade by arm (Age of Glaube family);
    None where the rule set has no grades (Age of Eagles, Age of Sail...)."""
    if "grades" in ruleset.vocabularies:
        return GRADE_HEADER
    return QUALITY_HEADER if grade_vocabularies(ruleset) else None


def side_sheet_title(side: str, taken: set[str]) -> str:
    """A valid, unique sheet title for ``side`` (Excel: 31 characters, no []:*?/\\)."""
    base = re.sub(r"[\[\]:*?/\\]", "-", side).strip()
    # An apostrophe in a sheet name needs doubling in every reference to it; a
    # typographic one reads the same and keeps references simple.
    base = base.replace("'", "\u2019") or "Side"
    base = base[:31]
    title, n = base, 2
    while title.casefold() in taken or title.casefold() in _RESERVED_SHEETS:
        suffix = f" ({n})"
        title, n = base[: 31 - len(suffix)] + suffix, n + 1
    taken.add(title.casefold())
    return title


# -- the row model ----------------------------------------------------------------------


@dataclass
class _Row:
    """One body row of a side's table."""

    kind: str  # "unit", "division", "corps", "side"
    unit: Unit | None = None
    corps: str = ""
    division: str = ""
    commander: str | None = None
    span: tuple[int, int] | None = None  # body rows a total row sums (sheet rows)
    number: int = 0  # sheet row, set when laid out


@dataclass
class _Ctx:
    """What a column needs to fill one cell."""

    ruleset: Ruleset
    row: _Row
    r: int  # sheet row
    col: Callable[[str], str]  # header -> column letter


@dataclass
class _Column:
    """A rule-set column: how to fill a unit row and a total row."""

    header: str
    width: float = 8
    unit: Callable[[_Ctx], Any] = lambda ctx: None
    # On total rows: "sum" (SUBTOTAL over the span), "division-input" (an input on
    # division total rows only), or "blank".
    total: str = "sum"
    is_input: bool = False  # unit-row cells are typed in (unlocked)
    whole: tuple[int, int | None] | None = None  # whole-number validation on inputs
    box: bool = False  # a box to strike off (narrow, any mark)
    count_of: str = ""  # boxes: the header of the count they stand for
    strength: str = ""  # the strength this column is about (greyed where it does not apply)


@dataclass
class _Profile:
    columns: list[_Column]
    #: Optional block below the table (the victory-table marks): (wb, ws, top row,
    #: side number, header -> column letter, the side total's row).
    below: Callable[[Workbook, Worksheet, int, int, Callable[[str], str], int], None] | None = None
    notes: list[str] = field(default_factory=list)


def _strength(name: str) -> Callable[[_Ctx], Any]:
    def fill(ctx: _Ctx) -> Any:
        unit = ctx.row.unit
        return None if unit is None else unit.strengths.get(name)

    return fill


def _left(total: str, lost: str) -> Callable[[_Ctx], Any]:
    def fill(ctx: _Ctx) -> Any:
        t, lo = f"{ctx.col(total)}{ctx.r}", f"{ctx.col(lost)}{ctx.r}"
        return Formula(f'=IF(ISNUMBER({t}),{t}-N({lo}),"")')

    return fill


def _count_columns(title: str, lost: str, left: str, name: str, width: float = 8) -> list[_Column]:
    return [
        _Column(title, width, _strength(name), is_input=True, whole=(0, None), strength=name),
        _Column(lost, width, lambda ctx: None, is_input=True, whole=(0, None), strength=name),
        _Column(left, width, _left(title, lost), strength=name),
    ]


def _field(ruleset: Ruleset, name: str) -> StrengthField:
    for f in strength_fields(ruleset):
        if f.name == name:
            return f
    raise SetupError(f"{ruleset.name} has no strength {name!r}", value=name)


# -- per rule set ------------------------------------------------------------------------


def _etg(wb: Workbook, rs: Ruleset, oob: OrderOfBattle | None) -> _Profile:
    stands = _field(rs, "stands").title
    dep, ccp = _field(rs, "dep"), _field(rs, "ccp")
    max_dep = int(rs.constant("dep_economy", "max_dep"))
    max_ccp = int(rs.constant("dep_economy", "max_ccp"))

    def division_value(name: str) -> Callable[[_Ctx], Any]:
        def fill(ctx: _Ctx) -> Any:
            row = ctx.row
            if row.kind != "division" or row.unit is None:
                return None
            return row.unit.strengths.get(name)

        return fill

    return _Profile(
        columns=[
            *_count_columns(stands, "Stands lost", "Stands left", "stands"),
            _Column(
                dep.title, 9, division_value("dep"), total="division-input", whole=(0, max_dep)
            ),
            _Column(
                ccp.title, 7, division_value("ccp"), total="division-input", whole=(0, max_ccp)
            ),
        ],
        notes=[
            f"{dep.title} (at most {max_dep}) and {ccp.title} (at most {max_ccp}) go on each "
            "division's total row (on a blank row: on one row of the division)."
        ],
    )


def _box_columns(prefix: str, count: int, count_of: str) -> list[_Column]:
    return [
        _Column(f"{prefix}{i}", 3.5, total="blank", is_input=True, box=True, count_of=count_of)
        for i in range(1, count + 1)
    ]


def _boxes_cf(
    ws: Worksheet, first_box: str, count_col: str, last_box: str, rows: tuple[int, int]
) -> None:
    """Grey the boxes past the unit's count (``COLUMN() - first + 1 > count``)."""
    top, bottom = rows
    ref = f"{first_box}{top}:{last_box}{bottom}"
    formula = (
        f"AND(ISNUMBER(${count_col}{top}),"
        f"COLUMN({first_box}{top})-COLUMN(${first_box}{top})+1>${count_col}{top})"
    )
    highlight_when(ws, ref, formula, FILL_SUBTOTAL)


def _se(wb: Workbook, rs: Ruleset, oob: OrderOfBattle | None) -> _Profile:
    sp = _field(rs, "sp").title
    adjust = int(rs.constant("strength_adjustment", "max_adjustment"))
    most = max(int(r["strength_points"]) for r in rs.rows("strength_points")) + adjust
    if oob is not None:
        most = max([most, *(u.strengths.get("sp") or 0 for u in oob.units)])
    boxes = _box_columns("H", most, sp)

    def hits(ctx: _Ctx) -> Any:
        return Formula(
            f"=COUNTA({ctx.col(boxes[0].header)}{ctx.r}:{ctx.col(boxes[-1].header)}{ctx.r})"
        )

    return _Profile(
        columns=[
            _Column(sp, 6, _strength("sp"), is_input=True, whole=(0, None)),
            *boxes,
            _Column("Hits", 6, hits),
            _Column("SP left", 7, _left(sp, "Hits")),
        ],
        notes=[
            "Strike off a hit box (any mark) for each Hit; boxes past the unit's SP are grey. "
            "A unit whose Hits equal its Strength Points is removed."
        ],
    )


def _aoe(wb: Workbook, rs: Ruleset, oob: OrderOfBattle | None) -> _Profile:
    stands = _field(rs, "stands").title
    spent = _field(rs, "spent").title
    cols = _count_columns(stands, "Stands lost", "Stands left", "stands")
    return _Profile(
        columns=[
            cols[0],
            _Column(spent, 8, _strength("spent"), total="blank", is_input=True, whole=(0, None)),
            *cols[1:],
        ],
    )


def _gote(wb: Workbook, rs: Ruleset, oob: OrderOfBattle | None) -> _Profile:
    figures = _field(rs, "figures").title
    guns = _field(rs, "guns").title
    grades = rs.vocabulary("grades").terms
    actions = {
        rs.term("grades", str(r["grade"])).id: int(r["actions"])
        for r in rs.rows("actions_per_turn")
    }
    brackets: dict[str, set[int]] = {}
    for r in rs.rows("morale_check_brackets"):
        brackets.setdefault(rs.term("grades", str(r["grade"])).id, set()).add(int(r["percent"]))
    percents = sorted({p for ps in brackets.values() for p in ps})
    # The grade lookup: name, actions, then 1/0 per bracket (does this grade check there).
    headers = ["gote_grades", "Actions", *(f"{p}%" for p in percents)]
    rows = [
        [t.name, actions.get(t.id), *(1 if p in brackets.get(t.id, set()) else 0 for p in percents)]
        for t in grades
    ]
    table = lookup_block(wb, "gote_grades", headers, rows)
    gh = grade_header(rs) or GRADE_HEADER

    def actions_fill(ctx: _Ctx) -> Any:
        g = f"${ctx.col(gh)}{ctx.r}"
        return Formula(f'=IF({g}="","",VLOOKUP({g},{table},2,FALSE))')

    def check(k: int, p: int) -> Callable[[_Ctx], Any]:
        def fill(ctx: _Ctx) -> Any:
            g, f = f"${ctx.col(gh)}{ctx.r}", f"{ctx.col(figures)}{ctx.r}"
            return Formula(
                f'=IF(OR({g}="",NOT(ISNUMBER({f}))),"",'
                f'IF(VLOOKUP({g},{table},{k},FALSE)=1,INT({f}*{p}/100)+1,""))'
            )

        return fill

    figures_column, *figures_rest = _count_columns(
        figures, "Figures lost", "Figures left", "figures", 7
    )
    guns_column, *guns_rest = _count_columns(guns, "Guns lost", "Guns left", "guns", 6)
    checks = [
        _Column(f"Check at {p}% lost", 8, check(3 + i, p), total="blank")
        for i, p in enumerate(percents)
    ]
    return _Profile(
        columns=[
            figures_column,
            guns_column,
            _Column("Actions", 7, actions_fill, total="blank"),
            *checks,
            *figures_rest,
            *guns_rest,
        ],
        notes=[
            "Check at p% lost: the figures lost at which the unit has exceeded p% casualties "
            "and must make a morale check (only the brackets of its grade)."
        ],
    )


def _glaube(wb: Workbook, rs: Ruleset, oob: OrderOfBattle | None) -> _Profile:
    base = _field(rs, "base_units").title
    first = int(rs.constant("victory_table", "first_mark_pct"))
    step = int(rs.constant("victory_table", "mark_interval_pct"))
    last = int(rs.constant("victory_table", "last_mark_pct"))
    rounding = str(rs.constant("victory_table", "mark_rounding"))
    if rounding != "ceil":
        raise SetupError(
            f"{rs.name}: the roster rounds marks up (ceil)",
            value=rounding,
            expected="ceil",
        )
    percents = list(range(first, last + 1, step))

    def below(
        wb: Workbook, ws: Worksheet, top: int, n: int, col: Callable[[str], str], side_total: int
    ) -> None:
        total = f"{col(base)}{side_total}"
        lost = f"{col('Base units lost')}{side_total}"
        label = ws.cell(row=top, column=1)
        write(label, "Victory table")
        style_title(label)
        note = ws.cell(row=top + 1, column=1)
        write(
            note,
            f"The base units lost that reach {first}% of the side's total and every {step}% "
            "after (rounded up); a crisis of morale test is due when a mark is first reached.",
        )
        style_note(note)
        ref = add_table(
            ws,
            f"tbl_Marks_{n}",
            [MARK_HEADER, MARK_UNITS_HEADER, MARK_REACHED_HEADER],
            [[None, None, None] for _ in percents],
            top=top + 3,
        )
        for i, p in enumerate(percents):
            units = ref.cell(MARK_UNITS_HEADER, i)
            cells = (
                (MARK_HEADER, p),
                (MARK_UNITS_HEADER, Formula(f"=ROUNDUP({total}*{p}/100,0)")),
                (MARK_REACHED_HEADER, Formula(f'=IF(AND({total}>0,{lost}>={units}),"reached","")')),
            )
            for header, value in cells:
                cell = ws[ref.cell(header, i)]
                write(cell, value)
                style_formula(cell, FMT_INT)
        first_row, last_row = ref.first_row, ref.last_row
        letter = ref.col(MARK_REACHED_HEADER)
        highlight_when(
            ws,
            f"{letter}{first_row}:{letter}{last_row}",
            f'{letter}{first_row}="reached"',
            FILL_ALERT,
        )

    return _Profile(
        columns=_count_columns(base, "Base units lost", "Base units left", "base_units"),
        below=below,
    )


def _sail(wb: Workbook, rs: Ruleset, oob: OrderOfBattle | None) -> _Profile:
    records = rs.rows("ship_records")
    units = oob.units if oob is not None else ()

    def most(column: str, name: str) -> int:
        return max(
            [*(int(r[column]) for r in records), *(u.strengths.get(name) or 0 for u in units)]
        )

    decks = _field(rs, "gun_decks").title
    masts = _field(rs, "masts").title
    hull = _field(rs, "hull").title
    port = _box_columns("P", most("gun_decks_per_side", "gun_decks"), decks)
    stbd = _box_columns("S", most("gun_decks_per_side", "gun_decks"), decks)
    mast_boxes = _box_columns("M", most("masts", "masts"), masts)
    hull_boxes = _box_columns("H", most("hull_integrity_units", "hull"), hull)

    def left(count: str, boxes: list[_Column]) -> Callable[[_Ctx], Any]:
        def fill(ctx: _Ctx) -> Any:
            c = f"{ctx.col(count)}{ctx.r}"
            span = f"{ctx.col(boxes[0].header)}{ctx.r}:{ctx.col(boxes[-1].header)}{ctx.r}"
            return Formula(f'=IF(ISNUMBER({c}),MAX(0,{c}-COUNTA({span})),"")')

        return fill

    return _Profile(
        columns=[
            _Column(decks, 6, _strength("gun_decks"), is_input=True, whole=(0, None)),
            *port,
            *stbd,
            _Column(masts, 6, _strength("masts"), is_input=True, whole=(0, None)),
            *mast_boxes,
            _Column(hull, 6, _strength("hull"), is_input=True, whole=(0, None)),
            *hull_boxes,
            _Column("Port left", 6, left(decks, port)),
            _Column("Starboard left", 8, left(decks, stbd)),
            _Column("Masts left", 6, left(masts, mast_boxes)),
            _Column("Hull left", 6, left(hull, hull_boxes)),
        ],
        notes=[
            "Gun decks are per side: strike off P (port) and S (starboard) boxes one by one, "
            "M for each mast shot away, H for each hull integrity unit; grey boxes the ship "
            "does not have."
        ],
    )


_PROFILES: dict[str, Callable[[Workbook, Ruleset, OrderOfBattle | None], _Profile]] = {
    "eagles-to-glory": _etg,
    "square-eagles": _se,
    "age-of-eagles": _aoe,
    "glory-of-the-empire": _gote,
    "age-of-glaube": _glaube,
    "age-of-gloire": _glaube,
    "age-of-reason": _glaube,
    "age-of-destiny": _glaube,
    "age-of-sail": _sail,
}


def _profile(wb: Workbook, rs: Ruleset, oob: OrderOfBattle | None) -> _Profile:
    for key in (rs.id, rs.family):
        if key and key in _PROFILES:
            return _PROFILES[key](wb, rs, oob)
    raise SetupError(
        f"no roster layout for {rs.name}", value=rs.id, expected="one of " + ", ".join(_PROFILES)
    )


# -- layout -------------------------------------------------------------------------------


def _rows_for(units: Sequence[Unit]) -> list[_Row]:
    """Unit rows grouped by corps and division (first-seen order), with total rows."""
    rows: list[_Row] = []
    corps_order = list(dict.fromkeys(u.corps for u in units))
    for corps in corps_order:
        in_corps = [u for u in units if u.corps == corps]
        for division in dict.fromkeys(u.division for u in in_corps):
            members = [u for u in in_corps if u.division == division]
            rows.extend(_Row("unit", unit=u, corps=corps, division=division) for u in members)
            if division:
                rows.append(
                    _Row(
                        "division",
                        unit=members[0],
                        corps=corps,
                        division=division,
                        commander=members[0].commander,
                    )
                )
        if corps:
            rows.append(_Row("corps", corps=corps))
    rows.append(_Row("side"))
    return rows


def _assign_spans(rows: list[_Row], first: int) -> None:
    for i, row in enumerate(rows):
        row.number = first + i
    for i, row in enumerate(rows):
        if row.kind == "unit":
            continue
        start = i
        while start > 0:
            prev = rows[start - 1]
            if row.kind == "division" and not (
                prev.kind == "unit" and prev.corps == row.corps and prev.division == row.division
            ):
                break
            if row.kind == "corps" and not (
                prev.kind in ("unit", "division") and prev.corps == row.corps
            ):
                break
            start -= 1
        if row.kind == "side":
            start = 0
        row.span = (first + start, first + i - 1) if i > start else None


def _type_name(rs: Ruleset, unit: Unit) -> str:
    return rs.term(type_vocabulary(rs), unit.type).name


def _grade_name(rs: Ruleset, unit: Unit) -> str | None:
    if unit.grade is None:
        return None
    ut: Term = rs.term(type_vocabulary(rs), unit.type)
    vocab = grade_vocabulary(rs, ut)
    return rs.term(vocab, unit.grade).name if vocab else unit.grade


def _side_sheet(
    wb: Workbook,
    rs: Ruleset,
    profile: _Profile,
    n: int,
    side: str,
    units: Sequence[Unit] | None,
    blank_rows: int,
    title: str,
    source: str,
) -> None:
    ws = wb.create_sheet(title)
    gh = grade_header(rs)
    # The Row column labels the total rows; a blank roster has only the side's, which
    # goes in the first name column instead of a column always empty.
    base = [ROW_HEADER] if units is not None else []
    names = name_headers(rs)  # a fleet's in naval words
    labels = total_labels(rs)
    base += [*names.values(), TYPE_HEADER]
    base += [CALLED_HEADER] if any(u.called for u in units or ()) else []
    base += [gh] if gh else []
    base += [COMMANDER_HEADER]
    headers = [*base, *(c.header for c in profile.columns), _NOTES]
    cell = ws.cell(row=1, column=1)
    write(cell, f"{side}: {rs.name} roster")
    style_title(cell)
    note = ws.cell(row=2, column=1)
    write(
        note,
        (f"Order of battle: {source}. " if source else "")
        + "Yellow cells are yours to fill in; grey cells are formulas. "
        + " ".join(profile.notes),
    )
    style_note(note)
    label = ws.cell(row=3, column=1)
    write(label, "Side")
    style_title(label)
    name_cell = ws.cell(row=3, column=2)
    write(name_cell, side)
    style_input(name_cell)
    define_name(wb, SIDE_NAME.format(n=n), f"{quote_sheetname(title)}!$B$3")
    top = 5
    header_row = top
    first = header_row + 1
    if units is None:
        rows = [_Row("unit") for _ in range(blank_rows)] + [_Row("side")]
    else:
        rows = _rows_for(units)
        rows[-1:-1] = [_Row("unit") for _ in range(blank_rows)]
    _assign_spans(rows, first)
    letters = {h: _letter(headers.index(h)) for h in headers}

    def col(header: str) -> str:
        return letters[header]

    body: list[list[Any]] = []
    for row in rows:
        ctx = _Ctx(rs, row, row.number, col)
        cells: dict[str, Any] = {}
        u = row.unit
        if row.kind == "unit":
            if u is not None:
                cells.update(
                    {
                        names["corps"]: u.corps,
                        names["division"]: u.division,
                        names["brigade"]: u.brigade,
                        names["unit"]: u.unit,
                        TYPE_HEADER: _type_name(rs, u),
                        CALLED_HEADER: u.called,
                    }
                )
                if gh:
                    cells[gh] = _grade_name(rs, u)
            for c in profile.columns:
                cells[c.header] = c.unit(ctx)
        else:
            cells[names["corps"]] = row.corps or None
            cells[headers[0]] = labels[row.kind]  # Row, or Corps on a blank roster
            cells[names["division"]] = row.division or None
            if row.kind == "division":
                cells[COMMANDER_HEADER] = row.commander
            for c in profile.columns:
                if c.total == "sum" and row.span is not None:
                    a, b = row.span
                    letter = col(c.header)
                    cells[c.header] = Formula(f"=SUBTOTAL(9,{letter}{a}:{letter}{b})")
                elif c.total == "division-input" and row.kind == "division":
                    cells[c.header] = c.unit(ctx)
        body.append([cells.get(h) for h in headers])
    ref = add_table(ws, f"{ROSTER_TABLE_PREFIX}{n}", headers, body, top=header_row)
    _style_rows(wb, ws, rs, profile, ref, rows, headers)
    side_total = next(r for r in rows if r.kind == "side")
    if profile.below is not None:
        profile.below(wb, ws, side_total.number + 2, n, col, side_total.number)
    widths: dict[str, float] = {
        col(headers[0]): 18,
        col(names["corps"]): 18,
        col(names["division"]): 22,
        col(names["brigade"]): 14,
        col(names["unit"]): 24,
        col(TYPE_HEADER): 16,
        col(COMMANDER_HEADER): 16,
        col(_NOTES): 22,
    }
    if ROW_HEADER in letters:
        widths[col(ROW_HEADER)] = 13
    if CALLED_HEADER in letters:
        widths[col(CALLED_HEADER)] = 14
    if gh:
        widths[col(gh)] = 11
    widths.update({col(c.header): c.width for c in profile.columns})
    set_widths(ws, widths)
    fit_headers(ws, ref)
    wrap_within_columns(ws, [ref])  # every name whole, however long
    for row in rows:  # room to write in pencil; a blank row more
        height = ws.row_dimensions[row.number].height or 15
        ws.row_dimensions[row.number].height = max(
            height, _PENCIL_ROW if row.unit is None and row.kind == "unit" else 18
        )
    freeze(ws, f"A{first}")
    print_setup(ws, title_rows=f"{header_row}:{header_row}")
    protect(ws)


def _letter(index: int) -> str:
    return get_column_letter(index + 1)


def _style_rows(
    wb: Workbook,
    ws: Worksheet,
    rs: Ruleset,
    profile: _Profile,
    ref: TableRef,
    rows: list[_Row],
    headers: list[str],
) -> None:
    gh = grade_header(rs)
    input_headers = {*name_headers(rs).values(), TYPE_HEADER, COMMANDER_HEADER, _NOTES}
    if gh:
        input_headers.add(gh)
    by_header = {c.header: c for c in profile.columns}
    types = type_vocabulary(rs)
    fields = strength_fields(rs)

    def applies(unit: Unit) -> set[str]:
        unit_type = rs.term(types, unit.type)
        return {f.name for f in fields if f.applies_to(rs, unit_type)}

    for row in rows:
        for header in headers:
            cell = ws[f"{ref.col(header)}{row.number}"]
            column = by_header.get(header)
            if row.kind == "unit":
                if header in (ROW_HEADER, CALLED_HEADER):
                    style_formula(cell)  # ours: the total rows' labels, the oob's words
                elif column is not None and column.total == "division-input":
                    # A division's value: on its total row; a blank row may give it.
                    (style_input if row.unit is None else style_formula)(cell, FMT_INT)
                elif (
                    column is not None
                    and column.strength
                    and row.unit is not None
                    and (column.strength not in applies(row.unit))
                ):
                    style_formula(cell)  # not for this type (figures of a battery)
                elif header in input_headers or (column is not None and column.is_input):
                    style_input(cell, FMT_INT if column is not None else None)
                else:
                    style_formula(cell, FMT_INT)
            elif header == COMMANDER_HEADER and row.kind == "division":
                style_input(cell)
            elif (
                column is not None and column.total == "division-input" and (row.kind == "division")
            ):
                style_input(cell, FMT_INT)
            else:  # a total: blank, not 0, until there is something to count
                style_subtotal(cell, FMT_INT_NO_ZERO if column is not None else None)
    # Validations over every unit row (blank rosters: every row).
    unit_rows = [r.number for r in rows if r.kind == "unit"]
    if not unit_rows:
        return
    ranges = _runs(unit_rows)
    tv = type_vocabulary(rs)
    add_list_validation(
        ws,
        _multi(ref.col(TYPE_HEADER), ranges),
        list_source(wb, tv, [t.name for t in rs.vocabulary(tv).terms]),
        title=rs.vocabulary(tv).title,
        prompt=f"{rs.vocabulary(tv).title} of {rs.name}",
    )
    vocabs = grade_vocabularies(rs)
    if vocabs and gh:
        names = list(dict.fromkeys(t.name for v in vocabs for t in rs.vocabulary(v).terms))
        add_list_validation(
            ws,
            _multi(ref.col(gh), ranges),
            list_source(wb, vocabs[0] if len(vocabs) == 1 else "qualities", names),
            title=gh,
            prompt=f"{gh} of the unit ({rs.name})",
        )
    for c in profile.columns:
        if c.whole is None:
            continue
        lo, hi = c.whole
        if c.total == "division-input":
            numbers = [r.number for r in rows if r.kind == "division"
                       or (r.kind == "unit" and r.unit is None)]  # fmt: skip
            if numbers:
                add_whole_validation(ws, _multi(ref.col(c.header), _runs(numbers)), lo, hi)
        elif c.is_input:
            add_whole_validation(ws, _multi(ref.col(c.header), ranges), lo, hi)
    # Boxes: grey those past the unit's count; a count left of each run of boxes.
    groups: dict[tuple[str, str], list[_Column]] = {}
    for c in profile.columns:
        if c.box:
            groups.setdefault((c.count_of, c.header[0]), []).append(c)
    for (count, _prefix), cols in groups.items():
        for a, b in ranges:
            _boxes_cf(ws, ref.col(cols[0].header), ref.col(count), ref.col(cols[-1].header), (a, b))
    # Left columns at 0: the unit is gone.
    for c in profile.columns:
        if c.header.endswith("left"):
            letter = ref.col(c.header)
            for a, b in ranges:
                highlight_when(
                    ws,
                    f"{letter}{a}:{letter}{b}",
                    f"AND(ISNUMBER({letter}{a}),{letter}{a}<=0)",
                    FILL_ALERT,
                )


def _runs(numbers: list[int]) -> list[tuple[int, int]]:
    """Consecutive runs of sheet rows: [5, 6, 7, 9] -> [(5, 7), (9, 9)]."""
    runs: list[tuple[int, int]] = []
    for n in sorted(numbers):
        if runs and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


def _multi(letter: str, runs: list[tuple[int, int]]) -> str:
    return " ".join(f"{letter}{a}:{letter}{b}" for a, b in runs)


def build_roster(
    ruleset: Ruleset,
    oob: OrderOfBattle | None,
    settings: Mapping[str, Any],
    *,
    blank_rows: int | None = None,
) -> Workbook:
    """The roster workbook for ``ruleset`` (``settings``: none, a roster has no setting).

    Without ``oob``: two sides of ``blank_rows`` empty rows (default
    ``BLANK_ROWS``). With it: its units, then ``blank_rows`` empty rows per
    side before the side total (default none) for units that join later.
    """
    if blank_rows is None:
        blank_rows = BLANK_ROWS if oob is None else 0
    check_blank_rows(blank_rows)
    wb = new_workbook()
    profile = _profile(wb, ruleset, oob)
    taken: set[str] = set()
    if oob is None:
        for n, side in enumerate(_BLANK_SIDES, start=1):
            _side_sheet(
                wb, ruleset, profile, n, side, None, blank_rows, side_sheet_title(side, taken), ""
            )
    else:
        for n, side in enumerate(oob.sides(), start=1):
            _side_sheet(
                wb,
                ruleset,
                profile,
                n,
                side,
                oob.units_of(side),
                blank_rows,
                side_sheet_title(side, taken),
                oob.source.rsplit("/", 1)[-1],
            )
    add_rules_sheet(wb, ruleset)
    return wb


register_template(ROSTER, build_roster)
