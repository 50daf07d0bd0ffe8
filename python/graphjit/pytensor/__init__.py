"""PyTensor's graphs on graphjit: ``import graphjit.pytensor`` registers the
linker "graphjit" and the mode "GRAPHJIT".

    import graphjit.pytensor
    f = pytensor.function([x], y, mode="GRAPHJIT", profile=True)
    f(x0)
    f.profile.summary()               # PyTensor's report, graphjit's times
    graphjit.pytensor.summary(f)      # graphjit's report of PyTensor's nodes
    graphjit.pytensor.coverage(f)     # the share in graphjit's JIT code

Once graphjit is installed, no import is needed: the start-up hook of
graphjit-pytensor.pth (_graphjit_pytensor_hook) imports this module right
after a script's first import of pytensor, so mode="GRAPHJIT",
PYTENSOR_FLAGS=mode=GRAPHJIT and config.change_flags(mode="GRAPHJIT") work
in any script. Without the hook (python -S), import this module before
pytensor, or run ``python -m graphjit.pytensor script.py`` (flags.py).
"""
from .flags import import_pytensor as _import_pytensor
from .flags import accept_mode_name as _accept_mode_name
from .flags import set_default_mode as _set_default_mode

_FLAGGED = _import_pytensor()

from pytensor.compile import mode as _mode  # noqa: E402

from .linker import (GraphjitLinker, GraphjitValueError,  # noqa: E402
                     graphjit_query)
from .profile import (coverage, guard_exit_report,  # noqa: E402
                      renamed_profile, summary, sync_profile)

__all__ = ["GraphjitLinker", "GraphjitValueError", "GRAPHJIT", "GRAPHJIT_CUDA",
           "coverage", "summary", "renamed_profile", "sync_profile"]

guard_exit_report()

if "graphjit" not in _mode.predefined_linkers:
    _mode.register_linker("graphjit", GraphjitLinker())

# FAST_RUN's rewrites, as the NUMBA and C modes use them; the linker's
# incompatible_rewrites drop what it cannot take.
GRAPHJIT = _mode.predefined_modes.get("GRAPHJIT") or _mode.Mode(
    GraphjitLinker(), graphjit_query())
# The same on the GPU (docs/gpu.md): the nodes graphjit can place there run
# as kernels, cuBLAS and transfers; the rest stays on the host.
GRAPHJIT_CUDA = _mode.predefined_modes.get("GRAPHJIT_CUDA") or _mode.Mode(
    GraphjitLinker(device="cuda"), graphjit_query())
for _name, _m in (("GRAPHJIT", GRAPHJIT), ("GRAPHJIT_CUDA", GRAPHJIT_CUDA)):
    if _name not in _mode.predefined_modes:
        _mode.register_mode(_name, _m)
    # config.mode = "GRAPHJIT", change_flags(mode="GRAPHJIT"): PyTensor's
    # check of config.mode knows only its own names.
    _accept_mode_name(_name)
if _FLAGGED:
    _set_default_mode("GRAPHJIT")
