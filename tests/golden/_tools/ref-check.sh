#!/usr/bin/env bash
# Compares golden cases with the public reference implementation (PyPI
# sense-lang 0.20.0) without writing anything: prints SAME or DIFF per case,
# and for a DIFF what differs (stdout, the first stderr line, exit status).
# '# decision:' cases are compared too, so the report shows which of them
# really differ.
# Usage (from the repository root):
#   REF_SENSE=path/to/ref-sense tests/golden/_tools/ref-check.sh tests/golden/AREA/*.sns
# REF_SENSE runs the reference: `$REF_SENSE FILE` like `sense run FILE` (uncaught
# errors as `<Class>: [line N] message`), `$REF_SENSE --cli ARGS` its own CLI.
set -u
: "${REF_SENSE:?set REF_SENSE to a script that runs the reference (see the header)}"
out=$(mktemp) err=$(mktemp) mem=$(mktemp -d)
trap 'rm -rf "$out" "$err" "$mem"' EXIT
for f in "$@"; do
  # A fresh directory for `persistent memory` per case, as tests/golden.rs does.
  rm -rf "$mem" && mkdir -p "$mem"
  export SENSE_MEMORY_DIR="$mem"
  case "$f" in _*|*/_*) continue;; esac
  stem=${f%.sns}
  first=$(head -1 "$f")
  inp=/dev/null; [ -f "$stem.in" ] && inp="$stem.in"
  generic=0
  if [[ "$first" == "# args: "* ]]; then
    args=${first#\# args: }
    if [ "$args" = repl ]; then
      timeout 60 "$REF_SENSE" --cli repl <"$inp" >"$out" 2>"$err"; rc=$?
    else
      # shellcheck disable=SC2086
      timeout 60 "$REF_SENSE" --cli $args "$f" <"$inp" >"$out" 2>"$err"; rc=$?
      generic=1
    fi
  elif [ "$inp" != /dev/null ]; then
    # Only the reference CLI reads stdin; it prints the generic `SenseError:`.
    timeout 60 "$REF_SENSE" --cli run "$f" <"$inp" >"$out" 2>"$err"; rc=$?
    generic=1
  else
    timeout 60 "$REF_SENSE" "$f" </dev/null >"$out" 2>"$err"; rc=$?
  fi
  want_err=""; [ -f "$stem.err" ] && want_err=$(head -1 "$stem.err")
  got_err=$(head -1 "$err")
  if [ $generic = 1 ]; then
    # Compare the message after the class: `SenseError: X` vs `SenseTypeError: X`.
    want_err=${want_err#*: }; got_err=${got_err#*: }
  fi
  if [ -f "$stem.status" ]; then want_rc=$(cat "$stem.status");
  elif [ -f "$stem.err" ]; then want_rc=1; else want_rc=0; fi
  what=()
  cmp -s "$out" "$stem.out" || what+=(stdout)
  [ "$want_err" = "$got_err" ] || what+=("stderr: ours '$want_err' reference '$got_err'")
  [ "$want_rc" = "$rc" ] || what+=("status: ours $want_rc reference $rc")
  if [ ${#what[@]} -eq 0 ]; then echo "SAME $f"; else echo "DIFF $f ${what[*]}"; fi
done
