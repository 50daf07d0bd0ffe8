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


# Any mode=... among the flags (for __main__: a mode the user chose).
_ANY_MODE = re.compile(r"(^|,)\s*mode\s*=", re.IGNORECASE)


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


def names_a_mode(flags=None):
    flags = os.environ.get("PYTENSOR_FLAGS", "") if flags is None else flags
    return bool(_ANY_MODE.search(flags))


def accept_mode_name(name):
    """Makes config.mode accept `name` (a mode registered with
    pytensor.compile.mode.register_mode), as in change_flags(mode=name).
    PyTensor 2.38 and 3.0 check the value against a fixed list of their own
    names (configdefaults._filter_mode) and otherwise accept only Mode
    objects, so a registered name alone is refused; the check of the "mode"
    parameter is wrapped to let the name through, as a string that
    get_mode finds among the predefined modes."""
    from pytensor import config
    param = config._config_var_dict["mode"]
    check = getattr(param, "_apply", None)
    if check is None or name in getattr(check, "graphjit_names", ()):
        return

    def accept(value):
        if isinstance(value, str) and value.upper() in accept.graphjit_names:
            return value.upper()
        return check(value) if callable(check) else value

    accept.graphjit_names = set(getattr(check, "graphjit_names", ())) | {name}
    accept.__wrapped__ = check
    param._apply = accept


def set_default_mode(mode):
    from pytensor import config
    config.mode = mode
