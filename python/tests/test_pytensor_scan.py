"""graphjit.pytensor runs PyTensor's Scan as compiled code: the inner graph
compiled by graphjit and looped over by graphjit's scan op (no Python
between steps). Every kind of Scan input and output, while loops, the
gradient scans PyTensor builds (mit_mot), the save-memory rewrite's
circular buffers and nested scans, each checked against PyTensor's own
default mode, every node in C."""
import numpy as np
import pytest

pytensor = pytest.importorskip("pytensor")
import pytensor.tensor as pt  # noqa: E402

import graphjit.pytensor as gjp  # noqa: E402
from conftest import assert_all_c, assert_same, compile_both  # noqa: E402

RNG = np.random.default_rng(11)


def scan(fn, **kw):
    """pytensor.scan's outputs (PyTensor 3 returns updates only when
    asked; 2.38 always does)."""
    try:
        res = pytensor.scan(fn, return_updates=False, **kw)
    except TypeError:
        res = pytensor.scan(fn, **kw)
    if isinstance(res, tuple) and len(res) == 2 and isinstance(
            res[1], dict):
        res = res[0]
    return res


def check(inputs, outputs, *args, rtol=1e-10, atol=1e-12, reference=None):
    fs = compile_both(inputs, outputs)
    assert_all_c(fs[0])
    assert any(type(n.op).__name__ == "Scan"
               for n in fs[0].maker.fgraph.toposort())
    if reference is not None:
        fs[1] = pytensor.function(inputs, outputs, mode=reference)
    assert_same(fs, *args, rtol=rtol, atol=atol)
    return fs


def test_sit_sot_over_a_sequence_with_a_non_sequence():
    x, a = pt.dvector("x"), pt.dscalar("a")
    h = scan(lambda xt, h, a: pt.exp(-a) * h + pt.log1p(pt.exp(xt)),
             sequences=[x], outputs_info=[pt.zeros(())], non_sequences=[a])
    xv = RNG.normal(size=13)
    # All the states, the last (an untraced value after PyTensor's
    # rewrites) and a few (a circular buffer of the save-memory rewrite).
    for out in (h, h[-1], h[-3:], h[::2]):
        check([x, a], out, xv, 0.3)


def test_mit_sot_taps_and_several_outputs():
    # An AR(2) recursion with a second, nit_sot output.
    x = pt.dvector("x")
    phi = pt.dvector("phi")

    def step(xt, y2, y1, phi):
        y = phi[0] * y1 + phi[1] * y2 + xt
        return y, pt.sqr(y)

    y0 = pt.dvector("y0")
    ys, sq = scan(step, sequences=[x],
                  outputs_info=[dict(initial=y0, taps=[-2, -1]), None],
                  non_sequences=[phi])
    args = (RNG.normal(size=20), np.array([0.5, -0.2]), np.array([0.1, 0.3]))
    check([x, phi, y0], [ys, sq], *args)
    check([x, phi, y0], ys[-1] + sq.sum(), *args)


def test_matrix_states_with_dot():
    # A Kalman-filter-like recursion on matrices.
    A, Q = pt.dmatrix("A"), pt.dmatrix("Q")
    P0 = pt.dmatrix("P0")
    ys = pt.dmatrix("ys")

    def step(y, m, P, A, Q):
        Pp = A @ P @ A.T + Q
        k = Pp[:, 0] / (Pp[0, 0] + 1.0)
        m2 = A @ m + k * (y[0] - (A @ m)[0])
        return m2, Pp - pt.outer(k, Pp[0])

    (ms, Ps) = scan(step, sequences=[ys],
                    outputs_info=[pt.zeros(3), P0], non_sequences=[A, Q])
    args = (0.3 * RNG.normal(size=(3, 3)), np.eye(3) * 0.1, np.eye(3),
            RNG.normal(size=(15, 2)))
    check([A, Q, P0, ys], [ms, Ps[-1]], *args)


def test_gradient_scans():
    # PyTensor's gradient of a scan is a scan with mit_mot outputs.
    x, a = pt.dvector("x"), pt.dscalar("a")
    h0 = pt.dscalar("h0")
    h = scan(lambda xt, h, a: pt.tanh(a * h + xt), sequences=[x],
             outputs_info=[h0], non_sequences=[a])
    loss = (h ** 2).sum()
    grads = pytensor.grad(loss, [x, a, h0])
    fs = check([x, a, h0], grads, RNG.normal(size=9), 0.7, 0.2)
    kinds = [n.op.info for n in fs[0].maker.fgraph.toposort()
             if type(n.op).__name__ == "Scan"]
    assert any(info.mit_mot_in_slices for info in kinds)


