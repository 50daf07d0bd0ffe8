"""graphjit.pytensor: PyTensor functions in mode GRAPHJIT equal PyTensor's
own (its default mode), shared-variable updates included, over several
calls; Py fallbacks, errors and profiles."""
import io
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytensor = pytest.importorskip("pytensor")
import pytensor.tensor as pt  # noqa: E402
from pytensor.graph.basic import Apply  # noqa: E402
from pytensor.graph.op import Op  # noqa: E402

import graphjit  # noqa: E402
import graphjit.pytensor as gjp  # noqa: E402

RNG = np.random.default_rng(0)


def both(inputs, outputs, updates_of=None, **kw):
    """The function compiled in GRAPHJIT and in PyTensor's default mode,
    each with its own shared variables (made by updates_of())."""
    fs = []
    for mode in ("GRAPHJIT", None):
        shared, updates = updates_of() if updates_of else ([], [])
        f = pytensor.function(inputs, outputs(*shared) if shared else outputs,
                              updates=updates(*shared) if shared else [],
                              mode=mode, **kw)
        fs.append((f, shared))
    return fs


def check_same(fs, args_list, rtol=1e-7, atol=1e-9):
    (fg, sg), (fr, sr) = fs
    for args in args_list:
        got, want = fg(*args), fr(*args)
        if not isinstance(got, list):
            got, want = [got], [want]
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
        for a, b in zip(sg, sr):
            np.testing.assert_allclose(a.get_value(), b.get_value(),
                                       rtol=rtol, atol=atol)


def test_mode_registered():
    from pytensor.compile.mode import get_mode
    assert isinstance(get_mode("GRAPHJIT").linker, gjp.GraphjitLinker)


def test_elemwise_and_reductions():
    x = pt.dmatrix("x")
    y = pt.dvector("y")
    outs = [pt.exp(x) * 2 + pt.log1p(x ** 2) - y,
            (pt.sigmoid(x) + pt.tanh(y)).sum(axis=0),
            pt.maximum(x, 0.5).max(axis=1),
            pt.switch(x > 0.5, x, -x).prod(),
            pt.cast(x * 10, "int32") // 3,
            x.T[1:, :2]]
    f = pytensor.function([x, y], outs, mode="GRAPHJIT")
    r = pytensor.function([x, y], outs)
    for _ in range(3):
        args = RNG.random((4, 3)), RNG.random(3)
        for g, w in zip(f(*args), r(*args), strict=True):
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=1e-12)
    assert gjp.coverage(f)["applies"] > 0.5


def logistic_regression():
    def shared():
        return [pytensor.shared(np.zeros(5), name="w"),
                pytensor.shared(0.0, name="b")]
    x = pt.dmatrix("x")
    y = pt.dvector("y")

    def cost(w, b):
        p = pt.sigmoid(x @ w + b)
        return pt.mean(-y * pt.log(p) - (1 - y) * pt.log(1 - p)) \
            + 0.01 * (w ** 2).sum()

    def updates(w, b):
        gw, gb = pytensor.grad(cost(w, b), [w, b])
        return [(w, w - 0.1 * gw), (b, b - 0.1 * gb)]
    return [x, y], cost, lambda: (shared(), updates)


def test_logistic_regression_train_step():
    ins, cost, upd = logistic_regression()
    fs = both(ins, cost, upd)
    X = RNG.random((20, 5))
    Y = (RNG.random(20) > 0.5).astype("float64")
    check_same(fs, [(X, Y)] * 5)


def test_mlp_train_step_softmax():
    x = pt.dmatrix("x")
    t = pt.ivector("t")

    def shared():
        r = np.random.default_rng(1)
        return [pytensor.shared(r.normal(size=(4, 6)) * 0.3, name="w1"),
                pytensor.shared(np.zeros(6), name="b1"),
                pytensor.shared(r.normal(size=(6, 3)) * 0.3, name="w2")]

    def cost(w1, b1, w2):
        h = pt.tanh(x @ w1 + b1)
        p = pt.special.softmax(h @ w2, axis=-1)
        return -pt.mean(pt.log(p[pt.arange(t.shape[0]), t]))

    def updates(*ws):
        gs = pytensor.grad(cost(*ws), list(ws))
        return [(w, w - 0.5 * g) for w, g in zip(ws, gs)]

    fs = both([x, t], cost, lambda: (shared(), updates))
    X = RNG.random((8, 4))
    T = RNG.integers(0, 3, 8).astype("int32")
    check_same(fs, [(X, T)] * 4)


