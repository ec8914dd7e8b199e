"""Every workbook we write passes a real OOXML validator (``tests/ooxml.py``).

Every template of every kind for every rule set the catalogue allows (blank and from
the bundled order of battle), and every kind after each of its operations on both
paths (fast and openpyxl), on our ledgers and (slow) on ledgers LibreOffice saved: there
the validator judges LibreOffice's own output, so the check is that our operations add
no problem to it.
A planted fault of each family is caught, so none of this passes by seeing nothing.
"""

from __future__ import annotations

import re
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from battle_ledger import templates
from battle_ledger.rulesets import registry
from battle_ledger.sheets.engine.zipbook import ENGINE_VARIABLE
from battle_ledger.sheets.ledger import KINDS
from battle_ledger.sheets.operations import load_operations, operations_for, run_on_file
from battle_ledger.templates.demo import example_path
from battle_ledger.xlfuncs.cli import cli
from tests.conftest import HOUSE_FIXTURES
from tests.libreoffice import require_soffice, resaved
from tests.ooxml import NOISE, validate
from tests.strategies import (
    PLAYBOOKS,
    build_from_example,
    options_for,
    played_for,
)

load_operations()


def _catalogue() -> list[tuple[str, str]]:
    return [(k.name, rs.id) for rs in registry.all_rulesets() for k in templates.kinds_for(rs)]


