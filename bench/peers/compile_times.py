"""Compile time, cold and warm, each in a fresh process.

graphjit: Function::compile's total as -print-compile-time prints it, cold
with an empty compile cache (-cache-dir=NEW), warm with the object that run
stored. PyTensor: pytensor.function() plus the first call, cold with an empty
base_compiledir (so its C modules, the C VM's own included, and its Numba
cache, base_compiledir/numba, start empty), warm in a new process on the
base_compiledir the cold run filled. The whole processes' wall times are
kept as well.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def graphjit_compile(gj, case, inputs_dir, workdir, cold_reps, warm_reps):
    cold, warm = [], []
    for _ in range(cold_reps):
        cache = tempfile.mkdtemp(prefix="gjcache-", dir=workdir)
        t, wall, cached = gj.compile_times(case, inputs_dir, cache)
        assert not cached, "a new compile cache held the object"
        cold.append((t, wall))
    for _ in range(warm_reps):
        t, wall, cached = gj.compile_times(case, inputs_dir, cache)
        assert cached, "graphjit did not use the object it had just cached"
        warm.append((t, wall))
    return summarize(cold), summarize(warm)


def pytensor_compile(case, mode, workdir, env, smoke, cold_reps, warm_reps):
    cold, warm, applies = [], [], None
    for _ in range(cold_reps):
        compiledir = tempfile.mkdtemp(prefix="ptcompiledir-", dir=workdir)
        r, wall = _pytensor_process(case, mode, workdir, env, smoke, compiledir)
        cold.append((r["function"] + r["first_call"], wall))
        applies = r["applies"]
    for _ in range(warm_reps):
        r, wall = _pytensor_process(case, mode, workdir, env, smoke, compiledir)
        warm.append((r["function"] + r["first_call"], wall))
    return summarize(cold), summarize(warm), applies


def _pytensor_process(case, mode, workdir, env, smoke, compiledir):
    env = dict(env)
    env["PYTENSOR_FLAGS"] = "base_compiledir=" + compiledir
    env["NUMBA_CACHE_DIR"] = os.path.join(compiledir, "numba")
    argv = [sys.executable, os.path.join(HERE, "pytensor_compile.py"),
            workdir, case.key, mode] + (["--smoke"] if smoke else [])
    start = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        raise RuntimeError("PyTensor compile of %s (%s) failed:\n%s" % (
            case.key, mode, p.stderr[-3000:]))
    return json.loads(p.stdout.strip().splitlines()[-1]), wall


def summarize(samples):
    """Median compile seconds and median process seconds."""
    if not samples:
        return None
    return {"compile": statistics.median(s[0] for s in samples),
            "process": statistics.median(s[1] for s in samples),
            "reps": len(samples)}
