"""What Excel sees: the UDFs and macros xlwings loads (``UDF Modules: xlfuncs``).

No logic lives here: every function is a thin wrapper over ``rulesets`` (UDFs)
or ``sheets`` (macros). Importable on any platform.
"""

from battle_ledger.xlfuncs import macros as _macros  # noqa: F401  (registers the buttons)
from battle_ledger.xlfuncs._registry import MACROS, UDFS
from battle_ledger.xlfuncs.aoe import *  # noqa: F403
from battle_ledger.xlfuncs.aog import *  # noqa: F403
from battle_ledger.xlfuncs.dep import *  # noqa: F403
from battle_ledger.xlfuncs.etg import *  # noqa: F403
from battle_ledger.xlfuncs.gote import *  # noqa: F403
from battle_ledger.xlfuncs.recovery import *  # noqa: F403
from battle_ledger.xlfuncs.sail import *  # noqa: F403
from battle_ledger.xlfuncs.se import *  # noqa: F403

__all__ = ["MACROS", "UDFS"]
