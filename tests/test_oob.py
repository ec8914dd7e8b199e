"""Orders of battle: CSV and YAML readers, checks against the rule set, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from battle_ledger import rulesets
from battle_ledger.rulesets.errors import BattleLedgerError, InvalidArgumentError, UnknownTermError
from battle_ledger.rulesets.oob import OrderOfBattle, RawUnit, order_of_battle, strength_fields
from battle_ledger.sheets.errors import OrderOfBattleError
from battle_ledger.sheets.oob import read_oob
from battle_ledger.templates.demo import example_path, load_example

HEADER = "side,corps,division,brigade,unit,type,grade,stands,commander\n"


def _csv(tmp_path: Path, body: str, header: str = HEADER, name: str = "army.csv") -> Path:
    path = tmp_path / name
    path.write_text(header + body, encoding="utf-8")
    return path


# -- reading ------------------------------------------------------------------------------


def test_csv_terms_case_blind_and_in_the_texts_own_words(tmp_path: Path) -> None:
    path = _csv(
        tmp_path,
        "French,II,5e,Husson,2e Léger,LIGHT INFANTRY,guard,4,Bachelu\n"
        "French,II,5e,Husson,8e Cuirassiers,cuirassiers,Class B,2,\n"
        "French,II,5e,Husson,Horse guns,HA,c,1,\n",
    )
    oob = read_oob(path, "etg")
    types = [u.type for u in oob.units]
    grades = [u.grade for u in oob.units]
    assert types == ["infantry", "heavy cavalry", "horse artillery"]
    assert grades == ["A", "B", "C"]
    assert [u.line for u in oob.units] == [2, 3, 4]


def test_names_are_kept_exactly(tmp_path: Path) -> None:
    names = ["2e Léger", "O'Connell's \"Wild Geese\"", '=HYPERLINK("x")', "+44", "-3e", "@home"]
    body = "".join(
        f'Côté,Corps d\'armée,Division « A »,Brigade,"{n.replace(chr(34), chr(34) * 2)}",'
        "infantry,C,3,\n"
        for n in names
    )
    oob = read_oob(_csv(tmp_path, body), "etg")
    assert [u.unit for u in oob.units] == names
    assert oob.sides() == ["Côté"]
    assert oob.units[0].corps == "Corps d'armée"
    assert oob.units[0].division == "Division « A »"


def test_names_lose_the_spaces_at_their_ends(tmp_path: Path) -> None:
    """As a ledger reads a cell's text: the sheet's formulas and the operations then
    name a thing alike (issue 33)."""
    body = "Côté , I Corps,  Div A,Brigade, lead ,infantry,C,3, Ney \n"
    unit = read_oob(_csv(tmp_path, body), "etg").units[0]
    assert (unit.side, unit.corps, unit.division, unit.unit, unit.commander) == (
        "Côté",
        "I Corps",
        "Div A",
        "lead",
        "Ney",
    )


def test_blank_strengths_take_the_rule_sets_defaults(tmp_path: Path) -> None:
    etg = rulesets.get("etg")
    path = _csv(
        tmp_path,
        "French,II,5e,Husson,2e Léger,infantry,C,4,\nFrench,II,9e,Jamin,4e Léger,infantry,C,3,40\n"
        "French,II,9e,Jamin,1er Hussards,hussars,C,2,\n",
        header="side,corps,division,brigade,unit,type,grade,stands,dep\n",
    )
    first, second, hussars = read_oob(path, etg).units
    assert first.strengths["dep"] == etg.constant("dep_economy", "max_dep")
    assert second.strengths["dep"] == hussars.strengths["dep"] == 40
    # cavalry charge points: the maximum for a division with cavalry, none without
    assert first.strengths["ccp"] == 0
    assert second.strengths["ccp"] == hussars.strengths["ccp"]
    assert hussars.strengths["ccp"] == etg.constant("dep_economy", "max_ccp")


def test_square_eagles_strength_points_by_type(tmp_path: Path) -> None:
    se = rulesets.get("square-eagles")
    path = _csv(
        tmp_path,
        "B,,D,,A,infantry,\nB,,D,,L,lights,\nB,,D,,C,cavalry,6\n",
        header="side,corps,division,brigade,unit,type,sp\n",
    )
    oob = read_oob(path, se)
    by_type = {r["unit_type"]: r["strength_points"] for r in se.rows("strength_points")}
    assert [u.strengths["sp"] for u in oob.units] == [by_type["infantry"], by_type["lights"], 6]


def test_age_of_sail_frigates_have_two_gun_decks(tmp_path: Path) -> None:
    sail = rulesets.get("age-of-sail")
    path = _csv(
        tmp_path,
        "British,,Van,,Victory,ship of the line,,,\nBritish,,Van,,Euryalus,FRIGATE,,,\n"
        "Pirates,,,,Revenge,pirate,2,,\n",
        header="side,corps,division,brigade,unit,type,gun_decks,masts,hull\n",
    )
    oob = read_oob(path, sail)
    records = {r["ship_type"]: r for r in sail.rows("ship_records")}
    victory, euryalus, revenge = oob.units
    assert victory.strengths["gun_decks"] == records["ship of the line"]["gun_decks_per_side"]
    assert euryalus.strengths["gun_decks"] == records["frigate"]["gun_decks_per_side"] == 2
    assert revenge.strengths["masts"] == records["pirate"]["masts"]
    assert revenge.strengths["hull"] == records["pirate"]["hull_integrity_units"]


def test_yaml_nesting_with_skipped_levels(tmp_path: Path) -> None:
    path = tmp_path / "army.yaml"
    path.write_text(
        "ruleset: etg\n"
        "sides:\n"
        "  - side: French\n"
        "    corps:\n"
        "      - corps: II Corps\n"
        "        divisions:\n"
        "          - division: 5e Division\n"
        "            commander: Bachelu\n"
        "            dep: 44\n"
        "            brigades:\n"
        "              - brigade: Husson\n"
        "                units:\n"
        "                  - {unit: 2e Léger, type: infantry, grade: Veteran, stands: 4}\n"
        "  - side: British\n"
        "    divisions:\n"
        "      - division: 5th Division\n"
        "        units:\n"
        "          - {name: 28th Foot, type: infantry, grade: elite, stands: 2}\n",
        encoding="utf-8",
    )
    oob = read_oob(path)  # the rule set from the file
    assert oob.ruleset_id == "eagles-to-glory"
    french, british = oob.units
    assert (french.corps, french.division, french.brigade) == ("II Corps", "5e Division", "Husson")
    assert french.commander == "Bachelu"
    assert french.strengths == {"stands": 4, "dep": 44, "ccp": 0}
    assert (british.corps, british.brigade, british.unit) == ("", "", "28th Foot")
    assert french.line == 13 and british.line == 18


def test_helpers_sides_divisions_total() -> None:
    oob = load_example("eagles-to-glory")
    assert oob.sides() == ["French", "Anglo-Allied"]
    assert ("French", "IIe Corps", "5e Division") in oob.divisions("French")
    assert all(d[0] == "French" for d in oob.divisions("French"))
    assert oob.total("stands") == sum(u.strengths["stands"] for u in oob.units)


@pytest.mark.parametrize("ruleset_id", rulesets.ruleset_ids())
def test_every_rule_set_has_a_bundled_example(ruleset_id: str) -> None:
    path = example_path(ruleset_id)
    assert path.suffix in (".csv", ".yaml")
    oob = load_example(ruleset_id)
    assert isinstance(oob, OrderOfBattle)
    assert oob.ruleset_id == ruleset_id
    assert len(oob.sides()) == 2
    assert 8 <= len(oob.units) <= 40  # small enough to read
    fields = strength_fields(rulesets.get(ruleset_id))
    # every unit has each strength that applies to it
    rs = rulesets.get(ruleset_id)
    from battle_ledger.rulesets.oob import type_vocabulary

    for unit in oob.units:
        ut = rs.term(type_vocabulary(rs), unit.type)
        for f in fields:
            if f.applies_to(rs, ut) and not f.optional:
                assert f.name in unit.strengths, (unit.unit, f.name)


# -- errors: file, line and value named ----------------------------------------------------


@pytest.mark.parametrize(
    ("body", "error", "words"),
    [
        ("French,II,5e,H,2e Léger,tank,C,4,\n", UnknownTermError, ["line 2", "'tank'", "type"]),
        ("French,II,5e,H,2e Léger,infantry,Z,4,\n", UnknownTermError, ["line 2", "'Z'", "grade"]),
        (",II,5e,H,2e Léger,infantry,C,4,\n", InvalidArgumentError, ["line 2", "side"]),
        ("French,II,5e,H,2e Léger,infantry,C,-1,\n", InvalidArgumentError, ["line 2", "'-1'"]),
        ("French,II,5e,H,2e Léger,infantry,C,2.5,\n", InvalidArgumentError, ["line 2", "'2.5'"]),
        ("French,II,5e,H,2e Léger,infantry,C,,\n", InvalidArgumentError, ["line 2", "stands"]),
        (
            "French,II,5e,H,61e,infantry,C,3,\nFrench,II,5e,K,61e,infantry,C,3,\n",
            InvalidArgumentError,
            ["line 3", "'61e'", "line 2"],
        ),
    ],
)
def test_csv_errors_name_file_line_value(
    tmp_path: Path, body: str, error: type[Exception], words: list[str]
) -> None:
    path = _csv(tmp_path, body)
    with pytest.raises(error) as caught:
        read_oob(path, "etg")
    message = str(caught.value)
    assert str(path) in message
    for word in words:
        assert word in message


def test_same_unit_name_in_another_division_is_fine(tmp_path: Path) -> None:
    path = _csv(tmp_path, "F,II,5e,H,61e,infantry,C,3,\nF,II,9e,H,61e,infantry,C,3,\n")
    assert len(read_oob(path, "etg").units) == 2


def test_unknown_column(tmp_path: Path) -> None:
    path = _csv(
        tmp_path, "F,II,5e,H,61e,infantry,C,3,x\n", header=HEADER.replace("commander", "mood")
    )
    with pytest.raises(InvalidArgumentError, match=r"unknown column 'mood'") as caught:
        read_oob(path, "etg")
    assert str(path) in str(caught.value) and "line 2" in str(caught.value)


def test_a_strength_the_unit_type_does_not_have(tmp_path: Path) -> None:
    path = _csv(
        tmp_path,
        "US,,Boyd,,Upham's battery,foot artillery,conscript,5,2\n",
        header="side,corps,division,brigade,unit,type,grade,figures,guns\n",
    )
    with pytest.raises(InvalidArgumentError, match="figures does not apply"):
        read_oob(path, "glory-of-the-empire")


def test_division_values_must_agree(tmp_path: Path) -> None:
    header = "side,corps,division,brigade,unit,type,grade,stands,dep\n"
    path = _csv(tmp_path, "F,II,5e,H,61e,infantry,C,3,40\nF,II,5e,H,72e,infantry,C,3,44\n", header)
    with pytest.raises(InvalidArgumentError, match="differs from line 2"):
        read_oob(path, "etg")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("sides:\n  - side: F\n    units:\n      - {unit: A, type: tank, stands: 1}\n", ["line 4"]),
        ("sides:\n  - side: F\n    colour: blue\n", ["line 2", "colour"]),
        (
            "sides:\n  - side: F\n    units:\n      - {unit: A, type: infantry, stands: -2}\n",
            ["-2"],
        ),
        ("sides: [\n", ["not valid YAML"]),
        ("ruleset: square-eagles\nsides: []\n", ["square-eagles", "eagles-to-glory"]),
        ("units: []\n", ["sides"]),
    ],
)
def test_yaml_errors(tmp_path: Path, text: str, words: list[str]) -> None:
    path = tmp_path / "army.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BattleLedgerError) as caught:
        read_oob(path, "etg")
    message = str(caught.value)
    assert str(path) in message
    for word in words:
        assert word in message


def test_not_an_order_of_battle(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="no such file"):
        read_oob(tmp_path / "missing.csv", "etg")
    odd = tmp_path / "army.txt.gz"
    odd.write_bytes(b"\x1f\x8b")
    with pytest.raises(OrderOfBattleError, match="not an order of battle"):
        read_oob(odd, "etg")
    empty = tmp_path / "empty.csv"
    empty.write_text("# nothing\n", encoding="utf-8")
    with pytest.raises(OrderOfBattleError, match="empty"):
        read_oob(empty, "etg")


def test_order_of_battle_needs_units() -> None:
    with pytest.raises(InvalidArgumentError, match="no units"):
        order_of_battle(rulesets.get("etg"), [], "x.csv")
    unit = RawUnit({"side": "F", "unit": "A", "type": "infantry", "stands": 1}, line=7)
    assert order_of_battle(rulesets.get("etg"), [unit], "x.csv").units[0].line == 7


# -- the CLI writes nothing on a bad order of battle ------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "French,II,5e,H,2e Léger,tank,C,4,\n",
        ",II,5e,H,2e Léger,infantry,C,4,\n",
        "French,II,5e,H,2e Léger,infantry,C,-4,\n",
        "French,II,5e,H,61e,infantry,C,3,\nFrench,II,5e,H,61e,infantry,C,3,\n",
    ],
)
def test_cli_new_roster_bad_oob_writes_nothing(tmp_path: Path, body: str) -> None:
    from battle_ledger.xlfuncs.cli import cli

    path = _csv(tmp_path, body)
    out = tmp_path / "roster.xlsx"
    result = CliRunner().invoke(
        cli, ["new", "roster", "--ruleset", "etg", "--oob", str(path), "-o", str(out)]
    )
    assert result.exit_code == 1, result.output
    assert str(path) in result.output and "line" in result.output
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left either


def test_semicolons_and_tabs_as_excel_writes_them(tmp_path: Path) -> None:
    cells = ["F", "II", "5e", "H", "2e, Léger", "inf", "C", "4", ""]
    for sep in (";", "\t"):
        path = tmp_path / "army.csv"
        path.write_text(HEADER.replace(",", sep) + sep.join(cells) + "\n", encoding="utf-8-sig")
        (unit,) = read_oob(path, "etg").units
        assert unit.unit == "2e, Léger" and unit.strengths["stands"] == 4


def test_control_characters_are_refused(tmp_path: Path) -> None:
    path = _csv(tmp_path, 'F,II,5e,H,"2e\x07Léger",infantry,C,4,\n')
    with pytest.raises(InvalidArgumentError, match="control character") as caught:
        read_oob(path, "etg")
    assert "line 2" in str(caught.value) and str(path) in str(caught.value)


# -- bombs: refused at once, one line ---------------------------------------------------


def _alias_bomb() -> str:
    """Nine levels of nine aliases each: 7 KB that a loader following aliases grows to
    9^9 items (gigabytes)."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 9):
        items = ", ".join([f"*a{level - 1}"] * 9)
        lines.append(f"a{level}: &a{level} [{items}]")
    lines.append("sides: [*a8]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (_alias_bomb(), "an alias"),
        ("sides: " + "[" * 20_000 + "]" * 20_000 + "\n", "nested deeper than"),
        ("sides:\n  - side: A\n    dep: " + "9" * 5000 + "\n", "digits"),
    ],
    ids=["alias bomb", "20,000 deep", "5,000 digits"],
)
def test_yaml_bombs_are_refused_at_once(text: str, words: str, tmp_path: Path) -> None:
    import time

    path = tmp_path / "bomb.yaml"
    path.write_text(text, encoding="utf-8")
    began = time.monotonic()
    with pytest.raises(InvalidArgumentError, match=words):
        read_oob(path, "etg")
    assert time.monotonic() - began < 5.0  # about 0.3 s here; the bomb once took 191 s


