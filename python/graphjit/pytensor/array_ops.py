"""PyTensor nodes that graphjit runs with its array functions
(lib/ops/arrayfn/ArrayFnOps.cpp: arange, copy, diagonal, alloc_diag, sort,
argsort) or spells with its other ops (Ger, Dot22Scalar)."""
import numpy as np

from .scalar_ops import Unsupported
from .tensor_ops import translates


def _const(var):
    if var.owner is not None or getattr(var, "data", None) is None:
        raise Unsupported("%s is not a constant" % var)
    return var.data


@translates("ARange")
def arange(t, node, ins):
    return t.apply("arange", ins, dtype=t.short(node.outputs[0].dtype))


@translates("DeepCopyOp")
def deep_copy(t, node, ins):
    return t.apply("copy", ins)


@translates("ExtractDiag")
def extract_diag(t, node, ins):
    op = node.op
    return t.apply("diagonal", ins, offset=int(op.offset),
                   axis1=int(op.axis1), axis2=int(op.axis2))


@translates("AllocDiag")
def alloc_diag(t, node, ins):
    # An OpFromGraph in PyTensor (its inner graph sets a diagonal of zeros
    # by advanced indexing); graphjit's alloc_diag is the one loop.
    op = node.op
    return t.apply("alloc_diag", ins[:1], offset=int(op.offset),
                   axis1=int(op.axis1), axis2=int(op.axis2))


def _sort_axis(node):
    axis = node.inputs[1]
    data = _const(axis) if getattr(axis, "data", None) is not None else None
    if axis.owner is None and data is None:
        return {}  # None: the flattened array
    return {"axis": int(np.asarray(_const(axis)))}


@translates("SortOp")
def sort(t, node, ins):
    return t.apply("sort", ins[:1], **_sort_axis(node))


@translates("ArgSortOp")
def argsort(t, node, ins):
    # np.argsort's quicksort orders equal elements as it happens to;
    # graphjit's is stable, which is one of the orders it may give.
    return t.apply("argsort", ins[:1], **_sort_axis(node))


sort.takes_constants = argsort.takes_constants = True


@translates("PivotToPermutations")
def pivot_to_permutation(t, node, ins):
    return t.apply("pivot_to_permutation", ins,
                   inverse=bool(node.op.inverse))


@translates("Ger")
def ger(t, node, ins):
    # A + alpha * outer(x, y)
    a, alpha, x, y = ins
    [col] = t.apply("dimshuffle", [x], pattern=[0, "x"])
    [row] = t.apply("dimshuffle", [y], pattern=["x", 0])
    [outer] = t.apply("mul", [col, row])
    [scaled] = t.apply("mul", [outer, alpha])
    return t.apply("add", [a, scaled])


@translates("Eye")
def eye(t, node, ins):
    # np.eye(n, m, k): 1 where column - row == k (the gradients of pinv and
    # of PyTensor 3.0's eigh make identities of run-time size).
    n, m, k = (t.apply("cast", [v], dtype="i64")[0] for v in ins)
    zero, one = t.constant(0, "int64"), t.constant(1, "int64")
    [rows] = t.apply("arange", [zero, n, one], dtype="i64")
    [cols] = t.apply("arange", [zero, m, one], dtype="i64")
    [rows] = t.apply("dimshuffle", [rows], pattern=[0, "x"])
    [cols] = t.apply("dimshuffle", [cols], pattern=["x", 0])
    [shifted] = t.apply("add", [rows, k])
    [on] = t.apply("eq", [shifted, cols])
    return t.apply("cast", [on], dtype=t.short(node.outputs[0].dtype))


