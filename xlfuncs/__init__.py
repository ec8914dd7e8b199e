"""What Excel sees: the UDFs and macros xlwings loads (``UDF Modules: xlfuncs``).

No logic lives here: every function is a thin wrapper over ``rulesets`` (UDFs)
or ``sheets`` (macros). Importable on any platform.
"""

from xlfuncs._registry import MACROS, UDFS
from xlfuncs.aoe import *  # noqa: F403
from xlfuncs.aog import *  # noqa: F403
from xlfuncs.dep import *  # noqa: F403
from xlfuncs.etg import *  # noqa: F403
from xlfuncs.gote import *  # noqa: F403
from xlfuncs.macros import end_turn as _end_turn  # noqa: F401  (registers the macros)
from xlfuncs.recovery import *  # noqa: F403
from xlfuncs.sail import *  # noqa: F403
from xlfuncs.se import *  # noqa: F403

__all__ = ["MACROS", "UDFS"]
