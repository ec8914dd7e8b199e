"""The campaign ledger: battles on dates, each formation's losses, the stands coming
back, and every formation's strength on any date (declaration, formulas, operations).

``tbl_Formations``: one row per formation (divisions for Eagles to Glory), its side
and stands at the start of the campaign; computed for the date typed in
``StrengthOn``: stands lost by then, back by then, gone for good, strength.
``tbl_Battles``: name, date (ISO text: campaigns are before 1900, where a
spreadsheet has no dates), winner (a side, or ``draw``); computed: the dates
each share of the losses is back. ``tbl_Losses`` (the periods: one row per
formation per battle, the battle's number as the period): stands lost; computed:
the formation's outcome, its strength before the battle, the stands back the
next day, after a week, after a month, and gone for good.

Every date is turned into a day number by plain arithmetic on its text
(``sheets.formulas.day_number``) and back (``iso_date``): no formula depends on a
date serial. The rules are ``rulesets.recovery.formation_battles`` and
``formation_strength`` (``strength_after``).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from battle_ledger._lazy import lazy_module
from battle_ledger.rulesets import glory_of_the_empire as gote
from battle_ledger.rulesets import recovery, registry
from battle_ledger.rulesets.errors import BattleLedgerError, InvalidArgumentError
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.rulesets.oob import (
    NAME_COLUMNS,
    OrderOfBattle,
    RawUnit,
    Unit,
    grade_vocabulary,
    order_of_battle,
    strength_fields,
    type_vocabulary,
)
from battle_ledger.sheets.engine.book import Book, Grid, Meta, TableRows
from battle_ledger.sheets.engine.values import cell_count
from battle_ledger.sheets.errors import (
    CellValueError,
    InputFileError,
    LedgerStateError,
    OptionValueError,
    WrongKindError,
)
from battle_ledger.sheets.formulas import (
    HEADER_ROW,
    ISO_DATE_HELPERS,
    constant_name,
    day_number,
    iso_date,
    letters,
    period_column,
    period_end,
    sheet_name,
    sum_equal,
    thing_row,
    unless_blank,
)
from battle_ledger.sheets.ledger import (
    KINDS,
    Column,
    Entry,
    LedgerKind,
    LedgerState,
    NamedCell,
    Role,
    Table,
    battle_name,
    find_name,
    find_thing,
    period_rows,
    periods_of,
    problems_computing,
    read_named,
    read_setting,
    read_tables,
    read_touching,
    register,
    rows_with_formulas,
    where_of,
)
from battle_ledger.sheets.operations import (
    OperationResult,
    Option,
    Upload,
    checker,
    input_options,
    load_operations,
    operation,
    report,
)

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "BATTLES",
    "DRAW",
    "EVENT_DAYS",
    "FORMATIONS",
    "KIND",
    "LOSSES",
    "OOB_SHEET",
    "OOB_SINCE",
    "OOB_TABLE",
    "RECOVERY",
    "TIMELINE",
    "CampaignLedger",
    "CampaignLink",
    "add_battle",
    "battle_formulas",
    "campaign_link",
    "compute_losses",
    "date_option",
    "formation_formulas",
    "loss_row",
    "loss_sources",
    "losses",
    "oob_headers",
    "oob_rows",
    "prints_replacements",
    "read_campaign",
    "replace_artillery",
    "standings",
    "stored_oob",
    "strength_formula",
]

_I, _O, _H, _K = Role.INPUT, Role.OUTCOME, Role.HELPER, Role.KEY
#: Defined name of the hidden block of cumulative recovery percentages by outcome.
RECOVERY = "campaign_recovery"
#: What the winner column holds for a drawn battle.
DRAW = "draw"
#: The day-number helper columns of tbl_Battles: the battle's day and each return's.
EVENT_DAYS = ("Day", "Day next", "Day week", "Day month")
_RETURNS = ("Next day", "After a week", "After a month")
_TOP = 3
#: Template version 4: each Losses row computes once where the table ends (``Last row``)
#: and what the battle costs its formation (``Cost``), and its strength reads them: one
#: sum over its formation's earlier battles where there were six, over short ranges.
_SHORT = 4

FORMATIONS = Table(
    name="tbl_Formations",
    sheet="Formations",
    title="Formations",
    note="Stands at the start of the campaign are yours (Glory of the Empire: figures, a "
    "battery's guns); the rest is as on the date typed on the Campaign sheet (Strength on).",
    columns=(
        Column("Side", "side", _I, help="the formation's side", width=14, fixed=True),
        Column("Formation", "formation", _K, help="its name, unique in the campaign", width=30),
        Column("Stands at start", "start", _I, Entry.WHOLE, "stands at the start of the campaign",
               low=1, width=10),
        Column("Lost", "lost", _O, Entry.WHOLE, "stands lost in the battles up to the date",
               width=8),
        Column("Back", "back", _O, Entry.WHOLE, "stands back by the date", width=8),
        Column("Gone for good", "gone", _O, Entry.WHOLE,
               "stands of those battles that never come back", width=9),
        Column("Strength", "strength", _O, Entry.WHOLE, "stands on the date", width=9),
        Column("Type", "type", _I, help="Division (Eagles to Glory), or the unit's type (Glory "
               "of the Empire: batteries, and the troops that donate artillery replacements)",
               width=26, fixed=True, since=2),
        Column("Brackets from", "brackets_from", _O, Entry.WHOLE,
               "the figures the casualty brackets of a battle on the date count from (the "
               "setting Morale brackets from)", width=9, since=2),
    ),
)  # fmt: skip

BATTLES = Table(
    name="tbl_Battles",
    sheet="Battles",
    title="Battles",
    note="Dates as text, year-month-day (1805-12-02): a spreadsheet has no dates before "
    "1900. The winner is a side, or draw.",
    columns=(
        Column("Battle", "number", _K, Entry.WHOLE, "the battle's number (the order of "
               "battles on one day)", low=1, width=7),
        Column("Name", "name", _I, help="the battle's name, unique in the campaign", width=24),
        Column("Date", "date", _I, help="year-month-day, e.g. 1805-12-02", width=11),
        Column("Winner", "winner", _I, help="the winning side, or draw", width=14),
        *(Column(h, h.casefold().replace(" ", "_"), _O, help=f"the date stands are back: {h}",
                 width=11) for h in _RETURNS),
        *(Column(h, h.casefold().replace(" ", "_"), _H) for h in EVENT_DAYS),
        *(Column(f"{r} {h}", f"{r}_{h}".casefold().replace(" ", "_"), _H)
          for r in _RETURNS for h in ISO_DATE_HELPERS),
    ),
)  # fmt: skip

LOSSES = Table(
    name="tbl_Losses",
    sheet="Losses",
    title="Losses",
    note="One row per formation per battle: the stands (figures, guns) it lost. What comes "
    "back, and when, follows from the battle's winner; guns replaced come back at once.",
    columns=(
        Column("Battle", "battle", _K, Entry.WHOLE, "the battle's number, as on Battles",
               low=1, width=7),
        Column("Side", "side", _I, help="the formation's side", width=14, fixed=True),
        Column("Formation", "formation", _K, help="the formation, as on Formations", width=28),
        Column("Stands lost", "lost", _I, Entry.WHOLE, "stands lost in this battle", low=0,
               width=8),
        Column("Outcome", "outcome", _O, help="winner or loser (a draw: the setting)", width=9),
        Column("Strength before", "strength_before", _O, Entry.WHOLE,
               "stands on the battle's day, before it", width=9),
        Column("Next day", "next_day", _O, Entry.WHOLE, "stands back the next day", width=8),
        Column("After a week", "after_week", _O, Entry.WHOLE, "more back after a week",
               width=8),
        Column("After a month", "after_month", _O, Entry.WHOLE, "more back after a month",
               width=8),
        Column("Gone for good", "gone", _O, Entry.WHOLE, "never back", width=8),
        Column("Battle row", "battle_row", _H),
        Column("Day", "day", _H),
        Column("Winner", "winner", _H),
        Column("Start", "start", _H),
        Column("Guns replaced", "replaced", _I, Entry.WHOLE, "a battery's guns replaced after "
               "this battle by figures of a donor (run replace-artillery)", low=0, width=8,
               since=2, recorded="replace-artillery"),
        Column("Figures donated", "donated", _I, Entry.WHOLE, "figures this unit gave up for "
               "good as artillery replacements after this battle", low=0, width=8, since=2,
               recorded="replace-artillery"),
        Column("Last row", "last_row", _H, since=_SHORT),
        Column("Cost", "cost", _H, since=_SHORT),
    ),
)  # fmt: skip


def _constant(name: str) -> str:
    return constant_name("campaign_recovery_days", name)


@functools.cache  # the same text each time: a new battle's rows ask for it some 30 times a row
def _losses_column(header: str, end: str = "") -> str:
    """Column ``header`` of tbl_Losses, its rows only (exact look-ups are arrays). ``end``:
    a Losses row's ``Last row`` cell, for a formula on the Losses sheet itself."""
    c = letters(LOSSES.headers)
    sheet = "" if end else sheet_name(LOSSES.sheet)
    return period_column(sheet, c[header], HEADER_ROW + 1, c["Battle"], end=end)


