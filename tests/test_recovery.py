"""Campaign recovery (rulesets.recovery, xlfuncs.recovery): stands back after a battle."""

from __future__ import annotations

import datetime as dt
import functools
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from battle_ledger import rulesets
from battle_ledger.rulesets import recovery, registry
from battle_ledger.rulesets.errors import (
    InvalidArgumentError,
    RulesetDataError,
    RulesetError,
    UnknownTermError,
)
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.rulesets.registry import load_file
from battle_ledger.sheets.errors import ExcelArgumentError
from battle_ledger.xlfuncs import UDFS

OUTCOMES = ["winner", "loser", "Winner", "won", "lost", "defeated"]


def test_ten_lost_by_the_winner() -> None:
    """Campaign Casualties: "50% (1/2) of the stands lost in combat for the winning side would
    be available for duty the next day. 20% ... at the end of 1 week (7 days). An additional
    10% would be available for duty at the end of 1 month (30 days)." """
    assert recovery.stands_returning(10, "winner") == recovery.Recovery(5, 2, 1, 2)


def test_seven_lost_by_the_loser_cumulative_half_up() -> None:
    """Campaign Casualties: "40% of the stands lost in combat for the losing side would be
    available for duty the next day. 20% would be available at the end of 1 week and 10% would
    be available at the end of 1 month." House default: the running total rounds half up,
    2.8 -> 3, 4.2 -> 4, 4.9 -> 5, so 3, 1, 1 come back and 2 are gone for good."""
    assert recovery.stands_returning(7, "loser") == (3, 1, 1, 2)
    assert [recovery.stands_back_by(7, "loser", d) for d in (0, 1, 6, 7, 29, 30, 365)] == [
        0,
        3,
        3,
        4,
        4,
        5,
        5,
    ]


def test_days_come_from_the_data() -> None:
    rs = rulesets.get("etg")
    days = [rs.constant("campaign_recovery_days", k) for k in ("next_day", "week", "month")]
    assert days == [1, 7, 30]
    back = [recovery.stands_back_by(10, "winner", d) for d in days]
    assert back == [5, 7, 8]
    assert [recovery.stands_back_by(10, "winner", d - 1) for d in days] == [0, 5, 7]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=0, max_value=10_000),
    st.fractions(min_value=0, max_value=1),
    st.sampled_from(["cumulative-half-up", "cumulative-down"]),
)
def test_rounding_in_whole_numbers_is_the_exact_rounding(
    lost: int, share: Fraction, method: str
) -> None:
    exact = lost * share + (Fraction(1, 2) if method == "cumulative-half-up" else 0)
    assert recovery._round(lost, share, method) == math.floor(exact)


@given(st.integers(min_value=0, max_value=500), st.sampled_from(OUTCOMES))
def test_never_more_than_lost_and_adds_up(lost: int, outcome: str) -> None:
    back = recovery.stands_returning(lost, outcome)
    assert all(part >= 0 for part in back)
    assert sum(back) == lost
    assert back.gone_for_good <= lost


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=0, max_value=300),
    st.sampled_from(OUTCOMES),
    st.integers(min_value=0, max_value=60),
    st.integers(min_value=0, max_value=60),
)
def test_monotone_in_days(lost: int, outcome: str, day: int, later: int) -> None:
    early = recovery.stands_back_by(lost, outcome, day)
    late = recovery.stands_back_by(lost, outcome, day + later)
    assert 0 <= early <= late <= lost


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=300), st.integers(min_value=0, max_value=300))
def test_the_winner_never_gets_fewer_back_than_the_loser(lost: int, day: int) -> None:
    assert recovery.stands_back_by(lost, "winner", day) >= recovery.stands_back_by(
        lost, "loser", day
    )


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=0, max_value=200),
    st.integers(min_value=0, max_value=200),
    st.sampled_from(OUTCOMES),
    st.integers(min_value=0, max_value=40),
)
def test_strength_between_what_survived_and_what_started(
    start: int, lost: int, outcome: str, day: int
) -> None:
    lost = min(lost, start)
    strength = recovery.strength_on(start, lost, outcome, day)
    assert start - lost <= strength <= start
    assert strength == start - lost + recovery.stands_back_by(lost, outcome, day)


@pytest.mark.parametrize(
    ("call", "column"),
    [
        (lambda: recovery.stands_returning(-1, "winner"), "stands_lost"),
        (lambda: recovery.stands_returning(2.5, "winner"), "stands_lost"),
        (lambda: recovery.stands_returning(None, "winner"), "stands_lost"),
        (lambda: recovery.stands_returning(True, "winner"), "stands_lost"),
        (lambda: recovery.stands_back_by(3, "winner", -1), "days_after"),
        (lambda: recovery.strength_on(5, 6, "winner", 1), "lost"),
        (lambda: recovery.strength_on(-5, 0, "winner", 1), "start"),
    ],
)
def test_bad_numbers_name_the_argument(call: Any, column: str) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        call()
    assert info.value.column == column


