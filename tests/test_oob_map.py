"""One order of battle for several rule sets (``sheets.oob_map``, ``new --ruleset ALL --map``)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections.abc import Sequence
from contextlib import chdir
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battle_ledger import templates
from battle_ledger.rulesets import registry
from battle_ledger.rulesets.errors import BattleLedgerError, NoUnitsError, UnknownTermError
from battle_ledger.rulesets.oob import Unit, type_vocabulary
from battle_ledger.sheets.engine.headless import save_workbook
from battle_ledger.sheets.oob import read_oob
from battle_ledger.sheets.oob_map import OMIT, Mapped, mapped_file, parse_map, read_map
from battle_ledger.templates.demo import mapped_example
from battle_ledger.xlfuncs.cli import cli
from tests.ooxml import validate
from tests.strategies import CLUB_GRADES, CLUB_TYPES, club_orders_of_battle, examples

OOB, MAPS = mapped_example()
BATTLE_LEDGER = (sys.executable, "-m", "battle_ledger.xlfuncs.cli")


def _run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*BATTLE_LEDGER, *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
        check=False,
    )


def _club_rows() -> list[dict[str, str]]:
    lines = [ln for ln in OOB.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
    return list(csv.DictReader(lines))


def _grouped(units: Sequence[Unit]) -> list[Unit]:
    """``units`` as a roster lays them out: side by side, corps by corps, division by
    division, each in the order it first appears (and the units in theirs)."""
    first: dict[tuple[str, ...], int] = {}
    for u in units:
        for key in ((u.side,), (u.side, u.corps), (u.side, u.corps, u.division)):
            first.setdefault(key, len(first))
    return sorted(units, key=lambda u: (first[(u.side,)], first[(u.side, u.corps)],
                                        first[(u.side, u.corps, u.division)]))  # fmt: skip


def _same(mapped: Mapped, back: Any) -> None:
    assert back.ruleset_id == mapped.oob.ruleset_id
    assert len(back.units) == len(mapped.oob.units)
    for a, b in zip(_grouped(mapped.oob.units), back.units, strict=True):
        assert a.same_as(b), (a, b)


@pytest.mark.slow  # nine workbooks built, validated and read (about 20 s)
def test_one_order_of_battle_gives_all_nine_rosters(tmp_path: Path) -> None:
    """The bundled order of battle in the club's words and its map: one roster per rule
    set, as a user runs it; each roster reads back as the order of battle mapped."""
    done = _run("new", "roster", "--ruleset", "ALL", "--oob", OOB, "--map", MAPS,
                "-o", tmp_path / "walcheren.xlsx", "--json", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    written = json.loads(done.stdout)["written"]
    assert sorted(w["ruleset"] for w in written) == sorted(registry.ruleset_ids())
    expected = {m.oob.ruleset_id: m for m in mapped_file(OOB, registry.all_rulesets(),
                                                         read_map(MAPS))}  # fmt: skip
    rows = _club_rows()
    spec = yaml.safe_load(MAPS.read_text(encoding="utf-8"))["rulesets"]
    for w in written:
        path = Path(w["file"])
        assert path == tmp_path / f"walcheren-{w['ruleset']}.xlsx"
        assert validate(path) == []  # a workbook Excel opens without repair
        back = read_oob(path)
        _same(expected[w["ruleset"]], back)
        # Every unit of the file is in the roster, or left out by the map's "omit".
        omitted = {k for k, v in spec[w["ruleset"]].get("types", {}).items() if v == OMIT}
        kept = [r for r in rows if r["type"] not in omitted]
        assert [u.unit for u in back.units] == [r["unit"] for r in kept]
        assert w["left_out"] == len(rows) - len(kept) and w["units"] == len(kept)
        assert expected[w["ruleset"]].oob.title == "Walcheren"  # the file's title kept


def test_every_choice_is_listed(tmp_path: Path) -> None:
    """Each type and grade word a rule set reads is listed once with what it became and
    why: the map's line, or the rules' own word; a column no rule set strength takes too."""
    etg, aoe = mapped_file(OOB, [registry.get("etg"), registry.get("aoe")], read_map(MAPS))
    listed = {(c.what, c.given): c for c in etg.choices}
    for row in _club_rows():
        assert ("type", row["type"]) in listed or ("unit", row["type"]) in listed, row
        if row["grade"]:
            assert ("grade", row["grade"]) in listed
    assert listed[("grade", "trained")].became == "Green"  # class D: the map's word
    assert "line" in listed[("grade", "trained")].why
    assert listed[("type", "hussars")].why == "the rules' own word"
    assert listed[("column", "guns")].became == "not used"
    assert listed[("unit", "frigate")].became == "left out"
    # Age of Eagles: the British side's own reading comes first.
    british = {c.lines: c.became for c in aoe.choices if c.given == "line infantry"}
    assert sorted(british.values()) == ["Columnar Infantry", "Linear Infantry"]
    args = ["--ruleset", "aoe", "--oob", str(OOB), "--map", str(MAPS)]
    shown = CliRunner().invoke(cli, ["new", "roster", *args, "-o", str(tmp_path / "aoe.xlsx")])
    assert shown.exit_code == 0, shown.output
    for choice in aoe.choices:
        assert choice.text() in shown.stdout


def _write_club(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


@settings(max_examples=examples(6), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(rows=club_orders_of_battle(), ruleset_id=st.sampled_from(registry.ruleset_ids()))
def test_a_drawn_order_of_battle_reads_back_mapped(
    rows: list[dict[str, str]], ruleset_id: str, tmp_path: Path
) -> None:
    """Any order of battle in the club's words, mapped to any rule set: a roster that
    reads back as it; or, when the map leaves none of its units, refused as having none."""
    source = _write_club(tmp_path / "drawn.csv", rows)
    ruleset = registry.get(ruleset_id)
    spec = yaml.safe_load(MAPS.read_text(encoding="utf-8"))["rulesets"][ruleset.id]
    omitted = {k for k, v in spec.get("types", {}).items() if v == OMIT}
    kept = [r for r in rows if r["type"] not in omitted]
    if not kept:
        with pytest.raises(NoUnitsError):
            mapped_file(source, [ruleset], read_map(MAPS))
        return
    [mapped] = mapped_file(source, [ruleset], read_map(MAPS))
    assert [u.unit for u in mapped.oob.units] == [r["unit"] for r in kept]
    path = tmp_path / "roster.xlsx"
    save_workbook(templates.build("roster", ruleset, mapped.oob), path, overwrite=True)
    _same(mapped, read_oob(path))


def test_the_club_words_are_the_bundled_ones() -> None:
    """The strategy draws the bundled file's words, every one of which the map handles."""
    rows = _club_rows()
    assert {r["type"] for r in rows} == set(CLUB_TYPES)
    assert {r["grade"] for r in rows} - {""} == set(CLUB_GRADES)


