"""PyTensor nodes that graphjit runs with its array functions
(lib/ops/ArrayFnOps.cpp: arange, copy, diagonal, alloc_diag, sort,
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


@translates("Dot22Scalar")
def dot22_scalar(t, node, ins):
    x, y, a = ins
    [p] = t.apply("dot", [x, y])
    return t.apply("mul", [p, a])
