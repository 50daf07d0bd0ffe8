"""graphjit: a JIT compiler and per-Apply profiler for computation graphs.

    import graphjit
    m = graphjit.load("examples/logistic_regression.graph")
    train = m.function("train", profile=True)
    train(x, y)
    train.profile.summary()          # Theano's report, per Apply

``graphjit.pytensor`` adds the GRAPHJIT mode to PyTensor. GRAPHJIT_FLAGS
(profile=True, optimizer=..., ...) applies to every function, as
THEANO_FLAGS did. docs/python.md has the whole tour.
"""
import os
import sys


def _load_blas():
    """Loads scipy-openblas32's library (the BLAS and LAPACK the native
    module links, a dependency of the package) by its path, so that the
    module's need for it is met whatever the module's RPATH says: the
    wheel's repair keeps no RPATH that leads out of the wheel. A build on
    the system's BLAS has no such package and needs nothing here."""
    try:
        import scipy_openblas32
    except ImportError:
        return
    import ctypes
    ctypes.CDLL(os.path.join(scipy_openblas32.get_lib_dir(),
                             scipy_openblas32.get_library(True)))


_load_blas()
# The native module and what uses it, once the BLAS is loaded.
from . import _graphjit  # noqa: E402
from ._graphjit import (  # noqa: E402
    CEntry, Function, Graph, GraphBuilder, GraphjitError, c_symbols,
    ProfileStats, Variable)
from .profile import (  # noqa: E402
    ApplyRow, Profile, _write, diff, diff_text, merge)

__all__ = ["load", "loads", "function", "Module", "Function", "Graph",
           "CEntry", "c_symbols",
           "GraphBuilder", "GraphjitError", "ProfileStats", "Profile",
           "ApplyRow", "Variable", "merge", "diff", "diff_text", "trace",
           "write_trace", "opt_plugin", "runtime_library", "include_dir"]
# The project's version (CMakeLists.txt's project()), as the native module
# was built with it: the wheel's metadata and `graphjit --version` say the
# same, and the compile cache keys on it.
__version__ = _graphjit.__version__


_HERE = os.path.dirname(os.path.abspath(__file__))


def opt_plugin():
    """The path of the instrumentation pass as an opt-19 plugin
    (docs/instrumentation.md): opt-19 -load-pass-plugin=PATH
    -passes=graphjit-instrument. It uses the LLVM of the opt that loads it."""
    return os.path.join(_HERE, "lib", "GraphjitPasses.so")


def runtime_library():
    """The profiling runtime (a static library) that a program whose IR the
    plugin instrumented links, with -lLLVM-19 -lpthread, to write
    graphjit's profile JSON (docs/instrumentation.md, "A report for any
    program")."""
    return os.path.join(_HERE, "lib", "libgraphjit_runtime.a")


def include_dir():
    """The folder of graphjit/runtime/RuntimeABI.h, the ABI instrumented
    code calls (gj_profile_write, ...)."""
    return os.path.join(_HERE, "include")


# -- ProfileStats: Theano's methods on the native class ----------------------
def _summary(self, file=None, **options):
    """Prints each function's profile, then their sum (Theano's summary)."""
    _write(self.summary_text(**options), file)


def _print_summary(self, **options):
    self.summary(file=sys.stdout, **options)


def _profile(self):
    """The profile as data (graphjit.Profile)."""
    return Profile(self.to_json())


ProfileStats.summary = _summary
ProfileStats.print_summary = _print_summary
ProfileStats.profile = _profile


def _profile_keywords(profile):
    """Theano's profile=True | "name" | ProfileStats as compile keywords."""
    if profile is None or profile is False:
        return {}
    if profile is True:
        return {"profile": True}
    if isinstance(profile, str):
        return {"profile_stats": ProfileStats(profile)}
    if isinstance(profile, ProfileStats):
        return {"profile_stats": profile}
    raise TypeError("profile: expected True, a name or a graphjit.ProfileStats,"
                    " got %r" % (profile,))


