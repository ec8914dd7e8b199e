"""The bad-input catalogue per channel (issue 39), generated from the declarations.

Channels: the command itself (kinds, rule sets, arguments that are not text), every
option of every operation of every kind (from its ``Option``: type, bounds, choices,
file), every input cell of every kind (from its ``Column``: entry type and bounds),
orders of battle, house-rules files, CSV turns and standard input. Every case holds the
promise: one line on stderr starting ``error:``, the exit code of its kind of mistake
(2: the command itself; 1: the files or the battle), no traceback, every file in the
folder byte for byte as it was (no output, no history, no leftovers), in bounded time.

The default profile runs a sample of each channel in process (``CliRunner``) and a few
cases as real processes; ``-m slow`` runs the whole catalogue. The counts are printed.
"""

from __future__ import annotations

import math
import os
import re
import stat
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from click.testing import CliRunner

from battle_ledger.rulesets._numbers import MAX_WHOLE
from battle_ledger.rulesets.files import MAX_INPUT_BYTES
from battle_ledger.rulesets.house import MAX_HOUSE_CHARACTERS
from battle_ledger.rulesets.yaml_data import MAX_YAML_NODES
from battle_ledger.sheets.ledger import KINDS
from battle_ledger.sheets.operations import Option, load_operations, operations_for
from battle_ledger.templates.demo import example_path
from battle_ledger.xlfuncs.cli import cli
from tests.strategies import PLAYBOOKS, bad_values, build_from_example, input_columns, play_periods
from tests.tables import table_cell

load_operations()

#: An option typed without its value.
_ALONE = object()
#: Special files a case names: a pipe that never ends, a folder, a device.
_FIFO, _FOLDER = "<fifo>", "<folder>"


@dataclass(frozen=True)
class Case:
    """One bad input: ``args`` as typed (``LEDGER``: a copy of the kind's ledger, one
    period played; ``@name``: the file ``name`` of ``files`` in the case's folder;
    ``CLOSE``: the kind's close options), the exit code it must get, and what the
    folder holds (``cell``: a value typed into the ledger's first row of a table)."""

    channel: str
    name: str
    args: tuple[Any, ...]
    code: int
    kind: str | None = None
    cell: tuple[str, str, Any] | None = None
    files: tuple[tuple[str, Any], ...] = ()
    stdin: bytes | None = None
    says: tuple[str, ...] = field(default=())

    @property
    def id(self) -> str:
        return f"{self.channel}: {self.name}"


def _shown(value: Any) -> str:
    """A value in a case's name: short, and telling apart values that begin alike."""
    text = repr(value)
    return text if len(text) <= 24 else f"{text[:14]}...({len(str(value)):,} chars)"


# -- the command itself ---------------------------------------------------------------


def _commands() -> list[Case]:
    cases = []
    for name in ("nosuch", "", "étg", "x" * 5000, "../../etc/passwd", "etg\x01"):
        shown = _shown(name)
        cases.append(
            Case(
                "commands",
                f"new --ruleset {shown}",
                ("new", "dep-ledger", "--ruleset", name, "-o", "@out.xlsx"),
                2,
            )
        )
        cases.append(Case("commands", f"rules show {shown}", ("rules", "show", name), 2))
    for kind in ("dep-ledgr", "", "x" * 5000, "roster\x00"):
        cases.append(
            Case(
                "commands",
                f"new {_shown(kind)}",
                ("new", kind, "--ruleset", "etg", "-o", "@out.xlsx"),
                2,
            )
        )
    for kind in KINDS:
        cases.append(
            Case(
                "commands",
                f"{kind}: an unknown operation",
                ("run", "no-such-operation", "LEDGER"),
                2,
                kind=kind,
            )
        )
        other = next(k for k in KINDS if k != kind and {o.name for o in operations_for(k)}
                     - {o.name for o in operations_for(kind)})  # fmt: skip
        op = sorted({o.name for o in operations_for(other)}
                    - {o.name for o in operations_for(kind)})[0]  # fmt: skip
        cases.append(
            Case(
                "commands",
                f"{kind}: {other}'s operation {op}",
                ("run", op, "LEDGER"),
                1,
                kind=kind,
                says=(other,),
            )
        )
        cases.append(
            Case(
                "commands",
                f"{kind}: an argument not UTF-8",
                ("run", "\udcff", "LEDGER"),
                2,
                kind=kind,
                says=("not text",),
            )
        )
    return cases


