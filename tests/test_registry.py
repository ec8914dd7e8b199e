"""Loading and validating rule-set data files (rulesets/model.py, rulesets/registry.py)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from battle_ledger import rulesets
from battle_ledger.rulesets import registry
from battle_ledger.rulesets.errors import (
    InvalidArgumentError,
    MissingTableError,
    RulesetDataError,
    UnknownRulesetError,
    UnknownTermError,
)
from battle_ledger.rulesets.registry import load_file

EXPECTED_IDS = {
    "eagles-to-glory": ["etg"],
    "square-eagles": ["se"],
    "age-of-eagles": ["aoe"],
    "glory-of-the-empire": ["gote"],
    "age-of-glaube": [],
    "age-of-gloire": [],
    "age-of-reason": [],
    "age-of-destiny": [],
    "age-of-sail": ["sail"],
}

_GOOD = """\
id: demo
name: Demo rules
text: demo.txt
vocabularies:
  grades:
    title: Grades
    terms:
      - {id: A, name: Guard, aliases: [class a]}
      - {id: B, name: Line}
tables:
  basics:
    title: Basics
    kind: constants
    source: {section: One}
    values:
      max_dep: {value: 48, source: {section: One, quote: "48"}}
      unknown: {value: null, source: {section: One}}
  fire:
    title: Fire table
    kind: brackets
    source: {section: Two}
    range: [low, high]
    key: [grade, low]
    columns:
      - {name: grade, type: str}
      - {name: low, type: int}
      - {name: high, type: int, optional: true}
      - {name: result, type: str}
    rows:
      - {grade: A, low: 1, high: 4, result: miss}
      - {grade: A, low: 5, high: 9, result: hit}
      - {grade: A, low: 10, result: kill}
      - {grade: B, low: 1, high: 9, result: miss}
  crt:
    title: Combat results table
    kind: rows
    status: missing
    source: {section: Three, note: the text refers to it but does not print it}
    columns:
      - {name: odds, type: str}
      - {name: result, type: str}
