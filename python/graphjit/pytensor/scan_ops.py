"""PyTensor's Scan as graphjit's scan op (lib/link/ScanOp.cpp): the inner
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
