"""Golden files (tests/golden/<ruleset-id>.yaml): inputs and expected outcomes.

The one format and runner of every rule set's golden file. A golden file names the
rule set and the mechanics module, then lists ``cases`` (``fn``, ``args``, ``kwargs``,
``expect``) and ``errors`` (``fn``, ``args``, ``kwargs``, ``raises``, ``match``); an
``fn`` with a dot names its module in ``battle_ledger.rulesets`` (``recovery.strength_on``);
``why``, optional, says where the expectation comes from; ``ordered: true``, that a
mapping's keys come in the order given. Results are compared after
turning dataclasses into dicts, tuples into lists and Fractions into exact text
("1/6"), so the files stay plain YAML.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from battle_ledger.rulesets.errors import InvalidArgumentError, MissingTableError, UnknownTermError

__all__ = [
    "ERRORS",
    "case_id",
    "check",
    "function",
    "golden_tests",
    "load_golden",
    "run_case",
    "run_error",
]

ERRORS: dict[str, type[Exception]] = {
    "InvalidArgumentError": InvalidArgumentError,
    "UnknownTermError": UnknownTermError,
    "MissingTableError": MissingTableError,
}


def load_golden(ruleset_id: str) -> dict[str, Any]:
    path = Path(__file__).parent / "golden" / f"{ruleset_id}.yaml"
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


def _norm(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, dict):
        return {
            ",".join(map(str, k)) if isinstance(k, tuple) else str(k): v for k, v in value.items()
        }
    return value


def check(result: Any, expect: Any) -> None:
    """``result`` matches ``expect`` exactly (Fractions against their text; a NamedTuple
    against a list, or against a mapping of its fields; a dataclass against a mapping of
    the fields or properties it names)."""
    if isinstance(expect, dict) and hasattr(result, "_asdict"):
        result = result._asdict()
    elif isinstance(expect, dict) and dataclasses.is_dataclass(result):
        result = {str(k): getattr(result, str(k)) for k in expect}  # fields or properties
    result = _norm(result)
    if isinstance(expect, dict):
        assert isinstance(result, dict), result
        if result and all(isinstance(v, Fraction) for v in result.values()):
            assert set(result) == set(map(str, expect)), (result, expect)
        for key, want in expect.items():
            assert str(key) in result, (key, result)
            check(result[str(key)], want)
    elif isinstance(result, Fraction):
        assert result == Fraction(str(expect)), (result, expect)
    elif isinstance(expect, list):
        assert len(result) == len(expect), (result, expect)
        for got, want in zip(result, expect, strict=True):
            check(got, want)
    else:
        assert result == expect, (result, expect)


def case_id(case: dict[str, Any]) -> str:
    return f"{case['fn']}{tuple(case.get('args', []))}{case.get('kwargs', '')}"


def function(golden: dict[str, Any], case: dict[str, Any]) -> Any:
    """The function a case calls: the golden file's module's, or ``module.fn``'s."""
    module, _, name = case["fn"].rpartition(".")
    where = f"battle_ledger.rulesets.{module}" if module else golden["module"]
    return getattr(importlib.import_module(where), name)


def run_case(golden: dict[str, Any], case: dict[str, Any]) -> None:
    result = function(golden, case)(*case.get("args", []), **case.get("kwargs", {}))
    try:
        check(result, case["expect"])
        if case.get("ordered"):  # the outcomes in the order given (best first)
            assert list(_norm(result)) == list(map(str, case["expect"])), result
    except AssertionError as exc:
        raise AssertionError(f"{exc} ({case['why']})" if "why" in case else exc) from None


def run_error(golden: dict[str, Any], case: dict[str, Any]) -> None:
    with pytest.raises(ERRORS[case["raises"]], match=case["match"]):
        function(golden, case)(*case.get("args", []), **case.get("kwargs", {}))


def golden_tests(module: ModuleType, *ruleset_ids: str) -> tuple[Callable[..., None], ...]:
    """The tests of ``module``'s golden files (the one of its ``RULESET_ID``, or of each of
    ``ruleset_ids``: a family's eras), for its test module to name:
    ``test_golden_file, test_golden_case, test_golden_error = golden_tests(etg)``."""
    goldens = [load_golden(r) for r in ruleset_ids or (module.RULESET_ID,)]

    def test_golden_file() -> None:
        for rid, golden in zip(ruleset_ids or (module.RULESET_ID,), goldens, strict=True):
            assert golden["ruleset"] == rid
            assert golden["module"] == module.__name__

    def params(section: str) -> list[Any]:
        return [pytest.param(g, c, id=case_id(c)) for g in goldens for c in g.get(section, [])]

    @pytest.mark.parametrize(("golden", "case"), params("cases"))
    def test_golden_case(golden: dict[str, Any], case: dict[str, Any]) -> None:
        run_case(golden, case)

    @pytest.mark.parametrize(("golden", "case"), params("errors"))
    def test_golden_error(golden: dict[str, Any], case: dict[str, Any]) -> None:
        run_error(golden, case)

    return test_golden_file, test_golden_case, test_golden_error
