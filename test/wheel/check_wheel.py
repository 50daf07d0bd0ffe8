"""What utils/test-wheel.sh checks inside the bare Debian 12 root file
system, once the wheel and PyMC are pip-installed into a virtual
environment there: a machine with Python and glibc and nothing else (no
LLVM, no compiler, assembler or linker, no BLAS). Run with that
environment's Python, from a copy of the source tree's README.md and
examples/:

    python check_wheel.py --version 0.1.0 --tree /check

Each check prints "ok: ..." or stops the script with "FAIL: ..."; the last
line says how many passed. Values are compared with PyTensor's own Python
linker and with NumPy, which need no compiler either."""
import argparse
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

PASSED = []


def check(ok, what):
    if not ok:
        print("FAIL: " + what, flush=True)
        sys.exit(1)
    PASSED.append(what)
    print("ok: " + what, flush=True)


def no_toolchain():
    """Nothing here could compile or link: the JIT must need none of it."""
    tools = ("cc", "gcc", "g++", "c++", "clang", "clang-19", "ld", "ld.lld",
             "as", "opt-19", "llc-19", "llvm-config-19")
    found = [t for t in tools if shutil.which(t)]
    check(not found, "no compiler, assembler, linker or LLVM tool on PATH%s"
          % (": " + ", ".join(found) if found else ""))


# glibc's and GCC's run-time libraries and zlib: what every Debian 12
# system has (priority "required"), and what the manylinux policies let a
# wheel take from the system; the platform tag promises the glibc.
SYSTEM_LIBRARIES = re.compile(
    r"^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|librt|libpthread|"
    r"libmvec|libgcc_s|libstdc\+\+|libz)\.so")


def libraries_resolve(path, blas_dir):
    """ldd of PATH: every library found, each one the wheel's own
    (graphjit.libs), scipy-openblas32's, or the system's few. The BLAS
    package's folder is on the loader's path, as `import graphjit` and the
    console scripts put it."""
    env = dict(os.environ, LD_LIBRARY_PATH=blas_dir)
    site = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    if os.path.basename(os.path.dirname(path)) == "bin":
        site = os.path.dirname(site)
    own = tuple(os.path.realpath(d) + os.sep
                for d in (os.path.join(site, "graphjit.libs"), blas_dir))
    out = subprocess.run(["ldd", path], capture_output=True, text=True,
                         env=env, check=True).stdout
    bad, count = [], 0
    for line in out.splitlines():
        line = line.strip()
        name = os.path.basename(line.split()[0])
        target = line.split("=>")[-1].split("(")[0].strip()
        count += 1
        if "not found" in line:
            bad.append(name + " not found")
        elif not (os.path.realpath(target).startswith(own) or
                  SYSTEM_LIBRARIES.match(name)):
            bad.append("%s from %s" % (name, target))
    check(not bad and count > 0,
          "%s: its %d libraries are found, each the wheel's, the BLAS "
          "package's or the system's few%s" % (
              os.path.basename(path), count,
              ": " + "; ".join(bad) if bad else ""))


def package(version):
    import graphjit
    check(graphjit.__version__ == version,
          "graphjit.__version__ is %s" % version)
    check(importlib.metadata.version("graphjit") == version,
          "the installed distribution's version is %s" % version)
    pkg = os.path.dirname(graphjit.__file__)
    check(pkg.startswith(sys.prefix), "graphjit imports from the venv")
    import scipy_openblas32
    blas = scipy_openblas32.get_lib_dir()
    native = [f for f in os.listdir(pkg) if f.startswith("_graphjit")]
    check(len(native) == 1, "one native module")
    libraries_resolve(os.path.join(pkg, native[0]), blas)
    for tool in ("graphjit", "graphjit-prof"):
        libraries_resolve(os.path.join(pkg, "bin", tool), blas)
    plugin = graphjit.opt_plugin()
    check(os.path.isfile(plugin), "the opt plugin is installed (%s)" % plugin)
    return graphjit


def readme_tour(tree):
    """The README's Python tour, as written, then its values."""
    text = open(os.path.join(tree, "README.md")).read()
    tour = text[text.index("## A tour"):]
    code = re.search(r"```python\n(.*?)```", tour, re.S).group(1)
    ns = {}
    cwd = os.getcwd()
    os.chdir(tree)
    try:
        exec(compile(code, "README.md (A tour)", "exec"), ns)
    finally:
        os.chdir(cwd)
    check(np.isfinite(np.asarray(ns["cost"])).all(),
          "the tour's logistic-regression step gives a finite cost")
    check(len(ns["rows"]) > 0 and all(r.type == "C" for r in ns["rows"]),
          "the tour's profile has its Applies, all in C")
    got = ns["f"](np.linspace(0, 1, 5))
    check(np.isclose(got, np.exp(np.linspace(0, 1, 5)).sum(), rtol=1e-12),
          "the tour's PyTensor function under GRAPHJIT equals NumPy's sum(exp)")


