"""graphjit.pytensor runs PyTensor's linear algebra (through LAPACK), its
shape checks and its special functions as compiled code: every node in C,
and every value equal to PyTensor's own default mode (SciPy and NumPy
underneath), gradients and batches included; failures raise what PyTensor
raises."""
import numpy as np
import pytest

pytensor = pytest.importorskip("pytensor")
import pytensor.tensor as pt  # noqa: E402
from pytensor.tensor import slinalg  # noqa: E402

from pytensor.tensor.xlogx import xlogx, xlogy0  # noqa: E402

import graphjit.pytensor as gjp  # noqa: E402
from conftest import assert_all_c, assert_same, compile_both  # noqa: E402

RNG = np.random.default_rng(3)


def spd(n, batch=(), dtype="float64"):
    a = RNG.normal(size=batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def test_cholesky_and_solves_with_their_gradients():
    a = pt.dmatrix("a")
    b = pt.dvector("b")
    B = pt.dmatrix("B")
    L = slinalg.cholesky(a)
    outs = [L, slinalg.cholesky(a, lower=False),
            slinalg.solve_triangular(L, b, lower=True),
            slinalg.solve_triangular(L.T, B, lower=False),
            slinalg.solve(a, b), slinalg.solve(a, B, assume_a="pos"),
            slinalg.solve(a, b, assume_a="sym"),
            slinalg.cho_solve((L, True), B),
            pt.linalg.inv(a), pt.linalg.det(a)]
    # PyTensor 2.38's CholeskySolve has no gradient.
    loss = sum(o.sum() for k, o in enumerate(outs) if k != 7)
    outs.append(pt.grad(loss, a))
    fs = compile_both([a, b, B], outs)
    assert_all_c(fs[0])
    for n in (1, 4, 9):
        assert_same(fs, spd(n), RNG.normal(size=n), RNG.normal(size=(n, 3)),
                    rtol=1e-8)


def test_gp_marginal_likelihood_in_c():
    # A GP's log marginal likelihood and its gradient (what PyMC's
    # gp.Marginal makes): cholesky, triangular solves, log of the diagonal.
    x = pt.dvector("x")
    y = pt.dvector("y")
    ls = pt.dscalar("ls")
    K = pt.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / ls ** 2) \
        + 0.1 * pt.eye(x.shape[0])
    L = slinalg.cholesky(K)
    alpha = slinalg.solve_triangular(L, y, lower=True)
    logp = -0.5 * alpha @ alpha - pt.log(pt.diag(L)).sum()
    fs = compile_both([x, y, ls], [logp, pt.grad(logp, ls)])
    for n in (5, 30):
        assert_same(fs, np.linspace(0, 3, n), RNG.normal(size=n), 0.7,
                    rtol=1e-9)
    assert gjp.coverage(fs[0])["time"] is None  # not profiled
    cov = gjp.coverage(fs[0])
    assert not any(op.startswith(("Cholesky", "SolveTriangular"))
                   for op in cov["py_ops"]), cov["py_ops"]


def test_batched_blockwise_and_float32():
    a = pt.tensor3("a", dtype="float64")
    b = pt.dmatrix("b")
    fs = compile_both([a, b], [slinalg.cholesky(a), slinalg.solve(a, b[0:1, :, None][0] if False else b, b_ndim=1),
                               pt.linalg.det(a)])
    assert_all_c(fs[0])
    assert_same(fs, spd(3, (4,)), RNG.normal(size=(4, 3)), rtol=1e-9)
    a32 = pt.matrix("a32", dtype="float32")
    fs = compile_both([a32], [slinalg.cholesky(a32), pt.linalg.inv(a32)])
    assert_all_c(fs[0])
    assert_same(fs, spd(5, dtype="float32"), rtol=1e-5, atol=1e-6)


def test_failures_are_pytensors():
    a = pt.dmatrix("a")
    fs = compile_both([a], [slinalg.cholesky(a)])
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])
    # PyTensor's Cholesky gives NaNs for a matrix that is not positive
    # definite; graphjit's the same, and the function works afterwards.
    assert_same(fs, bad)
    assert np.isnan(fs[0](bad)).all()
    assert_same(fs, spd(2))
    fs = compile_both([a], [pt.linalg.inv(a)])
    for f in fs:
        with pytest.raises(np.linalg.LinAlgError):
            f(np.ones((2, 2)))
    assert_same(fs, spd(3))
    fs = compile_both([a], [pt.linalg.det(a)])
    assert_same(fs, np.ones((3, 3)))