"""


def _write(tmp_path: Path, text: str, name: str = "demo.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_every_rule_set_of_the_design_loads_with_its_aliases() -> None:
    ids = rulesets.ruleset_ids()
    for rid, aliases in EXPECTED_IDS.items():
        if rid not in ids:
            pytest.fail(f"rule set {rid} has no data file")
        for name in (rid, rid.upper(), *aliases, *(a.upper() for a in aliases)):
            assert rulesets.get(name).id == rid


def test_unknown_rule_set_lists_the_known_ones() -> None:
    with pytest.raises(UnknownRulesetError, match="eagles-to-glory") as err:
        rulesets.get("warhammer")
    assert "warhammer" in str(err.value)


def test_a_good_file_loads_and_answers(tmp_path: Path) -> None:
    rs = load_file(_write(tmp_path, _GOOD))
    assert rs.path.endswith("demo.yaml")
    assert rs.constant("basics", "max_dep") == 48
    assert rs.term("grades", "  GUARD ").id == "A"
    assert rs.bracket("fire", 7, grade="a")["result"] == "hit"
    assert rs.bracket("fire", 99, grade="A")["result"] == "kill"
    with pytest.raises(InvalidArgumentError, match="no bracket"):
        rs.bracket("fire", 0, grade="A")


def test_missing_values_and_tables_name_the_table_and_the_file(tmp_path: Path) -> None:
    rs = load_file(_write(tmp_path, _GOOD))
    with pytest.raises(MissingTableError) as err:
        rs.require("crt")
    # what to fill in, where: a house-rules file, never the packaged data file
    assert "crt" in str(err.value) and "demo.yaml" not in str(err.value)
    assert "rules init-house demo" in str(err.value)
    with pytest.raises(MissingTableError, match=r"basics\.unknown.*rules init-house"):
        rs.constant("basics", "unknown")
    with pytest.raises(MissingTableError, match="does not give 'nope'"):
        rs.constant("basics", "nope")


def test_unknown_term_lists_what_is_allowed(tmp_path: Path) -> None:
    rs = load_file(_write(tmp_path, _GOOD))
    with pytest.raises(UnknownTermError) as err:
        rs.term("grades", "Conscript")
    assert "'Conscript'" in str(err.value) and "Guard, Line" in str(err.value)


@pytest.mark.parametrize(
    ("change", "key"),
    [
        # wrong type
        (('value: 48, source: {section: One, quote: "48"}', "value: 48, source: 7"), "max_dep"),
        # unknown key
        (("title: Basics\n", "title: Basics\n    colour: red\n"), "colour"),
        # a row of the wrong type
        (("{grade: B, low: 1, high: 9", "{grade: B, low: one, high: 9"), "rows[3]"),
        # bracket gap (5..9 -> 6..9 leaves 5 uncovered)
        (("{grade: A, low: 5, high: 9", "{grade: A, low: 6, high: 9"), "gap"),
        # bracket overlap
        (("{grade: A, low: 5, high: 9", "{grade: A, low: 4, high: 9"), "overlap"),
        # a missing table with rows
        (
            (
                "      - {name: odds, type: str}\n      - {name: result, type: str}\n",
                "      - {name: odds, type: str}\n      - {name: result, type: str}\n"
                "    rows:\n      - {odds: 1-1, result: Dr}\n",
            ),
            "crt",
        ),
        # a constant with neither source nor house_default
        (("unknown: {value: null, source: {section: One}}", "unknown: {value: 3}"), "unknown"),
    ],
    ids=[
        "wrong-type",
        "unknown-key",
        "row-type",
        "bracket-gap",
        "bracket-overlap",
        "missing-with-rows",
        "unsourced",
    ],
)
def test_a_broken_file_fails_at_load_naming_file_and_key(
    tmp_path: Path, change: tuple[str, str], key: str
) -> None:
    old, new = change
    assert old in _GOOD
    path = _write(tmp_path, _GOOD.replace(old, new, 1))
    with pytest.raises(RulesetDataError) as err:
        load_file(path)
    message = str(err.value)
    assert str(path) in message
    assert key in message


def test_a_key_given_twice_fails(tmp_path: Path) -> None:
    path = _write(tmp_path, _GOOD.replace("name: Demo rules\n", "name: Demo rules\nname: Again\n"))
    with pytest.raises(RulesetDataError, match="duplicate key 'name'"):
        load_file(path)


def test_not_yaml_and_not_a_mapping(tmp_path: Path) -> None:
    with pytest.raises(RulesetDataError, match="not valid YAML"):
        load_file(_write(tmp_path, "id: [unclosed\n"))
    with pytest.raises(RulesetDataError, match="mapping"):
        load_file(_write(tmp_path, "- a\n- b\n"))


def test_a_spelling_shared_by_two_terms_fails(tmp_path: Path) -> None:
    path = _write(
        tmp_path, _GOOD.replace("{id: B, name: Line}", "{id: B, name: Line, aliases: [guard]}")
    )
    with pytest.raises(RulesetDataError, match="guard"):
        load_file(path)


def test_a_packaged_file_is_parsed_once_and_kept_in_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache holds the parse of the very bytes it was made from: the same rule set
    from it as from the YAML; a stale, damaged or unwritable cache changes nothing."""
    monkeypatch.setenv(registry.CACHE_DIR_ENV, str(tmp_path / "cache"))
    path = registry.DATA_DIR / "eagles-to-glory.yaml"
    plain = registry.load_file(path)
    first = registry.load_file(path, packaged=True)
    kept = list((tmp_path / "cache").glob("eagles-to-glory-*-v1.json"))
    assert len(kept) == 1
    assert registry.load_file(path, packaged=True) == first == plain
    # A parse it holds is what is read (no YAML): shown by one planted by hand.
    doctored = json.loads(kept[0].read_text(encoding="utf-8"))
    doctored["name"] = "read from the cache"
    kept[0].write_text(json.dumps(doctored), encoding="utf-8")
    assert registry.load_file(path, packaged=True).name == "read from the cache"
    # Damaged: parsed again, and the good parse kept in its place.
    kept[0].write_text('{"id": ', encoding="utf-8")
    assert registry.load_file(path, packaged=True) == plain
    assert json.loads(kept[0].read_text(encoding="utf-8"))["name"] == plain.name
    # An older parse (other bytes) goes when a new one is kept.
    digest = kept[0].name.split("-")[-2]
    older = kept[0].with_name(kept[0].name.replace(digest, "0" * len(digest)))
    older.write_text("{}", encoding="utf-8")
    kept[0].unlink()
    registry.load_file(path, packaged=True)
    assert not older.exists()
    # A cache that cannot be written: loaded all the same.
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv(registry.CACHE_DIR_ENV, str(blocked / "cache"))
    assert registry.load_file(path, packaged=True) == plain


