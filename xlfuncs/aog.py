"""Age of Glaube family functions for Excel (AOG_...): thin wrappers over
rulesets.age_of_glaube.

Every function takes an optional last argument ``ruleset``: the era, by id or
alias (age-of-glaube / glaube, age-of-gloire / gloire, age-of-reason / reason,
age-of-destiny / destiny); blank is the Age of Glaube. Percentages are numbers
of percent (12 for 12%), as the text writes them. Random numbers are the
text's 0.000-0.999. Given ranges, the functions answer one row per input row.
"""

from __future__ import annotations

from typing import Any

from battle_ledger.rulesets import age_of_glaube as aog
from battle_ledger.xlfuncs._args import as_int, cell_odds, cell_text, each
from battle_ledger.xlfuncs._registry import udf

__all__ = [
    "AOG_CASUALTY_PCT",
    "AOG_CHANCE",
    "AOG_CHECK",
    "AOG_MARGIN",
    "AOG_MARKS",
    "AOG_MARKS_CROSSED",
    "AOG_MODIFIED",
    "AOG_ODDS",
    "AOG_ODDS_SHIFT",
    "AOG_PASSES",
    "AOG_RESULT_CODE",
    "AOG_VP",
]


def _era(value: Any) -> str:
    """The ruleset cell: blank is the Age of Glaube."""
    if value is None or str(value).strip() == "":
        return aog.DEFAULT_RULESET
    return str(value)


def _blank(value: Any) -> Any:
    """An optional number cell: empty cells and empty text are None."""
    return None if value is None or (isinstance(value, str) and not value.strip()) else value


@udf
def AOG_MARKS(total_base_units: Any, ruleset: Any = None) -> list[list[int]]:
    """The victory-table marks: base units needed to reach 15% of the total and every 5% after.

    total_base_units: the army's total base units (reinforcements raise it; give the new
    total to recalculate the marks).
    ruleset: optional era: glaube (blank), gloire, reason or destiny.
    Returns 18 rows [percent, base units]: [15, 9], [20, 12], ... [100, 60] for 60 base
    units; spill it into two columns. Needed to reach = rounded up (house default).
    """
    return [list(mark) for mark in aog.victory_marks(total_base_units, _era(ruleset))]


@udf
def AOG_MARKS_CROSSED(
    total_base_units: Any,
    lost_before: Any,
    lost_now: Any,
    ruleset: Any = None,
    highest_tested: Any = None,
) -> Any:
    """The victory-table marks this turn crosses (a crisis-of-morale test is due for each).

    total_base_units: the army's total base units (with any reinforcements).
    lost_before: base units lost in all before this turn.
    lost_now: base units lost in all at the end of this turn.
    ruleset: optional era: glaube (blank), gloire, reason or destiny.
    highest_tested: optional, the highest mark (in %) already tested: a mark is tested
    once only, even after reinforcements lower the % below it (blank: the marks
    lost_before reached at today's total).
    Returns text such as "15%, 20%", or "" when no mark is crossed; given ranges, one
    row per turn.
    """

    def crossed(t: Any, b: Any, n: Any, r: Any, h: Any) -> str:
        tested = None if h is None or h == "" else as_int(h, "highest_tested")
        marks = aog.marks_crossed(t, b, n, _era(r), highest_tested=tested)
        return ", ".join(f"{pct}%" for pct, _ in marks)

    return each(crossed, total_base_units, lost_before, lost_now, ruleset, highest_tested)


@udf
def AOG_CASUALTY_PCT(lost: Any, total_base_units: Any) -> Any:
    """An army's % casualties: base units lost x 100 / total base units.

    lost: base units removed from play so far.
    total_base_units: the army's total base units (with any reinforcements).
    Returns a number of percent (9 of 60 is 15); given ranges, one row per row.
    """
    return each(lambda lo, t: float(aog.casualty_pct(lo, t)), lost, total_base_units)


@udf
def AOG_MARGIN(casualty_pct_a: Any, casualty_pct_b: Any, ruleset: Any = None) -> Any:
    """The extent of victory from the two armies' % casualties (difference 0-5 draw,
    5-10 marginal, 10-25 major, > 25 decisive) for the army with the lower % casualties.

    casualty_pct_a: side A's % casualties, a number of percent (12 for 12%).
    casualty_pct_b: side B's % casualties, likewise.
    ruleset: optional era: glaube (blank), gloire, reason or destiny.
    Returns text: "major victory (side A)", "marginal victory (side B)" or "draw";
    exactly 5 is marginal, 10 and 25 major (house default). Given ranges, one row each.
    """
    return each(
        lambda a, b, r: aog.win_margin(a, b, _era(r)).text, casualty_pct_a, casualty_pct_b, ruleset
    )


