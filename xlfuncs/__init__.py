"""What Excel sees: the UDFs and macros xlwings loads (``UDF Modules: xlfuncs``).

No logic lives here: every function is a thin wrapper over ``rulesets`` (UDFs)
or ``sheets`` (macros). Importable on any platform.
"""

from xlfuncs._registry import MACROS, UDFS

__all__ = ["MACROS", "UDFS"]
