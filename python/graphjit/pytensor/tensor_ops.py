"""PyTensor nodes graphjit has ops for: each translator emits graphjit
Applies (all with the node's line) and returns the node's outputs, or raises
Unsupported so that the node runs PyTensor's own perform instead.

A translator gets `t` (the Translation: `t.apply(op, inputs, **attrs)`,
`t.const_value(var)`, `t.constant(value, dtype)`), the node and the graphjit
values of its inputs.
"""
import numpy as np

from .scalar_ops import (DTYPES, Unsupported, composite_exprs, is_cast,
                         op_name)

_TRANSLATORS = {}


def translates(*class_names):
    def register(fn):
        for n in class_names:
            _TRANSLATORS[n] = fn
        return fn
    return register


def translator_for(op):
    """The translator of op's class or of its nearest base class."""
    for cls in type(op).__mro__:
        fn = _TRANSLATORS.get(cls.__name__)
        if fn is not None:
            return fn
    return None


def _int_const(t, var):
    v = t.const_value(var)  # raises Unsupported when not a constant
    if np.ndim(v) != 0:
        raise Unsupported("a non-scalar index")
    return int(v)


@translates("Elemwise")
def elemwise(t, node, ins):
    scalar = node.op.scalar_op
    dtypes = [i.type.dtype for i in node.inputs]
    if type(scalar).__name__ == "ScalarLoop":
        from .scan_ops import scalar_loop
        return scalar_loop(t, node, ins)
    if is_cast(scalar):
        return [t.apply("cast", ins, dtype=t.short(node.outputs[0].dtype))[0]]
    name = op_name(scalar, dtypes)
    if name is not None:
        return t.apply(name, ins)
    # A Composite, or an op graphjit spells with others (IsNan, IsInf).
    return _composite(t, node, ins, _inner_fgraph(scalar, dtypes))


def _inner_fgraph(scalar, dtypes):
    """A Composite's graph, or a one-node one for another scalar op (which
    composite_exprs may spell with graphjit's ops)."""
    if type(scalar).__name__ == "Composite":
        return scalar.fgraph
    from pytensor.graph.fg import FunctionGraph
    from pytensor.scalar import get_scalar_type
    ins = [get_scalar_type(d)() for d in dtypes]
    return FunctionGraph(ins, scalar.make_node(*ins).outputs, clone=False)


def _composite(t, node, ins, fgraph, kept_where=None):
    """fgraph's outputs as graphjit composites of `ins`. With
    kept_where=(cond, olds): output k is switch(cond, its value, olds[k]),
    in the same composite (a ScalarLoop's masked step)."""
    given = _compute_apart(t, fgraph, ins, _shared_costly_nodes(fgraph))
    return _composite_per_output(t, ins + [v for v, _ in given.values()],
                                 fgraph, {k: j for k, (_, j) in given.items()},
                                 kept_where=kept_where)


# Scalar ops a few cycles each: a composite may compute them once per
# output that reads them. Any other op (erfcx, log, psi, ...) that several
# outputs of one Composite read is computed once, apart.
_CHEAP = frozenset([
    "Add", "Sub", "Mul", "Neg", "TrueDiv", "IntDiv", "Mod", "Switch", "GT",
    "GE", "LT", "LE", "EQ", "NEQ", "Cast", "Identity", "Second", "Sqr", "Abs",
    "Sign", "Maximum", "Minimum", "ScalarMaximum", "ScalarMinimum", "AND",
    "OR", "XOR", "Invert", "Composite"])


# A shared subexpression of at least this many scalar ops (not counting
# those computed apart already) is computed apart too: recomputing it
# costs more than an Elemwise of its own.
_LARGE_SUBEXPRESSION = 16


def _shared_costly_nodes(fgraph):
    """The nodes of a Composite of several outputs that more than one
    output reads and that are costly (a costly op, or a large
    subexpression), in topological order."""
    if len(fgraph.outputs) < 2:
        return []
    from pytensor.graph.traversal import ancestors
    readers = {}
    for o in fgraph.outputs:
        for v in ancestors([o], blockers=fgraph.inputs):
            if v.owner is not None:
                readers[v.owner] = readers.get(v.owner, 0) + 1
    apart, size = [], {}
    for n in fgraph.toposort():
        size[n] = 1 + sum(size.get(i.owner, 0) for i in n.inputs)
        if readers.get(n, 0) < 2 or len(n.outputs) != 1:
            continue
        costly = type(n.op).__name__ not in _CHEAP and not is_cast(n.op)
        if costly or size[n] >= _LARGE_SUBEXPRESSION:
            apart.append(n)
            size[n] = 0  # read as an input from here on
    return apart


