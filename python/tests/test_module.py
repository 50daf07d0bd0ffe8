"""graphjit's own graphs from Python: load, call, shared variables, errors,
threads."""
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import graphjit
from conftest import EXAMPLES, sigmoid

TUTORIAL = """
func f(x: f64[n], y: f64[n], z: f64[n]) -> (out) {
  out = mul(add(add(x, y), z), 2.0)
}
"""


def logistic_step(w, b, x, y):
    """NumPy's train step of examples/logistic_regression.graph."""
    n = x.shape[0]
    p = sigmoid(x @ w + b)
    xent = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    cost = xent.mean() + 0.01 * np.sum(w * w)
    gz = (p - y) / n
    gw = x.T @ gz + 0.02 * w
    return cost, w - 0.1 * gw, b - 0.1 * gz.sum()


def test_tutorial_graph_matches_numpy(rng):
    f = graphjit.loads(TUTORIAL).function("f")
    x, y, z = rng.normal(size=(3, 5))
    out = f(x, y, z)
    assert isinstance(out, np.ndarray) and out.dtype == np.float64
    np.testing.assert_allclose(out, (x + y + z) * 2, rtol=1e-15)
    # By name, in any order, and mixed.
    np.testing.assert_allclose(f(z=z, y=y, x=x), out)
    np.testing.assert_allclose(f(x, z=z, y=y), out)


@pytest.mark.parametrize("linker", ["c|py", "c", "py"])
def test_train_step_updates_shared_variables_like_numpy(rng, linker):
    m = graphjit.load(EXAMPLES / "logistic_regression.graph")
    w0 = rng.normal(scale=0.05, size=784)
    m.shared["w"].set_value(w0)
    m.shared["b"].set_value(0.25)
    train = m.function("train", linker=linker)
    x = rng.normal(size=(20, 784))
    y = (rng.random(20) > 0.5).astype(np.float64)
    w, b = w0, 0.25
    for _ in range(3):
        cost = train(x, y)
        want, w, b = logistic_step(w, b, x, y)
        np.testing.assert_allclose(cost, want, rtol=1e-12)
    np.testing.assert_allclose(m.shared["w"].get_value(), w, rtol=1e-12)
    np.testing.assert_allclose(m.shared["b"].get_value(), b, rtol=1e-12)


@pytest.mark.parametrize("keywords", [dict(llvm_pipeline=True),
                                      dict(opt_level=0), dict(opt_level=3)])
def test_optimization_keywords_change_no_result(rng, keywords):
    """graphjit's kernel pipeline (the default), LLVM's O2, O0 and O3: the
    step NumPy computes."""
    m = graphjit.load(EXAMPLES / "logistic_regression.graph")
    w0 = rng.normal(scale=0.05, size=784)
    m.shared["w"].set_value(w0)
    train = m.function("train", **keywords)
    x = rng.normal(size=(20, 784))
    y = (rng.random(20) > 0.5).astype(np.float64)
    cost = train(x, y)
    want, w, _ = logistic_step(w0, 0.0, x, y)
    np.testing.assert_allclose(cost, want, rtol=1e-12)
    np.testing.assert_allclose(m.shared["w"].get_value(), w, rtol=1e-12)
    with pytest.raises(TypeError):
        m.function("train", llvm_pipeline="yes")


def test_outputs_own_their_memory_and_shared_values_are_copies(rng):
    m = graphjit.loads("""
shared w: f64[2] = 1.0
func f(x: f64[2]) -> (q, y) {
  q = w
  y = x
  update w = add(w, 1.0)
}
""")
    f = m.function("f")
    x = np.array([3.0, 4.0])
    q, y = f(x)
    np.testing.assert_array_equal(q, [1.0, 1.0])  # w at the call
    np.testing.assert_array_equal(y, x)
    y[0] = 99.0  # the result is the caller's: x is untouched
    assert x[0] == 3.0
    q[0] = 99.0  # and so is w's storage
    np.testing.assert_array_equal(m.shared["w"].get_value(), [2.0, 2.0])
    v = m.shared["w"].get_value()
    v[:] = 0
    np.testing.assert_array_equal(m.shared["w"].get_value(), [2.0, 2.0])


def test_safe_conversions_only(rng):
    f = graphjit.loads(TUTORIAL).function("f")
    a = np.arange(3.0)
    # Python numbers and lists, and integers into f64, lose nothing.
    np.testing.assert_allclose(f([1, 2, 3], a, np.arange(3, dtype=np.int32)),
                               ([1, 2, 3] + a + np.arange(3)) * 2)
    g = graphjit.loads("func g(x: f32[n]) -> (y) { y = mul(x, 2.0) }"
                       ).function("g")
    with pytest.raises(TypeError, match=r"input 'x' \(#0\) of 'g'.*float32"):
        g(np.ones(3))  # float64 into f32 would round
    np.testing.assert_allclose(g(np.ones(3, np.float32)), 2.0)


