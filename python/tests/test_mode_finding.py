"""Finding the GRAPHJIT mode (issue 35): the installed package makes the
name work in any script, with no import of graphjit and no flag; through
``config.change_flags(mode="GRAPHJIT")``; and under
``python -m graphjit.pytensor script.py`` by default. Every test runs a
fresh interpreter (sys.executable, the venv with graphjit installed), since
what is tested is what happens at start-up and at pytensor's import."""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# Prints the linker's class, whether it is graphjit's, and f's value. The
# check imports graphjit.pytensor only after f is compiled.
REPORT = """
import numpy as _np
from graphjit.pytensor import GraphjitLinker as _GL
print("LINKER", type(f.maker.linker).__name__,
      isinstance(f.maker.linker, _GL), float(f(_np.zeros(3))))
"""
GRAPH = """
import pytensor, pytensor.tensor as pt
x = pt.dvector("x")
y = pt.exp(x).sum()
"""


def run(args, flags=None, **kw):
    env = {k: v for k, v in os.environ.items() if k != "PYTENSOR_FLAGS"}
    if flags is not None:
        env["PYTENSOR_FLAGS"] = flags
    return subprocess.run([sys.executable] + args, env=env,
                          capture_output=True, text=True, timeout=180, **kw)


def run_code(code, flags=None, opts=()):
    p = run(list(opts) + ["-c", textwrap.dedent(code)], flags)
    assert p.returncode == 0, p.stderr
    return p


def linker_line(p):
    lines = [l for l in p.stdout.splitlines() if l.startswith("LINKER")]
    assert len(lines) == 1, p.stdout + p.stderr
    _, name, is_graphjit, value = lines[0].split()
    assert float(value) == 3.0
    return name, is_graphjit == "True"


def test_mode_name_without_import():
    """mode="GRAPHJIT" in a script that never imports graphjit."""
    p = run_code(GRAPH + 'f = pytensor.function([x], y, mode="GRAPHJIT")'
                 + REPORT)
    assert linker_line(p) == ("GraphjitLinker", True)


def test_mode_name_after_a_submodule_import():
    """pytensor's first import through a submodule (and through
    get_mode) registers the mode as well."""
    p = run_code(textwrap.dedent("""
        from pytensor.compile.mode import get_mode
        import pytensor, pytensor.tensor as pt
        x = pt.dvector("x")
        f = pytensor.function([x], pt.exp(x).sum(), mode=get_mode("GRAPHJIT"))
    """) + REPORT)
    assert linker_line(p) == ("GraphjitLinker", True)


def test_default_mode_unchanged_without_flag():
    p = run_code(GRAPH + "f = pytensor.function([x], y)" + REPORT)
    assert linker_line(p)[1] is False


def test_start_up_imports_nothing():
    """A process that never imports pytensor loads none of numpy, pytensor
    or graphjit; once pytensor is imported, nothing of the hook is left in
    sys.meta_path (no cost per later import)."""
    p = run_code("""
        import sys
        print("LOADED", sorted(m for m in sys.modules
              if m.split(".")[0] in ("numpy", "pytensor", "graphjit")))
        hooked = lambda: [f for f in sys.meta_path
                          if "graphjit" in getattr(f, "__module__", "")]
        print("HOOKED", len(hooked()))
        import pytensor
        print("AFTER", len(hooked()), "graphjit.pytensor" in sys.modules)
    """)
    out = p.stdout.splitlines()
    assert "LOADED []" in out
    assert "HOOKED 1" in out
    assert "AFTER 0 True" in out


def test_flag_without_import():
    """PYTENSOR_FLAGS=mode=GRAPHJIT with a plain ``import pytensor``."""
    code = GRAPH + "f = pytensor.function([x], y)" + REPORT
    for flags in ("mode=GRAPHJIT", "floatX=float64,mode=graphjit"):
        p = run_code(code, flags)
        assert linker_line(p) == ("GraphjitLinker", True), flags
        assert "does not recognise" not in p.stderr