def test_float32_gemm_dimshuffle_join():
    x = pt.fmatrix("x")
    w = pt.fmatrix("w")
    v = pt.fvector("v")
    outs = [pt.concatenate([x @ w, x], axis=1),
            2 * (x @ v) + v.sum(),
            pt.special.log_softmax(x, axis=1),
            x.dimshuffle(1, "x", 0),
            x.reshape((6, 2))]
    f = pytensor.function([x, w, v], outs, mode="GRAPHJIT")
    r = pytensor.function([x, w, v], outs)
    args = [RNG.random((4, 3), dtype="float32"),
            RNG.random((3, 3), dtype="float32"),
            RNG.random(3, dtype="float32")]
    for g, want in zip(f(*args), r(*args), strict=True):
        assert g.dtype == want.dtype and g.shape == want.shape
        np.testing.assert_allclose(g, want, rtol=1e-5)


class Cumprod2(Op):
    """An op graphjit lacks (runs as Py)."""
    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        out[0][0] = np.cumprod(inputs[0]) * 2


class Fails(Op):
    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        if inputs[0].sum() > 100:
            raise FloatingPointError("too big: %s" % inputs[0].sum())
        out[0][0] = inputs[0] + 1


def test_op_graphjit_lacks_runs_py():
    x = pt.dvector("x")
    y = pt.exp(Cumprod2()(x * 2)).sum()
    f = pytensor.function([x], y, mode="GRAPHJIT")
    r = pytensor.function([x], y)
    for _ in range(3):
        a = RNG.random(4)
        np.testing.assert_allclose(f(a), r(a), rtol=1e-12)
    cov = gjp.coverage(f)
    assert 0 < cov["applies"] < 1
    assert any("Cumprod2" in o for o in cov["py_ops"])


def test_perform_raises_shared_unchanged():
    x = pt.dvector("x")
    s = pytensor.shared(np.zeros(3), name="s")
    y = Fails()(x + s)
    f = pytensor.function([x], y, updates=[(s, s + 1)], mode="GRAPHJIT")
    f(np.ones(3))
    before = s.get_value().copy()
    with pytest.raises(FloatingPointError, match="too big") as e:
        f(np.full(3, 100.0))
    assert "Fails" in str(e.value) + "".join(getattr(e.value, "__notes__",
                                                     []))
    np.testing.assert_array_equal(s.get_value(), before)
    np.testing.assert_allclose(f(np.ones(3)), np.ones(3) + before + 1)


def test_bad_arguments():
    x = pt.dvector("x")
    m = pt.dmatrix("m")
    f = pytensor.function([x, m], (m @ x).sum(), mode="GRAPHJIT")
    with pytest.raises(TypeError):
        f(np.ones(3))  # one argument missing
    with pytest.raises(TypeError):
        f(np.ones(3, dtype="complex128"), np.ones((2, 3)))
    with pytest.raises(TypeError):
        f(np.ones((3, 3)), np.ones((2, 3)))  # wrong rank
    # graphjit finds it in Gemm: the ValueError PyTensor raises there
    # (a GraphjitError too, whose message names the node).
    with pytest.raises(ValueError) as err:
        f(np.ones(4), np.ones((2, 3)))  # shapes do not fit
    assert isinstance(err.value, gjp.GraphjitValueError)
    assert isinstance(err.value, graphjit.GraphjitError)
    assert f(np.ones(3), np.ones((2, 3))) == 6.0