def test_an_order_of_battle_too_large_is_refused_unread(tmp_path: Path) -> None:
    from battle_ledger.sheets import oob

    path = tmp_path / "huge.csv"
    with path.open("wb") as handle:
        handle.truncate(oob.MAX_OOB_BYTES + 1)  # sparse: nothing is written, nothing read
    with pytest.raises(InvalidArgumentError, match="too large"):
        read_oob(path, "etg")


# -- the battle's facts -------------------------------------------------------------------


def test_csv_comment_lines_give_the_battles_title_date_and_start(tmp_path: Path) -> None:
    path = _csv(tmp_path, "French,II,5e,Husson,2e Léger,infantry,A,4,\n",
                header="# Quatre Bras: a note that is not a fact\n# title: Quatre Bras\n"
                "# Date: 1815-06-16\n#start: 15:00\n" + HEADER)  # fmt: skip
    oob = read_oob(path, "etg")
    assert (oob.title, oob.date, oob.start) == ("Quatre Bras", "1815-06-16", "15:00")
    plain = read_oob(_csv(tmp_path, "French,II,5e,Husson,2e Léger,infantry,A,4,\n",
                          name="plain.csv"), "etg")  # fmt: skip
    assert (plain.title, plain.date, plain.start) == ("", "", "")


def test_yaml_title_date_and_start_even_unquoted(tmp_path: Path) -> None:
    path = tmp_path / "oob.yaml"
    path.write_text(
        "ruleset: etg\ntitle: Ligny\ndate: 1815-06-16\nstart: 14:30\nsides:\n"
        "  - side: French\n    divisions:\n      - division: 1e\n        units:\n"
        "          - {unit: 2e Léger, type: infantry, grade: A, stands: 4}\n",
        encoding="utf-8",
    )
    oob = read_oob(path)
    assert (oob.title, oob.date, oob.start) == ("Ligny", "1815-06-16", "14:30")


