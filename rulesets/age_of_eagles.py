"""Age of Eagles (2d edition tables and charts): the arithmetic of the charts.

Volley & Cannonade (fire points by firer, range and stands; fire point
multipliers; die roll modifiers; the fire table and its exact odds), Bayonet &
Sabre (each side's modified die, the result of the difference, its exact odds,
outnumbering), the March table with the tactical and reserve movement
modifiers, initiative, the fallen leader table and movement allowances.

Every number comes from ``rulesets/data/age-of-eagles.yaml``. The charts never
name the die: its size is ``tables.dice.die_sides`` there (10, a house default
marked as such). Modifier conditions are named in the text's own words,
matched case-blind, comma separated; a condition counted per item (``Each
Army Cohesion level``) takes a count as ``army cohesion x2``.

Readings where the charts are silent (all recorded in the data file's notes):
fractional fire points use the row of their whole part; conditions printed on
one line exclude one another unless counted per item; the bayonet "point
difference over 10" is read on the size of the difference; a deployment cost
("minus half move") is a fraction of the move being made.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

from battle_ledger.rulesets import dice, registry
from battle_ledger.rulesets._numbers import one_of, whole_number
from battle_ledger.rulesets.conditions import longest_name, matched_runs, one_per_exclusive_group
from battle_ledger.rulesets.errors import InvalidArgumentError, RulesetDataError, UnknownTermError
from battle_ledger.rulesets.model import Ruleset, Term, remembered

__all__ = [
    "RECORDED_CHARGE_CONDITIONS",
    "RULESET_ID",
    "BayonetResult",
    "BrigadeOutcome",
    "BrigadeState",
    "BrigadeStatus",
    "BrigadeTurn",
    "ChargeRole",
    "DisorderAfter",
    "FallenLeaderResult",
    "FireResult",
    "InitiativeOdds",
    "MarchResult",
    "RecordedChargeModifiers",
    "SpentCounts",
    "bayonet_modifier",
    "bayonet_odds",
    "bayonet_result",
    "bayonet_results",
    "brigade_after_turn",
    "die_sides",
    "disorder_lasts_until_rallied",
    "fallen_leader_modifier",
    "fallen_leader_odds",
    "fallen_leader_result",
    "fire_die_modifier",
    "fire_odds",
    "fire_point_multiplier",
    "fire_points",
    "fire_result",
    "fire_result_names",
    "fresh_means_no_stand_lost",
    "fresh_spent_at_the_charge",
    "held_charge_conditions",
    "initiative_modifier",
    "initiative_odds",
    "march_modifier",
    "march_odds",
    "march_result",
    "march_row_odds",
    "movement_allowance",
    "outnumber_modifier",
    "recorded_charge_modifiers",
    "reserve_movement_modifier",
    "resolve_charge",
    "resolve_fire",
    "roll_die",
    "ruleset",
    "tactical_movement_modifier",
    "typed_charge_modifier",
]

RULESET_ID = "age-of-eagles"

Number = int | float | Fraction


def ruleset() -> Ruleset:
    """The Age of Eagles rule set (loaded and validated once)."""
    return registry.get(RULESET_ID)


#: A rule whose answers are kept per rule set in force (``model.remembered``): the
#: results and modifiers a stand-losses fold asks again and again. ``ruleset`` is looked
#: up when asked (a rule set put in its place, as a test does, keeps answers of its own).
_remembered = remembered(lambda: ruleset())


# -- dice ---------------------------------------------------------------------------------


def die_sides() -> int:
    """Sides of the die every chart is rolled with (tables.dice.die_sides)."""
    sides = ruleset().constant("dice", "die_sides")
    if not isinstance(sides, int) or isinstance(sides, bool) or sides < 1:
        raise RulesetDataError(
            "dice.die_sides must be a whole number of sides",
            file=ruleset().path,
            table="dice",
            value=sides,
        )
    return sides


def _natural_die(value: Any, what: str) -> int:
    """A die as rolled, before modifiers: 1 to die_sides."""
    sides = die_sides()
    face = whole_number(value, what, low=None)
    if not 1 <= face <= sides:
        raise InvalidArgumentError(
            f"{what} is not a face of the d{sides}",
            column=what,
            value=value,
            expected=f"a whole number from 1 to {sides} (the roll before modifiers)",
        )
    return face


def roll_die(rng: random.Random) -> int:
    """One roll of the charts' die."""
    return dice.roll(die_sides(), rng)[0]


def _shifted_die(modifier: int) -> dice.Distribution:
    return {face + modifier: p for face, p in dice.die(die_sides()).items()}


# -- conditions and modifiers ---------------------------------------------------------------

# "army cohesion x2", "army cohesion ×2", "2 x attached leader": a count for conditions
# the text counts per item ("Each ...").
_COUNT_SUFFIX = re.compile(r"^(?P<name>.+?)\s+[x×*]\s*(?P<n>\d+)$", re.IGNORECASE)
_COUNT_PREFIX = re.compile(r"^(?P<n>\d+)\s*[x×*]\s+(?P<name>.+)$", re.IGNORECASE)


@dataclass(frozen=True)
class _Counted:
    term: Term
    count: int
    explicit: bool  # the count was typed, not implied


def _parse_counted(vocabulary: str, text: str | None) -> list[_Counted]:
    """Split comma-separated conditions into terms with counts (same term: counts add)."""
    found: dict[str, _Counted] = {}
    # Some names hold commas as the text prints them ("Target limbered, changed formation
    # or movement mode"): conditions.matched_runs takes the longest run naming one term.
    runs = matched_runs(
        text,
        longest_name(ruleset(), vocabulary),
        lambda item, single: _one_condition(vocabulary, item, strict=single),
    )
    for counted in runs:
        previous = found.get(counted.term.id)
        if previous is not None:  # the same term again: counts add, a plain repeat stays plain
            counted = _Counted(
                counted.term, previous.count + counted.count, previous.explicit or counted.explicit
            )
        found[counted.term.id] = counted
    return list(found.values())


