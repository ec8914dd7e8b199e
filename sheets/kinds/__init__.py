"""The ledger kinds: one module a kind, its declaration with its operations.

Every module here is imported when an operation is looked up
(``sheets.operations.load_operations``), so a new kind's module needs no other line.
"""

__all__: list[str] = []
