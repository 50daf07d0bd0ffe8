#!/usr/bin/env bash
# Sets up, builds and runs every test (unit, lit, NumPy) through CTest, and
# with the release build the Python package's pytest suite, once in each of
# its environments (PyTensor 3.0.x in .venv; PyMC and PyTensor 2.38.x in
# .venv-pymc), then the binary wheel's test in a bare Debian 12 system
# (utils/test-wheel.sh, as root).
#   utils/test.sh              the release build
#   utils/test.sh --sanitize   the ASan/UBSan build (clang-19), fuzz corpus too
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/utils/setup.sh" "$@"
build="$root/build"
exclude=()
if [ "${1:-}" = "--sanitize" ]; then
  build="$root/build-asan"
  # The NumPy scripts' second run on the emulated GPU checks values, which
  # the release run does; under the sanitizers the GPU path is exercised by
  # the unit and lit tests.
  exclude=(-E '^numpy-gpu/')
fi
# allocator_may_return_null: a failed allocation is an error graphjit reports
# (out-of-memory tests), as without the sanitizer, not an abort.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" -j2 --output-on-failure --timeout 600 "${exclude[@]}"
if [ "${1:-}" != "--sanitize" ]; then
  for venv in .venv .venv-pymc; do
    echo "pytest in $venv:"
    (cd "$root" && "$root/$venv/bin/python" -m pytest python/tests -q \
       -p no:cacheprovider)
  done
  # The binary wheel, installed and run where nothing else is (a bare
  # Debian root file system): it takes root and the right to mount
  # (debootstrap, chroot), Debian's mirror and PyPI; GRAPHJIT_TEST_WHEEL=0
  # leaves it out.
  if [ "${GRAPHJIT_TEST_WHEEL:-1}" = 0 ]; then
    echo "NOT RUN: utils/test-wheel.sh (the wheel in a bare system): GRAPHJIT_TEST_WHEEL=0"
  elif [ "$(id -u)" -ne 0 ] || ! unshare --mount true 2>/dev/null; then
    echo "NOT RUN: utils/test-wheel.sh (the wheel in a bare system) needs root and the right to mount"
  else
    echo "the wheel in a bare system (utils/test-wheel.sh):"
    "$root/utils/test-wheel.sh"
  fi
fi