def _one_condition(vocabulary: str, item: str, *, strict: bool) -> _Counted | None:
    """One condition with its count; None when not a term (UnknownTermError if strict)."""
    rs = ruleset()
    match = _COUNT_SUFFIX.match(item) or _COUNT_PREFIX.match(item)
    name, count = (match["name"], int(match["n"])) if match is not None else (item, 1)
    try:
        return _Counted(rs.term(vocabulary, name), count, match is not None)
    except UnknownTermError:
        if strict:
            raise
        return None


def _condition_rows(table: str) -> dict[str, dict[str, Any]]:
    return {str(row["condition"]).casefold(): row for row in ruleset().rows(table)}


def _line_of(row: dict[str, Any]) -> str | None:
    """The printed line whose alternatives exclude one another (None: counted each)."""
    return None if row.get("each", False) else str(row.get("line", row["condition"]))


def _modifier_total(
    table: str, vocabulary: str, conditions: str | None, side: str | None = None
) -> int:
    """Sum the modifiers of the named conditions, one printed line at a time.

    Conditions sharing a ``line`` that are not counted ``each`` exclude one
    another (Fresh/Spent); a line's ``cap`` bounds its total (Max 4 pts).
    """
    rs = ruleset()
    rows = _condition_rows(table)
    lines: dict[str, list[tuple[_Counted, dict[str, Any]]]] = {}
    for counted in _parse_counted(vocabulary, conditions):
        row = rows.get(counted.term.id.casefold())
        if row is None:
            raise RulesetDataError(
                f"condition {counted.term.id!r} of vocabularies.{vocabulary} has no row "
                f"in tables.{table}",
                file=rs.path,
                table=table,
                value=counted.term.id,
            )
        each = bool(row.get("each", False))
        if counted.explicit and counted.count != 1 and not each:
            raise InvalidArgumentError(
                f"{counted.term.name!r} is not counted per item",
                column="conditions",
                value=f"{counted.term.name} x{counted.count}",
                expected="a count (x2) only for the conditions the text counts each: "
                + ", ".join(
                    rs.term(vocabulary, str(r["condition"])).name
                    for r in rows.values()
                    if r.get("each")
                ),
            )
        row_side = row.get("side")
        if side is not None and row_side not in (None, "either", side):
            raise InvalidArgumentError(
                f"{counted.term.name!r} modifies the {row_side}'s roll, not the {side}'s",
                column=f"{side} conditions",
                value=counted.term.name,
                expected=f"a condition of the {side} or of either side",
            )
        lines.setdefault(str(row.get("line", row["condition"])), []).append((counted, row))
    # the alternatives of one printed line (one value) exclude one another
    one_per_exclusive_group(
        [c.term for members in lines.values() for c, _ in members],
        group_of=lambda term: _line_of(rows[term.id.casefold()]),
    )
    total = 0
    for members in lines.values():
        line_total = sum(
            int(r["modifier"]) * (c.count if r.get("each", False) else 1) for c, r in members
        )
        caps = {r["cap"] for _, r in members if r.get("cap") is not None}
        for cap in caps:
            # "Max 4 pts": the cap bounds the size of the line's total.
            line_total = max(-int(cap), min(int(cap), line_total))
        total += line_total
    return total


def tactical_movement_modifier(conditions: str | None) -> int:
    """March table die modifier for a brigade in Disorder or Good Order.

    ``conditions``: e.g. ``"attached leader x2, fresh, unsecured flanks"``.
    """
    return _modifier_total(
        "tactical_movement_modifiers", "tactical_movement_conditions", conditions
    )


def reserve_movement_modifier(conditions: str | None) -> int:
    """March table die modifier for Reserve Movement (commander, previous turns...)."""
    return _modifier_total("reserve_movement_modifiers", "reserve_movement_conditions", conditions)


def march_modifier(status: str, conditions: str | None) -> int:
    """The March table die modifier for ``status``: tactical, or reserve for Reserve Movement."""
    term = ruleset().term("brigade_status", status)
    if term.id == "reserve movement":
        return reserve_movement_modifier(conditions)
    return tactical_movement_modifier(conditions)


def fire_die_modifier(conditions: str | None) -> int:
    """Volley & Cannonade die roll modifier (target limbered, tirailleur, cover)."""
    return _modifier_total("fire_die_modifiers", "fire_die_conditions", conditions)


def fallen_leader_modifier(conditions: str | None) -> int:
    """Fallen leader die roll modifier (Charismatic Leader)."""
    return _modifier_total("fallen_leader_modifiers", "fallen_leader_conditions", conditions)


def bayonet_modifier(conditions: str | None, side: str = "attacker") -> int:
    """One side's Bayonet & Sabre die roll modifier.

    ``side`` is ``attacker`` or ``defender``: a condition of the other side only
    (``Defender Outflanked`` for the attacker) is an error.
    """
    which = str(side).strip().casefold()
    if which not in ("attacker", "defender"):
        raise InvalidArgumentError(
            "side must be attacker or defender",
            column="side",
            value=side,
            expected="attacker or defender",
        )
    return _modifier_total("bayonet_modifiers", "bayonet_conditions", conditions, side=which)


def outnumber_modifier(own: int, enemy: int) -> int:
    """Bayonet & Sabre modifier for outnumbering the enemy (3:2 +1 ... 4:1 or greater +4)."""
    own_n, enemy_n = whole_number(own, "own stands"), whole_number(enemy, "enemy stands")
    if enemy_n == 0:
        raise InvalidArgumentError(
            "the enemy must have at least one stand",
            column="enemy stands",
            value=enemy,
            expected="1 or more",
        )
    rs = ruleset()
    rows = _condition_rows("bayonet_modifiers")
    best = 0
    for row in rs.rows("outnumbering"):
        if own_n * int(row["enemy"]) >= enemy_n * int(row["own"]):
            best = max(best, int(rows[str(row["condition"]).casefold()]["modifier"]))
    return best


