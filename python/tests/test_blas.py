"""The BLAS and LAPACK graphjit links (cmake/GraphjitBlas.cmake): PyPI's
scipy-openblas32 at the pinned version, loaded beside NumPy's own OpenBLAS
in one process without either taking the other's symbols, and choosing a
kernel that knows the CPU."""
import os
import subprocess
import sys

import numpy as np
import pytest

import graphjit

scipy_openblas32 = pytest.importorskip("scipy_openblas32")


def _machine(env=None):
    code = ("import graphjit, numpy as np\n"
            "m = graphjit.loads('func f(a: f64[2, 2]) -> (b) "
            "{ b = dot(a, a) }')\n"
            "f = m.function('f', profile=True)\n"
            "f(np.eye(2))\n"
            "print(f.profile.profile().data['machine'])\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True, timeout=120)
    return out.stdout.strip()


def test_the_blas_is_the_pinned_scipy_openblas():
    machine = _machine()
    version = scipy_openblas32.__version__
    assert "BLAS: OpenBLAS %s," % version in machine, machine


def test_beside_numpys_blas_in_one_process():
    m = graphjit.loads("func f(a: f64[n, k], b: f64[k, m]) -> (c) "
                       "{ c = dot(a, b) }")
    f = m.function("f")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((64, 48)), rng.standard_normal((48, 32))
    np.testing.assert_allclose(f(a, b), a @ b, rtol=1e-12)
    libs = {os.path.basename(line.split()[-1])
            for line in open("/proc/self/maps") if "openblas" in line}
    ours = scipy_openblas32.get_library(True)
    assert ours in libs, libs
    # NumPy's is another library (its symbols end in 64_), not ours.
    assert any(lib != ours for lib in libs), libs


def test_the_kernel_knows_the_cpu():
    flags = open("/proc/cpuinfo").read()
    if " avx2 " not in flags:
        pytest.skip("the CPU has no AVX2: any kernel is right")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    machine = _machine(env)
    # Not a kernel set older than AVX (lib/ops/linalg/BlasInfo.h marks those).
    assert "kernel " in machine and "no AVX" not in machine, machine
