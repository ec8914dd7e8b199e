"""The Rules sheet as LibreOffice prints it: every word there, in readable type."""

from __future__ import annotations

import re
import shutil
import statistics
from pathlib import Path

import pytest

from battle_ledger.rulesets import registry
from battle_ledger.sheets.engine.headless import save_workbook
from battle_ledger.sheets.oob import read_oob
from battle_ledger.templates import build
from battle_ledger.templates.demo import example_path
from tests.libreoffice import page_texts, render_pdf

pytestmark = pytest.mark.libreoffice


def test_the_rules_sheet_prints_every_word_in_readable_type(tmp_path: Path) -> None:
    if shutil.which("pdftotext") is None or shutil.which("pdfinfo") is None:
        pytest.skip("poppler-utils (pdftotext, pdfinfo) are not installed")
    ruleset = registry.get("etg")
    ledger = tmp_path / "ledger.xlsx"
    save_workbook(build("dep-ledger", ruleset, read_oob(example_path("etg"), ruleset)), ledger)
    pages = page_texts(render_pdf(ledger, tmp_path / "ledger.pdf"), "-bbox")
    first = next(i for i, p in enumerate(pages) if ">quick<" in p and ">reference<" in p)
    last = next(i for i, p in enumerate(pages) if i > first and ">Action<" in p)  # the Log's
    rules = pages[first:last]
    words = [w for page in rules for w in re.findall(r">([^<]+)</word>", page)]
    box = re.compile(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)"')
    heights = [float(b) - float(a) for page in rules for a, b in box.findall(page)]
    # 10 pt type measures about 10.5 pt a word at full size; shrunk to fit the longest
    # line it was 6.9 pt (65%).
    assert statistics.median(heights) >= 9.0
    text = " ".join(words)
    for term in ruleset.vocabulary("unit_types").terms:
        for spelling in (term.name, *term.aliases):  # each whole: wrapped, never cut
            assert " ".join(spelling.split()) in text, spelling
