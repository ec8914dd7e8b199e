"""YAML as rule-set data is read: plain data (no tags), no key given twice, and from
users bounded (no aliases, no deep nesting). Its own module: PyYAML is imported
only when a YAML file is parsed (a packaged rule set's parse is cached as JSON).
"""

from __future__ import annotations

from typing import Any

import yaml

from battle_ledger.rulesets.errors import RulesetDataError

__all__ = ["MAX_YAML_DEPTH", "BoundedLoader", "safe_yaml", "unique_mapping"]


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


class BoundedLoader(yaml.SafeLoader):
    """The loader for YAML from users (orders of battle, house rules, a workbook's rules):
    refuses what such a file never needs and a bomb does: aliases (``*name``: a few KB
    of them grow to gigabytes), nesting deeper than ``MAX_YAML_DEPTH``, a key twice."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(
                None, None, "an alias (*name): spell every value out", mark
            )
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise yaml.composer.ComposerError(
                    None, None, f"nested deeper than {MAX_YAML_DEPTH} levels", mark
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


BoundedLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, unique_mapping)


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
