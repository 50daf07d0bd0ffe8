"""Differential test of graphjit's linkers on random graphs.

Each case is one function made by randgraph.py from a seed (graph seeds are
SEED, SEED+1, ..., SEED+COUNT-1). It runs under `-linker=py
-optimizer=None` (perform on the graph as written, the reference) and
`-linker=cpy` (the graph optimizer's fast_run result, then JIT code where
an op has a lowering, with a
random -O level and -allow-gc setting drawn from the seed, which must not
change results), and every fourth case also under `-linker=c`. Cases run
two at a time (--jobs). Then:

- a crash (a signal, an exit status other than 0 and 1, "internal error",
  an LLVM stack dump) is always a failure;
- a graph the type checker rejects (a `FILE:LINE:COL: error:` with a caret)
  is dropped, printed and counted: the generator's model of the rules was
  off, or the checker is wrong; more than one in ten fails the run;
- if py succeeds, cpy must write the same output files with the same dtype
  and shape, integer and bool values bit-equal, floats within rtol = atol =
  1e-6 (f32) or 1e-12 (f64) with NaN equal to NaN;
- if py fails at run time, cpy must fail as py does on the optimizer's
  graph (`-linker=py` with fast_run): the same exit status and message
  (the optimizer renumbers and renames Applies, and drops dead ones);
- c must either behave as cpy does or refuse with exit status 1 and "the c
  linker needs a JIT lowering for every op".

A failure prints the seed, the replay command, the graph and its inputs.
The last lines count what ran, and how many cases were not bit-identical
under cpy (allowed, but they should be rare: both linkers use the same
scalar kernels).

    test_random_graphs.py GRAPHJIT [--seed S] [--count N] [--jobs J] [--verbose]

Defaults: seed 1, 300 graphs, 2 jobs.

Seeds listed in KNOWN_FAILURES are run and reported loudly as known
failures; they count neither as passed nor as failed. One that passes is a
failure (remove it from the list).
"""
import argparse
import collections
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import harness as H
import randgraph

# seed -> why: graphjit bugs, each with a minimal reproducer in the report
# (and in test_linkers.py's KNOWN_FAILURES where it has a directed case).
KNOWN_FAILURES = {}

C_LINKER_EVERY = 4
C_REFUSAL = "the c linker needs a JIT lowering for every op"
TOLERANCE = {np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-12}
CRASH_SIGNS = ("internal error", "Stack dump", "PLEASE submit a bug report",
               "Assertion", "UNREACHABLE", "AddressSanitizer", "runtime error:")


class Run:
    """One graphjit process: exit status, stdout, stderr, outputs by name."""

    def __init__(self, binary, args, linker, extra, outdir):
        cmd = [binary] + args + ["-linker=" + linker, "-output-dir=" + outdir] + extra
        self.command = " ".join(cmd)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            self.rc, self.out, self.err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            self.rc, self.out, self.err = "timeout", "", "(killed after 60 s)"
        self.outputs = {}
        if self.rc == 0 and os.path.isdir(outdir):
            for f in sorted(os.listdir(outdir)):
                self.outputs[f[:-4]] = np.load(os.path.join(outdir, f))

    def crash(self):
        """Why this run counts as a crash, or None."""
        if self.rc not in (0, 1):
            return "exit status %s" % self.rc
        for sign in CRASH_SIGNS:
            if sign in self.err:
                return "stderr says %r" % sign
        if self.rc == 1 and not self.err.strip():
            return "exit status 1 without a message"
        return None

    def rejected(self):
        """True if the type checker rejected the file before it ran."""
        return (self.rc == 1 and "Apply node" not in self.err
                and re.search(r"^\s*\^\s*$", self.err, re.M) is not None)

    def describe(self):
        return "$ %s\nexit status %s\n%s%s" % (self.command, self.rc, self.out, self.err)


def compare_outputs(ref, got):
    """Problems found comparing got's outputs with ref's; ([], bit_equal)."""
    problems = []
    bit_equal = True
    if set(ref.outputs) != set(got.outputs):
        return ["output files differ: %s vs %s" % (sorted(ref.outputs),
                                                   sorted(got.outputs))], False
    for name, want in ref.outputs.items():
        have = got.outputs[name]
        if have.dtype != want.dtype or have.shape != want.shape:
            problems.append("%s: %s %s, reference %s %s" % (
                name, have.dtype, have.shape, want.dtype, want.shape))
            continue
        if want.tobytes() != have.tobytes():
            bit_equal = False
        tol = TOLERANCE.get(want.dtype, 0)
        if want.dtype.kind == "f":
            ok = np.allclose(have, want, rtol=tol, atol=tol, equal_nan=True)
        else:
            ok = np.array_equal(have, want)
        if not ok:
            bad = np.argwhere(~np.isclose(have, want, rtol=tol, atol=tol, equal_nan=True)
                              if want.dtype.kind == "f" else have != want)[:5]
            problems.append("%s differs at %s: got %s, reference %s" % (
                name, bad.tolist(), have[tuple(bad.T)].tolist(),
                want[tuple(bad.T)].tolist()))
    return problems, bit_equal


def compare_runs(ref, got):
    """Problems found comparing run `got` with the reference run."""
    crash = got.crash()
    if crash:
        return ["crash (%s)" % crash], True
    if got.rc != ref.rc:
        return ["exit status %s, reference %s" % (got.rc, ref.rc)], True
    if ref.rc != 0:
        if got.err != ref.err:
            return ["a different error message"], True
        return [], True
    return compare_outputs(ref, got)