@translates("FillDiagonal")
def fill_diagonal(t, node, ins):
    # np.fill_diagonal of a matrix (PyMC's LKJCorr puts 1 on its diagonal):
    # a copy, the first min(n, m) diagonal entries set.
    if node.inputs[0].type.ndim != 2:
        raise Unsupported("fill_diagonal of a %d-d array"
                          % node.inputs[0].type.ndim)
    a, val = ins
    [rows] = t.apply("shape", [a], axis=0)
    [cols] = t.apply("shape", [a], axis=1)
    [n] = t.apply("minimum", [rows, cols])
    zero, one = t.constant(0, "int64"), t.constant(1, "int64")
    [diag] = t.apply("arange", [zero, n, one], dtype="i64")
    if node.inputs[1].type.dtype != node.inputs[0].type.dtype:
        [val] = t.apply("cast", [val], dtype=t.short(node.inputs[0].type.dtype))
    return t.apply("advanced_inc_subtensor", [a, val, diag, diag],
                   pattern=[0, 1], set=True)


@translates("Dot22Scalar")
def dot22_scalar(t, node, ins):
    x, y, a = ins
    [p] = t.apply("dot", [x, y])
    return t.apply("mul", [p, a])


# -- NumPy's advanced indexing ----------------------------------------------

def _slice_part(v):
    """A slice bound as an int or None (a constant; else Unsupported)."""
    if v is None or isinstance(v, (int, np.integer)):
        return None if v is None else int(v)
    if v.owner is None:
        data = getattr(v, "data", None)
        if data is None:  # NoneConst
            return None
        if np.ndim(data) == 0 and np.asarray(data).dtype.kind in "iu":
            return int(data)
    raise Unsupported("a slice bound known at run time only")


def advanced_entries(node, first):
    """The node's index from input `first` on: slices (of ints and None)
    and index variables, in PyTensor 3.0's idx_list form or 2.38's inputs."""
    idx_list = getattr(node.op, "idx_list", None)
    if idx_list:
        from pytensor.tensor.subtensor import unflatten_index_variables
        raw = unflatten_index_variables(node.inputs[first:], idx_list)
    else:
        raw = []
        for v in node.inputs[first:]:
            kind = type(v.type).__name__
            if kind == "SliceType":
                if v.owner is None:
                    raw.append(v.data)
                elif type(v.owner.op).__name__ == "MakeSlice":
                    raw.append(slice(*v.owner.inputs))
                else:
                    raise Unsupported("a slice made by %s" % v.owner.op)
            elif kind == "NoneTypeT" or getattr(v, "data", 0) is None:
                raw.append(None)  # np.newaxis (PyTensor 3 makes ExpandDims)
            else:
                raw.append(v)
    out = []
    for e in raw:
        if e is None:
            out.append(None)
        elif isinstance(e, slice):
            out.append(slice(_slice_part(e.start), _slice_part(e.stop),
                             _slice_part(e.step)))
        else:
            out.append(e)
    return out


def _is_full(e):
    return isinstance(e, slice) and e.start is None and e.stop is None \
        and e.step in (None, 1)


def _with_new_axes(t, x, entries, rank):
    """x with a length-1 axis where the index has np.newaxis, and the index
    with a full slice there: NumPy's x[i, None, j] is x[:, None][i, :, j]
    (newaxis separates advanced indices as a slice does)."""
    if None not in entries:
        return x, entries
    if x is None:
        raise Unsupported("np.newaxis in an advanced increment")
    shuffle, axis = [], 0
    for e in entries:
        if e is None:
            shuffle.append("x")
            continue
        is_mask = getattr(getattr(e, "type", None), "dtype", "") == "bool"
        used = e.type.ndim if is_mask else 1  # a mask takes its rank's axes
        shuffle += list(range(axis, axis + used))
        axis += used
    shuffle += list(range(axis, rank))
    [x] = t.apply("dimshuffle", [x], pattern=shuffle)
    return x, [slice(None, None, None) if e is None else e for e in entries]


def _constant_mask_indices(t, mask, x, axis):
    """A constant mask's integer arrays, as constants, where x's dims it
    indexes are known and match it (PyMC's censoring masks are data): no
    nonzero() left to run at every call. None otherwise (the run-time
    nonzero checks the shapes and raises NumPy's IndexError)."""
    from pytensor.graph.basic import Constant
    if not isinstance(mask, Constant):
        return None
    data = np.asarray(mask.data)
    dims = x.type.shape[axis:axis + data.ndim]
    if len(dims) != data.ndim or tuple(dims) != data.shape:
        return None
    return [t.constant(p, "int64") for p in np.nonzero(data)]


