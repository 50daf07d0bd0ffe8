#!/usr/bin/env bash
# The Python package (docs/python.md): two virtual environments with their
# pinned requirements, and graphjit installed into both from the wheel of
# the build in build/ (its native module is built there with the rest, so
# nothing is compiled twice). Called by utils/setup.sh; quick when nothing
# changed.
#   .venv       graphjit, NumPy, pytest, PyTensor 3.0.x
#   .venv-pymc  graphjit, PyMC 5.28.x and the PyTensor 2.38.x it brings
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"

source "$root/utils/make-venv.sh"

make_venv "$root/.venv" "$root/python/requirements.txt"
make_venv "$root/.venv-pymc" "$root/python/requirements-pymc.txt"

# The main build compiles the native module when it knows the venv.
if ! grep -q "^GRAPHJIT_PYTHON:BOOL=ON" "$build/CMakeCache.txt" 2>/dev/null; then
  cmake -S "$root" -B "$build" -DGRAPHJIT_PYTHON=ON \
    -DPython_EXECUTABLE="$root/.venv/bin/python" >/dev/null
fi
cmake --build "$build" -j2 --target _graphjit

# The wheel from the same build tree (scikit-build-core reconfigures it and
# builds only _graphjit, already up to date), installed into both venvs.
wheels="$build/python-wheel"
rm -rf "$wheels"
"$root/.venv/bin/python" -m pip wheel -q --disable-pip-version-check \
  --no-build-isolation --no-deps -C build-dir="$build" -w "$wheels" "$root" \
  >/dev/null
for venv in "$root/.venv" "$root/.venv-pymc"; do
  "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    --force-reinstall --no-deps "$wheels"/graphjit-*.whl
done
