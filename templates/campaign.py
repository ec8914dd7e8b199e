"""The campaign ledger, laid out from its declaration.

``battle-ledger new campaign --ruleset etg --oob OOB --name "The Hundred Days" -o campaign.xlsx``

Sheets: ``Campaign`` (name, first date, the date to show strengths on, the
settings), ``Formations`` (``tbl_Formations``), ``Battles`` (``tbl_Battles``),
``Losses`` (``tbl_Losses``), ``Timeline`` (formations down, the campaign's dates
across: every battle's day and the days its stands come back, in date order, and
each side's strength with a chart), ``Rules``, ``Log``; the recovery percentages
sit on the hidden ``_lists`` sheet and the chart's data on ``_chart``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openpyxl import Workbook
from openpyxl.utils import get_column_letter, quote_sheetname

from battle_ledger.rulesets import glory_of_the_empire as gote
from battle_ledger.rulesets import recovery, registry
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.rulesets.oob import (
    OrderOfBattle,
    Unit,
    division_key,
    grade_vocabulary,
    strength_fields,
    type_vocabulary,
)
from battle_ledger.sheets.engine.book import Book, Formula
from battle_ledger.sheets.engine.printout import fit_grid
from battle_ledger.sheets.errors import (
    CommandError,
    OptionValueError,
    OrderOfBattleError,
    SetupError,
)
from battle_ledger.sheets.formulas import (
    ISO_DATE_HELPERS,
    constant_name,
    day_number,
    iso_date,
    letters,
    sum_equal,
)
from battle_ledger.sheets.house_rules import using_book_rules
from battle_ledger.sheets.kinds.campaign import (
    BATTLES,
    EVENT_DAYS,
    FORMATIONS,
    KIND,
    LOSSES,
    OOB_SHEET,
    OOB_SINCE,
    OOB_TABLE,
    RECOVERY,
    TIMELINE,
    CampaignLink,
    battle_formulas,
    campaign_link,
    date_option,
    formation_formulas,
    loss_formulas,
    oob_headers,
    oob_rows,
    prints_replacements,
    read_campaign,
    standings,
    stored_oob,
    strength_formula,
)
from battle_ledger.sheets.kinds.casualty_brackets import KIND as CASUALTY_BRACKETS
from battle_ledger.sheets.ledger import find_name
from battle_ledger.sheets.operations import run_operation
from battle_ledger.templates import register_template
from battle_ledger.templates._build import (
    add_table,
    define_name,
    lookup_block,
    new_workbook,
    print_setup,
    protect,
    set_widths,
    title_row,
    write,
)
from battle_ledger.templates._ledger import TABLE_TOP, front_sheet, grid_chart, ledger_table
from battle_ledger.templates.rules_sheet import RulesSheet, add_rules_sheet
from battle_ledger.templates.style import FMT_INT, FMT_TEXT, style_formula, style_header

if TYPE_CHECKING:
    import random

    from battle_ledger.sheets.engine.headless import HeadlessBook

__all__ = [
    "DIVISION",
    "BattleFromCampaign",
    "battle_from_campaign",
    "build_campaign",
    "formation_units",
    "formations_of",
]

_DAY_ROW, _HEAD_ROW = 4, 8  # the day numbers (hidden, with the date helpers), the dates


#: The formation level's type in Eagles to Glory (its formations are divisions).
DIVISION = "Division"


def _strength_of(unit: Unit, ruleset: Ruleset) -> str:
    """The strength a campaign counts of ``unit``: Eagles to Glory's stands; Glory of
    the Empire's figures, a battery's guns."""
    if ruleset.id == gote.RULESET_ID:
        return "figures" if unit.strength("figures") else "guns"
    return "stands"


def _count(units: Sequence[Unit], ruleset: Ruleset) -> int:
    """What a campaign counts of a formation of ``units`` (``_strength_of`` each)."""
    return sum(u.strength(_strength_of(u, ruleset)) or 0 for u in units)


def formation_units(oob: OrderOfBattle, ruleset: Ruleset) -> dict[str, list[Unit]]:
    """The units of each formation, the level that loses and recovers stands, by the
    formation's name in the campaign: in Eagles to Glory the divisions (named as the DEP
    ledger names them), in Glory of the Empire the units themselves. A formation with
    nothing to count is none."""
    if ruleset.id == gote.RULESET_ID:
        found = {u.unit: [u] for u in oob.units}
    else:
        from battle_ledger.templates.dep_ledger import divisions_of

        found = {spec.division: [u for u in oob.units if division_key(u) == key]
                 for key, spec in zip(oob.divisions(), divisions_of(oob, ruleset),
                                      strict=True)}  # fmt: skip
    return {name: units for name, units in found.items() if _count(units, ruleset)}


def formations_of(oob: OrderOfBattle, ruleset: Ruleset) -> list[tuple[str, str, int, str]]:
    """(side, formation, stands, type) of the level that loses and recovers stands: in
    Eagles to Glory the divisions (their units' stands summed, as the DEP ledger names
    them); in Glory of the Empire the units, their figures (a battery's guns)."""
    gote_units = ruleset.id == gote.RULESET_ID
    return [(units[0].side, name, _count(units, ruleset),
             ruleset.term("unit_types", units[0].type).name if gote_units else DIVISION)
            for name, units in formation_units(oob, ruleset).items()]  # fmt: skip


#: The kinds of battle ledger whose units start from what Glory of the Empire's casualty
#: brackets count from (the campaign's Brackets from), not from the figures on the table.
#: Batteries keep their guns (the campaign's strength): where the brackets come to count
#: guns lost, this is the one place that says what a battery starts a battle with.
_COUNTS_BRACKETS = frozenset({CASUALTY_BRACKETS.name})


@dataclass(frozen=True)
class BattleFromCampaign:
    """The order of battle of the next battle, the campaign's formations as they stand on
    its date; the link the new ledger records; a line for each formation that is not as
    it started (what was taken off which unit, who is left out)."""

    oob: OrderOfBattle
    link: CampaignLink
    notes: tuple[str, ...]


def battle_from_campaign(
    campaign: Book,
    oob: OrderOfBattle | None,
    on: str,
    *,
    kind: str,
    formations: Sequence[str] | None = None,
) -> BattleFromCampaign:
    """The order of battle for a ``kind`` ledger of the battle on ``on``: the order of
    battle the campaign keeps (``oob``, given too, must be the same; a campaign made before
    campaigns kept theirs, or made without one, needs ``oob``) with every formation of the
    campaign
    (or those named in ``formations``) at its strength on that date: stands lost for
    good gone, stands back from recovery counted, guns replaced and figures donated
    applied. In Eagles to Glory a division's stands come off its units last first (the
    order of battle's order); a unit left with none is left out, and so is a formation
    with no stands that day (refused where ``formations`` names it)."""
    with using_book_rules(campaign):  # its own recovery (house rules) counts what is back
        ledger = read_campaign(campaign)
        ruleset = registry.get(ledger.ruleset)
        day = date_option(on, "--on")
        standing = {s["formation"]: s for s in standings(ledger, day)}
        kept = stored_oob(campaign, ruleset)
    if oob is None:
        oob = _kept_or_refused(campaign, kept)
    if oob.ruleset_id != ruleset.id:
        raise OrderOfBattleError(
            f"the order of battle is for {oob.ruleset_id}, the campaign for {ruleset.id}",
            file=oob.source or None, column="--oob", value=oob.ruleset_id,
            expected=f"the campaign's order of battle, for {ruleset.id}",
        )  # fmt: skip
    if kept is not None and oob is not kept:
        _same_or_refused(oob, kept, campaign.name, ruleset)
    first = ledger.first_date
    if first is not None and day < first:
        raise OptionValueError("--on is before the campaign's first date", column="--on",
                               value=on, expected=f"{first.isoformat()} or later")  # fmt: skip
    named = formations is not None
    chosen = ([find_name(ledger.starts, f, what="formation", option="--formations")
               for f in formations] if formations is not None else list(ledger.starts))  # fmt: skip
    if named and not chosen:
        raise CommandError("--formations names no formation", column="--formations",
                           value="", expected="names separated by commas")  # fmt: skip
    units_by = formation_units(oob, ruleset)
    date = day.isoformat()
    units: list[Unit] = []
    made_with: list[str] = []
    notes: list[str] = []
    for name in dict.fromkeys(chosen):
        where = {"file": oob.source or None, "column": "--oob"}
        if name not in units_by:
            raise OrderOfBattleError(
                f"{name} of the campaign is not in the order of battle", value=name,
                expected="the order of battle the campaign was made from", **where,
            )  # fmt: skip
        own = units_by[name]
        start = _count(own, ruleset)
        if start != ledger.starts[name]:
            raise OrderOfBattleError(
                f"{name} starts the campaign with {ledger.starts[name]}, the order of "
                f"battle gives it {start}", value=start,
                expected="the order of battle the campaign was made from", **where,
            )  # fmt: skip
        now = standing[name]
        if now["strength"] <= 0:
            if named:
                raise OptionValueError(
                    f"{name} has nothing left on {date} ({now['start']} at the start, "
                    f"{now['lost']} lost)", column="--formations", value=name,
                    expected=f"a formation with stands on {date}",
                )  # fmt: skip
            notes.append(f"{name}: left out, nothing left on {date}")
            continue
        made_with.append(name)
        left = _as_it_stands(own, name, now, ruleset, brackets=kind in _COUNTS_BRACKETS)
        units += left
        if now["strength"] != start or len(left) != len(own):
            notes.append(_note(name, start, now, own, left, ruleset, date))
    if not units:
        raise OptionValueError(f"no formation of the campaign has stands on {date}",
                               column="--on", value=on,
                               expected="a date some formation has stands on")  # fmt: skip
    made = OrderOfBattle(ruleset.id, tuple(units), source=f"{campaign.name} on {date}",
                         date=date)  # fmt: skip
    return BattleFromCampaign(made, campaign_link(campaign, day, made_with), tuple(notes))


def _kept_or_refused(campaign: Book, kept: OrderOfBattle | None) -> OrderOfBattle:
    """The order of battle the campaign keeps; refused, saying why, where it keeps none."""
    if kept is not None:
        return kept
    version = campaign.meta().template_version
    why = (
        f"was made before campaigns kept their order of battle (template version {version})"
        if version < OOB_SINCE
        else "was made without an order of battle"
    )
    raise CommandError(f"the campaign {why}: --campaign needs --oob", column="--oob",
                       file=campaign.name, expected="--oob FILE: the order of battle the "
                       "campaign was made from")  # fmt: skip


#: What two orders of battle are compared on, unit by unit, in this order.
_COMPARED = ("side", "corps", "division", "brigade", "unit", "type", "grade", "commander")


def _term_name(ruleset: Ruleset, unit: Unit, term: str | None) -> str | None:
    """A unit's type or grade (``term``, an id) as the rules name it."""
    if term is None:
        return None
    kind = ruleset.term(type_vocabulary(ruleset), unit.type)
    for vocabulary in (type_vocabulary(ruleset), grade_vocabulary(ruleset, kind)):
        if vocabulary is not None and term in {t.id for t in ruleset.vocabulary(vocabulary).terms}:
            return ruleset.term(vocabulary, term).name
    return term


def _same_or_refused(given: OrderOfBattle, kept: OrderOfBattle, campaign: str,
                     ruleset: Ruleset) -> None:  # fmt: skip
    """``given`` (--oob) must be the order of battle the campaign keeps: refused with the
    first difference, named by the given file's line and the unit."""
    where = {"file": given.source or None, "column": "--oob"}
    head = "the order of battle is not the one the campaign keeps"
    for number, (mine, theirs) in enumerate(zip(given.units, kept.units, strict=False), 1):
        if mine.same_as(theirs):
            continue
        fields = [(f, getattr(mine, f), getattr(theirs, f)) for f in _COMPARED]
        names = sorted(set(mine.strengths) | set(theirs.strengths))
        fields += [(n, mine.strength(n), theirs.strength(n)) for n in names]
        field, value, wanted = next(d for d in fields if d[1] != d[2])
        if field in ("type", "grade"):  # ids: named as the rules name them
            value, wanted = _term_name(ruleset, mine, value), _term_name(ruleset, theirs, wanted)
        at = f"line {mine.line}" if mine.line is not None else f"unit {number}"
        raise OrderOfBattleError(
            f"{head}: {at} ({mine.unit}): {field} {value!r}, the campaign's {wanted!r}",
            value=value, expected=f"{wanted!r}, as {campaign} keeps it (or leave out --oob)",
            **where,
        )  # fmt: skip
    if len(given.units) != len(kept.units):
        more = given if len(given.units) > len(kept.units) else kept
        extra = more.units[min(len(given.units), len(kept.units))]
        whose = "the order of battle" if more is given else "the campaign"
        raise OrderOfBattleError(
            f"{head}: {len(given.units)} units, the campaign's {len(kept.units)} (the first "
            f"that only {whose} has: {extra.unit})", value=len(given.units),
            expected=f"{len(kept.units)} units, as {campaign} keeps them (or leave out --oob)",
            **where,
        )  # fmt: skip


def _as_it_stands(own: list[Unit], name: str, now: dict[str, Any], ruleset: Ruleset, *,
                  brackets: bool) -> list[Unit]:  # fmt: skip
    """A formation's units as they stand: Glory of the Empire's unit with its figures (a
    casualty-brackets ledger's: what the brackets count from) or guns; Eagles to Glory's
    division named as the campaign names it, its stands lost taken off its units last
    first."""
    if ruleset.id == gote.RULESET_ID:
        (unit,) = own
        field = _strength_of(unit, ruleset)
        count = now["brackets_from"] if brackets and field == "figures" else now["strength"]
        return [replace(unit, strengths={**unit.strengths, field: int(count)})]
    off = now["start"] - now["strength"]
    kept: list[Unit] = []
    for unit in reversed(own):
        stands = unit.strength("stands") or 0
        taken = min(stands, max(off, 0))
        off -= taken
        if stands - taken > 0 or not stands:
            left = {**unit.strengths, "stands": stands - taken}
            kept.append(replace(unit, division=name, strengths=left))
    return kept[::-1]


def _note(name: str, start: int, now: dict[str, Any], own: list[Unit], kept: list[Unit],
          ruleset: Ruleset, date: str) -> str:  # fmt: skip
    """What the campaign changed in a formation, for the organiser to see."""
    if ruleset.id == gote.RULESET_ID:
        (unit,) = kept
        field = _strength_of(unit, ruleset)
        line = f"{name}: {now['strength']} of {start} {field} on {date}"
        if field == "figures" and unit.strength(field) != now["strength"]:
            line += f", brackets from {unit.strength(field)}"
        return line
    after = {u.unit: u.strength("stands") or 0 for u in kept}
    taken = [f"{(u.strength('stands') or 0) - after.get(u.unit, 0)} off {u.unit}"
             for u in own if (u.strength("stands") or 0) != after.get(u.unit, 0)]  # fmt: skip
    gone = [u.unit for u in own if u.unit not in after]
    line = f"{name}: {now['strength']} of {start} stands on {date} ({', '.join(taken)})"
    return line + (f"; left out: {', '.join(gone)}" if gone else "")


def _recovery_block(wb: Workbook, ruleset: Ruleset, rules: RulesSheet) -> None:
    """Cumulative percentages back by the next day, a week, a month, by outcome, read
    from the Rules sheet's table (blank while a table the text does not print is not
    filled in: nothing is counted back), and the days, named even where blank."""
    table = rules.tables["campaign_recovery"]
    columns = {c.name: c.header for c in ruleset.table("campaign_recovery").columns}
    sides = table.sheet_range(columns["side"])
    rows = []
    for outcome in ("winner", "loser"):  # fixed words of ours in the criteria, no names
        found, parts = f'COUNTIF({sides},"{outcome}")=0', []
        for column in ("next_day_pct", "week_pct", "month_pct"):
            parts.append(f'SUMIF({sides},"{outcome}",{table.sheet_range(columns[column])})')
            rows.append(Formula(f'=IF({found},"",{"+".join(parts)})'))
    block = lookup_block(wb, RECOVERY, [RECOVERY, "By next day", "By a week", "By a month"],
                         [["winner", *rows[:3]], ["loser", *rows[3:]]])  # fmt: skip
    define_name(wb, RECOVERY, block)
    for (table_name, name), address in rules.constants.items():
        if table_name == "campaign_recovery_days" and name not in wb.defined_names:
            define_name(wb, constant_name(table_name, name), address)


def _timeline(wb: Workbook, formations: int, sides: Sequence[str], dates: int) -> None:
    """Formations down, the campaign's dates across (each battle's day and the days its
    stands come back, in order, each once), each side's total, and its chart."""
    ws = wb.create_sheet(TIMELINE.sheet)
    title_row(ws, 1, "Timeline", "Every formation's stands on each date of the campaign: "
              "the battles' days and the days stands come back.")  # fmt: skip
    b = letters(BATTLES.headers)
    first, last = b[EVENT_DAYS[0]], b[EVENT_DAYS[-1]]
    events = f"{quote_sheetname(BATTLES.sheet)}!${first}:${last}"
    f = letters(FORMATIONS.headers)
    source = quote_sheetname(FORMATIONS.sheet)
    top, bottom = _HEAD_ROW + 1, _HEAD_ROW + formations
    for label, number in (("Side", 1), ("Formation", 2)):
        write(ws.cell(row=_HEAD_ROW, column=number), label)
        style_header(ws.cell(row=_HEAD_ROW, column=number))
    write(ws.cell(row=_DAY_ROW, column=2), "Day number")
    for k, helper in enumerate(ISO_DATE_HELPERS, start=1):
        write(ws.cell(row=_DAY_ROW + k, column=2), helper)
    for j in range(dates):
        col = get_column_letter(3 + j)
        day = f"{col}${_DAY_ROW}"
        if j == 0:
            found = f'IF(COUNT({events})=0,"",MIN({events}))'
        else:
            prev = f"{get_column_letter(2 + j)}${_DAY_ROW}"  # a day number: a safe criterion
            found = (f'IF({prev}="","",IF(COUNTIF({events},">"&{prev})=0,"",'
                     f'SMALL({events},COUNTIF({events},"<="&{prev})+1)))')  # fmt: skip
        write(ws[f"{col}{_DAY_ROW}"], Formula("=" + found))
        helpers = [f"{col}${_DAY_ROW + k}" for k in range(1, len(ISO_DATE_HELPERS) + 1)]
        for k, (header, formula) in enumerate(iso_date(day, helpers).items(), start=1):
            row = _HEAD_ROW if header == "date" else _DAY_ROW + k
            write(ws[f"{col}{row}"], Formula("=" + formula))
        style_header(ws[f"{col}{_HEAD_ROW}"])
        for i in range(formations):
            r, fr = top + i, TABLE_TOP + 1 + i  # the Formations table's rows
            name = f"$B{r}"
            start = f"{source}!${f['Stands at start']}{fr}"
            cell = ws[f"{col}{r}"]
            write(cell, Formula(f'=IF(OR({name}="",{day}=""),"",'
                                f"{strength_formula(name, start, day)})"))  # fmt: skip
            style_formula(cell, FMT_INT)
    for i in range(formations):
        r, fr = top + i, TABLE_TOP + 1 + i
        for col, header in (("A", "Side"), ("B", "Formation")):
            ref = f"{source}!${f[header]}{fr}"
            write(ws[f"{col}{r}"], Formula(f'=IF({source}!${f["Formation"]}{fr}="","",{ref})'))
            style_formula(ws[f"{col}{r}"], FMT_TEXT)
    totals = bottom + 2
    for s, side in enumerate(sides):
        r = totals + s
        write(ws.cell(row=r, column=1), side)
        style_header(ws.cell(row=r, column=1))
        write(ws.cell(row=r, column=2), "Total")
        for j in range(dates):
            col = get_column_letter(3 + j)
            total = sum_equal(f"{col}${top}:{col}${bottom}", {f"$A${top}:$A${bottom}": f"$A{r}"})
            write(ws[f"{col}{r}"], Formula(f'=IF({col}${_DAY_ROW}="","",{total})'))
            style_formula(ws[f"{col}{r}"], FMT_INT)
    for row in range(_DAY_ROW, _HEAD_ROW):
        ws.row_dimensions[row].hidden = True
    side_width = max([14] + [len(s) + 2 for s in sides])  # a side's name whole
    set_widths(
        ws, {"A": side_width, "B": 28} | {get_column_letter(3 + j): 11 for j in range(dates)}
    )
    ws.freeze_panes = f"C{top}"
    print_setup(ws)
    protect(ws)
    # The chart reads the side totals turned on their side: dates down, one column a side.
    # Past the last date a side's strength stays as it was (the line goes on flat: an
    # error value for a gap draws as 0 in some spreadsheets).
    chart = wb.create_sheet("_chart")
    chart.sheet_state = "hidden"
    write(chart["A1"], "Date")
    for s, side in enumerate(sides):
        write(chart.cell(row=1, column=2 + s), side)
    timeline = quote_sheetname(TIMELINE.sheet)
    for j in range(dates):
        col = get_column_letter(3 + j)
        write(chart[f"A{2 + j}"], Formula(f'=IF({timeline}!{col}${_DAY_ROW}="","",'
                                          f"{timeline}!{col}${_HEAD_ROW})"))  # fmt: skip
        for s in range(len(sides)):
            r, here = totals + s, get_column_letter(2 + s)
            before = f"{here}{1 + j}" if j else "0"
            write(chart.cell(row=2 + j, column=2 + s), Formula(
                f'=IF({timeline}!{col}${_DAY_ROW}="",{before},{timeline}!{col}{r})'))  # fmt: skip
    grid_chart(chart, ws, series=len(sides), head=1, last=1 + dates,
               title="Each side's stands over the campaign", y_title="Stands",
               x_title="Date")  # fmt: skip
    fit_grid(wb, TIMELINE, 0)  # no battle yet: as far as the side and formation names


def _order_of_battle(wb: Workbook, ruleset: Ruleset, oob: OrderOfBattle | None) -> None:
    """The order of battle the campaign is made from, kept for the next battle's ledgers
    (``sheets.kinds.campaign.stored_oob`` reads it back): locked, written as text, to read and
    print, not to type into (a campaign made without one keeps an empty table)."""
    ws = wb.create_sheet(OOB_SHEET)
    title_row(ws, 1, OOB_SHEET, "The order of battle the campaign was made from: "
              "battle-ledger new KIND --campaign builds each battle's ledger from it.")  # fmt: skip
    headers = oob_headers(ruleset)
    rows = oob_rows(oob, ruleset) if oob is not None else []
    add_table(ws, OOB_TABLE, headers, rows, top=TABLE_TOP, locked=headers)
    names = len(headers) - len(strength_fields(ruleset))  # names, type, grade, commander
    set_widths(ws, {get_column_letter(1 + j): 20 if j < names else 10
                    for j in range(len(headers))})  # fmt: skip
    ws.freeze_panes = f"A{TABLE_TOP + 1}"
    print_setup(ws, title_rows=f"{TABLE_TOP}:{TABLE_TOP}")
    protect(ws)


def build_campaign(
    ruleset: Ruleset,
    oob: OrderOfBattle | None,
    settings: Mapping[str, Any],
    *,
    formations: Sequence[tuple[str, str, int] | tuple[str, str, int, str]] | None = None,
    blank_rows: int = 0,
    timeline_dates: int = 24,
) -> Workbook:
    """A new campaign ledger: one row per formation (``oob``'s divisions or units, or
    ``formations``: (side, formation, stands[, type])); ``blank_rows`` more to type.
    ``rounding``: stands back rounded ``half up`` (the data's) or ``down``;
    ``draw_counts``: ``both losers`` (the house reading) or ``both winners``;
    ``brackets_from`` (Glory of the Empire): ``new strength`` (the house reading) or
    ``start of the campaign``; ``timeline_dates``: the dates the Timeline sheet has
    room for."""
    name = settings.get("BattleName", "")
    starts_on = settings.get("StartsOn", "")
    rounding = settings.get("RecoveryRounding")
    draw_counts = settings.get("DrawCounts")
    brackets_from = settings.get("BracketsFrom")
    gote_campaign = ruleset.id == gote.RULESET_ID
    given = [(*g[:3], g[3] if len(g) > 3 else ("" if gote_campaign else DIVISION))
             for g in (list(formations) if formations is not None else (
                 formations_of(oob, ruleset) if oob is not None else []))]  # fmt: skip
    names = [g[1].strip().casefold() for g in given]
    for side, formation, stands, _type in given:
        if names.count(formation.strip().casefold()) > 1 or stands < 1 or not side.strip():
            raise SetupError(
                "every formation needs a side, a name of its own and 1 or more stands",
                column="Formation", value=formation,
                expected="unique names, a side, stands 1 or more",
            )  # fmt: skip
    for value, allowed, what in (
        (rounding, recovery.Rounding.ALL, "rounding"),
        (draw_counts, recovery.DrawCounts.ALL, "draw counts"),
        (brackets_from, gote.BracketsFrom.ALL, "brackets from"),
    ):
        if value is not None and value not in allowed:
            raise SetupError(f"unknown {what}", column=what, value=value,
                             expected=" or ".join(allowed))  # fmt: skip
    if brackets_from is not None and not gote_campaign:
        raise CommandError(f"{ruleset.name} counts no casualty brackets",
                           column="--brackets-from", value=brackets_from,
                           expected="a Glory of the Empire campaign")  # fmt: skip
    if starts_on:
        starts_on = date_option(starts_on, "--starts-on").isoformat()
    wb = new_workbook()
    rows = [{"Side": s, "Formation": n, "Stands at start": st, "Type": ty or None}
            for s, n, st, ty in given]  # fmt: skip
    things = ledger_table(wb, FORMATIONS, rows + [{} for _ in range(blank_rows)],
                          formation_formulas, bounds={})  # fmt: skip
    battles = ledger_table(wb, BATTLES, [], battle_formulas, bounds={})
    dates = wb[BATTLES.sheet]
    for r in range(battles.first_row, battles.last_row + 200):
        dates[f"{battles.col('Date')}{r}"].number_format = FMT_TEXT  # stays text in Excel
    periods = ledger_table(wb, LOSSES, [], loss_formulas, bounds={})
    replacements = prints_replacements(ruleset)
    if not replacements:  # Eagles to Glory: no artillery replacements, no brackets to count
        for ref, headers in ((periods, ("Guns replaced", "Figures donated")),
                             (things, ("Brackets from",))):  # fmt: skip
            for header in headers:
                wb[ref.sheet].column_dimensions[ref.col(header)].hidden = True
    sides = list(dict.fromkeys(s for s, _, _, _ in given))
    missing = recovery.recovery_missing(ruleset.id)
    front = front_sheet(
        wb, KIND, "Add each battle (run add-battle, or type it on Battles with its losses); "
        "type a date in Strength on to see every formation's strength that day."
        + (f" {ruleset.name} prints no campaign recovery: nothing comes back until you fill "
           "in its percentages and days on the Rules sheet." if missing else ""),
        {"BattleName": name, "StartsOn": starts_on, "StrengthOn": "",
         "RecoveryRounding": rounding or recovery.Rounding.default(ruleset.id),
         "DrawCounts": draw_counts or recovery.DrawCounts.LOSERS,
         "BracketsFrom": brackets_from or (gote.BracketsFrom.default() if gote_campaign
                                           else gote.BracketsFrom.NEW_STRENGTH)},
        {"StrengthOnDay": f'=IF(StrengthOn="","",{day_number("StrengthOn")})',
         "BattlesFought": f"=COUNT({quote_sheetname(BATTLES.sheet)}!$A:$A)"},
    )  # fmt: skip
    if not gote_campaign:  # Eagles to Glory counts no casualty brackets
        cell = wb.defined_names["BracketsFrom"].attr_text.split("!")[1].replace("$", "")
        front.row_dimensions[front[cell].row].hidden = True
    for named in ("StartsOn", "StrengthOn"):
        front[wb.defined_names[named].attr_text.split("!")[1].replace("$", "")].number_format = (
            FMT_TEXT)  # fmt: skip
    _timeline(wb, len(given) + blank_rows, sides, timeline_dates)
    _order_of_battle(wb, ruleset, oob if formations is None else None)
    tables = ["campaign_recovery", "campaign_recovery_days", "recovery_rounding"]
    rules = add_rules_sheet(wb, ruleset, tables=tables + (
        ["artillery_replacements", "morale_check_rules"] if replacements else []))  # fmt: skip
    _recovery_block(wb, ruleset, rules)
    return wb


def _play(book: HeadlessBook, rng: random.Random) -> None:
    """Two battles: the demo's DEP ledger (Quatre Bras, 16 June 1815, the Anglo-Allies
    hold) and a second day's (18 June, a French win) played from the same order of
    battle into a throw-away ledger; the strengths a week after."""
    import tempfile

    from battle_ledger.sheets.kinds.dep_ledger import KIND as DEP_LEDGER
    from battle_ledger.templates import build, save_atomic, template
    from battle_ledger.templates.demo import demo_name, load_example, played, upload

    ruleset = book.meta().ruleset
    if ruleset == gote.ruleset().id:
        _play_gote_campaign(book)
        return
    day_one = book.path.with_name(demo_name(ruleset, DEP_LEDGER.name))
    run_operation(book, "add-battle", name="Quatre Bras", date="1815-06-16",
                  winner="Anglo-Allied", ledgers=upload(day_one))  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bl-demo-") as tmp:
        day_two = save_atomic(build(DEP_LEDGER.name, ruleset, load_example(ruleset)),
                              Path(tmp) / "second-day.xlsx")  # fmt: skip
        play_dep = template(DEP_LEDGER).play
        assert play_dep is not None
        played(day_two, play_dep, rng)
        run_operation(book, "add-battle", name="The second day", date="1815-06-18",
                      winner="French", ledgers=upload(day_two))  # fmt: skip
    book.write_name("StrengthOn", "1815-06-25")


def _play_gote_campaign(book: HeadlessBook) -> None:
    """Crysler's Farm (11 November 1813, the British and Canadians win): the losses out
    of the demo's casualty-brackets ledger, and the gun Upham's battery lost; the
    strengths the next day (the text prints no recovery: nothing comes back)."""
    from battle_ledger.sheets.kinds.casualty_brackets import KIND as BRACKETS
    from battle_ledger.templates.demo import demo_name, upload

    day = book.path.with_name(demo_name(book.meta().ruleset, BRACKETS.name))
    run_operation(book, "add-battle", name="Crysler's Farm", date="1813-11-11",
                  winner="British and Canadian", ledgers=upload(day))  # fmt: skip
    run_operation(book, "losses", battle="1", formation="Upham's 6-pdr battery", lost="1")
    book.write_name("StrengthOn", "1813-11-12")


register_template(KIND, build_campaign, play=_play, plays_after_the_others=True)
