"""The scalar ops of pytensor.scalar.math that graphjit computes itself
(Bessel functions, the unregularized incomplete gammas, the inverse
incomplete gamma and beta, and a few of NumPy's), as compiled code alone,
inside fused Composites and in their gradients, against SciPy and against
PyTensor's own mode. test/special/check_special.py checks the functions
over their whole domains; these tests check that PyTensor's graphs reach
them."""
import numpy as np
import pytest

pytensor = pytest.importorskip("pytensor")
import pytensor.tensor as pt  # noqa: E402
import scipy.special as sp  # noqa: E402

from conftest import assert_all_c, assert_same, compile_both  # noqa: E402

# Orders of both signs and arguments across 0..60, and past 700, where ive
# and kve leave Boost for the large-argument expansions.
ORDERS = np.array([0.0, 1.0, 2.0, 0.5, 2.5, 7.3, 20.0, -1.0, -2.5, 13.3,
                   100.0, 4.0])
ARGS = np.array([0.05, 0.7, 1.0, 3.3, 9.0, 17.5, 40.0, 60.0, 720.0, 1500.0,
                 0.01, 12.0])


def _check(got, want, rtol, floor=None):
    """Relative error against want rounded to got's dtype, or near a zero
    of an oscillating function the absolute error that rounding its
    argument alone would cause (floor); subnormal results absolutely."""
    dtype = np.asarray(got).dtype
    tiny = np.finfo(dtype).tiny
    got = np.asarray(got, float)
    want = np.asarray(want).astype(dtype).astype(float)
    scale = np.maximum(np.abs(want), tiny)
    if floor is not None:
        scale = np.maximum(scale, floor)
    err = np.abs(got - want) / scale
    assert np.all(err <= rtol), (err.max(), got[err.argmax()],
                                 want[err.argmax()])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_bessel_functions_match_scipy(dtype):
    v, x = pt.vector("v", dtype=dtype), pt.vector("x", dtype=dtype)
    outs = [pt.jv(v, x), pt.j0(x), pt.j1(x), pt.ive(v, x), pt.kve(v, x),
            pt.iv(v, x), pt.kv(v, pt.minimum(x, 600))]
    f, pyt = compile_both([v, x], outs)
    assert_all_c(f)
    vv, xx = ORDERS.astype(dtype), ARGS.astype(dtype)
    got = f(vv, xx)
    for g, p in zip(got, pyt(vv, xx), strict=True):
        assert g.dtype == p.dtype  # PyTensor's output dtypes
    v64, x64 = vv.astype(float), xx.astype(float)
    rtol = 1e-12 if dtype == "float64" else 2e-6
    with np.errstate(over="ignore"):
        want = [sp.jv(v64, x64), sp.j0(x64), sp.j1(x64), sp.ive(v64, x64),
                sp.kve(v64, x64), sp.iv(v64, x64),
                sp.kv(v64, np.minimum(x64, 600))]
    floors = [np.abs(x64 * sp.jvp(v64, x64)), np.abs(x64 * sp.j1(x64)),
              np.abs(x64 * sp.jvp(1, x64)), None, None, None, None]
    for g, w, fl in zip(got, want, floors, strict=True):
        finite = np.isfinite(w)  # iv overflows past 710, in both
        assert np.array_equal(np.isfinite(g), finite)
        _check(g[finite], w[finite], rtol, None if fl is None else fl[finite])