def fire_point_multiplier(conditions: str | None) -> Fraction:
    """Product of the fire point modifiers named (x 2, x 1/2, x 1 1/2)."""
    rows = _condition_rows("fire_point_modifiers")
    product = Fraction(1)
    for counted in _parse_counted("fire_point_conditions", conditions):
        if counted.explicit and counted.count != 1:
            raise InvalidArgumentError(
                f"{counted.term.name!r} is not counted per item",
                column="conditions",
                value=f"{counted.term.name} x{counted.count}",
                expected="each fire point modifier once",
            )
        product *= _fraction(rows[counted.term.id.casefold()]["multiplier"], "fire_point_modifiers")
    return product


def _fraction(text: Any, table: str) -> Fraction:
    try:
        return Fraction(str(text))
    except (ValueError, ZeroDivisionError):
        raise RulesetDataError(
            "not a fraction",
            file=ruleset().path,
            table=table,
            value=text,
            expected='a number or a fraction such as "1/2"',
        ) from None


# -- Volley & Cannonade -------------------------------------------------------------------


def fire_points(
    firer: str,
    range_inches: Number,
    stands: int,
    weight: str | None = None,
    conditions: str | None = None,
) -> Fraction:
    """Total fire points of ``stands`` stands (batteries for artillery) at a range.

    ``firer`` is a row of the Volley & Cannonade chart (``Other Artillery``,
    ``3-Rank Linear/Impulse Infantry``, ``Cavalry``...); artillery needs its
    ``weight`` (Heavy or Light). The range counts in the first column it does
    not exceed (2", 4", 8", 12", 18"). ``conditions`` are fire point modifiers.
    """
    rs = ruleset()
    term = rs.term("firers", firer)
    artillery = bool(term.attrs.get("artillery", False))
    if artillery:
        if weight is None or str(weight).strip() == "":
            raise InvalidArgumentError(
                f"{term.name} fires as a Heavy or a Light battery",
                column="weight",
                value=weight,
                expected="Heavy or Light",
            )
        weight_id: str | None = rs.term("battery_weights", str(weight)).id
    else:
        if weight is not None and str(weight).strip() != "":
            raise InvalidArgumentError(
                f"{term.name} has no battery weight",
                column="weight",
                value=weight,
                expected="blank (only artillery is Heavy or Light)",
            )
        weight_id = None
    count = whole_number(stands, "stands")
    distance = Fraction(str(range_inches)) if isinstance(range_inches, float) else range_inches
    if isinstance(distance, bool) or not isinstance(distance, int | Fraction) or distance < 0:
        raise InvalidArgumentError(
            "range must be a distance in inches",
            column="range",
            value=range_inches,
            expected="0 or more inches",
        )
    bands = sorted(rs.rows("fire_ranges"), key=lambda r: float(r["up_to"]))
    band = next((b for b in bands if distance <= Fraction(str(b["up_to"]))), None)
    if band is None:
        raise InvalidArgumentError(
            "the target is beyond the longest range of the chart",
            column="range",
            value=range_inches,
            expected=f"at most {bands[-1]['column']}",
        )
    row = rs.lookup("fire_points", firer=term.id, weight=weight_id)
    column = "range_" + str(band["column"]).rstrip('"')
    per_stand = row.get(column)
    if per_stand is None:
        reach = [
            str(b["column"]) for b in bands if row.get("range_" + str(b["column"]).rstrip('"'))
        ]
        raise InvalidArgumentError(
            f"{term.name} has no fire points at {band['column']}",
            column="range",
            value=range_inches,
            expected="a range of " + ", ".join(reach),
        )
    return Fraction(str(per_stand)) * count * fire_point_multiplier(conditions)


@dataclass(frozen=True)
class FireResult:
    """One line of the fire table: the result and what it does to the target."""

    name: str
    stands_lost: int
    disordered: bool
    battery: str | None  # what happens to a battery target: silenced, damaged, wrecked
    effect: str
    severity: int  # 0 = No fire ... 5 = Withering Fire


@dataclass(frozen=True)
class _FireRow:
    low: float
    high: float
    bands: tuple[tuple[str, float, float], ...]  # (result name, die low, die high)


_BAND_LESS = re.compile(r"^(-?\d+) or less$")
_BAND_MORE = re.compile(r"^(-?\d+) or more$")
_BAND_LIST = re.compile(r"^-?\d+(\s*,\s*-?\d+)*$")


def _parse_band(text: str, row: int, column: str) -> tuple[float, float] | None:
    """ "10 or less", "8, 9, 10", "11 or more" or "-" as an inclusive die range."""
    cell = " ".join(str(text).split())
    if cell == "-":
        return None
    if m := _BAND_LESS.match(cell):
        return (-math.inf, int(m[1]))
    if m := _BAND_MORE.match(cell):
        return (int(m[1]), math.inf)
    if _BAND_LIST.match(cell):
        values = [int(v) for v in cell.split(",")]
        if values != list(range(values[0], values[0] + len(values))):
            raise RulesetDataError(
                "die results of one cell must run consecutively",
                file=ruleset().path,
                table="fire_table",
                row=row,
                column=column,
                value=text,
            )
        return (values[0], values[-1])
    raise RulesetDataError(
        "unreadable die result",
        file=ruleset().path,
        table="fire_table",
        row=row,
        column=column,
        value=text,
        expected='"N or less", "a, b, c", "N or more" or "-"',
    )


def _fire_results() -> list[dict[str, Any]]:
    return ruleset().rows("fire_results")


def fire_result_names() -> list[str]:
    """The fire results, mildest first (No fire, Desultory Fire ... Withering Fire)."""
    return [str(r["result"]) for r in _fire_results()]


def _fire_rows() -> list[_FireRow]:
    """The fire table with each cell read (once per loaded rule set)."""
    return ruleset().derived("fire rows", _read_fire_rows)


