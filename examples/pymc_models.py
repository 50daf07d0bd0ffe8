"""Four standard PyMC models, for the PyMC tests (python/tests/test_pymc.py)
and the logp+gradient benchmark (bench/python/pymc_logp.py): eight schools
(non-centred), a hierarchical linear model with group indexing, a logistic
GLM and a Gaussian mixture. Each builder makes its data from a seeded
generator, so every run sees the same model."""
import numpy as np
import pymc as pm

RNG = np.random.default_rng(42)


def eight_schools():
    y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
    sigma = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 5)
        tau = pm.HalfCauchy("tau", 5)
        theta_t = pm.Normal("theta_t", 0, 1, shape=8)
        theta = pm.Deterministic("theta", mu + tau * theta_t)
        pm.Normal("obs", theta, sigma, observed=y)
    return m


def hierarchical_linear():
    groups = 6
    idx = RNG.integers(0, groups, 60)
    x = RNG.normal(size=60)
    y = 1.0 + 0.5 * x + RNG.normal(size=groups)[idx] + RNG.normal(size=60)
    with pm.Model() as m:
        mu_a = pm.Normal("mu_a", 0, 10)
        sigma_a = pm.HalfNormal("sigma_a", 5)
        a = pm.Normal("a", mu_a, sigma_a, shape=groups)
        b = pm.Normal("b", 0, 10)
        eps = pm.HalfNormal("eps", 5)
        pm.Normal("y", a[idx] + b * x, eps, observed=y)
    return m


def logistic_glm():
    X = RNG.normal(size=(80, 3))
    yv = (X @ [1.0, -2.0, 0.5] + RNG.normal(size=80) > 0).astype("int64")
    with pm.Model() as m:
        beta = pm.Normal("beta", 0, 2, shape=3)
        alpha = pm.Normal("alpha", 0, 2)
        pm.Bernoulli("y", logit_p=alpha + pm.math.dot(X, beta), observed=yv)
    return m


def gaussian_mixture():
    data = np.concatenate([RNG.normal(-2, 1, 40), RNG.normal(3, 0.5, 40)])
    with pm.Model() as m:
        w = pm.Dirichlet("w", np.ones(2))
        mu = pm.Normal("mu", 0, 5, shape=2,
                       transform=pm.distributions.transforms.ordered,
                       initval=[-1.0, 1.0])
        sd = pm.HalfNormal("sd", 2, shape=2)
        pm.NormalMixture("x", w=w, mu=mu, sigma=sd, observed=data)
    return m


MODELS = {"eight_schools": eight_schools,
          "hierarchical_linear": hierarchical_linear,
          "logistic_glm": logistic_glm,
          "gaussian_mixture": gaussian_mixture}
