"""graphjit.pytensor runs PyTensor's indexing as compiled code: advanced
indexing with integer arrays (broadcast, negative, mixed with slices),
advanced increments and sets (repeated indices counted as np.add.at),
increments of basic indices on any axis and on several axes, and slices of
dims whose size is known at run time only; every value equal to PyTensor's
own mode, errors included."""
import numpy as np
import pytest

pytensor = pytest.importorskip("pytensor")
import pytensor.tensor as pt  # noqa: E402

import graphjit.pytensor as gjp  # noqa: E402
from conftest import assert_all_c, assert_same, compile_both  # noqa: E402

RNG = np.random.default_rng(11)


def test_advanced_subtensor_forms():
    x = pt.dmatrix("x")
    t3 = pt.dtensor3("t3")
    i = pt.lvector("i")
    j = pt.lvector("j")
    outs = [x[i, j], x[i], x[:, j], x[1:, j], x[i[:, None], j],
            t3[i, :, j], t3[:, i, j], x[i, j].sum() * x[i]]
    fs = compile_both([x, t3, i, j], outs)
    assert_all_c(fs[0])
    xv = RNG.normal(size=(5, 4))
    tv = RNG.normal(size=(5, 4, 4))
    assert_same(fs, xv, tv, np.array([0, 3, -1, 3]), np.array([1, -4, 3, 0]))


def test_advanced_increments_count_repeats_and_sets_keep_the_last():
    x = pt.dmatrix("x")
    y = pt.dvector("y")
    i = pt.lvector("i")
    outs = [pt.inc_subtensor(x[i, i], y), pt.set_subtensor(x[i, i], y),
            pt.inc_subtensor(x[:, i], 1.0),
            # a diagonal, as PyMC's GP and LKJ gradients make it
            pt.set_subtensor(x[pt.arange(3), pt.arange(3)], 0.0)]
    fs = compile_both([x, y, i], outs)
    assert_all_c(fs[0])
    assert_same(fs, RNG.normal(size=(4, 4)), np.array([1.0, 2.0, 3.0]),
                np.array([0, 2, 0]))


def test_basic_increments_on_any_axis_and_several():
    x = pt.dmatrix("x")
    v = pt.dvector("v")
    outs = [pt.inc_subtensor(x[:, 1], v[:4]),
            pt.set_subtensor(x[1:3, 0:2], 7.0),
            pt.inc_subtensor(x[-1, 1:], v[:2]),
            pt.set_subtensor(v[1:-1], 0.0),  # v's length: run time only
            pt.inc_subtensor(v[-1], 5.0)]
    fs = compile_both([x, v], outs)
    assert_all_c(fs[0])
    assert_same(fs, RNG.normal(size=(4, 3)), RNG.normal(size=6))


def test_gradients_of_indexing():
    x = pt.dmatrix("x")
    i = pt.lvector("i")
    cost = (x[i, i[::-1]] ** 2).sum() + x[1:, -1].sum() + x[i].sum()
    fs = compile_both([x, i], [cost, pt.grad(cost, x)])
    assert_all_c(fs[0])
    assert_same(fs, RNG.normal(size=(4, 4)), np.array([0, 1, 1, 3]))


def test_out_of_bounds_raises_index_error():
    x = pt.dvector("x")
    i = pt.lvector("i")
    fs = compile_both([x, i], [x[i] * 2])
    for f in fs:
        with pytest.raises(IndexError):
            f(np.arange(3.0), np.array([0, 3]))
    assert_same(fs, np.arange(3.0), np.array([2, -3]))


def test_boolean_masks_as_compiled_code():
    x = pt.dmatrix("x")
    v = pt.dvector("v")
    outs = [v[v > 0] * 2, x[x > 0], x[:, v > 0], pt.set_subtensor(v[v < 0], 0.0),
            pt.inc_subtensor(x[x > 0.5], 1.0)]
    fs = compile_both([x, v], outs)
    assert_all_c(fs[0])
    assert_same(fs, RNG.normal(size=(4, 3)), np.array([1.0, -2.0, 3.0]))
    # A mask of the wrong length is NumPy's IndexError (Numba's mode does
    # not check it, so NumPy is the reference here).
    xv, vv = RNG.normal(size=(4, 3)), np.array([1.0, -2.0, 3.0])
    with pytest.raises(IndexError, match="did not match") as want:
        xv[vv > 0]
    f = pytensor.function([x, v], x[v > 0], mode="GRAPHJIT")
    with pytest.raises(IndexError, match="did not match") as got:
        f(xv, vv)
    assert str(want.value).split(";")[0] in str(got.value)


