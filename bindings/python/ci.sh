#!/usr/bin/env bash
# The Python package's CI, as a user installs it: maturin (pip-installed into a build venv)
# builds the wheel in release (the `wheel` profile), the wheel is checked for the stubs, py.typed and the README
# metadata, installed into a fresh test venv, and pytest runs against it. Prints what each
# step cost in seconds.
#
#   bash bindings/python/ci.sh            # from anywhere
#   PYTHON=python3.12 bash bindings/python/ci.sh
#   BCAST_PY_VENV=/tmp/v bash bindings/python/ci.sh   # test venv there, build venv at /tmp/v-build
#                                                     # (default: bindings/python/.venv, .venv-build)
#
# Needs Python >= 3.9 with venv, and a Rust toolchain. Both venvs are made anew each run, at
# the same paths, so that the Rust build (in $CARGO_TARGET_DIR, or the workspace's target/),
# whose PyO3 configuration names the build interpreter's path, is reused: a second run
# rebuilds nothing.
#
# Cost, measured on the shared 2-core machine with other builds running (load average 8-9):
# with the extension's release build already in target/, 80 s (venvs, maturin and test tools
# 51 s, wheel 2 s, install 1 s, pytest 26 s); from a target/ without a release build the
# wheel step compiles the kernel and PyO3 in release, the same build `pip install` ran before
# (12 min at that load; not measured on a quiet machine). The build venv with maturin costs 12 s,
# in place of the isolated build environment pip made for `pip install ./bindings/python`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${PYTHON:-python3}"
start=$(date +%s.%N)
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

venv="${BCAST_PY_VENV:-$here/.venv}"
build_venv="$venv-build"
wheels="$build_venv/wheels"

t=$(date +%s.%N)
rm -rf "$venv" "$build_venv"
"$python" -m venv "$build_venv"
"$build_venv/bin/python" -m pip install --quiet maturin
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet numpy pytest hypothesis ml_dtypes onnx
echo "python-ci: venvs, maturin and test tools: $(since "$t") s"

t=$(date +%s.%N)
"$build_venv/bin/maturin" build --profile wheel --quiet -m "$here/Cargo.toml" \
    -i "$build_venv/bin/python" --out "$wheels"
wheel=("$wheels"/bcast-*.whl)
[ "${#wheel[@]}" -eq 1 ] || { echo "python-ci: expected one wheel, got: ${wheel[*]}" >&2; exit 1; }
# What a user's pip gets: the package with its stubs and marker, and the README as the
# project description.
"$build_venv/bin/python" - "${wheel[0]}" <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
for want in ("bcast/__init__.py", "bcast/__init__.pyi", "bcast/py.typed"):
    assert want in names, (want, names)
meta = [n for n in names if n.endswith(".dist-info/METADATA")]
text = zipfile.ZipFile(sys.argv[1]).read(meta[0]).decode()
assert "Description-Content-Type: text/markdown" in text and "# bcast for Python" in text, text[:2000]
EOF
echo "python-ci: maturin build --profile wheel (${wheel[0]##*/}): $(since "$t") s"

t=$(date +%s.%N)
"$venv/bin/python" -m pip install --quiet "${wheel[0]}"
echo "python-ci: pip install of the wheel: $(since "$t") s"

t=$(date +%s.%N)
status=0
# From the tests folder, so that `import bcast` is the installed wheel.
(cd "$here/tests" && "$venv/bin/python" -m pytest -q -p no:cacheprovider .) || status=$?
echo "python-ci: pytest: $(since "$t") s"
echo "python-ci: total: $(since "$start") s"
exit "$status"