def test_specify_shape_and_dropped_dims_of_unknown_size():
    # PyMC's samplers slice every scalar parameter out of one flat vector:
    # a slice of unknown length, specified to (1,), then dropped to 0-d.
    x = pt.dvector("x")
    s = pt.specify_shape(x[1:2], (1,))
    y = s.squeeze() * 2 + x[0]
    fs = compile_both([x], [y, pt.grad(y, x)])
    assert_all_c(fs[0])
    assert_same(fs, np.array([1.5, -2.0, 3.0]))
    z = pt.specify_shape(x, (3,)) * 2
    fs = compile_both([x], [z])
    assert_all_c(fs[0])
    assert_same(fs, np.arange(3.0))
    for f in fs:
        with pytest.raises(AssertionError, match="SpecifyShape"):
            f(np.arange(4.0))
    assert_same(fs, np.arange(3.0))


def test_assert_raises_the_ops_own_exception():
    from pytensor.raise_op import Assert, CheckAndRaise
    x = pt.dvector("x")
    checked = Assert("x must be positive")(x, pt.all(x > 0))
    fs = compile_both([x], [checked * 2])
    assert_all_c(fs[0])
    assert_same(fs, np.arange(1.0, 4.0))
    for f in fs:
        with pytest.raises(AssertionError, match="x must be positive"):
            f(np.array([1.0, -1.0]))
    raising = CheckAndRaise(NotPositive, "sum too small")(x, x.sum() > 1)
    fs = compile_both([x], [raising + 1])
    assert_all_c(fs[0])
    for f in fs:
        with pytest.raises(NotPositive, match="sum too small"):
            f(np.zeros(3))
    assert_same(fs, np.ones(3))


class NotPositive(ValueError):
    """A CheckAndRaise's own exception type."""


import scipy.special as sp  # noqa: E402


def _log1mexp(x):  # PyTensor's definition
    return np.where(x < np.log(0.5), np.log1p(-np.exp(x)),
                    np.log(-np.expm1(x)))


# name: (PyTensor's function, SciPy's or NumPy's, domain). SciPy is the
# reference: PyTensor 2.38's C code for psi is accurate to 1e-9 only.
_UNARY = {
    "psi": (pt.psi, sp.psi, (0.01, 30)),
    "tri_gamma": (pt.tri_gamma, lambda x: sp.polygamma(1, x), (0.01, 30)),
    "gamma": (pt.gamma, sp.gamma, (0.1, 20)),
    "erfinv": (pt.erfinv, sp.erfinv, (-0.999, 0.999)),
    "erfcinv": (pt.erfcinv, sp.erfcinv, (0.001, 1.999)),
    "erfcx": (pt.erfcx, sp.erfcx, (-5, 50)),
    "log1mexp": (pt.log1mexp, _log1mexp, (-40, -1e-6)),
    "xlogx": (xlogx, lambda x: sp.xlogy(x, x), (0, 10)),
    "i0": (pt.i0, sp.i0, (-20, 20)), "i1": (pt.i1, sp.i1, (-20, 20)),
    "tan": (pt.tan, np.tan, (-1.5, 1.5)),
    "arcsin": (pt.arcsin, np.arcsin, (-1, 1)),
    "arctan": (pt.arctan, np.arctan, (-9, 9)),
    "sinh": (pt.sinh, np.sinh, (-5, 5)), "cosh": (pt.cosh, np.cosh, (-5, 5)),
    "arcsinh": (pt.arcsinh, np.arcsinh, (-9, 9)),
    "arccosh": (pt.arccosh, np.arccosh, (1, 9)),
    "arctanh": (pt.arctanh, np.arctanh, (-0.99, 0.99)),
    "exp2": (pt.exp2, np.exp2, (-9, 9)),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(_UNARY))
def test_special_functions_match_scipy(name, dtype):
    fn, ref, (lo, hi) = _UNARY[name]
    x = pt.vector("x", dtype=dtype)
    f, pyt = compile_both([x], fn(x))
    assert_all_c(f)
    values = np.concatenate([np.linspace(lo, hi, 257), [lo, hi]]).astype(dtype)
    got = f(values)
    assert got.dtype == pyt(values).dtype  # PyTensor's output dtype
    want = ref(values.astype("float64"))
    rtol = 1e-12 if dtype == "float64" else 2e-6
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-300)


