#!/usr/bin/env python3
"""A differential fuzzer of the PyTensor bridge: random PyTensor graphs over
the ops graphjit runs as C (element-wise and special functions, reductions,
advanced and basic indexing and increments, linear algebra, shape ops),
with random shapes, broadcasting, dtypes and index values, each compiled
with mode="GRAPHJIT" and checked against PyTensor's own Python linker
(every node's perform: NumPy and SciPy), values and exception types alike.

    python python/tests/bridge_fuzz.py --cases 5000 --seed 1   # a long run

CI runs a few hundred cases in each environment (test_bridge_fuzz.py).
A failing case prints its seed and the graph, and reruns alone with
--seed S --cases 1.
"""
import argparse
import logging
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")
# PyTensor logs its own rewrites' failures (and falls back); not ours.
logging.getLogger("pytensor").setLevel(logging.CRITICAL)

import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from pytensor.compile.mode import Mode  # noqa: E402

import graphjit.pytensor  # noqa: E402, F401  (registers GRAPHJIT)

# The same rewrites as GRAPHJIT (FAST_RUN), each node then run by its own
# perform: graphjit is checked on the graph it is given.
REFERENCE = Mode(linker="py", optimizer="fast_run")

# name: (function of one array, a map of the input into its domain)
UNARY = {
    "exp": (pt.exp, lambda x: pt.clip(x, -30, 30)),
    "log1p_abs": (lambda x: pt.log1p(pt.abs(x)), None),
    "sin": (pt.sin, None), "tanh": (pt.tanh, None),
    "sigmoid": (pt.sigmoid, None), "softplus": (pt.softplus, None),
    "psi": (pt.psi, lambda x: pt.abs(x) + 0.25),
    "tri_gamma": (pt.tri_gamma, lambda x: pt.abs(x) + 0.25),
    "gammaln": (pt.gammaln, lambda x: pt.abs(x) + 0.1),
    "erf": (pt.erf, None), "erfc": (pt.erfc, None),
    "erfcx": (pt.erfcx, None),
    "erfinv": (pt.erfinv, lambda x: pt.tanh(x) * 0.99),
    "log1mexp": (pt.log1mexp, lambda x: -pt.abs(x) - 0.01),
    "i0": (pt.i0, lambda x: pt.clip(x, -20, 20)),
    "i1": (pt.i1, lambda x: pt.clip(x, -20, 20)),
    "j0": (pt.j0, None), "j1": (pt.j1, None),
    # Bessel functions of real order, constant (PyTensor has no gradient in
    # the order), of both signs; arguments kept positive (a negative one
    # with a non-integer order is NaN) and off 0 (a negative order's pole).
    "jv": (lambda x: pt.jv(-1.5, x), lambda x: pt.abs(x) + 0.05),
    "ive": (lambda x: pt.ive(2.5, x), lambda x: pt.abs(x) + 0.05),
    "kve": (lambda x: pt.kve(0.75, x), lambda x: pt.abs(x) + 0.05),
    "arctan": (pt.arctan, None), "cosh": (pt.cosh, lambda x: pt.clip(x, -9, 9)),
    "sqrt_abs": (lambda x: pt.sqrt(pt.abs(x)), None),
    "sqr": (pt.sqr, None), "neg": (pt.neg, None),
}
BINARY = {
    "add": pt.add, "sub": pt.sub, "mul": pt.mul,
    "true_div": lambda a, b: a / (pt.abs(b) + 1),
    "maximum": pt.maximum, "minimum": pt.minimum,
    "pow": lambda a, b: (pt.abs(a) + 0.5) ** pt.clip(b, -3, 3),
    "arctan2": pt.arctan2,
    "gammainc": lambda a, b: pt.gammainc(pt.abs(a) + 0.1, pt.abs(b)),
    "gammaincc": lambda a, b: pt.gammaincc(pt.abs(a) + 0.1, pt.abs(b)),
    "switch": lambda a, b: pt.switch(a > b, a, b * 2),
}


