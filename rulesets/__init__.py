"""The rules: validated data files and pure mechanics. No spreadsheet, no xlwings.

The names below are imported from their modules when first used
(``battle_ledger._lazy``): the command line's help needs none of them.
"""

from typing import TYPE_CHECKING

from battle_ledger._lazy import lazy_exports

if TYPE_CHECKING:
    from battle_ledger.rulesets.errors import (
        BattleLedgerError,
        InvalidArgumentError,
        MissingTableError,
        RulesetDataError,
        RulesetError,
        UnknownRulesetError,
        UnknownTermError,
    )
    from battle_ledger.rulesets.model import Ruleset, Status, Table, Term
    from battle_ledger.rulesets.registry import all_rulesets, get, load_file, ruleset_ids

__all__ = [
    "BattleLedgerError",
    "InvalidArgumentError",
    "MissingTableError",
    "Ruleset",
    "RulesetDataError",
    "RulesetError",
    "Status",
    "Table",
    "Term",
    "UnknownRulesetError",
    "UnknownTermError",
    "all_rulesets",
    "get",
    "load_file",
    "ruleset_ids",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(
            [
                "BattleLedgerError",
                "InvalidArgumentError",
                "MissingTableError",
                "RulesetDataError",
                "RulesetError",
                "UnknownRulesetError",
                "UnknownTermError",
            ],
            "errors",
        ),
        **dict.fromkeys(["Ruleset", "Status", "Table", "Term"], "model"),
        **dict.fromkeys(["all_rulesets", "get", "load_file", "ruleset_ids"], "registry"),
    },
)
