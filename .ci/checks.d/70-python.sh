#!/usr/bin/env bash
# The Python package (bindings/python): installs it with pip into a fresh
# virtualenv and runs its pytest tests (with mypy's stubtest over the type
# stubs). Sourced by .ci/run after the test command; also runs on its own.
# The wheel is built in the dev profile (MATURIN_PEP517_ARGS), which reuses
# what `cargo test --workspace` compiled into target/debug: a release build
# of the whole runtime would take minutes more. pip fetches maturin (the
# build backend) into its isolated build environment.
python_venv=target/python-venv
echo "== python: fresh venv in $python_venv, pip install ./bindings/python (dev profile) + pytest + mypy"
rm -rf "$python_venv"
python3 -m venv "$python_venv"
"$python_venv/bin/pip" install -q pytest mypy
MATURIN_PEP517_ARGS="--profile dev" "$python_venv/bin/pip" install -q ./bindings/python
echo "== python: pytest bindings/python"
SENSE_TEST_ALL=1 "$python_venv/bin/python" -m pytest -q -p no:cacheprovider bindings/python
