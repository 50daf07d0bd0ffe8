"""GraphjitLinker: PyTensor's linker contract (JITLinker's one thunk for the
whole FunctionGraph) over a graphjit function."""
import re
import sys
import time

import numpy as np

from pytensor.graph.rewriting.basic import GraphRewriter
from pytensor.graph.rewriting.db import RewriteDatabaseQuery
from pytensor.link.basic import JITLinker
from pytensor.link.utils import raise_with_op

from .. import _graphjit
from .profile import ProfileBridge
from .terms import variable_terms
from .translate import Translation


# PyTensor's sparse rewrites graphjit leaves out (GraphjitLinker), where
# they are registered: PyTensor 2.38 loads them with PyTensor, 3.0 on first
# use of pytensor.sparse, and a query that excludes a name its database has
# not seen breaks the registration that comes later.
_SPARSE_REWRITES = (("local_usmm",)
                    if "pytensor.sparse.rewriting" in sys.modules else ())


class GraphjitLinker(JITLinker):
    """Compiles the rewritten FunctionGraph with graphjit (c|py: graphjit's
    JIT code where it has the op, the node's perform elsewhere)."""

    # graphjit has no C code of PyTensor's, and takes PyTensor's nodes as
    # they are: no C-only ops, no CAReduce{Composite} (graphjit reduces
    # with one scalar op), and no inplace ops (graphjit's values are
    # immutable; a Py perform that destroys would get copies anyway). Nor
    # CGemv and CGer: PyTensor 2.38's use_c_blas (not tagged cxx_only
    # there) checks its C BLAS by compiling C code on first use, 0.67 s of
    # a cold compile, and graphjit takes Gemv and Ger as they are.
    # Nor local_usmm, a rewrite to sparse ops graphjit does not have, whose
    # pattern reads config.blas__ldflags, which PyTensor works out by
    # probing the system's BLAS: 0.66-0.84 s of a fresh process's compile
    # wherever a graph has z - a * dot(x, y) (mvnormal_lkj, the GPs).
    required_rewrites = ("minimum_compile",)
    incompatible_rewrites = ("cxx_only", "c_blas", "local_careduce_fusion",
                             "inplace", "scan_save_mem_prealloc",
                             "scan_reduce_trace_prealloc") + _SPARSE_REWRITES

    def __init__(self, *args, opt_level=2, device=None, profile_stats=None,
                 name=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.opt_level = opt_level
        # "cuda", "cuda-emulated" or "cpu"; None: GRAPHJIT_FLAGS' device.
        self.device = device
        # A graphjit.ProfileStats every function compiled with this linker
        # reports into (graphjit's report of its Applies), PyTensor's
        # profile or not: a whole sampling run's profile (graphjit.pymc).
        self.profile_stats = profile_stats
        # What graphjit's report titles the functions (without PyTensor's
        # profile message): a str, or a callable of the FunctionGraph.
        self.name = name
        self.profile = None
        # PyTensor's rewrite time of the accepted graph (accept()).
        self.rewrite_seconds = None

    def clone(self, allow_gc=None):
        new = super().clone(allow_gc=allow_gc)
        new.profile = None
        new.profile_stats = self.profile_stats
        new.name = self.name
        return new

    def accept(self, fgraph, no_recycling=None, profile=None):
        # PyTensor accepts the graph right after rewriting it: the time
        # since RewriteClock ran is its rewrites' (for the profile).
        started = getattr(fgraph, "graphjit_rewrites_started", None)
        rewrites = None if started is None else time.perf_counter() - started
        linker = super().accept(fgraph, no_recycling, profile)
        linker.rewrite_seconds = rewrites
        linker.profile = profile
        linker.opt_level = self.opt_level
        linker.device = self.device
        linker.profile_stats = self.profile_stats
        linker.name = self.name
        return linker

    def fgraph_convert(self, fgraph, **kwargs):
        # The function's name, where PyTensor gave one (its profile's
        # message), titles graphjit's report.
        name = getattr(self.profile, "message", None)
        if not name and self.name is not None:
            name = self.name(fgraph) if callable(self.name) else self.name
        name = name or "pytensor"
        return Translation(fgraph, name=str(name), opt_level=self.opt_level,
                           profile=bool(self.profile))

    def jit_compile(self, translation):
        # PyTensor has rewritten the graph: graphjit's optimizer would only
        # blur the one-to-one map from its Applies to PyTensor's nodes.
        if translation.graph is None:
            return _Runner(translation, None)
        kw = {}
        if self.profile:
            kw["profile"] = True
            # PyTensor's profile_memory flag: graphjit measures the memory
            # (its allocations hooked), next to PyTensor's own estimate.
            from pytensor import config
            if getattr(config, "profile_memory", False):
                kw["profile_memory"] = True
        if self.device is not None:
            kw["device"] = self.device
        if self.profile_stats is not None:
            kw["profile_stats"] = self.profile_stats
        f = _graphjit.compile(translation.graph, linker="c|py",
                              optimizer="None", opt_level=self.opt_level,
                              **kw)
        f.return_list = True
        translation.module = translation.graph = None  # f has what it needs
        if self.profile or self.profile_stats is not None:
            _label_applies(f, translation)
        return _Runner(translation, f)

    def create_jitable_thunk(self, compute_map, order, input_storage,
                             output_storage, storage_map):
        # JITLinker's thunk, but an error names the node it came from (the
        # line graphjit cites), not the first output's node.
        start = time.perf_counter()
        translation = self.fgraph_convert(self.fgraph)
        translated = time.perf_counter()
        runner = self.jit_compile(translation)
        # Where the linker's time went (graphjit.pymc's compile_times).
        runner.compile_seconds = {"translation": translated - start,
                                  "graphjit": time.perf_counter() - translated}
        if runner.function is not None and (
                self.profile or self.profile_stats is not None):
            host = [("PyTensor rewrites", self.rewrite_seconds),
                    ("translation to graphjit", translated - start)]
            runner.function.set_host_compile_times(
                [(k, v) for k, v in host if v is not None])
        inputs = self.create_thunk_inputs(storage_map)
        outputs = [storage_map[v] for v in self.fgraph.outputs]
        fgraph, translation = self.fgraph, runner.translation
        nodes = translation.nodes
        call = runner.call

        def raise_pytensor_error(e, thunk):
            # What PyTensor's own modes raise for graphjit's error e,
            # naming the node it came from (the line graphjit cites).
            node = _failed_node(e, nodes)
            if node is None:
                raise e
            own = _pytensor_error(e, _innermost(e, node, translation))
            try:
                if own is None:
                    raise e
                raise own from e
            except Exception:
                raise_with_op(fgraph, node, thunk)

        if runner.function is not None and call is runner.function:
            # The common case: the cells read and written in C++, with no
            # Python in the call (about 0.4 us less a call).
            thunk = call.storage_thunk(inputs, outputs, raise_pytensor_error)
        else:
            def thunk():
                try:
                    values = call(*[s[0] for s in inputs])
                except Exception as e:
                    raise_pytensor_error(e, thunk)
                for s, v in zip(outputs, values):
                    s[0] = v
                # The executor takes a returned list as the outputs
                # (JITLinker returns one only for functions without
                # outputs).
                return None if outputs else outputs

        thunk.inputs, thunk.outputs, thunk.lazy = inputs, outputs, False
        out_nodes = [v.owner for v in self.fgraph.outputs if v.owner][:1]
        return [thunk], out_nodes, runner

    def create_thunk_inputs(self, storage_map):
        return [storage_map[n] for n in self.fgraph.inputs]

    def make_all(self, input_storage=None, output_storage=None,
                 storage_map=None):
        fn, ins, outs, thunks, nodes = super().make_all(
            input_storage, output_storage, storage_map)
        runner = fn.jit_fn
        fn.translation = runner.translation
        fn.graphjit_function = runner.function
        fn.compile_seconds = runner.compile_seconds
        if self.profile:
            ProfileBridge(self.fgraph, runner, self.profile)
        return fn, ins, outs, thunks, nodes


class RewriteClock(GraphRewriter):
    """The first rewrite of the GRAPHJIT modes: notes when PyTensor began
    rewriting the graph, so that the profile's compile section can say how
    long its rewrites took (GraphjitLinker.accept)."""

    def add_requirements(self, fgraph):
        pass

    def apply(self, fgraph):
        fgraph.graphjit_rewrites_started = time.perf_counter()


def graphjit_query(*extra):
    """FAST_RUN's rewrites as the GRAPHJIT modes run them: RewriteClock
    first, then the extra (rewriter, position) pairs. A query's extra
    rewrites survive its including() and excluding() (as PyMC calls)."""
    return RewriteDatabaseQuery(include=["fast_run"]).register(
        (RewriteClock(), -2), *extra)


def _label_applies(f, translation):
    """Names in f's profile the model terms each Apply works for, where
    the graph's variables carry them (terms.py: graphjit.pymc's models):
    those of the PyTensor variables it computes, else of its node."""
    labels = variable_terms(translation.fgraph)
    if labels is None:
        return
    nodes = translation.nodes
    for apply in f.applies():
        own = [translation.variable_of.get(i) for i in apply["outputs"]]
        mine = [labels[v] for v in own if v in labels]
        lines = apply["lines"]
        if not mine and lines and 0 < lines[0] <= len(nodes):
            mine = [labels[v] for v in nodes[lines[0] - 1].outputs
                    if v in labels]
        if mine:
            terms = sorted(set().union(*(t for t, _ in mine)))
            f.set_apply_terms(apply["id"], terms, all(g for _, g in mine))


class _Runner:
    """Calls the graphjit function with PyTensor's input values and gives
    back one value per FunctionGraph output."""

    def __init__(self, translation, function):
        self.translation = translation
        self.function = function
        t = translation
        self._args = [(i, t.input_kinds[i] == "scalar") for i in t.gj_inputs]
        self._cells = [(t.vals[v], k) for k, (v, kind) in
                       enumerate(zip(t.fgraph.inputs, t.input_kinds))
                       if kind == "cell"]
        self._scalar_out = [type(v.type).__name__ == "ScalarType"
                            for v in t.fgraph.outputs]
        # The common case, every input and output an array graphjit holds
        # in the FunctionGraph's order: the call is graphjit's alone.
        direct = (function is not None and not self._cells
                  and t.gj_inputs == list(range(len(t.fgraph.inputs)))
                  and not any(s for _, s in self._args)
                  and not any(self._scalar_out)
                  and [o for o in t.outputs] == [("gj", i) for i in
                                                 range(len(t.outputs))])
        self.call = function if direct else self._call

    def __call__(self, *values):
        return self.call(*values)

    def _call(self, *values):
        for cell, k in self._cells:
            cell.value = values[k]
        args = [np.asarray(values[i]) if scalar else values[i]
                for i, scalar in self._args]
        res = self.function(*args) if self.function is not None else []
        out = []
        for (kind, x), scalar in zip(self.translation.outputs,
                                     self._scalar_out):
            v = res[x] if kind == "gj" else x.value
            out.append(v[()] if scalar else v)
        return out


_CITED = re.compile(r"<pytensor>:(\d+)")


class GraphjitValueError(_graphjit.GraphjitError, ValueError):
    """A node's error found while a GRAPHJIT function runs: a
    GraphjitError, and the ValueError PyTensor's own modes raise there."""


_RAISED = re.compile(r"(LinAlgError|AssertionError|IndexError): (.*)"
                     r"|(index -?\d+ is out of bounds for axis \d+ with size \d+)")


def _pytensor_error(exc, node):
    """The exception PyTensor's perform raises where a compiled check of
    graphjit's failed: a CheckAndRaise's own exception and message, NumPy's
    LinAlgError for a LAPACK op, AssertionError for SpecifyShape, IndexError
    for an index out of bounds (graphjit words those "LinAlgError: ...",
    "AssertionError: ...", "IndexError: ...")."""
    m = _RAISED.search(str(exc))
    if m is None:
        # A node's run-time error (shapes that do not broadcast or
        # reshape): PyTensor's ops raise ValueError there.
        if isinstance(exc, _graphjit.GraphjitError):
            return GraphjitValueError(str(exc))
        return None
    if m.group(3):  # take's and inc_rows' words, NumPy's
        return IndexError(m.group(3))
    if any(c.__name__ == "CheckAndRaise" for c in type(node.op).__mro__):
        return node.op.exc_type(node.op.msg)
    if m.group(1) == "LinAlgError":
        return np.linalg.LinAlgError(m.group(2))
    if m.group(1) == "IndexError":
        return IndexError(m.group(2))
    return AssertionError(m.group(2))


_CITED_IN_BODY = re.compile(r"<pytensor-scan>:(\d+)")


def _innermost(exc, node, translation):
    """The node that failed inside a Scan's body (and its bodies', for
    nested scans: each cites its own line, outermost first), or node."""
    for m in _CITED_IN_BODY.finditer(str(exc)):
        body = translation.bodies.get(node)
        line = int(m.group(1))
        if body is None or not 0 < line <= len(body.nodes):
            break
        node, translation = body.nodes[line - 1], body
    return node


def _failed_node(exc, nodes):
    """The PyTensor node graphjit's message cites (file:line is
    <pytensor>:k+1 for node k)."""
    text = str(exc) + "\n".join(getattr(exc, "__notes__", []))
    m = _CITED.search(text)
    if m and 0 < int(m.group(1)) <= len(nodes):
        return nodes[int(m.group(1)) - 1]
    return None