def _summed(header: str, formation: str, days: str, end: str = "") -> str:
    """The formation's ``header`` (Losses) summed over the battles up to day ``days``."""
    f, day = _losses_column("Formation", end), _losses_column("Day", end)
    return sum_equal(_losses_column(header, end), {f: formation}, [f"{day}<={days}"])


def _back(formation: str, day: str, end: str = "") -> str:
    """The stands of the formation's battles back by day ``day``."""
    return "+".join(
        _summed(header, formation, f"{day}-{_constant(days)}", end)
        for header, days in zip(_RETURNS, ("next_day", "week", "month"), strict=True)
    )


#: What a battle costs a formation for good or for now (+) or gives back at once (-).
_NET = (("Stands lost", "+"), ("Guns replaced", "-"), ("Figures donated", "+"))


def _cost(r: int) -> str:
    """What the battle of Losses row ``r`` costs its formation (``_NET``; blanks and text
    count 0, as the sums count them)."""
    c = letters(LOSSES.headers)
    return "".join(f"{sign}N(${c[header]}{r})" for header, sign in _NET).lstrip("+")


def strength_formula(formation: str, start: str, day: str, *, before: str = "",
                     end: str = "", version: int = _SHORT) -> str:  # fmt: skip
    """A formation's stands on day number ``day``: its ``start`` less what the battles
    up to that day cost (stands lost, less guns replaced, plus figures donated), plus
    what has come back. ``before``: a battle's number, to count only the battles before
    it on that day (the strength before that battle). ``end``: a Losses row's ``Last
    row`` cell (a formula on that row). ``version``: the template version of the ledger
    (before 4: each part of the cost summed apart, no ``Cost`` column)."""

    def col(header: str) -> str:
        return _losses_column(header, end)

    f, d = col("Formation"), col("Day")
    if version >= _SHORT:
        earlier = [f"({d}<{day})+({d}={day})*({col('Battle')}<{before})"] if before else [
            f"{d}<={day}"]  # fmt: skip
        cost = sum_equal(col("Cost"), {f: formation}, earlier)
        return f"{start}-{cost}+{_back(formation, day, end)}"
    parts = []
    for header, sign in _NET:
        if before:
            parts.append(sign + sum_equal(col(header), {f: formation}, [f"{d}<{day}"]))
            parts.append(sign + sum_equal(col(header), {f: formation, d: day},
                                          [f"{col('Battle')}<{before}"]))  # fmt: skip
        else:
            parts.append(sign + _summed(header, formation, day))
    return f"{start}-({''.join(parts)})+{_back(formation, day)}"


def loss_formulas(r: int, version: int = _SHORT) -> dict[str, str]:
    """The formulas of tbl_Losses on sheet row ``r`` of a ledger of template ``version``:
    ``formation_battles`` step for step."""
    c = letters(LOSSES.headers)
    b = letters(BATTLES.headers)
    f = letters(FORMATIONS.headers)
    battles, formations = sheet_name(BATTLES.sheet), sheet_name(FORMATIONS.sheet)

    def cell(header: str) -> str:
        return f"${c[header]}{r}"

    def on_battle(header: str) -> str:
        return f"INDEX({battles}!${b[header]}:${b[header]},{cell('Battle row')})"

    lost, outcome = f"({cell('Stands lost')}-N({cell('Guns replaced')}))", cell("Outcome")
    half_up = f'RecoveryRounding="{recovery.Rounding.HALF_UP}"'

    def back_by(step: int) -> str:  # cumulative stands back by the step (1, 2, 3)
        percent = f"VLOOKUP({outcome},{RECOVERY},{step + 1},0)"
        return f"INT(({lost}*{percent}+IF({half_up},50,0))/100)"

    def known(formula: str) -> str:  # blank where the rules print no recovery
        return f'IF(ISNUMBER(VLOOKUP({outcome},{RECOVERY},4,0)),{formula},"")'

    short = version >= _SHORT
    draw = f'IF(DrawCounts="{recovery.DrawCounts.WINNERS}","winner","loser")'
    formulas = {
        "Outcome": (f'IF({cell("Winner")}="{DRAW}",{draw},'
                    f'IF({cell("Winner")}={cell("Side")},"winner","loser"))'),
        "Strength before": strength_formula(cell("Formation"), cell("Start"), cell("Day"),
                                            before=cell("Battle"),
                                            end=cell("Last row") if short else "",
                                            version=version),
        "Next day": known(back_by(1)),
        "After a week": known(f"{back_by(2)}-{back_by(1)}"),
        "After a month": known(f"{back_by(3)}-{back_by(2)}"),
        "Gone for good": known(f"{lost}-{back_by(3)}"),
        # A battle's number: no wildcard, no criterion.
        "Battle row": f"MATCH({cell('Battle')},{battles}!${b['Battle']}:${b['Battle']},0)",
        "Day": on_battle("Day"),
        "Winner": on_battle("Winner"),
        "Start": (f"INDEX({formations}!${f['Stands at start']}:${f['Stands at start']},"
                  f"{thing_row(cell('Formation'), formations, f['Formation'])})"),
    }  # fmt: skip
    if short:
        formulas["Last row"] = period_end("", HEADER_ROW + 1, c["Battle"])
        formulas["Cost"] = _cost(r)
    return unless_blank(cell("Formation"), formulas)


