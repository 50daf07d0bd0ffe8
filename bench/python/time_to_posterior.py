#!/usr/bin/env python3
"""Time to posterior (issue 36): the wall time from a built PyMC model to
its posterior (compile, tuning, draws; 2 chains on 2 cores) with

    nutpie+graphjit   graphjit.pymc.compile_pymc_model, nutpie.sample
    nutpie+Numba      nutpie.compile_pymc_model (nutpie's default), sample
    pm.sample         PyMC's NUTS, PyTensor's default C backend
    pm.sample+GJ      PyMC's NUTS, compile_kwargs={"mode": "GRAPHJIT"}

Each run is a fresh process, twice: cold (graphjit's, PyTensor's and
Numba's caches empty, as on a user's first run) and warm (the caches the
cold run filled). For nutpie it also gives the sampling phase alone and
gradient evaluations per second. Prints every figure, then the ratios the
issue sets goals on, with their median and worst over the models. Run in
the PyMC environment, with one BLAS thread per chain:

    OPENBLAS_NUM_THREADS=1 .venv-pymc/bin/python \
        bench/python/time_to_posterior.py [--models a,b] [--backends ...]
        [--tune 1000] [--draws 1000] [--json out.json]
"""
import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples")

MODELS = ["ar2", "censored_normal", "ordered_logistic",
          "hierarchical_zerosum", "negative_binomial_glm", "mvnormal_lkj",
          "gp_marginal", "stochastic_volatility", "garch11",
          "hurdle_negative_binomial"]
BACKENDS = ["nutpie+graphjit", "nutpie+Numba", "pm.sample", "pm.sample+GJ"]


def child(model_name, backend, tune, draws):
    """One run, in this fresh process: prints its figures as JSON."""
    sys.path.insert(0, EXAMPLES)
    import numpy as np
    from pymc_corpus import CORPUS
    model = CORPUS[model_name]()
    start = time.perf_counter()
    out = {}
    if backend.startswith("nutpie"):
        import nutpie
        if backend == "nutpie+graphjit":
            import graphjit.pymc
            compiled = graphjit.pymc.compile_pymc_model(model)
        else:
            compiled = nutpie.compile_pymc_model(model)
        # The collection of what compiling left (PyTensor's graphs: a
        # tenth of a second) is the compile's, not the sampler's, wherever
        # the allocation counts would have set it off.
        gc.collect()
        compiled_at = time.perf_counter()
        trace = nutpie.sample(compiled, tune=tune, draws=draws, chains=2,
                              cores=2, seed=1, progress_bar=False,
                              save_warmup=True)
        end = time.perf_counter()
        steps = int(trace.sample_stats.n_steps.sum() +
                    trace.warmup_sample_stats.n_steps.sum())
        out.update(compile=compiled_at - start, sampling=end - compiled_at,
                   grads_per_s=steps / (end - compiled_at))
        if hasattr(compiled, "compile_times"):
            out["compile_times"] = compiled.compile_times
    else:
        import pymc as pm
        kw = {}
        if backend == "pm.sample+GJ":
            import graphjit.pytensor  # noqa: F401  (the GRAPHJIT mode)
            kw["compile_kwargs"] = {"mode": "GRAPHJIT"}
        with model:
            trace = pm.sample(tune=tune, draws=draws, chains=2, cores=2,
                              random_seed=1, progressbar=False,
                              compute_convergence_checks=False, **kw)
        end = time.perf_counter()
    out["total"] = end - start
    out["divergences"] = int(trace.sample_stats.diverging.sum())
    first = model.free_RVs[0].name
    out["mean_" + first] = float(np.mean(trace.posterior[first].values))
    print("RESULT " + json.dumps(out), flush=True)


def run(model_name, backend, caches, tune, draws):
    env = dict(os.environ)
    env.update(GRAPHJIT_CACHE_DIR=os.path.join(caches, "graphjit"),
               NUMBA_CACHE_DIR=os.path.join(caches, "numba"),
               PYTENSOR_FLAGS="compiledir=" + os.path.join(caches, "pytensor"))
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    p = subprocess.run([sys.executable, __file__, "--child", model_name,
                        backend, "--tune", str(tune), "--draws", str(draws)],
                       env=env, capture_output=True, text=True, timeout=1800)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
    return {"error": tail[:200]}


def _fmt(v):
    return "%8.2f" % v if isinstance(v, float) else "%8s" % (v or "-")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", nargs=2)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--backends", default=",".join(BACKENDS))
    ap.add_argument("--tune", type=int, default=1000)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--json")
    a = ap.parse_args()
    if a.child:
        return child(a.child[0], a.child[1], a.tune, a.draws)
    models, backends = a.models.split(","), a.backends.split(",")
    results = {}
    print("%-26s %-16s %8s %8s %8s %8s %10s %5s" % (
        "model", "backend", "cold s", "warm s", "compile", "sampling",
        "grads/s", "div"))
    for m in models:
        for b in backends:
            with tempfile.TemporaryDirectory(prefix="ttp-") as caches:
                cold = run(m, b, caches, a.tune, a.draws)
                warm = run(m, b, caches, a.tune, a.draws)
            results.setdefault(m, {})[b] = {"cold": cold, "warm": warm}
            err = cold.get("error") or warm.get("error")
            if err:
                print("%-26s %-16s failed: %s" % (m, b, err))
                continue
            print("%-26s %-16s %s %s %s %s %10s %5d" % (
                m, b, _fmt(cold["total"]), _fmt(warm["total"]),
                _fmt(warm.get("compile")), _fmt(warm.get("sampling")),
                "%.0f" % warm["grads_per_s"] if "grads_per_s" in warm
                else "-", warm["divergences"]), flush=True)

    def ratios(num, den, phase, key="total"):
        r = []
        for m in models:
            x = results[m].get(num, {}).get(phase, {})
            y = results[m].get(den, {}).get(phase, {})
            if key in x and key in y:
                r.append((y[key] / x[key], m))
        return r

    print("\nSpeed-ups of nutpie+graphjit (other's time / graphjit's):")
    goals = [("nutpie+Numba", "cold", "total", 3.0),
             ("nutpie+Numba", "warm", "total", 1.5),
             ("nutpie+Numba", "warm", "sampling", 1.2),
             ("pm.sample", "cold", "total", 5.0),
             ("pm.sample+GJ", "cold", "total", None)]
    summary = []
    for other, phase, key, goal in goals:
        r = ratios("nutpie+graphjit", other, phase, key)
        if not r:
            continue
        med = statistics.median(v for v, _ in r)
        worst = min(r)
        line = "  vs %-13s %-4s %-8s median %6.2fx  worst %6.2fx (%s)" % (
            other, phase, key, med, worst[0], worst[1])
        if goal:
            line += "  goal %.1fx: %s" % (
                goal, "met" if worst[0] >= goal else "not met")
        print(line)
        summary.append(dict(other=other, phase=phase, key=key, median=med,
                            worst=worst[0], worst_model=worst[1], goal=goal))
    print("\nWhere nutpie+graphjit's compile goes (cold run, seconds):")
    steps = None
    for m in models:
        t = results[m].get("nutpie+graphjit", {}).get("cold", {}).get(
            "compile_times")
        if not t:
            continue
        if steps is None:
            steps = list(t)
            print("  %-26s" % "model" + "".join("%12s" % k[:11]
                                                  for k in steps))
        print("  %-26s" % m + "".join("%12.3f" % t[k] for k in steps))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"results": results, "summary": summary}, f, indent=1)


if __name__ == "__main__":
    main()
