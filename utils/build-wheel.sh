#!/usr/bin/env bash
# The binary wheel (docs/python.md, "The wheel"): the package's wheel from
# the release build (utils/setup.sh), made self-contained by auditwheel's
# repair, as the Python packaging ecosystem does it: the shared libraries
# the native module and the command-line tools need beyond glibc and
# libstdc++ (LLVM's, and what LLVM's needs) are copied into the wheel
# (graphjit.libs/), RPATHs lead there, and the platform tag names the
# glibc the wheel needs. The BLAS and LAPACK stay a declared dependency
# (scipy-openblas32 from PyPI). The opt plugin is put back as the build
# made it: it must use the LLVM of the opt-19 that loads it, never a copy.
#   utils/build-wheel.sh [DIR]     the wheel into DIR (default: dist/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/dist}")

"$root/utils/setup.sh"   # build/, and its plain wheel in build/python-wheel/
source "$root/utils/make-venv.sh"
make_venv "$root/.venv-wheel" "$root/utils/requirements-wheel.txt"
tools="$root/.venv-wheel/bin"

plain=$(ls "$root"/build/python-wheel/graphjit-*.whl)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# libscipy_openblas.so: the scipy-openblas32 package's, found at run time
# (graphjit/__init__.py loads it; the tools' wrappers put it on the path).
# libcuda.so.1: the GPU path opens the driver itself, where there is one.
PATH="$tools:$PATH" "$tools/auditwheel" repair -w "$work/repaired" \
  --exclude libscipy_openblas.so --exclude 'libcuda.so*' "$plain" >"$work/repair.log" 2>&1 ||
  { cat "$work/repair.log" >&2; exit 1; }
repaired=$(ls "$work"/repaired/graphjit-*.whl)

"$tools/python" -m wheel unpack -d "$work/tree" "$repaired" >/dev/null
tree=$(ls -d "$work"/tree/graphjit-*)
"$tools/python" - "$plain" "$tree" <<'PY'
import sys, zipfile
name = "graphjit/lib/GraphjitPasses.so"  # as installed: stripped, no RPATH
with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[2] + "/" + name, "wb") as f:
    f.write(z.read(name))
PY
# The plugin the wheel gets loads into the system's opt-19 and instruments IR.
instrumented=$(/usr/lib/llvm-19/bin/opt \
  -load-pass-plugin="$tree/graphjit/lib/GraphjitPasses.so" \
  -passes=graphjit-instrument -S "$root/test/lit/passes/several-functions.ll")
case "$instrumented" in
  *"call ptr @gj_profile_enter"*) ;;
  *) echo "build-wheel: the wheel's opt plugin does not run in opt-19" >&2; exit 1 ;;
esac

mkdir -p "$out"
rm -f "$out"/graphjit-*.whl
"$tools/python" -m wheel pack -d "$out" "$tree" >/dev/null
wheel=$(ls "$out"/graphjit-*.whl)

# The sdist, for machines with LLVM 19 (pip builds it from source there).
rm -f "$out"/graphjit-*.tar.gz
"$tools/python" -m build --sdist --no-isolation --skip-dependency-check -o "$out" "$root" >"$work/sdist.log" 2>&1 ||
  { cat "$work/sdist.log" >&2; exit 1; }
sdist=$(ls "$out"/graphjit-*.tar.gz)
"$tools/python" - "$sdist" <<'PY'
import sys, tarfile
names = tarfile.open(sys.argv[1]).getnames()
top = names[0].split("/")[0]
need = ["CMakeLists.txt", "pyproject.toml", "lib/CMakeLists.txt", "lib/jit",
        "lib/runtime", "lib/passes", "include/graphjit", "tools/graphjit.cpp",
        "python/src/NativeModule.cpp", "python/graphjit/__init__.py", "cmake",
        "utils/build-wheel.sh", "utils/test-wheel.sh", "test/wheel"]
missing = [n for n in need
           if not any(m == top + "/" + n or m.startswith(top + "/" + n + "/")
                      for m in names)]
stray = [n for n in names if n.split("/")[1:2] and
         n.split("/")[1].startswith(("build", ".venv", "dist"))]
if missing or stray:
    sys.exit("build-wheel: the sdist lacks %s or holds %s" % (missing, stray[:5]))
PY

echo "wheel: $wheel ($(du -h "$wheel" | cut -f1))"
echo "sdist: $sdist ($(du -h "$sdist" | cut -f1))"
echo "copied in by the repair:"
"$tools/python" - "$wheel" <<'PY'
import sys, zipfile
for i in zipfile.ZipFile(sys.argv[1]).infolist():
    if ".libs/" in i.filename:
        print("  %-48s %6.1f MB" % (i.filename.split("/")[-1], i.file_size / 1e6))
PY