def _read_fire_rows() -> list[_FireRow]:
    """Read every cell of the fire table; each row must cover every die result once."""
    results = [r for r in _fire_results() if r.get("column")]
    out: list[_FireRow] = []
    for i, row in enumerate(ruleset().rows("fire_table")):
        bands: list[tuple[str, float, float]] = []
        for result in results:
            span = _parse_band(str(row[result["column"]]), i, str(result["column"]))
            if span is not None:
                bands.append((str(result["result"]), span[0], span[1]))
        if bands:
            edges_ok = bands[0][1] == -math.inf and bands[-1][2] == math.inf
            joins_ok = all(a[2] + 1 == b[1] for a, b in itertools.pairwise(bands))
            if not (edges_ok and joins_ok):
                raise RulesetDataError(
                    "a fire table row must cover every die result once, mildest first",
                    file=ruleset().path,
                    table="fire_table",
                    row=i,
                )
        low = -math.inf if row["fire_points_low"] is None else row["fire_points_low"]
        high = math.inf if row["fire_points_high"] is None else row["fire_points_high"]
        out.append(_FireRow(low, high, tuple(bands)))
    return out


def _fire_row(points: Number) -> _FireRow:
    if isinstance(points, bool) or not isinstance(points, int | float | Fraction) or points < 0:
        raise InvalidArgumentError(
            "fire points must be a number, 0 or more",
            column="fire points",
            value=points,
            expected="0 or more",
        )
    method = ruleset().constant("fire_point_rounding", "method")
    if method != "down":
        raise RulesetDataError(
            "unknown rounding of fire points",
            file=ruleset().path,
            table="fire_point_rounding",
            value=method,
            expected="down",
        )
    whole = math.floor(points)  # the row of the total's whole part
    for row in _fire_rows():
        if row.low <= whole <= row.high:
            return row
    raise InvalidArgumentError(  # unreachable with a gap-free table (checked at load)
        "no row of the fire table holds these fire points", column="fire points", value=points
    )


def _fire_result_named(name: str) -> FireResult:
    for severity, row in enumerate(_fire_results()):
        if row["result"] == name:
            return FireResult(
                name=name,
                stands_lost=int(row["stands_lost"]),
                disordered=bool(row["disordered"]),
                battery=row.get("battery"),
                effect=str(row["effect"]),
                severity=severity,
            )
    raise RulesetDataError(  # a band names a result that tables.fire_results lacks
        "unknown fire result", file=ruleset().path, table="fire_results", value=name
    )


@_remembered
def fire_result(fire_points: Number, modified_die: int) -> FireResult:
    """The fire table: total fire points x the modified die result.

    Below 1 fire point every column reads "-": the result is ``No fire``.
    """
    row = _fire_row(fire_points)
    die = whole_number(modified_die, "modified die", low=None)
    if not row.bands:
        return _fire_result_named(fire_result_names()[0])
    for name, low, high in row.bands:
        if low <= die <= high:
            return _fire_result_named(name)
    raise RulesetDataError(  # unreachable: _fire_rows checks every row is complete
        "the fire table row does not cover this die",
        file=ruleset().path,
        table="fire_table",
        value=die,
    )


def resolve_fire(fire_points: Number, die: int, conditions: str | None = None) -> FireResult:
    """Fire as rolled: the die (1-10) plus the die roll modifiers of ``conditions``."""
    face = _natural_die(die, "die")
    return fire_result(fire_points, face + fire_die_modifier(conditions))


def fire_odds(fire_points: Number, die_modifier: int) -> dict[str, Fraction]:
    """Exact chance of each fire result (mildest first, zeros included) for one die."""
    row = _fire_row(fire_points)
    modifier = whole_number(die_modifier, "die modifier", low=None)
    odds = {name: Fraction(0) for name in fire_result_names()}
    if not row.bands:
        odds[fire_result_names()[0]] = Fraction(1)
        return odds
    for face, p in _shifted_die(modifier).items():
        for name, low, high in row.bands:
            if low <= face <= high:
                odds[name] += p
                break
    return odds


# -- Bayonet & Sabre ----------------------------------------------------------------------


@dataclass(frozen=True)
class BayonetResult:
    """One Bayonet & Sabre result; ``loser`` is defender, attacker or both."""

    name: str
    loser: str
    difference: int
    stands_lost: int  # the loser's troop stands that rout (each side's if Locked in Combat)
    extra_captured: int  # one more stand or battery per point of difference over 10
    leader_captured: bool
    battery: str | None
    attacker_effect: str
    defender_effect: str
    #: "Retreat ... Disordered", "Both sides are Disordered": the loser (each side when
    #: Locked in Combat) is disordered.
    disordered: bool = False

    def disorders(self, role: str) -> bool:
        """Whether the result leaves the brigade charging as ``role`` disordered."""
        return self.disordered and self.loser in (role, "both")

    @property
    def label(self) -> str:
        """``Driven Back! (defender)``: the result and who loses it."""
        return f"{self.name} ({self.loser})"


def _bayonet_from_row(row: dict[str, Any], difference: int) -> BayonetResult:
    over = row.get("extra_captured_over")
    extra = max(0, abs(difference) - int(over)) if over is not None else 0
    return BayonetResult(
        name=str(row["result"]),
        loser=str(row["loser"]),
        difference=difference,
        stands_lost=int(row["stands_lost"]),
        extra_captured=extra,
        leader_captured=bool(row["leader_captured"]),
        battery=row.get("battery"),
        attacker_effect=str(row["attacker_effect"]),
        defender_effect=str(row["defender_effect"]),
        disordered=bool(row["disordered"]),
    )


@_remembered
def bayonet_result(modified_difference: int) -> BayonetResult:
    """The Bayonet & Sabre table: attacker's modified die minus the defender's."""
    difference = whole_number(modified_difference, "modified difference", low=None)
    return _bayonet_from_row(ruleset().bracket("bayonet_table", difference), difference)


def bayonet_results() -> list[str]:
    """Labels of the Bayonet & Sabre results in the table's order (attacker's best first)."""
    return [f"{r['result']} ({r['loser']})" for r in ruleset().rows("bayonet_table")]