def _compute_apart(t, fgraph, ins, nodes):
    """Each of `nodes` as an Elemwise of its own, computed once: {inner
    variable: (its value, the input index the Composite's outputs read it
    at)}. PyTensor's C code computes a Composite's outputs in one loop;
    graphjit's composite has one output, and would compute the shared
    nodes again for every output that reads them."""
    # Spelled first, nothing emitted: a spelling too long for graphjit's
    # composite keeps the per-output composites (and their fallback).
    slots = {n.outputs[0]: len(ins) + j for j, n in enumerate(nodes)}
    spelled = [composite_exprs(fgraph, lambda value, dtype: 0,
                               dict(list(slots.items())[:j]), [v])
               for j, v in enumerate(slots)]
    spelled.append(composite_exprs(fgraph, lambda value, dtype: 0, slots))
    if any(len(e) > _LONGEST_EXPR for es in spelled for e, _ in es):
        return {}
    given, args = {}, list(ins)
    for n in nodes:
        v = n.outputs[0]
        [value] = _composite_per_output(
            t, args, fgraph, {k: j for k, (_, j) in given.items()}, [v])
        given[v] = (value, len(args))
        args.append(value)
    return given


def _composite_per_output(t, ins, fgraph, given=None, outputs=None,
                          kept_where=None):
    """fgraph's outputs (or `outputs`), each as a graphjit composite of the
    values it reads: `ins` holds fgraph's inputs, then the inner values
    computed apart, at the indices `given` says; kept_where as
    _composite's."""
    consts = []

    def constant_input(value, dtype):
        consts.append((value, dtype))
        return len(ins) + len(consts) - 1

    # Everything is checked before anything is emitted: graphjit
    # refuses a graph with Applies whose results nobody uses.
    exprs = composite_exprs(fgraph, constant_input, given, outputs)
    if any(len(e) > _LONGEST_EXPR for e, _ in exprs):
        # Subexpressions read many times (PyTensor 2.38's fused index
        # arithmetic of a gradient scan) spell out longer than graphjit's
        # composite takes: one Apply per scalar op instead.
        outs = _composite_by_node(t, fgraph, ins)
        return outs if kept_where is None else kept(t, kept_where, outs)
    args = ins + [t.constant(v, d) for v, d in consts]
    if kept_where is not None:
        mask_at = len(args)
        args = args + [kept_where[0]] + list(kept_where[1])
    outs = []
    for k, (e, used) in enumerate(exprs):
        if kept_where is not None:
            e = "switch(i%d, %s, i%d)" % (len(used), e, len(used) + 1)
            used = used + [mask_at, mask_at + 1 + k]
        if e == "i0":  # an output that is an input as it is
            outs.append(args[used[0]])
        else:
            outs += t.apply("composite", [args[j] for j in used], expr=e)
    return outs


def kept(t, kept_where, values):
    """switch(cond, value, old) for each value: kept_where=(cond, olds)."""
    cond, olds = kept_where
    return [t.apply("switch", [cond, v, old])[0]
            for v, old in zip(values, olds)]


# graphjit's composite refuses a spelling of more than 65536 characters.
_LONGEST_EXPR = 60000


def _composite_by_node(t, fgraph, ins):
    """fgraph's outputs with an Apply per scalar node (graphjit's op, or a
    composite of the one op), nested Composites taken apart the same way."""
    from pytensor.graph.fg import FunctionGraph
    vals = dict(zip(fgraph.inputs, ins))
    for n in fgraph.toposort():
        args = [vals[i] if i in vals else t.constant(
            np.asarray(i.data, i.type.dtype), i.type.dtype)
            for i in n.inputs]
        if type(n.op).__name__ == "Composite":
            outs = _composite_by_node(t, n.op.fgraph, args)
        else:
            name = op_name(n.op, [i.type.dtype for i in n.inputs])
            if name is not None:  # an op of graphjit's own
                [out] = t.apply(name, args)
                want = n.outputs[0].type.dtype
                if out.dtype != want:
                    [out] = t.apply("cast", [out], dtype=t.short(want))
                vals[n.outputs[0]] = out
                continue
            # The node alone, its inner constants kept as they are.
            fresh = [i.type() if i in vals else i for i in n.inputs]
            one = n.clone_with_new_inputs(fresh)
            free = [f for f, i in zip(fresh, n.inputs) if f is not i]
            outs = _composite(t, None, [vals[i] for i in n.inputs
                                        if i in vals],
                              FunctionGraph(free, one.outputs, clone=False))
        vals.update(zip(n.outputs, outs))
    return [vals[o] if o in vals else t.constant(
        np.asarray(o.data, o.type.dtype), o.type.dtype)
        for o in fgraph.outputs]