def battle_formulas(r: int) -> dict[str, str]:
    """The formulas of tbl_Battles on sheet row ``r``: the day numbers and return dates."""
    c = letters(BATTLES.headers)

    def cell(header: str) -> str:
        return f"${c[header]}{r}"

    formulas = {"Day": day_number(cell("Date"))}
    for ret, day_header, days in zip(_RETURNS, EVENT_DAYS[1:], ("next_day", "week", "month"),
                                     strict=True):  # fmt: skip
        # Blank where the rules give no days (Glory of the Empire: nothing comes back).
        formulas[day_header] = f'IF({_constant(days)}="","",{cell("Day")}+{_constant(days)})'
        helpers = [cell(f"{ret} {h}") for h in ISO_DATE_HELPERS]
        for header, formula in iso_date(cell(day_header), helpers).items():
            formulas[ret if header == "date" else f"{ret} {header}"] = formula
    return unless_blank(cell("Date"), formulas)


def formation_formulas(r: int) -> dict[str, str]:
    """The formulas of tbl_Formations on sheet row ``r``: the formation on the date typed
    in ``StrengthOn`` (its day number: ``StrengthOnDay``)."""
    c = letters(FORMATIONS.headers)
    name, day = f"${c['Formation']}{r}", "StrengthOnDay"
    strength = strength_formula(name, f"${c['Stands at start']}{r}", day)
    formulas = {
        "Lost": _summed("Stands lost", name, day),
        "Back": _back(name, day),
        "Gone for good": f'IF(COUNT({RECOVERY})=0,"",{_summed("Gone for good", name, day)})',
        "Strength": strength,
        "Brackets from": (
            f'IF(BracketsFrom="{gote.BracketsFrom.CAMPAIGN_START}",'
            f"${c['Stands at start']}{r},{strength})"
        ),
    }
    dated = {h: f'IF({day}="","",{f})' for h, f in formulas.items()}
    return unless_blank(name, dated)


#: The order of battle a campaign was made from, kept in it (template version 3 on), so
#: that the next battle's ledger needs nothing but the campaign (``new KIND --campaign``):
#: a sheet of its own, one row per unit in an order of battle CSV's own columns (what is
#: given; a blank takes the rule set's default again when it is read back).
OOB_SHEET = "Order of battle"
OOB_TABLE = "tbl_OrderOfBattle"
OOB_SINCE = 3


def oob_headers(ruleset: Ruleset) -> list[str]:
    """The columns of the kept order of battle: names, type, grade, commander and the
    rule set's strengths, as an order of battle CSV heads them."""
    strengths = [f.name for f in strength_fields(ruleset)]
    return [*NAME_COLUMNS, "type", "grade", "commander", *strengths]


def oob_rows(oob: OrderOfBattle, ruleset: Ruleset) -> list[list[Any]]:
    """``oob``'s units as the kept order of battle's rows: the type in the order of
    battle's own word where it had one, and only the strengths it gave (a division value on
    every unit of its division), so that reading them back gives the same units."""

    types = type_vocabulary(ruleset)

    def row(u: Unit) -> list[Any]:
        unit_type = ruleset.term(types, u.type)
        grades = grade_vocabulary(ruleset, unit_type)
        grade = ruleset.term(grades, u.grade).name if u.grade and grades else None
        names = [getattr(u, c) for c in NAME_COLUMNS]
        given = [u.strength(f.name) if f.name in u.given_at else None
                 for f in strength_fields(ruleset)]  # fmt: skip
        return [*names, u.called or unit_type.name, grade, u.commander, *given]

    return [row(u) for u in oob.units]


def stored_oob(book: Book, ruleset: Ruleset) -> OrderOfBattle | None:
    """The order of battle campaign ``book`` keeps, read back and checked as any order of
    battle is (each mistake named by its sheet and row); None for a campaign made before
    campaigns kept one (template version 2) or made without one."""
    if book.meta().template_version < OOB_SINCE:
        return None
    rows = book.read_rows(OOB_TABLE, cached=False)
    first = rows.attrs["where"].get("first_row")
    records = [RawUnit(dict(zip(rows.headers, values, strict=True)),
                       where=f"sheet {OOB_SHEET!r}, row {first + i}" if first else None)
               for i, values in zip(rows.index, rows.rows, strict=True)]  # fmt: skip
    if not records:
        return None
    return order_of_battle(ruleset, records, book.name)


#: Formations down, the campaign's dates across from column C; the chart reads each
#: side's total down the hidden ``_chart`` sheet from row 2.
TIMELINE = Grid("Timeline", first=3, across=True, chart_data="_chart")

KIND = register(
    LedgerKind(
        name="campaign",
        title="Campaign",
        description="Campaign ledger: battles on dates, each formation's losses, the stands "
        "back the next day, after a week and after a month, every formation's strength on "
        "any date",
        rulesets=frozenset({"eagles-to-glory", gote.RULESET_ID}),
        things=FORMATIONS,
        periods=LOSSES,
        thing="formation",
        period="battle",
        named_cells=(
            NamedCell("BattleName", "Campaign", help="the campaign's name", option="name"),
            NamedCell("StartsOn", "Starts on", help="the campaign's first date, year-month-day "
                      "(blank: its first battle's)", option="starts-on"),
            NamedCell("StrengthOn", "Strength on", help="a date, year-month-day: every "
                      "formation's strength on it (Formations sheet)"),
            NamedCell("RecoveryRounding", "Stands back rounded", Entry.CHOICE,
                      "half up (the house default) or down, so that no more than the printed "
                      "share ever returns", choices=recovery.Rounding.ALL,
                      option="rounding"),
            NamedCell("DrawCounts", "A draw counts as", Entry.CHOICE,
                      "both losers (the house default) or both winners",
                      choices=recovery.DrawCounts.ALL, option="draw-counts"),
            NamedCell("BracketsFrom", "Morale brackets from", Entry.CHOICE,
                      "Glory of the Empire: a later day's casualty brackets count from the "
                      "new strength (the house default) or the strength at the start of the "
                      "campaign", choices=gote.BracketsFrom.ALL, option="brackets-from"),
            NamedCell("StrengthOnDay", "Day number of Strength on", Entry.WHOLE,
                      computed=True),
            NamedCell("BattlesFought", "Battles", Entry.WHOLE, computed=True),
        ),
        statuses=(),
        off_table=frozenset(),
        step=recovery.formation_battles,
        period_formulas=loss_formulas,
        versioned_formulas=loss_formulas,
        compute=lambda book: compute_losses(read_campaign(book)),  # defined below
        close="add-battle",
        asks_if_empty=False,
        record="losses",
        macro_prefix="campaign",
        template_version=_SHORT,
        front="Campaign",
        grid=TIMELINE,
    )
)  # fmt: skip


# -- reading ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CampaignBattle:
    """One row of tbl_Battles, checked."""

    number: int
    name: str
    date: dt.date
    winner: str  # a side, or DRAW


@dataclass
class CampaignLedger(LedgerState):
    """Everything an operation needs, read at once."""

    starts: dict[str, int]
    sides: dict[str, str]
    battles: dict[int, CampaignBattle]
    starts_on: dt.date | None
    rounding: str | None
    draw_counts: str | None
    ruleset: str
    types: dict[str, str]  # blank for a ledger of template version 1
    brackets_from: str | None

    def outcome(self, battle: CampaignBattle, side: str) -> str:
        """``winner`` or ``loser`` for ``side`` in ``battle``."""
        if battle.winner == DRAW:
            return recovery.DrawCounts.outcome(self.draw_counts)
        return "winner" if battle.winner.casefold() == side.casefold() else "loser"

    @property
    def first_date(self) -> dt.date | None:
        """The campaign's first date: typed, or its first battle's."""
        if self.starts_on is not None:
            return self.starts_on
        return min((b.date for b in self.battles.values()), default=None)


