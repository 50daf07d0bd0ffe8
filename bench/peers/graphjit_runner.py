"""graphjit driven through its command line, as a user would.

Without a Python binding, graphjit's time per call is measured from outside:
the difference between a process that makes N+1 calls and one that makes 1
call, divided by N. Both parse, compile (from a warm compile cache) and load
the inputs once, so start-up cancels out; what remains is N calls of
Function::call from C++ (no Python in the loop). The same method times the
profiled (-profile) and unprofiled runs, so their difference is the
instrumentation's cost.
"""
import json
import os
import re
import subprocess
import time

import numpy as np

from cases import ROOT


class GraphjitRunner:
    def __init__(self, binary, workdir, env):
        self.binary = binary
        self.workdir = workdir
        self.env = env
        self.cache = os.path.join(workdir, "graphjit-cache")

    def version(self):
        try:
            rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short",
                                  "HEAD"], capture_output=True, text=True,
                                 check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            rev = "unknown"
        return "graphjit %s (LLVM 19)" % rev

    def args(self, case, inputs_dir, calls, profile=False, extra=()):
        a = [self.binary, case.graph, "-function=" + case.function,
             "-calls=%d" % calls]
        if case.kind != "chain":
            a.append("-dim=n=%d" % case.n)
        a += ["-input=%s=%s" % (name, os.path.join(inputs_dir, name + ".npy"))
              for name in case.input_names()]
        if not case.fused:
            a.append("-optimizer_excluding=fusion")
        if profile:
            a.append("-profile")
        return a + list(extra)

    def run(self, argv, cache=None):
        """Runs graphjit; returns (stdout, wall seconds). Fails loudly."""
        argv = argv + ["-cache-dir=" + (self.cache if cache is None else cache)]
        start = time.perf_counter()
        p = subprocess.run(argv, capture_output=True, text=True, env=self.env,
                           cwd=ROOT)
        wall = time.perf_counter() - start
        if p.returncode != 0:
            raise RuntimeError("graphjit failed (%d): %s\n%s%s" % (
                p.returncode, " ".join(argv), p.stdout[-2000:],
                p.stderr[-2000:]))
        return p.stdout, wall

    def init_shared(self, case, out_dir):
        """The shared variables' initial values as .npy files in out_dir."""
        a = [self.binary, case.graph, "-function=" + case.function,
             "-calls=0", "-output-dir=" + out_dir]
        if case.kind != "chain":
            a.append("-dim=n=%d" % case.n)
        self.run(a)

    def outputs(self, case, inputs_dir, calls, out_dir):
        """Outputs of the last of `calls` calls and the shared variables after
        them, by name."""
        self.run(self.args(case, inputs_dir, calls,
                           extra=["-output-dir=" + out_dir]))
        names = case.outputs + case.shared
        return {k: np.load(os.path.join(out_dir, k + ".npy")) for k in names}

    def estimate_per_call(self, case, inputs_dir, calls):
        """A first estimate from the profile's own call time (profiled)."""
        js = os.path.join(self.workdir, "estimate.json")
        self.run(self.args(case, inputs_dir, calls,
                           extra=["-profile-json=" + js]))
        with open(js) as f:
            fn = json.load(f)["functions"][0]
        return fn["call_seconds"] / max(fn["calls"], 1), len(fn["applies"])

    def per_call(self, case, inputs_dir, n, profile=False):
        """One measurement: (wall(n+1 calls) - wall(1 call)) / n."""
        _, t1 = self.run(self.args(case, inputs_dir, 1, profile))
        _, tn = self.run(self.args(case, inputs_dir, n + 1, profile))
        return (tn - t1) / n

    def profile_report(self, case, inputs_dir, calls, json_path):
        """The printed report (stdout) after `calls` profiled calls."""
        out, _ = self.run(self.args(case, inputs_dir, calls, profile=True,
                                    extra=["-profile-json=" + json_path]))
        return out

    def compile_times(self, case, inputs_dir, cache):
        """Compile time as -print-compile-time reports it (Function::compile:
        rewrite, lower, optimize, codegen, link), the process's wall time,
        and whether the object came from the compile cache."""
        out, wall = self.run(self.args(case, inputs_dir, 1,
                                       extra=["-print-compile-time"]),
                             cache=cache)
        m = re.search(r"compile time ([0-9.]+)s", out)
        if not m:
            raise RuntimeError("no compile time in graphjit's output:\n" + out)
        return float(m.group(1)), wall, "object from the compile cache" in out