_REDUCE = {"Add": "sum", "Mul": "prod", "ScalarMaximum": "max",
           "ScalarMinimum": "min", "Maximum": "max", "Minimum": "min",
           "AND": "all", "OR": "any"}


@translates("CAReduce")
def careduce(t, node, ins):
    name = _REDUCE.get(type(node.op.scalar_op).__name__)
    if name is None or type(node.op).__name__ == "ProdWithoutZeros":
        raise Unsupported("CAReduce{%s}" % node.op.scalar_op)
    if name in ("all", "any") and node.inputs[0].dtype != "bool":
        raise Unsupported("bitwise reduction")
    ndim = node.inputs[0].type.ndim
    axis = node.op.axis
    axis = list(range(ndim)) if axis is None else [int(a) for a in axis]
    if ndim == 0 or not axis:
        raise Unsupported("reduction over no axis")
    return t.apply(name, ins, axis=axis)


@translates("Argmax")
def argmax(t, node, ins):
    axis = node.op.axis
    if axis is None or len(axis) != 1:
        raise Unsupported("argmax over several axes")
    return t.apply("argmax", ins, axis=[int(axis[0])])


@translates("DimShuffle")
def dimshuffle(t, node, ins):
    pattern = ["x" if p == "x" else int(p) for p in node.op.new_order]
    if pattern == list(range(node.inputs[0].type.ndim)):
        return ins[:1]
    return t.apply("dimshuffle", ins, pattern=pattern)


@translates("Reshape")
def reshape(t, node, ins):
    try:
        shape = [int(s) for s in np.ravel(t.const_value(node.inputs[1]))]
    except Unsupported:  # a shape known at run time only
        return t.apply("reshape_to", ins, ndim=int(node.outputs[0].ndim))
    return t.apply("reshape", ins[:1], shape=shape)


@translates("Shape_i")
def shape_i(t, node, ins):
    return t.apply("shape", ins, axis=int(node.op.i))


@translates("Subtensor")
def subtensor(t, node, ins):
    from pytensor.tensor.subtensor import get_idx_list
    steps, drop = [], []
    x = ins[0]
    ndim = node.inputs[0].type.ndim
    for axis, idx in enumerate(get_idx_list(node.inputs, node.op.idx_list)):
        if has_runtime_bound(idx):  # x[:n] with n known at run time only
            rows = _slice_rows(t, idx, node.inputs[0].type.shape[axis], x,
                               axis)
            x = _take_rows(t, x, rows, axis, ndim)
        elif isinstance(idx, slice):
            attrs = {}
            for k in ("start", "stop", "step"):
                v = getattr(idx, k)
                if v is not None:
                    attrs[k] = v if isinstance(v, int) else _int_const(t, v)
            if attrs and attrs != {"step": 1}:
                steps.append(dict(axis=axis, **attrs))
        else:  # an integer: a slice of one, then the dim dropped
            try:
                i = _int_const(t, idx)
            except Unsupported:  # known at run time only
                drop.append((axis, t._value(idx)))
                continue
            # x[-1] is x[-1:], a slice of one from the end.
            steps.append(dict(axis=axis, start=i) if i == -1 else
                         dict(axis=axis, start=i, stop=i + 1))
            drop.append(axis)
    for attrs in steps:
        [x] = t.apply("subtensor", [x], **attrs)
    runtime = [d for d in drop if isinstance(d, tuple)]
    if runtime:
        # Integers known at run time: 0-d index arrays of an advanced
        # index, whose broadcast shape () leaves exactly basic indexing's
        # result (the constant ones are slices of one, indexed at 0).
        ndim = node.inputs[0].type.ndim
        pattern, arrays = [-1] * ndim, []
        for d in drop:
            axis, value = d if isinstance(d, tuple) else (
                d, t.constant(np.int64(0), "int64"))
            pattern[axis] = len(arrays)
            arrays.append(value)
        return t.apply("advanced_subtensor", [x] + arrays, pattern=pattern)
    if drop:
        keep = [d for d in range(node.inputs[0].type.ndim) if d not in drop]
        [x] = t.apply("dimshuffle", [x], pattern=keep)
    return [x]


