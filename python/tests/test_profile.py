"""Profiles from Python: Theano's summary, shared ProfileStats, the flags,
and profiles as data (JSON, rows, merge, diff)."""
import io
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import graphjit
from conftest import EXAMPLES, ROOT


def run_steps(m, fn, calls, rng, **kw):
    f = m.function(fn, **kw)
    x = rng.normal(size=(16, 784))
    y = (rng.random(16) > 0.5).astype(np.float64)
    for _ in range(calls):
        f(x, y) if fn == "train" else f(x)
    return f


def test_summary_prints_theano_report_per_apply(rng):
    m = graphjit.load(EXAMPLES / "logistic_regression.graph")
    f = run_steps(m, "train", 4, rng, profile=True)
    out = io.StringIO()
    f.profile.summary(file=out)
    text = out.getvalue()
    assert "Function profiling" in text and "Message: train" in text
    assert "Time in 4 calls to Function.__call__" in text
    for section in ("Class\n---", "Ops\n---", "Apply\n------"):
        assert section in text
    # Every Apply of the function is a row of the data, all compiled, and
    # each ran once per call.
    rows = f.profile.profile().rows()
    assert len(rows) == len(f.applies())
    assert {r.type for r in rows} == {"C"}
    assert all(r.calls == 4 for r in rows)
    assert all(r.seconds >= 0 for r in rows)
    gemm = [r for r in rows if r.op_class == "Gemm"]
    assert gemm and gemm[0].flops_per_call > 0 and gemm[0].mflops > 0


def test_unprofiled_function_has_no_profile():
    m = graphjit.load(EXAMPLES / "logistic_regression.graph")
    assert m.function("predict").profile is None


def test_one_profile_stats_for_several_functions(rng):
    m = graphjit.load(EXAMPLES / "logistic_regression.graph")
    stats = graphjit.ProfileStats("both")
    run_steps(m, "train", 3, rng, profile=stats)
    run_steps(m, "predict", 2, rng, profile=stats)
    text = stats.summary_text()
    assert text.startswith("Profile: both")
    assert "Message: train" in text and "Message: predict" in text
    assert "Sum of all(2) printed profiles" in text
    fns = stats.profile().functions
    assert [(f["name"], f["calls"]) for f in fns] == [("train", 3),
                                                      ("predict", 2)]


def test_named_profile():
    m = graphjit.load(EXAMPLES / "logistic_regression.graph")
    f = m.function("predict", profile="my predictions")
    f(np.ones((2, 784)))
    assert f.profile.name == "my predictions"
    assert "Profile: my predictions" in f.profile.summary_text()


def test_profile_memory_and_optimizer_sections(rng):
    m = graphjit.load(EXAMPLES / "mlp.graph")
    f = m.function("train", profile_memory=True, profile_optimizer=True)
    x = rng.normal(size=(8, 784)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 8)]
    f(x, y)
    text = f.profile.summary_text(min_memory_size=0)
    assert "Memory Profile" in text and "Optimizer Profile" in text
    fn = f.profile.profile().functions[0]
    assert fn["memory"]["recorded"] and fn["memory"]["measured_peak"] > 0


def test_json_round_trip_merge_and_diff(tmp_path, rng):
    m = graphjit.load(EXAMPLES / "logistic_regression.graph")
    a = run_steps(m, "train", 2, rng, profile=True).profile.profile()
    b = run_steps(m, "train", 3, rng, profile=True).profile.profile()
    path = tmp_path / "a.json"
    a.save(path)
    back = graphjit.Profile.load(path)
    assert back.data == a.data
    assert json.loads(path.read_text())["graphjit_profile"] == 3
    merged = graphjit.merge(a, b, names=["a", "b"])
    assert merged.functions[0]["calls"] == 5
    rows = {r.id: r.calls for r in merged.rows()}
    assert set(rows.values()) == {5}
    assert (a + b).data == merged.data
    text = graphjit.diff_text(a, b, "first", "second")
    # diff() prints the same text, as summary() prints the report.
    out = io.StringIO()
    assert graphjit.diff(a, b, "first", "second", file=out) is None
    assert out.getvalue() == text
    assert "first" in text and "second" in text
    assert str(a).startswith("Function profiling")


def test_bad_profile_json_says_where(tmp_path):
    with pytest.raises(ValueError, match=r"bad.json.*graphjit_profile"):
        graphjit.Profile.loads('{"functions": []}', "bad.json")