def test_gradient_through_mit_sot_taps():
    x = pt.dvector("x")
    phi = pt.dvector("phi")
    y0 = pt.dvector("y0")
    ys = scan(lambda xt, y2, y1, phi: phi[0] * y1 + phi[1] * pt.sin(y2) + xt,
              sequences=[x], outputs_info=[dict(initial=y0, taps=[-2, -1])],
              non_sequences=[phi])
    grads = pytensor.grad(ys.sum() + ys[-1] ** 2, [x, phi, y0])
    # PyTensor 2.38's C VM and Python linker fail on this gradient scan
    # (a DeepCopyOp error, or a crash in its preallocated mit_mot
    # outputs); its Numba mode is the reference.
    check([x, phi, y0], grads, RNG.normal(size=11), np.array([0.4, 0.3]),
          np.array([0.2, -0.1]), reference="NUMBA")


def test_sequence_taps_and_go_backwards():
    x = pt.dvector("x")
    out = scan(lambda x0, x2: x0 * x2, sequences=[dict(input=x,
                                                        taps=[0, 2])])
    back = scan(lambda xt, h: h * 0.5 + xt, sequences=[x],
                outputs_info=[pt.zeros(())], go_backwards=True)
    check([x], [out, back], RNG.normal(size=10))


def test_while_loop():
    # Doubling until past a bound: fewer steps than n_steps.
    from pytensor.scan.utils import until
    x0, bound = pt.dscalar("x0"), pt.dscalar("bound")
    xs = scan(lambda x, bound: (x * 2, until(x * 2 > bound)),
              outputs_info=[x0], non_sequences=[bound], n_steps=50)
    for bnd in (100.0, 1e30):
        check([x0, bound], xs, 1.5, bnd)


def test_n_steps_at_run_time_including_zero():
    n = pt.iscalar("n")
    a = pt.dscalar("a")
    xs = scan(lambda h, a: h * a + 1, outputs_info=[pt.ones(())],
              non_sequences=[a], n_steps=n)
    ms = scan(lambda a: a * 2, non_sequences=[a], n_steps=n)
    fs = check([n, a], [xs, ms], 5, 0.5)
    for k in (0, 1, 3):
        assert_same(fs, k, 0.5)


def test_nested_scan():
    X = pt.dmatrix("X")

    def row_cumsum(r):
        return scan(lambda v, acc: acc + v, sequences=[r],
                    outputs_info=[pt.zeros(())])

    out = scan(row_cumsum, sequences=[X])
    check([X], [out, pytensor.grad(out.sum() ** 2, X)],
          RNG.normal(size=(4, 6)))


def test_float32():
    x = pt.fvector("x")
    h = scan(lambda xt, h: h * np.float32(0.9) + pt.exp(xt), sequences=[x],
             outputs_info=[pt.zeros((), dtype="float32")])
    check([x], [h, pytensor.grad(h.sum(), x)],
          RNG.normal(size=16).astype("float32"), rtol=1e-5, atol=1e-6)


def test_errors_inside_the_body_and_of_the_steps():
    x = pt.dvector("x")
    n = pt.iscalar("n")
    out = scan(lambda xt, h: h + pt.sqrt(xt), sequences=[x], n_steps=n,
               outputs_info=[pt.zeros(())])
    f = pytensor.function([x, n], out, mode="GRAPHJIT")
    assert_all_c(f)
    np.testing.assert_allclose(f(np.arange(4.0), 3),
                               np.cumsum(np.sqrt(np.arange(3.0))))
    # More steps than the sequence has rows: the ValueError of PyTensor's
    # Scan.perform (its Cython loop reads past the end instead).
    with pytest.raises(ValueError, match="Scan's required number of steps"):
        f(np.arange(4.0), 6)
    # A negative number of steps: PyTensor's IndexError.
    with pytest.raises(IndexError, match="negative number of step"):
        f(np.arange(4.0), -1)
    # The function still works afterwards.
    np.testing.assert_allclose(f(np.arange(4.0), 2),
                               np.cumsum(np.sqrt(np.arange(2.0))))


