# make_venv DIR REQUIREMENTS: a virtual environment at DIR with the pinned
# REQUIREMENTS installed, reinstalled only when they change. Sourced by
# utils/setup.sh (the BLAS's .venv-blas) and utils/setup-python.sh (the
# Python package's .venv and .venv-pymc).
make_venv() {
  local dir=$1 req=$2
  if [ ! -x "$dir/bin/python" ]; then
    echo "setup: creating $(basename "$dir")"
    /usr/bin/python3 -m venv "$dir"
    "$dir/bin/python" -m pip install -q --disable-pip-version-check \
      pip==26.3
  fi
  if ! cmp -s "$req" "$dir/.graphjit-requirements"; then
    echo "setup: installing $(basename "$req") into $(basename "$dir")"
    "$dir/bin/python" -m pip install -q --disable-pip-version-check -r "$req"
    cp "$req" "$dir/.graphjit-requirements"
  fi
}
