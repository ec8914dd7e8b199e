"""Find a rule set by id or alias; load and validate its data file once."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from battle_ledger.rulesets.errors import RulesetDataError, UnknownRulesetError
from battle_ledger.rulesets.model import Ruleset

__all__ = ["DATA_DIR", "all_rulesets", "get", "load_file", "ruleset_ids"]

DATA_DIR = Path(__file__).resolve().parent / "data"


def _key_path(loc: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for part in loc:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        else:
            parts.append(("." if parts else "") + str(part))
    return "".join(parts) or "(top level)"


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """One line: what is wrong and on which line."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    return f"{problem} at line {mark.line + 1}" if mark is not None else str(problem)


# libyaml's parser when PyYAML has it (ten times faster than the pure-Python one).
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _UniqueKeyLoader(_SafeLoader):  # type: ignore[valid-type,misc]
    """SafeLoader that refuses a key given twice in one mapping (YAML would keep the last)."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    mapping: dict[Any, Any] = loader.construct_mapping(node)
    return mapping


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _construct_mapping,
)


def load_file(path: Path | str) -> Ruleset:
    """Load and validate one data file; errors name the file and the key."""
    path = Path(path)
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    except OSError as exc:
        raise RulesetDataError(
            f"cannot read rule-set data: {exc.strerror}", file=str(path)
        ) from exc
    except yaml.YAMLError as exc:
        raise RulesetDataError(f"not valid YAML: {_yaml_problem(exc)}", file=str(path)) from exc
    if not isinstance(raw, dict):
        raise RulesetDataError(
            "a rule-set data file must be a mapping", file=str(path), expected="id, name, tables..."
        )
    try:
        ruleset = Ruleset.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = _key_path(tuple(first["loc"]))
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise RulesetDataError(
            f"invalid rule-set data at key {key}: {first['msg']}{more}", file=str(path)
        ) from exc
    ruleset._path = str(path)
    return ruleset


@functools.cache
def _load_all() -> dict[str, Ruleset]:
    found: dict[str, Ruleset] = {}
    for path in sorted(DATA_DIR.glob("*.yaml")):
        ruleset = load_file(path)
        if path.stem != ruleset.id:
            raise RulesetDataError(
                f"file name does not match id {ruleset.id!r}",
                file=str(path),
                expected=f"{ruleset.id}.yaml",
            )
        found[ruleset.id] = ruleset
    return found


@functools.cache
def _index() -> dict[str, str]:
    index: dict[str, str] = {}
    for ruleset in _load_all().values():
        for name in (ruleset.id, *ruleset.aliases):
            folded = name.casefold()
            if folded in index and index[folded] != ruleset.id:
                raise RulesetDataError(
                    f"alias {name!r} is claimed by {index[folded]} and {ruleset.id}",
                    file=ruleset.path,
                )
            index[folded] = ruleset.id
    return index


def ruleset_ids() -> list[str]:
    """Every rule set id, in file order."""
    return list(_load_all())


def all_rulesets() -> list[Ruleset]:
    return list(_load_all().values())


def get(name: str) -> Ruleset:
    """The rule set with id or alias ``name`` (case-blind)."""
    try:
        return _load_all()[_index()[str(name).strip().casefold()]]
    except KeyError:
        raise UnknownRulesetError(
            f"unknown rule set {name!r}", value=name, expected="one of " + ", ".join(ruleset_ids())
        ) from None
