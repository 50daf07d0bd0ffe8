#!/usr/bin/env python3
"""Checks lib/ops/elemwise/SpecialFunctions.cpp against scipy.special.

Builds SpecialFunctions.cpp and special_driver.cpp into a temporary shared
library (g++ -O2 -shared -fPIC -std=c++17, Boost.Math headers from Debian's
libboost-math1.74-dev), loads it with ctypes and compares every
gj_special_*_f64 and _f32 wrapper with scipy.special (or, for PyTensor's own
log1mexp, xlogx and xlogy0, with PyTensor's definitions) on dense grids and
edge lists. Prints the largest error of each function and exits non-zero
when one is past tolerance: 1e-12 relative for float64, 1e-5 for float32.

The error of one point is |ours - ref| / max(|ref|, floor), where floor is
the smallest normal number, or, near a root, |x f'(x)|: the absolute error
that rounding x alone would cause there (relative error means nothing at a
root). NaN must match NaN, infinities must match exactly.

Where SciPy itself is off (mpmath at 50 digits disagrees with it by more
than the tolerance) and we agree with mpmath, the point is scored against
mpmath and counted in the 'scipy off' column. Without mpmath installed such
points count against us.

Usage: check_special.py [--cxx g++] [--quick] [--no-bench] [--only f,g]
"""

import argparse
import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy
import scipy.special as sp

try:
    import mpmath as mp

    mp.mp.dps = 50
except ImportError:  # Only used to referee disagreements with SciPy.
    mp = None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SOURCES = [
    os.path.join(ROOT, "lib", "ops", "elemwise", "SpecialFunctions.cpp"),
    os.path.join(ROOT, "lib", "ops", "elemwise", "SpecialBessel.cpp"),
    os.path.join(HERE, "special_driver.cpp"),
]
TOL64 = 1e-12
TOL32 = 1e-5
# Results below these are scored absolutely: a subnormal result has fewer
# digits than the tolerance asks for, in SciPy and here alike.
TINY64 = 1e-290
TINY32 = 1e-30
INF = np.inf
NAN = np.nan


def build(cxx):
    out = os.path.join(tempfile.mkdtemp(prefix="gjspecial"), "libgjspecial.so")
    cmd = [cxx, "-O2", "-shared", "-fPIC", "-std=c++17", "-Wall", "-Wextra",
           "-Werror", "-I" + os.path.join(ROOT, "lib"), *SOURCES, "-o", out]
    subprocess.run(cmd, check=True)
    return ctypes.CDLL(out)


# ---------------------------------------------------------------- inputs

def signed_logspace(lo, hi, n):
    mag = np.logspace(lo, hi, n)
    return np.concatenate([mag, -mag])


EDGES = np.array([0.0, -0.0, INF, -INF, NAN, 5e-324, -5e-324, 2.2e-308,
                  1e-300, 1e300, -1e300, 1.7976931348623157e308,
                  -1.7976931348623157e308])


def real_line(n=4000):
    """Both signs from 1e-300 to 1e300, a dense stretch near 0, integers and
    half-integers, and the edges."""
    ints = np.arange(-60.0, 61.0)
    near_ints = np.concatenate([ints + d for d in
                                (1e-13, -1e-13, 1e-8, -1e-8, 1e-3, -1e-3)])
    return np.concatenate([
        signed_logspace(-300, 300, n), np.linspace(-30, 30, 6001), ints,
        ints + 0.5, near_ints, EDGES])


def grid2(a, b):
    aa, bb = np.meshgrid(np.asarray(a, float), np.asarray(b, float),
                         indexing="ij")
    return aa.ravel(), bb.ravel()


