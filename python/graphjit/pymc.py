"""PyMC models sampled by nutpie on graphjit.

    import graphjit.pymc, nutpie
    compiled = graphjit.pymc.compile_pymc_model(model)
    trace = nutpie.sample(compiled, chains=2, cores=2)

nutpie's NUTS (Rust) calls the model's log-density and gradient, and the
function that expands a draw into every stored variable, as plain C
functions. nutpie's own backend makes them with Numba; here they are
graphjit's C entries (graphjit/CEntry.h, docs/c-entry.md) over the same
PyTensor graphs compiled in the GRAPHJIT mode, so a model that is all C
samples with no Python and no GIL in its chains' threads.

The graphs are the ones nutpie builds (nutpie.compile_pymc's own steps);
only the mode and the C functions differ. Tested with the nutpie version
pinned in python/requirements-pymc.txt.
"""
import contextlib
import dataclasses
import threading
import time
from functools import wraps

import numpy as np

from . import _graphjit

__all__ = ["compile_pymc_model", "GraphjitCompiledModel", "density_entries",
           "labelled_logp", "profile_by_variable"]


def _nutpie():
    try:
        from nutpie import compile_pymc
    except ImportError as e:  # pragma: no cover - nutpie is pinned in tests
        raise ImportError("graphjit.pymc needs nutpie (pip install "
                          "nutpie; see python/requirements-pymc.txt)") from e
    for name in ("CompiledPyMCModel", "_make_functions",
                 "_prepare_dims_and_coords"):
        if not hasattr(compile_pymc, name):
            raise ImportError("graphjit.pymc: this nutpie has no "
                              "compile_pymc.%s; use the version in "
                              "python/requirements-pymc.txt" % name)
    return compile_pymc


def _labelling_mode(linker):
    """A GRAPHJIT mode whose rewrites carry the model terms' labels
    (graphjit.pytensor.terms): its query's extra rewrite, which survives
    PyMC's including(), runs before any other."""
    from pytensor.compile.mode import Mode

    from .pytensor.linker import graphjit_query
    from .pytensor.terms import TermTracking
    return Mode(linker, graphjit_query((TermTracking(), -1)))


def _mode(profile):
    """The GRAPHJIT mode; profiled into `profile` (a ProfileStats) if any,
    its nodes labelled with the model terms they work for."""
    from .pytensor import GraphjitLinker
    if profile is None:
        return "GRAPHJIT"
    # nutpie's two functions: the log-density and its gradient (two
    # outputs), and the expansion of a draw (one).
    def name(fgraph):
        return "logp" if len(fgraph.outputs) == 2 else "expand"
    return _labelling_mode(GraphjitLinker(profile_stats=profile, name=name))


@contextlib.contextmanager
def profile_by_variable(model, profile):
    """For pm.sample and PyMC's other compiled functions: inside, the
    model's log-density is labelled, and the GRAPHJIT mode yielded profiles
    every function compiled in it into `profile` (a graphjit.ProfileStats),
    each Apply of the log-density charged to the model's variables (the
    report's "Time by model variable")::

        stats = graphjit.ProfileStats("pm.sample")
        with graphjit.pymc.profile_by_variable(model, stats) as mode:
            pm.sample(model=model, cores=1, compile_kwargs={"mode": mode})
        stats.summary()

    Chains that PyMC runs in other processes (cores > 1) count there.
    """
    from .pytensor import GraphjitLinker
    if not isinstance(profile, _graphjit.ProfileStats):
        raise TypeError("profile: expected a graphjit.ProfileStats, got %r"
                        % (profile,))

    def name(fgraph):
        return "logp" if getattr(fgraph, "graphjit_terms", False) \
            else "pytensor"
    with _logp_labelled(model, True):
        yield _labelling_mode(GraphjitLinker(profile_stats=profile,
                                             name=name))


def _term_names(model):
    """The model's terms, in the order model.logp() sums them."""
    return [v.name for v in
            model.free_RVs + model.observed_RVs + model.potentials]