@translates("Dot", "Dot22")
def dot(t, node, ins):
    return t.apply("dot", ins)


def _gemm(t, c, a, b, alpha, beta):
    alpha = float(t.const_value(alpha))
    beta = float(t.const_value(beta))
    if beta == 0:  # c is PyTensor's AllocEmpty buffer: never read
        [out] = t.apply("dot", [a, b])
        if alpha != 1:
            [out] = t.apply("mul", [out, t.constant(alpha, out.dtype)])
        return [out]
    return t.apply("gemm", [c, a, b], alpha=alpha, beta=beta)


def _is_const(var):
    return var.owner is None and getattr(var, "data", None) is not None


def unread_buffers(nodes):
    """AllocEmpty nodes whose buffers only Gemm/Gemv with beta 0 take (as
    their c): graphjit computes those as dot and never needs them."""
    out = set()
    for node in nodes:
        if type(node.op).__name__ == "AllocEmpty":
            out.add(node)
    for node in nodes:
        for k, var in enumerate(node.inputs):
            if var.owner not in out:
                continue
            fine = (k == 0 and translator_for(node.op) in (gemm, gemv)
                    and all(_is_const(v) for v in node.inputs[1::3])
                    and float(node.inputs[4].data) == 0)
            if not fine:
                out.discard(var.owner)
    return out


@translates("Gemm")
def gemm(t, node, ins):
    z, alpha, x, y, beta = node.inputs
    return _gemm(t, ins[0], ins[2], ins[3], alpha, beta)


@translates("Gemv")
def gemv(t, node, ins):
    y, alpha, a, x, beta = node.inputs
    return _gemm(t, ins[0], ins[2], ins[3], alpha, beta)


@translates("Softmax")
def softmax(t, node, ins):
    return t.apply("softmax", ins, axis=_axis_attr(node))


@translates("LogSoftmax")
def log_softmax(t, node, ins):
    return t.apply("log_softmax", ins, axis=_axis_attr(node))


def _axis_attr(node):
    axis = node.op.axis
    if isinstance(axis, (tuple, list)):  # PyTensor 3: a tuple of axes
        if len(axis) != 1:
            raise Unsupported("softmax over several axes")
        axis = axis[0]
    if axis is None:  # all axes: the one axis of a vector
        if node.inputs[0].type.ndim != 1:
            raise Unsupported("softmax over all axes of a matrix")
        axis = 0
    return int(axis)


@translates("Join")
def join(t, node, ins):
    axis = _int_const(t, node.inputs[0])
    if len(ins) == 2:
        return ins[1:]
    return t.apply("concatenate", ins[1:], axis=axis)


@translates("Alloc")
def alloc(t, node, ins):
    like = _shape_source(node.inputs[1:])
    if like is not None:
        # v broadcast to the shape of an array the graph has (zeros_like,
        # as gradients make it): graphjit's second (Theano's fill).
        [out] = t.apply("second", [t._value(like), ins[0]])
        if out.dtype != node.outputs[0].dtype:
            [out] = t.apply("cast", [out],
                            dtype=t.short(node.outputs[0].dtype))
        return [out]
    try:
        shape = [_int_const(t, s) for s in node.inputs[1:]]
    except Unsupported:  # sizes known at run time only
        return t.apply("alloc_to", ins)
    return t.apply("alloc", ins[:1], shape=shape)


def _shape_source(dims):
    """The array x when dims are exactly Shape_i{0}(x), ..., Shape_i{n-1}(x)
    for an x of rank n, else None."""
    owners = [d.owner for d in dims]
    if not owners or any(o is None or type(o.op).__name__ != "Shape_i"
                         for o in owners):
        return None
    x = owners[0].inputs[0]
    if x.type.ndim != len(dims) or any(
            o.inputs[0] is not x or o.op.i != k for k, o in enumerate(owners)):
        return None
    return x


