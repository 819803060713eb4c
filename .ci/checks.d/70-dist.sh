#!/usr/bin/env bash
# Installing and shipping (issue 30 item 2), as a newcomer and a packager
# would, from a fresh clone of the committed tree:
#   1. `cargo install --path . --locked` into a scratch root, then
#      `sense run examples/hello.sns` with only that root's bin on PATH;
#   2. scripts/dist.sh builds the release bundle, which is unpacked in a
#      clean directory and smoke-tested there: the CLI runs, and the README's
#      C host builds against the bundle through its sense.pc, shared and
#      static, and runs with LD_LIBRARY_PATH unset.
# Both builds use the release profile in CI's target directory
# (CARGO_TARGET_DIR), which the later release steps of .ci/run reuse.
# Sourced by .ci/run after the test command; also runs on its own.
# Times measured on two shared cores with a warm release cache: the
# install 82-85 s (the workspace's own crates are built again for the
# clone), the bundle 23 s when the install's build is reused and 142 s when
# sense-ffi's features make crates build again (the extension's npm ci and
# vsce ~15 s of it), the smoke test 3 s: 2 to 4 minutes in all. On a cold
# cache add one release build of the dependencies (~5 min), which the later
# release steps of .ci/run (benchmarks, the comparison) then reuse.
dist_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dist_tmp=$(mktemp -d)
dist_target=${CARGO_TARGET_DIR:-$dist_repo/target}
dist_start=$SECONDS

echo "== dist: cargo install --path . --locked, from a fresh clone"
git clone -q "$dist_repo" "$dist_tmp/clone"
CARGO_TARGET_DIR=$dist_target cargo install --quiet --path "$dist_tmp/clone" --locked \
  --root "$dist_tmp/root"
(cd "$dist_tmp/clone" &&
  env -u LD_LIBRARY_PATH PATH="$dist_tmp/root/bin:/usr/bin:/bin" \
    sense run examples/hello.sns >"$dist_tmp/hello.out")
diff -u "$dist_repo/tests/examples/hello.out" "$dist_tmp/hello.out"
echo "   installed and ran hello.sns in $((SECONDS - dist_start)) s"

dist_step=$SECONDS
echo "== dist: scripts/dist.sh (the release bundle)"
(cd "$dist_tmp/clone" && CARGO_TARGET_DIR=$dist_target sh scripts/dist.sh "$dist_tmp/out")
echo "   built in $((SECONDS - dist_step)) s"

dist_step=$SECONDS
echo "== dist: the bundle, unpacked in a clean directory"
mkdir "$dist_tmp/smoke"
tar -xzf "$dist_tmp"/out/sense-*.tar.gz -C "$dist_tmp/smoke"
dist_bundle=$(echo "$dist_tmp"/smoke/sense-*)
cp "$dist_repo/tests/hosts/c/example_readme.c" "$dist_tmp/smoke/app.c"
(
  cd "$dist_tmp/smoke"
  unset LD_LIBRARY_PATH
  "$dist_bundle/bin/sense" run "$dist_bundle/examples/hello.sns" >hello.out
  diff -u "$dist_repo/tests/examples/hello.out" hello.out
  # shellcheck disable=SC2046
  cc -std=c11 -Wall -Werror app.c \
    $(PKG_CONFIG_PATH=$dist_bundle/lib/pkgconfig pkg-config --cflags --libs sense) -o app
  # shellcheck disable=SC2046
  cc -std=c11 -Wall -Werror app.c \
    $(PKG_CONFIG_PATH=$dist_bundle/lib/pkgconfig pkg-config --static --cflags --libs sense) \
    -o app_static
  for app in ./app ./app_static; do
    "$app" >app.out
    grep -q '^1 passed, 0 failed$' app.out || {
      echo "error: $app against the bundle:" >&2
      cat app.out >&2
      exit 1
    }
  done
  readelf -d app | grep -q 'libsense.so.0' || {
    echo "error: the shared build did not link libsense.so.0" >&2
    exit 1
  }
  if readelf -d app_static | grep -q 'libsense.so'; then
    echo "error: the --static build linked libsense.so" >&2
    exit 1
  fi
  python3 -m zipfile -l "$dist_bundle"/share/sense/sense-lang-*.vsix >vsix.list
  grep -q 'extension/package.json' vsix.list
)
echo "   smoke-tested in $((SECONDS - dist_step)) s; dist checks took $((SECONDS - dist_start)) s"
rm -rf "$dist_tmp"
unset dist_repo dist_tmp dist_target dist_start dist_step dist_bundle