def test_binary_special_functions_and_composites():
    k = pt.dvector("k")
    x = pt.dvector("x")
    b = pt.dvector("b")
    outs = [pt.gammainc(k, x), pt.gammaincc(k, x), xlogy0(k, x),
            pt.betainc(k, b, pt.sigmoid(x)), pt.polygamma(2, k),
            pt.arctan2(k, x),
            # a fused loop with psi inside, as gammaln's gradient makes
            pt.grad(pt.gammaln(k * x + 1).sum(), k)]
    f = pytensor.function([k, x, b], outs, mode="GRAPHJIT")
    assert_all_c(f)
    kk = np.linspace(0.2, 12, 40)
    xx = np.linspace(0.05, 15, 40)
    bb = kk[::-1]
    want = [sp.gammainc(kk, xx), sp.gammaincc(kk, xx), sp.xlogy(kk, xx),
            sp.betainc(kk, bb, sp.expit(xx)), sp.polygamma(2, kk),
            np.arctan2(kk, xx), xx * sp.psi(kk * xx + 1)]
    for g, w in zip(f(kk, xx, bb), want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-11)


def test_block_diagonal_and_kronecker():
    a = pt.dmatrix("a")
    b = pt.matrix("b", dtype="int64")
    outs = [pt.linalg.block_diag(a, b), pt.linalg.kron(a, a),
            pt.grad(pt.linalg.block_diag(a, a).sum() ** 2, a)]
    fs = compile_both([a, b], outs)
    assert_all_c(fs[0])
    assert_same(fs, RNG.normal(size=(2, 3)), np.arange(4).reshape(2, 2))


def test_owens_t_and_the_skew_normal_cdf():
    """Owen's T as compiled code, against SciPy, alone and inside a fused
    expression: the skew normal's CDF, Phi(h) - 2 T(h, a)."""
    h, a = pt.dvector("h"), pt.dvector("a")
    cdf = 0.5 * pt.erfc(-h / np.sqrt(2)) - 2 * pt.owens_t(h, a)
    f = pytensor.function([h, a], [pt.owens_t(h, a), pt.log(cdf)],
                          mode="GRAPHJIT")
    assert_all_c(f)
    hh = np.linspace(-4, 4, 33)
    aa = np.linspace(-3, 5, 33)
    got_t, got_log = f(hh, aa)
    np.testing.assert_allclose(got_t, sp.owens_t(hh, aa), rtol=1e-12,
                               atol=1e-300)
    want_cdf = 0.5 * sp.erfc(-hh / np.sqrt(2)) - 2 * sp.owens_t(hh, aa)
    np.testing.assert_allclose(got_log, np.log(want_cdf), rtol=1e-10)


# -- eigh, svd, pinv ---------------------------------------------------------

_SYM = np.array([[4.0, 1, -2, 0.5], [1, 3, 0, 1], [-2, 0, -1, 0.25],
                 [0.5, 1, 0.25, 2]])