def _iso(value: Any, what: str, **where: Any) -> dt.date:
    """A date typed as ISO text (a spreadsheet date is refused: the formulas read text)."""
    if isinstance(value, str):
        text = value.strip()
        try:
            if len(text) == 10:
                return dt.date.fromisoformat(text)
        except ValueError:
            pass
    raise CellValueError(f"{what} is not a date written year-month-day", value=value,
                         expected="text such as 1805-12-02 (a real date: no spreadsheet "
                         "date serials before 1900)", **where)  # fmt: skip


def _named_date(book: Book, name: str) -> dt.date | None:
    """The date typed in the named cell ``name`` (StartsOn, StrengthOn); None if blank."""
    typed = read_named(book, name)
    if typed in (None, ""):
        return None
    label = next(n.label for n in KIND.named_cells if n.name == name)
    return _iso(typed, f"the date of {label}", file=book.name, sheet=KIND.front, column=label)


def _battles(book: Book, sides: set[str]) -> dict[int, CampaignBattle]:
    table = book.read_rows(BATTLES.name, {"Battle": int, "Name": str, "Date": None,
                                          "Winner": str}, cached=False)  # fmt: skip
    found: dict[int, CampaignBattle] = {}
    names: set[str] = set()
    records = zip(table.index, table.records(["Battle", "Name", "Date", "Winner"]), strict=True)
    for index, row in records:  # as read (no frame of them)
        if row["Battle"] is None:
            continue
        where = where_of(table, index)
        number, name = int(row["Battle"]), str(row["Name"] or "").strip()
        if number in found or not name or name.casefold() in names:
            raise CellValueError("every battle needs a number and a name of its own",
                                 column="Name" if number not in found else "Battle",
                                 value=name if number not in found else number,
                                 expected="unique battle numbers and names", **where)  # fmt: skip
        date = _iso(row["Date"], f"the date of {name!r}", column="Date", **where)
        winner = str(row["Winner"] or "").strip()
        known = {s.casefold(): s for s in sides} | {DRAW: DRAW}
        if winner.casefold() not in known:
            raise CellValueError(f"the winner of {name!r} is not a side", column="Winner",
                                 value=winner, expected=" or ".join([*sorted(sides), DRAW]),
                                 **where)  # fmt: skip
        names.add(name.casefold())
        found[number] = CampaignBattle(number, name, date, known[winner.casefold()])
    return found


def read_campaign(
    book: Book, of: Callable[[TableRows], str | None] | None = None
) -> CampaignLedger:
    """The three tables and the settings, every battle and formation checked. ``of``: one
    formation's rows of tbl_Losses only (``read_tables``)."""
    tables = read_tables(book, KIND, of)
    starts: dict[str, int] = {}
    sides: dict[str, str] = {}
    types: dict[str, str] = {}
    # the rows as records (no frame of them: an operation that wants one makes it)
    for index, row in tables.thing_records(["Formation", "Stands at start", "Side", "Type"]):
        name = str(row["Formation"])
        if pd.isna(row["Stands at start"]):
            raise CellValueError(f"formation {name!r} has no stands at the start",
                                 column="Stands at start", expected="a whole number 1 or more",
                                 **tables.where_thing(index))  # fmt: skip
        starts[name] = int(row["Stands at start"])
        sides[name] = "" if pd.isna(row["Side"]) else str(row["Side"])
        types[name] = "" if pd.isna(row["Type"]) else str(row["Type"]).strip()
    battles = _battles(book, {s for s in sides.values() if s})
    return CampaignLedger(tables, starts, sides, battles, _named_date(book, "StartsOn"),
                          read_setting(book, KIND, "RecoveryRounding"),
                          read_setting(book, KIND, "DrawCounts"), book.meta().ruleset, types,
                          read_setting(book, KIND, "BracketsFrom"))  # fmt: skip


@dataclass(frozen=True)
class CampaignLink:
    """Which campaign, and which date of it, a battle ledger was made from (``new KIND
    --campaign``): rows of the ledger's hidden ``_meta`` sheet, which no one types into.
    A campaign is known by its name and the moment it was made (its own ``_meta``'s
    ``created``): a copy of the file is the same campaign, another campaign of the same
    name is not. ``formations``: the campaign's formations the ledger was made with,
    named as the campaign names them (the ledger's divisions or units)."""

    campaign: str
    created: str
    on: dt.date
    formations: tuple[str, ...]

    #: The ``_meta`` keys, one per field.
    KEYS = ("campaign", "campaign created", "campaign on", "campaign formations")

    def rows(self) -> dict[str, str]:
        """The ``_meta`` rows that record the link."""
        values = (self.campaign, self.created, self.on.isoformat(), "\n".join(self.formations))
        return dict(zip(self.KEYS, values, strict=True))

    @classmethod
    def of(cls, meta: Meta, *, file: str) -> CampaignLink | None:
        """The link a ledger's ``_meta`` records; None for a ledger not made from one."""
        found = {k.casefold(): v for k, v in meta.extra}
        if cls.KEYS[1] not in found:
            return None
        on = found.get(cls.KEYS[2], "")
        try:
            day = dt.date.fromisoformat(on)
        except ValueError:
            raise CellValueError("the campaign date the ledger was made on is not a date",
                                 file=file, sheet="_meta", column=cls.KEYS[2], value=on,
                                 expected="year-month-day, as new --campaign writes it"
                                 ) from None  # fmt: skip
        names = tuple(n for n in found.get(cls.KEYS[3], "").split("\n") if n)
        return cls(found.get(cls.KEYS[0], ""), found[cls.KEYS[1]], day, names)

    def named(self) -> str:
        """The campaign as a message names it."""
        return f"{self.campaign or 'an unnamed campaign'!r} (made {self.created})"


def campaign_link(book: Book, on: dt.date, formations: Iterable[str]) -> CampaignLink:
    """The link a battle ledger made from campaign ``book`` on ``on`` records."""
    created = dict((k.casefold(), v) for k, v in book.meta().extra).get("created", "")
    return CampaignLink(battle_name(book), created, on, tuple(formations))


_Part = tuple[Any, Any, recovery.FormationBattle, recovery.FormationBattleOutcome]


