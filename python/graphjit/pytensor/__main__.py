"""python -m graphjit.pytensor script.py [args]: runs a PyTensor script
under the GRAPHJIT mode. config.mode is set to "GRAPHJIT" unless
PYTENSOR_FLAGS (or PyTensor's config file) names another mode, so
PYTENSOR_FLAGS=profile=True works as THEANO_FLAGS did; one line on stderr
says so. PYTENSOR_FLAGS gets mode=GRAPHJIT too, for the script's own
Python subprocesses (PyMC's sampling processes, say).

The script runs as ``python script.py`` runs it: as the module __main__
(which stays in sys.modules until exit, so that its functions' profiles
are still there for the reports printed at exit), with its directory first
in sys.path."""
import builtins
import io
import os
import sys
import types

import graphjit.pytensor  # noqa: F401  (registers the mode first)
from graphjit.pytensor.flags import names_a_mode, wants_graphjit


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: python -m graphjit.pytensor script.py [args]")
    sys.argv = sys.argv[1:]
    from pytensor import config
    # is_default: no mode from PYTENSOR_FLAGS or the config file (a hidden
    # mode=GRAPHJIT included).
    chosen = names_a_mode() and not wants_graphjit()
    if not chosen and config._config_var_dict["mode"].is_default:
        config.mode = "GRAPHJIT"
        if not wants_graphjit():
            flags = os.environ.get("PYTENSOR_FLAGS", "").strip(",")
            os.environ["PYTENSOR_FLAGS"] = ",".join(
                f for f in (flags, "mode=GRAPHJIT") if f)
    if config.mode == "GRAPHJIT":
        print("graphjit: running %s with mode=GRAPHJIT" % sys.argv[0],
              file=sys.stderr, flush=True)
    run_script(sys.argv[0])


def run_script(path):
    with io.open_code(os.fspath(path)) as f:
        code = compile(f.read(), path, "exec")
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=path, __cached__=None,
                           __builtins__=builtins)
    sys.modules["__main__"] = module
    sys.path[0] = os.path.dirname(os.path.abspath(path))
    exec(code, module.__dict__)


if __name__ == "__main__":
    main()
