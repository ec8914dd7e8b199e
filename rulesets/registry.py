"""Find a rule set by id or alias; load and validate its data file once.

``get(name)`` is the rule set with the house rules in force applied
(``rulesets.house``): those of ``using_house_rules(...)`` when a caller set
them (the CLI's ``--rules FILE``; a workbook's own rules during an
operation), else the per-user folder's. ``packaged(name)`` is the published
data alone.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import pickle
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from battle_ledger._files import replace_bytes, replace_text
from battle_ledger._lazy import lazy_module
from battle_ledger.rulesets.errors import RulesetDataError, UnknownRulesetError, shown
from battle_ledger.rulesets.folders import (
    CACHE_DIR_ENV,
    DATA_DIR,
    cache_dir,
    drop_older,
    kept_file,
    validation_key,
)
from battle_ledger.rulesets.model import Ruleset

if TYPE_CHECKING:
    from battle_ledger.rulesets import yaml_data
    from battle_ledger.rulesets.house import HouseRules
else:  # PyYAML is imported only when a YAML file is parsed (a packaged one's parse is cached)
    yaml_data = lazy_module("battle_ledger.rulesets.yaml_data")

__all__ = [
    "CACHE_DIR_ENV",
    "DATA_DIR",
    "active_house_rules",
    "all_rulesets",
    "cache_dir",
    "get",
    "house_ruleset",
    "key_path",
    "load_file",
    "packaged",
    "ruleset_ids",
    "using_house_rules",
]


def key_path(loc: tuple[Any, ...]) -> str:
    """``tables.x.rows[3].low`` for a pydantic error location."""
    parts: list[str] = []
    for part in loc:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        else:
            parts.append(("." if parts else "") + str(part))
    return "".join(parts) or "(top level)"


def _parsed(path: Path, text: str) -> Any:
    """The YAML ``text`` of packaged data file ``path``, parsed: from the per-user cache
    where it holds the parse of these very bytes (by their SHA-256), else parsed and kept
    there. (Parsing a rule set's YAML is a twentieth of a second, every command; the
    cache, JSON, a thirtieth of that. It holds only what JSON gives back unchanged; the
    data is validated as ever; a cache that cannot be read or written is passed by.)"""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
    kept = kept_file(path, digest, ".json")
    with contextlib.suppress(OSError, ValueError):
        return json.loads(kept.read_text(encoding="utf-8"))
    raw = yaml_data.safe_yaml(text, str(path))
    with contextlib.suppress(OSError, ValueError, TypeError):
        saved = json.dumps(raw, ensure_ascii=False)
        if json.loads(saved) == raw:
            replace_text(kept, saved)
            drop_older(kept, path, ".json")
    return raw


def _validated(path: Path) -> Ruleset:
    """Packaged data file ``path`` validated: from the per-user cache where it holds these
    very bytes validated by these very models (its name: ``folders.validation_key``),
    else validated (``load_file``) and kept there. What the cache holds is checked before
    it is used (a ``Ruleset`` of this file's id and path) and passed by otherwise, as is
    a cache that cannot be read or written. (Validating the nine packaged rule sets costs
    every command a third of its start; unpickling them a tenth of that.)"""
    try:
        text = path.read_bytes()
    except OSError:
        return load_file(path, packaged=True)  # its error, naming the file
    kept = kept_file(path, validation_key(text), ".pickle")
    # A file that is not what was kept can raise anything while it is unpickled.
    with contextlib.suppress(Exception):
        found = pickle.loads(kept.read_bytes())
        if type(found) is Ruleset and found.id == path.stem and found.path == str(path):
            return found
    ruleset = load_file(path, packaged=True)
    with contextlib.suppress(OSError, pickle.PicklingError, TypeError, AttributeError):
        replace_bytes(kept, pickle.dumps(ruleset, protocol=pickle.HIGHEST_PROTOCOL))
        drop_older(kept, path, ".pickle")
    return ruleset


def load_file(path: Path | str, *, packaged: bool = False) -> Ruleset:
    """Load and validate one data file; errors name the file and the key. ``packaged``:
    one of ours (``DATA_DIR``), its parse kept in the per-user cache (``_parsed``)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RulesetDataError(
            f"cannot read rule-set data: {exc.strerror}", file=str(path)
        ) from exc
    raw = _parsed(path, text) if packaged else yaml_data.safe_yaml(text, str(path))
    if not isinstance(raw, dict):
        raise RulesetDataError(
            "a rule-set data file must be a mapping", file=str(path), expected="id, name, tables..."
        )
    try:
        ruleset = Ruleset.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = key_path(tuple(first["loc"]))
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise RulesetDataError(
            f"invalid rule-set data at key {key}: {first['msg']}{more}", file=str(path)
        ) from exc
    ruleset._path = str(path)
    return ruleset


@functools.cache
def _load_all() -> dict[str, Ruleset]:
    return {path.stem: _load_one(path.stem) for path in sorted(DATA_DIR.glob("*.yaml"))}


@functools.cache
def _load_one(stem: str) -> Ruleset:
    """The packaged rule set of ``<stem>.yaml``, read once (a command on one ledger
    reads its own rule set, not all nine)."""
    path = DATA_DIR / f"{stem}.yaml"
    ruleset = _validated(path)
    if path.stem != ruleset.id:
        raise RulesetDataError(
            f"file name does not match id {ruleset.id!r}",
            file=str(path),
            expected=f"{ruleset.id}.yaml",
        )
    return ruleset


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


def packaged(name: str) -> Ruleset:
    """The rule set with id or alias ``name`` (case-blind), as published: no house rules."""
    folded = str(name).strip().casefold()
    found = _FOUND.get(folded)
    if found is not None:  # every rule lookup comes here: no file system on the way
        return found
    # An id is short ASCII (a longer or accented name is no file name of ours).
    is_id = folded.replace("-", "").isalnum() and folded.isascii() and len(folded) <= 64
    if is_id and (DATA_DIR / f"{folded}.yaml").is_file():
        found = _load_one(folded)  # an id: its file alone
    else:
        try:
            found = _load_all()[_index()[folded]]
        except KeyError:
            raise UnknownRulesetError(
                f"unknown rule set {shown(name)}",
                value=name,
                expected="one of " + ", ".join(ruleset_ids()),
            ) from None
    _FOUND[folded] = found
    return found


#: The rule sets ``packaged`` found, by the name asked for (the data files do not change
#: while a process runs).
_FOUND: dict[str, Ruleset] = {}


# -- house rules in force -------------------------------------------------------------

#: The house rules a caller put in force, by rule-set id (None: the per-user folder's).
_ACTIVE: ContextVar[Mapping[str, HouseRules] | None] = ContextVar("house_rules", default=None)


@contextlib.contextmanager
def using_house_rules(houses: Iterable[HouseRules]) -> Iterator[None]:
    """Within the block, ``get`` applies exactly ``houses`` (none: the packaged data),
    not the per-user folder's."""
    token = _ACTIVE.set({h.ruleset: h for h in houses})
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def active_house_rules() -> Mapping[str, HouseRules]:
    """The house rules in force, by rule-set id."""
    chosen = _ACTIVE.get()
    return chosen if chosen is not None else _house.user_house_rules()


@functools.lru_cache(maxsize=64)
def house_ruleset(house: HouseRules) -> Ruleset:
    """The rule set with ``house`` applied (validated once per house rules, then kept)."""
    return _house.apply_house(packaged(house.ruleset), house)


def get(name: str) -> Ruleset:
    """The rule set with id or alias ``name`` (case-blind), with the house rules in force."""
    base = packaged(name)
    house = active_house_rules().get(base.id)
    return base if house is None else house_ruleset(house)


# Last, so that rulesets.house (which reads this module) finds it whole; not an import
# inside get(): that runs on every rule lookup.
from battle_ledger.rulesets import house as _house  # noqa: E402