def _fold(ledger: CampaignLedger) -> dict[str, list[_Part]]:
    folded: dict[str, list[_Part]] = {}
    # the records hold what the fold reads alone (a Losses row has as many formulas)
    for formation, rows in periods_of(ledger, KIND, ledger.starts, [h for h, _ in _NET]):
        fought = []
        for index, row in rows:
            number = int(row["Battle"])
            battle = ledger.battles.get(number)
            if battle is None:
                raise CellValueError(f"no battle number {number} on the Battles sheet",
                                     column="Battle", value=number,
                                     expected="a battle of tbl_Battles",
                                     **where_of(ledger.turns, index))  # fmt: skip
            lost, replaced, donated = (cell_count(row[h]) for h, _ in _NET)
            outcome = ledger.outcome(battle, ledger.sides[formation])
            fought.append(recovery.FormationBattle(number, battle.date, lost, outcome,
                                                   replaced, donated))  # fmt: skip
        start = ledger.starts[formation]
        try:
            outs = recovery.formation_battles(start, fought, ruleset=ledger.ruleset,
                                              rounding=ledger.rounding)  # fmt: skip
        except InvalidArgumentError as exc:
            column = {"guns replaced": "Guns replaced", "figures donated": "Figures donated"}
            where = where_of(ledger.turns, rows[_first_refused(ledger, start, fought)][0])
            raise exc.prefixed(formation).located(
                column=column.get(str(exc.column), "Stands lost"), **where
            ) from None
        folded[formation] = [(i, r, b, o) for (i, r), b, o in zip(rows, fought, outs,
                                                                  strict=True)]  # fmt: skip
    return folded


def _first_refused(ledger: CampaignLedger, start: int,
                   fought: list[recovery.FormationBattle]) -> int:  # fmt: skip
    """The battle (its place in ``fought``) that first costs more than the formation had."""
    order = sorted(range(len(fought)), key=lambda i: (fought[i].date, fought[i].number))
    for k in range(1, len(order) + 1):
        try:
            recovery.formation_battles(
                start,
                [fought[i] for i in order[:k]],
                ruleset=ledger.ruleset,
                rounding=ledger.rounding,
            )
        except InvalidArgumentError:
            return order[k - 1]
    return order[-1]


def prints_replacements(rs: Ruleset) -> bool:
    """Whether ``rs`` prints artillery replacements (Glory of the Empire's after a day
    of battle): a campaign's Guns replaced and Figures donated are for it alone."""
    return "artillery_replacements" in rs.tables


def _check_replacements(ledger: CampaignLedger, folded: dict[str, list[_Part]]) -> None:
    """Guns replaced only on batteries, figures donated only by the troops the text
    names, and in each battle each side's donors gave one figure a gun replaced; a rule
    set that prints no artillery replacements has none."""
    rs = registry.get(ledger.ruleset)
    printed = prints_replacements(rs)
    per = int(rs.constant("artillery_replacements", "figures_per_gun_lost")) if printed else 0
    totals: dict[tuple[int, str], list[int]] = {}
    first: dict[tuple[int, str], Any] = {}
    for formation, parts in folded.items():
        kind = ledger.types.get(formation, "")
        for index, _, battle, _ in parts:
            for header, count, fits, expected in (
                ("Guns replaced", battle.replaced, gote.battery, "a battery"),
                ("Figures donated", battle.donated, gote.artillery_donor,
                 "troops the text names as donors"),
            ):  # fmt: skip
                if not count:
                    continue
                if not printed:
                    raise CellValueError(f"{rs.name} prints no artillery replacements",
                                         column=header, value=count, expected="blank",
                                         **where_of(ledger.turns, index))  # fmt: skip
                if kind and not fits(kind):
                    raise CellValueError(f"{formation} ({kind}) is not {expected}",
                                         column=header, value=count, expected="blank",
                                         **where_of(ledger.turns, index))  # fmt: skip
            if battle.replaced or battle.donated:
                key = (battle.number, ledger.sides[formation])
                total = totals.setdefault(key, [0, 0])
                total[0] += battle.replaced
                total[1] += battle.donated
                first.setdefault(key, index)
    for (number, side), (replaced, donated) in totals.items():
        if donated != replaced * per:
            raise CellValueError(
                f"after {ledger.battles[number].name}, {side} donors gave {donated} figures "
                f"for {replaced} guns replaced",
                column="Figures donated",
                value=donated,
                expected=f"{replaced * per} (one figure a gun, run replace-artillery)",
                **where_of(ledger.turns, first[(number, side)]),
            )


def _checked_fold(ledger: CampaignLedger) -> dict[str, list[_Part]]:
    """``_fold``, the replacements checked: what the rules refuse of the losses, refused."""
    folded = _fold(ledger)
    _check_replacements(ledger, folded)
    return folded


def compute_losses(ledger: CampaignLedger) -> pd.DataFrame:
    """The computed columns of every row of tbl_Losses, by the rules (indexed like it)."""
    outcomes = [c.header for c in LOSSES.having(Role.OUTCOME)]
    folded = _checked_fold(ledger)
    rows = {
        index: [battle.outcome, out.strength_before,
                *(out.recovery if out.recovery is not None else (None,) * 4)]
        for parts in folded.values()
        for index, _, battle, out in parts
    }  # fmt: skip
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=outcomes)
    return frame.reindex(ledger.turns.index)


def standings(ledger: CampaignLedger, on: dt.date) -> list[dict[str, Any]]:
    """Each formation on date ``on`` (the ``--json`` formations)."""
    folded = _fold(ledger)
    known = recovery.recovery_missing(ledger.ruleset) is None
    found = []
    for formation, start in ledger.starts.items():
        parts = folded.get(formation, [])
        fought = [b for _, _, b, _ in parts]
        strength = recovery.strength_after(start, fought, [o for _, _, _, o in parts], on)
        past = [(b, o) for _, _, b, o in parts if b.date <= on]
        returning: dict[dt.date, int] = {}
        for _, out in past:
            if out.recovery is None or out.returns is None:
                continue
            shares = (out.recovery.next_day, out.recovery.after_week, out.recovery.after_month)
            for when, stands in zip(out.returns, shares, strict=True):
                if when > on and stands:
                    returning[when] = returning.get(when, 0) + stands
        gone = [o.recovery.gone_for_good for _, o in past if o.recovery is not None]
        found.append({
            "side": ledger.sides[formation], "formation": formation, "start": start,
            "strength": strength, "lost": sum(b.lost for b, _ in past),
            "returning": [{"date": d.isoformat(), "stands": n}
                          for d, n in sorted(returning.items())],
            "gone": sum(gone) if known else None,
            "type": ledger.types.get(formation) or None,
            "replaced": sum(b.replaced for b, _ in past),
            "donated": sum(b.donated for b, _ in past),
            "brackets_from": (gote.BracketsFrom.figures(start, strength, ledger.brackets_from)
                              if ledger.ruleset == gote.RULESET_ID else None),
        })  # fmt: skip
    return found


# -- operations -------------------------------------------------------------------------------


def loss_row(battle: int, side: str, formation: str) -> dict[str, Any]:
    """A formation's row of a new battle: nothing lost."""
    return {"Battle": battle, "Side": side, "Formation": formation, "Stands lost": 0}


def loss_sources(ruleset: str) -> list[LedgerKind]:
    """The kinds of battle ledger a campaign of ``ruleset`` takes its losses from
    (``LedgerKind.losses``): every kind is loaded first, since a command loads only the
    kind of the workbook it was given."""
    load_operations()
    return sorted((k for k in KINDS.values() if k.losses and ruleset in k.rulesets),
                  key=lambda k: k.name)  # fmt: skip


