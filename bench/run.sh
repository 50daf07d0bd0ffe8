#!/usr/bin/env bash
# Runs the benchmarks and prints their ratios (docs/BENCHMARKS.md records
# results). Builds first if needed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/utils/setup.sh" >/dev/null
build="$root/build"
gj="$build/bin/graphjit"
ex="$root/examples"

echo "== machine"
echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo
echo "== JIT, interpreter and physical limits (in one process)"
"$build/bench/graphjit-bench"
echo
echo "== what profiling costs (profiled and unprofiled calls alternate)"
"$build/bench/graphjit-profile-bench"
echo
echo "== what the optimizer buys (fast_run against None) and costs"
"$build/bench/graphjit-optimizer-bench"
echo
echo "== the GPU path: elemwise against the device's copy, perceptron against the CPU, profiling"
echo "   (cuda when a GPU opens, else cuda-emulated: a smoke run that measures the host)"
"$build/bench/graphjit-gpu-bench"
echo
# Against NumPy, PyTensor and PyTorch: bench/peers/run_peers.py, which makes
# its own virtual environment and rewrites docs/BENCHMARKS.md's Peers section.
echo "== cold compile: a fresh process parses, compiles and calls once"
echo "   (first: empty compile cache; cached: the object from the first run)"
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
for f in profiling_example logistic_regression mlp; do
  for run in first cached; do
    start=$(date +%s%N)
    line=$("$gj" "$ex/$f.graph" -function=train -dim=n=4 -print-compile-time -cache-dir="$cache" 2>/dev/null ||
           "$gj" "$ex/$f.graph" -dim=n=4 -print-compile-time -cache-dir="$cache")
    end=$(date +%s%N)
    echo "$f ($run): $(echo "$line" | grep 'compile time' | sed 's/^ *//'); whole process $(( (end - start) / 1000000 )) ms"
  done
done
