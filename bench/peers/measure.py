"""One run of the comparison: for each case, the numerics check, the time per
call of every backend (round robin), the profiling overhead, the saved
profiles; then the call overhead and the compile times. Returns the raw
results that report.py turns into tables and a plot."""
import datetime
import json
import os
import platform
import subprocess

import numpy as np

import compile_times
import numerics
from cases import ROOT, call_overhead_case, make_cases
from graphjit_runner import GraphjitRunner
from graphjit_step import GraphjitStep
from numpy_steps import NumpyStep
from pytensor_steps import PytensorStep
from timing import Timed, python_per_call, round_robin

GJ, GJP = "graphjit", "graphjit -profile"
CVM, CVMP = "PyTensor C VM", "PyTensor C VM profile=True"
NP, TORCH = "NumPy", "PyTorch"


def default_label():
    import pytensor.compile.mode as m
    name = type(m.get_default_mode().linker).__name__.replace("Linker", "")
    return "PyTensor default (%s)" % name


def log(*a):
    print(*a, flush=True)


class Run:
    def __init__(self, args, workdir, env):
        self.args, self.workdir, self.env = args, workdir, env
        self.smoke = args.smoke
        self.gj = GraphjitRunner(args.graphjit, workdir, env)
        self.DEF = default_label()
        self.torch = None
        if not args.no_torch:
            import torch_steps
            import torch
            torch.set_num_threads(args.threads)
            self.torch = torch_steps
        # Full run / smoke: rounds, seconds per round, compile repetitions,
        # calls in the saved profiles.
        self.rounds = 1 if self.smoke else args.rounds
        self.target = 0.02 if self.smoke else args.round_seconds
        self.cold_reps, self.warm_reps = (1, 1) if self.smoke else (1, 3)
        self.gj_cold_reps = 1 if self.smoke else 3
        self.profile_calls = 3 if self.smoke else 100
        self.results = {"cases": [], "overhead": None, "compile": {},
                        "profiles": {}, "meta": self.meta()}

    def meta(self):
        import matplotlib
        import pytensor
        v = {"python": platform.python_version(), "numpy": np.__version__,
             "pytensor": pytensor.__version__,
             "matplotlib": matplotlib.__version__,
             "graphjit": self.gj.version()}
        try:
            import numba
            v["numba"] = numba.__version__
        except ImportError:
            pass
        if not self.args.no_torch:
            import torch
            v["torch"] = torch.__version__
        cpu = "unknown CPU"
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        return {"date": datetime.date.today().isoformat(),
                "machine": "%d cores, %s" % (os.cpu_count(), cpu),
                "load_start": os.getloadavg(), "threads": self.args.threads,
                "versions": v, "pytensor_blas": pytensor.config.blas__ldflags,
                "numpy_blas": numpy_blas(), "smoke": self.smoke,
                "torch_skipped": self.args.no_torch_reason,
                "default_label": self.DEF, "rounds": self.rounds,
                "round_seconds": self.target,
                "profile_calls": self.profile_calls}

    # -- per case ---------------------------------------------------------
    def prepare(self, case):
        d = os.path.join(self.workdir, case.key)
        inputs_dir = os.path.join(d, "inputs")
        os.makedirs(inputs_dir, exist_ok=True)
        inputs = case.make_inputs()
        for k, a in inputs.items():
            np.save(os.path.join(inputs_dir, k + ".npy"), a)
        init = {}
        if case.shared:
            init_dir = os.path.join(d, "init")
            self.gj.init_shared(case, init_dir)
            init = {k: np.load(os.path.join(init_dir, k + ".npy"))
                    for k in case.shared}
        return d, inputs_dir, inputs, init

    def peers(self, case, init):
        p = {CVM: PytensorStep(case, init, "cvm"),
             self.DEF: PytensorStep(case, init, "default"),
             NP: NumpyStep(case, init)}
        if self.torch:
            p[TORCH] = self.torch.TorchStep(case, init)
        return p

    def check_numerics(self, case, d, inputs_dir, inputs, peers):
        ref = self.gj.outputs(case, inputs_dir, 2, os.path.join(d, "out"))
        worst = {}
        for name, step in peers.items():
            worst[name] = numerics.compare(case, name, ref,
                                           step.results(inputs, 2))
        return worst

    def time_case(self, case, inputs_dir, inputs, peers, init):
        # graphjit in this process, through its Python package, timed as
        # the peers are.
        gj = GraphjitStep(case, init)
        timed = [Timed(GJ, python_per_call(gj.bind(inputs)))]
        applies = {GJ: gj.applies()}
        if case.profile:
            gjp = GraphjitStep(case, init, profile=True)
            timed.append(Timed(GJP, python_per_call(gjp.bind(inputs))))
            prof = PytensorStep(case, init, "cvm", profile=True)
            peers = dict(peers)
            peers[CVMP] = prof
        for name, step in peers.items():
            timed.append(Timed(name, python_per_call(step.bind(inputs))))
            if hasattr(step, "applies"):
                applies[name] = step.applies()
        return round_robin(timed, self.rounds, self.target), applies

    def save_profiles(self, case, d, inputs_dir, inputs, init, out_dir):
        os.makedirs(out_dir, exist_ok=True)
        gj_path = os.path.join(out_dir, case.key + ".graphjit.txt")
        report = self.gj.profile_report(case, inputs_dir, self.profile_calls,
                                        os.path.join(d, "profile.json"))
        argv = self.gj.args(case, inputs_dir, self.profile_calls, True)[1:]
        with open(gj_path, "w") as f:
            # Temporary paths as <work>: the saved file stays the same.
            f.write(("# graphjit %s\n%s" % (" ".join(argv), report)).replace(
                self.workdir, "<work>"))
        step = PytensorStep(case, init, "cvm", profile=True)
        call = step.bind(inputs)
        for _ in range(self.profile_calls):
            call()
        pt_path = os.path.join(out_dir, case.key + ".pytensor-cvm.txt")
        step.summary(pt_path)
        return gj_path, pt_path

    def run_case(self, case, profile_dir):
        log("== %s" % case.title)
        d, inputs_dir, inputs, init = self.prepare(case)
        peers = self.peers(case, init)
        worst = self.check_numerics(case, d, inputs_dir, inputs, peers)
        log("   numerics agree with graphjit's: " + ", ".join(
            "%s %.1e" % kv for kv in worst.items()))
        times, applies = self.time_case(case, inputs_dir, inputs, peers, init)
        for name, t in times.items():
            log("   %-32s %12.3f us per call" % (name, t * 1e6))
        entry = {"key": case.key, "title": case.title, "times": times,
                 "applies": applies, "numerics": worst}
        if case.profile:
            entry["profiles"] = [os.path.basename(p) for p in
                                 self.save_profiles(case, d, inputs_dir,
                                                    inputs, init, profile_dir)]
        self.results["cases"].append(entry)

    def run_overhead(self):
        case = call_overhead_case(self.smoke)
        log("== call overhead: %s" % case.title)
        d, inputs_dir, inputs, init = self.prepare(case)
        peers = self.peers(case, init)
        self.check_numerics(case, d, inputs_dir, inputs, peers)
        times, _ = self.time_case(case, inputs_dir, inputs, peers, init)
        for name, t in times.items():
            log("   %-32s %12.3f us per call" % (name, t * 1e6))
        self.results["overhead"] = {"title": case.title, "times": times}

    def run_compile(self, cases):
        for case in cases:
            log("== compile: %s" % case.title)
            inputs_dir = os.path.join(self.workdir, case.key, "inputs")
            r = {}
            cold, warm = compile_times.graphjit_compile(
                self.gj, case, inputs_dir, self.workdir, self.gj_cold_reps,
                self.warm_reps)
            r[GJ] = {"cold": cold, "warm": warm}
            for mode, name in (("cvm", CVM), ("default", self.DEF)):
                cold, warm, applies = compile_times.pytensor_compile(
                    case, mode, self.workdir, self.env, self.smoke,
                    self.cold_reps, self.warm_reps)
                r[name] = {"cold": cold, "warm": warm, "applies": applies}
            for name, v in r.items():
                log("   %-28s cold %8.3f s, warm %8.3f s" % (
                    name, v["cold"]["compile"], v["warm"]["compile"]))
            self.results["compile"][case.key] = r

    def run_pymc(self):
        """PyMC's logp+gradient (bench/python/pymc_logp.py) in the PyMC
        environment, which has its own PyTensor (2.38.x)."""
        py = self.args.pymc_python
        if not os.access(py, os.X_OK):
            log("== PyMC: left out (no %s; utils/setup.sh makes it)" % py)
            self.results["pymc"] = None
            return
        log("== PyMC logp+gradient")
        out = os.path.join(self.workdir, "pymc.json")
        argv = [py, os.path.join(ROOT, "bench", "python", "pymc_logp.py"),
                "--json", out, "--rounds", str(self.rounds),
                "--round-seconds", str(self.target)]
        if self.smoke:
            argv += ["--models", "eight_schools"]
        env = dict(self.env)
        env.pop("PYTENSOR_FLAGS", None)  # the peers venv's compile dir
        subprocess.run(argv, check=True, env=env)
        with open(out) as f:
            self.results["pymc"] = json.load(f)

    def run(self, profile_dir):
        cases = make_cases(self.workdir, self.smoke)
        for case in cases:
            self.run_case(case, profile_dir)
        self.run_overhead()
        self.run_pymc()
        compiled = [c for c in cases if c.key in
                    (("example_1e3", "logreg") if self.smoke else
                     ("example_1e3", "logreg", "mlp", "chain"))]
        self.run_compile(compiled)
        self.results["meta"]["load_end"] = os.getloadavg()
        return self.results


def numpy_blas():
    try:
        cfg = np.show_config(mode="dicts")
        b = cfg["Build Dependencies"]["blas"]
        return "%s %s" % (b.get("name", "?"), b.get("version", ""))
    except Exception:  # the layout of show_config changes between versions
        return "unknown"