def _pattern(t, node, first, x):
    """The advanced index of the node's inputs from `first` on, over x:
    (x with partial slices taken as subtensor views, the pattern, the
    index arrays)."""
    pattern, arrays = [], []
    axis = 0
    x, entries = _with_new_axes(t, x, advanced_entries(node, first),
                                node.inputs[0].type.ndim)
    for e in entries:
        if getattr(getattr(e, "type", None), "dtype", "") == "bool":
            # x[mask] is x[mask.nonzero()]: one array per dim of the mask,
            # after checking the mask's shape against x's there (x with its
            # new axes, which axis counts).
            new_axes = any(a is None for a in advanced_entries(node, first))
            like = x if new_axes else t._value(node.inputs[0])
            rank = e.type.ndim
            if rank == 0:
                raise Unsupported("a 0-d boolean index")
            parts = None if new_axes else \
                _constant_mask_indices(t, e, node.inputs[0], axis)
            if parts is None:
                parts = t.apply("nonzero", [t._value(e), like], axis=axis,
                                rank=rank)
            for p in parts:
                pattern.append(len(arrays))
                arrays.append(p)
            axis += rank
            continue
        if isinstance(e, slice):
            if not _is_full(e):
                if x is None:
                    raise Unsupported("a partial slice in an advanced "
                                      "increment")
                attrs = {k: v for k, v in zip(("start", "stop", "step"),
                                              (e.start, e.stop, e.step))
                         if v is not None}
                [x] = t.apply("subtensor", [x], axis=axis, **attrs)
            pattern.append(-1)
        else:
            pattern.append(len(arrays))
            arrays.append(t._value(e))
        axis += 1
    if not arrays:
        raise Unsupported("an advanced index without arrays")
    return x, pattern, arrays


@translates("AdvancedSubtensor")
def advanced_subtensor(t, node, ins):
    # Slices first, as views (they keep every axis), then the arrays.
    x, pattern, arrays = _pattern(t, node, 1, ins[0])
    if _rows_only(pattern, arrays):
        return t.apply("take", [x] + arrays)
    return t.apply("advanced_subtensor", [x] + arrays, pattern=pattern)


def _rows_only(pattern, arrays):
    """Whether the index is one integer vector on the first axis (the rest
    whole): then it is take's or inc_rows' (JIT loops; PyMC's censoring
    masks become such vectors), which agree with NumPy there."""
    return pattern[:1] == [0] and all(p == -1 for p in pattern[1:]) and \
        len(arrays[0].shape) == 1


advanced_subtensor.takes_constants = True


@translates("AdvancedIncSubtensor")
def advanced_inc_subtensor(t, node, ins):
    op = node.op
    setting = bool(op.set_instead_of_inc)
    if getattr(op, "ignore_duplicates", False) and not setting:
        raise Unsupported("an increment that ignores repeated indices")
    x, y = node.inputs[:2]
    _, pattern, arrays = _pattern(t, node, 2, None)
    gy = _same_dtype(t, ins[1], y, x)
    if _rows_only(pattern, arrays):
        return t.apply("inc_rows", [ins[0], arrays[0], gy], set=setting)
    return t.apply("advanced_inc_subtensor", [ins[0], gy] + arrays,
                   pattern=pattern, set=setting)


def _same_dtype(t, gy, y, x):
    if y.type.dtype == x.type.dtype:
        return gy
    if not np.can_cast(y.type.dtype, x.type.dtype, "same_kind"):
        raise Unsupported("y of %s into x of %s" % (y.type.dtype,
                                                   x.type.dtype))
    return t.apply("cast", [gy], dtype=t.short(x.type.dtype))[0]


advanced_inc_subtensor.takes_constants = True
