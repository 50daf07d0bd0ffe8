"""A corpus of PyMC models written the way PyMC's example gallery writes
them (issue 34, section 2), for the corpus tests
(python/tests/test_pymc_corpus.py) and benchmark
(bench/python/pymc_corpus.py): Gaussian processes (marginal and latent),
multivariate normals with an LKJ prior, time series (AR, a hand-written
GARCH, a Kalman filter and exponential smoothing with `pytensor.scan`,
stochastic volatility), mixtures, censored and truncated data, ordinal
regression, zero-inflated and hurdle counts, survival models, multinomial
and Dirichlet-multinomial counts, hierarchical and sparse regressions,
splines, potentials, explicit linear algebra and a dozen GLMs.

Each builder takes no argument and returns a `pm.Model`; its data come from
a generator seeded by the builder itself, so every call (in any order) sees
the same model. The data are small (tens to a few hundred points) so that a
model compiles and evaluates quickly. `CORPUS` maps a name to its builder.
"""
import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt


def _rng(seed):
    return np.random.default_rng(seed)


# -- Gaussian processes ------------------------------------------------------
def gp_marginal():
    rng = _rng(1)
    X = np.linspace(0, 10, 40)[:, None]
    y = np.sin(X[:, 0]) + rng.normal(0, 0.3, 40)
    with pm.Model() as m:
        ls = pm.Gamma("ls", alpha=2, beta=1)
        eta = pm.HalfNormal("eta", 2)
        cov = eta**2 * pm.gp.cov.ExpQuad(1, ls=ls)
        gp = pm.gp.Marginal(cov_func=cov)
        sigma = pm.HalfNormal("sigma", 1)
        gp.marginal_likelihood("y", X=X, y=y, sigma=sigma)
    return m


def gp_latent():
    rng = _rng(2)
    X = np.linspace(0, 5, 20)[:, None]
    counts = rng.poisson(np.exp(1 + np.sin(X[:, 0])))
    with pm.Model() as m:
        ls = pm.InverseGamma("ls", alpha=5, beta=5)
        eta = pm.HalfNormal("eta", 1)
        gp = pm.gp.Latent(cov_func=eta**2 * pm.gp.cov.Matern52(1, ls=ls))
        f = gp.prior("f", X=X)
        pm.Poisson("y", mu=pm.math.exp(f), observed=counts)
    return m


# -- multivariate -------------------------------------------------------------
def mvnormal_lkj():
    rng = _rng(3)
    cov = np.array([[1.0, 0.5, 0.2], [0.5, 2.0, -0.3], [0.2, -0.3, 0.5]])
    data = rng.multivariate_normal([1.0, -1.0, 0.5], cov, size=100)
    with pm.Model() as m:
        chol, corr, stds = pm.LKJCholeskyCov(
            "chol", n=3, eta=2.0, sd_dist=pm.Exponential.dist(1.0, shape=3),
            compute_corr=True)
        mu = pm.Normal("mu", 0, 5, shape=3)
        pm.MvNormal("obs", mu=mu, chol=chol, observed=data)
    return m


def dirichlet_compositions():
    rng = _rng(4)
    data = rng.dirichlet([2.0, 5.0, 3.0], size=50)
    with pm.Model() as m:
        conc = pm.Gamma("conc", 2, 0.2)
        frac = pm.Dirichlet("frac", a=np.ones(3))
        pm.Dirichlet("obs", a=conc * frac, observed=data)
    return m


def linalg_marginal_regression():
    """Bayesian linear regression with the weights integrated out, written
    with pm.math linear algebra: y ~ N(0, tau^2 X X' + sigma^2 I)."""
    rng = _rng(5)
    X = rng.normal(size=(30, 4))
    y = X @ [1.0, -0.5, 0.0, 2.0] + rng.normal(0, 0.5, 30)
    with pm.Model() as m:
        tau = pm.HalfNormal("tau", 2)
        sigma = pm.HalfNormal("sigma", 1)
        K = tau**2 * pm.math.dot(X, X.T) + sigma**2 * pt.eye(30)
        L = pt.linalg.cholesky(K)
        alpha = pt.linalg.solve(K, y)
        pm.Potential("loglik", -0.5 * pm.math.dot(y, alpha)
                     - pt.sum(pt.log(pt.diag(L))) - 15 * np.log(2 * np.pi))
    return m


