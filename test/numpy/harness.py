"""Checks graphjit against NumPy: one small graph per case.

Each case writes its graph and its inputs to a scratch folder, runs the
`graphjit` command on them, reads the outputs back from .npy files and
compares dtype, shape and values with what NumPy computed. Usage in a test
script:

    import harness as H
    H.check("add f64", "func f(x: f64[3], y: f64[3]) -> (r) { r = add(x, y) }",
            inputs={"x": a, "y": b}, expected={"r": a + b})
    H.expect_error("neg of bool", "func f(x: bool[3]) -> (r) { r = neg(x) }",
                   inputs=None, contains="bool")
    H.main()

The graphjit binary is the first command-line argument (or $GRAPHJIT).
"""
import os
import signal
import subprocess
import sys
import tempfile
import traceback

import numpy as np

GRAPHJIT = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("GRAPHJIT", "graphjit")
LINKERS = os.environ.get("GRAPHJIT_TEST_LINKERS", "py").split(",")
# Where Applies run: cpu, or the GPU path (cuda-emulated runs it on the
# host; cuda needs a GPU). CTest runs the scripts once more on cuda-emulated.
DEVICES = os.environ.get("GRAPHJIT_TEST_DEVICES", "cpu").split(",")

# GRAPHJIT_TEST_SHARD=I/N runs every N-th case from the I-th (0-based), so
# that a slow device's run can be split across processes.
_SHARD_INDEX, _SHARD_COUNT = (
    [int(p) for p in os.environ["GRAPHJIT_TEST_SHARD"].split("/")]
    if os.environ.get("GRAPHJIT_TEST_SHARD") else (0, 1))
# GRAPHJIT_TEST_FROM=K skips the first K cases: a run cut off by a time limit
# goes on where it stopped.
_FIRST_CASE = int(os.environ.get("GRAPHJIT_TEST_FROM", "0"))

_passed = 0
_seen = 0
_failed = []
_scratch = tempfile.TemporaryDirectory(prefix="graphjit-numpy-")
_counter = 0


def _case_dir():
    global _counter
    _counter += 1
    d = os.path.join(_scratch.name, "case%d" % _counter)
    os.makedirs(d)
    return d


def run_graphjit(graph_text, inputs=None, function="f", dims=None,
                 linker="py", calls=1, extra=(), device="cpu"):
    """Runs graphjit on graph_text; returns (returncode, stdout, stderr,
    output folder)."""
    d = _case_dir()
    path = os.path.join(d, "case.graph")
    with open(path, "w") as f:
        f.write(graph_text)
    args = [GRAPHJIT, path, "-function=" + function, "-linker=" + linker,
            "-calls=%d" % calls, "-output-dir=" + os.path.join(d, "out"),
            "-device=" + device]
    for name, value in (inputs or {}).items():
        p = os.path.join(d, "in_%s.npy" % name)
        np.save(p, np.asarray(value))
        args.append("-input=%s=%s" % (name, p))
    for name, size in (dims or {}).items():
        args.append("-dim=%s=%d" % (name, size))
    args.extend(extra)
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr, os.path.join(d, "out")


def default_rtol(dtype):
    return 1e-5 if dtype == np.float32 else 1e-12


def compare(name, got, want, rtol=None, atol=None):
    """Raises AssertionError describing the first difference."""
    want = np.asarray(want)
    if got.dtype != want.dtype:
        raise AssertionError("%s: dtype %s, NumPy gives %s" % (name, got.dtype, want.dtype))
    if got.shape != want.shape:
        raise AssertionError("%s: shape %s, NumPy gives %s" % (name, got.shape, want.shape))
    if want.dtype.kind == "f":
        r = default_rtol(want.dtype) if rtol is None else rtol
        a = (r if atol is None else atol)
        np.testing.assert_allclose(got, want, rtol=r, atol=a, equal_nan=True,
                                   err_msg=name)
    elif not np.array_equal(got, want):
        bad = np.argwhere(got != want)[:5]
        raise AssertionError("%s: values differ at %s: got %s, NumPy %s" % (
            name, bad.tolist(), got[tuple(bad.T)], want[tuple(bad.T)]))


def _record(label, fn):
    global _passed, _seen
    _seen += 1
    if _seen <= _FIRST_CASE or (_seen - 1) % _SHARD_COUNT != _SHARD_INDEX:
        return
    try:
        fn()
        _passed += 1
    except Exception as e:  # a failing case must not stop the others
        msg = str(e) if isinstance(e, AssertionError) else traceback.format_exc()
        _failed.append((label, msg))
        print("FAIL: %s\n%s" % (label, msg), flush=True)


def check(label, graph_text, inputs=None, expected=None, rtol=None, atol=None,
          function="f", dims=None, linkers=None, calls=1):
    """graphjit's outputs (and shared variables) equal `expected`, for every
    linker under test."""
    for linker, device in _configurations(linkers):
        def one(linker=linker, device=device):
            rc, out, err, outdir = run_graphjit(graph_text, inputs, function,
                                                dims, linker, calls,
                                                device=device)
            if rc != 0:
                raise AssertionError("graphjit failed (exit %d):\n%s%s" % (rc, out, err))
            for name, want in expected.items():
                got = np.load(os.path.join(outdir, name + ".npy"))
                compare(name, got, want, rtol, atol)
        _record(_label(label, linker, device), one)


def expect_error(label, graph_text, inputs=None, contains="", function="f",
                 dims=None, linkers=None):
    """graphjit exits with status 1 and says `contains` on stderr, without
    crashing."""
    for linker, device in _configurations(linkers):
        def one(linker=linker, device=device):
            rc, out, err, _ = run_graphjit(graph_text, inputs, function, dims,
                                           linker, device=device)
            if rc != 1:
                raise AssertionError("expected exit status 1, got %d:\n%s%s" % (rc, out, err))
            if contains not in err:
                raise AssertionError("stderr lacks %r:\n%s" % (contains, err))
        _record(_label(label, linker, device), one)


def _configurations(linkers):
    return [(l, d) for d in DEVICES for l in (linkers or LINKERS)]


def _label(label, linker, device):
    return "%s [%s%s]" % (label, linker, "" if device == "cpu" else ", " + device)


def fail(label, message):
    """Records a failure found outside check()/expect_error()."""
    _failed.append((label, message))
    print("FAIL: %s\n%s" % (label, message), flush=True)


def record(label, fn):
    """Runs fn() as one case: it passes unless it raises."""
    _record(label, fn)


def _interrupted(signum, frame):
    """A run stopped by `timeout` still says how far it got (once: timeout
    signals the child and then its whole process group, this one again)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print("interrupted by signal %d after %d passed, %d failed"
          % (signum, _passed, len(_failed)), flush=True)
    if _failed:
        print("failed: " + ", ".join(label for label, _ in _failed), flush=True)
    _scratch.cleanup()
    sys.exit(1)


signal.signal(signal.SIGTERM, _interrupted)


def main():
    """Prints the summary line CTest's log shows and exits non-zero on any
    failure."""
    print("%d passed, %d failed" % (_passed, len(_failed)))
    if _failed:
        print("failed: " + ", ".join(label for label, _ in _failed))
    _scratch.cleanup()
    sys.exit(1 if _failed or _passed == 0 else 0)