@translates("MakeVector")
def make_vector(t, node, ins):
    dtype = node.outputs[0].dtype
    if not ins:
        raise Unsupported("an empty vector")
    parts = []
    for v in ins:
        if v.dtype != dtype:
            [v] = t.apply("cast", [v], dtype=t.short(dtype))
        parts += t.apply("dimshuffle", [v], pattern=["x"])
    if len(parts) == 1:
        return parts
    return t.apply("concatenate", parts, axis=0)


@translates("ScalarFromTensor", "TensorFromScalar")
def scalar_tensor(t, node, ins):
    # Both are 0-d arrays here.
    return ins[:1]


def check_dtypes(node):
    for v in node.outputs:
        if getattr(v.type, "dtype", None) not in DTYPES:
            raise Unsupported("a %s output" % getattr(v.type, "dtype", v.type))


@translates("Shape")
def shape(t, node, ins):
    ndim = node.inputs[0].type.ndim
    if ndim == 0:
        raise Unsupported("the shape of a 0-d array")
    parts = []
    for axis in range(ndim):
        [n] = t.apply("shape", ins, axis=axis)
        parts += t.apply("dimshuffle", [n], pattern=["x"])
    return parts if ndim == 1 else t.apply("concatenate", parts, axis=0)


@translates("AdvancedSubtensor1")
def take(t, node, ins):
    # x[idx] with an integer vector: graphjit's take (its own loop).
    return t.apply("take", ins)


@translates("AdvancedIncSubtensor1")
def inc_rows(t, node, ins):
    x, y, idx = node.inputs  # PyTensor's order; graphjit's is (x, idx, y)
    gy = ins[1]
    if x.type.dtype != y.type.dtype:
        # PyTensor casts y to x's dtype (a constant 0.0 may be float32).
        if not np.can_cast(y.type.dtype, x.type.dtype, "same_kind"):
            raise Unsupported("y of %s into x of %s" % (y.type.dtype,
                                                       x.type.dtype))
        [gy] = t.apply("cast", [gy], dtype=t.short(x.type.dtype))
    return t.apply("inc_rows", [ins[0], ins[2], gy],
                   set=bool(node.op.set_instead_of_inc))


@translates("Split")
def split(t, node, ins):
    # Pieces along a constant axis with constant sizes: subtensor views.
    x = node.inputs[0]
    axis = _int_const(t, node.inputs[1])
    axis = axis + x.type.ndim if axis < 0 else axis
    total = x.type.shape[axis]
    try:
        sizes = [int(s) for s in np.asarray(t.const_value(node.inputs[2]))]
    except Unsupported:
        sizes = None
    if sizes is None or total is None or sum(sizes) != total or \
            min(sizes, default=0) < 0:
        # Sizes only the run time can check: split_by checks and copies
        # them then, with PyTensor's words.
        return t.apply("split_by", [ins[0], ins[2]], axis=axis,
                       n=int(node.op.len_splits))
    outs, start = [], 0
    for s in sizes:
        outs += t.apply("subtensor", ins[:1], axis=axis, start=start,
                        stop=start + s)
        start += s
    return outs


@translates("IncSubtensor")
def inc_subtensor(t, node, ins):
    # x[..., i, ...] or x[..., a:b:c, ...] on one axis, set or incremented:
    # inc_rows on that axis (moved first and back by dimshuffle views),
    # with the rows as a constant vector, or made by arange at run time
    # where the axis's length is known then only. Slices on several axes
    # nest: the inner region is worked on a view of the rows, then set
    # back; a mix with integers is an advanced index (np.ix_).
    from pytensor.tensor.subtensor import get_idx_list
    index = list(get_idx_list(node.inputs[1:], node.op.idx_list))
    x, y = node.inputs[0], node.inputs[1]
    ndim = x.type.ndim
    index += [slice(None)] * (ndim - len(index))
    # A slice that takes every row of its axis (x[:30] of 30 rows, as
    # PyTensor's gradients of LU and of a pad write it) indexes nothing.
    active = [k for k, e in enumerate(index)
              if not _covers_axis(t, e, x.type.shape[k])]
    setting = bool(node.op.set_instead_of_inc)
    gy = ins[1]
    if y.type.dtype != x.type.dtype:
        if not np.can_cast(y.type.dtype, x.type.dtype, "same_kind"):
            raise Unsupported("y of %s into x of %s" % (y.type.dtype,
                                                       x.type.dtype))
        [gy] = t.apply("cast", [gy], dtype=t.short(x.type.dtype))
    if not active:  # x[...] = y: y broadcast to x's shape; or x + y
        return t.apply("second" if setting else "add", [ins[0], gy])
    if any(not isinstance(e, slice) and not _is_const(e) for e in index):
        return _inc_at_run_time(t, ins[0], gy, index, setting)
    if len(active) > 1:
        if not all(isinstance(index[k], slice) for k in active):
            return _inc_on_axes(t, node, ins, index, active)
        return _inc_slices(t, ins[0], list(x.type.shape), index, active, gy,
                           y.type.ndim, setting)
    [axis] = active
    return _inc_axis(t, ins[0], x.type.shape[axis], ndim, axis, index[axis],
                     gy, y.type.ndim, setting)