def test_storage_thunk_reads_and_writes_the_cells():
    """A function of graphjit's arrays runs as a C++ thunk over PyTensor's
    storage cells: its outputs land in the cells, an error is PyTensor's
    (named by the node) and leaves the function usable; a function with a
    scalar input keeps the Python thunk."""
    x = pt.dvector("x")
    f = pytensor.function([x], [pt.exp(x), x.sum()], mode="GRAPHJIT")
    assert isinstance(f.vm, graphjit._graphjit.StorageThunk)
    a = RNG.random(4)
    e, s = f(a)
    np.testing.assert_allclose(e, np.exp(a), rtol=1e-15)
    assert s == pytest.approx(a.sum(), rel=1e-15)
    g = f.vm.jit_fn.function
    out = [[None], [None]]
    assert g.storage_thunk([[a]], out, print)() is None
    np.testing.assert_array_equal(out[0][0], e)
    assert out[1][0] == s
    with pytest.raises(TypeError, match="storage cells"):
        g.storage_thunk([1], [[None], [None]], print)
    with pytest.raises(ValueError, match="takes 1 inputs and gives 2"):
        g.storage_thunk([], [[None], [None]], print)
    with pytest.raises(TypeError, match="callable"):
        g.storage_thunk([[a]], [[None], [None]], 1)
    with pytest.raises(TypeError, match="no arguments"):
        f.vm(1)
    # A handler that returns leaves the call's own error.
    t = g.storage_thunk([[np.ones((2, 2))]], [[None], [None]],
                        lambda e, thunk: None)
    with pytest.raises(ValueError, match="rank 1"):
        t()
    y = pytensor.scalar.float64("y")
    h = pytensor.function([y], pt.exp(pt.as_tensor(y)), mode="GRAPHJIT")
    assert not isinstance(h.vm, graphjit._graphjit.StorageThunk)
    assert h(0.5) == pytest.approx(np.exp(0.5), rel=1e-15)


def test_shape_errors_are_value_errors_as_in_pytensor():
    x = pt.dvector("x")
    y = pt.dvector("y")
    for out in (x + y, x.reshape((2, 2))):
        ref = pytensor.function([x, y], out, on_unused_input="ignore")
        with pytest.raises(ValueError):
            ref(np.ones(3), np.ones(4))
        f = pytensor.function([x, y], out, mode="GRAPHJIT",
                              on_unused_input="ignore")
        with pytest.raises(ValueError, match="Apply node"):
            f(np.ones(3), np.ones(4))
        f(np.ones(4), np.ones(4))  # usable afterwards


def test_profile_rows_and_flags():
    x = pt.dvector("x")
    y = Cumprod2()(pt.exp(x) + 1).sum()
    f = pytensor.function([x], y, mode="GRAPHJIT", profile=True)
    for _ in range(3):
        f(RNG.random(5))
    prof = f.profile
    nodes = f.maker.fgraph.toposort()
    out = io.StringIO()
    prof.summary(file=out)  # copies graphjit's times in first
    assert "Cumprod2" in out.getvalue()
    assert {n for (_, n) in prof.apply_time} == set(nodes)
    assert all(prof.apply_callcount[(f.maker.fgraph, n)] == 3 for n in nodes)
    assert sum(prof.apply_time.values()) > 0
    cimpl = {type(n.op).__name__: prof.apply_cimpl[n] for n in nodes}
    assert cimpl["Cumprod2"] is False and cimpl["Elemwise"] is True
    f(RNG.random(5))
    gjp.sync_profile(f)
    assert all(prof.apply_callcount[(f.maker.fgraph, n)] == 4 for n in nodes)
    out = io.StringIO()
    gjp.summary(f, file=out)
    text = out.getvalue()
    assert "Cumprod2" in text and "graphjit coverage" in text
    cov = gjp.coverage(f)
    assert cov["time"] is not None and 0 <= cov["time"] <= 1


