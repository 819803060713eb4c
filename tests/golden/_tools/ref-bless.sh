#!/usr/bin/env bash
# Regenerates expected files of golden cases from the public reference implementation.
# Usage (from the repository root): tests/golden/_tools/ref-bless.sh tests/golden/AREA/*.sns
# Skips fixtures (names or directories starting with '_') and hand-written '# decision:' cases.
# Writes NAME.out (stdout), NAME.err (first stderr line, only if stderr is non-empty) and
# NAME.status (only when the exit status is not the runner's default: 1 with .err, else 0).
# '# args: repl' cases run `sense repl` WITHOUT the path (the reference rejects extra arguments).
# REF_SENSE: a script that runs the reference (`$REF_SENSE FILE` like `sense run`,
# printing uncaught errors as `<Class>: [line N] message`; `$REF_SENSE --cli ARGS`
# its own CLI), e.g. a wrapper around a virtualenv with PyPI sense-lang==0.20.0.
REF=${REF_SENSE:?set REF_SENSE to a script that runs the reference}
tmp=$(mktemp) mem=$(mktemp -d)
trap 'rm -rf "$tmp" "$mem"' EXIT
for f in "$@"; do
  # A fresh directory for `persistent memory` per case, as tests/golden.rs does.
  rm -rf "$mem" && mkdir -p "$mem"
  export SENSE_MEMORY_DIR="$mem"
  base=$(basename "$f")
  case "$f" in _*|*/_*) continue;; esac
  if grep -q '^# decision:' "$f"; then echo "SKIP(decision) $f"; continue; fi
  stem=${f%.sns}
  first=$(head -1 "$f")
  inp=/dev/null; [ -f "$stem.in" ] && inp="$stem.in"
  if [[ "$first" == "# args: "* ]]; then
    args=${first#\# args: }
    if [ "$args" = repl ]; then
      timeout 60 $REF --cli repl <"$inp" >"$stem.out" 2>"$tmp"; rc=$?
    else
      timeout 60 $REF --cli $args "$f" <"$inp" >"$stem.out" 2>"$tmp"; rc=$?
    fi
  else
    timeout 60 $REF "$f" <"$inp" >"$stem.out" 2>"$tmp"; rc=$?
  fi
  rm -f "$stem.err" "$stem.status"
  if [ -s "$tmp" ]; then head -1 "$tmp" > "$stem.err"; fi
  if [ -s "$tmp" ]; then def=1; else def=0; fi
  if [ $rc -ne $def ]; then echo $rc > "$stem.status"; fi
  printf '%-55s rc=%d  out=%s err=%s %s\n' "$f" $rc "$(head -c 60 "$stem.out" | tr '\n' '|')" "$( [ -f $stem.err ] && cat $stem.err)" "$( [ -f $stem.status ] && echo status=$(cat $stem.status))"
done
