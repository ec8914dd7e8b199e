"""Ledgers that carry their own code for xlwings Lite (issue 35).

Checked against the real thing: workbooks xlwings Lite saved (``tests/fixtures/lite/``,
with where they came from) give the parts, content types, relationships and property
encoding ours must have. Every kind's ``new --lite`` ledger keeps its parts byte for
byte through every operation; the openpyxl path refuses it rather than drop them. Its
``main.py`` runs the way xlwings Lite runs it (``tests/lite_runtime.py``: xlwings' own
``custom_functions_meta``, ``custom_functions_call`` and ``custom_scripts_call`` on a
book made from the add-in's JSON), every button of every kind pressed, its actions
applied as Office.js applies them, and the ledger compared with the headless run. The
requirements are checked against the package list of the Pyodide they name.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from battle_ledger.rulesets import registry
from battle_ledger.sheets.engine.webextension import (
    TASKPANES_PART,
    WEBEXTENSION_PART,
    decode_property,
    encode_property,
    lite_properties,
)
from battle_ledger.sheets.engine.zipbook import ENGINE_VARIABLE
from battle_ledger.sheets.ledger import KINDS
from battle_ledger.sheets.operations import load_operations, operations_for, run_on_file
from battle_ledger.templates.demo import example_path
from battle_ledger.xlfuncs._registry import UDFS, module_ruleset
from battle_ledger.xlfuncs.cli import cli
from battle_ledger.xlfuncs.macros import macro_name
from tests.ooxml import validate
from tests.strategies import PLAYBOOKS, button_case, play_periods
from tests.xlwings_json import APPLIED_ACTIONS, apply_actions, book_json, ledger_state
from tests.xlwings_server_probe import UDF_CALLS

_REPO = Path(__file__).resolve().parent.parent
_REAL = sorted((Path(__file__).parent / "fixtures" / "lite").glob("*.xlsx"))
_TASKPANES_RELS = "xl/webextensions/_rels/taskpanes.xml.rels"
_LITE_PARTS = (WEBEXTENSION_PART, TASKPANES_PART, _TASKPANES_RELS)
_WHEEL = "https://example.org/wheels/battle_ledger-0.1.0-py3-none-any.whl"

load_operations()
ALL = sorted(KINDS)


def _parts(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


def _new_lite(kind: str, out: Path, *extra: str) -> Path:
    ruleset = PLAYBOOKS[kind].ruleset if kind in PLAYBOOKS else "etg"
    oob = [] if kind == "roster" else ["--oob", str(example_path(ruleset))]
    args = ["new", kind, "--ruleset", ruleset, *oob, "--lite", *extra, "-o", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, (result.output, result.exception)
    return out


def _lite(path: Path, *extra: str) -> None:
    result = CliRunner().invoke(cli, ["lite", str(path), *extra])
    assert result.exit_code == 0, (result.output, result.exception)


# -- the shape of the parts, against workbooks xlwings Lite saved ----------------------------


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _outline(xml: bytes) -> list[tuple[str, tuple[str, ...]]]:
    """Each element's name and its attributes' names, in document order."""
    return [(_local(e.tag), tuple(sorted(_local(a) for a in e.attrib)))
            for e in ElementTree.fromstring(xml).iter()]  # fmt: skip


def _shape(parts: dict[str, bytes]) -> dict[str, Any]:
    """What xlwings Lite's parts are, leaving out what differs from one saved workbook to
    the next (the extension's id, the store's locale, the properties' values)."""
    types = ElementTree.fromstring(parts["[Content_Types].xml"])
    package_rels = ElementTree.fromstring(parts["_rels/.rels"])
    we = ElementTree.fromstring(parts[WEBEXTENSION_PART])
    references = [
        (
            r.get("id", "").lower(),
            r.get("version"),
            r.get("storeType"),
            r.get("store", "").isupper(),
        )
        for r in we.iter()
        if _local(r.tag) == "reference"
    ]
    return {
        "parts": sorted(p for p in parts if p.startswith("xl/webextensions/")),
        "types": sorted(
            (o.get("PartName"), o.get("ContentType"))
            for o in types
            if "webextension" in (o.get("PartName") or "")
        ),
        "package": sorted(
            (r.get("Type"), r.get("Target"))
            for r in package_rels
            if "webextension" in (r.get("Type") or "")
        ),
        "taskpane relationships": _outline(parts[_TASKPANES_RELS]),
        "taskpane targets": [
            r.get("Target") for r in ElementTree.fromstring(parts[_TASKPANES_RELS])
        ],
        "taskpanes": _outline(parts[TASKPANES_PART]),
        "webextension": [e for e in _outline(parts[WEBEXTENSION_PART]) if e[0] != "property"],
        "references": references,
    }


def _raw_properties(xml: bytes) -> dict[str, str]:
    """The properties' values as stored (XML unescaped, JSON not decoded)."""
    found = re.findall(r'<we:property name="([^"]*)" value="([^"]*)"', xml.decode("utf-8"))
    return {html.unescape(n): html.unescape(v) for n, v in found}


def test_the_fixtures_are_real_xlwings_lite_workbooks() -> None:
    assert len(_REAL) >= 2
    for path in _REAL:
        properties = lite_properties(path.read_bytes())
        assert properties is not None, path.name
        assert "main.py" in properties and "requirements.txt" in properties, path.name
        assert "import xlwings" in properties["main.py"], path.name


@pytest.mark.parametrize("kind", [*ALL, "roster"])
def test_a_lite_ledger_has_the_parts_of_a_workbook_xlwings_lite_saved(
    kind: str, tmp_path: Path
) -> None:
    path = _new_lite(kind, tmp_path / "lite.xlsx")
    ours = _parts(path)
    for real in _REAL:
        assert _shape(ours) == _shape(_parts(real)), real.name
    assert validate(path) == []  # the web-extension parts pass the OOXML validator too


def test_properties_are_encoded_as_office_encodes_them(tmp_path: Path) -> None:
    """Office's encoding (a JSON string, ``/`` as ``\\/``, the rest as it is) gives back
    every stored value of the real workbooks exactly; ours are stored the same way."""
    slashes = 0
    for real in _REAL:
        for name, raw in _raw_properties(_parts(real)[WEBEXTENSION_PART]).items():
            assert encode_property(decode_property(raw)) == raw, (real.name, name)
            slashes += raw.count("\\/")
    assert slashes > 0  # the escaped slash is exercised
    ours = _parts(_new_lite("dep-ledger", tmp_path / "lite.xlsx", "--lite-wheel", _WHEEL))
    raw = _raw_properties(ours[WEBEXTENSION_PART])
    assert "\\/" in raw["requirements.txt"] and "/" not in raw["requirements.txt"].replace(
        "\\/", ""
    )
    real_names = set.union(*(set(_raw_properties(_parts(r)[WEBEXTENSION_PART])) for r in _REAL))
    assert set(raw) <= real_names
    for name, value in raw.items():
        assert encode_property(decode_property(value)) == value, name


def test_the_requirements_keep_xlwings_lite_s_required_lines(tmp_path: Path) -> None:
    def required(text: str) -> list[str]:
        return sorted(re.split(r"[=<>~ ]", line)[0] for line in text.splitlines()
                      if line.rstrip().endswith("# required"))  # fmt: skip

    ours = lite_properties(_new_lite("dep-ledger", tmp_path / "l.xlsx").read_bytes())
    assert ours is not None
    for real in _REAL:
        theirs = lite_properties(real.read_bytes())
        assert theirs is not None
        assert required(ours["requirements.txt"]) == required(theirs["requirements.txt"])
    assert ours["pyodideVersion"] in {
        (lite_properties(r.read_bytes()) or {}).get("pyodideVersion") for r in _REAL
    }


# -- the parts kept -----------------------------------------------------------------------------


def _lite_parts(path: Path) -> dict[str, bytes]:
    parts = _parts(path)
    return {p: parts[p] for p in _LITE_PARTS}


@pytest.mark.parametrize("kind", ALL)
def test_every_operation_keeps_the_lite_parts_byte_for_byte(kind: str, tmp_path: Path) -> None:
    path = _new_lite(kind, tmp_path / "lite.xlsx")
    before = _lite_parts(path)
    play_periods(kind, path, 2, 3)
    assert _lite_parts(path) == before
    assert validate(path) == []
    parts = _parts(path)
    assert b"webextensiontaskpanes" in parts["_rels/.rels"]
    assert parts["[Content_Types].xml"].count(b'<Override PartName="/xl/webextensions/') == 2


def test_lite_again_replaces_the_code_and_keeps_everything_else(tmp_path: Path) -> None:
    path = _new_lite("dep-ledger", tmp_path / "lite.xlsx")
    before = _parts(path)
    _lite(path, "--lite-wheel", _WHEEL)
    after = _parts(path)
    assert {p: d for p, d in after.items() if p != WEBEXTENSION_PART} == {
        p: d for p, d in before.items() if p != WEBEXTENSION_PART
    }
    old, new = (lite_properties(b[WEBEXTENSION_PART] and _zip(b)) for b in (before, after))
    assert old is not None and new is not None
    assert new["requirements.txt"].splitlines()[-1] == _WHEEL
    assert new["main.py"] == old["main.py"] and new["pyodideVersion"] == old["pyodideVersion"]
    guid = re.compile(rb'<we:webextension\b[^>]*\sid="([^"]+)"')
    assert guid.search(after[WEBEXTENSION_PART]).group(1) == guid.search(  # type: ignore[union-attr]
        before[WEBEXTENSION_PART]
    ).group(1)  # type: ignore[union-attr]


def _zip(parts: dict[str, bytes]) -> bytes:
    import io

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return out.getvalue()


def test_lite_on_a_ledger_made_without_it_adds_only_its_parts(tmp_path: Path) -> None:
    path = tmp_path / "plain.xlsx"
    result = CliRunner().invoke(cli, ["new", "dep-ledger", "--ruleset", "etg", "--oob",
                                      str(example_path("etg")), "-o", str(path)])  # fmt: skip
    assert result.exit_code == 0, result.output
    before = _parts(path)
    _lite(path)
    after = _parts(path)
    changed = {p for p in after if before.get(p) != after[p]}
    protection = re.compile(rb"<sheetProtection\b[^>]*/>")
    sheets = {p for p in before if protection.search(before[p])}
    assert sheets, "a ledger's sheets are protected"
    assert changed == {*_LITE_PARTS, "[Content_Types].xml", "_rels/.rels", *sheets}
    for sheet in sheets:  # only the protection lifted (xlwings Lite cannot lift it)
        assert after[sheet] == protection.sub(b"", before[sheet])
    assert _shape(after) == _shape(_parts(_REAL[0]))


def test_the_openpyxl_path_refuses_a_lite_ledger_and_leaves_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _new_lite("dep-ledger", tmp_path / "lite.xlsx")
    before = path.read_bytes()
    monkeypatch.setenv(ENGINE_VARIABLE, "openpyxl")
    result = CliRunner().invoke(cli, ["run", "record", str(path), "--division", "5e Division",
                                      "--stands-lost", "1"])  # fmt: skip
    assert result.exit_code == 1, result.output
    line = result.stderr.strip()
    assert "\n" not in line and "xlwings Lite" in line and "nothing saved" in line
    assert path.read_bytes() == before


# -- main.py as xlwings Lite runs it ----------------------------------------------------------


class _Runtime:
    """``tests/lite_runtime.py`` in a process of its own (xlwings with the server's
    decorators), one request at a time."""

    def __init__(self, folder: Path) -> None:
        env = os.environ | {"XLWINGS_LICENSE_KEY": "noncommercial"}
        self.log = (folder / "lite-runtime.log").open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.lite_runtime"], cwd=_REPO, env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
        )  # fmt: skip
        self.loaded: str | None = None

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, "the runtime stopped"
        answer: dict[str, Any] = json.loads(line)
        return answer

    def load(self, main: str) -> dict[str, Any]:
        answer = self.ask({"op": "load", "main": main})
        assert "error" not in answer, answer.get("details")
        self.loaded = main
        return answer

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self.log.close()


