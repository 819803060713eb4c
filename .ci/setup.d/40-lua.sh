#!/usr/bin/env bash
# Lua 5.4, the peer Sense is measured against (issue 15):
# - lua5.4: the `lua5.4` interpreter for benches/compare/run.py, and the
#   shared liblua5.4 that the `handoff_vs_lua` group of
#   sense-ffi/benches/c_abi.rs loads at run time;
# - liblua5.4-dev: headers and lua5.4.pc, to build benches/icount/handoff_lua.c
#   (Lua's round trip, counted beside ours by .ci/checks.d/60-icount.sh).
# Idempotent: installs only what is missing.
lua_need=()
command -v lua5.4 >/dev/null || lua_need+=(lua5.4)
pkg-config --exists lua5.4 2>/dev/null || lua_need+=(liblua5.4-dev)
if [ ${#lua_need[@]} -gt 0 ]; then
  echo "== 40-lua: installing ${lua_need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${lua_need[@]}"
else
  echo "== 40-lua: lua5.4 and liblua5.4-dev already installed"
fi
unset lua_need
