#!/usr/bin/env python3
"""graphjit against PyTensor (C VM and default backend), NumPy and PyTorch on
the same graphs, in one run (issue 8).

    python3 bench/peers/run_peers.py            # full run: rewrites the
        # "Peers (issue 8)" section of docs/BENCHMARKS.md, docs/peers.png
        # and bench/peers/profiles/
    python3 bench/peers/run_peers.py --smoke    # CI: tiny sizes, no torch,
        # no timing checks; writes its report to a temporary folder

Run with any Python 3: it makes its own virtual environment
(bench/peers/.venv), installs the pinned requirements.txt (and
requirements-torch.txt unless --smoke or --no-torch) and runs itself again
inside it. Needs build/bin/graphjit built (utils/setup.sh).
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--smoke", action="store_true",
                   help="tiny sizes, one round, no torch; report to --out")
    p.add_argument("--no-torch", action="store_true",
                   help="leave PyTorch out (not installed, not run)")
    p.add_argument("--graphjit", default=os.path.join(ROOT, "build", "bin",
                                                      "graphjit"))
    p.add_argument("--threads", type=int, default=1,
                   help="BLAS/OpenMP threads in every backend (default 1)")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--round-seconds", type=float, default=0.3,
                   help="calls per round add up to about this long")
    p.add_argument("--venv", default=os.path.join(HERE, ".venv"))
    p.add_argument("--wheels", default=os.path.join(ROOT, "build",
                                                    "python-wheel"),
                   help="the graphjit wheel utils/setup.sh built")
    p.add_argument("--pymc-python", default=os.path.join(ROOT, ".venv-pymc",
                                                         "bin", "python"),
                   help="the PyMC environment's Python, for the PyMC "
                   "logp+gradient benchmark")
    p.add_argument("--python", default="/usr/bin/python3"
                   if os.path.exists("/usr/bin/python3") else sys.executable,
                   help="the interpreter the virtual environment is made from")
    p.add_argument("--doc", default=os.path.join(ROOT, "docs", "BENCHMARKS.md"))
    p.add_argument("--plot", default=os.path.join(ROOT, "docs", "peers.png"))
    p.add_argument("--profiles", default=os.path.join(HERE, "profiles"))
    p.add_argument("--out", help="--smoke: folder for the report (default: "
                   "a new temporary one)")
    p.add_argument("--keep-workdir", action="store_true")
    p.add_argument("--report-only", metavar="RESULTS_JSON",
                   help="measure nothing: rewrite the section and the plot "
                   "from the raw results a run saved (bench/peers/"
                   "results.json)")
    args = p.parse_args(argv)
    if args.smoke or args.report_only:
        args.no_torch = True  # (a report keeps what its run said of torch)
    return args


# -- the virtual environment ------------------------------------------------
def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def pip_install(venv, req, stamp_name):
    """Installs req into venv unless the stamp says it already is."""
    stamp = os.path.join(venv, stamp_name)
    want = digest(req)
    if os.path.exists(stamp) and open(stamp).read() == want:
        return
    print("run_peers: installing %s into %s" % (os.path.relpath(req, ROOT),
                                                 os.path.relpath(venv, ROOT)),
          flush=True)
    subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip",
                    "install", "--disable-pip-version-check", "-q", "-r", req],
                   check=True)
    with open(stamp, "w") as f:
        f.write(want)


def install_graphjit(venv, wheels):
    """The graphjit package, from the wheel utils/setup.sh built (reinstalled
    when the wheel changes)."""
    found = sorted(f for f in os.listdir(wheels) if f.endswith(".whl")) \
        if os.path.isdir(wheels) else []
    if not found:
        sys.exit("run_peers: no graphjit wheel in %s: run utils/setup.sh"
                 % wheels)
    wheel = os.path.join(wheels, found[-1])
    stamp = os.path.join(venv, ".peers-graphjit")
    want = digest(wheel)
    if os.path.exists(stamp) and open(stamp).read() == want:
        return
    subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip",
                    "install", "--disable-pip-version-check", "-q",
                    "--no-deps", "--force-reinstall", wheel], check=True)
    with open(stamp, "w") as f:
        f.write(want)


def bootstrap(args, argv):
    """Makes the venv, installs, and runs this script again inside it."""
    venv = os.path.abspath(args.venv)
    if not os.path.exists(os.path.join(venv, "bin", "python")):
        print("run_peers: creating %s" % venv, flush=True)
        subprocess.run([args.python, "-m", "venv", venv], check=True)
    pip_install(venv, os.path.join(HERE, "requirements.txt"), ".peers-core")
    install_graphjit(venv, args.wheels)
    env = dict(os.environ)
    if not args.no_torch:
        try:
            pip_install(venv, os.path.join(HERE, "requirements-torch.txt"),
                        ".peers-torch")
        except subprocess.CalledProcessError as e:
            env["PEERS_TORCH_SKIPPED"] = "its pip install failed (%s)" % e
            print("run_peers: PyTorch left out: " + env["PEERS_TORCH_SKIPPED"])
    threads = str(args.threads)
    env.update({"OMP_NUM_THREADS": threads, "OPENBLAS_NUM_THREADS": threads,
                "MKL_NUM_THREADS": threads, "MPLBACKEND": "Agg",
                "PEERS_IN_VENV": venv,
                # PyTensor's and Numba's caches for the in-process work; the
                # cold/warm compile measurements use fresh ones of their own.
                "PYTENSOR_FLAGS": "base_compiledir=" + os.path.join(venv,
                                                                    "pytensor"),
                "NUMBA_CACHE_DIR": os.path.join(venv, "numba-cache")})
    py = os.path.join(venv, "bin", "python")
    os.execve(py, [py, os.path.abspath(__file__)] + argv, env)


# -- inside the venv -----------------------------------------------------------
def write_report(results, doc, plot_path, profiles):
    import report
    text = report.section(results,
                          os.path.relpath(plot_path, os.path.dirname(doc)),
                          os.path.relpath(profiles, ROOT))
    report.write_section(doc, text)
    report.plot(results, plot_path)


def main(args):
    sys.path.insert(0, HERE)
    import measure

    if args.report_only:
        with open(args.report_only) as f:
            write_report(json.load(f), args.doc, args.plot, args.profiles)
        print("run_peers: wrote %s and %s from %s" % (args.doc, args.plot,
                                                      args.report_only))
        return

    if not os.access(args.graphjit, os.X_OK):
        sys.exit("run_peers: no graphjit at %s: build it first "
                 "(utils/setup.sh)" % args.graphjit)
    args.no_torch_reason = os.environ.get("PEERS_TORCH_SKIPPED") or (
        ("--smoke runs without PyTorch" if args.smoke else "--no-torch given")
        if args.no_torch else None)
    if os.environ.get("PEERS_TORCH_SKIPPED"):
        args.no_torch = True
    start = time.time()
    workdir = tempfile.mkdtemp(prefix="graphjit-peers-")
    if args.smoke:
        out = args.out or tempfile.mkdtemp(prefix="graphjit-peers-report-")
        os.makedirs(out, exist_ok=True)
        doc, plot_path = os.path.join(out, "BENCHMARKS.md"), \
            os.path.join(out, "peers.png")
        profiles = os.path.join(out, "profiles")
        with open(doc, "w") as f:
            f.write("# Benchmarks (smoke run of bench/peers/run_peers.py)\n")
    else:
        doc, plot_path, profiles = args.doc, args.plot, args.profiles
    results_path = os.path.join(os.path.dirname(profiles), "results.json") \
        if not args.smoke else os.path.join(out, "results.json")
    try:
        run = measure.Run(args, workdir, dict(os.environ))
        # Profiles go to the work folder first: a failed run leaves the
        # saved ones as they were.
        try:
            results = run.run(os.path.join(workdir, "profiles"))
        except measure.numerics.NumericsError as e:
            sys.exit("run_peers: NUMERICS MISMATCH, nothing written: %s" % e)
        shutil.copytree(os.path.join(workdir, "profiles"), profiles,
                        dirs_exist_ok=True)
        with open(results_path, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
        write_report(results, doc, plot_path, profiles)
    finally:
        if not args.keep_workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    print("run_peers: wrote %s, %s, %s and %s/ in %.0f s" % (
        doc, plot_path, results_path, profiles, time.time() - start))


if __name__ == "__main__":
    argv = sys.argv[1:]
    args = parse_args(argv)
    venv = os.path.realpath(args.venv)
    if os.environ.get("PEERS_IN_VENV") == os.path.abspath(args.venv) and \
            os.path.realpath(sys.prefix) == venv:
        main(args)
    else:
        bootstrap(args, argv)
