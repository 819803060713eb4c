// The Sense extension: highlighting comes from the grammar declared in
// package.json; everything else comes from `sense lsp`, started here over
// stdio through vscode-languageclient.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("sense");
  const command = config.get("server.path", "sense");
  const args = ["lsp", ...config.get("server.extraArgs", [])];
  const serverOptions = {
    run: { command, args, transport: TransportKind.stdio },
    debug: { command, args, transport: TransportKind.stdio },
  };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "sense" },
      { scheme: "untitled", language: "sense" },
    ],
  };
  client = new LanguageClient("sense", "Sense language server", serverOptions, clientOptions);
  context.subscriptions.push(
    vscode.commands.registerCommand("sense.restartServer", () => client.restart())
  );
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
