"""The command-line tools installed with the package: the console scripts
`graphjit` and `graphjit-prof` (pyproject.toml) run the executables the
wheel carries in graphjit/bin/, the ones the build makes as
build/bin/graphjit and build/bin/graphjit-prof (README, "A tour").

A module of its own at site-packages' root, beside
_graphjit_pytensor_hook: the package is found, not imported, so that a
command starts without loading the native module and the BLAS."""
import importlib.util
import os
import sys


def tool_path(name):
    """The installed executable NAME (graphjit or graphjit-prof)."""
    spec = importlib.util.find_spec("graphjit")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(spec.submodule_search_locations[0], "bin", name)


def _blas_environment():
    """The environment the tools run in: scipy-openblas32's library on the
    loader's path. The executables name it (libscipy_openblas.so) but may
    carry no path to it: auditwheel's repair keeps no RPATH that leads out
    of the wheel, and the package lies beside graphjit in site-packages."""
    env = dict(os.environ)
    try:
        import scipy_openblas32
    except ImportError:  # a build that links the system's BLAS
        return env
    path = env.get("LD_LIBRARY_PATH")
    lib = scipy_openblas32.get_lib_dir()
    env["LD_LIBRARY_PATH"] = lib + (os.pathsep + path if path else "")
    return env


def _run(name):
    exe = tool_path(name)
    if exe is None or not os.access(exe, os.X_OK):
        sys.stderr.write("%s: the graphjit package has no executable %s (a "
                         "build without the command-line tools?)\n"
                         % (name, exe))
        return 1
    os.execve(exe, [name] + sys.argv[1:], _blas_environment())


def graphjit_main():
    return _run("graphjit")


def graphjit_prof_main():
    return _run("graphjit-prof")
