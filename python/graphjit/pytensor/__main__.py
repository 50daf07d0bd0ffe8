"""python -m graphjit.pytensor script.py [args]: runs a PyTensor script with
the GRAPHJIT mode registered before the script imports pytensor, so that
PYTENSOR_FLAGS=mode=GRAPHJIT,profile=True works as Theano's flags did."""
import runpy
import sys

import graphjit.pytensor  # noqa: F401  (registers the mode first)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: python -m graphjit.pytensor script.py [args]")
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
