#!/usr/bin/env bash
# The wheel where nothing is installed (docs/python.md, "The binary
# wheel"): a minimal Debian 12 root file system (debootstrap
# --variant=minbase, from the Debian mirror this machine's apt uses) holding
# Python 3.11 and its venv and nothing else, no LLVM, no clang, no gcc, no
# OpenBLAS; inside it (chroot) a virtual environment gets the wheel and PyMC
# with pip, and test/wheel/check_wheel.py runs the README's Python tour, a
# PyTensor script under PYTENSOR_FLAGS=mode=GRAPHJIT,profile=True, PyMC
# models' logp and gradient under GRAPHJIT, and the installed `graphjit`
# command, each against PyTensor's Python linker or NumPy. Needs root and
# the right to mount (debootstrap, chroot; the mounts live in a mount
# namespace of their own, so they end with the script however it ends);
# about three minutes the first time, one after.
#   utils/test-wheel.sh [WHEEL]   default: dist/'s, made by utils/build-wheel.sh
# The root file systems live outside the tree ($GRAPHJIT_WHEEL_TEST_DIR,
# default /var/tmp/graphjit-wheel-test): they hold root's device nodes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
  echo "test-wheel: needs root (debootstrap and chroot); not run" >&2
  exit 1
fi
wheel=${1:-}
if [ -z "$wheel" ]; then
  # Under sudo the tree stays its owner's: build the wheel as that user.
  as_user=()
  [ -n "${SUDO_USER:-}" ] && as_user=(sudo -u "$SUDO_USER" --)
  "${as_user[@]}" "$root/utils/build-wheel.sh" "$root/dist"
  wheel=$(ls "$root"/dist/graphjit-*.whl)
fi
wheel=$(realpath "$wheel")
version=$(basename "$wheel" | cut -d- -f2)
[ -x "$root/.venv-pymc/bin/python" ] || {
  echo "test-wheel: no .venv-pymc (run utils/setup.sh first)" >&2; exit 1; }

command -v debootstrap >/dev/null || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
}

work=${GRAPHJIT_WHEEL_TEST_DIR:-/var/tmp/graphjit-wheel-test}
rootfs="$work/root"
mkdir -p "$work"
# Anything a killed run left mounted under $work goes first; rm never
# leaves the file system it starts on.
{ findmnt -rn -o TARGET | grep "^$work/" || true; } | sort -r | xargs -r umount -l
rm -rf --one-file-system "$rootfs"

# The bare system, made once and copied for every run.
if [ ! -f "$work/base/.complete" ]; then
  rm -rf --one-file-system "$work/base"
  mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' |
           awk '$2 == "bookworm" { print $1; exit }')
  [ -n "$mirror" ] || { echo "test-wheel: apt knows no bookworm mirror" >&2; exit 1; }
  echo "test-wheel: debootstrap --variant=minbase bookworm"
  unshare --mount --propagation private \
    debootstrap --variant=minbase --include=python3,python3-venv bookworm \
    "$work/base" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  touch "$work/base/.complete"
fi
cp -a "$work/base" "$rootfs"

# Nothing that could compile, assemble or link, and no library that could
# stand in for the wheel's own (/usr holds everything: bookworm's /usr is
# merged).
found=$(find "$rootfs/usr" -path "$rootfs/usr/share" -prune -o \( \
  -name 'gcc*' -o -name 'g++*' -o -name cc -o -name c++ -o -name 'clang*' \
  -o -name ld -o -name 'ld.bfd' -o -name 'ld.gold' -o -name 'ld.lld' \
  -o -name as -o -name 'opt-*' -o -name 'llc*' -o -name 'libLLVM*' \
  -o -name 'libopenblas*' -o -name 'libblas*' -o -name 'liblapack*' \) \
  -print)
if [ -n "$found" ]; then
  echo "test-wheel: the bare system is not bare:" >&2
  echo "$found" >&2
  exit 1
fi

# PyMC and its dependencies as pinned for the PyMC environment, fetched
# from PyPI here (pip's cache makes a second run quick) and installed in
# the chroot from that folder by pip, as a user's pip would.
house="$work/wheelhouse"
mkdir -p "$house"
"$root/.venv-pymc/bin/python" -m pip download -q --only-binary=:all: \
  -d "$house" -r "$root/python/requirements-pymc.txt"
cp "$root/python/requirements-pymc.txt" "$house/"
mkdir -p "$rootfs/wheelhouse" "$rootfs/check/examples" "$rootfs/wheel"
cp "$wheel" "$rootfs/wheel/"
cp "$root/README.md" "$root/test/wheel/check_wheel.py" "$rootfs/check/"
cp "$root"/examples/*.graph "$root"/examples/*.py "$rootfs/check/examples/"

# Each step in a mount namespace of its own (the wheelhouse and /proc
# mounted for it, gone when it ends) and a clean environment: nothing of
# this machine's but the root.
chroot=$(command -v chroot)
run() {
  unshare --mount --propagation private sh -c '
    mount --bind "$2" "$1/wheelhouse" && mount -t proc proc "$1/proc" &&
    exec env -i HOME=/root LANG=C.UTF-8 PATH=/opt/venv/bin:/usr/bin:/bin \
      OPENBLAS_NUM_THREADS=1 "$3" "$1" /bin/sh -c "$4"' \
    sh "$rootfs" "$house" "$chroot" "$1"
}
echo "test-wheel: pip install $(basename "$wheel") and PyMC in the bare system"
run "python3 -m venv /opt/venv && cd /wheelhouse &&
     pip install -q --no-index --find-links /wheelhouse \
       /wheel/$(basename "$wheel") -r requirements-pymc.txt"
echo "test-wheel: checks"
run "cd /check && python check_wheel.py --version $version --tree /check"
# Kept for a look after a failure; 1.6 GB once it passed.
rm -rf --one-file-system "$rootfs"
