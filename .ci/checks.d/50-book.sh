#!/usr/bin/env bash
# The book (docs/book, mdBook): installs mdbook when it is missing and builds
# the book into target/book. Its samples run in `cargo test` (tests/book.rs).
# Sourced by .ci/run after the test command; also runs on its own.
# Debian has no mdbook package, so it comes from crates.io, pinned; without
# the live-reload server (`serve`/`watch` features) it builds in about three
# minutes on two cores.
MDBOOK_VERSION=0.5.4
if ! command -v mdbook >/dev/null; then
  if apt-cache policy mdbook 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    echo "== book: apt-get install mdbook"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mdbook
  else
    echo "== book: cargo install mdbook $MDBOOK_VERSION (no serve/watch features)"
    cargo install mdbook --version "$MDBOOK_VERSION" --locked \
      --no-default-features --features search
  fi
fi
echo "== book: mdbook build docs/book ($(mdbook --version))"
mdbook build docs/book
