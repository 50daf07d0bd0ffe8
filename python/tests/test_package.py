"""The installed package as a whole: its version, the command-line tools
its console scripts run, and the opt plugin it carries (the wheel's
contents, docs/python.md, "The wheel")."""
import importlib.metadata
import os
import re
import subprocess
import sys

import numpy as np

import graphjit
from conftest import EXAMPLES, ROOT


def _console_script(name):
    return os.path.join(os.path.dirname(sys.executable), name)


def test_one_version_everywhere():
    cmake = (ROOT / "CMakeLists.txt").read_text()
    want = re.search(r"project\(graphjit VERSION ([0-9.]+)", cmake).group(1)
    assert graphjit.__version__ == want
    assert importlib.metadata.version("graphjit") == want
    for tool in ("graphjit", "graphjit-prof"):
        out = subprocess.run([_console_script(tool), "--version"],
                             capture_output=True, text=True, check=True)
        assert "%s (graphjit) version %s" % (tool, want) in out.stdout


def test_console_script_runs_a_graph(tmp_path):
    rng = np.random.default_rng(3)
    args = []
    values = {}
    for v in "xyz":
        values[v] = rng.random(5)
        np.save(tmp_path / (v + ".npy"), values[v])
        args.append("-input=%s=%s" % (v, tmp_path / (v + ".npy")))
    p = subprocess.run(
        [_console_script("graphjit"), str(EXAMPLES / "profiling_example.graph"),
         "-profile", "-output-dir=%s" % tmp_path] + args,
        capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "Function profiling" in p.stdout + p.stderr
    np.testing.assert_allclose(np.load(tmp_path / "r.npy"),
                               (values["x"] + values["y"] + values["z"]) * 2,
                               rtol=1e-15)


def test_console_script_passes_the_error_on(tmp_path):
    bad = tmp_path / "bad.graph"
    bad.write_text("func f(x: f64[n]) -> (y) {\n  y = nosuchop(x)\n}\n")
    p = subprocess.run([_console_script("graphjit"), str(bad)],
                       capture_output=True, text=True)
    assert p.returncode == 1
    assert "bad.graph:2:" in p.stderr


def test_opt_plugin_is_installed():
    plugin = graphjit.opt_plugin()
    assert os.path.isfile(plugin)
    with open(plugin, "rb") as f:
        assert f.read(4) == b"\x7fELF"


def test_opt_plugin_instruments_ir():
    # The plugin uses the LLVM of the opt-19 that loads it (the system's:
    # utils/setup.sh installs it with LLVM's tools).
    opt = "/usr/lib/llvm-19/bin/opt"
    assert os.access(opt, os.X_OK), "LLVM 19's opt is missing"
    ir = ROOT / "test" / "lit" / "passes" / "several-functions.ll"
    p = subprocess.run([opt, "-load-pass-plugin=" + graphjit.opt_plugin(),
                        "-passes=graphjit-instrument", "-S", str(ir)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "call ptr @gj_profile_enter(ptr @train.gj_profile)" in p.stdout


def test_any_program_profiled_with_the_installed_pieces(tmp_path):
    """docs/instrumentation.md, "A report for any program", with what the
    package installs: its plugin, its runtime library and its
    graphjit-prof (LLVM 19's tools from the system, as a user of the plugin
    has them)."""
    llvm = "/usr/lib/llvm-19/bin"
    inputs = ROOT / "test" / "lit" / "passes" / "Inputs"
    ll, marked = tmp_path / "p.ll", tmp_path / "p.marked.ll"
    exe, profile = tmp_path / "p", tmp_path / "p.json"

    def run(*cmd, **kw):
        p = subprocess.run([str(c) for c in cmd], capture_output=True,
                           text=True, **kw)
        assert p.returncode == 0, (cmd, p.stderr)
        return p.stdout

    run(llvm + "/clang", "-x", "c", "-O1", "-S", "-emit-llvm",
        inputs / "any_program.c", "-o", ll)
    run(sys.executable, inputs / "mark_calls.py", ll, marked, "step",
        "scale=Scale{a=1.0001}(x)|any_program.c:12|C")
    run(llvm + "/opt", "-load-pass-plugin=" + graphjit.opt_plugin(),
        "-passes=graphjit-instrument", marked, "-o", tmp_path / "p.bc")
    run(llvm + "/clang++", tmp_path / "p.bc", graphjit.runtime_library(),
        "-L" + llvm + "/../lib", "-lLLVM", "-lpthread", "-o", exe)
    run(exe, "9", env=dict(os.environ, GRAPHJIT_PROFILE_JSON=str(profile)))
    out = run(_console_script("graphjit-prof"), "summary", profile)
    assert "Time in 9 calls to Function.__call__" in out
    assert "Scale{a=1.0001}(x)" in out
    assert os.path.isfile(os.path.join(graphjit.include_dir(), "graphjit",
                                       "runtime", "RuntimeABI.h"))
