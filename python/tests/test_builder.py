"""Graphs built from Python (GraphBuilder), with Python ops for what graphjit
has no op for: the way PyTensor's graphs come in."""
import numpy as np
import pytest

import graphjit
from graphjit import GraphBuilder


def build_affine_with_python_op(perform, name="MyOp"):
    b = GraphBuilder("f", "built.py")
    x = b.input("x", "float64", [None])
    w = b.shared("w", np.array([1.0, 2.0, 3.0]), "float64")
    (y,) = b.apply("mul", [x, b.literal(2.0)], line=1)
    (z,) = b.apply_python(perform, [y, w], [("float64", [None])], name,
                          "MyOpClass", line=2)
    (s,) = b.apply("sum", [z], line=3)
    b.name(s, "s")
    b.output(s)
    (w2,) = b.apply("add", [w, b.literal(1.0)], line=4)
    b.update("w", w2)
    return b.finish()


def test_python_op_runs_inside_compiled_code_and_is_py_in_profile():
    calls = []

    def perform(inputs):
        y, w = inputs
        assert not y.flags.writeable  # graphjit's values are immutable
        calls.append(1)
        return [np.cos(y) * w]

    module, graph = build_affine_with_python_op(perform)
    f = graphjit.function(graph, profile=True)
    x = np.array([0.1, 0.2, 0.3])
    w = np.array([1.0, 2.0, 3.0])
    for _ in range(3):
        np.testing.assert_allclose(f(x), np.sum(np.cos(2 * x) * w))
        w = w + 1
    assert len(calls) == 3
    rows = {r.op: r for r in f.profile.profile().rows()}
    assert rows["MyOp"].type == "Py" and rows["MyOp"].op_class == "MyOpClass"
    assert rows["MyOp"].loc == "built.py:2" and rows["MyOp"].calls == 3
    assert all(r.type == "C" for op, r in rows.items() if op != "MyOp")


def test_python_exception_reaches_caller_with_the_apply_named():
    state = {"fail": True}

    def perform(inputs):
        if state["fail"]:
            raise ZeroDivisionError("no luck today")
        return [inputs[0] + inputs[1]]

    module, graph = build_affine_with_python_op(perform, "Flaky")
    f = graphjit.function(graph)
    x = np.ones(3)
    with pytest.raises(ZeroDivisionError, match="no luck today") as info:
        f(x)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "Flaky" in notes and "built.py:2" in notes
    # The update did not happen, and the function still works.
    state["fail"] = False
    assert f(x) == pytest.approx(np.sum(2 * x + [1.0, 2.0, 3.0]))


def test_python_op_results_are_checked():
    def wrong_rank(inputs):
        return [np.ones((2, 2))]

    module, graph = build_affine_with_python_op(wrong_rank, "WrongRank")
    with pytest.raises(graphjit.GraphjitError, match="WrongRank.*shape"):
        graphjit.function(graph)(np.ones(3))

    def too_many(inputs):
        return [inputs[0], inputs[0]]

    module, graph = build_affine_with_python_op(too_many, "TooMany")
    with pytest.raises(graphjit.GraphjitError, match="returned 2 outputs"):
        graphjit.function(graph)(np.ones(3))


def test_destroyed_inputs_are_copies():
    def overwrite(inputs):
        inputs[0][...] = 7.0  # allowed: it was declared destroyed
        return [inputs[0]]

    b = GraphBuilder("g")
    x = b.input("x", "float64", [3])
    (y,) = b.apply_python(overwrite, [x], [("float64", [3])], "Overwrite",
                          "Overwrite", destroyed=[0])
    (z,) = b.apply("add", [x, y])
    b.output(z)
    _, graph = b.finish()
    x = np.zeros(3)
    np.testing.assert_array_equal(graphjit.function(graph)(x), [7.0] * 3)
    np.testing.assert_array_equal(x, 0.0)


def test_builder_errors_are_clear():
    b = GraphBuilder("h")
    x = b.input("x", "float64", [2])
    y = b.input("y", "float64", [3])
    with pytest.raises(ValueError, match="broadcast|shape|dim"):
        b.apply("add", [x, y])
    with pytest.raises(ValueError, match="unknown op|nosuch"):
        b.apply("nosuch", [x])
    with pytest.raises(TypeError, match="no dtype 'complex64'"):
        b.input("c", "complex64", [2])
    other = GraphBuilder("other").input("q", "float64", [2])
    with pytest.raises(ValueError, match="another graph"):
        b.apply("neg", [other])


def test_an_apply_without_a_line_cites_the_python_that_built_it():
    import inspect

    def perform(inputs):
        raise ZeroDivisionError("no luck today")

    b = GraphBuilder("g")  # no file name: Python lines are cited
    x = b.input("x", "float64", [3])
    (y,) = b.apply_python(perform, [x], [("float64", [3])], "Flaky", "Flaky")
    line = inspect.currentframe().f_lineno - 1
    b.output(y)
    _, graph = b.finish()
    with pytest.raises(ZeroDivisionError) as info:
        graphjit.function(graph)(np.zeros(3))
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "%s:%d" % (__file__, line) in notes, notes
    assert "<api>" not in notes
    # A builder with a file name of its own and no line cites no line.
    b = GraphBuilder("g", "mine.graph")
    x = b.input("x", "float64", [3])
    (y,) = b.apply_python(perform, [x], [("float64", [3])], "Flaky", "Flaky")
    b.output(y)
    _, graph = b.finish()
    with pytest.raises(ZeroDivisionError) as info:
        graphjit.function(graph)(np.zeros(3))
    assert __file__ not in "\n".join(getattr(info.value, "__notes__", []))