# -- options, from every operation's declared options -----------------------------------------


def _bad_option_values(option: Option) -> list[tuple[Any, int]]:
    """Values ``option`` must refuse, each with its exit code, from its declaration."""
    if option.takes_file:
        return [(_ALONE, 2), ("@missing.csv", 1), ("@pipe.csv", 1), ("@folder.csv", 1),
                ("/dev/zero", 1)]  # fmt: skip
    found: list[Any] = [] if option.type is bool else [_ALONE]  # a yes/no alone is yes
    if option.type is bool:
        found += ["maybe", "2", "Y N", "=TRUE", "\x01"]
    elif option.type is int:
        found += ["many", "1.5", "9" * 26, "9" * 400, "1e308", "nan", "inf", "=5*2"]
        # Past the declared bound, or past MAX_WHOLE where the bound is open (a seed's
        # declared bound is larger).
        found += [str(-MAX_WHOLE - 1) if option.low is None else str(option.low - 1)]
        found += [str(MAX_WHOLE + 1) if option.high is None else str(option.high + 1)]
    elif option.type is float:
        found += ["lots", "9" * 400, "1e308", "nan", "inf", "-inf", str(MAX_WHOLE + 1)]
        found += [] if option.low is None else [str(option.low - 1)]
    elif option.choices:
        found += ["sideways", "\x01"]
    else:  # text: a name, a note, a date
        found += ["a\x01b", "x" * 40_000, "\x00"]
        found += ["2026-13-45", "yesterday"] if option.date else []
    return [(v, 2) for v in found]


def _options() -> list[Case]:
    cases = []
    for kind in KINDS:
        for op in operations_for(kind):
            for option in op.options.values():
                for value, code in _bad_option_values(option):
                    given = (option.flag,) if value is _ALONE else (option.flag, value)
                    shown = "(no value)" if value is _ALONE else _shown(value)
                    cases.append(Case("options", f"{kind} {op.name} {option.flag} {shown}",
                                      ("run", op.name, "LEDGER", *given), code, kind=kind,
                                      files=_FILES))  # fmt: skip
    return cases


_FILES = (("pipe.csv", _FIFO), ("folder.csv", _FOLDER), ("binary.csv", bytes(range(256)) * 8))


# -- input cells, from every kind's declared input columns ------------------------------------


def _cells() -> list[Case]:
    cases = []
    for kind in KINDS:
        declared = KINDS[kind]
        for table in (declared.things, declared.periods):
            for column in input_columns(table):
                values = bad_values(column, PLAYBOOKS[kind].bounds)
                if column.read_type in (int, float):
                    values += [1e308, 10**25, -1e308, MAX_WHOLE + 1]
                for value in values:
                    cases.append(Case("workbooks",
                                      f"{kind} {table.name} {column.header} {_shown(value)}",
                                      ("run", declared.close, "LEDGER", "CLOSE"), 1, kind=kind,
                                      cell=(table.name, column.header, value)))  # fmt: skip
    return cases


# -- orders of battle -------------------------------------------------------------------------


def _example(ruleset: str) -> tuple[str, str]:
    path = example_path(ruleset)
    return path.suffix, path.read_text(encoding="utf-8")