def labelled_logp(model):
    """model.logp() as nutpie takes it (rewritten to canonical and stable
    form), each node labelled with the terms it works for (the profile's
    "Time by model variable"; graphjit.pytensor.terms). The same graph as
    nutpie's: its own rewrite finds nothing left to do."""
    from pytensor.graph.fg import FunctionGraph
    from pytensor.graph.rewriting.utils import rewrite_graph
    from pytensor.tensor import as_tensor
    from pytensor.tensor.math import variadic_add

    from .pytensor import terms
    names = _term_names(model)
    factors = type(model).logp(model, sum=False)
    sums = [as_tensor(factor, allow_xtensor_conversion=True).sum()
            for factor in factors]
    terms.label_factors(sums, names)
    logp = variadic_add(*sums)
    logp.name = "__logp" + ("_" + model.name if model.name else "")
    terms.mark_density(logp, names)
    include = ["canonicalize", "stabilize"]
    if not model.check_bounds:
        include.append("local_remove_check_parameter")
    fgraph = FunctionGraph(outputs=[logp], clone=False,
                           features=[terms.TermProvenance()])
    rewrite_graph(fgraph, include=include)
    logp = fgraph.outputs[0]
    terms.mark_density(logp, names)
    return logp


@contextlib.contextmanager
def _logp_labelled(model, on):
    """model.logp() returns labelled_logp(model) inside, when on."""
    if not on:
        yield
        return
    model.logp = lambda *args, **kwargs: (
        labelled_logp(model) if not args and not kwargs
        else type(model).logp(model, *args, **kwargs))
    try:
        yield
    finally:
        del model.logp


def _graphjit_parts(fn, what):
    """The graphjit function and translation behind a PyTensor function
    compiled in the GRAPHJIT mode."""
    vm = getattr(fn, "vm", None)
    f = getattr(vm, "graphjit_function", None)
    t = getattr(vm, "translation", None)
    if f is None or t is None:
        raise ValueError("graphjit.pymc: the %s function did not compile to "
                         "graphjit (mode %r)" % (what, fn.maker.mode))
    cells = [fn.maker.fgraph.inputs[i] for i, k in enumerate(t.input_kinds)
             if k == "cell"]
    if cells:
        raise ValueError("graphjit.pymc: the %s function takes values that "
                         "only its Python nodes hold (%s); a C entry cannot "
                         "pass them" % (what, ", ".join(map(str, cells))))
    outs = [k for k, _ in t.outputs if k != "gj"]
    if outs:
        raise ValueError("graphjit.pymc: an output of the %s function is no "
                         "array graphjit computes" % what)
    return f, t


def _shared_values(fns):
    """The shared variables the functions read, by name, as read-only
    C-contiguous copies (what the entries are bound to, as in nutpie)."""
    data, seen = {}, {}
    for fn in fns:
        for var in fn.get_shared():
            if seen.setdefault(var.name, var) is not var:
                raise ValueError("graphjit.pymc: shared variables must have "
                                 "unique names: %r" % var.name)
            if var.name not in data:
                value = np.array(var.get_value(), order="C", copy=True)
                value.flags.writeable = False
                data[var.name] = value
    return data


def _entry(fn, what, free_shape, output_shapes, shared_data):
    """A C entry of PyTensor function fn of the flat point (its first
    input, free, of free_shape), every other input bound to its shared
    variable's value in shared_data."""
    f, t = _graphjit_parts(fn, what)
    inputs = fn.maker.fgraph.inputs
    point_input = inputs[0]
    bound, free = {}, {}
    for name, i in zip(f.input_names, t.gj_inputs):
        var = inputs[i]
        if var is point_input:
            free[name] = free_shape
            continue
        if getattr(var, "name", None) not in shared_data:
            raise ValueError("graphjit.pymc: input %s of the %s function is "
                             "neither the point nor a shared variable"
                             % (var, what))
        value = shared_data[var.name]
        bound[name] = value.reshape(()) if t.input_kinds[i] == "scalar" \
            else value
    if not free:
        raise ValueError("graphjit.pymc: the %s function does not read the "
                         "point" % what)
    return f.c_entry(bound=bound, free_shapes=free,
                     output_shapes=output_shapes)


