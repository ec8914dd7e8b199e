"""The workbook engine: files, packages, cells and tables, and nothing of ledgers.

The ``Book`` interface (``book``) and its three backends (``zipbook``: the fast one
commands use; ``headless``: openpyxl on a file; ``xlbook``: a live ``xw.Book``), the
reading of cell values (``values``, ``zipvalues``, ``a1``), the workbook file's checks
and atomic save (``workbook_file``), the history folder (``history``), the writer lock
(``writer``), print areas and chart ranges (``printout``) and xlwings Lite's parts
(``webextension``). Nothing here imports the ledger framework or the kinds
(``tests/test_quality.py``).
"""

__all__: list[str] = []
