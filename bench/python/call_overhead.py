#!/usr/bin/env python3
"""Call overhead from Python (issue 15, section 2): the tutorial graph
(x+y+z)*2 on 3-element vectors, graphjit against one NumPy add, NumPy's own
(x+y+z)*2, and PyTensor's C VM and default mode, measured side by side in one
run (the best of several repeats of many calls each; these machines are
noisy). Also prints graphjit's call overhead from C++ (graphjit-bench call)
when the build has it. Run with the project's venv:

    .venv/bin/python bench/python/call_overhead.py
"""
import argparse
import os
import subprocess
import sys
import timeit

import numpy as np

import graphjit

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TUTORIAL = """
func f(x: f64[n], y: f64[n], z: f64[n]) -> (out) {
  out = mul(add(add(x, y), z), 2.0)
}
"""


def best_ns(fn, number, repeat):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e9


def pytensor_functions():
    try:
        import pytensor
        import pytensor.tensor as pt
    except ImportError:
        return {}
    x, y, z = pt.dvectors("x", "y", "z")
    out = (x + y + z) * 2
    fns = {"PyTensor C VM": pytensor.function([x, y, z], out, mode="FAST_RUN")}
    try:
        fns["PyTensor default (%s)" % pytensor.config.mode] = \
            pytensor.function([x, y, z], out)
    except Exception as e:  # a mode that cannot compile here
        print("note: PyTensor's default mode failed: %s" % e)
    return fns


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--number", type=int, default=20000)
    p.add_argument("--repeat", type=int, default=9)
    a = p.parse_args()
    f = graphjit.loads(TUTORIAL).function("f")
    v = np.random.default_rng(0).normal(size=(3, 3))
    x, y, z = v
    np.testing.assert_allclose(f(x, y, z), (x + y + z) * 2)
    rows = [("graphjit (Python)", lambda: f(x, y, z)),
            ("graphjit (Python, by name)", lambda: f(x=x, y=y, z=z)),
            ("NumPy: one add", lambda: np.add(x, y)),
            ("NumPy: (x+y+z)*2", lambda: (x + y + z) * 2)]
    for name, fn in pytensor_functions().items():
        np.testing.assert_allclose(fn(x, y, z), (x + y + z) * 2)
        rows.append((name, lambda fn=fn: fn(x, y, z)))
    times = {name: best_ns(fn, a.number, a.repeat) for name, fn in rows}
    base = times["graphjit (Python)"]
    print("call overhead, (x+y+z)*2 on 3-element vectors, best of %d x %d "
          "calls:" % (a.repeat, a.number))
    for name, ns in times.items():
        print("  %-32s %8.0f ns   %5.2fx graphjit's time" % (name, ns,
                                                              ns / base))
    bench = os.path.join(ROOT, "build", "bench", "graphjit-bench")
    if os.path.exists(bench):
        out = subprocess.run([bench, "call"], capture_output=True, text=True)
        print("  from C++ (graphjit-bench call): " + out.stdout.strip())
    print("goal: graphjit from Python <= 1000 ns: %s (%.0f ns)"
          % ("met" if base <= 1000 else "NOT met", base))


if __name__ == "__main__":
    sys.exit(main())
