"""The README's promises: its first two commands, the CI script, its links."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
CI_RUN = REPO / ".ci" / "run"


def _code_blocks(text: str) -> list[str]:
    return [block.strip() for block in re.findall(r"```(?:sh)?\n(.*?)```", text, flags=re.S)]


def test_readme_opens_with_the_demo_and_the_test_command() -> None:
    blocks = _code_blocks(README.read_text(encoding="utf-8"))
    assert blocks[0] == "python -m pip install -e . && battle-ledger demo -o demo-out"
    assert blocks[1] == "python -m pip install -e '.[test]' && python -m pytest -n auto"


def test_ci_runs_exactly_the_readme_test_command() -> None:
    test_command = _code_blocks(README.read_text(encoding="utf-8"))[1]
    lines = [
        line.strip()
        for line in CI_RUN.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    assert lines[0] == "set -euo pipefail"
    assert lines[-1] == test_command  # the last thing CI does, verbatim
    assert any("apt-get install" in line and "libreoffice-calc" in line for line in lines)
    assert CI_RUN.stat().st_mode & 0o111  # executable


def test_readme_links_point_at_files_that_exist() -> None:
    links = re.findall(r"\]\(([^)#]+)\)", README.read_text(encoding="utf-8"))
    local = [link for link in links if not link.startswith("http")]
    assert local, "the README links to the docs"
    missing = [link for link in local if not (REPO / link).is_file()]
    assert missing == []


def test_the_readme_orders_of_battle_build_rosters(tmp_path: Path) -> None:
    """The CSV and YAML examples in the README are real orders of battle."""
    from battle_ledger.sheets.oob import read_oob
    from battle_ledger.templates import build

    text = README.read_text(encoding="utf-8")
    examples = {
        "csv": re.search(r"```csv\n(.*?)```", text, flags=re.S),
        "yaml": re.search(r"```yaml\n(.*?)```", text, flags=re.S),
    }
    for ext, match in examples.items():
        assert match, f"the README has no {ext} example"
        path = tmp_path / f"oob.{ext}"
        path.write_text(match.group(1), encoding="utf-8")
        oob = read_oob(path, "eagles-to-glory")
        assert [u.unit for u in oob.units][:2] == ["2e Léger", "61e Ligne"]
        assert oob.units[0].type == "infantry"
        wb = build("roster", "eagles-to-glory", oob)
        assert "Log" in wb.sheetnames