def test_constant_masks_and_row_indices_run_as_gathers():
    """A constant mask over dims of known size (PyMC's censoring masks)
    becomes constant integer rows, and an index of one integer vector on
    the first axis runs as take and inc_rows (JIT loops), with NumPy's
    values and errors."""
    from graphjit.pytensor import profile as gjp_profile
    mask = np.array([True, False, True, True, False, False, True])
    x = pt.tensor("x", shape=(7,), dtype="float64")
    m = pt.dmatrix("m")
    i = pt.lvector("i")
    cost = (pt.exp(x)[mask] ** 2).sum() + pt.log1p(pt.exp(x)[~mask]).sum()
    outs = [cost, pt.grad(cost, x), m[i], pt.inc_subtensor(m[i], 1.0),
            pt.set_subtensor(m[i, :], 0.0)]
    fs = compile_both([x, m, i], outs)
    assert_all_c(fs[0])
    assert_same(fs, RNG.normal(size=7), RNG.normal(size=(4, 3)),
                np.array([3, -1, 0, 3]))
    text = gjp_profile._runner_of(fs[0]).function.text()
    assert "nonzero(" not in text and "advanced_" not in text, text
    assert text.count("take(") >= 3 and "inc_rows(" in text, text
    for f in fs:
        with pytest.raises(IndexError):
            f(np.zeros(7), np.zeros((4, 3)), np.array([0, 4]))
    # A new axis before the mask (the mask's axis is then not x's static
    # one: the run-time nonzero keeps NumPy's check).
    x34 = pt.tensor("x34", shape=(3, 4), dtype="float64")
    m3 = np.array([True, False, True])
    g = pytensor.function([x34], x34[None, m3], mode="GRAPHJIT")
    v34 = RNG.normal(size=(3, 4))
    np.testing.assert_array_equal(g(v34), v34[None, m3])
    # A mask whose length the type leaves open keeps the run-time check.
    v = pt.dvector("v")
    f = pytensor.function([v], v[mask] * 2, mode="GRAPHJIT")
    np.testing.assert_array_equal(f(np.arange(7.0)), np.arange(7.0)[mask] * 2)
    with pytest.raises(IndexError, match="did not match"):
        f(np.arange(6.0))


def test_coverage_says_why_a_node_is_py():
    # An op graphjit has no translator for runs PyTensor's perform;
    # coverage() says so, with the reason, and summary()'s line too.
    import io
    from pytensor.graph.basic import Apply
    from pytensor.graph.op import Op

    class Twice(Op):
        __props__ = ()

        def make_node(self, a):
            a = pt.as_tensor_variable(a)
            return Apply(self, [a], [a.type()])

        def perform(self, node, inputs, outputs):
            outputs[0][0] = inputs[0] * 2

    x = pt.dvector("x")
    f = pytensor.function([x], Twice()(x) + 1, mode="GRAPHJIT")
    np.testing.assert_allclose(f(np.array([1.0, -2.0])), [3.0, -3.0])
    [py] = gjp.coverage(f)["py_nodes"]
    assert py["op"] == "Twice" and py["reason"] == "no graphjit op for Twice"
    out = io.StringIO()
    gjp.summary(f, file=out)
    assert "Twice (no graphjit op for Twice)" in out.getvalue()


def test_apply_table_says_c_or_py():
    # The Apply table has the Class and Ops tables' <type> column.
    import io
    from pytensor.graph.basic import Apply
    from pytensor.graph.op import Op

    class Halve(Op):
        __props__ = ()

        def make_node(self, a):
            a = pt.as_tensor_variable(a)
            return Apply(self, [a], [a.type()])

        def perform(self, node, inputs, outputs):
            outputs[0][0] = inputs[0] / 2

    x = pt.dvector("x")
    f = pytensor.function([x], Halve()(pt.exp(x)), mode="GRAPHJIT",
                          profile=True)
    for _ in range(3):
        f(np.arange(3.0))
    out = io.StringIO()
    gjp.summary(f, file=out, tensor_lines=False)
    table = out.getvalue().split("Apply\n------\n")[1].split("\n\n")[0]
    assert "<time per call> <type> <#call>" in table
    rows = {("Halve" in line, line.split()[4]) for line in table.splitlines()
            if "%" in line and "remaining" not in line and "<" not in line}
    assert rows == {(True, "Py"), (False, "C")}, table