def _counting_validations(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The data every ``Ruleset`` validation is given from now on, in a list."""
    from battle_ledger.rulesets.model import Ruleset

    validated: list[object] = []
    real = Ruleset.model_validate.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Ruleset], *args: object, **kwargs: object) -> Ruleset:
        validated.append(args[0])
        return real(cls, *args, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(Ruleset, "model_validate", classmethod(counted))
    return validated


def test_two_folders_of_the_same_data_keep_their_own_validations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two installations sharing a user (two checkouts, two environments) each keep their
    own entry: loading from one does not evict the other's, so neither validates again.
    (Named by the data file alone, each load found the other's, a rule set of another
    path, and validated and replaced it: every command, in turn.)"""
    monkeypatch.setenv(registry.CACHE_DIR_ENV, str(tmp_path / "cache"))
    source = registry.DATA_DIR / "eagles-to-glory.yaml"
    paths = []
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        paths.append(tmp_path / name / source.name)
        paths[-1].write_bytes(source.read_bytes())
    first = [registry._validated(path) for path in paths]
    assert [r.path for r in first] == [str(p) for p in paths]
    assert len(list((tmp_path / "cache").glob("eagles-to-glory-*.pickle"))) == 2

    validated = _counting_validations(monkeypatch)
    for path in [*paths, *paths]:
        assert registry._validated(path).path == str(path)
    assert validated == []
    # New bytes in one folder: its older entry goes, the other folder's stays.
    paths[0].write_bytes(source.read_bytes() + b"\n# changed\n")
    registry._validated(paths[0])
    assert len(validated) == 1
    assert len(list((tmp_path / "cache").glob("eagles-to-glory-*.pickle"))) == 2
    assert registry._validated(paths[1]).path == str(paths[1]) and len(validated) == 1


def test_the_cache_folder_is_the_platforms(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(registry.CACHE_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere/cache")
    if sys.platform not in ("win32", "darwin"):
        assert registry.cache_dir() == Path("/somewhere/cache/battle-ledger")
    monkeypatch.setenv(registry.CACHE_DIR_ENV, "/else")
    assert registry.cache_dir() == Path("/else")


def test_a_packaged_rule_set_is_validated_once_and_kept_in_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A packaged rule set's validation is kept (``registry._validated``): the next load
    validates nothing and gives the same rule set; what the cache holds is checked before
    it is used, and a damaged or foreign one is validated again and replaced."""
    import pickle

    monkeypatch.setenv(registry.CACHE_DIR_ENV, str(tmp_path / "cache"))
    path = registry.DATA_DIR / "eagles-to-glory.yaml"
    plain = registry.load_file(path)
    first = registry._validated(path)
    kept = list((tmp_path / "cache").glob("eagles-to-glory-*-v1.pickle"))
    assert len(kept) == 1 and first == plain
    other = registry.load_file(registry.DATA_DIR / "age-of-eagles.yaml")

    validated = _counting_validations(monkeypatch)
    again = registry._validated(path)
    assert again == plain and again is not first and validated == []
    assert again.path == str(path)
    # Damaged: validated again, and the validation kept in its place.
    kept[0].write_bytes(b"not a pickle")
    assert registry._validated(path) == plain and len(validated) == 1
    assert pickle.loads(kept[0].read_bytes()) == plain
    # Another rule set under this one's name: not taken for it.
    kept[0].write_bytes(pickle.dumps(other))
    assert registry._validated(path) == plain and len(validated) == 2
    # A cache that cannot be written: loaded all the same.
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv(registry.CACHE_DIR_ENV, str(blocked / "cache"))
    assert registry._validated(path) == plain