def trace(path, events=1000000):
    """Records a timeline of every call of the functions compiled from now
    on (one slice per Apply per call; GRAPHJIT_FLAGS=profiling__trace=path
    does the same), written to path as Chrome trace-event JSON, which
    Perfetto's UI opens, at exit or by write_trace(). Each thread keeps its
    last `events` slices."""
    _graphjit.start_trace(os.fspath(path), int(events))


def write_trace():
    """Writes the timeline trace() asked for now (once)."""
    _graphjit.write_trace()


def function(graph, *, profile=None, linker="c|py", optimizer=None,
             optimizer_excluding=None, optimizer_including=None,
             allow_gc=None, profile_memory=False, profile_optimizer=False,
             profile_distributions=False, profile_mode="exact", device=None,
             opt_level=2, llvm_pipeline=False):
    """Compiles a Graph (Module.graph(name), GraphBuilder.finish()).

    Theano's keywords: profile (True, a name, or a ProfileStats shared with
    other functions), linker ("c|py", "c", "py"), optimizer ("fast_run",
    "fast_compile", "merge", "None"), optimizer_excluding/including ("a:b"),
    allow_gc, profile_memory, profile_optimizer; profile_distributions
    (every Apply's time per call as min, median, p90 and max, the first
    call apart); profile_mode ("exact", or "sample": one store per Apply and
    a sampler thread, the times estimates); and device ("cpu", "cuda",
    "cuda-emulated"), opt_level (LLVM's, 0-3) and llvm_pipeline (at level
    2, LLVM's default<O2> pipeline instead of graphjit's kernel
    pipeline). Keywords left out take
    GRAPHJIT_FLAGS's values.
    """
    return _graphjit.compile(
        graph, linker=linker, optimizer=optimizer,
        optimizer_excluding=optimizer_excluding,
        optimizer_including=optimizer_including, allow_gc=allow_gc,
        profile_memory=profile_memory, profile_optimizer=profile_optimizer,
        profile_distributions=profile_distributions,
        profile_mode=profile_mode,
        device=device, opt_level=opt_level, llvm_pipeline=llvm_pipeline,
        **_profile_keywords(profile))


class SharedVariable:
    """A shared variable of a module: its value lives across calls."""

    def __init__(self, module, name):
        self._module = module
        self.name = name

    @property
    def type(self):
        """(dtype, shape) as declared."""
        return self._module.shared_type(self.name)

    def get_value(self):
        """A copy of the current value."""
        return self._module.get_shared(self.name)

    def set_value(self, value):
        """Sets the value (copied; dtype and declared dims are checked)."""
        self._module.set_shared(self.name, value)

    def __repr__(self):
        dtype, shape = self.type
        return "<graphjit.SharedVariable %s: %s%s>" % (self.name, dtype,
                                                       list(shape))


class Module:
    """A .graph module: its functions and shared variables."""

    def __init__(self, native):
        self._m = native

    @property
    def file_name(self):
        return self._m.file_name

    @property
    def function_names(self):
        return self._m.function_names

    @property
    def shared(self):
        """The shared variables by name."""
        return {n: SharedVariable(self._m, n) for n in self._m.shared_names}

    def graph(self, name):
        return self._m.graph(name)

    def function(self, name, **keywords):
        """Compiles function `name`; keywords as graphjit.function."""
        return function(self._m.graph(name), **keywords)

    def text(self):
        return self._m.text()

    def __repr__(self):
        return "<graphjit.Module %s: functions %s, shared %s>" % (
            self.file_name, self.function_names, self._m.shared_names)


def load(path):
    """Reads a .graph file (errors say FILE:LINE:COL)."""
    return Module(_graphjit.Module.load(os.fspath(path)))


def loads(text, file_name="<string>"):
    """Reads .graph text; file_name is what errors and profiles cite."""
    return Module(_graphjit.Module.parse(text, file_name))
