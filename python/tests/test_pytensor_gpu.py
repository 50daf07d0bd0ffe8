"""PyTensor's functions on graphjit's GPU path (docs/gpu.md): the
GRAPHJIT_CUDA mode, a GraphjitLinker given a device, and GRAPHJIT_FLAGS'
device. CI has no GPU: the path runs on the emulated device there, and
GRAPHJIT_CUDA must say that no GPU opened."""
import os
import subprocess
import sys

import numpy as np
import pytest

pytensor = pytest.importorskip("pytensor")

import pytensor.tensor as pt  # noqa: E402
from pytensor.compile.mode import Mode  # noqa: E402
from pytensor.graph.rewriting.db import RewriteDatabaseQuery  # noqa: E402

import graphjit  # noqa: E402
import graphjit.pytensor as gjp  # noqa: E402


def _has_gpu():
    try:
        graphjit.function(graphjit.loads(
            "func f(x: f64[2]) -> (y) {\n  y = exp(x)\n}\n").graph("f"),
            device="cuda")
        return True
    except graphjit.GraphjitError:
        return False


def _train_step():
    """A perceptron layer's loss and gradient: products, elemwise, sums."""
    x, w = pt.dmatrix("x"), pt.dmatrix("w")
    loss = pt.tanh(x @ w).sum()
    return [x, w], [loss, pytensor.grad(loss, w)]


def test_a_linker_given_a_device_runs_there():
    ins, outs = _train_step()
    mode = Mode(gjp.GraphjitLinker(device="cuda-emulated"),
                RewriteDatabaseQuery(include=["fast_run"]))
    f = pytensor.function(ins, outs, mode=mode, profile=True)
    ref = pytensor.function(ins, outs)
    rng = np.random.default_rng(3)
    x, w = rng.normal(size=(16, 8)), rng.normal(size=(8, 4)) * 0.1
    for got, want in zip(f(x, w), ref(x, w), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    import io
    import json
    out = io.StringIO()
    gjp.summary(f, file=out)
    assert "Device: host (emulated GPU)" in out.getvalue()
    # The product and the tanh ran on the device (timed by its timers).
    runner = f.vm.jit_fn if hasattr(f, "vm") else f.fn.jit_fn
    raw = json.loads(runner.function.profile.to_json())["functions"][0]
    on_device = {a["op_class"] for a in raw["applies"] if a.get("on_device")}
    assert {"GpuElemwise", "GpuFromHost"} <= on_device, on_device
    assert on_device & {"GpuDot", "GpuGemm"}, on_device


def test_the_flags_device_reaches_pytensor_functions():
    code = ("import numpy as np, pytensor, pytensor.tensor as pt\n"
            "import graphjit.pytensor\n"
            "x = pt.dvector('x')\n"
            "f = pytensor.function([x], pt.exp(x) * 2, mode='GRAPHJIT')\n"
            "print(f(np.zeros(3)))\n")
    env = dict(os.environ, GRAPHJIT_FLAGS="device=cuda-emulated,profile=True")
    r = subprocess.run([sys.executable, "-c", code], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "[2. 2. 2.]" in r.stdout
    assert "Device: host (emulated GPU)" in r.stderr, r.stderr


def test_graphjit_cuda_mode():
    x = pt.dvector("x")
    if not _has_gpu():
        with pytest.raises(graphjit.GraphjitError, match="no CUDA device"):
            pytensor.function([x], pt.exp(x) * 2, mode="GRAPHJIT_CUDA")
        return
    f = pytensor.function([x], pt.exp(x) * 2, mode="GRAPHJIT_CUDA")
    np.testing.assert_allclose(f(np.arange(3.0)), np.exp(np.arange(3.0)) * 2)