# -- refusals -------------------------------------------------------------------------------


def _refused(tmp_path: Path, *args: str | Path, code: int = 1) -> str:
    before = sorted(p.name for p in tmp_path.iterdir())
    with chdir(tmp_path):
        done = CliRunner().invoke(cli, ["new", "roster", *map(str, args), "-o", "out.xlsx"])
    assert done.exit_code == code, (done.output, done.exception)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written
    return lines[0]


def test_a_word_neither_mapped_nor_the_rules_is_refused_with_its_line(tmp_path: Path) -> None:
    text = OOB.read_text(encoding="utf-8").replace("2/23rd Foot,line infantry",
                                                   "2/23rd Foot,fencibles")  # fmt: skip
    (tmp_path / "army.csv").write_text(text, encoding="utf-8")
    line = next(n for n, ln in enumerate(text.splitlines(), 1) if "fencibles" in ln)
    said = _refused(tmp_path, "--ruleset", "ALL", "--oob", "army.csv", "--map", MAPS)
    for part in (f"line {line}", "'fencibles'", "file army.csv", "rulesets.", "types in"):
        assert part in said, said
    # A grade likewise, naming the rule set's grades and where to map it.
    text = OOB.read_text(encoding="utf-8").replace(",trained,3", ",raw,3")
    (tmp_path / "army.csv").write_text(text, encoding="utf-8")
    said = _refused(tmp_path, "--ruleset", "etg", "--oob", "army.csv", "--map", MAPS)
    assert "'raw'" in said and "grades in" in said and "Guard" in said, said


