"""Compiled functions called through the C ABI (graphjit/CEntry.h) from
ctypes, as a foreign caller calls them: results in the caller's buffers,
bound data, statuses and messages, threads, lifetime, a Py node."""
import ctypes
import gc
import threading

import numpy as np
import pytest

import graphjit
from graphjit import GraphBuilder

SOURCE = """
func weighted(x: f64[n], w: f64[n]) -> (v, g) {
  g = mul(w, x)
  v = mul(0.5, sum(mul(g, x)))
}
func density(x: f64[n]) -> (lp, dx) {
  lp = mul(-0.5, sum(sqr(x)))
  dx = neg(x)
}
"""

P = ctypes.c_void_p
SYMBOLS = graphjit.c_symbols()
ENTRY_CALL = ctypes.CFUNCTYPE(ctypes.c_int64, P, ctypes.POINTER(P),
                              ctypes.POINTER(P))(SYMBOLS["gj_entry_call"])
LAST_ERROR = ctypes.CFUNCTYPE(ctypes.c_char_p)(SYMBOLS["gj_entry_last_error"])
DOUBLES = ctypes.POINTER(ctypes.c_double)
DENSITY_LOGP = ctypes.CFUNCTYPE(
    ctypes.c_int64, ctypes.c_uint64, DOUBLES, DOUBLES, DOUBLES,
    P)(SYMBOLS["gj_density_logp"])


def pointers(*arrays):
    return (P * len(arrays))(*[a.ctypes.data for a in arrays])


def call(entry, inputs, outputs):
    return ENTRY_CALL(entry.pointer, pointers(*inputs), pointers(*outputs))


def doubles(a):
    return a.ctypes.data_as(DOUBLES)


@pytest.fixture(scope="module")
def module():
    return graphjit.loads(SOURCE, "entry.graph")


def test_results_land_in_the_callers_buffers(module):
    f = module.function("weighted")
    w = np.array([1.0, 2.0, 3.0, 4.0])
    entry = f.c_entry(bound={"w": w}, free_shapes={"x": (4,)},
                      output_shapes=[(), (4,)])
    assert entry.free_names == ["x"]
    assert entry.free_shapes == [(4,)]
    assert entry.output_shapes == [(), (4,)]
    rng = np.random.default_rng(3)
    for _ in range(3):
        x = rng.normal(size=4)
        v, g = np.zeros(()), np.zeros(4)
        assert call(entry, [x], [v, g]) == 0, LAST_ERROR()
        np.testing.assert_allclose(g, w * x)
        np.testing.assert_allclose(v, 0.5 * np.sum(w * x * x))
        fv, fg = f(x, w)  # the same function called from Python
        assert v == fv and np.array_equal(g, fg)


def test_density_abi_and_statuses(module):
    f = module.function("density")
    entry = f.c_entry(bound={}, free_shapes={"x": (3,)},
                      output_shapes=[(), (3,)])
    density = np.array([entry.pointer, 0], dtype=np.uintp)
    x = np.array([0.5, -1.0, 2.0])
    g, lp = np.zeros(3), np.zeros(())
    assert DENSITY_LOGP(3, doubles(x), doubles(g), doubles(lp),
                        density.ctypes.data) == 0
    np.testing.assert_allclose(lp, -0.5 * np.sum(x * x))
    np.testing.assert_allclose(g, -x)
    assert DENSITY_LOGP(2, doubles(x), doubles(g), doubles(lp),
                        density.ctypes.data) == -1
    assert b"does not take 2 float64 values" in LAST_ERROR()
    x[1] = np.inf
    assert DENSITY_LOGP(3, doubles(x), doubles(g), doubles(lp),
                        density.ctypes.data) == 3
    assert LAST_ERROR() == b"gj_density_logp: gradient element 1 is -INF"


