#!/bin/bash
# The GPU checks, run on a lent machine by the device tool from the
# repository's root, after utils/device/pack.sh:
#   run(command="bash .gpu/check.sh", carry=[".gpu"], timeout_s=450)
# Each step has its own timeout and log under $OUT (at most 8 files come
# back). NumPy scripts: those in NUMPY_SCRIPTS (default all), GPU_SHARDS
# processes each (GRAPHJIT_TEST_SHARD), on the devices in GPU_DEVICES
# (default cuda: cuda-emulated runs in CI), NUMPY_TIMEOUT seconds each.
# SKIP names steps to leave out: any of bench unit-gpu unit-rest lit.
exec > >(tee "$OUT"/main.log) 2>&1
T0=$(date +%s)
R=$PWD
at() { echo "$1 at $(( $(date +%s) - T0 ))s"; }
mkdir -p /tmp/gj && tar -xJf .gpu/pkg.tar.xz -C /tmp/gj || exit 1
mkdir -p build && cp -r /tmp/gj/build/* build/
# The binaries name the examples by the path they were built at.
[ "$R" = /work/main ] || { mkdir -p /work; ln -sfn "$R" /work/main; }
export LD_LIBRARY_PATH=/tmp/gj/lib GRAPHJIT_CACHE_DIR=/tmp/gjcache
[ -e /usr/local/cuda/lib64/libcublas.so.13 ] &&
  export GRAPHJIT_LIBCUBLAS=/usr/local/cuda/lib64/libcublas.so.13
{ nvidia-smi; lscpu | head -20; ldd build/bin/graphjit | grep 'not found'; } > "$OUT"/env.log 2>&1
at unpacked
runs() { [[ " ${SKIP:-} " != *" $1 "* ]]; }
# The benchmark first, with the GPU to itself.
if runs bench; then
  timeout 150 build/bench/graphjit-gpu-bench > "$OUT"/bench.log 2>&1
  at "bench rc=$?"
fi
{ timeout 60 build/bin/graphjit examples/mlp.graph -dim=n=4096 -device=cuda -profile -profile-trace=/tmp/trace.json
  echo "rc=$?"
} > "$OUT"/smoke.log 2>&1
GF='*Gpu*:*Cuda*:*DevicePool*:*EmulatedDevice*:*Placement*'
runs unit-gpu && ( timeout 300 build/test/unit/graphjit-unittests --gtest_filter="$GF" > "$OUT"/unit-gpu.log 2>&1
  echo "unit-gpu rc=$?" >> "$OUT"/unit-gpu.log ) &
runs unit-rest && ( timeout 300 build/test/unit/graphjit-unittests --gtest_brief=1 --gtest_filter="-$GF" > "$OUT"/unit-rest.log 2>&1
  echo "unit-rest rc=$?" >> "$OUT"/unit-rest.log ) &
runs lit && ( timeout 200 python3 /tmp/gj/lit/lit.py -v --param graphjit_bin_dir="$R"/build/bin \
    --param llvm_tools_dir=/tmp/gj/bin --param python="$(which python3)" \
    --param graphjit_exec_root=/tmp/litx test/lit/gpu test/lit/profile/trace.test > "$OUT"/lit.log 2>&1
  echo "lit rc=$?" >> "$OUT"/lit.log ) &
N=${GPU_SHARDS:-4}
for T in ${NUMPY_SCRIPTS:-test_elemwise test_reductions test_shape_ops test_linalg_nn test_gemm test_examples test_random_graphs}; do
  for I in $(seq 0 $((N - 1))); do
    ( GRAPHJIT_TEST_SHARD=$I/$N GRAPHJIT_TEST_DEVICES=${GPU_DEVICES:-cuda} GRAPHJIT_TEST_LINKERS='c|py' \
        timeout ${NUMPY_TIMEOUT:-300} python3 test/numpy/$T.py build/bin/graphjit > /tmp/np-$T-$I.log 2>&1
      echo "== $T shard $I/$N rc=$?" >> /tmp/np-$T-$I.log ) &
  done
done
wait $(jobs -p)  # not the tee above, which ends with this script
cat /tmp/np-*.log > "$OUT"/numpy-gpu.log
grep -h "passed, \|^interrupted\|^== " /tmp/np-*.log
at done