FLAGS_SCRIPT = """
import numpy as np, graphjit
m = graphjit.load(%r)
t = m.function("train")
p = m.function("predict")
x = np.ones((4, 784)); y = np.ones(4)
t(x, y); t(x, y); p(x)
print("script done", flush=True)
"""


def test_graphjit_flags_profile_prints_each_function_and_the_sum_at_exit(
        tmp_path):
    script = tmp_path / "script.py"
    script.write_text(FLAGS_SCRIPT % str(EXAMPLES / "logistic_regression.graph"))
    env = dict(os.environ,
               GRAPHJIT_FLAGS="profile=True,profiling__destination=stdout")
    p = subprocess.run([sys.executable, str(script)], capture_output=True,
                       text=True, env=env, cwd=tmp_path, timeout=300)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert out.index("script done") < out.index("Function profiling")
    assert "Message: train" in out and "Message: predict" in out
    assert "Time in 2 calls to Function.__call__" in out
    assert "Sum of all(2) printed profiles at exit" in out


TRACE_SCRIPT = """
import json, sys, numpy as np, graphjit
m = graphjit.load(%r)
graphjit.trace(sys.argv[1], events=%d)
t = m.function("train", optimizer="None")
x = np.ones((4, 784)); y = np.ones(4)
for _ in range(3):
    t(x, y)
"""


@pytest.mark.parametrize("events,kept", [(1000000, None), (10, 10)])
def test_trace_writes_a_timeline_with_a_slice_per_apply_per_call(
        tmp_path, events, kept):
    # In a process of its own: the trace is the process's, written at exit.
    script = tmp_path / "trace.py"
    script.write_text(TRACE_SCRIPT %
                      (str(EXAMPLES / "logistic_regression.graph"), events))
    out = tmp_path / "trace.json"
    p = subprocess.run([sys.executable, str(script), str(out)],
                       capture_output=True, text=True, cwd=tmp_path,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    trace = json.loads(out.read_text())
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    calls = [e for e in slices if e["cat"] == "call"]
    applies = [e for e in slices if e["cat"] == "apply"]
    if kept is None:
        assert len(calls) == 3 and all(e["name"] == "train (call)"
                                       for e in calls)
        ids = {e["args"]["id"] for e in applies}
        assert len(applies) == 3 * len(ids)
        assert all(sum(1 for e in applies if e["args"]["id"] == i) == 3
                   for i in ids)
        assert trace["otherData"]["dropped"] == 0
    else:
        assert len(slices) == kept
        assert trace["otherData"]["dropped"] > 0
    assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in slices)


def test_distributions_keep_the_first_call_apart_and_tell_noise(rng):
    m = graphjit.load(EXAMPLES / "logistic_regression.graph")
    f = run_steps(m, "train", 12, rng, profile_distributions=True)
    p = f.profile.profile()
    keys = ["min", "p25", "median", "p75", "p90", "max"]
    for row in p.rows():
        assert row.calls == 12 and row.first_call_seconds is not None
        d = row.distribution
        assert d["calls"] == 11, (row.name, d)
        assert [d[k] for k in keys] == sorted(d[k] for k in keys)
    assert "Apply time per call (steady state" in str(p)
    # A profile against itself is all noise; without distributions the
    # diff says it cannot tell.
    assert "Noise: no significant change" in graphjit.diff_text(p, p)
    plain = run_steps(m, "train", 2, rng, profile=True).profile.profile()
    assert all(r.distribution is None for r in plain.rows())
    assert "Noise: unknown" in graphjit.diff_text(plain, p)


def scaled_run(profile, factors):
    """A copy of profile as another run would be: each Apply's times (and
    its distribution's buckets) times factors[Apply id]."""
    data = json.loads(json.dumps(profile.data))
    for a in data["functions"][0]["applies"]:
        k = factors[a["id"]]
        a["seconds"] *= k
        d = a["distribution"]
        for key in ["min", "p25", "median", "p75", "p90", "max"]:
            d[key] *= k
        d["buckets"] = [[lo * k, hi * k, n] for lo, hi, n in d["buckets"]]
    return graphjit.Profile(data)