def test_calls_from_threads_are_profiled(module):
    f = module.function("density", profile=True)
    entry = f.c_entry(bound={}, free_shapes={"x": (5,)},
                      output_shapes=[(), (5,)])
    density = np.array([entry.pointer, 0], dtype=np.uintp)
    wrong = []

    def chain(seed):
        rng = np.random.default_rng(seed)
        g, lp = np.zeros(5), np.zeros(())
        for _ in range(200):
            x = rng.normal(size=5)
            # ctypes lets go of the GIL for the call: the threads overlap.
            status = DENSITY_LOGP(5, doubles(x), doubles(g), doubles(lp),
                                  density.ctypes.data)
            if status or not np.allclose(g, -x) or \
                    not np.isclose(lp, -0.5 * x @ x):
                wrong.append((seed, status))

    threads = [threading.Thread(target=chain, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
    assert "Time in 800 calls" in f.profile.summary_text()


def test_the_entry_keeps_its_function_and_data_alive(module):
    f = module.function("weighted")
    entry = f.c_entry(bound={"w": np.array([2.0, 3.0])},
                      free_shapes={"x": (2,)}, output_shapes=[(), (2,)])
    del f
    gc.collect()
    x, v, g = np.array([1.0, 1.0]), np.zeros(()), np.zeros(2)
    assert call(entry, [x], [v, g]) == 0
    np.testing.assert_allclose(g, [2.0, 3.0])
    assert entry.function.name == "weighted"


def test_bad_arguments_name_the_input(module):
    f = module.function("weighted")
    w = np.zeros(3)
    with pytest.raises(ValueError, match="input 'w' .* is neither bound nor"):
        f.c_entry(bound={}, free_shapes={"x": (3,)},
                  output_shapes=[(), (3,)])
    with pytest.raises(ValueError, match="input 'x' .* is both bound and"):
        f.c_entry(bound={"x": w, "w": w}, free_shapes={"x": (3,)},
                  output_shapes=[(), (3,)])
    with pytest.raises(TypeError, match="input 'w' .* dtype float64|f64"):
        f.c_entry(bound={"w": w.astype(np.float32)},
                  free_shapes={"x": (3,)}, output_shapes=[(), (3,)])
    with pytest.raises(ValueError, match="no input of some names"):
        f.c_entry(bound={"w": w, "q": w}, free_shapes={"x": (3,)},
                  output_shapes=[(), (3,)])
    with pytest.raises(ValueError, match="'w' dim 0 is 3, but 'n' is 4"):
        f.c_entry(bound={"w": w}, free_shapes={"x": (4,)},
                  output_shapes=[(), (4,)])
    with pytest.raises(ValueError, match="output 1 .* cannot have shape"):
        f.c_entry(bound={"w": w}, free_shapes={"x": (3,)},
                  output_shapes=[(), (3, 1)])
    with pytest.raises(TypeError, match="free_shapes\\['x'\\]: expected a "
                                        "shape"):
        f.c_entry(bound={"w": w}, free_shapes={"x": "3"},
                  output_shapes=[(), (3,)])


def test_a_py_node_takes_the_gil_itself():
    # A Python op inside: ctypes calls without the GIL, from threads, and
    # the op's perform takes it around itself.
    b = GraphBuilder("f", "entry.py")
    x = b.input("x", "float64", [3])
    (y,) = b.apply_python(lambda ins: [np.cos(ins[0])], [x],
                          [("float64", [3])], "Cos", "CosOp", line=1)
    (s,) = b.apply("sum", [y], line=2)
    b.output(s)
    b.output(y)
    module, graph = b.finish()
    f = graphjit.function(graph)
    entry = f.c_entry(bound={}, free_shapes={"x": (3,)},
                      output_shapes=[(), (3,)])
    results = []

    def run(seed):
        x = np.full(3, float(seed))
        s, y = np.zeros(()), np.zeros(3)
        results.append((seed, call(entry, [x], [s, y]), float(s), y.copy()))

    threads = [threading.Thread(target=run, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for seed, status, s, y in sorted(results):
        assert status == 0
        np.testing.assert_allclose(y, np.cos(np.full(3, float(seed))))
        np.testing.assert_allclose(s, 3 * np.cos(seed))