# -- time series --------------------------------------------------------------
def ar2():
    rng = _rng(6)
    y = np.zeros(100)
    for t in range(2, 100):
        y[t] = 0.3 + 0.6 * y[t - 1] - 0.2 * y[t - 2] + rng.normal(0, 0.5)
    with pm.Model() as m:
        rho = pm.Normal("rho", 0, 1, shape=3)
        sigma = pm.HalfNormal("sigma", 1)
        pm.AR("y", rho=rho, sigma=sigma, constant=True,
              init_dist=pm.Normal.dist(0, 10), observed=y)
    return m


def garch11():
    rng = _rng(7)
    r = np.zeros(120)
    s2 = 0.1
    for t in range(1, 120):
        s2 = 0.05 + 0.1 * r[t - 1] ** 2 + 0.8 * s2
        r[t] = rng.normal(0, np.sqrt(s2))
    with pm.Model() as m:
        omega = pm.HalfNormal("omega", 0.5)
        alpha = pm.Beta("alpha", 2, 8)
        beta = pm.Beta("beta", 8, 2)
        s0 = pm.HalfNormal("s0", 1)

        def step(r_prev, s2_prev, omega, alpha, beta):
            return omega + alpha * r_prev**2 + beta * s2_prev

        s2 = pytensor.scan(step, sequences=[pt.as_tensor(r[:-1])],
                           outputs_info=[s0**2],
                           non_sequences=[omega, alpha, beta],
                           return_updates=False)
        pm.Normal("r", 0, pt.sqrt(s2), observed=r[1:])
    return m


def kalman_local_level():
    """A local-level model's likelihood by a Kalman filter in a scan."""
    rng = _rng(8)
    level = np.cumsum(rng.normal(0, 0.3, 80))
    y = level + rng.normal(0, 0.5, 80)
    with pm.Model() as m:
        sigma_level = pm.HalfNormal("sigma_level", 1)
        sigma_obs = pm.HalfNormal("sigma_obs", 1)

        def step(y_t, a, p, q, h):
            p_pred = p + q
            f = p_pred + h
            v = y_t - a
            k = p_pred / f
            ll = -0.5 * (pt.log(2 * np.pi * f) + v**2 / f)
            return a + k * v, p_pred * (1 - k), ll

        _, _, ll = pytensor.scan(
            step, sequences=[pt.as_tensor(y)],
            outputs_info=[pt.as_tensor(np.float64(0.0)),
                          pt.as_tensor(np.float64(10.0)), None],
            non_sequences=[sigma_level**2, sigma_obs**2],
            return_updates=False)
        pm.Potential("loglik", ll.sum())
    return m


def exp_smoothing():
    rng = _rng(9)
    y = 5 + np.cumsum(rng.normal(0, 0.2, 60)) + rng.normal(0, 0.4, 60)
    with pm.Model() as m:
        alpha = pm.Beta("alpha", 2, 2)
        l0 = pm.Normal("l0", y[0], 2)
        sigma = pm.HalfNormal("sigma", 1)

        def step(y_t, level, alpha):
            return alpha * y_t + (1 - alpha) * level

        levels = pytensor.scan(step, sequences=[pt.as_tensor(y[:-1])],
                               outputs_info=[l0], non_sequences=[alpha],
                               return_updates=False)
        pm.Normal("y", mu=levels, sigma=sigma, observed=y[1:])
    return m


def stochastic_volatility():
    rng = _rng(10)
    vol = np.cumsum(rng.normal(0, 0.1, 100)) - 4
    returns = rng.standard_t(8, 100) * np.exp(vol)
    with pm.Model() as m:
        step_size = pm.Exponential("step_size", 10)
        s = pm.GaussianRandomWalk("s", sigma=step_size, shape=100,
                                  init_dist=pm.Normal.dist(0, 10))
        nu = pm.Exponential("nu", 0.1)
        pm.StudentT("r", nu=nu, lam=pm.math.exp(-2 * s), observed=returns)
    return m


