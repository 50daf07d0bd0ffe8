"""The JIT's transcendental functions against references, in ulp.

Elemwise loops call glibc's vector math library (libmvec) through the loop
vectorizer (lib/jit/VectorMath.h), so the JIT (linker c|py) computes these with
other code than the scalar libm that perform() uses. Each function runs on
about 100,000 dense samples of its domain plus the edges (+-0, subnormals,
+-inf, NaN, the overflow thresholds), and the results must be within
MAX_ULP of a reference computed in long double (f64) or double (f32), with
NaN, infinities and signed zeros where the reference has them.
"""
import math
import sys

import numpy as np

import harness as H

MAX_ULP = 4
LD = np.longdouble


def ld(fn):
    return lambda x: fn(x.astype(LD))


def by_element(fn):
    return lambda x: np.array([fn(float(v)) for v in x], dtype=np.float64)


def erf_ref(x):
    return by_element(math.erf)(x)


def erfc_ref(x):
    return by_element(math.erfc)(x)


def sigmoid_ref(x):
    x = x.astype(LD)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def softplus_ref(x):
    x = x.astype(LD)
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


# name: (reference in extended precision, dense range per dtype)
FUNCTIONS = {
    "exp": (ld(np.exp), {"f64": (-746, 710), "f32": (-104, 89)}),
    "log": (ld(np.log), "positive"),
    "log1p": (ld(np.log1p), "above -1"),
    "expm1": (ld(np.expm1), {"f64": (-40, 710), "f32": (-20, 89)}),
    "log2": (ld(np.log2), "positive"),
    "log10": (ld(np.log10), "positive"),
    "tanh": (ld(np.tanh), {"f64": (-25, 25), "f32": (-12, 12)}),
    "sin": (ld(np.sin), {"f64": (-100, 100), "f32": (-100, 100)}),
    "cos": (ld(np.cos), {"f64": (-100, 100), "f32": (-100, 100)}),
    "sigmoid": (sigmoid_ref, {"f64": (-750, 750), "f32": (-110, 110)}),
    "softplus": (softplus_ref, {"f64": (-750, 750), "f32": (-110, 110)}),
    "erf": (erf_ref, {"f64": (-7, 7), "f32": (-5, 5)}),
    "erfc": (erfc_ref, {"f64": (-7, 28), "f32": (-5, 11)}),
}


def samples(domain, dt):
    info = np.finfo(dt)
    edges = [0.0, -0.0, float(info.smallest_subnormal),
             -float(info.smallest_subnormal), float(info.tiny),
             -float(info.tiny), 1.0, -1.0, float(info.max), -float(info.max),
             np.inf, -np.inf, np.nan, 709.782712893384, 709.7827128933841,
             -745.1332191019411, 88.72283, -103.97208]
    n = 100_000
    if domain == "positive":
        dense = np.concatenate([np.logspace(-300 if dt == np.float64 else -37,
                                            300 if dt == np.float64 else 38,
                                            n // 2),
                                np.linspace(0.01, 10, n // 2)])
    elif domain == "above -1":
        dense = np.concatenate([-1 + np.logspace(-15, 0, n // 4),
                                np.linspace(-0.999, 10, n // 4),
                                np.logspace(-300 if dt == np.float64 else -37,
                                            300 if dt == np.float64 else 38,
                                            n // 2)])
    else:
        lo, hi = domain["f64" if dt == np.float64 else "f32"]
        dense = np.linspace(lo, hi, n)
    with np.errstate(over="ignore"):
        x = np.concatenate([np.array(edges), dense]).astype(dt)
    return x


def ulp_errors(got, want, dt):
    """Per element: ulp distance where both are finite, 0 where they agree
    on NaN/inf/signed zero, inf where they disagree."""
    with np.errstate(over="ignore"):
        want = want.astype(dt)  # the correctly rounded result, nearly
    err = np.full(got.shape, np.inf)
    both_nan = np.isnan(got) & np.isnan(want)
    same_inf = np.isinf(got) & (got == want)
    err[both_nan | same_inf] = 0
    fin = np.isfinite(got) & np.isfinite(want)
    with np.errstate(over="ignore", invalid="ignore"):
        err[fin] = (np.abs(got[fin].astype(np.float64) - want[fin].astype(np.float64))
                    / np.spacing(np.abs(want[fin])).astype(np.float64))
    zero = fin & (want == 0) & (got == 0)
    err[zero & (np.signbit(got) != np.signbit(want))] = np.inf
    return err


def case(name, dtype_name):
    ref, domain = FUNCTIONS[name]
    dt = np.float64 if dtype_name == "f64" else np.float32
    x = samples(domain, dt)
    text = "func f(x: %s[n]) -> (y) {\n  y = %s(x)\n}\n" % (dtype_name, name)

    def one():
        rc, out, err, outdir = H.run_graphjit(text, {"x": x}, linker="c|py")
        if rc != 0:
            raise AssertionError("graphjit failed (exit %d):\n%s%s" % (rc, out, err))
        got = np.load(outdir + "/y.npy")
        with np.errstate(all="ignore"):
            want = ref(x.astype(np.float64) if dt == np.float32 else x)
        e = ulp_errors(got, np.asarray(want), dt)
        worst = int(np.argmax(e))
        print("  %-8s %s: max %.2f ulp, mean %.3f ulp over %d samples" %
              (name, dtype_name, e[worst], float(np.mean(e[np.isfinite(e)])),
               len(x)), flush=True)
        if e[worst] > MAX_ULP:
            raise AssertionError(
                "%s(%r) = %r, reference %r: %.1f ulp (at most %d)" %
                (name, x[worst], got[worst], want[worst], e[worst], MAX_ULP))
    H._record("%s %s within %d ulp" % (name, dtype_name, MAX_ULP), one)


for name in FUNCTIONS:
    for dtype_name in ("f64", "f32"):
        case(name, dtype_name)
H.main()
