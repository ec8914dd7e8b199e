"""Eagles to Glory: the arithmetic of the rules, numbers taken from the data file.

Combat (the E and D numbers of the Combat Results Table after the cumulative
modifiers, the result of a 2d10 percentile roll and its exact odds), command
markers, initiative, the maneuver roll and its modifiers, what each maneuver
result means in inches, the square attempt, wind and smoke, and victory points.

Every number comes from ``rulesets/data/eagles-to-glory.yaml``. Where the
published text does not print a value (most of the Combat Results Table, the
Maneuver Table, ...) the function raises MissingTableError naming the table and
that file.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any, NamedTuple

from battle_ledger.rulesets import registry
from battle_ledger.rulesets._numbers import MAX_WHOLE, whole_number
from battle_ledger.rulesets.conditions import one_per_exclusive_group, parse_conditions
from battle_ledger.rulesets.dice import d100, die, map_outcomes, sum_of
from battle_ledger.rulesets.errors import (
    InvalidArgumentError,
    MissingTableError,
    RulesetDataError,
    UnknownTermError,
)
from battle_ledger.rulesets.model import Ruleset, Term, remembered

__all__ = [
    "DISENGAGE",
    "ELIMINATED",
    "NO_EFFECT",
    "RULESET_ID",
    "CombatNumbers",
    "CombatOdds",
    "InitiativeOdds",
    "ManeuverResult",
    "Wind",
    "combat_numbers",
    "combat_odds",
    "combat_range",
    "combat_result",
    "command_markers",
    "command_markers_odds",
    "initiative_modifier",
    "initiative_odds",
    "maneuver_modifier",
    "maneuver_move_inches",
    "maneuver_on_table",
    "maneuver_result",
    "maneuver_result_meaning",
    "percentile_roll",
    "ruleset",
    "square_attempt_odds",
    "square_attempt_succeeds",
    "square_attempt_target",
    "stand_victory_points",
    "wagon_victory_points",
    "wind",
    "wind_direction",
]

RULESET_ID = "eagles-to-glory"

ELIMINATED = "eliminated"
DISENGAGE = "disengage"
NO_EFFECT = "no effect"

# Rows of tables.initiative_modifiers, in the order of initiative_modifier's arguments.
_INITIATIVE_LEVELS = (
    "divisions within division command radius",
    "division commanders within corps command radius",
    "corps commanders within army command radius",
)


class CombatNumbers(NamedTuple):
    """The modified E (eliminate) and D (disengage) numbers of one attack."""

    eliminate: int
    disengage: int


class CombatOdds(NamedTuple):
    """Exact chances of each outcome of one attack (they sum to 1)."""

    eliminated: Fraction
    disengage: Fraction
    no_effect: Fraction


class InitiativeOdds(NamedTuple):
    """Exact chances that each side wins the initiative (ties are re-rolled)."""

    first_side: Fraction
    second_side: Fraction


class ManeuverResult(NamedTuple):
    """What a maneuver result means (tables.maneuver_results)."""

    result: str
    direction: str
    rate_multiple: float
    compulsory: bool
    disordered: bool
    facing: str


class Wind(NamedTuple):
    """Wind strength from a d10 and what it does to smoke."""

    strength: str
    smoke_turns: int | None
    drift_inches: int | None
    smoke: str


def ruleset() -> Ruleset:
    """The Eagles to Glory rule set (loaded and validated once)."""
    return registry.get(RULESET_ID)


# -- helpers ------------------------------------------------------------------------


def _die_roll(value: Any, sides: int, name: str) -> int:
    roll = whole_number(value, name, low=None)
    if not 1 <= roll <= sides:
        raise InvalidArgumentError(
            f"{name} is not a roll of a {sides}-sided die",
            column=name,
            value=value,
            expected=f"a whole number from 1 to {sides}",
        )
    return roll


def _given(rs: Ruleset, table: str, row: dict[str, Any], column: str, what: str) -> Any:
    """``row[column]``, or MissingTableError when the text leaves it blank."""
    value = row.get(column)
    if value is None:
        key = ", ".join(f"{k}={row.get(k)!r}" for k in rs.table(table).key)
        raise MissingTableError(
            f"{rs.name}: the published text does not give {what}; fill in "
            f"tables.{table}, row {key}, column {column} in {rs.where_to_fill}",
            file=rs.fill_file,
            table=table,
            row=key,
            column=column,
        )
    return value


def _names(terms: Iterable[Term]) -> str:
    return ", ".join(t.name for t in terms)


# -- combat -------------------------------------------------------------------------


def percentile_roll(value: Any) -> int:
    """A 2d10 percentile roll as a number 1..100: "00" (and a cell holding 0) is 100.

    Accepts 1..100 as a number or text, and "00". A cell typed 00 in Excel holds
    0, so 0 reads as 100 too (tables.combat_roll.zero_reads_as, a house default).
    """
    rs = ruleset()
    lowest = int(rs.constant("combat_roll", "lowest"))
    highest = int(rs.constant("combat_roll", "highest"))
    if isinstance(value, str) and value.strip() == "00":
        return highest
    roll = whole_number(value, "roll", low=None)
    if roll == 0:
        return int(rs.constant("combat_roll", "zero_reads_as"))
    if not lowest <= roll <= highest:
        raise InvalidArgumentError(
            "the combat roll is not a 2d10 percentile roll",
            column="roll",
            value=value,
            expected=f"a whole number from {lowest} to {highest} (00 or 0 = {highest})",
        )
    return roll


def _check_condition(
    rs: Ruleset, term: Term, attacker: Term, defender: Term, cavalry: list[Term]
) -> None:
    """Refuse a condition that cannot apply to these two stands."""
    if term.attrs.get("attacker_must_be") == "cavalry" and not attacker.attrs.get("cavalry"):
        raise InvalidArgumentError(
            f"{term.name!r} needs a cavalry attacker",
            column="conditions",
            value=attacker.name,
            expected=f"an attacker of type {_names(cavalry)}",
        )
    if defender.id in term.attrs.get("not_for_defender", []):
        raise InvalidArgumentError(
            f"{term.name!r} cannot apply to {defender.name.lower()}: units that are squared "
            "are considered to have no flank or rear",
            column="conditions",
            value=term.name,
        )
    allowed = term.attrs.get("defender_types")
    if allowed is not None and defender.id not in allowed:
        raise MissingTableError(
            f"{rs.name} gives {term.name!r} only for a defender of type {', '.join(allowed)}, "
            f"not {defender.name.lower()}; add it to vocabularies.combat_conditions "
            f"({term.id}) attrs.defender_types in {rs.where_to_fill}",
            file=rs.fill_file,
            table="combat_modifiers",
            row=term.id,
        )


def _attacks_as(attacker: Term, spelling: str, charging: bool) -> str:
    """The attacker row of the table: lancers and uhlans charge as heavy cavalry."""
    charges_as = attacker.attrs.get("charges_as")
    if charging and charges_as:
        folded = " ".join(str(spelling).split()).casefold()
        spellings = [s.casefold() for s in attacker.attrs.get("charges_as_spellings", [])]
        if folded in spellings:
            return str(charges_as)
    return attacker.id


@remembered(ruleset)
def combat_numbers(
    attacker_type: str,
    defender_type: str,
    attacker_grade: str,
    defender_grade: str,
    conditions: str | None = "",
) -> CombatNumbers:
    """The E and D numbers of one attack after every modifier (cumulative).

    ``conditions`` is a comma-separated list of the combat_conditions
    vocabulary ("charging, defender disordered"), matched case-blind. Grades
    are A..E or the text's words (Guard, Elite, Veteran, Green, Militia).
    The modified numbers are not clamped (Example 3 gives D = 115).
    """
    rs = ruleset()
    attacker = rs.term("unit_types", attacker_type)
    defender = rs.term("unit_types", defender_type)
    grades = (
        ("attacker", rs.term("grades", attacker_grade)),
        ("defender", rs.term("grades", defender_grade)),
    )
    terms = parse_conditions(rs, "combat_conditions", conditions)
    cavalry = [t for t in rs.vocabulary("unit_types").terms if t.attrs.get("cavalry")]
    for term in terms:
        _check_condition(rs, term, attacker, defender, cavalry)
    charging = any(t.attrs.get("attacker_charges") for t in terms)
    base = rs.lookup(
        "combat_results",
        attacker=_attacks_as(attacker, attacker_type, charging),
        defender=defender.id,
    )
    eliminate = int(base["E"])
    disengage = int(base["D"])
    for side, grade in grades:
        row = rs.lookup("combat_grade_modifiers", side=side, grade=grade.id)
        change = int(
            _given(
                rs,
                "combat_grade_modifiers",
                row,
                "modifier",
                f"the combat modifier for a Class {grade.id} ({grade.name}) {side}",
            )
        )
        eliminate += change
        disengage += change
    for term in terms:
        row = rs.lookup("combat_modifiers", condition=term.id)
        change = int(
            _given(rs, "combat_modifiers", row, "modifier", f"the combat modifier {term.name!r}")
        )
        applies_to = str(row["applies_to"]).replace("and", " ").split()
        if "E" in applies_to:
            eliminate += change
        if "D" in applies_to:
            disengage += change
    return CombatNumbers(eliminate, disengage)


def combat_range(unit_type: str) -> float:
    """How far a stand of this type can attack, in inches (infantry 1, cavalry 1/2, ...)."""
    rs = ruleset()
    unit = rs.term("unit_types", unit_type)
    for row in rs.rows("combat_ranges"):
        if str(row["unit"]).casefold() == unit.id.casefold():
            return float(row["inches"])
    raise MissingTableError(
        f"{rs.name} gives no combat range for {unit.name.lower()}; add a row for it "
        f"under tables.combat_ranges in {rs.where_to_fill}",
        file=rs.fill_file,
        table="combat_ranges",
        value=unit_type,
    )


def _outcome(numbers: CombatNumbers, roll: int) -> str:
    # E first: a roll under both numbers eliminates.
    if roll <= numbers.eliminate:
        return ELIMINATED
    if roll <= numbers.disengage:
        return DISENGAGE
    return NO_EFFECT


def combat_result(
    attacker_type: str,
    defender_type: str,
    attacker_grade: str,
    defender_grade: str,
    conditions: str | None,
    roll: Any,
) -> str:
    """The result of one attack for a 2d10 roll: "eliminated", "disengage" or "no effect".

    The roll is 1..100 ("00" or 0 = 100): at or under E eliminates, else at or
    under D disengages, else no effect.
    """
    numbers = combat_numbers(
        attacker_type, defender_type, attacker_grade, defender_grade, conditions
    )
    return _outcome(numbers, percentile_roll(roll))


def combat_odds(
    attacker_type: str,
    defender_type: str,
    attacker_grade: str,
    defender_grade: str,
    conditions: str | None = "",
) -> CombatOdds:
    """Exact chances of eliminated / disengage / no effect over the 100 percentile rolls.

    Numbers below 1 never succeed and numbers of 100 or more always do.
    """
    numbers = combat_numbers(
        attacker_type, defender_type, attacker_grade, defender_grade, conditions
    )
    dist = map_outcomes(d100(), lambda roll: _outcome(numbers, roll))
    zero = Fraction(0)
    return CombatOdds(
        dist.get(ELIMINATED, zero), dist.get(DISENGAGE, zero), dist.get(NO_EFFECT, zero)
    )


# -- command markers and initiative --------------------------------------------------


def _marker_rule(level: str) -> tuple[Term, int, int, str]:
    rs = ruleset()
    term = rs.term("command_levels", level)
    row = rs.lookup("command_markers", level=term.id)
    what = f"the number of command markers of a {term.name.lower()} commander"
    sides = int(_given(rs, "command_markers", row, "die", what))
    divide_by = int(_given(rs, "command_markers", row, "divide_by", what))
    rounding = str(_given(rs, "command_markers", row, "round", what))
    if (
        rounding not in ("up", "down", "none")
        or divide_by < 1
        or (rounding == "none" and divide_by != 1)
    ):
        raise RulesetDataError(
            f"command_markers row {term.id!r}: cannot divide by {divide_by} rounding {rounding!r}",
            file=rs.path,
            table="command_markers",
            expected="divide_by >= 1 and round one of up, down, none",
        )
    return term, sides, divide_by, rounding


def _markers(roll: int, divide_by: int, rounding: str) -> int:
    if rounding == "up":
        return -(-roll // divide_by)
    if rounding == "down":
        return roll // divide_by
    return roll  # "none": the roll itself (divide_by is 1)


def command_markers(level: str, roll: Any) -> int:
    """Command markers a commander gets for a d10 roll: corps ceil(d10/2), army d10.

    ``level`` is division, corps or army. The division commander's roll is not
    printed (MissingTableError).
    """
    term, sides, divide_by, rounding = _marker_rule(level)
    return _markers(
        _die_roll(roll, sides, f"{term.name.lower()} command roll"), divide_by, rounding
    )


def command_markers_odds(level: str) -> dict[int, Fraction]:
    """Exact distribution of the number of command markers of a commander."""
    _term, sides, divide_by, rounding = _marker_rule(level)
    return map_outcomes(die(sides), lambda r: _markers(r, divide_by, rounding))


def initiative_modifier(
    divisions_in_radius: bool,
    division_commanders_in_radius: bool = False,
    corps_commanders_in_radius: bool = False,
) -> int:
    """The bonus to a side's initiative d10 from its chain of command (at most +3).

    divisions_in_radius: all divisions within their division commanders' radius;
    division_commanders_in_radius: all division commanders within their corps
    commanders' radius (counts only with the first, as the text words it);
    corps_commanders_in_radius: all corps commanders within the army
    commander's radius.
    """
    rs = ruleset()
    held = dict(
        zip(
            _INITIATIVE_LEVELS,
            (divisions_in_radius, division_commanders_in_radius, corps_commanders_in_radius),
            strict=True,
        )
    )
    for name, flag in held.items():
        if not isinstance(flag, bool):
            raise InvalidArgumentError(
                f"{name}: say whether it holds", column=name, value=flag, expected="TRUE or FALSE"
            )
    total = 0
    for name in _INITIATIVE_LEVELS:
        row = rs.lookup("initiative_modifiers", level=name)
        needs = row.get("requires")
        if held[name] and (needs is None or held[str(needs)]):
            total += int(row["modifier"])
    return min(total, int(rs.constant("initiative", "max_bonus")))


def initiative_odds(first_modifier: int, second_modifier: int) -> InitiativeOdds:
    """Exact chances that each side wins the initiative (each rolls d10 + bonus).

    Ties are re-rolled, so each side's chance is its share of the decisive rolls.
    """
    rs = ruleset()
    sides = int(rs.constant("initiative", "die"))
    top = int(rs.constant("initiative", "max_bonus"))
    mods = []
    for name, value in (("first_modifier", first_modifier), ("second_modifier", second_modifier)):
        mod = whole_number(value, name, low=None)
        if not 0 <= mod <= top:
            raise InvalidArgumentError(
                "an initiative bonus is 0 to the maximum",
                column=name,
                value=value,
                expected=f"0..{top}",
            )
        mods.append(mod)
    first = sum_of(die(sides), {mods[0]: Fraction(1)})
    second = sum_of(die(sides), {mods[1]: Fraction(1)})
    wins = sum((p * q for a, p in first.items() for b, q in second.items() if a > b), Fraction(0))
    losses = sum((p * q for a, p in first.items() for b, q in second.items() if a < b), Fraction(0))
    if not rs.constant("initiative", "ties_reroll"):
        raise RulesetDataError(
            "initiative_odds assumes ties are re-rolled", file=rs.path, table="initiative"
        )
    decisive = wins + losses
    return InitiativeOdds(wins / decisive, losses / decisive)


# -- maneuver -------------------------------------------------------------------------


def _maneuver_terms(
    rs: Ruleset,
    conditions: str | None,
    grade: str | None,
    unit_type: str | None,
    dep: Any,
    enemy_inches: Any,
) -> list[Term]:
    vocab = rs.vocabulary("maneuver_conditions").terms
    typed = parse_conditions(rs, "maneuver_conditions", conditions)
    terms = list(typed)

    def add(term: Term) -> None:
        if term not in terms:
            terms.append(term)

    grade_term = None if _blank(grade) else rs.term("grades", str(grade))
    unit = None if _blank(unit_type) else rs.term("unit_types", str(unit_type))
    dep_value = None if _blank(dep) else whole_number(dep, "dep", low=None)
    distance = None if _blank(enemy_inches) else _inches(enemy_inches, "enemy_inches")

    for term in typed:  # a typed condition may not contradict an argument
        attrs = term.attrs
        if grade_term is not None and "grade" in attrs and attrs["grade"] != grade_term.id:
            raise InvalidArgumentError(
                f"{term.name!r} contradicts the grade",
                column="grade",
                value=grade,
                expected=f"Class {attrs['grade']}",
            )
        if (
            unit is not None
            and attrs.get("unit_must_be") == "cavalry"
            and not unit.attrs.get("cavalry")
        ):
            raise InvalidArgumentError(
                f"{term.name!r} applies only to cavalry",
                column="unit_type",
                value=unit_type,
                expected="heavy cavalry or light cavalry",
            )
        if dep_value is not None and "dep_at_least" in attrs:
            need = int(rs.constant("dep_economy", str(attrs["dep_at_least"])))
            if dep_value < need:
                raise InvalidArgumentError(
                    f"{term.name!r} contradicts the DEP",
                    column="dep",
                    value=dep,
                    expected=f"at least {need}",
                )
        if (
            distance is not None
            and "enemy_beyond_inches" in attrs
            and not distance > Fraction(str(attrs["enemy_beyond_inches"]))
        ):
            raise InvalidArgumentError(
                f"{term.name!r} contradicts the distance to the enemy",
                column="enemy_inches",
                value=enemy_inches,
                expected=f"more than {attrs['enemy_beyond_inches']} inches",
            )
    for term in vocab:  # conditions the arguments imply
        attrs = term.attrs
        if grade_term is not None and attrs.get("grade") == grade_term.id:
            add(term)
        if (
            unit is not None
            and attrs.get("implied_by_unit") == "cavalry"
            and unit.attrs.get("cavalry")
        ):
            add(term)
        if dep_value is not None and "dep_at_least" in attrs:
            need = int(rs.constant("dep_economy", str(attrs["dep_at_least"])))
            if dep_value >= need:
                add(term)
    if distance is not None:  # only the largest distance bonus the enemy is beyond
        beyond = [
            t
            for t in vocab
            if "enemy_beyond_inches" in t.attrs
            and distance > Fraction(str(t.attrs["enemy_beyond_inches"]))
        ]
        if beyond:
            best = max(beyond, key=lambda t: Fraction(str(t.attrs["enemy_beyond_inches"])))
            add(best)  # a typed smaller distance bonus then clashes below
    for term in list(terms):
        for implied in term.attrs.get("implies", []):
            add(rs.term("maneuver_conditions", str(implied)))
    one_per_exclusive_group(terms)
    return terms


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _inches(value: Any, name: str) -> Fraction:
    if isinstance(value, bool):
        raise InvalidArgumentError(f"{name} must be a distance", column=name, value=value)
    try:
        inches = Fraction(str(value).strip()) if isinstance(value, str) else Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        raise InvalidArgumentError(
            f"{name} must be a distance in inches",
            column=name,
            value=value,
            expected="a number of inches, 0 or more",
        ) from None
    if inches < 0:
        raise InvalidArgumentError(
            f"{name} cannot be negative", column=name, value=value, expected="0 or more inches"
        )
    if inches > MAX_WHOLE:
        raise InvalidArgumentError(f"{name} is larger than any table", column=name,
                                   value=value,
                                   expected=f"at most {MAX_WHOLE:,} inches")  # fmt: skip
    return inches


def maneuver_modifier(
    conditions: str | None = "",
    grade: str | None = None,
    unit_type: str | None = None,
    dep: Any = None,
    enemy_inches: Any = None,
) -> int:
    """The sum of the maneuver modifiers to the division's d10 (cumulative).

    ``conditions`` names modifiers of the maneuver_conditions vocabulary
    ("road movement, out of command"); the other arguments imply theirs:
    grade (A/B +1, E -1), unit_type (cavalry +1), dep (36 or more +1),
    enemy_inches to the nearest enemy (> 36 +1, > 72 +2, never both).
    "Cavalry Charge" brings "Cavalry" with it.
    """
    rs = ruleset()
    terms = _maneuver_terms(rs, conditions, grade, unit_type, dep, enemy_inches)
    return sum(int(rs.lookup("maneuver_modifiers", condition=t.id)["modifier"]) for t in terms)


def maneuver_result(
    roll: Any,
    conditions: str | None = "",
    grade: str | None = None,
    unit_type: str | None = None,
    dep: Any = None,
    enemy_inches: Any = None,
) -> str:
    """The Maneuver Table result for a d10 and the modifiers (as maneuver_modifier).

    The text does not print the Maneuver Table: until tables.maneuver_table is
    filled in this raises MissingTableError naming the table and the file.
    """
    rs = ruleset()
    # The roll is checked first: a roll off the die is a mistake whatever the table.
    rolled = _die_roll(roll, int(rs.constant("maneuver_roll", "die")), "maneuver roll")
    rs.require("maneuver_table")
    return maneuver_on_table(
        rolled + maneuver_modifier(conditions, grade, unit_type, dep, enemy_inches)
    )


def maneuver_on_table(modified: int) -> str:
    """The Maneuver Table's result for a modified roll (every modifier added).

    MissingTableError until the table is filled in (a house rule);
    InvalidArgumentError for a roll no row of the table holds.
    """
    rs = ruleset()
    row = rs.bracket("maneuver_table", modified)
    return rs.term("maneuver_results", str(row["result"])).name


def maneuver_result_meaning(result: str) -> ManeuverResult:
    """What a maneuver result (Retreat ... Double) means."""
    rs = ruleset()
    term = rs.term("maneuver_results", result)
    row = rs.lookup("maneuver_results", result=term.id)
    return ManeuverResult(
        term.name,
        str(row["direction"]),
        float(row["rate_multiple"]),
        bool(row["compulsory"]),
        bool(row["disordered"]),
        str(row["facing"]),
    )


def maneuver_move_inches(result: str, unit_type: str) -> float:
    """Inches a stand moves (or may move) for a maneuver result: its rate x the multiple."""
    rs = ruleset()
    meaning = maneuver_result_meaning(result)
    rows = rs.rows("movement_rates")
    try:
        unit = rs.term("unit_types", unit_type).id
    except UnknownTermError:
        folded = " ".join(str(unit_type).split()).casefold()
        if folded not in (str(r["unit"]).casefold() for r in rows):
            raise UnknownTermError(
                f"{unit_type!r} has no movement rate in {rs.name}",
                value=unit_type,
                expected="one of " + ", ".join(str(r["unit"]) for r in rows),
            ) from None
        unit = folded
    row = rs.lookup("movement_rates", unit=unit)
    rate = float(_given(rs, "movement_rates", row, "inches", f"the movement rate of {unit}"))
    return rate * meaning.rate_multiple


# -- infantry squares -------------------------------------------------------------------


def square_attempt_target(
    range_inches: Any, modifiers: str | None = "", grade: str | None = None, dep: Any = None
) -> Fraction:
    """The number a square attempt must roll equal to or under: range / 2 + maneuver modifiers.

    range_inches: to the nearest enemy unit (it also sets the Enemy > 36"/72"
    modifier). modifiers: maneuver conditions. Disordered units may not square,
    and only infantry squares (no cavalry modifiers).
    """
    rs = ruleset()
    distance = _inches(range_inches, "range_inches")
    typed = parse_conditions(rs, "maneuver_conditions", modifiers)
    if not rs.constant("infantry_square", "disordered_may_square"):
        for term in typed:
            if term.id == "disordered":
                raise InvalidArgumentError(
                    "Units that are disordered may not square", column="modifiers", value=modifiers
                )
    for term in typed:
        if term.attrs.get("unit_must_be") == "cavalry":
            raise InvalidArgumentError(
                f"{term.name!r}: only infantry may go to square",
                column="modifiers",
                value=modifiers,
            )
    divisor = int(rs.constant("infantry_square", "range_divisor"))
    return distance / divisor + maneuver_modifier(modifiers, grade, "infantry", dep, distance)


def square_attempt_succeeds(
    range_inches: Any,
    roll: Any,
    modifiers: str | None = "",
    grade: str | None = None,
    dep: Any = None,
) -> bool:
    """Whether a square attempt with this die roll succeeds (roll <= target)."""
    sides = int(ruleset().constant("infantry_square", "die"))
    return _die_roll(roll, sides, "square roll") <= square_attempt_target(
        range_inches, modifiers, grade, dep
    )


def square_attempt_odds(
    range_inches: Any, modifiers: str | None = "", grade: str | None = None, dep: Any = None
) -> Fraction:
    """Exact chance that a square attempt succeeds."""
    sides = int(ruleset().constant("infantry_square", "die"))
    target = square_attempt_target(range_inches, modifiers, grade, dep)
    return sum((p for face, p in die(sides).items() if face <= target), Fraction(0))


# -- wind and smoke, victory points ------------------------------------------------------


def wind(roll: Any) -> Wind:
    """Wind strength for a d10 roll and how long smoke lasts and drifts."""
    rs = ruleset()
    sides = _table_die(rs, "wind_strength")
    row = rs.bracket("wind_strength", _die_roll(roll, sides, "wind roll"))
    turns = row["smoke_turns"]
    drift = row["drift_inches"]
    return Wind(
        str(row["wind"]),
        None if turns is None else int(turns),
        None if drift is None else int(drift),
        str(row["smoke"]),
    )


def wind_direction(roll: Any) -> str:
    """Wind direction for a d10 roll (rolled for slight wind, to drift the smoke)."""
    rs = ruleset()
    sides = _table_die(rs, "wind_direction")
    row = rs.bracket("wind_direction", _die_roll(roll, sides, "wind direction roll"))
    return str(row["direction"])


def _table_die(rs: Ruleset, table: str) -> int:
    """The die a brackets table is rolled on: its highest face (a d10 for the wind)."""
    return max(int(row["high"]) for row in rs.rows(table))


def wagon_victory_points(captured: int) -> int:
    """Victory points for enemy supply wagons captured: "A wagon is worth 200 victory
    points each" (``victory_points_other.wagon``)."""
    wagons = whole_number(captured, "captured")
    return wagons * int(ruleset().constant("victory_points_other", "wagon"))


def stand_victory_points(unit_type: str, grade: str) -> int:
    """Victory points for eliminating one enemy stand: its type plus its class.

    Squared infantry is infantry (20, a house reading: the table is not printed).
    The text adds the class points to infantry ("infantry 20 + Class A 20");
    adding them to every type is a house reading (``victory_points_per_grade``).
    """
    rs = ruleset()
    unit = rs.term("unit_types", unit_type)
    cls = rs.term("grades", grade)
    base = rs.lookup("victory_points_per_stand", unit=unit.id)
    extra = rs.lookup("victory_points_per_grade", grade=cls.id)
    return int(
        _given(rs, "victory_points_per_stand", base, "points", f"the points of {unit.name.lower()}")
    ) + int(
        _given(rs, "victory_points_per_grade", extra, "points", f"the points of Class {cls.id}")
    )
