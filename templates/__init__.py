"""Workbook templates: openpyxl builders, one module per workbook kind.

Registry
    A kind is declared once, in ``sheets`` (``sheets.ledger.WorkbookKind``: its name,
    aliases, description, rule sets and template version; a ``LedgerKind`` for a
    ledger), and found in ``sheets.ledger.WORKBOOK_KINDS``. Its template module adds only
    how it is built: ``register_template(kind, builder, again=None, play=None,
    plays_after_the_others=False)`` at import. A builder is ``builder(ruleset: Ruleset,
    oob: OrderOfBattle | None, settings, **options) -> Workbook`` (``settings``: the kind's
    settings by named cell, none for a roster); it builds its sheets (with the helpers in
    ``templates._build`` and ``templates.rules_sheet``) and need not add the ``Log`` and
    ``_meta`` sheets: ``build`` adds them if missing.

    ``build(kind, ruleset, oob=None, **options)`` resolves the rule set (an id,
    alias or ``Ruleset``), checks the kind supports it and that the order of
    battle is for it, and returns the workbook (not saved: use
    ``save_atomic``). ``template(kind)`` is a kind's ``Template``; ``kinds_for(ruleset)``
    lists the kinds made for a rule set.

Every module of this package not starting with ``_`` (other than the helper
modules) is imported here, so a new kind registers itself by existing.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from openpyxl import Workbook

from battle_ledger.rulesets.errors import shown
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.rulesets.registry import get as _get_ruleset
from battle_ledger.sheets.errors import CommandError, OrderOfBattleError, UnknownKindError
from battle_ledger.sheets.ledger import WORKBOOK_KINDS, WorkbookKind
from battle_ledger.templates._build import TEMPLATE_VERSION, finish, save_atomic, set_paper

if TYPE_CHECKING:
    import random

    from battle_ledger.rulesets.oob import OrderOfBattle
    from battle_ledger.sheets.engine.headless import HeadlessBook

__all__ = [
    "TEMPLATE_VERSION",
    "Template",
    "build",
    "kinds_for",
    "known",
    "register_template",
    "require_known",
    "resolve",
    "save_atomic",
    "template",
]

Builder = Callable[..., Workbook]


@dataclass(frozen=True)
class Template:
    """How a kind's workbook is built (the kind itself is its declaration in ``sheets``)."""

    builder: Builder
    #: What the builder lays out from the rules and the ledger's own rows together (the
    #: victory table's marks of each side), laid out again in a ledger given other house
    #: rules: ``again(wb, ruleset)`` (``rules_sheet.lay_out_rules`` calls it).
    again: Callable[[Workbook, Ruleset], None] | None = None
    #: How ``battle-ledger demo`` plays a ledger of the kind a few turns: ``play(book, rng)``
    #: on the headless book (None: it is left as built).
    play: Callable[[HeadlessBook, random.Random], None] | None = None
    #: Its play reads the demo's other ledgers of the rule set (a campaign's battles): it is
    #: built after them.
    plays_after_the_others: bool = False


#: Each kind's template, by the kind's name (its module registers it beside its builder).
_TEMPLATES: dict[str, Template] = {}


def register_template(
    kind: WorkbookKind,
    builder: Builder,
    again: Callable[[Workbook, Ruleset], None] | None = None,
    play: Callable[[HeadlessBook, random.Random], None] | None = None,
    plays_after_the_others: bool = False,
) -> Template:
    """Register the builder of ``kind`` (``again``, ``play``: see ``Template``); the kind's
    name, description, rule sets and aliases are its declaration's."""
    if WORKBOOK_KINDS.get(kind.name) is not kind:
        raise TypeError(f"workbook kind {kind.name!r} is not registered (sheets.ledger.register)")
    made = Template(builder, again, play, plays_after_the_others)
    _TEMPLATES[kind.name] = made
    return made


def template(kind: WorkbookKind | str) -> Template:
    """The template of ``kind`` (a kind or its name)."""
    return _TEMPLATES[kind if isinstance(kind, str) else kind.name]


def _buildable() -> list[WorkbookKind]:
    """Every kind with a template, in the order of their templates' modules."""
    return [WORKBOOK_KINDS[name] for name in _TEMPLATES]


def known(name: str) -> bool:
    """Whether ``name`` is a kind users can build (a kind's name or alias)."""
    return any(name == k.name or name in k.aliases for k in _buildable())