def check_case(binary, case, scratch):
    """Runs one case; returns (counts, rejection message or None). Raises
    AssertionError describing what went wrong."""
    counts = collections.Counter()
    args = case.write(scratch)
    # The reference: the graph as written (optimizer=None), interpreted.
    py = Run(binary, args, "py", ["-optimizer=None"],
             os.path.join(scratch, "out-py"))
    crash = py.crash()
    if crash:
        raise AssertionError("py: crash (%s)\n%s" % (crash, py.describe()))
    if py.rejected():
        counts["rejected"] += 1
        return counts, py.err
    counts["ran"] += 1
    counts["run errors"] += py.rc != 0
    extra = ["-O=%d" % case.opt_level, "-allow-gc=%s" % str(case.allow_gc).lower()]
    cpy = Run(binary, args, "cpy", extra, os.path.join(scratch, "out-cpy"))
    if py.rc != 0:
        # Errors are compared on the same (rewritten) graph: the optimizer
        # renumbers and renames Applies, and drops dead ones that may fail.
        py = Run(binary, args, "py", [], os.path.join(scratch, "out-py-opt"))
        crash = py.crash()
        if crash:
            raise AssertionError("py: crash (%s)\n%s" % (crash, py.describe()))
    problems, bit_equal = compare_runs(py, cpy)
    if problems:
        raise AssertionError("cpy %s: %s\n%s\n%s" % (
            " ".join(extra), "; ".join(problems), py.describe(), cpy.describe()))
    counts["not bit-identical"] += not bit_equal
    if case.seed % C_LINKER_EVERY:
        return counts, None
    counts["c runs"] += 1
    c = Run(binary, args, "c", [], os.path.join(scratch, "out-c"))
    if c.rc == 1 and C_REFUSAL in c.err and not c.crash():
        counts["c refused"] += 1
        return counts, None
    problems, _ = compare_runs(py, c)
    if problems:
        raise AssertionError("c: %s\n%s\n%s" % ("; ".join(problems),
                                                py.describe(), c.describe()))
    return counts, None


def run_seed(binary, seed, tmp):
    """(case, counts, rejection, error) for one seed; cleans up after it."""
    case = randgraph.generate(seed)
    scratch = os.path.join(tmp, "s%d" % seed)
    counts, rejection, error = collections.Counter(), None, None
    try:
        counts, rejection = check_case(binary, case, scratch)
    except AssertionError as e:
        error = str(e)
    shutil.rmtree(scratch, ignore_errors=True)
    return case, counts, rejection, error


def report(binary, case, message):
    inputs = "\n".join("  %s: %s %s = %s" % (n, a.dtype, a.shape,
                                             np.array2string(a.ravel()[:40], separator=","))
                       for n, a in case.inputs.items())
    return ("seed %d: %s\nreplay: %s %s %s --seed %d --count 1\n"
            "   or: %s randgraph.py %d DIR  (writes DIR/f.graph and the inputs)\n"
            "--- graph ---\n%s--- inputs (first 40 values, flattened) ---\n%s\n"
            "dims: %s" % (case.seed, message, sys.executable, os.path.abspath(__file__),
                          binary, case.seed,
                          sys.executable, case.seed, case.text, inputs, case.dims))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graphjit")
    ap.add_argument("--seed", type=int, default=1, help="first graph seed")
    ap.add_argument("--count", type=int, default=300, help="number of graphs")
    ap.add_argument("--jobs", type=int, default=2, help="graphs run at once")
    ap.add_argument("--verbose", action="store_true", help="print every graph")
    opts = ap.parse_args()
    binary = os.path.abspath(opts.graphjit)
    totals = collections.Counter()
    start = time.time()
    known = []
    with tempfile.TemporaryDirectory(prefix="graphjit-random-") as tmp, \
            concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        seeds = range(opts.seed, opts.seed + opts.count)
        for case, counts, rejection, error in pool.map(
                lambda s: run_seed(binary, s, tmp), seeds):
            seed = case.seed
            totals.update(counts)
            if opts.verbose:
                print("--- seed %d\n%s" % (seed, case.text), end="", flush=True)
            if rejection:
                print("seed %d: rejected by the type checker (the generator's "
                      "model is off, or the checker is wrong):\n%s%s" % (
                          seed, case.text, rejection), flush=True)
            if seed in KNOWN_FAILURES:
                if error:
                    known.append(seed)
                    print("KNOWN FAILURE (not counted as passed): %s\n" % report(
                        binary, case, KNOWN_FAILURES[seed] + "\n" + error), flush=True)
                else:
                    H.fail("seed %d" % seed, "seed %d is in KNOWN_FAILURES (%s) but "
                           "passes now: remove it" % (seed, KNOWN_FAILURES[seed]))
            elif error:
                H.fail("seed %d" % seed, report(binary, case, error))
            elif not rejection:
                H.record("seed %d" % seed, lambda: None)
    print("%d graphs in %.1f s: %d ran (%d failed at run time under py), "
          "%d rejected by the type checker; %d under c (%d refused for missing "
          "lowerings); %d cases not bit-identical under cpy" % (
              opts.count, time.time() - start, totals["ran"], totals["run errors"],
              totals["rejected"], totals["c runs"], totals["c refused"],
              totals["not bit-identical"]))
    if totals["rejected"] > opts.count // 10:
        H.fail("generator", "%d of %d graphs were rejected by the type checker: "
               "randgraph.py's dtype or shape rules are off" % (totals["rejected"], opts.count))
    if known:
        print("KNOWN FAILURES: seeds %s (see KNOWN_FAILURES in %s)" % (
            ", ".join(map(str, known)), os.path.basename(__file__)))
    H.main()


if __name__ == "__main__":
    main()
