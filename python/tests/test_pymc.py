"""PyMC models' log-density and gradient compiled in GRAPHJIT equal PyTensor's
default mode at the initial point and at a perturbed one."""
import io
import sys

import numpy as np
import pytest

pm = pytest.importorskip("pymc")

import graphjit.pytensor as gjp  # noqa: E402
from conftest import EXAMPLES  # noqa: E402

sys.path.insert(0, str(EXAMPLES))
from pymc_models import MODELS, eight_schools  # noqa: E402

RNG = np.random.default_rng(7)


def _points(model):
    p0 = model.initial_point()
    p1 = {k: v + RNG.normal(scale=0.3, size=np.shape(v)) for k, v in
          p0.items()}
    return [p0, p1]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_logp_and_dlogp(name):
    model = MODELS[name]()
    logp = model.compile_logp(mode="GRAPHJIT")
    dlogp = model.compile_dlogp(mode="GRAPHJIT")
    ref_logp = model.compile_logp()
    ref_dlogp = model.compile_dlogp()
    for p in _points(model):
        for _ in range(2):
            np.testing.assert_allclose(logp(p), ref_logp(p), rtol=1e-10)
            np.testing.assert_allclose(dlogp(p), ref_dlogp(p), rtol=1e-9,
                                       atol=1e-12)
    cov = gjp.coverage(dlogp.f)
    assert cov["c_nodes"] > 0


def test_profile_prints():
    model = eight_schools()
    f = model.compile_logp(mode="GRAPHJIT", profile=True)
    p = model.initial_point()
    for _ in range(3):
        f(p)
    out = io.StringIO()
    gjp.summary(f.f, file=out)
    assert "graphjit coverage" in out.getvalue()
    out = io.StringIO()
    f.f.profile.summary(file=out)
    assert "Apply" in out.getvalue()