@udf
def AOG_CHECK(check: Any, modifiers: Any = "", table_value: Any = None, ruleset: Any = None) -> Any:
    """The random number to throw (before modifiers) to pass a check: 0.800 less modifiers.

    check: rout (rally from rout, 0.800), messenger (order understood, 0.150), disrupted
    (rally disrupted), control test, crisis of morale.
    modifiers: optional, comma-separated: general (+0.100), great captain or his name
    (Marlborough, Frederick the Great, Napoleon; Gustavus Adolphus or Cromwell: +0.200).
    table_value: for disrupted, control test and crisis of morale, the value of your
    National Army or crisis of morale table (the text does not print them).
    ruleset: optional era: glaube (blank), gloire, reason or destiny.
    Returns the number the random number must match or exceed (crisis of morale: exceed):
    0.7 for rout with a General. Given ranges, one row each.
    """
    return each(
        lambda c, m, v, r: float(aog.random_check(c, cell_text(m), _blank(v), _era(r)).threshold),
        check,
        modifiers,
        table_value,
        ruleset,
    )


@udf
def AOG_CHANCE(
    check: Any, modifiers: Any = "", table_value: Any = None, ruleset: Any = None
) -> Any:
    """The exact chance of passing a check with a random number 0.000-0.999 (1000 values).

    check: rout, messenger, disrupted, control test or crisis of morale.
    modifiers: optional, comma-separated: general, great captain (or his name).
    table_value: for disrupted, control test and crisis of morale, the value of your table.
    ruleset: optional era: glaube (blank), gloire, reason or destiny.
    Returns a probability: 0.2 for rout, 0.3 with a General, 0.85 for a messenger.
    Given ranges, one row each.
    """
    return each(
        lambda c, m, v, r: float(aog.random_check_chance(c, cell_text(m), _blank(v), _era(r))),
        check,
        modifiers,
        table_value,
        ruleset,
    )


@udf
def AOG_PASSES(
    check: Any,
    random_number: Any,
    modifiers: Any = "",
    table_value: Any = None,
    ruleset: Any = None,
) -> Any:
    """Whether a random number thrown passes a check (after its modifiers).

    check: rout, messenger, disrupted, control test or crisis of morale.
    random_number: the number thrown, 0.000-0.999 (e.g. from RAND()).
    modifiers: optional, comma-separated: general, great captain (or his name).
    table_value: for disrupted, control test and crisis of morale, the value of your table.
    ruleset: optional era: glaube (blank), gloire, reason or destiny.
    Returns TRUE or FALSE; given ranges, one row each.
    """
    return each(
        lambda c, n, m, v, r: aog.check_passes(c, n, cell_text(m), _blank(v), _era(r)),
        check,
        random_number,
        modifiers,
        table_value,
        ruleset,
    )


@udf
def AOG_MODIFIED(check: Any, random_number: Any, modifiers: Any = "", ruleset: Any = None) -> Any:
    """The random number after its modifiers: for combat, the number to look up in the
    combat results table.

    check: combat, rout, disrupted, control test...
    random_number: the number thrown, 0.000-0.999.
    modifiers: comma-separated: general, great captain, charging, terrain attacker,
    terrain defender, square (Glaube: hedgehog).
    ruleset: optional era: glaube (blank), gloire, reason or destiny.
    Returns a number: 0.532 charging with a General is 0.732. Given ranges, one row each.
    """
    return each(
        lambda c, n, m, r: float(aog.modified_random_number(c, n, cell_text(m), _era(r))),
        check,
        random_number,
        modifiers,
        ruleset,
    )


@udf
def AOG_ODDS_SHIFT(conditions: Any, ruleset: Any = None) -> Any:
    """How many columns the combat odds increase.

    conditions: comma-separated: two types (combined forces of two types, +1), three types
    (all three, +2), flank (+1), rear (+2).
    ruleset: optional era: glaube (blank), gloire, reason or destiny.
    Returns a whole number of columns; given ranges, one row each.
    """
    return each(lambda c, r: aog.odds_column_shift(cell_text(c), _era(r)), conditions, ruleset)


@udf
def AOG_ODDS(odds: Any, conditions: Any, ruleset: Any = None) -> Any:
    """The odds column after its shifts: "1:1" with flank is "2:1", with rear "3:1".

    odds: the basic odds column, "1:1" (typed as 1:1, Excel makes it a time: read back).
    conditions: comma-separated: two types, three types, flank, rear.
    ruleset: optional era: glaube (blank), gloire, reason or destiny.
    Returns the column; the text names only 1:1, 2:1 and 3:1, so others are an error
    until the odds table is filled in. Given ranges, one row each.
    """
    return each(
        lambda o, c, r: aog.shift_odds(cell_odds(o), cell_text(c), _era(r)),
        odds,
        conditions,
        ruleset,
    )


@udf
def AOG_RESULT_CODE(code: Any, ruleset: Any = None) -> Any:
    """What a combat result means: Ar, Aw, Ad, Dx, Dd, Dw or Dr, in the text's words.

    code: the result code from the combat results table.
    ruleset: optional era: glaube (blank), gloire, reason or destiny.
    Returns text, e.g. "Dr = Defender routed. Remove one base unit from the combat
    group, ..."; given ranges, one row each.
    """
    return each(lambda c, r: aog.result_code(str(c), _era(r)).text, code, ruleset)


@udf
def AOG_VP(base_units_removed: Any, ruleset: Any = None) -> Any:
    """Victory points for base units removed from play: one each, any type or quality.

    base_units_removed: the base units removed from play.
    ruleset: optional era: glaube (blank), gloire, reason or destiny.
    Returns a whole number; given ranges, one row each.
    """
    return each(lambda n, r: aog.victory_points(n, _era(r)), base_units_removed, ruleset)
