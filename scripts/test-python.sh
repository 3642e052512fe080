#!/usr/bin/env bash
# The Python package's tests, as a new user would run them: a fresh virtual environment,
# `pip install ./python` (maturin builds the extension from this checkout), pytest, and the
# command-line tool built beside it (the tests compare the two releases byte for byte).
#
# Environment: SOSDP_VENV (default target/python-venv; removed and recreated), PYTHON
# (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${SOSDP_VENV:-target/python-venv}"
rm -rf "$venv"
"${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
start=$(date +%s)
"$venv/bin/python" -m pip install --quiet ./python
echo "pip install ./python: $(($(date +%s) - start)) s"
# The `test` extra of python/pyproject.toml, without rebuilding the package.
"$venv/bin/python" -m pip install --quiet pytest scikit-learn tqdm
cargo build --release --bin sosdp
SOSDP_CLI="$PWD/target/release/sosdp" "$venv/bin/python" -m pytest python/tests -q -p no:cacheprovider
