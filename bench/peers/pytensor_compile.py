"""Times one PyTensor compile in a fresh process (run by compile_times.py).

    python pytensor_compile.py WORKDIR CASE MODE [--smoke]

PYTENSOR_FLAGS=base_compiledir=... (set by the caller) decides whether the cache
is cold (a new, empty directory) or warm (one a previous process filled).
Prints one JSON line: import seconds, pytensor.function() seconds, the first
call's seconds (the Numba linker, and some C thunks, compile then), and the
number of Applies.
"""
import json
import os
import sys
import time

t0 = time.perf_counter()
import numpy as np  # noqa: E402
import pytensor  # noqa: E402,F401  (its import is timed)
t_import = time.perf_counter() - t0

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import make_cases  # noqa: E402
from pytensor_steps import PytensorStep  # noqa: E402


def main():
    workdir, key, mode = sys.argv[1:4]
    smoke = "--smoke" in sys.argv[4:]
    case = next(c for c in make_cases(workdir, smoke) if c.key == key)
    d = os.path.join(workdir, key)
    init = {k: np.load(os.path.join(d, "init", k + ".npy"))
            for k in case.shared}
    inputs = {k: np.load(os.path.join(d, "inputs", k + ".npy"))
              for k in case.input_names()}
    start = time.perf_counter()
    step = PytensorStep(case, init, mode)
    t_function = time.perf_counter() - start
    call = step.bind(inputs)
    start = time.perf_counter()
    call()
    t_first = time.perf_counter() - start
    print(json.dumps({"import": t_import, "function": t_function,
                      "first_call": t_first, "applies": step.applies()}))


if __name__ == "__main__":
    main()