def _inc_at_run_time(t, gx, gy, index, setting):
    """x[i, :, j] += y with integers known at run time only: an advanced
    increment by 0-d index arrays, whose broadcast shape () makes it the
    basic one (partial slices beside them stay Py)."""
    pattern, arrays = [], []
    for e in index:
        if isinstance(e, slice):
            if not _full_slice(e):
                raise Unsupported("a slice beside an index known at run "
                                  "time only")
            pattern.append(-1)
        else:
            pattern.append(len(arrays))
            arrays.append(t._value(e))
    return t.apply("advanced_inc_subtensor", [gx, gy] + arrays,
                   pattern=pattern, set=setting)


def _inc_slices(t, gx, shape, index, active, gy, ydim, setting):
    """x with y set or added in x[slices...]: the region of the first
    sliced axis as a view, the rest done in it, and the result set back."""
    k = active[0]
    e = index[k]
    attrs = {n: v for n, v in zip(("start", "stop", "step"),
                                  (_slice_bound(t, e.start),
                                   _slice_bound(t, e.stop),
                                   _slice_bound(t, e.step))) if v is not None}
    [view] = t.apply("subtensor", [gx], axis=k, **attrs)
    inner_index = list(index)
    inner_index[k] = slice(None)
    inner_shape = list(shape)
    inner_shape[k] = None
    rest = active[1:]
    if len(rest) > 1:
        inner = _inc_slices(t, view, inner_shape, inner_index, rest, gy,
                            ydim, setting)
    else:
        [j] = rest
        [inner] = _inc_axis(t, view, inner_shape[j], len(shape), j,
                            inner_index[j], gy, ydim, setting)
    return _inc_axis(t, gx, shape[k], len(shape), k, e, inner, len(shape),
                     True)


def _inc_axis(t, gx, n, ndim, axis, entry, gy, ydim, setting):
    """x with y set or added at x[..., entry, ...] on one axis (x of rank
    ndim whose axis has static length n, y of rank ydim)."""
    if isinstance(entry, slice):
        rows = _slice_rows(t, entry, n, gx, axis)
    else:
        rows = _index_row(t, entry, n, gx, axis)
        # y lacks the indexed dim: it gets one of size 1 there (when y
        # reaches that far; otherwise it broadcasts from the left anyway).
        at = axis - (ndim - ydim - 1)
        if at >= 0:
            [gy] = t.apply("dimshuffle", [gy], pattern=list(range(at)) + ["x"]
                           + list(range(at, ydim)))
            ydim += 1
    if axis == 0:
        return t.apply("inc_rows", [gx, rows, gy], set=setting)
    # y to x's rank, then the axis first for both, and back after.
    if ydim < ndim:
        [gy] = t.apply("dimshuffle", [gy], pattern=["x"] * (ndim - ydim)
                       + list(range(ydim)))
    perm = [axis] + [d for d in range(ndim) if d != axis]
    back = [perm.index(d) for d in range(ndim)]
    [xt] = t.apply("dimshuffle", [gx], pattern=perm)
    [yt] = t.apply("dimshuffle", [gy], pattern=perm)
    [out] = t.apply("inc_rows", [xt, rows, yt], set=setting)
    return t.apply("dimshuffle", [out], pattern=back)