def _csv_spoiled(text: str) -> list[tuple[str, str | bytes]]:
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    # the first strength column (after the grade), in the first unit's row
    row, at = 1, lines[0].split(",").index("grade") + 1
    first = lines[row].split(",")
    name = next(c for c in first if c.strip() and not c.strip().isdigit())

    def with_cell(value: str) -> str:
        cells = list(first)
        cells[at] = value
        return "\n".join([*lines[:row], ",".join(cells), *lines[row + 1 :]]) + "\n"

    doubled = "\n".join(f"{line},{line.split(',')[0]}" for line in lines) + "\n"
    return [("a column twice", doubled), ("a 26-digit strength", with_cell("9" * 26)),
            ("1E+308 strength", with_cell("1E+308")), ("NaN strength", with_cell("nan")),
            ("a negative strength", with_cell("-1")),
            ("a control character in a name", text.replace(name, name + "\x01", 1)),
            ("binary", bytes(range(256)) * 40), ("not UTF-8", text.encode("latin-1", "replace")
                                                 + b"\xff\xfe"),
            ("too large", lines[0] + "\n" + "#" * (MAX_INPUT_BYTES + 1))]  # fmt: skip


def _yaml_spoiled(text: str) -> list[tuple[str, str | bytes]]:
    return [("one very wide flow mapping",
             "sides: {" + ", ".join(f"k{i}: {i}" for i in range(MAX_YAML_NODES)) + "}\n"),
            ("a long list", "sides: [" + ", ".join("1" for _ in range(MAX_YAML_NODES)) + "]\n"),
            ("an alias bomb", "a: &a [x, x]\nb: &b [*a, *a]\nsides: [*b, *b]\n"),
            ("nested 100 deep", "sides: " + "[" * 100 + "]" * 100 + "\n"),
            ("a tag", "sides: !!python/object:os.system [ls]\n"),
            ("a key twice", text + "\nsides: []\n"),
            ("a lone surrogate in a name",
             re.sub(r"(unit: )([^,}\n]+)", r'\1"\2\\ud800"', text, count=1)),
            ("a control character in a name",
             re.sub(r"(unit: )([^,}\n]+)", r'\1"\2\\x01"', text, count=1)),
            ("binary", bytes(range(256)) * 40)]  # fmt: skip


def _orders_of_battle() -> list[Case]:
    from battle_ledger.rulesets import registry

    cases = []
    for ruleset in registry.ruleset_ids():
        suffix, text = _example(ruleset)
        spoiled = _csv_spoiled(text) if suffix == ".csv" else _yaml_spoiled(text)
        for what, content in spoiled:
            name = f"army{suffix}"
            cases.append(Case("orders of battle", f"{ruleset}: {what}",
                              ("new", "roster", "--ruleset", ruleset, "--oob", f"@{name}",
                               "-o", "@out.xlsx"), 1, files=((name, content),)))  # fmt: skip
    # a folder: click's own check of the option's type (a mistake in the command)
    for special, code in (("@pipe.csv", 1), ("@folder.csv", 2), ("/dev/zero", 1),
                          ("@missing.yaml", 1)):  # fmt: skip
        cases.append(Case("orders of battle", f"--oob {special}",
                          ("new", "dep-ledger", "--ruleset", "etg", "--oob", special, "-o",
                           "@out.xlsx"), code, files=_FILES))  # fmt: skip
    return cases


# -- house-rules files ------------------------------------------------------------------------


_HOUSES: list[tuple[str, str | bytes, int]] = [
    ("too long", "id: etg\nnote: " + "a" * MAX_HOUSE_CHARACTERS + "\n", 1),
    ("repetitive", "id: etg\n" + "# the same comment\n" * 20_000, 1),
    ("binary", bytes(range(256)) * 8, 1),
    ("not a mapping", "- etg\n", 1),
    ("an alias", "id: &i etg\nnote: *i\n", 1),
    ("nested 100 deep", "id: etg\nnote: " + "[" * 100 + "]" * 100 + "\n", 1),
    (
        "a 26-digit value",
        "id: etg\ntables:\n  dep_economy:\n    override: true\n    values:\n"
        "      max_dep: " + "9" * 26 + "\n",
        1,
    ),
    ("an unknown table", "id: etg\ntables:\n  nope:\n    rows: []\n", 1),
    ("a key twice", "id: etg\nid: etg\n", 1),
    ("a lone surrogate", 'id: etg\nnote: "x\\ud800"\n', 1),
    ("more values than any rule set", "id: etg\nnote: [" + "1, " * MAX_YAML_NODES + "1]\n", 1),
]