def _losses_from(upload: Upload, ledger: CampaignLedger, here: CampaignLink) -> dict[str, int]:
    """Stands (figures) lost per formation in a battle ledger of ours of the campaign's
    rule set (a DEP ledger's stands lost per division, a casualty-brackets ledger's
    figures lost per unit), every name matched to the campaign's formations first: a
    ledger made from a campaign (``new KIND --campaign``) by the link it records, which
    must be to this campaign (``here``) and the battle's date. The ledger is its content
    (``Upload``): read in memory, never opened by a path."""
    from battle_ledger.sheets.engine.headless import HeadlessBook

    book = HeadlessBook(upload.name, writable=False, history=False, opened=(upload.data, None))
    meta = book.meta()
    wanted = loss_sources(ledger.ruleset)
    kind = next((k for k in wanted if k.name == meta.kind), None)
    if kind is None or meta.ruleset != ledger.ruleset:
        raise WrongKindError(
            f"{upload.name} is a {meta.kind} for {meta.ruleset}: this campaign takes its "
            f"losses from {' or '.join(k.name for k in wanted)} ledgers for {ledger.ruleset}",
            column="--from",
            value=upload.name,
            expected=" or ".join(f"a {k.name} (battle-ledger new {k.name})" for k in wanted),
        )
    kind.check_version(book)
    link = CampaignLink.of(meta, file=upload.name)
    if link is not None:
        _check_link(upload.name, link, here)
    name = kind.thing_key.header
    turns = read_tables(book, kind).periods
    lost = sum((turns[c].fillna(0).astype(int) for c in kind.losses),
               pd.Series(0, index=turns.index)).groupby(turns[name].astype(str)).sum()  # fmt: skip
    if link is not None:
        made_with = {n.casefold(): n for n in link.formations}
        strays = [str(n) for n in lost.index if str(n).casefold() not in made_with]
        if strays:
            raise InputFileError(
                f"{upload.name} names formations it was not made with from the campaign: "
                + ", ".join(strays),
                column="--from", value=upload.name,
                expected="the formations it was made with: " + ", ".join(link.formations),
            )  # fmt: skip
        lost.index = [made_with[str(n).casefold()] for n in lost.index]
    unknown = [str(n) for n in lost.index if str(n) not in ledger.starts]
    if unknown:
        raise InputFileError(
            f"{upload.name} names {name.casefold()}s the campaign does not have: "
            + ", ".join(unknown),
            column="--from", value=upload.name,
            expected="formations of the campaign: " + ", ".join(ledger.starts),
        )  # fmt: skip
    return {str(n): int(v) for n, v in lost.items() if int(v)}


def _check_link(file: str, link: CampaignLink, here: CampaignLink) -> None:
    """A linked battle ledger goes back into the campaign it was made from, as the battle
    of the date it was made for."""
    if (link.campaign, link.created) != (here.campaign, here.created):
        raise WrongKindError(
            f"{file} was made from the campaign {link.named()}, not from this one, "
            f"{here.named()}",
            column="--from", value=file,
            expected=f"a battle ledger made from {here.campaign or 'this campaign'!r} "
            "(battle-ledger new KIND --campaign THIS.xlsx --on DATE)",
        )  # fmt: skip
    if link.on != here.on:
        raise InputFileError(
            f"{file} was made from the campaign on {link.on.isoformat()}, for a battle "
            f"that day, not on {here.on.isoformat()}",
            column="--date", value=here.on.isoformat(),
            expected=f"{link.on.isoformat()} (the date it was made on)",
        )  # fmt: skip


def date_option(text: str, option: str) -> dt.date:
    """A date given on the command line as year-month-day."""
    try:
        return dt.date.fromisoformat(str(text).strip())
    except ValueError:
        raise OptionValueError(
            f"{option} is not a date",
            column=option,
            value=text,
            expected="year-month-day, e.g. 1805-12-02",
        ) from None


@operation(
    KIND.name,
    "add-battle",
    options=(
        Option("name", str, required=True, help="the battle's name, unique in the campaign"),
        Option("date", str, required=True, help="year-month-day, e.g. 1805-12-02", date=True),
        Option("winner", str, required=True, help="the winning side, or draw", side=True,
               also=(DRAW,)),
        Option("ledgers", Upload, word="from", several=True, accept=(".xlsx", ".xlsm"),
               help="battle ledgers of ours to take the losses from (several: separated "
               "by ;)"),
    ),
)  # fmt: skip
def add_battle(book: Book, *, name: str, date: str, winner: str, **given: Any) -> OperationResult:
    """Add a battle: its name, date and winner, a row for every formation, and with --from
    the stands (figures) each lost, read out of the battle's ledgers of ours (DEP ledgers
    for Eagles to Glory, casualty brackets for Glory of the Empire; every division or unit
    name must be a formation of the campaign: those that are not are listed, and nothing
    is written).

    Example: battle-ledger run add-battle ledger.xlsx --name Ligny --date 1815-06-16 --winner French
    """
    ledger = read_campaign(book)
    day = date_option(date, "--date")
    title = " ".join(name.split())
    if not title or any(b.name.casefold() == title.casefold() for b in ledger.battles.values()):
        raise OptionValueError("the campaign has a battle of that name already",
                               column="--name", value=name,
                               expected="a new battle name")  # fmt: skip
    first = ledger.first_date
    if first is not None and day < first:
        raise OptionValueError("the battle is before the campaign's first date",
                               column="--date", value=date,
                               expected=f"{first.isoformat()} or later")  # fmt: skip
    if not ledger.starts:
        raise LedgerStateError(
            "the campaign has no formations yet, so no battle can be added",
            table=FORMATIONS.name, column=FORMATIONS.columns[0].header,
            expected="formations typed into the Formations sheet, or a campaign made "
            "with battle-ledger new campaign --oob FILE",
        )  # fmt: skip
    sides = sorted({s for s in ledger.sides.values() if s})
    side = DRAW if winner.strip().casefold() == DRAW else find_name(
        sides, winner, what="side", option="--winner")  # fmt: skip
    lost: dict[str, int] = {}
    here = campaign_link(book, day, ledger.starts)
    for upload in given.get("ledgers") or ():
        for formation, stands in _losses_from(upload, ledger, here).items():
            lost[formation] = lost.get(formation, 0) + stands
    number = max(ledger.battles, default=0) + 1
    typed = ledger.tables.typed_texts("Side").get(side, side)  # as its rows' Side: compared
    battle = {"Battle": number, "Name": title, "Date": day.isoformat(), "Winner": typed}
    rows = period_rows(loss_row, number, ledger.starts, ledger.sides)
    rows["Stands lost"] = [lost.get(f, 0) for f in ledger.starts]
    rows = pd.concat([_backfill(ledger), rows], ignore_index=True)
    trial = replace_battles(ledger, CampaignBattle(number, title, day, side))
    _checked_fold(trial.with_turns(pd.concat(  # a refusal writes nothing
        [ledger.turns, rows.set_axis(pd.RangeIndex(-len(rows), 0))])))  # fmt: skip
    battle_row = _with_battle_formulas(ledger, battle)
    book.append_records(BATTLES.name, [battle_row], list(battle_row))
    book.append_rows(LOSSES.name, rows_with_formulas(KIND, ledger.turns, rows))
    counted = f"{sum(lost.values())} stands"
    if ledger.ruleset == gote.RULESET_ID:  # a battery loses guns (casualty brackets count them)
        guns = sum(n for f, n in lost.items() if gote.battery(ledger.types.get(f, "")))
        counted = f"{sum(lost.values()) - guns} figures" + (f", {guns} guns" if guns else "")
    detail = (f"battle {number}, {title} ({day.isoformat()}), won by {side}: "
              f"{counted} lost")  # fmt: skip
    book.log("add-battle", detail, turn=number)
    book.show_periods(TIMELINE, len(_timeline_dates(trial)))
    return OperationResult(detail, {"battle": number, "name": title, "date": day.isoformat(),
                                    "winner": side, "lost": lost})  # fmt: skip


