"""The memory profile against an independent simulation and hand counts.

graphjit -profile-memory measures each call's peak with the runtime's
allocator and writes it to the profile JSON with the graph's structure
(which variables each Apply reads and makes, which outputs are views). This
script simulates the peak on its own from that structure, as Theano's
memory profile does, and requires the measured peak to equal it exactly,
for every example and linker, with and without allow_gc; for small graphs
the peaks are also counted by hand here. The logistic-regression step must
need less memory with gc than without, by the amount simulated.
"""
import itertools
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import numpy as np
import harness as H

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


def simulate(fn, gc):
    """The peak bytes of fn's Applies run in id order (the schedule)."""
    applies = sorted(fn["applies"], key=lambda a: a["id"])
    kept = set(fn["memory"]["kept_vars"])
    buffer_of, size, holders = {}, {}, {}
    last_use = {}
    for a in applies:
        for v in a["input_vars"]:
            last_use[v] = a["id"]
        for o in a["outputs_memory"]:
            last_use.setdefault(o["var"], a["id"])
    live = peak = 0
    for a in applies:
        for o in a["outputs_memory"]:
            if o["kind"] == "created" or o["allocated"]:
                buffer_of[o["var"]] = o["var"]
                size[o["var"]] = o["bytes"]
                holders[o["var"]] = 1
                live += o["bytes"]
            else:
                base = buffer_of.get(a["input_vars"][o["input"]])
                if base is not None:
                    buffer_of[o["var"]] = base
                    holders[base] += 1
        peak = max(peak, live)
        if not gc:
            continue
        dying = {v for v in set(a["input_vars"]) | {o["var"] for o in a["outputs_memory"]}
                 if last_use.get(v) == a["id"] and v not in kept}
        for v in dying:
            base = buffer_of.pop(v, None)
            if base is None:
                continue
            holders[base] -= 1
            if holders[base] == 0:
                live -= size[base]
    return peak


def profile(graph_text, function, linker, gc, dims=None, inputs=None, calls=2,
            optimizer="fast_run"):
    out = os.path.join(H._case_dir(), "profile.json")
    extra = ["-profile-memory", "-profile-json=" + out,
             "-allow-gc=" + ("true" if gc else "false"),
             "-optimizer=" + optimizer]
    rc, stdout, stderr, _ = H.run_graphjit(graph_text, inputs=inputs,
                                           function=function, dims=dims,
                                           linker=linker, calls=calls,
                                           extra=extra)
    if rc != 0:
        raise AssertionError("graphjit failed:\n" + stdout + stderr)
    with open(out) as f:
        fn = json.load(f)["functions"][0]
    return fn, stdout


def check_agrees(label, graph_text, function, dims=None, inputs=None,
                 want=None, linkers=("py", "c|py")):
    """Measured == simulated for every linker and gc mode, for the graph as
    written and as fast_run rewrites it (fused, in place); want, if given,
    maps gc (True/False) to the peak counted by hand for the graph as
    written."""
    for linker, gc, opt in itertools.product(linkers, (True, False),
                                             ("None", "fast_run")):
        def one(linker=linker, gc=gc, opt=opt):
            fn, report = profile(graph_text, function, linker, gc,
                                 dims=dims, inputs=inputs, optimizer=opt)
            mem = fn["memory"]
            assert mem["recorded"] and mem["allow_gc"] == gc, mem
            sim = simulate(fn, gc)
            if mem["measured_peak"] != sim:
                raise AssertionError("measured %d bytes, simulated %d"
                                     % (mem["measured_peak"], sim))
            if want is not None and opt == "None" and sim != want[gc]:
                raise AssertionError("simulated %d bytes, counted by hand %d"
                                     % (sim, want[gc]))
            if "Memory Profile" not in report or "(agree)" not in report:
                raise AssertionError("the report does not show agreement:\n"
                                     + report)
        H.record("%s [%s, allow_gc=%s, optimizer=%s]"
                 % (label, linker, gc, opt), one)


def example(name):
    with open(os.path.join(EXAMPLES, name)) as f:
        return f.read()


# a = exp(x) (8*100*50 = 40000 B), t = a.T (a view: keeps a alive),
# c = t*2 (40000), r = sum(c) (8). With gc: a and c are live together
# (80000), then a/t and c die; the peak is 80000 + 8 while r is made?
# No: a dies after c is made (its last reader, the view t, is read by c),
# so r's 8 bytes are made with only c live: peak 80000. Without gc:
# 40000 + 40000 + 8.
VIEW_CHAIN = """
func f(x: f64[100, 50]) -> (r) {
  t = transpose(exp(x))
  r = sum(mul(t, 2.0))
}
"""
x = np.random.default_rng(3).random((100, 50))
check_agrees("view keeps its base alive", VIEW_CHAIN, "f", inputs={"x": x},
             want={True: 80000, False: 80008})

# Outputs are kept: a and b both live to the end; the transposed input is a
# view of the caller's memory and allocates nothing.
KEPT = """
func f(x: f64[10, 20]) -> (a, b) {
  a = exp(transpose(x))
  b = neg(a)
}
"""
check_agrees("kept outputs, a view of an input", KEPT, "f",
             inputs={"x": np.ones((10, 20))}, want={True: 3200, False: 3200})

# A chain: each value dies once the next is made; with gc at most two
# 8000-byte vectors are live.
CHAIN = """
func f(x: f64[1000]) -> (r) {
  r = sum(sqr(exp(neg(x))))
}
"""
check_agrees("chain", CHAIN, "f", inputs={"x": np.ones(1000)},
             want={True: 16000, False: 24008})

# reshape declares a view, but a transposed input must be copied: the
# profile flags the Apply as allocating, and counts its copy. With gc, exp's
# 40000 bytes live until the copy (40000) is made: 80000; then sum's 8.
RESHAPE = """
func f(x: f64[100, 50]) -> (r) {
  r = sum(reshape(transpose(exp(x)), shape=[5000]))
}
"""
check_agrees("a view that allocates", RESHAPE, "f", inputs={"x": x},
             want={True: 80000, False: 80008})


def reshape_flagged():
    fn, report = profile(RESHAPE, "f", "c", True, inputs={"x": x})
    flagged = [a["name"] for a in fn["applies"]
               if any(o["allocated"] for o in a["outputs_memory"])]
    if len(flagged) != 1 or not flagged[0].startswith("Reshape"):
        raise AssertionError("flagged: %r" % flagged)
    if " v! Reshape" not in report:
        raise AssertionError("no '!' mark in the report:\n" + report)


H.record("a view that allocates is flagged", reshape_flagged)

for name, function, dims in [("profiling_example.graph", "example", {"n": 1000}),
                             ("logistic_regression.graph", "train", {"n": 400}),
                             ("mlp.graph", "train", {"n": 64}),
                             ("mlp.graph", "predict", {"n": 64})]:
    check_agrees("%s %s" % (name, function), example(name), function,
                 dims=dims, linkers=("py", "c|py", "c"))


def gc_saves_what_it_should():
    text = example("logistic_regression.graph")
    with_gc, _ = profile(text, "train", "c", True, dims={"n": 400})
    without, _ = profile(text, "train", "c", False, dims={"n": 400})
    saved = without["memory"]["measured_peak"] - with_gc["memory"]["measured_peak"]
    predicted = simulate(without, False) - simulate(with_gc, True)
    if not saved > 0 or saved != predicted:
        raise AssertionError("gc saved %d bytes, the simulation predicts %d"
                             % (saved, predicted))


H.record("logistic regression: gc saves what the simulation predicts",
         gc_saves_what_it_should)
H.main()
