"""The modules of Excel functions: one record each of its rule set, its functions' prefix
and its section of the catalogue (read by the loader, Excel's categories and
``docs/udfs.md``). Light: nothing here imports xlwings or a rule set."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FUNCTION_MODULES", "FunctionModule", "function_module"]


@dataclass(frozen=True)
class FunctionModule:
    """``xlfuncs.<name>``: the functions of ``ruleset`` (None: functions taking their rule
    set as an argument), each named ``<prefix>...`` as Excel shows it, under ``title``."""

    name: str
    prefix: str
    ruleset: str | None
    title: str


#: Every module of functions, in the catalogue's order.
FUNCTION_MODULES = (
    FunctionModule("etg", "ETG_", "eagles-to-glory", "Eagles to Glory"),
    FunctionModule("dep", "DEP_", "eagles-to-glory", "Eagles to Glory: the DEP ledger"),
    FunctionModule("recovery", "RECOVERY", None, "Campaign recovery"),
    FunctionModule("se", "SE_", "square-eagles", "Square Eagles"),
    FunctionModule("aoe", "AOE_", "age-of-eagles", "Age of Eagles"),
    FunctionModule("gote", "GOTE_", "glory-of-the-empire", "Glory of the Empire"),
    FunctionModule(
        "aog",
        "AOG_",
        "age-of-glaube",
        "The Age of Glaube family (Glaube, Gloire, Reason, Destiny)",
    ),
    FunctionModule("sail", "SAIL_", "age-of-sail", "Age of Sail"),
)


def function_module(module: str) -> FunctionModule | None:
    """The record of a module of functions (``battle_ledger.xlfuncs.etg`` or ``etg``)."""
    name = module.rsplit(".", 1)[-1]
    return next((m for m in FUNCTION_MODULES if m.name == name), None)