def test_jv_of_orders_beyond_int_range():
    """Boost casts jv's order to int (undefined past int's range) and then
    returns the order itself: graphjit gives SciPy's 0 and infinities
    below x = |order|, and NaN (not the order) from there on."""
    v, x = pt.dvector("v"), pt.dvector("x")
    f = pytensor.function([v, x], pt.jv(v, x), mode="GRAPHJIT")
    assert_all_c(f)
    orders = np.array([3e9, -3e9, -3e9 - 0.5, 3e9 + 0.5, 1e30, -1e30,
                       -2.5e9 - 0.5, -2.5e9 - 1.5])
    args = np.array([0.5, 2.0, 2.0, 1e9, 1e10, 2.0, 2.0, 2.0])
    np.testing.assert_array_equal(f(orders, args), sp.jv(orders, args))
    assert np.isnan(f(np.array([3e9, 1e30]), np.array([1e10, 1e31]))).all()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_erfcx_over_its_whole_domain(dtype):
    """erfcx computes both of its forms and selects one (so that its loops
    vectorize): SciPy's values on both sides of 26 (where the asymptotic
    series takes over) and of -26.7 (where it overflows), the huge and tiny
    arguments, inf and NaN; sizes of every remainder modulo 16, so that
    each edge also lands in a vector loop's scalar tail."""
    x = pt.vector("x", dtype=dtype)
    f = pytensor.function([x], pt.erfcx(x), mode="GRAPHJIT")
    assert_all_c(f)
    big = 300 if dtype == "float64" else 38
    values = np.concatenate([
        np.linspace(-27, 27, 2001), -np.logspace(-30, 1.43, 200),
        np.logspace(-big, big, 801),
        [-26.7, -26.69999, -26.64, -26.6, 25.9999999, 26.0, 26.0000001,
         np.inf, -np.inf, np.nan, 0.0, -0.0]]).astype(dtype)
    rtol = 1e-12 if dtype == "float64" else 1e-6
    for n in list(range(values.size - 16, values.size + 1)) + [7]:
        got = f(values[:n])
        want = sp.erfcx(values[:n].astype("float64")).astype(dtype)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
        ok = np.isfinite(want)
        np.testing.assert_allclose(got[ok], want[ok], rtol=rtol, atol=0)


def test_bessel_gradients_run_as_c_and_match_pytensor():
    """The gradients PyTensor builds for these (jv and ive of the orders
    either side, j0 of j1, ...) are graphs of the same ops: all C."""
    v, x = pt.dvector("v"), pt.dvector("x")
    cost = (pt.jv(v, x) + pt.j0(x) * pt.j1(x) + pt.log(pt.ive(v, x))
            + pt.log(pt.kve(v, x))).sum()
    fs = compile_both([v, x], [cost, pt.grad(cost, x)])
    assert_all_c(fs[0])
    assert_same(fs, ORDERS[:8] + 0.25, ARGS[:8], rtol=1e-11)