def test_bad_arguments_name_the_input():
    f = graphjit.loads(TUTORIAL).function("f")
    a = np.ones(3)
    with pytest.raises(TypeError, match="missing input 'z'"):
        f(a, a)
    with pytest.raises(TypeError, match="takes 3 inputs, got 4"):
        f(a, a, a, a)
    with pytest.raises(TypeError, match="no input named 'w'"):
        f(a, a, w=a)
    with pytest.raises(TypeError, match="got input 'x' twice"):
        f(a, a, a, x=a)
    with pytest.raises(ValueError, match="input 'z' dim 0 is 4, but 'n' is 3"):
        f(a, a, np.ones(4))
    with pytest.raises(ValueError, match="rank 1"):
        f(a, a, np.ones((3, 1)))
    with pytest.raises(TypeError, match="cannot be read as an array|expected"):
        f(a, a, object())


def test_run_time_error_names_the_apply_and_keeps_shared_values():
    m = graphjit.loads("""
shared w: f64[3] = 1.0
func f(x: f64[n], y: f64[m]) -> (s) {
  s = sum(add(x, y))
  update w = add(w, 1.0)
}
""", "broadcast.graph")
    f = m.function("f")
    with pytest.raises(graphjit.GraphjitError,
                       match=r"broadcast.graph:4:.*Apply node.*\(3,\).*\(2,\)"):
        f(np.ones(3), np.ones(2))
    np.testing.assert_array_equal(m.shared["w"].get_value(), [1.0] * 3)
    assert f(np.ones(3), np.ones(3)) == 6.0  # still usable
    np.testing.assert_array_equal(m.shared["w"].get_value(), [2.0] * 3)


def test_parse_errors_say_where():
    with pytest.raises(graphjit.GraphjitError, match=r"bad.graph:2:\d+: error"):
        graphjit.loads("func f(x: f64[n]) -> (y) {\n  y = nosuchop(x)\n}",
                       "bad.graph")
    with pytest.raises(graphjit.GraphjitError, match="cannot open"):
        graphjit.load("/nonexistent/x.graph")


def test_set_value_checks_type():
    m = graphjit.load(EXAMPLES / "logistic_regression.graph")
    with pytest.raises(ValueError, match="shared variable 'w' is f64\\[784\\]"):
        m.shared["w"].set_value(np.ones(3))
    with pytest.raises(TypeError, match="float64"):
        m.shared["w"].set_value(np.ones(784, dtype=np.complex128))
    with pytest.raises(KeyError):
        m._m.get_shared("nope")


def test_theano_keywords():
    m = graphjit.loads(TUTORIAL)
    f = m.function("f", linker="py", optimizer="None", allow_gc=False)
    assert f.linker == "py"
    assert [a["op_class"] for a in f.applies()] == ["Elemwise"] * 3
    fused = m.function("f")
    assert len(fused.applies()) == 1 and fused.applies()[0]["compiled"]
    excl = m.function("f", optimizer_excluding="fusion")
    assert len(excl.applies()) == 3
    with pytest.raises(ValueError, match="linker"):
        m.function("f", linker="nope")
    with pytest.raises(TypeError, match="profile"):
        m.function("f", profile=3.5)


def test_calls_from_several_threads_at_once(rng):
    m = graphjit.load(EXAMPLES / "logistic_regression.graph")
    m.shared["w"].set_value(rng.normal(size=784))
    predict = m.function("predict")
    inputs = [rng.normal(size=(64, 784)) for _ in range(4)]
    wants = [predict(x) for x in inputs]
    bad = []

    def work(i):
        for _ in range(200):
            if not np.array_equal(predict(inputs[i]), wants[i]):
                bad.append(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert bad == []


def run_on_threads(work, n_threads=4, timeout=60):
    """Runs work(i) on n threads; fails if one has not finished in time
    (a deadlock) or raised."""
    errors = []

    def guarded(i):
        try:
            work(i)
        except BaseException as e:  # reported on the test's thread
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(i,))
               for i in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    assert not any(t.is_alive() for t in threads), "a call never returned"
    assert errors == []


@pytest.mark.parametrize("device", [None, "cuda-emulated"])
def test_short_calls_from_several_threads_at_once(rng, device):
    # On the CPU, calls this short keep the GIL (docs/python.md,
    # "Threads"); on a device they release it. Each thread's results are
    # still its own.
    f = graphjit.loads(TUTORIAL).function("f", device=device)
    inputs = [rng.normal(size=(3, 3)) for _ in range(4)]

    def work(i):
        x, y, z = inputs[i]
        for _ in range(2000):
            np.testing.assert_array_equal(f(x, y, z), (x + y + z) * 2)

    run_on_threads(work)


def python_op_function(**options):
    """sin(2 x), the sine a Python op's."""
    b = graphjit.GraphBuilder("f", "threads.py")
    x = b.input("x", "float64", [None])
    (y,) = b.apply("mul", [x, b.literal(2.0)], line=1)
    (z,) = b.apply_python(lambda ins: [np.sin(ins[0])], [y],
                          [("float64", [None])], "Sin", "SinOp", line=2)
    b.output(z)
    return graphjit.function(b.finish()[1], **options)