# -- mixtures -----------------------------------------------------------------
def normal_mixture3():
    rng = _rng(11)
    data = np.concatenate([rng.normal(-3, 1, 50), rng.normal(0, 0.5, 50),
                           rng.normal(4, 1.5, 50)])
    with pm.Model() as m:
        w = pm.Dirichlet("w", np.ones(3))
        mu = pm.Normal("mu", 0, 10, shape=3,
                       transform=pm.distributions.transforms.ordered,
                       initval=[-2.0, 0.0, 2.0])
        sigma = pm.HalfNormal("sigma", 2, shape=3)
        pm.NormalMixture("x", w=w, mu=mu, sigma=sigma, observed=data)
    return m


def mixture_poisson_negbin():
    rng = _rng(12)
    counts = np.concatenate([rng.poisson(2, 60),
                             rng.negative_binomial(3, 0.2, 40)])
    with pm.Model() as m:
        w = pm.Dirichlet("w", np.ones(2))
        mu1 = pm.Exponential("mu1", 0.5)
        mu2 = pm.Exponential("mu2", 0.1)
        alpha = pm.Exponential("alpha", 1)
        pm.Mixture("y", w=w,
                   comp_dists=[pm.Poisson.dist(mu1),
                               pm.NegativeBinomial.dist(mu=mu2, alpha=alpha)],
                   observed=counts)
    return m


def mixture_normal_studentt():
    rng = _rng(13)
    data = np.concatenate([rng.normal(0, 1, 80), 3 * rng.standard_t(2, 20)])
    with pm.Model() as m:
        w = pm.Dirichlet("w", np.ones(2))
        mu = pm.Normal("mu", 0, 5)
        sigma = pm.HalfNormal("sigma", 2, shape=2)
        nu = pm.Gamma("nu", 2, 0.1)
        pm.Mixture("y", w=w,
                   comp_dists=[pm.Normal.dist(mu, sigma[0]),
                               pm.StudentT.dist(nu=nu, mu=mu, sigma=sigma[1])],
                   observed=data)
    return m


# -- censoring and truncation -------------------------------------------------
def censored_normal():
    rng = _rng(14)
    y = np.clip(rng.normal(1.0, 1.5, 100), -1.0, 2.5)
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 5)
        sigma = pm.HalfNormal("sigma", 3)
        pm.Censored("y", pm.Normal.dist(mu, sigma), lower=-1.0, upper=2.5,
                    observed=y)
    return m


def truncated_normal():
    rng = _rng(15)
    x = rng.normal(1.0, 2.0, 400)
    y = x[(x > 0) & (x < 4)][:100]
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 5)
        sigma = pm.HalfNormal("sigma", 3)
        pm.Truncated("y", pm.Normal.dist(mu, sigma), lower=0.0, upper=4.0,
                     observed=y)
    return m


# -- ordinal ------------------------------------------------------------------
def _ordinal_data(seed):
    rng = _rng(seed)
    x = rng.normal(size=120)
    latent = 1.2 * x + rng.logistic(size=120)
    return x, np.digitize(latent, [-1.0, 0.0, 1.5])


def ordered_logistic():
    x, y = _ordinal_data(16)
    with pm.Model() as m:
        beta = pm.Normal("beta", 0, 2)
        cutpoints = pm.Normal("cutpoints", mu=[-1.0, 0.0, 1.0], sigma=3,
                              transform=pm.distributions.transforms.ordered)
        pm.OrderedLogistic("y", eta=beta * x, cutpoints=cutpoints,
                           observed=y)
    return m


def ordered_probit():
    x, y = _ordinal_data(17)
    with pm.Model() as m:
        beta = pm.Normal("beta", 0, 2)
        cutpoints = pm.Normal("cutpoints", mu=[-1.0, 0.0, 1.0], sigma=3,
                              transform=pm.distributions.transforms.ordered)
        pm.OrderedProbit("y", eta=beta * x, cutpoints=cutpoints, sigma=1.0,
                         observed=y)
    return m


