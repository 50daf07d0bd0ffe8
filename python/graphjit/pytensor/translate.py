"""A PyTensor FunctionGraph as a graphjit graph.

Node k of fgraph.toposort() becomes Applies with line k+1, so that
graphjit's Applies (and their profile rows) map back to PyTensor's nodes.
Nodes graphjit has ops for run its JIT code (tensor_ops); every other node
runs its Op's perform, called back from the compiled graph (a `Py` Apply).

Values graphjit cannot hold (random generators, slices, dtypes it lacks)
live in Python-side cells; the Py Apply that makes them also returns a
0-d int8 token, which the Applies reading them take as an input, so that
graphjit runs them in order.
"""
import re

import numpy as np

from .. import _graphjit
from . import duplicates
from . import array_ops, linalg_ops, scan_ops  # noqa: F401  (translators)
from .scalar_ops import DTYPES, Unsupported
from .tensor_ops import check_dtypes, translator_for, unread_buffers

_SHORT = {"bool": "bool", "int8": "i8", "int16": "i16", "int32": "i32",
          "int64": "i64", "uint8": "u8", "float32": "f32",
          "float64": "f64"}


def holds(var):
    """Whether graphjit can hold var's values: tensors and scalars of its
    dtypes."""
    from pytensor.tensor.type import TensorType
    t = var.type
    # Sparse matrices are TensorTypes too, but hold SciPy's objects.
    sparse = any(c.__name__ == "SparseTensorType" for c in type(t).__mro__)
    return (isinstance(t, TensorType) or type(t).__name__ == "ScalarType") \
        and not sparse and t.dtype in DTYPES


def _static_shape(var):
    return list(getattr(var.type, "shape", ()) or ())


def _is_scalar_type(var):
    return type(var.type).__name__ == "ScalarType"


def _is_op_from_graph(op):
    return any(c.__name__ == "OpFromGraph" for c in type(op).__mro__)


class Cell:
    """A value graphjit cannot hold, kept in Python between Applies."""
    __slots__ = ("value", "token")

    def __init__(self, token=None):
        self.value = None
        self.token = token  # the graphjit variable ordering its readers