@pytest.mark.parametrize(
    ("line", "words"),
    [("# date: 16/06/1815", "the battle's date is not a date"),
     ("# start: 3 p.m.", "the time turn 1 starts is not a time of day")],
)  # fmt: skip
def test_a_bad_date_or_start_is_refused_with_its_file(
    tmp_path: Path, line: str, words: str
) -> None:
    path = _csv(
        tmp_path, "French,II,5e,Husson,2e Léger,infantry,A,4,\n", header=line + "\n" + HEADER
    )
    with pytest.raises(OrderOfBattleError, match=words) as err:
        read_oob(path, "etg")
    assert str(path) in str(err.value)


def test_new_names_the_battle_from_the_order_of_battle_unless_told(tmp_path: Path) -> None:
    import datetime

    import openpyxl

    from battle_ledger.xlfuncs.cli import cli
    from tests.tables import named_cell

    oob = example_path("etg")
    runner = CliRunner()
    out = tmp_path / "l.xlsx"
    args = ["new", "dep-ledger", "--ruleset", "etg", "--oob", str(oob), "--max-dep", "40"]
    done = runner.invoke(cli, [*args, "--turns-shown", "12", "-o", str(out)])
    assert done.exit_code == 0, done.output
    wb = openpyxl.load_workbook(out)
    assert named_cell(wb, "BattleName").value == "Quatre Bras"
    assert named_cell(wb, "BattleDate").value == "1815-06-16"
    assert named_cell(wb, "StartTime").value == datetime.time(15, 0)
    assert named_cell(wb, "MaxDEP").value == 40
    told = tmp_path / "t.xlsx"
    runner.invoke(cli, ["new", "dep-ledger", "--ruleset", "etg", "--oob", str(oob), "--battle",
                        "Les Quatre-Bras", "--start", "14:00", "--date", "1815-06-17", "-o",
                        str(told)])  # fmt: skip
    wb = openpyxl.load_workbook(told)
    assert named_cell(wb, "BattleName").value == "Les Quatre-Bras"
    assert named_cell(wb, "BattleDate").value == "1815-06-17"
    assert named_cell(wb, "StartTime").value == datetime.time(14, 0)
    refused = runner.invoke(cli, ["new", "dep-ledger", "--ruleset", "etg", "--date", "16/6/1815",
                                  "-o", str(tmp_path / "x.xlsx")])  # fmt: skip
    assert refused.exit_code == 1 and "the date is not a date" in refused.stderr
    assert not (tmp_path / "x.xlsx").exists()