# -- counts -------------------------------------------------------------------
def zero_inflated_poisson():
    rng = _rng(18)
    x = rng.normal(size=100)
    y = np.where(rng.random(100) < 0.3, 0, rng.poisson(np.exp(0.5 + 0.4 * x)))
    with pm.Model() as m:
        psi = pm.Beta("psi", 2, 2)
        a = pm.Normal("a", 0, 2)
        b = pm.Normal("b", 0, 2)
        pm.ZeroInflatedPoisson("y", psi=psi, mu=pm.math.exp(a + b * x),
                               observed=y)
    return m


def hurdle_negative_binomial():
    rng = _rng(19)
    y = np.where(rng.random(100) < 0.4, 0,
                 1 + rng.negative_binomial(2, 0.3, 100))
    with pm.Model() as m:
        psi = pm.Beta("psi", 2, 2)
        mu = pm.Exponential("mu", 0.2)
        alpha = pm.Exponential("alpha", 1)
        pm.HurdleNegativeBinomial("y", psi=psi, mu=mu, alpha=alpha,
                                  observed=y)
    return m


def multinomial_softmax():
    rng = _rng(20)
    n, k = 40, 4
    X = rng.normal(size=(n, 2))
    B = np.array([[0.0, 1.0, -1.0, 0.5], [0.0, -0.5, 0.5, 1.0]])
    p = np.exp(X @ B)
    p /= p.sum(1, keepdims=True)
    counts = np.array([rng.multinomial(20, pi) for pi in p])
    with pm.Model() as m:
        a = pm.Normal("a", 0, 2, shape=k - 1)
        b = pm.Normal("b", 0, 2, shape=(2, k - 1))
        eta = a + pm.math.dot(X, b)
        eta = pt.concatenate([pt.zeros((n, 1)), eta], axis=1)
        pm.Multinomial("y", n=20, p=pm.math.softmax(eta, axis=1),
                       observed=counts)
    return m


def categorical_softmax():
    rng = _rng(21)
    X = rng.normal(size=(150, 3))
    logits = X @ rng.normal(size=(3, 3))
    y = np.array([rng.choice(3, p=np.exp(l) / np.exp(l).sum())
                  for l in logits])
    with pm.Model() as m:
        b = pm.Normal("b", 0, 2, shape=(3, 3))
        pm.Categorical("y", p=pm.math.softmax(pm.math.dot(X, b), axis=1),
                       observed=y)
    return m


def dirichlet_multinomial():
    rng = _rng(22)
    p = rng.dirichlet([5.0, 2.0, 2.0, 1.0], size=30)
    counts = np.array([rng.multinomial(25, pi) for pi in p])
    with pm.Model() as m:
        frac = pm.Dirichlet("frac", a=np.ones(4))
        conc = pm.Lognormal("conc", mu=1, sigma=1)
        pm.DirichletMultinomial("y", n=25, a=frac * conc, observed=counts)
    return m


def negative_binomial_glm():
    rng = _rng(23)
    X = rng.normal(size=(120, 2))
    mu = np.exp(1.0 + X @ [0.5, -0.3])
    y = rng.negative_binomial(3, 3 / (3 + mu))
    with pm.Model() as m:
        intercept = pm.Normal("intercept", 0, 5)
        beta = pm.Normal("beta", 0, 1, shape=2)
        alpha = pm.Exponential("alpha", 0.5)
        mu_ = pm.math.exp(intercept + pm.math.dot(X, beta))
        pm.NegativeBinomial("y", mu=mu_, alpha=alpha, observed=y)
    return m


def poisson_offset_glm():
    rng = _rng(24)
    exposure = rng.uniform(0.5, 5, 100)
    x = rng.normal(size=100)
    y = rng.poisson(exposure * np.exp(-0.5 + 0.8 * x))
    with pm.Model() as m:
        a = pm.Normal("a", 0, 5)
        b = pm.Normal("b", 0, 1)
        pm.Poisson("y", mu=pm.math.exp(np.log(exposure) + a + b * x),
                   observed=y)
    return m


