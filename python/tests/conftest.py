"""Shared helpers of the graphjit package's tests."""
import os
import pathlib

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


@pytest.fixture(autouse=True)
def _private_compile_cache(tmp_path_factory, monkeypatch):
    # Compiled objects go to a cache of the test session's own, never the
    # user's ~/.cache/graphjit.
    monkeypatch.setenv("GRAPHJIT_CACHE_DIR",
                       str(tmp_path_factory.getbasetemp() / "jit-cache"))


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def compile_both(inputs, outputs):
    """The function in GRAPHJIT and in PyTensor's default mode."""
    import pytensor
    return [pytensor.function(inputs, outputs, mode=m)
            for m in ("GRAPHJIT", None)]


def assert_all_c(f):
    """Every node of f runs graphjit's JIT code."""
    import graphjit.pytensor as gjp
    cov = gjp.coverage(f)
    assert cov["c_nodes"] == cov["nodes"], cov["py_nodes"]


def assert_same(fs, *args, rtol=1e-10, atol=1e-12):
    """Both functions of compile_both give the same dtypes and values."""
    got, want = (f(*args) for f in fs)
    if not isinstance(got, list):
        got, want = [got], [want]
    for g, w in zip(got, want, strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
