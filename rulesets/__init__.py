"""The rules: validated data files and pure mechanics. No spreadsheet, no xlwings."""

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
