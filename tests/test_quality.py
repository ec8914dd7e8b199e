"""The code-quality promises of the project hold: ruff lint and format, mypy on the core."""

from __future__ import annotations

import shutil
import subprocess
import sys
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


def test_mypy_strict_on_the_rules_core() -> None:
    pytest.importorskip("mypy")
    typed = _run(sys.executable, "-m", "mypy")
    assert typed.returncode == 0, typed.stdout + typed.stderr


def test_the_rules_never_import_a_spreadsheet() -> None:
    """Plain core, thin shells: rulesets/ knows nothing of cells, Excel or openpyxl."""
    import ast

    offenders = []
    for path in sorted((REPO / "rulesets").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in {"openpyxl", "xlwings", "sheets", "templates", "xlfuncs"}:
                    offenders.append(f"{path.name}: {name}")
    assert offenders == []
