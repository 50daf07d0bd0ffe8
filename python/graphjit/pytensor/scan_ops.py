"""PyTensor's Scan as graphjit's scan op (lib/link/call/ScanOp.cpp): the inner
graph, rewritten as the GRAPHJIT mode rewrites a function, is translated as
a graph of its own and compiled; the loop over it is graphjit's library
code, so no Python runs between steps (unless the inner graph keeps Py
nodes, which the coverage then names).

Every kind of Scan input and output maps one to one onto graphjit's
ScanSpec: sequences, mit_mot (gradients), mit_sot, sit_sot, nit_sot,
untraced sit_sot and non-sequences, and while loops. A Scan whose inner
graph holds values graphjit cannot (random generators) stays Py.
"""
from .scalar_ops import Unsupported
from .tensor_ops import translates

# The body graphs' file name: an error inside a body cites its own
# <pytensor-scan>:line, never mistaken for the outer node's <pytensor>:line.
BODY_FILE = "<pytensor-scan>"


def _spec(info):
    def taps(slices):
        return [[int(t) for t in s] for s in slices]
    return {"n_seqs": info.n_seqs,
            "mit_mot_in": taps(info.mit_mot_in_slices),
            "mit_mot_out": taps(info.mit_mot_out_slices),
            "mit_sot": taps(info.mit_sot_in_slices),
            "sit_sot": taps(info.sit_sot_in_slices),
            "n_nit_sot": info.n_nit_sot,
            "n_untraced": info.n_untraced_sit_sot,
            "n_non_seqs": info.n_non_seqs,
            "as_while": bool(info.as_while)}


def _rewritten_body(op):
    """The inner graph as the GRAPHJIT mode would compile it (PyTensor
    compiles it with the Scan's own mode; graphjit's linker takes the
    GRAPHJIT mode's rewrites, without the in-place ones)."""
    from pytensor.compile.mode import get_mode
    from pytensor.graph.fg import FunctionGraph
    fg = FunctionGraph(op.inner_inputs, op.inner_outputs, clone=True)
    get_mode("GRAPHJIT").optimizer.rewrite(fg)
    return fg


@translates("Scan")
def scan(t, node, ins):
    from .translate import Translation
    op = node.op
    body = Translation(_rewritten_body(op), name="%s_body" % (
        op.name or "scan_fn"), file_name=BODY_FILE, opt_level=t.opt_level,
        profile=t.profile)
    if body.graph is None or len(body.gj_inputs) != len(body.input_kinds) \
            or any(kind != "gj" for kind, _ in body.outputs):
        raise Unsupported("the inner graph holds values graphjit cannot "
                          "(%s)" % ", ".join(sorted({
                              str(v.type) for v in body.fgraph.inputs
                              + body.fgraph.outputs
                              if type(v.type).__name__ not in (
                                  "TensorType", "ScalarType")})))
    outs = t.b.apply_scan(body.graph, ins, _spec(op.info), name=str(op),
                          line=t._line, opt_level=t.opt_level,
                          profile=t.profile)
    t.bodies[node] = body
    body.module = body.graph = None  # the scan op holds what it needs
    return outs


class _BodyBuilder:
    """What tensor_ops' Composite translation needs of a Translation, over
    a graph built here (a ScalarLoop's body)."""

    def __init__(self, name):
        from .. import _graphjit
        from .translate import Translation
        self.b = _graphjit.GraphBuilder(name, BODY_FILE)
        self.short = Translation.short

    def apply(self, op, inputs, **attrs):
        return self.b.apply(op, inputs, attrs, 0)

    def constant(self, value, dtype):
        import numpy as np
        return self.b.constant(np.asarray(value, dtype), dtype)


# The loop's bound: the body's stop condition ends it, once no element is
# still stepping.
_NO_BOUND = 2 ** 62


def scalar_loop(t, node, ins):
    """An Elemwise of a ScalarLoop (the gradients of gammainc, betainc and
    their kin): graphjit's scalar_loop, or where its composites refuse a
    program, every element's loop at once as a while scan over whole
    arrays. An element steps while its count is below its n_steps and (a
    while loop) its own condition has not stopped it; a step's values are
    kept only for the elements still stepping, so each element's result is
    what its own loop computes. The scan stops once no element steps."""
    try:
        return _scalar_loop_op(t, node, ins)
    except Exception:
        pass  # a program graphjit's composite refuses (an integer pow)
    try:
        return _scalar_loop(t, node, ins, split=False)
    except Exception:
        # An integer power in the loop (betainc's gradient): graphjit's
        # composite refuses it, its pow Apply checks the exponent.
        return _scalar_loop(t, node, ins, split=True)