def bayonet_odds(attacker_modifier: int, defender_modifier: int) -> dict[str, Fraction]:
    """Exact chance of each Bayonet & Sabre result when both sides roll one die.

    Keys are ``BayonetResult.label`` (``Shattered! (defender)`` ...), in the
    table's order, zeros included.
    """
    attacker = _shifted_die(whole_number(attacker_modifier, "attacker modifier", low=None))
    defender = _shifted_die(whole_number(defender_modifier, "defender modifier", low=None))
    negated = {-value: p for value, p in defender.items()}
    odds = {label: Fraction(0) for label in bayonet_results()}
    for difference, p in dice.sum_of(attacker, negated).items():
        odds[bayonet_result(difference).label] += p
    return odds


def resolve_charge(
    attacker_die: int,
    defender_die: int,
    attacker_conditions: str | None = None,
    defender_conditions: str | None = None,
) -> BayonetResult:
    """A charge as rolled: both dice (1-10) with each side's named modifiers."""
    attacker = _natural_die(attacker_die, "attacker die") + bayonet_modifier(
        attacker_conditions, "attacker"
    )
    defender = _natural_die(defender_die, "defender die") + bayonet_modifier(
        defender_conditions, "defender"
    )
    return bayonet_result(attacker - defender)


# -- March table, initiative, fallen leader ---------------------------------------------------


class DisorderAfter:
    """What a March result does to a brigade's disorder (the table's ``disorder``): it
    rallies ("Brigade rallies"), leaves it disordered ("Brigade remains disordered",
    "retreats a full move disordered"), or leaves it as it was ("No change in unit
    status")."""

    RALLIES = "rallies"
    DISORDERED = "disordered"
    NO_CHANGE = "no change"
    ALL = (RALLIES, DISORDERED, NO_CHANGE)


@dataclass(frozen=True)
class MarchResult:
    """One cell of the March table."""

    status: str
    name: str
    effect: str
    stands_lost: int
    removed: bool
    disorder: str = DisorderAfter.NO_CHANGE  # a DisorderAfter

    def disordered_after(self, before: bool) -> bool:
        """Whether the brigade is disordered after this result, ``before`` it was or not."""
        if self.disorder == DisorderAfter.RALLIES:
            return False
        return self.disorder == DisorderAfter.DISORDERED or before


@_remembered
def march_result(status: str, modified_die: int) -> MarchResult:
    """The March table: brigade status (Disorder, Good Order, Reserve Movement) x die."""
    rs = ruleset()
    term = rs.term("brigade_status", status)
    die = whole_number(modified_die, "modified die", low=None)
    row = rs.bracket("march_table", die, status=term.id)
    disorder = str(row["disorder"])
    if disorder not in DisorderAfter.ALL:
        raise RulesetDataError(
            "unknown effect of a March result on disorder",
            file=rs.path,
            table="march_table",
            column="disorder",
            value=disorder,
            expected=" or ".join(DisorderAfter.ALL),
        )
    return MarchResult(
        status=term.name,
        name=str(row["result"]),
        effect=str(row["effect"]),
        stands_lost=int(row["stands_lost"]),
        removed=bool(row["removed"]),
        disorder=disorder,
    )


def march_row_odds(status: str, die_modifier: int) -> list[Fraction]:
    """Exact chance of each printed row of the March table (10 or more first)."""
    rs = ruleset()
    term = rs.term("brigade_status", status)
    rows = [r for r in rs.rows("march_table") if r["status"] == term.id]
    rows.sort(key=lambda r: -math.inf if r["die_low"] is None else r["die_low"], reverse=True)
    odds = [Fraction(0)] * len(rows)
    for face, p in _shifted_die(whole_number(die_modifier, "die modifier", low=None)).items():
        for i, row in enumerate(rows):
            low = -math.inf if row["die_low"] is None else row["die_low"]
            high = math.inf if row["die_high"] is None else row["die_high"]
            if low <= face <= high:
                odds[i] += p
                break
    return odds


def march_odds(status: str, die_modifier: int) -> dict[str, Fraction]:
    """Exact chance of each March table result for ``status`` (best first)."""
    rs = ruleset()
    term = rs.term("brigade_status", status)
    rows = [r for r in rs.rows("march_table") if r["status"] == term.id]
    rows.sort(key=lambda r: -math.inf if r["die_low"] is None else r["die_low"], reverse=True)
    odds: dict[str, Fraction] = {}
    for row, p in zip(rows, march_row_odds(status, die_modifier), strict=True):
        odds[str(row["result"])] = odds.get(str(row["result"]), Fraction(0)) + p
    return odds


def initiative_modifier(commander: str) -> int:
    """Initiative die modifier: the army commander's line of the first six reserve modifiers."""
    rs = ruleset()
    term = rs.term("reserve_movement_conditions", commander)
    row = _condition_rows("reserve_movement_modifiers")[term.id.casefold()]
    if not row["initiative"]:
        allowed = [
            rs.term("reserve_movement_conditions", str(r["condition"])).name
            for r in rs.rows("reserve_movement_modifiers")
            if r["initiative"]
        ]
        raise InvalidArgumentError(
            f"{term.name!r} is not one of the six modifiers used for initiative",
            column="commander",
            value=commander,
            expected="one of " + "; ".join(allowed),
        )
    return int(row["modifier"])


class InitiativeOdds(NamedTuple):
    """Exact chances of the initiative roll-off (a tie is left to the players)."""

    first: Fraction
    second: Fraction
    tie: Fraction


def initiative_odds(first_modifier: int, second_modifier: int) -> InitiativeOdds:
    """Chance that each side's modified die is higher in the initiative roll-off."""
    first = _shifted_die(whole_number(first_modifier, "first modifier", low=None))
    second = _shifted_die(whole_number(second_modifier, "second modifier", low=None))
    wins = loses = ties = Fraction(0)
    for a, pa in first.items():
        for b, pb in second.items():
            if a > b:
                wins += pa * pb
            elif a < b:
                loses += pa * pb
            else:
                ties += pa * pb
    return InitiativeOdds(wins, loses, ties)


