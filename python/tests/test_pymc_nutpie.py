"""nutpie's sampler on graphjit's C entries (graphjit.pymc): posteriors that
agree with nutpie's own Numba backend within Monte Carlo error on models of
the corpus, shared data swapped with with_data, the profile of a whole
sampling run, and failures that stop no chain."""
import sys

import numpy as np
import pytest

pm = pytest.importorskip("pymc")
nutpie = pytest.importorskip("nutpie")

import graphjit  # noqa: E402
import graphjit.pymc as gjpymc  # noqa: E402
from conftest import EXAMPLES  # noqa: E402

sys.path.insert(0, str(EXAMPLES))
from pymc_corpus import CORPUS  # noqa: E402

# A dozen models of the corpus, of every kind: linear algebra, scans,
# mixtures, ordinal, censored, zero-inflated, simplex and sum-to-zero
# transforms.
MODELS = ["ar2", "gp_marginal", "mvnormal_lkj", "garch11",
          "kalman_local_level", "stochastic_volatility", "normal_mixture3",
          "censored_normal", "ordered_logistic", "hurdle_negative_binomial",
          "dirichlet_multinomial", "hierarchical_zerosum"]
DRAWS = dict(tune=500, draws=500, chains=2, cores=2, progress_bar=False)


def _sample(compiled, seed):
    return nutpie.sample(compiled, seed=seed, **DRAWS)


def _numbers(trace, names):
    """Each free variable's posterior means, sds and effective sizes."""
    import arviz as az
    ess = az.ess(trace, var_names=names)
    out = {}
    for name in names:
        draws = trace.posterior[name].values
        flat = draws.reshape(draws.shape[0] * draws.shape[1], -1)
        out[name] = (flat.mean(0), flat.std(0),
                     np.asarray(ess[name].values, dtype=float).ravel())
    return out


@pytest.fixture(scope="module")
def numba_reference():
    """nutpie's Numba backend's posterior of a model, once per run."""
    cache = {}

    def get(name):
        if name not in cache:
            model = CORPUS[name]()
            compiled = nutpie.compile_pymc_model(model)
            names = [v.name for v in model.free_RVs]
            cache[name] = _numbers(_sample(compiled, seed=11), names)
        return cache[name]
    return get


@pytest.mark.parametrize("name", MODELS)
def test_posterior_agrees_with_numba(name, numba_reference):
    model = CORPUS[name]()
    compiled = gjpymc.compile_pymc_model(model)
    names = [v.name for v in model.free_RVs]
    trace = _sample(compiled, seed=5)
    ours = _numbers(trace, names)
    ref = numba_reference(name)
    for var in names:
        m1, s1, e1 = ours[var]
        m2, s2, e2 = ref[var]
        assert np.all(np.isfinite(m1)) and np.all(s1 > 0), var
        # Monte Carlo standard errors of the means and of the sds.
        se_mean = np.sqrt(s1 ** 2 / e1 + s2 ** 2 / e2)
        z = np.abs(m1 - m2) / se_mean
        assert z.max() < 5, (var, m1, m2, se_mean)
        rel_sd = np.abs(s1 / s2 - 1)
        assert np.all(rel_sd < 5 * np.sqrt(0.5 / e1 + 0.5 / e2) + 0.05), \
            (var, s1, s2)
    step = float(trace.sample_stats.step_size.mean())
    assert step > 0


def _regression(x, y):
    with pm.Model() as model:
        xs = pm.Data("xs", x)
        ys = pm.Data("ys", y)
        beta = pm.Normal("beta", 0, 10)
        sigma = pm.HalfNormal("sigma", 2)
        pm.Normal("obs", beta * xs, sigma, observed=ys)
        pm.Deterministic("twice", 2 * beta)
    return model


def test_shared_data_and_with_data():
    rng = np.random.default_rng(2)
    x = rng.normal(size=50)
    model = _regression(x, 3.0 * x + rng.normal(scale=0.5, size=50))
    compiled = gjpymc.compile_pymc_model(model)
    assert sorted(compiled.shared_data) == ["xs", "ys"]
    trace = _sample(compiled, seed=1)
    beta = trace.posterior["beta"].values
    assert abs(beta.mean() - 3.0) < 0.3
    np.testing.assert_allclose(trace.posterior["twice"].values, 2 * beta)

    # New data of another length: the entries are bound anew; the first
    # model still samples its own data.
    x2 = rng.normal(size=80)
    other = compiled.with_data(xs=x2, ys=-1.0 * x2 + rng.normal(scale=0.5,
                                                                size=80))
    beta2 = _sample(other, seed=2).posterior["beta"].values
    assert abs(beta2.mean() + 1.0) < 0.3
    beta1 = _sample(compiled, seed=3).posterior["beta"].values
    assert abs(beta1.mean() - 3.0) < 0.3
    with pytest.raises(KeyError, match="Unknown shared variable: zz"):
        compiled.with_data(zz=x2)
    with pytest.raises(ValueError, match="must have rank 1"):
        compiled.with_data(xs=np.zeros((2, 2)))


