"""PyTensor's own report of a GRAPHJIT function: every node's output shapes
reach its ProfileStats, so that its memory profile prints, whatever number
of graphjit Applies a node became (a multi-output Composite is one Apply
per output; an increment on axis 1 is views around inc_rows)."""
import io
import json

import numpy as np
import pytest

pytensor = pytest.importorskip("pytensor")
import pytensor.tensor as pt  # noqa: E402

import graphjit.pytensor as gjp  # noqa: E402


def test_every_output_has_its_shape_and_the_memory_profile_prints():
    x = pt.dmatrix("x")
    v = pt.dvector("v")
    e = pt.exp(x)
    outs = [e + 1, e * 2 + x, pt.inc_subtensor(x[:, 1], v)]
    with pytensor.config.change_flags(profile_memory=True):
        f = pytensor.function([x, v], outs, mode="GRAPHJIT", profile=True)
        for _ in range(3):
            got = f(np.ones((3, 2)), np.arange(3.0))
        np.testing.assert_allclose(got[2][:, 1], 1 + np.arange(3.0))
        assert any(len(n.outputs) > 1 for n in f.maker.fgraph.toposort()), \
            "the test wants a multi-output Composite"
        gjp.sync_profile(f)
        stats = f.profile
        for node in f.maker.fgraph.toposort():
            for var in node.outputs:
                assert var in stats.variable_shape, (node, var)
        out = io.StringIO()
        stats.summary(file=out)
    assert "Memory Profile" in out.getvalue()


