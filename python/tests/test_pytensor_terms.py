"""Term labels on a PyTensor graph without PyMC (graphjit.pytensor.terms):
a log-density written as a sum of two terms, labelled before its gradient
is taken, compiled in a labelling GRAPHJIT mode; the profile charges each
Apply to the term whose arrays it computes."""
import json

import numpy as np
import pytensor
import pytensor.tensor as pt

import graphjit
from graphjit.pymc import _labelling_mode
from graphjit.pytensor import GraphjitLinker, terms


def _density():
    x = pt.vector("x", shape=(100,))
    mu = pt.scalar("mu")
    prior = -0.5 * mu ** 2
    likelihood = -0.5 * (x - mu) ** 2
    sums = [prior.sum(), likelihood.sum()]
    terms.label_factors(sums, ["mu", "x"])
    logp = sums[0] + sums[1]
    terms.mark_density(logp, ["mu", "x"])
    return x, mu, logp


def test_terms_reach_the_profile():
    x, mu, logp = _density()
    stats = graphjit.ProfileStats("terms")
    mode = _labelling_mode(GraphjitLinker(profile_stats=stats))
    f = pytensor.function([x, mu], [logp, pytensor.grad(logp, mu)],
                          mode=mode)
    xs = np.linspace(-1, 1, 100)
    value, grad = f(xs, 0.3)
    np.testing.assert_allclose(value, -0.5 * 0.09 - 0.5 * ((xs - 0.3) ** 2)
                               .sum())
    np.testing.assert_allclose(grad, -0.3 + (xs - 0.3).sum())
    (fn,) = json.loads(stats.to_json())["functions"]
    labelled = [a for a in fn["applies"] if a.get("terms")]
    assert labelled
    for a in labelled:
        assert set(a["terms"]) <= {"mu", "x"}
        if any(t["shape"] == [100] for t in a.get("outputs", [])):
            assert a["terms"] == ["x"], a["name"]
    assert any(a.get("gradient") for a in labelled)


def test_unlabelled_functions_get_no_terms():
    a = pt.vector("a")
    stats = graphjit.ProfileStats("plain")
    mode = _labelling_mode(GraphjitLinker(profile_stats=stats))
    f = pytensor.function([a], (a ** 2).sum(), mode=mode)
    f(np.ones(3))
    (fn,) = json.loads(stats.to_json())["functions"]
    assert not any(a.get("terms") for a in fn["applies"])
