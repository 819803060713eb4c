#!/bin/sh
# Installs libsense under a prefix:
#   PREFIX/include/sense.h, sense.hpp, module.modulemap
#   PREFIX/lib/libsense.a, libsense.so.VERSION, libsense.so.0 -> …, libsense.so -> …
#   PREFIX/lib/pkgconfig/sense.pc
#
# Usage: scripts/install.sh PREFIX
# It first builds the `dist` profile (release code, no debug information):
#   cargo build -p sense-ffi --profile dist
# Environment: SENSE_LIB_DIR=DIR installs the libraries found in DIR instead
# (e.g. target/debug); SENSE_NO_BUILD=1 skips the build.
set -eu
. "$(dirname "$0")/common.sh"
one_argument PREFIX "$@"
prefix=$1
major=${version%%.*}

if [ "${SENSE_NO_BUILD:-}" != 1 ]; then
  echo "== cargo build -p sense-ffi --profile dist"
  (cd "$root" && cargo build -p sense-ffi --profile dist)
fi
libdir_in=${SENSE_LIB_DIR:-"${CARGO_TARGET_DIR:-$root/target}/dist"}
for f in libsense.a libsense.so; do
  if [ ! -f "$libdir_in/$f" ]; then
    echo "error: $libdir_in/$f not found (build it, or set SENSE_LIB_DIR)" >&2
    exit 1
  fi
done

echo "== installing libsense $version under $prefix"
mkdir -p "$prefix/include" "$prefix/lib/pkgconfig"
cp "$root/include/sense.h" "$root/include/sense.hpp" "$root/include/module.modulemap" "$prefix/include/"
cp "$libdir_in/libsense.a" "$prefix/lib/libsense.a"
cp "$libdir_in/libsense.so" "$prefix/lib/libsense.so.$version"
ln -sf "libsense.so.$version" "$prefix/lib/libsense.so.$major"
ln -sf "libsense.so.$major" "$prefix/lib/libsense.so"
# The template's prefix line, pointed at this prefix.
abs_prefix=$(cd "$prefix" && pwd)
sed "s|^prefix=.*|prefix=$abs_prefix|" "$root/include/sense.pc" > "$prefix/lib/pkgconfig/sense.pc"
echo "   include/: sense.h sense.hpp module.modulemap"
echo "   lib/: libsense.a libsense.so.$version libsense.so.$major libsense.so"
for f in "libsense.so.$version" libsense.a; do
  bytes=$(wc -c < "$prefix/lib/$f")
  echo "   $f: $(awk -v b="$bytes" 'BEGIN { printf "%.1f MiB", b / 1048576 }')"
done
echo "   lib/pkgconfig/sense.pc (PKG_CONFIG_PATH=$abs_prefix/lib/pkgconfig)"