def test_profiles_at_exit_print_without_a_traceback():
    # Two profiled functions of other modes besides GRAPHJIT's, as
    # pm.sample makes: PyTensor's sum of them at exit fails in 2.38 and
    # 3.0 (rewriter_time); graphjit's exit hook leaves that sum out.
    import os
    import subprocess
    import sys
    import textwrap
    script = textwrap.dedent("""
        import numpy as np, pytensor, pytensor.tensor as pt
        x = pt.dvector("x")
        for mode in ("GRAPHJIT", "FAST_COMPILE", "FAST_RUN"):
            f = pytensor.function([x], (x * 2).sum(), mode=mode,
                                  profile=True)
            f(np.arange(3.0))
        print("ran")
    """)
    env = dict(os.environ, PYTENSOR_FLAGS="profile=True")
    r = subprocess.run([sys.executable, "-c", script], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "ran" in r.stdout
    assert "Traceback" not in r.stderr and "Exception ignored" not in \
        r.stderr, r.stderr[-2000:]
    assert r.stderr.count("Function profiling") + \
        r.stdout.count("Function profiling") >= 3


def test_profile_memory_flag_turns_on_graphjits_measured_memory():
    x = pt.dvector("x")
    with pytensor.config.change_flags(profile_memory=True):
        f = pytensor.function([x], (pt.exp(x) * 2).sum(), mode="GRAPHJIT",
                              profile=True)
        f(np.arange(1000.0))
    out = io.StringIO()
    gjp.summary(f, file=out)
    text = out.getvalue()
    assert "memory profile above is measured" in text
    data = gjp.renamed_profile(f.vm.jit_fn if hasattr(f, "vm") else
                               f.fn.jit_fn).data
    assert any(fn.get("memory", {}).get("recorded") for fn in
               data["functions"])
    # Without the flag, no measured memory.
    g = pytensor.function([x], (pt.exp(x) * 2).sum(), mode="GRAPHJIT",
                          profile=True)
    g(np.arange(1000.0))
    out = io.StringIO()
    gjp.summary(g, file=out)
    assert "memory profile above is measured" not in out.getvalue()


def test_rows_point_at_the_users_line():
    import inspect
    # Where PyTensor keeps the trace through its rewrites (its fusion of
    # Elemwise nodes drops it).
    a = pt.dmatrix("a")
    y = pt.linalg.cholesky(a)  # the line the row must cite
    line = inspect.currentframe().f_lineno - 1
    f = pytensor.function([a], y, mode="GRAPHJIT", profile=True)
    f(np.eye(3) * 4)
    runner = f.vm.jit_fn if hasattr(f, "vm") else f.fn.jit_fn
    locs = [a["loc"] for fn in gjp.renamed_profile(runner).data["functions"]
            for a in fn["applies"]]
    assert any("test_profile_bridge.py:%d" % line in loc for loc in locs), \
        locs


def test_a_node_of_several_applies_is_one_row():
    """A Composite of several outputs (one graphjit composite per output,
    and a costly part computed apart) is one row of the report, with the
    node's inputs and outputs, its time the sum of its Applies'; each
    row's id is its node's index, as "node k" says."""
    x, y = pt.vector("x"), pt.vector("y")
    e = pt.erfcx(x)
    lg = pt.log(e + y)
    f = pytensor.function([x, y], [e * y, lg - x, pt.switch(x > 0, lg, e)],
                          mode="GRAPHJIT", profile=True)
    for _ in range(3):
        f(np.linspace(-1, 1, 20), np.ones(20))
    runner = f.vm.jit_fn if hasattr(f, "vm") else f.fn.jit_fn
    raw = json.loads(runner.function.profile.to_json())["functions"][0]
    rows = gjp.renamed_profile(runner).data["functions"][0]["applies"]
    nodes = f.maker.fgraph.toposort()
    multi = [k for k, n in enumerate(nodes) if len(n.outputs) > 1]
    assert multi, "the test wants a multi-output Composite"
    assert len(raw["applies"]) > len(rows)
    for k, node in enumerate(nodes):
        mine = [r for r in rows if r["loc"].startswith("node %d" % k)]
        assert len(mine) == 1, (k, [r["name"] for r in mine])
        assert mine[0]["id"] == k  # one numbering: PyTensor's
        if k in multi:
            assert len(mine[0]["outputs"]) == len(node.outputs)
            assert len(mine[0]["inputs"]) == len(node.inputs)
    assert sum(r["seconds"] for r in rows) == \
        pytest.approx(sum(a["seconds"] for a in raw["applies"]))


def test_a_gemm_row_shows_its_five_inputs():
    """graphjit's Gemm takes alpha and beta as attributes; the report's row
    lists the node's five inputs as PyTensor does, the constants in their
    places."""
    x, y, z = pt.dmatrix("x"), pt.dmatrix("y"), pt.dmatrix("z")
    f = pytensor.function([x, y, z], z * 0.7 + 0.5 * (x @ y),
                          mode="GRAPHJIT", profile=True)
    [node] = [n for n in f.maker.fgraph.toposort()
              if type(n.op).__name__ == "Gemm"]
    f(np.ones((4, 3)), np.ones((3, 2)), np.ones((4, 2)))
    runner = f.vm.jit_fn if hasattr(f, "vm") else f.fn.jit_fn
    [row] = [r for r in gjp.renamed_profile(runner).data["functions"][0]
             ["applies"] if r["op_class"] == "Gemm"]
    shapes = [tuple(i["shape"]) for i in row["inputs"]]
    assert len(shapes) == len(node.inputs) == 5
    assert shapes == [(4, 2), (), (4, 3), (3, 2), ()]


def test_compile_section_names_pytensors_steps():
    import time
    x = pt.dvector("x")
    start = time.perf_counter()
    f = pytensor.function([x], pt.exp(x).sum() + x.mean(), mode="GRAPHJIT",
                          profile=True)
    whole = time.perf_counter() - start
    f(np.ones(4))
    runner = f.vm.jit_fn if hasattr(f, "vm") else f.fn.jit_fn
    (fn,) = json.loads(runner.function.profile.to_json())["functions"]
    host = {h["step"]: h["seconds"] for h in fn["compile"]["host"]}
    assert list(host) == ["PyTensor rewrites", "translation to graphjit"]
    # Each step is a part of the compile, and PyTensor's rewrites took what
    # its own counter says (f.profile.rewriting_time, its measure).
    assert all(0 < s < whole for s in host.values())
    assert host["PyTensor rewrites"] == pytest.approx(
        f.profile.rewriting_time, rel=0.5, abs=2e-3)
    out = io.StringIO()
    gjp.summary(f, file=out)
    assert "Compile time before graphjit:" in out.getvalue()
    assert "    PyTensor rewrites: " in out.getvalue()


def test_python_fallbacks_section_says_why_each_node_is_py():
    """A node that runs PyTensor's perform (hyp2f1, which graphjit has no
    kernel for) is listed in the report's "Python fallbacks" section with
    its share of the time, its calls, its line and the reason; coverage()
    has the same as data."""
    import inspect
    x = pt.dvector("x")
    slow = pt.hyp2f1(1.0, 2.0, 3.0, pt.sigmoid(x))  # the Py node's line
    line = inspect.currentframe().f_lineno - 1
    f = pytensor.function([x], slow + pt.exp(x).sum(), mode="GRAPHJIT",
                          profile=True)
    for _ in range(7):
        f(np.linspace(-1, 1, 50))
    [py] = gjp.coverage(f)["py_nodes"]
    assert "Hyp2F1" in py["reason"] and py["calls"] == 7
    assert 0 < py["time"] <= 1 and py["seconds"] > 0
    assert py["line"].endswith("test_profile_bridge.py:%d" % line)
    out = io.StringIO()
    gjp.summary(f, file=out)
    text = out.getvalue()
    section = text[text.index("Python fallbacks"):]
    row = section.splitlines()[3]
    assert "node %d" % py["node"] in row and "Hyp2f1" in row
    assert "no graphjit kernel for the scalar op Hyp2F1" in row
    assert "%.1f%%" % (100 * py["time"]) in row
    # Every node C: no section.
    g = pytensor.function([x], pt.exp(x).sum(), mode="GRAPHJIT", profile=True)
    g(np.ones(3))
    out = io.StringIO()
    gjp.summary(g, file=out)
    assert "Python fallbacks" not in out.getvalue()
