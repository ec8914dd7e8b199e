"""The battle-ledger CLI, driven through click's runner, every bad-input path included."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from click.testing import CliRunner, Result

from battle_ledger.rulesets import registry
from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.engine.zipbook import ENGINE_VARIABLE
from battle_ledger.sheets.errors import ExcelArgumentError
from battle_ledger.sheets.ledger import WORKBOOK_KINDS
from battle_ledger.templates.demo import load_example
from battle_ledger.xlfuncs import _cli_books
from battle_ledger.xlfuncs._cli_rules import excel_argument, format_result
from battle_ledger.xlfuncs._registry import UDFS
from battle_ledger.xlfuncs.cli import cli
from tests.toybook import make_toy

COMMANDS = [
    [],
    ["new"],
    ["run"],
    ["udf"],
    ["check"],
    ["report"],
    ["rulesets"],
    ["rules"],
    ["rules", "show"],
    ["demo"],
    ["excel-setup"],
]


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assert_one_line_error(result: Result, *parts: str, code: int = 1) -> None:
    """A user mistake: exit code, one line on stderr naming what, nothing else."""
    assert result.exit_code == code, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.stderr
    for part in parts:
        assert part in lines[0]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "battle-ledger")
def test_help_everywhere(command: list[str]) -> None:
    result = invoke(*command, "--help")
    assert result.exit_code == 0
    assert result.stdout.startswith("Usage:")
    short = invoke(*command, "-h")
    assert short.exit_code == 0 and short.stdout == result.stdout


# -- usage mistakes -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "parts"),
    [
        (["frobnicate"], ["No such command 'frobnicate'"]),
        (["run"], ["Missing argument 'MACRO'", "run --help"]),
        (["new", "roster"], ["Missing option '-o'"]),
        (["new", "roster", "-o", "x.xlsx"], ["new needs --ruleset", "--campaign FILE"]),
        (["new", "roster", "--ruleset", "etg", "-o"], ["'-o' requires an argument"]),
        (["new", "roster", "--ruleset", "etg", "--blank-rows", "-3", "-o", "x.xlsx"], ["-3"]),
        (["report"], ["Missing argument 'BOOK'"]),
        (["rules", "show"], ["Missing argument 'ID'"]),
    ],
)
def test_usage_mistakes_are_one_line_with_exit_2(args: list[str], parts: list[str]) -> None:
    assert_one_line_error(invoke(*args), *parts, code=2)


# -- udf ----------------------------------------------------------------------------------


def _toy_udf(strength: Any, ratio: Any = None, flag: Any = None) -> Any:
    """Echo the arguments as Excel would hand them over."""
    if strength == "boom":
        raise InvalidArgumentError("strength must not explode", column="strength", value=strength)
    if isinstance(strength, list):
        return [[type(c).__name__, c] for row in strength for c in row]
    return [[type(strength).__name__, type(ratio).__name__, type(flag).__name__]]


@pytest.fixture
def toy_udf(monkeypatch: pytest.MonkeyPatch) -> None:
    from battle_ledger import xlfuncs  # noqa: F401 - the real UDFs first, then ours beside them

    monkeypatch.setitem(UDFS, "TOY_ECHO", _toy_udf)


def test_excel_arguments_are_what_excel_sends() -> None:
    assert excel_argument("3") == 3.0 and isinstance(excel_argument("3"), float)
    assert excel_argument("TRUE") is True and excel_argument("false") is False
    assert excel_argument("") is None
    assert excel_argument("Heavy cavalry") == "Heavy cavalry"
    assert excel_argument('[["a", 1], [null, true]]') == [["a", 1.0], [None, True]]
    assert excel_argument("nan") == "nan"
    with pytest.raises(ExcelArgumentError, match="not valid JSON"):
        excel_argument("[1, 2")


def test_udf_prints_a_scalar_a_table_or_json(toy_udf: None) -> None:
    result = invoke("udf", "toy_echo", "6", "", "TRUE")
    assert result.exit_code == 0
    assert result.stdout.split() == ["float", "NoneType", "bool"]
    as_json = invoke("udf", "TOY_ECHO", "Guard", "--json")
    assert json.loads(as_json.stdout) == [["str", "NoneType", "NoneType"]]
    ranged = invoke("udf", "TOY_ECHO", '[["Infantry", 2]]', "--json")
    assert json.loads(ranged.stdout) == [["str", "Infantry"], ["float", 2.0]]


def test_udf_errors(toy_udf: None) -> None:
    assert_one_line_error(invoke("udf", "TOY_ECHOO"), "no Excel function", "TOY_ECHO", code=2)
    assert_one_line_error(
        invoke("udf", "TOY_ECHO", "1", "2", "3", "4"), "TOY_ECHO takes 1 to 3 arguments"
    )
    assert_one_line_error(invoke("udf", "TOY_ECHO", "boom"), "must not explode", "column strength")
    assert_one_line_error(invoke("udf"), "NAME is required", code=2)


def test_udf_list_names_every_function(toy_udf: None) -> None:
    result = invoke("udf", "--list")
    assert result.exit_code == 0
    assert (
        "TOY_ECHO  Echo the arguments as Excel would hand them over." in result.stdout.splitlines()
    )
    assert len(result.stdout.splitlines()) == len(UDFS)


def test_format_result_aligns_rows() -> None:
    assert format_result([[1.0, "a"], [10.0, None]], as_json=False) == "1   a\n10"
    assert format_result(2.0, as_json=False) == "2"


# -- rulesets / rules show ----------------------------------------------------------------


def test_rulesets_lists_every_rule_set_with_table_counts() -> None:
    result = invoke("rulesets", "--json")
    assert result.exit_code == 0
    listed = {r["id"]: r for r in json.loads(result.stdout)}
    assert set(listed) == set(registry.ruleset_ids())
    for ruleset in registry.all_rulesets():
        assert listed[ruleset.id]["tables"] == len(ruleset.tables)
        assert listed[ruleset.id]["missing"] == [
            n for n, t in ruleset.tables.items() if t.is_missing
        ]
    text = invoke("rulesets").stdout.splitlines()
    assert text[0].split() == ["id", "name", "aliases", "tables", "missing"]
    assert len(text) == 1 + len(listed)


def test_rules_show_lists_tables_and_shows_missing_ones_as_such() -> None:
    etg = registry.get("etg")
    listing = invoke("rules", "show", "etg")
    assert listing.exit_code == 0
    assert f"{len(etg.tables)} tables" in listing.stdout
    missing = next(n for n, t in etg.tables.items() if t.is_missing)
    shown = invoke("rules", "show", "etg", missing)
    assert shown.exit_code == 0
    assert "status: missing" in shown.stdout
    assert "missing: the published text does not print this table" in shown.stdout
    assert "rules init-house eagles-to-glory" in shown.stdout  # how to fill it in
    given = next(n for n, t in etg.tables.items() if t.kind.value == "rows" and t.rows)
    rows = invoke("rules", "show", "etg", given)
    assert f"rows: {len(etg.tables[given].rows)}" in rows.stdout
    assert "source: " in rows.stdout


def test_rules_show_errors() -> None:
    # a rule set the command names that none has is a mistake in the command (exit 2)
    assert_one_line_error(invoke("rules", "show", "chess"), "unknown rule set 'chess'", code=2)
    assert_one_line_error(invoke("rules", "show", "glaub"), "did you mean 'glaube'", code=2)
    assert_one_line_error(
        invoke("rules", "show", "etg", "dep_economyy"), "did you mean dep_economy"
    )


# -- new ----------------------------------------------------------------------------------


def test_new_builds_a_workbook_of_the_kind(tmp_path: Path) -> None:
    out = tmp_path / "ledger.xlsx"
    result = invoke("new", "dep-ledger", "--ruleset", "etg", "-o", str(out))
    assert result.exit_code == 0, result.output
    meta = HeadlessBook(out, writable=False).meta()
    assert (meta.kind, meta.ruleset) == ("dep-ledger", "eagles-to-glory")


def test_new_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    out = tmp_path / "ledger.xlsx"
    invoke("new", "dep-ledger", "--ruleset", "etg", "-o", str(out))
    before = _digest(out)
    assert_one_line_error(
        invoke("new", "dep-ledger", "--ruleset", "etg", "-o", str(out)), "exists already", "--force"
    )
    assert _digest(out) == before
    forced = invoke("new", "dep-ledger", "--ruleset", "etg", "-o", str(out), "--force")
    assert forced.exit_code == 0
    (kept,) = (tmp_path / "ledger history").glob("*.xlsx")
    assert kept.name == "0001 before new.xlsx" and _digest(kept) == before


@pytest.mark.parametrize(
    ("args", "parts", "code"),
    [
        (["new", "battleship", "--ruleset", "etg"], ["unknown workbook kind 'battleship'"], 2),
        (["new", "dep-ledgr", "--ruleset", "etg"], ["did you mean 'dep-ledger'"], 2),
        (["new", "dep-ledger", "--ruleset", "chess"], ["unknown rule set 'chess'"], 2),
        (["new", "dep-ledger", "--ruleset", ""], ["unknown rule set ''"], 2),
        (["new", "victory-table", "--ruleset", "sail"], ["not made for Age of Sail"], 2),
        (
            ["new", "dep-ledger", "--ruleset", "etg", "--oob", "{tmp}/none.csv"],
            ["no such", "none.csv"],
            1,
        ),
    ],
)
def test_new_errors(tmp_path: Path, args: list[str], parts: list[str], code: int) -> None:
    """A mistake in the command (kind, rule set) exits 2; a file that is not there, 1."""
    out = tmp_path / "x.xlsx"
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    result = invoke(*args, "-o", str(out))
    assert_one_line_error(result, *[p.replace("{tmp}", str(tmp_path)) for p in parts], code=code)
    assert not out.exists()


def test_new_output_must_be_xlsx_in_an_existing_folder(tmp_path: Path) -> None:
    assert_one_line_error(
        invoke("new", "dep-ledger", "--ruleset", "etg", "-o", str(tmp_path / "x.csv")), ".xlsx"
    )
    assert_one_line_error(
        invoke("new", "dep-ledger", "--ruleset", "etg", "-o", str(tmp_path / "no" / "x.xlsx")),
        "folder does not exist",
    )


# -- run / check / report ---------------------------------------------------------------


def test_run_passes_options_to_the_operation_and_saves(toy_book: Path) -> None:
    result = invoke("run", "lose-stands", str(toy_book), "--unit", "1st Line", "--stands=2")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "1st Line: 3 lost"
    assert openpyxl.load_workbook(toy_book)["Army"]["E4"].value == 3
    as_json = invoke("run", "lose_stands", str(toy_book), "--unit", "1st Line", "--json")
    assert json.loads(as_json.stdout) == {
        "summary": "1st Line: 4 lost",
        "details": {"unit": "1st Line", "lost": 4, "turn": 2},
    }


def test_run_hyphenated_options_reach_the_operation(toy_book: Path) -> None:
    from battle_ledger.sheets.engine.book import Book
    from battle_ledger.sheets.operations import OPERATIONS, OperationResult, operation

    if ("toy-ledger", "set-turn") not in OPERATIONS:

        @operation("toy-ledger", "set-turn")
        def set_turn(book: Book, *, new_turn: int) -> OperationResult:
            """Set CurrentTurn."""
            book.write_name("CurrentTurn", new_turn)
            return OperationResult(f"turn {new_turn}")

    result = invoke("run", "set-turn", str(toy_book), "--new-turn", "9")
    assert result.exit_code == 0 and result.stdout.strip() == "turn 9"


def test_run_dry_run_changes_nothing(toy_book: Path) -> None:
    before = _digest(toy_book)
    result = invoke("run", "lose-stands", str(toy_book), "--unit", "1st Line", "--dry-run")
    assert result.exit_code == 0
    assert "dry run" in result.stdout
    assert _digest(toy_book) == before


@pytest.mark.parametrize(
    ("extra", "parts", "code"),
    [
        (["--unit", "1st Line", "--stands", "many"], ["--stands", "not a whole number"], 2),
        (["--unit", "1st Line", "--colour", "red"], ["no option --colour", "--stands"], 2),
        (["--unit", "1st Line", "--stand", "2"], ["no option --stand", "did you mean"], 2),
        ([], ["needs the option(s) --unit"], 2),
        (["--unit", "1st Line", "stray"], ["unexpected argument 'stray'"], 2),
        (["--unit", "1st Line", "--stands", "1", "--stands", "2"], ["given twice"], 2),
    ],
)
def test_run_bad_options(toy_book: Path, extra: list[str], parts: list[str], code: int) -> None:
    before = _digest(toy_book)
    assert_one_line_error(invoke("run", "lose-stands", str(toy_book), *extra), *parts, code=code)
    assert _digest(toy_book) == before


def test_run_unknown_operation_and_missing_file(toy_book: Path, tmp_path: Path) -> None:
    assert_one_line_error(invoke("run", "gallop", str(toy_book)), "no operation 'gallop'", code=2)
    assert_one_line_error(
        invoke("run", "lose-stand", str(toy_book)), "did you mean 'lose-stands'", code=2
    )
    assert_one_line_error(
        invoke("run", "lose-stands", str(tmp_path / "gone.xlsx")), "no such file", "gone.xlsx"
    )
    assert_one_line_error(invoke("run", "lose-stands", str(tmp_path)), "not an Excel workbook")


def test_check_and_report(toy_book: Path, tmp_path: Path) -> None:
    ok = invoke("check", str(toy_book))
    assert ok.exit_code == 0 and ok.stdout.strip() == f"{toy_book}: ok"
    bad = make_toy(tmp_path / "bad.xlsx", units=[("Smaug", "Dragons", 6, 0)])
    checked = invoke("check", str(toy_book), str(bad))
    assert checked.exit_code == 1
    assert f"{bad}: 1 problem(s)" in checked.stdout
    assert "'Dragons'" in checked.stdout and "row 4" in checked.stdout
    report = invoke("report", str(toy_book))
    assert report.stdout.strip() == "1st Line: 5 left, Cuirassiers: 4 left"
    data = json.loads(invoke("report", str(toy_book), "--json").stdout)
    assert data["details"] == {"left": {"1st Line": 5, "Cuirassiers": 4}}


def test_check_several_books_reports_each_unreadable_one(toy_book: Path, tmp_path: Path) -> None:
    junk = tmp_path / "junk.xlsx"
    junk.write_text("not a workbook")
    result = invoke("check", str(toy_book), str(junk))
    assert result.exit_code == 1
    assert f"{toy_book}: ok" in result.stdout
    assert "error: not an Excel workbook" in result.stderr and str(junk) in result.stderr


# -- demo / excel-setup -----------------------------------------------------------------


@pytest.mark.slow
def test_demo_builds_workbooks_that_check_clean(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = invoke("demo", "-o", str(out))
    assert result.exit_code == 0, result.output
    paths = [Path(line) for line in result.stdout.splitlines()]
    assert paths and all(p.exists() and p.parent == out for p in paths)
    assert result.stderr == ""  # no progress bar when piped
    for path in paths[:3]:
        assert invoke("check", str(path)).exit_code == 0
    for path in paths:  # every ledger played, and named as its example names the battle
        if "roster" in path.name or "campaign" in path.name:
            continue
        kind = next(k for k in WORKBOOK_KINDS if path.stem.endswith("-" + k))
        ruleset = path.stem.removesuffix("-" + kind)
        shown = invoke("report", str(path), "--json")
        details = json.loads(shown.stdout)["details"]
        assert shown.stdout and load_example(ruleset).title in shown.stdout, path.name
        assert "turn 1 " not in json.loads(shown.stdout)["summary"].splitlines()[0], path.name
        assert details, path.name


def test_demo_into_a_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    assert_one_line_error(invoke("demo", "-o", str(target)), "is a file", code=2)


@pytest.fixture
def on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """excel-setup as it runs on a machine with desktop Excel."""

    monkeypatch.setattr(_cli_books, "desktop_excel", lambda: "windows")


def test_excel_setup_without_desktop_excel_prints_no_settings_and_writes_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    monkeypatch.setattr(_cli_books, "desktop_excel", lambda: None)
    printed = invoke("excel-setup")
    assert printed.exit_code == 0
    assert "INTERPRETER" not in printed.stdout and sys.executable not in printed.stdout
    assert "Windows and macOS" in printed.stdout and "xlwings Server" in printed.stdout
    conf = tmp_path / "xlwings.conf"
    refused = invoke("excel-setup", "--write", "--config", str(conf))
    assert_one_line_error(refused, "desktop Excel runs on Windows and macOS", code=2)
    assert not conf.exists()


@pytest.mark.usefixtures("on_windows")
def test_excel_setup_prints_and_writes_the_xlwings_settings(tmp_path: Path) -> None:
    printed = invoke("excel-setup")
    assert printed.exit_code == 0
    assert '"UDF MODULES","battle_ledger.xlfuncs"' in printed.stdout
    assert sys.executable in printed.stdout or "pythonw" in printed.stdout
    conf = tmp_path / "xlwings.conf"
    conf.write_text('"LICENSE_KEY","abc"\n"UDF MODULES","old_module"\n')
    written = invoke("excel-setup", "--write", "--config", str(conf))
    assert written.exit_code == 0
    lines = conf.read_text().splitlines()
    assert '"LICENSE_KEY","abc"' in lines  # other settings kept
    assert (
        '"UDF MODULES","battle_ledger.xlfuncs"' in lines
        and '"UDF MODULES","old_module"' not in lines
    )
    assert any(line.startswith('"INTERPRETER_') for line in lines)


@pytest.mark.usefixtures("on_windows")
def test_excel_setup_write_failure_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    assert_one_line_error(
        invoke("excel-setup", "--write", "--config", str(blocker / "xlwings.conf")),
        "cannot write the xlwings configuration",
    )


#: An interpreter path with a letter outside ASCII (a user named Zoë), as excel-setup writes.
_ZOE = "C:\\Users\\Zoë\\python\\pythonw.exe"


@pytest.fixture
def code_page(monkeypatch: pytest.MonkeyPatch, on_windows: None) -> str:
    """A Western Windows machine: its ANSI code page cp1252, its Python at ``_ZOE``."""
    import locale

    monkeypatch.setattr(locale, "getencoding", lambda: "cp1252")
    monkeypatch.setattr(_cli_books, "_interpreter", lambda: _ZOE)
    return "cp1252"


def _xlwings_lines(data: bytes, encoding: str) -> dict[str, str]:
    """What xlwings reads from an xlwings.conf (its ``utils.read_user_config``'s pattern)."""
    import re

    found = (re.findall(r'"[^"]*"', line) for line in data.decode(encoding).splitlines())
    return {v[0].strip('"'): v[1].strip('"') for v in found if v}


@pytest.mark.parametrize("written_in", ["cp1252", "utf-8"])
def test_excel_setup_keeps_a_non_ascii_path_in_the_code_page_xlwings_reads(
    tmp_path: Path, code_page: str, written_in: str
) -> None:
    """A file xlwings' own CLI wrote (the code page) or an earlier excel-setup (UTF-8), a
    path of Zoë's in it: read, kept, and written back in the code page xlwings and its
    VBA read; a second run changes nothing."""
    conf = tmp_path / "xlwings.conf"
    old = '"LICENSE_KEY","noncommercial"\n"CONDA PATH","C:\\Users\\Zoë\\miniconda3"\n'
    conf.write_bytes(old.encode(written_in))
    written = invoke("excel-setup", "--write", "--config", str(conf))
    assert written.exit_code == 0, written.output
    settings = _xlwings_lines(conf.read_bytes(), code_page)
    assert settings == {
        "LICENSE_KEY": "noncommercial",
        "CONDA PATH": "C:\\Users\\Zoë\\miniconda3",
        "INTERPRETER_WIN": _ZOE,
        "UDF MODULES": "battle_ledger.xlfuncs",
    }
    first = conf.read_bytes()
    assert invoke("excel-setup", "--write", "--config", str(conf)).exit_code == 0
    assert conf.read_bytes() == first


def test_excel_setup_on_a_utf8_machine_writes_utf8(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import locale

    monkeypatch.setattr(_cli_books, "desktop_excel", lambda: "macos")
    monkeypatch.setattr(locale, "getpreferredencoding", lambda do_setlocale=True: "UTF-8")
    monkeypatch.setattr(_cli_books, "_interpreter", lambda: "/Users/zoë/venv/bin/python")
    conf = tmp_path / "xlwings.conf"
    conf.write_bytes('"CONDA PATH","/Users/zoë/miniconda3"\n'.encode())
    assert invoke("excel-setup", "--write", "--config", str(conf)).exit_code == 0
    settings = _xlwings_lines(conf.read_bytes(), "utf-8")
    assert settings["CONDA PATH"] == "/Users/zoë/miniconda3"
    assert settings["INTERPRETER_MAC"] == "/Users/zoë/venv/bin/python"


def test_excel_setup_refuses_an_undecodable_file_in_one_line(
    tmp_path: Path, code_page: str
) -> None:
    conf = tmp_path / "xlwings.conf"
    # 0x81: no character of cp1252, and no UTF-8 either.
    conf.write_bytes(b'"LICENSE_KEY","abc"\r\n"CONDA PATH","C:\\caf\x81"\r\n')
    before = conf.read_bytes()
    assert_one_line_error(
        invoke("excel-setup", "--write", "--config", str(conf)),
        "cannot read the xlwings configuration", "0x81", "line 2", "cp1252", str(conf),
    )  # fmt: skip
    assert conf.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["xlwings.conf"]


def test_excel_setup_refuses_a_path_the_code_page_cannot_hold(
    tmp_path: Path, code_page: str, monkeypatch: pytest.MonkeyPatch
) -> None:

    monkeypatch.setattr(_cli_books, "_interpreter", lambda: "C:\\Users\\Жора\\python.exe")
    conf = tmp_path / "xlwings.conf"
    conf.write_bytes(b'"LICENSE_KEY","abc"\r\n')
    assert_one_line_error(
        invoke("excel-setup", "--write", "--config", str(conf)),
        "cp1252", "'Ж'", "INTERPRETER_WIN",
    )  # fmt: skip
    assert conf.read_bytes() == b'"LICENSE_KEY","abc"\r\n'
    assert [p.name for p in tmp_path.iterdir()] == ["xlwings.conf"]


_HEAVY = ("xlwings", "pandas", "numpy", "openpyxl", "pydantic")
_PROBE = (
    "import sys, contextlib, io, json\n"
    "from battle_ledger.xlfuncs.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
    "    main(sys.argv[1:])\n"
    # A module imported lazily (``battle_ledger._lazy.lazy_module``) and never used is
    # not loaded: its class is still the lazy one.
    f"print(json.dumps([m for m in {_HEAVY!r} if m in sys.modules\n"
    "    and type(sys.modules[m]).__name__ != '_LazyModule']))\n"
)


@pytest.mark.parametrize(
    ("args", "allowed"),
    [
        (["--help"], set()),
        (["--version"], set()),
        (["new", "--help"], set()),
        # Listed from the kept index (rulesets/index.py): no rule set loaded.
        (["rulesets"], set()),
        (["rules", "show", "etg"], set()),
        (
            # Every function loaded (all rule sets); pandas only where one builds a table.
            ["udf", "ETG_CRT", "Heavy cavalry", "Infantry", "B", "C", "charging"],
            {"pydantic"},
        ),
        (["udf", "--list"], {"pydantic"}),
    ],
    ids=lambda a: " ".join(a) if isinstance(a, list) else "",
)
def test_commands_import_only_what_they_use(args: list[str], allowed: set[str]) -> None:
    """Start-up: the help and the rules commands load no spreadsheet library (xlwings,
    openpyxl), nor pandas (its time is measured in benchmarks/bench_startup.py)."""
    import subprocess

    env = {**os.environ, "XLWINGS_ON_SERVER": ""}
    out = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True,
                         check=True, env=env)  # fmt: skip
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert loaded <= allowed, f"{' '.join(args)} imports {sorted(loaded - allowed)}"


def test_a_function_call_loads_only_its_own_rule_set() -> None:
    """``udf ETG_CRT ...`` imports the Eagles to Glory functions and rules, no other rule
    set's (``xlfuncs.load_udf``); an unknown name still finds its neighbours in them all."""
    import subprocess

    others = ("battle_ledger.xlfuncs.aoe", "battle_ledger.rulesets.age_of_eagles",
              "battle_ledger.xlfuncs.sail", "battle_ledger.rulesets.age_of_sail")  # fmt: skip
    probe = _PROBE.replace(repr(_HEAVY), repr(("battle_ledger.xlfuncs.etg", *others)))
    env = {**os.environ, "XLWINGS_ON_SERVER": ""}
    out = subprocess.run([sys.executable, "-c", probe, "udf", "ETG_CRT", "Heavy cavalry",
                          "Infantry", "B", "C", "charging"], env=env, capture_output=True,
                         text=True, check=True)  # fmt: skip
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["battle_ledger.xlfuncs.etg"]
    result = invoke("udf", "ETG_CRX", "a")
    assert result.exit_code == 2 and "did you mean ETG_CRT" in result.stderr


def test_check_imports_no_spreadsheet_library(tmp_path: Path) -> None:
    """``check`` and ``report`` read the ledger's parts themselves (the fast backend):
    neither openpyxl nor xlwings is loaded, nor pandas (the DEP checker and report read
    records)."""
    import subprocess

    from tests.strategies import build_from_example

    ledger = build_from_example("dep-ledger", tmp_path / "ledger.xlsx")
    env = {**os.environ, "XLWINGS_ON_SERVER": ""}
    for command in (["check", str(ledger)], ["report", str(ledger), "--json"]):
        out = subprocess.run([sys.executable, "-c", _PROBE, *command], env=env,
                             capture_output=True, text=True, check=True)  # fmt: skip
        loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
        assert loaded <= {"pydantic"}, f"{command[0]} imports {sorted(loaded)}"


def test_a_command_parses_no_yaml_once_the_rule_sets_parse_is_kept(tmp_path: Path) -> None:
    """PyYAML is imported only to parse YAML: a packaged rule set's parse is kept in the
    cache folder after the first command, and the next command reads that instead."""
    import subprocess

    env = {**os.environ, "BATTLE_LEDGER_CACHE_DIR": str(tmp_path / "cache")}
    probe = _PROBE.replace(repr(_HEAVY), repr(("yaml",)))
    loaded = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", probe, "rules", "show", "etg"], env=env,
                             capture_output=True, text=True, check=True)  # fmt: skip
        loaded.append(json.loads(out.stdout.strip().splitlines()[-1]))
    assert loaded == [["yaml"], []]


