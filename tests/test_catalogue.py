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


def test_every_function_of_several_result_columns_says_what_each_is() -> None:
    """``Returns one row [a, b]`` in the help, and the same columns declared for
    ``udf --labels``: one of the two without the other, or a different count, fails."""
    import re

    from battle_ledger.xlfuncs._registry import column_labels

    for name, fn in UDFS.items():
        doc = " ".join((inspect.getdoc(fn) or "").split())
        several = re.search(r"Returns (one row|rows) ", doc) is not None
        assert (column_labels(name, 2) is not None) == several, name
        listed = re.search(r"Returns (?:one row|rows) \[([^\]]+)\]", doc)
        if listed and "..." not in listed.group(1) and "(" not in listed.group(1):
            count = len(listed.group(1).split(", "))
            assert len([c for c in column_labels(name, count) or [] if c]) == count, name


def test_every_udf_is_named_by_its_modules_prefix() -> None:
    """A module of functions is one record (``xlfuncs._modules``): each of its functions
    carries its prefix, and falls in its section of the catalogue."""
    from battle_ledger.xlfuncs._modules import FUNCTION_MODULES, function_module

    assert {function_module(fn.__module__) for fn in UDFS.values()} == set(FUNCTION_MODULES)
    for name, fn in UDFS.items():
        module = function_module(fn.__module__)
        assert module is not None and name.startswith(module.prefix), (name, fn.__module__)
