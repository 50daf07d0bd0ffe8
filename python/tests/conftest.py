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
