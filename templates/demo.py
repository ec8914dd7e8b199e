"""``battle-ledger demo``: every workbook kind for every rule set, from the bundled examples.

``build_demo(out_dir, progress=None)`` reads the bundled order of battle of
each rule set (``examples/<ruleset-id>.csv`` or ``.yaml``, package data, so
nothing but the installed package is needed), builds every registered kind
that supports the rule set (the roster for all; the DEP ledger for Eagles to
Glory; whatever else is registered), saves each atomically as
``<out_dir>/<ruleset-id>-<kind>.xlsx`` and returns the paths written.
``progress(path)`` is called after each file (the CLI prints it).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path

from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.rulesets.oob import OrderOfBattle
from battle_ledger.rulesets.registry import all_rulesets
from battle_ledger.rulesets.registry import get as get_ruleset
from battle_ledger.sheets.oob import read_oob
from battle_ledger.templates import build, kinds_for, save_atomic

__all__ = ["build_demo", "example_path", "load_example"]

_SUFFIXES = (".yaml", ".csv")


def example_path(ruleset_id: str) -> Path:
    """The bundled order of battle of ``ruleset_id`` (an id or alias)."""
    ruleset_id = get_ruleset(ruleset_id).id
    root = resources.files("battle_ledger.examples")
    for suffix in _SUFFIXES:
        candidate = root.joinpath(f"{ruleset_id}{suffix}")
        if candidate.is_file():
            return Path(str(candidate))
    raise InvalidArgumentError(
        f"no bundled order of battle for {ruleset_id}",
        value=ruleset_id,
        expected=f"examples/{ruleset_id}.csv or .yaml in the package",
    )


def load_example(ruleset_id: str) -> OrderOfBattle:
    """The bundled order of battle of ``ruleset_id``, read and checked."""
    return read_oob(example_path(ruleset_id), get_ruleset(ruleset_id))


def build_demo(out_dir: str | Path, progress: Callable[[Path], None] | None = None) -> list[Path]:
    """Build every kind for every rule set into ``out_dir``; the paths, in order."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InvalidArgumentError(
            "the demo output is not a folder", file=str(out), expected="a folder (or a new path)"
        )
    written: list[Path] = []
    for ruleset in all_rulesets():
        oob = load_example(ruleset.id)
        for kind in kinds_for(ruleset):
            wb = build(kind.name, ruleset, oob)
            path = save_atomic(wb, out / f"{ruleset.id}-{kind.name}.xlsx")
            written.append(path)
            if progress is not None:
                progress(path)
    return written