class Case:
    """One random graph: its inputs, their values and its outputs."""

    def __init__(self, rng):
        self.rng = rng
        self.inputs, self.values, self.pool = [], [], []
        self.dtype = "float32" if rng.random() < 0.2 else "float64"
        self.text = []

    def new_input(self, shape):
        var = pt.tensor("x%d" % len(self.inputs), dtype=self.dtype,
                        shape=tuple(1 if s == 1 else None for s in shape))
        self.inputs.append(var)
        self.values.append(self.rng.normal(size=shape).astype(self.dtype))
        self.pool.append((var, tuple(shape)))
        return var, tuple(shape)

    def pick(self):
        return self.pool[self.rng.integers(len(self.pool))]

    def step(self):
        rng = self.rng
        kind = rng.choice(["unary", "binary", "reduce", "index", "inc",
                           "linalg", "shape", "scan"],
                          p=[.23, .23, .1, .13, .1, .07, .08, .06])
        x, shape = self.pick()
        try:
            out = getattr(self, "_" + kind)(x, shape)
        except _Skip:
            return
        if out is not None:
            self.pool.append(out)

    def _unary(self, x, shape):
        name = self.rng.choice(sorted(UNARY))
        fn, domain = UNARY[name]
        self.text.append(name)
        return fn(domain(x) if domain else x), shape

    def _binary(self, x, shape):
        y, yshape = self.pick()
        if len(yshape) != len(shape):
            raise _Skip
        try:
            out_shape = np.broadcast_shapes(shape, yshape)
        except ValueError:
            raise _Skip from None
        name = self.rng.choice(sorted(BINARY))
        self.text.append(name)
        return BINARY[name](x, y), tuple(out_shape)

    def _reduce(self, x, shape):
        if not shape:
            raise _Skip
        axis = int(self.rng.integers(len(shape)))
        name = self.rng.choice(["sum", "max", "min", "prod"])
        self.text.append("%s(axis=%d)" % (name, axis))
        out = getattr(x, name)(axis=axis)
        if name == "prod":
            out = pt.tanh(out)
        return out, shape[:axis] + shape[axis + 1:]

    def _index(self, x, shape):
        rng = self.rng
        if not shape or min(shape) == 0:
            raise _Skip
        form = rng.integers(4)
        n = shape[0]
        idx = rng.integers(-n, n, size=rng.integers(1, 5))
        if form == 0:  # x[int array]
            self.text.append("x[%s]" % list(idx))
            return x[idx], (len(idx),) + shape[1:]
        if form == 1:  # a boolean mask of the first axis
            mask = rng.random(n) < 0.5
            self.text.append("x[mask %s]" % list(mask.astype(int)))
            return x[mask], (int(mask.sum()),) + shape[1:]
        if form == 2 and len(shape) >= 2:  # x[i, j]
            m = shape[1]
            jdx = rng.integers(-m, m, size=len(idx))
            self.text.append("x[%s, %s]" % (list(idx), list(jdx)))
            return x[idx, jdx], (len(idx),) + shape[2:]
        k = int(rng.integers(-n, n))
        self.text.append("x[%d]" % k)
        return x[k], shape[1:]

    def _inc(self, x, shape):
        rng = self.rng
        if not shape or min(shape) == 0:
            raise _Skip
        axis = int(rng.integers(len(shape)))
        n = shape[axis]
        setting = bool(rng.random() < 0.5)
        f = pt.set_subtensor if setting else pt.inc_subtensor
        if rng.random() < 0.5:  # a slice on one axis
            a = int(rng.integers(-n, n))
            index = (slice(None),) * axis + (slice(a, None),)
            self.text.append("%s(x[%s], 1.5)" % (f.__name__, index))
            return f(x[index], 1.5), shape
        idx = rng.integers(-n, n, size=3)  # repeated indices allowed
        index = (slice(None),) * axis + (idx,)
        self.text.append("%s(x[%s], 2.0)" % (f.__name__, index))
        return f(x[index], 2.0), shape

    def _linalg(self, x, shape):
        if len(shape) != 2:
            raise _Skip
        n = shape[0]
        a = pt.dot(x, x.T) + (n + 1) * pt.eye(n, dtype=self.dtype)
        name = self.rng.choice(["cholesky", "solve", "det", "inv",
                                "solve_triangular", "eigvalsh", "svd_s",
                                "pinv"])
        self.text.append(name)
        if name == "cholesky":
            return pt.linalg.cholesky(a), (n, n)
        if name == "solve":
            return pt.linalg.solve(a, x), shape
        if name == "det":
            return pt.log(pt.linalg.det(a)), ()
        if name == "inv":
            return pt.linalg.inv(a), (n, n)
        # The decompositions by what does not depend on the vectors' signs;
        # eigenvalues spread by a diagonal so that none repeats (a repeated
        # one makes eigh's gradient 0/0).
        if name == "eigvalsh":
            spread = pt.diag(pt.arange(1, n + 1, dtype=self.dtype) * (n + 1))
            return pt.linalg.eigh(pt.dot(x, x.T) + spread)[0], (n,)
        if name == "svd_s":
            return (pt.linalg.svd(x, full_matrices=False)[1],
                    (min(shape),))
        if name == "pinv":
            return pt.linalg.pinv(x), shape[::-1]
        chol = pt.linalg.cholesky(a)
        return pt.linalg.solve_triangular(chol, x, lower=True), shape

    def _shape(self, x, shape):
        rng = self.rng
        form = rng.integers(3)
        if form == 0 and len(shape) >= 2:
            self.text.append("T")
            return x.T, shape[::-1]
        if form == 1:
            self.text.append("flatten")
            return x.flatten(), (int(np.prod(shape)),)
        self.text.append("expand_dims")
        return pt.expand_dims(x, 0), (1,) + shape


    def _scan(self, x, shape):
        """A recurrence over x's first axis (its gradient a scan too when
        the case takes gradients): every value, or the last."""
        from pytensor import scan
        if not shape or shape[0] == 0:
            raise _Skip
        rng = self.rng
        # x's dtype (a float32 case's values may have become float64).
        a = pt.constant(rng.uniform(0.2, 0.9), dtype=x.dtype)
        forms = {
            "h*a+tanh(x)": lambda xt, h: h * a + pt.tanh(xt),
            "h+x*h": lambda xt, h: h + xt * pt.tanh(h) * a,
            "exp(-h^2)+x": lambda xt, h: pt.exp(-pt.sqr(h)) + xt,
        }
        name = rng.choice(sorted(forms))
        init = pt.zeros(shape[1:], dtype=x.dtype) + 0.5

        def step(xt, h):
            return pt.cast(forms[name](xt, h), x.dtype)

        try:  # PyTensor 3 returns the updates only when asked; 2.38 always
            h = scan(step, sequences=[x], outputs_info=[init],
                     return_updates=False)
        except TypeError:
            h, _ = scan(step, sequences=[x], outputs_info=[init])
        except ValueError:  # a graph scan refuses to build: not a case
            raise _Skip from None
        if rng.random() < 0.5:
            self.text.append("scan(%s)" % name)
            return h, shape
        self.text.append("scan(%s)[-1]" % name)
        return h[-1], shape[1:]


