#!/bin/bash
# Packs a release build for a lent GPU machine (see docs/gpu.md, "On a lent
# GPU machine"): the binaries the GPU checks run, the shared libraries they
# need beyond glibc and libstdc++ (that machine has no LLVM 19 or OpenBLAS),
# and lit with FileCheck. Writes .gpu/pkg.tar.xz (about 53 MB), which the
# device tool carries (`carry: [".gpu"]`); .gpu/ is git-ignored locally.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo /.gpu/ >> .git/info/exclude
S=$(mktemp -d)
trap 'rm -rf "$S"' EXIT
mkdir -p "$S"/lib "$S"/bin "$S"/build/{bin,test/unit,bench,lib} .gpu
cp "$B"/bin/graphjit "$B"/bin/graphjit-prof "$S"/build/bin/
cp "$B"/test/unit/graphjit-unittests "$S"/build/test/unit/
cp "$B"/bench/graphjit-gpu-bench "$B"/bench/graphjit-bench "$S"/build/bench/
cp "$B"/lib/GraphjitPasses.so "$S"/build/lib/
cp "$B"/lib/libgraphjit_runtime.a "$S"/build/lib/
cp /usr/lib/llvm-19/bin/{FileCheck,not,count} "$S"/bin/
cp -r /usr/lib/llvm-19/build/utils/lit "$S"/lit
for L in $(ldd "$B"/bin/graphjit "$B"/test/unit/graphjit-unittests \
               /usr/lib/llvm-19/bin/FileCheck | awk '/=>/ {print $3}' | sort -u); do
  case $(basename "$L") in
    libc.so*|libm.so*|libstdc++*|libgcc_s*|ld-linux*) ;;  # newer there
    *) cp -L "$L" "$S"/lib/ ;;
  esac
done
tar -C "$S" -cf - . | xz -T2 -6 > .gpu/pkg.tar.xz
cp utils/device/check.sh .gpu/
ls -l .gpu