def test_flags_in_subprocess(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent("""
        import graphjit.pytensor  # before pytensor: PYTENSOR_FLAGS's mode
        import numpy as np, pytensor, pytensor.tensor as pt
        x = pt.dvector("x")
        f = pytensor.function([x], pt.tanh(x).sum())
        print(f(np.ones(3)))
    """))
    env = dict(os.environ, PYTENSOR_FLAGS="mode=GRAPHJIT,profile=True")
    p = subprocess.run([sys.executable, str(script)], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    both_out = p.stdout + p.stderr
    assert "graphjit coverage" in both_out
    assert "Tanh" in both_out and "Linker: c|py" in both_out


def test_two_profiled_functions_sum_at_exit(tmp_path):
    """PyTensor's report at exit sums its profiled functions, and that sum
    raises in the PyTensor versions used here (graphjit.pytensor.profile):
    GRAPHJIT's functions stay out of it, so that each report prints and the
    script ends without a traceback."""
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent("""
        import graphjit.pytensor
        import numpy as np, pytensor, pytensor.tensor as pt
        x = pt.dvector("x")
        f = pytensor.function([x], pt.exp(x).sum(), name="f")
        g = pytensor.function([x], pt.tanh(x).sum(), name="g")
        print(f(np.zeros(3)), g(np.zeros(3)))
    """))
    env = dict(os.environ, PYTENSOR_FLAGS="mode=GRAPHJIT,profile=True")
    p = subprocess.run([sys.executable, str(script)], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    both_out = p.stdout + p.stderr
    assert "Traceback" not in both_out, both_out
    assert "Message: f" in both_out and "Message: g" in both_out
    assert both_out.count("graphjit coverage") >= 2


def test_flags_with_runner(tmp_path):
    """python -m graphjit.pytensor script.py: the script need not import
    graphjit."""
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent("""
        import numpy as np, pytensor, pytensor.tensor as pt
        x = pt.dvector("x")
        f = pytensor.function([x], pt.exp(x).sum())
        print(type(f.maker.linker).__name__, f(np.zeros(3)))
    """))
    env = dict(os.environ, PYTENSOR_FLAGS="mode=GRAPHJIT,profile=True")
    p = subprocess.run([sys.executable, "-m", "graphjit.pytensor",
                        str(script)], env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "GraphjitLinker 3.0" in p.stdout
    assert "graphjit coverage" in p.stdout + p.stderr


def test_flags_with_an_unchanged_script(tmp_path):
    """The seed's usage: PYTENSOR_FLAGS=mode=GRAPHJIT,profile=True python
    script.py, for a script that knows nothing of graphjit (the installed
    graphjit-pytensor.pth registers the mode at start-up)."""
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent("""
        import numpy as np, pytensor, pytensor.tensor as pt
        x = pt.dvector("x")
        f = pytensor.function([x], pt.exp(x).sum(), name="plain")
        print(type(f.maker.linker).__name__, f(np.zeros(3)))
    """))
    env = dict(os.environ, PYTENSOR_FLAGS="mode=GRAPHJIT,profile=True")
    p = subprocess.run([sys.executable, str(script)], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "GraphjitLinker 3.0" in p.stdout
    err = p.stdout + p.stderr
    assert "graphjit coverage" in err and "Message: plain" in err
    # Without the flag, nothing of graphjit is imported at start-up.
    env["PYTENSOR_FLAGS"] = ""
    p = subprocess.run([sys.executable, "-c", "import sys; print("
                        "'graphjit' in sys.modules)"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.stdout.strip() == "False", p.stderr


def test_random_generator_kept_in_python():
    """A random generator (a type graphjit cannot hold) runs as Py, its
    state updated as in PyTensor's own mode."""
    x = pt.dvector("x")
    results = []
    for mode in ("GRAPHJIT", None):
        rng = pytensor.shared(np.random.default_rng(7))
        next_rng, v = pt.random.normal(size=3, rng=rng).owner.outputs
        f = pytensor.function([x], x + v, updates={rng: next_rng}, mode=mode)
        results.append([f(np.ones(3)) for _ in range(3)])
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_no_outputs_and_shape_outputs():
    x = pt.dvector("x")
    f = pytensor.function([x], [], mode="GRAPHJIT", on_unused_input="ignore")
    assert f(np.ones(2)) == []
    g = pytensor.function([x], [x.shape[0] * 2.0, x, x.shape],
                          mode="GRAPHJIT")
    a = np.arange(3.0)
    n, same, shape = g(a)
    assert n == 6.0 and not np.shares_memory(same, a)
    assert list(shape) == [3]


def test_error_names_the_node():
    x = pt.dvector("x")
    f = pytensor.function([x], pt.exp(Fails()(x * 2)), mode="GRAPHJIT")
    with pytest.raises(FloatingPointError) as e:
        f(np.full(3, 100.0))
    # PyTensor 3 adds its report as notes, 2.38 to the message.
    text = str(e.value) + "".join(getattr(e.value, "__notes__", []) or [])
    assert "Fails(" in text


def test_integer_and_mixed_dtypes():
    """PyTensor's upcasts of small ints and float32 (said with casts in the
    composite where they differ from NumPy's)."""
    a, b, c = pt.bvector("a"), pt.wvector("b"), pt.ivector("c")
    x = pt.fvector("x")
    outs = [a / b, pt.exp(a) + x, pt.sqrt(c) * x, (a + b) // 2,
            pt.floor(a * x), pt.exp(b) + c, (x > 0.5) * a, a ** 2]
    f = pytensor.function([a, b, c, x], outs, mode="GRAPHJIT")
    r = pytensor.function([a, b, c, x], outs)
    args = [np.array([1, 2, 3], np.int8), np.array([2, 3, 4], np.int16),
            np.array([4, 5, 6], np.int32),
            np.array([0.1, 0.6, 2.0], np.float32)]
    for g, w in zip(f(*args), r(*args), strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_special_functions_of_pymc_graphs_run_as_c():
    # gammaln, erfc, log2 and log10: graphjit ops of their own, so PyMC's
    # log-densities (Gamma, Beta, Student-t, ...) need no Py node for them.
    x = pt.dvector("x")
    outs = [pt.gammaln(x), pt.erfc(x - 2), pt.log2(x), pt.log10(x),
            pt.gammaln(x).sum() + pt.erfc(x).sum()]
    fs = both([x], outs)
    check_same(fs, [(RNG.random(7) * 10 + 0.01,), (np.array([0.5, 1.0, 2.0,
                                                              30.0]),)],
               rtol=1e-13, atol=0)
    cov = gjp.coverage(fs[0][0])
    assert cov["c_nodes"] == cov["nodes"], cov["py_ops"]


def test_indexing_by_an_integer_vector_and_its_gradient_run_as_c():
    # A group's parameter per observation (a[idx]) and its gradient
    # (AdvancedIncSubtensor1): graphjit's take and inc_rows.
    a = pt.dvector("a")
    idx = pt.lvector("idx")
    y = (a[idx] ** 2).sum()
    outs = [a[idx], pt.grad(y, a), pt.set_subtensor(a[idx], 0.0)]
    fs = both([a, idx], outs)
    check_same(fs, [(RNG.random(5), np.array([0, 4, 4, -1, 2])),
                    (RNG.random(3), np.array([], dtype=np.int64))],
               rtol=1e-14, atol=0)
    cov = gjp.coverage(fs[0][0])
    assert cov["c_nodes"] == cov["nodes"], cov["py_ops"]
    with pytest.raises(Exception, match="out of bounds"):
        fs[0][0](np.ones(3), np.array([3]))


def test_split_set_and_inc_subtensor_softmax_grad_run_as_c():
    # What PyMC's mixture and simplex transforms make: Split with constant
    # sizes, x[i] and x[1:] set or incremented, the softmax's gradient.
    x = pt.vector("x", shape=(4,), dtype="float64")
    a, b = pt.split(x, [1, 3], n_splits=2)
    sm = pt.special.softmax(x)
    outs = [a * 2, b.sum(),
            pt.set_subtensor(x[0], 5.0), pt.inc_subtensor(x[1:], b),
            pt.inc_subtensor(x[-1], 1.5),
            pt.grad((sm * pt.arange(4)).sum(), x)]
    fs = both([x], outs)
    check_same(fs, [(RNG.random(4),), (RNG.normal(size=4),)], rtol=1e-13,
               atol=1e-15)
    cov = gjp.coverage(fs[0][0])
    assert cov["c_nodes"] == cov["nodes"], cov["py_ops"]


def test_cumsum_and_cumprod_run_as_c():
    x = pt.dmatrix("x")
    i = pt.ivector("i")
    outs = [pt.cumsum(x, axis=0), pt.cumprod(x, axis=1), pt.cumsum(x),
            pt.cumsum(i), pt.grad(pt.cumsum(x, axis=1).sum(), x)]
    fs = both([x, i], outs)
    check_same(fs, [(RNG.random((3, 4)), np.array([1, -2, 3], np.int32))],
               rtol=1e-13, atol=1e-15)
    cov = gjp.coverage(fs[0][0])
    assert cov["c_nodes"] == cov["nodes"], cov["py_ops"]


def test_sparse_matrices_and_typed_lists_run_as_py():
    # Types graphjit cannot hold stay in Python; their nodes run their
    # own perform, and the rest is still graphjit's.
    sp = pytest.importorskip("scipy.sparse")
    import pytensor.sparse as ps
    import pytensor.typed_list as tl
    x = ps.csr_matrix("x", dtype="float64")
    y = pt.dvector("y")
    out = ps.structured_dot(x, y.dimshuffle(0, "x")).sum() + pt.exp(y).sum()
    fs = both([x, y], [out])
    m = sp.random(4, 3, density=0.5, format="csr", random_state=0)
    check_same(fs, [(m, RNG.random(3)), (m * 2, RNG.random(3))])
    cov = gjp.coverage(fs[0][0])
    assert "StructuredDot" in cov["py_ops"] and cov["c_nodes"] >= 1
    lst = tl.TypedListType(pt.dvector)()
    g = pytensor.function([lst], tl.length(lst) * 2, mode="GRAPHJIT")
    assert g([np.ones(2), np.ones(3), np.ones(1)]) == 6


def test_integer_power_by_a_constant_in_a_composite():
    """A Composite's integer pow by a small constant (betainc's gradient
    squares its step count) runs in C as products that wrap as NumPy's
    power does; a larger exponent is still translated correctly."""
    import pytensor.scalar as ps
    from pytensor.tensor.elemwise import Elemwise
    from conftest import assert_all_c, assert_same, compile_both
    a = ps.int16("a")
    b = ps.float64("b")
    comp = ps.Composite(
        [a, b], [ps.pow(a, ps.constant(np.int8(3))) * a
                 + ps.pow(a, ps.constant(np.int64(0)))
                 + ps.cast(ps.pow(a, ps.constant(np.int8(2))), "float64") * b])
    x = pt.vector("x", dtype="int16")
    y = pt.vector("y")
    fs = compile_both([x, y], Elemwise(comp)(x, y))
    assert_all_c(fs[0])
    # Against PyTensor where nothing overflows (its Numba backend does not
    # wrap integer steps as NumPy does), against NumPy where it wraps.
    small = np.array([3, -7, 0, 1, -5], dtype="int16")
    assert_same(fs, small, np.linspace(-1, 1, small.size))
    v = np.array([3, -7, 300, 0, 1, -32768], dtype="int16")
    w = np.linspace(-1, 1, v.size)
    with np.errstate(over="ignore"):
        want = (v ** 3 * v + v ** 0).astype("float64") + (v ** 2) * w
    np.testing.assert_array_equal(fs[0](v, w), want)


def test_costly_nodes_several_outputs_read_are_computed_once():
    """Outputs that PyTensor's fusion makes one Composite of, all reading
    erfcx and log: graphjit computes each once (an Elemwise of its own)
    instead of once per output, and the values are PyTensor's."""
    import pytensor
    from scipy import special
    from conftest import assert_all_c
    from graphjit.pytensor import profile as gjp_profile
    x, y = pt.vector("x"), pt.vector("y")
    e = pt.erfcx(x)
    lg = pt.log(e + y)
    f = pytensor.function(
        [x, y], [e * y, lg - x, pt.switch(x > 0, lg, e), pt.exp(x) + y],
        mode="GRAPHJIT")
    assert_all_c(f)
    # SciPy is the reference (PyTensor 3.0's Numba mode fails on this
    # Composite).
    v, w = np.linspace(-3, 5, 17), np.linspace(0.5, 2, 17)
    ev = special.erfcx(v)
    want = [ev * w, np.log(ev + w) - v, np.where(v > 0, np.log(ev + w), ev),
            np.exp(v) + w]
    for got, ref in zip(f(v, w), want, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-13, atol=0)
    text = gjp_profile._runner_of(f).function.text()
    assert text.count("erfcx(") == 1, text
    assert text.count("log(") == 1, text
    # exp is read by one output: computed in that output's composite.
    assert text.count("exp(") == 1, text


def test_large_shared_subexpressions_are_computed_once():
    """A polynomial of 16 operations that two outputs read is computed once
    (an Elemwise of its own), not in each output's composite."""
    from conftest import assert_all_c
    from graphjit.pytensor import profile as gjp_profile
    x, y = pt.vector("x"), pt.vector("y")
    p = x
    for k in range(8):
        p = p * x + (k + 1.5)
    f = pytensor.function([x, y], [p * y, p - y], mode="GRAPHJIT")
    assert_all_c(f)
    v, w = np.linspace(-1, 1, 9), np.linspace(2, 3, 9)
    q = v.copy()
    for k in range(8):
        q = q * v + (k + 1.5)
    for got, ref in zip(f(v, w), [q * w, q - w], strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-14, atol=0)
    text = gjp_profile._runner_of(f).function.text()
    polynomials = [ln for ln in text.splitlines() if ln.count("*") >= 6]
    assert len(polynomials) == 1, text


def test_op_from_graph_on_computed_inputs_computes_them_once():
    """An OpFromGraph whose inputs are other nodes' results is inlined onto
    those results: the graph above it is translated once, not copied into
    the OpFromGraph's place (gp_marginal's AllocDiag gradient had made
    every Cholesky run twice)."""
    from pytensor.compile.builders import OpFromGraph
    from conftest import assert_all_c
    from graphjit.pytensor import profile as gjp_profile
    a, b = pt.vector("a"), pt.vector("b")
    inner = OpFromGraph([a, b], [a * b + 1.0], inline=False)
    x = pt.vector("x")
    e = pt.erfcx(x)
    f = pytensor.function([x], [inner(e, pt.log1p(pt.abs(x))), e],
                          mode="GRAPHJIT")
    assert_all_c(f)
    from scipy import special
    v = np.linspace(-2, 3, 11)
    ev = special.erfcx(v)
    got = f(v)
    np.testing.assert_allclose(got[0], ev * np.log1p(np.abs(v)) + 1.0,
                               rtol=1e-13)
    np.testing.assert_allclose(got[1], ev, rtol=1e-13)
    text = gjp_profile._runner_of(f).function.text()
    assert text.count("erfcx(") == 1, text
    assert text.count("log1p(") == 1, text


def test_no_c_blas_rewrites_in_the_mode():
    """PyTensor 2.38's use_c_blas (CGemv, CGer) compiles C code to check
    its BLAS on first use, 0.67 s of a compile: GRAPHJIT leaves it out and
    takes Gemv and Ger as they are."""
    from conftest import assert_all_c
    a, x, y = pt.dmatrix("a"), pt.dvector("x"), pt.dvector("y")
    outs = [pt.dot(a, x) * 2 + y, a + pt.outer(x, y) * 3]
    f = pytensor.function([a, x, y], outs, mode="GRAPHJIT")
    names = [type(n.op).__name__ for n in f.maker.fgraph.toposort()]
    assert not any(n.startswith("CG") for n in names), names
    assert_all_c(f)
    rng = np.random.default_rng(5)
    aa, xx, yy = rng.normal(size=(3, 3)), rng.normal(size=3), rng.normal(size=3)
    got = f(aa, xx, yy)
    np.testing.assert_allclose(got[0], aa @ xx * 2 + yy, rtol=1e-13)
    np.testing.assert_allclose(got[1], aa + np.outer(xx, yy) * 3, rtol=1e-13)


def test_sparse_rewrites_load_after_a_graphjit_compile():
    """The GRAPHJIT mode leaves out a sparse rewrite (local_usmm) only
    where PyTensor has registered it: PyTensor 3.0 loads its sparse
    rewrites on first use, and excluding a name it has not seen broke
    their registration, so that any later use of pytensor.sparse failed."""
    import subprocess
    import sys
    code = (
        "import numpy as np, pytensor, pytensor.tensor as pt\n"
        "import graphjit.pytensor\n"
        "x = pt.dvector('x')\n"
        "pytensor.function([x], x * 2, mode='GRAPHJIT')(np.ones(2))\n"
        "import pytensor.sparse\n"
        "f = pytensor.function([x], x - 2.0 * pt.dot(x, x), mode='GRAPHJIT')\n"
        "print(f(np.ones(2)).tolist())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["[-3.0,", "-3.0]"], out.stdout
