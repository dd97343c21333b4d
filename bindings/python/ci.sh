#!/usr/bin/env bash
# The Python package's CI: a fresh venv, `pip install` of the package (maturin builds the
# Rust extension, release profile), then pytest. Prints what each step cost in seconds.
#
#   bash bindings/python/ci.sh            # from anywhere
#   PYTHON=python3.12 bash bindings/python/ci.sh
#   BCAST_PY_VENV=/tmp/v bash bindings/python/ci.sh   # the venv there (default: bindings/python/.venv)
#
# Needs Python >= 3.9 with venv, and a Rust toolchain. The venv is made anew each run, at the
# same path, so that the Rust build (in $CARGO_TARGET_DIR, or the workspace's target/), whose
# PyO3 configuration names the interpreter's path, is reused: a second run rebuilds nothing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${PYTHON:-python3}"
start=$(date +%s.%N)
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

venv="${BCAST_PY_VENV:-$here/.venv}"

t=$(date +%s.%N)
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet numpy pytest hypothesis ml_dtypes onnx
echo "python-ci: venv and test tools: $(since "$t") s"

t=$(date +%s.%N)
"$venv/bin/python" -m pip install --quiet "$here"
echo "python-ci: pip install ./bindings/python: $(since "$t") s"

t=$(date +%s.%N)
status=0
# From the tests folder, so that `import bcast` is the installed package.
(cd "$here/tests" && "$venv/bin/python" -m pytest -q -p no:cacheprovider .) || status=$?
echo "python-ci: pytest: $(since "$t") s"
echo "python-ci: total: $(since "$start") s"
exit "$status"
