#!/usr/bin/env bash
# Lua 5.4, the peer of benches/compare/run.py and of the Lua C-API round trip
# in sense-ffi/benches/handoff_vs_lua.rs (linked through pkg-config `lua5.4`).
# Debian's lua5.4 gives the `lua5.4` interpreter, liblua5.4-dev the headers,
# the library and lua5.4.pc. Idempotent: installs only what is missing.
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
