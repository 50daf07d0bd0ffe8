"""Computations PyTensor's merge leaves twice, found before translation.

PyMC's gradients read the flat point as slices where its log-density reads
elements (`x[:1]` beside `x[0]`), and PyTensor's fusion then cuts the two
into different Composites: a GP's covariance matrix, and the Cholesky of
it, are computed once for the log-density and again for its gradient, and
PyTensor's MergeOptimizer, which compares nodes by op and inputs, sees two
computations. Here values are numbered by what they compute:

- an Elemwise output by its scalar expression, Composites opened, over the
  values it reads (the two operands of a commutative op in either order);
- a value of one element (every dim broadcastable) by that element:
  DimShuffles of it are the same value, and `x[i]`, `x[i:i+1]` of a vector
  of known length are the element i of x;
- anything else by its op and the numbers of its inputs, as PyTensor's
  merge does.

Two nodes whose outputs get the same numbers, with the same types, compute
the same values: the later is a duplicate, and nodes only duplicates read
are dead. The translation (translate.py) gives a duplicate's outputs the
values of the node it repeats and emits neither.
"""
import numpy as np
from pytensor.tensor.subtensor import get_constant_idx

# Constants of up to this many elements are numbered by their values;
# larger ones by identity (PyTensor merges equal constants itself).
_HASHED_CONSTANT = 4096


class _Numbers:
    """Value numbering: each distinct key gets the next integer."""

    def __init__(self):
        self._ids = {}

    def __call__(self, *key):
        return self._ids.setdefault(key, len(self._ids))


def _one_element(var):
    """Every dim broadcastable (a scalar type has none)."""
    return all(getattr(var.type, "broadcastable", ()))


def _type_key(var):
    t = var.type
    return (type(t).__name__, getattr(t, "dtype", None),
            tuple(getattr(t, "broadcastable", ())),
            tuple(getattr(t, "shape", ()) or ()))


def _op_key(op):
    """The op as PyTensor compares ops (by their props), or itself where it
    cannot be hashed."""
    try:
        hash(op)
        return op
    except TypeError:
        return ("unhashable", id(op))


def _constant_key(number, var):
    """A constant's number (a tensor's or a Composite's scalar one), by its
    value; None for a variable that is not a constant."""
    data = getattr(var, "data", None) if var.owner is None else None
    if data is None:
        return None
    data = np.asarray(data)
    if data.size == 1:
        return number("element", str(data.dtype), data.tobytes())
    if data.size <= _HASHED_CONSTANT:
        return number("constant", str(data.dtype), data.shape,
                      data.tobytes())
    return number("identity", id(var))


