"""The profile's time by model variable (graphjit.pytensor.terms, through
graphjit.pymc): each Apply of a model's log-density and gradient charged
to the random variables and Potentials it works for, checked against what
the model's structure says must be so."""
import contextlib
import io
import json

import numpy as np
import pytest

pm = pytest.importorskip("pymc")
pytest.importorskip("nutpie")

import graphjit  # noqa: E402
import graphjit.pymc as gjpymc  # noqa: E402

N_OBS, N_FREE = 200, 50


def _model():
    """A regression (y) whose coefficients' priors are scalars, a vector
    variable that nothing else reads (z: its prior's Applies are its own
    alone), and a Potential on b."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=N_OBS)
    with pm.Model() as model:
        a = pm.Normal("a", 0, 1)
        b = pm.Normal("b", 0, 1)
        sigma = pm.HalfNormal("sigma", 1)
        pm.Normal("z", 0, 1, shape=N_FREE)
        pm.Potential("b_near_one", -((b - 1) ** 2))
        pm.Normal("y", a + b * x, sigma, observed=1 + 2 * x
                  + rng.normal(size=N_OBS))
    return model


def _logp_applies(compiled, calls=20):
    point = np.random.default_rng(0).normal(size=compiled.n_dim) * 0.1
    for _ in range(calls):
        compiled.logp_func(point)
    data = json.loads(compiled.profile.to_json())
    (logp,) = [f for f in data["functions"] if f["name"] == "logp"]
    return logp["applies"]


def _shapes(apply):
    return [tuple(t["shape"]) for t in apply.get("outputs", [])]


@pytest.fixture(scope="module")
def profiled():
    compiled = gjpymc.compile_pymc_model(_model(), profile=True)
    return compiled, _logp_applies(compiled)


def test_every_term_is_named_and_nothing_else(profiled):
    _, applies = profiled
    named = {t for a in applies for t in a.get("terms", [])}
    assert named == {"a", "b", "sigma", "z", "y", "b_near_one"}


def test_per_observation_work_is_the_likelihoods(profiled):
    # Only y's log-density (and its gradient) computes arrays of one value
    # per observation; only z's prior arrays of z's length.
    _, applies = profiled
    per_obs = [a for a in applies if (N_OBS,) in _shapes(a)]
    per_z = [a for a in applies if (N_FREE,) in _shapes(a)]
    assert per_obs and per_z
    for a in per_obs:
        assert a["terms"] == ["y"], a["name"]
    for a in per_z:
        assert a["terms"] == ["z"], a["name"]
    # z's prior: its value and its gradient (-z) apart.
    assert {a.get("gradient", False) for a in per_z} == {False, True}


def test_gradient_applies_are_the_ones_the_value_does_not_read(profiled):
    compiled, applies = profiled
    gj = compiled.logp_func.vm.graphjit_function
    translation = compiled.logp_func.vm.translation
    fgraph = compiled.logp_func.maker.fgraph
    density, gradient = fgraph.outputs
    outputs = {a["id"]: a["outputs"] for a in gj.applies()}
    computes = {a["id"]: {translation.variable_of.get(i)
                          for i in outputs[a["id"]]} for a in applies}
    # The log-density's Apply computes the value, the gradient's Apply
    # (the join of every variable's gradient) the gradient.
    (value_apply,) = [a for a in applies if density in computes[a["id"]]]
    (grad_apply,) = [a for a in applies if gradient in computes[a["id"]]]
    assert not value_apply.get("gradient")
    assert grad_apply.get("gradient")
    assert value_apply["terms"] == grad_apply["terms"] == \
        sorted({"a", "b", "sigma", "z", "y", "b_near_one"})


def _rows(section):
    """(value seconds, gradient seconds, applies, name) of each row."""
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines)
                 if line.startswith("<% time>")) + 1
    rows = []
    for line in lines[start:]:
        if not line.strip() or line.strip().startswith("..."):
            break
        f = line.split()
        rows.append((float(f[2][:-1]), float(f[3][:-1]), int(f[5]),
                     " ".join(f[6:])))
    return rows


def test_the_report_has_the_section(profiled):
    compiled, applies = profiled
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        compiled.profile.summary()
    text = out.getvalue()
    rows = _rows(text[text.index("Time by model variable"):])
    names = [r[3] for r in rows]
    assert "y" in names and "z" in names
    assert all(n.startswith("shared: ") for n in names if "," in n)
    # Each Apply is in one row, its time in the row's value or gradient.
    assert sum(r[2] for r in rows) == len(applies)
    total = sum(a["seconds"] for a in applies)
    assert sum(r[0] + r[1] for r in rows) == pytest.approx(total, rel=0.02)
    gradient = sum(a["seconds"] for a in applies if a.get("gradient"))
    assert sum(r[1] for r in rows) == pytest.approx(gradient, rel=0.02)


def test_labels_change_nothing_that_runs():
    model = _model()
    plain = gjpymc.compile_pymc_model(model)
    labelled = gjpymc.compile_pymc_model(model, profile=True)

    def ops(compiled):
        return [str(n.op) for n in
                compiled.logp_func.maker.fgraph.toposort()]
    assert ops(plain) == ops(labelled)
    point = np.random.default_rng(1).normal(size=plain.n_dim)
    for want, got in zip(plain.logp_func(point), labelled.logp_func(point)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    # The model is as it was: logp() is its own method again.
    assert "logp" not in vars(model)


def test_a_sampling_run_charges_every_chain():
    stats = graphjit.ProfileStats("by variable")
    compiled = gjpymc.compile_pymc_model(_model(), profile=stats)
    import nutpie
    nutpie.sample(compiled, seed=2, tune=50, draws=50, chains=2, cores=2,
                  progress_bar=False)
    data = json.loads(stats.to_json())
    (logp,) = [f for f in data["functions"] if f["name"] == "logp"]
    likelihood = [a for a in logp["applies"] if a.get("terms") == ["y"]]
    assert likelihood
    assert all(a["calls"] == logp["calls"] for a in likelihood
               if a["calls"])


def test_pm_sample_through_profile_by_variable():
    model = _model()
    stats = graphjit.ProfileStats("pm.sample")
    with gjpymc.profile_by_variable(model, stats) as mode:
        trace = pm.sample(model=model, draws=40, tune=40, chains=1, cores=1,
                          progressbar=False, random_seed=5,
                          compute_convergence_checks=False,
                          compile_kwargs={"mode": mode})
    assert "logp" not in vars(model)
    data = json.loads(stats.to_json())
    (logp,) = [f for f in data["functions"] if f["name"] == "logp"]
    steps = int(trace.sample_stats.n_steps.sum())
    assert logp["calls"] >= steps
    applies = logp["applies"]
    assert {t for a in applies for t in a.get("terms", [])} == \
        {"a", "b", "sigma", "z", "y", "b_near_one"}
    for a in applies:
        if (N_OBS,) in _shapes(a):
            assert a["terms"] == ["y"], a["name"]
        if (N_FREE,) in _shapes(a):
            assert a["terms"] == ["z"], a["name"]
    with pytest.raises(TypeError, match="profile: expected a graphjit"):
        with gjpymc.profile_by_variable(model, True):
            pass


def test_a_trace_of_a_sampling_run_has_a_track_per_chain(tmp_path):
    # A process of its own: the timeline is the process's, written once.
    import os
    import subprocess
    import sys
    path = tmp_path / "run.json"
    script = (
        "import sys; sys.path.insert(0, %r)\n"
        "import nutpie, graphjit.pymc\n"
        "from test_pymc_terms import _model\n"
        "compiled = graphjit.pymc.compile_pymc_model(_model())\n"
        "nutpie.sample(compiled, chains=2, cores=2, tune=30, draws=30,\n"
        "              progress_bar=False, seed=3)\n"
        % os.path.dirname(__file__))
    env = dict(os.environ, GRAPHJIT_FLAGS="profiling__trace=%s" % path)
    subprocess.run([sys.executable, "-c", script], env=env, check=True,
                   timeout=600)
    events = json.loads(path.read_text())["traceEvents"]
    tracks = {e["tid"]: e["args"]["name"] for e in events
              if e.get("name") == "thread_name" and e["pid"] == 1}
    calls = {}
    for e in events:
        if e.get("cat") == "call":
            calls[e["tid"]] = calls.get(e["tid"], 0) + 1
    # Each chain ran in a thread of nutpie's, named on its track.
    chains = [tid for tid in calls if "nutpie" in tracks[tid]]
    assert len(chains) == 2, (tracks, calls)
    assert all(calls[tid] > 30 for tid in chains)
