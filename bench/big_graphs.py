#!/usr/bin/env python3
"""Compile time and peak memory of big graphs (issue 19): chains of
Applies that fuse or cannot fuse, and element-wise adds of many operands,
at growing sizes, under the c and c|py linkers and the None and fast_run
optimizers. Each compile runs in a fresh `graphjit` process with the
compile cache off; the time is graphjit's own (-print-compile-time), the
memory the process's peak resident set. Growth is judged per Apply: the
time per Apply at the largest size over that at the smallest (1.0: linear).

    python3 bench/big_graphs.py            # sizes up to 20,000
    python3 bench/big_graphs.py --full     # and the goals' 100,000 and 10,000

Goals: a 100,000-Apply unfused chain compiles in at most 20 s and 2 GB; an
add of 10,000 operands in at most 2 s. Standard library only.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def chain(n):
    """n scalar Applies, each reading the one before: add, mul, add, ..."""
    lines = ["func f(x: f64[]) -> (t%d) {" % (n - 1), "  t0 = add(x, 1.0)"]
    for i in range(1, n):
        lines.append("  t%d = %s(t%d, x)" % (i, "add" if i % 2 else "mul",
                                             i - 1))
    return "\n".join(lines + ["}"]) + "\n"


def unfusable(n):
    """n Applies in pairs that fusion cannot join: a reversed view, then
    an add."""
    steps = max(1, n // 2)
    lines = ["func f(x: f64[4]) -> (t%d) {" % (steps - 1),
             "  t0 = add(x, 1.0)"]
    for i in range(1, steps):
        lines.append("  t%d = add(subtensor(t%d, step=-1), x)" % (i, i - 1))
    return "\n".join(lines + ["}"]) + "\n"


def wide_add(k):
    """One add of k distinct scalar inputs."""
    xs = ", ".join("x%d" % i for i in range(k))
    return ("func f(" + ", ".join("x%d: f64[]" % i for i in range(k)) +
            ") -> (y) {\n  y = add(" + xs + ")\n}\n")


def wide_add_same(k):
    """One add of the same input k times."""
    return ("func f(x: f64[]) -> (y) {\n  y = add(" + ", ".join(["x"] * k) +
            ")\n}\n")


FAMILIES = {
    "chain": (chain, "Apply"),
    "unfusable chain": (unfusable, "Apply"),
    "add of k inputs": (wide_add, "operand"),
    "add of x, k times": (wide_add_same, "operand"),
}


def run_measured(graphjit, path, linker, optimizer, timeout):
    """(compile seconds, peak MB, wall seconds) of one fresh graphjit
    process, or None past timeout; the peak resident set is wait4's rusage
    of this child alone."""
    cmd = [graphjit, path, "-linker=" + linker, "-optimizer=" + optimizer,
           "-cache-dir=", "-print-compile-time", "-calls=1"]
    with tempfile.TemporaryFile(mode="w+") as log:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        deadline = t0 + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                return None
            time.sleep(0.01)
        wall = time.perf_counter() - t0
        log.seek(0)
        out = log.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("graphjit failed (%s):\n%s" % (" ".join(cmd), out[-2000:]))
    m = re.search(r"compile time ([0-9.e+-]+)s", out)
    seconds = float(m.group(1)) if m else float("nan")
    return seconds, usage.ru_maxrss / 1024.0, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphjit", default=os.path.join(ROOT, "build", "bin",
                                                       "graphjit"))
    ap.add_argument("--full", action="store_true",
                    help="also the goals' sizes (100,000 Applies, 10,000 "
                         "operands): several minutes")
    ap.add_argument("--timeout", type=float, default=300.0)
    args = ap.parse_args()
    if not os.access(args.graphjit, os.X_OK):
        sys.exit("no graphjit at %s (build first, or --graphjit)" %
                 args.graphjit)

    sizes = {"chain": [1000, 5000, 20000],
             "unfusable chain": [1000, 5000, 20000],
             "add of k inputs": [250, 1000, 4000],
             "add of x, k times": [250, 1000, 4000]}
    if args.full:
        sizes["chain"].append(100000)
        sizes["unfusable chain"].append(100000)
        sizes["add of k inputs"].append(10000)
        sizes["add of x, k times"].append(10000)
    settings = [("c", "None"), ("c|py", "None"), ("c", "fast_run"),
                ("c|py", "fast_run")]

    print("%-18s %-16s %9s %12s %10s %12s" %
          ("graph", "linker/optimizer", "size", "compile s", "peak MB",
           "us per unit"))
    with tempfile.TemporaryDirectory() as tmp:
        for family, (make, unit) in FAMILIES.items():
            for linker, optimizer in settings:
                per_unit = []
                for n in sizes[family]:
                    path = os.path.join(tmp, "g%d.graph" % n)
                    with open(path, "w") as f:
                        f.write(make(n))
                    r = run_measured(args.graphjit, path, linker, optimizer,
                                     args.timeout)
                    label = "%s/%s" % (linker, optimizer)
                    if r is None:
                        print("%-18s %-16s %9d %12s" %
                              (family, label, n, "> %ds" % args.timeout))
                        break
                    seconds, peak, _ = r
                    per_unit.append(seconds / n * 1e6)
                    print("%-18s %-16s %9d %12.3f %10.0f %12.1f" %
                          (family, label, n, seconds, peak, per_unit[-1]))
                    sys.stdout.flush()
                if len(per_unit) >= 2:
                    print("%-18s %-16s growth per %s, largest over smallest:"
                          " %.2f" % (family, "%s/%s" % (linker, optimizer),
                                     unit, per_unit[-1] / per_unit[0]))


if __name__ == "__main__":
    main()