def density_entries(logp_fn, expand_fn, n_dim, n_expanded, shared_data):
    """The logp+gradient and expand entries of two PyTensor functions of
    the flat point (nutpie's), and the gj_density that pairs them."""
    logp = _entry(logp_fn, "logp", (n_dim,), [(), (n_dim,)], shared_data)
    expand = _entry(expand_fn, "expand", (n_dim,), [(n_expanded,)],
                    shared_data)
    # A gj_density is two pointers: the entries, in that order.
    density = np.array([logp.pointer, expand.pointer], dtype=np.uintp)
    return logp, expand, density


class _Address:
    """What nutpie's model reads a C function from (.address), holding
    the entry the function is called with alive."""

    def __init__(self, symbol, entry):
        self.address = _graphjit.c_symbols()[symbol]
        self.entry = entry


def _compiled_model_class():
    base = _nutpie().CompiledPyMCModel

    @dataclasses.dataclass(frozen=True)
    class GraphjitCompiledModel(base):
        """nutpie's compiled PyMC model with graphjit's C entries in place
        of Numba's cfuncs: nutpie.sample() takes it as it takes its own.
        user_data is the gj_density both functions are called with."""

        def with_data(self, **updates):
            shared = dict(self.shared_data)
            for name, new in updates.items():
                if name not in shared:
                    raise KeyError("Unknown shared variable: %s" % name)
                old = shared[name]
                new = np.array(new, dtype=old.dtype, order="C", copy=True)
                new.flags.writeable = False
                if new.ndim != old.ndim:
                    raise ValueError("Shared variable %s must have rank %d"
                                     % (name, old.ndim))
                shared[name] = new
            logp, expand, density = density_entries(
                self.logp_func, self.expand_func, self.n_dim,
                self.n_expanded, shared)
            return dataclasses.replace(
                self, shared_data=shared, user_data=density,
                compiled_logp_func=_Address("gj_density_logp", logp),
                compiled_expand_func=_Address("gj_density_expand", expand))

    return GraphjitCompiledModel


_MODEL_CLASS = None


def _model_class():
    global _MODEL_CLASS
    if _MODEL_CLASS is None:
        _MODEL_CLASS = _compiled_model_class()
    return _MODEL_CLASS


def __getattr__(name):
    if name == "GraphjitCompiledModel":
        return _model_class()
    raise AttributeError(name)


class _CompileClock:
    """Where compiling a model goes: PyTensor's rewrites and linkers (its
    own running totals, kept for every function it compiles, the helpers
    PyMC compiles for shapes and initial points included), of the linkers'
    time the translation and graphjit's compile of the model's functions,
    and the rest: PyMC's graphs (log-density, gradient) and the entries."""

    def __init__(self):
        from pytensor.compile import profiling
        self._totals = profiling
        self._start = time.perf_counter()
        self._rewrites = self._rewrite_total()
        self._linkers = self._linker_total()

    def _rewrite_total(self):
        return getattr(self._totals, "total_graph_rewrite_time", 0.0)

    def _linker_total(self):
        return getattr(self._totals, "total_time_linker", 0.0)

    def split(self, functions):
        total = time.perf_counter() - self._start
        rewrites = self._rewrite_total() - self._rewrites
        linkers = self._linker_total() - self._linkers
        ours = [getattr(f.vm, "compile_seconds", {}) for f in functions]
        translation = sum(s.get("translation", 0.0) for s in ours)
        graphjit = sum(s.get("graphjit", 0.0) for s in ours)
        return {"pytensor rewrites": rewrites,
                "translation": translation,
                "graphjit compile": graphjit,
                "other linking": max(linkers - translation - graphjit, 0.0),
                "pymc graphs and the rest":
                    max(total - rewrites - linkers, 0.0),
                "total": total}