class Translation:
    """The graphjit graph of one FunctionGraph, and how its inputs and
    outputs correspond."""

    def __init__(self, fgraph, name="pytensor", file_name="<pytensor>",
                 opt_level=2, profile=False):
        self.fgraph = fgraph
        self.nodes = fgraph.toposort()
        # How scan bodies are compiled (scan_ops): as the function is.
        self.opt_level, self.profile = opt_level, profile
        self.bodies = {}         # Scan node -> its body's Translation
        self.b = _graphjit.GraphBuilder(name, file_name)
        self.vals = {}           # PyTensor variable -> graphjit var | Cell
        self.input_kinds = []    # per fgraph input: "array", "scalar", "cell"
        self.gj_inputs = []      # fgraph input indices graphjit takes
        self.outputs = []        # per fgraph output: ("gj", i) | ("cell", c)
        self.compiled = {}       # node -> True (C) / False (Py)
        self.fallback_reason = {}
        self._names = set()
        self._line = 0
        self._inputs()
        unread = unread_buffers(self.nodes)
        # What PyTensor's merge left twice (duplicates.py): computed once.
        self.same, dead = duplicates.find(fgraph, self.nodes, holds,
                                          skip=unread)
        for k, node in enumerate(self.nodes):
            self._line = k + 1
            if node in unread:
                self.vals[node.outputs[0]] = None
                self.compiled[node] = True  # no Apply: nothing to run
                continue
            if node in self.same or node in dead:
                if node in self.same:
                    for var, kept in zip(node.outputs,
                                         self.same[node].outputs):
                        self.vals[var] = self.vals[kept]
                self.compiled[node] = True  # no Apply: done elsewhere
                continue
            self._node(node)
        # Which PyTensor variable each graphjit variable (by id) computes
        # (the profile's terms are the variables').
        self.variable_of = {v.id: var for var, v in self.vals.items()
                            if isinstance(v, _graphjit.Variable)}
        # graphjit refuses a function without outputs: nothing to run then.
        if self._outputs():
            self.module, self.graph = self.b.finish()
        else:
            self.module = self.graph = None
        self._drop_builder()

    def _drop_builder(self):
        """Keeps only what a call needs (the cells), so that no graphjit
        object outlives the compiled function."""
        self.b = None
        self.vals = {v: c for v, c in self.vals.items() if isinstance(c, Cell)}
        for c in self.vals.values():
            c.token = None

    # -- helpers for tensor_ops -------------------------------------------
    @staticmethod
    def short(dtype):
        return _SHORT[dtype]

    def apply(self, op, inputs, **attrs):
        return self.b.apply(op, inputs, attrs, self._line)

    def constant(self, value, dtype):
        return self.b.constant(np.asarray(value, dtype), dtype)

    @staticmethod
    def const_value(var):
        data = getattr(var, "data", None)
        if var.owner is not None or data is None:
            raise Unsupported("%s is not a constant" % var)
        return data

    # -- the graph ----------------------------------------------------------
    def _unique(self, name):
        base = re.sub(r"\W", "_", name or "") or "input"
        if not re.match(r"[A-Za-z_]", base):
            base = "_" + base
        n, k = base, 1
        while n in self._names:
            k += 1
            n = "%s_%d" % (base, k)
        self._names.add(n)
        return n

    def _inputs(self):
        for i, var in enumerate(self.fgraph.inputs):
            if not holds(var):
                self.input_kinds.append("cell")
                self.vals[var] = Cell()
                continue
            kind = "scalar" if _is_scalar_type(var) else "array"
            self.input_kinds.append(kind)
            self.gj_inputs.append(i)
            self.vals[var] = self.b.input(self._unique(var.name),
                                          var.type.dtype, _static_shape(var))

    def _value(self, var):
        """var's graphjit value (made for a constant), or its Cell."""
        if var in self.vals:
            return self.vals[var]
        if var.owner is None and holds(var):  # a constant
            v = self.constant(np.asarray(var.data, var.type.dtype),
                              var.type.dtype)
            self.vals[var] = v
            return v
        raise KeyError(var)

    def _node(self, node):
        fn = translator_for(node.op)
        if fn is None and _is_op_from_graph(node.op):
            self._inline(node)
            return
        # A translator that reads constants graphjit cannot hold (None for
        # SpecifyShape's free dims) gets None for them.
        loose = getattr(fn, "takes_constants", False)
        if type(node.op).__name__ == "MakeSlice" and all(
                i.owner is None for i in node.inputs):
            # A constant slice (PyTensor 2.38's index inputs): its readers
            # take it as a constant, or a Py node from its cell.
            cell = Cell()
            cell.value = slice(*[getattr(i, "data", None)
                                 for i in node.inputs])
            self.vals[node.outputs[0]] = cell
            self.compiled[node] = True
            return
        if fn is not None and all(
                holds(i) or (loose and (i.owner is None or isinstance(
                    self.vals.get(i), Cell))) for i in node.inputs):
            try:
                check_dtypes(node)
                ins = [self._value(i) if holds(i) else None
                       for i in node.inputs]
                outs = fn(self, node, ins)
                outs = [self._as_type(o, v) for o, v in zip(outs, node.outputs)]
                for var, out in zip(node.outputs, outs):
                    self.vals[var] = out
                self._mark_compiled(node)
                return
            except Exception as e:  # graphjit refused it: Py runs it
                # An Apply already emitted stays in the graph unused.
                self.fallback_reason[node] = str(e)
        elif fn is None:
            self.fallback_reason[node] = "no graphjit op for %s" % (
                type(node.op).__name__)
        self._python_node(node)

    def _mark_compiled(self, node):
        """C, unless node is a Scan whose body keeps Py nodes."""
        body = self.bodies.get(node)
        py = sorted({str(n.op) for n in body.nodes
                     if not body.compiled.get(n, True)}) if body else []
        self.compiled[node] = not py
        if py:
            self.fallback_reason[node] = "inner nodes run as Py: " + \
                ", ".join(py)

    def _inline(self, node):
        """An OpFromGraph's inner graph, copied onto the node's inputs and
        translated node by node in place of it: its Applies cite the
        node's line, so the profile shows them as the node's."""
        try:
            from pytensor.graph.traversal import io_toposort
        except ImportError:  # PyTensor 2.38
            from pytensor.graph.basic import io_toposort
        from pytensor.graph.basic import clone_get_equiv
        op = node.op
        # The inner graph cloned onto the node's own inputs (the memo), not
        # clone_replace: that clones the replacements' ancestors too, and
        # translated the whole graph above the node a second time.
        equiv = clone_get_equiv(
            op.inner_inputs, op.inner_outputs, copy_inputs=False,
            memo=dict(zip(op.inner_inputs, node.inputs)))
        outs = [equiv[o] for o in op.inner_outputs]
        inner = io_toposort(list(node.inputs), outs)
        for n in inner:
            self._node(n)
        for var, out in zip(node.outputs, outs):
            v = self._value(out)
            if not isinstance(v, Cell):
                v = self._as_type(v, var)
            self.vals[var] = v
        self.compiled[node] = all(self.compiled.get(n, True) for n in inner)
        if not self.compiled[node]:
            self.fallback_reason[node] = "inner nodes run as Py: " + ", ".join(
                sorted({str(n.op) for n in inner
                        if not self.compiled.get(n, True)}))

    def _as_type(self, out, var):
        if out.dtype != var.type.dtype:
            [out] = self.apply("cast", [out], dtype=_SHORT[var.type.dtype])
        if len(out.shape) != var.type.ndim:
            raise Unsupported("rank %d, PyTensor says %d"
                              % (len(out.shape), var.type.ndim))
        return out

    def _python_node(self, node):
        """The node as a Py Apply running its Op's perform."""
        from .perform import make_perform
        gj_ins, readers = [], []
        for var in node.inputs:
            if var.owner is None and not holds(var) and var not in self.vals:
                readers.append(("const", var.data))
                continue
            v = self._value(var)
            if isinstance(v, Cell):
                readers.append(("cell", v))
                if v.token is not None and v.token not in gj_ins:
                    gj_ins.append(v.token)
                continue
            readers.append(("arg", len(gj_ins), _is_scalar_type(var)))
            gj_ins.append(v)
        held = [holds(o) for o in node.outputs]
        out_types = [(o.type.dtype, _static_shape(o))
                     for o, h in zip(node.outputs, held) if h]
        cells = [None if h else Cell() for h in held]
        if not all(held):
            out_types.append(("int8", []))
        destroyed = sorted({i for ins in getattr(node.op, "destroy_map",
                                                 {}).values() for i in ins
                            if readers[i][0] == "arg"})
        destroyed = [readers[i][1] for i in destroyed]
        perform = make_perform(node, readers, cells)
        outs = self.b.apply_python(
            perform, gj_ins, out_types, name=str(node.op),
            # PyTensor's class name, whatever it is: a Python op is
            # OpKind::Foreign, which no rewrite or lowering takes for one
            # of graphjit's (python/src/PythonOp.cpp).
            class_name=type(node.op).__name__, destroyed=destroyed,
            line=self._line)
        token = outs[-1] if not all(held) else None
        k = 0
        for var, h, cell in zip(node.outputs, held, cells):
            if h:
                self.vals[var] = outs[k]
                k += 1
            else:
                cell.token = token
                self.vals[var] = cell
        self.compiled[node] = False

    def _outputs(self):
        n = 0
        for i, var in enumerate(self.fgraph.outputs):
            v = self._value(var)
            if isinstance(v, Cell):
                self.outputs.append(("cell", v))
                if v.token is not None:
                    self.b.output(v.token)
                    n += 1
                continue
            self.b.output(v)
            self.outputs.append(("gj", n))
            n += 1
        return n
