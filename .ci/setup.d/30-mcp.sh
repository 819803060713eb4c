#!/usr/bin/env bash
# MCP servers that this project did not write, for tests/mcp_servers.rs
# and tests/mcp_remote.rs: the reference server
# `@modelcontextprotocol/server-everything` (npm; the remote tests start the
# same command as `SENSE_MCP_EVERYTHING streamableHttp` with PORT set, on
# loopback) and a server built on the `mcp` package (PyPI) in its own
# virtualenv.
# Sourced by .ci/run; idempotent. Exports:
#   SENSE_MCP_EVERYTHING  the server-everything command (stdio by default,
#                         Streamable HTTP with the argument streamableHttp)
#   SENSE_MCP_PYTHON      a python that can `import mcp`
_sense_mcp_dir="${SENSE_MCP_CACHE:-$HOME/.cache/sense-mcp}"
mkdir -p "$_sense_mcp_dir/npm"

if ! command -v npm >/dev/null || ! command -v python3 >/dev/null; then
  echo "== mcp: installing nodejs, npm, python3-venv"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq nodejs npm python3 python3-venv
fi

_sense_mcp_bin="$_sense_mcp_dir/npm/node_modules/.bin/mcp-server-everything"
if [ ! -x "$_sense_mcp_bin" ]; then
  echo "== mcp: npm install @modelcontextprotocol/server-everything into $_sense_mcp_dir/npm"
  npm install --prefix "$_sense_mcp_dir/npm" --no-audit --no-fund --loglevel=error \
    @modelcontextprotocol/server-everything@2026.8.31
fi

_sense_mcp_venv="$_sense_mcp_dir/venv"
if ! "$_sense_mcp_venv/bin/python" -c 'import mcp' 2>/dev/null; then
  echo "== mcp: pip install mcp into $_sense_mcp_venv"
  python3 -m venv "$_sense_mcp_venv"
  "$_sense_mcp_venv/bin/pip" install -q 'mcp>=1.9,<3'
fi

export SENSE_MCP_EVERYTHING="$_sense_mcp_bin"
export SENSE_MCP_PYTHON="$_sense_mcp_venv/bin/python"
echo "== mcp: SENSE_MCP_EVERYTHING=$SENSE_MCP_EVERYTHING SENSE_MCP_PYTHON=$SENSE_MCP_PYTHON"
unset _sense_mcp_dir _sense_mcp_bin _sense_mcp_venv