@pytest.mark.parametrize(
    ("edit", "parts"),
    [
        (("grenadiers: infantry", "grenadiers: fusiliers"), ("'fusiliers'", "type of Eagles")),
        (("trained: D}", "trained: Z}"), ("'Z'", "grade of Eagles")),
        (("{stands: stands}\n  square", "{men: stands}\n  square"), ("no strength 'men'",)),
        (("  eagles-to-glory:", "  eagles-to-gory:"), ("not a rule set",)),
        (("times: 4", "times: 0"), ("times",)),
        (("    grades: none                  # Square", "    grades: {elite: A}  # Square"),
         ("'A'", "grade of Square Eagles", "Stubborn, Guard")),
        (("    grades: none                  # Age of", "    grades: {elite: A}  # Age of"),
         ("Age of Eagles has no grades",)),
        (("hussars: {type: cavalry, grade: medium}", "hussars: {type: cavalry, grade: elite}"),
         ("'elite'",)),
    ],
)  # fmt: skip
def test_a_map_entry_not_the_rules_is_refused_with_its_line(
    tmp_path: Path, edit: tuple[str, str], parts: tuple[str, ...]
) -> None:
    text = MAPS.read_text(encoding="utf-8")
    assert edit[0] in text
    spoiled = text.replace(edit[0], edit[1], 1)
    (tmp_path / "maps.yaml").write_text(spoiled, encoding="utf-8")
    line = next(n for n, ln in enumerate(spoiled.splitlines(), 1) if edit[1].split("\n")[0] in ln)
    said = _refused(tmp_path, "--ruleset", "ALL", "--oob", OOB, "--map", "maps.yaml")
    assert f"line {line}" in said and "file maps.yaml" in said, said
    for part in parts:
        assert part in said, said


def test_a_map_the_rule_set_cannot_use_is_refused_in_the_core() -> None:
    with pytest.raises(BattleLedgerError, match="line 1: unknown key 'rules'"):
        parse_map("rules: {}\n", "m.yaml")
    with pytest.raises(BattleLedgerError, match="names no rule set"):
        parse_map("note: x\n", "m.yaml")
    with pytest.raises(BattleLedgerError, match="mapped twice"):
        parse_map("rulesets:\n  etg: {}\n  eagles-to-glory: {}\n", "m.yaml")
    with pytest.raises(BattleLedgerError, match=r"line 3: .*maps to nothing"):
        parse_map("rulesets:\n  etg:\n    types: {hussars: }\n", "m.yaml")


def test_the_command_itself_wrong_exits_2(tmp_path: Path) -> None:
    said = _refused(tmp_path, "--ruleset", "ALL", "--map", MAPS, code=2)
    assert "--oob" in said
    said = _refused(tmp_path, "--ruleset", "etg", "--oob", OOB, "--json", code=2)
    assert "--json goes with --map" in said


def test_an_unmapped_order_of_battle_for_all_names_the_first_word(tmp_path: Path) -> None:
    """Without a map, ALL reads the words as each rule set's own: Eagles to Glory's
    bundled file is refused for Age of Eagles ("infantry" is not its type)."""
    from battle_ledger.templates.demo import example_path

    said = _refused(tmp_path, "--ruleset", "ALL", "--oob", example_path("etg"))
    assert "not" in said and "and the map does not name it" in said, said


def test_the_maps_targets_are_the_rule_sets_words() -> None:
    """Every target in the bundled map is a word of its rule set (or omit)."""
    spec = yaml.safe_load(MAPS.read_text(encoding="utf-8"))["rulesets"]
    for name, section in spec.items():
        ruleset = registry.get(name)
        for target in section.get("types", {}).values():
            word = target["type"] if isinstance(target, dict) else target
            if word != OMIT:
                ruleset.term(type_vocabulary(ruleset), word)
    with pytest.raises(UnknownTermError):
        registry.get("aoe").term("unit_types", "line infantry")  # why the map is needed


def test_all_means_every_rule_set_the_kind_is_made_for(tmp_path: Path) -> None:
    """A DEP ledger is Eagles to Glory's alone: ALL builds that one, from standard input."""
    text = OOB.read_text(encoding="utf-8")
    args = ["new", "dep-ledger", "--ruleset", "ALL", "--oob", "-", "--map", str(MAPS)]
    done = CliRunner().invoke(cli, [*args, "-o", str(tmp_path / "w.xlsx")], input=text)
    assert done.exit_code == 0, done.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w-eagles-to-glory.xlsx"]
    trained = [str(n) for n, ln in enumerate(text.splitlines(), 1) if ",trained," in ln]
    said = f"grade 'trained' -> Green: {MAPS} line"
    assert f"(lines {', '.join(trained)})" in done.stdout.split(said)[1].splitlines()[0]