def test_indices_known_at_run_time_only():
    x = pt.dmatrix("x")
    i = pt.lscalar("i")
    j = pt.lscalar("j")
    outs = [x[i], x[i, j], x[1:, j], x[-1, i] * x[i, 0],
            pt.inc_subtensor(x[i], 1.0), pt.set_subtensor(x[i, j], -1.0)]
    fs = compile_both([x, i, j], outs)
    assert_all_c(fs[0])
    xv = RNG.normal(size=(4, 3))
    for iv, jv in ((0, 0), (2, -1), (-3, 2)):
        assert_same(fs, xv, iv, jv)
    for f in fs:
        with pytest.raises(IndexError):
            f(xv, 4, 0)


def test_reshape_split_repeat_at_run_time():
    x = pt.dmatrix("x")
    n = pt.lscalar("n")
    k = pt.lvector("k")
    a, b = pt.split(x, [n, x.shape[1] - n], n_splits=2, axis=1)
    outs = [x.reshape((n, -1)), a, b * 2, pt.repeat(x, k, axis=0),
            pt.repeat(x, 2), (x.reshape((n, -1)) ** 2).sum()]
    fs = compile_both([x, n, k], outs)
    assert_all_c(fs[0])
    xv = RNG.normal(size=(2, 6))
    assert_same(fs, xv, 3, np.array([2, 0]))
    assert_same(fs, xv, 4, np.array([1, 3]))
    for f in fs:
        with pytest.raises(ValueError):
            f(xv, 5, np.array([1, 1]))  # 12 elements into (5, -1)


def test_newaxis_in_advanced_indices():
    """np.newaxis among advanced indices (PyTensor 2.38 keeps it in the
    index; 3.0 makes an ExpandDims first): NumPy's shapes and values,
    advanced indices that a newaxis separates going first."""
    x, i = pt.dtensor3("x"), pt.lvector("i")
    m = pt.bmatrix("m")
    xv = np.arange(60.0).reshape(3, 4, 5)
    iv = np.array([0, 2, 1])
    mv = np.array([[1, 0, 1, 0], [0, 1, 1, 0], [1, 1, 0, 0]], "int8")
    cases = [
        (x[None, i], lambda: xv[None, iv]),
        (x[1, i, None], lambda: xv[1, iv, None]),
        (x[:, None, i], lambda: xv[:, None, iv]),
        (x[i, None, i], lambda: xv[iv, None, iv]),
        (x[None, :, i, None], lambda: xv[None, :, iv, None]),
        (x[m.astype(bool), None], lambda: xv[mv.astype(bool), None]),
    ]
    for expr, want in cases:
        f = pytensor.function([x, i, m], expr, mode="GRAPHJIT",
                              on_unused_input="ignore")
        assert_all_c(f)
        got = f(xv, iv, mv)
        assert got.shape == want().shape
        np.testing.assert_array_equal(got, want())


def test_slices_that_take_every_row_index_nothing():
    """x[:3, 0:4] of a 3 x 4 x (PyTensor's gradient of lu_factor pads this
    way) set or incremented: y broadcast to x, or x + y, as compiled code
    equal to PyTensor's."""
    x = pt.tensor("x", shape=(3, 4), dtype="float64")
    y = pt.dvector("y")
    m = pt.tensor("m", shape=(3, 4), dtype="float64")
    outs = [pt.set_subtensor(x[:3, 0:4], y), pt.inc_subtensor(x[0:3, :4], y),
            pt.set_subtensor(x[:3, 0:4], m) * 2, pt.inc_subtensor(x[::1], m),
            pt.set_subtensor(x[:3, 1:4], m[:, 1:])]  # one axis indexed
    fs = compile_both([x, y, m], outs)
    assert_all_c(fs[0])
    rng = np.random.default_rng(3)
    assert_same(fs, rng.normal(size=(3, 4)), rng.normal(size=4),
                rng.normal(size=(3, 4)))
