"""The UDF catalogue (docs/udfs.md), generated from the UDFs' own docstrings.

``python -m xlfuncs.catalogue`` prints it; ``--write`` rewrites docs/udfs.md.
``tests/test_catalogue.py`` fails when the file and the functions drift apart.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import xlfuncs
from xlfuncs._registry import MACROS, UDFS

__all__ = ["CATALOGUE_PATH", "render_catalogue"]

CATALOGUE_PATH = Path(__file__).resolve().parent.parent / "docs" / "udfs.md"

_PREFIXES = [
    ("ETG_", "Eagles to Glory"),
    ("DEP_", "Eagles to Glory: the DEP ledger"),
    ("RECOVERY", "Campaign recovery"),
    ("SE_", "Square Eagles"),
    ("AOE_", "Age of Eagles"),
    ("GOTE_", "Glory of the Empire"),
    ("AOG_", "The Age of Glaube family (Glaube, Gloire, Reason, Destiny)"),
    ("SAIL_", "Age of Sail"),
]


def _section(name: str) -> str:
    for prefix, title in _PREFIXES:
        if name.startswith(prefix):
            return title
    return "Other"


def _signature(name: str) -> str:
    fn = UDFS[name]
    parts = []
    for param in inspect.signature(fn).parameters.values():
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            parts.append(f"[{param.name}, ...]")
        elif param.default is inspect.Parameter.empty:
            parts.append(param.name)
        else:
            parts.append(f"[{param.name}]")
    return f"={name}({', '.join(parts)})"


def render_catalogue() -> str:
    """Markdown: every UDF by rule set, its call shape and its Function Wizard help."""
    assert xlfuncs.UDFS is UDFS  # importing xlfuncs registers every UDF module
    lines = [
        "# Excel functions (UDFs)",
        "",
        "Generated from the functions' docstrings by `python -m xlfuncs.catalogue --write`;",
        "`tests/test_catalogue.py` keeps it in step. Every function can also be called",
        "headless: `battle-ledger udf NAME ARG... [--json]`.",
        "",
    ]
    by_section: dict[str, list[str]] = {}
    for name in sorted(UDFS):
        by_section.setdefault(_section(name), []).append(name)
    order = [title for _, title in _PREFIXES] + ["Other"]
    for title in order:
        names = by_section.get(title)
        if not names:
            continue
        lines += [f"## {title}", ""]
        for name in names:
            doc = inspect.cleandoc(UDFS[name].__doc__ or "")
            lines += [f"### `{_signature(name)}`", "", doc, ""]
    if MACROS:
        lines += ["## Macros (buttons)", ""]
        for name in sorted(MACROS):
            doc = inspect.cleandoc(MACROS[name].__doc__ or "")
            lines += [f"### `{name}`", "", doc, ""]
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str]) -> int:
    text = render_catalogue()
    if "--write" in argv:
        CATALOGUE_PATH.write_text(text, encoding="utf-8")
        print(f"wrote {CATALOGUE_PATH}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