@dataclass(frozen=True)
class FallenLeaderResult:
    name: str
    effect: str
    disabled: bool


def fallen_leader_result(modified_die: int) -> FallenLeaderResult:
    """The fallen leader table: 6 or more survives, 5 or less disabled."""
    die = whole_number(modified_die, "modified die", low=None)
    row = ruleset().bracket("fallen_leader_table", die)
    return FallenLeaderResult(str(row["result"]), str(row["effect"]), bool(row["disabled"]))


def fallen_leader_odds(die_modifier: int) -> dict[str, Fraction]:
    """Exact chance of each fallen leader result (Leader Survives first)."""
    odds = {str(r["result"]): Fraction(0) for r in ruleset().rows("fallen_leader_table")}
    for face, p in _shifted_die(whole_number(die_modifier, "die modifier", low=None)).items():
        odds[fallen_leader_result(face).name] += p
    return odds


# -- movement ---------------------------------------------------------------------------------


def movement_allowance(
    unit_type: str,
    terrain: str = "basic",
    *,
    half: bool = False,
    fording: bool = False,
    deployments: str | None = None,
) -> Fraction:
    """Inches a unit may move this March phase (never below 0).

    The move is the chart's Basic or Road rate, or Basic x the Rough multiple;
    halved when the March table says the brigade moves half. Fording takes its
    inches off; each deployment named takes its cost ("full move", "half move"
    of that move; Passage of Lines 3" per unit, ``passage of lines x2``).
    """
    rs = ruleset()
    unit = rs.term("unit_types", unit_type)
    ground = rs.term("terrain", terrain)
    row = rs.lookup("movement_rates", unit=unit.id)
    if ground.id == "rough":
        move = Fraction(int(row["basic"])) * _fraction(row["rough"], "movement_rates")
    else:
        move = Fraction(int(row[ground.id]))
    if half:
        move /= 2
    cost = Fraction(-int(row["fording"])) if fording else Fraction(0)
    costs = {str(r["deployment"]).casefold(): r for r in rs.rows("deployment_costs")}
    for counted in _parse_counted("deployments", deployments):
        spec = costs[counted.term.id.casefold()]
        if spec.get("inches_per_unit") is not None:
            cost += int(spec["inches_per_unit"]) * counted.count
        else:
            if counted.explicit and counted.count != 1:
                raise InvalidArgumentError(
                    f"{counted.term.name!r} is not counted per unit",
                    column="deployments",
                    value=f"{counted.term.name} x{counted.count}",
                    expected="a count only for Passage of Lines (units penetrated)",
                )
            cost += move * _fraction(spec["move_fraction"], "deployment_costs")
    return max(Fraction(0), move - cost)


# -- a brigade's turn, as the stand-losses ledger keeps it ---------------------------------


class BrigadeStatus:
    """A brigade's state in the ledger: fresh (no stand lost), worn, spent, removed."""

    FRESH = "fresh"
    WORN = "worn"  # the rule book's word between fresh and spent (a house reading)
    SPENT = "spent"
    REMOVED = "removed"  # no stands left, or Routs on the March table
    ALL = (FRESH, WORN, SPENT, REMOVED)


class SpentCounts:
    """What a brigade's spent point counts (the ledger's setting; the charts are silent)."""

    STANDS_LOST = "stands lost"  # spent once its stands lost reach the spent point
    STANDS_LEFT = "stands left"  # spent once its stands left fall to the spent point
    ALL = (STANDS_LOST, STANDS_LEFT)

    @staticmethod
    def default() -> str:
        """The data's house reading (``brigade_losses.spent_point_counts``)."""
        return str(ruleset().constant("brigade_losses", "spent_point_counts"))


class ChargeRole:
    """A brigade's side of a Bayonet & Sabre (the difference is always the attacker's die
    minus the defender's)."""

    ATTACKER = "attacker"
    DEFENDER = "defender"
    ALL = (ATTACKER, DEFENDER)


@dataclass(frozen=True)
class BrigadeState:
    """One brigade between turns: stands at the start, its spent point, lost so far, and
    whether the turns so far left it disordered."""

    brigade: str
    stands: int
    spent_point: int
    lost: int = 0
    status: str = BrigadeStatus.FRESH
    disordered: bool = False


@dataclass(frozen=True)
class BrigadeTurn:
    """What the umpire records for one brigade in one turn (None: nothing of that kind).

    ``fire_die`` is the die as rolled (1-10) and ``fire_modifier`` the die roll
    modifiers' total; ``charge_difference`` the attacker's modified die minus the
    defender's; ``march_status`` the brigade's column of the March table (Disorder or Good
    Order typed is its state as the turn begins, whatever the last turn left; Reserve
    Movement or none keeps that) and ``march_die`` the modified die on it. ``stands_lost``
    and ``captured`` are losses the umpire resolved himself.
    """

    turn: int | None = None
    fire_points: Number | None = None
    fire_die: int | None = None
    fire_modifier: int = 0
    charge: str | None = None
    charge_difference: int | None = None
    march_status: str | None = None
    march_die: int | None = None
    stands_lost: int = 0
    captured: int = 0


@dataclass(frozen=True)
class BrigadeOutcome:
    """One turn of one brigade, as the ledger shows it."""

    fire: FireResult | None
    charge: BayonetResult | None
    charge_stands: int | None  # what the charge costs this brigade (None: no charge)
    #: Its own Bayonet & Sabre modifiers its record gives (None: no charge), in the
    #: recorded difference where the charge command made it.
    charge_record: RecordedChargeModifiers | None
    march: MarchResult | None
    lost_this_turn: int  # every loss, never more than the stands left
    lost: int
    left: int
    status: str
    #: Disordered after the turn (False once removed, or where disorder is not held).
    disordered: bool = False