def test_short_calls_with_a_python_op_from_several_threads(rng):
    # A Python op takes the GIL inside the call, so such a function always
    # releases it around its calls: no thread waits on another forever.
    f = python_op_function()
    inputs = [rng.normal(size=3) for _ in range(4)]

    def work(i):
        for _ in range(500):
            np.testing.assert_allclose(f(inputs[i]), np.sin(2 * inputs[i]))

    run_on_threads(work)


# Run in a process of its own: the helpers come from this file.
GPU_LOCK_SCRIPT = """
import sys, threading
import numpy as np
import graphjit
sys.path.insert(0, %r)
from test_module import TUTORIAL, python_op_function
with_op = python_op_function(device="cuda-emulated")
plain = graphjit.loads(TUTORIAL).function("f", device="cuda-emulated")
x, y, z = np.random.default_rng(0).normal(size=(3, 3))
got = {}
def a():
    for _ in range(3000):
        got["a"] = with_op(x)
def b():
    for _ in range(30000):
        got["b"] = plain(x, y, z)
threads = [threading.Thread(target=f) for f in (a, b)]
for t in threads:
    t.start()
for t in threads:
    t.join()
np.testing.assert_allclose(got["a"], np.sin(2 * x))
np.testing.assert_array_equal(got["b"], (x + y + z) * 2)
print("finished")
"""


def test_gpu_calls_with_and_without_a_python_op_do_not_deadlock():
    # Calls on one device wait for its lock. A function with a Python op
    # holds it while its perform waits for the GIL, so a short call of
    # another function on the device must not wait for the lock holding
    # the GIL. A deadlock would hang the process, hence a subprocess.
    try:
        script = GPU_LOCK_SCRIPT % str(Path(__file__).parent)
        p = subprocess.run([sys.executable, "-c", script],
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("two threads calling functions on one device deadlocked")
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.strip() == "finished"


def test_gil_is_released_while_a_call_runs():
    # A big call on one thread while another thread counts: the counter
    # only moves if the call does not hold the GIL.
    f = graphjit.loads("""
func f(a: f64[n, n], b: f64[n, n]) -> (c) { c = dot(a, b) }""").function("f")
    a = np.ones((700, 700))
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)

    t = threading.Thread(target=count)
    t.start()
    try:
        before = len(ticks)
        for _ in range(5):
            f(a, a)
        moved = len(ticks) - before
    finally:
        done.set()
        t.join()
    assert moved > 0


ALIASED = """
shared w: f64[2] = zeros
func f(x: f64[2]) -> (q, w, y, r) {
  q = w
  y = x
  r = mul(x, 1.0)
  update w = add(w, 1.0)
}
"""


@pytest.mark.parametrize("linker", ["c|py", "py"])
def test_outputs_keep_the_functions_names(linker):
    # q is the shared variable, y the input, r becomes x once mul_one ran:
    # each keeps its name; an output that is a shared variable holds its
    # value at the call.
    f = graphjit.loads(ALIASED).function("f", linker=linker)
    assert f.output_names == ["q", "w", "y", "r"]
    x = np.array([3.0, 4.0])
    q, w, y, r = f(x)
    np.testing.assert_array_equal(q, [0.0, 0.0])
    np.testing.assert_array_equal(w, [0.0, 0.0])
    np.testing.assert_array_equal(y, x)
    np.testing.assert_array_equal(r, x)
    q, w, _, _ = f(x)
    np.testing.assert_array_equal(q, [1.0, 1.0])


SYMBOLIC_SHAPES = """
func f(x: f64[n, k], b: bool[m]) -> (r, t, s, e) {
  r = reshape(x, shape=[k, n])
  t = reshape(transpose(x), shape=[k, -1, 1])
  s = alloc(exp(x), shape=[m, n, k])
  e = reshape(x, shape=[m, -1])
}
"""


@pytest.mark.parametrize("linker", ["c|py", "py"])
def test_shapes_named_by_the_inputs_dims_follow_each_call(rng, linker):
    # The compiled code reads n, k and m from the call's inputs; calls with
    # new sizes (an empty one among them) get their own shapes.
    f = graphjit.loads(SYMBOLIC_SHAPES).function("f", linker=linker)
    for n, k, m in [(2, 3, 2), (4, 5, 1), (0, 3, 2), (3, 2, 3), (2, 3, 2)]:
        x = rng.normal(size=(n, k))
        r, t, s, e = f(x, np.zeros(m, bool))
        np.testing.assert_array_equal(r, x.reshape(k, n))
        np.testing.assert_array_equal(t, x.T.reshape(k, -1, 1))
        np.testing.assert_allclose(s, np.broadcast_to(np.exp(x), (m, n, k)),
                                   rtol=1e-15)
        np.testing.assert_array_equal(e, x.reshape(m, -1))
    # A size that does not fit: prepare's words, whichever linker.
    with pytest.raises(graphjit.GraphjitError,
                       match=r"cannot reshape array of size 6 into shape "
                             r"\(4,newaxis\)"):
        f(rng.normal(size=(2, 3)), np.zeros(4, bool))