@pytest.fixture(scope="module")
def lite_runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Runtime]:
    runtime = _Runtime(tmp_path_factory.mktemp("lite-runtime"))
    yield runtime
    runtime.close()


def _main_py(path: Path) -> str:
    properties = lite_properties(path.read_bytes())
    assert properties is not None
    return properties["main.py"]


@pytest.mark.parametrize("kind", ALL)
def test_xlwings_finds_the_functions_of_the_rule_set_and_the_buttons_of_the_kind(
    kind: str, tmp_path: Path, lite_runtime: _Runtime
) -> None:
    from tests.xlwings_json import function_call

    path = _new_lite(kind, tmp_path / "lite.xlsx")
    ruleset = registry.get(PLAYBOOKS[kind].ruleset)
    found = lite_runtime.load(_main_py(path))
    assert found["on_server"] is True
    functions = {f["id"] for f in found["functions"]["functions"]}
    of = {n: module_ruleset(f.__module__) for n, f in UDFS.items()}
    own = {n for n, r in of.items() if r is not None and r in (ruleset.id, ruleset.family)}
    others = {n for n, r in of.items() if r is not None and r not in (ruleset.id, ruleset.family)}
    assert own and own <= functions and not functions & others
    buttons = {macro_name(KINDS[kind].macro_prefix, op.name) for op in operations_for(kind)}
    assert {s["function_name"] for s in found["scripts"]} == buttons | {"report", "check"}
    for name, cells in UDF_CALLS:
        if name in functions:
            data = function_call(UDFS[name].__name__, *cells)
            called = lite_runtime.ask({"op": "call", "cells": cells, "data": data})
            plain = called["plain"] if isinstance(called["plain"], list) else [[called["plain"]]]
            assert called["lite"] == plain, name


