#!/usr/bin/env bash
# Installs what graphjit needs (Debian 12 packages) when it is missing, then
# configures and builds into build/ (or build-asan/ with --sanitize); the
# release build also installs the Python package into .venv and .venv-pymc
# (utils/setup-python.sh).
# Idempotent and quick when there is nothing to do.
#
#   utils/setup.sh              release build in build/
#   utils/setup.sh --sanitize   clang-19 build with ASan, UBSan and the fuzzer
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

packages=(cmake ninja-build g++ llvm-19-dev llvm-19-tools clang-19
          libclang-rt-19-dev libopenblas-dev libboost-math1.74-dev libgtest-dev python3 python3-numpy
          python3-venv python3-dev librsvg2-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

# The GPU path's tests assemble PTX with the CUDA toolkit's ptxas and link
# libdevice (no GPU needed); the toolkit is not a Debian package here.
cuda=${CUDA_HOME:-/usr/local/cuda}
for f in "$cuda/bin/ptxas" "$cuda/nvvm/libdevice/libdevice.10.bc"; do
  [ -e "$f" ] || echo "setup: warning: $f is missing: the GPU path's PTX" \
    "tests will fail (install the CUDA toolkit at $cuda or set CUDA_HOME)" >&2
done

# The BLAS and LAPACK graphjit links: the pinned scipy-openblas32 from PyPI
# (cmake/GraphjitBlas.cmake), in an environment of its own.
source "$root/utils/make-venv.sh"
make_venv "$root/.venv-blas" "$root/utils/requirements-blas.txt"

build="$root/build"
config=(-G Ninja -DCMAKE_BUILD_TYPE=Release)
if [ "${1:-}" = "--sanitize" ]; then
  build="$root/build-asan"
  config=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
          -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19
          -DGRAPHJIT_SANITIZE=ON -DGRAPHJIT_FUZZ=ON)
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" "${config[@]}" >/dev/null
fi
cmake --build "$build" -j2

# The release build also makes the Python package and its environments.
if [ "${1:-}" != "--sanitize" ]; then
  "$root/utils/setup-python.sh"
fi