@pytest.mark.parametrize("oob", [False, True], ids=["blank", "oob"])
@pytest.mark.parametrize(("kind", "ruleset"), _catalogue())
def test_every_template_is_valid(kind: str, ruleset: str, oob: bool, tmp_path: Path) -> None:
    path = tmp_path / "new.xlsx"
    given = ["--oob", str(example_path(ruleset))] if oob else []
    args = ["new", kind, "--ruleset", ruleset, *given, "-o", str(path)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert validate(path) == []


@pytest.mark.parametrize(
    ("kind", "ruleset", "house"),
    [("dep-ledger", "etg", "etg-club.yaml"), ("campaign", "gote", "gote-campaign.yaml")],
)
def test_a_template_carrying_house_rules_is_valid(
    kind: str, ruleset: str, house: str, tmp_path: Path
) -> None:
    path = tmp_path / "new.xlsx"
    rules = str(HOUSE_FIXTURES / house)
    args = ["new", kind, "--ruleset", ruleset, "--rules", rules, "-o", str(path)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert validate(path) == []


def _operation_cases() -> list[tuple[str, str]]:
    return [(kind, op.name) for kind in sorted(KINDS) for op in operations_for(kind)]


_Prepared = Callable[[str, str], tuple[Path, dict[str, str]]]


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> _Prepared:
    """``prepared(kind, operation)``: the played ledger for ``operation``
    (``tests.strategies.played_for``), validated, and the operation's options on it;
    one ledger a kind (and one a variant), made once for every operation and both paths."""
    played: dict[tuple[str, str | None], Path] = {}
    made: dict[tuple[str, str], tuple[Path, dict[str, str]]] = {}

    def get(kind: str, operation: str) -> tuple[Path, dict[str, str]]:
        key = (kind, operation if operation in PLAYBOOKS[kind].variants else None)
        if key not in played:
            folder = tmp_path_factory.mktemp(kind)
            played[key] = played_for(kind, operation, folder / "ledger.xlsx")
            assert validate(played[key]) == []  # the played ledger, before an operation
        if (kind, operation) not in made:
            made[kind, operation] = played[key], options_for(kind, operation, played[key])
        return made[kind, operation]

    return get


@pytest.mark.parametrize("engine", ["fast", "openpyxl"])
@pytest.mark.parametrize(("kind", "operation"), _operation_cases())
def test_every_operation_leaves_a_valid_ledger(
    kind: str,
    operation: str,
    engine: str,
    prepared: _Prepared,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    played, options = prepared(kind, operation)
    path = Path(shutil.copy(played, tmp_path / "ledger.xlsx"))
    monkeypatch.setenv(ENGINE_VARIABLE, engine)  # 'fast': any other value is the fast path
    run_on_file(path, operation, **options)
    assert validate(path) == []


def _where(problem: str) -> str:
    """A problem without positions (``row[12]``): the rows an operation appends move the
    positions of the problems LibreOffice left below them, not the problems."""
    return re.sub(r"\[\d+\]", "", problem)


_Resaved = Callable[[str, str], tuple[Path, set[str]]]


@pytest.fixture(scope="module")
def saved_by_libreoffice(tmp_path_factory: pytest.TempPathFactory) -> _Resaved:
    """``saved_by_libreoffice(kind, operation)``: the played ledger for ``operation``
    (``tests.strategies.played_for``) as LibreOffice saves it, and LibreOffice's own
    problems in it; one a kind (and one a variant), made once for every operation."""
    made: dict[tuple[str, str | None], tuple[Path, set[str]]] = {}

    def get(kind: str, operation: str) -> tuple[Path, set[str]]:
        key = (kind, operation if operation in PLAYBOOKS[kind].variants else None)
        if key not in made:
            require_soffice()
            folder = tmp_path_factory.mktemp(f"{kind}-libreoffice")
            played = played_for(kind, operation, folder / "played.xlsx")
            path = resaved(played, folder / "ledger.xlsx")
            made[key] = path, {_where(p) for p in validate(path)}
        return made[key]

    return get


@pytest.mark.slow
@pytest.mark.libreoffice
@pytest.mark.parametrize("engine", ["fast", "openpyxl"])
@pytest.mark.parametrize(("kind", "operation"), _operation_cases())
def test_our_operations_add_no_problem_to_a_ledger_libreoffice_saved(
    kind: str,
    operation: str,
    engine: str,
    saved_by_libreoffice: _Resaved,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    saved, theirs = saved_by_libreoffice(kind, operation)
    path = Path(shutil.copy(saved, tmp_path / "ledger.xlsx"))
    options = options_for(kind, operation, path)
    monkeypatch.setenv(ENGINE_VARIABLE, engine)
    run_on_file(path, operation, **options)
    assert {_where(p) for p in validate(path)} <= theirs


# -- the validator sees a fault of each family ------------------------------------------


def _rezip(source: Path, target: Path, part: str, change: Callable[[bytes], bytes]) -> Path:
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == part:
                changed = change(data)
                assert changed != data, f"nothing planted in {part}"
                data = changed
            dst.writestr(info, data)
    return target


def _cols_after_sheet_data(xml: bytes) -> bytes:
    cols = re.search(rb"<cols>.*?</cols>", xml)
    assert cols is not None
    xml = xml.replace(cols[0], b"")
    return xml.replace(b"</sheetData>", b"</sheetData>" + cols[0])


def _a_table_one_column_wider(xml: bytes) -> bytes:
    ref = re.search(rb' ref="([A-Z]+\d+):([A-Z]+)(\d+)"', xml)
    assert ref is not None
    wider = b"%s:%s%s" % (ref[1], bytes([ref[2][-1] + 1]), ref[3])  # ends before column Z
    return xml.replace(ref[0], b' ref="%s"' % wider, 1).replace(
        b'<autoFilter ref="%s:%s%s"' % (ref[1], ref[2], ref[3]), b'<autoFilter ref="%s"' % wider
    )


def _a_second_cell_of_the_same_reference(xml: bytes) -> bytes:
    """The second cell of the first row with two cells takes the first one's reference."""
    within_a_row = rb"(?:(?!</row>).)*?"
    first_two = rb'(<row [^>]*><c r="([A-Z]+\d+)"' + within_a_row + rb'<c r=")[A-Z]+\d+'
    return re.sub(first_two, rb"\1\2", xml, count=1)


#: (what is planted, in which part of the ledger, how, what the problem names)
_FAULTS = {
    "element order": ("sheet", _cols_after_sheet_data, "Unexpected element 'cols'"),
    "enum value": (
        "sheet",
        lambda xml: xml.replace(b'orientation="landscape"', b'orientation="sideways"', 1),
        "'sideways' is not in allowed values",
    ),
    "table wider than its columns": ("table", _a_table_one_column_wider, "columns wide"),
    "cell reference twice in a row": ("sheet", _a_second_cell_of_the_same_reference, "after"),
    "filter over other cells": (
        "table",
        lambda xml: re.sub(rb'(<autoFilter ref="[A-Z]+\d+:[A-Z]+)\d+', rb"\g<1>999", xml),
        "autoFilter ref",
    ),
    "header cell not its column's name": (
        "sheet",
        lambda xml: xml.replace(b"<t>Corps</t>", b"<t>Corp</t>", 1),
        "header cells",
    ),
}


@pytest.mark.parametrize("fault", sorted(_FAULTS))
def test_a_planted_fault_is_caught(fault: str, tmp_path: Path) -> None:
    where, plant, named = _FAULTS[fault]
    source = build_from_example("dep-ledger", tmp_path / "ledger.xlsx")
    sheet, table = "xl/worksheets/sheet2.xml", "xl/tables/table2.xml"  # tbl_Divisions
    faulty = _rezip(source, tmp_path / "faulty.xlsx", sheet if where == "sheet" else table, plant)
    problems = validate(faulty)
    assert any(named in p for p in problems), problems
    assert all(p.startswith((f"/{sheet}: ", f"/{table}: ")) for p in problems), problems


@pytest.mark.parametrize(
    "font",
    [b"<font><b/><zz/></font>", b"<font><b/><name val='Arial'/><b/></font>"],
    ids=["not a font property", "a property twice"],
)
def test_the_font_order_excuse_covers_order_only(font: bytes, tmp_path: Path) -> None:
    """``NOISE`` excuses a font's children in any order, nothing else about a font."""
    assert "font children in any order" in NOISE
    source = build_from_example("dep-ledger", tmp_path / "ledger.xlsx")

    def plant(xml: bytes) -> bytes:
        return re.sub(rb"<font>.*?</font>", font.replace(b"'", b'"'), xml, count=1)

    faulty = _rezip(source, tmp_path / "faulty.xlsx", "xl/styles.xml", plant)
    assert any(p.startswith("/xl/styles.xml: /styleSheet[1]/fonts[1]/font[1]:")
               for p in validate(faulty))  # fmt: skip


def test_the_tests_judge_the_files_openpyxl_writes_without_lxml() -> None:
    """The validator brings lxml, which openpyxl would then write with; the tests keep
    openpyxl's own writer (``tests/conftest.py``), which a plain install uses."""
    import os

    import openpyxl.xml

    writes_with_lxml = os.environ["OPENPYXL_LXML"] == "True"
    assert openpyxl.xml.LXML is writes_with_lxml


def test_every_excuse_is_still_needed(tmp_path: Path) -> None:
    """Each entry of ``NOISE`` is still met on a template (openpyxl still writes a font's
    name first and text inline, and the validator still flags them): the day one is not,
    it loses its entry."""
    from tests.ooxml import _validator

    source = build_from_example("dep-ledger", tmp_path / "ledger.xlsx")
    findings = _validator().validate(source).errors
    fonts = [f for f in findings if f.part_uri == "/xl/styles.xml"]
    assert fonts and all(re.search(r"/font\[\d+\]$", f.path) for f in fonts)
    met = {f.id for f in findings} & set(NOISE) | {"font children in any order"}
    assert met == set(NOISE)
    assert validate(source) == []
