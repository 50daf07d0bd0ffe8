#!/usr/bin/env bash
# Sets up and builds graphjit, then runs it on the project's examples and
# prints what they compute.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/utils/setup.sh"
gj="$root/build/bin/graphjit"
ex="$root/examples"
run() { echo; echo "\$ graphjit $*"; "$gj" "$@"; }

run "$ex/profiling_example.graph" -dim=n=5
run "$ex/logistic_regression.graph" -function=train -dim=n=400 -calls=10 -print-elements=5
run "$ex/logistic_regression.graph" -function=predict -dim=n=4
run "$ex/mlp.graph" -function=train -dim=n=128 -calls=3 -print-elements=4
run "$ex/mlp.graph" -function=predict -dim=n=8

# Where the time goes: Theano's profile, per Class, Op and Apply.
run "$ex/logistic_regression.graph" -function=train -dim=n=400 -calls=100 -profile -profiling__n_apply=8

# Where the memory goes: the simulated peaks next to the measured one.
run "$ex/mlp.graph" -function=train -dim=n=128 -calls=3 -profile-memory -profiling__n_apply=5

# What the optimizer did: the tutorial's three Applies as written, then
# fused into one Composite, with the optimizer's own profile.
run "$ex/profiling_example.graph" -dim=n=100000 -calls=100 -profile -optimizer_excluding=fusion:inplace -profiling__n_apply=3
run "$ex/profiling_example.graph" -dim=n=100000 -calls=100 -profile -profile-optimizer

# The GPU path (docs/gpu.md): on an NVIDIA GPU with -device=cuda; here on
# the emulated device, which runs the same placement, kernels (compiled for
# the host), pool and device timers. The kernels' PTX goes through ptxas.
run "$ex/mlp.graph" -function=train -dim=n=128 -calls=3 -device=cuda-emulated -profile -profiling__n_apply=6 -emit-ptx="$root/build/mlp.ptx"
if [ -x /usr/local/cuda/bin/ptxas ]; then
  echo; echo "\$ ptxas -arch=sm_90 build/mlp.ptx"
  /usr/local/cuda/bin/ptxas -arch=sm_90 "$root/build/mlp.ptx" -o "$root/build/mlp.cubin" && echo "ptxas: accepted"
fi

# From Python (docs/python.md): the graphjit package in the project's venv,
# the same train step trained, checked against NumPy and profiled.
echo; echo "\$ .venv/bin/python examples/python_profile.py"
"$root/.venv/bin/python" "$ex/python_profile.py"

# A PyTensor script, unchanged, under graphjit's mode with PyTensor's own
# flags: graphjit's per-Apply profile of PyTensor's nodes at exit.
echo; echo "\$ PYTENSOR_FLAGS=mode=GRAPHJIT,profile=True .venv/bin/python examples/pytensor_profile.py"
PYTENSOR_FLAGS=mode=GRAPHJIT,profile=True,profiling__n_apply=8,profiling__n_ops=8 \
  "$root/.venv/bin/python" "$ex/pytensor_profile.py" 2>&1