def final_cost(out):
    m = re.search(r"final cost ([-0-9.e]+), accuracy ([0-9.]+)", out)
    check(m is not None, "the PyTensor script printed its result")
    return float(m.group(1)), float(m.group(2))


def pytensor_script(tree):
    """examples/pytensor_profile.py, unchanged, under
    PYTENSOR_FLAGS=mode=GRAPHJIT,profile=True, against PyTensor's Python
    linker: the same cost and accuracy, and graphjit's report printed."""
    script = os.path.join(tree, "examples", "pytensor_profile.py")

    def run(flags):
        env = dict(os.environ, PYTENSOR_FLAGS=flags)
        p = subprocess.run([sys.executable, script], capture_output=True,
                           text=True, env=env)
        check(p.returncode == 0, "pytensor_profile.py under %s exits 0%s"
              % (flags, "" if p.returncode == 0 else ": " + p.stderr[-2000:]))
        return p.stdout + p.stderr

    gj = run("mode=GRAPHJIT,profile=True")
    ref = run("linker=py,cxx=")
    check("linker: Graphjit" in gj, "the script ran on graphjit's linker")
    check("Function profiling" in gj and " C " in gj,
          "graphjit's per-Apply report was printed at exit")
    (c1, a1), (c2, a2) = final_cost(gj), final_cost(ref)
    check(abs(c1 - c2) <= 1e-5 * max(1.0, abs(c2)) and a1 == a2,
          "GRAPHJIT's cost and accuracy equal PyTensor's Python linker's "
          "(%g, %g)" % (c1, a1))


def pymc_models(tree):
    """PyMC's logp and gradient of the four example models under GRAPHJIT
    against PyTensor's Python linker, at the initial point."""
    sys.path.insert(0, os.path.join(tree, "examples"))
    import graphjit.pytensor as gjp
    from pymc.blocking import DictToArrayBijection
    from pytensor.compile.mode import Mode
    import pymc_models

    for name in ("eight_schools", "hierarchical_linear", "logistic_glm",
                 "gaussian_mixture"):
        model = getattr(pymc_models, name)()
        fns = {}
        for key, mode in (("graphjit", "GRAPHJIT"),
                          ("py", Mode(linker="py", optimizer="fast_run"))):
            fns[key] = model.logp_dlogp_function(mode=mode, ravel_inputs=True)
            fns[key].set_extra_values({})
        x = DictToArrayBijection.map(model.initial_point()).data
        x = x + np.linspace(-0.3, 0.3, x.size)  # off the initial point
        got, want = fns["graphjit"](x), fns["py"](x)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-8)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-8, atol=1e-10)
        cov = gjp.coverage(fns["graphjit"]._pytensor_function)
        check(cov["c_nodes"] == cov["nodes"], "PyMC %s: logp and gradient under GRAPHJIT "
              "equal PyTensor's, every node in C" % name)


def command_line(tree):
    """The installed `graphjit` command on an example graph with -profile,
    its output against NumPy's."""
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        args = []
        values = {}
        for v in "xyz":
            values[v] = rng.random(7)
            np.save(os.path.join(tmp, v + ".npy"), values[v])
            args.append("-input=%s=%s" % (v, os.path.join(tmp, v + ".npy")))
        graph = os.path.join(tree, "examples", "profiling_example.graph")
        p = subprocess.run(["graphjit", graph, "-profile", "-output-dir=" + tmp]
                           + args, capture_output=True, text=True)
        check(p.returncode == 0, "graphjit -profile exits 0%s" %
              ("" if p.returncode == 0 else ": " + p.stderr[-2000:]))
        check("Function profiling" in p.stdout + p.stderr,
              "graphjit -profile printed the report")
        r = np.load(os.path.join(tmp, "r.npy"))
        np.testing.assert_allclose(
            r, (values["x"] + values["y"] + values["z"]) * 2, rtol=1e-15)
        check(True, "graphjit's output equals NumPy's (x + y + z) * 2")
        p = subprocess.run(["graphjit", "--version"], capture_output=True,
                           text=True)
        check(p.returncode == 0, "graphjit --version exits 0")
        return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--version", required=True,
                    help="the version the wheel must have")
    ap.add_argument("--tree", required=True,
                    help="a folder with the source tree's README.md and "
                         "examples/")
    args = ap.parse_args()
    no_toolchain()
    package(args.version)
    readme_tour(args.tree)
    pytensor_script(args.tree)
    pymc_models(args.tree)
    version = command_line(args.tree)
    check("version " + args.version in version,
          "graphjit --version names %s" % args.version)
    print("%d passed, 0 failed" % len(PASSED))


if __name__ == "__main__":
    main()