def test_every_mistake_is_told_at_once(tmp_path: Path) -> None:
    path = _csv(tmp_path, "French,II,5e,H,2e Léger,infantry,A,4,\nFrench,II,5e,H,,infantry,A,4,\n"
                "French,II,5e,H,61e,tanks,A,4,\nFrench,II,5e,H,62e,infantry,Z,4,\n")  # fmt: skip
    with pytest.raises(InvalidArgumentError) as err:
        read_oob(path, "etg")
    text = str(err.value)
    assert text.startswith("3 mistakes in the order of battle: (1) line 3: the unit is missing")
    assert "(2) line 4: unknown type" in text and "'tanks'" in text
    assert "(3) line 5: unknown grade" in text and text.count(str(path)) == 1


def test_an_order_of_battle_from_standard_input(tmp_path: Path) -> None:
    from battle_ledger.xlfuncs.cli import cli

    runner = CliRunner()
    for example, kind in (("etg", "dep-ledger"), ("age-of-glaube", "victory-table")):
        out = tmp_path / f"{example}.xlsx"
        text = example_path(example).read_text(encoding="utf-8")
        done = runner.invoke(cli, ["new", kind, "--ruleset", example, "--oob", "-", "-o",
                                   str(out)], input=text)  # fmt: skip
        assert done.exit_code == 0, done.output
        report = runner.invoke(cli, ["report", str(out)])
        assert report.stdout.startswith(load_example(example).title)
    bad = runner.invoke(cli, ["new", "dep-ledger", "--ruleset", "etg", "--oob", "-", "-o",
                              str(tmp_path / "bad.xlsx")], input="side,unit\nx,y\n")  # fmt: skip
    assert bad.exit_code == 1 and "(file standard input" in bad.stderr
    assert not (tmp_path / "bad.xlsx").exists()