@contextlib.contextmanager
def _helpers_in_python():
    """PyMC's and nutpie's helpers (initial points, the variables' shapes)
    compiled with PyTensor's Python linker while the block runs: they run
    once per chain, and PyTensor's C backend spends seconds compiling C on
    a first run; its VM linker, even without C, imports setuptools (0.24 s
    of a fresh process). They ask for the default mode, FAST_COMPILE by
    name, or PyTensor's FAST_COMPILE object: each is the Python linker's
    mode meanwhile."""
    from pytensor import config
    from pytensor.compile import mode as modes
    helpers = modes.Mode(linker="py", optimizer="fast_compile")
    saved = modes.FAST_COMPILE, modes.predefined_modes["FAST_COMPILE"]
    modes.FAST_COMPILE = modes.predefined_modes["FAST_COMPILE"] = helpers
    try:
        with config.change_flags(mode=helpers):
            yield
    finally:
        modes.FAST_COMPILE, modes.predefined_modes["FAST_COMPILE"] = saved


def _locked(fn):
    # nutpie's chains ask for initial points from their own threads.
    lock = threading.Lock()

    @wraps(fn)
    def locked(*args, **kwargs):
        with lock:
            return fn(*args, **kwargs)
    return locked


def compile_pymc_model(model, *, initial_points=None, jitter_rvs=None,
                       default_initialization_strategy="support_point",
                       var_names=None, freeze_model=False, profile=None):
    """Compiles a PyMC model for nutpie.sample() with graphjit.

    The keywords are nutpie.compile_pymc_model's (its backend is graphjit).
    profile: a graphjit.ProfileStats (or True: a new one) that the model's
    functions report into over the whole sampling run, every chain and
    thread; it is the model's ``.profile`` (None when not profiled).
    The model's ``.compile_times`` says where compiling it went, in
    seconds: PyTensor's rewrites, the translation to graphjit, graphjit's
    compile, PyTensor's other linking (helpers PyMC compiles for shapes
    and initial points), PyMC's graphs and the rest, and the total.
    """
    cp = _nutpie()
    from pymc.initial_point import make_initial_point_fn
    from pymc.model.transform.optimization import freeze_dims_and_data

    if profile is True:
        profile = _graphjit.ProfileStats("pymc model")
    if profile is not None and not isinstance(profile, _graphjit.ProfileStats):
        raise TypeError("profile: expected True or a graphjit.ProfileStats, "
                        "got %r" % (profile,))
    clock = _CompileClock()
    if freeze_model:
        model = freeze_dims_and_data(model)
    if default_initialization_strategy == "support_point" and \
            jitter_rvs is None:
        jitter_rvs = set(model.free_RVs)
    # The model's own functions name their mode.
    with _helpers_in_python():
        initial_point_fn = _locked(make_initial_point_fn(
            model=model, overrides=initial_points,
            default_strategy=default_initialization_strategy,
            jitter_rvs=jitter_rvs, return_transformed=True))
        # Its first call compiles what its ops compile on first use (the
        # inner function of LKJCholeskyCov's random variable, an
        # OpFromGraph): here, in the helpers' mode, not in PyTensor's C
        # backend in the first chain (mvnormal_lkj's cold sampling phase
        # took 2.4 s against 0.4 s warm).
        initial_point_fn(0)
        with _logp_labelled(model, profile is not None):
            (n_dim, n_expanded, logp_fn, expand_fn, flat_initial_point_fn,
             shape_info) = cp._make_functions(
                model, mode=_mode(profile), compute_grad=True,
                join_expanded=True, pymc_initial_point_fn=initial_point_fn,
                var_names=var_names)
        dims, coords = cp._prepare_dims_and_coords(model, shape_info)

    shared_data = _shared_values([logp_fn, expand_fn])
    logp, expand, density = density_entries(logp_fn, expand_fn, n_dim,
                                            n_expanded, shared_data)
    compile_times = clock.split([logp_fn, expand_fn])
    compiled = _model_class()(
        _n_dim=n_dim, dims=dims, _coords=coords,
        _shapes={name: tuple(shape) for name, _, shape in zip(*shape_info)},
        compiled_logp_func=_Address("gj_density_logp", logp),
        compiled_expand_func=_Address("gj_density_expand", expand),
        initial_point_func=flat_initial_point_fn, shared_data=shared_data,
        user_data=density, n_expanded=n_expanded, shape_info=shape_info,
        logp_func=logp_fn, expand_func=expand_fn)
    object.__setattr__(compiled, "profile", profile)
    object.__setattr__(compiled, "compile_times", compile_times)
    return compiled
