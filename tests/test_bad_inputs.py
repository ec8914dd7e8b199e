"""The bad-input catalogue (issue 17): each case through the real command line.

Every case is refused with one line on stderr starting ``error:``, the exit code
its kind of mistake gets (2: the command itself; 1: the rest), no traceback, and
every file it touched byte-for-byte as it was: no ``.bak``, no temporary file,
no output written. The cases cover the findings of the attack on the landed code
(formulas and booleans in input cells, a damaged ledger, future template
versions, bombs of every shape, silent clamps and cuts, macros, tracebacks) and
the classics (not a zip, truncated, renamed files, another kind, renamed tables
and headers, merged cells, huge numbers, NaN, dates, encodings, YAML tags, paths
with spaces and accents).
"""

from __future__ import annotations

import re
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from battle_ledger.templates.demo import example_path
from battle_ledger.xlfuncs.cli import cli
from tests.tables import named_cell, table_cell

_EXAMPLE = "etg"
_RECORD = ["--division", "5e Division", "--stands-lost", "1"]
_HUGE = "9" * 401
_FROM_CAMPAIGN = ["new", "dep-ledger", "-o", "OUT", "--campaign"]


@pytest.fixture(scope="module")
def _ledger_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    folder = tmp_path_factory.mktemp("base")
    out = folder / "ledger.xlsx"
    result = CliRunner().invoke(
        cli,
        [
            "new",
            "dep-ledger",
            "--ruleset",
            "etg",
            "--oob",
            str(example_path(_EXAMPLE)),
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    return out.read_bytes()


# -- building the bad inputs -----------------------------------------------------------------


def _rezip(path: Path, edit: Callable[[str, bytes], bytes | None],
           extra: dict[str, bytes] | None = None) -> None:  # fmt: skip
    """Rewrite the zip at ``path``: each part through ``edit`` (None drops it)."""
    with zipfile.ZipFile(path) as zin:
        parts = [(i.filename, zin.read(i.filename)) for i in zin.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        for name, data in parts:
            kept = edit(name, data)
            if kept is not None:
                zout.writestr(name, kept)
        for name, data in (extra or {}).items():
            zout.writestr(name, data)


def _part_of(path: Path, sheet: str) -> str:
    """The zip part of sheet ``sheet`` (via the workbook's relationships)."""
    with zipfile.ZipFile(path) as z:
        book = z.read("xl/workbook.xml").decode()
        rels = z.read("xl/_rels/workbook.xml.rels").decode()
    rid = re.search(rf'<sheet[^>]*name="{re.escape(sheet)}"[^>]*r:id="([^"]+)"', book)
    assert rid, sheet
    target = re.search(rf'Id="{rid.group(1)}"[^>]*Target="([^"]+)"', rels) or re.search(
        rf'Target="([^"]+)"[^>]*Id="{rid.group(1)}"', rels
    )
    assert target
    return "xl/" + target.group(1).lstrip("/").removeprefix("xl/")


def _openpyxl(change: Callable[[openpyxl.Workbook], None]) -> Callable[[Path], None]:
    def edit(path: Path) -> None:
        wb = openpyxl.load_workbook(path)
        change(wb)
        wb.save(path)

    return edit


def _edit_cell(header: str, value: object, table: str = "tbl_Turns") -> Callable[[Path], None]:
    """A case that types ``value`` into ``header`` of the first row of ``table``."""

    def change(wb: openpyxl.Workbook) -> None:
        table_cell(wb, table, header, 0).value = value

    return _openpyxl(change)


def _raw_number(table: str, header: str, text: str) -> Callable[[Path], None]:
    """A case whose first row of ``table`` holds ``text`` as a number in the sheet's XML
    under ``header`` (what no writer of ours makes: NaN, INF, hundreds of digits)."""

    def edit(path: Path) -> None:
        cell = table_cell(openpyxl.load_workbook(path), table, header, 0)
        part, at = _part_of(path, cell.parent.title), cell.coordinate

        def change(name: str, data: bytes) -> bytes:
            if name != part:
                return data
            xml = data.decode()
            found = re.search(rf'<c r="{at}"[^>]*?(/>|>.*?</c>)', xml)
            assert found, at
            new = f'<c r="{at}" t="n"><v>{text}</v></c>'
            return (xml[: found.start()] + new + xml[found.end() :]).encode()

        _rezip(path, change)

    return edit


def _replace_part(part: str, data: bytes | None) -> Callable[[Path], None]:
    return lambda path: _rezip(path, lambda n, d: data if n == part else d)


def _drop_sheet_part(sheet: str) -> Callable[[Path], None]:
    def edit(path: Path) -> None:
        part = _part_of(path, sheet)
        _rezip(path, lambda n, d: None if n == part else d)

    return edit


def _sheet_xml(sheet: str, change: Callable[[str], str]) -> Callable[[Path], None]:
    def edit(path: Path) -> None:
        part = _part_of(path, sheet)
        _rezip(path, lambda n, d: change(d.decode()).encode() if n == part else d)

    return edit


def _rows_bomb(text: str) -> str:
    at = text.index("</sheetData>")
    rows = "".join(f'<row r="{r}"><c r="A{r}"><v>{r}</v></c></row>' for r in range(200, 300_200))
    return text[:at] + rows + text[at:]


def _string_bomb(text: str) -> str:
    return text.replace("<t>", "<t>" + "A" * (300 * 1024 * 1024), 1)


def _table_claims(path: Path) -> None:
    def change(name: str, data: bytes) -> bytes:
        if not name.startswith("xl/tables/"):
            return data
        text = data.decode()
        if 'displayName="tbl_Turns"' not in text:
            return data
        return re.sub(r'ref="([A-Z]+)(\d+):([A-Z]+)\d+"', r'ref="\1\2:\g<3>1000000"', text,
                      count=1).encode()  # fmt: skip

    _rezip(path, change)


def _many_parts(path: Path) -> None:
    _rezip(path, lambda n, d: d, {f"customXml/item{i}.xml": b"<a/>" for i in range(10_001)})


def _vba(path: Path) -> None:
    _rezip(path, lambda n, d: d, {"xl/vbaProject.bin": b"\xd0\xcf\x11\xe0 a VBA project"})


def _meta_row(key: str, value: object) -> Callable[[Path], None]:
    def change(wb: openpyxl.Workbook) -> None:
        ws = wb["_meta"]
        for row in ws.iter_rows(min_col=1, max_col=2):
            if row[0].value == key:
                row[1].value = value

    return _openpyxl(change)


def _name_cell(name: str, value: object) -> Callable[[openpyxl.Workbook], None]:
    def change(wb: openpyxl.Workbook) -> None:
        named_cell(wb, name).value = value

    return change


def _rename_table(wb: openpyxl.Workbook) -> None:
    ws = wb["Turns"]
    table = ws.tables["tbl_Turns"]
    del ws.tables["tbl_Turns"]
    table.name = table.displayName = "tbl_Turn"
    ws.add_table(table)


def _rename_header(wb: openpyxl.Workbook) -> None:
    first = table_cell(wb, "tbl_Turns", "Stands lost", 0)
    first.parent.cell(first.row - 1, first.column).value = "Stand lost"
    for column in first.parent.tables["tbl_Turns"].tableColumns:
        if column.name == "Stands lost":
            column.name = "Stand lost"


def _merge_input(wb: openpyxl.Workbook) -> None:
    cell = table_cell(wb, "tbl_Turns", "Stands lost", 0)
    cell.parent.merge_cells(start_row=cell.row, start_column=cell.column - 1, end_row=cell.row,
                            end_column=cell.column)  # fmt: skip


def _duplicate_division(wb: openpyxl.Workbook) -> None:
    first = table_cell(wb, "tbl_Divisions", "Division", 0).value
    table_cell(wb, "tbl_Divisions", "Division", 1).value = first


def _locked_by_excel(path: Path) -> None:
    path.with_name("~$" + path.name).write_bytes(b"excel")


def _read_only(path: Path) -> None:
    path.chmod(0o444)


def _write(name: str, content: bytes | str) -> Callable[[Path], Path]:
    """A case input file beside the ledger (an order of battle, a file renamed .xlsx)."""

    def make(folder: Path) -> Path:
        path = folder / name
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return path

    return make


def _hits_ledger(folder: Path) -> Path:
    """A Square Eagles Hits ledger of this version: Lights, Infantry and Guns."""
    from battle_ledger.sheets.engine.headless import save_workbook
    from battle_ledger.templates import build

    path = folder / "hits.xlsx"
    units = [("British", "Kempt's Lights", "Lights", 5), ("French", "1er Léger", "Infantry", 7),
             ("British", "Royal Artillery", "Foot Artillery", 5)]  # fmt: skip
    save_workbook(build("casualty-brackets", "square-eagles", units=units), path)
    return path


def _disordered_stands(folder: Path) -> Path:
    """An Age of Eagles stands-lost ledger of this version, Bony disordered by Lively Fire
    (4 fire points, a 10)."""
    from battle_ledger.sheets.engine.headless import save_workbook
    from battle_ledger.sheets.operations import run_on_file
    from battle_ledger.templates import build

    path = folder / "stands.xlsx"
    brigades = [("French", "Bony", 5, 2), ("Prussian", "Losthin", 10, 4)]
    save_workbook(build("stand-losses", "age-of-eagles", brigades=brigades), path)
    run_on_file(path, "record", unit="Bony", fire_points="4", die="10")
    return path


def _glaube_ledger(folder: Path) -> Path:
    """An Age of Glaube victory table of this version from the bundled order of battle
    (its Units typed: foot, horse and batteries)."""
    from battle_ledger.rulesets import registry
    from battle_ledger.sheets.engine.headless import save_workbook
    from battle_ledger.sheets.oob import read_oob
    from battle_ledger.templates import build

    path = folder / "glaube.xlsx"
    rs = registry.get("age-of-glaube")
    save_workbook(build("victory-table", rs, read_oob(example_path(rs.id), rs)), path)
    return path


def _glaube_unit_gone(folder: Path) -> Path:
    """An Age of Glaube victory table of this version whose Reserve Foot (one base unit,
    given by run unit) was routed in turn 1 (Ar: its last base unit removed from play)."""
    from battle_ledger.sheets.operations import run_on_file

    path = _glaube_ledger(folder)
    run_on_file(path, "unit", unit="Reserve Foot", side="Swedish", unit_type="infantry",
                base_units="1", state="organised", combat_result="Ar")  # fmt: skip
    run_on_file(path, "end-turn", allow_empty="Y")
    return path


def _glaube_second_combat(folder: Path) -> Path:
    """An Age of Glaube victory table of this version whose Reserve Foot 2 was disrupted
    attacking in part 1 (Ad on a unit previously undisrupted)."""
    from battle_ledger.sheets.operations import run_on_file

    path = _glaube_ledger(folder)
    run_on_file(path, "unit", unit="Reserve Foot 2", side="Swedish", unit_type="infantry",
                base_units="5", state="organised", combat_result="Ad")  # fmt: skip
    return path


_HEAD = "side,corps,division,brigade,unit,type,grade,stands,dep,ccp,commander\n"
_ROW = "French,I,1e Division,A,1e Ligne,line infantry,Veteran,4,,,X\n"
_YAML_HEAD = "ruleset: etg\nunits:\n"
_ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(9)
)


_FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _campaign_instead(*, oob: bool) -> Callable[[Path], None]:
    """A case whose ledger is a campaign instead: made from the bundled order of battle
    (``oob``), or with its formations typed (it keeps no order of battle)."""

    def make(path: Path) -> None:
        from battle_ledger.rulesets import registry
        from battle_ledger.sheets.engine.workbook_file import save_workbook
        from battle_ledger.sheets.oob import read_oob
        from battle_ledger.templates import build

        rs = registry.get(_EXAMPLE)
        army = read_oob(example_path(_EXAMPLE), rs)
        wb = (build("campaign", rs, army) if oob else
              build("campaign", rs, formations=[("French", "5e Division", 15)]))  # fmt: skip
        save_workbook(wb, path, overwrite=True, backup=False)

    return make


# -- the catalogue ---------------------------------------------------------------------------

#: (id, how to spoil the ledger (None: leave it), the command (LEDGER / INPUT stand for
#: the ledger and the case's input file), the input file (None: none), exit code, parts of
#: the one error line)
Case = tuple[str, Callable[[Path], None] | None, list[str],
             Callable[[Path], Path] | None, int, tuple[str, ...]]  # fmt: skip

_RUN = ["run", "record", "LEDGER", *_RECORD]
_NEW = ["new", "dep-ledger", "--ruleset", "etg", "--oob", "INPUT", "-o", "OUT"]
_NEW_SE = ["new", "casualty-brackets", "--ruleset", "se", "--oob", "INPUT", "-o", "OUT"]

CATALOGUE: list[Case] = [
    # files that are not our workbooks
    ("not a zip", None, ["run", "record", "INPUT", *_RECORD],
     _write("notes.xlsx", "Division,Stands\n5e Division,1\n"), 1, ("not a zip archive",)),
    ("empty file", None, ["run", "record", "INPUT", *_RECORD], _write("empty.xlsx", b""), 1,
     ("not a zip archive",)),
    ("xls renamed", None, ["check", "INPUT"],
     _write("old.xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504), 1, ("not a zip",)),
    ("ods renamed", None, ["check", "INPUT"], _write("calc.xlsx", b"PK\x03\x04" + b"\0" * 60), 1,
     ("not",)),
    ("csv renamed", None, ["report", "INPUT"], _write("army.xlsx", _HEAD + _ROW), 1,
     ("not a zip",)),
    ("pdf renamed", None, ["check", "INPUT"], _write("ledger.xlsx.xlsx", b"%PDF-1.4\n%%EOF\n"), 1,
     ("not a zip",)),
    ("suffix .txt", None, ["check", "INPUT"], _write("ledger.txt", b"PK"), 1, (".txt",)),
    ("no such file", None, ["check", "MISSING"], None, 1, ("no such file",)),
    ("a folder", None, ["check", "FOLDER"], None, 1, ("folder",)),
    # damaged workbooks
    ("truncated", lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]), _RUN,
     None, 1, ("not a",)),
    ("workbook part missing", _replace_part("xl/workbook.xml", None), _RUN, None, 1,
     ("not a readable Excel workbook",)),
    ("sheet part missing", _drop_sheet_part("Turns"), _RUN, None, 1,
     ("lost part", "sheet 'Turns'")),
    ("damaged XML", _sheet_xml("Turns", lambda t: t[: len(t) // 2]), _RUN, None, 1,
     ("not a readable Excel workbook",)),
    ("XML entities", _sheet_xml("Log", lambda t: '<!DOCTYPE x [<!ENTITY a "aaaa">]>' + t), _RUN,
     None, 1, ("entities or a DTD",)),
    ("Rules sheet deleted", _openpyxl(lambda wb: wb.remove(wb["Rules"])), _RUN, None, 1,
     ("lost part", "sheet 'Rules'")),
    ("chart sheet deleted", _openpyxl(lambda wb: wb.remove(wb["DEP by turn"])), _RUN, None, 1,
     ("sheet 'DEP by turn'",)),
    ("Battle sheet deleted (report)", _openpyxl(lambda wb: wb.remove(wb["Battle"])),
     ["report", "LEDGER"], None, 1, ("sheet 'Battle'",)),
    ("defined name deleted", _openpyxl(lambda wb: wb.defined_names.pop("MaxDEP")), _RUN, None, 1,
     ("name 'MaxDEP'",)),
    ("_meta deleted", _openpyxl(lambda wb: wb.remove(wb["_meta"])), _RUN, None, 1,
     ("no _meta sheet",)),
    ("future template version", _meta_row("template_version", 99), _RUN, None, 1,
     ("newer Battle Ledger", "upgrade")),
    ("template version not a number", _meta_row("template_version", _HUGE), _RUN, None, 1,
     ("template version",)),
    ("unknown kind", _meta_row("kind", "war-diary"), _RUN, None, 1, ("war-diary",)),
    ("renamed table", _openpyxl(_rename_table), _RUN, None, 1, ("tbl_Turns",)),
    ("renamed header", _openpyxl(_rename_header), _RUN, None, 1, ("Stands lost",)),
    ("merged input cells", _openpyxl(_merge_input), _RUN, None, 1, ("merged",)),
    ("two divisions of one name", _openpyxl(_duplicate_division), _RUN, None, 1,
     ("same name",)),
    # cells the formulas would read differently from the Python side
    ("formula in Stands lost", _edit_cell("Stands lost", "=5*2"), _RUN, None, 1,
     ("formula", "Stands lost")),
    ("a word in Orders", _edit_cell("Orders", "perhaps"), _RUN, None, 1, ("Orders", "perhaps")),
    ("text in Stands lost", _edit_cell("Stands lost", "six"), _RUN, None, 1, ("'six'",)),
    ("negative Stands lost", _edit_cell("Stands lost", -1), _RUN, None, 1, ("Stands lost",)),
    ("fraction in Stands lost", _edit_cell("Stands lost", 1.5), _RUN, None, 1, ("1.5",)),
    ("date in Stands lost", _edit_cell("Stands lost", __import__("datetime").date(1815, 6, 16)),
     _RUN, None, 1, ("Stands lost",)),
    ("401-digit number", _raw_number("tbl_Divisions", "Stands", _HUGE),
     ["report", "LEDGER"], None, 1, ("401 digits",)),
    ("NaN in a cell", _raw_number("tbl_Divisions", "Stands", "NaN"),
     _RUN, None, 1, ("not a readable", "'NaN'")),
    ("infinity in a cell", _raw_number("tbl_Divisions", "Stands", "INF"),
     _RUN, None, 1, ("not a readable", "'INF'")),
    ("unknown division in Turns", _edit_cell("Division", "7e Division"), _RUN, None, 1,
     ("7e Division",)),
    ("a row with numbers but no division", _edit_cell("Division", None), _RUN, None, 1,
     ("but no Division", "row 4")),
    ("maximum DEP not a number", _openpyxl(_name_cell("MaxDEP", "forty")), _RUN, None, 1,
     ("maximum DEP",)),
    # bombs, each refused before it is unpacked
    ("600 MB string", _sheet_xml("Log", _string_bomb), _RUN, None, 1, ("too large",)),
    ("300,000 rows", _sheet_xml("Log", _rows_bomb), _RUN, None, 1, ("more than 100,000 rows",)),
    ("a table claiming a million rows", _table_claims, _RUN, None, 1, ("claims more than",)),
    ("10,001 parts", _many_parts, _RUN, None, 1, ("too many parts",)),
    # files the save must not harm
    ("macros in an .xlsx", _vba, _RUN, None, 1, ("VBA project", ".xlsm")),
    ("read-only ledger", _read_only, _RUN, None, 1, ("read-only",)),
    ("open in Excel", _locked_by_excel, _RUN, None, 1, ("open in Excel",)),
    # mistakes in the command itself (exit 2)
    ("unknown operation", None, ["run", "frobnicate", "LEDGER"], None, 2, ("no operation",)),
    ("operation of another kind", None, ["run", "board", "LEDGER"], None, 1,
     ("ship-records",)),
    ("unknown option", None, ["run", "record", "LEDGER", "--division", "5e Division",
                              "--stand-lost", "1"], None, 2, ("--stand-lost",)),
    ("option not a number", None, ["run", "record", "LEDGER", "--division", "5e Division",
                                   "--stands-lost", "two"], None, 2, ("two",)),
    ("option a huge number", None, ["run", "record", "LEDGER", "--division", "5e Division",
                                    "--stands-lost", _HUGE], None, 2, ("--stands-lost",)),
    ("option negative", None, ["run", "record", "LEDGER", "--division", "5e Division",
                               "--stands-lost", "-1"], None, 2, ("--stands-lost",)),
    ("option yes/no", None, ["run", "record", "LEDGER", "--division", "5e Division",
                             "--orders", "maybe"], None, 2, ("maybe",)),
    ("unknown division", None, ["run", "record", "LEDGER", "--division", "5th Divison",
                                "--stands-lost", "1"], None, 2, ("did you mean",)),
    # values a cell cannot hold: typed as an option, a mistake in the command
    ("note of 40,000 characters", None, ["run", "record", "LEDGER", "--division", "5e Division",
                                         "--note", "n" * 40_000], None, 2, ("--note", "32,767")),
    ("note with a control character", None, ["run", "record", "LEDGER", "--division",
                                             "5e Division", "--note", "bell\x07"], None, 2,
     ("--note", "U+0007")),
    ("a charge without orders", None, ["run", "record", "LEDGER", "--division", "5e Division",
                                       "--charges", "1"], None, 1, ("Charges",)),
    ("unknown unit", None, ["run", "record", "LEDGER", "--division", "5e Division", "--unit",
                            "72e Légère", "--stands-lost", "1"], None, 2, ("--unit", "72e Ligne")),
    ("unit of another division", None, ["run", "record", "LEDGER", "--division", "5e Division",
                                         "--unit", "92e Ligne", "--stands-lost", "1"], None, 2,
     ("'92e Ligne' is of the division '9e Division'",)),
    ("more stands than the unit has", None, ["run", "record", "LEDGER", "--division",
                                             "5e Division", "--unit", "72e Ligne",
                                             "--stands-lost", "4"], None, 1,
     ("has 3 left", "tbl_Units")),
    ("unit without stands lost", None, ["run", "record", "LEDGER", "--division", "5e Division",
                                        "--unit", "72e Ligne"], None, 2, ("--stands-lost",)),
    # orders of battle
    ("dep above the rules", None, _NEW, _write("army.csv", _HEAD + _ROW.replace(",,,X", ",99,,X")),
     1, ("line 2", "dep", "99", "0 to 48")),
    ("ccp without cavalry", None, _NEW, _write("army.csv", _HEAD + _ROW.replace(",,,X", ",,2,X")),
     1, ("line 2", "no cavalry")),
    ("Square Eagles infantry at 9 SP", None, _NEW_SE,
     _write("army.csv", "side,unit,type,sp\nBritish,Kempt,infantry,9\n"), 1,
     ("army.csv", "line 2", "column sp", "got 9", "6 to 8", "adjusted up or down 1 SP")),
    ("Square Eagles cavalry at 3 SP", None, _NEW_SE,
     _write("army.csv", "side,unit,type,sp\nFrench,Chasseurs,cavalry,3\n"), 1,
     ("army.csv", "line 2", "column sp", "got 3", "4 to 6")),
    ("name of 40,000 characters", None, _NEW,
     _write("army.csv", _HEAD + _ROW.replace("1e Ligne", "L" * 40_000)), 1, ("40,000 characters",)),
    ("unknown unit type", None, _NEW,
     _write("army.csv", _HEAD + _ROW.replace("line infantry", "dragons")), 1, ("dragons",)),
    ("negative stands", None, _NEW, _write("army.csv", _HEAD + _ROW.replace(",4,", ",-4,")), 1,
     ("negative",)),
    ("NaN stands", None, _NEW, _write("army.csv", _HEAD + _ROW.replace(",4,", ",nan,")), 1,
     ("whole number",)),
    ("a date for stands", None, _NEW,
     _write("army.csv", _HEAD + _ROW.replace(",4,", ",1815-06-16,")), 1, ("whole number",)),
    ("TRUE for stands", None, _NEW, _write("army.csv", _HEAD + _ROW.replace(",4,", ",TRUE,")), 1,
     ("whole number",)),
    ("latin-1 encoding", None, _NEW,
     _write("army.csv", (_HEAD + _ROW.replace("Ligne", "Légère")).encode("latin-1")), 1,
     ("UTF-8",)),
    ("UTF-16 encoding", None, _NEW, _write("army.csv", (_HEAD + _ROW).encode("utf-16")), 1,
     ("UTF-8",)),
    ("YAML alias bomb", None, _NEW, _write("army.yaml", _YAML_HEAD + _ALIAS_BOMB), 1,
     ("alias",)),
    ("YAML nested 20,000 deep", None, _NEW, _write("army.yaml", "units: " + "[" * 20_000), 1,
     ("nested deeper",)),
    ("YAML 5,000-digit number", None, _NEW, _write("army.yaml", "units:\n- stands: " + "9" * 5000),
     1, ("army.yaml",)),
    ("YAML python tag", None, _NEW,
     _write("army.yaml", "units: !!python/object/apply:os.system ['echo hi']\n"), 1,
     ("army.yaml",)),
    ("order of battle over 10 MB", None, _NEW,
     _write("army.csv", _HEAD + "#" * (11 * 1024 * 1024) + "\n"), 1, ("too large",)),
    ("order of battle of another rule set", None, _NEW,
     _write("army.yaml", "ruleset: sail\nsides: []\n"), 1, ("for sail, not eagles-to-glory",)),
    # house rules given to a ledger after it was built
    ("house rules: no such table", None, ["rules", "apply", "LEDGER", "INPUT"],
     _write("house.yaml", "id: etg\ntables:\n  nope:\n    rows: []\n"), 1,
     ("key tables.nope", "house.yaml")),
    ("house rules: a printed value without override", None, [*_RUN, "--rules", "INPUT"],
     _write("house.yaml", "id: etg\ntables:\n  dep_economy:\n    values:\n      max_dep: 40\n"),
     1, ("override: true", "house.yaml")),
    ("house rules: a value shown for reference", None, [*_RUN, "--rules", "INPUT"],
     _write("house.yaml", "id: etg\ntables:\n  dep_economy:\n    override: true\n    values:\n"
            "      rest_distance_inches: 30\n"),
     1, ("tables.dep_economy.values.rest_distance_inches", "shown for reference only",
         "house.yaml")),
    ("house rules: a reading the rules do not know", None,
     ["udf", "GOTE_FIRE_DICE", "muskets", "long", "12", "--rules", "INPUT"],
     _write("house.yaml", "id: gote\ntables:\n  fire_house_rules:\n    values:\n"
            "      rounding: nearest even\n"),
     1, ("fire_house_rules.rounding", "house.yaml", "half up or down or up")),
    ("house rules of another rule set", None, ["rules", "apply", "LEDGER", "INPUT"],
     _write("house.yaml", "id: sail\n"), 2, ("for age-of-sail", "eagles-to-glory")),
    ("house rules file missing", None, ["rules", "apply", "LEDGER", "MISSING"], None, 1,
     ("cannot read the house-rules file",)),
    ("house rules taken off a file that is no ledger", None, ["rules", "remove", "INPUT"],
     _write("notes.xlsx", "Division,Stands\n"), 1, ("not a zip archive",)),
    # paths with spaces and accents
    ("bad file at a path with spaces and accents", None, ["check", "INPUT"],
     _write("Grande Armée ledger.xlsx", "not a workbook"), 1, ("Grande Armée ledger.xlsx",)),
    # Excel functions from the command line
    ("udf range nested 2,000 deep", None,
     ["udf", "ETG_CRT", "[" * 2000 + "1" + "]" * 2000, "Infantry", "B", "C", "charging"], None, 1,
     ("nested 2000 deep",)),
    ("udf 5,000-digit number", None,
     ["udf", "ETG_CRT", "[[" + "9" * 5000 + "]]", "Infantry", "B", "C", "charging"], None, 1,
     ("too large",)),
    ("udf 100,000 dice", None, ["udf", "SE_HITS_ODDS", "100000", "4"], None, 1,
     ("more than any rule set throws",)),
    ("udf a million dice", None, ["udf", "SE_HITS_ODDS", "1000000", "4"], None, 1,
     ("larger than any battle needs", "100,000")),
    ("udf unknown function", None, ["udf", "ETG_CTR", "1"], None, 2, ("ETG_CTR",)),
    ("udf 8,000 conditions", None,
     ["udf", "ETG_CRT", "Infantry", "Infantry", "B", "C", ", ".join(["charging"] * 8000)], None,
     1, ("8,000 conditions in one list", "at most 200")),
    # a battle ledger made from a campaign (new KIND --campaign)
    ("from a campaign: a ledger of another kind", None,
     [*_FROM_CAMPAIGN, "LEDGER", "--on", "1815-06-16"],
     None, 1, ("campaign", "dep-ledger")),
    ("from a campaign: no such file", None,
     [*_FROM_CAMPAIGN, "MISSING", "--on", "1815-06-16"],
     None, 1, ("no such file",)),
    ("from a campaign made before campaigns kept their order of battle", None,
     [*_FROM_CAMPAIGN, "INPUT", "--on", "1815-06-16"],
     _write("old.xlsx", (_FIXTURES / "campaign-v2.xlsx").read_bytes()), 2,
     ("template version 2", "--campaign needs --oob")),
    # a Square Eagles Hits ledger made before the Rally's modifiers (template version 1)
    # or before removals at once (version 2): the option is for a column it lacks (exit 2)
    ("an old Hits ledger: --general-attached", None,
     ["run", "record", "INPUT", "--unit", "Kempt's Lights", "--general-attached", "Y"],
     _write("old-hits.xlsx", (_FIXTURES / "unit-hits-v1.xlsx").read_bytes()), 2,
     ("this ledger is older", "the General attached column", "--general-attached")),
    ("a version 2 Hits ledger: --removed", None,
     ["run", "record", "INPUT", "--unit", "Royal Artillery", "--removed", "Assaulted Guns"],
     _write("v2-hits.xlsx", (_FIXTURES / "unit-hits-v2.xlsx").read_bytes()), 2,
     ("this ledger is older", "template version 2", "the Removed column", "--removed")),
    # "Assaulted Guns are Removed immediately": Guns only
    ("Assaulted Guns for Infantry", None,
     ["run", "record", "INPUT", "--unit", "1er Léger", "--removed", "assaulted guns"],
     _hits_ledger, 1,
     ("is not Guns", "table tbl_Turns", "column Removed", "Foot Artillery or Horse Artillery")),
    # an Assault the text does not allow: "Artillery and Lights may not Assault"; a condition
    # the ledger holds typed; a unit of its own side; a ledger before version 4
    ("an Assault by Lights", None,
     ["run", "assault", "INPUT", "--unit", "Kempt's Lights", "--target", "1er Léger"],
     _hits_ledger, 2, ("may not Assault", "column --unit", "Kempt's Lights")),
    ("an Assault with a held condition typed", None,
     ["run", "assault", "INPUT", "--unit", "1er Léger", "--target", "Kempt's Lights",
      "--conditions", "lights defending"],
     _hits_ledger, 2, ("the ledger holds these", "column --conditions", "defender lights")),
    ("an Assault on its own side", None,
     ["run", "assault", "INPUT", "--unit", "1er Léger", "--target", "1er Léger"],
     _hits_ledger, 2, ("assaults the enemy", "column --target")),
    ("a version 3 Hits ledger: run assault", None,
     ["run", "assault", "INPUT", "--unit", "1er Léger", "--target", "Kempt's Lights"],
     _write("v3-hits.xlsx", (_FIXTURES / "unit-hits-v3.xlsx").read_bytes()), 2,
     ("this ledger is older", "template version 3")),
    # version 5: the qualities held on the Units, typed; Skirmish Fire the text does not
    # allow; a ledger before version 5
    ("Fire with a held quality typed", None,
     ["run", "fire", "INPUT", "--unit", "Royal Artillery", "--target", "1er Léger", "--range",
      "2", "--conditions", "medium battery"],
     _hits_ledger, 2, ("the ledger holds these", "on the Units", "column --conditions")),
    ("an Assault with Resolute typed", None,
     ["run", "assault", "INPUT", "--unit", "1er Léger", "--target", "Kempt's Lights",
      "--conditions", "steady"],
     _hits_ledger, 2, ("the ledger holds these", "Resolute/Steady", "column --conditions")),
    ("Skirmish Fire beyond 2 Boxes", None,
     ["run", "fire", "INPUT", "--unit", "Kempt's Lights", "--target", "1er Léger", "--range",
      "3", "--skirmish", "Y"],
     _hits_ledger, 2, ("Skirmish Fires at 2 Boxes at most", "column --range")),
    ("Skirmish Fire with a condition", None,
     ["run", "fire", "INPUT", "--unit", "Kempt's Lights", "--target", "1er Léger", "--range",
      "1", "--skirmish", "Y", "--conditions", "flank"],
     _hits_ledger, 2, ("unmodified d6", "column --conditions")),
    ("a version 4 Hits ledger: run qualities --resolute", None,
     ["run", "qualities", "INPUT", "--unit", "42e Ligne", "--resolute", "Y"],
     _write("v4-hits.xlsx", (_FIXTURES / "unit-hits-v4.xlsx").read_bytes()), 2,
     ("this ledger is older", "template version 4", "the Resolute/Steady column",
      "column --resolute")),
    ("Medium Battery for Infantry", None,
     ["run", "qualities", "INPUT", "--unit", "1er Léger", "--medium-battery", "Y"],
     _hits_ledger, 2, ("Guns", "column --medium-battery")),
    ("a version 4 Hits ledger: --skirmish", None,
     ["run", "fire", "INPUT", "--unit", "1er Léger", "--target", "Kempt's Light Battalion",
      "--range", "2", "--skirmish", "Y"],
     _write("v4-hits.xlsx", (_FIXTURES / "unit-hits-v4.xlsx").read_bytes()), 2,
     ("this ledger is older", "template version 4", "column --skirmish")),
    # version 6: "Veterans. This Unit may be assigned a second Order"; a ledger before
    ("a second Order for a unit not Veterans", None,
     ["run", "record", "INPUT", "--unit", "1er Léger", "--ordered", "Y", "--second-order", "Y"],
     _hits_ledger, 2, ("only Veterans may be assigned a second Order", "column --second-order")),
    ("a version 5 Hits ledger: run qualities --veterans", None,
     ["run", "qualities", "INPUT", "--unit", "1er Léger", "--veterans", "Y"],
     _write("v5-hits.xlsx", (_FIXTURES / "unit-hits-v5.xlsx").read_bytes()), 2,
     ("this ledger is older", "template version 5", "the Veterans column", "column --veterans")),
    ("a version 5 Hits ledger: --second-order", None,
     ["run", "record", "INPUT", "--unit", "1er Léger", "--second-order", "Y"],
     _write("v5-hits.xlsx", (_FIXTURES / "unit-hits-v5.xlsx").read_bytes()), 2,
     ("this ledger is older", "template version 5", "the Second Order column",
      "column --second-order")),
    # Age of Eagles: "-2 Disordered Brigade" the ledger holds, typed again
    ("a Bayonet & Sabre with the held disorder typed", None,
     ["run", "charge", "INPUT", "--attacker", "Bony", "--defender", "Losthin",
      "--attacker-die", "5", "--defender-die", "5", "--attacker-modifiers", "disordered"],
     _disordered_stands, 2,
     ("taken from the ledger's record", "column --attacker-modifiers", "Disordered Brigade")),
    # casualty brackets made before blown cavalry (3) and a check for each bracket (4)
    ("an old brackets ledger: --became blown", None,
     ["run", "record", "INPUT", "--unit", "2nd U.S. Light Dragoons", "--became", "blown"],
     _write("brackets-v3.xlsx", (_FIXTURES / "casualty-brackets-v3.xlsx").read_bytes()), 2,
     ("older (template version 3)", "template version 4", "--became")),
    ("an old brackets ledger: --morale-roll-2", None,
     ["run", "record", "INPUT", "--unit", "9th U.S. Infantry", "--morale-roll-2", "5"],
     _write("brackets-v4.xlsx", (_FIXTURES / "casualty-brackets-v4.xlsx").read_bytes()), 2,
     ("older (template version 4)", "template version 5", "--morale-roll-2")),
    # an Age of Glaube victory table made before its Units were typed (version 2)
    ("a version 2 victory table: --unit-type", None,
     ["run", "unit", "INPUT", "--unit", "Tercio Chiesa", "--unit-type", "infantry", "--state",
      "routing"],
     _write("victory-v2.xlsx", (_FIXTURES / "victory-table-v2.xlsx").read_bytes()), 2,
     ("older (template version 2)", "template version 3", "the Type column", "--unit-type")),
    # 6: "Artillery batteries are captured": a battery only
    ("a captured battery that is a regiment of foot", None,
     ["run", "unit", "INPUT", "--unit", "Tercio Baden", "--state", "captured battery"],
     _glaube_ledger, 2, ("not a battery", "--state", "infantry")),
    ("a unit type the rule set does not name", None,
     ["run", "unit", "INPUT", "--unit", "New Guns", "--side", "Swedish", "--unit-type",
      "cannon", "--state", "organised"],
     _glaube_ledger, 2, ("--unit-type", "cannon", "Artillery (battery)")),
    ("a new unit without its type", None,
     ["run", "unit", "INPUT", "--unit", "New Guns", "--side", "Swedish", "--state",
      "organised"],
     _glaube_ledger, 2, ("--unit-type", "no earlier row")),
    # a victory table made before combat results were held (version 3)
    ("a version 3 victory table: --combat-result", None,
     ["run", "unit", "INPUT", "--unit", "Tercio Chiesa", "--state", "organised",
      "--combat-result", "Dr"],
     _write("victory-v3.xlsx", (_FIXTURES / "victory-table-v3.xlsx").read_bytes()), 2,
     ("older (template version 3)", "template version 4", "the Combat result column",
      "--combat-result")),
    ("a version 3 victory table: --part", None,
     ["run", "unit", "INPUT", "--unit", "Tercio Chiesa", "--state", "organised", "--part", "2"],
     _write("victory-v3b.xlsx", (_FIXTURES / "victory-table-v3.xlsx").read_bytes()), 2,
     ("older (template version 3)", "template version 4", "the Part column", "--part")),
    # 5: "Only the army in the active, attacking stage of each turn can rally troops"
    ("a rally outside its army's attacking stage", None,
     ["run", "unit", "INPUT", "--unit", "Tercio Baden", "--state", "routing",
      "--random-number", "0.9", "--part", "1"],
     _glaube_ledger, 2, ("--part", "attacking stage", "expected part 2")),
    ("a part beyond the turn's player parts", None,
     ["run", "unit", "INPUT", "--unit", "Heavy battery", "--state", "captured battery",
      "--part", "3"],
     _glaube_ledger, 2, ("--part", "player parts", "1 to 2")),
    # 8.5: Dx falls on both sides: which one, named
    ("a combat result that does not say which side it falls on", None,
     ["run", "unit", "INPUT", "--unit", "Tercio Baden", "--state", "organised",
      "--combat-result", "Dx"],
     _glaube_ledger, 2, ("--combat-result", "Dx attacker", "Dx defender")),
    # 4: the first army attacks in part 1, the second in part 2, "regarding any combat"
    ("a combat result in a part its side of the combat is not in", None,
     ["run", "unit", "INPUT", "--unit", "Tercio Baden", "--state", "organised",
      "--combat-result", "Dr", "--combat-part", "2"],
     _glaube_ledger, 2, ("--combat-part", "attacking stage", "a part other than 2")),
    ("a combat part beyond the turn's player parts", None,
     ["run", "unit", "INPUT", "--unit", "Tercio Baden", "--state", "organised",
      "--combat-result", "Ad", "--combat-part", "3"],
     _glaube_ledger, 2, ("--combat-part", "player parts", "1 to 2")),
    # a victory table made before the combat's part was held (version 4)
    ("a version 4 victory table: --combat-part", None,
     ["run", "unit", "INPUT", "--unit", "Tercio Baden", "--state", "organised",
      "--combat-result", "Dr", "--combat-part", "1"],
     _write("victory-v4.xlsx", (_FIXTURES / "victory-table-v4.xlsx").read_bytes()), 2,
     ("older (template version 4)", "template version 5", "the Combat part column",
      "--combat-part")),
    # a victory table made before a unit's base units were held (version 5)
    ("a version 5 victory table: --base-units", None,
     ["run", "unit", "INPUT", "--unit", "Tercio Baden", "--state", "organised",
      "--base-units", "10"],
     _write("victory-v5.xlsx", (_FIXTURES / "victory-table-v5.xlsx").read_bytes()), 2,
     ("older (template version 5)", "template version 6", "the Base units at start column",
      "--base-units")),
    # 8.5: a unit whose last base unit is removed from play goes with it
    ("a rally for a unit removed from play", None,
     ["run", "unit", "INPUT", "--unit", "Reserve Foot", "--state", "routing",
      "--random-number", "0.9"],
     _glaube_unit_gone, 2, ("--random-number", "removed from play", "no state to rally")),
    ("a combat result for a unit removed from play", None,
     ["run", "unit", "INPUT", "--unit", "Reserve Foot", "--state", "routing",
      "--combat-result", "Dr"],
     _glaube_unit_gone, 2, ("--combat-result", "removed from play", "no further combat")),
    # 4, 8.5: a unit's second combat of a turn starts from the state its first left it in
    ("a second combat from another state than the first left", None,
     ["run", "unit", "INPUT", "--unit", "Reserve Foot 2", "--state", "organised",
      "--combat-result", "Dr"],
     _glaube_second_combat, 2, ("--state", "starts from the state", "expected disrupted")),
    ("from a campaign made without an order of battle", _campaign_instead(oob=False),
     [*_FROM_CAMPAIGN, "LEDGER", "--on", "1815-06-16"], None, 2,
     ("made without an order of battle", "--campaign needs --oob")),
    ("from a campaign with another order of battle", _campaign_instead(oob=True),
     [*_FROM_CAMPAIGN, "LEDGER", "--on", "1815-06-16", "--oob", "INPUT"],
     _write("other.csv", example_path(_EXAMPLE).read_text(encoding="utf-8").replace(
         "92e Ligne,infantry,Veteran,3", "92e Ligne,infantry,Veteran,2")), 1,
     ("not the one the campaign keeps", "(92e Ligne): stands 2, the campaign's 3")),
    ("a campaign date without a campaign", None,
     ["new", "dep-ledger", "--ruleset", "etg", "--on", "1815-06-16", "-o", "OUT"], None, 2,
     ("--on goes with --campaign",)),
    # the code a ledger carries for xlwings Lite
    ("lite wheel not a wheel", None, ["lite", "LEDGER", "--lite-wheel", "ftp://a.org/b.zip"],
     None, 2, ("--lite-wheel", "ftp://a.org/b.zip", "py3-none-any.whl")),
    ("lite wheel without --lite", None,
     ["new", "dep-ledger", "--ruleset", "etg", "-o", "OUT", "--lite-wheel",
      "https://a.org/battle_ledger-0.1.0-py3-none-any.whl"], None, 2, ("--lite-wheel", "--lite")),
    ("lite on a missing file", None, ["lite", "MISSING"], None, 1, ("no such file",)),
    # one order of battle for several rule sets (new --ruleset ALL --map)
    ("map without an order of battle", None,
     ["new", "roster", "--ruleset", "ALL", "--map", "INPUT", "-o", "OUT"],
     _write("maps.yaml", "rulesets: {etg: {}}\n"), 2, ("--oob",)),
    ("map entry not the rule set's", None,
     ["new", "roster", "--ruleset", "ALL", "--oob", str(example_path(_EXAMPLE)), "--map", "INPUT",
      "-o", "OUT"], _write("maps.yaml", "rulesets:\n  etg:\n    types: {hussars: zouaves}\n"),
     1, ("line 3", "'zouaves'", "maps.yaml", "Light cavalry")),
    ("word no map names", None,
     ["new", "roster", "--ruleset", "ALL", "--oob", "INPUT", "-o", "OUT"],
     _write("army.csv", _HEAD + _ROW), 1, ("line 2", "'line infantry'", "map does not name it")),
    ("map not YAML", None,
     ["new", "roster", "--ruleset", "etg", "--oob", str(example_path(_EXAMPLE)), "--map", "INPUT",
      "-o", "OUT"], _write("maps.yaml", "rulesets: [etg: {\n"), 1, ("not valid YAML",)),
    ("map number of thousands of digits", None,
     ["new", "roster", "--ruleset", "etg", "--oob", str(example_path(_EXAMPLE)), "--map", "INPUT",
      "-o", "OUT"], _write("maps.yaml", "rulesets:\n  etg:\n    strengths: {stands: {from: "
                                        "stands, times: " + "9" * 5000 + "}}\n"),
     1, ("not a usable YAML value", "maps.yaml")),
    ("lite over another add-in", lambda p: _rezip(p, lambda n, d: d, {
        "xl/webextensions/webextension1.xml": b'<we:webextension xmlns:we="x" id="{0}">'
        b'<we:reference id="wa104379955"/></we:webextension>'}), ["lite", "LEDGER"], None, 1,
     ("another add-in", "webextension1.xml")),
]  # fmt: skip


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<folder>"
        for p in sorted(folder.rglob("*"))
    }


def test_the_catalogue_is_large_enough() -> None:
    assert len(CATALOGUE) >= 60
    assert len({c[0] for c in CATALOGUE}) == len(CATALOGUE)


@pytest.mark.parametrize(
    ("spoil", "command", "make_input", "code", "parts"),
    [c[1:] for c in CATALOGUE],
    ids=[c[0] for c in CATALOGUE],
)
def test_bad_input_is_refused_with_one_line_and_nothing_changed(
    tmp_path: Path,
    _ledger_bytes: bytes,
    spoil: Callable[[Path], None] | None,
    command: list[str],
    make_input: Callable[[Path], Path] | None,
    code: int,
    parts: tuple[str, ...],
) -> None:
    ledger = tmp_path / "ledger.xlsx"
    ledger.write_bytes(_ledger_bytes)
    if spoil is not None:
        spoil(ledger)
    (tmp_path / "folder.xlsx").mkdir()
    given = make_input(tmp_path) if make_input is not None else None
    names = {"LEDGER": ledger, "INPUT": given, "OUT": tmp_path / "out.xlsx",
             "MISSING": tmp_path / "missing.xlsx", "FOLDER": tmp_path / "folder.xlsx"}  # fmt: skip
    args = [str(names[a]) if a in names else a for a in command]
    before = _files(tmp_path)
    started = time.perf_counter()
    result = CliRunner().invoke(cli, args)
    took = time.perf_counter() - started
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr[:2000]
    for part in parts:
        assert part in lines[0], lines[0][:2000]
    assert len(lines[0]) < 2000  # long values are shown cut short
    assert _files(tmp_path) == before  # byte for byte; no .bak, no leftovers, no output
    assert took < 30  # refused before the work (a generous bound for a busy machine)