def _timeline_dates(ledger: CampaignLedger) -> set[dt.date]:
    """The dates the Timeline sheet shows: each battle's day and the days its stands come
    back (none where the rules give no recovery)."""
    later = () if recovery.recovery_missing(ledger.ruleset) else recovery.recovery_days(
        ledger.ruleset)  # fmt: skip
    return {b.date + dt.timedelta(days=d) for b in ledger.battles.values() for d in (0, *later)}


def _backfill(ledger: CampaignLedger) -> pd.DataFrame:
    """Rows (nothing lost) for the battles fought before a formation joined the campaign
    (typed into Formations later): every formation has a row in every battle."""
    have = set(zip(ledger.turns["Battle"].astype(int), ledger.turns["Formation"].astype(str),
                   strict=True))  # fmt: skip
    missing = [loss_row(n, ledger.sides[f], f) for n in sorted(ledger.battles)
               for f in ledger.starts if (n, f) not in have]  # fmt: skip
    return pd.DataFrame(missing, columns=list(loss_row(0, "", "")))


def replace_battles(ledger: CampaignLedger, battle: CampaignBattle) -> CampaignLedger:
    """The same ledger with ``battle`` added (a trial before anything is written)."""
    from dataclasses import replace as _replace

    return _replace(ledger, battles={**ledger.battles, battle.number: battle})


def _with_battle_formulas(ledger: CampaignLedger, battle: dict[str, Any]) -> dict[str, Any]:
    """The new Battles row with its formulas (on the sheet row it will take: after the
    battles read, each a row with a number; a row without one is blank, left out)."""
    from battle_ledger.sheets.engine.book import Formula

    r = _TOP + 1 + len(ledger.battles)
    return dict(battle) | {h: Formula(f) for h, f in battle_formulas(r).items()}


def _read_for_losses(book: Book, given: dict[str, Any]) -> CampaignLedger:
    """What ``losses`` of one formation reads: its rows of tbl_Losses (its battles decide
    what it may lose; the others' are not read whole). Whole for a CSV of many, and where
    the rule set prints artillery replacements: each side's guns replaced are then weighed
    against its donors' figures over every formation's rows."""
    formation = given.get("formation")
    try:
        printed = prints_replacements(registry.get(book.meta().ruleset))
    except BattleLedgerError:  # not a campaign, or a damaged one: the whole read refuses it
        printed = True
    if formation is None or given.get("from_csv") is not None or printed:
        return read_campaign(book)
    return read_touching(read_campaign, book, KIND, str(formation))


@operation(
    KIND.name,
    "losses",
    options=input_options(
        KIND,
        Option("battle", str, help="the battle, by name or number"),
        Option("formation", str, help="the formation, as on Formations", thing=True),
        more=(Option("from_csv", Upload, accept=(".csv",), help="a CSV file (- for standard "
                     "input) of many: columns battle, formation, lost"),),
    ),
)  # fmt: skip
def losses(book: Book, **given: Any) -> OperationResult:
    """Type the stands a formation lost in a battle, or many at once from a CSV (every
    row checked before anything is written); refused beyond what a formation had that
    day, every later battle checked again.

    Example: battle-ledger run losses ledger.xlsx --battle 1 --formation "5e Division" --lost 3
    """
    ledger = _read_for_losses(book, given)
    csv_file: Upload | None = given.pop("from_csv", None)
    if csv_file is not None:
        if given:
            raise OptionValueError("--from-csv goes alone", column="--from-csv",
                                   expected="--from-csv FILE, or --battle, --formation "
                                   "and --lost")  # fmt: skip
        entries = [_entry(ledger, book, row, where) for row, where in _csv_rows(csv_file)]
    else:
        missing = [f"--{k}" for k in ("battle", "formation", "lost") if given.get(k) is None]
        if missing:
            raise OptionValueError("losses needs " + ", ".join(missing),
                                   column=missing[0],
                                   expected="--battle, --formation and --lost, or "
                                   "--from-csv FILE")  # fmt: skip
        entries = [_entry(ledger, book, given, {})]
    trial = ledger.turns.copy()
    trial["Stands lost"] = trial["Stands lost"].astype(object)
    changed: dict[Any, int] = {}
    for number, name, lost in entries:
        rows = trial[(trial["Battle"] == number) & (trial["Formation"] == name)]
        if rows.empty:
            raise OptionValueError(f"{name} has no row in battle {number}",
                                   column="--formation", value=name,
                                   expected="a formation that was in the campaign "
                                   "then (add-battle gives each one its row)")  # fmt: skip
        trial.at[rows.index[0], "Stands lost"] = lost
        changed[rows.index[0]] = lost
    _checked_fold(ledger.with_turns(trial))  # refuses, located, before anything is written
    book.write_cells(LOSSES.name, pd.DataFrame({"Stands lost": changed}))
    detail = "; ".join(f"{ledger.battles[n].name}: {f} lost {lost}" for n, f, lost in entries)
    book.log("losses", detail, turn=max(n for n, _, _ in entries))
    one = entries[0]
    return OperationResult(detail, {"battle": one[0], "formation": one[1], "lost": one[2],
                                    "entries": [{"battle": n, "formation": f, "lost": lost}
                                                for n, f, lost in entries]})  # fmt: skip