def test_flag_with_graphjit_imported_first():
    """The older ways still work: graphjit.pytensor imported before
    pytensor, with and without the flag (no recursion through the hook)."""
    code = "import graphjit.pytensor\n" + GRAPH + """
f = pytensor.function([x], y, mode=None if FLAG else "GRAPHJIT")
""" + REPORT
    for flags in ("mode=GRAPHJIT", None):
        p = run_code("FLAG = %r\n" % flags + code, flags)
        assert linker_line(p) == ("GraphjitLinker", True), flags


def test_change_flags():
    """config.change_flags(mode="GRAPHJIT") (and config.mode = "GRAPHJIT")
    are accepted, reach functions compiled without a mode, and are undone."""
    p = run_code(GRAPH + """
default = pytensor.config.mode
with pytensor.config.change_flags(mode="GRAPHJIT"):
    f = pytensor.function([x], y)
""" + REPORT + """
assert pytensor.config.mode == default, pytensor.config.mode
g = pytensor.function([x], y)
assert not isinstance(g.maker.linker, _GL)
pytensor.config.mode = "GRAPHJIT"
h = pytensor.function([x], y)
assert isinstance(h.maker.linker, _GL)
try:
    pytensor.config.mode = "NO_SUCH_MODE"
except ValueError:
    print("REFUSED")
""")
    assert linker_line(p) == ("GraphjitLinker", True)
    assert "REFUSED" in p.stdout


def test_change_flags_with_pymc():
    """PyMC's functions that take no compile_kwargs (find_MAP) run on
    graphjit under change_flags(mode="GRAPHJIT")."""
    pytest.importorskip("pymc")
    p = run_code("""
        import numpy as np, pymc as pm, pytensor
        from graphjit.pytensor import GraphjitLinker
        with pm.Model() as model:
            mu = pm.Normal("mu", 0.0, 10.0)
            pm.Normal("y", mu, 1.0, observed=np.array([1.0, 2.0, 3.0]))
        with pytensor.config.change_flags(mode="GRAPHJIT"):
            logp = model.compile_logp()
            got = pm.find_MAP(model=model, progressbar=False)
        assert isinstance(logp.f.maker.linker, GraphjitLinker)
        print("MAP", float(got["mu"]))
    """)
    mu = [l.split()[1] for l in p.stdout.splitlines() if l.startswith("MAP")]
    # The posterior mode: 6 / (3 + 1/100).
    assert mu and abs(float(mu[0]) - 6.0 / 3.01) < 1e-4, p.stdout


def test_runner_defaults_to_graphjit(tmp_path):
    """python -m graphjit.pytensor script.py, no PYTENSOR_FLAGS: the script
    runs under GRAPHJIT, and one line on stderr says so."""
    script = tmp_path / "s.py"
    (tmp_path / "sibling.py").write_text("WORD = 'sibling'\n")
    script.write_text(GRAPH + """
import sys, sibling
print("ARGS", sys.argv[1:], __name__, sibling.WORD)
f = pytensor.function([x], y)
""" + REPORT)
    said_once = ["graphjit: running %s with mode=GRAPHJIT" % script]

    def said(p):
        return [l for l in p.stderr.splitlines() if l.startswith("graphjit:")]

    p = run(["-m", "graphjit.pytensor", str(script), "a", "b"],
            cwd=str(ROOT))
    assert p.returncode == 0, p.stderr
    assert linker_line(p) == ("GraphjitLinker", True)
    assert "ARGS ['a', 'b'] __main__ sibling" in p.stdout
    assert said(p) == said_once, p.stderr

    # The flag naming GRAPHJIT: the same, said once. profile=True alone:
    # GRAPHJIT as well, and graphjit's report at exit (the script's
    # functions live until then).
    for flags in ("mode=GRAPHJIT", "profile=True"):
        p = run(["-m", "graphjit.pytensor", str(script)], flags)
        assert p.returncode == 0, p.stderr
        assert linker_line(p) == ("GraphjitLinker", True), flags
        assert said(p) == said_once, p.stderr
    assert "graphjit coverage" in p.stderr

    # Another mode named in the flags wins, and nothing is said.
    p = run(["-m", "graphjit.pytensor", str(script)], "mode=FAST_COMPILE")
    assert p.returncode == 0, p.stderr
    assert linker_line(p)[1] is False
    assert said(p) == [], p.stderr
