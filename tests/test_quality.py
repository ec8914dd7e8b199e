"""The code-quality promises of the project hold: ruff lint and format, mypy on the core."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=REPO, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")
def test_ruff_lint_and_format() -> None:
    lint = _run("ruff", "check", ".")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = _run("ruff", "format", "--check", ".")
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def _package_dirs() -> dict[str, str]:
    """Each package name and the folder it installs from (pyproject.toml's package-dir)."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return dict(config["tool"]["setuptools"]["package-dir"])


def _package_tree(root: Path) -> Path:
    """A tree of links in ``root`` that holds the package under the name it installs as
    (each folder linked whole, so a sub-folder added later is in it too)."""
    for name, folder in sorted(_package_dirs().items()):
        target = root.joinpath(*name.split("."))
        if name == "battle_ledger":  # the root package: its modules beside the layers
            target.mkdir(parents=True)
            for entry in (REPO / folder).iterdir():
                if entry.name != "__pycache__":
                    (target / entry.name).symlink_to(entry)
        else:
            target.symlink_to(REPO / folder, target_is_directory=True)
    return root / "battle_ledger"


def test_the_mypy_tree_is_the_whole_package(tmp_path: Path) -> None:
    """Every module of every package folder is in the tree mypy reads, under its installed
    name (a module left out is typed Any wherever it is imported, silently)."""
    tree = _package_tree(tmp_path)
    modules = {
        p.resolve() for folder in _package_dirs().values() for p in (REPO / folder).rglob("*.py")
    }
    linked = {
        (Path(folder) / name).resolve()
        for folder, _, names in os.walk(tree, followlinks=True)
        for name in names
        if name.endswith(".py")
    }
    assert linked == modules
    assert (tree / "_lazy.py").resolve() == REPO / "package" / "_lazy.py"


@pytest.mark.slow
def test_mypy_strict_on_the_whole_package(tmp_path: Path) -> None:
    """mypy --strict on battle_ledger, every layer, laid out under the name it installs as.

    The folders stay where the layout has them (pyproject's package-dir maps
    them into battle_ledger); mypy cannot follow an editable install's import
    hook, so it reads them through a tree of links named as the package.
    """
    pytest.importorskip("mypy")
    _package_tree(tmp_path)
    typed = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"),
         "-p", "battle_ledger"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, "MYPYPATH": str(tmp_path)},
    )  # fmt: skip
    assert typed.returncode == 0, typed.stdout + typed.stderr


#: The layers, lowest first: data flows one way (docs/DEVELOPING.md, "Layers").
LAYERS = ("rulesets", "sheets", "templates", "xlfuncs")


def _imports(path: Path) -> list[str]:
    """Every module ``path`` imports, at the top or inside a function."""
    import ast

    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    return names


def test_layers_import_only_downwards() -> None:
    """rulesets -> sheets -> templates -> xlfuncs: no module of a layer, in any of its
    folders, imports one above it."""
    offenders = []
    for rank, layer in enumerate(LAYERS):
        for path in sorted((REPO / layer).rglob("*.py")):
            for name in _imports(path):
                parts = [*name.split("."), ""]
                above = parts[1] in LAYERS and LAYERS.index(parts[1]) > rank
                if parts[0] == "battle_ledger" and above:
                    offenders.append(f"{path.relative_to(REPO)} imports {name}")
    assert offenders == []


#: The rooms of sheets/, lowest first (docs/DEVELOPING.md, "Rooms of sheets/"): the one error
#: hierarchy, the workbook engine, the ledger framework (the folder's own modules), the
#: kinds. The framework finds the kinds through the registry (it lists the ``kinds``
#: package), never by importing one of them.
SHEETS_ROOMS = ("errors", "engine", "framework", "kinds")


def _sheets_room(parts: Sequence[str]) -> str:
    """The room of ``battle_ledger.sheets.<parts>`` (a module, or a name in it)."""
    first = parts[0] if parts else ""
    return first if first in SHEETS_ROOMS else "framework"


def test_sheets_rooms_import_only_downwards() -> None:
    """Inside sheets/: the engine imports nothing of the framework or the kinds, the
    framework nothing of a kind; the kinds import what they like below them."""
    offenders = []
    for path in sorted((REPO / "sheets").rglob("*.py")):
        where = path.relative_to(REPO / "sheets").with_suffix("").parts
        here = SHEETS_ROOMS.index(_sheets_room(where))
        for name in _imports(path):
            parts = name.split(".")
            if parts[:2] != ["battle_ledger", "sheets"] or len(parts) == 2:
                continue
            room = _sheets_room(parts[2:])
            if room == "kinds" and len(parts) == 3:  # the package itself: the registry
                continue
            if SHEETS_ROOMS.index(room) > here:
                offenders.append(f"{path.relative_to(REPO)} imports {name}")
    assert offenders == []


def test_each_room_of_sheets_has_modules() -> None:
    """The rooms the test above reads are folders that exist and hold modules (a room
    renamed would leave that test checking nothing)."""
    sheets = REPO / "sheets"
    assert (sheets / "errors.py").is_file()
    for room in ("engine", "kinds"):
        assert len(list((sheets / room).glob("[!_]*.py"))) > 3, room
    assert len(list(sheets.glob("[!_]*.py"))) > 3


def test_no_spreadsheet_words_in_the_rules() -> None:
    """Table names and Y/N answers belong to the workbook side, not to rulesets/."""
    import re

    offenders = []
    for path in sorted((REPO / "rulesets").glob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\btbl_|Y/N|\"Y\"|'Y'", line):
                offenders.append(f"{path.name}:{number}: {line.strip()}")
    assert offenders == []


def test_the_rules_never_import_a_spreadsheet() -> None:
    """Plain core, thin shells: rulesets/ knows nothing of cells, Excel or openpyxl."""

    offenders = []
    for path in sorted((REPO / "rulesets").glob("*.py")):
        for name in _imports(path):
            if name.split(".")[0] in {"openpyxl", "xlwings"}:
                offenders.append(f"{path.name}: {name}")
    assert offenders == []


def test_another_projects_folders_do_not_hide_ours(tmp_path: Path) -> None:
    """One installed package: a project with its own templates/ and sheets/ (as an
    xlwings Server project has) on the path leaves battle_ledger's alone."""
    for name in ("templates", "sheets", "rulesets", "xlfuncs", "examples"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("raise ImportError('not ours')\n")
    out = tmp_path / "ledger.xlsx"
    program = (
        "import sys; from battle_ledger.xlfuncs.cli import main; "
        "sys.argv = ['battle-ledger', 'new', 'dep-ledger', '--ruleset', 'etg', "
        f"'-o', {str(out)!r}]; "
        "main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert out.is_file()
