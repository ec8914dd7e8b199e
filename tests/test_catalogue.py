"""docs/udfs.md is generated from the UDF docstrings and must not drift."""

from __future__ import annotations

import inspect

from battle_ledger.xlfuncs import UDFS
from battle_ledger.xlfuncs.catalogue import (
    CATALOGUE_PATH,
    README_PATH,
    render_catalogue,
    with_readme_index,
)


def test_docs_udfs_md_is_up_to_date() -> None:
    assert CATALOGUE_PATH.read_text(encoding="utf-8") == render_catalogue(), (
        "docs/udfs.md is stale: run `python -m battle_ledger.xlfuncs.catalogue --write`"
    )


def test_readme_index_of_functions_is_up_to_date() -> None:
    readme = README_PATH.read_text(encoding="utf-8")
    assert with_readme_index(readme) == readme, (
        "the README's index of functions is stale: "
        "run `python -m battle_ledger.xlfuncs.catalogue --write`"
    )
    for name in UDFS:
        assert f"| `{name}` |" in readme


def test_every_udf_documents_every_argument() -> None:
    """The docstring is the Function Wizard help: each argument must be explained."""
    undocumented = []
    for name, fn in UDFS.items():
        doc = (fn.__doc__ or "").lower()
        for param in inspect.signature(fn).parameters:
            if param.lower() not in doc and param.replace("_", " ").lower() not in doc:
                undocumented.append(f"{name}({param})")
    assert not undocumented, "arguments missing from docstrings: " + ", ".join(undocumented)