def _inc_on_axes(t, node, ins, index, active):
    # x[a:b, i, c:d] set or incremented: NumPy's np.ix_ as an advanced
    # index over the axes from the first indexed to the last (a range per
    # slice, each along its own dim of the broadcast; an int a 0-d index),
    # which has basic indexing's shape when they are adjacent, as here.
    x, y = node.inputs[0], node.inputs[1]
    gx = ins[0]
    first, last = active[0], active[-1]
    group = index[first:last + 1]
    slices = [e for e in group if isinstance(e, slice)]
    arrays, pos = [], 0
    for k, e in enumerate(group, start=first):
        if isinstance(e, slice):
            rows = _slice_rows(t, e, x.type.shape[k], gx, k)
            pattern = ["x"] * pos + [0] + ["x"] * (len(slices) - pos - 1)
            if len(slices) > 1:
                [rows] = t.apply("dimshuffle", [rows], pattern=pattern)
            pos += 1
        else:
            i = _int_const(t, e)
            n = x.type.shape[k]
            if i >= 0 or n is not None:
                rows = t.constant(np.int64(i + n if i < 0 else i), "int64")
            else:  # from the end of a dim of a size known at run time
                [size] = t.apply("shape", [gx], axis=k)
                [rows] = t.apply("add", [size, t.constant(i, "int64")])
        arrays.append(rows)
    pattern = [-1] * first + list(range(len(arrays)))
    gy = ins[1]
    if y.type.dtype != x.type.dtype:
        if not np.can_cast(y.type.dtype, x.type.dtype, "same_kind"):
            raise Unsupported("y of %s into x of %s" % (y.type.dtype,
                                                       x.type.dtype))
        [gy] = t.apply("cast", [gy], dtype=t.short(x.type.dtype))
    return t.apply("advanced_inc_subtensor", [gx, gy] + arrays,
                   pattern=pattern, set=bool(node.op.set_instead_of_inc))


def _full_slice(e):
    return isinstance(e, slice) and e.start is None and e.stop is None \
        and e.step in (None, 1)


def _covers_axis(t, e, n):
    """Whether index entry e takes every row, in order, of an axis of
    static length n (None: unknown), by constant bounds."""
    if _full_slice(e):
        return True
    if not isinstance(e, slice) or n is None:
        return False
    try:
        bounds = [_slice_bound(t, v) for v in (e.start, e.stop, e.step)]
    except Unsupported:
        return False
    return range(n)[slice(*bounds)] == range(n)


def _slice_bound(t, v):
    if v is None or isinstance(v, int):
        return v
    return _int_const(t, v)


def _runtime_bound(t, v):
    """A slice bound: None, a Python int, or (known at run time only) its
    graphjit value as an int64 scalar."""
    try:
        return _slice_bound(t, v)
    except Unsupported:
        g = t._value(v)
        if g.dtype != "int64":
            [g] = t.apply("cast", [g], dtype="i64")
        return g


def has_runtime_bound(entry):
    return isinstance(entry, slice) and any(
        v is not None and not isinstance(v, int) and not _is_const(v)
        for v in (entry.start, entry.stop, entry.step))


def _slice_rows(t, entry, n, gx, axis):
    """The rows x[entry] takes on axis, as an int64 vector: a constant
    where the bounds and the axis's length are, else made by arange from
    Python's slice rules applied at run time."""
    bounds = [_runtime_bound(t, v) for v in (entry.start, entry.stop,
                                             entry.step)]
    start, stop, step = bounds
    constant = all(b is None or isinstance(b, int) for b in bounds)
    if n is not None and constant:
        rows = np.arange(n)[slice(*bounds)]
        return t.constant(rows.astype(np.int64), "int64")
    if step == 0:
        raise Unsupported("a slice step of 0")
    step = 1 if step is None else step
    # CPython's PySlice_AdjustIndices on the run-time length: bounds
    # clamped to [lower, upper], which depend on the step's sign.
    i64 = (lambda v: t.constant(v, "int64"))
    [size] = t.apply("shape", [gx], axis=axis)
    if isinstance(step, int):
        lower = i64(-1) if step < 0 else i64(0)
        upper = t.apply("add", [size, i64(-1)])[0] if step < 0 else size
        gstep = i64(step)
    else:
        gstep = step
        [back] = t.apply("lt", [step, i64(0)])
        lower = t.apply("switch", [back, i64(-1), i64(0)])[0]
        upper = t.apply("switch", [back, t.apply("add", [size, i64(-1)])[0],
                                   size])[0]

    def adjust(v, default):
        if v is None:
            return default
        if isinstance(v, int):
            v = i64(v)
        [neg] = t.apply("lt", [v, i64(0)])
        [from_end] = t.apply("maximum", [t.apply("add", [v, size])[0],
                                         lower])
        [from_start] = t.apply("minimum", [v, upper])
        return t.apply("switch", [neg, from_end, from_start])[0]

    backwards = isinstance(step, int) and step < 0
    if isinstance(step, int):
        first = adjust(start, upper if backwards else lower)
        last = adjust(stop, lower if backwards else upper)
    else:
        first = adjust(start, t.apply("switch", [back, upper, lower])[0])
        last = adjust(stop, t.apply("switch", [back, lower, upper])[0])
    return t.apply("arange", [first, last, gstep], dtype="i64")[0]