def test_unknown_outcome_and_rule_set() -> None:
    with pytest.raises(UnknownTermError) as info:
        recovery.stands_returning(3, "draw")
    assert "'draw'" in str(info.value) and "Winner, Loser" in str(info.value)
    with pytest.raises(rulesets.UnknownRulesetError, match="'napoleon at war'"):
        recovery.stands_returning(3, "winner", "napoleon at war")


@functools.cache
def _etg_raw() -> str:
    return Path(rulesets.get("etg").path).read_text(encoding="utf-8")


def _other_ruleset(tmp_path: Path, **changes: Any) -> Ruleset:
    """A copy of the Eagles to Glory data with other recovery numbers."""
    raw = yaml.load(_etg_raw(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    raw["id"], raw["aliases"] = "house-rules", ["house"]
    for side, pcts in changes.items():
        for row in raw["tables"]["campaign_recovery"]["rows"]:
            if row["side"] == side:
                row.update(zip(("next_day_pct", "week_pct", "month_pct"), pcts, strict=True))
    path = tmp_path / "house-rules.yaml"
    path.write_text(
        yaml.dump(raw, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False),
        encoding="utf-8",
    )
    return load_file(path)


def test_generic_over_a_rule_set_with_a_campaign_recovery_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    house = _other_ruleset(tmp_path, winner=(60, 30, 10))
    real_get = registry.get
    monkeypatch.setattr(registry, "get", lambda n: house if n == "house" else real_get(n))
    assert recovery.stands_returning(10, "winner", "house") == (6, 3, 1, 0)
    assert recovery.stands_returning(10, "loser", "house") == (4, 2, 1, 3)


def test_bad_recovery_data_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    house = _other_ruleset(tmp_path, winner=(80, 20, 10))
    monkeypatch.setattr(registry, "get", lambda n: house)
    with pytest.raises(RulesetDataError, match="more than was lost"):
        recovery.stands_returning(10, "winner", "house")


def test_a_rule_set_without_recovery_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    others = [r for r in rulesets.all_rulesets() if "campaign_recovery" not in r.tables]
    if not others:
        pytest.skip("every rule set has a campaign_recovery table")
    with pytest.raises(RulesetError, match="campaign_recovery"):
        recovery.stands_returning(3, "winner", others[0].id)


# -- several battles, dates, whole columns -------------------------------------------------------

LIGNY_WATERLOO = [("1815-06-16", 4, "winner"), (dt.date(1815, 6, 18), 10, "loser")]


def test_strength_on_dates_after_two_battles() -> None:
    """30 stands; 4 lost winning on the 16th (2 back on the 17th, 3 by a week), 10 lost
    losing on the 18th (4 back on the 19th, 6 by a week, 7 by a month)."""
    days = ["1815-06-15", "1815-06-16", "1815-06-17", "1815-06-18", "1815-06-19"]
    days += ["1815-06-25", "1815-07-18"]
    assert [recovery.strength_on_date(30, LIGNY_WATERLOO, d) for d in days] == [
        30,
        26,
        28,
        18,
        22,
        25,
        26,
    ]
    assert recovery.strength_on_date(30, [], "1815-06-18") == 30
    reordered = list(reversed(LIGNY_WATERLOO))
    assert recovery.strength_on_date(30, reordered, dt.datetime(1815, 6, 19, 8)) == 22


def test_a_battle_cannot_cost_more_than_the_formation_had() -> None:
    with pytest.raises(InvalidArgumentError, match="1815-06-18"):
        recovery.strength_on_date(11, LIGNY_WATERLOO, "1815-07-01")  # 9 on the 18th
    assert recovery.strength_on_date(12, LIGNY_WATERLOO, "1815-06-18") == 0
    assert recovery.strength_on_date(12, LIGNY_WATERLOO[1:], "1815-06-18") == 2
    with pytest.raises(InvalidArgumentError, match="not a date"):
        recovery.strength_on_date(30, LIGNY_WATERLOO, "Waterloo")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.dates(min_value=dt.date(1805, 1, 1), max_value=dt.date(1805, 12, 31)),
            st.integers(min_value=0, max_value=5),
            st.sampled_from(["winner", "loser"]),
        ),
        max_size=4,
    ),
    st.dates(min_value=dt.date(1805, 1, 1), max_value=dt.date(1806, 3, 1)),
    st.integers(min_value=0, max_value=60),
)
def test_strength_on_date_stays_within_bounds_and_never_falls_without_a_battle(
    battles: list[tuple[dt.date, int, str]], day: dt.date, later: int
) -> None:
    start = 20  # 4 battles of at most 5 stands: never more than the formation has
    now = recovery.strength_on_date(start, battles, day)
    assert start - sum(n for d, n, _ in battles if d <= day) <= now <= start
    then = day + dt.timedelta(days=later)
    if not any(day < d <= then for d, _, _ in battles):
        assert recovery.strength_on_date(start, battles, then) >= now


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.dates(min_value=dt.date(1805, 1, 1), max_value=dt.date(1805, 4, 30)),
            st.integers(min_value=1, max_value=3),  # a day's battles, by number
            st.integers(min_value=0, max_value=6),
            st.sampled_from(["winner", "loser"]),
        ),
        max_size=12,
    )
)
def test_the_fold_counts_every_earlier_battle_as_it_stood_that_day(
    rows: list[tuple[dt.date, int, int, str]],
) -> None:
    """``formation_battles`` counts the shares coming back once as the days move on: the
    same strengths as the definition, every earlier battle's cost on the battle's day."""
    battles = [recovery.FormationBattle(n, d, lost, o) for d, n, lost, o in rows]
    start = 6 * len(battles)
    found = recovery.formation_battles(start, battles)
    order = sorted(range(len(battles)), key=lambda i: (battles[i].date, battles[i].number))
    for at, i in enumerate(order):
        earlier = order[:at]
        had = start - sum(recovery._cost(battles[j], found[j], battles[i].date) for j in earlier)
        assert found[i].strength_before == had


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.dates(min_value=dt.date(1805, 1, 1), max_value=dt.date(1805, 4, 30)),
            st.integers(min_value=0, max_value=6),
            st.sampled_from(OUTCOMES),
        ),
        max_size=8,
    ),
    st.sampled_from(["eagles-to-glory", "glory-of-the-empire"]),
    st.sampled_from([None, *recovery.Rounding.ALL]),
)
def test_the_fold_looks_the_rule_set_up_once_and_returns_what_stands_returning_does(
    rows: list[tuple[dt.date, int, str]], ruleset: str, rounding: str | None
) -> None:
    """``formation_battles`` asks the registry for the rule set a bounded number of times
    however many battles (not once a battle), and each battle's stands back are
    ``stands_returning``'s of what it lost."""
    battles = [recovery.FormationBattle(n, d, lost, o) for n, (d, lost, o) in enumerate(rows)]
    asked: list[str] = []
    real = registry.get
    try:
        registry.get = lambda name: asked.append(name) or real(name)  # type: ignore[assignment]
        found = recovery.formation_battles(6 * len(battles), battles, ruleset=ruleset,
                                           rounding=rounding)  # fmt: skip
    finally:
        registry.get = real  # type: ignore[assignment]
    assert len(asked) <= 5
    printed = recovery.recovery_missing(ruleset) is None  # none printed: none come back
    for battle, out in zip(battles, found, strict=True):
        assert out.recovery == (recovery.stands_returning(battle.lost, battle.outcome, ruleset,
                                                          rounding=rounding)
                                if printed else None)  # fmt: skip