def _scalar_loop_op(t, node, ins):
    """The loop as graphjit's scalar_loop: each element's loop in the JIT
    code of one Apply (docs/ops-elemwise.md), its updates and condition
    Composite spellings over the carried values and the constants."""
    from .scalar_ops import loop_exprs
    loop = node.op.scalar_op
    n_carry = len(loop.outputs) - int(loop.is_while)
    n_in = len(loop.fgraph.inputs)
    consts = []

    def constant_input(value, dtype):
        consts.append((value, dtype))
        return n_in + len(consts) - 1

    exprs = loop_exprs(loop.fgraph, constant_input)
    attrs = {"updates": exprs[:n_carry]}
    if loop.is_while:
        attrs["until"] = exprs[n_carry]
    args = list(ins) + [t.constant(v, d) for v, d in consts]
    return t.apply("scalar_loop", args, **attrs)


def _scalar_loop(t, node, ins, split):
    import numpy as np
    from .tensor_ops import _composite, _composite_by_node, kept
    loop = node.op.scalar_op
    n_carry = len(loop.outputs) - int(loop.is_while)
    ndim = node.outputs[0].type.ndim
    consts = ins[1 + n_carry:]
    # The body first: it may fail, and nothing is emitted outside it then.
    body = _BodyBuilder("%s_body" % loop.name)
    b = body.b
    # Every array input has the output's shape (broadcast below): one
    # symbolic shape lets the body's code plan all its values' memory.
    dims = ["d%d" % k for k in range(ndim)]
    carry = [b.input("carry%d" % k, v.dtype, dims)
             for k, v in enumerate(ins[1:1 + n_carry])]
    stopped = [b.input("stopped", "bool", dims)] if loop.is_while else []
    count = b.input("count", "int64", [])
    n = b.input("n_steps", ins[0].dtype, dims)
    cs = [b.input("c%d" % k, v.dtype, dims) for k, v in enumerate(consts)]

    def stepping(count, stopped):
        [a] = body.apply("lt", [count, n])
        if stopped:
            [a] = body.apply("and", [a, body.apply("not", stopped)[0]])
        return a

    active = stepping(count, stopped)
    # Each element's values change only while it steps.
    mask = (active, carry + stopped)
    if split:
        new = kept(body, mask, _composite_by_node(body, loop.fgraph,
                                                  carry + cs))
    else:
        new = _composite(body, None, carry + cs, loop.fgraph,
                         kept_where=mask)
    [count1] = body.apply("add", [count, body.constant(np.int64(1),
                                                       "int64")])
    still = stepping(count1, new[n_carry:])
    if ndim:
        [still] = body.apply("any", [still], axis=list(range(ndim)))
    [done] = body.apply("not", [still])
    for v in new + [count1, done]:
        b.output(v)
    _, graph = b.finish()

    # Every value at the output's shape: ref is the broadcast of the
    # inputs, whose values second() never reads.
    ref = ins[0]
    for v in ins[1:]:
        [ref] = t.apply("second", [v, ref])
    init = [t.apply("second", [ref, v])[0] for v in ins[1:1 + n_carry]]
    n_full, *consts = [t.apply("second", [ref, v])[0]
                       for v in [ins[0]] + list(consts)]
    if loop.is_while:
        [stopped0] = t.apply("second", [ref, t.constant(False, "bool")])
        init.append(stopped0)
    init.append(t.constant(np.int64(0), "int64"))
    spec = {"n_untraced": len(init), "n_non_seqs": 1 + len(consts),
            "as_while": True}
    bound = t.constant(np.int64(_NO_BOUND), "int64")
    # At -O1 LLVM does not vectorize, so the loop's exp and log are libm's,
    # as in PyTensor's C code: these series stop on thresholds, where
    # libmvec's last-bit differences would change the terms summed.
    outs = t.b.apply_scan(graph, [bound] + init + [n_full] + consts, spec,
                          name=str(node.op), line=t._line,
                          opt_level=min(t.opt_level, 1), profile=t.profile)
    return outs[:len(node.outputs)]
