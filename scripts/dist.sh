#!/bin/sh
# Builds the release bundle: one directory and its .tar.gz under OUTDIR.
#
#   sense-VERSION-ARCH-linux/
#     bin/sense                      the CLI, stripped
#     include/sense.h, sense.hpp, module.modulemap
#     lib/libsense.a, libsense.so.VERSION, libsense.so.0 -> …, libsense.so -> …
#     lib/pkgconfig/sense.pc         relocatable: its prefix is ${pcfiledir}/../..
#     share/sense/sense-lang-VERSION.vsix   the VS Code extension
#     share/sense/python/*.whl       the Python wheel, when bindings/python exists
#     examples/hello.sns, README.md
#
# Usage: scripts/dist.sh OUTDIR
# It builds with `cargo build --release --locked` (CARGO_TARGET_DIR is
# honoured). Environment: SENSE_NO_BUILD=1 packs what is already built;
# SENSE_DIST_VSIX=0 leaves the extension out (it needs node and npm, and
# npm's registry for the extension's dependencies); SENSE_DIST_WHEEL=0
# leaves the wheel out.
# .ci/checks.d/70-dist.sh builds it and smoke-tests it from a clean directory.
set -eu
. "$(dirname "$0")/common.sh"
one_argument OUTDIR "$@"
out=$1
name="sense-$version-$(uname -m)-linux"
target=${CARGO_TARGET_DIR:-$root/target}
case $target in /*) ;; *) target=$root/$target ;; esac

if [ "${SENSE_NO_BUILD:-}" != 1 ]; then
  echo "== dist: cargo build --release --locked -p sense -p sense-ffi --lib --bin sense"
  (cd "$root" && cargo build --release --locked -p sense -p sense-ffi --lib --bin sense)
fi
release=$target/release
for f in sense libsense.a libsense.so; do
  if [ ! -f "$release/$f" ]; then
    echo "error: $release/$f not found (build it, or unset SENSE_NO_BUILD)" >&2
    exit 1
  fi
done

mkdir -p "$out"
out=$(cd "$out" && pwd)
bundle=$out/$name
rm -rf "$bundle" "$bundle.tar.gz"
mkdir -p "$bundle/bin" "$bundle/share/sense" "$bundle/examples"

echo "== dist: $name"
cp "$release/sense" "$bundle/bin/sense"
strip "$bundle/bin/sense"
# The headers, the libraries and their links, sense.pc: as installed.
SENSE_NO_BUILD=1 SENSE_LIB_DIR=$release sh "$root/scripts/install.sh" "$bundle" >/dev/null
strip --strip-unneeded "$bundle/lib/libsense.so.$version"
# Debug information only: the archive's symbols are what a link needs.
strip --strip-debug "$bundle/lib/libsense.a"
# Relocatable: pkg-config sets ${pcfiledir} to the directory of the file.
sed 's|^prefix=.*|prefix=${pcfiledir}/../..|' "$bundle/lib/pkgconfig/sense.pc" > "$bundle/sense.pc.tmp"
mv "$bundle/sense.pc.tmp" "$bundle/lib/pkgconfig/sense.pc"
cp "$root/examples/hello.sns" "$bundle/examples/"
cp "$root/README.md" "$bundle/"

if [ "${SENSE_DIST_VSIX:-1}" != 0 ]; then
  if ! command -v npm >/dev/null; then
    echo "error: the VS Code extension needs npm (apt-get install nodejs npm), or set SENSE_DIST_VSIX=0" >&2
    exit 1
  fi
  echo "== dist: the VS Code extension (npm ci, vsce package)"
  # --ignore-scripts: vsce's optional keytar would build a native module
  # that packaging never uses.
  (cd "$root/editors/vscode" &&
    npm ci --no-audit --no-fund --ignore-scripts >/dev/null &&
    npx --no-install vsce package --out "$bundle/share/sense/sense-lang-$version.vsix" </dev/null >/dev/null)
fi

if [ "${SENSE_DIST_WHEEL:-1}" != 0 ] && [ -f "$root/bindings/python/pyproject.toml" ]; then
  echo "== dist: the Python wheel (pip wheel bindings/python)"
  python3 -m pip wheel --quiet --no-deps -w "$bundle/share/sense/python" "$root/bindings/python"
fi

(cd "$out" && tar -czf "$name.tar.gz" "$name")
echo "   $out/$name/"
(cd "$bundle" && find . -type f -o -type l | sort | sed 's|^\./|     |')
bytes=$(wc -c < "$out/$name.tar.gz")
echo "   $out/$name.tar.gz: $(awk -v b="$bytes" 'BEGIN { printf "%.1f MiB", b / 1048576 }')"
