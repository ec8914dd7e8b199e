"""``battle-ledger demo``: every workbook kind for every rule set, from the bundled examples.

``build_demo(out_dir, progress=None)`` reads the bundled order of battle of
each rule set (``examples/<ruleset-id>.csv`` or ``.yaml``, package data, so
nothing but the installed package is needed), builds every registered kind
that supports the rule set (the roster for all; the DEP ledger for Eagles to
Glory; whatever else is registered), saves each atomically as
``<out_dir>/<ruleset-id>-<kind>.xlsx``, then the roster of each rule set from the one
order of battle in a club's own words and its map (``MAPPED_EXAMPLE``:
``walcheren-<ruleset-id>-roster.xlsx``), and returns the paths written.
``progress(path)`` is called after each file (the CLI prints it). Ledgers are
played a few turns by their kind's play (``Template.play``, beside its builder: the
same operations as the buttons, dice seeded so the demo is the same each time): the
DEP ledger 6 turns, the victory table 8, the victory points 6, the casualty brackets
and Square Eagles' Hits 5.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from battle_ledger.rulesets.oob import OrderOfBattle
from battle_ledger.rulesets.registry import all_rulesets
from battle_ledger.rulesets.registry import get as get_ruleset
from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.errors import NotAFolderError, SetupError, WorkbookSaveError
from battle_ledger.sheets.kinds.roster import ROSTER
from battle_ledger.sheets.oob import read_oob
from battle_ledger.sheets.oob_map import mapped_file, read_map
from battle_ledger.sheets.operations import Upload
from battle_ledger.templates import build, kinds_for, save_atomic, template

__all__ = [
    "MAPPED_EXAMPLE",
    "build_demo",
    "demo_name",
    "example_path",
    "load_example",
    "mapped_example",
    "played",
    "upload",
]

_SUFFIXES = (".yaml", ".csv")


def example_path(ruleset_id: str) -> Path:
    """The bundled order of battle of ``ruleset_id`` (an id or alias)."""
    ruleset_id = get_ruleset(ruleset_id).id
    root = resources.files("battle_ledger.examples")
    for suffix in _SUFFIXES:
        candidate = root.joinpath(f"{ruleset_id}{suffix}")
        if candidate.is_file():
            return Path(str(candidate))
    raise SetupError(
        f"no bundled order of battle for {ruleset_id}",
        value=ruleset_id,
        expected=f"examples/{ruleset_id}.csv or .yaml in the package",
    )


#: The bundled order of battle in a club's own words, and its map to every rule set.
MAPPED_EXAMPLE = ("walcheren.csv", "walcheren-maps.yaml")


def mapped_example() -> tuple[Path, Path]:
    """The bundled order of battle for every rule set and its map (``MAPPED_EXAMPLE``)."""
    root = resources.files("battle_ledger.examples")
    oob, maps = (Path(str(root.joinpath(name))) for name in MAPPED_EXAMPLE)
    return oob, maps


def load_example(ruleset_id: str) -> OrderOfBattle:
    """The bundled order of battle of ``ruleset_id``, read and checked."""
    return read_oob(example_path(ruleset_id), get_ruleset(ruleset_id))


def build_demo(out_dir: str | Path, progress: Callable[[Path], None] | None = None) -> list[Path]:
    """Build every kind for every rule set into ``out_dir``; the paths, in order."""
    out = Path(out_dir)
    _make_folder(out)
    written: list[Path] = []
    for ruleset in all_rulesets():
        oob = load_example(ruleset.id)
        # A kind whose play reads the others' ledgers (a campaign's battles) comes after them.
        for kind in sorted(kinds_for(ruleset), key=lambda k: template(k).plays_after_the_others):
            wb = build(kind.name, ruleset, oob)
            path = save_atomic(wb, out / demo_name(ruleset.id, kind.name))
            play = template(kind).play
            if play is not None:
                played(path, play, random.Random(f"{ruleset.id}-{kind.name}"))
            written.append(path)
            if progress is not None:
                progress(path)
    # One order of battle for every rule set: its roster in each (new --ruleset ALL --map).
    example, maps = mapped_example()
    for mapped in mapped_file(example, all_rulesets(), read_map(maps)):
        stem = f"{example.stem}-{mapped.oob.ruleset_id}-{ROSTER.name}"
        path = save_atomic(build(ROSTER.name, mapped.oob.ruleset_id, mapped.oob),
                           out / f"{stem}.xlsx")  # fmt: skip
        written.append(path)
        if progress is not None:
            progress(path)
    return written


def demo_name(ruleset_id: str, kind: str) -> str:
    """The file the demo writes a workbook of ``kind`` for ``ruleset_id`` to."""
    return f"{ruleset_id}-{kind}.xlsx"


def played(path: Path, play: Callable[[HeadlessBook, random.Random], None],
           rng: random.Random) -> None:  # fmt: skip
    """Play ``path`` with ``play``, saved once (a fresh demo keeps no history)."""
    book = HeadlessBook(path, history=False)
    play(book, rng)
    book.commit()


def upload(path: Path) -> tuple[Upload, ...]:
    """A battle ledger given to add-battle --from: its content, as the command line gives
    it."""
    return (Upload(path.name, path.read_bytes()),)


def _make_folder(out: Path) -> None:
    """Make the demo's output folder ``out`` (and the folders above it); a file where it
    or a folder above it would be is refused by its name, before anything is written."""
    standing = next((p for p in (out, *out.parents) if p.exists()), None)
    if standing is not None and not standing.is_dir():
        where = "is not a folder" if standing == out else "is under a file"
        raise NotAFolderError(
            f"the demo output {where}",
            file=str(standing),
            expected="a folder (or a new path)",
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WorkbookSaveError(
            f"cannot create the demo folder: {exc.strerror or exc}", file=str(out)
        ) from None