def _spent(state: BrigadeState, lost: int, counts: str) -> bool:
    if counts == SpentCounts.STANDS_LOST:
        return lost >= state.spent_point
    return state.stands - lost <= state.spent_point


def fresh_means_no_stand_lost() -> bool:
    """The data's reading (``brigade_losses.fresh_means_no_stand_lost``): a brigade is fresh
    while it has lost no stand, worn between that and spent (false: fresh until spent)."""
    return bool(ruleset().constant("brigade_losses", "fresh_means_no_stand_lost"))


def _status(state: BrigadeState, lost: int, counts: str) -> str:
    """Fresh (nothing lost), worn, or spent at its spent point, after ``lost`` stands."""
    if _spent(state, lost, counts):
        return BrigadeStatus.SPENT
    fresh = lost == 0 or not fresh_means_no_stand_lost()
    return BrigadeStatus.FRESH if fresh else BrigadeStatus.WORN


@dataclass(frozen=True)
class RecordedChargeModifiers:
    """A brigade's own Bayonet & Sabre die roll modifiers that its record gives: "+2 Units
    are Fresh", "-2 Units are Spent", "-1 Each Stand lost during Current Fire Phase" and
    "-2 Disordered Brigade" (where the ledger holds disorder). Every other modifier
    (leaders, outnumbering, cover, formation, quality...) the umpire types: the ledger does
    not keep them."""

    status: str  # fresh, worn or spent at the charge
    fire_stands: int  # stands it lost in this turn's fire
    fresh_or_spent: int
    fire_losses: int
    disordered: bool = False  # disordered at the charge (after the turn's March and fire)
    disorder: int = 0  # its "-2 Disordered Brigade"

    @property
    def total(self) -> int:
        return self.fresh_or_spent + self.fire_losses + self.disorder

    def describe(self) -> str:
        """``fresh +2, 1 stand lost to fire -1, disordered -2`` (``none`` when none)."""
        parts = [f"{self.status} {self.fresh_or_spent:+d}"] if self.fresh_or_spent else []
        if self.fire_stands:
            plural = "s" if self.fire_stands != 1 else ""
            parts.append(f"{self.fire_stands} stand{plural} lost to fire {self.fire_losses:+d}")
        if self.disorder:
            parts.append(f"disordered {self.disorder:+d}")
        return ", ".join(parts) or "none"


def fresh_spent_at_the_charge() -> bool:
    """The data's reading (``brigade_losses.fresh_spent_at_the_charge``): a brigade's Fresh
    or Spent in a Bayonet & Sabre is its state at the charge, after the turn's fire and
    March losses (false: as at the start of the turn)."""
    return bool(ruleset().constant("brigade_losses", "fresh_spent_at_the_charge"))


def disorder_lasts_until_rallied() -> bool:
    """The data's reading (``brigade_losses.disorder_lasts_until_rallied``): a brigade a
    result disordered stays disordered until a March result rallies it (false: through the
    next turn only, unless a result of that turn disorders it again)."""
    return bool(ruleset().constant("brigade_losses", "disorder_lasts_until_rallied"))


@_remembered
def recorded_charge_modifiers(
    status: str, fire_stands: int, role: str, disordered: bool = False
) -> RecordedChargeModifiers:
    """The Bayonet & Sabre modifiers of a brigade ``status`` (fresh, worn, spent) that lost
    ``fire_stands`` in this turn's fire, charging as ``role`` (``disordered`` or not at the
    charge), from the data's rows."""
    lost = whole_number(fire_stands, "stands lost to fire")
    one_of(status, (BrigadeStatus.FRESH, BrigadeStatus.WORN, BrigadeStatus.SPENT),
           "a brigade in a Bayonet & Sabre is fresh, worn or spent")  # fmt: skip
    fresh_or_spent = (bayonet_modifier(status, role)
                      if status in (BrigadeStatus.FRESH, BrigadeStatus.SPENT) else 0)  # fmt: skip
    fire = bayonet_modifier(f"{_STAND_LOST_TO_FIRE} x{lost}", role) if lost else 0
    disorder = bayonet_modifier(_DISORDERED_BRIGADE, role) if disordered else 0
    return RecordedChargeModifiers(status, lost, fresh_or_spent, fire, disordered, disorder)


#: The Bayonet & Sabre condition the stands lost to this turn's fire count.
_STAND_LOST_TO_FIRE = "stand lost this fire phase"
#: The Bayonet & Sabre condition of a disordered brigade: its line ("Disordered Brigade,
#: Non-Countercharging Cavalry, Tirailleur Brigade, or Unattached and Silenced Battery
#: (either or) - above not cumulative") is one term, whose other alternatives stay typed.
_DISORDERED_BRIGADE = "disordered etc"
#: The words of that line that name disorder itself (the vocabulary's aliases), and the
#: text's name of it.
_DISORDER_WORDS = ("disordered brigade", "disordered")
_DISORDERED_NAME = "Disordered Brigade"
#: The conditions ``recorded_charge_modifiers`` takes from the record: not typed as well.
RECORDED_CHARGE_CONDITIONS = ("fresh", "spent", _STAND_LOST_TO_FIRE)


def held_charge_conditions(conditions: str | None, *, disorder_held: bool = True) -> list[str]:
    """The Bayonet & Sabre conditions typed in ``conditions`` that a ledger takes from its
    record of the brigade (Fresh, Spent, stands lost to fire, and "Disordered Brigade"
    where it holds disorder), by their names: typed as well, they would count twice."""
    held = [c.term.name for c in _parse_counted("bayonet_conditions", conditions)
            if c.term.id in RECORDED_CHARGE_CONDITIONS]  # fmt: skip
    if disorder_held and conditions:
        for item in str(conditions).split(","):
            word = " ".join(item.split()).casefold()
            if word in _DISORDER_WORDS:
                held.append(_DISORDERED_NAME)
    return held