def test_failed_assert_in_the_body():
    from pytensor.raise_op import Assert
    x = pt.dvector("x")
    out = scan(lambda xt, h: h + Assert("positive please")(xt, xt > 0),
               sequences=[x], outputs_info=[pt.zeros(())])
    f = pytensor.function([x], out, mode="GRAPHJIT")
    assert_all_c(f)
    np.testing.assert_allclose(f(np.array([1.0, 2.0])), [1.0, 3.0])
    with pytest.raises(AssertionError, match="positive please"):
        f(np.array([1.0, -2.0]))


def test_coverage_names_py_nodes_inside_a_body():
    # An op graphjit has no translation for stays Py inside the body; the
    # Scan node then counts as Py, with the reason.
    from pytensor.graph.basic import Apply
    from pytensor.graph.op import Op

    class Twice(Op):
        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, outputs):
            outputs[0][0] = inputs[0] * 2

    x = pt.dvector("x")
    out = scan(lambda xt: Twice()(xt) + 1, sequences=[x])
    f = pytensor.function([x], out, mode="GRAPHJIT")
    np.testing.assert_allclose(f(np.arange(3.0)), np.arange(3.0) * 2 + 1)
    cov = gjp.coverage(f)
    [py] = [p for p in cov["py_nodes"] if p["op"].startswith("Scan")]
    assert "Twice" in py["reason"]


@pytest.mark.skipif(
    not pytensor.__version__.startswith("2."),
    reason="PyTensor 3.0's own ScalarLoops of these gradients fail in every "
    "backend it has (NameError in perform, KeyError in Numba, orphans in C)")
def test_scalar_loops_of_special_function_gradients():
    # PyTensor's gradients of gammainc, gammaincc and betainc are
    # Elemwise{ScalarLoop}s: graphjit runs each as one scalar_loop Apply,
    # every element's loop in its JIT code.
    k, x = pt.dvector("k"), pt.dvector("x")
    a, b, z = pt.dvector("a"), pt.dvector("b"), pt.dvector("z")
    loss = (pt.gammainc(k, x).sum() + pt.gammaincc(k, x).sum()
            + pt.betainc(a, b, z).sum())
    fs = compile_both([k, x, a, b, z], pytensor.grad(loss, [k, x, a, b]))
    assert_all_c(fs[0])
    loops = sum(type(getattr(n.op, "scalar_op", None)).__name__ ==
                "ScalarLoop" for n in fs[0].maker.fgraph.toposort())
    assert loops >= 2
    from graphjit.pytensor import profile as gjp_profile
    text = gjp_profile._runner_of(fs[0]).function.text()
    assert text.count("scalar_loop(") == loops, text
    n = 40
    args = (RNG.uniform(0.5, 8, n), RNG.uniform(0.1, 8, n),
            RNG.uniform(0.5, 6, n), RNG.uniform(0.5, 6, n),
            RNG.uniform(0.05, 0.95, n))
    for sub in (args, tuple(v[:1] for v in args)):  # many, and one alone
        got, want = fs[0](*sub), fs[1](*sub)
        # The k-gradient's series: PyTensor's own C and Numba backends
        # differ by up to 6e-6 (relative) here; the rest agree to 1e-10.
        for g, w, rtol in zip(got, want, (1e-5, 1e-8, 1e-8, 1e-8)):
            np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-12)


def _loop_elemwise(init, update, constant, until=None):
    import pytensor.scalar as ps  # noqa: F401
    from pytensor.scalar.loop import ScalarLoop
    from pytensor.tensor.elemwise import Elemwise
    return Elemwise(ScalarLoop(init=init, update=update, constant=constant,
                               until=until))


