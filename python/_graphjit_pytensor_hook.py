"""graphjit's start-up hook for PyTensor, installed into site-packages with
graphjit-pytensor.pth, which imports it when Python starts (docs/python.md,
section 5, "Finding the mode").

It imports nothing but sys and os (both loaded by then) and puts one finder
at the head of sys.meta_path; the finder answers only for the top-level
package "pytensor". When pytensor is imported, its loader runs as usual,
then ``graphjit.pytensor`` is imported, which registers the linker
"graphjit" and the mode "GRAPHJIT", and the finder takes itself out of
sys.meta_path. A process that never imports pytensor loads nothing of
graphjit, numpy or pytensor.

PYTENSOR_FLAGS=mode=GRAPHJIT: PyTensor checks the flag against its own
list of names while ``pytensor.configdefaults`` runs, before any mode can
be registered, so the flag is taken out of the environment for pytensor's
import and ``graphjit.pytensor`` sets config.mode afterwards (as flags.py
does when graphjit.pytensor is imported first).

The mode is registered once pytensor's package has been imported whole,
not in the middle of it (when ``pytensor.compile.mode`` is imported):
graphjit.pytensor imports pytensor.tensor and the rest, which a
half-imported pytensor cannot yet give. No PyTensor function can be
compiled before ``import pytensor`` returns, so nothing sees the mode
missing.
"""
import os
import sys

# mode=GRAPHJIT among the flags (as graphjit/pytensor/flags.py matches it;
# kept here so that the hook needs nothing of graphjit before pytensor).
_PATTERN = r"(^|,)\s*mode\s*=\s*GRAPHJIT\s*(?=,|$)"


class PytensorFinder:
    """The sys.meta_path entry: finds "pytensor" with the finders after it
    and wraps the loader's exec_module."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname != "pytensor":
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is cls or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is not None and hasattr(loader, "exec_module"):
            # An instance attribute: the loader is this spec's own. A spec
            # found but never loaded (importlib.util.find_spec) leaves the
            # finder in place for the real import.
            loader.exec_module = _wrap(loader, loader.exec_module)
        return spec


def _wrap(loader, exec_module):
    def exec_pytensor(module):
        uninstall()
        flags = os.environ.get("PYTENSOR_FLAGS")
        wanted = False
        if flags and "GRAPHJIT" in flags.upper():
            import re
            pattern = re.compile(_PATTERN, re.IGNORECASE)
            wanted = bool(pattern.search(flags))
        if wanted:
            os.environ["PYTENSOR_FLAGS"] = pattern.sub("", flags).strip(",")
        try:
            exec_module(module)
        finally:
            if wanted:
                os.environ["PYTENSOR_FLAGS"] = flags
            try:
                del loader.exec_module
            except AttributeError:
                pass
        _register(wanted)
    return exec_pytensor


def _register(wanted):
    # graphjit.pytensor already in sys.modules: it is the importer of
    # pytensor (it registers the mode itself once pytensor returns).
    if "graphjit.pytensor" in sys.modules:
        return
    try:
        import graphjit.pytensor  # noqa: F401
    except Exception as e:
        if wanted:
            raise
        import warnings
        warnings.warn("graphjit: the GRAPHJIT mode is not registered "
                      "(importing graphjit.pytensor failed: %s: %s)"
                      % (type(e).__name__, e), RuntimeWarning, stacklevel=2)


def install():
    if "pytensor" not in sys.modules and PytensorFinder not in sys.meta_path:
        sys.meta_path.insert(0, PytensorFinder)


def uninstall():
    try:
        sys.meta_path.remove(PytensorFinder)
    except ValueError:
        pass


install()