def _same_up_to_column_signs(got, want, rtol):
    """Eigen- and singular vectors are defined up to sign: each column of
    got is +-1 times want's."""
    signs = np.sign(np.sum(got * want, axis=-2, keepdims=True))
    np.testing.assert_allclose(got * signs, want, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_eigh_svd_and_pinv_match_pytensor(dtype):
    a = pt.matrix("a", dtype=dtype)
    x = pt.matrix("x", dtype=dtype)
    w, v = pt.linalg.eigh(a)
    u, s, vh = pt.linalg.svd(x, full_matrices=False)
    outs = [w, v, u, s, vh, pt.linalg.pinv(x), pt.linalg.pinv(a, True),
            pt.linalg.svd(x, compute_uv=False)]
    fs = compile_both([a, x], outs)
    assert_all_c(fs[0])
    xx = RNG.normal(size=(3, 5)).astype(dtype)
    got, want = (f(_SYM.astype(dtype), xx) for f in fs)
    rtol = 1e-12 if dtype == "float64" else 2e-5
    for g, w_ in zip(got, want, strict=True):
        assert g.dtype == w_.dtype
    for k in (0, 3, 5, 6, 7):  # eigenvalues, singular values, pinvs
        np.testing.assert_allclose(got[k], want[k], rtol=rtol, atol=rtol)
    for k in (1, 2):
        _same_up_to_column_signs(got[k], want[k], rtol)
    _same_up_to_column_signs(got[4].T, want[4].T, rtol)


def test_eigh_svd_and_pinv_gradients_run_as_c():
    """The gradients PyTensor builds (EighGrad in 2.38, a graph with Eye
    and triangles in 3.0; SVD's and pinv's graphs) of costs that do not
    depend on the vectors' signs."""
    a, x = pt.dmatrix("a"), pt.dmatrix("x")
    w, v = pt.linalg.eigh(a)
    u, s, vh = pt.linalg.svd(x, full_matrices=False)
    cost = ((w ** 2).sum() + (v ** 2 * pt.arange(4)).sum() + (s ** 3).sum()
            + (pt.linalg.pinv(x) ** 2).sum() + (u[:, 0] * vh[0, 0]).sum() ** 2)
    fs = compile_both([a, x], [cost, pt.grad(cost, a), pt.grad(cost, x)])
    assert_all_c(fs[0])
    assert_same(fs, _SYM, RNG.normal(size=(3, 5)), rtol=1e-9, atol=1e-11)


def test_batched_eigh_and_pinv():
    """Blockwise forms: a batch of matrices, one LAPACK call each (eigh is
    batched from PyTensor 3.0 on)."""
    a = pt.tensor3("a")
    outs = [pt.linalg.pinv(a)]
    if _eigh_batches():
        outs.append(pt.linalg.eigh(a)[0])
    fs = compile_both([a], outs)
    assert_all_c(fs[0])
    batch = np.stack([_SYM, _SYM * 2 + np.eye(4), _SYM[::-1, ::-1]])
    assert_same(fs, batch, rtol=1e-11, atol=1e-12)


def _eigh_batches():
    """Whether this PyTensor's eigh is a Blockwise (3.0) or 2-d only."""
    try:
        pt.linalg.eigh(pt.tensor3("probe"))
        return True
    except Exception:
        return False


def test_spectral_errors_are_numpys_and_scipys():
    """As the ops' perform (NumPy's and SciPy's functions) raises: PyTensor
    3.0's Numba mode gives NaNs for an SVD of NaN instead."""
    from pytensor.compile.mode import Mode
    x = pt.dmatrix("x")
    bad = np.eye(3)
    bad[0, 0] = np.nan
    out = pt.linalg.svd(x, compute_uv=False)
    f = pytensor.function([x], out, mode="GRAPHJIT")
    perform = pytensor.function([x], out, mode=Mode(linker="py"))
    for g in (f, perform):
        with pytest.raises(np.linalg.LinAlgError, match="SVD did not converge"):
            g(bad)
    np.testing.assert_allclose(f(np.eye(3) * 2), [2, 2, 2])  # usable after
    if not _eigh_batches():  # PyTensor 2.38: no generalized eigh
        return
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    out = pt.linalg.eigh(a, b)[0]
    f = pytensor.function([a, b], out, mode="GRAPHJIT")
    perform = pytensor.function([a, b], out, mode=Mode(linker="py"))
    assert_all_c(f)
    not_pd = np.diag([1.0, -1.0, 2.0])
    for g in (f, perform):
        with pytest.raises(np.linalg.LinAlgError,
                           match="leading minor of order 2 of B"):
            g(_SYM[:3, :3], not_pd)
    spd = np.diag([2.0, 3.0, 1.0]) + 0.1
    np.testing.assert_allclose(f(_SYM[:3, :3], spd),
                               perform(_SYM[:3, :3], spd), rtol=1e-12)
    h, _ = pt.linalg.eigh(a)
    f = pytensor.function([a], h, mode="GRAPHJIT")
    perform = pytensor.function([a], h, mode=Mode(linker="py"))
    for g in (f, perform):  # SciPy's check_finite
        with pytest.raises(ValueError, match="infs or NaNs"):
            g(bad)


def test_eye_and_fill_diagonal_of_run_time_sizes():
    """np.eye(n, m, k) of sizes known at run time, and np.fill_diagonal
    of tall and wide matrices with its gradient (FillDiagonal again)."""
    n, m, k = pt.lscalar("n"), pt.lscalar("m"), pt.lscalar("k")
    a, v = pt.dmatrix("a"), pt.dscalar("v")
    filled = pt.fill_diagonal(a, v)
    outs = [pt.eye(n, m, k), filled,
            pt.grad((filled ** 2 * pt.arange(a.shape[1])).sum(), [a, v])[0],
            pt.grad((filled ** 2).sum(), v)]
    fs = compile_both([n, m, k, a, v], outs)
    assert_all_c(fs[0])
    for nn, mm, kk, shape in ((3, 5, 1, (4, 2)), (4, 2, -1, (2, 5)),
                              (2, 2, 0, (3, 3))):
        assert_same(fs, nn, mm, kk, RNG.normal(size=shape), 2.5)