# -- survival -----------------------------------------------------------------
def weibull_survival():
    rng = _rng(25)
    X = rng.normal(size=(100, 2))
    t = rng.weibull(1.5, 100) * np.exp(0.5 + X @ [0.4, -0.3])
    cens = rng.uniform(0.5, 4, 100)
    event = t < cens
    t = np.minimum(t, cens)
    with pm.Model() as m:
        alpha = pm.Gamma("alpha", 2, 1)
        beta = pm.Normal("beta", 0, 1, shape=2)
        b0 = pm.Normal("b0", 0, 2)
        scale = pm.math.exp(b0 + pm.math.dot(X, beta))
        pm.Weibull("t_obs", alpha=alpha, beta=scale[event], observed=t[event])
        # The censored times enter through the Weibull's log survival.
        pm.Potential("t_cens", -pm.math.sum(
            (t[~event] / scale[~event]) ** alpha))
    return m


def exponential_survival():
    rng = _rng(26)
    x = rng.normal(size=80)
    t = rng.exponential(np.exp(0.3 + 0.5 * x))
    cens = np.full(80, 2.0)
    with pm.Model() as m:
        b0 = pm.Normal("b0", 0, 2)
        b1 = pm.Normal("b1", 0, 2)
        lam = pm.math.exp(-(b0 + b1 * x))
        pm.Censored("t", pm.Exponential.dist(lam=lam), lower=None, upper=cens,
                    observed=np.minimum(t, cens))
    return m


# -- regression ---------------------------------------------------------------
def hierarchical_zerosum():
    rng = _rng(27)
    groups = 8
    idx = rng.integers(0, groups, 120)
    x = rng.normal(size=120)
    y = 2.0 + rng.normal(0, 1, groups)[idx] + 0.7 * x + rng.normal(0, 0.5, 120)
    with pm.Model(coords={"group": np.arange(groups)}) as m:
        intercept = pm.Normal("intercept", 0, 5)
        sigma_g = pm.HalfNormal("sigma_g", 2)
        offset = pm.ZeroSumNormal("offset", sigma=sigma_g, dims="group")
        slope = pm.Normal("slope", 0, 2)
        sigma = pm.HalfNormal("sigma", 2)
        pm.Normal("y", intercept + offset[idx] + slope * x, sigma, observed=y)
    return m


def horseshoe_regression():
    rng = _rng(28)
    n, p = 60, 10
    X = rng.normal(size=(n, p))
    y = X @ np.r_[2.0, -1.5, np.zeros(p - 2)] + rng.normal(0, 0.5, n)
    with pm.Model() as m:
        tau = pm.HalfCauchy("tau", 1)
        lam = pm.HalfCauchy("lam", 1, shape=p)
        z = pm.Normal("z", 0, 1, shape=p)
        beta = pm.Deterministic("beta", z * tau * lam)
        sigma = pm.HalfNormal("sigma", 2)
        pm.Normal("y", pm.math.dot(X, beta), sigma, observed=y)
    return m


def _bspline_basis(x, knots, degree=3):
    """Cox-de Boor: the B-spline basis at x on the clamped knots."""
    t = np.r_[[knots[0]] * degree, knots, [knots[-1]] * degree]
    B = ((t[:-1, None] <= x) & (x < t[1:, None])).astype(float)
    B[np.flatnonzero(t[1:] == t[-1])[0] - 1, x == t[-1]] = 1.0
    for d in range(1, degree + 1):
        nb = len(t) - d - 1
        Bn = np.zeros((nb, len(x)))
        for i in range(nb):
            if t[i + d] > t[i]:
                Bn[i] += (x - t[i]) / (t[i + d] - t[i]) * B[i]
            if t[i + d + 1] > t[i + 1]:
                Bn[i] += ((t[i + d + 1] - x) / (t[i + d + 1] - t[i + 1])
                          * B[i + 1])
        B = Bn
    return B.T


def spline_regression():
    rng = _rng(29)
    x = np.sort(rng.uniform(0, 10, 100))
    y = np.sin(x) + 0.1 * x + rng.normal(0, 0.3, 100)
    B = _bspline_basis(x, np.linspace(0, 10, 8))
    with pm.Model() as m:
        a = pm.Normal("a", 0, 5)
        w = pm.Normal("w", 0, 2, shape=B.shape[1])
        sigma = pm.HalfNormal("sigma", 1)
        pm.Normal("y", a + pm.math.dot(B, w), sigma, observed=y)
    return m