def typed_charge_modifier(
    conditions: str | None, side: str, *, disordered: bool | None = None
) -> int:
    """A side's Bayonet & Sabre modifier typed by the umpire, which a ledger adds to those
    of the brigade's record: naming one of those (Fresh, Spent, stands lost to fire; and
    "Disordered Brigade" where the ledger holds disorder: ``disordered`` not None) again is
    refused, it would count twice. A brigade the record holds ``disordered`` takes its -2
    from it: another alternative of that line typed (Tirailleur Brigade...) adds nothing,
    "above not cumulative"."""
    held = held_charge_conditions(conditions, disorder_held=disordered is not None)
    if held:
        raise InvalidArgumentError(
            f"{held[0]!r} is taken from the ledger's record of the brigade",
            column=f"{side} conditions",
            value=held[0],
            expected="only the modifiers the ledger does not keep (leaders, outnumbering, "
            "cover, formation, quality...)",
        )
    total = bayonet_modifier(conditions, side)
    if disordered:
        typed = {c.term.id for c in _parse_counted("bayonet_conditions", conditions)}
        if _DISORDERED_BRIGADE in typed:  # the line counts once, from the record
            total -= bayonet_modifier(_DISORDERED_BRIGADE, side)
    return total


def brigade_after_turn(
    state: BrigadeState,
    turn: BrigadeTurn,
    *,
    spent_counts: str | None = None,
    disorder_held: bool = True,
) -> BrigadeOutcome:
    """One turn of one brigade: the March table, Volley & Cannonade and Bayonet & Sabre
    results it suffered, and the stands each costs.

    Disorder, in the play sequence's order: the brigade begins the turn as it was left
    (``state.disordered``), or as its typed March status says (Disorder, Good Order); a
    March result rallies it, disorders it or leaves it; a fire result of Lively Fire or
    worse disorders it; so it charges, with "-2 Disordered Brigade"; a Bayonet & Sabre it
    loses disorders it. It stays disordered until rallied (the data's reading,
    ``disorder_lasts_until_rallied``; false: through the next turn only).
    ``disorder_held`` False (a ledger made before disorder was held): none of this.

    Stands the umpire types (``stands_lost``, ``captured``) beyond the stands left
    are refused; what the tables take is capped at the stands left (house reading).
    A brigade with no stands left, or routed off by the March table, is removed;
    otherwise spent at its spent point (``spent_counts``: stands lost reach it, the
    data's reading, or stands left fall to it), fresh while it has lost nothing,
    worn in between.
    """
    where = [f"turn {turn.turn}"] if turn.turn is not None else []
    where += [f"brigade {state.brigade!r}"] if state.brigade else []
    prefix = f"{', '.join(where)}: " if where else ""
    counts = SpentCounts.default() if spent_counts is None else spent_counts
    one_of(counts, SpentCounts.ALL, f"{prefix}a spent point counts stands lost or stands left")
    if state.status == BrigadeStatus.REMOVED:
        raise InvalidArgumentError(
            f"{prefix}the brigade was removed from play",
            value=state.brigade,
            expected="a brigade still in play",
        )
    left_before = state.stands - state.lost
    typed = whole_number(turn.stands_lost, f"{prefix}stands lost") + whole_number(
        turn.captured, f"{prefix}stands captured"
    )
    if typed > left_before:
        raise InvalidArgumentError(
            f"{prefix}more stands lost than the brigade has",
            value=typed,
            expected=f"at most {left_before} (the stands left)",
        )
    fire = None
    if turn.fire_points is not None and turn.fire_die is not None:
        face = _natural_die(turn.fire_die, f"{prefix}fire die")
        fire = fire_result(
            turn.fire_points, face + whole_number(turn.fire_modifier, "fire modifier", low=None)
        )
    march = None
    if turn.march_status is not None and turn.march_die is not None:
        march = march_result(turn.march_status, turn.march_die)
    # The play sequence: March, then Volley & Cannonade, then Bayonet & Sabre.
    began = state.disordered
    if turn.march_status is not None:
        typed_status = ruleset().term("brigade_status", turn.march_status).id
        began = {"disorder": True, "good order": False}.get(typed_status, began)
    after_march = began if march is None else march.disordered_after(began)
    fired_on = fire is not None and fire.disordered
    at_charge = disorder_held and (after_march or fired_on)
    charge = charge_stands = record = None
    charged = False
    if turn.charge is not None and turn.charge_difference is not None:
        role = str(turn.charge).strip().casefold()
        one_of(role, ChargeRole.ALL, f"{prefix}a brigade charges as attacker or defender")
        fire_stands = 0 if fire is None else fire.stands_lost
        before = 0  # Bayonet & Sabre is the third phase: the March and the fire come first
        if fresh_spent_at_the_charge():
            before = min(
                left_before, typed + fire_stands + (0 if march is None else march.stands_lost)
            )
        status = _status(state, state.lost + before, counts)
        record = recorded_charge_modifiers(status, min(fire_stands, left_before), role,
                                           at_charge)  # fmt: skip
        charge = bayonet_result(turn.charge_difference)
        lost_it = charge.loser in (role, "both")
        charge_stands = charge.stands_lost + charge.extra_captured if lost_it else 0
        charged = charge.disorders(role)
    from_tables = (
        (0 if fire is None else fire.stands_lost)
        + (charge_stands or 0)
        + (0 if march is None else march.stands_lost)
    )
    lost_this_turn = min(left_before, typed + from_tables)
    lost = state.lost + lost_this_turn
    left = state.stands - lost
    if left == 0 or (march is not None and march.removed):
        status = BrigadeStatus.REMOVED
    else:
        status = _status(state, lost, counts)
    if disorder_lasts_until_rallied():
        disordered = at_charge or charged
    else:  # through the next turn only: this turn's results alone
        renewed = march is not None and march.disorder == DisorderAfter.DISORDERED
        disordered = renewed or fired_on or charged
    disordered = disorder_held and disordered and status != BrigadeStatus.REMOVED
    return BrigadeOutcome(fire, charge, charge_stands, record, march, lost_this_turn, lost, left,
                          status, disordered)  # fmt: skip