def _operation_cases() -> list[tuple[str, str]]:
    return [(name, op.name) for name in ALL for op in operations_for(name)]


@pytest.mark.parametrize(("kind", "operation"), _operation_cases())
def test_every_button_in_xlwings_lite_leaves_the_ledger_the_headless_run_leaves(
    kind: str, operation: str, tmp_path: Path, lite_runtime: _Runtime
) -> None:
    """Every button of every kind, pressed through xlwings' own entry points on the
    ``main.py`` the ledger carries: its actions, applied as Office.js applies them, leave
    the ledger as the headless command does; the command keeps the Lite parts."""
    path = tmp_path / "ledger.xlsx"
    options = button_case(kind, operation, path)
    _lite(path)
    main = _main_py(path)
    headless, lite = tmp_path / "headless.xlsx", tmp_path / "lite.xlsx"
    shutil.copy(path, headless)
    shutil.copy(path, lite)
    before = _lite_parts(headless)
    run_on_file(headless, operation, **options)
    assert _lite_parts(headless) == before
    if lite_runtime.loaded != main:
        lite_runtime.load(main)
    op = next(o for o in operations_for(kind) if o.name == operation)
    answer = lite_runtime.ask({
        "op": "press", "script": macro_name(KINDS[kind].macro_prefix, operation),
        "args": [options.get(o) for o in op.options], "payload": book_json(lite),
    })  # fmt: skip
    assert "error" not in answer, answer.get("details")
    actions = answer["actions"]
    assert {a["func"] for a in actions} <= APPLIED_ACTIONS
    apply_actions(lite, actions, callbacks=False)  # xlwings Lite runs no callback of ours
    assert ledger_state(lite, KINDS[kind]) == ledger_state(headless, KINDS[kind])


