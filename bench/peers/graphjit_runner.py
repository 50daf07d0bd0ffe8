"""graphjit driven through its command line, as a user would: the shared
variables' initial values, the reference outputs, the saved reports and the
compile times. Calls are timed in-process (graphjit_step.py)."""
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
