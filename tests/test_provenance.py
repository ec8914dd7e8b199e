"""Every value of every data file says where it comes from in the published text.

A ``quote`` must be found verbatim in the text file the rule set names
(whitespace and simple markup folded), so a typo in the data, or a quote made
up rather than copied, fails here.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from battle_ledger import rulesets
from battle_ledger.rulesets.model import Kind, Ruleset, Status

_TAG = re.compile(r"<[^>]+>")


def _fold(text: str) -> str:
    """Fold what a copy-paste may change: whitespace, HTML tags and entities, smart quotes."""
    text = html.unescape(_TAG.sub(" ", text))
    text = (
        text.replace("\u2019", "'")
        .replace("\u2018", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
        .replace("`", "'")
    )
    return " ".join(text.replace("*", " ").split())


def _quotes(ruleset: Ruleset) -> Iterator[tuple[str, str]]:
    """(key path, quote) for every source of the rule set."""

    def from_source(path: str, source: Any) -> Iterator[tuple[str, str]]:
        if source is None:
            return
        quote = source.quote if hasattr(source, "quote") else source.get("quote")
        if quote:
            yield path, quote

    for vname, vocab in ruleset.vocabularies.items():
        yield from from_source(f"vocabularies.{vname}.source", vocab.source)
        for i, term in enumerate(vocab.terms):
            yield from from_source(f"vocabularies.{vname}.terms[{i}].source", term.source)
    for tname, table in ruleset.tables.items():
        yield from from_source(f"tables.{tname}.source", table.source)
        for cname, const in table.values.items():
            yield from from_source(f"tables.{tname}.values.{cname}.source", const.source)
        for i, row in enumerate(table.rows):
            yield from from_source(f"tables.{tname}.rows[{i}].source", row.get("source"))


@pytest.mark.parametrize("ruleset_id", rulesets.ruleset_ids())
def test_every_quote_is_in_the_text(ruleset_id: str, rules_dir: Path) -> None:
    ruleset = rulesets.get(ruleset_id)
    text_path = rules_dir / ruleset.text
    assert text_path.is_file(), f"{ruleset.path}: text {ruleset.text!r} is not in {rules_dir}"
    text = _fold(text_path.read_text(encoding="utf-8"))
    not_found = [f"{key}: {quote!r}" for key, quote in _quotes(ruleset) if _fold(quote) not in text]
    assert not not_found, f"{ruleset.path}: quotes not found in {ruleset.text}:\n" + "\n".join(
        not_found
    )


@pytest.mark.parametrize("ruleset_id", rulesets.ruleset_ids())
def test_every_value_is_sourced_or_a_house_default(ruleset_id: str) -> None:
    ruleset = rulesets.get(ruleset_id)
    for tname, table in ruleset.tables.items():
        if table.status is Status.HOUSE_DEFAULT:
            assert table.note, f"{tname}: a house-default table must say why (note)"
            continue
        assert table.source is not None, f"{tname} has no source"
        for cname, const in table.values.items():
            if const.house_default:
                assert const.note or table.note, f"{tname}.{cname}: house default without a note"


@pytest.mark.parametrize("ruleset_id", rulesets.ruleset_ids())
def test_missing_tables_keep_their_columns(ruleset_id: str) -> None:
    """A missing table is shown as an empty table to fill in: it needs its headers."""
    ruleset = rulesets.get(ruleset_id)
    for tname, table in ruleset.tables.items():
        if table.status is Status.MISSING and table.kind is not Kind.CONSTANTS:
            assert table.columns, f"{tname}: a missing table must list its columns"
            with pytest.raises(rulesets.MissingTableError, match=re.escape(tname)):
                ruleset.require(tname)
