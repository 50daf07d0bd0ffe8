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


def _assert_all_c_and_equal(model, grad_rtol=1e-9, grad_atol=1e-12):
    """Every node of the model's logp and dlogp compiled, and their values
    PyTensor's default mode's at two points."""
    logp = model.compile_logp(mode="GRAPHJIT")
    dlogp = model.compile_dlogp(mode="GRAPHJIT")
    for f in (logp, dlogp):
        cov = gjp.coverage(f.f)
        assert cov["c_nodes"] == cov["nodes"], cov["py_nodes"]
    ref_logp, ref_dlogp = model.compile_logp(), model.compile_dlogp()
    for point in _points(model):
        np.testing.assert_allclose(logp(point), ref_logp(point), rtol=1e-10)
        np.testing.assert_allclose(dlogp(point), ref_dlogp(point),
                                   rtol=grad_rtol, atol=grad_atol)


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


def test_bessel_and_inverse_cdf_distributions_run_as_c():
    """Rice (PyMC's own I0e scalar op), VonMises (i0), the HSGP coefficients
    of a periodic kernel (ive) and a rational quadratic's spectral density
    (kv), and icdfs through betaincinv and gammaincinv: every node of logp
    and dlogp compiled, values equal to PyTensor's default mode."""
    x = np.linspace(-1.2, 1.4, 6)
    with pm.Model() as model:
        nu = pm.HalfNormal("nu", 2.0)
        sigma = pm.HalfNormal("sigma", 1.0)
        pm.Rice("r", nu=nu, sigma=sigma, observed=np.abs(x) + 0.3)
        kappa = pm.HalfNormal("kappa", 3.0)
        pm.VonMises("angle", mu=0.2, kappa=kappa, observed=x)
        ell = pm.HalfNormal("ell", 1.0)
        periodic = pm.gp.cov.Periodic(1, period=2.0, ls=ell)
        q2 = periodic.power_spectral_density_approx(np.arange(6))
        ratquad = pm.gp.cov.RatQuad(1, alpha=2.5, ls=ell)
        psd = ratquad.power_spectral_density(np.linspace(0.1, 3, 5)[:, None])
        pm.Potential("spectra", pm.math.log(q2).sum() + pm.math.log(psd).sum())
        p = pm.Beta("p", 2.0, 3.0)
        pm.Potential("icdfs", pm.math.log(
            pm.icdf(pm.Beta.dist(2.0, 3.0), p)
            + pm.icdf(pm.Gamma.dist(2.0, 1.5), p)))
    _assert_all_c_and_equal(model)


def test_eigh_and_pymc_linear_algebra_run_as_c():
    """KroneckerNormal with noise (eigh of each factor), an LKJCorr prior
    (PyMC's PosDefMatrix check), and pm.math.logdet (PyMC's LogDet op, an
    SVD) in a Potential: every node compiled, values equal to PyTensor's
    default mode."""
    x1, x2 = np.linspace(0, 1, 4)[:, None], np.linspace(0, 2, 3)[:, None]
    y = RNG.normal(size=12)
    with pm.Model() as model:
        ell = pm.HalfNormal("ell", 1.0, shape=2)
        sigma = pm.HalfNormal("sigma", 0.5)
        covs = [pm.gp.cov.ExpQuad(1, ell[0])(x1) + 1e-6 * np.eye(4),
                pm.gp.cov.Matern52(1, ell[1])(x2) + 1e-6 * np.eye(3)]
        pm.KroneckerNormal("y", mu=np.zeros(12), covs=covs, sigma=sigma,
                           observed=y)
        corr = pm.LKJCorr("corr", n=3, eta=2.0)
        scale = pm.HalfNormal("scale", 1.0, shape=2)
        m = pm.math.stack([scale, scale[::-1]]) + np.eye(2)
        pm.Potential("logdet", -pm.math.logdet(m) + 0.0 * corr.sum())
    _assert_all_c_and_equal(model, grad_rtol=1e-8, grad_atol=1e-10)


def test_profiled_pm_sample_in_worker_processes_exits_cleanly():
    """PYTENSOR_FLAGS=mode=GRAPHJIT,profile=True and pm.sample on two
    worker processes (several profiled functions, made by PyMC, in the
    parent and the workers): every profile prints at exit and PyTensor's
    failing sum of them (rewriter_time) does not end the run in a
    traceback. The script imports no graphjit: the mode is found by name."""
    import os
    import subprocess
    import textwrap
    script = textwrap.dedent("""
        import numpy as np, pymc as pm
        with pm.Model():
            mu = pm.Normal("mu")
            pm.Normal("y", mu, 1, observed=np.arange(5.0))
            idata = pm.sample(draws=30, tune=30, chains=2, cores=2,
                              progressbar=False, random_seed=1,
                              compute_convergence_checks=False)
        print("ran", idata.posterior.mu.shape)
    """)
    env = dict(os.environ, PYTENSOR_FLAGS="mode=GRAPHJIT,profile=True")
    r = subprocess.run([sys.executable, "-c", script], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "ran (2, 30)" in r.stdout
    assert "Traceback" not in r.stderr and "Exception ignored" not in \
        r.stderr, r.stderr[-3000:]
    assert r.stderr.count("Function profiling") >= 2
