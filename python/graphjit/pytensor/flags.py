"""PYTENSOR_FLAGS=mode=GRAPHJIT: PyTensor checks `mode` against its own list
of names when it is imported, so the flag is taken out of the environment
for that import and the GRAPHJIT Mode object (which the check accepts) is
set as config.mode afterwards. This works when graphjit.pytensor is
imported before pytensor, or when the script runs under
``python -m graphjit.pytensor script.py``."""
import os
import re
import sys

_FLAG = re.compile(r"(^|,)\s*mode\s*=\s*GRAPHJIT\s*(?=,|$)", re.IGNORECASE)


def wants_graphjit(flags=None):
    flags = os.environ.get("PYTENSOR_FLAGS", "") if flags is None else flags
    return bool(_FLAG.search(flags))


def import_pytensor():
    """Imports pytensor, hiding mode=GRAPHJIT from its flag check; returns
    whether the flag was given."""
    flags = os.environ.get("PYTENSOR_FLAGS")
    wanted = flags is not None and wants_graphjit(flags)
    if wanted and "pytensor" not in sys.modules:
        os.environ["PYTENSOR_FLAGS"] = _FLAG.sub("", flags).strip(",")
        try:
            import pytensor  # noqa: F401
        finally:
            os.environ["PYTENSOR_FLAGS"] = flags
    return wanted


def set_default_mode(mode):
    from pytensor import config
    config.mode = mode