def _house_rules() -> list[Case]:
    cases = []
    for what, content, code in _HOUSES:
        cases.append(
            Case(
                "house rules",
                f"new --rules: {what}",
                (
                    "new",
                    "dep-ledger",
                    "--ruleset",
                    "etg",
                    "--rules",
                    "@house.yaml",
                    "-o",
                    "@out.xlsx",
                ),
                code,
                files=(("house.yaml", content),),
            )
        )
        cases.append(Case("house rules", f"rules apply: {what}",
                          ("rules", "apply", "LEDGER", "@house.yaml"), code,
                          kind="dep-ledger", files=(("house.yaml", content),)))  # fmt: skip
    for special, code in (("@pipe.csv", 1), ("@folder.csv", 2), ("/dev/zero", 1)):
        cases.append(Case("house rules", f"--rules {special}",
                          ("new", "dep-ledger", "--ruleset", "etg", "--rules", special, "-o",
                           "@out.xlsx"), code, files=_FILES))  # fmt: skip
    return cases


# -- CSV turns and standard input -------------------------------------------------------------


def _csv_turns() -> list[Case]:
    cases = []
    for kind in KINDS:
        op = next((o for o in operations_for(kind) if o.name == KINDS[kind].record), None)
        if op is None or "from_csv" in op.options:
            continue
        lead = next(iter(op.options.values()))
        for option in list(op.options.values())[1:]:
            for value, _ in _bad_option_values(option)[1:3]:
                if not isinstance(value, str) or option.takes_file:
                    continue
                body = f'{lead.name},{option.name}\nsomeone,"{value}"\n'
                cases.append(Case("csv turns", f"{kind} {option.flag} {_shown(value)}",
                                  ("run", op.name, "LEDGER", "--from-csv", "@turn.csv"), 2,
                                  kind=kind, files=(("turn.csv", body),)))  # fmt: skip
        for what, content in (
            ("a column twice", f"{lead.name},{lead.name}\na,b\n"),
            ("binary", bytes(range(256)) * 8),
            ("no header", ""),
            ("a ragged row", f"{lead.name}\na,b,c\n"),
        ):
            cases.append(Case("csv turns", f"{kind}: {what}",
                              ("run", op.name, "LEDGER", "--from-csv", "@turn.csv"), 1,
                              kind=kind, files=(("turn.csv", content),)))  # fmt: skip
        for special in ("@pipe.csv", "@folder.csv", "/dev/zero"):
            cases.append(Case("csv turns", f"{kind}: --from-csv {special}",
                              ("run", op.name, "LEDGER", "--from-csv", special), 1,
                              kind=kind, files=_FILES))  # fmt: skip
    return cases


def _standard_input() -> list[Case]:
    cases = []
    binary = bytes(range(256)) * 16
    for kind in KINDS:
        op = next((o for o in operations_for(kind) if o.name == KINDS[kind].record), None)
        if op is None or "from_csv" in op.options:
            continue
        cases.append(Case("standard input", f"{kind}: --from-csv - binary",
                          ("run", op.name, "LEDGER", "--from-csv", "-"), 1, kind=kind,
                          stdin=binary))  # fmt: skip
    for what, data in (
        ("binary", binary),
        ("not UTF-8", "Brigade,Unit\né,x\n".encode("latin-1")),
        ("too large", b"#" * (MAX_INPUT_BYTES + 2)),
        ("empty", b""),
    ):
        cases.append(Case("standard input", f"--oob - {what}",
                          ("new", "dep-ledger", "--ruleset", "etg", "--oob", "-", "-o",
                           "@out.xlsx"), 1, stdin=data))  # fmt: skip
    return cases


CATALOGUE: list[Case] = [*_commands(), *_options(), *_cells(), *_orders_of_battle(),
                         *_house_rules(), *_csv_turns(), *_standard_input()]  # fmt: skip
_IDS = [c.id for c in CATALOGUE]
assert len(set(_IDS)) == len(_IDS), [i for i, n in Counter(_IDS).items() if n > 1]

