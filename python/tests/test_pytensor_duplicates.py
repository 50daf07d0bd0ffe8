"""Computations PyTensor's merge leaves twice (graphjit/pytensor/
duplicates.py): computed once under GRAPHJIT, with PyTensor's values; and
the near misses that are not the same computation, kept apart."""
import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

import graphjit.pytensor  # noqa: F401  (registers GRAPHJIT)

RNG = np.random.default_rng(11)
X = pt.tensor("x", shape=(2,), dtype="float64")
M = pt.dmatrix("m")
EYE = np.eye(4)


def _compile(outs, ins=(X, M)):
    f = pytensor.function(list(ins), outs, mode="GRAPHJIT")
    ref = pytensor.function(list(ins), outs)
    return f, ref


def _ops(f, name):
    return [a["op"] for a in f.vm.jit_fn.function.applies()
            if a["op"].startswith(name)]


def _agree(f, ref, *args):
    for got, want in zip(f(*args), ref(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def _point():
    a = RNG.normal(size=(4, 9))
    return np.array([0.3, -0.7]), np.cov(a)


def test_element_and_one_element_slice_are_one_value():
    # PyMC's pattern: the log-density reads x[0], its gradient x[:1]; the
    # fused Composites differ, their products' operands come swapped, and
    # the covariance matrix and its Cholesky were computed twice.
    k1 = pt.exp(X[0]) ** 2 * M + X[1] ** 2 * EYE
    k2 = ((pt.exp(X[:1]) ** 2).dimshuffle("x", 0) * M
          + (X[1:] ** 2).dimshuffle(0, "x") * EYE)
    outs = [pt.linalg.cholesky(k1), pt.linalg.cholesky(k2).sum(), k2]
    f, ref = _compile(outs)
    assert len(_ops(f, "Cholesky")) == 1
    _agree(f, ref, *_point())
    same = f.vm.jit_fn.translation.same
    assert any(type(n.op).__name__ == "Cholesky" for n in same)


@pytest.mark.parametrize("second", [
    lambda: pt.exp(X[1]) ** 2 * M,           # another element
    lambda: pt.exp(X[0]) ** 2 * M.T,         # a transposed operand
    lambda: pt.exp(X[0]) * 2.0 * M,          # another expression
    lambda: (pt.exp(X[0]) ** 2 * M).astype("float32"),  # another dtype
    lambda: pt.exp(X[0]) ** 2 + M,           # another operation
])
def test_near_misses_stay_apart(second):
    first = pt.exp(X[0]) ** 2 * M
    outs = [pt.linalg.cholesky(first), pt.linalg.cholesky(second())]
    f, ref = _compile(outs)
    assert len(_ops(f, "Cholesky")) == 2
    x, m = _point()
    m = m + 10 * np.eye(4)  # positive definite for every variant
    _agree(f, ref, x, m)


def test_a_slice_of_two_elements_is_no_element():
    v = pt.tensor("v", shape=(3,), dtype="float64")
    outs = [pt.exp(v[:2]).sum() * M, pt.exp(v[0]) * M]
    f, ref = _compile(outs, (v, M))
    assert not f.vm.jit_fn.translation.same
    _agree(f, ref, np.array([0.1, 0.2, 0.3]), np.ones((2, 2)))


def test_dead_inputs_of_a_duplicate_are_not_computed():
    # What only the second Cholesky read goes with it: x[:1] and its exp.
    k1 = pt.exp(X[0]) * M
    k2 = pt.exp(X[:1]).dimshuffle("x", 0) * M
    outs = [pt.linalg.cholesky(k1), pt.linalg.cholesky(k2)]
    f, ref = _compile(outs)
    assert len(_ops(f, "Cholesky")) == 1
    assert len(_ops(f, "Subtensor")) == 1  # x[0]'s, not x[:1]'s
    assert len(_ops(f, "Elemwise{exp")) == 1
    _agree(f, ref, *_point())
