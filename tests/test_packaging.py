"""The distribution: ``python -m build`` makes a pure wheel holding every file the code
reads at run time and nothing beside the one package, and an sdist the wheel is built
from (build makes the wheel from the sdist); every dependency is bounded both ways, and
the suite runs inside the bounds. (``.ci/wheel-check`` installs the wheel in a fresh
virtual environment and runs the commands there.)"""

from __future__ import annotations

import configparser
import importlib
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from battle_ledger.rulesets.registry import DATA_DIR, ruleset_ids
from battle_ledger.templates.demo import example_path

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
PACKAGE_DIRS: dict[str, str] = PYPROJECT["tool"]["setuptools"]["package-dir"]
PACKAGE = "battle_ledger"
# What a working tree holds beside its sources (.gitignore's folders, and git's own).
_NOT_SOURCES = (".git", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", ".benchmarks")
_NOT_SOURCES += ("build", "dist", "out")


@dataclass(frozen=True)
class _Dist:
    wheel: Path
    wheel_names: frozenset[str]  # paths inside the wheel
    sdist_names: frozenset[str]  # paths inside the sdist, without its top folder


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> _Dist:
    """The sdist and the wheel, built as a user or CI would (isolated build), from a copy
    of the tree without the egg-info an editable install leaves: setuptools would add the
    files listed there to the sdist, hiding a file MANIFEST.in leaves out."""
    pytest.importorskip("build")
    tree = tmp_path_factory.mktemp("tree") / "battle-ledger"
    shutil.copytree(REPO, tree, ignore=shutil.ignore_patterns(*_NOT_SOURCES))
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(tree)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    with zipfile.ZipFile(wheel) as zf:
        wheel_names = frozenset(zf.namelist())
    with tarfile.open(sdist) as tf:
        sdist_names = frozenset(
            name.split("/", 1)[1]
            for name in tf.getnames()
            if "/" in name and tf.getmember(name).isfile()
        )
    return _Dist(wheel, wheel_names, sdist_names)


def _package_files() -> dict[str, str]:
    """Every file of the package folders (bytecode aside): its path in the wheel -> its
    path in the source tree (pyproject's package-dir: ``rulesets/`` is
    ``battle_ledger/rulesets/``)."""
    found: dict[str, str] = {}
    for name, folder in PACKAGE_DIRS.items():
        for path in (REPO / folder).rglob("*"):
            if path.is_file() and path.suffix != ".pyc" and "__pycache__" not in path.parts:
                inside = path.relative_to(REPO / folder).as_posix()
                found[f"{name.replace('.', '/')}/{inside}"] = f"{folder}/{inside}"
    return found


def _where(path: Path) -> str:
    """Where a file the code found in its package lies in the wheel: under the package
    whose folder it is in (asked of the import system, as the code asks it)."""
    path = path.resolve()
    for name in PACKAGE_DIRS:
        module_file = importlib.import_module(name).__file__
        assert module_file is not None
        folder = Path(module_file).resolve().parent
        if folder in path.parents:
            return f"{name.replace('.', '/')}/{path.relative_to(folder).as_posix()}"
    raise AssertionError(f"{path} lies in none of the packages {sorted(PACKAGE_DIRS)}")


def _read_at_run_time() -> set[str]:
    """The data files the code opens relative to its package, as paths in the wheel,
    asked of the code itself: every rule set's data file (the registry's folder) and
    bundled order of battle (the demo's). (The task pane's script and any other file
    beside the modules: every file of the package folders ships, tested below.)"""
    files = sorted(DATA_DIR.glob("*.yaml")) + [example_path(rid) for rid in ruleset_ids()]
    return {_where(path) for path in files}


@pytest.mark.slow
def test_the_wheel_is_pure_python(dist: _Dist) -> None:
    assert dist.wheel.name.endswith("-py3-none-any.whl")
    with zipfile.ZipFile(dist.wheel) as zf:
        (wheel_file,) = [n for n in dist.wheel_names if n.endswith(".dist-info/WHEEL")]
        tags = zf.read(wheel_file).decode("utf-8").splitlines()
    assert "Tag: py3-none-any" in tags
    assert "Root-Is-Purelib: true" in tags


@pytest.mark.slow
def test_the_wheel_holds_every_file_the_code_reads(dist: _Dist) -> None:
    wanted = _read_at_run_time()
    assert len(wanted) == 2 * len(ruleset_ids())  # a data file and an example each
    assert sorted(wanted - dist.wheel_names) == []


@pytest.mark.slow
def test_the_wheel_is_the_package_folders_and_nothing_else(dist: _Dist) -> None:
    """Every file of the package folders ships; nothing else does (no stray top-level
    package: ``templates/`` is ``battle_ledger/templates`` and never ``templates``)."""
    (dist_info,) = {n.split("/")[0] for n in dist.wheel_names if ".dist-info/" in n}
    shipped = {n for n in dist.wheel_names if not n.startswith(dist_info + "/")}
    assert {n.split("/")[0] for n in shipped} == {PACKAGE}
    assert shipped == set(_package_files())
    with zipfile.ZipFile(dist.wheel) as zf:
        top_level = zf.read(f"{dist_info}/top_level.txt").decode("utf-8").split()
    assert top_level == [PACKAGE]


@pytest.mark.slow
def test_the_metadata_has_the_console_script_and_the_bounds(dist: _Dist) -> None:
    with zipfile.ZipFile(dist.wheel) as zf:
        (entry_points,) = [n for n in dist.wheel_names if n.endswith(".dist-info/entry_points.txt")]
        (metadata_file,) = [n for n in dist.wheel_names if n.endswith(".dist-info/METADATA")]
        parser = configparser.ConfigParser()
        parser.read_string(zf.read(entry_points).decode("utf-8"))
        meta = zf.read(metadata_file).decode("utf-8")
    assert dict(parser["console_scripts"]) == PYPROJECT["project"]["scripts"]
    requires = [
        Requirement(line.split(": ", 1)[1])
        for line in meta.splitlines()
        if line.startswith("Requires-Dist: ")
    ]
    # The extras' requirements carry their extra as a marker in the metadata.
    assert {(r.name, r.specifier) for r in requires} == {(r.name, r.specifier) for r in _declared()}


@pytest.mark.slow
def test_the_sdist_holds_what_the_wheel_is_built_from(dist: _Dist) -> None:
    """Every file the wheel ships is in the sdist at its source path (the data files
    first among them), with what checks it: the tests, the docs, the benchmarks and the
    CI scripts (MANIFEST.in)."""
    files = _package_files()
    assert _read_at_run_time() <= set(files)
    assert sorted(set(files.values()) - dist.sdist_names) == []
    checks = {
        path.relative_to(REPO).as_posix()
        for folder in ("tests", "docs", "benchmarks", ".ci")
        for path in (REPO / folder).rglob("*")
        if path.is_file() and path.suffix != ".pyc" and "__pycache__" not in path.parts
    }
    assert any(name.startswith("tests/golden/") for name in checks)  # the listing found them
    missing = checks - dist.sdist_names
    assert sorted(missing | ({"pyproject.toml", "README.md"} - dist.sdist_names)) == []


def _declared() -> list[Requirement]:
    """Every requirement of the project and of its extras."""
    project = PYPROJECT["project"]
    extras = [r for group in project["optional-dependencies"].values() for r in group]
    return [Requirement(text) for text in project["dependencies"] + extras]


def test_every_dependency_has_a_floor_and_a_ceiling() -> None:
    backend = [Requirement(text) for text in PYPROJECT["build-system"]["requires"]]
    for requirement in _declared() + backend:
        operators = {spec.operator for spec in requirement.specifier}
        assert operators == {">=", "<"}, f"{requirement}: expected >=floor,<ceiling"


def test_the_suite_runs_inside_the_bounds() -> None:
    """What is installed here, where the suite runs, lies inside every bound (the
    build backend, in its own isolated environment, aside)."""
    outside = []
    for requirement in _declared():
        try:
            installed = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            continue  # an extra not installed here (the check covers what runs)
        if not requirement.specifier.contains(installed, prereleases=True):
            outside.append(f"{requirement.name} {installed} not in {requirement.specifier}")
    assert outside == []
