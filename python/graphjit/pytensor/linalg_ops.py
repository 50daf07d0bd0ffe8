"""PyTensor's linear algebra as graphjit's LAPACK ops (lib/ops/linalg/LapackOps.cpp,
SpectralOps.cpp): Cholesky, SolveTriangular, Solve, CholeskySolve,
MatrixInverse, Det, SLogDet, Eigh (and 2.38's EighGrad), SVD and
MatrixPinv, alone or in a Blockwise (graphjit's ops take the batch dims).

PyTensor's Cholesky and solves give NaNs for a matrix LAPACK refuses (not
positive definite, singular); graphjit's ops do the same with
on_error=nan. MatrixInverse raises NumPy's LinAlgError, as np.linalg.inv.
"""
import types

from .scalar_ops import Unsupported
from .tensor_ops import translates, translator_for


def _flag(op, name, default=False):
    return bool(getattr(op, name, default))


def _on_error(op):
    # PyTensor 2.38 and 3.0 fill NaNs; an on_error prop, where a version
    # has one, says which.
    return str(getattr(op, "on_error", "nan"))


@translates("Cholesky")
def cholesky(t, node, ins):
    return t.apply("cholesky", ins, lower=_flag(node.op, "lower", True),
                   on_error=_on_error(node.op))


def _trans(op):
    trans = getattr(op, "trans", 0)
    if isinstance(trans, str):
        trans = {"N": 0, "T": 1, "C": 2}.get(trans.upper())
        if trans is None:
            raise Unsupported("trans=%r" % op.trans)
    return int(trans)


@translates("SolveTriangular")
def solve_triangular(t, node, ins):
    return t.apply("solve_triangular", ins, lower=_flag(node.op, "lower"),
                   trans=_trans(node.op),
                   unit_diagonal=_flag(node.op, "unit_diagonal"),
                   b_ndim=int(node.op.b_ndim), on_error=_on_error(node.op))


# Every assume_a as LAPACK routine graphjit runs: a Hermitian real matrix is
# symmetric; a tridiagonal or banded one is solved as a general one (the
# same solution, LU with pivoting).
_ASSUME = {"gen": "gen", "general": "gen", "sym": "sym", "symmetric": "sym",
           "her": "sym", "hermitian": "sym", "pos": "pos",
           "positive definite": "pos", "tridiagonal": "gen", "banded": "gen"}


@translates("Solve")
def solve(t, node, ins):
    assume = _ASSUME.get(str(getattr(node.op, "assume_a", "gen")).lower())
    if assume is None:
        raise Unsupported("assume_a=%r" % node.op.assume_a)
    if _flag(node.op, "transposed"):
        raise Unsupported("a transposed solve")
    return t.apply("solve", ins, assume_a=assume,
                   lower=_flag(node.op, "lower"),
                   b_ndim=int(node.op.b_ndim), on_error=_on_error(node.op))


@translates("CholeskySolve")
def cho_solve(t, node, ins):
    return t.apply("cho_solve", ins, lower=_flag(node.op, "lower", True),
                   b_ndim=int(node.op.b_ndim))


def _plain(op_name):
    """A translator to graphjit's op of that name, with no attributes."""
    return lambda t, node, ins: t.apply(op_name, ins)


inverse = translates("MatrixInverse")(_plain("inv"))
det = translates("Det")(_plain("det"))
slogdet = translates("SLogDet")(_plain("slogdet"))
block_diagonal = translates("BlockDiagonal")(_plain("block_diag"))


@translates("LUFactor")
def lu_factor(t, node, ins):
    # PyTensor's LUFactor fills NaNs for an exactly singular matrix.
    return t.apply("lu_factor", ins, on_error="nan")


@translates("Eigh")
def eigh(t, node, ins):
    op = node.op
    if hasattr(op, "UPLO") and not hasattr(op, "driver"):
        # PyTensor 2.38: np.linalg.eigh, which calls ?syevd.
        return t.apply("eigh", ins, lower=op.UPLO == "L", driver="evd")
    # PyTensor 3.0: scipy.linalg.eigh (?syevr by default; ?sygvd with b).
    return t.apply("eigh", ins, lower=_flag(op, "lower", True),
                   driver=str(getattr(op, "driver", "evr")))


@translates("EighGrad")
def eigh_grad(t, node, ins):
    # PyTensor 2.38's gradient of Eigh: (x, w, v, gw, gv); x gives only the
    # shape, which v has too.
    return t.apply("eigh_grad", ins[1:], lower=node.op.UPLO == "L")


@translates("SVD")
def svd(t, node, ins):
    return t.apply("svd", ins, full_matrices=bool(node.op.full_matrices),
                   compute_uv=bool(node.op.compute_uv))


@translates("MatrixPinv")
def pinv(t, node, ins):
    return t.apply("pinv", ins, hermitian=_flag(node.op, "hermitian"))


@translates("LogDet")
def log_det(t, node, ins):
    # PyMC's pm.math.logdet: sum(log(abs(svd(x, compute_uv=False)))).
    [s] = t.apply("svd", ins, compute_uv=False)
    [log_abs] = t.apply("log", t.apply("abs", [s]))
    return t.apply("sum", [log_abs], axis=[0])


@translates("PosDefMatrix")
def pos_def_matrix(t, node, ins):
    # PyMC's check in the LKJCorr and Wishart log-densities: whether
    # scipy.linalg.cholesky (the upper triangle) succeeds. The factor with
    # on_error=nan is all NaN where it fails. (A NaN in x makes SciPy raise;
    # here it gives False, so the log-density is -inf.)
    [u] = t.apply("cholesky", ins, lower=False, on_error="nan")
    [nan] = t.apply("neq", [u, u])
    [failed] = t.apply("any", [nan], axis=[0, 1])
    return t.apply("not", [failed])


_BATCHED = {cholesky, solve_triangular, solve, cho_solve, inverse, det,
            slogdet, lu_factor, eigh, eigh_grad, svd, pinv}


@translates("Blockwise")
def blockwise(t, node, ins):
    # graphjit's LAPACK ops broadcast leading dims as Blockwise does.
    fn = translator_for(node.op.core_op)
    if fn not in _BATCHED:
        raise Unsupported("Blockwise of %s" % node.op.core_op)

    # The node as the core op's translator reads it.
    core = types.SimpleNamespace(op=node.op.core_op, inputs=node.inputs,
                                 outputs=node.outputs)
    return fn(t, core, ins)
