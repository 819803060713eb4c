#!/usr/bin/env bash
# Editor support (editors/vscode): the npm packages tests/vscode.rs needs to
# tokenize the TextMate grammar (vscode-textmate, vscode-oniguruma) and to
# drive `sense lsp` with VS Code's protocol client
# (vscode-languageserver-protocol). Sourced by .ci/run; idempotent.
if ! command -v npm >/dev/null; then
  echo "== editor: installing nodejs npm"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq nodejs npm
fi
echo "== editor: npm ci in editors/vscode/test (vscode-textmate, vscode-oniguruma, vscode-languageserver-protocol)"
(cd editors/vscode/test && npm ci --no-audit --no-fund)