# -- the requirements, against the Pyodide they run in ------------------------------------------


def _npm_pyodide(version: str) -> Path | None:
    """The ``pyodide`` npm package of ``version`` (installed once into a cache folder;
    its CDN, which serves the packages themselves, is not needed), or None without npm."""
    folder = Path(
        os.environ.get("BATTLE_LEDGER_TEST_CACHE", Path.home() / ".cache" / "battle-ledger")
    )
    folder = folder / f"pyodide-{version}"
    package = folder / "node_modules" / "pyodide"
    if not (package / "pyodide-lock.json").is_file():
        npm = shutil.which("npm")
        if npm is None:
            return None
        folder.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(folder),
             f"pyodide@{version}"],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
    return package


@pytest.fixture(scope="module")
def pyodide_package() -> Path:
    from battle_ledger.xlfuncs.lite import PYODIDE_VERSION

    package = _npm_pyodide(PYODIDE_VERSION)
    if package is None:
        if os.environ.get("CI", "").strip().casefold() in ("1", "true", "yes"):
            pytest.fail("npm is missing (CI=true: Node and npm are installed there)")
        pytest.skip("npm is missing: the pyodide npm package cannot be installed")
    return package


def _pure_wheel(requirement: str, folder: Path, python: str) -> bool:
    """Whether PyPI has a pure-Python wheel (py3-none-any) meeting ``requirement``."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
         "--platform", "any", "--implementation", "py", "--abi", "none",
         "--python-version", python, "--quiet", "-d", str(folder), requirement],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return done.returncode == 0


@pytest.mark.slow
def test_every_requirement_is_in_pyodide_or_a_pure_python_wheel(
    pyodide_package: Path, tmp_path: Path
) -> None:
    """Each line of the requirements we write, and each dependency Battle Ledger declares
    (itself pure Python), is in the Pyodide lock file at a version its
    specifier allows, or PyPI has a pure-Python wheel for it."""
    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet
    from packaging.utils import canonicalize_name

    from battle_ledger.xlfuncs.lite import PYODIDE_VERSION, requirements_txt

    lock = json.loads((pyodide_package / "pyodide-lock.json").read_text(encoding="utf-8"))
    assert lock["info"]["version"] == PYODIDE_VERSION
    python = ".".join(lock["info"]["python"].split(".")[:2])
    packages = {canonicalize_name(n): p["version"] for n, p in lock["packages"].items()}
    import importlib.metadata

    metadata = importlib.metadata.metadata("battle-ledger")
    needs_python = metadata.get("Requires-Python")
    assert needs_python is None or SpecifierSet(needs_python).contains(lock["info"]["python"])
    # Pure Python: nothing compiled in the folders the package is installed from.
    compiled = [
        p
        for folder in ("package", "rulesets", "sheets", "templates", "xlfuncs")
        for p in (_REPO / folder).rglob("*")
        if p.suffix in (".so", ".pyd", ".c", ".pyx")
    ]
    assert compiled == []
    ours = importlib.metadata.requires("battle-ledger") or []
    lines = [line.split("#")[0].strip() for line in requirements_txt().splitlines()]
    problems: list[str] = []
    for text in [line for line in lines if line] + ours:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        if requirement.marker is not None and "extra" in str(requirement.marker):
            continue  # an extra (the server's): not installed in xlwings Lite
        if name == "battle-ledger":
            continue  # ourselves: checked above
        if name in packages:
            if not requirement.specifier.contains(packages[name], prereleases=True):
                problems.append(f"{text}: Pyodide {PYODIDE_VERSION} has {packages[name]}")
        elif not _pure_wheel(text, tmp_path / "wheels", python):
            problems.append(f"{text}: not in Pyodide {PYODIDE_VERSION}, no pure-Python wheel")
    assert problems == [], "\n".join(problems)


# -- Pyodide itself, as far as it runs here -----------------------------------------------------

#: Dice of the rules, computed in Pyodide and in CPython (``rulesets.dice``: stdlib only).
_DICE = """
import json
from fractions import Fraction
from battle_ledger.rulesets import dice