def require_known(name: str) -> None:
    """Refuse a kind no one can build (a mistake in the command: exit 2), with "did you
    mean"."""
    if known(name):
        return
    from battle_ledger.sheets.operations import did_you_mean

    names = sorted({n for k in _buildable() for n in (k.name, *k.aliases)})
    hint = did_you_mean(name, names)
    raise UnknownKindError(
        f"unknown workbook kind {shown(name)}" + (f"; {hint}" if hint else ""),
        value=name,
        expected="one of " + ", ".join(names),
    )


def resolve(name: str, ruleset: Ruleset) -> WorkbookKind:
    """The kind ``name`` means for ``ruleset``: the kind itself, or the one it is an
    alias of for that rule set (``victory-table`` for Eagles to Glory)."""
    require_known(name)
    candidates = [k for k in _buildable() if name == k.name or name in k.aliases]
    for entry in candidates:
        if entry.supports(ruleset.id):
            return entry
    supported = sorted({r for k in candidates for r in (k.rulesets or ())})
    raise CommandError(
        f"a {name} is not made for {ruleset.name}",
        value=ruleset.id,
        expected="one of " + ", ".join(supported),
    )


def kinds_for(ruleset: Ruleset | str) -> list[WorkbookKind]:
    """Every kind made for ``ruleset``, in registration order."""
    rid = ruleset.id if isinstance(ruleset, Ruleset) else _get_ruleset(ruleset).id
    return [k for k in _buildable() if k.supports(rid)]


def build(
    kind: str,
    ruleset: str | Ruleset,
    oob: OrderOfBattle | None = None,
    *,
    flags: Mapping[str, str] | None = None,
    paper: str = "a4",
    meta: Mapping[str, str] | None = None,
    **options: Any,
) -> Workbook:
    """Build a new workbook of ``kind`` for ``ruleset`` (and an order of battle), every
    sheet printing on ``paper`` (``a4`` or ``letter``).

    An option the kind's builder does not take is refused (``CommandError``),
    named as ``flags`` spells it (the CLI's ``--start`` for ``start_time``). ``meta``:
    rows more for the ``_meta`` sheet (a battle ledger's link to its campaign).
    """
    rs = ruleset if isinstance(ruleset, Ruleset) else _get_ruleset(ruleset)
    entry = resolve(kind, rs)
    if oob is not None and oob.ruleset_id != rs.id:
        raise OrderOfBattleError(
            f"the order of battle is for {oob.ruleset_id}, not {rs.id}",
            file=oob.source or None,
            value=oob.ruleset_id,
            expected=rs.id,
        )
    settings = _settings_of(entry, oob, options)  # the settings taken out of options
    builder = template(entry).builder
    _check_options(entry, builder, options, flags or {})
    if "paper" in inspect.signature(builder).parameters:  # its own printouts (cards)
        options["paper"] = paper
    wb = builder(rs, oob, settings, **options)
    finish(wb, entry.name, rs.id, extra=meta, version=entry.template_version)
    set_paper(wb, paper)
    return wb


def _settings_of(entry: WorkbookKind, oob: OrderOfBattle | None,
                 options: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    """A ledger's settings by named cell (``MaxDEP``), taken out of ``options`` (by their
    builder keyword, ``max_dep``): each setting's default, then what the order of battle
    says of the battle (its title, date and start time), then the options given."""
    cells = entry.settings
    by_field = {c.field: c for c in cells}
    found: dict[str, Any] = {c.field: c.default for c in cells if c.default is not None}
    if oob is not None:
        facts = {"battle": oob.title, "date": oob.date, "start_time": oob.start}
        found |= {k: v for k, v in facts.items() if v and k in by_field}
    found |= {k: options.pop(k) for k in list(options) if k in by_field}
    return {by_field[k].name: v for k, v in found.items()}


def _check_options(entry: WorkbookKind, builder: Builder, options: dict[str, Any],
                   flags: Mapping[str, str]) -> None:  # fmt: skip
    """Refuse an option the kind's builder does not take (never ignore it)."""
    # ruleset, oob, settings (each setting named by its own option)
    params = list(inspect.signature(builder).parameters.values())[3:]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return  # the builder says it reads options of its own
    known = [c.field for c in entry.settings]
    known += [p.name for p in params if p.kind is not p.VAR_POSITIONAL]
    for name in options:
        if name not in known:

            def flag(option: str) -> str:
                return flags.get(option, "--" + option.replace("_", "-"))

            raise CommandError(
                f"a {entry.name} has no option {flag(name)}",
                value=flag(name),
                expected="options " + ", ".join(flag(k) for k in known) if known else "no options",
            )


_HELPERS = {"style", "rules_sheet", "demo"}


def _load_kinds() -> None:
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name in _HELPERS:
            continue
        importlib.import_module(f"{__name__}.{info.name}")


_load_kinds()