class _Skip(Exception):
    pass



def make_case(seed):
    rng = np.random.default_rng(seed)
    case = Case(rng)
    for _ in range(rng.integers(1, 3)):
        rank = int(rng.integers(0, 3))
        case.new_input([int(rng.choice([1, 2, 3, 4])) for _ in range(rank)])
    for _ in range(rng.integers(2, 7)):
        case.step()
    # Two outputs: the newest value and a sum of everything (gradients too).
    last = case.pool[-1][0]
    total = sum(v.sum() for v, _ in case.pool[len(case.inputs):]) \
        if len(case.pool) > len(case.inputs) else last.sum()
    outs = [last, total]
    if rng.random() < 0.5:
        outs += pt.grad(total, case.inputs, disconnected_inputs="ignore")
    return case, outs


def same(got, want, dtype):
    rtol = 1e-4 if dtype == "float32" else 1e-8
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return False
    return np.allclose(got, want, rtol=rtol, atol=rtol * 1e-2,
                       equal_nan=True)


def run_case(seed):
    """None if graphjit agrees with PyTensor's perform, else a message."""
    case, outs = make_case(seed)
    want, want_err = None, None
    # PyTensor's Python linker fails on some nodes of its own (an
    # AttributeError of its Elemwise scratchpad for ScalarLoop gradients):
    # then its default mode is the reference.
    for mode in (REFERENCE, None):
        try:
            ref = pytensor.function(case.inputs, outs, mode=mode,
                                    on_unused_input="ignore")
            want, want_err = ref(*case.values), None
        except Exception as e:  # the graph itself fails: graphjit must too
            want, want_err = None, e
        if not isinstance(want_err, (AttributeError, NotImplementedError)):
            break
    try:
        f = pytensor.function(case.inputs, outs, mode="GRAPHJIT",
                              on_unused_input="ignore")
        got = f(*case.values)
        got_err = None
    except Exception as e:
        got, got_err = None, e
    where = "seed %d (%s, %s): %s" % (seed, case.dtype,
                                      [v.shape for v in case.values],
                                      " ".join(case.text))
    if want_err is not None or got_err is not None:
        if want_err is not None and got_err is not None and \
                isinstance(got_err, type(want_err)):
            return None
        return "%s\n  PyTensor: %r\n  graphjit: %r" % (where, want_err,
                                                       got_err)
    bad = [k for k, (g, w) in enumerate(zip(got, want))
           if not same(g, w, case.dtype)]
    if bad:
        # PyTensor's Python perform of a fused Composite is sometimes the
        # odd one out (float64 gradients 2e-8 apart from its C VM's and its
        # unrewritten graph's): its default mode referees.
        second = pytensor.function(case.inputs, outs,
                                   on_unused_input="ignore")(*case.values)
        bad = [k for k in bad if not same(got[k], second[k], case.dtype)]
    for k in bad:
        return "%s\n  output %d differs:\n  graphjit %s\n  PyTensor %s" % (
            where, k, np.asarray(got[k]), np.asarray(want[k]))
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    opts = ap.parse_args(argv)
    failures = []
    for seed in range(opts.seed, opts.seed + opts.cases):
        msg = run_case(seed)
        if msg:
            failures.append(msg)
            print("FAIL " + msg, flush=True)
    print("%d passed, %d failed" % (opts.cases - len(failures),
                                    len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
