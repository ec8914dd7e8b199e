"""YAML as rule-set data is read: plain data (no tags), no key given twice, and from
users bounded (no aliases, no deep nesting). Its own module: PyYAML is imported
only when a YAML file is parsed (a packaged rule set's parse is cached as JSON).
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

from battle_ledger.rulesets._numbers import MAX_WHOLE
from battle_ledger.rulesets.errors import InvalidArgumentError, RulesetDataError

__all__ = [
    "MAX_YAML_DEPTH",
    "MAX_YAML_NODES",
    "BoundedLoader",
    "safe_yaml",
    "unique_mapping",
    "users_yaml",
]


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """One line: what is wrong and on which line."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    return f"{problem} at line {mark.line + 1}" if mark is not None else str(problem)


# libyaml's parser when PyYAML has it (ten times faster than the pure-Python one).
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def unique_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    """A mapping, refusing a key given twice (YAML would silently keep the last)."""
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


class _UniqueKeyLoader(_SafeLoader):  # type: ignore[valid-type,misc]
    """SafeLoader that refuses a key given twice in one mapping (our own data files)."""


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, unique_mapping)

#: How deep YAML from a user (an order of battle, house rules) may nest.
MAX_YAML_DEPTH = 40


#: How many values (each key, value, list and mapping) YAML from a user may hold: the
#: largest rule set's data holds 9,000, a grand battle's order of battle some 20,000.
#: Reading YAML is slow (a 1.5 MB list took a minute): a file past it is refused as soon
#: as it is reached, unread beyond.
MAX_YAML_NODES = 50_000


#: A character no text holds: half of a UTF-16 pair, alone (YAML can escape one).
_SURROGATE = re.compile("[\ud800-\udfff]")


class BoundedLoader(yaml.SafeLoader):
    """The loader for YAML from users (orders of battle, house rules, a workbook's rules):
    refuses what such a file never needs and a bomb does: aliases (``*name``: a few KB
    of them grow to gigabytes), nesting deeper than ``MAX_YAML_DEPTH``, more than
    ``MAX_YAML_NODES`` values, a key twice."""

    _depth = 0
    _nodes = 0

    def __init__(self, stream: Any) -> None:
        _look_over(stream)
        super().__init__(stream)

    def construct_scalar(self, node: Any) -> Any:
        found = super().construct_scalar(node)
        if isinstance(found, str) and _SURROGATE.search(found):  # "\ud800" escaped
            raise yaml.constructor.ConstructorError(
                None, None, "a character that is not text (a lone surrogate)", node.start_mark
            )
        return found

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(
                None, None, "an alias (*name): spell every value out", mark
            )
        self._depth += 1
        self._nodes += 1
        try:
            if self._nodes > MAX_YAML_NODES:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise yaml.composer.ComposerError(
                    None, None, f"more than {MAX_YAML_NODES:,} values", mark
                )
            if self._depth > MAX_YAML_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise yaml.composer.ComposerError(
                    None, None, f"nested deeper than {MAX_YAML_DEPTH} levels", mark
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


BoundedLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, unique_mapping)


def _bounded_number(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int | float:
    """A number from a user's YAML, refused past ``MAX_WHOLE`` (or NaN, infinite): no
    rule nor battle needs one, and it would overflow a ledger's arithmetic."""
    if node.tag.endswith(":int"):
        found: int | float = loader.construct_yaml_int(node)
    else:
        found = loader.construct_yaml_float(node)
    if not math.isfinite(found) or abs(found) > MAX_WHOLE:
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value[:40]} is past any number a battle needs "
            f"(-{MAX_WHOLE:,} to {MAX_WHOLE:,})", node.start_mark,
        )  # fmt: skip
    return found


BoundedLoader.add_constructor("tag:yaml.org,2002:int", _bounded_number)
BoundedLoader.add_constructor("tag:yaml.org,2002:float", _bounded_number)


def _look_over(stream: Any) -> None:
    """The bounds of ``BoundedLoader`` checked first by libyaml's parser, where PyYAML has
    it: its events come some 50 times faster than the loader's nodes, so a file past a
    bound is refused in a fraction of a second. What the parser finds wrong is left to
    the loader to report (in its words, at the same place)."""
    if not (yaml.__with_libyaml__ and isinstance(stream, str | bytes)):
        return
    depth = nodes = 0
    problem = None
    try:
        for event in yaml.parse(stream, Loader=yaml.CSafeLoader):
            if isinstance(event, yaml.AliasEvent):
                problem = "an alias (*name): spell every value out"
            elif isinstance(event, yaml.NodeEvent):
                nodes += 1
                depth += isinstance(event, yaml.CollectionStartEvent)
                if nodes > MAX_YAML_NODES:
                    problem = f"more than {MAX_YAML_NODES:,} values"
                elif depth > MAX_YAML_DEPTH:
                    problem = f"nested deeper than {MAX_YAML_DEPTH} levels"
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            if problem is not None:
                mark: Any = event.start_mark  # libyaml's Mark, as good as PyYAML's here
                raise yaml.composer.ComposerError(None, None, problem, mark)
    except yaml.composer.ComposerError:
        raise
    except yaml.YAMLError:
        return


def safe_yaml(text: str, origin: str, *, what: str = "rule-set data", user: bool = False) -> Any:
    """``text`` parsed as plain YAML data (no tags, no key twice); ``user``: from a user,
    so bounded too (``BoundedLoader``)."""
    try:
        return yaml.load(text, Loader=BoundedLoader if user else _UniqueKeyLoader)
    except yaml.YAMLError as exc:
        raise RulesetDataError(
            f"{what}: not valid YAML: {_yaml_problem(exc)}", file=origin
        ) from exc
    except ValueError as exc:  # a number of thousands of digits, and the like
        raise RulesetDataError(f"{what}: not a usable YAML value ({exc})", file=origin,
                               expected="numbers of a sensible size") from None  # fmt: skip


def users_yaml(text: str, loader: type[BoundedLoader], source: str) -> Any:
    """A user's file (an order of battle, a map) parsed by ``loader`` (a ``BoundedLoader``
    that also marks lines): a mistake in it is one ``InvalidArgumentError`` naming its
    line and ``source``."""
    try:
        return yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise InvalidArgumentError(f"{where}not valid YAML ({problem})", file=source) from None
    except ValueError as exc:  # a number of thousands of digits, and the like
        raise InvalidArgumentError(f"not a usable YAML value ({exc})", file=source,
                                   expected="numbers of a sensible size") from None  # fmt: skip