def custom_potential():
    """A regression whose coefficients are softly held to sum to one by a
    hand-written pm.Potential, with a Laplace-like penalty too."""
    rng = _rng(30)
    X = rng.normal(size=(80, 4))
    y = X @ [0.4, 0.3, 0.2, 0.1] + rng.normal(0, 0.2, 80)
    with pm.Model() as m:
        w = pm.Normal("w", 0, 1, shape=4)
        sigma = pm.HalfNormal("sigma", 1)
        pm.Potential("sum_to_one", -0.5 * ((w.sum() - 1) / 0.01) ** 2)
        pm.Potential("l1", -pm.math.abs(w).sum())
        pm.Normal("y", pm.math.dot(X, w), sigma, observed=y)
    return m


def studentt_robust():
    rng = _rng(31)
    x = rng.uniform(0, 5, 80)
    y = 1.0 + 2.0 * x + rng.normal(0, 0.5, 80)
    y[::10] += rng.normal(0, 8, 8)
    with pm.Model() as m:
        a = pm.Normal("a", 0, 10)
        b = pm.Normal("b", 0, 10)
        sigma = pm.HalfNormal("sigma", 2)
        nu = pm.Gamma("nu", 2, 0.1)
        pm.StudentT("y", nu=nu, mu=a + b * x, sigma=sigma, observed=y)
    return m


def beta_regression():
    rng = _rng(32)
    x = rng.normal(size=100)
    mu = 1 / (1 + np.exp(-(0.2 + 0.8 * x)))
    y = rng.beta(mu * 20, (1 - mu) * 20)
    with pm.Model() as m:
        a = pm.Normal("a", 0, 2)
        b = pm.Normal("b", 0, 2)
        phi = pm.HalfNormal("phi", 30)
        mu_ = pm.math.invlogit(a + b * x)
        pm.Beta("y", alpha=mu_ * phi, beta=(1 - mu_) * phi, observed=y)
    return m


def gamma_glm():
    rng = _rng(33)
    X = rng.normal(size=(100, 2))
    mu = np.exp(0.5 + X @ [0.3, -0.2])
    y = rng.gamma(4.0, mu / 4.0)
    with pm.Model() as m:
        b0 = pm.Normal("b0", 0, 2)
        beta = pm.Normal("beta", 0, 1, shape=2)
        shape = pm.Gamma("shape", 2, 0.5)
        mu_ = pm.math.exp(b0 + pm.math.dot(X, beta))
        pm.Gamma("y", alpha=shape, beta=shape / mu_, observed=y)
    return m


def von_mises():
    rng = _rng(34)
    angles = rng.vonmises(0.7, 3.0, 80)
    with pm.Model() as m:
        mu = pm.VonMises("mu", mu=0.0, kappa=0.5)
        kappa = pm.Gamma("kappa", 2, 0.5)
        pm.VonMises("y", mu=mu, kappa=kappa, observed=angles)
    return m


def binomial_logit_hierarchical():
    rng = _rng(35)
    n = rng.integers(10, 50, 12)
    theta = 1 / (1 + np.exp(-rng.normal(-0.5, 0.8, 12)))
    y = rng.binomial(n, theta)
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 2)
        sigma = pm.HalfNormal("sigma", 1)
        z = pm.Normal("z", 0, 1, shape=12)
        pm.Binomial("y", n=n, logit_p=mu + sigma * z, observed=y)
    return m


CORPUS = {f.__name__: f for f in [
    gp_marginal, gp_latent, mvnormal_lkj, dirichlet_compositions,
    linalg_marginal_regression, ar2, garch11, kalman_local_level,
    exp_smoothing, stochastic_volatility, normal_mixture3,
    mixture_poisson_negbin, mixture_normal_studentt, censored_normal,
    truncated_normal, ordered_logistic, ordered_probit,
    zero_inflated_poisson, hurdle_negative_binomial, multinomial_softmax,
    categorical_softmax, dirichlet_multinomial, negative_binomial_glm,
    poisson_offset_glm, weibull_survival, exponential_survival,
    hierarchical_zerosum, horseshoe_regression, spline_regression,
    custom_potential, studentt_robust, beta_regression, gamma_glm,
    von_mises, binomial_logit_hierarchical]}