def test_profile_of_a_sampling_run():
    rng = np.random.default_rng(4)
    x = rng.normal(size=40)
    model = _regression(x, 0.5 * x + rng.normal(size=40))
    stats = graphjit.ProfileStats("sampling run")
    compiled = gjpymc.compile_pymc_model(model, profile=stats)
    assert compiled.profile is stats
    trace = nutpie.sample(compiled, seed=1, tune=200, draws=100, chains=2,
                          cores=2, progress_bar=False, save_warmup=True)
    steps = int(trace.sample_stats.n_steps.sum() +
                trace.warmup_sample_stats.n_steps.sum())
    calls = {f["name"]: f["calls"] for f in stats.profile().functions}
    # Every gradient of every chain (threads of nutpie's) was counted, and
    # a few more (initial points, the first step size); every stored draw
    # was expanded.
    assert steps <= calls["logp"] <= steps + 100, (calls, steps)
    assert calls["expand"] == 2 * (200 + 100)


@pytest.mark.filterwarnings("ignore:Cholesky on_raise:FutureWarning")
def test_a_point_where_logp_fails_is_a_divergence_not_a_crash():
    # A Cholesky that raises where the matrix is not positive definite
    # (|a0| >= 1): the entry returns a recoverable status there, nutpie
    # takes it as a divergence, and the chains go on.
    import pytensor.tensor as pt
    with pm.Model() as model:
        a = pm.Normal("a", 0, 1, shape=2)
        cov = pt.stack([pt.stack([1.0, a[0]]), pt.stack([a[0], 1.0])])
        chol = pt.linalg.cholesky(cov, on_error="raise")
        pm.Potential("p", pt.sum(pt.log(pt.diag(chol))))
        pm.Normal("b", a[1], 1)
    compiled = gjpymc.compile_pymc_model(model)
    trace = nutpie.sample(compiled, seed=3, tune=200, draws=200, chains=2,
                          cores=2, progress_bar=False, save_warmup=True)
    a0 = trace.posterior["a"].values[..., 0]
    assert np.all(np.abs(a0) < 1)  # only points where cov is PD are kept
    assert trace.posterior["a"].shape[:2] == (2, 200)
    assert int(trace.warmup_sample_stats.diverging.sum() +
               trace.sample_stats.diverging.sum()) > 0


def test_models_the_entry_cannot_take_say_so():
    with pm.Model() as model:
        pm.Normal("a", 0, 1)
    compiled = gjpymc.compile_pymc_model(model)
    with pytest.raises(TypeError, match="profile: expected True or a "
                                        "graphjit.ProfileStats"):
        gjpymc.compile_pymc_model(model, profile="yes")
    assert compiled.n_dim == 1


def test_compile_times_add_up():
    with pm.Model() as model:
        pm.Normal("a", 0, 1, shape=3)
    times = gjpymc.compile_pymc_model(model).compile_times
    assert set(times) == {"pytensor rewrites", "translation",
                          "graphjit compile", "other linking",
                          "pymc graphs and the rest", "total"}
    assert all(v >= 0 for v in times.values())
    assert times["graphjit compile"] > 0 and times["translation"] > 0
    parts = sum(v for k, v in times.items() if k != "total")
    assert parts == pytest.approx(times["total"], rel=0.05), times


def test_helpers_compile_with_the_python_linker(tmp_path):
    """PyMC's and nutpie's helpers (initial points, shapes) are compiled
    with PyTensor's Python linker, inner functions their ops compile on
    first use included (LKJCholeskyCov's): a fresh process compiles no C
    module for them, not even at a chain's first initial point, nor imports
    the setuptools that PyTensor's VM linker imports (0.24 s); PyTensor's
    modes are its own again afterwards."""
    import os
    import subprocess
    code = (
        "import sys; sys.path.insert(0, %r)\n"
        "import graphjit.pymc as g, nutpie\n"
        "from pytensor.compile import mode\n"
        "from pymc_corpus import CORPUS\n"
        "before = mode.FAST_COMPILE, mode.predefined_modes['FAST_COMPILE']\n"
        "c = g.compile_pymc_model(CORPUS['mvnormal_lkj']())\n"
        "assert (mode.FAST_COMPILE, mode.predefined_modes['FAST_COMPILE'])"
        " == before\n"
        "print(len(c.initial_point_func(1)), 'setuptools' in sys.modules)\n"
        % str(EXAMPLES))
    env = dict(os.environ, PYTENSOR_FLAGS="compiledir=%s" % tmp_path)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True, env=env).stdout.split()
    assert out[1:] == ["False"] and int(out[0]) > 0, out
    compiled = [p for p in tmp_path.rglob("mod.cpp")]
    assert not compiled, compiled