def test_scalar_loop_is_one_apply_with_each_elements_loop():
    """A ScalarLoop runs as graphjit's scalar_loop: each element steps on
    its own (its n_steps, its condition), updates read the values before
    the step, and the values agree with the loops written out in NumPy."""
    import pytensor.scalar as ps
    from graphjit.pytensor import profile as gjp_profile
    x0, c, eps = ps.float64("x0"), ps.float64("c"), ps.float64("eps")
    halve = _loop_elemwise([x0], [x0 * c], [c, eps], until=x0 * c < eps)
    a, b = ps.float64("a"), ps.float64("b")
    fib = _loop_elemwise([a, b], [ps.identity(b), a + b], [])
    n, xs, cs = pt.lvector("n"), pt.dvector("xs"), pt.dscalar("cs")
    outs = list(halve(n, xs, cs, pt.constant(np.float64(1.0)))) + \
        list(fib(n, pt.zeros_like(xs), xs))
    f = pytensor.function([n, xs, cs], outs, mode="GRAPHJIT")
    assert_all_c(f)
    text = gjp_profile._runner_of(f).function.text()
    assert text.count("scalar_loop(") == 2, text
    nv = np.array([0, 1, 5, 100, 3])
    xv = np.array([10.0, 10.0, 10.0, 3.0, 2.0])
    want_x, want_stop, want_a, want_b = [], [], [], []
    for steps, x in zip(nv, xv):
        v, stop = x, False
        for _ in range(steps):
            v, stop = v * 0.5, v * 0.5 < 1.0
            if stop:
                break
        p, q = 0.0, x
        for _ in range(steps):
            p, q = q, p + q
        want_x.append(v)
        want_stop.append(stop)
        want_a.append(p)
        want_b.append(q)
    got = f(nv, xv, 0.5)
    for g, w in zip(got, [want_x, want_stop, want_a, want_b], strict=True):
        np.testing.assert_array_equal(g, np.array(w))
    # A loop without a condition refuses a negative count, as PyTensor's
    # perform does.
    with pytest.raises(ValueError, match="termination condition"):
        f(np.array([2, -1, 0, 0, 0]), xv, 0.5)
    np.testing.assert_array_equal(f(nv, xv, 0.5)[0], want_x)
    # No element, no loop: a negative count there is no error (PyTensor's
    # Elemwise never runs the ScalarLoop on an empty output).
    for got in f(np.array([-1]), np.zeros(0), 0.5):
        assert got.shape == (0,)


def test_scalar_loop_with_an_integer_power_runs_as_a_scan():
    """An update graphjit's composite refuses (an integer power by a
    carried exponent) keeps the while scan over whole arrays, with the
    same values."""
    import pytensor.scalar as ps
    from graphjit.pytensor import profile as gjp_profile
    j, i = ps.int64("j"), ps.int64("i")
    loop = _loop_elemwise([j, i], [j + i ** j, i + 1], [])
    n, js = pt.lvector("n"), pt.lvector("js")
    f = pytensor.function([n, js], list(loop(n, js, pt.ones_like(js))),
                          mode="GRAPHJIT")
    assert_all_c(f)
    assert "scalar_loop(" not in gjp_profile._runner_of(f).function.text()
    nv, jv = np.array([0, 1, 2, 3]), np.array([1, 2, 0, 1])
    want = []
    for steps, jj in zip(nv, jv):
        a, b = int(jj), 1
        for _ in range(steps):
            a, b = a + b ** a, b + 1
        want.append((a, b))
    got = f(nv, jv)
    np.testing.assert_array_equal(got[0], [w[0] for w in want])
    np.testing.assert_array_equal(got[1], [w[1] for w in want])


def test_profiled_scan_reports_its_body():
    """Profiled, the scan's body has its own per-Apply profile in graphjit's
    report, after the function, marked as the body of the Scan's Apply and
    left out of the sums; PyTensor's own report still maps the function's
    rows to its nodes."""
    import io
    x, a = pt.dvector("x"), pt.dscalar("a")
    h = scan(lambda xt, h, a: pt.exp(-a) * h + pt.log1p(pt.exp(xt)),
             sequences=[x], outputs_info=[pt.zeros(())], non_sequences=[a])
    f = pytensor.function([x, a], h[-1], mode="GRAPHJIT", profile=True)
    for _ in range(3):
        f(RNG.normal(size=13), 0.3)
    out = io.StringIO()
    gjp.summary(f, file=out)
    text = out.getvalue()
    assert "  Loop body of: Apply " in text, text
    assert "<pytensor-scan>" in text  # the body's rows cite its nodes
    assert "Time in 39 calls to Function.__call__" in text  # 13 steps x 3
    assert "Sum of all(" not in text
    gjp.sync_profile(f)
    pt_out = io.StringIO()
    f.profile.summary(file=pt_out)
    assert "Scan" in pt_out.getvalue()