@operation(
    KIND.name,
    "replace-artillery",
    options=(
        Option("battery", str, required=True, help="the battery that lost guns, as on Formations"),
        Option("donor", str, required=True, help="the unit giving up figures for good: one "
               "of the troop types the text names"),
        Option("figures", int, required=True, low=1, help="figures donated (one a gun)"),
        Option("battle", str, help="the day of battle after which (name or number; default: "
               "the latest)"),
    ),
)  # fmt: skip
def replace_artillery(book: Book, *, battery: str, donor: str, figures: int,
                      battle: str | None = None) -> OperationResult:  # fmt: skip
    """After a day of battle, give a battery back guns it lost with figures of a unit the
    text names as a donor (Glory of the Empire: one figure a gun; the donor loses them
    for good). Refused for a donor type the text does not name, more figures than the
    guns lost there or than the donor has, or a donor of the other side.

    Example: battle-ledger run replace-artillery ledger.xlsx --battle 2 --battery "Batterie de cote" --donor "4e Equipage de Flottille" --figures 1
    """  # noqa: E501
    ledger = read_campaign(book)
    rs = registry.get(ledger.ruleset)
    if not prints_replacements(rs):
        raise LedgerStateError(f"{rs.name} prints no artillery replacements",
                               column="replace-artillery",
                               expected="a Glory of the Empire campaign")  # fmt: skip
    if not ledger.battles:
        raise LedgerStateError("the campaign has no battle yet", column="--battle",
                               expected="add-battle first")  # fmt: skip
    number = (_battle_number(ledger, battle) if battle is not None else
              max(ledger.battles, key=lambda n: (ledger.battles[n].date, n)))  # fmt: skip
    gun_side, donor_side = (
        find_thing(book, KIND, ledger.starts, n, option=o)
        for n, o in ((battery, "--battery"), (donor, "--donor"))
    )
    for option, name in (("--battery", gun_side), ("--donor", donor_side)):
        if not ledger.types.get(name):
            raise OptionValueError(f"{name} has no type on Formations", column=option,
                                   value=name, expected="its unit type typed in the Type "
                                   "column")  # fmt: skip
    try:
        guns = gote.artillery_replacement(ledger.types[gun_side], ledger.types[donor_side],
                                          figures)  # fmt: skip
    except InvalidArgumentError as exc:
        option, name = {"battery": ("--battery", gun_side), "donor": ("--donor", donor_side)}.get(
            str(exc.column), ("--figures", "")
        )
        raise OptionValueError(f"{name}: {exc.message}" if name else exc.message,
                               column=option, value=exc.value,
                               expected=exc.expected) from None  # fmt: skip
    if ledger.sides[gun_side] != ledger.sides[donor_side]:
        raise OptionValueError(f"{donor_side} is not of {ledger.sides[gun_side]}",
                               column="--donor", value=donor,
                               expected=f"a donor of {ledger.sides[gun_side]}")  # fmt: skip
    trial = ledger.turns.copy()
    changed: dict[str, dict[Any, int]] = {"Guns replaced": {}, "Figures donated": {}}
    for name, header, count in ((gun_side, "Guns replaced", guns),
                                (donor_side, "Figures donated", figures)):  # fmt: skip
        rows = trial[(trial["Battle"] == number) & (trial["Formation"] == name)]
        if rows.empty:
            raise OptionValueError(
                f"{name} has no row in battle {number}", value=name,
                column="--battery" if name == gun_side else "--donor",
                expected="a formation of that battle",
            )  # fmt: skip
        index = rows.index[0]
        had = trial.at[index, header]
        trial[header] = trial[header].astype(object)
        changed[header][index] = cell_count(had) + count
        trial.at[index, header] = changed[header][index]
    _checked_fold(ledger.with_turns(trial))  # refuses, located, before anything is written
    for header, cells in changed.items():
        book.write_cells(LOSSES.name, pd.DataFrame({header: cells}))
    title = ledger.battles[number].name
    detail = (f"after {title}: {figures} figures of {donor_side} replace {guns} guns of "
              f"{gun_side} (for good)")  # fmt: skip
    book.log("replace-artillery", detail, turn=number)
    return OperationResult(detail, {"battle": number, "battery": gun_side, "donor": donor_side,
                                    "figures": figures, "guns": guns})  # fmt: skip


def _battle_number(ledger: CampaignLedger, battle: str) -> int:
    """A battle given by number or name (--battle)."""
    text = str(battle).strip()
    if text.isdigit() and int(text) in ledger.battles:
        return int(text)
    by_name = {b.name: n for n, b in ledger.battles.items()}
    return by_name[find_name(by_name, text, what="battle", option="--battle")]


def _csv_rows(source: Upload) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The rows of a CSV of losses (headers case-blind), each with where it stands."""
    import csv
    import io

    name = source.name
    text = source.text("--from-csv")
    reader = csv.DictReader(io.StringIO(text))
    heads = {(h or "").strip().casefold(): h for h in reader.fieldnames or []}
    wanted = {"battle": ("battle",), "formation": ("formation", "division", "unit"),
              "lost": ("lost", "stands lost", "stands")}  # fmt: skip
    found = {k: next((heads[a] for a in names if a in heads), None) for k, names in wanted.items()}
    if None in found.values():
        raise InputFileError("the CSV needs the columns battle, formation and lost",
                             file=name, value=", ".join(reader.fieldnames or []),
                             expected="battle, formation, lost")  # fmt: skip
    rows = [({k: row[h] for k, h in found.items() if h is not None}, {"file": name, "row": i})
            for i, row in enumerate(reader, start=2)]  # fmt: skip
    if not rows:
        raise InputFileError("the CSV has no rows", file=name, expected="one row a loss")
    return rows


def _entry(ledger: CampaignLedger, book: Book, row: dict[str, Any],
           where: dict[str, Any]) -> tuple[int, str, int]:  # fmt: skip
    """(battle number, formation, stands lost) of one loss, every part checked."""
    from battle_ledger.sheets.engine.values import whole

    try:
        number = _battle_number(ledger, str(row["battle"]))
        name = find_thing(book, KIND, ledger.starts, str(row["formation"]))
        lost = whole(row["lost"], "lost", low=0, blank=None)
    except BattleLedgerError as exc:
        raise exc.located(**where) if where else exc from None
    return number, name, lost


@report(KIND.name)
def where_we_stand(book: Book, on: str | None = None) -> OperationResult:
    """Every formation's strength on a date (the one typed on the Campaign sheet, or the
    day after the last battle), what is still to come back, and the battles."""
    ledger = read_campaign(book)
    day = _report_date(book, ledger, on)
    # no battle and no date: the strength at the start, on no date (not today's)
    units = standings(ledger, day or dt.date.min)
    title = battle_name(book) or "Campaign"
    missing = recovery.recovery_missing(ledger.ruleset)
    lines = [f"{title}: strength " + (f"on {day.isoformat()}" if day else
                                      "at the start (no battle yet)")]  # fmt: skip
    if missing:
        lines.append(f"Nothing is counted back: {missing}")
    lines += [_standing_line(u) for u in units]
    battles = [
        {"name": b.name, "date": b.date.isoformat(), "winner": b.winner}
        for b in sorted(ledger.battles.values(), key=lambda b: (b.date, b.number))
    ]
    details = {"kind": KIND.name, "ruleset": book.meta().ruleset,
               "on": day.isoformat() if day else None,
               "formations": units, "battles": battles, "recovery_missing": missing}  # fmt: skip
    return OperationResult("\n".join(lines), details)


def _standing_line(unit: dict[str, Any]) -> str:
    """One formation in the text report: strength, what is coming back, and in Glory of
    the Empire (figures; a battery's guns) what the next day's brackets count from."""
    gote_unit = unit["brackets_from"] is not None
    word = ("guns" if gote.battery(unit["type"] or "") else "figures") if gote_unit else "stands"
    line = f"{unit['formation']} ({unit['side']}): {unit['strength']} of {unit['start']} {word}"
    if unit["returning"]:
        line += "; back " + ", ".join(f"{r['stands']} on {r['date']}" for r in unit["returning"])
    if unit["replaced"]:
        line += f"; {unit['replaced']} replaced"
    if unit["donated"]:
        line += f"; {unit['donated']} donated"
    if gote_unit and word == "figures":
        line += f"; brackets from {unit['brackets_from']}"
    return line


def _report_date(book: Book, ledger: CampaignLedger, on: str | None) -> dt.date | None:
    """The date asked for, typed on the Campaign sheet, or the day after the last battle;
    None for a campaign with no battle and no first date."""
    if on:
        return date_option(on, "--on")
    typed = _named_date(book, "StrengthOn")
    if typed is not None:
        return typed
    last = max((b.date for b in ledger.battles.values()), default=None)
    return (last + dt.timedelta(days=1)) if last else ledger.first_date


@checker(KIND.name)
def check_campaign(book: Book) -> list[BattleLedgerError | str]:
    """Problems: unknown formations, battles or sides, dates not written year-month-day,
    gaps in the battles, more stands lost than a formation had that day."""
    return problems_computing(KIND, book)
