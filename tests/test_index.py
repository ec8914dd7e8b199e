"""The light index of the packaged rule sets (``rulesets/index.py``): what it lists is
what the validated rule sets say; what it keeps is checked, never trusted blindly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from battle_ledger.rulesets import folders, index, registry
from battle_ledger.xlfuncs.cli import cli

CLUB = Path(__file__).resolve().parent / "fixtures" / "house" / "etg-club.yaml"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(folders.CACHE_DIR_ENV, str(folder))
    return folder


def _show(*args: str) -> str:
    result = CliRunner().invoke(cli, ["rules", "show", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_index_lists_what_the_validated_rule_sets_say(cache: Path) -> None:
    expected = [index.summary_of(r) for r in registry.all_rulesets()]
    made = index.summaries()  # an empty cache: made from the rule sets, and kept
    assert made == expected
    assert len(list(cache.glob("*.index.json"))) == len(expected)
    assert index.summaries() == expected  # read back from what was kept
    etg = registry.packaged("etg")
    assert (
        index.find_summary("ETG")
        == index.find_summary("eagles-to-glory")
        == made[[s.id for s in made].index(etg.id)]
    )
    assert [t.name for t in made[[s.id for s in made].index(etg.id)].tables] == list(etg.tables)
    assert index.find_summary("chess") is None


def test_a_kept_index_is_read_only_when_it_is_this_files(cache: Path) -> None:
    """A kept index is what is read (shown by one doctored by hand); one damaged or of
    another rule set is passed by and made again; one of other bytes is never read."""
    plain = index.find_summary("etg")
    assert plain is not None
    (kept,) = cache.glob("eagles-to-glory-*.index.json")
    doctored = json.loads(kept.read_text(encoding="utf-8"))
    doctored["name"] = "read from the cache"
    kept.write_text(json.dumps(doctored), encoding="utf-8")
    assert index.find_summary("etg").name == "read from the cache"  # type: ignore[union-attr]
    first = doctored["tables"][0]
    bad = [
        {**doctored, "id": "age-of-eagles"},
        {**doctored, "tables": [{"name": 3}]},
        {**doctored, "tables": [{**first, "rows": "7"}]},
        {**doctored, "tables": [{**first, "title": None}]},
    ]
    for text in ['{"id": ', *map(json.dumps, bad)]:
        kept.write_text(text, encoding="utf-8")
        assert index.find_summary("etg") == plain
        assert json.loads(kept.read_text(encoding="utf-8"))["name"] == plain.name
    # The key is the file's bytes (and the models'): other bytes, another name.
    data = (folders.DATA_DIR / "eagles-to-glory.yaml").read_bytes()
    assert folders.validation_key(data) in kept.name
    assert folders.validation_key(data + b"\n") != folders.validation_key(data)


def test_a_cache_that_cannot_be_written_lists_all_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv(folders.CACHE_DIR_ENV, str(blocked / "cache"))
    assert index.summaries() == [index.summary_of(r) for r in registry.all_rulesets()]


def test_rules_show_lists_the_house_rules_in_force_not_the_index(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With house rules in force (``--rules``, or a file in the per-user folder), the
    listing is the rule set with them, not the published one the index keeps."""
    published = _show("etg")
    with_club = _show("etg", "--rules", str(CLUB))
    assert with_club != published
    folder = tmp_path / "house-rules"
    folder.mkdir()
    shutil.copy(CLUB, folder / "etg.yaml")
    monkeypatch.setenv(folders.RULES_DIR_ENV, str(folder))
    assert _show("etg") == with_club