#: The sample the default profile runs, per channel (the rest run with -m slow).
_QUOTA = {"commands": 12, "options": 60, "workbooks": 20, "orders of battle": 20,
          "house rules": 14, "csv turns": 14, "standard input": 10}  # fmt: skip


def _sample() -> list[Case]:
    chosen = []
    for channel, quota in _QUOTA.items():
        mine = [c for c in CATALOGUE if c.channel == channel]
        step = max(1, math.ceil(len(mine) / quota))
        chosen += mine[::step]
    return chosen


SAMPLE = _sample()
#: Real processes (the console's own encoding, standard input, exit): one case a channel.
PROCESSES = [next(c for c in SAMPLE if c.channel == channel) for channel in _QUOTA]


# -- running a case ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ledgers(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[bytes, dict]]:
    """Each kind's ledger, one period played, and its close options: built when first
    asked for."""
    built: dict[str, tuple[bytes, dict[str, str]]] = {}

    def get(kind: str) -> tuple[bytes, dict[str, str]]:
        if kind not in built:
            path = tmp_path_factory.mktemp(kind) / "ledger.xlsx"
            build_from_example(kind, path)
            play_periods(kind, path, 1, seed=5)
            closing = PLAYBOOKS[kind].close_options(path)
            if "allow_empty" in {o for op in operations_for(kind) if op.name == KINDS[kind].close
                                 for o in op.options}:  # fmt: skip
                closing["allow_empty"] = "Y"
            built[kind] = (path.read_bytes(), closing)
        return built[kind]

    return get


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (a pipe or folder by its kind, never opened)."""
    found = {}
    for p in sorted(folder.rglob("*")):
        mode = p.lstat().st_mode
        found[str(p.relative_to(folder))] = (
            p.read_bytes() if stat.S_ISREG(mode) else f"<{stat.S_IFMT(mode)}>".encode()
        )
    return found


def _prepare(case: Case, folder: Path, ledgers: Callable[[str], tuple[bytes, dict]]) -> list[str]:
    for name, content in case.files:
        if content == _FIFO:
            os.mkfifo(folder / name)
        elif content == _FOLDER:
            (folder / name).mkdir()
        else:
            data = content.encode("utf-8") if isinstance(content, str) else content
            (folder / name).write_bytes(data)
    closing: dict[str, str] = {}
    if case.kind is not None:
        data, closing = ledgers(case.kind)
        ledger = folder / "ledger.xlsx"
        ledger.write_bytes(data)
        if case.cell is not None:
            table, header, value = case.cell
            wb = openpyxl.load_workbook(ledger)
            table_cell(wb, table, header, 0).value = value
            wb.save(ledger)
    args: list[str] = []
    for arg in case.args:
        if arg == "LEDGER":
            args.append(str(folder / "ledger.xlsx"))
        elif arg == "CLOSE":
            for key, value in closing.items():
                args += ["--" + key.replace("_", "-"), str(value)]
        elif isinstance(arg, str) and arg.startswith("@"):
            args.append(str(folder / arg[1:]))
        else:
            args.append(arg)
    return args


def _check(case: Case, code: int, stdout: str, stderr: str, took: float, before: dict,
           after: dict) -> None:  # fmt: skip
    assert code == case.code, (code, stdout[-2000:], stderr[-2000:])
    assert "Traceback" not in stdout + stderr, stderr[-3000:]
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr[:2000]
    for part in case.says:
        assert part in lines[0], lines[0][:2000]
    assert len(lines[0]) < 2000  # long values are shown cut short
    assert after == before  # byte for byte; no output, no history, no leftovers
    assert took < 60  # refused before the work (generous: a loaded machine)


def _in_process(case: Case, folder: Path, ledgers: Callable[[str], tuple[bytes, dict]]) -> None:
    args = _prepare(case, folder, ledgers)
    before = _files(folder)
    started = time.perf_counter()
    result = CliRunner().invoke(cli, args, input=case.stdin)
    took = time.perf_counter() - started
    out = result.stdout + ("" if result.exception is None or isinstance(result.exception,
                           SystemExit) else f"Traceback: {result.exception!r}")  # fmt: skip
    _check(case, result.exit_code, out, result.stderr, took, before, _files(folder))


def test_the_catalogue_covers_every_channel_and_prints_its_counts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    counts = Counter(c.channel for c in CATALOGUE)
    assert len(CATALOGUE) >= 1000 and set(counts) == set(_QUOTA)
    assert {c.kind for c in CATALOGUE if c.channel == "options"} == set(KINDS)
    assert {c.kind for c in CATALOGUE if c.channel == "workbooks"} == set(KINDS)
    line = (
        f"bad-input catalogue: {len(CATALOGUE)} cases ("
        + ", ".join(f"{ch} {n}" for ch, n in counts.items())
        + f"); by default {len(SAMPLE)} in process and {len(PROCESSES)} as processes"
    )
    with capsys.disabled():  # printed whatever the capture
        print("\n" + line)


@pytest.mark.parametrize("case", SAMPLE, ids=[c.id for c in SAMPLE])
def test_a_bad_input_of_the_sample(case: Case, tmp_path: Path, ledgers: Any) -> None:
    _in_process(case, tmp_path, ledgers)


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in CATALOGUE if c not in SAMPLE],
                         ids=[c.id for c in CATALOGUE if c not in SAMPLE])  # fmt: skip
def test_a_bad_input_of_the_whole_catalogue(case: Case, tmp_path: Path, ledgers: Any) -> None:
    _in_process(case, tmp_path, ledgers)


@pytest.mark.parametrize("case", PROCESSES, ids=[c.id for c in PROCESSES])
def test_a_bad_input_through_a_real_process(case: Case, tmp_path: Path, ledgers: Any) -> None:
    args = _prepare(case, tmp_path, ledgers)
    before = _files(tmp_path)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "battle_ledger.xlfuncs.cli", *args],
                          input=case.stdin if case.stdin is not None else b"",
                          capture_output=True, timeout=300, cwd=tmp_path,
                          env={**os.environ, "PYTHONUTF8": "1"})  # fmt: skip
    took = time.perf_counter() - started
    _check(case, done.returncode, done.stdout.decode("utf-8", "replace"),
           done.stderr.decode("utf-8", "replace"), took, before, _files(tmp_path))  # fmt: skip


def test_the_bounds_are_stated_in_the_limits_page() -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "limits.md").read_text("utf-8")
    for name in ("MAX_WHOLE", "MAX_INPUT_BYTES", "MAX_YAML_NODES", "MAX_HOUSE_CHARACTERS"):
        assert name in page
    assert f"{MAX_WHOLE:,}" in page and f"{MAX_YAML_NODES:,}" in page


# -- Excel functions: numbers no cell should hold ----------------------------------------------

_NOT_NUMBERS = (math.nan, math.inf, -math.inf, 1e308, 10**400, "9" * 400, float(MAX_WHOLE + 1))


def _functions() -> dict[str, Callable[..., Any]]:
    from battle_ledger.xlfuncs import load_udfs

    return dict(load_udfs())


def _taking_arguments() -> list[str]:
    import inspect

    return sorted(n for n, f in _functions().items() if inspect.signature(f).parameters)


@pytest.mark.parametrize("name", _taking_arguments())
def test_an_excel_function_answers_numbers_past_bounds_with_its_one_line_error(
    name: str,
) -> None:
    """Each argument in turn NaN, infinite, 1E+308, 400 digits or past ``MAX_WHOLE``, the
    others 1: an answer, or the function's own error (a ``BattleLedgerError``, one line),
    never another exception (a traceback; HTTP 500 when served), in bounded time."""
    import inspect

    from battle_ledger.rulesets.errors import BattleLedgerError

    fn = _functions()[name]
    params = inspect.signature(fn).parameters.values()
    count = sum(p.default is inspect.Parameter.empty for p in params) or len(params)
    assert count
    for at in range(count):
        for bad in _NOT_NUMBERS:
            args: list[Any] = [1] * count
            args[at] = bad
            started = time.perf_counter()
            try:
                fn(*args)
            except BattleLedgerError as exc:
                assert "\n" not in str(exc)
            assert time.perf_counter() - started < 10, (name, at, bad)