def _take_rows(t, gx, rows, axis, ndim):
    """x with only `rows` on axis: an advanced index of one array there
    (a copy, where a constant slice would be a view)."""
    pattern = [-1] * ndim
    pattern[axis] = 0
    return t.apply("advanced_subtensor", [gx, rows], pattern=pattern)[0]


def _index_row(t, entry, n, gx, axis):
    i = _int_const(t, entry)
    if i < 0:
        if n is None:
            [size] = t.apply("shape", [gx], axis=axis)
            [row] = t.apply("add", [size, t.constant(i, "int64")])
            return t.apply("dimshuffle", [row], pattern=["x"])[0]
        i += n
    return t.constant(np.array([i], np.int64), "int64")


@translates("SoftmaxGrad")
def softmax_grad(t, node, ins):
    # PyTensor's perform: dy*sm - sum(dy*sm, axis, keepdims) * sm.
    dy, sm = ins
    axis = node.op.axis
    [p] = t.apply("mul", [dy, sm])
    kw = {"keepdims": True}
    if axis is not None:
        kw["axis"] = [int(axis)]
    [s] = t.apply("sum", [p], **kw)
    [q] = t.apply("mul", [s, sm])
    return t.apply("sub", [p, q])


@translates("AllocEmpty")
def alloc_empty(t, node, ins):
    # Its contents are undefined: zeros of the shape will do.
    dtype = node.outputs[0].dtype
    zero = t.constant(np.zeros((), dtype), dtype)
    like = _shape_source(node.inputs)
    if like is not None:
        return t.apply("second", [t._value(like), zero])
    try:
        shape = [_int_const(t, s) for s in node.inputs]
    except Unsupported:  # sizes known at run time only
        return t.apply("alloc_to", [zero] + ins)
    return t.apply("alloc", [zero], shape=shape)


@translates("CumOp")
def cumop(t, node, ins):
    # cumsum/cumprod (PyMC's ordered transform); PyTensor keeps x's dtype
    # where NumPy (and graphjit) accumulate integers in int64.
    kw = {} if node.op.axis is None else {"axis": int(node.op.axis)}
    [out] = t.apply("cumsum" if node.op.mode == "add" else "cumprod", ins,
                    **kw)
    if out.dtype != node.outputs[0].dtype:
        [out] = t.apply("cast", [out], dtype=t.short(node.outputs[0].dtype))
    return [out]


@translates("SpecifyShape")
def specify_shape(t, node, ins):
    # Constant sizes only (what PyTensor's static shapes come from); a
    # size computed at run time runs PyTensor's perform.
    sizes = []
    for s in node.inputs[1:]:
        data = getattr(s, "data", None) if s.owner is None else None
        if s.owner is None and data is None:
            sizes.append(-1)  # None: any size
        elif s.owner is None and np.ndim(data) == 0 and \
                np.asarray(data).dtype.kind in "iu":
            sizes.append(int(data))
        else:
            raise Unsupported("a size known at run time only")
    return t.apply("specify_shape", ins[:1], shape=sizes)


specify_shape.takes_constants = True


@translates("CheckAndRaise")
def check_and_raise(t, node, ins):
    # CheckAndRaise and Assert: graphjit checks, and the bridge raises the
    # op's own exception with its message (linker.py).
    conds = ins[1:]
    if any(v.shape for v in conds):
        raise Unsupported("a condition that is not a scalar")
    return t.apply("assert", ins)


@translates("Repeat")
def repeat(t, node, ins):
    axis = node.op.axis
    kw = {} if axis is None else {"axis": int(axis)}
    return t.apply("repeat", ins, **kw)
