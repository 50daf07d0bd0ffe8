"""PyTensor's graphs on graphjit: ``import graphjit.pytensor`` registers the
linker "graphjit" and the mode "GRAPHJIT".

    import graphjit.pytensor
    f = pytensor.function([x], y, mode="GRAPHJIT", profile=True)
    f(x0)
    f.profile.summary()               # PyTensor's report, graphjit's times
    graphjit.pytensor.summary(f)      # graphjit's report of PyTensor's nodes
    graphjit.pytensor.coverage(f)     # the share in graphjit's JIT code

PYTENSOR_FLAGS=mode=GRAPHJIT works when this module is imported before
pytensor, or under ``python -m graphjit.pytensor script.py`` (flags.py).
"""
from .flags import import_pytensor as _import_pytensor
from .flags import set_default_mode as _set_default_mode

_FLAGGED = _import_pytensor()

from pytensor.compile import mode as _mode  # noqa: E402
from pytensor.graph.rewriting.db import RewriteDatabaseQuery  # noqa: E402

from .linker import GraphjitLinker  # noqa: E402
from .profile import (coverage, renamed_profile, summary,  # noqa: E402
                      sync_profile)

__all__ = ["GraphjitLinker", "GRAPHJIT", "coverage", "summary",
           "renamed_profile", "sync_profile"]

if "graphjit" not in _mode.predefined_linkers:
    _mode.register_linker("graphjit", GraphjitLinker())

# FAST_RUN's rewrites, as the NUMBA and C modes use them; the linker's
# incompatible_rewrites drop what it cannot take.
GRAPHJIT = _mode.predefined_modes.get("GRAPHJIT") or _mode.Mode(
    GraphjitLinker(), RewriteDatabaseQuery(include=["fast_run"]))
if "GRAPHJIT" not in _mode.predefined_modes:
    _mode.register_mode("GRAPHJIT", GRAPHJIT)
if _FLAGGED:
    _set_default_mode(GRAPHJIT)