def test_rice_and_skellam_style_log_densities():
    """log(i0e) and log(ive) inside fused log-densities: the Rice
    distribution's and the Skellam's, as PyMC writes them."""
    x, nu, sigma = pt.dvector("x"), pt.dscalar("nu"), pt.dscalar("sigma")
    rice = (pt.log(x / sigma**2) - (x**2 + nu**2) / (2 * sigma**2)
            + pt.log(pt.ive(0, x * nu / sigma**2)) + x * nu / sigma**2)
    k, mu1, mu2 = pt.dvector("k"), pt.dscalar("mu1"), pt.dscalar("mu2")
    skellam = (-mu1 - mu2 + (k / 2) * pt.log(mu1 / mu2)
               + pt.log(pt.ive(k, 2 * pt.sqrt(mu1 * mu2)))
               + 2 * pt.sqrt(mu1 * mu2))
    f = pytensor.function([x, nu, sigma, k, mu1, mu2],
                          [rice, skellam, pt.grad(rice.sum(), nu),
                           pt.grad(skellam.sum(), mu1)], mode="GRAPHJIT")
    assert_all_c(f)
    xx, kk = np.linspace(0.1, 8, 30), np.arange(-6.0, 9.0)
    got = f(xx, 2.0, 1.3, kk, 3.5, 2.0)
    s2 = 1.3**2
    want_rice = (np.log(xx / s2) - (xx**2 + 4) / (2 * s2)
                 + np.log(sp.ive(0, xx * 2 / s2)) + xx * 2 / s2)
    want_sk = (-5.5 + kk / 2 * np.log(3.5 / 2.0)
               + np.log(sp.ive(kk, 2 * np.sqrt(7.0))) + 2 * np.sqrt(7.0))
    np.testing.assert_allclose(got[0], want_rice, rtol=1e-12)
    np.testing.assert_allclose(got[1], want_sk, rtol=1e-12)
    pyt = pytensor.function([x, nu, sigma, k, mu1, mu2],
                            [pt.grad(rice.sum(), nu),
                             pt.grad(skellam.sum(), mu1)])
    for g, w in zip(got[2:], pyt(xx, 2.0, 1.3, kk, 3.5, 2.0), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-10)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_incomplete_gamma_and_beta_inverses_match_scipy(dtype):
    k, p, b = (pt.vector(n, dtype=dtype) for n in "kpb")
    outs = [pt.gammau(k, p * 30), pt.gammal(k, p * 30),
            pt.gammaincinv(k, p), pt.gammainccinv(k, p),
            pt.betaincinv(k, b, p)]
    f, pyt = compile_both([k, p, b], outs)
    assert_all_c(f)
    kk = np.linspace(0.3, 25, 41).astype(dtype)
    pp = np.linspace(0.01, 0.99, 41).astype(dtype)
    bb = kk[::-1].copy()
    got = f(kk, pp, bb)
    k64, p64, b64 = (a.astype(float) for a in (kk, pp, bb))
    want = [sp.gammaincc(k64, p64 * 30) * sp.gamma(k64),
            sp.gammainc(k64, p64 * 30) * sp.gamma(k64),
            sp.gammaincinv(k64, p64), sp.gammainccinv(k64, p64),
            sp.betaincinv(k64, b64, p64)]
    rtol = 1e-12 if dtype == "float64" else 2e-6
    for g, w, py in zip(got, want, pyt(kk, pp, bb), strict=True):
        assert g.dtype == py.dtype
        # float32: p * 30 is rounded in float32 first, as in PyTensor.
        if dtype == "float32":
            w = py
        _check(g, w, rtol if dtype == "float64" else 1e-5)


def test_inverse_gradients_and_icdfs_run_as_c():
    """PyMC's icdfs (Beta, Gamma, StudentT) go through betaincinv and
    gammaincinv; their gradients through the same ops (PyTensor gives
    gammau and gammal none)."""
    k, p = pt.dvector("k"), pt.dvector("p")
    cost = (pt.gammaincinv(k, p) + pt.betaincinv(k, k + 1, p)).sum()
    fs = compile_both([k, p], [cost, pt.grad(cost, p)])
    assert_all_c(fs[0])
    assert_same(fs, np.linspace(0.5, 9, 20), np.linspace(0.05, 0.95, 20),
                rtol=1e-10)


def test_numpy_rounding_angles_and_xor():
    x = pt.dvector("x")
    a, b = pt.bvector("a"), pt.bvector("b")
    ab = [pt.neq(a, 0), pt.neq(b, 0)]
    outs = [pt.deg2rad(x), pt.rad2deg(x),
            pt.round(x, mode="half_away_from_zero"),
            pt.xor(ab[0], ab[1])]
    fs = compile_both([x, a, b], outs)
    assert_all_c(fs[0])
    xx = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.7, -3.7, 0.0, 180.0])
    aa = np.array([0, 1, 0, 1, 1, 0, 1, 0, 0, 1], dtype="int8")
    bb = np.array([0, 0, 1, 1, 1, 1, 0, 0, 1, 0], dtype="int8")
    assert_same(fs, xx, aa, bb, rtol=0, atol=0)
    got = fs[0](xx, aa, bb)
    np.testing.assert_array_equal(got[2], np.sign(xx) * np.floor(
        np.abs(xx) + 0.5))
    np.testing.assert_array_equal(got[3], (aa != 0) ^ (bb != 0))