def gamma_inc_inputs():
    ks = np.concatenate([np.logspace(-300, -20, 8), np.logspace(-10, 15, 90),
                         np.arange(1.0, 30.0), np.arange(0.5, 30.0),
                         [0.0, -0.0, -1.0, INF, NAN]])
    xs = np.concatenate([np.logspace(-300, 300, 250), np.linspace(0, 50, 201),
                         [0.0, -1.0, INF, NAN]])
    k1, x1 = grid2(ks, xs)
    # Around the transition x ~ k, where the large-k methods switch.
    kb = np.logspace(0, 12, 60)
    t = np.linspace(-12, 12, 97)
    k2, tt = grid2(kb, t)
    x2 = np.maximum(k2 + tt * np.sqrt(k2), 0.0)
    return np.concatenate([k1, k2]), np.concatenate([x1, x2])


def bessel_inputs(n):
    """Orders of both signs, integers, half-integers and others, from 0 to
    1e4; arguments from 1e-300 to 1e5, dense up to 50 and across 700, where
    ive and kve switch to the expansions, and the edges. Infinite orders
    are left out: SciPy's AMOS gives 0 (the limit) at small x and NaN from
    x ~ 5, graphjit the limit throughout."""
    nus = np.array([0.0, 1.0, 2.0, 3.0, 5.0, 0.5, 1.5, 2.5, 0.25, 7.3, 10.0,
                    12.9, 13.3, 20.0, 37.5, 50.0, 100.0, 180.5, 500.0,
                    1000.0, 1e4, -1.0, -2.0, -5.0, -0.5, -1.5, -2.25, -7.3,
                    -20.5, -100.5, NAN])
    xs = np.concatenate([np.logspace(-300, 5, n // 8),
                         np.linspace(0, 50, n // 8),
                         np.linspace(650, 760, 45), np.logspace(3, 5, 30),
                         -np.logspace(-3, 3, 20), [-1.0, -2.5],
                         [0.0, -0.0, INF, -INF, NAN]])
    return grid2(nus, xs)


def beta_inputs():
    ab = np.concatenate([np.logspace(-8, 6, 22), [0.5, 1.0, 2.0, 3.5, 10.0],
                         [0.0, -1.0, INF, NAN]])
    xs = np.concatenate([np.linspace(0, 1, 41), np.logspace(-300, -1, 20),
                         1 - np.logspace(-16, -1, 16), [-0.1, 1.1, NAN]])
    aa, bb, xx = np.meshgrid(ab, ab, xs, indexing="ij")
    a, b, x = aa.ravel(), bb.ravel(), xx.ravel()
    # Near the mean for large shapes, where the asymptotic methods switch.
    big = np.logspace(2, 7, 12)
    a2, b2 = grid2(big, big)
    t = np.linspace(-8, 8, 33)
    a3 = np.repeat(a2, t.size)
    b3 = np.repeat(b2, t.size)
    mean = a3 / (a3 + b3)
    sd = np.sqrt(a3 * b3 / ((a3 + b3) ** 2 * (a3 + b3 + 1)))
    x3 = np.clip(mean + np.tile(t, a2.size) * sd, 0, 1)
    return (np.concatenate([a, a3]), np.concatenate([b, b3]),
            np.concatenate([x, x3]))


# ---------------------------------------------------------- references

def pt_log1mexp(x):
    """PyTensor's Log1mexp.impl."""
    with np.errstate(all="ignore"):
        return np.where(x < np.log(0.5), np.log1p(-np.exp(x)),
                        np.log(-np.expm1(x)))


def pt_xlogy0(x, y):
    """PyTensor's xlogy0: switch(eq(x, 0), 0, x * log(y))."""
    with np.errstate(all="ignore"):
        return np.where(x == 0, 0.0, x * np.log(y))


SLOW_NEGATIVE = -1e4  # SciPy's polygamma takes time linear in |x| below 0.


def polygamma_ref(n, x):
    """scipy.special.polygamma, except below SLOW_NEGATIVE, where it would
    run for minutes: there mpmath by reflection (NaN without mpmath)."""
    n, x = np.broadcast_arrays(np.asarray(n, float), np.asarray(x, float))
    slow = (x < SLOW_NEGATIVE) & (x != np.floor(x)) & np.isfinite(x)
    out = np.empty(x.shape)
    with np.errstate(all="ignore"):
        out[~slow] = sp.polygamma(n[~slow], x[~slow])
    for i in np.nonzero(slow)[0]:
        ok = n[i] >= 0 and n[i] == np.floor(n[i]) and np.isfinite(n[i])
        out[i] = float(mp_polygamma(int(n[i]), x[i])) if ok and mp else NAN
    return out


def mp_polygamma(n, x):
    """psi^(n)(x); below 0 by DLMF 5.15.6, the reflection
    psi^(n)(1-x) + (-1)^(n+1) psi^(n)(x) = (-1)^n pi d^n/dx^n cot(pi x),
    since mpmath's own is slow for large negative x. cot is periodic, so its
    derivatives are taken at the exact fractional part of x."""
    if x >= 0:
        return mp.psi(n, x)
    frac = mp.mpf(x) - mp.floor(x)
    dcot = mp.diff(lambda t: mp.cot(mp.pi * t), frac, n)
    sign = -1 if n % 2 == 0 else 1
    return sign * ((-1) ** n * mp.pi * dcot - mp.psi(n, 1 - mp.mpf(x)))


def mp_gammainc(k, x, upper):
    """Regularized incomplete gamma; for k > 1e5, where mpmath's series do
    not converge, by quadrature of t^(k-1) e^-t / Gamma(k) over 40 standard
    deviations on the nearer side of x."""
    if k <= 1e5:
        return (mp.gammainc(k, x, mp.inf, regularized=True) if upper else
                mp.gammainc(k, 0, x, regularized=True))
    k, x = mp.mpf(k), mp.mpf(x)
    lg = mp.loggamma(k)
    f = lambda t: mp.exp((k - 1) * mp.log(t) - t - lg)  # noqa: E731
    span = 40 * mp.sqrt(k)
    if x < k:
        tail = mp.quad(f, mp.linspace(max(x - span, mp.mpf(0)), x, 41))
        return 1 - tail if upper else tail
    tail = mp.quad(f, mp.linspace(x, x + span, 41))
    return tail if upper else 1 - tail


def mp_erfcinv(y):
    y = mp.mpf(y)
    guess = sp.erfcinv(float(y)) if float(y) > 1e-300 else 27.0
    if not np.isfinite(guess):
        guess = 27.0
    return mp.findroot(lambda t: mp.erfc(t) - y, mp.mpf(guess))


def mp_owens_t(h, a):
    h, a = mp.mpf(h), mp.mpf(a)
    f = lambda t: mp.exp(-h * h * (1 + t * t) / 2) / (1 + t * t)
    return mp.quad(f, [0, a]) / (2 * mp.pi)


def mp_inverse(forward, lo, hi):
    """Returns p -> the x in [lo, hi] with forward(x) = p, by bisection on
    mpmath's forward function (slow but sure)."""
    def solve(p, *params):
        a, b = mp.mpf(lo), mp.mpf(hi(*params))
        p = mp.mpf(p)
        for _ in range(200):
            m = (a + b) / 2
            if forward(m, *params) < p:
                a = m
            else:
                b = m
        return (a + b) / 2
    return solve


# name, arity, reference, mpmath referee, root floor, inputs
def specs(quick):
    n = 800 if quick else 4000
    line = real_line(n)
    unit = np.concatenate([np.linspace(-1, 1, 20001),
                           signed_logspace(-300, -1, 400),
                           1 - np.logspace(-16, -1, 300),
                           -(1 - np.logspace(-16, -1, 300)), EDGES, [1, -1]])
    twos = np.concatenate([unit + 1, np.logspace(-323, 0, 600),
                           2 - np.logspace(-16, 0, 300), [2.0, 3.0]])
    orders = [0, 1, 2, 3, 4, 5, 8, 13, 20, 50, 100]
    pg_x = np.concatenate([signed_logspace(-300, 300, n // 4),
                           np.linspace(-20, 20, 801), EDGES])
    pg_n, pg_xx = grid2(orders + [0.5, -1.0, 2.5, NAN], pg_x)
    k, x = gamma_inc_inputs()
    pk, pp = grid2(np.concatenate([np.logspace(-5, 8, 40), [0.5, 1, 2, 7]]),
                   np.concatenate([np.linspace(0, 1, 51),
                                   np.logspace(-300, -1, 30),
                                   1 - np.logspace(-15, -1, 15)]))
    a, b, bx = beta_inputs()
    ba, bb = grid2(np.logspace(-3, 4, 12), np.logspace(-3, 4, 12))
    ps = np.concatenate([np.linspace(0, 1, 21), np.logspace(-100, -2, 6),
                         1 - np.logspace(-14, -2, 5)])
    ba = np.repeat(ba, ps.size)
    bb = np.repeat(bb, ps.size)
    bp = np.tile(ps, ba.size // ps.size)
    oh, oa = grid2(np.concatenate([signed_logspace(-8, 2, 60),
                                   np.linspace(-12, 12, 49), [INF, NAN]]),
                   np.concatenate([signed_logspace(-8, 8, 60),
                                   np.linspace(-3, 3, 25), [INF, -INF, NAN]]))
    jnu, jx = bessel_inputs(n)
    nonnegative = jx >= 0
    knu, kx = jnu[nonnegative], jx[nonnegative]
    d = lambda f: (lambda *v: f(*v))  # noqa: E731
    return _select(quick, [
        ("digamma", 1, sp.psi, (lambda x: mp_polygamma(0, x)) if mp else None,
         lambda x: np.abs(x * polygamma_ref(1, x)), (line,)),
        ("trigamma", 1, lambda x: polygamma_ref(1, x),
         (lambda x: mp_polygamma(1, x)) if mp else None, None, (line,)),
        ("polygamma", 2, polygamma_ref,
         (lambda n_, x_: mp_polygamma(int(n_), x_)) if mp else None,
         lambda n_, x_: np.abs(x_ * polygamma_ref(n_ + 1, x_)),
         (pg_n, pg_xx)),
        ("erfinv", 1, sp.erfinv, d(mp.erfinv) if mp else None, None, (unit,)),
        ("erfcinv", 1, sp.erfcinv, mp_erfcinv if mp else None,
         lambda y: np.abs(y * 0.5 * np.sqrt(np.pi)
                          * np.exp(sp.erfcinv(y) ** 2)), (twos,)),
        ("erfcx", 1, sp.erfcx,
         (lambda x: mp.erfc(x) * mp.exp(mp.mpf(x) ** 2)) if mp else None,
         None, (line,)),
        ("log1mexp", 1, pt_log1mexp,
         (lambda x: mp.log(1 - mp.exp(x))) if mp else None,
         lambda x: np.abs(x / np.expm1(-x)),
         (np.concatenate([-np.abs(line), line[line > 0][:50]]),)),
        ("xlogx", 1, lambda x: pt_xlogy0(x, x), None,
         lambda x: np.abs(x * (np.log(x) + 1)), (line,)),
        ("xlogy0", 2, pt_xlogy0, None, lambda x, y: np.abs(x),
         grid2(np.concatenate([signed_logspace(-300, 300, 60), EDGES]),
               np.concatenate([signed_logspace(-300, 300, 60), EDGES]))),
        ("i0", 1, sp.i0, (lambda x: mp.besseli(0, x)) if mp else None, None,
         (line,)),
        ("i1", 1, sp.i1, (lambda x: mp.besseli(1, x)) if mp else None, None,
         (line,)),
        ("i0e", 1, sp.i0e,
         (lambda x: mp.besseli(0, x) * mp.exp(-abs(mp.mpf(x)))) if mp
         else None, None, (line,)),
        ("i1e", 1, sp.i1e,
         (lambda x: mp.besseli(1, x) * mp.exp(-abs(mp.mpf(x)))) if mp
         else None, None, (line,)),
        ("jv", 2, sp.jv, d(mp.besselj) if mp else None,
         lambda v, x: np.abs(x * sp.jvp(v, x)), (jnu, jx)),
        ("j0", 1, sp.j0, (lambda x: mp.besselj(0, x)) if mp else None,
         lambda x: np.abs(x * sp.j1(x)), (line,)),
        ("j1", 1, sp.j1, (lambda x: mp.besselj(1, x)) if mp else None,
         lambda x: np.abs(x * sp.jvp(1, x)), (line,)),
        ("iv", 2, sp.iv, d(mp.besseli) if mp else None, None, (jnu, jx)),
        ("ive", 2, sp.ive,
         (lambda v, x: mp.besseli(v, x) * mp.exp(-abs(mp.mpf(x)))) if mp
         else None, None, (jnu, jx)),
        ("kve", 2, sp.kve,
         (lambda v, x: mp.besselk(v, x) * mp.exp(x)) if mp else None, None,
         (knu, kx)),
        ("gammainc", 2, sp.gammainc,
         (lambda k_, x_: mp_gammainc(k_, x_, False)) if mp else None, None,
         (k, x)),
        ("gammaincc", 2, sp.gammaincc,
         (lambda k_, x_: mp_gammainc(k_, x_, True)) if mp else None, None,
         (k, x)),
        ("gammaincinv", 2, sp.gammaincinv,
         mp_inverse(lambda x_, k_: mp.gammainc(k_, 0, x_, regularized=True),
                    0, lambda k_: 10 * k_ + 1000) if mp else None,
         None, (pk, pp)),
        ("gammau", 2, lambda k_, x_: sp.gammaincc(k_, x_) * sp.gamma(k_),
         (lambda k_, x_: mp.gammainc(k_, x_, mp.inf)) if mp else None, None,
         (k, x)),
        ("gammal", 2, lambda k_, x_: sp.gammainc(k_, x_) * sp.gamma(k_),
         (lambda k_, x_: mp.gammainc(k_, 0, x_)) if mp else None, None,
         (k, x)),
        ("gammainccinv", 2, sp.gammainccinv,
         (lambda k_, q_: mp_inverse(
             lambda x_, kk: -mp.gammainc(kk, x_, mp.inf, regularized=True),
             0, lambda kk: 10 * kk + 1000)(-q_, k_)) if mp else None,
         None, (pk, pp)),
        ("betainc", 3, sp.betainc,
         (lambda a_, b_, x_: mp.betainc(a_, b_, 0, x_, regularized=True))
         if mp else None, None, (a, b, bx)),
        ("betaincinv", 3, sp.betaincinv,
         (lambda a_, b_, p_: mp_inverse(
             lambda x_, aa, bb_: mp.betainc(aa, bb_, 0, x_, regularized=True),
             0, lambda aa, bb_: 1)(p_, a_, b_)) if mp else None,
         None, (ba, bb, bp)),
        ("owens_t", 2, sp.owens_t, mp_owens_t if mp else None, None,
         (oh, oa)),
    ])


# What CI runs (--quick): the functions graphjit's scalar ops call, over the
# domains where SciPy itself is accurate, there being no mpmath in CI to
# referee; the full run (no --quick, mpmath installed) covers the rest.
_CI_ONLY_IN_FULL = {"gammaincinv", "gammainccinv", "betaincinv", "owens_t"}


# SciPy's AMOS-based Bessel functions (and PyTensor's gammau and gammal,
# products that overflow to inf * 0) give 0, inf or NaN early, where the
# value is still a normal double; past 1e16 (beyond 2^53, where x's own
# rounding spans more than a period) SciPy's J loses its phase. Points where
# SciPy's value is such, or x is that large, are left out of the quick run
# and sampled in the full run, where mpmath referees them.
_SCIPY_GIVES_UP = {"jv", "iv", "ive", "kve", "gammau", "gammal", "j1"}
_SCIPY_GIVES_UP_SAMPLE = 150


def _scipy_gave_up(name, ref, args):
    with np.errstate(all="ignore"):
        r = np.asarray(ref(*args), float)
    finite_in = np.all([np.isfinite(a) for a in args], axis=0)
    zero_at_nonzero_x = (r == 0) & (args[-1] != 0)
    extreme = (~np.isfinite(r) | zero_at_nonzero_x | (np.abs(r) > 1e250)
               | ((r != 0) & (np.abs(r) < 1e-250)))
    extreme &= finite_in
    if name in ("jv", "j1"):
        extreme |= np.abs(args[-1]) > 1e16
    return extreme


def _select(quick, all_specs):
    out = []
    for name, arity, ref, mpfn, floor, args in all_specs:
        if name in _SCIPY_GIVES_UP:
            gave_up = _scipy_gave_up(name, ref, args)
            keep = ~gave_up
            if not quick:
                sample = np.nonzero(gave_up)[0]
                sample = sample[np.random.default_rng(0).permutation(
                    sample.size)[:_SCIPY_GIVES_UP_SAMPLE]]
                keep[sample] = True
            args = tuple(a[keep] for a in args)
        if not quick:
            out.append((name, arity, ref, mpfn, floor, args))
            continue
        if name in _CI_ONLY_IN_FULL:
            continue
        keep = None
        if name in ("gammainc", "gammaincc"):
            # SciPy's and Boost 1.74's tails part by 1e-11 from k ~ 1e4
            # (the full run referees them), and SciPy flushes results to 0
            # at k ~ 1e-300.
            k, x = np.abs(args[0]), np.abs(args[1])
            keep = ~((k > 1e4) | ((k > 0) & (k < 1e-200)))
        elif name == "betainc":
            # SciPy's newer Boost and Debian's 1.74 part at 1e-12 in the far
            # tails of shapes beyond 1e4.
            keep = ~((np.abs(args[0]) > 1e4) | (np.abs(args[1]) > 1e4))
        elif name == "trigamma":
            # SciPy gives NaN for large negative x (and takes minutes).
            keep = ~(args[-1] < -1e3)
        elif name == "polygamma":
            # SciPy's zeta-based polygamma is wrong at negative x from n = 2
            # (at -19.5 the pairs of poles cancel: psi^(50) is -0.0042 by the
            # series, SciPy says -3.2e55) and underflows for large n and x.
            n, x = args
            keep = ~(((n >= 2) & (x < 0)) | ((n >= 50) & (x > 1e3))
                     | (x < -1e3))
        elif name == "erfcinv":
            # SciPy loses digits at subnormal inputs.
            keep = ~((args[0] > 0) & (args[0] < 1e-300))
        if keep is not None:
            args = tuple(a[keep] for a in args)
        out.append((name, arity, ref, mpfn, floor, args))
    return out


# ------------------------------------------------------------ comparing

def errors(ours, ref, floor, tiny):
    """Per-point error as the module docstring defines it."""
    ours = np.asarray(ours, float)
    ref = np.asarray(ref, float)
    err = np.zeros(ref.shape)
    both_nan = np.isnan(ours) & np.isnan(ref)
    one_nan = np.isnan(ours) ^ np.isnan(ref)
    nonfinite = ~np.isfinite(ours) | ~np.isfinite(ref)
    err[one_nan] = INF
    bad_inf = nonfinite & ~both_nan & ~one_nan & (ours != ref)
    err[bad_inf] = INF
    ok = ~nonfinite
    scale = np.maximum(np.abs(ref[ok]), tiny)
    if floor is not None:
        scale = np.maximum(scale, np.nan_to_num(floor[ok], nan=0.0,
                                                posinf=0.0))
    err[ok] = np.abs(ours[ok] - ref[ok]) / scale
    return err


def call(lib, name, dtype, args):
    suffix = "f64" if dtype == np.float64 else "f32"
    fn = getattr(lib, "gj_special_%s_%s" % (name, suffix))
    ptr = ctypes.cast(fn, ctypes.c_void_p)
    args = [np.ascontiguousarray(a, dtype) for a in args]
    out = np.empty_like(args[0])
    p = lambda a: a.ctypes.data_as(ctypes.c_void_p)  # noqa: E731
    mapper = getattr(lib, "gj_map%d_%s" % (len(args), suffix))
    mapper(ptr, *[p(a) for a in args], p(out), ctypes.c_size_t(out.size))
    return out


def referee(name, mpfn, args, ours, ref, err, floor, limit):
    """Re-scores the worst disagreements against mpmath. Returns the new
    errors, how many points SciPy was off at, and how many were left
    unrefereed past the limit."""
    bad = np.nonzero(err > TOL64)[0]
    if mpfn is None or bad.size == 0:
        return err, 0, bad.size
    bad = bad[np.argsort(-err[bad])]
    checked, left = bad[:limit], bad[limit:]
    scipy_off = 0
    err = err.copy()
    for i in checked:
        point = [float(a[i]) for a in args]
        if not all(np.isfinite(point)):
            continue
        signal.alarm(10)  # Some of mpmath's functions take minutes.
        try:
            true = float(mpfn(*point))
        except Exception:  # mpmath gave up: keep the SciPy score.
            continue
        finally:
            signal.alarm(0)
        f = None if floor is None else floor[i:i + 1]
        e_ref = errors([ref[i]], [true], f, TINY64)[0]
        e_ours = errors([ours[i]], [true], f, TINY64)[0]
        if e_ref > TOL64 and e_ours < err[i]:
            err[i] = e_ours
            scipy_off += 1
    return err, scipy_off, left.size


def fmt_point(args, i):
    return "(" + ", ".join("%.17g" % a[i] for a in args) + ")"


def check(lib, spec, limit):
    name, arity, reffn, mpfn, floorfn, args = spec
    args = [np.asarray(a, float) for a in args]
    assert len(args) == arity
    with np.errstate(all="ignore"):
        ref = np.asarray(reffn(*args), float)
        floor = None if floorfn is None else np.asarray(floorfn(*args), float)
    ours = call(lib, name, np.float64, args)
    err = errors(ours, ref, floor, TINY64)
    err, scipy_off, unrefereed = referee(name, mpfn, args, ours, ref, err,
                                         floor, limit)
    worst = int(np.argmax(err))
    # float32: the float32-rounded inputs, against SciPy in double there.
    args32 = [a.astype(np.float32) for a in args]
    with np.errstate(all="ignore"):
        ref32 = np.asarray(reffn(*[a.astype(float) for a in args32]), float)
        floor32 = (None if floorfn is None else
                   np.asarray(floorfn(*[a.astype(float) for a in args32]),
                              float))
        ref32 = ref32.astype(np.float32).astype(float)
    ours32 = call(lib, name, np.float32, args32).astype(float)
    err32 = errors(ours32, ref32, floor32, TINY32)
    if name in _SCIPY_GIVES_UP:  # No referee for float32: SciPy's fails.
        err32[_scipy_gave_up(name, reffn,
                             [a.astype(float) for a in args32])] = 0.0
    worst32 = int(np.argmax(err32))
    return dict(name=name, n=ref.size, err=err[worst], scipy_off=scipy_off,
                unrefereed=unrefereed, where=fmt_point(args, worst),
                ours=ours[worst], ref=ref[worst], err32=err32[worst32],
                where32=fmt_point([a.astype(float) for a in args32], worst32))


def bench(lib, names):
    rng = np.random.default_rng(0)
    inputs = {
        "digamma": (rng.uniform(0.1, 50, 100000), None),
        "erfcx": (rng.uniform(-5, 30, 100000), None),
        "log1mexp": (rng.uniform(-20, 0, 100000), None),
        "gammainc": (rng.uniform(0.1, 50, 100000), rng.uniform(0, 60, 100000)),
        "i0e": (rng.uniform(-60, 60, 100000), None),
        "betainc": None,
    }
    lib.gj_bench_f64.restype = ctypes.c_double
    print("\nspeed (float64, ns per call; SciPy ufunc per element for scale):")
    for name in names:
        if inputs.get(name) is None:
            continue
        x, z = inputs[name]
        fn = ctypes.cast(getattr(lib, "gj_special_%s_f64" % name),
                         ctypes.c_void_p)
        zz = z if z is not None else x
        ns = lib.gj_bench_f64(fn, 1 if z is None else 2,
                              x.ctypes.data_as(ctypes.c_void_p),
                              zz.ctypes.data_as(ctypes.c_void_p),
                              ctypes.c_size_t(x.size), 5)
        ref = {"digamma": lambda: sp.psi(x), "erfcx": lambda: sp.erfcx(x),
               "log1mexp": lambda: pt_log1mexp(x),
               "gammainc": lambda: sp.gammainc(x, z),
               "i0e": lambda: sp.i0e(x)}[name]
        t0 = time.perf_counter()
        for _ in range(5):
            ref()
        sns = (time.perf_counter() - t0) / 5 / x.size * 1e9
        print("  %-10s %7.1f ns   (scipy %7.1f ns)" % (name, ns, sns))


class MpmathTimeout(Exception):
    pass


def on_alarm(signum, frame):
    raise MpmathTimeout()


def main():
    signal.signal(signal.SIGALRM, on_alarm)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-bench", action="store_true")
    parser.add_argument("--referee-limit", type=int, default=400)
    parser.add_argument("--only", default="",
                        help="check these functions only (comma-separated)")
    opts = parser.parse_args()

    lib = build(opts.cxx)
    table = specs(opts.quick)
    if opts.only:
        table = [s for s in table if s[0] in opts.only.split(",")]
    lib.gj_test_symbol_address.restype = ctypes.c_void_p
    lib.gj_test_symbol_address.argtypes = [ctypes.c_char_p]
    lib.gj_test_symbol_count.restype = ctypes.c_size_t
    failed = []
    every = len(specs(False))
    if lib.gj_test_symbol_count() != 2 * every:
        failed.append("gjSpecialSymbols lists %d wrappers, expected %d"
                      % (lib.gj_test_symbol_count(), 2 * every))
    for spec in table:
        for sfx in ("f64", "f32"):
            sym = "gj_special_%s_%s" % (spec[0], sfx)
            listed = lib.gj_test_symbol_address(sym.encode())
            actual = ctypes.cast(getattr(lib, sym), ctypes.c_void_p).value
            if listed != actual:
                failed.append("gjSpecialSymbols: %s missing or wrong" % sym)

    print("scipy %s, numpy %s, mpmath %s" % (
        scipy.__version__, np.__version__, mp.__version__ if mp else "absent"))
    print("%-13s %8s %10s %9s %10s  %s" % ("function", "points", "max err64",
                                           "scipy off", "max err32",
                                           "worst f64 point"))
    for spec in table:
        r = check(lib, spec, opts.referee_limit)
        print("%-13s %8d %10.2e %9d %10.2e  %s ours=%.17g ref=%.17g" % (
            r["name"], r["n"], r["err"], r["scipy_off"], r["err32"],
            r["where"], r["ours"], r["ref"]))
        if not r["err"] <= TOL64:
            failed.append("%s f64: error %.3g at %s (%d unrefereed)" % (
                r["name"], r["err"], r["where"], r["unrefereed"]))
        if not r["err32"] <= TOL32:
            failed.append("%s f32: error %.3g at %s" % (
                r["name"], r["err32"], r["where32"]))
    if not opts.no_bench:
        bench(lib, ["digamma", "erfcx", "log1mexp", "gammainc", "i0e"])
    print()
    for f in failed:
        print("FAIL " + f)
    print("%d passed, %d failed" % (2 * len(table) - len(
        {f.split(":")[0] for f in failed}), len(
        {f.split(":")[0] for f in failed})))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