def test_diff_of_merged_runs_is_mann_whitney_on_their_medians(rng):
    from scipy.stats import mannwhitneyu
    m = graphjit.load(EXAMPLES / "logistic_regression.graph")
    p = run_steps(m, "train", 12, rng, profile_distributions=True).profile.profile()
    n = len(p.rows())
    # Runs whose medians scatter (A), and the same with every Apply 1.1 to
    # 1.6 times slower on average (B).
    side_a = rng.uniform(0.8, 1.2, size=(6, n))
    side_b = side_a[:5] * rng.uniform(1.0, 1.8, size=(5, n))
    a = graphjit.merge(*[scaled_run(p, f) for f in side_a])
    b = graphjit.merge(*[scaled_run(p, f) for f in side_b])
    text = graphjit.diff_text(a, b, n_rows=n)
    # Lists of runs are merged by diff itself.
    assert graphjit.diff_text([scaled_run(p, f) for f in side_a],
                         [scaled_run(p, f) for f in side_b], n_rows=n) == text
    with pytest.raises(ValueError, match="diff: b is an empty list of runs"):
        graphjit.diff_text(a, [])
    assert "Tested between runs: 6 runs of A against 5" in text
    import re
    rows = re.findall(r"(changed|noise) +train: (.*?)  \[median per call "
                      r"([0-9.e+-]+)s -> ([0-9.e+-]+)s; runs 6 -> 5, "
                      r"p=([0-9.e+-]+)\]", text)
    assert len(rows) == n, text
    by_name = {r.name: r.id for r in p.rows()}
    base = {r.id: r.distribution["median"] for r in p.rows()}
    for status, name, med_a, med_b, shown_p in rows:
        i = by_name[name]
        runs_a, runs_b = base[i] * side_a[:, i], base[i] * side_b[:, i]
        want = mannwhitneyu(runs_a, runs_b, alternative="two-sided",
                            method="exact").pvalue
        assert float(shown_p) == pytest.approx(want, rel=5e-3), name  # %.3g
        assert float(med_a) == pytest.approx(np.median(runs_a), rel=1e-2)
        assert float(med_b) == pytest.approx(np.median(runs_b), rel=1e-2)
        moved = abs(np.median(runs_b) - np.median(runs_a))
        floor = 1e-9 * p.data["functions"][0]["instrumentation_ns_per_apply"]
        big = moved > max(0.12 * max(np.median(runs_a), np.median(runs_b)),
                          floor)
        # Where times differ at all, the status is the test's verdict.
        assert (status == "changed") == (want < 0.05 and big), (name, want)
    assert {r[0] for r in rows} == {"changed", "noise"}, text


def test_plot_draws_the_profile_as_svg(tmp_path, rng):
    import re
    import xml.etree.ElementTree as ET
    m = graphjit.load(EXAMPLES / "logistic_regression.graph")
    f = run_steps(m, "train", 4, rng, profile_memory=True,
                  profile_distributions=True)
    p = f.profile.profile()
    path = tmp_path / "p.html"
    p.plot(path, n_apply=5)
    page = path.read_text()
    charts = [ET.fromstring(s) for s in re.findall(r"<svg .*?</svg>", page, re.S)]
    assert [c.get("class") for c in charts] == [
        "bars", "bars", "distributions", "memory"]
    ns = "{http://www.w3.org/2000/svg}"
    assert len(charts[1].findall(ns + "g")) == 5  # n_apply rows of Applies
    assert len(charts[3].findall(ns + "rect")) == len(p.rows())


def test_sampling_mode_counts_calls_exactly_and_says_so(rng):
    m = graphjit.load(EXAMPLES / "logistic_regression.graph")
    f = run_steps(m, "train", 5, rng, profile=True, profile_mode="sample")
    p = f.profile.profile()
    assert p.functions[0]["clock"].startswith("sampled every")
    assert {r.calls for r in p.rows()} == {5}
    with pytest.raises(ValueError, match="profile_mode"):
        m.function("train", profile=True, profile_mode="fast")


def test_sampling_goes_on_in_a_forked_child(rng):
    # A child after fork() has none of its parent's threads, the sampler
    # included: it starts one of its own (docs/profiling.md, "Sampling").
    f = graphjit.loads("""
func f(x: f64[n], y: f64[n], z: f64[n]) -> (out) {
  out = mul(add(add(x, y), z), 2.0)
}""").function("f", profile=True, profile_mode="sample")
    x, y, z = rng.normal(size=(3, 100000))
    f(x, y, z)  # The parent's sampler runs.
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            seconds = lambda: sum(r.seconds for r in f.profile.profile().rows())
            before = seconds()
            deadline = time.monotonic() + 20
            while code and time.monotonic() < deadline:
                for _ in range(20):
                    f(x, y, z)
                if seconds() > before:
                    code = 0
        finally:
            os._exit(code)
    # A child that waits forever on a lock inherited held is killed.
    deadline = time.monotonic() + 60
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    if not done:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child never finished its sampled calls")
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, \
        "the forked child's sampled calls were charged no time"