def test_returning_frame_one_row_per_formation() -> None:
    frame = pd.DataFrame(
        {"Formation": ["1st Div", "2nd Div"], "Stands lost": [7, 10], "Outcome": ["Loser", "won"]},
        index=[5, 9],
    )
    out = recovery.returning_frame(frame)
    assert list(out.columns) == ["Next day", "After a week", "After a month", "Gone for good"]
    assert list(out.index) == [5, 9]
    assert out.to_numpy().tolist() == [[3, 1, 1, 2], [5, 2, 1, 2]]
    with pytest.raises(InvalidArgumentError, match="'Lost'"):
        recovery.returning_frame(frame, lost_column="Lost")


# -- Excel functions -------------------------------------------------------------------------------


def test_recovery_udf() -> None:
    assert UDFS["RECOVERY"](10.0, "winner") == [[5, 2, 1, 2]]
    assert UDFS["RECOVERY"](7.0, "Loser", None) == [[3, 1, 1, 2]]
    assert UDFS["RECOVERY"]([[7.0], [10.0]], [["loser"], ["winner"]], "etg") == [
        [3, 1, 1, 2],
        [5, 2, 1, 2],
    ]
    with pytest.raises(InvalidArgumentError):
        UDFS["RECOVERY"](2.5, "winner")


def test_recovery_back_by_and_strength_udfs() -> None:
    assert UDFS["RECOVERY_BACK_BY"](7.0, "loser", 7.0) == 4
    assert UDFS["RECOVERY_BACK_BY"](7.0, "loser", [[0.0], [1.0], [30.0]]) == [[0], [3], [5]]
    assert UDFS["RECOVERY_STRENGTH"](20.0, 10.0, "winner", 30.0) == 18
    assert UDFS["RECOVERY_STRENGTH"](20.0, 10.0, "winner", [[0.0], [1.0]], "") == [[10], [15]]


def test_recovery_strength_on_udf() -> None:
    dates = [["1815-06-16"], [dt.datetime(1815, 6, 18)], [None]]
    lost = [[4.0], [10.0], [None]]
    sides = [["winner"], ["loser"], [None]]
    assert UDFS["RECOVERY_STRENGTH_ON"](30.0, dates, lost, sides, "1815-06-19") == 22
    assert UDFS["RECOVERY_STRENGTH_ON"](
        30.0, dates, lost, sides, [["1815-06-17"], [dt.datetime(1815, 7, 18)]]
    ) == [[28], [26]]
    with pytest.raises(ExcelArgumentError, match="same length"):
        UDFS["RECOVERY_STRENGTH_ON"](30.0, dates, lost[:2], sides, "1815-06-19")