found = {
    "2d6": dice.sum_of(dice.die(6), dice.die(6)),
    "3d6": dice.sum_of(dice.die(6), dice.die(6), dice.die(6)),
    "d100": dice.d100(),
    "8 dice hitting on 5+": dice.binomial(8, Fraction(1, 3)),
    "2d6 of 8+": dice.map_outcomes(dice.sum_of(dice.die(6), dice.die(6)), lambda t: t >= 8),
}
json.dumps({k: {str(o): str(p) for o, p in v.items()} for k, v in found.items()})
"""
_IMPORTS = """
import json, sys
found = {"platform": sys.platform, "python": sys.version.split()[0]}
for name in ("battle_ledger.rulesets.registry", "battle_ledger.rulesets.eagles_to_glory"):
    try:
        __import__(name)
        found[name] = "imported"
    except ImportError as exc:
        found[name] = f"{type(exc).__name__}: {exc}"
json.dumps(found)
"""


def _in_pyodide(package: Path, code: str) -> Any:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is missing")
    done = subprocess.run(
        [node, str(_REPO / "tests" / "pyodide_run.mjs"), str(package), str(_REPO)],
        input=code, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_the_rules_dice_give_the_same_odds_in_pyodide(pyodide_package: Path) -> None:
    """``rulesets.dice`` (the exact odds every rule set's functions build on) runs in
    Pyodide under Node.js and gives CPython's answers, fraction for fraction."""
    here: dict[str, Any] = {}
    *body, last = [line for line in _DICE.strip().splitlines()]
    exec("\n".join(body), here)
    assert _in_pyodide(pyodide_package, _DICE) == json.loads(eval(last, here))


@pytest.mark.slow
def test_what_of_the_rules_core_pyodide_cannot_import_here(pyodide_package: Path) -> None:
    """The rule sets' data model needs pydantic (and the data files PyYAML): Pyodide
    fetches both from its CDN, which this machine cannot reach, so the rule sets and
    their functions do not import here. (xlwings Lite installs them: the requirements.)"""
    lock = json.loads((pyodide_package / "pyodide-lock.json").read_text(encoding="utf-8"))
    found = _in_pyodide(pyodide_package, _IMPORTS)
    assert found["platform"] == "emscripten" and found["python"] == lock["info"]["python"]
    for name in ("battle_ledger.rulesets.registry", "battle_ledger.rulesets.eagles_to_glory"):
        assert found[name] == "ModuleNotFoundError: No module named 'pydantic'", found
    assert {"pydantic", "pyyaml"} <= set(lock["packages"])  # in Pyodide, from its CDN
