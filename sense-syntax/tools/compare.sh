#!/usr/bin/env bash
# Dev tool: compares this crate's lexer/parser with the reference on .sns files.
# Usage: sense-syntax/tools/compare.sh [ast|parse|tokens] FILE...
# Prints a unified diff of the two outputs (empty when they agree).
set -eu
mode=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
py=${SENSE_REF_PY:-$HOME/.cache/sense-ref-0.20.0/bin/python}
bin=$(cd "$here/../.." && cargo build -q -p sense-syntax --example parse && echo target/debug/examples/parse)
flag=""
[ "$mode" = parse ] || flag="--$mode"
diff -u <("$py" "$here/ref_oracle.py" "$mode" "$@" | sed -e 's/[[:space:]]*$//' | grep -v '^$') \
        <("$here/../../$bin" $flag "$@" | sed -e 's/[[:space:]]*$//' | grep -v '^$') && echo "agree: $# files"