class _Numbering:
    """The numbers of one FunctionGraph's values (see above)."""

    def __init__(self, fgraph):
        self.number = _Numbers()
        self.expr = {}  # variable -> what it computes
        for k, var in enumerate(fgraph.inputs):
            self.expr[var] = self.number("input", k)

    def value(self, var):
        """What var holds: its computation and its type."""
        return self.number("value", self.expression(var), _type_key(var))

    def expression(self, var):
        if var not in self.expr:
            key = _constant_key(self.number, var)  # inputs are numbered
            if key is None:
                raise KeyError(var)  # not numbered yet: out of order
            self.expr[var] = key
        return self.expr[var]

    def node(self, node):
        """Numbers node's outputs; returns what identifies the node."""
        outs = node.outputs
        op = node.op
        kind = type(op).__name__
        if kind == "Elemwise" and self._elemwise(node):
            pass
        elif (kind == "DimShuffle" and _one_element(node.inputs[0])
              and _one_element(outs[0])):
            self.expr[outs[0]] = self.expression(node.inputs[0])
        elif kind == "Subtensor" and self._element(node):
            pass
        else:
            ins = tuple(self.value(i) for i in node.inputs)
            key = self.number("node", _op_key(op), ins)
            for k, out in enumerate(outs):
                self.expr[out] = self.number("output", key, k)
        return tuple(self.value(o) for o in outs)

    def _elemwise(self, node):
        """An Elemwise's outputs as the scalar expressions they compute."""
        scalar = node.op.scalar_op
        ins = [self.expression(i) for i in node.inputs]
        outs = self._scalar(scalar, ins, [o.type.dtype for o in node.outputs])
        if outs is None:
            return False
        for var, e in zip(node.outputs, outs):
            self.expr[var] = e
        return True

    def _scalar(self, scalar, ins, dtypes):
        """The expressions of scalar op `scalar` on expressions ins, one per
        output; a Composite opened (None if it cannot be)."""
        # Only a Composite is its inner graph (a ScalarLoop loops over its).
        inner = (scalar.fgraph if type(scalar).__name__ == "Composite"
                 else None)
        if inner is None:
            key = _op_key(scalar)
            # a*b is b*a to the bit; a+b+c is not c+a+b, so only pairs.
            if getattr(scalar, "commutative", False) and len(ins) == 2:
                ins = sorted(ins)
            return [self.number("scalar", key, d, tuple(ins), k)
                    for k, d in enumerate(dtypes)]
        memo = dict(zip(inner.inputs, ins))

        def expression_of(v):
            key = memo[v] if v in memo else _constant_key(self.number, v)
            if key is None:
                raise KeyError(v)
            return key

        try:
            for n in inner.toposort():
                es = self._scalar(n.op, [expression_of(i) for i in n.inputs],
                                  [o.type.dtype for o in n.outputs])
                if es is None:
                    return None
                memo.update(zip(n.outputs, es))
            return [expression_of(o) for o in inner.outputs]
        except KeyError:
            return None

    def _element(self, node):
        """x[i] or a one-element slice of a vector x of known length: the
        element, whatever the rank it is given."""
        x = node.inputs[0]
        n = (getattr(x.type, "shape", None) or (None,))[0]
        idx = getattr(node.op, "idx_list", ())
        if x.type.ndim != 1 or n is None or len(idx) != 1 or \
                not _one_element(node.outputs[0]):
            return False
        try:
            [index] = get_constant_idx(idx, node.inputs)
            if isinstance(index, slice):
                picked = range(n)[index]
                if len(picked) != 1:
                    return False
                at = picked[0]
            else:
                at = int(index) + n if int(index) < 0 else int(index)
        except Exception:  # an index computed at run time, a zero step
            return False
        if not 0 <= at < n:
            return False
        self.expr[node.outputs[0]] = self.number("element of",
                                                 self.value(x), at)
        return True


def _mergeable(node, holds):
    """Nodes whose values graphjit holds and that change nothing."""
    return (not getattr(node.op, "destroy_map", None)
            and all(holds(v) for v in node.inputs + node.outputs))


def find(fgraph, nodes, holds, skip=()):
    """(same, dead): same maps each duplicate node (of nodes, in order) to
    the earlier node whose outputs it repeats; dead holds the nodes whose
    outputs only duplicates and dead nodes read. Nodes in skip are left
    alone."""
    numbering = _Numbering(fgraph)
    first, same = {}, {}
    for node in nodes:
        try:
            key = numbering.node(node)
        except KeyError:  # an input the numbering never saw: leave it be
            for out in node.outputs:
                numbering.expr.setdefault(out, numbering.number(
                    "identity", id(out)))
            continue
        if node in skip or not _mergeable(node, holds):
            continue
        if key in first:
            same[node] = first[key]
        else:
            first[key] = node
    if not same:
        return same, set()
    kept = {o: k for n, m in same.items() for o, k in zip(n.outputs,
                                                          m.outputs)}
    needed = {kept.get(v, v) for v in fgraph.outputs}
    dead = set()
    for node in reversed(nodes):
        if node in same:
            continue
        if any(o in needed for o in node.outputs):
            needed.update(kept.get(i, i) for i in node.inputs)
        else:
            dead.add(node)
    return same, dead