def test_checking_a_ledger_loads_only_its_own_kind(tmp_path: Path) -> None:
    """``check`` of a DEP ledger imports neither the templates nor the other kinds (and
    their rule sets): the template kinds are asked for only where a kind has no checks."""
    import subprocess

    from tests.strategies import build_from_example

    ledger = build_from_example("dep-ledger", tmp_path / "ledger.xlsx")
    probe = _PROBE.replace(repr(_HEAVY), repr(
        ("battle_ledger.templates", "battle_ledger.sheets.kinds.stand_losses")))  # fmt: skip
    out = subprocess.run([sys.executable, "-c", probe, "check", str(ledger)],
                         capture_output=True, text=True, check=True)  # fmt: skip
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
    roster = tmp_path / "roster.xlsx"
    assert invoke("new", "roster", "--ruleset", "etg", "-o", str(roster)).exit_code == 0
    assert invoke("check", str(roster)).stdout.strip() == f"{roster}: ok"


def test_the_report_of_a_dep_ledger_loads_no_spreadsheet_library(tmp_path: Path) -> None:
    """``report`` of a DEP ledger reads it without pandas, numpy, openpyxl or xlwings (a
    third of its time on a grand battle was importing them); what it says is what the
    openpyxl backend's report says."""
    import subprocess

    from tests.strategies import build_from_example

    ledger = build_from_example("dep-ledger", tmp_path / "ledger.xlsx")
    assert invoke("run", "record", str(ledger), "--division", "5e Division", "--orders", "Y",
                  "--stands-lost", "1").exit_code == 0  # fmt: skip
    out = subprocess.run([sys.executable, "-c", _PROBE, "report", str(ledger), "--json"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["pydantic"]
    fast = invoke("report", str(ledger), "--json")
    slow = CliRunner().invoke(cli, ["report", str(ledger), "--json"],
                              env={ENGINE_VARIABLE: "openpyxl"})  # fmt: skip
    assert fast.exit_code == slow.exit_code == 0
    assert json.loads(fast.stdout) == json.loads(slow.stdout)


def test_repeated_option_groups_record_several_rows_all_or_none(tmp_path: Path) -> None:
    from battle_ledger.sheets.oob import read_oob
    from battle_ledger.templates import build
    from battle_ledger.templates.demo import example_path

    oob = read_oob(example_path("etg"), registry.get("etg"))
    one, each = tmp_path / "one.xlsx", tmp_path / "each.xlsx"
    from battle_ledger.sheets.engine.headless import save_workbook

    save_workbook(build("dep-ledger", "etg", oob), one)
    shutil.copy(one, each)
    before = one.read_bytes()
    wrong = invoke("run", "record", str(one), "--division", "5e Division", "--orders", "Y",
                   "--division", "9e Divison", "--stands-lost", "1")  # fmt: skip
    assert_one_line_error(wrong, "--division 9e Divison: no division '9e Divison'", code=2)
    assert one.read_bytes() == before  # the first row is not written either
    done = invoke("run", "record", str(one), "--json", "--division", "5e Division", "--orders",
                  "Y", "--division", "9e Division", "--stands-lost", "1")  # fmt: skip
    assert done.exit_code == 0, done.output
    assert [r["division"] for r in json.loads(done.stdout)["details"]["rows"]] == [
        "5e Division", "9e Division"]  # fmt: skip
    invoke("run", "record", str(each), "--division", "5e Division", "--orders", "Y")
    invoke("run", "record", str(each), "--division", "9e Division", "--stands-lost", "1")
    assert invoke("report", str(one), "--json").stdout == invoke("report", str(each),
                                                                 "--json").stdout  # fmt: skip
    twice = invoke("run", "record", str(one), "--division", "5e Division", "--orders", "Y",
                   "--orders", "N")  # fmt: skip
    assert_one_line_error(twice, "option --orders is given twice", code=2)


def test_udf_name_help_prints_the_functions_own_help() -> None:
    shown = invoke("udf", "etg_crt", "--help")
    assert shown.exit_code == 0
    lines = shown.stdout.splitlines()
    assert lines[0] == (
        "Usage: battle-ledger udf ETG_CRT ATTACKER DEFENDER ATTACKER_GRADE DEFENDER_GRADE "
        "[CONDITIONS]"
    )
    assert "Eagles to Glory combat" in shown.stdout and "attacker_grade:" in shown.stdout
    assert_one_line_error(invoke("udf", "NOPE", "-h"), "no Excel function 'NOPE'", code=2)


def test_udf_prints_as_excel_shows_and_blank_rows_stay_blank() -> None:
    assert invoke("udf", "SE_WITHDRAW", "[[3],[1]]").stdout.split() == ["TRUE", "FALSE"]
    assert format_result([[0.1 + 0.2, 2.0, True, None]], as_json=False) == "0.3  2  TRUE"
    rows = invoke("udf", "ETG_CRT", '[["Heavy cavalry"],[""],["Infantry"]]', "Infantry", "B",
                  "C", "--json")  # fmt: skip
    assert json.loads(rows.stdout) == [[45, 70], [None, None], [25, 40]]


def test_a_row_the_rules_cannot_answer_is_an_error_in_that_row_only() -> None:
    rows = invoke("udf", "ETG_CRT", '[["Heavy cavalry"],["Dragons"],["Infantry"]]', "Infantry",
                  "B", "C", "--json")  # fmt: skip
    got = json.loads(rows.stdout)
    assert got[0] == [45, 70] and got[2] == [25, 40]  # the column keeps its values
    assert got[1][0].startswith("#VALUE! 'Dragons' is not among the unit types") and (
        got[1][1] is None)  # fmt: skip
    # Every row wrong: the error is told once, as for a single cell.
    assert_one_line_error(
        invoke("udf", "ETG_CRT", '[["Dragons"],["Dragons"]]', "Infantry", "B", "C"),
        "'Dragons' is not among the unit types",
    )
    assert_one_line_error(invoke("udf", "ETG_CRT", "Dragons", "Infantry", "B", "C"),
                          "'Dragons' is not among the unit types")  # fmt: skip


def test_udf_labels_say_what_each_result_column_is() -> None:
    shown = invoke("udf", "ETG_CRT", '[["Heavy cavalry"],["Infantry"]]', "Infantry", "B", "C",
                   "--labels")  # fmt: skip
    assert [line.split() for line in shown.stdout.splitlines()] == [
        ["E", "D"], ["45", "70"], ["25", "40"]]  # fmt: skip
    as_json = invoke("udf", "ETG_ODDS", "Heavy cavalry", "Infantry", "B", "C", "--json",
                     "--labels")  # fmt: skip
    assert json.loads(as_json.stdout) == [
        {"P(eliminated)": 0.45, "P(disengage)": 0.25, "P(no effect)": 0.3}]  # fmt: skip
    odds = json.loads(invoke("udf", "SAIL_HIT_ODDS", "2", "10", "--json", "--labels").stdout)
    assert list(odds[0])[:2] == ["P(0 hits)", "P(1 hit)"]
    # One value: nothing to label.
    assert invoke("udf", "ETG_VP", "infantry", "guard", "--labels").stdout.strip() == "40"
    assert "Columns (--labels): E, D" in invoke("udf", "ETG_CRT", "--help").stdout
